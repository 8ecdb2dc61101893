//! `bench nn`: how fast the network judges positions.

use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::simd::{self, Simd};
use super::{BackendKind, InferenceOptions, ModelConfig, NetEvaluator, NnError};
use crate::evaluator::Evaluator;
use crate::game::{Game, State};

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Network shape (randomly initialised: speed does not depend on weights).
    pub model: ModelConfig,
    pub backend: BackendKind,
    /// Threads per evaluator; `Some(1)` is one self-play worker.
    pub threads: Option<usize>,
    /// Batch sizes to time.
    pub batches: Vec<usize>,
    /// The batch whose rate is the headline `positions_per_s`.
    pub self_play_batch: usize,
    /// Time spent on each batch size, at least (after one warm-up pass).
    pub min_seconds: f64,
    /// [`InferenceOptions::native_cpu`]: false times burn's graph on the CPU.
    pub native_cpu: bool,
}

impl Default for BenchOptions {
    /// The default net (6x64, the default config's) on flex, one thread, batches 1 to 256; the
    /// headline is batch 64, the leaves one self-play worker collects from
    /// its games in flight per pass.
    fn default() -> Self {
        BenchOptions {
            model: ModelConfig::new(),
            backend: BackendKind::Flex,
            threads: Some(1),
            batches: vec![1, 8, 32, 64, 128, 256],
            self_play_batch: 64,
            min_seconds: 1.0,
            native_cpu: true,
        }
    }
}

/// The rate at one batch size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchRate {
    pub batch: usize,
    pub positions_per_s: f64,
    /// Achieved GFLOP/s (analytic FLOPs of the net times the rate).
    pub gflops: f64,
    /// `gflops` over the core's FMA peak (`NnBench::fma_peak_gflops`): above
    /// 1 only by doing fewer multiplies than a direct convolution.
    pub peak_share: Option<f64>,
}

/// Result of [`bench_nn`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NnBench {
    pub blocks: usize,
    pub channels: usize,
    pub backend: BackendKind,
    /// Whether the native CPU pass ran (false: burn's graph).
    pub native_cpu: bool,
    /// `null`: rayon's global pool.
    pub threads: Option<usize>,
    /// FLOPs of one position's forward pass (2 x MACs of convs and dense layers).
    pub flops_per_position: u64,
    /// The batch of the headline figures.
    pub batch: usize,
    /// Positions per second at `batch`, through [`NetEvaluator`] without
    /// its cache: encoding, forward pass, read-back and masked softmax.
    pub positions_per_s: f64,
    /// GFLOP/s at `batch`.
    pub gflops: f64,
    pub by_batch: Vec<BatchRate>,
    /// The instruction-set path the native pass's kernels took.
    pub simd: Simd,
    /// The CPU's model name, where the system says.
    pub cpu: Option<String>,
    /// The CPU's vector extensions ([`simd::cpu_flags`]).
    pub cpu_flags: Vec<String>,
    /// One core's fp32 FMA peak on the path's registers, GFLOP/s
    /// ([`simd::fma_peak_gflops`]).
    pub fma_peak_gflops: Option<f64>,
}

/// Times a network for `game` at each batch size of `opts` on positions
/// from seeded random games. Takes about `min_seconds` per batch size.
pub fn bench_nn<G: Game>(game: &G, opts: &BenchOptions) -> Result<NnBench, NnError> {
    let device = opts.backend.device()?;
    let shape = game.net_shape();
    let model = opts.model.init(&shape, &device);
    let mut net = NetEvaluator::new(
        game.clone(),
        model,
        device,
        InferenceOptions {
            cache_capacity: 0,
            threads: opts.threads,
            max_batch: opts.batches.iter().copied().max().unwrap_or(1).max(1),
            native_cpu: opts.native_cpu,
            side_by_side: true,
        },
    )?;
    let most = opts.batches.iter().copied().max().unwrap_or(0);
    let positions = sample_positions(game, most.max(opts.self_play_batch), 0x5eed);
    let flops = opts.model.flops_per_position(&shape);
    let path = Simd::active();
    // Half a second measures the peak steadily; a shorter bench asks less.
    let peak = simd::fma_peak_gflops(path, opts.min_seconds.min(0.5));

    let mut by_batch = Vec::new();
    let mut sizes = opts.batches.clone();
    if !sizes.contains(&opts.self_play_batch) {
        sizes.push(opts.self_play_batch);
    }
    for &batch in &sizes {
        let batch = batch.max(1);
        let input = &positions[..batch];
        net.evaluate(input); // warm-up: allocations, caches, lazy init
        let start = Instant::now();
        let mut done = 0usize;
        while done < 2 * batch || start.elapsed().as_secs_f64() < opts.min_seconds {
            done += net.evaluate(input).len();
        }
        let rate = done as f64 / start.elapsed().as_secs_f64();
        let gflops = rate * flops as f64 / 1e9;
        by_batch.push(BatchRate {
            batch,
            positions_per_s: rate,
            gflops,
            peak_share: peak.map(|p| gflops / p),
        });
    }
    let head = by_batch
        .iter()
        .find(|r| r.batch == opts.self_play_batch.max(1))
        .cloned()
        .expect("the self-play batch is timed");
    by_batch.retain(|r| opts.batches.contains(&r.batch));
    Ok(NnBench {
        blocks: opts.model.blocks,
        channels: opts.model.channels,
        backend: opts.backend,
        native_cpu: opts.native_cpu && opts.backend == BackendKind::Flex,
        threads: opts.threads,
        flops_per_position: flops,
        batch: head.batch,
        positions_per_s: head.positions_per_s,
        gflops: head.gflops,
        by_batch,
        simd: path,
        cpu: simd::cpu_model(),
        cpu_flags: simd::cpu_flags().into_iter().map(String::from).collect(),
        fma_peak_gflops: peak,
    })
}

/// `n` positions met in seeded random games (never finished ones), spread
/// over every phase.
pub fn sample_positions<G: Game>(game: &G, n: usize, seed: u64) -> Vec<G::State> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut pos = game.start();
    while out.len() < n {
        if pos.is_over() {
            pos = game.start();
        }
        out.push(pos.clone());
        let actions = pos.legal_actions();
        let a = actions[rng.random_range(0..actions.len())];
        pos.play_unchecked(a);
    }
    out
}
