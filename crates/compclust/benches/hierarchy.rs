//! Benchmarks: hierarchy.

fn main() {}
