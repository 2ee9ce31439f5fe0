//! Benchmarks: embed.

fn main() {}
