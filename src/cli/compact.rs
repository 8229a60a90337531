//! `ctxfuzz compact`.

/// Arguments of `ctxfuzz compact`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz compact` is not implemented yet")
}
