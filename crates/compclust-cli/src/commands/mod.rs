//! One module per subcommand. Each exposes `Args` (or `Command`) and `run`.

pub mod bench;
pub mod cluster;
pub mod convert;
pub mod crowd;
pub mod demo;
pub mod design;
pub mod embed;
pub mod eval;
pub mod experiment;
pub mod hierarchy;
pub mod overlap;
pub mod read_args;
pub mod serve;
pub mod simulate;

/// What a subcommand returns: the process exit code, or an error printed as `error: ...`.
pub type CmdResult = anyhow::Result<ExitCode>;

/// The exit status of a subcommand (EXIT STATUS in `--help`): a number rather than
/// `std::process::ExitCode`, so that the Python console script can return it too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitCode(pub u8);

impl ExitCode {
    /// Every output was written.
    pub const SUCCESS: ExitCode = ExitCode(0);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> Self {
        ExitCode(code)
    }
}
