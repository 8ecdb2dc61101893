//! `grade`: players measured against a solved database (Three Men's
//! Morris, solved here into a temporary folder).

use crate::common;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use common::cli::{failed, succeeded, yz};
use yinsh_zero::arena::parse_game_player;
use yinsh_zero::games::morris::db::Database;
use yinsh_zero::games::morris::grade::{GradeOptions, Tally, grade};
use yinsh_zero::games::morris::solve::{SolveOptions, solve};
use yinsh_zero::games::morris::{Morris, Variant};

fn solved(variant: Variant, max_stones: Option<u8>) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let opts = SolveOptions::new(variant, d.path(), max_stones);
    solve(&opts, |_| {}).unwrap();
    d
}

fn three_db() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| solved(Variant::Three, None)).path()
}

/// Six Men's Morris's moving phase with at most four stones a side: four
/// endgame layers and nothing of the opening.
fn six_endgame_db() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| solved(Variant::Six, Some(4))).path()
}

/// `yinsh-zero grade ARGS --json`, which must succeed.
fn grade_json(args: &[&str]) -> serde_json::Value {
    let stdout = succeeded(&yz(["grade"].iter().chain(args).chain(&["--json"])));
    serde_json::from_str(&stdout).unwrap()
}

fn options() -> GradeOptions {
    GradeOptions {
        own_games: 6,
        random_positions: 150,
        perfect_games: 6,
        random_opening: 2,
        endgame_positions: 0,
        seed: 3,
    }
}

#[test]
fn the_perfect_player_keeps_every_value_and_random_play_does_not() {
    let game = Morris::new(Variant::Three);
    let db = Arc::new(Database::open(three_db(), Variant::Three).unwrap());
    let spec = format!("perfect:db={}", three_db().display());
    let mut perfect = |seed| parse_game_player(&game, &spec, seed).map_err(|e| e.to_string());
    let r = grade(&game, &db, &mut perfect, None, &options()).unwrap();
    assert_eq!(r.random_positions.decisions, 150);
    assert_eq!(r.random_positions.preserving, 150);
    assert_eq!(r.random_positions.optimal, 150);
    assert!(r.own_games.decisions > 0);
    assert_eq!(r.own_games.preserving, r.own_games.decisions);
    assert!(r.random_positions.critical > 0, "{:?}", r.random_positions);
    assert!(r.mistakes.is_empty());
    // Perfect against perfect: never a loss for either (the first player
    // wins Three Men's Morris, so each side wins its White games).
    let v = &r.versus_perfect;
    assert_eq!(v.wins + v.draws + v.losses, 6);
    assert_eq!(v.wins, v.losses, "{v:?}");

    let mut random = |seed| parse_game_player(&game, "random", seed).map_err(|e| e.to_string());
    let r = grade(&game, &db, &mut random, None, &options()).unwrap();
    let t = &r.random_positions;
    assert!(t.preserving < t.decisions, "{t:?}");
    assert!(t.critical_preserving < t.critical, "{t:?}");
    assert!(!r.mistakes.is_empty());
    assert!(r.mistakes[0].contains("played"), "{}", r.mistakes[0]);
    assert!(r.versus_perfect.losses > 0, "{:?}", r.versus_perfect);
}

#[test]
fn the_grade_command_reports_and_refuses_what_it_cannot_grade() {
    let db = three_db().display().to_string();
    let j = grade_json(&[
        "--variant",
        "three",
        "--db",
        &db,
        "--player",
        "alphabeta:depth=2",
        "--games",
        "2",
        "--positions",
        "40",
        "--vs-perfect",
        "2",
    ]);
    assert_eq!(j["random_positions"]["decisions"], 40);
    let share = j["random_positions_preserving_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{j}");
    assert_eq!(
        j["versus_perfect"]["wins"].as_u64().unwrap()
            + j["versus_perfect"]["draws"].as_u64().unwrap()
            + j["versus_perfect"]["losses"].as_u64().unwrap(),
        2
    );

    let empty = tempfile::tempdir().unwrap();
    let err = failed(&yz([
        "grade",
        "--variant",
        "six",
        "--player",
        "random",
        "--db",
        empty.path().to_str().unwrap(),
    ]));
    assert!(err.contains("yinsh-zero solve --variant six"), "{err}");

    let out = yz(["grade", "--variant", "three", "--db", &db]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--checkpoint"), "{err}");
    let out = yz([
        "grade",
        "--variant",
        "three",
        "--db",
        &db,
        "--player",
        "greedy",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("greedy"), "{err}");
}

#[test]
fn endgame_positions_are_drawn_from_every_solved_layer_and_graded_by_layer() {
    let game = Morris::new(Variant::Six);
    let db = Arc::new(Database::open(six_endgame_db(), Variant::Six).unwrap());
    let opts = GradeOptions {
        own_games: 0,
        random_positions: 0,
        perfect_games: 0,
        endgame_positions: 200,
        ..options()
    };
    let spec = format!("perfect:db={}", six_endgame_db().display());
    let mut perfect = |seed| parse_game_player(&game, &spec, seed).map_err(|e| e.to_string());
    let r = grade(&game, &db, &mut perfect, None, &opts).unwrap();
    let layers: Vec<&str> = r.endgame.keys().map(|k| k.as_str()).collect();
    assert_eq!(layers, ["3:3", "3:4", "4:3", "4:4"]);
    let total = r
        .endgame
        .values()
        .fold(Tally::default(), |a, t| a.merged(t));
    assert_eq!(total.decisions, 200);
    assert_eq!(total.unsolved, 0);
    assert_eq!(total.optimal, 200, "{:?}", r.endgame);
    assert!(total.critical > 0);

    // The same draw of positions for another player, who errs.
    let mut random = |seed| parse_game_player(&game, "random", seed).map_err(|e| e.to_string());
    let r = grade(&game, &db, &mut random, None, &opts).unwrap();
    let t = r
        .endgame
        .values()
        .fold(Tally::default(), |a, t| a.merged(t));
    assert_eq!(t.decisions, 200);
    assert_eq!(t.critical, total.critical, "the same positions");
    assert!(
        t.optimal < t.decisions && t.critical_preserving < t.critical,
        "{t:?}"
    );

    // Through the command, beside the other samples (whose positions lie
    // mostly outside these layers).
    let db = six_endgame_db().display().to_string();
    let j = grade_json(&[
        "--variant",
        "six",
        "--db",
        &db,
        "--player",
        "alphabeta:depth=2",
        "--games",
        "1",
        "--positions",
        "5",
        "--vs-perfect",
        "0",
        "--endgame",
        "30",
    ]);
    assert_eq!(j["endgame_total"]["decisions"], 30, "{j}");
    let share = j["endgame_optimal_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{j}");
}
