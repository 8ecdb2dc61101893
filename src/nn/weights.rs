//! Model weights on disk (burn's burnpack format).

use std::fs;
use std::io::Write;
use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::Device;

use super::{Model, ModelConfig, NnError};

/// Writes the weights (and batch-norm statistics) of `model` to `path`.
///
/// The file appears whole or not at all: it is written beside `path`, synced
/// and renamed over it, so a reader never sees half a checkpoint.
pub fn save_weights(model: &Model, path: &Path) -> Result<(), NnError> {
    let fail = |reason: String| NnError::SaveWeights {
        path: path.to_owned(),
        reason,
    };
    let bytes = model
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| fail(e.to_string()))?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = Path::new(&tmp);
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        fs::rename(tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(tmp);
        fail(e.to_string())
    })
}

/// Reads weights written by [`save_weights`] into a network of shape
/// `config` on `device`. A missing, truncated or corrupt file, or one saved
/// from a network of another shape, is an error naming the file and why.
pub fn load_weights(config: &ModelConfig, path: &Path, device: &Device) -> Result<Model, NnError> {
    let fail = |reason: String| NnError::LoadWeights {
        path: path.to_owned(),
        reason,
    };
    let record = ModuleRecord::load(path).map_err(|e| fail(e.to_string()))?;
    config
        .init(device)
        .try_load_record(record)
        .map_err(|e| fail(e.to_string()))
}
