//! Benchmarks: sdp.

fn main() {}
