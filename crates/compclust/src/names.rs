//! Names of the method choices (`4al`, `sl`, `kmeans`, `adds`, …) as users type them.
//!
//! Every choice enum is named through one macro, so they all follow one rule: a name is
//! matched after trimming, ignoring ASCII case, against the variant's name or one of its
//! listed aliases (`4-AL`, `single`, `k-means`). The same table gives `name()`, `FromStr`
//! (used by the Python bindings and by library users) and, with the `clap` feature, the
//! `clap::ValueEnum` of the command line, whose `--help` lists the names.

/// A name that is none of the choices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}`; expected one of {}", expected.join(", "))]
pub struct UnknownName {
    /// What was being named ("method", "similarity", …).
    pub what: &'static str,
    /// The text given.
    pub given: String,
    /// The accepted names (aliases left out).
    pub expected: Vec<&'static str>,
}

/// Gives a fieldless enum its names: `ALL`, `name()`, `aliases()`, `FromStr` with the rule of
/// this module, and `clap::ValueEnum` when the `clap` feature is on.
///
/// ```ignore
/// named_enum!(Linkage, "linkage" {
///     Single => "sl" | "single",
///     Complete => "cl" | "complete",
/// });
/// ```
macro_rules! named_enum {
    ($ty:ident, $what:literal { $($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        impl $ty {
            /// Every choice, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The name users type (command line, Python).
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// Other spellings accepted for this choice.
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    $($ty::$variant => &[$($alias),*]),+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let t = s.trim();
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| {
                        v.name().eq_ignore_ascii_case(t)
                            || v.aliases().iter().any(|a| a.eq_ignore_ascii_case(t))
                    })
                    .ok_or_else(|| $crate::names::UnknownName {
                        what: $what,
                        given: s.to_string(),
                        expected: Self::ALL.iter().map(|v| v.name()).collect(),
                    })
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                Self::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.name()).aliases(self.aliases().iter().copied()))
            }
        }
    };
}

pub(crate) use named_enum;
