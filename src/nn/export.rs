//! Weights for use outside yinsh-zero: a safetensors file plus a JSON
//! manifest that says what the tensors compute (network shape, input
//! planes, the action index of the policy output).

use std::path::{Path, PathBuf};

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use super::{Model, ModelConfig, NnError};
use crate::encode::INPUT_PLANES;
use crate::yinsh::ACTION_SPACE;

/// Version of the manifest layout.
pub const MANIFEST_VERSION: u32 = 1;

/// Input plane names, in order (see [`crate::encode::planes`]).
pub const PLANE_NAMES: [&str; INPUT_PLANES] = [
    "own_rings",
    "own_markers",
    "opponent_rings",
    "opponent_markers",
    "valid_point",
    "decision_place_ring",
    "decision_move_ring",
    "decision_remove_row",
    "decision_remove_ring",
    "own_rings_removed",
    "opponent_rings_removed",
    "markers_in_pool",
    "white_to_act",
    "black_to_act",
    "opponent_passed",
    "blitz",
];

/// What an exported file holds and how to use it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub manifest_version: u32,
    pub format: String,
    pub producer: String,
    /// Checkpoint generation the weights come from.
    pub generation: u64,
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
    /// `[batch, planes, 11, 11]`, f32.
    pub shape: [usize; 3],
    /// Cell (col, row) of a point is `row * 11 + col`, columns A..K, rows 1..11;
    /// everything is seen from the player to act.
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
    pub fn new(
        format: ExportFormat,
        config: &ModelConfig,
        generation: u64,
        tensors: Vec<String>,
    ) -> Manifest {
        Manifest {
            manifest_version: MANIFEST_VERSION,
            format: format.name().into(),
            producer: format!("yinsh-zero {}", env!("CARGO_PKG_VERSION")),
            generation,
            network: NetworkShape {
                architecture: "resnet: 3x3 stem, blocks x (conv3x3-bn-relu-conv3x3-bn + skip, relu), \
                               policy 1x1 conv-bn-relu + 1x1 conv to 65 planes + pass from pooled \
                               features, value 1x1 conv-bn-relu, dense, wdl and tanh margin"
                    .into(),
                blocks: config.blocks,
                channels: config.channels,
                value_channels: config.value_channels,
                value_hidden: config.value_hidden,
            },
            input: InputLayout {
                shape: [INPUT_PLANES, 11, 11],
                cells: "row * 11 + col; col 0..10 = A..K, row 0..10 = rows 1..11; off-board cells are 0".into(),
                planes: PLANE_NAMES.iter().map(|s| s.to_string()).collect(),
            },
            outputs: OutputLayout {
                policy_size: ACTION_SPACE,
                policy_index: "plane * 121 + cell, pass = 7865; planes: 0 place ring; \
                               1 + direction * 10 + (distance - 1) ring move from the cell, \
                               directions E, N, NE, W, S, SW; 61 + axis remove the row starting \
                               at the cell, axes row (1,0), column (0,1), diagonal (1,1); 64 remove \
                               the ring on the cell. Logits: mask illegal actions, then softmax"
                    .into(),
                wdl: "logits of win, draw, loss for the player to act".into(),
                margin: "tanh-squashed (own - opponent rings removed) / rings to win".into(),
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
    /// The whole network, graph and weights: input `[batch, 16, 11, 11]`
    /// (the batch size is free), outputs policy logits, WDL logits and the
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
pub fn export_safetensors(
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
    crate::run::atomic::write_atomic(out, &bytes).map_err(|e| fail(e.to_string()))?;
    write_manifest(model, ExportFormat::Safetensors, config, generation, out)
}

/// Writes `model` as an ONNX graph with embedded weights to `out` (atomically)
/// and its manifest beside it. The batch axis stays symbolic, so any batch
/// size runs.
pub fn export_onnx(
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
    let sample = Tensor::<4>::zeros([1, INPUT_PLANES, 11, 11], &device);
    let validation = Tensor::<4>::zeros([2, INPUT_PLANES, 11, 11], &device);
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
    crate::run::atomic::write_atomic(out, onnx.as_bytes()).map_err(|e| fail(e.to_string()))?;
    write_manifest(model, ExportFormat::Onnx, config, generation, out)
}

/// Writes the manifest of `model`'s export to `out` beside it (atomically).
fn write_manifest(
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
    let manifest = Manifest::new(format, config, generation, tensors);
    let json = serde_json::to_vec_pretty(&manifest).expect("manifest is plain data");
    crate::run::atomic::write_atomic(&manifest_path(out), &json)
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

/// Reads an export back into a network of shape `config`.
pub fn load_safetensors(
    config: &ModelConfig,
    path: &Path,
    device: &Device,
) -> Result<Model, NnError> {
    let mut model = config.init(device);
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
