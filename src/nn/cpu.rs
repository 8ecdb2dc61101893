//! The network's inference pass on the CPU without burn's graph: the same
//! numbers as [`Model::forward`] (within float rounding), in less time.
//!
//! burn's `flex` convolution converts every activation to channels-last and
//! back, builds and frees its im2col tiles per call and runs batch norm,
//! ReLU and the residual sum as separate passes over memory. Here batch
//! norm is folded into the convolution weights once, activations stay
//! channels-last (`[position, cell, channel]`) from the input to the heads,
//! 3x3 convolutions are im2col tiles sized for the cache fed to `gemm` (the
//! matrix kernels burn's CPU backend itself uses), bias, residual and ReLU
//! are applied in one pass over each output tile, and every buffer is kept
//! between calls.
//!
//! ```
//! use burn::tensor::{Tensor, TensorData};
//! use yinsh_zero::game::Game;
//! use yinsh_zero::nn::{default_device, CpuNet, ModelConfig};
//! use yinsh_zero::yinsh::{Position, Yinsh};
//!
//! let game = Yinsh::standard();
//! let shape = game.net_shape();
//! let device = default_device();
//! let model = ModelConfig::new().with_blocks(1).with_channels(8).init(&shape, &device);
//! let mut input = vec![0.0; shape.input_size()];
//! game.encode(&Position::new(), &mut input);
//!
//! let mut net = CpuNet::new(&model, shape);
//! let out = net.forward(&input, 1);
//! let x = Tensor::<4>::from_data(
//!     TensorData::new(input.clone(), [1, shape.planes, shape.height, shape.width]),
//!     &device,
//! );
//! let burn_wdl = model.forward(x).wdl.into_data().try_to_vec::<f32>().unwrap();
//! for (a, b) in out.wdl.iter().zip(&burn_wdl) {
//!     assert!((a - b).abs() < 1e-4);
//! }
//! ```

use burn::module::Param;
use burn::nn::BatchNorm;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::tensor::Tensor;

use super::model::{ConvBn, Model};
use crate::game::NetShape;

/// Rows (output cells) of one im2col tile: 256 rows of a 3x3 convolution
/// over 64 channels are 576 KiB, which stays in L2 next to the weights.
const TILE_ROWS: usize = 256;

/// A convolution with its batch norm folded in: `weight` is
/// `[k * k * cin, cout]` (rows in im2col order: kernel row, kernel column,
/// input channel), `bias` is `[cout]`.
#[derive(Clone, Debug)]
struct Conv {
    kernel: usize,
    cin: usize,
    cout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// A dense layer: `weight` is `[inputs, outputs]` (burn's layout).
#[derive(Clone, Debug)]
struct Dense {
    inputs: usize,
    outputs: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// What [`CpuNet::forward`] computes for a batch: the raw outputs of
/// [`Model::forward`], row-major, borrowed from the net's buffers.
#[derive(Debug)]
pub struct CpuOutput<'a> {
    /// `[batch, action space]` policy logits.
    pub policy: &'a [f32],
    /// `[batch, 3]` win/draw/loss logits.
    pub wdl: &'a [f32],
    /// `[batch]` tanh-squashed margins.
    pub margin: &'a [f32],
}

/// A trained [`Model`]'s weights prepared for fast CPU inference.
#[derive(Clone, Debug)]
pub struct CpuNet {
    shape: NetShape,
    channels: usize,
    stem: Conv,
    blocks: Vec<(Conv, Conv)>,
    policy_hidden: Conv,
    policy_out: Conv,
    pass: Option<Dense>,
    value_conv: Conv,
    /// Rows permuted from burn's channel-major flattening to cell-major.
    value_hidden: Dense,
    wdl: Dense,
    margin: Dense,
    buffers: Buffers,
}

/// Scratch space, grown to the largest batch seen and then reused.
#[derive(Clone, Debug, Default)]
struct Buffers {
    x: Vec<f32>,
    h: Vec<f32>,
    t: Vec<f32>,
    col: Vec<f32>,
    head: Vec<f32>,
    pooled: Vec<f32>,
    hidden: Vec<f32>,
    policy: Vec<f32>,
    wdl: Vec<f32>,
    margin: Vec<f32>,
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("converted to f32")
}

fn param<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    values(p.val())
}

impl Conv {
    /// `conv` followed by `bn` (inference statistics), as one convolution.
    fn folded(conv: &Conv2d, bn: Option<&BatchNorm>) -> Conv {
        let [cout, cin, kh, kw] = conv.weight.dims();
        assert_eq!(kh, kw, "square kernels only");
        assert!(kh == 1 || kh == 3, "1x1 and 3x3 kernels only");
        let w = param(&conv.weight);
        let conv_bias = conv
            .bias
            .as_ref()
            .map(param)
            .unwrap_or_else(|| vec![0.0; cout]);
        let (scale, shift) = match bn {
            Some(bn) => {
                let gamma = param(&bn.gamma);
                let beta = param(&bn.beta);
                let mean = values(bn.running_mean.value());
                let var = values(bn.running_var.value());
                let scale: Vec<f32> = (0..cout)
                    .map(|o| gamma[o] / (var[o] + bn.epsilon as f32).sqrt())
                    .collect();
                let shift = (0..cout).map(|o| beta[o] - mean[o] * scale[o]).collect();
                (scale, shift)
            }
            None => (vec![1.0; cout], vec![0.0; cout]),
        };
        let k = kh;
        let mut weight = vec![0.0; k * k * cin * cout];
        for o in 0..cout {
            for i in 0..cin {
                for ky in 0..k {
                    for kx in 0..k {
                        let src = ((o * cin + i) * k + ky) * k + kx;
                        let row = (ky * k + kx) * cin + i;
                        weight[row * cout + o] = w[src] * scale[o];
                    }
                }
            }
        }
        let bias = (0..cout)
            .map(|o| conv_bias[o] * scale[o] + shift[o])
            .collect();
        Conv {
            kernel: k,
            cin,
            cout,
            weight,
            bias,
        }
    }

    fn from_conv_bn(c: &ConvBn) -> Conv {
        Conv::folded(&c.conv, Some(&c.bn))
    }
}

impl Dense {
    fn from_linear(l: &Linear) -> Dense {
        let [inputs, outputs] = l.weight.dims();
        Dense {
            inputs,
            outputs,
            weight: param(&l.weight),
            bias: l
                .bias
                .as_ref()
                .map(param)
                .unwrap_or_else(|| vec![0.0; outputs]),
        }
    }

    /// `out[r] = input[r] x weight + bias` for `rows` rows.
    fn forward(&self, input: &[f32], rows: usize, out: &mut [f32]) {
        matmul(
            rows,
            self.inputs,
            self.outputs,
            input,
            &self.weight,
            &mut out[..rows * self.outputs],
        );
        for r in out[..rows * self.outputs].chunks_exact_mut(self.outputs) {
            for (y, b) in r.iter_mut().zip(&self.bias) {
                *y += b;
            }
        }
    }
}

/// `c[m x n] = a[m x k] x b[k x n]`, all row-major and contiguous.
fn matmul(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c[..m * n].fill(0.0);
        return;
    }
    let parallelism = match rayon::current_num_threads() {
        1 => gemm::Parallelism::None,
        n => gemm::Parallelism::Rayon(n),
    };
    // SAFETY: the asserts above keep every row and column gemm touches
    // inside the three slices; `c` does not alias `a` or `b` (one is `&mut`).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        );
    }
}

/// After a convolution: add the bias (and the residual), then ReLU.
fn finish(out: &mut [f32], bias: &[f32], residual: Option<&[f32]>, relu: bool) {
    let n = bias.len();
    match residual {
        Some(res) => {
            for (row, res) in out.chunks_exact_mut(n).zip(res.chunks_exact(n)) {
                for ((y, b), r) in row.iter_mut().zip(bias).zip(res) {
                    let v = *y + b + r;
                    *y = if relu { v.max(0.0) } else { v };
                }
            }
        }
        None => {
            for row in out.chunks_exact_mut(n) {
                for (y, b) in row.iter_mut().zip(bias) {
                    let v = *y + b;
                    *y = if relu { v.max(0.0) } else { v };
                }
            }
        }
    }
}

impl Conv {
    /// Convolves `input` (`[batch * cells, cin]`, channels-last, on a
    /// `height x width` board) into `out` (`[batch * cells, cout]`), then
    /// adds the bias and `residual` and applies ReLU if asked.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        input: &[f32],
        batch: usize,
        height: usize,
        width: usize,
        col: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        let rows = batch * height * width;
        let (cin, cout) = (self.cin, self.cout);
        let out = &mut out[..rows * cout];
        if self.kernel == 1 {
            matmul(rows, cin, cout, input, &self.weight, out);
            finish(out, &self.bias, residual, relu);
            return;
        }
        let k = self.kernel;
        let pad = k / 2;
        let cells = height * width;
        let patch = k * k * cin;
        col.resize(TILE_ROWS.min(rows) * patch, 0.0);
        let mut start = 0;
        while start < rows {
            let end = (start + TILE_ROWS).min(rows);
            let n = end - start;
            for (r, dst) in (start..end).zip(col.chunks_exact_mut(patch)) {
                let (b, cell) = (r / cells, r % cells);
                let (y, x) = (cell / width, cell % width);
                for ky in 0..k {
                    let iy = y as isize + ky as isize - pad as isize;
                    for kx in 0..k {
                        let ix = x as isize + kx as isize - pad as isize;
                        let d = &mut dst[(ky * k + kx) * cin..(ky * k + kx + 1) * cin];
                        if iy < 0 || ix < 0 || iy >= height as isize || ix >= width as isize {
                            d.fill(0.0);
                        } else {
                            let s = (b * cells + iy as usize * width + ix as usize) * cin;
                            d.copy_from_slice(&input[s..s + cin]);
                        }
                    }
                }
            }
            let o = &mut out[start * cout..end * cout];
            matmul(n, patch, cout, &col[..n * patch], &self.weight, o);
            finish(
                o,
                &self.bias,
                residual.map(|r| &r[start * cout..end * cout]),
                relu,
            );
            start = end;
        }
    }
}

impl CpuNet {
    /// `model`'s weights, batch norm folded, for inputs of `shape`.
    pub fn new(model: &Model, shape: NetShape) -> CpuNet {
        let stem = Conv::from_conv_bn(&model.stem);
        let channels = stem.cout;
        let value_conv = Conv::from_conv_bn(&model.value_conv);
        let cells = shape.cells();
        let vc = value_conv.cout;
        let mut value_hidden = Dense::from_linear(&model.value_hidden);
        // burn flattens `[channel, cell]`; activations here are `[cell, channel]`.
        let burn_rows = value_hidden.weight.clone();
        let outs = value_hidden.outputs;
        for ch in 0..vc {
            for cell in 0..cells {
                let from = (ch * cells + cell) * outs;
                let to = (cell * vc + ch) * outs;
                value_hidden.weight[to..to + outs].copy_from_slice(&burn_rows[from..from + outs]);
            }
        }
        CpuNet {
            shape,
            channels,
            stem,
            blocks: model
                .blocks
                .iter()
                .map(|b| (Conv::from_conv_bn(&b.a), Conv::from_conv_bn(&b.b)))
                .collect(),
            policy_hidden: Conv::from_conv_bn(&model.policy_hidden),
            policy_out: Conv::folded(&model.policy_out, None),
            pass: model.pass.as_ref().map(Dense::from_linear),
            value_conv,
            value_hidden,
            wdl: Dense::from_linear(&model.wdl),
            margin: Dense::from_linear(&model.margin),
            buffers: Buffers::default(),
        }
    }

    /// Runs `batch` positions encoded as [`crate::game::Game::encode`]
    /// writes them (`[batch, planes, height, width]`, concatenated).
    ///
    /// # Panics
    /// If `input` does not hold `batch` positions of the net's shape.
    pub fn forward(&mut self, input: &[f32], batch: usize) -> CpuOutput<'_> {
        let shape = self.shape;
        let (height, width, cells) = (shape.height, shape.width, shape.cells());
        assert_eq!(
            input.len(),
            batch * shape.input_size(),
            "input of {batch} positions"
        );
        let c = self.channels;
        let rows = batch * cells;
        let buf = &mut self.buffers;
        let grow = |v: &mut Vec<f32>, n: usize| {
            if v.len() < n {
                v.resize(n, 0.0);
            }
        };
        grow(&mut buf.x, rows * shape.planes);
        grow(&mut buf.h, rows * c);
        grow(&mut buf.t, rows * c);

        // Planes-first input to channels-last.
        for b in 0..batch {
            let src = &input[b * shape.input_size()..(b + 1) * shape.input_size()];
            let dst = &mut buf.x[b * cells * shape.planes..(b + 1) * cells * shape.planes];
            for p in 0..shape.planes {
                for cell in 0..cells {
                    dst[cell * shape.planes + p] = src[p * cells + cell];
                }
            }
        }

        let mut h = std::mem::take(&mut buf.h);
        let mut t = std::mem::take(&mut buf.t);
        self.stem.forward(
            &buf.x,
            batch,
            height,
            width,
            &mut buf.col,
            &mut h,
            None,
            true,
        );
        for (a, b) in &self.blocks {
            a.forward(&h, batch, height, width, &mut buf.col, &mut t, None, true);
            // The block's output overwrites its input only after reading it.
            let mut out = std::mem::take(&mut buf.x);
            grow(&mut out, rows * c);
            b.forward(
                &t,
                batch,
                height,
                width,
                &mut buf.col,
                &mut out,
                Some(&h[..rows * c]),
                true,
            );
            buf.x = std::mem::replace(&mut h, out);
        }

        // Policy: per cell from the hidden 1x1 convolution, then (for
        // actions tied to no cell) from globally pooled features.
        let space = shape.action_space();
        let planes = self.policy_out.cout;
        let ph = self.policy_hidden.cout;
        grow(&mut buf.head, rows * ph.max(planes));
        grow(&mut t, rows * ph.max(planes));
        self.policy_hidden.forward(
            &h,
            batch,
            height,
            width,
            &mut buf.col,
            &mut buf.head,
            None,
            true,
        );
        self.policy_out.forward(
            &buf.head,
            batch,
            height,
            width,
            &mut buf.col,
            &mut t,
            None,
            false,
        );
        buf.policy.resize(batch * space, 0.0);
        for b in 0..batch {
            let dst = &mut buf.policy[b * space..(b + 1) * space];
            let src = &t[b * cells * planes..(b + 1) * cells * planes];
            for cell in 0..cells {
                for p in 0..planes {
                    dst[p * cells + cell] = src[cell * planes + p];
                }
            }
        }
        if let Some(pass) = &self.pass {
            grow(&mut buf.pooled, batch * c);
            for b in 0..batch {
                let pooled = &mut buf.pooled[b * c..(b + 1) * c];
                pooled.fill(0.0);
                for cell in h[b * cells * c..(b + 1) * cells * c].chunks_exact(c) {
                    for (s, v) in pooled.iter_mut().zip(cell) {
                        *s += v;
                    }
                }
                pooled.iter_mut().for_each(|s| *s /= cells as f32);
            }
            grow(&mut buf.hidden, batch * pass.outputs);
            pass.forward(&buf.pooled, batch, &mut buf.hidden);
            for b in 0..batch {
                buf.policy[b * space + planes * cells..(b + 1) * space]
                    .copy_from_slice(&buf.hidden[b * pass.outputs..(b + 1) * pass.outputs]);
            }
        }

        // Value: 1x1 convolution, flattened per position, two dense layers.
        let vc = self.value_conv.cout;
        self.value_conv.forward(
            &h,
            batch,
            height,
            width,
            &mut buf.col,
            &mut buf.head,
            None,
            true,
        );
        let vh = self.value_hidden.outputs;
        grow(&mut buf.hidden, batch * vh);
        self.value_hidden
            .forward(&buf.head[..rows * vc], batch, &mut buf.hidden);
        buf.hidden[..batch * vh]
            .iter_mut()
            .for_each(|v| *v = v.max(0.0));
        buf.wdl.resize(batch * 3, 0.0);
        self.wdl.forward(&buf.hidden, batch, &mut buf.wdl);
        buf.margin.resize(batch, 0.0);
        self.margin.forward(&buf.hidden, batch, &mut buf.margin);
        buf.margin.iter_mut().for_each(|m| *m = m.tanh());

        buf.h = h;
        buf.t = t;
        CpuOutput {
            policy: &buf.policy[..batch * space],
            wdl: &buf.wdl[..batch * 3],
            margin: &buf.margin[..batch],
        }
    }
}
