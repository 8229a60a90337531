//! `ctxfuzz check`.

/// Arguments of `ctxfuzz check`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    anyhow::bail!("`ctxfuzz check` is not implemented yet")
}
