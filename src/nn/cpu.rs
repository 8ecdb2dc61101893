//! The network's inference pass on the CPU without burn's graph: the same
//! numbers as [`Model::forward`] (within float rounding), in less time.
//!
//! burn's `flex` convolution converts every activation to channels-last and
//! back, builds and frees its im2col tiles per call and runs batch norm,
//! ReLU and the residual sum as separate passes over memory. Here batch
//! norm is folded into the convolution weights once, activations stay
//! channels-last (`[position, cell, channel]`) from the input to the heads,
//! 3x3 convolutions run as Winograd F(4x4, 3x3) (Lavin and Gray, 2015: 36
//! products per 4x4 outputs and channel pair instead of 144; lc0's BLAS
//! backend takes F(2x2, 3x3), as this pass did before), their
//! products batched into matrix products (in AVX-512 or AVX2 registers
//! where the CPU has them, `microkernel.rs`, else through `gemm`, the
//! matrix kernels burn's CPU backend itself uses) and their transforms 16
//! channels at a time (8 on AVX2; compiled for AVX-512 and for AVX2 too,
//! with fused multiply-adds, chosen at run time, `simd.rs`: the build
//! targets plain x86-64), bias, residual and ReLU are applied in the pass
//! that writes each output, and every buffer is kept between calls.
//!
//! ```
//! use burn::tensor::{Tensor, TensorData};
//! use yinsh_zero::game::Game;
//! use yinsh_zero::nn::{default_device, CpuNet, ModelConfig};
//! use yinsh_zero::games::yinsh::{Position, Yinsh};
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

use burn::nn::BatchNorm;
use burn::nn::conv::Conv2d;
use rayon::prelude::*;

use super::kernels::{
    Dense, alone, bias_or_zeros, conv_matrix, gemm, param, pool_cells, pool_mean_max, pool_threads,
    spread_cells, transpose_blocks, value_rows, values,
};
use super::microkernel;
use super::model::{ConvBn, Model};
use super::simd::Simd;
use crate::game::NetShape;

/// Winograd tiles of 3x3 convolutions transformed and multiplied at once:
/// 128 tiles (14 YINSH positions) keep the transformed inputs and products
/// of 64 channels (2.4 MB) near the core.
const WINOGRAD_TILES: usize = 128;

thread_local! {
    /// Winograd scratch of a rayon thread taking a share of a batch.
    static SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The positions a convolution's activations hold: `batch` boards of
/// `height x width` cells, channels-last (`[rows, channels]`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Board {
    pub(super) batch: usize,
    pub(super) height: usize,
    pub(super) width: usize,
}

impl Board {
    pub(super) fn cells(&self) -> usize {
        self.height * self.width
    }

    pub(super) fn rows(&self) -> usize {
        self.batch * self.cells()
    }

    /// The 4x4 output tiles of one board, down and across.
    fn winograd_tiles(&self) -> (usize, usize) {
        (self.height.div_ceil(4), self.width.div_ceil(4))
    }

    /// Positions whose tiles are transformed and multiplied at once (about
    /// [`WINOGRAD_TILES`] tiles; at least one).
    fn positions_per_chunk(&self) -> usize {
        let (th, tw) = self.winograd_tiles();
        (WINOGRAD_TILES / (th * tw)).max(1)
    }
}

/// A convolution with its batch norm folded in; `bias` is `[cout]`. A 1x1
/// one keeps `weight`, `[cin, cout]`; a 3x3 one its Winograd F(4x4, 3x3)
/// form, `winograd`: `[36][cin][cout]`, the kernel `g` of each channel pair
/// as `G g Gᵀ`.
#[derive(Clone, Debug)]
pub(super) struct Conv {
    kernel: usize,
    cin: usize,
    cout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
    winograd: Vec<f32>,
}

/// `G g Gᵀ` of one 3x3 kernel (Lavin and Gray's F(4x4, 3x3), interpolation
/// points 0, ±1, ±2 and infinity: arXiv 1509.09308, section 4.2).
fn winograd_kernel(g: [[f32; 3]; 3]) -> [[f32; 6]; 6] {
    // In f64, so that the sixths and twenty-fourths round once.
    let gg = |r: [f64; 3]| {
        [
            r[0] / 4.0,
            -(r[0] + r[1] + r[2]) / 6.0,
            -(r[0] - r[1] + r[2]) / 6.0,
            r[0] / 24.0 + r[1] / 12.0 + r[2] / 6.0,
            r[0] / 24.0 - r[1] / 12.0 + r[2] / 6.0,
            r[2],
        ]
    };
    // Rows of g Gᵀ, then G applied to each of their columns.
    let rows = g.map(|r| gg(r.map(f64::from)));
    let mut u = [[0.0; 6]; 6];
    for j in 0..6 {
        let col = gg([rows[0][j], rows[1][j], rows[2][j]]);
        for i in 0..6 {
            u[i][j] = col[i] as f32;
        }
    }
    u
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
    stem: Conv,
    blocks: Vec<Block>,
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

/// A residual block: two 3x3 convolutions, and where the block has one,
/// its globally pooled branch (a convolution and the dense layer from its
/// channels' means and maxima to the first convolution's biases).
#[derive(Clone, Debug)]
struct Block {
    a: Conv,
    b: Conv,
    pool: Option<(Conv, Dense)>,
}

/// Scratch space, grown to the largest batch seen and then reused.
#[derive(Clone, Debug, Default)]
struct Buffers {
    x: Vec<f32>,
    h: Vec<f32>,
    t: Vec<f32>,
    scratch: Vec<f32>,
    head: Vec<f32>,
    pooled: Vec<f32>,
    /// A pooled branch's features, `[rows, g]`.
    branch: Vec<f32>,
    /// Its biases spread over the cells, `[rows, c]`, the first
    /// convolution's residual.
    spread: Vec<f32>,
    hidden: Vec<f32>,
    policy: Vec<f32>,
    wdl: Vec<f32>,
    margin: Vec<f32>,
}

impl Conv {
    /// `conv` followed by `bn` (inference statistics), as one convolution.
    fn folded(conv: &Conv2d, bn: Option<&BatchNorm>) -> Conv {
        let (k, cin, cout, mut weight) = conv_matrix(conv);
        let conv_bias = bias_or_zeros(conv.bias.as_ref(), cout);
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
        for row in weight.chunks_exact_mut(cout) {
            for (w, s) in row.iter_mut().zip(&scale) {
                *w *= s;
            }
        }
        let bias = (0..cout)
            .map(|o| conv_bias[o] * scale[o] + shift[o])
            .collect();
        // A 3x3 convolution keeps only its Winograd form.
        if k == 3 {
            return Conv::winograd3x3(cin, cout, &weight, bias);
        }
        Conv {
            kernel: k,
            cin,
            cout,
            weight,
            bias,
            winograd: Vec::new(),
        }
    }

    /// A 3x3 convolution (padding 1) of `weight`, `[9 * cin, cout]` (rows
    /// in patch order: `(ky * 3 + kx) * cin + input channel`), plus `bias`,
    /// in its Winograd form.
    pub(super) fn winograd3x3(cin: usize, cout: usize, weight: &[f32], bias: Vec<f32>) -> Conv {
        let mut winograd = vec![0.0; 36 * cin * cout];
        for i in 0..cin {
            for o in 0..cout {
                let at = |ky: usize, kx: usize| weight[((ky * 3 + kx) * cin + i) * cout + o];
                let u = winograd_kernel([0, 1, 2].map(|ky| [0, 1, 2].map(|kx| at(ky, kx))));
                for (xi, v) in u.iter().flatten().enumerate() {
                    winograd[(xi * cin + i) * cout + o] = *v;
                }
            }
        }
        Conv {
            kernel: 3,
            cin,
            cout,
            weight: Vec::new(),
            bias,
            winograd,
        }
    }

    fn from_conv_bn(c: &ConvBn) -> Conv {
        Conv::folded(&c.conv, Some(&c.bn))
    }
}

/// `c[m x n] = a[m x k] x b[k x n]`, all row-major and contiguous, on
/// every thread of the current rayon pool if `parallel`; alone on its
/// thread, in `path`'s registers where it can.
#[inline(always)]
fn matmul(
    path: Simd,
    (m, k, n): (usize, usize, usize),
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    parallel: bool,
) {
    let alone = !parallel || pool_threads() == 1;
    if alone && microkernel::product(path, (m, k, n), a, b, c) {
        return;
    }
    gemm((m, n, k), c, a, (k, 1), b, (n, 1), false, parallel);
}

/// After a convolution: add the bias (and the residual), then ReLU.
#[inline(always)]
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

/// [`finish`] of one output held apart from `dst`: `dst = src + bias (+
/// residual)`, then ReLU, in one pass (a copy first, then `finish`, read
/// every output twice).
#[inline(always)]
fn finish_into(src: &[f32], dst: &mut [f32], bias: &[f32], residual: Option<&[f32]>, relu: bool) {
    let n = bias.len();
    let (src, dst) = (&src[..n], &mut dst[..n]);
    match residual {
        Some(res) => {
            for (((y, s), b), r) in dst.iter_mut().zip(src).zip(bias).zip(&res[..n]) {
                let v = *s + b + r;
                *y = if relu { v.max(0.0) } else { v };
            }
        }
        None => {
            for ((y, s), b) in dst.iter_mut().zip(src).zip(bias) {
                let v = *s + b;
                *y = if relu { v.max(0.0) } else { v };
            }
        }
    }
}

/// `$name`: [`Conv::winograd`] compiled for the instruction set `$feature`
/// (the path `$path`), its transforms `$lanes` channels at a time with fused
/// multiply-adds.
macro_rules! compiled_for {
    ($name:ident, $feature:literal, $path:expr, $lanes:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        fn $name(
            &self,
            input: &[f32],
            board: Board,
            scratch: &mut Vec<f32>,
            out: &mut [f32],
            residual: Option<&[f32]>,
            relu: bool,
        ) {
            self.winograd_inline::<{ $lanes }, true>(
                $path, input, board, scratch, out, residual, relu,
            );
        }
    };
}

impl Conv {
    /// Convolves `input` (`[board.rows(), cin]`) into `out`
    /// (`[board.rows(), cout]`), then adds the bias and `residual` and
    /// applies ReLU if asked.
    pub(super) fn forward(
        &self,
        input: &[f32],
        board: Board,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        let rows = board.rows();
        let (cin, cout) = (self.cin, self.cout);
        let out = &mut out[..rows * cout];
        if self.kernel == 1 {
            let shape = (rows, cin, cout);
            matmul(Simd::active(), shape, input, &self.weight, out, true);
            finish(out, &self.bias, residual, relu);
            return;
        }
        debug_assert_eq!(self.kernel, 3);
        let cells = board.cells();
        let threads = pool_threads();
        if threads == 1 || board.batch == 1 {
            self.winograd(input, board, scratch, out, residual, relu);
            return;
        }
        // Each thread takes a share of the positions and runs their
        // products alone: splitting the small products of a self-play
        // batch over threads instead costs more than it saves.
        let per = board
            .batch
            .div_ceil(threads)
            .min(board.positions_per_chunk());
        let (input, residual) = (&input[..rows * cin], residual.map(|r| &r[..rows * cout]));
        out.par_chunks_mut(per * cells * cout)
            .enumerate()
            .for_each(|(i, out)| {
                let (first, n) = (i * per * cells, out.len() / cout);
                let input = &input[first * cin..(first + n) * cin];
                let residual = residual.map(|r| &r[first * cout..(first + n) * cout]);
                SCRATCH.with_borrow_mut(|scratch| {
                    let share = Board {
                        batch: n / cells,
                        ..board
                    };
                    self.winograd(input, share, scratch, out, residual, relu);
                });
            });
    }

    /// [`forward`](Self::forward) of a 3x3 convolution (padding 1) on the
    /// calling thread, as Winograd F(4x4, 3x3): each 4x4 block of outputs
    /// costs 36 products per channel pair instead of 144. The 36 products
    /// of every tile form 36 matrix products `[tiles, cin] x [cin, cout]`.
    fn winograd(
        &self,
        input: &[f32],
        board: Board,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        self.winograd_on(Simd::active(), input, board, scratch, out, residual, relu);
    }

    /// [`winograd`](Self::winograd) on `path`, which the CPU has: the build
    /// targets plain x86-64, so the transforms' lane loops (half the pass)
    /// run four floats at a time unless compiled for a wider instruction
    /// set, as each function below is.
    #[allow(clippy::too_many_arguments)]
    fn winograd_on(
        &self,
        path: Simd,
        input: &[f32],
        board: Board,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        assert!(path.is_available(), "the {path} path on a CPU without it");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the path's instructions, asserted above.
        unsafe {
            match path {
                Simd::Avx512 => {
                    return self.winograd_avx512(input, board, scratch, out, residual, relu);
                }
                Simd::Avx2 => {
                    return self.winograd_avx2(input, board, scratch, out, residual, relu);
                }
                Simd::Portable => {}
            }
        }
        self.winograd_inline::<LANES, false>(
            Simd::Portable,
            input,
            board,
            scratch,
            out,
            residual,
            relu,
        );
    }

    compiled_for!(winograd_avx512, "avx512f,fma", Simd::Avx512, LANES);
    compiled_for!(winograd_avx2, "avx2,fma", Simd::Avx2, AVX2_LANES);

    /// The body of [`winograd`](Self::winograd), inlined into each
    /// instruction-set version of it; its products on `path`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn winograd_inline<const L: usize, const FUSED: bool>(
        &self,
        path: Simd,
        input: &[f32],
        board: Board,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        let (cin, cout) = (self.cin, self.cout);
        let Board {
            batch,
            height,
            width,
        } = board;
        let cells = board.cells();
        let (th, tw) = board.winograd_tiles();
        let per_position = th * tw;
        let chunk = board.positions_per_chunk();
        let most = chunk.min(batch) * per_position;
        // Transformed inputs, products, a tile's temporaries, a row of
        // outputs and a zero pixel for the padding, all in the kept
        // scratch buffer.
        let temporaries = 36 * cin.max(cout);
        scratch.resize(36 * most * (cin + cout) + temporaries + 4 * cout + cin, 0.0);
        let (v, rest) = scratch.split_at_mut(36 * most * cin);
        let (m, rest) = rest.split_at_mut(36 * most * cout);
        let (tmp, rest) = rest.split_at_mut(temporaries);
        let (row, zeros) = rest.split_at_mut(4 * cout);
        // The buffer's earlier, larger uses may have left values here.
        zeros[..cin].fill(0.0);
        let zeros = &zeros[..cin];
        let mut first = 0;
        while first < batch {
            let n = chunk.min(batch - first);
            let tiles = n * per_position;
            // Input transform: V = Bᵀ d B of every tile's 6x6 patch, a
            // channel vector at a time.
            for t in 0..tiles {
                let b = first + t / per_position;
                let (ty, tx) = ((t % per_position) / tw, (t % per_position) % tw);
                let pixel = |dy: usize, dx: usize| -> &[f32] {
                    let y = (4 * ty + dy) as isize - 1;
                    let x = (4 * tx + dx) as isize - 1;
                    if y < 0 || x < 0 || y >= height as isize || x >= width as isize {
                        zeros
                    } else {
                        let at = (b * cells + y as usize * width + x as usize) * cin;
                        &input[at..at + cin]
                    }
                };
                // tmp[j][i]: row i, column j of Bᵀ d.
                for j in 0..6 {
                    let column = [
                        pixel(0, j),
                        pixel(1, j),
                        pixel(2, j),
                        pixel(3, j),
                        pixel(4, j),
                        pixel(5, j),
                    ];
                    input_transform::<L, FUSED>(column, six_mut(tmp, j * 6 * cin, cin, cin));
                }
                // ... then each row of Bᵀ d times B.
                for i in 0..6 {
                    let tmp = &*tmp;
                    let at = |j: usize| &tmp[(j * 6 + i) * cin..][..cin];
                    let row = [at(0), at(1), at(2), at(3), at(4), at(5)];
                    let dst = six_mut(v, (i * 6 * tiles + t) * cin, tiles * cin, cin);
                    input_transform::<L, FUSED>(row, dst);
                }
            }
            for xi in 0..36 {
                matmul(
                    path,
                    (tiles, cin, cout),
                    &v[xi * tiles * cin..(xi + 1) * tiles * cin],
                    &self.winograd[xi * cin * cout..(xi + 1) * cin * cout],
                    &mut m[xi * tiles * cout..(xi + 1) * tiles * cout],
                    false,
                );
            }
            // Output transform: Y = Aᵀ M A, the 4x4 outputs of each tile,
            // with bias, residual and ReLU on the way out.
            for t in 0..tiles {
                let b = first + t / per_position;
                let (ty, tx) = ((t % per_position) / tw, (t % per_position) % tw);
                // tmp[j][i]: row i, column j of Aᵀ M.
                for j in 0..6 {
                    let column = {
                        let at = |i: usize| &m[((i * 6 + j) * tiles + t) * cout..][..cout];
                        [at(0), at(1), at(2), at(3), at(4), at(5)]
                    };
                    output_transform::<L, FUSED>(column, four_mut(tmp, j * 4 * cout, cout));
                }
                for i in 0..4 {
                    let y = 4 * ty + i;
                    if y >= height {
                        break;
                    }
                    let tmp = &*tmp;
                    let at = |j: usize| &tmp[(j * 4 + i) * cout..][..cout];
                    let r = [at(0), at(1), at(2), at(3), at(4), at(5)];
                    output_transform::<L, FUSED>(r, four_mut(row, 0, cout));
                    for j in 0..4 {
                        let x = 4 * tx + j;
                        if x >= width {
                            break;
                        }
                        let k = (b * cells + y * width + x) * cout;
                        finish_into(
                            &row[j * cout..(j + 1) * cout],
                            &mut out[k..k + cout],
                            &self.bias,
                            residual.map(|r| &r[k..k + cout]),
                            relu,
                        );
                    }
                }
            }
            first += n;
        }
    }
}

/// Six vectors of `len` in `buf`, the first at `first`, each `stride` after
/// the one before.
fn six_mut(buf: &mut [f32], first: usize, stride: usize, len: usize) -> [&mut [f32]; 6] {
    let rest = &mut buf[first..first + 5 * stride + len];
    let (a, rest) = rest.split_at_mut(stride);
    let (b, rest) = rest.split_at_mut(stride);
    let (c, rest) = rest.split_at_mut(stride);
    let (d, rest) = rest.split_at_mut(stride);
    let (e, f) = rest.split_at_mut(stride);
    [
        &mut a[..len],
        &mut b[..len],
        &mut c[..len],
        &mut d[..len],
        &mut e[..len],
        &mut f[..len],
    ]
}

/// Four vectors of `len` back to back in `buf`, from `first`.
fn four_mut(buf: &mut [f32], first: usize, len: usize) -> [&mut [f32]; 4] {
    let rest = &mut buf[first..first + 4 * len];
    let (a, rest) = rest.split_at_mut(len);
    let (b, rest) = rest.split_at_mut(len);
    let (c, d) = rest.split_at_mut(len);
    [a, b, c, d]
}

/// Lanes a transform handles at once on the AVX-512 and portable paths: one
/// AVX-512 register of floats.
const LANES: usize = 16;

/// Lanes a transform handles at once on the AVX2 path: one register. (Two,
/// as 16 lanes would take, leave too few of its 16 registers for a
/// transform's six inputs and their temporaries.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const AVX2_LANES: usize = 8;

/// `L` channels of one vector, for the transforms' arithmetic:
/// element by element on a fixed-size array, which the compiler turns into
/// whole-register instructions (a plain loop over the channel slices does
/// not vectorize: slices held in arrays carry no no-alias guarantee).
/// Nothing here may be a closure or an array `map`: those are not always
/// inlined, and then run a lane at a time.
#[derive(Clone, Copy)]
struct Lanes<const L: usize>([f32; L]);

/// `s[..n]` as blocks of `L`, `n / L` of them (the rest left
/// out). Indexing all a transform's vectors by block, each cut to the same
/// count, lets the compiler check the bounds once, not per block.
#[inline(always)]
fn blocks<const L: usize>(s: &[f32], n: usize) -> &[[f32; L]] {
    &s[..n].as_chunks().0[..n / L]
}

/// [`blocks`] for writing.
#[inline(always)]
fn blocks_mut<const L: usize>(s: &mut [f32], n: usize) -> &mut [[f32; L]] {
    &mut s[..n].as_chunks_mut().0[..n / L]
}

impl<const L: usize> std::ops::Add for Lanes<L> {
    type Output = Lanes<L>;
    #[inline(always)]
    fn add(mut self, o: Lanes<L>) -> Lanes<L> {
        for l in 0..L {
            self.0[l] += o.0[l];
        }
        self
    }
}

impl<const L: usize> std::ops::Sub for Lanes<L> {
    type Output = Lanes<L>;
    #[inline(always)]
    fn sub(mut self, o: Lanes<L>) -> Lanes<L> {
        for l in 0..L {
            self.0[l] -= o.0[l];
        }
        self
    }
}

/// What the transforms compute with: a float, or [`Lanes`] of them.
trait Channels: Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> {
    /// `k self + y`: rounded once (an FMA instruction on the vector paths)
    /// if `FUSED`, else twice. (The portable path is not fused: without
    /// the instruction, `mul_add` is a call to the C library's `fmaf`.)
    fn madd<const FUSED: bool>(self, k: f32, y: Self) -> Self;
}

impl Channels for f32 {
    #[inline(always)]
    fn madd<const FUSED: bool>(self, k: f32, y: f32) -> f32 {
        if FUSED {
            self.mul_add(k, y)
        } else {
            k * self + y
        }
    }
}

impl<const L: usize> Channels for Lanes<L> {
    #[inline(always)]
    fn madd<const FUSED: bool>(mut self, k: f32, y: Lanes<L>) -> Lanes<L> {
        for l in 0..L {
            self.0[l] = self.0[l].madd::<FUSED>(k, y.0[l]);
        }
        self
    }
}

/// `Bᵀ x` for F(4x4, 3x3): six values of one column (or row) in, six out,
/// the shared differences taken once (14 operations fused, 22 not).
#[inline(always)]
fn input_column<T: Channels, const FUSED: bool>([x0, x1, x2, x3, x4, x5]: [T; 6]) -> [T; 6] {
    let (d31, d42) = (x3 - x1, x4 - x2);
    [
        x0.madd::<FUSED>(4.0, x2.madd::<FUSED>(-5.0, x4)),
        (x1 + x2).madd::<FUSED>(-4.0, x3 + x4),
        (x1 - x2).madd::<FUSED>(4.0, x4 - x3),
        d31.madd::<FUSED>(2.0, d42),
        d31.madd::<FUSED>(-2.0, d42),
        x1.madd::<FUSED>(4.0, x3.madd::<FUSED>(-5.0, x5)),
    ]
}

/// `Aᵀ m` for F(4x4, 3x3): six values in, four out.
#[inline(always)]
fn output_column<T: Channels, const FUSED: bool>([m0, m1, m2, m3, m4, m5]: [T; 6]) -> [T; 4] {
    let (a, b) = (m1 + m2, m1 - m2);
    let (c, d) = (m3 + m4, m3 - m4);
    [
        m0 + a + c,
        d.madd::<FUSED>(2.0, b),
        c.madd::<FUSED>(4.0, a),
        d.madd::<FUSED>(8.0, b + m5),
    ]
}

/// `w = Bᵀ d` for six channel vectors `d` (F(4x4, 3x3)'s input transform
/// of one column, or of one row from the right).
#[inline(always)]
fn input_transform<const L: usize, const FUSED: bool>(d: [&[f32]; 6], w: [&mut [f32]; 6]) {
    let n = w[0].len();
    let [d0, d1, d2, d3, d4, d5] = d;
    let [w0, w1, w2, w3, w4, w5] = w;
    {
        let (x0, x1, x2) = (blocks::<L>(d0, n), blocks::<L>(d1, n), blocks::<L>(d2, n));
        let (x3, x4, x5) = (blocks::<L>(d3, n), blocks::<L>(d4, n), blocks::<L>(d5, n));
        let (y0, y1, y2) = (
            blocks_mut::<L>(w0, n),
            blocks_mut::<L>(w1, n),
            blocks_mut::<L>(w2, n),
        );
        let (y3, y4, y5) = (
            blocks_mut::<L>(w3, n),
            blocks_mut::<L>(w4, n),
            blocks_mut::<L>(w5, n),
        );
        for k in 0..n / L {
            let x = [
                Lanes(x0[k]),
                Lanes(x1[k]),
                Lanes(x2[k]),
                Lanes(x3[k]),
                Lanes(x4[k]),
                Lanes(x5[k]),
            ];
            let [r0, r1, r2, r3, r4, r5] = input_column::<_, FUSED>(x);
            (y0[k], y1[k], y2[k]) = (r0.0, r1.0, r2.0);
            (y3[k], y4[k], y5[k]) = (r3.0, r4.0, r5.0);
        }
    }
    for c in n - n % L..n {
        let [y0, y1, y2, y3, y4, y5] =
            input_column::<_, FUSED>([d0[c], d1[c], d2[c], d3[c], d4[c], d5[c]]);
        (w0[c], w1[c], w2[c], w3[c], w4[c], w5[c]) = (y0, y1, y2, y3, y4, y5);
    }
}

/// `y = Aᵀ m` for six channel vectors `m` (F(4x4, 3x3)'s output transform).
#[inline(always)]
fn output_transform<const L: usize, const FUSED: bool>(m: [&[f32]; 6], y: [&mut [f32]; 4]) {
    let n = y[0].len();
    let [m0, m1, m2, m3, m4, m5] = m;
    let [y0, y1, y2, y3] = y;
    {
        let (x0, x1, x2) = (blocks::<L>(m0, n), blocks::<L>(m1, n), blocks::<L>(m2, n));
        let (x3, x4, x5) = (blocks::<L>(m3, n), blocks::<L>(m4, n), blocks::<L>(m5, n));
        let (z0, z1) = (blocks_mut::<L>(y0, n), blocks_mut::<L>(y1, n));
        let (z2, z3) = (blocks_mut::<L>(y2, n), blocks_mut::<L>(y3, n));
        for k in 0..n / L {
            let x = [
                Lanes(x0[k]),
                Lanes(x1[k]),
                Lanes(x2[k]),
                Lanes(x3[k]),
                Lanes(x4[k]),
                Lanes(x5[k]),
            ];
            let [r0, r1, r2, r3] = output_column::<_, FUSED>(x);
            (z0[k], z1[k], z2[k], z3[k]) = (r0.0, r1.0, r2.0, r3.0);
        }
    }
    for c in n - n % L..n {
        let [r0, r1, r2, r3] =
            output_column::<_, FUSED>([m0[c], m1[c], m2[c], m3[c], m4[c], m5[c]]);
        (y0[c], y1[c], y2[c], y3[c]) = (r0, r1, r2, r3);
    }
}

impl CpuNet {
    /// `model`'s weights, batch norm folded, for inputs of `shape`.
    pub fn new(model: &Model, shape: NetShape) -> CpuNet {
        let stem = Conv::from_conv_bn(&model.stem);
        let value_conv = Conv::from_conv_bn(&model.value_conv);
        let cells = shape.cells();
        let vc = value_conv.cout;
        let mut value_hidden = Dense::from_linear(&model.value_hidden);
        value_hidden.weight =
            value_rows(&value_hidden.weight, vc, cells, value_hidden.outputs, true);
        CpuNet {
            shape,
            stem,
            blocks: model
                .blocks
                .iter()
                .map(|b| Block {
                    a: Conv::from_conv_bn(&b.a),
                    b: Conv::from_conv_bn(&b.b),
                    pool: b
                        .pool
                        .as_ref()
                        .map(|p| (Conv::from_conv_bn(&p.conv), Dense::from_conv1x1(&p.bias))),
                })
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

    /// [`forward`](Self::forward) with all its work on the calling thread,
    /// even inside a rayon pool of several: for passes run side by side,
    /// one per share of a batch.
    pub fn forward_alone(&mut self, input: &[f32], batch: usize) -> CpuOutput<'_> {
        alone(move || self.forward(input, batch))
    }

    /// Runs `batch` positions encoded as [`crate::game::Game::encode`]
    /// writes them (`[batch, planes, height, width]`, concatenated).
    ///
    /// # Panics
    /// If `input` does not hold `batch` positions of the net's shape.
    pub fn forward(&mut self, input: &[f32], batch: usize) -> CpuOutput<'_> {
        let shape = self.shape;
        let board = Board {
            batch,
            height: shape.height,
            width: shape.width,
        };
        let cells = board.cells();
        assert_eq!(
            input.len(),
            batch * shape.input_size(),
            "input of {batch} positions"
        );
        let c = self.stem.cout;
        let rows = board.rows();
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
        let (planes, input_size) = (shape.planes, shape.input_size());
        transpose_blocks(
            input,
            input_size,
            &mut buf.x,
            cells * planes,
            batch,
            (planes, cells),
        );

        let mut h = std::mem::take(&mut buf.h);
        let mut t = std::mem::take(&mut buf.t);
        self.stem
            .forward(&buf.x, board, &mut buf.scratch, &mut h, None, true);
        for Block { a, b, pool } in &self.blocks {
            let bias = pool.as_ref().map(|(conv, dense)| {
                let g = conv.cout;
                grow(&mut buf.branch, rows * g);
                conv.forward(&h, board, &mut buf.scratch, &mut buf.branch, None, true);
                grow(&mut buf.pooled, batch * 2 * g);
                pool_mean_max(&buf.branch, batch, cells, g, &mut buf.pooled, None);
                grow(&mut buf.hidden, batch * c);
                dense.forward(&buf.pooled, batch, &mut buf.hidden);
                grow(&mut buf.spread, rows * c);
                spread_cells(&buf.hidden, batch, cells, c, &mut buf.spread);
                &buf.spread[..rows * c]
            });
            a.forward(&h, board, &mut buf.scratch, &mut t, bias, true);
            // The block's output overwrites its input only after reading it.
            let mut out = std::mem::take(&mut buf.x);
            grow(&mut out, rows * c);
            b.forward(
                &t,
                board,
                &mut buf.scratch,
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
        self.policy_hidden
            .forward(&h, board, &mut buf.scratch, &mut buf.head, None, true);
        self.policy_out
            .forward(&buf.head, board, &mut buf.scratch, &mut t, None, false);
        buf.policy.resize(batch * space, 0.0);
        transpose_blocks(
            &t,
            cells * planes,
            &mut buf.policy,
            space,
            batch,
            (cells, planes),
        );
        if let Some(pass) = &self.pass {
            grow(&mut buf.pooled, batch * c);
            pool_cells(&h, batch, cells, c, &mut buf.pooled);
            grow(&mut buf.hidden, batch * pass.outputs);
            pass.forward(&buf.pooled, batch, &mut buf.hidden);
            for b in 0..batch {
                buf.policy[b * space + planes * cells..(b + 1) * space]
                    .copy_from_slice(&buf.hidden[b * pass.outputs..(b + 1) * pass.outputs]);
            }
        }

        // Value: 1x1 convolution, flattened per position, two dense layers.
        let vc = self.value_conv.cout;
        self.value_conv
            .forward(&h, board, &mut buf.scratch, &mut buf.head, None, true);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The Winograd convolution on every path this CPU has, against the
    /// definition of a 3x3 convolution with padding 1 (summed in f64):
    /// channel counts with and without a remainder of 16, boards a 4x4 tile
    /// does not divide, with and without the residual and ReLU. The vector
    /// paths do the same arithmetic in the same order, so they agree to the
    /// bit.
    #[test]
    fn winograd_convolutions_match_the_definition_on_every_path() {
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        let mut worst = 0.0f64;
        for &(cin, cout, height, width, batch, relu) in &[
            (64, 64, 11, 11, 1, true),
            (64, 64, 11, 11, 14, false),
            (7, 64, 11, 11, 2, false),
            (64, 20, 6, 7, 3, true),
            (20, 36, 5, 9, 1, false),
            (128, 128, 8, 8, 2, true),
        ] {
            let weight: Vec<f32> = (0..9 * cin * cout).map(|_| next()).collect();
            let bias: Vec<f32> = (0..cout).map(|_| next()).collect();
            let conv = Conv::winograd3x3(cin, cout, &weight, bias.clone());
            let cells = height * width;
            let input: Vec<f32> = (0..batch * cells * cin).map(|_| next()).collect();
            let residual: Vec<f32> = (0..batch * cells * cout).map(|_| next()).collect();
            let mut want = vec![0.0f64; batch * cells * cout];
            for b in 0..batch {
                for y in 0..height {
                    for x in 0..width {
                        for o in 0..cout {
                            let mut sum = bias[o] as f64;
                            for ky in 0..3 {
                                for kx in 0..3 {
                                    let (sy, sx) = (y + ky, x + kx);
                                    if sy < 1 || sx < 1 || sy > height || sx > width {
                                        continue;
                                    }
                                    let at = (b * cells + (sy - 1) * width + sx - 1) * cin;
                                    for i in 0..cin {
                                        let w = weight[((ky * 3 + kx) * cin + i) * cout + o];
                                        sum += input[at + i] as f64 * w as f64;
                                    }
                                }
                            }
                            let k = (b * cells + y * width + x) * cout + o;
                            sum += residual[k] as f64;
                            want[k] = if relu { sum.max(0.0) } else { sum };
                        }
                    }
                }
            }
            let board = Board {
                batch,
                height,
                width,
            };
            let mut scratch = Vec::new();
            let r = Some(residual.as_slice());
            let scale = want.iter().fold(0.0f64, |m, w| m.max(w.abs()));
            let mut vector: Option<(Simd, Vec<f32>)> = None;
            for path in Simd::available() {
                let mut got = vec![f32::NAN; want.len()];
                conv.winograd_on(path, &input, board, &mut scratch, &mut got, r, relu);
                for (k, (&w, &g)) in want.iter().zip(&got).enumerate() {
                    let error = (g as f64 - w).abs() / scale;
                    worst = worst.max(error);
                    assert!(
                        error < 1e-5,
                        "{cin}->{cout} on {height}x{width}, the {path} path at {k}: {g} against {w} (scale {scale})"
                    );
                }
                match (&vector, path) {
                    (_, Simd::Portable) => {}
                    (None, _) => vector = Some((path, got)),
                    (Some((first, bits)), _) => assert!(
                        bits.iter()
                            .zip(&got)
                            .all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{cin}->{cout}: the {path} path differs in its bits from {first}"
                    ),
                }
            }
        }
        eprintln!("worst error, relative to the largest output: {worst:.2e}");
    }
}
