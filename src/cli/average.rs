//! `yinsh-zero average`: one network, the mean of several checkpoints'.

use std::path::PathBuf;

use crate::arena::GamePlayers;
use crate::checkpoint::{self, CheckpointMeta};
use crate::games::{GameTask, Registry};
use crate::nn::BackendKind;

#[derive(clap::Args)]
pub struct Args {
    /// Checkpoints to average (e.g. the last generations of a run), all of
    /// one game and network size.
    #[arg(required = true, num_args = 1..)]
    checkpoints: Vec<PathBuf>,
    /// Checkpoint directory to write (replaced if it exists).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    backend: super::BackendArg,
}

struct Average<'a>(&'a Args);

impl GameTask for Average<'_> {
    type Output = anyhow::Result<CheckpointMeta>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let args = self.0;
        let device = args.backend.choose(BackendKind::Flex).device()?;
        Ok(checkpoint::average_checkpoints(
            &game,
            &args.checkpoints,
            &args.out,
            &device,
        )?)
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let first = checkpoint::resolve(&args.checkpoints[0])?;
    let meta = checkpoint::read_meta(&first)?;
    let m = R::with_game(&meta.game, &meta.variant, Average(&args))??;
    let g = &m.averaged_from;
    println!(
        "wrote {}: the mean of {} {}x{} networks of {} ({}), generations {}",
        args.out.display(),
        g.len(),
        m.model.blocks,
        m.model.channels,
        m.game,
        m.variant,
        g.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
