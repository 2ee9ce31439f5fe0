//! Benchmarks: overlap.

fn main() {}
