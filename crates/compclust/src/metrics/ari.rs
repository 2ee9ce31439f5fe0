//! Adjusted Rand index (Hubert & Arabie 1985).
