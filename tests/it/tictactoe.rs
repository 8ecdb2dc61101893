//! Tic-tac-toe on the game interface: its rules against the known counts of
//! the game tree, the solver and perfect player, symmetries, records and
//! notation, and the generic search and players running it.
//!
//! The checks every game runs (symmetries, encoding, notation and record
//! round trips, random games ending, pinned perft) are in
//! `tests/it/conformance.rs`, tic-tac-toe among them; this file keeps what is
//! particular to tic-tac-toe, and runs two of those checks on every
//! reachable position.

use crate::common;
use crate::common::conformance;

use std::collections::{BTreeSet, HashMap, HashSet};

use common::tictactoe::{Board, Cell, PerfectPlayer, Solver, TicTacToe, after, map_cell, solve};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use yinsh_zero::arena::{Player, RandomPlayer, parse_game_player, play_game, players_of};
use yinsh_zero::evaluator::{Evaluation, Evaluator};
use yinsh_zero::game::{Color, Game, GameResult, State};
use yinsh_zero::mcts::{SearchConfig, SearchError, search};

fn board(diagram: &str) -> Board {
    Board::from_diagram(diagram).unwrap_or_else(|e| panic!("{e}"))
}

/// Move sequences of exactly `depth` decisions; a finished game has none
/// beyond its end.
fn perft<S: State>(pos: &S, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_over() {
        return 0;
    }
    pos.legal_actions()
        .iter()
        .map(|&a| {
            let mut next = pos.clone();
            next.play(a).unwrap();
            perft(&next, depth - 1)
        })
        .sum()
}

/// Every position play can reach from the start, the start included.
fn reachable() -> HashSet<Board> {
    let mut seen = HashSet::new();
    let mut stack = vec![TicTacToe.start()];
    while let Some(b) = stack.pop() {
        if seen.insert(b) {
            stack.extend(b.legal_actions().iter().map(|&a| after(&b, a)));
        }
    }
    seen
}

fn encoded(b: &Board) -> Vec<f32> {
    let mut out = vec![f32::NAN; TicTacToe.net_shape().input_size()];
    TicTacToe.encode(b, &mut out);
    out
}

#[test]
fn perft_matches_the_known_counts() {
    let expected = [
        9u64, 72, 504, 3024, 15_120, 54_720, 148_176, 200_448, 127_872,
    ];
    let start = TicTacToe.start();
    for (d, &n) in (1..).zip(&expected) {
        assert_eq!(perft(&start, d), n, "depth {d}");
    }
    assert_eq!(perft(&start, 10), 0, "no game lasts ten moves");
}

#[test]
fn reachable_positions_and_endings_match_the_known_counts() {
    let all = reachable();
    assert_eq!(all.len(), 5478);
    let mut endings: HashMap<Option<GameResult>, usize> = HashMap::new();
    for b in &all {
        *endings.entry(b.result()).or_default() += 1;
    }
    assert_eq!(endings[&Some(GameResult::Win(Color::White))], 626);
    assert_eq!(endings[&Some(GameResult::Win(Color::Black))], 316);
    assert_eq!(endings[&Some(GameResult::Draw)], 16);
    // The key tells every reachable position apart.
    let keys: HashSet<u64> = all.iter().map(State::key).collect();
    assert_eq!(keys.len(), all.len());
}

#[test]
fn rules_of_a_game() {
    let mut b = TicTacToe.start();
    assert_eq!(b.to_act(), Color::White);
    assert_eq!(b.ply(), 0);
    assert_eq!(
        b.legal_actions().as_slice(),
        (0..9).map(Cell).collect::<Vec<_>>()
    );
    assert_eq!(b.end_reason(), None);

    b.play(Cell(4)).unwrap();
    assert_eq!(b.to_act(), Color::Black);
    assert_eq!(b.ply(), 1);
    assert_eq!(b.at(Cell(4)), Some(Color::White));
    assert!(!b.is_legal(Cell(4)));
    assert_eq!(b.legal_action_count(), 8);

    let before = b;
    let err = b.play(Cell(4)).unwrap_err();
    assert_eq!(err.action, "b2");
    assert!(err.reason.contains("taken by X"), "{err}");
    assert_eq!(b, before, "a refused action leaves the board alone");
    let err = b.play(Cell(9)).unwrap_err();
    assert!(err.reason.contains("no cell 9"), "{err}");

    // O b3, X a3, O a2; then X c1 completes the diagonal a3-b2-c1.
    for c in [1, 0, 3] {
        b.play(Cell(c)).unwrap();
    }
    assert!(b.result().is_none());
    b.play(Cell(8)).unwrap();
    assert_eq!(b.result(), Some(GameResult::Win(Color::White)));
    assert_eq!(b.end_reason(), Some("three_in_a_row"));
    assert!(b.legal_actions().is_empty());
    let err = b.play(Cell(3)).unwrap_err();
    assert!(err.reason.contains("game is over"), "{err}");

    let full = board("XOX XOO OXX");
    assert_eq!(full.result(), Some(GameResult::Draw));
    assert_eq!(full.end_reason(), Some("full_board"));
    // A win that fills the board is a win.
    let last = board("XOX OXO OX.");
    let won = after(&last, Cell(8));
    assert_eq!(won.ply(), 9);
    assert_eq!(won.result(), Some(GameResult::Win(Color::White)));
    assert_eq!(won.end_reason(), Some("three_in_a_row"));
}

#[test]
fn the_key_depends_on_the_position_not_the_move_order() {
    let mut a = TicTacToe.start();
    let mut b = TicTacToe.start();
    for c in [0, 4, 8] {
        a.play(Cell(c)).unwrap();
    }
    for c in [8, 4, 0] {
        b.play(Cell(c)).unwrap();
    }
    assert_eq!(a, b);
    assert_eq!(a.key(), b.key());
    assert_ne!(a.key(), after(&a, Cell(1)).key());
}

#[test]
fn variants_and_shape() {
    assert_eq!(TicTacToe::NAME, "tictactoe");
    assert_eq!(TicTacToe.variant(), "standard");
    assert_eq!(TicTacToe::with_variant("standard"), Ok(TicTacToe));
    let err = TicTacToe::with_variant("misere").unwrap_err();
    assert!(
        err.contains("`misere`") && err.contains("standard"),
        "{err}"
    );
    let shape = TicTacToe.net_shape();
    assert_eq!(shape.input_size(), 27);
    assert_eq!(shape.action_space(), 9);
    assert_eq!(TicTacToe.start().margin(Color::White), None);
    assert_eq!(TicTacToe.tensor_layout().planes.len(), 3);
    for i in 0..9 {
        let a = TicTacToe.action_from_index(i).unwrap();
        assert_eq!(TicTacToe.action_index(a), i);
    }
    assert_eq!(TicTacToe.action_from_index(9), None);
}

#[test]
fn encoding_is_seen_by_the_player_to_act() {
    let x_to_act = board("XO. ... ...");
    let e = encoded(&x_to_act);
    assert_eq!(&e[0..3], &[1.0, 0.0, 0.0], "own stones: X");
    assert_eq!(&e[9..12], &[0.0, 1.0, 0.0], "opponent's: O");
    assert!(e[18..27].iter().all(|&v| v == 1.0), "X to act");

    let o_to_act = after(&x_to_act, Cell(8));
    let e = encoded(&o_to_act);
    assert_eq!(&e[0..3], &[0.0, 1.0, 0.0], "own stones: O");
    assert_eq!((e[9], e[17]), (1.0, 1.0), "opponent's: X");
    assert!(e[18..27].iter().all(|&v| v == 0.0), "O to act");
    assert_eq!(e.iter().filter(|&&v| v != 0.0).count(), 3);
}

#[test]
fn solver_values() {
    let start = TicTacToe.start();
    assert_eq!(solve(&start), 0);
    // X to act with two in a row and the third cell free.
    assert_eq!(solve(&board("XX. OO. ...")), 1);
    // O to act against two open lines of X, with no line of its own to make.
    assert_eq!(solve(&board("XX. .O. X.O")), -1);
    // No first move wins or loses.
    for a in start.legal_actions() {
        assert_eq!(solve(&after(&start, a)), 0, "after {a}");
    }
    // Against a corner only the centre holds; against the centre, only the
    // corners.
    for (first, holding) in [(0, vec![4]), (4, vec![0, 2, 6, 8])] {
        let b = after(&start, Cell(first));
        for r in b.legal_actions() {
            let want = if holding.contains(&r.0) { 0 } else { 1 };
            assert_eq!(solve(&after(&b, r)), want, "X {}, O {r}", Cell(first));
        }
    }
}

#[test]
fn perfect_player_wins_fastest() {
    // Positions with a win in one and a slower win beside it: the player
    // must take the immediate one.
    let mut solver = Solver::new();
    let mut player = PerfectPlayer::new(3);
    let mut checked = 0;
    for b in reachable() {
        if b.is_over() {
            continue;
        }
        let wins_now: BTreeSet<Cell> = b
            .legal_actions()
            .iter()
            .copied()
            .filter(|&a| after(&b, a).result() == Some(GameResult::Win(b.to_act())))
            .collect();
        let wins_later = b
            .legal_actions()
            .iter()
            .any(|&a| !wins_now.contains(&a) && solver.value(&after(&b, a)) == -1);
        let choice = player.choose(&b);
        assert!(b.is_legal(choice));
        assert_eq!(
            solver.value(&after(&b, choice)),
            -solver.value(&b),
            "{choice} is not optimal in\n{b}"
        );
        if !wins_now.is_empty() && wins_later {
            assert!(wins_now.contains(&choice), "{choice} wins slower in\n{b}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} positions with a slower win");
    assert_eq!(Player::<Board>::name(&player), "perfect");
}

#[test]
fn perfect_play_draws() {
    let mut games = HashSet::new();
    for seed in 0..20 {
        let mut x = PerfectPlayer::new(seed);
        let mut o = PerfectPlayer::new(seed + 1000);
        let rec = play_game(&mut x, &mut o, TicTacToe.start()).unwrap();
        assert_eq!(rec.result, GameResult::Draw, "{:?}", rec.actions);
        assert_eq!(rec.actions.len(), 9);
        games.insert(rec.actions);
    }
    assert!(games.len() > 5, "the seeds vary the games: {}", games.len());
}

#[test]
fn perfect_player_never_loses_to_random() {
    for perfect_side in Color::BOTH {
        let mut wins = 0;
        for seed in 0..200 {
            let mut p = PerfectPlayer::new(seed);
            let mut r = RandomPlayer::new(seed + 7);
            let rec = match perfect_side {
                Color::White => play_game(&mut p, &mut r, TicTacToe.start()),
                Color::Black => play_game(&mut r, &mut p, TicTacToe.start()),
            }
            .unwrap();
            let score = rec.result.score_for(perfect_side);
            assert!(score >= 0, "lost as {perfect_side}: {:?}", rec.actions);
            wins += (score == 1) as u32;
        }
        // Random play blunders often enough for most games to be won.
        assert!(wins > 100, "{wins} wins of 200 as {perfect_side}");
    }
}

#[test]
fn the_symmetries_are_the_eight_of_the_square() {
    let g = TicTacToe;
    assert_eq!(g.symmetries(), 8);
    for k in 0..8 {
        assert_eq!(map_cell(4, k), 4, "the centre stays");
        assert!((0..9).all(|c| g.transform_index(c, k) == map_cell(c, k)));
    }
    // The quarter turn moves the top left corner to the top right.
    assert_eq!(g.transform(&board("X.. ... ..."), 1), board("..X ... ..."));
}

/// The conformance suite's symmetry and encoding checks
/// (`tests/it/common/conformance.rs`) on every reachable position, not only
/// those of random games.
#[test]
fn every_reachable_position_passes_the_conformance_checks() {
    let all: Vec<Board> = reachable().into_iter().collect();
    assert_eq!(conformance::symmetries(&TicTacToe, &all), 5478);
    assert_eq!(conformance::encoding(&TicTacToe, &all), 5478);
}

#[test]
fn records_refuse_impossible_positions() {
    let g = TicTacToe;
    let err = |bytes: &[u8]| g.read_state(bytes).unwrap_err();
    let mut good = Vec::new();
    g.write_state(&board("XO. .X. ..."), &mut good);
    assert_eq!(good, [1, 2, 0, 0, 1, 0, 0, 0, 0, 1]);
    assert!(g.read_state(&good).is_ok());

    let e = err(&good[..9]);
    assert!(e.contains("10 bytes") && e.contains("got 9"), "{e}");
    let e = err(&[good.as_slice(), &[0]].concat());
    assert!(e.contains("got 11"), "{e}");
    assert!(err(&[]).contains("got 0"));

    let mut bad = good.clone();
    bad[2] = 3;
    let e = err(&bad);
    assert!(e.contains("cell c3 holds 3"), "{e}");
    let mut bad = good.clone();
    bad[9] = 2;
    let e = err(&bad);
    assert!(e.contains("side to act is 2"), "{e}");

    // Two X stones, one O stone, X to act.
    let mut bad = good.clone();
    bad[9] = 0;
    let e = err(&bad);
    assert!(e.contains("X to act with 2 X and 1 O"), "{e}");
    // O to act with as many O stones as X stones.
    let e = err(&[1, 2, 0, 0, 2, 0, 0, 0, 0, 1]);
    assert!(e.contains("O to act with 1 X and 2 O"), "{e}");
    // Three X stones, no O stone.
    let e = err(&[1, 1, 1, 0, 0, 0, 0, 0, 0, 1]);
    assert!(e.contains("3 X and 0 O"), "{e}");

    // XXX / OOO / ..., X to act: both have a line.
    let e = err(&[1, 1, 1, 2, 2, 2, 0, 0, 0, 0]);
    assert!(e.contains("both X and O have three in a row"), "{e}");
    // X has a line, yet O moved after it.
    let e = err(&[1, 1, 1, 2, 2, 0, 2, 0, 0, 0]);
    assert!(
        e.contains("X has three in a row but O moved after it"),
        "{e}"
    );
}

#[test]
fn notation_names_cells_like_chess_and_errors_say_why() {
    let g = TicTacToe;
    let start = g.start();
    let names: Vec<String> = (0..9).map(|i| Cell(i).to_string()).collect();
    assert_eq!(
        names,
        ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"],
        "row 1 is the bottom row"
    );
    assert_eq!(g.parse_action(&start, " B2 "), Ok(Cell(4)));

    for text in ["", "b", "d1", "a4", "a0", "b22", "2b", "xx"] {
        let e = g.parse_action(&start, text).unwrap_err();
        assert!(
            e.contains(&format!("`{text}`")) && e.contains("not a cell"),
            "{e}"
        );
    }
    let b = after(&start, Cell(4));
    let e = g.parse_action(&b, "b2").unwrap_err();
    assert!(e.contains("`b2`") && e.contains("taken by X"), "{e}");
    let over = board("XXX OO. ...");
    let e = g.parse_action(&over, "c1").unwrap_err();
    assert!(e.contains("`c1`") && e.contains("game is over"), "{e}");
}

#[test]
fn diagrams_are_checked() {
    assert_eq!(board("... ... ..."), TicTacToe.start());
    assert_eq!(board("... .X. ...").to_act(), Color::Black);
    assert!(
        Board::from_diagram("XX. ... ...")
            .unwrap_err()
            .contains("2 X and 0 O")
    );
    assert!(
        Board::from_diagram("... ...")
            .unwrap_err()
            .contains("6 cells")
    );
    assert!(
        Board::from_diagram("... ... ..Z")
            .unwrap_err()
            .contains("`Z`")
    );
    assert_eq!(board("XO. ... ...").to_string(), "XO.\n...\n...\nX to act");
}

#[test]
fn search_finds_the_winning_move() {
    // X to act: c3 wins, and anything else lets O win at c2.
    let b = board("XX. OO. ...");
    let cfg = SearchConfig {
        simulations: 200,
        ..SearchConfig::for_play()
    };
    for seed in 0..5 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut ev = yinsh_zero::arena::RolloutEvaluator::new(seed);
        let r = search(&b, &cfg, &mut ev, &mut rng).unwrap();
        assert_eq!(r.action, Cell(2), "seed {seed}: {:?}", r.visits);
        assert_eq!(r.actions, b.legal_actions().to_vec());
        assert!(r.root_value().unwrap() > 0.5, "{:?}", r.root_wdl);
    }
}

/// Judges a position a sure draw once X holds the centre and a coin flip
/// between winning and losing otherwise, with uniform priors: W - L is 0
/// everywhere, so only a draw score tells X's first moves apart.
struct CentreDraws;

impl Evaluator<Board> for CentreDraws {
    fn evaluate(&mut self, positions: &[Board]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|b| {
                let n = b.legal_actions().len();
                let wdl = if b.at(Cell(4)) == Some(Color::White) {
                    [0.0, 1.0, 0.0]
                } else {
                    [0.5, 0.0, 0.5]
                };
                Evaluation {
                    priors: vec![1.0 / n as f32; n],
                    wdl,
                    margin: 0.0,
                }
            })
            .collect()
    }
}

#[test]
fn a_draw_score_steers_the_search_toward_draws_or_away_from_them() {
    for gumbel in [false, true] {
        let visits = |draw_score: f32| {
            let cfg = SearchConfig {
                simulations: 300,
                gumbel,
                gumbel_m: 9,
                draw_score,
                ..SearchConfig::for_play()
            };
            let mut rng = SmallRng::seed_from_u64(1);
            let r = search(&TicTacToe.start(), &cfg, &mut CentreDraws, &mut rng).unwrap();
            let centre = r.actions.iter().position(|&a| a == Cell(4)).unwrap();
            (r.action, r.visits[centre], r.visits.iter().sum::<u32>())
        };
        let (action, centre, all) = visits(0.5);
        assert_eq!(action, Cell(4), "gumbel {gumbel}: {centre} of {all}");
        let (action, centre, all) = visits(-0.5);
        assert_ne!(action, Cell(4), "gumbel {gumbel}");
        assert!(centre * 9 < all, "gumbel {gumbel}: {centre} of {all}");
    }
    for bad in [1.5, -2.0, f32::NAN] {
        let cfg = SearchConfig {
            draw_score: bad,
            ..SearchConfig::for_play()
        };
        assert!(
            matches!(
                cfg.validate(),
                Err(SearchError::InvalidConfig {
                    field: "draw_score",
                    ..
                })
            ),
            "{bad}"
        );
    }
}

#[test]
fn generic_players_play_it() {
    let names: Vec<&str> = players_of::<TicTacToe>().iter().map(|p| p.name).collect();
    assert_eq!(names[0], "random");
    assert!(names.contains(&"mcts-rollout"), "{names:?}");
    let mut x = parse_game_player(&TicTacToe, "mcts-rollout:playouts=300", 1).unwrap();
    let mut o = parse_game_player(&TicTacToe, "random", 2).unwrap();
    let rec = play_game(x.as_mut(), o.as_mut(), TicTacToe.start()).unwrap();
    let end = rec.final_position();
    assert_eq!(end.result(), Some(rec.result));
    assert_ne!(
        rec.result,
        GameResult::Win(Color::Black),
        "{:?}",
        rec.actions
    );
    let e = parse_game_player(&TicTacToe, "greedy", 0)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("unknown player `greedy`"), "{e}");
}

#[test]
fn the_engine_protocol_plays_it() {
    use yinsh_zero::engine::Engine;
    let mut e = Engine::for_game(TicTacToe, "mcts-rollout:playouts=400", 3).unwrap();
    assert_eq!(e.handle("game").lines, ["game tictactoe standard"]);
    assert!(e.handle("game yinsh").lines[0].starts_with("error "));
    // X has b2 and a3; O must take c1 or lose.
    assert!(
        e.handle("position startpos moves b2 a1 a3")
            .lines
            .is_empty()
    );
    let reply = e.handle("go");
    assert_eq!(
        reply.lines.last().unwrap(),
        "bestmove c1",
        "{:?}",
        reply.lines
    );
    assert!(e.handle("play c1").lines.is_empty());
    assert!(e.handle("play c1").lines[0].starts_with("error "));
    let d = e.handle("d").lines;
    assert_eq!(d.last().unwrap(), "moves b2 a1 a3 c1", "{d:?}");
    assert!(e.handle("newgame blitz").lines[0].starts_with("error "));
}

#[test]
fn the_generic_alphabeta_solves_it() {
    // With the default evaluation (none) it searches to the end: perfect.
    for i in 0..12u64 {
        let mut ab = parse_game_player(&TicTacToe, "alphabeta:depth=9", i).unwrap();
        let mut perfect = PerfectPlayer::new(100 + i);
        let rec = if i % 2 == 0 {
            play_game(ab.as_mut(), &mut perfect, TicTacToe.start())
        } else {
            play_game(&mut perfect, ab.as_mut(), TicTacToe.start())
        }
        .unwrap();
        assert_eq!(rec.result, GameResult::Draw, "game {i}: {:?}", rec.actions);
    }
    // It takes a win in one rather than a slower one, and says so.
    let mut ab = parse_game_player(&TicTacToe, "alphabeta:depth=9", 0).unwrap();
    let pos = board("XX. OO. ...");
    assert_eq!(ab.choose(&pos).to_string(), "c3");
    let info = ab.info().unwrap();
    assert!(info.value.unwrap() > 0.9, "{info:?}");
    // O, to act, wins at once rather than blocking X's row.
    let mut ab = parse_game_player(&TicTacToe, "alphabeta:depth=2", 0).unwrap();
    let pos = board("XX. OO. X..");
    assert_eq!(ab.choose(&pos).to_string(), "c2");
    let names: Vec<&str> = players_of::<TicTacToe>().iter().map(|p| p.name).collect();
    assert!(names.contains(&"alphabeta"), "{names:?}");
}
