//! The UMO 2014 grid game: rules, notation, records, and the exact solver
//! against the problem's answer and a plain minimax.
//!
//! The checks every game runs (symmetries, encoding, notation and record
//! round trips, random games ending, pinned perft) are in
//! `tests/it/conformance.rs`; this file keeps what is particular to the grid
//! game.

use crate::common;

use common::cli::{failed, succeeded, yz};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::arena::{parse_game_player, play_game};
use yinsh_zero::game::{Color, Game, GameResult, State};
use yinsh_zero::games::grid::solve::{Solver, Value};
use yinsh_zero::games::grid::{Action, Grid, Position};

fn play(g: &Grid, line: &str) -> Position {
    let mut p = g.start();
    for t in line.split_whitespace() {
        let a = g
            .parse_action(&p, t)
            .unwrap_or_else(|e| panic!("{t}: {e}\n{p}"));
        p.play(a).unwrap();
    }
    p
}

#[test]
fn rules_of_a_game() {
    let g = Grid::new(9);
    let s = g.start();
    assert_eq!(s.to_act(), Color::White);
    let steps: Vec<String> = s.legal_actions().iter().map(|a| a.to_string()).collect();
    assert_eq!(steps, ["Ge6", "Gf5", "Ge4", "Gd5"]);
    let p = play(&g, "Ge6");
    assert_eq!(p.to_act(), Color::Black);
    // Red stays behind on e5; Player 2 may place anywhere empty but Green's point.
    assert_eq!(p.legal_actions().len(), 81 - 2);
    let e = g.parse_action(&p, "e5").unwrap_err();
    assert!(e.contains("not empty"), "{e}");
    let e = g.parse_action(&p, "Ge7").unwrap_err();
    assert!(e.contains("Player 2 places"), "{e}");
    let e = g.parse_action(&p, "j1").unwrap_err();
    assert!(e.contains("off the 9x9 board"), "{e}");
    let p = play(&g, "Ge6 e7");
    let e = g.parse_action(&p, "Ge5").unwrap_err();
    assert!(e.contains("holds a Red stone"), "{e}");
    let e = g.parse_action(&p, "Gg6").unwrap_err();
    assert!(e.contains("not next to Green"), "{e}");

    // Entering a corner loses for Player 1.
    let g5 = Grid::new(5);
    let p = play(&g5, "Gc4 a1 Gc5 a2 Gb5 b1 Ga5");
    assert_eq!(p.result(), Some(GameResult::Win(Color::Black)));
    assert_eq!(p.end_reason(), Some("corner"));
    // Green stuck off the corners at the start of Player 1's turn loses for
    // Player 2: b2 with Red on b1, a2 and c2, and Player 2 must place.
    let p = Position::from_parts(5, 1 << 1 | 1 << 5 | 1 << 7, 6, 3).unwrap();
    assert_eq!(p.to_act(), Color::Black);
    let mut q = p;
    q.play(g5.parse_action(&p, "b3").unwrap()).unwrap();
    assert_eq!(q.result(), Some(GameResult::Win(Color::White)), "{q}");
    assert_eq!(q.end_reason(), Some("trapped"));
    let mut q = p;
    q.play(g5.parse_action(&p, "e5").unwrap()).unwrap();
    assert!(!q.is_over());
    assert_eq!(
        q.legal_actions().as_slice(),
        [Action::Step(yinsh_zero::games::grid::Square {
            col: 1,
            row: 2
        })]
    );
    // A position already over is refused as a set-up.
    let e = Position::from_parts(5, 1 << 1 | 1 << 5 | 1 << 7 | 1 << 11, 6, 4).unwrap_err();
    assert!(e.contains("cannot move"), "{e}");
}

#[test]
fn records_refuse_impossible_positions() {
    let g = Grid::new(7);
    let mut bytes = Vec::new();
    g.write_state(&play(&g, "Gd5"), &mut bytes);
    let mut bad = bytes.clone();
    bad[16] = 200;
    assert!(
        g.read_state(&bad)
            .unwrap_err()
            .contains("off the 7x7 board")
    );
    let mut bad = bytes.clone();
    bad[17] = 5;
    assert!(
        g.read_state(&bad)
            .unwrap_err()
            .contains("every ply adds one")
    );
    let mut bad = bytes.clone();
    bad[16] = 0;
    assert!(g.read_state(&bad).unwrap_err().contains("corner"));
    assert!(g.read_state(&bytes[..5]).unwrap_err().contains("21 bytes"));
}

#[test]
fn the_solver_answers_the_olympiad_problem() {
    // 9x9: Player 2 wins, Player 1 moves 8 times, 15 Red stones (8 left by
    // Green, 7 placed).
    let g = Grid::new(9);
    let mut s = Solver::new(g);
    let start = g.start();
    assert_eq!(
        s.value(&start),
        Value {
            winner: Color::Black,
            p1_moves: 8
        }
    );
    let line = s.line(&start);
    assert_eq!(line.len(), 15);
    let mut end = start;
    for &a in &line {
        end.play_unchecked(a);
    }
    assert_eq!(end.result(), Some(GameResult::Win(Color::Black)));
    assert_eq!(end.red().count_ones(), 15);
    // Smaller boards: the corner is as far as Player 1 can be made to go.
    for (n, moves) in [(5u8, 4u32), (7, 6)] {
        let g = Grid::new(n);
        assert_eq!(
            Solver::new(g).value(&g.start()),
            Value {
                winner: Color::Black,
                p1_moves: moves
            },
            "{n}x{n}"
        );
    }
}

#[test]
fn a_budgeted_question_answers_exactly_or_not_at_all() {
    let g = Grid::new(9);
    let start = g.start();
    let exact = Solver::new(g).value(&start);
    let mut s = Solver::new(g);
    // Far too small a budget: no answer, and nothing false is remembered.
    assert_eq!(s.try_value(&start, 100), None);
    assert_eq!(s.try_best_actions(&start, 100), None);
    assert_eq!(s.try_value(&start, u64::MAX), Some(exact));
    assert_eq!(s.value(&start), exact);
    let mut fresh = Solver::new(g);
    assert_eq!(
        s.try_best_actions(&start, 10_000_000),
        Some(fresh.best_actions(&start))
    );
    assert_eq!(
        s.try_action_values(&start, 10_000_000),
        Some(fresh.action_values(&start))
    );
}

/// Plain minimax over every action, no table, no pruning: the value with
/// the winner hurrying and the loser delaying.
fn minimax(p: &Position) -> Value {
    if let Some(GameResult::Win(w)) = p.result() {
        return Value {
            winner: w,
            p1_moves: 0,
        };
    }
    let me = p.to_act();
    p.legal_actions()
        .iter()
        .map(|&a| {
            let mut c = *p;
            c.play_unchecked(a);
            let v = minimax(&c);
            if me == Color::White {
                Value {
                    p1_moves: v.p1_moves + 1,
                    ..v
                }
            } else {
                v
            }
        })
        .max_by_key(|v| v.rank_for(me))
        .unwrap()
}

#[test]
fn the_solver_agrees_with_plain_minimax_near_the_end() {
    let g = Grid::new(5);
    let mut rng = SmallRng::seed_from_u64(8);
    let mut s = Solver::new(g);
    let (mut checked, mut p1_wins) = (0, 0);
    while checked < 150 {
        let reds = rng.random_range(15..20u32);
        let mut red = 0u128;
        while red.count_ones() < reds {
            red |= 1 << rng.random_range(0..25);
        }
        let green = rng.random_range(0..25u8);
        let Ok(p) = Position::from_parts(5, red, green, reds) else {
            continue;
        };
        let v = minimax(&p);
        assert_eq!(s.value(&p), v, "\n{p}");
        for (a, va) in s.action_values(&p) {
            let mut c = p;
            c.play_unchecked(a);
            let vc = if c.is_over() {
                Value {
                    winner: c.result().unwrap().winner().unwrap(),
                    p1_moves: 0,
                }
            } else {
                minimax(&c)
            };
            let vc = if p.to_act() == Color::White {
                Value {
                    p1_moves: vc.p1_moves + 1,
                    ..vc
                }
            } else {
                vc
            };
            assert_eq!(va, vc, "{a} in\n{p}");
        }
        checked += 1;
        p1_wins += usize::from(v.winner == Color::White);
    }
    assert!(
        p1_wins > 10 && p1_wins < 140,
        "{p1_wins} of 150 won by Player 1"
    );
}

#[test]
fn the_solver_player_wins_as_player_2_in_8_moves() {
    let g = Grid::new(9);
    for seed in 0..4 {
        let mut p1 = parse_game_player(&g, "solver", seed).unwrap();
        let mut p2 = parse_game_player(&g, "solver", seed + 10).unwrap();
        let rec = play_game(p1.as_mut(), p2.as_mut(), g.start()).unwrap();
        assert_eq!(rec.result, GameResult::Win(Color::Black));
        let p1_moves = rec
            .actions
            .iter()
            .filter(|a| matches!(a, Action::Step(_)))
            .count();
        assert_eq!(p1_moves, 8);
    }
    // Against a random Player 2, the solver's Player 1 wins.
    let mut p1 = parse_game_player(&g, "solver", 1).unwrap();
    let mut p2 = parse_game_player(&g, "random", 2).unwrap();
    let rec = play_game(p1.as_mut(), p2.as_mut(), g.start()).unwrap();
    assert_eq!(
        rec.result,
        GameResult::Win(Color::White),
        "{:?}",
        rec.actions
    );
}

#[test]
fn solve_grid_prints_the_answer_and_refuses_even_sizes() {
    let text = succeeded(&yz(["solve-grid", "--size", "5", "9", "--json"]));
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["player1_moves"], 4);
    assert_eq!(rows[1]["winner"], "Player 2");
    assert_eq!(rows[1]["player1_moves"], 8);
    assert_eq!(rows[1]["red_stones"], 15);
    // The printed line replays to the end.
    let g = Grid::new(9);
    let line = g
        .parse_game(&g.start(), rows[1]["line"].as_str().unwrap())
        .unwrap();
    let mut p = g.start();
    for a in line {
        p.play(a).unwrap();
    }
    assert_eq!(p.result(), Some(GameResult::Win(Color::Black)));
    assert!(failed(&yz(["solve-grid", "--size", "8"])).contains("odd"));
}

#[test]
fn commands_without_a_variant_play_the_games_first_one() {
    // `match`, `perft`, `evaluate` and `engine` once defaulted to YINSH's
    // `standard`, which no other game has.
    let stdout = succeeded(&yz([
        "match", "--game", "grid", "--white", "solver", "--black", "solver", "--games", "2",
        "--json",
    ]));
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Player 2 wins every game between two solvers, on a corner.
    assert_eq!(report["second_total"]["wins"], 2, "{report}");
    assert_eq!(report["end_reasons"]["corner"], 2, "{report}");
    assert_eq!(
        report["mean_actions"], 15.0,
        "9 x 9's optimal game: {report}"
    );
    let stdout = succeeded(&yz(["perft", "--game", "grid", "--depth", "1"]));
    // Green at the centre of 9 x 9 has four free neighbours.
    assert!(stdout.contains("perft 1: 4"));
    let stderr = failed(&yz([
        "perft",
        "--game",
        "grid",
        "--variant",
        "standard",
        "--depth",
        "1",
    ]));
    assert!(stderr.contains("9x9"));
}
