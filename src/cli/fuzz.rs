//! `ctxfuzz fuzz`.

/// Arguments of `ctxfuzz fuzz`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz fuzz` is not implemented yet")
}
