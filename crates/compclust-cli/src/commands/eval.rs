//! `compclust eval`.

use super::CmdResult;

/// Subcommands of `compclust eval`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {}

/// Run `compclust eval`.
pub fn run(command: Command) -> CmdResult {
    match command {}
}
