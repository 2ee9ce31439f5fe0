//! Progress bars on stderr (hidden when stderr is not a terminal).

#![allow(dead_code)]

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for `len` steps with a message.
pub fn bar(len: u64, msg: impl Into<String>) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({elapsed}, eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_message(msg.into());
    pb
}

/// A spinner for work of unknown length.
pub fn spinner(msg: impl Into<String>) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    pb.set_message(msg.into());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}
