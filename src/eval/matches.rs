//! Matches: many games between two player specs, in parallel and
//! reproducible.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use super::game::{PlayError, play_game};
use super::seed::sub_seed;
use super::spec::{PlayerSpecError, parse_player};
use crate::yinsh::{Color, Outcome, Position, Variant};

/// What to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchConfig {
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
    pub variant: Variant,
}

impl MatchConfig {
    /// `games` games of `first` (White) against `second` (Black), standard
    /// rules, no colour swap.
    pub fn new(first: &str, second: &str, games: u32, seed: u64) -> MatchConfig {
        MatchConfig {
            first: first.into(),
            second: second.into(),
            games,
            seed,
            swap: false,
            variant: Variant::STANDARD,
        }
    }

    /// Whether the first player has White in game `index`.
    pub fn first_is_white(&self, index: u32) -> bool {
        !self.swap || index.is_multiple_of(2)
    }
}

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, a draw counting half: in [0, 1], 0.5 when there
    /// are no games.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }

    /// The same games from the other side.
    pub fn flipped(&self) -> Tally {
        Tally {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    fn add(&mut self, score: i8) {
        match score {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
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
    pub first_total: Tally,
    pub second_total: Tally,
    /// The first player's results in the games it played as White / Black.
    pub first_as_white: Tally,
    pub first_as_black: Tally,
    /// Results from White's point of view, whoever played it.
    pub white: Tally,
    /// How the games ended: `three_rings`, `pool_empty`, `double_pass`.
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
    Game {
        game: u32,
        seed: u64,
        error: PlayError,
    },
}

/// Plays the match described by `config`, its games in parallel on the
/// current rayon pool.
///
/// Game `i` is seeded from `sub_seed(config.seed, i)` and its players from
/// that, so the result depends only on the config, never on the number of
/// threads (run inside `ThreadPool::install` to choose them).
///
/// ```
/// use yinsh_zero::eval::{MatchConfig, play_match};
///
/// let mut config = MatchConfig::new("greedy", "random", 4, 7);
/// config.swap = true;
/// let r = play_match(&config).unwrap();
/// assert_eq!(r.first_total.games(), 4);
/// assert_eq!(r.first_as_white.games(), 2);
/// assert_eq!(r.second_total, r.first_total.flipped());
/// ```
pub fn play_match(config: &MatchConfig) -> Result<MatchResult, MatchError> {
    // Reject bad specs once, before any thread starts.
    parse_player(&config.first, 0).map_err(MatchError::FirstSpec)?;
    parse_player(&config.second, 0).map_err(MatchError::SecondSpec)?;

    let start = Position::with_variant(config.variant);
    let games: Vec<(Outcome, usize)> = (0..config.games)
        .into_par_iter()
        .map(|i| {
            let seed = sub_seed(config.seed, i as u64);
            let mut first =
                parse_player(&config.first, sub_seed(seed, 0)).map_err(MatchError::FirstSpec)?;
            let mut second =
                parse_player(&config.second, sub_seed(seed, 1)).map_err(MatchError::SecondSpec)?;
            let played = if config.first_is_white(i) {
                play_game(first.as_mut(), second.as_mut(), start)
            } else {
                play_game(second.as_mut(), first.as_mut(), start)
            };
            played
                .map(|rec| (rec.outcome, rec.actions.len()))
                .map_err(|error| MatchError::Game {
                    game: i,
                    seed,
                    error,
                })
        })
        .collect::<Result<_, _>>()?;

    let mut r = MatchResult {
        first: config.first.clone(),
        second: config.second.clone(),
        games: config.games,
        seed: config.seed,
        swap: config.swap,
        first_total: Tally::default(),
        second_total: Tally::default(),
        first_as_white: Tally::default(),
        first_as_black: Tally::default(),
        white: Tally::default(),
        end_reasons: BTreeMap::new(),
        mean_actions: 0.0,
    };
    let mut actions = 0usize;
    for (i, (outcome, n)) in games.iter().enumerate() {
        let first_colour = if config.first_is_white(i as u32) {
            Color::White
        } else {
            Color::Black
        };
        let s = outcome.score_for(first_colour);
        r.first_total.add(s);
        match first_colour {
            Color::White => r.first_as_white.add(s),
            Color::Black => r.first_as_black.add(s),
        }
        r.white.add(outcome.score_for(Color::White));
        *r.end_reasons
            .entry(outcome.reason.name().to_string())
            .or_default() += 1;
        actions += n;
    }
    r.second_total = r.first_total.flipped();
    if !games.is_empty() {
        r.mean_actions = actions as f64 / games.len() as f64;
    }
    Ok(r)
}
