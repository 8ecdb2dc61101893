//! Inputs the fuzz targets (tests/fuzz_targets.rs, docs/fuzzing.md) found
//! crashing a parser, kept as they were found: each must now be refused
//! with an error that names what is wrong.

use yinsh_zero::emergo::Emergo;
use yinsh_zero::engine::{Engine, read_go_line, serve};
use yinsh_zero::game::Game;
use yinsh_zero::grid::Grid;

/// A grid square far off the board (`c35`): `row * side` overflowed a
/// `u8` while the square was being checked against the board (a
/// `then_some` computed the cell before the check had said no).
#[test]
fn grid_square_far_off_the_board_is_refused() {
    for variant in Grid::VARIANTS {
        let game = Grid::with_variant(variant).unwrap();
        let start = game.start();
        for text in ["Gc35", "c35", "c33", "a255", "Gk99"] {
            let e = game.parse_action(&start, text).unwrap_err();
            assert!(!e.is_empty(), "{variant} `{text}`: an empty error");
        }
        // As found: a game text, an engine's `position` and its `bestmove`.
        let found = "Gd3 b7 Gc35 g2 Ge5 f1 Ge6 b2 GF6 c7 Gg6 g7 Gg5 f5 Gg4 d1 Gf4 g3 ";
        assert!(game.parse_game(&start, found).is_err());
        assert!(read_go_line(&game, &start, "bestmove c35").is_err());
    }
}

/// The same in Emergo (`d255`): the square's row times the board's side.
#[test]
fn emergo_square_far_off_the_board_is_refused() {
    let found = "@c7 @d2 @f4 @c5 @c1 @a9 c1xe3 @b4 @h4 @b2 @d4 @h2 d255xb6";
    for variant in Emergo::VARIANTS {
        let game = Emergo::with_variant(variant).unwrap();
        let start = game.start();
        for text in ["d255xb6", "@a255", "a200-a201", "@z99999"] {
            let e = game.parse_action(&start, text).unwrap_err();
            assert!(!e.is_empty(), "{variant} `{text}`: an empty error");
        }
        let e = game.parse_game(&start, found).unwrap_err();
        assert!(!e.is_empty());
    }
}

/// Found through the engine protocol: `position startpos moves ... c33 ...`
/// sent to `yinsh-zero engine --game grid` panicked the engine.
#[test]
fn engine_for_grid_answers_an_off_board_square_with_an_error() {
    let session = "yinsh\nisready\ngame\ngame grid 9x9\nnewgame 9x9\nposition startpos moves Ge6 g7 \
                   Gf6 g6 Gf5 d2 Gf4 c2 Ge4 c33 e8 Gi3 h8 Gi2 i7 Gi1\nd\ngo\nquit\n";
    let mut engine = Engine::for_game(Grid::with_variant("9x9").unwrap(), "random", 7).unwrap();
    let mut out = Vec::new();
    serve(session.as_bytes(), &mut out, &mut engine).unwrap();
    let replies = String::from_utf8(out).unwrap();
    let error = replies
        .lines()
        .find(|l| l.starts_with("error position not set"))
        .unwrap_or_else(|| panic!("no error for the position:\n{replies}"));
    assert!(error.contains("c33"), "{error}");
    assert!(
        replies.lines().any(|l| l.starts_with("bestmove ")),
        "{replies}"
    );
}

/// A wait in a config too long to be a `Duration` (finite, so validation
/// let it through): `Duration::from_secs_f64` panicked while the config was
/// read (`server_wait_ms`) or when the first worker slept (`poll_seconds`).
#[test]
fn config_waits_too_long_for_a_duration_are_refused() {
    use yinsh_zero::run::config::RunConfig;
    for (text, key) in [
        (
            "[selfplay]\nserver_wait_ms = 99999999999999999999999999.0\n",
            "server_wait_ms",
        ),
        ("[selfplay]\nserver_wait_ms = 1.9e22\n", "server_wait_ms"),
        ("[workers]\npoll_seconds = 1e30\n", "poll_seconds"),
        (
            "[workers]\npoll_seconds = 1.8446744073709552e19\n",
            "poll_seconds",
        ),
    ] {
        let e = RunConfig::from_toml(text, "long.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(key) && e.contains("longer than any wait"),
            "{text}: {e}"
        );
    }
    // The longest waits that are durations still read.
    for text in [
        "[selfplay]\nserver_wait_ms = 1e15\n",
        "[workers]\npoll_seconds = 1e15\n",
    ] {
        RunConfig::from_toml(text, "long.toml").unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}
