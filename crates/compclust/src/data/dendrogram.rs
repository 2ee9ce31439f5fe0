//! A binary merge tree in scipy's linkage convention.

use serde::{Deserialize, Serialize};

/// One merge: clusters `a` and `b` (ids `< n` are leaves; id `n + s` is the cluster made at
/// step `s`) join at `height` into a cluster of `size` leaves.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    /// First cluster id.
    pub a: usize,
    /// Second cluster id.
    pub b: usize,
    /// Merge height (dissimilarity, or merge index when the method has none).
    pub height: f64,
    /// Number of leaves in the new cluster.
    pub size: usize,
}

/// Problems with a dendrogram read from a file or built by hand.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DendrogramError {
    /// A step refers to a cluster that does not exist (yet) or was already merged.
    #[error("step {step}: cluster id {id} is not an active cluster")]
    BadId {
        /// The step index.
        step: usize,
        /// The offending id.
        id: usize,
    },
    /// A step's size is not the sum of its children's sizes.
    #[error("step {step}: size {size} should be {expected}")]
    BadSize {
        /// The step index.
        step: usize,
        /// The size given.
        size: usize,
        /// The sum of the children's sizes.
        expected: usize,
    },
    /// The number of steps is not `n - 1`.
    #[error("{n} items need {} merge steps, found {steps}", n.saturating_sub(1))]
    StepCount {
        /// Items.
        n: usize,
        /// Steps found.
        steps: usize,
    },
    /// `k` is not in `1..=n`.
    #[error("cannot cut {n} items into {k} clusters")]
    BadCut {
        /// Items.
        n: usize,
        /// Requested clusters.
        k: usize,
    },
}

/// A full dendrogram over `n` leaves: `n - 1` merges (scipy's linkage matrix, kodama's steps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dendrogram {
    n: usize,
    steps: Vec<Merge>,
}

impl Dendrogram {
    /// Check and wrap `steps` over `n` leaves.
    pub fn new(n: usize, steps: Vec<Merge>) -> Result<Self, DendrogramError> {
        if steps.len() != n.saturating_sub(1) {
            return Err(DendrogramError::StepCount {
                n,
                steps: steps.len(),
            });
        }
        let mut size = vec![1usize; n];
        let mut alive = vec![true; n];
        size.reserve(steps.len());
        alive.reserve(steps.len());
        for (s, m) in steps.iter().enumerate() {
            for id in [m.a, m.b] {
                if id >= size.len() || !alive[id] || m.a == m.b {
                    return Err(DendrogramError::BadId { step: s, id });
                }
            }
            let expected = size[m.a] + size[m.b];
            if m.size != expected {
                return Err(DendrogramError::BadSize {
                    step: s,
                    size: m.size,
                    expected,
                });
            }
            alive[m.a] = false;
            alive[m.b] = false;
            size.push(expected);
            alive.push(true);
        }
        Ok(Dendrogram { n, steps })
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.n
    }

    /// The merges in order.
    pub fn steps(&self) -> &[Merge] {
        &self.steps
    }

    /// FNV-1a over the merged cluster ids, in order: equal dendrograms (heights aside) have
    /// equal digests, so that benchmarks can show that two builds merged alike.
    pub fn digest(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for s in &self.steps {
            for x in [s.a as u64, s.b as u64] {
                h = (h ^ x).wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }

    /// Flat clusters after undoing the last `k - 1` merges: a label in `0..k` per leaf,
    /// numbered in order of each cluster's smallest leaf.
    pub fn cut(&self, k: usize) -> Result<Vec<usize>, DendrogramError> {
        let n = self.n;
        if k == 0 || k > n.max(1) {
            return Err(DendrogramError::BadCut { n, k });
        }
        // union-find over the first n - k merges
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut rep = Vec::with_capacity(self.steps.len()); // leaf representative of each new id
        let leaf_of = |id: usize, rep: &Vec<usize>| if id < n { id } else { rep[id - n] };
        for m in &self.steps[..n - k] {
            let (ra, rb) = (
                find(&mut parent, leaf_of(m.a, &rep)),
                find(&mut parent, leaf_of(m.b, &rep)),
            );
            parent[rb] = ra;
            rep.push(ra);
        }
        let mut label = vec![usize::MAX; n];
        let mut root_label = std::collections::HashMap::new();
        for (i, l) in label.iter_mut().enumerate() {
            let r = find(&mut parent, i);
            let next = root_label.len();
            *l = *root_label.entry(r).or_insert(next);
        }
        Ok(label)
    }

    /// The leaves of every cluster: index `i < n` is leaf `i`, `n + s` the cluster of step `s`.
    pub fn members(&self) -> Vec<Vec<usize>> {
        let mut m: Vec<Vec<usize>> = (0..self.n).map(|i| vec![i]).collect();
        for s in &self.steps {
            let mut v = m[s.a].clone();
            v.extend_from_slice(&m[s.b]);
            m.push(v);
        }
        m
    }

    /// Newick text with the given leaf labels and branch lengths from the heights.
    pub fn to_newick(&self, labels: &[String]) -> String {
        fn esc(s: &str) -> String {
            if s.chars().any(|c| "(),:;' \t\n\r[]".contains(c)) {
                format!("'{}'", s.replace('\'', "''"))
            } else {
                s.to_string()
            }
        }
        let n = self.n;
        if n == 0 {
            return ";".into();
        }
        if n == 1 {
            return format!("{};", esc(&labels[0]));
        }
        let height = |id: usize| {
            if id < n {
                0.0
            } else {
                self.steps[id - n].height
            }
        };
        let mut text: Vec<String> = labels.iter().map(|l| esc(l)).collect();
        for s in &self.steps {
            let bl = |id: usize| (s.height - height(id)).max(0.0);
            let t = format!("({}:{},{}:{})", text[s.a], bl(s.a), text[s.b], bl(s.b));
            text.push(t);
        }
        format!("{};", text.last().unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Dendrogram {
        // leaves 0..4: (0,1) -> 4, (2,3) -> 5, (4,5) -> 6
        Dendrogram::new(
            4,
            vec![
                Merge {
                    a: 0,
                    b: 1,
                    height: 1.0,
                    size: 2,
                },
                Merge {
                    a: 2,
                    b: 3,
                    height: 2.0,
                    size: 2,
                },
                Merge {
                    a: 4,
                    b: 5,
                    height: 3.0,
                    size: 4,
                },
            ],
        )
        .unwrap()
    }

    #[test]
    fn digest_follows_the_merges_not_the_heights() {
        let d = example();
        let mut steps = d.steps().to_vec();
        steps.iter_mut().for_each(|m| m.height *= 2.0);
        assert_eq!(
            Dendrogram::new(4, steps.clone()).unwrap().digest(),
            d.digest()
        );
        // (2,3) first, then (0,1): another dendrogram, another digest
        steps.swap(0, 1);
        assert_ne!(Dendrogram::new(4, steps).unwrap().digest(), d.digest());
    }

    #[test]
    fn cut_undoes_last_merges() {
        let d = example();
        assert_eq!(d.cut(1).unwrap(), vec![0, 0, 0, 0]);
        assert_eq!(d.cut(2).unwrap(), vec![0, 0, 1, 1]);
        assert_eq!(d.cut(4).unwrap(), vec![0, 1, 2, 3]);
        assert!(d.cut(5).is_err());
    }

    #[test]
    fn rejects_bad_steps() {
        let bad = vec![Merge {
            a: 0,
            b: 0,
            height: 1.0,
            size: 2,
        }];
        assert!(Dendrogram::new(2, bad).is_err());
        let bad = vec![Merge {
            a: 0,
            b: 1,
            height: 1.0,
            size: 3,
        }];
        assert!(matches!(
            Dendrogram::new(2, bad),
            Err(DendrogramError::BadSize { .. })
        ));
    }

    #[test]
    fn newick_and_json() {
        let d = example();
        let l: Vec<String> = ["a", "b", "c", "d e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(d.to_newick(&l), "((a:1,b:1):2,(c:2,'d e':2):1);");
        let j = serde_json::to_string(&d).unwrap();
        let back: Dendrogram = serde_json::from_str(&j).unwrap();
        assert_eq!(back, d);
        assert_eq!(d.members()[6], vec![0, 1, 2, 3]);
    }
}
