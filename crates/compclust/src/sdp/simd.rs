//! Column kernels of the ADMM's O(n²) passes, compiled for the best x86-64 vector extension
//! the machine has (AVX2 + FMA, else the baseline), chosen at run time.
//!
//! The crate is built for the portable x86-64 baseline (SSE2), on which these loops neither
//! vectorise well nor use FMA; faer dispatches its own kernels at run time the same way. Every
//! kernel is a plain loop over equal-length slices, so the result is the same arithmetic on
//! every path up to FMA contraction, and reductions use eight fixed lanes, so they are
//! deterministic for a given machine.

/// Defines `fn $name<'a>(args) -> ret` whose body runs inside `pulp`'s run-time dispatch as a
/// `WithSimd` operation, so that it is inlined into, and compiled for, AVX2 + FMA (x86-64-v3)
/// when the CPU has them, and the baseline otherwise (faer dispatches its own kernels the same
/// way; no `unsafe` here). A closure would not do: its body is not inlined into the dispatched
/// function and stays baseline code.
macro_rules! multiversion {
    ($(#[$m:meta])* fn $name:ident<$lt:lifetime>($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        multiversion! { $(#[$m])* fn $name<$lt>($($arg: $ty),*) -> $ret, _simd $body }
    };
    ($(#[$m:meta])* fn $name:ident<$lt:lifetime>($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty, $simd:ident $body:block) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name<$lt>($($arg: $ty),*) -> $ret {
            struct Op<$lt> {
                $($arg: $ty),*
            }
            impl<$lt> pulp::WithSimd for Op<$lt> {
                type Output = $ret;
                #[inline(always)]
                fn with_simd<S: pulp::Simd>(self, $simd: S) -> $ret {
                    let Op { $($arg),* } = self;
                    $body
                }
            }
            pulp::Arch::new().dispatch(Op { $($arg),* })
        }
    };
}

multiversion! {
    /// The fused ADMM update of one column (admm.rs `Step`): with
    /// `x = y − w/2 + |t|/2 − h·c + μ/2 + muj` (the affine projection of `M` without its `νI`
    /// part), `t ← t + a(x − t₊)`, `w ← w + a(x − y)`; `x` is written when given.
    fn step_col<'a>(
        c: &'a [f64],
        y: &'a [f64],
        mu: &'a [f64],
        t: &'a mut [f64],
        w: &'a mut [f64],
        x: Option<&'a mut [f64]>,
        h: f64,
        a: f64,
        muj: f64,
    ) -> () {
        let n = t.len();
        let (c, y, mu, w) = (&c[..n], &y[..n], &mu[..n], &mut w[..n]);
        match x {
            Some(x) => {
                let x = &mut x[..n];
                for i in 0..n {
                    let (tv, wv, yv) = (t[i], w[i], y[i]);
                    let xn = yv - 0.5 * wv + 0.5 * tv.abs() - h * c[i] + 0.5 * mu[i] + muj;
                    let tp = if tv > 0.0 { tv } else { 0.0 };
                    x[i] = xn;
                    t[i] = tv + a * (xn - tp);
                    w[i] = wv + a * (xn - yv);
                }
            }
            None => {
                for i in 0..n {
                    let (tv, wv, yv) = (t[i], w[i], y[i]);
                    let xn = yv - 0.5 * wv + 0.5 * tv.abs() - h * c[i] + 0.5 * mu[i] + muj;
                    let tp = if tv > 0.0 { tv } else { 0.0 };
                    t[i] = tv + a * (xn - tp);
                    w[i] = wv + a * (xn - yv);
                }
            }
        }
    }
}

multiversion! {
    /// `out += a·v`.
    fn axpy<'a>(out: &'a mut [f64], a: f64, v: &'a [f64]) -> () {
        let n = out.len();
        let v = &v[..n];
        for i in 0..n {
            out[i] += a * v[i];
        }
    }
}

multiversion! {
    /// `(Σ v_i, Σ |v_i|)` with eight fixed lanes.
    fn sums<'a>(v: &'a [f64]) -> (f64, f64) {
        let (s, sa) = ([0.0f64; 8], [0.0f64; 8]);
        let (chunks, rest) = v.as_chunks::<8>();
        let (mut s, mut sa) = (s, sa);
        for ch in chunks {
            for l in 0..8 {
                s[l] += ch[l];
                sa[l] += ch[l].abs();
            }
        }
        let tail: f64 = rest.iter().sum();
        let tail_abs: f64 = rest.iter().map(|x| x.abs()).sum();
        (s.iter().sum::<f64>() + tail, sa.iter().sum::<f64>() + tail_abs)
    }
}

multiversion! {
    /// Per-column terms of the KKT check (admm.rs `residuals`): returns
    /// `[Σ(x−y)², Σ(x−t₊)², Σx², Σc·x, Σd]` with `d = c + ρ(t₋ + w − y)`.
    fn primal_col<'a>(
        c: &'a [f64],
        x: &'a [f64],
        t: &'a [f64],
        w: &'a [f64],
        y: &'a [f64],
        rho: f64,
    ) -> [f64; 5] {
        let n = x.len();
        let (c, t, w, y) = (&c[..n], &t[..n], &w[..n], &y[..n]);
        let mut acc = [[0.0f64; 8]; 5];
        let m = n / 8 * 8;
        let (xc, _) = x[..m].as_chunks::<8>();
        let (cc, _) = c[..m].as_chunks::<8>();
        let (tc, _) = t[..m].as_chunks::<8>();
        let (wc, _) = w[..m].as_chunks::<8>();
        let (yc, _) = y[..m].as_chunks::<8>();
        for ((((xa, ca), ta), wa), ya) in xc.iter().zip(cc).zip(tc).zip(wc).zip(yc) {
            for l in 0..8 {
                let (xv, tv) = (xa[l], ta[l]);
                let tp = if tv > 0.0 { tv } else { 0.0 };
                let tm = if tv < 0.0 { tv } else { 0.0 };
                acc[0][l] += (xv - ya[l]) * (xv - ya[l]);
                acc[1][l] += (xv - tp) * (xv - tp);
                acc[2][l] += xv * xv;
                acc[3][l] += ca[l] * xv;
                acc[4][l] += ca[l] + rho * (tm + wa[l] - ya[l]);
            }
        }
        let i = m;
        let mut out = acc.map(|a| a.iter().sum::<f64>());
        for k in i..n {
            let (xv, tv) = (x[k], t[k]);
            let (tp, tm) = (tv.max(0.0), tv.min(0.0));
            out[0] += (xv - y[k]) * (xv - y[k]);
            out[1] += (xv - tp) * (xv - tp);
            out[2] += xv * xv;
            out[3] += c[k] * xv;
            out[4] += c[k] + rho * (tm + w[k] - y[k]);
        }
        out
    }
}

multiversion! {
    /// `Σ_i (c_i + ρ(t₋ + w − y)_i − (μ_i + muj)/2)²` (admm.rs `residuals`, dual residual of
    /// one column without its diagonal correction).
    fn dual_col<'a>(
        c: &'a [f64],
        t: &'a [f64],
        w: &'a [f64],
        y: &'a [f64],
        mu: &'a [f64],
        rho: f64,
        muj: f64,
    ) -> f64 {
        let n = c.len();
        let (t, w, y, mu) = (&t[..n], &w[..n], &y[..n], &mu[..n]);
        let mut acc = [0.0f64; 8];
        let m = n / 8 * 8;
        let (cc, _) = c[..m].as_chunks::<8>();
        let (tc, _) = t[..m].as_chunks::<8>();
        let (wc, _) = w[..m].as_chunks::<8>();
        let (yc, _) = y[..m].as_chunks::<8>();
        let (mc, _) = mu[..m].as_chunks::<8>();
        for ((((ca, ta), wa), ya), ma) in cc.iter().zip(tc).zip(wc).zip(yc).zip(mc) {
            for l in 0..8 {
                let tm = if ta[l] < 0.0 { ta[l] } else { 0.0 };
                let r = ca[l] + rho * (tm + wa[l] - ya[l]) - 0.5 * (ma[l] + muj);
                acc[l] += r * r;
            }
        }
        let i = m;
        let mut out = acc.iter().sum::<f64>();
        for k in i..n {
            let r = c[k] + rho * (t[k].min(0.0) + w[k] - y[k]) - 0.5 * (mu[k] + muj);
            out += r * r;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[allow(clippy::too_many_arguments)]
    fn naive_step(
        c: &[f64],
        y: &[f64],
        mu: &[f64],
        t: &mut [f64],
        w: &mut [f64],
        x: &mut [f64],
        h: f64,
        a: f64,
        muj: f64,
    ) {
        for i in 0..t.len() {
            let xn = y[i] - 0.5 * w[i] + 0.5 * t[i].abs() - h * c[i] + 0.5 * mu[i] + muj;
            x[i] = xn;
            t[i] += a * (xn - t[i].max(0.0));
            w[i] += a * (xn - y[i]);
        }
    }

    proptest! {
        /// The dispatched kernels agree with the formulas written naively.
        #[test]
        fn kernels_agree_with_naive(v in proptest::collection::vec(-2.0f64..2.0, 5..60), h in 0.01f64..2.0, a in 1.0f64..1.8) {
            let n = v.len() / 5;
            let (c, y, mu, t0, w0) = (&v[..n], &v[n..2 * n], &v[2 * n..3 * n], &v[3 * n..4 * n], &v[4 * n..5 * n]);
            let (mut t1, mut w1, mut x1) = (t0.to_vec(), w0.to_vec(), vec![0.0; n]);
            naive_step(c, y, mu, &mut t1, &mut w1, &mut x1, h, a, 0.3);
            let (mut t2, mut w2, mut x2) = (t0.to_vec(), w0.to_vec(), vec![0.0; n]);
            step_col(c, y, mu, &mut t2, &mut w2, Some(&mut x2), h, a, 0.3);
            let (mut t3, mut w3) = (t0.to_vec(), w0.to_vec());
            step_col(c, y, mu, &mut t3, &mut w3, None, h, a, 0.3);
            for i in 0..n {
                prop_assert!((t1[i] - t2[i]).abs() < 1e-12 && (t2[i] - t3[i]).abs() < 1e-12);
                prop_assert!((w1[i] - w2[i]).abs() < 1e-12 && (w2[i] - w3[i]).abs() < 1e-12);
                prop_assert!((x1[i] - x2[i]).abs() < 1e-12);
            }
            let (s, sa) = sums(c);
            prop_assert!((s - c.iter().sum::<f64>()).abs() < 1e-12);
            prop_assert!((sa - c.iter().map(|x| x.abs()).sum::<f64>()).abs() < 1e-12);
            let mut o = y.to_vec();
            axpy(&mut o, 0.7, c);
            for i in 0..n { prop_assert!((o[i] - (y[i] + 0.7 * c[i])).abs() < 1e-12); }
            let p = primal_col(c, x1.as_slice(), t0, w0, y, 1.3);
            let mut q = [0.0; 5];
            for i in 0..n {
                let (tp, tm) = (t0[i].max(0.0), t0[i].min(0.0));
                q[0] += (x1[i] - y[i]).powi(2);
                q[1] += (x1[i] - tp).powi(2);
                q[2] += x1[i] * x1[i];
                q[3] += c[i] * x1[i];
                q[4] += c[i] + 1.3 * (tm + w0[i] - y[i]);
            }
            for k in 0..5 { prop_assert!((p[k] - q[k]).abs() < 1e-10); }
            let d = dual_col(c, t0, w0, y, mu, 1.3, 0.2);
            let e: f64 = (0..n).map(|i| (c[i] + 1.3 * (t0[i].min(0.0) + w0[i] - y[i]) - 0.5 * (mu[i] + 0.2)).powi(2)).sum();
            prop_assert!((d - e).abs() < 1e-10);
        }
    }
}

multiversion! {
    /// `[w0·q, w1·q, w2·q, w3·q]`, in the machine's vector width with fused multiply-adds.
    fn dots4<'a>(
        w0: &'a [f64],
        w1: &'a [f64],
        w2: &'a [f64],
        w3: &'a [f64],
        q: &'a [f64],
    ) -> [f64; 4], simd {
        let n = q.len();
        let (qh, qt) = S::as_simd_f64s(q);
        let cols = [&w0[..n], &w1[..n], &w2[..n], &w3[..n]].map(S::as_simd_f64s);
        let zero = simd.splat_f64s(0.0);
        // Two accumulators per column (even and odd vectors) to hide the FMA latency.
        let mut acc = [[zero; 2]; 4];
        let m = qh.len();
        let mut i = 0;
        while i + 2 <= m {
            let (q0, q1) = (qh[i], qh[i + 1]);
            for c in 0..4 {
                let wc = &cols[c].0[i..i + 2];
                acc[c][0] = simd.mul_add_f64s(wc[0], q0, acc[c][0]);
                acc[c][1] = simd.mul_add_f64s(wc[1], q1, acc[c][1]);
            }
            i += 2;
        }
        if i < m {
            for c in 0..4 {
                acc[c][0] = simd.mul_add_f64s(cols[c].0[i], qh[i], acc[c][0]);
            }
        }
        let mut out = [0.0; 4];
        for c in 0..4 {
            let tail: f64 = cols[c].1.iter().zip(qt).map(|(a, b)| a * b).sum();
            out[c] = simd.reduce_sum_f64s(simd.add_f64s(acc[c][0], acc[c][1])) + tail;
        }
        out
    }
}

/// Shifts per call of [`sturm_counts`]: two vectors of four doubles under AVX2, so that two
/// independent divisions are in flight at each step.
pub(crate) const STURM_LANES: usize = 8;

multiversion! {
    /// For each shift `σ` of `sigma`, the number of eigenvalues below `σ` of the symmetric
    /// tridiagonal matrix with diagonal `d` and squared off-diagonal `e2`: the number of
    /// negative pivots `qᵢ = dᵢ − σ − e2ᵢ₋₁ / qᵢ₋₁` (`sdp::bisection`), a pivot smaller than
    /// `pivmin` in magnitude taken as `−pivmin`. Counts are returned as floats (exact below
    /// 2⁵³), which keeps the loop in vector registers.
    fn sturm_counts<'a>(
        d: &'a [f64],
        e2: &'a [f64],
        sigma: &'a [f64; STURM_LANES],
        pivmin: f64,
    ) -> [f64; STURM_LANES] {
        let n = d.len();
        let e2 = &e2[..n.saturating_sub(1)];
        let mut q = [0.0f64; STURM_LANES];
        let mut below = [0.0f64; STURM_LANES];
        if n == 0 {
            return below;
        }
        for l in 0..STURM_LANES {
            let t = d[0] - sigma[l];
            let t = if t.abs() < pivmin { -pivmin } else { t };
            q[l] = t;
            below[l] = if t < 0.0 { 1.0 } else { 0.0 };
        }
        for i in 1..n {
            let (di, ei) = (d[i], e2[i - 1]);
            for l in 0..STURM_LANES {
                let t = (di - sigma[l]) - ei / q[l];
                let t = if t.abs() < pivmin { -pivmin } else { t };
                q[l] = t;
                below[l] += if t < 0.0 { 1.0 } else { 0.0 };
            }
        }
        below
    }
}
