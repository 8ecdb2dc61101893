//! Batched inference behind the [`Evaluator`] trait.

use std::collections::HashMap;
use std::path::Path;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use super::model::GRID;
use super::{Model, ModelConfig, NnError, load_weights};
use crate::encode::{INPUT_PLANES, INPUT_SIZE, encode, masked_softmax};
use crate::evaluator::{Evaluation, Evaluator};
use crate::yinsh::{ACTION_SPACE, Position};

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
}

impl Default for InferenceOptions {
    /// A single-threaded evaluator with a 16384-entry cache, as one
    /// self-play worker uses.
    fn default() -> Self {
        InferenceOptions {
            cache_capacity: 1 << 14,
            threads: Some(1),
            max_batch: 256,
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

/// A direct-mapped table of recent evaluations keyed by [`Position::hash`]:
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

/// A network answering the search's questions: positions in, priors over
/// the legal actions (in [`Position::legal_actions`] order) and win/draw/loss
/// probabilities out. The backend stays inside; the search sees only
/// [`Evaluator`].
///
/// ```
/// use yinsh_zero::evaluator::Evaluator;
/// use yinsh_zero::nn::{default_device, InferenceOptions, ModelConfig, NetEvaluator};
/// use yinsh_zero::yinsh::Position;
///
/// let device = default_device();
/// let model = ModelConfig::new().with_blocks(1).with_channels(8).init(&device);
/// let mut net = NetEvaluator::new(model, device, InferenceOptions::default()).unwrap();
/// let e = &net.evaluate(&[Position::new()])[0];
/// assert_eq!(e.priors.len(), 85);
/// assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// ```
pub struct NetEvaluator {
    /// `None` only while a forward pass borrows it on the private pool.
    model: Option<Model>,
    device: Device,
    pool: Option<rayon::ThreadPool>,
    max_batch: usize,
    /// Reused encoding buffer: allocation-free encoding of every batch.
    input: Vec<f32>,
    cache: EvalCache,
    stats: CacheStats,
}

impl NetEvaluator {
    /// Wraps `model` (switched to inference mode) on `device`.
    pub fn new(
        model: Model,
        device: Device,
        options: InferenceOptions,
    ) -> Result<NetEvaluator, NnError> {
        let pool = match options.threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .thread_name(|i| format!("nn-infer-{i}"))
                    .build()?,
            ),
            None => None,
        };
        Ok(NetEvaluator {
            model: Some(model.valid()),
            device,
            pool,
            max_batch: options.max_batch.max(1),
            input: Vec::new(),
            cache: EvalCache::new(options.cache_capacity),
            stats: CacheStats::default(),
        })
    }

    /// An evaluator for the weights saved at `path`.
    pub fn from_file(
        config: &ModelConfig,
        path: &Path,
        device: Device,
        options: InferenceOptions,
    ) -> Result<NetEvaluator, NnError> {
        let model = load_weights(config, path, &device)?;
        NetEvaluator::new(model, device, options)
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
    pub fn evaluate_uncached(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        let mut out = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(self.max_batch) {
            self.forward_chunk(chunk, &mut out);
        }
        out
    }

    fn forward_chunk(&mut self, positions: &[Position], out: &mut Vec<Evaluation>) {
        let b = positions.len();
        if b == 0 {
            return;
        }
        self.input.resize(b * INPUT_SIZE, 0.0);
        for (pos, x) in positions
            .iter()
            .zip(self.input.chunks_exact_mut(INPUT_SIZE))
        {
            encode(pos, x);
        }
        let data = TensorData::new(self.input.clone(), [b, INPUT_PLANES, GRID, GRID]);
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
            let (policy, wdl) = (read(y.policy), read(y.wdl));
            (model, policy, wdl)
        };
        let (model, policy, wdl) = match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        };
        self.model = Some(model);

        for (i, pos) in positions.iter().enumerate() {
            let logits = &policy[i * ACTION_SPACE..(i + 1) * ACTION_SPACE];
            let priors = masked_softmax(logits, &pos.legal_actions());
            let w = [wdl[i * 3], wdl[i * 3 + 1], wdl[i * 3 + 2]];
            let max = w.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e = w.map(|x| (x - max).exp());
            let sum: f32 = e.iter().sum();
            out.push(Evaluation {
                priors,
                wdl: [e[0] / sum, e[1] / sum, e[2] / sum],
            });
        }
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        if self.cache.slots.is_empty() {
            self.stats.misses += positions.len() as u64;
            return self.evaluate_uncached(positions);
        }
        let mut answers: Vec<Option<Evaluation>> = vec![None; positions.len()];
        // First request index of each position the network must see, so
        // repeats within the batch ride along.
        let mut first: HashMap<u64, usize> = HashMap::new();
        let mut todo: Vec<Position> = Vec::new();
        let mut todo_at: Vec<usize> = Vec::new();
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        for (i, pos) in positions.iter().enumerate() {
            let h = pos.hash();
            if let Some(e) = self.cache.get(h) {
                answers[i] = Some(e.clone());
                self.stats.hits += 1;
            } else if let Some(&j) = first.get(&h) {
                repeats.push((i, j));
                self.stats.hits += 1;
            } else {
                first.insert(h, i);
                todo.push(*pos);
                todo_at.push(i);
                self.stats.misses += 1;
            }
        }
        for (e, (&i, pos)) in self
            .evaluate_uncached(&todo)
            .into_iter()
            .zip(todo_at.iter().zip(&todo))
        {
            self.cache.insert(pos.hash(), &e);
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
