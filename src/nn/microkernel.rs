//! The matrix product of the inference pass's small, fixed-width products,
//! `c[m x n] = a[m x k] b[k x n]` (row-major, contiguous, `n` a multiple of
//! 16), in AVX-512 registers where the CPU has them.
//!
//! A search evaluates one position at a time, so a 3x3 convolution's
//! Winograd products are `[9 tiles, 64] x [64, 64]` or so. `gemm` is built
//! for large products and sets every call up for them (its blocking, and
//! packing where its thresholds ask for it); a profile of the pass put 60%
//! of its time in `gemm`. Here a block of up to 6 rows and 64 columns
//! accumulates in 24 of AVX-512's 32 registers while the weights' rows are
//! read where they lie (64 x 64 weights stay in the first-level cache), and
//! a remainder of rows or columns takes a smaller block, so nothing is
//! copied and no register holds padding (`docs/results/speed.md` has the
//! A/B). Without AVX-512 (or for a width that is not a multiple of 16)
//! [`product`] declines and the caller uses `gemm`.

/// Rows of `a` (and `c`) a register block holds.
#[cfg(target_arch = "x86_64")]
const ROWS: usize = 6;
/// Columns a register block holds: four vectors of 16.
#[cfg(target_arch = "x86_64")]
const COLUMNS: usize = 64;

/// Whether [`product`] can multiply products `n` columns wide here.
pub(super) fn available(n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        n > 0
            && n.is_multiple_of(16)
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = n;
        false
    }
}

/// `c[m x n] = a[m x k] b[k x n]` on the calling thread, if
/// [`available`]`(n)`; returns false (and leaves `c` alone) if not.
///
/// # Panics
/// If a slice is shorter than its matrix.
pub(super) fn product(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) -> bool {
    if !available(n) {
        return false;
    }
    assert!(a.len() >= m * k, "a holds {m} x {k}");
    assert!(b.len() >= k * n, "b holds {k} x {n}");
    assert!(c.len() >= m * n, "c holds {m} x {n}");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has AVX-512F and FMA (`available`), and the asserts
    // keep every block's reads and writes inside the three slices.
    unsafe {
        avx512::product(m, k, n, a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
    }
    true
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_setzero_ps,
        _mm512_storeu_ps,
    };

    use super::{COLUMNS, ROWS};

    /// One `R x 16 V` block of `c`: `R` rows of `a` (stride `k`) times the
    /// `16 V` columns of `b` starting at `b` (row stride `n`), into `c`
    /// (row stride `n`). The accumulators are `R * V` registers.
    #[inline(always)]
    unsafe fn block<const R: usize, const V: usize>(
        k: usize,
        n: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
    ) {
        // SAFETY (all below): the caller keeps the block inside the matrices.
        unsafe {
            let mut acc: [[__m512; V]; R] = [[_mm512_setzero_ps(); V]; R];
            for p in 0..k {
                let row = b.add(p * n);
                let mut w: [__m512; V] = [_mm512_setzero_ps(); V];
                for (v, w) in w.iter_mut().enumerate() {
                    *w = _mm512_loadu_ps(row.add(16 * v));
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_ps(*a.add(r * k + p));
                    for (acc, w) in acc.iter_mut().zip(&w) {
                        *acc = _mm512_fmadd_ps(x, *w, *acc);
                    }
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                for (v, acc) in acc.iter().enumerate() {
                    _mm512_storeu_ps(c.add(r * n + 16 * v), *acc);
                }
            }
        }
    }

    /// The blocks of rows (`ROWS`, then the rest) of one column strip `V`
    /// vectors wide.
    #[inline(always)]
    unsafe fn strip<const V: usize>(
        m: usize,
        k: usize,
        n: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
    ) {
        let mut i = 0;
        // SAFETY: rows `i..i + R` exist (`R <= m - i`).
        unsafe {
            while i + ROWS <= m {
                block::<ROWS, V>(k, n, a.add(i * k), b, c.add(i * n));
                i += ROWS;
            }
            let (a, c) = (a.add(i * k), c.add(i * n));
            match m - i {
                0 => {}
                1 => block::<1, V>(k, n, a, b, c),
                2 => block::<2, V>(k, n, a, b, c),
                3 => block::<3, V>(k, n, a, b, c),
                4 => block::<4, V>(k, n, a, b, c),
                _ => block::<5, V>(k, n, a, b, c),
            }
        }
    }

    /// See [`super::product`]; `n` is a multiple of 16.
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn product(
        m: usize,
        k: usize,
        n: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
    ) {
        let mut j = 0;
        // SAFETY: columns `j..j + 16 V` exist (`16 V <= n - j`).
        unsafe {
            while j < n {
                let (b, c) = (b.add(j), c.add(j));
                match (n - j).min(COLUMNS) / 16 {
                    4 => strip::<4>(m, k, n, a, b, c),
                    3 => strip::<3>(m, k, n, a, b, c),
                    2 => strip::<2>(m, k, n, a, b, c),
                    _ => strip::<1>(m, k, n, a, b, c),
                }
                j += COLUMNS;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape the passes meet, odd row counts and widths of one to
    /// five vectors included, against a plain triple loop.
    #[test]
    fn products_match_the_definition() {
        assert!(
            !available(24),
            "a width that is no multiple of 16 is declined"
        );
        if !available(16) {
            eprintln!("SKIPPED: no AVX-512 here; the passes take `gemm`");
            return;
        }
        let mut seed = 1u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        for &(m, k, n) in &[
            (1, 1, 16),
            (9, 64, 64),
            (36, 64, 64),
            (7, 13, 48),
            (13, 64, 80),
            (100, 7, 128),
            (6, 96, 32),
        ] {
            let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let mut c = vec![f32::NAN; m * n];
            assert!(product(m, k, n, &a, &b, &mut c));
            for i in 0..m {
                for j in 0..n {
                    let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                    let got = c[i * n + j];
                    assert!(
                        (got - want).abs() < 1e-4,
                        "{m}x{k}x{n} at ({i}, {j}): {got} against {want}"
                    );
                }
            }
        }
    }
}
