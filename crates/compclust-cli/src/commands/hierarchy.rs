//! `compclust hierarchy`.

use super::CmdResult;

/// Arguments of `compclust hierarchy`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `compclust hierarchy`.
pub fn run(_args: Args) -> CmdResult {
    anyhow::bail!("`compclust hierarchy` is not implemented yet")
}
