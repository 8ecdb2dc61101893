//! Training settings (the `[train]` table of a run config).

use serde::{Deserialize, Serialize};

use crate::replay::window::ValueTarget;

/// Which optimizer updates the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Adam with decoupled settings below (`momentum` unused).
    Adam,
    /// SGD with momentum (Nesterov-free, as in AlphaZero).
    Sgd,
}

/// How the learning rate moves over training steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `learning_rate` throughout (after warm-up).
    Constant,
    /// Cosine decay from `learning_rate` to `learning_rate * lr_floor` over
    /// `lr_decay_steps`, then flat.
    Cosine,
    /// Multiply by `lr_step_factor` every `lr_decay_steps`.
    Step,
}

/// Everything about gradient steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per gradient step.
    pub batch_size: usize,
    pub optimizer: OptimizerKind,
    /// Peak learning rate.
    pub learning_rate: f64,
    pub lr_schedule: LrSchedule,
    /// Linear warm-up from 0 over this many steps.
    pub warmup_steps: u64,
    pub lr_decay_steps: u64,
    /// Cosine: final share of the peak rate.
    pub lr_floor: f64,
    /// Step: factor applied every `lr_decay_steps`.
    pub lr_step_factor: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// L2 weight decay on every parameter.
    pub weight_decay: f64,
    /// Clip the global gradient norm to this (0 = no clipping).
    pub grad_clip_norm: f64,
    /// Weight of the win/draw/loss cross-entropy in the loss.
    pub value_loss_weight: f64,
    /// Weight of the ring-margin squared error in the loss.
    pub margin_loss_weight: f64,
    /// Per move left to the end of its game, the share of a value target
    /// kept on the result (the rest goes to a draw): below 1 a near win
    /// is worth more than a far one, so the search hurries wins and
    /// delays losses, which a plain result never teaches (1 = off).
    pub value_discount: f64,
    /// Share of each value target taken from the self-play search's value
    /// at the position, the rest from the game's result (0 = the result
    /// alone). In a game that good play draws, most blunders go unpunished
    /// in self-play and their results say "draw"; the search's value is
    /// less noisy and follows the network's own judgement.
    pub search_value_weight: f64,
    /// The same share for the margin target alone; omitted, it is
    /// `search_value_weight`. The margin orders moves that all lose by how
    /// long they hold out, which the search can teach the margin without
    /// the win/draw/loss target following the network's own opening values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_margin_weight: Option<f64>,
    /// Weight of the reply head's cross-entropy against the opponent's
    /// reply ([`Sample::reply`](crate::replay::record::Sample::reply)) in
    /// the loss; it needs `[model] reply_head` (0 = off). KataGo weighs
    /// its opponent policy 0.15.
    pub reply_policy_weight: f64,
    /// Weight of the ownership head's squared error per cell against each
    /// cell's owner at the game's end ([`Game::ownership`](crate::game::Game::ownership))
    /// in the loss; it needs `[model] ownership_head` (0 = off).
    pub ownership_weight: f64,
    /// Samples trained per new self-play position: each generation trains
    /// `ratio * new positions / batch_size` steps (KataGo's knob against
    /// overfitting a small window).
    pub train_ratio: f64,
    /// No training until the window holds this many positions.
    pub min_positions: usize,
    /// Cores for training (0 = all): the size of the thread pool the CPU
    /// backend computes the steps in.
    pub threads: usize,
    /// Each generation's network is the mean of the weights training
    /// arrived at in this many latest generations, its own included
    /// (stochastic weight averaging, as KataGo plays): single generations
    /// scatter around what they learn, the mean sits nearer the middle.
    /// Training goes on from its own weights. 1 = off.
    pub average_generations: u32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            optimizer: OptimizerKind::Adam,
            learning_rate: 1e-3,
            lr_schedule: LrSchedule::Constant,
            warmup_steps: 50,
            lr_decay_steps: 20_000,
            lr_floor: 0.1,
            lr_step_factor: 0.3,
            momentum: 0.9,
            weight_decay: 1e-4,
            grad_clip_norm: 5.0,
            value_loss_weight: 1.0,
            margin_loss_weight: 0.25,
            value_discount: 1.0,
            search_value_weight: 0.0,
            search_margin_weight: None,
            reply_policy_weight: 0.0,
            ownership_weight: 0.0,
            train_ratio: 4.0,
            min_positions: 2_000,
            threads: 0,
            average_generations: 1,
        }
    }
}

impl TrainConfig {
    /// The learning rate at `step` (0-based).
    ///
    /// ```
    /// use yinsh_zero::train::config::{LrSchedule, TrainConfig};
    /// let c = TrainConfig { warmup_steps: 10, lr_schedule: LrSchedule::Step,
    ///     lr_decay_steps: 100, lr_step_factor: 0.5, ..TrainConfig::default() };
    /// assert!(c.lr_at(0) < c.lr_at(9));
    /// assert_eq!(c.lr_at(50), c.learning_rate);
    /// assert_eq!(c.lr_at(150), c.learning_rate * 0.5);
    /// ```
    pub fn lr_at(&self, step: u64) -> f64 {
        let warm = if step < self.warmup_steps {
            (step + 1) as f64 / self.warmup_steps as f64
        } else {
            1.0
        };
        let decay = match self.lr_schedule {
            LrSchedule::Constant => 1.0,
            LrSchedule::Cosine => {
                let t = (step as f64 / self.lr_decay_steps.max(1) as f64).min(1.0);
                self.lr_floor
                    + (1.0 - self.lr_floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            LrSchedule::Step => self
                .lr_step_factor
                .powi((step / self.lr_decay_steps.max(1)) as i32),
        };
        self.learning_rate * warm * decay
    }

    /// How the value targets of a batch are made.
    pub fn value_target(&self) -> ValueTarget {
        ValueTarget {
            discount: self.value_discount as f32,
            search_weight: self.search_value_weight as f32,
            search_margin_weight: self
                .search_margin_weight
                .unwrap_or(self.search_value_weight) as f32,
        }
    }

    /// Checks ranges, naming the first bad field.
    pub fn validate(&self) -> Result<(), String> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("train.{name} must be a positive number, got {v}"))
            }
        };
        let nonneg = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("train.{name} must be zero or more, got {v}"))
            }
        };
        if self.batch_size == 0 {
            return Err("train.batch_size must be at least 1".into());
        }
        if self.average_generations == 0 {
            return Err("train.average_generations must be at least 1 (1 = no averaging)".into());
        }
        pos("learning_rate", self.learning_rate)?;
        pos("train_ratio", self.train_ratio)?;
        nonneg("weight_decay", self.weight_decay)?;
        nonneg("grad_clip_norm", self.grad_clip_norm)?;
        nonneg("value_loss_weight", self.value_loss_weight)?;
        nonneg("margin_loss_weight", self.margin_loss_weight)?;
        nonneg("reply_policy_weight", self.reply_policy_weight)?;
        nonneg("ownership_weight", self.ownership_weight)?;
        if !(0.0..1.0).contains(&self.momentum) {
            return Err(format!(
                "train.momentum must be in [0, 1), got {}",
                self.momentum
            ));
        }
        if !(self.value_discount > 0.0 && self.value_discount <= 1.0) {
            return Err(format!(
                "train.value_discount must be in (0, 1], got {}",
                self.value_discount
            ));
        }
        let share = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("train.{name} must be in [0, 1], got {v}"))
            }
        };
        share("search_value_weight", self.search_value_weight)?;
        if let Some(w) = self.search_margin_weight {
            share("search_margin_weight", w)?;
        }
        if !(0.0..=1.0).contains(&self.lr_floor) {
            return Err(format!(
                "train.lr_floor must be in [0, 1], got {}",
                self.lr_floor
            ));
        }
        pos("lr_step_factor", self.lr_step_factor)
    }
}
