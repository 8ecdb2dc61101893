//! The arena: players, and the games, matches and tournaments they meet in,
//! with Elo and SPRT to read the results. (The search's position judge is
//! [`crate::evaluator`]; `yinsh-zero evaluate` is this room's tournament.)
//!
//! Everything that chooses actions implements [`Player`]: the baselines
//! ([`RandomPlayer`], minimax), search players and network players; each
//! game adds its own in its folder ([`GamePlayers`]). Players are named on the command line by a spec such as
//! `greedy` or `alphabeta:depth=3` (see [`parse_game_player`]), and meet in
//! [`play_game`] and [`play_match`].
//!
//! ```
//! use yinsh_zero::arena::{parse_game_player, play_game};
//! use yinsh_zero::games::yinsh::{Position, Yinsh};
//!
//! let yinsh = Yinsh::standard();
//! let mut white = parse_game_player(&yinsh, "greedy", 1).unwrap();
//! let mut black = parse_game_player(&yinsh, "random", 2).unwrap();
//! let record = play_game(white.as_mut(), black.as_mut(), Position::blitz()).unwrap();
//! assert!(!record.actions.is_empty());
//! ```

mod duel;
mod elo;
mod evaluation;
mod game;
pub mod grade;
mod matches;
pub mod minimax;
pub mod net_player;
mod player;
mod random;
pub mod search_player;
mod spec;
mod sprt;
mod tournament;

pub use duel::{DuelError, DuelResult, DuelSettings, run_duel};
pub use elo::{
    EloError, EloFit, PairResults, Rating, ResultTable, Z95, elo_from_score, score_from_elo,
};
pub use evaluation::{Evaluated, RecordedTournament, history_of};
pub use game::{Effort, GameRecord, PlayError, play_game};
pub use grade::{GradeRequest, Grading};
pub use matches::{MatchConfig, MatchError, MatchResult, play_match};
pub use minimax::{Evaluation, MinimaxConfig, MinimaxPlayer};
pub use player::{MoveInfo, Player, PlayerFailure};
pub use random::RandomPlayer;
pub use search_player::{RolloutEvaluator, SearchPlayer};
pub use spec::{
    FILE_KEYS, GamePlayers, KNOWN_PLAYERS, MAX_THREADS, PlayerInfo, PlayerSpec, PlayerSpecError,
    add_default_threads, available_cores, default_batch, parse_bool, parse_game_player, parse_num,
    players_of, with_default_threads,
};
pub use sprt::{Sprt, SprtError, Verdict};
pub use tournament::{
    ArenaConfig, ArenaError, ArenaGame, ArenaResult, Forfeit, HistoryError, Openings,
    PairingResult, PlayerFactory, SprtReport, fit_games, new_history_file, play_from_opening,
    read_history, resume_arena, run_arena, write_history,
};
