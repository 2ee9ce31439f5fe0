//! One entry point for the hierarchy methods of Ghoshdastidar, Perrot & von Luxburg (2019):
//! [`HierarchyParams`] picks the method and holds every option; [`HierarchyParams::fit`] builds
//! the dendrogram from a passive set of comparisons, [`HierarchyParams::run`] asks an oracle
//! (the active methods). Both return a [`Hierarchy`]: the dendrogram and a [`HierarchyInfo`].

use crate::active::{Oracle, RunOutcome, run};
use crate::data::{Comparisons, Quadruplet};
use crate::observe::Observer;

use super::four_al::FourAlParams;
use super::kernel::{ActiveKernelParams, four_k_al};
use super::linkage::{Linkage, LinkageMachine, QuadrupletTable};
use super::{Dendrogram, HierarchyError, HierarchyMethod};

/// Settings of a hierarchical clustering from comparisons (Ghoshdastidar et al. 2019, §3):
/// the method, 4-AL's initial clusters (§4.1, "4-AL-I3 / 4-AL-I5"), the options of active
/// 4K-AL (eq. 1-2) and the seed. Build with [`HierarchyParams::new`] and the `with_*` setters;
/// [`HierarchyParams::check`] validates every field and is called once by `fit` and `run`.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyParams {
    /// Which method.
    pub method: HierarchyMethod,
    /// 4-AL only: a partition of the items (one label per item) merged first, at height 0.
    pub initial_clusters: Option<Vec<usize>>,
    /// Active 4K-AL only: reference pairs and landmark probability (its `seed` is replaced by
    /// [`HierarchyParams::seed`]).
    pub active: ActiveKernelParams,
    /// Seed of every random choice (active 4K-AL's references and landmarks, the pivots of
    /// SL / CL's sort; 4-AL and passive 4K-AL are deterministic).
    pub seed: u64,
}

/// What a hierarchy run reports besides its dendrogram.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyInfo {
    /// The method that built the tree.
    pub method: HierarchyMethod,
    /// Whether the comparisons were asked of an oracle ([`HierarchyParams::run`]) rather than
    /// taken from a passive set ([`HierarchyParams::fit`]).
    pub active: bool,
    /// Passive 4-AL / 4K-AL: distinct informative comparisons used (unordered pair versus
    /// pair, net count ≠ 0). SL / CL, and every active run: comparisons asked (looked up in
    /// the passive set, or answered by the oracle).
    pub comparisons: usize,
    /// Batches of questions asked (crowd rounds: the questions of one batch do not depend on
    /// each other's answers). SL / CL and active 4K-AL; 0 for passive 4-AL and 4K-AL.
    pub rounds: usize,
    /// 4-AL: merges made inside the initial clusters (height 0) before 4-AL proper.
    pub initial_merges: usize,
}

/// A fitted hierarchy: the dendrogram and how it was obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct Hierarchy {
    /// The dendrogram (scipy linkage convention).
    pub dendrogram: Dendrogram,
    /// Run information.
    pub info: HierarchyInfo,
}

impl HierarchyParams {
    /// `method` with its defaults: no initial clusters, the default active options, seed 0.
    pub fn new(method: HierarchyMethod) -> Self {
        HierarchyParams {
            method,
            initial_clusters: None,
            active: ActiveKernelParams::default(),
            seed: 0,
        }
    }

    /// Set 4-AL's initial clusters (one label per item, any label values).
    pub fn with_initial_clusters(mut self, labels: Vec<usize>) -> Self {
        self.initial_clusters = Some(labels);
        self
    }

    /// Set the options of active 4K-AL.
    pub fn with_active(mut self, active: ActiveKernelParams) -> Self {
        self.active = active;
        self
    }

    /// Set the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validate every field for `n` items (the one place hierarchy parameters are checked).
    pub fn check(&self, n: usize) -> Result<(), HierarchyError> {
        if n == 0 {
            return Err(HierarchyError::NoItems);
        }
        if let Some(labels) = &self.initial_clusters {
            if self.method != HierarchyMethod::FourAl {
                return Err(HierarchyError::BadParameter {
                    name: "initial_clusters",
                    value: format!("{} labels", labels.len()),
                    reason: "only 4-AL starts from initial clusters",
                });
            }
            self.four_al().check(n)?;
        }
        if self.method == HierarchyMethod::FourKAl {
            self.active_kernel().check(n)?;
        }
        Ok(())
    }

    /// The hierarchy of `n` items from a passive set of comparisons (triplets are read as
    /// quadruplets `(i,j,i,k)`, App. B.3): 4-AL (eq. 4-5), passive 4K-AL (eq. 3), or SL / CL
    /// (§3.1), which fail with [`HierarchyError::MissingComparisons`] when a comparison their
    /// sort needs is absent. `observer` sees 4-AL's merges.
    pub fn fit(
        &self,
        n: usize,
        comparisons: &Comparisons,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Hierarchy, HierarchyError> {
        self.check(n)?;
        let info = |comparisons, initial_merges| HierarchyInfo {
            method: self.method,
            active: false,
            comparisons,
            rounds: 0,
            initial_merges,
        };
        Ok(match self.method {
            HierarchyMethod::FourAl => {
                let fit = self.four_al().fit(n, comparisons, observer)?;
                Hierarchy {
                    dendrogram: fit.dendrogram,
                    info: info(fit.info.comparisons, fit.info.initial_merges),
                }
            }
            HierarchyMethod::FourKAl => {
                let fit = four_k_al(n, comparisons)?;
                Hierarchy {
                    dendrogram: fit.dendrogram,
                    info: info(fit.comparisons, 0),
                }
            }
            HierarchyMethod::Single | HierarchyMethod::Complete => {
                let mut table = QuadrupletTable::new(n, comparisons)?;
                match self.run_checked(n, &mut table)? {
                    RunOutcome::Finished { output, .. } => Hierarchy {
                        info: HierarchyInfo {
                            active: false,
                            ..output.info
                        },
                        ..output
                    },
                    RunOutcome::Missing {
                        missing, queries, ..
                    } => {
                        return Err(HierarchyError::MissingComparisons {
                            method: self.method.paper_name(),
                            missing,
                            answered: queries,
                        });
                    }
                }
            }
        })
    }

    /// Ask `oracle` ("is w_ab > w_cd?") for the comparisons an active method needs on `n`
    /// items: SL / CL (§3.1) or active 4K-AL (eq. 1-2). Answers the oracle lacks are a value,
    /// [`RunOutcome::Missing`], not an error: ask them and run again. 4-AL needs a passive
    /// set ([`HierarchyError::NotActive`]).
    pub fn run<O: Oracle<Quadruplet, bool>>(
        &self,
        n: usize,
        oracle: &mut O,
    ) -> Result<RunOutcome<Hierarchy, Quadruplet>, HierarchyError> {
        self.check(n)?;
        self.run_checked(n, oracle)
    }

    fn run_checked<O: Oracle<Quadruplet, bool>>(
        &self,
        n: usize,
        oracle: &mut O,
    ) -> Result<RunOutcome<Hierarchy, Quadruplet>, HierarchyError> {
        let info = |comparisons, rounds| HierarchyInfo {
            method: self.method,
            active: true,
            comparisons,
            rounds,
            initial_merges: 0,
        };
        match self.method {
            HierarchyMethod::Single | HierarchyMethod::Complete => {
                let linkage = if self.method == HierarchyMethod::Single {
                    Linkage::Single
                } else {
                    Linkage::Complete
                };
                run(LinkageMachine::new(n, linkage, self.seed)?, oracle).try_map(
                    |d, queries, rounds| {
                        Ok(Hierarchy {
                            dendrogram: d?,
                            info: info(queries, rounds),
                        })
                    },
                )
            }
            HierarchyMethod::FourKAl => {
                run(self.active_kernel().machine(n)?, oracle).try_map(|fit, queries, rounds| {
                    Ok(Hierarchy {
                        dendrogram: fit?.dendrogram,
                        info: info(queries, rounds),
                    })
                })
            }
            HierarchyMethod::FourAl => Err(HierarchyError::NotActive {
                method: self.method.paper_name(),
            }),
        }
    }

    fn four_al(&self) -> FourAlParams {
        match &self.initial_clusters {
            Some(labels) => FourAlParams::new().with_initial_clusters(labels.clone()),
            None => FourAlParams::new(),
        }
    }

    fn active_kernel(&self) -> ActiveKernelParams {
        ActiveKernelParams {
            seed: self.seed,
            ..self.active.clone()
        }
    }
}
