//! Ordinal embedding baselines: t-STE (van der Maaten & Weinberger 2012).
