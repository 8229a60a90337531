//! `ctxfuzz scan`.

/// Arguments of `ctxfuzz scan`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz scan` is not implemented yet")
}
