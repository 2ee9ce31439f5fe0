//! The probability toolkit of research note §2 for the uniform ensemble: hypergeometric
//! priors h(s), the triangle probability π(s) under any response law g, vote rates, the
//! Bernstein / Hoeffding sample-size rules (§2.4) and the moment estimator of q (§4.7).

/// Binomial coefficient C(n, r) as f64; 0 when r < 0, r > n or n < 0.
pub fn binom(n: i64, r: i64) -> f64 {
    if r < 0 || n < 0 || r > n {
        return 0.0;
    }
    let r = r.min(n - r);
    let mut c = 1.0;
    for t in 0..r {
        c = c * (n - t) as f64 / (t + 1) as f64;
    }
    c
}

/// Complementary error function (Numerical Recipes `erfcc`, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let ans = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { ans } else { 2.0 - ans }
}

/// Standard normal CDF Φ.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The law of one binary answer given the inner product s = A_iᵀA_j (note §2.1, "general
/// response law"): g(s) = P(Y = 1 | s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResponseLaw {
    /// Quantized through BSC(q): g(0) = q, g(s ≥ 1) = 1 − q.
    Bsc {
        /// Flip probability.
        q: f64,
    },
    /// Dithered: g(s) = Φ((s − θ)/σ).
    Dither {
        /// Noise standard deviation.
        sigma: f64,
        /// Quantizer threshold.
        theta: f64,
    },
}

impl ResponseLaw {
    /// g(s) = P(Y = 1 | A_iᵀA_j = s).
    pub fn g(&self, s: usize) -> f64 {
        match *self {
            ResponseLaw::Bsc { q } => {
                if s == 0 {
                    q
                } else {
                    1.0 - q
                }
            }
            ResponseLaw::Dither { sigma, theta } => normal_cdf((s as f64 - theta) / sigma),
        }
    }
}

/// Closed forms of note §2.1 for the uniform ensemble (rows uniform over weight-Δ vectors of
/// length k).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniformStats {
    /// Number of clusters k.
    pub k: usize,
    /// Clusters per item Δ.
    pub delta: usize,
}

impl UniformStats {
    fn c(&self, n: i64, r: i64) -> f64 {
        binom(n, r)
    }

    /// h(s) = C(Δ,s)·C(k−Δ, Δ−s)/C(k,Δ): prior of the inner product of two random rows.
    pub fn h(&self, s: usize) -> f64 {
        let (k, d, s) = (self.k as i64, self.delta as i64, s as i64);
        self.c(d, s) * self.c(k - d, d - s) / self.c(k, d)
    }

    /// p0 = C(k−Δ, Δ)/C(k, Δ): a random row misses a given row.
    pub fn p0(&self) -> f64 {
        let (k, d) = (self.k as i64, self.delta as i64);
        self.c(k - d, d) / self.c(k, d)
    }

    /// p00(s) = C(k−2Δ+s, Δ)/C(k, Δ): a random row misses two rows sharing s clusters.
    pub fn p00(&self, s: usize) -> f64 {
        let (k, d, s) = (self.k as i64, self.delta as i64, s as i64);
        self.c(k - 2 * d + s, d) / self.c(k, d)
    }

    /// π(s) under BSC(q), closed form of note §2.1:
    /// (1−q)²(1−2p0) + 2q(1−q)p0 + (1−2q)²·p00(s).
    pub fn pi_bsc(&self, s: usize, q: f64) -> f64 {
        let p0 = self.p0();
        (1.0 - q).powi(2) * (1.0 - 2.0 * p0)
            + 2.0 * q * (1.0 - q) * p0
            + (1.0 - 2.0 * q).powi(2) * self.p00(s)
    }

    /// π(s) = P(Y_il = 1, Y_jl = 1 | A_iᵀA_j = s) for a third random row l, under any response
    /// law (note §2.1): Σ_{a+b+c+d=Δ} C(s,a)C(Δ−s,b)C(Δ−s,c)C(k−2Δ+s,d)/C(k,Δ) · g(a+b)·g(a+c).
    pub fn pi(&self, s: usize, law: ResponseLaw) -> f64 {
        let (k, d) = (self.k as i64, self.delta as i64);
        let s = s as i64;
        let tot = self.c(k, d);
        let mut p = 0.0;
        for a in 0..=d.min(s) {
            for b in 0..=(d - a).min(d - s) {
                for c in 0..=(d - a - b).min(d - s) {
                    let dd = d - a - b - c;
                    let w = self.c(s, a)
                        * self.c(d - s, b)
                        * self.c(d - s, c)
                        * self.c(k - 2 * d + s, dd);
                    if w > 0.0 {
                        p += w / tot * law.g((a + b) as usize) * law.g((a + c) as usize);
                    }
                }
            }
        }
        p
    }

    /// ρ = 1 − C(k−1−Δ, Δ−1)/C(k−1, Δ−1): an item u ∉ c is similar to a member l of cluster c
    /// (note §2.1, vote probability).
    pub fn rho(&self) -> f64 {
        let (k, d) = (self.k as i64, self.delta as i64);
        1.0 - self.c(k - 1 - d, d - 1) / self.c(k - 1, d - 1)
    }

    /// Expected "yes" rate of u against members of cluster c, for u ∈ c and for u ∉ c, under
    /// any response law: Σ_t H(t)·g(·) with the hypergeometric overlap of the other clusters.
    /// For BSC this is (1 − q, q + (1−2q)ρ) as in note §2.1.
    pub fn vote_rates(&self, law: ResponseLaw) -> (f64, f64) {
        let (k, d) = (self.k as i64, self.delta as i64);
        // u ∈ c: the other Δ−1 clusters of u and of l, both among the k−1 others.
        let tot_in = self.c(k - 1, d - 1);
        let mut r_in = 0.0;
        for t in 0..d {
            let w = self.c(d - 1, t) * self.c(k - 1 - (d - 1), d - 1 - t) / tot_in;
            r_in += w * law.g(1 + t as usize);
        }
        // u ∉ c: u's Δ clusters among the k−1 others, l's other Δ−1 among the same k−1.
        let mut r_out = 0.0;
        for t in 0..=d {
            let w = self.c(d, t) * self.c(k - 1 - d, d - 1 - t) / tot_in;
            r_out += w * law.g(t as usize);
        }
        (r_in, r_out)
    }

    /// |S| from the Bernstein rule of note §2.4: the smallest m with
    /// exp(−(m−2)t²/(2v + 2t/3)) ≤ δ/m² for every level s, where t = (π(s+1) − π(s))/2 and
    /// v = max π(1−π) of the two levels. `None` when two levels have equal π (k < 3Δ − 1 or
    /// an uninformative law): triangle counts cannot separate them.
    pub fn triangle_sample_size(&self, law: ResponseLaw, fail_prob: f64) -> Option<usize> {
        let mut c = f64::INFINITY;
        for s in 0..self.delta {
            let (a, b) = (self.pi(s, law), self.pi(s + 1, law));
            let t = (b - a) / 2.0;
            if t <= 1e-12 {
                return None;
            }
            let v = (a * (1.0 - a)).max(b * (1.0 - b));
            c = c.min(t * t / (2.0 * v + 2.0 * t / 3.0));
        }
        let ok = |m: usize| (m as f64 - 2.0) * c >= ((m * m) as f64 / fail_prob).ln();
        let mut hi = 4usize;
        while !ok(hi) {
            hi *= 2;
            if hi > 1 << 40 {
                return None;
            }
        }
        let mut lo = hi / 2;
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            if ok(mid) { hi = mid } else { lo = mid }
        }
        Some(hi)
    }

    /// Members per cluster for the votes of Alg. 6 step 5a (Hoeffding, note §2.4):
    /// m0 ≥ 2·ln(2nk/δ)/d² with d the gap between the in- and out-of-cluster yes rates
    /// (d = (1−2q)(1−ρ) for BSC). `None` when the gap is not positive.
    pub fn vote_probe_size(&self, n: usize, law: ResponseLaw, fail_prob: f64) -> Option<usize> {
        let (a, b) = self.vote_rates(law);
        let d = a - b;
        if d <= 1e-12 {
            return None;
        }
        let m0 = 2.0 * (2.0 * n as f64 * self.k as f64 / fail_prob).ln() / (d * d);
        Some(m0.ceil().max(1.0) as usize)
    }

    /// Alg. 14 (note §4.7), moment estimator: from the overall yes rate r̂ over pairs of S,
    /// q̂ = (r̂ − (1 − p0))/(2p0 − 1). When |2p0 − 1| < 0.15 (ill-conditioned) it matches instead
    /// the mean triangle rate `tri_rate` to Σ_s h(s)·π_q(s) by bisection on q ∈ [0, 1/2).
    /// The result is clamped to [0, 0.499].
    pub fn estimate_q(&self, yes_rate: f64, tri_rate: f64) -> f64 {
        let p0 = self.p0();
        let q = if (2.0 * p0 - 1.0).abs() >= 0.15 {
            (yes_rate - (1.0 - p0)) / (2.0 * p0 - 1.0)
        } else {
            let f = |q: f64| -> f64 {
                (0..=self.delta)
                    .map(|s| self.h(s) * self.pi_bsc(s, q))
                    .sum::<f64>()
                    - tri_rate
            };
            // Σ h π_q is monotone in q on [0, 1/2) towards 1/4; bisect on the sign change.
            let (mut lo, mut hi) = (0.0f64, 0.4999f64);
            let (flo, fhi) = (f(lo), f(hi));
            if flo.signum() == fhi.signum() {
                if flo.abs() < fhi.abs() { 0.0 } else { 0.4999 }
            } else {
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if f(mid).signum() == flo.signum() {
                        lo = mid
                    } else {
                        hi = mid
                    }
                }
                0.5 * (lo + hi)
            }
        };
        q.clamp(0.0, 0.499)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prior_sums_to_one_and_matches_note_values() {
        let u = UniformStats { k: 10, delta: 2 };
        let sum: f64 = (0..=2).map(|s| u.h(s)).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        // note §7: π for k10 Δ2 q.1 = (0.1273, 0.2127, 0.3122); ρ = 0.222
        let pis: Vec<f64> = (0..=2).map(|s| u.pi_bsc(s, 0.1)).collect();
        for (p, want) in pis.iter().zip([0.1273, 0.2127, 0.3122]) {
            assert!((p - want).abs() < 5e-4, "{pis:?}");
        }
        assert!((u.rho() - 0.2222).abs() < 1e-3);
        let u3 = UniformStats { k: 20, delta: 3 };
        assert!((u3.rho() - 0.298).abs() < 1e-3);
    }

    #[test]
    fn generic_pi_equals_bsc_closed_form() {
        for (k, d) in [(10, 2), (20, 3), (7, 3), (6, 2), (12, 4)] {
            let u = UniformStats { k, delta: d };
            for s in 0..=d {
                for q in [0.0, 0.1, 0.3] {
                    let a = u.pi(s, ResponseLaw::Bsc { q });
                    let b = u.pi_bsc(s, q);
                    assert!((a - b).abs() < 1e-12, "k{k} d{d} s{s} q{q}: {a} {b}");
                }
            }
        }
    }

    #[test]
    fn levels_inseparable_below_3delta_minus_1() {
        // note §2.3: k = 7, Δ = 3 gives π = (0.771, 0.771, 0.800, 0.886) at q = 0.
        let u = UniformStats { k: 7, delta: 3 };
        let law = ResponseLaw::Bsc { q: 0.0 };
        assert!((u.pi(0, law) - u.pi(1, law)).abs() < 1e-12);
        assert!((u.pi(3, law) - 0.886).abs() < 1e-3);
        assert_eq!(u.triangle_sample_size(law, 0.01), None);
        assert!(
            UniformStats { k: 8, delta: 3 }
                .triangle_sample_size(law, 0.01)
                .is_some()
        );
    }

    #[test]
    fn vote_rates_bsc_match_rho() {
        let u = UniformStats { k: 10, delta: 2 };
        let (a, b) = u.vote_rates(ResponseLaw::Bsc { q: 0.1 });
        assert!((a - 0.9).abs() < 1e-12);
        assert!((b - (0.1 + 0.8 * u.rho())).abs() < 1e-12);
    }

    #[test]
    fn sample_size_rule_is_in_the_notes_range() {
        // note §7 reports 4382 for (k10, Δ2, q.1, δ = 0.01); our reading of v gives a value
        // within a few percent.
        let m = UniformStats { k: 10, delta: 2 }
            .triangle_sample_size(ResponseLaw::Bsc { q: 0.1 }, 0.01)
            .unwrap();
        assert!((4000..=4500).contains(&m), "{m}");
    }

    #[test]
    fn normal_cdf_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((normal_cdf(-2.0) - 0.022_750_1).abs() < 1e-6);
    }

    #[test]
    fn q_moment_estimator_inverts_the_yes_rate() {
        let u = UniformStats { k: 10, delta: 2 };
        let q = 0.1;
        let r = q + (1.0 - 2.0 * q) * (1.0 - u.p0());
        let t: f64 = (0..=2).map(|s| u.h(s) * u.pi_bsc(s, q)).sum();
        assert!((u.estimate_q(r, t) - q).abs() < 1e-9);
        // k = 8, Δ = 2 has p0 = 15/28 ≈ 1/2: uses the triangle moment
        let u = UniformStats { k: 8, delta: 2 };
        assert!((2.0 * u.p0() - 1.0).abs() < 0.15);
        let r = 0.5;
        let t: f64 = (0..=2).map(|s| u.h(s) * u.pi_bsc(s, q)).sum();
        assert!((u.estimate_q(r, t) - q).abs() < 1e-6);
    }
}
