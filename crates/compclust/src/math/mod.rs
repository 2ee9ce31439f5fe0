//! Numerical ground floor: counter-based random streams ([`rng`]) and special functions
//! ([`special`]). Every other module takes its random numbers and normal-distribution functions
//! from here.

pub mod rng;
pub mod special;
