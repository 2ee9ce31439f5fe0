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

/// A bar over the trials of an experiment, named after it, whose message names the trial in
/// progress.
pub fn trials_bar(name: &str) -> ProgressBar {
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:20}] {pos}/{len} ({elapsed}, eta {eta}) {wide_msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    pb.set_prefix(name.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(500));
    pb
}

/// A bar over the SDP solves of SPUR (or the one SDP-k), whose message shows the solve in
/// progress, its iteration and its largest residual against the tolerance: at n ≈ 1000 one
/// solve takes minutes, and a bar that moves only between solves looks stuck.
pub fn solver_bar(label: &str) -> ProgressBar {
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>5} [{bar:20}] {pos}/{len} ({elapsed}) {wide_msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(250));
    pb
}

/// The message of [`solver_bar`] for one residual check.
pub fn solver_message(c: &compclust::sdp::SdpCheck) -> String {
    let problem = match c.problem {
        compclust::sdp::SdpProblem::Lambda(l) => format!("SDP-λ λ={l:.1}"),
        compclust::sdp::SdpProblem::K(k) => format!("SDP-k k={k}"),
    };
    format!(
        "{problem} it {}, residual {:.1e} → {:.0e}",
        c.iteration,
        c.worst(),
        c.tol
    )
}
