//! Batched inference behind the [`Evaluator`] trait.

use std::collections::HashMap;
use std::path::Path;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use rayon::prelude::*;

use super::{CpuNet, Model, ModelConfig, NnError, load_game_weights};
use crate::encode::masked_softmax;
use crate::evaluator::{Evaluation, Evaluator};
use crate::game::{Game, NetShape, State};

/// How a [`NetEvaluator`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InferenceOptions {
    /// Entries of the evaluation cache; 0 turns it off (and with it the
    /// merging of repeated positions within a batch).
    pub cache_capacity: usize,
    /// `Some(n)`: run every forward pass in a private rayon pool of `n`
    /// threads (`Some(1)` for one self-play worker per core). `None`: share
    /// rayon's global pool. See [`super::backend`].
    pub threads: Option<usize>,
    /// Largest batch sent through the network at once; bigger requests are
    /// split, which bounds the memory of one pass.
    pub max_batch: usize,
    /// On the `flex` (CPU) backend, run the forward pass with [`CpuNet`]
    /// (batch norm folded, channels-last, cached buffers) instead of
    /// burn's graph: the same outputs within 1e-4, in less time. Other
    /// backends always run burn's graph.
    pub native_cpu: bool,
    /// With [`CpuNet`] on a private pool of several threads: run a batch
    /// as one share per thread, each through its own copy of the network
    /// alone (one fork and join per batch), rather than splitting every
    /// layer over the threads (a join per layer). Measured faster for the
    /// small batches of one game searched on several cores
    /// (`docs/strength.md`, method 5).
    pub side_by_side: bool,
}

impl Default for InferenceOptions {
    /// A single-threaded evaluator with a 16384-entry cache, as one
    /// self-play worker uses.
    fn default() -> Self {
        InferenceOptions {
            cache_capacity: 1 << 14,
            threads: Some(1),
            max_batch: 256,
            native_cpu: true,
            side_by_side: true,
        }
    }
}

/// How often the cache answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Positions answered from the cache or from an identical position of
    /// the same batch.
    pub hits: u64,
    /// Positions sent through the network.
    pub misses: u64,
}

/// A direct-mapped table of recent evaluations keyed by [`State::key`]:
/// fixed memory, O(1), and a newer position simply evicts an older one that
/// lands on the same slot.
struct EvalCache {
    slots: Vec<Option<(u64, Evaluation)>>,
}

impl EvalCache {
    fn new(capacity: usize) -> EvalCache {
        EvalCache {
            slots: vec![None; capacity],
        }
    }

    fn slot(&self, hash: u64) -> Option<usize> {
        (!self.slots.is_empty()).then(|| (hash % self.slots.len() as u64) as usize)
    }

    fn get(&self, hash: u64) -> Option<&Evaluation> {
        match &self.slots[self.slot(hash)?] {
            Some((h, e)) if *h == hash => Some(e),
            _ => None,
        }
    }

    fn insert(&mut self, hash: u64, e: &Evaluation) {
        if let Some(i) = self.slot(hash) {
            self.slots[i] = Some((hash, e.clone()));
        }
    }

    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}

/// A network answering the search's questions about one game: positions
/// in, priors over the legal actions (in [`State::legal_actions`] order) and
/// win/draw/loss probabilities out. The backend stays inside; the search
/// sees only [`Evaluator`].
///
/// ```
/// use yinsh_zero::evaluator::Evaluator;
/// use yinsh_zero::game::Game;
/// use yinsh_zero::nn::{default_device, InferenceOptions, ModelConfig, NetEvaluator};
/// use yinsh_zero::games::yinsh::{Position, Yinsh};
///
/// let game = Yinsh::standard();
/// let device = default_device();
/// let model = ModelConfig::new().with_blocks(1).with_channels(8).init(&game.net_shape(), &device);
/// let mut net = NetEvaluator::new(game, model, device, InferenceOptions::default()).unwrap();
/// let e = &net.evaluate(&[Position::new()])[0];
/// assert_eq!(e.priors.len(), 85);
/// assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// ```
pub struct NetEvaluator<G: Game> {
    game: G,
    shape: NetShape,
    /// `None` only while a forward pass borrows it on the private pool.
    model: Option<Model>,
    /// The same weights for the native CPU pass, when it is used: one copy
    /// per thread of the private pool when batches run side by side (see
    /// [`InferenceOptions::side_by_side`]), else one.
    cpu: Vec<CpuNet>,
    device: Device,
    pool: Option<rayon::ThreadPool>,
    max_batch: usize,
    /// Reused encoding buffer: allocation-free encoding of every batch.
    input: Vec<f32>,
    cache: EvalCache,
    stats: CacheStats,
}

impl<G: Game> NetEvaluator<G> {
    /// Wraps `model` (switched to inference mode), a network for `game`, on
    /// `device`.
    pub fn new(
        game: G,
        model: Model,
        device: Device,
        options: InferenceOptions,
    ) -> Result<NetEvaluator<G>, NnError> {
        let pool = match options.threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .thread_name(|i| format!("nn-infer-{i}"))
                    .build()?,
            ),
            None => None,
        };
        let model = model.valid();
        let copies = match options.threads {
            Some(n) if options.side_by_side => n.max(1),
            _ => 1,
        };
        let cpu = match options.native_cpu && device == Device::flex() {
            true => vec![CpuNet::new(&model, game.net_shape()); copies],
            false => Vec::new(),
        };
        Ok(NetEvaluator {
            shape: game.net_shape(),
            game,
            model: Some(model),
            cpu,
            device,
            pool,
            max_batch: options.max_batch.max(1),
            input: Vec::new(),
            cache: EvalCache::new(options.cache_capacity),
            stats: CacheStats::default(),
        })
    }

    /// An evaluator for the weights saved at `path`, a network of size
    /// `config` for `game`.
    pub fn from_file(
        game: G,
        config: &ModelConfig,
        path: &Path,
        device: Device,
        options: InferenceOptions,
    ) -> Result<NetEvaluator<G>, NnError> {
        let model = load_game_weights(&game, config, path, &device)?;
        NetEvaluator::new(game, model, device, options)
    }

    /// The game the network plays.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The network inside.
    pub fn model(&self) -> &Model {
        self.model.as_ref().expect("model is home between passes")
    }

    /// Cache hits and misses so far.
    pub fn cache_stats(&self) -> CacheStats {
        self.stats
    }

    /// Forgets every cached evaluation (e.g. after loading new weights).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Evaluates `positions` through the network, bypassing the cache.
    pub fn evaluate_uncached(&mut self, positions: &[G::State]) -> Vec<Evaluation> {
        let mut out = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(self.max_batch) {
            self.forward_chunk(chunk, &mut out);
        }
        out
    }

    fn forward_chunk(&mut self, positions: &[G::State], out_evals: &mut Vec<Evaluation>) {
        let b = positions.len();
        if b == 0 {
            return;
        }
        let shape = self.shape;
        let size = shape.input_size();
        self.input.resize(b * size, 0.0);
        for (pos, x) in positions.iter().zip(self.input.chunks_exact_mut(size)) {
            self.game.encode(pos, x);
        }
        if self.cpu.len() > 1 && b > 1 {
            self.forward_side_by_side(positions, out_evals);
            return;
        }
        if let Some(cpu) = self.cpu.first_mut() {
            let input = &self.input[..b * size];
            let out = match &self.pool {
                Some(pool) => pool.install(move || cpu.forward(input, b)),
                None => cpu.forward(input, b),
            };
            push_evaluations(
                &self.game, positions, out.policy, out.wdl, out.margin, out_evals,
            );
            return;
        }
        let data = TensorData::new(
            self.input[..b * size].to_vec(),
            [b, shape.planes, shape.height, shape.width],
        );
        let model = self.model.take().expect("model is home between passes");
        let device = self.device.clone();
        let run = move || {
            let x = Tensor::<4>::from_data(data, &device);
            let y = model.forward(x);
            let read = |t: Tensor<2>| {
                t.into_data()
                    .as_slice::<f32>()
                    .expect("the network computes in f32")
                    .to_vec()
            };
            let (policy, wdl, margin) = (read(y.policy), read(y.wdl), read(y.margin));
            (model, policy, wdl, margin)
        };
        let (model, policy, wdl, margin) = match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        };
        self.model = Some(model);
        push_evaluations(&self.game, positions, &policy, &wdl, &margin, out_evals);
    }

    /// The encoded batch of `positions` in shares, one per copy of the
    /// network, each run alone on its own thread of the pool.
    fn forward_side_by_side(&mut self, positions: &[G::State], out_evals: &mut Vec<Evaluation>) {
        let (b, size) = (positions.len(), self.shape.input_size());
        let per = b.div_ceil(self.cpu.len());
        let input = &self.input[..b * size];
        let nets = &mut self.cpu;
        let pool = self
            .pool
            .as_ref()
            .expect("copies of the network only with a private pool");
        let outputs: Vec<(Vec<f32>, Vec<f32>, Vec<f32>)> = pool.install(|| {
            nets.par_iter_mut()
                .zip(input.par_chunks(per * size))
                .map(|(net, x)| {
                    let out = net.forward_alone(x, x.len() / size);
                    (out.policy.to_vec(), out.wdl.to_vec(), out.margin.to_vec())
                })
                .collect()
        });
        for (share, (policy, wdl, margin)) in positions.chunks(per).zip(&outputs) {
            push_evaluations(&self.game, share, policy, wdl, margin, out_evals);
        }
    }
}

/// Priors over the legal actions, win/draw/loss probabilities and margins
/// from a batch's raw outputs.
fn push_evaluations<G: Game>(
    game: &G,
    positions: &[G::State],
    policy: &[f32],
    wdl: &[f32],
    margin: &[f32],
    out: &mut Vec<Evaluation>,
) {
    let space = game.net_shape().action_space();
    for (i, pos) in positions.iter().enumerate() {
        let logits = &policy[i * space..(i + 1) * space];
        let priors = masked_softmax(game, logits, &pos.legal_actions());
        let w = [wdl[i * 3], wdl[i * 3 + 1], wdl[i * 3 + 2]];
        let max = w.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e = w.map(|x| (x - max).exp());
        let sum: f32 = e.iter().sum();
        out.push(Evaluation {
            priors,
            wdl: [e[0] / sum, e[1] / sum, e[2] / sum],
            margin: margin[i],
        });
    }
}

impl<G: Game> Evaluator<G::State> for NetEvaluator<G> {
    fn evaluate(&mut self, positions: &[G::State]) -> Vec<Evaluation> {
        if self.cache.slots.is_empty() {
            self.stats.misses += positions.len() as u64;
            return self.evaluate_uncached(positions);
        }
        let mut answers: Vec<Option<Evaluation>> = vec![None; positions.len()];
        // First request index of each position the network must see, so
        // repeats within the batch ride along.
        let mut first: HashMap<u64, usize> = HashMap::new();
        let mut todo: Vec<G::State> = Vec::new();
        let mut todo_at: Vec<usize> = Vec::new();
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        for (i, pos) in positions.iter().enumerate() {
            let h = pos.key();
            if let Some(e) = self.cache.get(h) {
                answers[i] = Some(e.clone());
                self.stats.hits += 1;
            } else if let Some(&j) = first.get(&h) {
                repeats.push((i, j));
                self.stats.hits += 1;
            } else {
                first.insert(h, i);
                todo.push(pos.clone());
                todo_at.push(i);
                self.stats.misses += 1;
            }
        }
        for (e, (&i, pos)) in self
            .evaluate_uncached(&todo)
            .into_iter()
            .zip(todo_at.iter().zip(&todo))
        {
            self.cache.insert(pos.key(), &e);
            answers[i] = Some(e);
        }
        for (i, j) in repeats {
            answers[i] = answers[j].clone();
        }
        answers
            .into_iter()
            .map(|a| a.expect("every position answered"))
            .collect()
    }
}
