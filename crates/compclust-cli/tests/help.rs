//! Every subcommand's `--help` shows what it reads or writes with an example.

use std::process::Command;

const COMMANDS: &[&[&str]] = &[
    &["demo"],
    &["cluster"],
    &["hierarchy"],
    &["overlap"],
    &["design"],
    &["embed"],
    &["convert"],
    &["experiment"],
    &["serve"],
    &["crowd"],
    &["bench"],
    &["simulate", "planted"],
    &["simulate", "hierarchy"],
    &["simulate", "overlap"],
    &["eval", "ari"],
    &["eval", "aari"],
    &["eval", "dasgupta"],
    &["eval", "gram"],
];

#[test]
fn every_subcommand_help_has_an_example() {
    for cmd in COMMANDS {
        let out = Command::new(env!("CARGO_BIN_EXE_compclust"))
            .args(*cmd)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{cmd:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.to_lowercase().contains("example"),
            "`compclust {} --help` shows no example",
            cmd.join(" ")
        );
    }
}
