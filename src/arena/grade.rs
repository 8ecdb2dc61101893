//! Grading a player against a game's perfect play: what is asked, for any
//! game whose folder can answer it (a solved database, an exact solver).
//! The game does the grading and says how its report reads
//! ([`GamePlayers::grading`](super::GamePlayers::grading)); the command line
//! only fills this in.

use std::path::PathBuf;

use crate::nn::BackendKind;

/// One `yinsh-zero grade`: the player, its network, and how much to play.
/// A game reads the fields it has a use for.
#[derive(Clone, Debug)]
pub struct GradeRequest {
    /// The graded player's spec (`net-mcts:checkpoint=..`, `alphabeta:depth=3`).
    pub spec: String,
    /// The network whose value head is graded too, if any.
    pub checkpoint: Option<PathBuf>,
    /// The backend that runs that network.
    pub backend: BackendKind,
    /// Games of the player against itself whose decisions are graded.
    pub games: usize,
    /// Optimal games (perfect play against itself) whose positions the
    /// player decides on.
    pub lines: usize,
    /// Positions from random play the player decides on.
    pub positions: usize,
    /// Positions drawn from the solved endgame, graded by layer.
    pub endgame: usize,
    /// Games against perfect play.
    pub vs_perfect: usize,
    /// Positions an exact solver may search for one question.
    pub solver_nodes: u64,
    /// Random decisions opening each of the player's own games.
    pub opening: u32,
    /// Where a solved database lies, instead of the game's usual folder.
    pub db: Option<PathBuf>,
    pub seed: u64,
    /// One JSON object instead of text.
    pub json: bool,
    /// Up to ten value-losing decisions too.
    pub mistakes: bool,
    /// Keep what the solver worked out for later grades (Connect Four: its
    /// opening book file).
    pub save_book: bool,
    /// A file of proven bounds to answer from and grow (Connect Four:
    /// [`crate::games::connect4::bounds`]), so that a later grade on the
    /// same positions, or this one run again, asks its solver only what
    /// is new.
    pub bounds: Option<PathBuf>,
}

/// What a game with perfect play offers `grade`.
pub struct Grading<G> {
    /// The variant graded when neither the command nor a checkpoint names
    /// one (the one whose perfect play is at hand).
    pub variant: &'static str,
    /// Grades the request's player in `game` and prints the report.
    pub grade: fn(game: &G, request: &GradeRequest) -> anyhow::Result<()>,
}

/// Graded decisions of one sample against perfect play, as the graders
/// whose perfect play values every decision the same way count them
/// (the grid game's solver, Connect Four's). Morris's database counts more
/// (critical decisions) in its own tally.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    pub decisions: u64,
    /// ... whose action keeps the position's value (its winner, or win,
    /// draw or loss).
    pub preserving: u64,
    /// ... whose action is one of perfect play's best.
    pub optimal: u64,
    /// Decisions left out of the counts above: perfect play could not
    /// value them within its budget.
    pub unsolved: u64,
}

impl Tally {
    pub fn preserving_share(&self) -> f64 {
        share(self.preserving, self.decisions)
    }

    pub fn optimal_share(&self) -> f64 {
        share(self.optimal, self.decisions)
    }
}

/// `part / whole`, or NaN where nothing was counted (printed `-` by
/// [`percent`]).
pub fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        f64::NAN
    } else {
        part as f64 / whole as f64
    }
}

/// A share as a report prints it: `61.5%`, or `-` where nothing was
/// counted (0 / 0).
pub fn percent(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * x)
    }
}
