//! `ctxfuzz replay`.

/// Arguments of `ctxfuzz replay`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz replay` is not implemented yet")
}
