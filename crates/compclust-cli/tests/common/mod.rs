//! Helpers shared by the integration tests that run `compclust serve`.

use std::io::{BufRead, BufReader};
use std::process::Child;

/// The URL a just-started `compclust serve` prints as its first line (`listening on URL`);
/// the child must have been spawned with a piped stdout.
pub fn listening_url(child: &mut Child) -> String {
    let out = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line).expect("read");
    line.trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string()
}
