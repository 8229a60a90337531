//! `ctxfuzz sweep`.

/// Arguments of `ctxfuzz sweep`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz sweep` is not implemented yet")
}
