//! `compclust overlap`.

use super::CmdResult;

/// Arguments of `compclust overlap`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `compclust overlap`.
pub fn run(_args: Args) -> CmdResult {
    anyhow::bail!("`compclust overlap` is not implemented yet")
}
