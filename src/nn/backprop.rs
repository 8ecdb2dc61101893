//! The network's training pass on the CPU without burn's graph: the forward
//! pass in training mode (batch statistics) and its backward pass, giving
//! the same gradients as burn's autodiff of [`Model::forward`] (within float
//! rounding) in less time. burn's optimizer then applies them, so the
//! optimizer, its state and the checkpoints stay burn's.
//!
//! Where the time went under burn's graph on `flex` (6x64 at batch 256, 2
//! cores, `perf`): its matrix kernels took 42%, the rest went to layout
//! copies between channels-first and channels-last (12%), a direct-loop
//! transposed convolution for the input gradients (7%), im2col (9%), and
//! separate passes for batch norm, ReLU and sums. Here activations stay
//! channels-last (`[position, cell, channel]`) throughout; a 3x3
//! convolution runs as the inference pass's Winograd F(4x4, 3x3), a share
//! of the positions per rayon thread; its input gradient is the same
//! convolution with the kernel turned half a circle and the channels
//! swapped; its weight gradient gathers a few positions' patches (im2col)
//! at a time, small enough to stay in cache, and sums `patchesᵀ x output
//! gradient` over the chunks through `gemm`.
//!
//! ```
//! use yinsh_zero::game::Game;
//! use yinsh_zero::nn::{default_device, Backprop, ModelConfig, OutputGrads};
//! use yinsh_zero::games::yinsh::{Position, Yinsh};
//!
//! let game = Yinsh::standard();
//! let shape = game.net_shape();
//! let model = ModelConfig::new().with_blocks(1).with_channels(8).init(&shape, &default_device());
//! let mut input = vec![0.0; 2 * shape.input_size()];
//! game.encode(&Position::new(), &mut input[..shape.input_size()]);
//! game.encode(&Position::new(), &mut input[shape.input_size()..]);
//!
//! let mut pass = Backprop::default();
//! let out = pass.forward(&model, shape, &input, 2);
//! assert_eq!(out.wdl.len(), 2 * 3);
//! // Gradients of the loss with respect to each output, then the weights'.
//! let (dp, dw, dm) = (vec![0.0; 2 * shape.action_space()], vec![0.1; 6], vec![0.0; 2]);
//! let grads = pass.backward(&model, OutputGrads::new(&dp, &dw, &dm));
//! assert!(grads.len() > 0);
//! ```

use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use rayon::prelude::*;

use super::cpu::{Board, Conv};
use super::kernels::{
    Dense, bias_or_zeros, conv_matrix, gemm, param, pool_cells, pool_mean_max, spread_cells,
    transpose_blocks, value_rows, values,
};
use super::model::{ConvBn, GlobalPool, Model};
use crate::game::NetShape;

/// Rows (cells of positions) whose 3x3 patches one thread gathers and
/// multiplies at once: 512 rows of 64 channels are 1.2 MB of patches,
/// within the L2 and L3 caches of the machines we train on.
const PATCH_ROWS: usize = 512;

/// Rows one thread multiplies at once in a 1x1 convolution or sums over
/// in a weight gradient or batch statistic.
const ROW_CHUNK: usize = 2048;

/// `out[rows x n] = a[rows x k] w[k x n]` (`w` by strides), row chunks on
/// every rayon thread.
fn matmul_rows(
    rows: usize,
    k: usize,
    n: usize,
    a: &[f32],
    w: &[f32],
    w_strides: (usize, usize),
    out: &mut [f32],
) {
    out[..rows * n]
        .par_chunks_mut(ROW_CHUNK * n)
        .enumerate()
        .for_each(|(i, out)| {
            let m = out.len() / n;
            let a = &a[i * ROW_CHUNK * k..(i * ROW_CHUNK + m) * k];
            gemm((m, n, k), out, a, (k, 1), w, w_strides, false, false);
        });
}

/// `aᵀ b` for `a[rows x p]` and `b[rows x q]`: a `[p x q]` sum over row
/// chunks on every rayon thread.
fn matmul_tn(rows: usize, p: usize, q: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let chunks = rows.div_ceil(ROW_CHUNK);
    (0..chunks)
        .into_par_iter()
        .fold(
            || vec![0.0f32; p * q],
            |mut acc, i| {
                let (first, last) = (i * ROW_CHUNK, ((i + 1) * ROW_CHUNK).min(rows));
                gemm(
                    (p, q, last - first),
                    &mut acc,
                    &a[first * p..last * p],
                    (1, p),
                    &b[first * q..last * q],
                    (q, 1),
                    true,
                    false,
                );
                acc
            },
        )
        .reduce(|| vec![0.0; p * q], add_into)
}

fn add_into(mut a: Vec<f32>, b: Vec<f32>) -> Vec<f32> {
    for (x, y) in a.iter_mut().zip(&b) {
        *x += y;
    }
    a
}

/// Column sums of `a[rows x n]`.
fn column_sums(rows: usize, n: usize, a: &[f32]) -> Vec<f32> {
    let mut s = vec![0.0f64; n];
    for row in a[..rows * n].chunks_exact(n) {
        for (s, v) in s.iter_mut().zip(row) {
            *s += *v as f64;
        }
    }
    s.into_iter().map(|v| v as f32).collect()
}

/// The 3x3 patches (padding 1) of `count` positions from `first` on:
/// `[count * cells, 9 * c]`, the 9 neighbours (row-major) of each cell,
/// `c` channels each.
fn im2col(input: &[f32], c: usize, board: Board, first: usize, count: usize, col: &mut [f32]) {
    let (h, w, cells) = (board.height, board.width, board.cells());
    for b in 0..count {
        for y in 0..h {
            for x in 0..w {
                let row = (b * cells + y * w + x) * 9 * c;
                for ky in 0..3 {
                    for kx in 0..3 {
                        let dst = &mut col[row + (ky * 3 + kx) * c..row + (ky * 3 + kx + 1) * c];
                        let (sy, sx) = (y + ky, x + kx);
                        if sy < 1 || sx < 1 || sy > h || sx > w {
                            dst.fill(0.0);
                        } else {
                            let at = ((first + b) * cells + (sy - 1) * w + sx - 1) * c;
                            dst.copy_from_slice(&input[at..at + c]);
                        }
                    }
                }
            }
        }
    }
}

fn positions_per_patch_chunk(board: Board) -> usize {
    (PATCH_ROWS / board.cells()).max(1)
}

/// A 3x3 convolution, padding 1, as Winograd F(4x4, 3x3): the inference
/// pass's [`Conv`], which shares the positions out over the rayon threads.
fn conv3x3(input: &[f32], conv: &Conv, board: Board, out: &mut [f32]) {
    let mut scratch = Vec::new();
    conv.forward(input, board, &mut scratch, out, None, false);
}

/// The weight gradient of a 3x3 convolution: `Σ patches(input)ᵀ dy`,
/// `[9 * cin, cout]`.
fn conv3x3_weight_grad(
    input: &[f32],
    cin: usize,
    dy: &[f32],
    cout: usize,
    board: Board,
) -> Vec<f32> {
    let cells = board.cells();
    let per = positions_per_patch_chunk(board);
    let chunks = board.batch.div_ceil(per);
    (0..chunks)
        .into_par_iter()
        .fold(
            || (vec![0.0f32; 9 * cin * cout], Vec::new()),
            |(mut acc, mut col), i| {
                let first = i * per;
                let count = per.min(board.batch - first);
                let rows = count * cells;
                col.resize(rows * 9 * cin, 0.0);
                im2col(input, cin, board, first, count, &mut col);
                gemm(
                    (9 * cin, cout, rows),
                    &mut acc,
                    &col,
                    (1, 9 * cin),
                    &dy[first * cells * cout..(first * cells + rows) * cout],
                    (cout, 1),
                    true,
                    false,
                );
                (acc, col)
            },
        )
        .map(|(acc, _)| acc)
        .reduce(|| vec![0.0; 9 * cin * cout], add_into)
}

/// `w` (`[9 * cin, cout]`) turned half a circle with its channels swapped,
/// `[9 * cout, cin]`: the input gradient of a 3x3 convolution is the
/// convolution of the output gradient with it.
fn flipped(w: &[f32], cin: usize, cout: usize) -> Vec<f32> {
    let mut f = vec![0.0; 9 * cin * cout];
    for k in 0..9 {
        for i in 0..cin {
            for o in 0..cout {
                f[((8 - k) * cout + o) * cin + i] = w[(k * cin + i) * cout + o];
            }
        }
    }
    f
}

/// A convolution and its batch norm, weights as the pass uses them.
struct ConvBnWeights {
    kernel: usize,
    cin: usize,
    cout: usize,
    /// `[kernel² * cin, cout]`, rows in patch order.
    w: Vec<f32>,
    /// A 3x3 kernel's convolution, and the one giving its input gradient:
    /// the kernel turned half a circle, channels swapped.
    winograd: Option<(Conv, Conv)>,
    gamma: Vec<f32>,
    beta: Vec<f32>,
    epsilon: f64,
}

/// What a convolution-and-norm's backward pass needs from its forward pass.
#[derive(Default)]
struct NormCache {
    /// The normalised convolution outputs, `[rows, cout]`.
    xhat: Vec<f32>,
    inv_std: Vec<f32>,
}

/// A `[k² * cin, cout]` gradient back in burn's `[cout, cin, k, k]` layout.
fn conv_grad_to_burn(g: &[f32], k: usize, cin: usize, cout: usize) -> Vec<f32> {
    let mut out = vec![0.0; g.len()];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..k * k {
                out[(o * cin + i) * k * k + t] = g[(t * cin + i) * cout + o];
            }
        }
    }
    out
}

impl ConvBnWeights {
    fn new(c: &ConvBn) -> ConvBnWeights {
        let (kernel, cin, cout, w) = conv_matrix(&c.conv);
        let winograd = (kernel == 3).then(|| {
            (
                Conv::winograd3x3(cin, cout, &w, vec![0.0; cout]),
                Conv::winograd3x3(cout, cin, &flipped(&w, cin, cout), vec![0.0; cin]),
            )
        });
        ConvBnWeights {
            kernel,
            cin,
            cout,
            w,
            winograd,
            gamma: param(&c.bn.gamma),
            beta: param(&c.bn.beta),
            epsilon: c.bn.epsilon,
        }
    }

    fn convolve(&self, input: &[f32], board: Board, out: &mut [f32]) {
        if let Some((forward, _)) = &self.winograd {
            conv3x3(input, forward, board, out);
        } else {
            matmul_rows(
                board.rows(),
                self.cin,
                self.cout,
                input,
                &self.w,
                (self.cout, 1),
                out,
            );
        }
    }

    /// Convolution, batch norm on the batch's statistics (updating `bn`'s
    /// running ones as burn does), `+ residual`, ReLU: into `out`.
    fn forward(
        &self,
        bn: &BatchNorm,
        input: &[f32],
        board: Board,
        cache: &mut NormCache,
        residual: Option<&[f32]>,
        out: &mut Vec<f32>,
    ) {
        let (rows, c) = (board.rows(), self.cout);
        cache.xhat.resize(rows * c, 0.0);
        out.resize(rows * c, 0.0);
        self.convolve(input, board, &mut cache.xhat);
        let (mean, var) = statistics(rows, c, &cache.xhat);
        cache.inv_std = var
            .iter()
            .map(|v| 1.0 / (v + self.epsilon).sqrt() as f32)
            .collect();
        let (inv_std, gamma, beta) = (&cache.inv_std, &self.gamma, &self.beta);
        let mean32: Vec<f32> = mean.iter().map(|&m| m as f32).collect();
        cache.xhat[..rows * c]
            .par_chunks_mut(ROW_CHUNK * c)
            .zip(out[..rows * c].par_chunks_mut(ROW_CHUNK * c))
            .enumerate()
            .for_each(|(i, (xhat, out))| {
                let res = residual.map(|r| &r[i * ROW_CHUNK * c..]);
                for (r, (xrow, orow)) in xhat
                    .chunks_exact_mut(c)
                    .zip(out.chunks_exact_mut(c))
                    .enumerate()
                {
                    for ch in 0..c {
                        let xh = (xrow[ch] - mean32[ch]) * inv_std[ch];
                        xrow[ch] = xh;
                        let mut y = gamma[ch] * xh + beta[ch];
                        if let Some(res) = res {
                            y += res[r * c + ch];
                        }
                        orow[ch] = y.max(0.0);
                    }
                }
            });
        let m = bn.momentum;
        let device = bn.gamma.val().device();
        let blend = |running: Tensor<1>, batch: &[f64]| -> Tensor<1> {
            let old = values(running);
            let new: Vec<f32> = old
                .iter()
                .zip(batch)
                .map(|(&o, &b)| ((1.0 - m) * o as f64 + m * b) as f32)
                .collect();
            Tensor::from_data(TensorData::new(new, [c]), &device)
        };
        bn.running_mean
            .update(blend(bn.running_mean.value_sync(), &mean));
        bn.running_var
            .update(blend(bn.running_var.value_sync(), &var));
    }

    /// From `dy`, the gradient of the layer's output before its ReLU
    /// (ReLU's mask already applied), to the weights' gradients and
    /// (unless `dx` is `None`) the input's, written into `dx`.
    fn backward(
        &self,
        input: &[f32],
        board: Board,
        cache: &NormCache,
        dy: &mut [f32],
        dx: Option<&mut Vec<f32>>,
    ) -> ConvBnGrads {
        let (rows, c) = (board.rows(), self.cout);
        // Batch norm: dgamma = Σ dy x̂, dbeta = Σ dy, and the
        // convolution's output gradient into `dy` in place.
        let (dgamma, dbeta) = channel_sums(rows, c, dy, &cache.xhat, |d, x| (d * x, d));
        let n = rows as f64;
        let scale: Vec<f32> = (0..c)
            .map(|ch| self.gamma[ch] * cache.inv_std[ch])
            .collect();
        let mean_dbeta: Vec<f32> = dbeta.iter().map(|&v| (v / n) as f32).collect();
        let mean_dgamma: Vec<f32> = dgamma.iter().map(|&v| (v / n) as f32).collect();
        dy[..rows * c]
            .par_chunks_mut(ROW_CHUNK * c)
            .zip(cache.xhat[..rows * c].par_chunks(ROW_CHUNK * c))
            .for_each(|(d, x)| {
                for (d, x) in d.chunks_exact_mut(c).zip(x.chunks_exact(c)) {
                    for ch in 0..c {
                        d[ch] = scale[ch] * (d[ch] - mean_dbeta[ch] - x[ch] * mean_dgamma[ch]);
                    }
                }
            });
        let dz = &*dy;
        let (cin, k) = (self.cin, self.kernel);
        let dw = if k == 3 {
            conv3x3_weight_grad(input, cin, dz, c, board)
        } else {
            matmul_tn(rows, cin, c, input, dz)
        };
        if let Some(dx) = dx {
            dx.resize(rows * cin, 0.0);
            if let Some((_, backward)) = &self.winograd {
                conv3x3(dz, backward, board, dx);
            } else {
                // dx = dz wᵀ: `w` is `[cin, cout]`, read by columns.
                matmul_rows(rows, c, cin, dz, &self.w, (1, c), dx);
            }
        }
        ConvBnGrads {
            weight: conv_grad_to_burn(&dw, k, cin, c),
            gamma: dgamma.into_iter().map(|v| v as f32).collect(),
            beta: dbeta.into_iter().map(|v| v as f32).collect(),
        }
    }
}

/// Two sums per channel over the `rows` rows of `u` and `v` (both
/// `[rows x c]`): of `terms(u, v).0` and of `.1`, on every rayon thread;
/// in f32 over blocks of 64 rows (it vectorises), in f64 across blocks.
fn channel_sums(
    rows: usize,
    c: usize,
    u: &[f32],
    v: &[f32],
    terms: impl Fn(f32, f32) -> (f32, f32) + Sync,
) -> (Vec<f64>, Vec<f64>) {
    let add = |a: &mut [f64], b: &[f64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    (0..rows.div_ceil(ROW_CHUNK))
        .into_par_iter()
        .fold(
            || (vec![0.0f64; c], vec![0.0f64; c]),
            |(mut s, mut q), i| {
                let (first, last) = (i * ROW_CHUNK, ((i + 1) * ROW_CHUNK).min(rows));
                let (mut s32, mut q32) = (vec![0.0f32; c], vec![0.0f32; c]);
                for (ub, vb) in u[first * c..last * c]
                    .chunks(64 * c)
                    .zip(v[first * c..last * c].chunks(64 * c))
                {
                    s32.fill(0.0);
                    q32.fill(0.0);
                    for (ur, vr) in ub.chunks_exact(c).zip(vb.chunks_exact(c)) {
                        for ch in 0..c {
                            let (a, b) = terms(ur[ch], vr[ch]);
                            s32[ch] += a;
                            q32[ch] += b;
                        }
                    }
                    for ch in 0..c {
                        s[ch] += s32[ch] as f64;
                        q[ch] += q32[ch] as f64;
                    }
                }
                (s, q)
            },
        )
        .reduce(
            || (vec![0.0; c], vec![0.0; c]),
            |(mut s, mut q), (s2, q2)| {
                add(&mut s, &s2);
                add(&mut q, &q2);
                (s, q)
            },
        )
}

/// Per-channel mean and (biased) variance of `x[rows x c]`, as burn's
/// training batch norm computes them; one pass, in f64 (the variance as
/// `E[x²] - E[x]²` loses nothing at these magnitudes in f64).
fn statistics(rows: usize, c: usize, x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (sum, squares) = channel_sums(rows, c, x, x, |x, _| (x, x * x));
    let n = rows as f64;
    let mean: Vec<f64> = sum.iter().map(|s| s / n).collect();
    let var = squares
        .iter()
        .zip(&mean)
        .map(|(q, m)| (q / n - m * m).max(0.0))
        .collect();
    (mean, var)
}

struct ConvBnGrads {
    weight: Vec<f32>,
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

/// A dense layer's weight and bias gradients, and its input's gradient
/// `dy wᵀ`, for `rows` rows of `input`.
fn dense_backward(
    d: &Dense,
    input: &[f32],
    dy: &[f32],
    rows: usize,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let dw = matmul_tn(rows, d.inputs, d.outputs, input, dy);
    let db = column_sums(rows, d.outputs, dy);
    let mut dx = vec![0.0; rows * d.inputs];
    matmul_rows(
        rows,
        d.outputs,
        d.inputs,
        dy,
        &d.weight,
        (1, d.outputs),
        &mut dx,
    );
    (dw, db, dx)
}

/// A dense layer's outputs for `rows` rows of `input`, in a new buffer.
fn dense_forward(d: &Dense, input: &[f32], rows: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * d.outputs];
    d.forward(input, rows, &mut out);
    out
}

/// What [`Backprop::forward`] computes: the raw outputs of
/// [`Model::forward`] in training mode, row-major.
#[derive(Debug)]
pub struct TrainOutput<'a> {
    /// `[batch, action space]` policy logits.
    pub policy: &'a [f32],
    /// `[batch, 3]` win/draw/loss logits.
    pub wdl: &'a [f32],
    /// `[batch]` tanh-squashed margins.
    pub margin: &'a [f32],
    /// `[batch, action space]` logits of the reply head, where the network
    /// has one ([`crate::nn::ModelConfig::reply_head`]).
    pub reply: Option<&'a [f32]>,
    /// `[batch, cells]` tanh-squashed owners of the ownership head, where
    /// the network has one ([`crate::nn::ModelConfig::ownership_head`]).
    pub ownership: Option<&'a [f32]>,
}

/// The loss's gradients with respect to the network's outputs, what
/// [`Backprop::backward`] takes: `policy` `[batch, action space]` and `wdl`
/// `[batch, 3]` with respect to the logits, `margin` `[batch]` with respect
/// to the tanh-squashed margin; where the network has the auxiliary heads,
/// `reply` `[batch, action space]` (logits) and `ownership` `[batch, cells]`
/// (squashed owners). An auxiliary head given none gets no gradient.
#[derive(Clone, Copy, Debug)]
pub struct OutputGrads<'a> {
    pub policy: &'a [f32],
    pub wdl: &'a [f32],
    pub margin: &'a [f32],
    pub reply: Option<&'a [f32]>,
    pub ownership: Option<&'a [f32]>,
}

impl<'a> OutputGrads<'a> {
    /// The gradients of the three outputs every network has.
    pub fn new(policy: &'a [f32], wdl: &'a [f32], margin: &'a [f32]) -> OutputGrads<'a> {
        OutputGrads {
            policy,
            wdl,
            margin,
            reply: None,
            ownership: None,
        }
    }
}

/// An output over the action space: a 1x1 convolution of the policy
/// features per cell, and a dense layer of the pooled trunk for the
/// actions tied to no cell. The policy and the reply head are one each.
struct ActionHead {
    /// `[cin, planes]`, with its bias.
    cin: usize,
    planes: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
    pass: Option<Dense>,
}

impl ActionHead {
    fn new(conv: &Conv2d, pass: Option<&Linear>) -> ActionHead {
        let (_, cin, planes, weight) = conv_matrix(conv);
        let bias = bias_or_zeros(conv.bias.as_ref(), planes);
        ActionHead {
            cin,
            planes,
            weight,
            bias,
            pass: pass.map(Dense::from_linear),
        }
    }

    /// The logits `[batch, space]` from the policy features `[rows, cin]`
    /// and, where the head has a pass layer, the pooled trunk `[batch, c]`.
    fn forward(&self, features: &[f32], pooled: &[f32], board: Board, space: usize) -> Vec<f32> {
        let (batch, cells, rows) = (board.batch, board.cells(), board.rows());
        let planes = self.planes;
        let mut per_cell = vec![0.0; rows * planes];
        matmul_rows(
            rows,
            self.cin,
            planes,
            features,
            &self.weight,
            (planes, 1),
            &mut per_cell,
        );
        for row in per_cell.chunks_exact_mut(planes) {
            add_assign(row, &self.bias);
        }
        let mut out = vec![0.0; batch * space];
        transpose_blocks(
            &per_cell,
            cells * planes,
            &mut out,
            space,
            batch,
            (cells, planes),
        );
        if let Some(pass) = &self.pass {
            let extra = dense_forward(pass, pooled, batch);
            for b in 0..batch {
                out[b * space + planes * cells..(b + 1) * space]
                    .copy_from_slice(&extra[b * pass.outputs..(b + 1) * pass.outputs]);
            }
        }
        out
    }

    /// Registers the gradients of `conv` and `pass` (the layers the head
    /// was read from) given `d_out`, the loss's gradient with respect to
    /// the logits, and adds the gradients of its inputs: the policy
    /// features' into `d_features`, the trunk's through the pooling into
    /// `dh`.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        (conv, pass): (&Conv2d, Option<&Linear>),
        (features, pooled): (&[f32], &[f32]),
        d_out: &[f32],
        (board, space): (Board, usize),
        (grads, device): (&mut GradientsParams, &Device),
        d_features: &mut [f32],
        dh: &mut [f32],
    ) {
        let (batch, cells, rows) = (board.batch, board.cells(), board.rows());
        let (cin, planes) = (self.cin, self.planes);
        let mut d_cell = vec![0.0; rows * planes];
        transpose_blocks(
            d_out,
            space,
            &mut d_cell,
            cells * planes,
            batch,
            (planes, cells),
        );
        let dw = matmul_tn(rows, cin, planes, features, &d_cell);
        register(
            grads,
            &conv.weight,
            conv_grad_to_burn(&dw, 1, cin, planes),
            device,
        );
        if let Some(bias) = &conv.bias {
            register(grads, bias, column_sums(rows, planes, &d_cell), device);
        }
        let mut dfeat = vec![0.0; rows * cin];
        matmul_rows(
            rows,
            planes,
            cin,
            &d_cell,
            &self.weight,
            (1, planes),
            &mut dfeat,
        );
        add_assign(d_features, &dfeat);
        if let (Some(dense), Some(layer)) = (&self.pass, pass) {
            let c = dense.inputs;
            let d_extra: Vec<f32> = (0..batch)
                .flat_map(|b| {
                    d_out[b * space + planes * cells..(b + 1) * space]
                        .iter()
                        .copied()
                })
                .collect();
            let (dw, db, dpooled) = dense_backward(dense, pooled, &d_extra, batch);
            register_dense(grads, layer, dw, db, device);
            for b in 0..batch {
                let dp = &dpooled[b * c..(b + 1) * c];
                for cell in dh[b * cells * c..(b + 1) * cells * c].chunks_exact_mut(c) {
                    for (d, g) in cell.iter_mut().zip(dp) {
                        *d += g / cells as f32;
                    }
                }
            }
        }
    }
}

/// A residual block's [`GlobalPool`] branch, weights as the pass uses them.
struct PoolWeights {
    conv: ConvBnWeights,
    bias: Dense,
}

/// What a pooled branch's backward pass needs from its forward pass.
#[derive(Default)]
struct PoolCache {
    norm: NormCache,
    /// The branch's features after its ReLU, `[rows, g]`.
    features: Vec<f32>,
    /// Each position's channel means then maxima, `[batch, 2g]`.
    pooled: Vec<f32>,
    /// The cell of each maximum, `[batch, g]`.
    argmax: Vec<u32>,
    /// The biases spread over the cells, `[rows, c]`.
    spread: Vec<f32>,
}

impl PoolWeights {
    fn new(p: &GlobalPool) -> PoolWeights {
        PoolWeights {
            conv: ConvBnWeights::new(&p.conv),
            bias: Dense::from_conv1x1(&p.bias),
        }
    }

    /// The branch on the block's input `h`: leaves its biases spread over
    /// the cells in `cache.spread`.
    fn forward(&self, p: &GlobalPool, h: &[f32], board: Board, cache: &mut PoolCache) {
        let (batch, cells, rows) = (board.batch, board.cells(), board.rows());
        let g = self.conv.cout;
        self.conv.forward(
            &p.conv.bn,
            h,
            board,
            &mut cache.norm,
            None,
            &mut cache.features,
        );
        cache.pooled.resize(batch * 2 * g, 0.0);
        cache.argmax.resize(batch * g, 0);
        pool_mean_max(
            &cache.features,
            batch,
            cells,
            g,
            &mut cache.pooled,
            Some(&mut cache.argmax),
        );
        let bias = dense_forward(&self.bias, &cache.pooled, batch);
        cache.spread.resize(rows * self.bias.outputs, 0.0);
        spread_cells(&bias, batch, cells, self.bias.outputs, &mut cache.spread);
    }

    /// From `dy`, the gradient of the block's first norm output (ReLU's
    /// mask applied), which the biases joined: the branch's weight
    /// gradients into `grads`, and its share of the block input's gradient
    /// added to `dh`.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        p: &GlobalPool,
        h: &[f32],
        board: Board,
        cache: &PoolCache,
        dy: &[f32],
        (grads, device): (&mut GradientsParams, &Device),
        dh: &mut [f32],
    ) {
        let (batch, cells, rows) = (board.batch, board.cells(), board.rows());
        let (g, c) = (self.conv.cout, self.bias.outputs);
        // A bias's gradient is the sum of its cells'.
        let mut dbias = vec![0.0; batch * c];
        pool_cells(dy, batch, cells, c, &mut dbias);
        dbias.iter_mut().for_each(|d| *d *= cells as f32);
        let (dw, db, dpooled) = dense_backward(&self.bias, &cache.pooled, &dbias, batch);
        register(
            grads,
            &p.bias.weight,
            conv_grad_to_burn(&dw, 1, 2 * g, c),
            device,
        );
        if let Some(bias) = &p.bias.bias {
            register(grads, bias, db, device);
        }
        // The mean spreads its gradient over the cells, the maximum sends it
        // to the cell that held it.
        let mut dfeat = vec![0.0; rows * g];
        for b in 0..batch {
            let (dmean, dmax) = dpooled[b * 2 * g..(b + 1) * 2 * g].split_at(g);
            for cell in 0..cells {
                let row = &mut dfeat[(b * cells + cell) * g..(b * cells + cell + 1) * g];
                for (d, m) in row.iter_mut().zip(dmean) {
                    *d = m / cells as f32;
                }
            }
            for (ch, d) in dmax.iter().enumerate() {
                let cell = cache.argmax[b * g + ch] as usize;
                dfeat[(b * cells + cell) * g + ch] += d;
            }
        }
        relu_mask(&mut dfeat, &cache.features);
        let mut dx = Vec::new();
        let gr = self
            .conv
            .backward(h, board, &cache.norm, &mut dfeat, Some(&mut dx));
        register_conv_bn(grads, &p.conv, gr, device);
        add_assign(dh, &dx);
    }
}

/// One residual block's weights.
struct BlockWeights {
    a: ConvBnWeights,
    b: ConvBnWeights,
    pool: Option<PoolWeights>,
}

/// The weights of one step, read from the model at [`Backprop::forward`].
struct Weights {
    stem: ConvBnWeights,
    blocks: Vec<BlockWeights>,
    policy_hidden: ConvBnWeights,
    policy: ActionHead,
    reply: Option<ActionHead>,
    /// The ownership head's `[c]` weights and its bias.
    ownership: Option<(Vec<f32>, f32)>,
    value_conv: ConvBnWeights,
    /// Rows permuted from burn's channel-major flattening to cell-major.
    value_hidden: Dense,
    wdl: Dense,
    margin: Dense,
}

/// Activations the backward pass reads, kept between steps.
#[derive(Default)]
struct Activations {
    board: Option<Board>,
    /// Channels-last input, `[rows, planes]`.
    x: Vec<f32>,
    /// `trunk[0]` the stem's output, `trunk[i + 1]` block `i`'s.
    trunk: Vec<Vec<f32>>,
    /// Each block's middle activation (after its first ReLU).
    middle: Vec<Vec<f32>>,
    stem: NormCache,
    blocks: Vec<(NormCache, NormCache)>,
    /// Each block's pooled branch, where it has one.
    pools: Vec<PoolCache>,
    policy_hidden: NormCache,
    /// After the policy's hidden 1x1 convolution and its ReLU.
    policy_features: Vec<f32>,
    pooled: Vec<f32>,
    value_conv: NormCache,
    value_features: Vec<f32>,
    value_hidden: Vec<f32>,
    policy: Vec<f32>,
    wdl: Vec<f32>,
    margin: Vec<f32>,
    reply: Option<Vec<f32>>,
    ownership: Option<Vec<f32>>,
}

/// The training pass of a [`Model`] on the CPU: [`forward`](Self::forward)
/// on a batch, then [`backward`](Self::backward) from the loss's
/// gradients with respect to the outputs. Its buffers are kept between
/// steps.
#[derive(Default)]
pub struct Backprop {
    shape: Option<NetShape>,
    weights: Option<Weights>,
    acts: Activations,
}

impl Backprop {
    /// Runs `model` in training mode on `batch` positions of a game of
    /// `shape` (`input` as [`crate::game::Game::encode`] writes them,
    /// concatenated): batch norm normalises with the batch's statistics
    /// and moves the running ones toward them, as burn's training forward
    /// pass does.
    ///
    /// # Panics
    /// If `input` does not hold `batch` positions of `shape`, or `model`
    /// was not built for `shape`.
    pub fn forward(
        &mut self,
        model: &Model,
        shape: NetShape,
        input: &[f32],
        batch: usize,
    ) -> TrainOutput<'_> {
        self.shape = Some(shape);
        assert_eq!(
            input.len(),
            batch * shape.input_size(),
            "input of {batch} positions"
        );
        let board = Board {
            batch,
            height: shape.height,
            width: shape.width,
        };
        let (cells, rows) = (board.cells(), board.rows());
        let w = read_weights(model, shape);
        let a = &mut self.acts;
        a.board = Some(board);

        let planes_in = shape.planes;
        a.x.resize(rows * planes_in, 0.0);
        let stride = cells * planes_in;
        transpose_blocks(
            input,
            shape.input_size(),
            &mut a.x,
            stride,
            batch,
            (planes_in, cells),
        );
        let blocks = w.blocks.len();
        a.trunk.resize_with(blocks + 1, Vec::new);
        a.middle.resize_with(blocks, Vec::new);
        a.blocks.resize_with(blocks, Default::default);
        a.pools.resize_with(blocks, Default::default);
        w.stem.forward(
            &model.stem.bn,
            &a.x,
            board,
            &mut a.stem,
            None,
            &mut a.trunk[0],
        );
        for (i, (wi, block)) in w.blocks.iter().zip(&model.blocks).enumerate() {
            let (done, rest) = a.trunk.split_at_mut(i + 1);
            let h = &done[i];
            let (ca, cb) = &mut a.blocks[i];
            // The pooled branch's biases join the first norm's output as a
            // residual would, before its ReLU.
            let bias = match (&wi.pool, &block.pool) {
                (Some(wp), Some(p)) => {
                    wp.forward(p, h, board, &mut a.pools[i]);
                    Some(a.pools[i].spread.as_slice())
                }
                _ => None,
            };
            wi.a.forward(&block.a.bn, h, board, ca, bias, &mut a.middle[i]);
            wi.b.forward(&block.b.bn, &a.middle[i], board, cb, Some(h), &mut rest[0]);
        }
        let h = &a.trunk[blocks];
        let c = w.stem.cout;

        // Policy, and the reply head where the network has one.
        let space = shape.action_space();
        w.policy_hidden.forward(
            &model.policy_hidden.bn,
            h,
            board,
            &mut a.policy_hidden,
            None,
            &mut a.policy_features,
        );
        if w.policy.pass.is_some() {
            a.pooled.resize(batch * c, 0.0);
            pool_cells(h, batch, cells, c, &mut a.pooled);
        }
        a.policy = w
            .policy
            .forward(&a.policy_features, &a.pooled, board, space);
        a.reply = w
            .reply
            .as_ref()
            .map(|r| r.forward(&a.policy_features, &a.pooled, board, space));

        // Ownership: one tanh-squashed number per cell, from the trunk.
        a.ownership = w.ownership.as_ref().map(|(ow, ob)| {
            let mut own = vec![0.0; rows];
            matmul_rows(rows, c, 1, h, ow, (1, 1), &mut own);
            own.iter_mut().for_each(|o| *o = (*o + ob).tanh());
            own
        });

        // Value.
        w.value_conv.forward(
            &model.value_conv.bn,
            h,
            board,
            &mut a.value_conv,
            None,
            &mut a.value_features,
        );
        a.value_hidden = dense_forward(&w.value_hidden, &a.value_features, batch);
        a.value_hidden.iter_mut().for_each(|v| *v = v.max(0.0));
        a.wdl = dense_forward(&w.wdl, &a.value_hidden, batch);
        a.margin = dense_forward(&w.margin, &a.value_hidden, batch);
        a.margin.iter_mut().for_each(|m| *m = m.tanh());

        self.weights = Some(w);
        TrainOutput {
            policy: &self.acts.policy,
            wdl: &self.acts.wdl,
            margin: &self.acts.margin,
            reply: self.acts.reply.as_deref(),
            ownership: self.acts.ownership.as_deref(),
        }
    }

    /// The gradients of every parameter of `model` (the one given to the
    /// last [`forward`](Self::forward)), from the loss's gradients with
    /// respect to its outputs. On the device under `model`'s autodiff one,
    /// ready for burn's optimizer (which steps only parameters on an
    /// autodiff device).
    ///
    /// # Panics
    /// Without a forward pass first, or if the gradients' sizes do not
    /// match its batch.
    pub fn backward(&mut self, model: &Model, d: OutputGrads<'_>) -> GradientsParams {
        let OutputGrads {
            policy: d_policy,
            wdl: d_wdl,
            margin: d_margin,
            reply: d_reply,
            ownership: d_ownership,
        } = d;
        let w = self.weights.as_ref().expect("a forward pass first");
        let a = &self.acts;
        let board = a.board.expect("a forward pass first");
        let shape = self.shape.expect("a forward pass first");
        let (batch, cells, rows) = (board.batch, board.cells(), board.rows());
        let space = shape.action_space();
        assert_eq!(d_policy.len(), batch * space);
        assert_eq!(d_wdl.len(), batch * 3);
        assert_eq!(d_margin.len(), batch);
        // Gradients live where burn's autodiff would leave them: on the
        // device under the parameters' autodiff one.
        let device = model.stem.conv.weight.val().device().inner();
        let mut grads = GradientsParams::new();
        let c = w.stem.cout;
        let blocks = w.blocks.len();
        let h = &a.trunk[blocks];

        // Value head.
        let d_pre_margin: Vec<f32> = d_margin
            .iter()
            .zip(&a.margin)
            .map(|(d, m)| d * (1.0 - m * m))
            .collect();
        let (dw, db, mut dv) = dense_backward(&w.wdl, &a.value_hidden, d_wdl, batch);
        register_dense(&mut grads, &model.wdl, dw, db, &device);
        let (dw, db, dv2) = dense_backward(&w.margin, &a.value_hidden, &d_pre_margin, batch);
        register_dense(&mut grads, &model.margin, dw, db, &device);
        for ((d, d2), v) in dv.iter_mut().zip(&dv2).zip(&a.value_hidden) {
            *d = if *v > 0.0 { *d + d2 } else { 0.0 };
        }
        let (dw, db, mut dfeat) = dense_backward(&w.value_hidden, &a.value_features, &dv, batch);
        let vc = w.value_conv.cout;
        let dw = value_rows(&dw, vc, cells, w.value_hidden.outputs, false);
        register_dense(&mut grads, &model.value_hidden, dw, db, &device);
        relu_mask(&mut dfeat, &a.value_features);
        let mut dh = vec![0.0; rows * c];
        let g = w
            .value_conv
            .backward(h, board, &a.value_conv, &mut dfeat, Some(&mut dh));
        register_conv_bn(&mut grads, &model.value_conv, g, &device);

        // Ownership head.
        if let (Some((ow, _)), Some(own), Some(conv), Some(d_own)) =
            (&w.ownership, &a.ownership, &model.ownership, d_ownership)
        {
            assert_eq!(d_own.len(), rows);
            let d_pre: Vec<f32> = d_own
                .iter()
                .zip(own)
                .map(|(d, o)| d * (1.0 - o * o))
                .collect();
            let dw = matmul_tn(rows, c, 1, h, &d_pre);
            register(
                &mut grads,
                &conv.weight,
                conv_grad_to_burn(&dw, 1, c, 1),
                &device,
            );
            if let Some(bias) = &conv.bias {
                register(&mut grads, bias, column_sums(rows, 1, &d_pre), &device);
            }
            let mut dh_own = vec![0.0; rows * c];
            matmul_rows(rows, 1, c, &d_pre, ow, (c, 1), &mut dh_own);
            add_assign(&mut dh, &dh_own);
        }

        // Policy head, and the reply head on the same features.
        let mut dfeat = vec![0.0; rows * w.policy.cin];
        let out = (board, space);
        let inputs = (a.policy_features.as_slice(), a.pooled.as_slice());
        let layers = (&model.policy_out, model.pass.as_ref());
        w.policy.backward(
            layers,
            inputs,
            d_policy,
            out,
            (&mut grads, &device),
            &mut dfeat,
            &mut dh,
        );
        if let (Some(head), Some(conv), Some(d_reply)) = (&w.reply, &model.reply_out, d_reply) {
            assert_eq!(d_reply.len(), batch * space);
            let layers = (conv, model.reply_pass.as_ref());
            head.backward(
                layers,
                inputs,
                d_reply,
                out,
                (&mut grads, &device),
                &mut dfeat,
                &mut dh,
            );
        }
        relu_mask(&mut dfeat, &a.policy_features);
        let mut dh_policy = Vec::new();
        let g =
            w.policy_hidden
                .backward(h, board, &a.policy_hidden, &mut dfeat, Some(&mut dh_policy));
        register_conv_bn(&mut grads, &model.policy_hidden, g, &device);
        add_assign(&mut dh, &dh_policy);

        // Trunk, last block first: `dh` is the gradient of its output.
        let mut dmid = Vec::new();
        let mut dinput = Vec::new();
        let mut skip = vec![0.0; rows * c];
        for i in (0..blocks).rev() {
            let wi = &w.blocks[i];
            let (ca, cb) = &a.blocks[i];
            let block = &model.blocks[i];
            relu_mask(&mut dh, &a.trunk[i + 1]);
            // The residual's share passes straight through; `dh` becomes
            // the second norm's output gradient in place after it is read.
            skip.copy_from_slice(&dh);
            let gb =
                wi.b.backward(&a.middle[i], board, cb, &mut dh, Some(&mut dmid));
            relu_mask(&mut dmid, &a.middle[i]);
            // The pooled branch reads the first norm's output gradient
            // before its backward pass turns it into the convolution's.
            if let (Some(wp), Some(p)) = (&wi.pool, &block.pool) {
                let sink = (&mut grads, &device);
                wp.backward(p, &a.trunk[i], board, &a.pools[i], &dmid, sink, &mut skip);
            }
            let ga =
                wi.a.backward(&a.trunk[i], board, ca, &mut dmid, Some(&mut dinput));
            register_conv_bn(&mut grads, &block.a, ga, &device);
            register_conv_bn(&mut grads, &block.b, gb, &device);
            add_assign(&mut dinput, &skip);
            std::mem::swap(&mut dh, &mut dinput);
        }
        relu_mask(&mut dh, &a.trunk[0]);
        let g = w.stem.backward(&a.x, board, &a.stem, &mut dh, None);
        register_conv_bn(&mut grads, &model.stem, g, &device);
        grads
    }
}

/// Zeroes the gradient `d` where the ReLU's output `out` is 0.
fn relu_mask(d: &mut [f32], out: &[f32]) {
    d.par_chunks_mut(ROW_CHUNK * 64)
        .zip(out.par_chunks(ROW_CHUNK * 64))
        .for_each(|(d, out)| {
            // A select rather than a conditional store: it vectorises.
            for (d, y) in d.iter_mut().zip(out) {
                *d = if *y > 0.0 { *d } else { 0.0 };
            }
        });
}

fn add_assign(a: &mut [f32], b: &[f32]) {
    a.par_chunks_mut(ROW_CHUNK * 64)
        .zip(b.par_chunks(ROW_CHUNK * 64))
        .for_each(|(a, b)| {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        });
}

fn read_weights(model: &Model, shape: NetShape) -> Weights {
    let value_conv = ConvBnWeights::new(&model.value_conv);
    let mut value_hidden = Dense::from_linear(&model.value_hidden);
    value_hidden.weight = value_rows(
        &value_hidden.weight,
        value_conv.cout,
        shape.cells(),
        value_hidden.outputs,
        true,
    );
    Weights {
        stem: ConvBnWeights::new(&model.stem),
        blocks: model
            .blocks
            .iter()
            .map(|b| BlockWeights {
                a: ConvBnWeights::new(&b.a),
                b: ConvBnWeights::new(&b.b),
                pool: b.pool.as_ref().map(PoolWeights::new),
            })
            .collect(),
        policy_hidden: ConvBnWeights::new(&model.policy_hidden),
        policy: ActionHead::new(&model.policy_out, model.pass.as_ref()),
        reply: model
            .reply_out
            .as_ref()
            .map(|conv| ActionHead::new(conv, model.reply_pass.as_ref())),
        ownership: model.ownership.as_ref().map(|conv| {
            let (_, _, _, weight) = conv_matrix(conv);
            let bias = conv.bias.as_ref().map_or(0.0, |b| param(b)[0]);
            (weight, bias)
        }),
        value_conv,
        value_hidden,
        wdl: Dense::from_linear(&model.wdl),
        margin: Dense::from_linear(&model.margin),
    }
}

fn register<const D: usize>(
    grads: &mut GradientsParams,
    p: &Param<Tensor<D>>,
    g: Vec<f32>,
    device: &Device,
) {
    let dims = p.dims();
    grads.register(
        p.id,
        Tensor::<D>::from_data(TensorData::new(g, dims), device),
    );
}

fn register_dense(
    grads: &mut GradientsParams,
    l: &Linear,
    dw: Vec<f32>,
    db: Vec<f32>,
    device: &Device,
) {
    register(grads, &l.weight, dw, device);
    if let Some(b) = &l.bias {
        register(grads, b, db, device);
    }
}

fn register_conv_bn(grads: &mut GradientsParams, layer: &ConvBn, g: ConvBnGrads, device: &Device) {
    register(grads, &layer.conv.weight, g.weight, device);
    register(grads, &layer.bn.gamma, g.gamma, device);
    register(grads, &layer.bn.beta, g.beta, device);
}
