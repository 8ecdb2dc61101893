//! `yinsh-zero grade`: a player's decisions against a game's perfect play
//! (Morris: the solved database; the grid game and Connect Four: their
//! exact solvers). The
//! game grades and prints ([`GamePlayers::grading`]); this fills in the
//! request.

use std::path::PathBuf;

use anyhow::{Context, bail, ensure};

use crate::arena::{GamePlayers, GradeRequest};
use crate::checkpoint;
use crate::games::{GameTask, Registry};
use crate::nn::BackendKind;

use super::BackendArg;

#[derive(clap::Args)]
pub struct Args {
    /// The network to grade (a checkpoint folder, a `best` pointer file or
    /// a run's checkpoints folder). Its value head is graded too.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Simulations per decision of the network's search (`net-mcts`); 0
    /// grades the bare policy (`net-policy`).
    #[arg(long, default_value_t = 100)]
    pub sims: u32,
    /// Grade this player spec instead (e.g. `alphabeta:depth=3`); with
    /// --checkpoint the network's value head is still graded.
    #[arg(long, value_name = "SPEC")]
    pub player: Option<String>,
    /// The game: one with perfect play to grade against (morris, grid,
    /// connect4;
    /// default: the checkpoint's, else the first of them).
    #[arg(long)]
    pub game: Option<String>,
    /// The variant (default: the checkpoint's, else the game's graded one:
    /// six for Morris, 9x9 for the grid game).
    #[arg(long)]
    pub variant: Option<String>,
    /// The database folder (default data/morris/<variant>).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Games of the player against itself whose decisions are graded.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Grid game: optimal games (the solver against itself, ties at
    /// random) on whose positions the player decides.
    #[arg(long, default_value_t = 20)]
    pub lines: usize,
    /// Positions from random play the player decides on.
    #[arg(long, default_value_t = 200)]
    pub positions: usize,
    /// Morris: positions drawn from the database's solved moving-phase
    /// layers (each layer, and each state in it, equally likely), graded by
    /// layer: Nine Men's Morris's endgame, which whole games seldom reach
    /// inside the solved layers.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub endgame: usize,
    /// Games against the database's perfect player (colours alternated,
    /// from the empty board); for the grid game, games against the solver
    /// on each side.
    #[arg(long, default_value_t = 20)]
    pub vs_perfect: usize,
    /// Grid game and Connect Four: positions the solver may search for one
    /// question (a decision's values, or its move in a game) before leaving
    /// it unanswered (about 2 µs and 40 bytes each): where Player 2 has
    /// strayed and Player 1 wins late, one question can take minutes. Nine
    /// Men's Morris: placing-phase states the exact search may expand for
    /// one question, the grader's and the perfect player's (0: no limit,
    /// so that every placing decision is graded and perfect play is
    /// perfect from the first stone).
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    pub solver_nodes: u64,
    /// Random decisions opening each of the player's own games.
    #[arg(long, default_value_t = 2)]
    pub opening: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print up to ten value-losing decisions.
    #[arg(long)]
    pub mistakes: bool,
    /// Connect Four: sync the exact scores the solver works out for early
    /// positions into the opening book (data/connect4/book.bin) every 5
    /// minutes and at the end, so that a stopped grade keeps them and the
    /// next one starts from them (`connect4-book` may run beside it).
    #[arg(long)]
    pub save_book: bool,
    /// Connect Four: a file of the bounds on exact scores that grades
    /// proved, created if missing: questions it settles are answered from
    /// it and this grade's proofs are added every 5 minutes and at the
    /// end. Grading another network on the same test set, or the same
    /// grade again after a kill, then costs the solver only what is new.
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
    #[command(flatten)]
    pub backend: BackendArg,
}

/// Grades with the game's own grader, in the variant asked for.
struct Grade {
    variant: Option<String>,
    request: GradeRequest,
    /// The registry's games that can be graded, for the error.
    graded: Vec<&'static str>,
}

impl GameTask for Grade {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, _: G) -> anyhow::Result<()> {
        let Some(grading) = G::grading() else {
            bail!(
                "grade knows perfect play of {}, not of {}",
                self.graded.join(" and "),
                G::NAME
            )
        };
        let variant = self.variant.as_deref().unwrap_or(grading.variant);
        let game = G::with_variant(variant).map_err(anyhow::Error::msg)?;
        (grading.grade)(&game, &self.request)
    }
}

/// The registered games with perfect play to grade against.
fn graded_games<R: Registry>() -> Vec<&'static str> {
    struct Graded;
    impl GameTask for Graded {
        type Output = bool;
        fn run<G: GamePlayers>(self, _: G) -> bool {
            G::grading().is_some()
        }
    }
    R::names()
        .into_iter()
        .filter(|g| {
            R::default_variant(g).is_ok_and(|v| R::with_game(g, v, Graded).unwrap_or(false))
        })
        .collect()
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let checkpoint = args
        .checkpoint
        .as_deref()
        .map(checkpoint::resolve)
        .transpose()
        .context("--checkpoint")?;
    let meta = checkpoint
        .as_deref()
        .map(checkpoint::read_meta)
        .transpose()?;
    let game = match (&args.game, &meta) {
        (Some(g), _) => g.clone(),
        (None, Some(m)) => m.game.clone(),
        (None, None) => graded_games::<R>()
            .first()
            .context("no registered game has perfect play to grade against")?
            .to_string(),
    };
    if let Some(m) = &meta {
        ensure!(
            m.game == game,
            "the checkpoint plays {}, not {game}",
            m.game
        );
    }
    let spec = match (&args.player, &checkpoint) {
        (Some(s), _) => s.clone(),
        (None, Some(c)) if args.sims == 0 => format!("net-policy:checkpoint={}", c.display()),
        (None, Some(c)) => format!("net-mcts:checkpoint={},sims={}", c.display(), args.sims),
        (None, None) => bail!("give --checkpoint (a network to grade) or --player SPEC"),
    };
    let backend = match checkpoint {
        Some(_) => args.backend.choose(BackendKind::Flex),
        None => args.backend.backend.unwrap_or(BackendKind::Flex),
    };
    let request = GradeRequest {
        spec,
        checkpoint,
        backend,
        games: args.games,
        lines: args.lines,
        positions: args.positions,
        endgame: args.endgame,
        vs_perfect: args.vs_perfect,
        solver_nodes: args.solver_nodes,
        opening: args.opening,
        db: args.db,
        seed: args.seed,
        json: args.json,
        mistakes: args.mistakes,
        save_book: args.save_book,
        bounds: args.bounds,
    };
    let variant = args.variant.or(meta.map(|m| m.variant));
    R::with_game(
        &game,
        R::default_variant(&game)?,
        Grade {
            variant,
            request,
            graded: graded_games::<R>(),
        },
    )?
}
