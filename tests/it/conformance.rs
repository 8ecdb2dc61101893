//! The conformance suite (`tests/it/common/conformance.rs`) run on every game
//! and variant the registry knows ([`GAMES`] through [`with_game`], so a game
//! added there is checked here without a change to this file), and on
//! tic-tac-toe (`tests/it/common/tictactoe.rs`).
//!
//! The games' own test files (`tests/it/emergo.rs`, `tests/it/morris.rs`,
//! `tests/it/grid.rs`, `tests/it/tictactoe.rs`, ...) keep what is particular to
//! each game; the generic checks live here.

use crate::common::conformance;
use crate::common::tictactoe;

use conformance::{Check, Expect};
use tictactoe::TicTacToe;
use yinsh_zero::arena::GamePlayers;
use yinsh_zero::game::Game;
use yinsh_zero::games::{GAMES, GameTask, default_variant, emergo, morris, with_game};

/// Perft from the start at depths 1, 2, ..., by game and variant.
///
/// Computed by this build when the suite was written, and checked then
/// against the counts the games' own tests pin or check against
/// independent implementations of the rules: YINSH's 85, 85 x 84,
/// 85 x 84 x 83 and 85 x 84 x 83 x 82 ring placements (`tests/it/perft.rs`,
/// against the reference rules in `tests/it/reference/`), Nine Men's Morris's
/// 24, 552, 12 144 and 255 024 (`tests/it/morris.rs`, against the rules drawn
/// from the board's lines) and Emergo's 40, 1 504, 55 172 and 1 828 116
/// (`tests/it/emergo.rs`, against `tests/it/emergo_reference/`, which checks the
/// small board's counts too); tic-tac-toe's are the known 9, 72, 504 and
/// 3 024, and Six and Three Men's Morris's are their placements (16 x 15 x
/// ..., 9 x 8 x ...). The grid game's are this build's alone. Connect
/// Four's are 7^n (no column fills and no four forms in five plies), as
/// `tests/it/connect4.rs` checks to depth 7 with the distinct positions of
/// OEIS A212693.
const PERFT: &[(&str, &str, &[u64])] = &[
    ("yinsh", "standard", &[85, 7_140, 592_620, 48_594_840]),
    ("yinsh", "blitz", &[85, 7_140, 592_620, 48_594_840]),
    ("morris", "nine", &[24, 552, 12_144, 255_024]),
    ("morris", "six", &[16, 240, 3_360, 43_680]),
    ("morris", "three", &[9, 72, 504, 3_024]),
    ("grid", "9x9", &[4, 316, 936, 72_072]),
    ("grid", "5x5", &[4, 92, 264, 5_544]),
    ("grid", "7x7", &[4, 188, 552, 24_840]),
    ("grid", "11x11", &[4, 476, 1_416, 165_672]),
    ("emergo", "standard", &[40, 1_504, 55_172, 1_828_116]),
    ("emergo", "blocked-loses", &[40, 1_504, 55_172, 1_828_116]),
    ("emergo", "small", &[24, 528, 11_140, 201_272]),
    ("connect4", "standard", &[7, 49, 343, 2_401, 16_807]),
    ("tictactoe", "standard", &[9, 72, 504, 3_024]),
];

/// The most decisions a random game may take, by game (every variant), from
/// each game's rules; a game not listed gets [`DEFAULT_MAX_DECISIONS`].
const MAX_DECISIONS: &[(&str, usize)] = &[
    // 10 ring placements; at most 51 + 5 x 5 ring moves (each takes a
    // marker from the pool of 51, each of at most five rows removed gives
    // five back); as many passes; two decisions per row removed.
    ("yinsh", 10 + 2 * (51 + 5 * 5 + 1) + 2 * 5),
    // Every placement (18), mill and removal (14 before a side is down to
    // two men) resets the no-progress count: at most 33 stretches of
    // NO_PROGRESS_LIMIT quiet moves, each ended by two decisions (Nine Men's
    // Morris, the largest board).
    ("morris", 33 * (morris::NO_PROGRESS_LIMIT as usize + 2)),
    // Every decision leaves one more Red stone: at most the cells of the
    // largest board, 11 x 11.
    ("grid", 11 * 11),
    // TURN_LIMIT turns, each at most one decision per playable square of
    // the largest board (41): an entry, a step, or a chain of jumps.
    ("emergo", emergo::TURN_LIMIT as usize * 41),
    // Every decision fills one of the 42 cells.
    ("connect4", 42),
    // Nine cells.
    ("tictactoe", 9),
];

/// A bound for games [`MAX_DECISIONS`] does not list: only a guard against
/// a game that never ends.
const DEFAULT_MAX_DECISIONS: usize = 100_000;

fn expect(game: &str, variant: &str) -> Expect<'static> {
    Expect {
        perft: PERFT
            .iter()
            .find(|&&(g, v, _)| g == game && v == variant)
            .map(|&(_, _, counts)| counts),
        max_decisions: MAX_DECISIONS
            .iter()
            .find(|&&(g, _)| g == game)
            .map_or(DEFAULT_MAX_DECISIONS, |&(_, n)| n),
    }
}

/// A game's variant names.
struct Variants;

impl GameTask for Variants {
    type Output = &'static [&'static str];
    fn run<G: GamePlayers>(self, _: G) -> Self::Output {
        G::VARIANTS
    }
}

/// One check on one game.
struct Run(Check);

impl GameTask for Run {
    type Output = String;
    fn run<G: GamePlayers>(self, game: G) -> String {
        conformance::run(self.0, &game, &expect(G::NAME, game.variant()))
    }
}

/// Every game and variant, tic-tac-toe last.
fn every_game() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for &name in GAMES {
        let first = default_variant(name).unwrap();
        for &v in with_game(name, first, Variants).unwrap() {
            out.push((name, v));
        }
    }
    for &v in TicTacToe::VARIANTS {
        out.push((TicTacToe::NAME, v));
    }
    out
}

/// Runs `check` on every game and variant.
fn check_every_game(check: Check) {
    let games = every_game();
    for &(name, variant) in &games {
        let line = if name == TicTacToe::NAME {
            Run(check).run(TicTacToe::with_variant(variant).unwrap())
        } else {
            with_game(name, variant, Run(check)).unwrap()
        };
        println!("{check:?}: {line}");
    }
    assert!(games.len() > GAMES.len(), "{games:?}");
}

#[test]
fn symmetries_round_trip_commute_with_play_and_move_the_encoding() {
    check_every_game(Check::Symmetries);
}

#[test]
fn the_encoding_has_its_shape_and_legal_actions_their_own_indices() {
    check_every_game(Check::Encoding);
}

#[test]
fn notation_round_trips() {
    check_every_game(Check::Notation);
}

#[test]
fn random_games_end() {
    check_every_game(Check::RandomGamesEnd);
}

#[test]
fn perft_of_the_first_plies_is_pinned() {
    check_every_game(Check::Perft);
}

#[test]
fn records_round_trip() {
    check_every_game(Check::Records);
}

#[test]
fn the_pins_name_games_and_variants_that_exist() {
    let games = every_game();
    for &(name, variant, _) in PERFT {
        assert!(
            games.contains(&(name, variant)),
            "perft pinned for {name} {variant}, which is not a game"
        );
    }
    for &(name, _) in MAX_DECISIONS {
        assert!(games.iter().any(|&(g, _)| g == name), "{name}");
    }
}
