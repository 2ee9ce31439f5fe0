//! `compclust demo`.

use super::CmdResult;

/// Arguments of `compclust demo`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `compclust demo`.
pub fn run(_args: Args) -> CmdResult {
    anyhow::bail!("`compclust demo` is not implemented yet")
}
