//! `yinsh-zero engine`: speak the text engine protocol on stdin/stdout
//! (docs/engine-protocol.md) so other programs and GUIs can drive a player.

use std::io;
use std::path::Path;

use crate::arena::{GamePlayers, MAX_THREADS, available_cores, players_of, with_default_threads};
use crate::checkpoint;
use crate::engine::{Engine, serve};
use crate::games::{GameTask, Registry};

#[derive(clap::Args)]
pub struct Args {
    /// The player that answers `go`: any spec `yinsh-zero match` accepts
    /// for the game, except external programs. Default: the network this
    /// project ships for the game (in ./checkpoints) at one second a
    /// decision, `net-mcts:checkpoint=checkpoints/best,time=1000` for YINSH;
    /// `alphabeta:depth=3` for a game with none.
    #[arg(long, value_name = "SPEC")]
    pub player: Option<String>,
    /// Seed of the player's randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Threads of a `net-mcts` player whose spec sets no `threads`
    /// (default: every core of this machine): each decision's search
    /// gathers batches of leaves from its tree and splits them over these.
    #[arg(long, default_value_t = available_cores())]
    pub threads: usize,
    /// The game the engine plays (`game` on the protocol reports it; default:
    /// the home game, `yinsh` in `yinsh-zero`).
    #[arg(long)]
    pub game: Option<String>,
    /// The variant a plain `newgame` starts (default: the game's first: `standard`,
    /// `nine`, `9x9`).
    #[arg(long)]
    pub variant: Option<String>,
}

/// Where the networks this project ships are, from its root.
const SHIPPED: &str = "checkpoints";

/// What plays when no `--player` is given: a network shipped in `root` for
/// `game`, the variant's own where there is one (a network plays every
/// variant of its game), at a second a decision (a driver's `go time MS`
/// changes that); alpha-beta where none ships.
fn default_player(root: &Path, game: &str, variant: &str) -> String {
    let nets: Vec<_> = checkpoint::shipped(root)
        .into_iter()
        .filter(|n| n.meta.game == game)
        .collect();
    let own = nets.iter().find(|n| n.meta.variant == variant);
    match own.or(nets.first()) {
        Some(net) => format!(
            "net-mcts:checkpoint={},time=1000",
            net.dir.join("best").display()
        ),
        None => "alphabeta:depth=3".to_string(),
    }
}

/// The protocol on stdin/stdout for the game the flags name.
struct Serve<'a>(&'a Args);

impl GameTask for Serve<'_> {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let default;
        let spec = match &self.0.player {
            Some(spec) => spec,
            None => {
                default = default_player(Path::new(SHIPPED), G::NAME, game.variant());
                &default
            }
        };
        let player = with_default_threads(spec, self.0.threads, &players_of::<G>());
        let mut engine =
            Engine::for_game(game, &player, self.0.seed).map_err(anyhow::Error::msg)?;
        serve(io::stdin().lock(), io::stdout().lock(), &mut engine)?;
        Ok(())
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        (1..=MAX_THREADS).contains(&args.threads),
        "--threads must be from 1 to {MAX_THREADS}"
    );
    let game = super::game_of::<R>(&args.game);
    let variant = super::variant_of::<R>(game, args.variant.as_deref(), false)?;
    R::with_game(game, variant, Serve(&args))?
}
