//! Weights for use outside yinsh-zero: a safetensors file plus a JSON
//! manifest that says what the tensors compute (network shape, input
//! planes, the action index of the policy output).

use std::path::{Path, PathBuf};

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use super::{Model, ModelConfig, NnError};
use crate::game::{Game, NetShape};

/// Version of the manifest layout.
pub const MANIFEST_VERSION: u32 = 1;

/// What an exported file holds and how to use it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub manifest_version: u32,
    pub format: String,
    pub producer: String,
    /// Checkpoint generation the weights come from.
    pub generation: u64,
    /// The game and variant the network plays.
    pub game: String,
    pub variant: String,
    pub network: NetworkShape,
    pub input: InputLayout,
    pub outputs: OutputLayout,
    /// Tensor names in the file.
    pub tensors: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkShape {
    pub architecture: String,
    pub blocks: usize,
    pub channels: usize,
    pub value_channels: usize,
    pub value_hidden: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputLayout {
    /// `[batch, planes, height, width]` without the batch, f32.
    pub shape: [usize; 3],
    /// Which cell is which point; everything is seen from the player to act.
    pub cells: String,
    pub planes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputLayout {
    pub policy_size: usize,
    pub policy_index: String,
    pub wdl: String,
    pub margin: String,
}

impl Manifest {
    pub fn new<G: Game>(
        game: &G,
        format: ExportFormat,
        config: &ModelConfig,
        generation: u64,
        tensors: Vec<String>,
    ) -> Manifest {
        let shape = game.net_shape();
        let layout = game.tensor_layout();
        Manifest {
            manifest_version: MANIFEST_VERSION,
            format: format.name().into(),
            producer: format!("yinsh-zero {}", env!("CARGO_PKG_VERSION")),
            generation,
            game: G::NAME.into(),
            variant: game.variant().into(),
            network: NetworkShape {
                architecture: format!(
                    "resnet: 3x3 stem, blocks x (conv3x3-bn-relu-conv3x3-bn + skip, relu), \
                     policy 1x1 conv-bn-relu + 1x1 conv to {} planes + {} logits from pooled \
                     features, value 1x1 conv-bn-relu, dense, wdl and tanh margin",
                    shape.policy_planes, shape.extra_actions
                ),
                blocks: config.blocks,
                channels: config.channels,
                value_channels: config.value_channels,
                value_hidden: config.value_hidden,
            },
            input: InputLayout {
                shape: [shape.planes, shape.height, shape.width],
                cells: layout.cells,
                planes: layout.planes,
            },
            outputs: OutputLayout {
                policy_size: shape.action_space(),
                policy_index: layout.policy_index,
                wdl: "logits of win, draw, loss for the player to act".into(),
                margin: layout.margin,
            },
            tensors,
        }
    }
}

/// The file formats weights are exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// The weights alone, named by module path; the manifest says what they
    /// compute.
    Safetensors,
    /// The whole network, graph and weights: input `[batch, planes, height,
    /// width]` (the batch size is free), outputs policy logits, WDL logits and the
    /// margin, in that order.
    Onnx,
}

impl ExportFormat {
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Safetensors => "safetensors",
            ExportFormat::Onnx => "onnx",
        }
    }
}

/// Where the manifest of an export to `out` goes: `<out>.json`.
pub fn manifest_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".json");
    PathBuf::from(p)
}

/// Writes `model` as safetensors to `out` (atomically) and its manifest
/// beside it.
pub fn export_safetensors<G: Game>(
    game: &G,
    model: &Model,
    config: &ModelConfig,
    generation: u64,
    out: &Path,
) -> Result<Manifest, NnError> {
    let fail = save_failed(out);
    // Serialized in memory and written atomically, like every other file
    // we write: a kill never leaves a torn export at `out`.
    let mut store = SafetensorsStore::from_bytes(None);
    model
        .save_into(&mut store)
        .map_err(|e| fail(e.to_string()))?;
    let bytes = store.get_bytes().map_err(|e| fail(e.to_string()))?;
    crate::util::write_atomic(out, &bytes).map_err(|e| fail(e.to_string()))?;
    write_manifest(
        game,
        model,
        ExportFormat::Safetensors,
        config,
        generation,
        out,
    )
}

/// Writes `model` as an ONNX graph with embedded weights to `out` (atomically)
/// and its manifest beside it. The batch axis stays symbolic, so any batch
/// size runs.
pub fn export_onnx<G: Game>(
    game: &G,
    model: &Model,
    config: &ModelConfig,
    generation: u64,
    out: &Path,
) -> Result<Manifest, NnError> {
    use burn::tensor::Tensor;
    use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};

    let fail = save_failed(out);
    let device = Device::default();
    // Two traces with different batch sizes tell the exporter which axis is
    // the batch.
    let NetShape {
        planes,
        height,
        width,
        ..
    } = game.net_shape();
    let sample = Tensor::<4>::zeros([1, planes, height, width], &device);
    let validation = Tensor::<4>::zeros([2, planes, height, width], &device);
    let specs = [InputSpec::new([
        AxisSpec::dynamic("batch"),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ])];
    let onnx = OnnxExporter::new()
        .export_dynamic(model, sample, validation, &specs, |m: &Model, x| {
            let out = m.forward(x);
            (out.policy, out.wdl, out.margin)
        })
        .map_err(|e| fail(format!("ONNX export: {e}")))?;
    crate::util::write_atomic(out, onnx.as_bytes()).map_err(|e| fail(e.to_string()))?;
    write_manifest(game, model, ExportFormat::Onnx, config, generation, out)
}

/// Writes the manifest of `model`'s export to `out` beside it (atomically).
fn write_manifest<G: Game>(
    game: &G,
    model: &Model,
    format: ExportFormat,
    config: &ModelConfig,
    generation: u64,
    out: &Path,
) -> Result<Manifest, NnError> {
    let mut tensors: Vec<String> = model
        .collect(None, None, false)
        .into_iter()
        .map(|t| t.name.clone())
        .collect();
    tensors.sort();
    let manifest = Manifest::new(game, format, config, generation, tensors);
    let json = serde_json::to_vec_pretty(&manifest).expect("manifest is plain data");
    crate::util::write_atomic(&manifest_path(out), &json)
        .map_err(|e| save_failed(out)(e.to_string()))?;
    Ok(manifest)
}

/// The error of a failed export to `out`, given its reason.
fn save_failed(out: &Path) -> impl Fn(String) -> NnError + '_ {
    move |reason| NnError::SaveWeights {
        path: out.to_owned(),
        reason,
    }
}

/// Reads an export back into a network of size `config` for a game of
/// `shape`.
pub fn load_safetensors(
    config: &ModelConfig,
    shape: &NetShape,
    path: &Path,
    device: &Device,
) -> Result<Model, NnError> {
    let mut model = config.init(shape, device);
    let mut store = SafetensorsStore::from_file(path);
    let applied = model
        .load_from(&mut store)
        .map_err(|e| NnError::LoadWeights {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
    if !applied.missing.is_empty() || !applied.errors.is_empty() {
        return Err(NnError::LoadWeights {
            path: path.to_owned(),
            reason: format!(
                "does not fit a {}x{} network: missing {:?}, errors {:?}",
                config.blocks, config.channels, applied.missing, applied.errors
            ),
        });
    }
    Ok(model)
}
