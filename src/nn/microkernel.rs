//! The matrix product of the inference pass's small, fixed-width products,
//! `c[m x n] = a[m x k] b[k x n]` (row-major, contiguous, `n` a multiple of
//! the path's vector width), in vector registers: AVX-512's or AVX2's.
//!
//! A search evaluates one position at a time, so a 3x3 convolution's
//! Winograd products are `[9 tiles, 64] x [64, 64]` or so. `gemm` is built
//! for large products and sets every call up for them (its blocking, and
//! packing where its thresholds ask for it); a profile of the pass put 60%
//! of its time in `gemm`. Here a block of rows and columns accumulates in
//! registers while the weights' rows are read where they lie (64 x 64
//! weights stay in the first-level cache), and a remainder of rows or
//! columns takes a smaller block, so nothing is copied and no register
//! holds padding (`docs/results/speed.md` has the A/B):
//!
//! - AVX-512 (32 registers of 16 floats): 6 rows x 64 columns, 24
//!   accumulators;
//! - AVX2 + FMA (16 registers of 8): 6 rows x 16 columns, 12 accumulators,
//!   2 weight vectors and a broadcast (the block measured fastest of those
//!   that fit, `docs/results/speed.md`).
//!
//! A band of rows takes every column strip in turn, so its rows of `a` are
//! read from memory once (the AVX2 block covers 64 columns in four
//! strips), and a short last band shares its rows with the band before.
//!
//! Each output is the same sum in the same order (FMAs over `k` from zero)
//! on either path, so the two agree to the bit. On the portable path, or
//! for a width that is not a multiple of the vector width, [`product`]
//! declines and the caller uses `gemm`.

use super::simd::Simd;

/// Whether [`product`] can multiply products `n` columns wide on `path`.
pub(super) fn available(path: Simd, n: usize) -> bool {
    let lanes = match path {
        Simd::Avx512 | Simd::Avx2 => path.lanes(),
        Simd::Portable => return false,
    };
    n > 0 && n.is_multiple_of(lanes) && path.is_available()
}

/// `c[m x n] = a[m x k] b[k x n]` on the calling thread on `path`, if
/// [`available`]`(path, n)`; returns false (and leaves `c` alone) if not.
///
/// # Panics
/// If a slice is shorter than its matrix.
pub(super) fn product(
    path: Simd,
    (m, k, n): (usize, usize, usize),
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
) -> bool {
    if !available(path, n) {
        return false;
    }
    assert!(a.len() >= m * k, "a holds {m} x {k}");
    assert!(b.len() >= k * n, "b holds {k} x {n}");
    assert!(c.len() >= m * n, "c holds {m} x {n}");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has the path's instructions (`available`), and the
    // asserts keep every block's reads and writes inside the three slices.
    unsafe {
        let (a, b, c) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
        match path {
            Simd::Avx512 => avx512::product(m, k, n, a, b, c),
            Simd::Avx2 => avx2::product(m, k, n, a, b, c),
            Simd::Portable => unreachable!("declined above"),
        }
    }
    true
}

/// A register-blocked product for one instruction set: the vector type,
/// its intrinsics, the block's rows and the widths (in vectors) of its
/// column strips, widest first.
#[cfg(target_arch = "x86_64")]
macro_rules! kernel {
    (
        mod $name:ident, $feature:literal, $v:ident, lanes $lanes:literal,
        $load:ident, $store:ident, $set1:ident, $zero:ident, $fma:ident,
        rows $rows:literal (rest $($rest:literal)*), strips $($strip:literal)*
    ) => {
        mod $name {
            use std::arch::x86_64::{$v, $fma, $load, $set1, $zero, $store};

            /// Rows of `a` (and `c`) a register block holds.
            const ROWS: usize = $rows;
            /// Columns of the widest strip.
            const COLUMNS: usize = $lanes * max(&[$($strip),*]);

            const fn max(v: &[usize]) -> usize {
                let (mut i, mut m) = (0, 0);
                while i < v.len() {
                    if v[i] > m {
                        m = v[i];
                    }
                    i += 1;
                }
                m
            }

            /// One `R x lanes V` block of `c`: `R` rows of `a` (stride `k`)
            /// times the `lanes V` columns of `b` starting at `b` (row
            /// stride `n`), into `c` (row stride `n`). The accumulators
            /// are `R * V` registers.
            #[inline(always)]
            unsafe fn block<const R: usize, const V: usize>(
                k: usize,
                n: usize,
                a: *const f32,
                b: *const f32,
                c: *mut f32,
            ) {
                // SAFETY (all below): the caller keeps the block inside the
                // matrices.
                unsafe {
                    let mut acc: [[$v; V]; R] = [[$zero(); V]; R];
                    for p in 0..k {
                        let row = b.add(p * n);
                        let mut w: [$v; V] = [$zero(); V];
                        for (v, w) in w.iter_mut().enumerate() {
                            *w = $load(row.add($lanes * v));
                        }
                        for (r, acc) in acc.iter_mut().enumerate() {
                            let x = $set1(*a.add(r * k + p));
                            for (acc, w) in acc.iter_mut().zip(&w) {
                                *acc = $fma(x, *w, *acc);
                            }
                        }
                    }
                    for (r, acc) in acc.iter().enumerate() {
                        for (v, acc) in acc.iter().enumerate() {
                            $store(c.add(r * n + $lanes * v), *acc);
                        }
                    }
                }
            }

            /// The blocks of one band of `R` rows, across the columns:
            /// the band's rows of `a` stay in the first-level cache while
            /// each strip of `b` passes.
            #[inline(always)]
            unsafe fn band<const R: usize>(
                k: usize,
                n: usize,
                a: *const f32,
                b: *const f32,
                c: *mut f32,
            ) {
                let mut j = 0;
                // SAFETY: columns `j..j + lanes V` exist (`lanes V <= n - j`).
                unsafe {
                    while j < n {
                        let (b, c) = (b.add(j), c.add(j));
                        let vectors = (n - j).min(COLUMNS) / $lanes;
                        match vectors {
                            $($strip => block::<R, $strip>(k, n, a, b, c),)*
                            _ => unreachable!("{vectors} vectors: no strip that wide"),
                        }
                        j += $lanes * vectors;
                    }
                }
            }

            /// See [`super::product`]; `n` is a multiple of the lanes.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn product(
                m: usize,
                k: usize,
                n: usize,
                a: *const f32,
                b: *const f32,
                c: *mut f32,
            ) {
                // A short last band (half a block or less) leaves FMA units
                // idle: its few accumulators cannot hide the FMA latency.
                // It and the last full band share their rows evenly
                // instead (9 rows, a YINSH position's tiles: 5 + 4, not
                // 6 + 3).
                let rest = m % ROWS;
                let merge = m > ROWS && rest > 0 && rest <= ROWS / 2;
                let full = m / ROWS - usize::from(merge);
                let tail = m - full * ROWS;
                let (first, second) = if merge {
                    (tail.div_ceil(2), tail / 2)
                } else {
                    (tail, 0)
                };
                let mut i = 0;
                // SAFETY: rows `i..i + R` exist (`R <= m - i`).
                unsafe {
                    for rows in std::iter::repeat_n(ROWS, full).chain([first, second]) {
                        let (a, c) = (a.add(i * k), c.add(i * n));
                        match rows {
                            0 => {}
                            ROWS => band::<ROWS>(k, n, a, b, c),
                            $($rest => band::<$rest>(k, n, a, b, c),)*
                            _ => unreachable!("{rows} rows: no band that tall"),
                        }
                        i += rows;
                    }
                }
                debug_assert_eq!(i, m);
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
kernel!(
    mod avx512, "avx512f,fma", __m512, lanes 16,
    _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm512_fmadd_ps,
    rows 6 (rest 1 2 3 4 5), strips 4 3 2 1
);

#[cfg(target_arch = "x86_64")]
kernel!(
    mod avx2, "avx2,fma", __m256, lanes 8,
    _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_fmadd_ps,
    rows 6 (rest 1 2 3 4 5), strips 2 1
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape the passes meet, odd row counts and widths of one to
    /// five strips included, against a plain triple loop, on every path
    /// this CPU has; the paths agree to the bit.
    #[test]
    fn products_match_the_definition_on_every_path() {
        for path in Simd::ALL {
            assert!(
                !available(path, 12),
                "a width of no whole vector is declined"
            );
        }
        assert!(
            !available(Simd::Portable, 64),
            "the portable path is gemm's"
        );
        let paths: Vec<Simd> = Simd::available()
            .into_iter()
            .filter(|&p| p != Simd::Portable)
            .collect();
        if paths.is_empty() {
            eprintln!("SKIPPED: neither AVX-512 nor AVX2 here; the passes take `gemm`");
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
            (126, 64, 64),
            (5, 20, 112),
        ] {
            let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let mut first: Option<Vec<f32>> = None;
            for &path in &paths {
                let mut c = vec![f32::NAN; m * n];
                assert!(product(path, (m, k, n), &a, &b, &mut c), "{path}");
                for i in 0..m {
                    for j in 0..n {
                        let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                        let got = c[i * n + j];
                        assert!(
                            (got - want).abs() < 1e-4,
                            "{path}: {m}x{k}x{n} at ({i}, {j}): {got} against {want}"
                        );
                    }
                }
                match &first {
                    None => first = Some(c),
                    Some(f) => assert!(
                        f.iter().zip(&c).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{path} differs in its bits from {}",
                        paths[0]
                    ),
                }
            }
        }
    }

    /// An AVX2 width that is no multiple of 16 (8, 24, 40) runs there; on
    /// AVX-512 it is declined.
    #[test]
    fn avx2_takes_widths_of_whole_eights() {
        assert!(!available(Simd::Avx512, 24));
        if !Simd::Avx2.is_available() {
            eprintln!("SKIPPED: no AVX2 here");
            return;
        }
        let (m, k, n) = (7, 5, 24);
        let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.5).collect();
        let mut c = vec![f32::NAN; m * n];
        assert!(product(Simd::Avx2, (m, k, n), &a, &b, &mut c));
        for i in 0..m {
            for j in 0..n {
                // Small integers and halves: every sum is exact.
                let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                assert_eq!(c[i * n + j], want, "({i}, {j})");
            }
        }
    }
}
