//! Model weights on disk (burn's burnpack format).

use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::Device;

use super::{Model, ModelConfig, NnError};
use crate::game::{Game, NetShape};
use crate::util::write_atomic;

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
    write_atomic(path, &bytes).map_err(|e| fail(e.to_string()))
}

/// Reads weights written by [`save_weights`] into a network of size `config`
/// for a game of `shape`, on `device`. A missing, truncated or corrupt file,
/// or one saved from a network of another size or game, is an error naming
/// the file and why.
pub fn load_weights(
    config: &ModelConfig,
    shape: &NetShape,
    path: &Path,
    device: &Device,
) -> Result<Model, NnError> {
    load_widening(config, shape, &[], path, device)
}

/// [`load_weights`] for a network of `game`, which also reads one trained
/// on an earlier encoding of the game ([`Game::earlier_input_planes`]):
/// its stem takes the planes added since with zero weights, so it answers
/// as it was trained to.
pub fn load_game_weights<G: Game>(
    game: &G,
    config: &ModelConfig,
    path: &Path,
    device: &Device,
) -> Result<Model, NnError> {
    let shape = game.net_shape();
    load_widening(config, &shape, game.earlier_input_planes(), path, device)
}

fn load_widening(
    config: &ModelConfig,
    shape: &NetShape,
    earlier_planes: &[usize],
    path: &Path,
    device: &Device,
) -> Result<Model, NnError> {
    let fail = |reason: String| NnError::LoadWeights {
        path: path.to_owned(),
        reason,
    };
    let record = ModuleRecord::load(path).map_err(|e| fail(e.to_string()))?;
    let mut earlier = earlier_planes
        .iter()
        .copied()
        .filter(|&p| p < shape.planes)
        .peekable();
    // A copy of the record only where another shape may need it: an earlier
    // encoding's, or today's without some of its auxiliary heads.
    let aux = config.reply_head || config.ownership_head;
    let spare = (aux || earlier.peek().is_some()).then(|| record.clone());
    let today = match config.init(shape, device).try_load_record(record) {
        Ok(model) => return Ok(model),
        Err(e) => e,
    };
    if let Some(record) = spare {
        // A network saved before its run asked for an auxiliary head loads
        // without it and gets a fresh one.
        let heads = [(true, true), (true, false), (false, true), (false, false)];
        let bare = heads
            .iter()
            .filter(|&&(r, o)| (!r || config.reply_head) && (!o || config.ownership_head))
            .map(|&(r, o)| config.clone().with_reply_head(r).with_ownership_head(o));
        let today_bare = bare
            .clone()
            .filter(|c| c != config)
            .map(|c| (c, shape.planes));
        let earlier = earlier.flat_map(|planes| bare.clone().map(move |c| (c, planes)));
        for (then_config, planes) in today_bare.chain(earlier) {
            let then = NetShape { planes, ..*shape };
            if let Ok(mut model) = then_config
                .init(&then, device)
                .try_load_record(record.clone())
            {
                if planes < shape.planes {
                    model = model.widened(shape.planes);
                }
                return Ok(model.with_aux_heads(config, shape, device));
            }
        }
    }
    // The error of today's shape: the one a user can act on.
    Err(fail(today.to_string()))
}
