//! The probability toolkit of `docs/OVERLAP.md`: for the uniform ensemble ([`UniformStats`],
//! §2.1) hypergeometric priors h(s), the triangle probability π(s) under any response law g,
//! vote rates and the moment estimator of q (§4.7); for the i.i.d. ensemble ([`IidStats`],
//! §2.2) the weight prior, π(w_i, w_j, s) under BSC(q) and the MAP rules of Alg. 9 (§4.6); and
//! the Bernstein / Hoeffding sample-size rules (§2.4).

use crate::math::special::normal_cdf_nr;

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

/// The law of one binary answer given the inner product s = A_iᵀA_j (`docs/OVERLAP.md`, "general
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
            ResponseLaw::Dither { sigma, theta } => normal_cdf_nr((s as f64 - theta) / sigma),
        }
    }
}

/// The Bernstein rule of `docs/OVERLAP.md`or triangle counts with level probabilities `pis`
/// (π(0) < π(1) < …): the smallest m with exp(−(m−2)t²/(2v + 2t/3)) ≤ δ/m² for every adjacent
/// pair of levels, where t = (π(s+1) − π(s))/2 and v = max π(1−π) of the two levels. `None`
/// when two adjacent levels have (numerically) equal π: triangle counts cannot separate them.
pub fn bernstein_sample_size(pis: &[f64], fail_prob: f64) -> Option<usize> {
    let mut c = f64::INFINITY;
    for w in pis.windows(2) {
        let (a, b) = (w[0], w[1]);
        let t = (b - a) / 2.0;
        if t <= 1e-12 {
            return None;
        }
        let v = (a * (1.0 - a)).max(b * (1.0 - b));
        c = c.min(t * t / (2.0 * v + 2.0 * t / 3.0));
    }
    if !c.is_finite() {
        return Some(3);
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

/// Closed forms of `docs/OVERLAP.md`or the uniform ensemble (rows uniform over weight-Δ vectors of
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

    /// π(s) under BSC(q), closed form of `docs/OVERLAP.md`:
    /// (1−q)²(1−2p0) + 2q(1−q)p0 + (1−2q)²·p00(s).
    pub fn pi_bsc(&self, s: usize, q: f64) -> f64 {
        let p0 = self.p0();
        (1.0 - q).powi(2) * (1.0 - 2.0 * p0)
            + 2.0 * q * (1.0 - q) * p0
            + (1.0 - 2.0 * q).powi(2) * self.p00(s)
    }

    /// π(s) = P(Y_il = 1, Y_jl = 1 | A_iᵀA_j = s) for a third random row l, under any response
    /// law (`docs/OVERLAP.md`): Σ_{a+b+c+d=Δ} C(s,a)C(Δ−s,b)C(Δ−s,c)C(k−2Δ+s,d)/C(k,Δ) · g(a+b)·g(a+c).
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
    /// (`docs/OVERLAP.md`, vote probability).
    pub fn rho(&self) -> f64 {
        let (k, d) = (self.k as i64, self.delta as i64);
        1.0 - self.c(k - 1 - d, d - 1) / self.c(k - 1, d - 1)
    }

    /// Expected "yes" rate of u against members of cluster c, for u ∈ c and for u ∉ c, under
    /// any response law: Σ_t H(t)·g(·) with the hypergeometric overlap of the other clusters.
    /// For BSC this is (1 − q, q + (1−2q)ρ) as in `docs/OVERLAP.md`
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

    /// |S| from the Bernstein rule of `docs/OVERLAP.md`: the smallest m with
    /// exp(−(m−2)t²/(2v + 2t/3)) ≤ δ/m² for every level s, where t = (π(s+1) − π(s))/2 and
    /// v = max π(1−π) of the two levels. `None` when two levels have equal π (k < 3Δ − 1 or
    /// an uninformative law): triangle counts cannot separate them.
    pub fn triangle_sample_size(&self, law: ResponseLaw, fail_prob: f64) -> Option<usize> {
        let pis: Vec<f64> = (0..=self.delta).map(|s| self.pi(s, law)).collect();
        bernstein_sample_size(&pis, fail_prob)
    }

    /// Members per cluster for the votes of Alg. 6 step 5a (Hoeffding, `docs/OVERLAP.md`):
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

    /// Alg. 14 (`docs/OVERLAP.md`), moment estimator: from the overall yes rate r̂ over pairs of S,
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

/// Closed forms of `docs/OVERLAP.md`or the i.i.d. ensemble (every entry of A is Bernoulli(p)) under
/// BSC(q) answers, and the MAP rules of Alg. 9 (`docs/OVERLAP.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IidStats {
    /// Number of clusters k.
    pub k: usize,
    /// Membership probability p.
    pub p: f64,
    /// Flip probability q of the BSC.
    pub q: f64,
}

fn ln_clamped(x: f64) -> f64 {
    x.clamp(1e-300, 1.0).ln()
}

impl IidStats {
    /// Weight prior P(w_i = w) = C(k,w)·p^w·(1−p)^{k−w} (w_i ~ Binomial(k, p)).
    pub fn weight_prior(&self, w: usize) -> f64 {
        if w > self.k {
            return 0.0;
        }
        binom(self.k as i64, w as i64)
            * self.p.powi(w as i32)
            * (1.0 - self.p).powi((self.k - w) as i32)
    }

    /// a(w) = 1 − (1−p)^w: a random row is similar to (shares a cluster with) a row of weight w.
    pub fn similar(&self, w: usize) -> f64 {
        1.0 - (1.0 - self.p).powi(w as i32)
    }

    /// P(Y_il = 1 | w_i = w) = q + (1−2q)·a(w) for a random l (`docs/OVERLAP.md`, and the law of the
    /// l0-norm D_i ~ Binom(m−1, ·) in Alg. 9 step 2).
    pub fn yes_given_weight(&self, w: usize) -> f64 {
        self.q + (1.0 - 2.0 * self.q) * self.similar(w)
    }

    /// Overall yes rate of two random rows: q + (1−2q)·(1 − (1−p²)^k).
    pub fn yes_rate(&self) -> f64 {
        let p = self.p;
        self.q + (1.0 - 2.0 * self.q) * (1.0 - (1.0 - p * p).powi(self.k as i32))
    }

    /// Inverse of [`IidStats::yes_rate`] in p for known q and k (the moment estimator of p used
    /// when p is not given): p̂ = √(1 − (1 − x)^{1/k}) with x = (r̂ − q)/(1 − 2q) clamped to
    /// [0, 1).
    pub fn estimate_p(k: usize, q: f64, yes_rate: f64) -> f64 {
        let x = ((yes_rate - q) / (1.0 - 2.0 * q)).clamp(0.0, 1.0 - 1e-12);
        (1.0 - (1.0 - x).powf(1.0 / k as f64)).max(0.0).sqrt()
    }

    /// Prior of the overlap given the weights, P(s | w_i, w_j) = C(w_i,s)·C(k−w_i, w_j−s)/C(k,w_j).
    pub fn overlap_prior(&self, s: usize, wi: usize, wj: usize) -> f64 {
        let k = self.k as i64;
        let (s, wi, wj) = (s as i64, wi as i64, wj as i64);
        binom(wi, s) * binom(k - wi, wj - s) / binom(k, wj)
    }

    /// π(w_i, w_j, s) = P(Y_il = 1, Y_jl = 1 | w_i, w_j, s) for a random third row l (`docs/OVERLAP.md`):
    /// with a = 1−(1−p)^{w_i}, b = 1−(1−p)^{w_j},
    /// c = 1 − (1−p)^{w_i} − (1−p)^{w_j} + (1−p)^{w_i+w_j−s},
    /// π = c(1−2q)² + (a+b)·q(1−2q) + q².
    pub fn pi(&self, wi: usize, wj: usize, s: usize) -> f64 {
        let r = 1.0 - self.p;
        let (a, b) = (self.similar(wi), self.similar(wj));
        let c = 1.0 - r.powi(wi as i32) - r.powi(wj as i32) + r.powi((wi + wj - s) as i32);
        let q = self.q;
        c * (1.0 - 2.0 * q).powi(2) + (a + b) * q * (1.0 - 2.0 * q) + q * q
    }

    /// P(Y_ij = 1 | s): q for s = 0, 1 − q for s ≥ 1.
    pub fn g(&self, s: usize) -> f64 {
        if s == 0 { self.q } else { 1.0 - self.q }
    }

    /// Alg. 9 step 2: ŵ_i = argmax_w log Binom(D_i; m−1, q+(1−2q)(1−(1−p)^w)) + log Binom(w; k, p)
    /// from the l0-norm D_i of row i of Y (`trials` = m − 1). Ties go to the smaller w.
    pub fn map_weight(&self, d: usize, trials: usize) -> usize {
        let (d, rest) = (d as f64, trials.saturating_sub(d) as f64);
        (0..=self.k)
            .filter(|&w| self.weight_prior(w) > 0.0)
            .map(|w| {
                let r = self.yes_given_weight(w);
                (
                    w,
                    d * ln_clamped(r)
                        + rest * ln_clamped(1.0 - r)
                        + ln_clamped(self.weight_prior(w)),
                )
            })
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
            .0
    }

    /// The log-probability tables behind [`IidStats::map_overlap`], for all weight pairs.
    pub fn overlap_table(&self) -> IidOverlapTable {
        let k = self.k;
        let mut levels = vec![Vec::new(); (k + 1) * (k + 1)];
        for wi in 0..=k {
            for wj in 0..=k {
                levels[wi * (k + 1) + wj] = (0..=wi.min(wj))
                    .filter(|&s| self.overlap_prior(s, wi, wj) > 0.0)
                    .map(|s| {
                        let pi = self.pi(wi, wj, s);
                        let g = self.g(s);
                        OverlapLevel {
                            s: s as u32,
                            ln_prior: ln_clamped(self.overlap_prior(s, wi, wj)),
                            ln_pi: ln_clamped(pi),
                            ln_not_pi: ln_clamped(1.0 - pi),
                            ln_g: ln_clamped(g),
                            ln_not_g: ln_clamped(1.0 - g),
                        }
                    })
                    .collect();
            }
        }
        IidOverlapTable { k, levels }
    }

    /// Alg. 9 step 3 for one pair: ŝ_ij = argmax over s ≤ min(ŵ_i, ŵ_j) of
    /// log P(s | ŵ_i, ŵ_j) + log Binom(T_ij; m−2, π(ŵ_i, ŵ_j, s)) + log P(Y_ij | s), with T_ij
    /// the triangle count over `trials` = m − 2 third items. Ties go to the smaller s.
    pub fn map_overlap(&self, wi: usize, wj: usize, t: usize, trials: usize, y: bool) -> usize {
        self.overlap_table().map(wi, wj, t, trials, y)
    }

    /// Alg. 9 step 5: the weight of an item u ∉ S from its answers on the probes P,
    /// ŵ_u = argmax_w Σ_{l∈P} log P(Y_ul | w) + log Binom(w; k, p), where for a probe of
    /// (estimated) weight w_l, P(Y_ul = 1 | w) = q + (1−2q)(1 − C(k−w_l, w)/C(k, w)) (u's
    /// clusters are a uniform w-subset given w). `yes[w_l]` / `no[w_l]` count u's answers on the
    /// probes of weight w_l.
    pub fn map_weight_on_probes(&self, yes: &[usize], no: &[usize]) -> usize {
        let k = self.k as i64;
        (0..=self.k)
            .filter(|&w| self.weight_prior(w) > 0.0)
            .map(|w| {
                let mut ll = ln_clamped(self.weight_prior(w));
                for (wl, (&y, &n)) in yes.iter().zip(no).enumerate() {
                    if y + n == 0 {
                        continue;
                    }
                    let miss = binom(k - wl as i64, w as i64) / binom(k, w as i64);
                    let r = self.q + (1.0 - 2.0 * self.q) * (1.0 - miss);
                    ll += y as f64 * ln_clamped(r) + n as f64 * ln_clamped(1.0 - r);
                }
                (w, ll)
            })
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
            .0
    }

    /// The vote threshold of Alg. 9 step 5 for an item of weight w: (1 + (1−2q)ρ_u)/2 with
    /// ρ_u = 1 − (1−p)^w, the midpoint between the yes rates 1 − q (u ∈ c) and q + (1−2q)ρ_u
    /// (u ∉ c) on the members of a cluster c.
    pub fn vote_threshold(&self, w: usize) -> f64 {
        (1.0 + (1.0 - 2.0 * self.q) * self.similar(w)) / 2.0
    }

    /// A high weight quantile: the smallest w with P(w_i > w) ≤ 0.05 (at least 1). The probe
    /// rule below is evaluated at this weight.
    pub fn high_weight(&self) -> usize {
        let mut cdf = 0.0;
        for w in 0..=self.k {
            cdf += self.weight_prior(w);
            if cdf >= 0.95 {
                return w.max(1);
            }
        }
        self.k.max(1)
    }

    /// |S| for Alg. 9 (`docs/OVERLAP.md`pplied to §4.6): the Bernstein rule
    /// ([`bernstein_sample_size`]) on the triangle levels π(w̄, w̄, s), s = 0..w̄, and on the
    /// l0-norm levels q+(1−2q)a(w), w = 0..w̄, taking the larger, at the typical weight
    /// w̄ = ⌈kp⌉ (pairs of heavier rows are rarer; their errors are left to the robust
    /// factorisation). `None` when two levels coincide (p ∈ {0, 1}: the answers do not
    /// identify A).
    pub fn triangle_sample_size(&self, fail_prob: f64) -> Option<usize> {
        if !(self.p > 0.0 && self.p < 1.0) {
            return None;
        }
        let wb = ((self.k as f64 * self.p).ceil() as usize).clamp(1, self.k);
        let lo = (2 * wb).saturating_sub(self.k);
        let pis: Vec<f64> = (lo..=wb).map(|s| self.pi(wb, wb, s)).collect();
        let ws: Vec<f64> = (0..=wb).map(|w| self.yes_given_weight(w)).collect();
        Some(bernstein_sample_size(&pis, fail_prob)?.max(bernstein_sample_size(&ws, fail_prob)?))
    }

    /// Members per cluster for the votes (Hoeffding, `docs/OVERLAP.md`): m0 ≥ 2·ln(2nk/δ)/d² with
    /// d = (1−2q)(1−ρ) and ρ = 1 − (1−p)^{w̄} at the high weight w̄. `None` if d ≤ 0.
    pub fn vote_probe_size(&self, n: usize, fail_prob: f64) -> Option<usize> {
        let d = (1.0 - 2.0 * self.q) * (1.0 - self.similar(self.high_weight()));
        if d <= 1e-12 {
            return None;
        }
        let m0 = 2.0 * (2.0 * n as f64 * self.k as f64 / fail_prob).ln() / (d * d);
        Some(m0.ceil().max(1.0) as usize)
    }
}

/// One level s of the MAP rule of Alg. 9 step 3, for a fixed weight pair (logs precomputed).
#[derive(Debug, Clone, Copy, PartialEq)]
struct OverlapLevel {
    s: u32,
    ln_prior: f64,
    ln_pi: f64,
    ln_not_pi: f64,
    ln_g: f64,
    ln_not_g: f64,
}

/// Precomputed log-probabilities of [`IidStats::map_overlap`] for every weight pair (Alg. 9
/// step 3 over all pairs of S).
#[derive(Debug, Clone, PartialEq)]
pub struct IidOverlapTable {
    k: usize,
    levels: Vec<Vec<OverlapLevel>>,
}

impl IidOverlapTable {
    /// ŝ_ij for weights (w_i, w_j), triangle count t over `trials` third items, and the direct
    /// answer y (see [`IidStats::map_overlap`]).
    pub fn map(&self, wi: usize, wj: usize, t: usize, trials: usize, y: bool) -> usize {
        if wi > self.k || wj > self.k {
            return 0;
        }
        let (t, rest) = (t as f64, trials.saturating_sub(t) as f64);
        self.levels[wi * (self.k + 1) + wj]
            .iter()
            .map(|l| {
                let v = l.ln_prior
                    + t * l.ln_pi
                    + rest * l.ln_not_pi
                    + if y { l.ln_g } else { l.ln_not_g };
                (l.s as usize, v)
            })
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
            .0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn prior_sums_to_one_and_matches_note_values() {
        let u = UniformStats { k: 10, delta: 2 };
        let sum: f64 = (0..=2).map(|s| u.h(s)).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        // `docs/OVERLAP.md`: π for k10 Δ2 q.1 = (0.1273, 0.2127, 0.3122); ρ = 0.222
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
        // `docs/OVERLAP.md`: k = 7, Δ = 3 gives π = (0.771, 0.771, 0.800, 0.886) at q = 0.
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
        // `docs/OVERLAP.md`eports 4382 for (k10, Δ2, q.1, δ = 0.01); our reading of v gives a value
        // within a few percent.
        let m = UniformStats { k: 10, delta: 2 }
            .triangle_sample_size(ResponseLaw::Bsc { q: 0.1 }, 0.01)
            .unwrap();
        assert!((4000..=4500).contains(&m), "{m}");
    }

    #[test]
    fn normal_cdf_values() {
        assert!((normal_cdf_nr(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf_nr(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((normal_cdf_nr(-2.0) - 0.022_750_1).abs() < 1e-6);
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

    /// Brute force over all 2^k rows l with P(l) = p^{|l|}(1−p)^{k−|l|}: P(Y_il = 1, Y_jl = 1)
    /// for rows i, j of weights wi, wj sharing s clusters, under BSC(q).
    fn iid_pi_naive(k: usize, p: f64, q: f64, wi: usize, wj: usize, s: usize) -> f64 {
        let ri: u64 = (1u64 << wi) - 1; // clusters 0..wi
        let rj: u64 = ((1u64 << wj) - 1) << (wi - s); // overlaps ri in exactly s clusters
        let g = |x: u64, y: u64| if x & y != 0 { 1.0 - q } else { q };
        (0u64..1 << k)
            .map(|l| {
                let c = l.count_ones() as i32;
                p.powi(c) * (1.0 - p).powi(k as i32 - c) * g(l, ri) * g(l, rj)
            })
            .sum()
    }

    proptest::proptest! {
        #[test]
        fn iid_pi_matches_enumeration(
            (k, wi, wj, s) in (1usize..8).prop_flat_map(|k| (Just(k), 0..=k, 0..=k))
                .prop_flat_map(|(k, wi, wj)| {
                    let lo = (wi + wj).saturating_sub(k);
                    (Just(k), Just(wi), Just(wj), lo..=wi.min(wj))
                }),
            p in 0.0f64..1.0,
            q in 0.0f64..0.5,
        ) {
            let st = IidStats { k, p, q };
            let a = st.pi(wi, wj, s);
            let b = iid_pi_naive(k, p, q, wi, wj, s);
            proptest::prop_assert!((a - b).abs() < 1e-9, "{} vs {}", a, b);
        }

        #[test]
        fn iid_yes_rate_matches_enumeration(k in 1usize..5, p in 0.0f64..1.0, q in 0.0f64..0.5) {
            // two independent rows: Σ_{x,y} P(x)P(y)·g(x·y)
            let pr = |x: u64| {
                let c = x.count_ones() as i32;
                p.powi(c) * (1.0 - p).powi(k as i32 - c)
            };
            let mut naive = 0.0;
            for x in 0u64..1 << k {
                for y in 0u64..1 << k {
                    naive += pr(x) * pr(y) * if x & y != 0 { 1.0 - q } else { q };
                }
            }
            let st = IidStats { k, p, q };
            proptest::prop_assert!((st.yes_rate() - naive).abs() < 1e-9);
            // and the moment estimator inverts it where its clamp x ≤ 1 − 1e-12 is inactive
            // (1 − x = (1 − p²)^k); beyond the clamp it returns the largest p it can represent.
            let p_hat = IidStats::estimate_p(k, q, st.yes_rate());
            let one_minus_x = (1.0 - p * p).powi(k as i32);
            if one_minus_x > 1e-9 {
                proptest::prop_assert!((p_hat - p).abs() < 1e-6, "{} vs {}", p_hat, p);
            } else if one_minus_x < 1e-12 {
                let x_max: f64 = 1.0 - 1e-12;
                let p_max = (1.0 - (1.0 - x_max).powf(1.0 / k as f64)).sqrt();
                proptest::prop_assert!((p_hat - p_max).abs() < 1e-9, "{} vs {}", p_hat, p_max);
            }
        }

        #[test]
        fn iid_weight_from_probes_matches_naive(
            k in 1usize..7,
            p in 0.05f64..0.6,
            q in 0.0f64..0.3,
            counts in proptest::collection::vec((0usize..6, 0usize..6), 7),
        ) {
            let st = IidStats { k, p, q };
            let yes: Vec<usize> = counts[..=k].iter().map(|c| c.0).collect();
            let no: Vec<usize> = counts[..=k].iter().map(|c| c.1).collect();
            // reference: product of Bernoulli probabilities times the prior, by brute force
            // over u's row given its weight (uniform w-subset).
            let naive = (0..=k)
                .map(|w| {
                    let mut lik = st.weight_prior(w);
                    for wl in 0..=k {
                        let rows: Vec<u64> = (0u64..1 << k).filter(|x| x.count_ones() as usize == w).collect();
                        let probe = (1u64 << wl) - 1;
                        let sim = rows.iter().filter(|&&x| x & probe != 0).count() as f64 / rows.len() as f64;
                        let r = q + (1.0 - 2.0 * q) * sim;
                        lik *= r.powi(yes[wl] as i32) * (1.0 - r).powi(no[wl] as i32);
                    }
                    (w, lik)
                })
                .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a })
                .0;
            proptest::prop_assert_eq!(st.map_weight_on_probes(&yes, &no), naive);
        }
    }

    #[test]
    fn iid_levels_and_rules() {
        let st = IidStats {
            k: 10,
            p: 0.2,
            q: 0.1,
        };
        // π increases in s for fixed weights
        for s in 0..2 {
            assert!(st.pi(2, 3, s + 1) > st.pi(2, 3, s));
        }
        let m = st.triangle_sample_size(0.01).unwrap();
        assert!(m > 100, "{m}");
        assert_eq!(
            IidStats {
                k: 10,
                p: 1.0,
                q: 0.1
            }
            .triangle_sample_size(0.01),
            None
        );
        assert_eq!(
            IidStats {
                k: 10,
                p: 0.0,
                q: 0.1
            }
            .triangle_sample_size(0.01),
            None
        );
        // vote threshold is the midpoint of 1 − q and q + (1−2q)ρ
        let rho = 1.0 - 0.8f64.powi(2);
        assert!((st.vote_threshold(2) - (0.9 + 0.1 + 0.8 * rho) / 2.0).abs() < 1e-12);
    }
}
