//! The hierarchy methods of Ghoshdastidar et al. (2019), by name.

use crate::names::named_enum;

/// A hierarchical clustering method of Ghoshdastidar et al. (2019).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HierarchyMethod {
    /// 4-AL, quadruplets-based average linkage (§3.3, eq. 4-5).
    FourAl,
    /// 4K-AL, quadruplets kernel average linkage (§3.2; passive eq. 3, active eq. 1-2).
    FourKAl,
    /// Comparison-based single linkage (§3.1).
    Single,
    /// Comparison-based complete linkage (§3.1).
    Complete,
}

impl HierarchyMethod {
    /// The name used in the paper (`4-AL`, `4K-AL`, `SL`, `CL`).
    pub fn paper_name(self) -> &'static str {
        match self {
            HierarchyMethod::FourAl => "4-AL",
            HierarchyMethod::FourKAl => "4K-AL",
            HierarchyMethod::Single => "SL",
            HierarchyMethod::Complete => "CL",
        }
    }
}

impl std::fmt::Display for HierarchyMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.paper_name())
    }
}

named_enum!(HierarchyMethod, "method" {
    FourAl => "4al" | "4-al" | "4_al",
    FourKAl => "4kal" | "4k-al" | "4-kal" | "4-k-al" | "4k_al" | "4kal-act" | "4k-al-act",
    Single => "sl" | "single",
    Complete => "cl" | "complete",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_paper_names() {
        assert_eq!("4-AL".parse(), Ok(HierarchyMethod::FourAl));
        assert_eq!("4kal".parse(), Ok(HierarchyMethod::FourKAl));
        assert_eq!("CL".parse(), Ok(HierarchyMethod::Complete));
        assert!("al".parse::<HierarchyMethod>().is_err());
    }
}
