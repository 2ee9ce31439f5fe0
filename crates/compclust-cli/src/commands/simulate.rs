//! `compclust simulate`.

use super::CmdResult;

/// Subcommands of `compclust simulate`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {}

/// Run `compclust simulate`.
pub fn run(command: Command) -> CmdResult {
    match command {}
}
