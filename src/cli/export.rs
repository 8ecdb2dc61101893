//! `yinsh-zero export`: a checkpoint's weights for use elsewhere.

use std::path::PathBuf;

use crate::arena::GamePlayers;
use crate::checkpoint;
use crate::games::{GameTask, Registry};
use crate::nn::BackendKind;
use crate::nn::export::{Manifest, export_onnx, export_safetensors, manifest_path};

/// Export formats this build writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// safetensors tensors plus `<out>.json` describing them.
    Safetensors,
    /// An ONNX model (graph and weights, batch size free) plus `<out>.json`.
    Onnx,
}

#[derive(clap::Args)]
pub struct Args {
    /// Checkpoint directory (e.g. runs/a/checkpoints/000012).
    #[arg(long)]
    checkpoint: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "safetensors")]
    format: Format,
    /// File to write; the manifest goes to `<out>.json`.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    backend: super::BackendArg,
}

/// The export, for the game the checkpoint names.
struct Export<'a>(&'a Args);

impl GameTask for Export<'_> {
    type Output = anyhow::Result<Manifest>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let args = self.0;
        let device = args.backend.choose(BackendKind::Flex).device()?;
        let (model, meta) = checkpoint::load_model(&game, &args.checkpoint, &device)?;
        let config = meta.model.to_model_config();
        Ok(match args.format {
            Format::Safetensors => {
                export_safetensors(&game, &model, &config, meta.generation, &args.out)?
            }
            Format::Onnx => export_onnx(&game, &model, &config, meta.generation, &args.out)?,
        })
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let meta = checkpoint::read_meta(&args.checkpoint)?;
    let m = R::with_game(&meta.game, &meta.variant, Export(&args))??;
    println!(
        "wrote {} ({}: {} tensors, {}x{} network, generation {}) and {}",
        args.out.display(),
        m.format,
        m.tensors.len(),
        m.network.blocks,
        m.network.channels,
        m.generation,
        manifest_path(&args.out).display()
    );
    Ok(())
}
