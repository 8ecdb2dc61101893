//! Official notation: the rules doc's examples in positions reached by real
//! play, round trips over random games, and errors that name the token.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use yinsh_zero::games::yinsh::notation::{
    NotationError, format_game, format_turns, parse_action, parse_game, parse_turn,
};
use yinsh_zero::games::yinsh::{Action, Color, Decision, Position};

/// Ten placements used by the removal examples: white rings on g9, g5, i4,
/// i8, e10 and black rings on g6, k10, d1, b7, k7.
const PLACEMENTS: &str = "g9 g6 g5 k10 i4 d1 i8 b7 e10 k7";
/// White lays markers on g9, g8, g7 (ring ends on b2) and g5 (ring ends on
/// a5); black leaves a marker on g6 and shuffles far away.
const MARKERS_ON_G: &str = "g9-g8 g6-e4 g8-g7 d1-d2 g7-b2 d2-d3 g5-a5 k10-j10";
/// White also lays markers on i4..i7 (its ring ends on k9).
const MARKERS_ON_I: &str = "i4-i5 j10-j11 i5-i6 b7-c8 i6-i7 c8-c7 i7-k9 k7-k8";

fn play_script(start: &Position, script: &str) -> Position {
    let mut pos = *start;
    for a in parse_game(start, script).unwrap_or_else(|e| panic!("script: {e}")) {
        pos.play(a).unwrap();
    }
    pos
}

fn p(s: &str) -> yinsh_zero::games::yinsh::Point {
    s.parse().unwrap()
}

/// Parses `token` as a turn in `pos`, checks it survives formatting and
/// returns the position after it.
fn turn_round_trip(pos: &Position, token: &str) -> Position {
    let actions = parse_turn(pos, token).unwrap_or_else(|e| panic!("{token}: {e}"));
    assert_eq!(format_turns(pos, &actions), [token.to_lowercase()]);
    let mut after = *pos;
    for a in actions {
        after.play(a).unwrap();
    }
    after
}

#[test]
fn placement_and_move_examples() {
    let start = Position::new();
    assert_eq!(parse_turn(&start, "e3").unwrap(), [Action::Place(p("e3"))]);
    let pos = play_script(&start, "a2 k7 e10 k8 e9 k9 e8 k10 e7 j11");
    assert_eq!(
        parse_turn(&pos, "a2-h9").unwrap(),
        [Action::Move {
            from: p("a2"),
            to: p("h9")
        }]
    );
    turn_round_trip(&pos, "A2-H9");
}

#[test]
fn a_move_then_its_row_and_ring() {
    let start = Position::new();
    let pos = play_script(&start, &format!("{PLACEMENTS} {MARKERS_ON_G}"));
    assert_eq!(pos.to_act(), Color::White);
    let after = turn_round_trip(&pos, "i8-f5;xg5-g9xa5");
    assert_eq!(after.rings_removed(Color::White), 1);
    assert_eq!(
        (after.to_act(), after.decision()),
        (Color::Black, Decision::MoveRing)
    );
    // End points in either order, any case.
    assert_eq!(
        parse_turn(&pos, "I8-F5;XG9-G5XA5").unwrap(),
        parse_turn(&pos, "i8-f5;xg5-g9xa5").unwrap()
    );
}

#[test]
fn several_removals_chain() {
    // The rules doc's `i8-f5;xg5-g9xa5;xc3-c7xb2` cannot happen as written:
    // a move only makes rows through its start point and the markers it
    // flips (i8, g6), and column c holds neither. The same chain with the
    // second row through i8 instead:
    let start = Position::new();
    let pos = play_script(
        &start,
        &format!("{PLACEMENTS} {MARKERS_ON_G} {MARKERS_ON_I}"),
    );
    let after = turn_round_trip(&pos, "i8-f5;xg5-g9xa5;xi4-i8xb2");
    assert_eq!(after.rings_removed(Color::White), 2);
    assert_eq!(after.to_act(), Color::Black);
    // The rows may be taken in either order, and each ring named after its row.
    turn_round_trip(&pos, "i8-f5;xi4-i8xa5;xg5-g9xb2");
    // Stopping before the second row is a legal (partial) turn; splitting it
    // into tokens is not.
    assert!(parse_turn(&pos, "i8-f5;xg5-g9xa5").is_ok());
    let err = parse_game(&pos, "i8-f5;xg5-g9xa5 xi4-i8xb2").unwrap_err();
    assert!(
        matches!(err, NotationError::InToken { number: 2, .. }),
        "{err}"
    );
}

/// Black's last move, i8-f5, flips g6 and completes white's g5..g9; white
/// has rings on a5 and d3.
const BLACK_MAKES_WHITES_ROW: &str =
    "g9 g6 g5 i8 i4 d1 d3 b7 e10 k7 g9-g8 g6-e4 g8-g7 k7-k8 g7-b2 b7-c8 g5-a5 i8-f5";

#[test]
fn the_opponents_row_is_removed_before_ones_move() {
    let start = Position::new();
    let pos = play_script(&start, BLACK_MAKES_WHITES_ROW);
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::White, Decision::RemoveRow)
    );
    let after = turn_round_trip(&pos, "xg5-g9xa5;d3-b3");
    assert_eq!(after.to_act(), Color::Black);
    // The same from the start of the game, black's move in its own token.
    let game = format!("{BLACK_MAKES_WHITES_ROW} xg5-g9xa5;d3-b3");
    let actions = parse_game(&start, &game).unwrap();
    assert_eq!(format_game(&start, &actions), game);
    // White's removal cannot be written as a suffix of black's move.
    let bad = game.replace("i8-f5 xg5", "i8-f5;xg5");
    let err = parse_game(&start, &bad).unwrap_err().to_string();
    assert!(err.contains("token 18 `i8-f5;xg5-g9xa5;d3-b3`"), "{err}");
    assert!(err.contains("white's decision"), "{err}");
}

/// Plays uniformly random legal actions to the end.
fn random_game(start: Position, seed: u64) -> Vec<Action> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = start;
    let mut actions = Vec::new();
    while !pos.is_over() {
        let legal = pos.legal_actions();
        let a = *legal.choose(&mut rng).unwrap();
        // Every single decision's own notation reads back in its position.
        assert_eq!(
            parse_action(&pos, &a.to_string()).unwrap(),
            a,
            "seed {seed}"
        );
        pos.play(a).unwrap();
        actions.push(a);
    }
    actions
}

#[derive(Default)]
struct Seen {
    removals_only: usize,
    six_long_choices: usize,
}

fn round_trip_games(start: Position, seeds: std::ops::Range<u64>, seen: &mut Seen) {
    for seed in seeds {
        let actions = random_game(start, seed);
        let text = format_game(&start, &actions);
        assert_eq!(
            parse_game(&start, &text).unwrap(),
            actions,
            "seed {seed}: {text}"
        );
        let turns = format_turns(&start, &actions);
        seen.removals_only += turns
            .iter()
            .filter(|t| t.split(';').all(|s| s.starts_with('x')))
            .count();
        // Any stretch of the game, from any position, reads back too; this
        // walks positions mid-turn and records that stop mid-turn.
        let mut pos = start;
        for (k, &a) in actions.iter().enumerate() {
            let rows = pos
                .legal_actions()
                .iter()
                .filter(|a| matches!(a, Action::RemoveRow { .. }))
                .count();
            if rows > 1 {
                seen.six_long_choices += 1;
            }
            if k % 7 == 0 {
                let end = (k + 1 + seed as usize % 40).min(actions.len());
                let part = format_game(&pos, &actions[k..end]);
                assert_eq!(
                    parse_game(&pos, &part).unwrap(),
                    &actions[k..end],
                    "seed {seed} at {k}: {part}"
                );
            }
            pos.play(a).unwrap();
        }
    }
}

#[test]
fn random_games_round_trip() {
    let mut seen = Seen::default();
    round_trip_games(Position::new(), 0..60, &mut seen);
    round_trip_games(Position::blitz(), 1000..1060, &mut seen);
    // The corner cases occur: a token of removals only (the opponent's row
    // wins the game before its move) and positions with a choice of rows.
    // (Passes are too rare in random play; a unit test in `notation.rs`
    // sets one up.)
    assert!(seen.removals_only > 0);
    assert!(seen.six_long_choices > 0);
}

#[test]
fn errors_name_the_token() {
    let start = Position::new();
    let cases = [
        ("e3 f6 zz9", 3, "zz9", "malformed"),
        ("e3 E3", 2, "E3", "occupied"),
        ("e3 f6 a1", 3, "a1", "malformed"),
        ("e3;f6", 1, "e3;f6", "black"),
        ("e3 f6;", 2, "f6;", "malformed"),
        ("e3 f6 g7-g8", 3, "g7-g8", "must place a ring"),
        ("e3 xg5-g9xa5", 2, "xg5-g9xa5", "must place a ring"),
    ];
    for (text, number, token, why) in cases {
        let err = parse_game(&start, text).unwrap_err();
        let NotationError::InToken {
            number: n,
            token: t,
            ..
        } = &err
        else {
            panic!("{text}: {err:?}");
        };
        assert_eq!((*n, t.as_str()), (number, token), "{text}");
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("token {number} `{token}`")),
            "{msg}"
        );
        assert!(msg.contains(why), "{text}: {msg}");
    }
    assert!(parse_turn(&start, "").is_err());
    assert!(parse_turn(&start, "e3 f6").is_err());
    assert!(parse_action(&start, "pass").is_err());
    assert_eq!(parse_game(&start, "  ").unwrap(), []);
}

#[test]
fn over_games_accept_nothing() {
    let mut rng = SmallRng::seed_from_u64(7);
    let start = Position::blitz();
    let actions = random_game(start, rng.random());
    let mut end = start;
    for &a in &actions {
        end.play(a).unwrap();
    }
    let err = parse_game(&end, "e3").unwrap_err().to_string();
    assert!(err.contains("game is over"), "{err}");
}
