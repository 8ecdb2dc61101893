//! One test per rule of ../shared/docs/yinsh-rules.md that random play
//! rarely exercises, on hand-built positions.

use yinsh_zero::games::yinsh::{
    Action, Axis, Color, Decision, EndReason, Point, Position, SetupError, Variant,
};

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

fn mv(from: &str, to: &str) -> Action {
    Action::Move {
        from: pt(from),
        to: pt(to),
    }
}

fn row(start: &str, axis: Axis) -> Action {
    Action::RemoveRow {
        start: pt(start),
        axis,
    }
}

fn setup(pieces: &str, removed: [u8; 2], to_act: Color) -> Position {
    Position::setup(pieces, removed, to_act, Variant::STANDARD).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn moves_of(pos: &Position, from: &str) -> Vec<String> {
    sorted(
        pos.legal_actions()
            .iter()
            .filter(|a| matches!(a, Action::Move { from: f, .. } if *f == pt(from)))
            .map(|a| a.to_string())
            .collect(),
    )
}

#[test]
fn placement_phase_alternates_and_then_white_moves() {
    let mut pos = Position::new();
    let spots = ["f6", "e5", "g7", "d4", "h8", "c3", "i9", "b2", "j10", "a2"];
    for (i, s) in spots.iter().enumerate() {
        assert_eq!(pos.decision(), Decision::PlaceRing);
        let want = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(pos.to_act(), want);
        assert_eq!(pos.legal_actions().len(), 85 - i);
        pos.play(Action::Place(pt(s))).unwrap();
    }
    assert_eq!(pos.decision(), Decision::MoveRing);
    assert_eq!(pos.to_act(), Color::White);
    assert_eq!(pos.turn(), 10);
    assert_eq!(pos.pool(), 51);
}

#[test]
fn rings_slide_jump_one_group_and_never_pass_rings() {
    // e5: east slides to f5, jumps g5 h5 and must stop on i5; north stops
    // before the black ring on e8; north-east meets markers f6 g7 and then
    // the ring h8, so nothing; west, south and south-west run to the edge.
    let pos = setup(
        "We5 Wk7 Wk8 Wk9 Wk10 Be8 Bh8 Bb1 Bc1 Bd1 wg5 bh5 wf6 bg7",
        [0, 0],
        Color::White,
    );
    let want = [
        "e5-f5", "e5-i5", "e5-e6", "e5-e7", "e5-d5", "e5-c5", "e5-b5", "e5-a5", "e5-e4", "e5-e3",
        "e5-e2", "e5-e1", "e5-d4", "e5-c3", "e5-b2",
    ];
    assert_eq!(
        moves_of(&pos, "e5"),
        sorted(want.iter().map(|s| s.to_string()).collect())
    );
    for bad in [
        mv("e5", "g5"),
        mv("e5", "j5"),
        mv("e5", "e9"),
        mv("e5", "i9"),
    ] {
        let err = pos.clone().play(bad).unwrap_err();
        assert!(err.to_string().contains("cannot reach"), "{err}");
    }
}

#[test]
fn jumped_markers_flip_and_the_start_marker_does_not() {
    let mut pos = setup(
        "We5 Wk7 Wk8 Wk9 Wk10 Be8 Bh8 Bb1 Bc1 Bd1 wg5 bh5",
        [0, 0],
        Color::White,
    );
    pos.play(mv("e5", "i5")).unwrap();
    assert_eq!(pos.piece_at(pt("e5")), Some((Color::White, false)));
    assert_eq!(pos.piece_at(pt("f5")), None);
    assert_eq!(pos.piece_at(pt("g5")), Some((Color::Black, false)));
    assert_eq!(pos.piece_at(pt("h5")), Some((Color::White, false)));
    assert_eq!(pos.piece_at(pt("i5")), Some((Color::White, true)));
    assert_eq!(pos.pool(), 48);
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
}

#[test]
fn a_completed_row_is_removed_with_a_ring_of_the_owners_choice() {
    let mut pos = setup(
        "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5",
        [0, 0],
        Color::White,
    );
    pos.play(mv("f6", "g6")).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::White, Decision::RemoveRow)
    );
    assert_eq!(pos.legal_actions().to_vec(), vec![row("f2", Axis::Column)]);
    pos.play(row("f2", Axis::Column)).unwrap();
    assert_eq!(pos.decision(), Decision::RemoveRing);
    assert_eq!(pos.legal_actions().len(), 5);
    assert!(
        pos.play(Action::RemoveRing(pt("a2"))).is_err(),
        "not its ring"
    );
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    assert_eq!(pos.rings_removed(Color::White), 1);
    assert_eq!(pos.markers(Color::White).count(), 0);
    assert_eq!(pos.pool(), 51);
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
}

#[test]
fn a_line_of_six_offers_both_fives() {
    let mut pos = setup(
        "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5 wf7",
        [0, 0],
        Color::White,
    );
    pos.play(mv("f6", "g6")).unwrap();
    let mut rows = pos.legal_actions().to_vec();
    rows.sort();
    assert_eq!(rows, vec![row("f2", Axis::Column), row("f3", Axis::Column)]);
    pos.play(row("f3", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k10"))).unwrap();
    assert_eq!(pos.piece_at(pt("f2")), Some((Color::White, false)));
    assert_eq!(pos.decision(), Decision::MoveRing);
}

#[test]
fn intersecting_rows_are_rechecked_after_each_removal() {
    // Column f2-f6 and row b6-f6 share f6: removing either breaks the other.
    let mut pos = setup(
        "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5 wb6 wc6 wd6 we6",
        [0, 0],
        Color::White,
    );
    pos.play(mv("f6", "g6")).unwrap();
    let mut rows = pos.legal_actions().to_vec();
    rows.sort();
    assert_eq!(rows, vec![row("f2", Axis::Column), row("b6", Axis::Row)]);
    pos.play(row("b6", Axis::Row)).unwrap();
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
    assert_eq!(pos.rings_removed(Color::White), 1);
}

#[test]
fn crossing_rows_that_survive_each_other_are_both_removed() {
    // One move makes two disjoint white rows: f2-f6 by the marker left on
    // f6, and e2-e6 by flipping the black e6 in the jump f6 -> d6.
    let mut pos = setup(
        "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5 we2 we3 we4 we5 be6",
        [0, 0],
        Color::White,
    );
    pos.play(mv("f6", "d6")).unwrap();
    let mut rows = pos.legal_actions().to_vec();
    rows.sort();
    assert_eq!(rows, vec![row("e2", Axis::Column), row("f2", Axis::Column)]);
    pos.play(row("f2", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::White, Decision::RemoveRow)
    );
    pos.play(row("e2", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k8"))).unwrap();
    assert_eq!(pos.rings_removed(Color::White), 2);
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
}

/// White's ring on f6 jumps west over e6 (white) to d6: f2-f6 becomes a
/// white row and the flipped e6 completes black's e2-e6.
const BOTH_ROWS: &str =
    "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5 be2 be3 be4 be5 we6";

#[test]
fn the_mover_resolves_first_then_the_opponent_before_moving() {
    let mut pos = setup(BOTH_ROWS, [0, 0], Color::White);
    pos.play(mv("f6", "d6")).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::White, Decision::RemoveRow)
    );
    pos.play(row("f2", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::RemoveRow)
    );
    assert_eq!(pos.legal_actions().to_vec(), vec![row("e2", Axis::Column)]);
    pos.play(row("e2", Axis::Column)).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::RemoveRing)
    );
    pos.play(Action::RemoveRing(pt("a2"))).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
    assert_eq!(pos.rings_removed(Color::White), 1);
    assert_eq!(pos.rings_removed(Color::Black), 1);
}

#[test]
fn a_move_that_completes_both_third_rows_is_won_by_the_mover() {
    let mut pos = Position::setup(
        &BOTH_ROWS.replace("Wk9 Wk10 ", "").replace("Ba4 Bb1 ", ""),
        [2, 2],
        Color::White,
        Variant::STANDARD,
    )
    .unwrap();
    pos.play(mv("f6", "d6")).unwrap();
    pos.play(row("f2", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    let o = pos.outcome().expect("game over");
    assert_eq!(o.winner, Some(Color::White));
    assert_eq!(o.reason, EndReason::ThreeRings);
    assert_eq!(o.rings_removed, [3, 2]);
    assert!(pos.legal_actions().is_empty());
}

#[test]
fn blitz_is_won_by_the_first_ring() {
    let mut pos = Position::setup(BOTH_ROWS, [0, 0], Color::White, Variant::BLITZ).unwrap();
    pos.play(mv("f6", "d6")).unwrap();
    pos.play(row("f2", Axis::Column)).unwrap();
    pos.play(Action::RemoveRing(pt("k7"))).unwrap();
    assert_eq!(pos.outcome().unwrap().winner, Some(Color::White));
}

#[test]
fn a_player_whose_rings_cannot_move_passes() {
    // White's rings on a2-a5 are walled in by black rings on b2-b6; the one
    // on b1 meets marker groups that run to the edge along row 1 and the
    // diagonal c2-k10.
    let markers = "wc1 bd1 we1 wc2 bd3 we4 bf5 wg6 bh7 wi8 bj9 wk10";
    let mut pos = setup(
        &format!("Wa2 Wa3 Wa4 Wa5 Wb1 Bb2 Bb3 Bb4 Bb5 Bb6 {markers}"),
        [0, 0],
        Color::White,
    );
    assert_eq!(pos.legal_actions().to_vec(), vec![Action::Pass]);
    assert!(pos.clone().play(mv("b1", "c1")).is_err());
    pos.play(Action::Pass).unwrap();
    assert_eq!(
        (pos.to_act(), pos.decision()),
        (Color::Black, Decision::MoveRing)
    );
    assert_eq!(pos.passes(), 1);
    assert!(pos.clone().play(Action::Pass).is_err(), "black can move");
    pos.play(mv("b6", "b7")).unwrap();
    assert_eq!(pos.passes(), 0);
    assert_eq!(pos.to_act(), Color::White);
}

/// Markers on every free point except `empty`, coloured by (col + row) mod 3
/// so that no axis ever holds more than two of a colour in a row.
fn crowded(rings: &str, empty: &[&str]) -> String {
    let rings: Vec<&str> = rings.split_whitespace().collect();
    let mut pieces: Vec<String> = rings.iter().map(|s| s.to_string()).collect();
    for p in Point::all() {
        let name = p.to_string();
        if rings.iter().any(|r| r[1..] == name) || empty.contains(&name.as_str()) {
            continue;
        }
        let c = if (p.col() + p.row()) % 3 == 0 {
            'b'
        } else {
            'w'
        };
        pieces.push(format!("{c}{name}"));
    }
    pieces.join(" ")
}

#[test]
fn the_game_ends_when_the_last_marker_leaves_the_pool() {
    // 9 rings and 50 markers leave 26 empty points; White's ring on e5
    // (class 1: its line neighbours are one black and one white marker, so
    // no row forms) steps to the empty e6 and places the 51st marker.
    let rings = "We5 Wk7 Wk8 Wk9 Ba2 Ba3 Ba4 Bb1 Bc1";
    let mut empty = vec!["e6"];
    let extra = [
        "a5", "b7", "c8", "d9", "e10", "f10", "g11", "h11", "i11", "j11", "k10", "j5", "i4", "h3",
        "g2", "f2", "e1", "d1", "b2", "b3", "c2", "c3", "d2", "d3", "e2",
    ];
    empty.extend(extra);
    let pos = Position::setup(
        &crowded(rings, &empty),
        [1, 0],
        Color::White,
        Variant::STANDARD,
    );
    let mut pos = pos.unwrap();
    assert_eq!(pos.pool(), 1);
    pos.play(mv("e5", "e6")).unwrap();
    let o = pos.outcome().expect("pool empty ends the game");
    assert_eq!(o.reason, EndReason::PoolEmpty);
    assert_eq!(o.winner, Some(Color::White), "more rings removed wins");
    assert_eq!(pos.pool(), 0);
}

#[test]
fn setup_rejects_impossible_positions() {
    let ok = "We5 Wk7 Wk8 Wk9 Wk10 Be8 Bh8 Bb1 Bc1 Bd1";
    let e = |s: &str, r: [u8; 2]| Position::setup(s, r, Color::White, Variant::STANDARD);
    assert!(e(ok, [0, 0]).is_ok());
    assert!(matches!(
        e(&format!("{ok} we5"), [0, 0]),
        Err(SetupError::Overlap(_))
    ));
    assert!(matches!(
        e(&format!("{ok} Xe6"), [0, 0]),
        Err(SetupError::Syntax(_))
    ));
    assert!(matches!(
        e(&format!("{ok} we0"), [0, 0]),
        Err(SetupError::Syntax(_))
    ));
    assert!(matches!(e(ok, [1, 0]), Err(SetupError::RingCount { .. })));
    assert!(matches!(
        e(&format!("{ok} wf2 wf3 wf4 wf5 wf6"), [0, 0]),
        Err(SetupError::PendingRow(Color::White))
    ));
}
