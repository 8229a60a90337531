//! `ctxfuzz guard`.

/// Arguments of `ctxfuzz guard`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz guard` is not implemented yet")
}
