//! The shape of the network, as it appears in a run's config file.

use burn::config::Config;

use crate::encode::INPUT_PLANES;
use crate::yinsh::action::planes;
use crate::yinsh::point::CELLS;

/// Size of the network. Serializes with serde (every field present), so a
/// run's TOML config can hold it.
///
/// ```
/// use yinsh_zero::nn::ModelConfig;
/// let c = ModelConfig::new();
/// assert_eq!((c.blocks, c.channels), (6, 64));
/// let tiny = ModelConfig::new().with_blocks(1).with_channels(8);
/// assert!(tiny.flops_per_position() < c.flops_per_position());
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct ModelConfig {
    /// Residual blocks in the trunk.
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
}

impl ModelConfig {
    /// Multiply-accumulates of one forward pass for one position, counting
    /// convolutions and dense layers (batch norms, activations and the pooling
    /// are a rounding error next to them).
    pub fn macs_per_position(&self) -> u64 {
        let (c, cells) = (self.channels as u64, CELLS as u64);
        let conv = |cin: u64, cout: u64, k: u64| cells * cin * cout * k * k;
        let input = conv(INPUT_PLANES as u64, c, 3);
        let trunk = self.blocks as u64 * 2 * conv(c, c, 3);
        let policy = conv(c, c, 1) + conv(c, planes::COUNT as u64, 1) + c;
        let v = self.value_channels as u64;
        let h = self.value_hidden as u64;
        let value = conv(c, v, 1) + v * cells * h + h * 3 + h;
        input + trunk + policy + value
    }

    /// Floating-point operations of one forward pass for one position:
    /// twice the multiply-accumulates.
    pub fn flops_per_position(&self) -> u64 {
        2 * self.macs_per_position()
    }
}
