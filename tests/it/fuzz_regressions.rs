//! Inputs the fuzz targets (tests/it/fuzz_targets.rs, docs/fuzzing.md) found
//! crashing a parser, kept as they were found: each must now be refused
//! with an error that names what is wrong.

use yinsh_zero::engine::{Engine, read_go_line, serve};
use yinsh_zero::game::Game;
use yinsh_zero::games::emergo::Emergo;
use yinsh_zero::games::grid::Grid;

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

/// A record file (format 2, checksum intact) whose game name claims
/// 5,997,687,485,722,934,288 bytes: bincode allocated that before reading
/// it, and the process aborted ("memory allocation of ... bytes failed").
#[test]
fn record_with_a_huge_string_length_is_refused() {
    use std::path::Path;
    use yinsh_zero::games::morris::Morris;
    use yinsh_zero::games::yinsh::Yinsh;
    use yinsh_zero::replay::record::decode;
    let found = include_bytes!("../data/fuzz/record-v2-string-length-6e18.bin");
    // The same damage made by hand, in each format: a string length of
    // 2^62 (varint marker 0xfd, then eight bytes).
    let mut files = vec![found.to_vec()];
    for version in [2u32, 3, 4] {
        let mut payload = vec![0xfd];
        payload.extend_from_slice(&(1u64 << 62).to_le_bytes());
        payload.extend_from_slice(b"yinsh");
        let mut f = b"YZRECORD".to_vec();
        f.extend_from_slice(&version.to_le_bytes());
        f.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        f.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        f.extend_from_slice(&payload);
        files.push(f);
    }
    let path = Path::new("found.rec");
    for bytes in &files {
        for e in [
            decode(&Yinsh::standard(), path, bytes).unwrap_err(),
            decode(&Grid::with_variant("11x11").unwrap(), path, bytes).unwrap_err(),
            decode(&Morris::with_variant("six").unwrap(), path, bytes).unwrap_err(),
            decode(&Emergo::with_variant("standard").unwrap(), path, bytes).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(
                e.contains("found.rec") && e.contains("claims more than"),
                "{e}"
            );
        }
    }
}

/// A Morris position whose ply is u32::MAX: read as valid, it overflowed
/// the ply count at its first decision.
#[test]
fn morris_position_at_the_last_ply_is_refused() {
    use yinsh_zero::games::morris::Morris;
    let found = b"TJ\x00\x00\xa2\x11\x00\x00\x00\x00\x01\x00\xff\xff\xff\xff\x08\x00\x01";
    let mut named = false;
    for variant in Morris::VARIANTS {
        let game = Morris::with_variant(variant).unwrap();
        let e = game.read_state(found).unwrap_err();
        named |= e.contains("ply 4294967295");
    }
    assert!(named, "no variant names the ply");
}

/// A YINSH position (bincode bytes, as records hold them) with all 51
/// markers on the board and a ring to move: read as valid, its first move
/// took a 52nd marker and underflowed the pool's count.
#[test]
fn yinsh_position_with_an_empty_pool_and_a_ring_to_move_is_refused() {
    use yinsh_zero::games::yinsh::Yinsh;
    let found = include_bytes!("../data/fuzz/yinsh-position-empty-pool-ring-move.bin");
    let mut said = Vec::new();
    for variant in Yinsh::VARIANTS {
        let game = Yinsh::with_variant(variant).unwrap();
        match game.read_state(found) {
            Ok(_) => panic!("{variant}: read as a position"),
            Err(e) => said.push(e),
        }
    }
    assert!(
        said.iter().any(|e| e.contains("pool empty")),
        "no variant names the empty pool: {said:?}"
    );
}
