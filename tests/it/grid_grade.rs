//! `grade` on the grid game: players measured decision by decision against
//! the exact solver, and against it on each side.

use crate::common;

use common::cli::{failed, succeeded, yz};
use serde_json::Value;
use yinsh_zero::arena::parse_game_player;
use yinsh_zero::games::grid::Grid;
use yinsh_zero::games::grid::grade::{GridGradeOptions, grade};

fn options() -> GridGradeOptions {
    GridGradeOptions {
        solver_lines: 4,
        own_games: 4,
        versus_solver: 6,
        solver_nodes: 1_000_000,
        seed: 5,
    }
}

#[test]
fn questions_past_the_node_budget_are_left_out_not_guessed() {
    // One position of budget: every question but the trivial ones is left
    // unanswered, and no game against the solver counts as won.
    let game = Grid::new(5);
    let mut random = |seed| parse_game_player(&game, "random", seed).map_err(|e| e.to_string());
    let opts = GridGradeOptions {
        solver_nodes: 1,
        ..options()
    };
    let r = grade(&game, &mut random, &opts).unwrap();
    let own = &r.own_games;
    assert!(own.player1.unsolved + own.player2.unsolved > 0, "{own:?}");
    // The solver's Player 1 knows only what its tables already proved (on
    // the optimal lines): once random's stones leave them, it is stuck.
    let p2 = &r.as_player2;
    assert_eq!((p2.games, p2.unresolved, p2.wins), (6, 6, 0), "{p2:?}");
    // Random's Player 1 may walk onto a corner before the solver is asked
    // anything hard; no game is won either way.
    let p1 = &r.as_player1;
    assert_eq!(p1.games, 6, "{p1:?}");
    assert!(p1.unresolved > 0, "{p1:?}");
    assert_eq!(p1.wins, 0, "{p1:?}");
}

#[test]
fn the_solver_is_optimal_everywhere_and_random_play_is_not() {
    let game = Grid::new(5);
    let mut solver = |seed| parse_game_player(&game, "solver", seed).map_err(|e| e.to_string());
    let r = grade(&game, &mut solver, &options()).unwrap();
    for t in [
        &r.solver_lines.player1,
        &r.solver_lines.player2,
        &r.own_games.player1,
        &r.own_games.player2,
    ] {
        assert!(t.decisions > 0, "{r:?}");
        assert_eq!(t.optimal, t.decisions, "{r:?}");
        assert_eq!(t.preserving, t.decisions, "{r:?}");
    }
    assert!(r.mistakes.is_empty(), "{:?}", r.mistakes);
    // 5 x 5: Player 2 wins on Player 1's 4th move under optimal play, so
    // the solver as Player 2 wins every game in 4, and as Player 1 loses
    // every game in exactly 4.
    let p2 = &r.as_player2;
    assert_eq!((p2.games, p2.wins, p2.optimal_length), (6, 6, 6), "{p2:?}");
    assert_eq!(p2.optimal_p1_moves, 4);
    assert_eq!(p2.p1_moves, vec![4; 6]);
    let p1 = &r.as_player1;
    assert_eq!((p1.games, p1.wins, p1.optimal_length), (6, 0, 6), "{p1:?}");
    assert_eq!(p1.p1_moves, vec![4; 6]);

    let mut random = |seed| parse_game_player(&game, "random", seed).map_err(|e| e.to_string());
    let r = grade(&game, &mut random, &options()).unwrap();
    let t = &r.solver_lines.player2;
    assert!(t.optimal < t.decisions, "{t:?}");
    assert!(r.as_player2.wins < 6, "{:?}", r.as_player2);
    assert!(!r.mistakes.is_empty());
    assert!(r.mistakes[0].contains("played"), "{}", r.mistakes[0]);
}

fn grade_cmd(args: &[&str]) -> std::process::Output {
    yz(["grade"].iter().chain(args))
}

#[test]
fn the_grade_command_grades_a_grid_player_and_refuses_what_it_cannot() {
    let stdout = succeeded(&grade_cmd(&[
        "--game",
        "grid",
        "--variant",
        "5x5",
        "--player",
        "solver",
        "--lines",
        "2",
        "--games",
        "2",
        "--vs-perfect",
        "4",
        "--json",
    ]));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["game"], "grid");
    assert_eq!(v["variant"], "5x5");
    let p2 = &v["report"]["as_player2"];
    assert_eq!(p2["games"], 4);
    assert_eq!(p2["wins"], 4);
    assert_eq!(p2["optimal_length"], 4);
    let lines = &v["report"]["solver_lines"]["player2"];
    assert_eq!(lines["optimal"], lines["decisions"]);

    let out = grade_cmd(&["--game", "grid", "--variant", "5x5", "--player", "solver"]);
    let text = succeeded(&out);
    assert!(
        text.contains("as Player 2 vs solver: 20 games, 20 won (100.0%), 20 won within 4 moves"),
        "{text}"
    );

    // A game without perfect play, an unknown variant, a player of another
    // game: refused by name.
    let err = failed(&grade_cmd(&["--game", "yinsh", "--player", "random"]));
    assert!(err.contains("not of yinsh"), "{err}");
    let out = grade_cmd(&["--game", "grid", "--variant", "6x6", "--player", "random"]);
    let err = failed(&out);
    assert!(err.contains("6x6"), "{err}");
    let err = failed(&grade_cmd(&["--game", "grid", "--player", "perfect"]));
    assert!(err.contains("perfect"), "{err}");
}
