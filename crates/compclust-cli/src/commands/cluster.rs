//! `compclust cluster`.

use super::CmdResult;

/// Arguments of `compclust cluster`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `compclust cluster`.
pub fn run(_args: Args) -> CmdResult {
    anyhow::bail!("`compclust cluster` is not implemented yet")
}
