//! Benchmarks: similarity.

fn main() {}
