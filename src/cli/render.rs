//! `ctxfuzz render`.

/// Arguments of `ctxfuzz render`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz render` is not implemented yet")
}
