//! YINSH's own players on the spec line: `greedy` and `alphabeta`.

use std::time::Duration;

use super::alphabeta::{AlphaBetaConfig, AlphaBetaPlayer};
use super::greedy::GreedyPlayer;
use crate::arena::Player;
use crate::arena::{
    GamePlayers, PlayerInfo, PlayerSpec, PlayerSpecError, parse_bool, parse_game_player, parse_num,
};
use crate::games::yinsh::{Position, Yinsh};

/// Builds the YINSH player named by `spec`, seeding its randomness with
/// `seed`: [`parse_game_player`] for YINSH (either variant: a YINSH player
/// plays the variant of the position it is given). It exists for the
/// YINSH-only callers (the web page, `serve`, benchmarks), so that the
/// arena's generic builder names no game.
///
/// The syntax is `name[:key=value,key=value]`; see
/// [`crate::arena::players_of`]. Unknown names and keys are errors that
/// list what is known.
///
/// ```
/// use yinsh_zero::games::yinsh::parse_player;
/// assert_eq!(parse_player("greedy:threats=false", 0).unwrap().name(), "greedy:threats=false");
/// let err = parse_player("grredy", 0).err().unwrap().to_string();
/// assert!(err.contains("random, greedy"), "{err}");
/// ```
pub fn parse_player(spec: &str, seed: u64) -> Result<Box<dyn Player<Position>>, PlayerSpecError> {
    parse_game_player(&Yinsh::standard(), spec, seed)
}

const YINSH_PLAYERS: &[PlayerInfo] = &[
    PlayerInfo {
        name: "greedy",
        keys: &[(
            "threats",
            "true|false: check the opponent's replies for rows (default true)",
        )],
        about: "best action one ply ahead by rows, markers and mobility",
    },
    PlayerInfo {
        name: "alphabeta",
        keys: &[
            ("depth", "deepest iteration in turns (default 3)"),
            (
                "time",
                "milliseconds per decision; stops deepening when spent",
            ),
            ("tt", "log2 of transposition-table entries (default 18)"),
        ],
        about: "negamax alpha-beta, iterative deepening, transposition table, classical evaluation",
    },
];

impl GamePlayers for Yinsh {
    fn own_players() -> &'static [PlayerInfo] {
        YINSH_PLAYERS
    }

    fn build_own(
        &self,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Box<dyn Player<Position>>, PlayerSpecError> {
        Ok(match spec.name.as_str() {
            "greedy" => {
                let threats = match spec.get("threats") {
                    None => true,
                    Some(v) => parse_bool(spec, "threats", v)?,
                };
                Box::new(GreedyPlayer::with_threats(seed, threats))
            }
            "alphabeta" => {
                let mut config = AlphaBetaConfig::default();
                if let Some(v) = spec.get("depth") {
                    config.depth = parse_num(spec, "depth", v, 1, 64)? as u32;
                }
                if let Some(v) = spec.get("time") {
                    config.time = Some(Duration::from_millis(parse_num(
                        spec, "time", v, 1, 3_600_000,
                    )?));
                    if spec.get("depth").is_none() {
                        config.depth = 64;
                    }
                }
                if let Some(v) = spec.get("tt") {
                    config.tt_bits = parse_num(spec, "tt", v, 8, 28)? as u32;
                }
                Box::new(AlphaBetaPlayer::new(config, seed))
            }
            other => unreachable!("YINSH_PLAYERS lists `{other}` but nothing builds it"),
        })
    }
}
