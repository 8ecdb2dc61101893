//! The shape of the network, as it appears in a run's config file.

use burn::config::Config;
use serde::{Deserialize, Serialize};

use crate::game::NetShape;

/// Size of the network. Serializes with serde (every field present), so a
/// run's TOML config can hold it.
///
/// ```
/// use yinsh_zero::game::Game;
/// use yinsh_zero::nn::ModelConfig;
/// use yinsh_zero::games::yinsh::Yinsh;
/// let shape = Yinsh::standard().net_shape();
/// let c = ModelConfig::new();
/// assert_eq!((c.blocks, c.channels), (6, 64));
/// let tiny = ModelConfig::new().with_blocks(1).with_channels(8);
/// assert!(tiny.flops_per_position(&shape) < c.flops_per_position(&shape));
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct ModelConfig {
    /// Residual blocks in the trunk. The default size (6x64) is the one
    /// `configs/default.toml` trains and the shipped YINSH network has, so
    /// that `train` in this project goes on from that network; twelve hours
    /// on two CPU cores made it (`configs/yinsh-12h.toml`).
    #[config(default = 6)]
    pub blocks: usize,
    /// Channels of the trunk.
    #[config(default = 64)]
    pub channels: usize,
    /// Channels of the 1x1 convolution that starts the value head.
    #[config(default = 8)]
    pub value_channels: usize,
    /// Width of the hidden dense layer of the value head.
    #[config(default = 128)]
    pub value_hidden: usize,
    /// An auxiliary head that predicts the opponent's reply (KataGo's
    /// opponent policy): a second 1x1 convolution on the policy head's
    /// features, trained on [`Sample::reply`](crate::replay::record::Sample::reply)
    /// with weight `[train] reply_policy_weight`. Search never reads it; it
    /// exists to give the trunk more signal per game.
    #[config(default = false)]
    pub reply_head: bool,
    /// An auxiliary head that predicts each cell's owner at the game's end
    /// (KataGo's ownership, [`Game::ownership`](crate::game::Game::ownership)):
    /// a 1x1 convolution with tanh on the trunk, trained with weight
    /// `[train] ownership_weight`. Search never reads it either.
    #[config(default = false)]
    pub ownership_head: bool,
    /// Channels of the globally pooled branch that KataGo puts in some of
    /// its residual blocks (Wu 2019, section 3.2), 0 for none. In a block
    /// that has one, a second 3x3 convolution of the block's input (batch
    /// norm, ReLU) is pooled over the board, each channel's mean and
    /// maximum, and a dense layer turns those into one bias per channel
    /// added to the block's first convolution before its ReLU: every cell
    /// then sees the whole board, not only its receptive field.
    #[config(default = 0)]
    pub global_pool_channels: usize,
    /// Which blocks have the pooled branch: every `global_pool_every`-th,
    /// counted from the first (2: the second, fourth, ...).
    #[config(default = 2)]
    pub global_pool_every: usize,
}

impl ModelConfig {
    /// Refuses a `global_pool_every` that names no block of the trunk
    /// while the pooled branch is on.
    pub fn check_global_pool(&self) -> Result<(), String> {
        if self.global_pool_channels > 0 && !(1..=self.blocks).contains(&self.global_pool_every) {
            return Err(format!(
                "global_pool_every = {} puts the pooled branch in no block of {}: give 1 to {} \
                 (2: every second block)",
                self.global_pool_every, self.blocks, self.blocks
            ));
        }
        Ok(())
    }

    /// Whether residual block `i` (from 0) has the globally pooled branch
    /// ([`global_pool_channels`](Self::global_pool_channels)).
    ///
    /// ```
    /// use yinsh_zero::nn::ModelConfig;
    /// let c = ModelConfig::new().with_blocks(4).with_global_pool_channels(16);
    /// let pooled: Vec<usize> = (0..4).filter(|&i| c.pools_in_block(i)).collect();
    /// assert_eq!(pooled, [1, 3]);
    /// assert!(!ModelConfig::new().pools_in_block(1));
    /// ```
    pub fn pools_in_block(&self, i: usize) -> bool {
        self.global_pool_channels > 0
            && self.global_pool_every > 0
            && (i + 1).is_multiple_of(self.global_pool_every)
    }

    /// Multiply-accumulates of one forward pass for one position of a game
    /// of `shape`, counting convolutions and dense layers (batch norms,
    /// activations and the pooling are a rounding error next to them).
    pub fn macs_per_position(&self, shape: &NetShape) -> u64 {
        let (c, cells) = (self.channels as u64, shape.cells() as u64);
        let conv = |cin: u64, cout: u64, k: u64| cells * cin * cout * k * k;
        let input = conv(shape.planes as u64, c, 3);
        let g = self.global_pool_channels as u64;
        let pooled = (0..self.blocks).filter(|&i| self.pools_in_block(i)).count() as u64;
        let trunk = self.blocks as u64 * 2 * conv(c, c, 3) + pooled * (conv(c, g, 3) + 2 * g * c);
        let policy =
            conv(c, c, 1) + conv(c, shape.policy_planes as u64, 1) + c * shape.extra_actions as u64;
        let v = self.value_channels as u64;
        let h = self.value_hidden as u64;
        let value = conv(c, v, 1) + v * cells * h + h * 3 + h;
        // The auxiliary heads run in training only: a forward pass for search
        // does not compute it.
        input + trunk + policy + value
    }

    /// Floating-point operations of one forward pass for one position:
    /// twice the multiply-accumulates.
    pub fn flops_per_position(&self, shape: &NetShape) -> u64 {
        2 * self.macs_per_position(shape)
    }
}

/// The network's size as a run's config file holds it (the `[model]`
/// table): every key optional, unknown keys refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelSection {
    pub blocks: usize,
    pub channels: usize,
    pub value_channels: usize,
    pub value_hidden: usize,
    /// [`ModelConfig::reply_head`]. Left out of a checkpoint's metadata
    /// when off, so networks without it read as they always did.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reply_head: bool,
    /// [`ModelConfig::ownership_head`], left out when off as `reply_head`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ownership_head: bool,
    /// [`ModelConfig::global_pool_channels`], left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub global_pool_channels: usize,
    /// [`ModelConfig::global_pool_every`], left out at its default.
    #[serde(skip_serializing_if = "is_default_every")]
    pub global_pool_every: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_default_every(n: &usize) -> bool {
    *n == ModelConfig::new().global_pool_every
}

impl Default for ModelSection {
    /// The network's own default size, [`ModelConfig::new`].
    fn default() -> Self {
        let m = ModelConfig::new();
        ModelSection {
            blocks: m.blocks,
            channels: m.channels,
            value_channels: m.value_channels,
            value_hidden: m.value_hidden,
            reply_head: m.reply_head,
            ownership_head: m.ownership_head,
            global_pool_channels: m.global_pool_channels,
            global_pool_every: m.global_pool_every,
        }
    }
}

impl ModelSection {
    pub fn to_model_config(&self) -> ModelConfig {
        ModelConfig::new()
            .with_blocks(self.blocks)
            .with_channels(self.channels)
            .with_value_channels(self.value_channels)
            .with_value_hidden(self.value_hidden)
            .with_reply_head(self.reply_head)
            .with_ownership_head(self.ownership_head)
            .with_global_pool_channels(self.global_pool_channels)
            .with_global_pool_every(self.global_pool_every)
    }
}
