//! Counter-based random numbers: a SplitMix64 stream keyed by `(seed, a, b)`.
//!
//! The planted models draw every similarity `w_ij` from its own stream keyed by
//! `(seed, min(i,j), max(i,j))`, so a similarity can be recomputed at any time, in any order
//! and on any thread without storing an n × n matrix, and the same seed always gives the same
//! value (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators").

/// The SplitMix64 finaliser: a bijective 64-bit mixer (no increment; see [`splitmix64`]).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One step of the SplitMix64 generator from state `z`: the finaliser of `z + γ` (γ the golden
/// ratio increment), i.e. `mix64(z.wrapping_add(γ))`. It differs from [`mix64`] by that
/// increment; the overlap response models hash their (seed, pair) keys with it.
#[inline]
pub fn splitmix64(z: u64) -> u64 {
    mix64(z.wrapping_add(GOLDEN))
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// A fixed pseudo-random number in `[−½, ½)` for `position` (the top 53 bits of
/// [`splitmix64`]): the deterministic start blocks of the SDP code's subspace iterations.
#[inline]
pub fn centered_at(position: u64) -> f64 {
    (splitmix64(position) >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// A small SplitMix64 generator whose start state is a hash of `(seed, a, b)`.
#[derive(Clone, Debug)]
pub struct CounterRng {
    state: u64,
}

impl CounterRng {
    /// The stream for key `(seed, a, b)`. Distinct keys give (statistically) independent
    /// streams.
    #[inline]
    pub fn new(seed: u64, a: u64, b: u64) -> Self {
        let s = mix64(seed ^ 0x5851_f42d_4c95_7f2d);
        let s = mix64(s ^ a.wrapping_mul(GOLDEN));
        let s = mix64(s ^ b.wrapping_add(0x2545_f491_4f6c_dd1d));
        CounterRng { state: s }
    }

    /// The stream for a symmetric pair `{i, j}`: the same for `(i, j)` and `(j, i)`.
    #[inline]
    pub fn for_pair(seed: u64, i: usize, j: usize) -> Self {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        Self::new(seed, a as u64, b as u64)
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }

    /// Uniform in the open interval (0, 1) (never exactly 0 or 1, safe for `ln`).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..bound` (`bound > 0`), by Lemire's multiply-shift (the bias is
    /// at most `bound / 2^64`, negligible for the bounds used here).
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// A standard normal draw (Box–Muller, cosine branch).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A Gamma(shape, 1) draw for `shape >= 1` (Marsaglia & Tsang 2000); for `shape < 1`
    /// uses the boost `Gamma(shape + 1) · U^{1/shape}`.
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let g = self.gamma(shape + 1.0);
            return g * self.uniform().powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.uniform();
            if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }

    /// A Beta(α, β) draw as `X / (X + Y)` with `X ~ Gamma(α)`, `Y ~ Gamma(β)`.
    pub fn beta(&mut self, alpha: f64, beta: f64) -> f64 {
        let x = self.gamma(alpha);
        let y = self.gamma(beta);
        x / (x + y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `splitmix64` is the published SplitMix64 output: seeded with 0, its first value is
    /// 0xe220a8397b1dcdaf (Steele, Lea & Flood 2014; the reference `splitmix64.c`).
    #[test]
    fn splitmix64_is_the_reference_generator() {
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(splitmix64(7), mix64(7u64.wrapping_add(GOLDEN)));
    }

    #[test]
    fn pair_stream_is_symmetric_and_deterministic() {
        let a = CounterRng::for_pair(7, 3, 9).next_u64();
        let b = CounterRng::for_pair(7, 9, 3).next_u64();
        assert_eq!(a, b);
        assert_ne!(a, CounterRng::for_pair(8, 3, 9).next_u64());
        assert_ne!(a, CounterRng::for_pair(7, 3, 10).next_u64());
    }

    #[test]
    fn moments_are_right() {
        let mut r = CounterRng::new(1, 2, 3);
        let m = 200_000;
        let (mut su, mut sn, mut sn2, mut sb, mut sg) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for _ in 0..m {
            su += r.uniform();
            let z = r.normal();
            sn += z;
            sn2 += z * z;
            sb += r.beta(3.0, 2.0);
            sg += r.gamma(0.5);
        }
        let m = m as f64;
        assert!((su / m - 0.5).abs() < 0.005);
        assert!((sn / m).abs() < 0.01);
        assert!((sn2 / m - 1.0).abs() < 0.015);
        assert!((sb / m - 0.6).abs() < 0.005);
        assert!((sg / m - 0.5).abs() < 0.01);
    }
}
