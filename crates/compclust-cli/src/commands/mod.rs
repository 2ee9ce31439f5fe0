//! One module per subcommand. Each exposes `Args` (or `Command`) and `run`.

pub mod cluster;
pub mod convert;
pub mod crowd;
pub mod demo;
pub mod design;
pub mod eval;
pub mod experiment;
pub mod hierarchy;
pub mod overlap;
pub mod read_args;
pub mod serve;
pub mod simulate;

/// What a subcommand returns: the process exit code, or an error printed as `error: ...`.
pub type CmdResult = anyhow::Result<std::process::ExitCode>;
