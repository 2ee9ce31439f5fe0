//! Experiments of this area (see `docs/REPRODUCTION.md`).

use super::Experiment;

/// The experiments of this module, in listing order.
pub fn experiments() -> Vec<Box<dyn Experiment>> {
    Vec::new()
}
