//! The `compclust` binary: the command line of [`compclust_cli::run`].

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(compclust_cli::run(std::env::args_os()))
}
