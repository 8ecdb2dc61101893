//! Matches: many games between two player specs, in parallel and
//! reproducible.

use std::collections::BTreeMap;

use serde::Serialize;

use super::elo::PairResults;
use super::spec::{GamePlayers, PlayerSpecError, parse_game_player};
use super::tournament::{ArenaConfig, ArenaGame, Openings, run_arena};

/// What to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchConfig<G> {
    /// Spec of the first player, White in game 0 (and in every game
    /// unless `swap`).
    pub first: String,
    /// Spec of the second player, Black in game 0.
    pub second: String,
    pub games: u32,
    pub seed: u64,
    /// Alternate colours: the first player is White in even games and
    /// Black in odd ones.
    pub swap: bool,
    pub game: G,
}

impl<G: GamePlayers> MatchConfig<G> {
    /// `games` games of `game` (its variant's rules), `first` (White)
    /// against `second` (Black), no colour swap.
    pub fn new(game: G, first: &str, second: &str, games: u32, seed: u64) -> MatchConfig<G> {
        MatchConfig {
            first: first.into(),
            second: second.into(),
            games,
            seed,
            swap: false,
            game,
        }
    }

    /// Whether the first player has White in game `index`.
    pub fn first_is_white(&self, index: u32) -> bool {
        !self.swap || index.is_multiple_of(2)
    }
}

/// The result of a match. Every tally counts games once.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchResult {
    pub first: String,
    pub second: String,
    pub games: u32,
    pub seed: u64,
    pub swap: bool,
    /// The first player's results over all games (the second's are these
    /// flipped).
    pub first_total: PairResults,
    pub second_total: PairResults,
    /// The first player's results in the games it played as White / Black.
    pub first_as_white: PairResults,
    pub first_as_black: PairResults,
    /// Results from White's point of view, whoever played it.
    pub white: PairResults,
    /// How the games ended, in the game's words (YINSH: `three_rings`,
    /// `pool_empty`, `double_pass`).
    pub end_reasons: BTreeMap<String, u32>,
    /// Mean decisions per game (placements, moves, removals, passes).
    pub mean_actions: f64,
}

/// A match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("first player: {0}")]
    FirstSpec(PlayerSpecError),
    #[error("second player: {0}")]
    SecondSpec(PlayerSpecError),
    #[error("game {game} (seed {seed}): {error}")]
    Game { game: u32, seed: u64, error: String },
}

impl<G: GamePlayers> MatchConfig<G> {
    /// The same games as an arena of one pairing from the start position,
    /// which is how they are played.
    pub fn arena(&self) -> ArenaConfig<G> {
        ArenaConfig {
            players: vec![self.second.clone()],
            gauntlet: Some(self.first.clone()),
            games: self.games,
            seed: self.seed,
            game: self.game.clone(),
            openings: Openings::Random(0),
            alternate: self.swap,
            sprt: None,
        }
    }
}

impl MatchResult {
    /// Tallies the games of a one-pairing arena (`config.gauntlet` first).
    pub fn from_games<G: crate::game::Game>(
        config: &ArenaConfig<G>,
        games: &[ArenaGame],
    ) -> MatchResult {
        let mut r = MatchResult {
            first: config.gauntlet.clone().unwrap_or_default(),
            second: config.players.first().cloned().unwrap_or_default(),
            games: config.games,
            seed: config.seed,
            swap: config.alternate,
            first_total: PairResults::default(),
            second_total: PairResults::default(),
            first_as_white: PairResults::default(),
            first_as_black: PairResults::default(),
            white: PairResults::default(),
            end_reasons: BTreeMap::new(),
            mean_actions: 0.0,
        };
        for g in games {
            let s = g.score_first();
            r.first_total.add_points(s);
            if g.first_white {
                r.first_as_white.add_points(s);
            } else {
                r.first_as_black.add_points(s);
            }
            r.white.add_points(g.score_white);
            *r.end_reasons.entry(g.reason.clone()).or_default() += 1;
        }
        r.second_total = r.first_total.flipped();
        if !games.is_empty() {
            r.mean_actions =
                games.iter().map(|g| g.length).sum::<usize>() as f64 / games.len() as f64;
        }
        r
    }
}

/// Plays the match described by `config`, its games in parallel on the
/// current rayon pool (through [`run_arena`]); the first game a player
/// fails ends the match with an error, where the arena would score a
/// forfeit.
///
/// The result depends only on the config, never on the number of threads
/// (run inside `ThreadPool::install` to choose them).
///
/// ```
/// use yinsh_zero::arena::{MatchConfig, play_match};
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let mut config = MatchConfig::new(Yinsh::standard(), "greedy", "random", 4, 7);
/// config.swap = true;
/// let r = play_match(&config).unwrap();
/// assert_eq!(r.first_total.games(), 4);
/// assert_eq!(r.first_as_white.games(), 2);
/// assert_eq!(r.second_total, r.first_total.flipped());
/// ```
pub fn play_match<G: GamePlayers>(config: &MatchConfig<G>) -> Result<MatchResult, MatchError> {
    // Reject bad specs once, before any thread starts.
    let game = &config.game;
    parse_game_player(game, &config.first, 0).map_err(MatchError::FirstSpec)?;
    parse_game_player(game, &config.second, 0).map_err(MatchError::SecondSpec)?;
    let arena = config.arena();
    let factory =
        |spec: &str, seed: u64| parse_game_player(game, spec, seed).map_err(|e| e.to_string());
    let result = run_arena(&arena, &factory, &mut |_| {}).expect("one pairing, games checked");
    if let Some(g) = result.forfeits().next() {
        let f = g.forfeit.as_ref().expect("filtered on forfeits");
        return Err(MatchError::Game {
            game: g.index,
            seed: g.seed,
            error: format!("{} ({}): {}", f.player, f.side, f.error),
        });
    }
    Ok(MatchResult::from_games(&arena, &result.games))
}
