//! Comparison-based similarities: AddS-3, AddS-4 (001 §4), MulK-3, MulK-4 (000 App. A).
