//! The rules: random games move for move against the independent array
//! implementation in `tests/common`, a published perfect game, passes,
//! the end and its result, refusals and notation.

use crate::common;

use common::{BLACK, Naive, WHITE, diagram};
use othello::{Move, Othello, Position};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::game::{Color, Game, GameResult, State};

fn disc(pos: &Position, i: usize) -> i8 {
    let on = |c: Color| pos.discs(c) >> i & 1 == 1;
    if on(Color::Black) {
        BLACK
    } else if on(Color::White) {
        WHITE
    } else {
        0
    }
}

fn squares(pos: &Position) -> Vec<i8> {
    (0..36).map(|i| disc(pos, i)).collect()
}

fn by_count(black: usize, white: usize) -> GameResult {
    match black.cmp(&white) {
        std::cmp::Ordering::Greater => GameResult::Win(Color::Black),
        std::cmp::Ordering::Less => GameResult::Win(Color::White),
        std::cmp::Ordering::Equal => GameResult::Draw,
    }
}

/// Random games, each decision checked against `Naive`: the same discs,
/// the same moves, a pass exactly when the side cannot place a disc and
/// its opponent can, the end exactly when neither can, its result by the
/// disc count.
#[test]
fn random_games_follow_the_independent_rules() {
    let mut rng = SmallRng::seed_from_u64(6);
    let (mut passes, mut results) = (0, [0; 3]);
    for _ in 0..500 {
        let mut pos = Othello.start();
        let mut naive = Naive::start(6);
        loop {
            assert_eq!(squares(&pos), naive.cells, "\n{pos}");
            let placed = (pos.discs(Color::Black) | pos.discs(Color::White)).count_ones();
            assert!(
                pos.ply() >= placed - 4 && pos.ply() <= 2 * (placed - 4),
                "\n{pos}"
            );
            if naive.over() {
                let (b, w) = (naive.count(BLACK), naive.count(WHITE));
                assert_eq!(pos.result(), Some(by_count(b, w)), "\n{pos}");
                assert!(pos.legal_actions().is_empty());
                let margin = (b as f32 - w as f32) / 36.0;
                assert_eq!(pos.margin(Color::Black), Some(margin));
                assert_eq!(pos.margin(Color::White), Some(-margin));
                results[(b.cmp(&w) as i8 + 1) as usize] += 1;
                break;
            }
            assert_eq!(pos.result(), None, "\n{pos}");
            let side = if naive.to_move == BLACK {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(pos.to_act(), side);
            let legal = pos.legal_actions();
            assert_eq!(pos.legal_action_count(), legal.len());
            let moves = naive.moves();
            if moves.is_empty() {
                assert_eq!(legal.as_slice(), [Move::PASS], "\n{pos}");
                passes += 1;
            } else {
                let mine: Vec<usize> = legal.iter().map(|m| m.index()).collect();
                assert_eq!(mine, moves, "\n{pos}");
            }
            let m = legal[rng.random_range(0..legal.len())];
            pos.play(m).unwrap();
            naive.play((m != Move::PASS).then_some(m.index()));
            if m == Move::PASS {
                // The opponent of a side that passes can move.
                assert!(!pos.is_over() && pos.legal_actions()[0] != Move::PASS);
            }
        }
        assert!(pos.ply() <= 64);
    }
    // The sample saw passes, and every kind of ending.
    eprintln!("passes {passes}, white wins / draws / black wins {results:?}");
    assert!(
        passes > 20 && results.iter().all(|&n| n > 0),
        "{passes} {results:?}"
    );
}

/// Joel Feinstein's perfect game from the start (1993), from the
/// numbered diagram of "Perfect play in 6x6 Othello from two alternative
/// starting positions",
/// https://www.maths.nottingham.ac.uk/plp/pmzjff/Othello/6x6sol.html,
/// its 8x8 squares b2 to g7 read as a1 to f6. The diagram numbers discs,
/// not passes: where a side has to pass, the pass is played here.
const FEINSTEIN: &str = "c2 b4 c5 d2 e4 e3 d1 c1 b1 d5 d6 f4 b3 b2 f3 f2 \
                         e2 b6 a4 c6 a6 a2 b5 a5 e6 e5 a3 a1 f5 f6 e1 f1";

#[test]
fn feinsteins_perfect_game_ends_with_white_winning_20_to_16() {
    let game = Othello;
    let mut pos = game.start();
    let mut played = Vec::new();
    for text in FEINSTEIN.split_whitespace() {
        if pos.legal_actions().as_slice() == [Move::PASS] {
            pos.play(Move::PASS).unwrap();
            played.push(Move::PASS);
        }
        let m = game.parse_action(&pos, text).unwrap();
        pos.play(m).unwrap();
        played.push(m);
    }
    assert_eq!(pos.result(), Some(GameResult::Win(Color::White)), "\n{pos}");
    assert_eq!(pos.discs(Color::Black).count_ones(), 16);
    assert_eq!(pos.discs(Color::White).count_ones(), 20);
    // One pass: Black's, after White's f6, so White plays e1 too.
    let passes: Vec<usize> = (0..played.len())
        .filter(|&i| played[i] == Move::PASS)
        .collect();
    assert_eq!(passes, [30]);
    let text = game.format_game(&game.start(), &played);
    assert!(text.ends_with(" f5 f6 pass e1 f1"), "{text}");
    assert_eq!(game.parse_game(&game.start(), &text), Ok(played));
}

/// Black's only disc, b1, is shut in by White's row to the edge: Black
/// must pass, then White takes a1 and the last black disc.
const SHUT_IN: &str = "
    ......
    ......
    ..OO..
    ..OO..
    ......
    .XOOOO";

#[test]
fn a_side_that_cannot_place_a_disc_passes_and_the_game_ends_when_neither_can() {
    let mut pos = diagram(SHUT_IN, Color::Black).unwrap();
    assert_eq!(pos.to_act(), Color::Black);
    assert_eq!(pos.legal_actions().as_slice(), [Move::PASS]);
    for m in ["a1", "a2", "c2"] {
        let m = Move::parse(m).unwrap();
        assert!(
            pos.illegal_reason(m)
                .unwrap()
                .contains("turns over no disc")
        );
    }
    pos.play(Move::PASS).unwrap();
    assert_eq!(pos.to_act(), Color::White);
    let white: Vec<String> = pos.legal_actions().iter().map(|m| m.to_string()).collect();
    assert_eq!(white, ["a1"]);
    let e = pos.play(Move::PASS).unwrap_err();
    assert_eq!(e.reason, "white has a move, so may not pass");
    pos.play(Move::parse("a1").unwrap()).unwrap();
    assert_eq!(pos.result(), Some(GameResult::Win(Color::White)), "\n{pos}");
    assert_eq!(
        (
            pos.discs(Color::Black),
            pos.discs(Color::White).count_ones()
        ),
        (0, 10)
    );
    assert_eq!(pos.margin(Color::White), Some(10.0 / 36.0));
    assert!(pos.legal_actions().is_empty());
    assert_eq!(pos.legal_action_count(), 0);
    let e = pos.play(Move::PASS).unwrap_err();
    assert_eq!(e.reason, "the game is over");
}

#[test]
fn a_full_board_of_equal_counts_is_a_draw() {
    let half = "XXXXXX XXXXXX XXXXXX OOOOOO OOOOOO OOOOOO";
    let pos = diagram(half, Color::Black).unwrap();
    assert_eq!(pos.result(), Some(GameResult::Draw));
    assert_eq!(pos.margin(Color::Black), Some(0.0));
    let one_more = "XXXXXX XXXXXX XXXXXX XOOOOO OOOOOO OOOOOO";
    let pos = diagram(one_more, Color::Black).unwrap();
    assert_eq!(pos.result(), Some(GameResult::Win(Color::Black)));
}

#[test]
fn illegal_actions_are_refused_and_change_nothing() {
    let mut pos = Othello.start();
    let before = pos;
    for (text, why) in [
        ("pass", "black has a move, so may not pass"),
        ("c3", "c3 is taken"),
        ("a1", "a1 turns over no disc"),
        ("d2", "d2 turns over no disc"),
    ] {
        let e = pos.play(Move::parse(text).unwrap()).unwrap_err();
        assert_eq!((e.action.as_str(), e.reason.as_str()), (text, why));
        assert_eq!(pos, before);
        let e = Othello.parse_action(&pos, text).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn notation_names_the_36_squares_and_the_pass() {
    let mut names = Vec::new();
    for i in 0..=36 {
        let m = Move::from_index(i).unwrap();
        assert_eq!(m.index(), i);
        assert_eq!(Move::parse(&m.to_string()), Ok(m));
        names.push(m.to_string());
    }
    assert_eq!(names[..3], ["a1", "b1", "c1"]);
    assert_eq!(names[35..], ["f6", "pass"]);
    assert_eq!(Move::from_index(37), None);
    assert_eq!(Move::parse(" PASS "), Ok(Move::PASS));
    assert_eq!(Move::parse("D5"), Ok(Move::at(3, 4).unwrap()));
    for bad in ["g1", "a7", "a0", "", "c", "c33", "passe"] {
        let e = Move::parse(bad).unwrap_err();
        assert!(e.contains("expected a square a1 to f6, or pass"), "{e}");
    }
}
