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
/// solve takes minutes, and a bar that moves only between solves looks stuck. Its length is
/// [`BAR_SCALE`]; the position is a share of it ([`monotone_share`]). It starts empty and its
/// fixed parts take 34 columns, so the line fits 80 with the message cut to the terminal.
pub fn solver_bar(label: &str) -> ProgressBar {
    let pb = ProgressBar::new(BAR_SCALE);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>5} [{bar:20}] {elapsed:>4} {wide_msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb.set_position(0);
    pb.enable_steady_tick(std::time::Duration::from_millis(250));
    pb
}

/// The length of a bar whose total grows while it runs.
pub const BAR_SCALE: u64 = 1000;

/// The share (of [`BAR_SCALE`]) to draw for `done` of `total` steps, never less than the
/// share `shown` already drawn: a bar whose total grows stays put instead of running
/// backwards.
pub fn monotone_share(shown: u64, done: usize, total: usize) -> u64 {
    let share = (done as u64)
        .saturating_mul(BAR_SCALE)
        .checked_div(total as u64)
        .unwrap_or(0)
        .min(BAR_SCALE);
    shown.max(share)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// SPUR's totals: 2 after the SDP-λ solves, then 2 + the SDP-k range (here 4): the share
    /// never goes down, starts at 0 and ends full.
    #[test]
    fn a_growing_total_never_runs_the_bar_backwards() {
        let steps = [(0, 2), (1, 2), (2, 2), (3, 6), (4, 6), (5, 6), (6, 6)];
        let mut shown = 0;
        let mut drawn = vec![shown];
        for (done, total) in steps {
            shown = monotone_share(shown, done, total);
            drawn.push(shown);
        }
        assert!(drawn.windows(2).all(|w| w[0] <= w[1]), "{drawn:?}");
        assert_eq!(drawn[0], 0);
        assert_eq!(*drawn.last().unwrap(), BAR_SCALE);
        assert_eq!(monotone_share(0, 3, 0), 0);
        assert_eq!(monotone_share(0, 9, 3), BAR_SCALE);
    }
}
