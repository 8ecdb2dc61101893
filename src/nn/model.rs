//! The policy/value ResNet.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::module::{adaptive_avg_pool2d, max_pool2d};
use burn::tensor::ops::MaxPoolOptions;
use burn::tensor::{Device, Tensor};

use super::config::ModelConfig;
use crate::game::NetShape;

/// A convolution followed by batch norm (no bias: the norm's beta is one).
#[derive(Module, Debug)]
pub struct ConvBn {
    pub(super) conv: Conv2d,
    pub(super) bn: BatchNorm,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, kernel: usize, device: &Device) -> ConvBn {
        let padding = if kernel == 1 {
            PaddingConfig2d::Valid
        } else {
            PaddingConfig2d::Same
        };
        ConvBn {
            conv: Conv2dConfig::new([cin, cout], [kernel, kernel])
                .with_padding(padding)
                .with_bias(false)
                .init(device),
            bn: BatchNormConfig::new(cout).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x))
    }
}

/// KataGo's global pooling bias structure ([`ModelConfig::global_pool_channels`]):
/// conv3x3-BN-ReLU of a block's input, each channel's mean and maximum over
/// the board, and a dense layer from those to one bias per channel of the
/// block's first convolution.
#[derive(Module, Debug)]
pub struct GlobalPool {
    pub(super) conv: ConvBn,
    /// The dense layer, as a 1x1 convolution of the pooled `[B, 2g, 1, 1]`:
    /// the same numbers, and shapes that never leave four axes, which ONNX
    /// export follows through its two traces.
    pub(super) bias: Conv2d,
}

impl GlobalPool {
    /// A branch of `g` channels for a trunk of `c`, freshly initialised.
    fn new(c: usize, g: usize, device: &Device) -> GlobalPool {
        GlobalPool {
            conv: ConvBn::new(c, g, 3, device),
            bias: Conv2dConfig::new([2 * g, c], [1, 1]).init(device),
        }
    }

    /// The `[B, c, 1, 1]` biases for the block's input `x`.
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let g = relu(self.conv.forward(x));
        let [_, _, height, width] = g.dims();
        // Mean by global average pooling and maximum by a pooling window the
        // board's size: operations ONNX export lowers (it lowers no plain
        // maximum over an axis).
        let mean = adaptive_avg_pool2d(g.clone(), [1, 1]);
        let max = max_pool2d(g, MaxPoolOptions::new([height, width]));
        self.bias.forward(Tensor::cat(vec![mean, max], 1))
    }
}

/// conv3x3-BN-ReLU-conv3x3-BN, plus the input, then ReLU; where the block
/// has a [`GlobalPool`], its biases join the first convolution's output
/// before the ReLU.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    pub(super) a: ConvBn,
    pub(super) b: ConvBn,
    pub(super) pool: Option<GlobalPool>,
}

impl ResidualBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut y = self.a.forward(x.clone());
        if let Some(pool) = &self.pool {
            // `[B, c, 1, 1]` broadcasts over the cells.
            y = y + pool.forward(x.clone());
        }
        relu(self.b.forward(relu(y)) + x)
    }
}

/// What the network says about a batch of `B` positions. All are raw
/// outputs: the caller masks and normalises.
#[derive(Debug, Clone)]
pub struct ModelOutput {
    /// `[B, action space]` policy logits over the game's dense action index
    /// (illegal actions included: mask them with [`crate::encode`]).
    pub policy: Tensor<2>,
    /// `[B, 3]` win/draw/loss logits for the player to act.
    pub wdl: Tensor<2>,
    /// `[B, 1]` predicted final score margin for the player to act,
    /// `tanh`-squashed into [-1, 1]; trained against the game's
    /// [`margin`](crate::game::State::margin) (YINSH: `(own rings removed -
    /// opponent's) / rings to win`), untrained in games without one.
    pub margin: Tensor<2>,
}

/// ResNet trunk with a convolutional policy head, logits for the actions
/// tied to no cell (YINSH's pass) from pooled features, a win/draw/loss head
/// and a score-margin head.
///
/// Build one for a game's [`NetShape`] with [`ModelConfig::init`]; it takes
/// `[B, planes, height, width]` inputs as written by
/// [`crate::encode::encode_batch`].
#[derive(Module, Debug)]
pub struct Model {
    pub(super) stem: ConvBn,
    pub(super) blocks: Vec<ResidualBlock>,
    pub(super) policy_hidden: ConvBn,
    pub(super) policy_out: Conv2d,
    /// Logits of the actions tied to no cell; `None` when the game has none.
    /// (Named for YINSH's only such action, so its checkpoints still load.)
    pub(super) pass: Option<Linear>,
    pub(super) value_conv: ConvBn,
    pub(super) value_hidden: Linear,
    pub(super) wdl: Linear,
    pub(super) margin: Linear,
    /// The opponent-reply head ([`ModelConfig::reply_head`]): per-cell
    /// logits from the policy features, and the actions tied to no cell
    /// from the pooled trunk, as the policy's own.
    pub(super) reply_out: Option<Conv2d>,
    pub(super) reply_pass: Option<Linear>,
    /// The ownership head ([`ModelConfig::ownership_head`]): one logit per
    /// cell from the trunk, squashed by tanh.
    pub(super) ownership: Option<Conv2d>,
}

/// What training reads beside [`ModelOutput`]: the auxiliary heads'
/// outputs, where the network has them.
#[derive(Debug, Clone)]
pub struct AuxOutput {
    /// `[B, action space]` logits of the opponent's reply.
    pub reply: Option<Tensor<2>>,
    /// `[B, cells]` each cell's predicted owner at the end, in [-1, 1],
    /// from the player to act's side.
    pub ownership: Option<Tensor<2>>,
}

impl ModelConfig {
    /// A freshly initialised network for inputs and actions of `shape`, on
    /// `device`.
    pub fn init(&self, shape: &NetShape, device: &Device) -> Model {
        let c = self.channels;
        Model {
            stem: ConvBn::new(shape.planes, c, 3, device),
            blocks: (0..self.blocks)
                .map(|i| ResidualBlock {
                    a: ConvBn::new(c, c, 3, device),
                    b: ConvBn::new(c, c, 3, device),
                    pool: self
                        .pools_in_block(i)
                        .then(|| GlobalPool::new(c, self.global_pool_channels, device)),
                })
                .collect(),
            policy_hidden: ConvBn::new(c, c, 1, device),
            policy_out: Conv2dConfig::new([c, shape.policy_planes], [1, 1]).init(device),
            pass: (shape.extra_actions > 0)
                .then(|| LinearConfig::new(c, shape.extra_actions).init(device)),
            value_conv: ConvBn::new(c, self.value_channels, 1, device),
            value_hidden: LinearConfig::new(self.value_channels * shape.cells(), self.value_hidden)
                .init(device),
            wdl: LinearConfig::new(self.value_hidden, 3).init(device),
            margin: LinearConfig::new(self.value_hidden, 1).init(device),
            reply_out: self
                .reply_head
                .then(|| Conv2dConfig::new([c, shape.policy_planes], [1, 1]).init(device)),
            reply_pass: (self.reply_head && shape.extra_actions > 0)
                .then(|| LinearConfig::new(c, shape.extra_actions).init(device)),
            ownership: self
                .ownership_head
                .then(|| Conv2dConfig::new([c, 1], [1, 1]).init(device)),
        }
    }
}

impl Model {
    /// The same network for inputs of `planes` planes, more than its own,
    /// its own first: the stem gives the planes it never saw zero weights,
    /// so its outputs are what they were. (A network trained before its
    /// game's encoding grew.)
    pub(super) fn widened(mut self, planes: usize) -> Model {
        self.stem.conv.weight = self.stem.conv.weight.map(|w| {
            let [cout, cin, kh, kw] = w.dims();
            let zeros = Tensor::zeros([cout, planes - cin, kh, kw], &w.device());
            Tensor::cat(vec![w, zeros], 1)
        });
        self
    }

    /// The same network with the auxiliary heads `config` asks for and it
    /// lacks ([`ModelConfig::reply_head`], [`ModelConfig::ownership_head`]),
    /// freshly initialised: a network trained without them goes on
    /// training with them.
    pub fn with_aux_heads(
        mut self,
        config: &ModelConfig,
        shape: &NetShape,
        device: &Device,
    ) -> Model {
        let c = self.policy_hidden.conv.weight.dims()[0];
        let fresh = || {
            ModelConfig::new()
                .with_blocks(0)
                .with_channels(c)
                .with_reply_head(config.reply_head)
                .with_ownership_head(config.ownership_head)
                .init(shape, device)
        };
        let missing = (config.reply_head && self.reply_out.is_none())
            || (config.ownership_head && self.ownership.is_none());
        if missing {
            let fresh = fresh();
            if self.reply_out.is_none() {
                self.reply_out = fresh.reply_out;
                self.reply_pass = fresh.reply_pass;
            }
            if self.ownership.is_none() {
                self.ownership = fresh.ownership;
            }
        }
        self
    }

    /// The same network with the globally pooled branches `config` asks
    /// for ([`ModelConfig::global_pool_channels`]) in the blocks that lack
    /// one, their dense layers zero so that the network's outputs are what
    /// they were: a network trained without them goes on training with
    /// them.
    pub fn with_global_pooling(mut self, config: &ModelConfig, device: &Device) -> Model {
        let c = self.policy_hidden.conv.weight.dims()[0];
        for (i, block) in self.blocks.iter_mut().enumerate() {
            if block.pool.is_none() && config.pools_in_block(i) {
                let mut pool = GlobalPool::new(c, config.global_pool_channels, device);
                pool.bias.weight = pool.bias.weight.map(|w| w.zeros_like());
                pool.bias.bias = pool.bias.bias.map(|b| b.map(|b| b.zeros_like()));
                block.pool = Some(pool);
            }
        }
        self
    }

    /// Runs the network on `x`: `[B, planes, height, width]`.
    pub fn forward(&self, x: Tensor<4>) -> ModelOutput {
        self.run(x, false).0
    }

    /// [`forward`](Self::forward), and the auxiliary heads' outputs where
    /// the network has them: what training needs.
    pub fn forward_aux(&self, x: Tensor<4>) -> (ModelOutput, AuxOutput) {
        self.run(x, true)
    }

    fn run(&self, x: Tensor<4>, aux: bool) -> (ModelOutput, AuxOutput) {
        let [b, _, height, width] = x.dims();
        let cells = height * width;
        let mut h = relu(self.stem.forward(x));
        for block in &self.blocks {
            h = block.forward(h);
        }
        let c = h.dims()[1];

        let features = relu(self.policy_hidden.forward(h.clone()));
        // An action tied to no cell (YINSH's pass: no ring can move)
        // depends on the whole board: it reads globally pooled features.
        // (Global average pooling rather than a mean over a reshaped
        // axis: the same numbers, and an operation ONNX export can lower.)
        let pooled = self
            .pass
            .as_ref()
            .map(|_| adaptive_avg_pool2d(h.clone(), [1, 1]).reshape([b, c]));
        let logits = |out: &Conv2d, pass: Option<&Linear>| {
            let p = out.forward(features.clone());
            let planes = p.dims()[1];
            let on_cells = p.reshape([b, planes * cells]);
            match (pass, &pooled) {
                (Some(pass), Some(pooled)) => {
                    Tensor::cat(vec![on_cells, pass.forward(pooled.clone())], 1)
                }
                _ => on_cells,
            }
        };
        let policy = logits(&self.policy_out, self.pass.as_ref());
        let reply = match &self.reply_out {
            Some(out) if aux => Some(logits(out, self.reply_pass.as_ref())),
            _ => None,
        };
        let ownership = match &self.ownership {
            Some(conv) if aux => Some(conv.forward(h.clone()).tanh().reshape([b, cells])),
            _ => None,
        };

        let v = relu(self.value_conv.forward(h));
        let vc = v.dims()[1];
        let v = v.reshape([b, vc * cells]);
        let v = relu(self.value_hidden.forward(v));
        let wdl = self.wdl.forward(v.clone());
        let margin = self.margin.forward(v).tanh();
        let out = ModelOutput {
            policy,
            wdl,
            margin,
        };
        (out, AuxOutput { reply, ownership })
    }
}
