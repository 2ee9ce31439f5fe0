//! `compclust convert`.

use super::CmdResult;

/// Arguments of `compclust convert`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `compclust convert`.
pub fn run(_args: Args) -> CmdResult {
    anyhow::bail!("`compclust convert` is not implemented yet")
}
