//! `ctxfuzz minimize`.

/// Arguments of `ctxfuzz minimize`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz minimize` is not implemented yet")
}
