//! The `stats`, `match` and `bench engine` commands through the real binary.

use crate::common;

use common::cli::{failed, succeeded, yz};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = yz(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn assert_keys(v: &Value, keys: &[&str]) {
    for k in keys {
        assert!(v.get(k).is_some(), "missing key `{k}` in {v}");
    }
}

#[test]
fn stats_json_has_the_keys() {
    let v = json(&["stats", "--games", "40", "--seed", "1", "--json"]);
    assert_keys(
        &v,
        &[
            "games",
            "mean_ring_moves",
            "median_ring_moves",
            "max_ring_moves",
            "mean_options_all_turns",
            "mean_turns",
            "max_turns",
            "end_reasons",
            "outcomes",
            "by_turn",
        ],
    );
    assert_eq!(v["games"], 40);
    assert!(v["by_turn"].as_array().is_some_and(|a| !a.is_empty()));
    assert_keys(
        &v["end_reasons"],
        &["three_rings", "pool_empty", "double_pass"],
    );
    assert_keys(&v["outcomes"], &["white", "black", "draw"]);
}

#[test]
fn match_json_has_the_tallies() {
    let v = json(&[
        "match", "--white", "greedy", "--black", "random", "--games", "6", "--swap", "--json",
    ]);
    assert_keys(
        &v,
        &[
            "first_total",
            "second_total",
            "first_as_white",
            "first_as_black",
            "white",
        ],
    );
    let t = &v["first_total"];
    let games = ["wins", "draws", "losses"]
        .iter()
        .map(|k| t[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(games, 6);
}

#[test]
fn match_with_an_unknown_player_fails_and_lists_the_known_ones() {
    let err = failed(&yz([
        "match",
        "--white",
        "greedy",
        "--black",
        "stockfish",
        "--games",
        "2",
    ]));
    assert!(
        err.contains("unknown player `stockfish`") && err.contains("random, greedy"),
        "{err}"
    );
}

#[test]
fn bench_engine_json_has_the_rates() {
    let v = json(&["bench", "engine", "--json", "--seconds", "0.2"]);
    assert_keys(
        &v,
        &["random_games_per_s", "movegen_per_s", "ring_movegen_per_s"],
    );
    assert!(v["random_games_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["movegen_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn match_names_its_game_and_variant() {
    let v = json(&[
        "match",
        "--game",
        "yinsh",
        "--variant",
        "blitz",
        "--white",
        "random",
        "--black",
        "alphabeta:depth=1",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(v["games"], 2, "{v}");
    // `alphabeta` is YINSH's own engine here, not the generic one.
    succeeded(&yz([
        "match",
        "--white",
        "alphabeta:tt=12",
        "--black",
        "random",
        "--games",
        "1",
        "--json",
    ]));
    for (args, needle) in [
        (
            &[
                "match", "--game", "chess", "--white", "random", "--black", "random",
            ][..],
            "unknown game `chess`",
        ),
        (
            &[
                "match",
                "--variant",
                "speed",
                "--white",
                "random",
                "--black",
                "random",
            ][..],
            "no variant `speed`",
        ),
    ] {
        let err = failed(&yz(args));
        assert!(
            err.contains(needle) && err.contains("yinsh") || err.contains(needle),
            "{err}"
        );
    }
}
