//! What the native CPU passes share: reading burn tensors into plain
//! buffers, and matrix products through `gemm` (the crate burn's CPU
//! backend itself builds on) on buffers they keep.

use burn::module::Param;
use burn::tensor::Tensor;

/// A tensor's values, row-major, as f32.
pub(super) fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("converted to f32")
}

/// A parameter's values, row-major, as f32.
pub(super) fn param<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    values(p.val())
}

/// `dst[m x n] (+)= a[m x k] b[k x n]`: `a` and `b` read through (row,
/// column) strides, so either may be a transposed view; `dst` row-major
/// and contiguous; added to when `accumulate`, else overwritten. On every
/// thread of the current rayon pool if `parallel`, else on the caller's.
#[allow(clippy::too_many_arguments)]
pub(super) fn gemm(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    a: &[f32],
    (a_rs, a_cs): (usize, usize),
    b: &[f32],
    (b_rs, b_cs): (usize, usize),
    accumulate: bool,
    parallel: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(dst.len() >= m * n);
    if k == 0 {
        if !accumulate {
            dst[..m * n].fill(0.0);
        }
        return;
    }
    assert!(a.len() > (m - 1) * a_rs + (k - 1) * a_cs);
    assert!(b.len() > (k - 1) * b_rs + (n - 1) * b_cs);
    let parallelism = match rayon::current_num_threads() {
        threads if threads > 1 && parallel => gemm::Parallelism::Rayon(threads),
        _ => gemm::Parallelism::None,
    };
    // SAFETY: the asserts above keep every element gemm reads or writes
    // inside the three slices; `dst` is `&mut`, so it aliases neither input.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr(),
            a_cs as isize,
            a_rs as isize,
            b.as_ptr(),
            b_cs as isize,
            b_rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        );
    }
}
