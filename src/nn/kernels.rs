//! What the native CPU passes (inference, `cpu.rs`; training,
//! `backprop.rs`) share: burn's weights read into their layouts, matrix
//! products through `gemm` (the crate burn's CPU backend itself builds
//! on), dense layers, and the layout changes between burn's planes-first
//! tensors and their channels-last activations.

use std::cell::Cell;

use burn::module::Param;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
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

/// A layer's bias, or `n` zeros for a layer built without one.
pub(super) fn bias_or_zeros(bias: Option<&Param<Tensor<1>>>, n: usize) -> Vec<f32> {
    bias.map(param).unwrap_or_else(|| vec![0.0; n])
}

thread_local! {
    /// Set while a pass runs alone on its thread (see [`alone`]).
    static ALONE: Cell<bool> = const { Cell::new(false) };
}

/// The threads a pass may split its work over: the current rayon pool's,
/// or 1 inside [`alone`].
pub(super) fn pool_threads() -> usize {
    if ALONE.get() {
        1
    } else {
        rayon::current_num_threads()
    }
}

/// Runs `f` with all its work on the calling thread, whatever pool it is
/// in: several passes side by side on one pool, each on its own share of a
/// batch, would otherwise each split every layer over the threads the
/// others are using.
pub(super) fn alone<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            ALONE.set(self.0);
        }
    }
    let _restore = Restore(ALONE.replace(true));
    f()
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
    let parallelism = match pool_threads() {
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

/// A convolution's weights (burn's `[cout, cin, k, k]`) as the matrix the
/// native passes multiply patches by, `[k² * cin, cout]`: row
/// `(ky * k + kx) * cin + input channel`, one column per output channel.
/// Returns `(k, cin, cout, matrix)`.
pub(super) fn conv_matrix(conv: &Conv2d) -> (usize, usize, usize, Vec<f32>) {
    let [cout, cin, k, kw] = conv.weight.dims();
    assert_eq!(k, kw, "square kernels only");
    assert!(k == 1 || k == 3, "1x1 and 3x3 kernels only");
    let src = param(&conv.weight);
    let mut w = vec![0.0; k * k * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..k * k {
                w[(t * cin + i) * cout + o] = src[(o * cin + i) * k * k + t];
            }
        }
    }
    (k, cin, cout, w)
}

/// Rows of the value head's first dense layer between burn's flattening
/// of `[channel, cell]` (row `channel * cells + cell`) and the native
/// passes' channels-last one (row `cell * channels + channel`): burn's to
/// ours if `to_cell_major`, else back. `outs` values per row.
pub(super) fn value_rows(
    w: &[f32],
    channels: usize,
    cells: usize,
    outs: usize,
    to_cell_major: bool,
) -> Vec<f32> {
    let mut out = vec![0.0; w.len()];
    for ch in 0..channels {
        for cell in 0..cells {
            let burn = (ch * cells + cell) * outs;
            let ours = (cell * channels + ch) * outs;
            let (from, to) = if to_cell_major {
                (burn, ours)
            } else {
                (ours, burn)
            };
            out[to..to + outs].copy_from_slice(&w[from..from + outs]);
        }
    }
    out
}

/// For each of `batch` blocks, the `[a, b]` matrix at the start of the
/// block transposed to `[b, a]`: `src` blocks are `src_stride` values
/// apart, `dst` blocks `dst_stride` (what lies past the matrix in a block
/// is left alone). Planes-first positions to channels-last (`a` planes, `b`
/// cells) and back.
pub(super) fn transpose_blocks(
    src: &[f32],
    src_stride: usize,
    dst: &mut [f32],
    dst_stride: usize,
    batch: usize,
    (a, b): (usize, usize),
) {
    for n in 0..batch {
        let s = &src[n * src_stride..n * src_stride + a * b];
        let d = &mut dst[n * dst_stride..n * dst_stride + a * b];
        for i in 0..a {
            for j in 0..b {
                d[j * a + i] = s[i * b + j];
            }
        }
    }
}

/// The mean over each position's `cells` rows of channels-last `h`
/// (`[batch * cells, c]`) into `out` (`[batch, c]`): global average pooling.
pub(super) fn pool_cells(h: &[f32], batch: usize, cells: usize, c: usize, out: &mut [f32]) {
    for b in 0..batch {
        let pooled = &mut out[b * c..(b + 1) * c];
        pooled.fill(0.0);
        for cell in h[b * cells * c..(b + 1) * cells * c].chunks_exact(c) {
            for (s, v) in pooled.iter_mut().zip(cell) {
                *s += v;
            }
        }
        pooled.iter_mut().for_each(|s| *s /= cells as f32);
    }
}

/// Global pooling of a block's pooled branch ([`GlobalPool`](super::model::GlobalPool)):
/// for each position of channels-last `g` (`[batch * cells, c]`), each
/// channel's mean and then each channel's maximum over the cells, into
/// `out` (`[batch, 2c]`); with `argmax` (`[batch, c]`), the first cell
/// holding each maximum, which the backward pass routes its gradient to.
pub(super) fn pool_mean_max(
    g: &[f32],
    batch: usize,
    cells: usize,
    c: usize,
    out: &mut [f32],
    mut argmax: Option<&mut [u32]>,
) {
    for b in 0..batch {
        let rows = &g[b * cells * c..(b + 1) * cells * c];
        let (mean, max) = out[b * 2 * c..(b + 1) * 2 * c].split_at_mut(c);
        mean.fill(0.0);
        max.copy_from_slice(&rows[..c]);
        let mut arg = argmax.as_deref_mut().map(|a| &mut a[b * c..(b + 1) * c]);
        if let Some(arg) = arg.as_deref_mut() {
            arg.fill(0);
        }
        for (cell, row) in rows.chunks_exact(c).enumerate() {
            for ch in 0..c {
                mean[ch] += row[ch];
                if row[ch] > max[ch] {
                    max[ch] = row[ch];
                    if let Some(arg) = arg.as_deref_mut() {
                        arg[ch] = cell as u32;
                    }
                }
            }
        }
        mean.iter_mut().for_each(|s| *s /= cells as f32);
    }
}

/// `bias` (`[batch, c]`) repeated over each position's `cells` rows of
/// `out` (`[batch * cells, c]`): a per-position channel bias laid out as a
/// residual the convolutions add before their ReLU.
pub(super) fn spread_cells(bias: &[f32], batch: usize, cells: usize, c: usize, out: &mut [f32]) {
    for b in 0..batch {
        let row = &bias[b * c..(b + 1) * c];
        for cell in out[b * cells * c..(b + 1) * cells * c].chunks_exact_mut(c) {
            cell.copy_from_slice(row);
        }
    }
}

/// A dense layer: `weight` is `[inputs, outputs]` (burn's layout).
#[derive(Clone, Debug)]
pub(super) struct Dense {
    pub(super) inputs: usize,
    pub(super) outputs: usize,
    pub(super) weight: Vec<f32>,
    pub(super) bias: Vec<f32>,
}

impl Dense {
    /// A 1x1 convolution of a 1x1 map (a [`GlobalPool`](super::model::GlobalPool)'s
    /// dense layer) as the dense layer it is.
    pub(super) fn from_conv1x1(conv: &Conv2d) -> Dense {
        let (k, inputs, outputs, weight) = conv_matrix(conv);
        assert_eq!(k, 1, "a 1x1 convolution");
        Dense {
            inputs,
            outputs,
            weight,
            bias: bias_or_zeros(conv.bias.as_ref(), outputs),
        }
    }

    pub(super) fn from_linear(l: &Linear) -> Dense {
        let [inputs, outputs] = l.weight.dims();
        Dense {
            inputs,
            outputs,
            weight: param(&l.weight),
            bias: bias_or_zeros(l.bias.as_ref(), outputs),
        }
    }

    /// `out[r] = input[r] x weight + bias` for `rows` rows, on every
    /// thread of the current rayon pool.
    pub(super) fn forward(&self, input: &[f32], rows: usize, out: &mut [f32]) {
        let (k, n) = (self.inputs, self.outputs);
        let out = &mut out[..rows * n];
        gemm(
            (rows, n, k),
            out,
            input,
            (k, 1),
            &self.weight,
            (n, 1),
            false,
            true,
        );
        for r in out.chunks_exact_mut(n) {
            for (y, b) in r.iter_mut().zip(&self.bias) {
                *y += b;
            }
        }
    }
}
