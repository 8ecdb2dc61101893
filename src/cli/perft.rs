//! `yinsh-zero perft`: count decision sequences from a position.

use std::time::Instant;

use crate::arena::GamePlayers;
use crate::game::State;
use crate::game::perft::{perft_divide, perft_parallel};
use crate::games::{GameTask, Registry};
use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// Number of decisions to look ahead (YINSH: placements, ring moves,
    /// passes, row and ring removals each count one).
    #[arg(long, short)]
    depth: u32,
    /// The game (default: the home game, `yinsh` in `yinsh-zero`).
    #[arg(long)]
    game: Option<String>,
    /// The game's variant (default: the game's first: `standard`,
    /// `nine`, `9x9`).
    #[arg(long)]
    variant: Option<String>,
    /// Play YINSH's Blitz variant (one removed ring wins): `--variant blitz`.
    #[arg(long, conflicts_with = "variant")]
    blitz: bool,
    /// Print the count below each legal first decision.
    #[arg(long)]
    divide: bool,
    /// Start from the position after this game prefix in the game's
    /// notation, e.g. --position "e3 f6 g5 d4 h8 c3 i9 b2 j10 a2 e3-e7".
    #[arg(long, value_name = "NOTATION", default_value = "")]
    position: String,
}

struct Perft<'a>(&'a Args);

impl GameTask for Perft<'_> {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let args = self.0;
        let mut pos = game.start();
        let actions = game
            .parse_game(&pos, &args.position)
            .map_err(anyhow::Error::msg)
            .context("--position")?;
        for a in actions {
            pos.play_unchecked(a);
        }
        println!("{pos}");

        let started = Instant::now();
        let nodes = if args.divide {
            let divide = perft_divide(&pos, args.depth);
            for (action, n) in &divide {
                println!("{action}: {n}");
            }
            if divide.is_empty() {
                // Depth 0 or a finished game: the position itself is the one leaf.
                perft_parallel(&pos, args.depth)
            } else {
                divide.iter().map(|&(_, n)| n).sum()
            }
        } else {
            perft_parallel(&pos, args.depth)
        };
        let seconds = started.elapsed().as_secs_f64();
        println!("perft {}: {nodes}", args.depth);
        println!(
            "time {seconds:.3} s, {:.0} nodes/s",
            nodes as f64 / seconds.max(1e-9)
        );
        Ok(())
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let game = super::game_of::<R>(&args.game);
    let variant = super::variant_of::<R>(game, args.variant.as_deref(), args.blitz)?;
    R::with_game(game, variant, Perft(&args))?
}
