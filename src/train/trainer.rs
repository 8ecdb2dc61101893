//! Gradient steps on replayed positions: batches with a random board
//! symmetry each, the AlphaZero loss (policy cross-entropy against the
//! search target, win/draw/loss cross-entropy, weighted score-margin squared
//! error where the game has a margin, and where the network has a reply
//! head its cross-entropy against the opponent's reply, where it has an
//! ownership head its squared error against the game's last position), the
//! optimizer, and per-step metrics.

use std::time::Instant;

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::config::{OptimizerKind, TrainConfig};
use crate::game::{Game, NetShape, State};
use crate::nn::{Backprop, Model, OutputGrads};
use crate::replay::window::{ValueTarget, WindowSample};

/// Logit added to illegal actions: far below any real logit, and finite, so
/// zero targets times it stay zero.
const ILLEGAL: f32 = -1.0e4;

/// One batch of training inputs and targets, as flat row-major arrays.
#[derive(Clone, Debug)]
pub struct Batch {
    pub size: usize,
    /// The game's tensor shapes.
    pub shape: NetShape,
    /// `[size, planes, height, width]`
    pub inputs: Vec<f32>,
    /// `[size, action space]`: the search's policy target.
    pub policy: Vec<f32>,
    /// `[size, action space]`: 0 for legal actions, a large negative otherwise.
    pub mask: Vec<f32>,
    /// `[size, 3]`: the value target for the player to act
    /// ([`WindowSample::wdl_target`]: the one-hot result unless discounted
    /// or mixed with the search's value).
    pub wdl: Vec<f32>,
    /// `[size, 1]`: the margin target, in [-1, 1]
    /// ([`WindowSample::margin_target`]: the game's final score margin unless
    /// mixed with the search's).
    pub margin: Vec<f32>,
    /// `[size, 1]`: 1 where the sample has a margin target, else 0.
    pub margin_mask: Vec<f32>,
    /// `[size, action space]`: the opponent's reply, the reply head's
    /// target ([`WindowSample::reply`]); zeros where the sample has none.
    pub reply: Vec<f32>,
    /// `[size, 1]`: 1 where the sample has a reply target, else 0.
    pub reply_mask: Vec<f32>,
    /// `[size, cells]`: each cell's owner at the game's end from the
    /// player to act's side ([`Game::ownership`] of the sample's last
    /// position, in the sample's symmetry); zeros where it has none.
    pub ownership: Vec<f32>,
    /// `[size, 1]`: 1 where the sample has an ownership target, else 0.
    pub ownership_mask: Vec<f32>,
}

impl Batch {
    /// Builds a batch of `game` positions, applying an independent random
    /// symmetry to each sample (positions and policy targets alike), so the
    /// net sees every orientation while the window stores one. Value
    /// targets are made as `value_target` says ([`TrainConfig::value_target`]).
    pub fn new<G: Game, R: Rng>(
        game: &G,
        samples: &[&WindowSample<G::State>],
        value_target: ValueTarget,
        rng: &mut R,
    ) -> Batch {
        let n = samples.len();
        let shape = game.net_shape();
        let (input, space) = (shape.input_size(), shape.action_space());
        let mut b = Batch {
            size: n,
            shape,
            inputs: vec![0.0; n * input],
            policy: vec![0.0; n * space],
            mask: vec![ILLEGAL; n * space],
            wdl: vec![0.0; n * 3],
            margin: vec![0.0; n],
            margin_mask: vec![0.0; n],
            reply: vec![0.0; n * space],
            reply_mask: vec![0.0; n],
            ownership: vec![0.0; n * shape.cells()],
            ownership_mask: vec![0.0; n],
        };
        let cells = shape.cells();
        let symmetries = game.symmetries().max(1);
        for (i, s) in samples.iter().enumerate() {
            let k = rng.random_range(0..symmetries);
            let pos = game.transform(&s.position, k);
            game.encode(&pos, &mut b.inputs[i * input..(i + 1) * input]);
            let row = i * space;
            for &a in pos.legal_actions().iter() {
                b.mask[row + game.action_index(a)] = 0.0;
            }
            for &(idx, p) in &s.policy {
                b.policy[row + game.transform_index(idx as usize, k)] = p;
            }
            b.wdl[i * 3..i * 3 + 3].copy_from_slice(&s.wdl_target(value_target));
            if let Some(m) = s.margin_target(value_target) {
                b.margin[i] = m;
                b.margin_mask[i] = 1.0;
            }
            if let Some(reply) = &s.reply {
                // The same symmetry as the position: the reply is in its frame.
                for &(idx, p) in reply {
                    b.reply[row + game.transform_index(idx as usize, k)] = p;
                }
                b.reply_mask[i] = 1.0;
            }
            if let Some(last) = &s.last {
                let last = game.transform(last, k);
                let out = &mut b.ownership[i * cells..(i + 1) * cells];
                if game.ownership(&last, pos.to_act(), out) {
                    b.ownership_mask[i] = 1.0;
                }
            }
        }
        b
    }
}

/// What one step measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub step: u64,
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub margin_loss: f64,
    /// Cross-entropy of the reply head against the opponent's reply, over
    /// the samples that have one (0 without a reply head).
    #[serde(default)]
    pub reply_loss: f64,
    /// Mean squared error of the ownership head per cell, over the samples
    /// that have a target (0 without an ownership head).
    #[serde(default)]
    pub ownership_loss: f64,
    /// Mean entropy of the network's policy over legal actions (nats).
    pub policy_entropy: f64,
    /// Share of positions whose most likely predicted result is the real one.
    pub value_accuracy: f64,
    pub learning_rate: f64,
    pub samples_per_s: f64,
}

/// A network being trained, with its optimizer state.
pub struct Trainer {
    model: Option<Model>,
    optim: ModuleOptimizer,
    /// The autodiff version of the backend's device.
    device: Device,
    /// On the CPU, the native training pass; `None` runs burn's graph.
    native: Option<Backprop>,
    config: TrainConfig,
    steps: u64,
}

/// The loss of a batch given the network's outputs, and its gradients with
/// respect to them: what the native pass computes outside burn's graph.
struct NativeLoss {
    policy_loss: f64,
    value_loss: f64,
    margin_loss: f64,
    reply_loss: f64,
    ownership_loss: f64,
    entropy: f64,
    d_policy: Vec<f32>,
    d_wdl: Vec<f32>,
    d_margin: Vec<f32>,
    d_reply: Option<Vec<f32>>,
    d_ownership: Option<Vec<f32>>,
}

/// `log_softmax` of the logits `row` plus `mask` into `out`. An entry
/// whose mask is not 0 (an illegal action, [`ILLEGAL`]) gets the
/// log-probability burn's graph gives it, but no `exp`: it would underflow
/// to 0 through `expf`'s slow path.
fn masked_log_softmax(row: &[f32], mask: &[f32], out: &mut Vec<f32>) {
    let legal = || row.iter().zip(mask).filter(|(_, m)| **m == 0.0);
    let max = legal().fold(f32::NEG_INFINITY, |a, (v, _)| a.max(*v));
    let sum: f32 = legal().map(|(v, _)| (v - max).exp()).sum();
    let log_sum = sum.ln() + max;
    out.clear();
    out.extend(row.iter().zip(mask).map(|(v, m)| v + m - log_sum));
}

impl NativeLoss {
    /// The same loss as the graph in [`Trainer::step`] builds.
    fn new(
        batch: &Batch,
        config: &TrainConfig,
        policy: &[f32],
        wdl: &[f32],
        margin: &[f32],
        aux: (Option<&[f32]>, Option<&[f32]>),
    ) -> NativeLoss {
        let (reply, ownership) = aux;
        let n = batch.size;
        let space = batch.shape.action_space();
        let inv_n = 1.0 / n as f32;
        let (wv, wm) = (
            config.value_loss_weight as f32,
            config.margin_loss_weight as f32,
        );
        let mut l = NativeLoss {
            policy_loss: 0.0,
            value_loss: 0.0,
            margin_loss: 0.0,
            reply_loss: 0.0,
            ownership_loss: 0.0,
            entropy: 0.0,
            d_policy: vec![0.0; n * space],
            d_wdl: vec![0.0; n * 3],
            d_margin: vec![0.0; n],
            d_reply: reply.map(|_| vec![0.0; n * space]),
            d_ownership: ownership.map(|o| vec![0.0; o.len()]),
        };
        let cells = batch.shape.cells();
        let wo = config.ownership_weight as f32 / cells as f32;
        let wr = config.reply_policy_weight as f32;
        let no_mask = vec![0.0; space];
        let mut logp = Vec::with_capacity(space);
        for i in 0..n {
            let row = i * space..(i + 1) * space;
            let mask = &batch.mask[row.clone()];
            masked_log_softmax(&policy[row.clone()], mask, &mut logp);
            let target = &batch.policy[row.clone()];
            let mass: f32 = target.iter().sum();
            let d = &mut l.d_policy[row];
            for a in 0..space {
                // An illegal action has probability 0: no entropy, and
                // only its target (0 from any search) in the gradient.
                let p = if mask[a] == 0.0 { logp[a].exp() } else { 0.0 };
                l.policy_loss -= (target[a] * logp[a]) as f64;
                l.entropy -= (p * logp[a]) as f64;
                d[a] = (p * mass - target[a]) * inv_n;
            }
            masked_log_softmax(&wdl[i * 3..i * 3 + 3], &[0.0; 3], &mut logp);
            let target = &batch.wdl[i * 3..i * 3 + 3];
            let mass: f32 = target.iter().sum();
            for k in 0..3 {
                l.value_loss -= (target[k] * logp[k]) as f64;
                l.d_wdl[i * 3 + k] = (logp[k].exp() * mass - target[k]) * inv_n * wv;
            }
            let diff = margin[i] - batch.margin[i];
            l.margin_loss += (diff * diff * batch.margin_mask[i]) as f64;
            l.d_margin[i] = 2.0 * diff * batch.margin_mask[i] * inv_n * wm;
            if let (Some(reply), Some(d_reply)) = (reply, l.d_reply.as_mut()) {
                // Unmasked: the opponent's legal moves are those of a
                // position the sample does not hold.
                let row = i * space..(i + 1) * space;
                masked_log_softmax(&reply[row.clone()], &no_mask, &mut logp);
                let target = &batch.reply[row.clone()];
                let keep = batch.reply_mask[i];
                for (a, d) in d_reply[row].iter_mut().enumerate() {
                    l.reply_loss -= (target[a] * logp[a] * keep) as f64;
                    *d = (logp[a].exp() * keep - target[a]) * inv_n * wr;
                }
            }
            if let (Some(own), Some(d_own)) = (ownership, l.d_ownership.as_mut()) {
                let row = i * cells..(i + 1) * cells;
                let keep = batch.ownership_mask[i];
                let target = &batch.ownership[row.clone()];
                for ((d, o), t) in d_own[row.clone()].iter_mut().zip(&own[row]).zip(target) {
                    let diff = (o - t) * keep;
                    l.ownership_loss += (diff * diff) as f64 / cells as f64;
                    *d = 2.0 * diff * inv_n * wo;
                }
            }
        }
        l.policy_loss /= n as f64;
        l.value_loss /= n as f64;
        l.margin_loss /= n as f64;
        l.reply_loss /= n as f64;
        l.ownership_loss /= n as f64;
        l.entropy /= n as f64;
        l
    }
}

fn tensor<const D: usize>(data: &[f32], shape: [usize; D], device: &Device) -> Tensor<D> {
    Tensor::from_data(TensorData::new(data.to_vec(), shape), device)
}

fn scalar(t: Tensor<1>) -> f64 {
    t.into_data().try_to_vec::<f32>().expect("f32 tensor")[0] as f64
}

impl Trainer {
    /// Trains `model` from step `steps` on: on the CPU (`flex`) with the
    /// native training pass ([`Backprop`]), elsewhere through burn's
    /// autodiff graph on `device`. The two give the same steps within
    /// float rounding (tested).
    pub fn new(model: Model, config: TrainConfig, device: &Device, steps: u64) -> Trainer {
        let native = *device == Device::flex();
        Trainer::with_pass(model, config, device, steps, native)
    }

    /// [`new`](Self::new), but always through burn's autodiff graph: the
    /// reference the native pass is measured and tested against.
    pub fn on_burn_graph(
        model: Model,
        config: TrainConfig,
        device: &Device,
        steps: u64,
    ) -> Trainer {
        Trainer::with_pass(model, config, device, steps, false)
    }

    fn with_pass(
        model: Model,
        config: TrainConfig,
        device: &Device,
        steps: u64,
        native: bool,
    ) -> Trainer {
        // burn's optimizer steps parameters on an autodiff device only, so
        // the native pass's model lives there too (it never builds a graph).
        let device = device.clone().autodiff();
        let model = model.fork(&device).train();
        let native = native.then(Backprop::default);
        let wd =
            (config.weight_decay > 0.0).then(|| WeightDecayConfig::new(config.weight_decay as f32));
        let clip = (config.grad_clip_norm > 0.0).then_some(
            burn::grad_clipping::GradientClippingConfig::Norm(config.grad_clip_norm as f32),
        );
        let optim = match config.optimizer {
            OptimizerKind::Adam => AdamConfig::new()
                .with_weight_decay(wd)
                .with_grad_clipping(clip)
                .init(),
            OptimizerKind::Sgd => SgdConfig::new()
                .with_weight_decay(wd)
                .with_momentum(Some(
                    MomentumConfig::new()
                        .with_momentum(config.momentum)
                        .with_dampening(0.0),
                ))
                .with_gradient_clipping(clip)
                .init(),
        };
        Trainer {
            model: Some(model),
            optim,
            device,
            native,
            config,
            steps,
        }
    }

    /// Whether the native CPU training pass takes the steps (else burn's
    /// autodiff graph).
    pub fn native(&self) -> bool {
        self.native.is_some()
    }

    /// Steps taken so far (the learning-rate schedule's clock).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// One gradient step on `batch`.
    pub fn step(&mut self, batch: &Batch) -> StepMetrics {
        if self.native.is_some() {
            return self.step_native(batch);
        }
        let started = Instant::now();
        let n = batch.size;
        let d = &self.device;
        let shape = batch.shape;
        let space = shape.action_space();
        let x = tensor(
            &batch.inputs,
            [n, shape.planes, shape.height, shape.width],
            d,
        );
        let model = self.model.take().expect("model is home between steps");
        let (out, aux) = model.forward_aux(x);

        let logits = out.policy + tensor(&batch.mask, [n, space], d);
        let logp = log_softmax(logits.clone(), 1);
        let target = tensor(&batch.policy, [n, space], d);
        let policy_loss = (target * logp.clone()).sum_dim(1).mean().neg();
        let entropy = (softmax(logits, 1) * logp).sum_dim(1).mean().neg();

        let wdl_t = tensor(&batch.wdl, [n, 3], d);
        let value_loss = (wdl_t * log_softmax(out.wdl.clone(), 1))
            .sum_dim(1)
            .mean()
            .neg();
        let margin_t = tensor(&batch.margin, [n, 1], d);
        let margin_mask = tensor(&batch.margin_mask, [n, 1], d);
        let margin_loss = ((out.margin - margin_t).powi_scalar(2) * margin_mask).mean();

        let cells = shape.cells();
        let ownership_loss = aux.ownership.map(|o| {
            let target = tensor(&batch.ownership, [n, cells], d);
            let mask = tensor(&batch.ownership_mask, [n, 1], d);
            ((o - target).powi_scalar(2) * mask).mean()
        });
        let reply_loss = aux.reply.map(|r| {
            let target = tensor(&batch.reply, [n, space], d);
            (target * log_softmax(r, 1)).sum_dim(1).mean().neg()
        });
        let mut loss = policy_loss.clone()
            + value_loss.clone() * self.config.value_loss_weight as f32
            + margin_loss.clone() * self.config.margin_loss_weight as f32;
        if let Some(r) = &reply_loss {
            loss = loss + r.clone() * self.config.reply_policy_weight as f32;
        }
        if let Some(o) = &ownership_loss {
            loss = loss + o.clone() * self.config.ownership_weight as f32;
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        let lr = self.config.lr_at(self.steps);
        let model = self.optim.step(lr, model, grads);
        self.model = Some(model);
        self.steps += 1;

        let predicted = out
            .wdl
            .detach()
            .argmax(1)
            .into_data()
            .convert::<i64>()
            .try_to_vec::<i64>()
            .expect("int tensor");
        let correct = predicted
            .iter()
            .enumerate()
            .filter(|&(i, &k)| batch.wdl[i * 3 + k as usize] == 1.0)
            .count();
        StepMetrics {
            step: self.steps,
            loss: scalar(loss.detach()),
            policy_loss: scalar(policy_loss.detach()),
            value_loss: scalar(value_loss.detach()),
            margin_loss: scalar(margin_loss.detach()),
            reply_loss: reply_loss.map_or(0.0, |r| scalar(r.detach())),
            ownership_loss: ownership_loss.map_or(0.0, |o| scalar(o.detach())),
            policy_entropy: scalar(entropy.detach()),
            value_accuracy: correct as f64 / n as f64,
            learning_rate: lr,
            samples_per_s: n as f64 / started.elapsed().as_secs_f64().max(1e-9),
        }
    }

    fn step_native(&mut self, batch: &Batch) -> StepMetrics {
        let started = Instant::now();
        let n = batch.size;
        let pass = self.native.as_mut().expect("native pass");
        let model = self.model.take().expect("model is home between steps");
        let out = pass.forward(&model, batch.shape, &batch.inputs, n);
        let loss = NativeLoss::new(
            batch,
            &self.config,
            out.policy,
            out.wdl,
            out.margin,
            (out.reply, out.ownership),
        );
        let correct = out
            .wdl
            .chunks_exact(3)
            .enumerate()
            .filter(|(i, w)| {
                let best = (0..3).fold(0, |b, k| if w[k] > w[b] { k } else { b });
                batch.wdl[i * 3 + best] == 1.0
            })
            .count();
        let grads = pass.backward(
            &model,
            OutputGrads {
                reply: loss.d_reply.as_deref(),
                ownership: loss.d_ownership.as_deref(),
                ..OutputGrads::new(&loss.d_policy, &loss.d_wdl, &loss.d_margin)
            },
        );
        let lr = self.config.lr_at(self.steps);
        self.model = Some(self.optim.step(lr, model, grads));
        self.steps += 1;
        StepMetrics {
            step: self.steps,
            loss: loss.policy_loss
                + loss.value_loss * self.config.value_loss_weight
                + loss.margin_loss * self.config.margin_loss_weight
                + loss.reply_loss * self.config.reply_policy_weight
                + loss.ownership_loss * self.config.ownership_weight,
            policy_loss: loss.policy_loss,
            value_loss: loss.value_loss,
            margin_loss: loss.margin_loss,
            reply_loss: loss.reply_loss,
            ownership_loss: loss.ownership_loss,
            policy_entropy: loss.entropy,
            value_accuracy: correct as f64 / n as f64,
            learning_rate: lr,
            samples_per_s: n as f64 / started.elapsed().as_secs_f64().max(1e-9),
        }
    }

    /// The current network for inference (autodiff and training mode off).
    pub fn inference_model(&self) -> Model {
        self.model.as_ref().expect("model is home").valid()
    }

    /// The optimizer state as bytes (burnpack), for checkpoints.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, String> {
        self.optim
            .into_bytes()
            .map(|b| b.to_vec())
            .map_err(|e| e.to_string())
    }

    /// Restores optimizer state saved by [`optimizer_bytes`](Self::optimizer_bytes).
    pub fn load_optimizer(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        let optim = std::mem::replace(&mut self.optim, AdamConfig::new().init());
        self.optim = optim
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
