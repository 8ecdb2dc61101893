//! Emergo's rules, notation, records and symmetries, checked against an
//! independent implementation of the rules (`tests/it/emergo_reference/`) and
//! on hand-built positions (`docs/emergo-rules.md`).
//!
//! Perft counts single decisions (`yinsh_zero::game::perft`: an entry, a
//! step or one jump of a chain each), on both sides; the reference counts
//! them by sharing the first jumps of its whole chains. Whole turns are
//! compared too, as sets of vchess-style strings.
//!
//! The checks every game runs (symmetries, encoding, notation and record
//! round trips, random games ending, pinned perft) are in
//! `tests/it/conformance.rs`; this file keeps what is particular to Emergo.

use crate::common::conformance;
use crate::emergo_reference;

use std::collections::{BTreeMap, BTreeSet};

use emergo_reference::{Ref, Turn};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::arena::{parse_game_player, play_game, players_of};
use yinsh_zero::game::perft::perft;
use yinsh_zero::game::{Color, Game, GameResult, State};
use yinsh_zero::games::emergo::{
    Action, Blocked, Dir, Emergo, NO_PROGRESS_LIMIT, Parts, Position, Square, TURN_LIMIT, Unit,
    Variant,
};

// ---------------------------------------------------------------------------
// Helpers.

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// A position from `units` (`W2/1@c3 B1@d4 ...`): the men not on the board
/// are in hand.
fn setup(v: Variant, units: &str, to_act: Color) -> Position {
    setup_with(v, units, to_act, |_| {})
}

fn setup_with(v: Variant, units: &str, to_act: Color, edit: impl FnOnce(&mut Parts)) -> Position {
    let units: Vec<(Square, Unit)> = units
        .split_whitespace()
        .map(|t| {
            let (u, s) = t.split_once('@').unwrap();
            (sq(s), u.parse::<Unit>().unwrap())
        })
        .collect();
    let on_board = |c: Color| units.iter().map(|(_, u)| u.men_of(c)).sum::<u8>();
    let mut parts = Parts {
        reserve: [
            v.men() - on_board(Color::White),
            v.men() - on_board(Color::Black),
        ],
        units,
        to_act,
        chain: None,
        quiet: 0,
        turns: 30,
        ply: 40,
    };
    edit(&mut parts);
    Position::from_parts(v, parts).unwrap_or_else(|e| panic!("{e}"))
}

fn play_line(g: &Emergo, start: &Position, line: &str) -> Position {
    let mut pos = start.clone();
    for a in g
        .parse_game(start, line)
        .unwrap_or_else(|e| panic!("{e}\n{start}"))
    {
        pos.play(a).unwrap();
    }
    pos
}

fn names(actions: &[Action]) -> BTreeSet<String> {
    actions.iter().map(|a| a.to_string()).collect()
}

/// Every whole turn of `pos` (chains expanded, jumps joined by `x`) with
/// the position it leads to.
fn whole_turns(pos: &Position) -> BTreeMap<String, Position> {
    fn expand(pos: &Position, prefix: &str, out: &mut BTreeMap<String, Position>) {
        for &a in pos.legal_actions().iter() {
            let mut next = pos.clone();
            next.play_unchecked(a);
            let text = match (prefix.is_empty(), a) {
                (false, Action::Jump(_, to)) => format!("{prefix}x{to}"),
                _ => a.to_string(),
            };
            if next.chain().is_some() {
                expand(&next, &text, out);
            } else {
                assert!(out.insert(text, next).is_none());
            }
        }
    }
    let mut out = BTreeMap::new();
    expand(pos, "", &mut out);
    out
}

fn perft_turns(pos: &Position, depth: u32) -> u64 {
    if depth == 0 || pos.is_over() {
        return 1;
    }
    whole_turns(pos)
        .values()
        .map(|p| perft_turns(p, depth - 1))
        .sum()
}

/// The reference's view of a position at the start of a turn.
fn to_ref(p: &Position) -> Ref {
    assert!(p.chain().is_none(), "the reference knows whole turns only");
    let v = p.variant();
    let n = v.geometry().side;
    let mut r = Ref::new(i32::from(n), v.men(), v.blocked() == Blocked::Loss);
    for row in 0..n {
        for col in 0..n {
            r.board[usize::from(row)][usize::from(col)] = p.unit(Square { col, row }).map(|u| {
                (
                    if u.owner == Color::White { 'W' } else { 'B' },
                    u.controllers,
                    u.prisoners,
                )
            });
        }
    }
    r.hand = [p.reserve(Color::White), p.reserve(Color::Black)];
    r.turn = if p.to_act() == Color::White { 'W' } else { 'B' };
    r.quiet = p.quiet_turns();
    r.turns = p.turns();
    r.over = p.result().map(|res| {
        res.winner()
            .map(|c| if c == Color::White { 'W' } else { 'B' })
    });
    r
}

/// A random game's positions at the start of each turn, seeded.
fn random_game(v: Variant, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::start(v);
    let mut out = vec![pos.clone()];
    while !pos.is_over() {
        let legal = pos.legal_actions();
        pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        if pos.chain().is_none() {
            out.push(pos.clone());
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Perft and the independent rules.

#[test]
fn perft_from_the_start_matches_the_reference() {
    let g = Emergo::default();
    let start = g.start();
    let counts: Vec<u64> = (0..=4).map(|d| perft(&start, d)).collect();
    let r = to_ref(&start);
    let reference: Vec<u64> = (0..=4).map(|d| r.perft_decisions(d)).collect();
    assert_eq!(counts, reference);
    assert_eq!(counts, [1, 40, 1_504, 55_172, 1_828_116]);
    // No capture is possible this early, so decisions are turns.
    assert_eq!(perft_turns(&start, 3), r.perft_turns(3));
    // The small board.
    let small = Emergo::new(Variant::Small).start();
    let rs = to_ref(&small);
    for d in 0..=4 {
        assert_eq!(perft(&small, d), rs.perft_decisions(d), "small depth {d}");
    }
}

/// Positions from the middle of games, in whole-turn notation (taken from
/// seeded random games), with their decision perft to depth 5.
const MID_GAMES: &[(&str, &str, [u64; 5])] = &[
    // Black's last entry can be jumped only by a blocked jumper, and it
    // threatens c3: White may enter anywhere, then Black must capture.
    (
        "standard",
        "@c3 @e5 @a1 @g7 @b8 @d4",
        [35, 71, 1_023, 21_971, 498_983],
    ),
    // Turn 20: men in hand on both sides and a capture on.
    (
        "standard",
        "@g3 @a5 @d4 @a1 @i5 @c1 @a9 @c9 @e3 @g1 @f4 @i1 @f2 @d2 @a3 @f6 @i7 @b2 @e5 @b6",
        [1, 14, 212, 2_691, 27_628],
    ),
    // Turn 24: Black's hand is empty, White's two men are the shadow piece.
    (
        "standard",
        "@d8 @g7 @g1 @i7 @f2 @b6 @i9 @e5 @e1 @b2 @e9 @f4 @c1 @h4 c1xa3 @c3 @a7 @c5 @g9 @d6 \
         @d2 @b8 d2xb4 @i3",
        [1, 21, 194, 3_451, 25_102],
    ),
    // Turn 25: White's hand is empty; Black has three men in hand.
    (
        "standard",
        "@i7 @e5 @a7 @a3 @g5 @d8 @e3 @g7 @i3 @c9 @h4 @e7 @b6 @e9 @i9 @f4 @c5 f4xh6 i7xg5 \
         g7xi5xg3 @h6 @a5 @f8 e9xg7xi5 @f2",
        [2, 17, 52, 654, 3_224],
    ),
    // Turn 41: both hands empty, units step.
    (
        "standard",
        "@e1 @a7 @a9 @f8 @g5 @i1 @f2 @c7 @a5 @a1 @e5 @a3 @d4 @d6 @g1 d6xf4xh6 @h8 @d8 @i5 \
         @b4 i5xg7xe9 @b2 a5xc3 @f6 @i9 @d6 @g3 d6-c5 d4xb6 a7xc5 h8-g9 b2xd4 g9-f8 i1-h2 \
         g1xi3 c3-b2 g3-f4 d8-c9 h6-i7 b6-a5 e1-d2",
        [21, 249, 3_202, 32_667, 355_919],
    ),
    (
        "small",
        "@a1 @g7 @c1 @e7 @e1 @c7",
        [16, 218, 2_847, 31_194, 328_060],
    ),
];

#[test]
fn perft_from_mid_game_positions_matches_the_reference() {
    let mut positions: Vec<(Position, [u64; 5])> = Vec::new();
    for &(v, line, counts) in MID_GAMES {
        let g = Emergo::with_variant(v).unwrap();
        positions.push((play_line(&g, &g.start(), line), counts));
    }
    // A position with empty hands set up by hand.
    positions.push((
        setup(
            Variant::Standard,
            "W4@a1 W3@c3 W2@e3 W2@g5 B3@e5 B3@f6 B3@c7 B2/1@h8 B1@i9",
            Color::Black,
        ),
        [1, 1, 14, 47, 354],
    ));
    for (pos, counts) in &positions {
        let r = to_ref(pos);
        let ours: Vec<u64> = (1..=5).map(|d| perft(pos, d)).collect();
        let theirs: Vec<u64> = (1..=5).map(|d| r.perft_decisions(d)).collect();
        assert_eq!(ours, theirs, "\n{pos}");
        assert_eq!(ours, counts, "\n{pos}");
        assert_eq!(perft_turns(pos, 3), r.perft_turns(3), "turns\n{pos}");
    }
    // vchess's diagram of the longest-chain rule: five forced jumps, then
    // Black's entries and White's answers.
    let diagram = setup(
        Variant::Standard,
        "B1@c7 B1@e7 B2/2@c5 B1@e5 W3@d4",
        Color::White,
    );
    let r = to_ref(&diagram);
    assert_eq!(perft(&diagram, 5), 1);
    for d in 6..=7 {
        assert_eq!(perft(&diagram, d), r.perft_decisions(d), "depth {d}");
    }
    assert_eq!(perft_turns(&diagram, 3), r.perft_turns(3));
}

#[test]
fn random_games_have_the_reference_turns_at_every_position() {
    let mut seen = BTreeMap::<&str, usize>::new();
    let mut longest_chain = 0;
    let mut shadow = 0;
    for (i, v) in [
        Variant::Standard,
        Variant::Standard,
        Variant::BlockedLoses,
        Variant::Small,
    ]
    .into_iter()
    .cycle()
    .take(40)
    .enumerate()
    {
        let game = random_game(v, 1000 + i as u64);
        for pos in &game {
            let r = to_ref(pos);
            let me = pos.to_act();
            if pos.reserve(me) >= 2 && pos.reserve(!me) == 0 {
                shadow += 1;
            }
            let ours = whole_turns(pos);
            let theirs: BTreeMap<String, Ref> = r
                .turns()
                .iter()
                .map(|t| (t.notation(), r.play(t)))
                .collect();
            assert_eq!(
                ours.keys().collect::<Vec<_>>(),
                theirs.keys().collect::<Vec<_>>(),
                "{v}\n{pos}"
            );
            for (text, next) in &ours {
                assert_eq!(to_ref(next), theirs[text], "{text} in\n{pos}");
                if text.matches('x').count() > longest_chain {
                    longest_chain = text.matches('x').count();
                }
            }
        }
        let end = game.last().unwrap();
        *seen.entry(end.end_reason().unwrap()).or_default() += 1;
    }
    // The sample covers the main ending, long chains and shadow pieces.
    assert!(seen.contains_key("no_units"), "{seen:?}");
    assert!(longest_chain >= 3, "{longest_chain}");
    assert!(shadow >= 10, "{shadow}");
}

// ---------------------------------------------------------------------------
// Edge cases.

#[test]
fn a_chain_may_not_turn_back() {
    let g = Emergo::default();
    // Back over d4 (still black after the first jump) would make two jumps.
    let pos = setup(Variant::Standard, "W1@c3 B2@d4", Color::White);
    assert_eq!(names(&pos.legal_actions()), ["c3xe5".to_string()].into());
    let next = play_line(&g, &pos, "c3xe5");
    assert_eq!(next.to_act(), Color::Black);
    assert_eq!(next.unit(sq("d4")).unwrap().to_string(), "B1");
    assert_eq!(next.unit(sq("e5")).unwrap().to_string(), "W1/1");
    // In the middle of a chain, turning back is refused by name.
    let pos = setup(Variant::Standard, "W1@c3 B2@d4 B1@f6", Color::White);
    let mid = play_line(&g, &pos, "c3xe5");
    assert_eq!(mid.to_act(), Color::White);
    assert_eq!(mid.chain(), Some((sq("e5"), Dir::NorthEast)));
    assert_eq!(names(&mid.legal_actions()), ["e5xg7".to_string()].into());
    let e = g.parse_action(&mid, "e5xc3").unwrap_err();
    assert!(e.contains("180 degrees"), "{e}");
    let e = g.parse_action(&mid, "@a1").unwrap_err();
    assert!(e.contains("must jump on"), "{e}");
    assert_eq!(
        g.format_game(&pos, &g.parse_game(&pos, "c3xe5xg7").unwrap()),
        "c3xe5xg7"
    );
}

#[test]
fn the_longest_chain_is_compulsory() {
    let g = Emergo::default();
    // vchess's rules page, after mindsports.nl: "White's only option is to
    // capture clockwise".
    let pos = setup(
        Variant::Standard,
        "B1@c7 B1@e7 B2/2@c5 B1@e5 W3@d4",
        Color::White,
    );
    assert_eq!(names(&pos.legal_actions()), ["d4xb6".to_string()].into());
    let turns = whole_turns(&pos);
    assert_eq!(turns.keys().collect::<Vec<_>>(), ["d4xb6xd8xf6xd4xb6"]);
    let e = g.parse_action(&pos, "d4xf6").unwrap_err();
    assert!(e.contains("at most 4 jump(s), the longest 5"), "{e}");
    let e = g.parse_action(&pos, "@a1").unwrap_err();
    assert!(e.contains("capturing is compulsory"), "{e}");
    let after = &turns["d4xb6xd8xf6xd4xb6"];
    // c5 was jumped twice: the second took its last black controller, so
    // its two white prisoners own it now.
    assert_eq!(after.unit(sq("b6")).unwrap().to_string(), "W3/5");
    assert_eq!(after.unit(sq("c5")).unwrap().to_string(), "W2");
    for s in ["c7", "e7", "e5", "d4", "d8", "f6"] {
        assert_eq!(after.unit(sq(s)), None, "{s}");
    }
    // Black has nothing on the board but men in hand: the game goes on.
    assert_eq!(after.units_of(Color::Black), 0);
    assert_eq!(after.reserve(Color::Black), 7);
    assert!(!after.is_over());
    assert_eq!(after.quiet_turns(), 0);
}

#[test]
fn jumped_units_flip_or_vanish() {
    let g = Emergo::default();
    // A last controller over prisoners: they take the stack over.
    let pos = setup(Variant::Standard, "W1@c3 B1/2@d4", Color::White);
    let next = play_line(&g, &pos, "c3xe5");
    assert_eq!(next.unit(sq("d4")), Some(Unit::pure(Color::White, 2)));
    assert_eq!(next.unit(sq("e5")).unwrap().to_string(), "W1/1");
    assert_eq!(next.to_act(), Color::Black);
    assert_eq!(next.units_of(Color::Black), 0);
    // A lone man: it goes under the jumper, its square empties.
    let pos = setup(Variant::Standard, "W2/3@c3 B1@d4", Color::White);
    let next = play_line(&g, &pos, "c3xe5");
    assert_eq!(next.unit(sq("d4")), None);
    assert_eq!(next.unit(sq("e5")).unwrap().to_string(), "W2/4");
    assert_eq!(next.material(Color::White), 12 - 2 + 6);
}

#[test]
fn the_shadow_piece_enters_the_whole_hand() {
    let g = Emergo::default();
    let pos = setup(Variant::Standard, "W7@a1 B12@i9", Color::White);
    assert_eq!(pos.reserve(Color::White), 5);
    let next = play_line(&g, &pos, "@e5");
    assert_eq!(next.unit(sq("e5")), Some(Unit::pure(Color::White, 5)));
    assert_eq!(next.reserve(Color::White), 0);
    // While the opponent still holds men, one man enters.
    let pos = setup(Variant::Standard, "W7@a1 B11@i9", Color::White);
    let next = play_line(&g, &pos, "@e5");
    assert_eq!(next.unit(sq("e5")), Some(Unit::man(Color::White)));
    assert_eq!(next.reserve(Color::White), 4);
}

#[test]
fn white_may_not_open_on_the_centre_but_black_may() {
    let g = Emergo::default();
    let start = g.start();
    assert!(!names(&start.legal_actions()).contains("@e5"));
    let e = g.parse_action(&start, "@e5").unwrap_err();
    assert!(e.contains("centre"), "{e}");
    let pos = play_line(&g, &start, "@a1");
    assert!(names(&pos.legal_actions()).contains("@e5"));
    // White's later entries may use the centre.
    let pos = play_line(&g, &start, "@a1 @i9");
    assert!(names(&pos.legal_actions()).contains("@e5"));
    // The small board's centre is d4.
    let small = Emergo::new(Variant::Small);
    let e = small.parse_action(&small.start(), "@d4").unwrap_err();
    assert!(e.contains("centre"), "{e}");
}

#[test]
fn entering_where_the_man_can_be_jumped_is_banned_unless_a_capture_is_on() {
    let g = Emergo::default();
    let pos = setup(Variant::Standard, "W1@a1 B1@d4", Color::White);
    let legal = names(&pos.legal_actions());
    assert_eq!(legal.len(), 41 - 2 - 4);
    for s in ["c3", "e3", "c5", "e5"] {
        assert!(!legal.contains(&format!("@{s}")), "{s}");
    }
    let e = g.parse_action(&pos, "@c5").unwrap_err();
    assert!(e.contains("could jump a man entered on c5"), "{e}");
    // With a man behind the entry square, the jump has nowhere to land.
    let pos = setup(Variant::Standard, "W1@b6 B1@d4", Color::White);
    assert!(names(&pos.legal_actions()).contains("@c5"));
    // Black can already capture (d4 over c3 to b2): White may enter anywhere.
    let pos = setup(Variant::Standard, "W1@c3 W1@e5 B1@d4", Color::White);
    assert!(
        pos.legal_actions()
            .iter()
            .all(|a| matches!(a, Action::Enter(_)))
    );
    assert_eq!(pos.legal_actions().len(), 41 - 3);
    assert!(names(&pos.legal_actions()).contains("@c5"));
}

#[test]
fn no_steps_while_men_are_in_hand() {
    let g = Emergo::default();
    let pos = setup(Variant::Standard, "W1@c3 B1@i9", Color::White);
    assert!(
        pos.legal_actions()
            .iter()
            .all(|a| matches!(a, Action::Enter(_)))
    );
    let e = g.parse_action(&pos, "c3-d4").unwrap_err();
    assert!(e.contains("still has men in hand"), "{e}");
    // With an empty hand the units step, and nothing enters.
    let pos = setup(Variant::Standard, "W12@c3 B12@i9", Color::White);
    assert_eq!(
        names(&pos.legal_actions()),
        ["c3-b2", "c3-b4", "c3-d2", "c3-d4"]
            .map(String::from)
            .into()
    );
    let e = g.parse_action(&pos, "@e5").unwrap_err();
    assert!(e.contains("no men in hand"), "{e}");
    let e = g.parse_action(&pos, "c3-e5").unwrap_err();
    assert!(e.contains("not one diagonal step"), "{e}");
}

#[test]
fn a_blocked_player_draws_in_standard_and_loses_in_blocked_loses() {
    for (v, want) in [
        (Variant::Standard, GameResult::Draw),
        (Variant::BlockedLoses, GameResult::Win(Color::Black)),
    ] {
        let g = Emergo::new(v);
        // Black's step to c3 leaves White's a1 without a step or a jump.
        let pos = setup(v, "W12@a1 B1@b2 B11@d4", Color::Black);
        assert!(!pos.is_over());
        let end = play_line(&g, &pos, "d4-c3");
        assert_eq!(end.result(), Some(want), "{v}");
        assert_eq!(end.end_reason(), Some("blocked"));
        assert!(end.legal_actions().is_empty());
        let e = g.parse_action(&end, "a1-b2").unwrap_err();
        assert!(e.contains("the game is over"), "{e}");
    }
    // Men in hand and nowhere to enter: every empty square of the small
    // board has a black unit next to it with an empty square behind, and
    // nobody can capture (no black unit touches a white one).
    let pos = setup(
        Variant::Small,
        "B1@a1 B1@g1 B1@a7 B1@g7 B1@c1 B1@a3 B1@g3 B1@d4 \
         W1@e1 W1@a5 W1@g5 W1@c7 W1@e7 W1@d6",
        Color::White,
    );
    assert_eq!(pos.reserve(Color::White), 2);
    assert_eq!(pos.result(), Some(GameResult::Draw));
    assert_eq!(pos.end_reason(), Some("blocked"));
    assert!(to_ref(&pos).turns_raw().is_empty());
}

#[test]
fn no_units_and_nothing_in_hand_loses() {
    let g = Emergo::default();
    let pos = setup(Variant::Standard, "W1/11@a9 W1@c3 B1@d4", Color::White);
    assert_eq!(pos.reserve(Color::Black), 0);
    let end = play_line(&g, &pos, "c3xe5");
    assert_eq!(end.result(), Some(GameResult::Win(Color::White)));
    assert_eq!(end.end_reason(), Some("no_units"));
    assert_eq!(end.margin(Color::White), Some(1.0));
    assert_eq!(end.margin(Color::Black), Some(-1.0));
}

#[test]
fn quiet_turns_and_the_turn_limit_draw() {
    let g = Emergo::default();
    let quiet = |q: u16, turns: u16| {
        setup_with(Variant::Standard, "W12@a1 B12@i9", Color::White, |p| {
            p.quiet = q;
            p.turns = turns;
            p.ply = u32::from(turns);
        })
    };
    let end = play_line(&g, &quiet(NO_PROGRESS_LIMIT - 1, 150), "a1-b2");
    assert_eq!(end.result(), Some(GameResult::Draw));
    assert_eq!(end.end_reason(), Some("no_progress"));
    let next = play_line(&g, &quiet(NO_PROGRESS_LIMIT - 2, 150), "a1-b2");
    assert!(!next.is_over());
    assert_eq!(next.quiet_turns(), NO_PROGRESS_LIMIT - 1);
    // A capture or an entry resets the count.
    let pos = setup_with(
        Variant::Standard,
        "W11@a1 W1@c3 B1@d4 B11@i9",
        Color::White,
        |p| {
            p.quiet = 50;
            p.turns = 150;
            p.ply = 200;
        },
    );
    assert_eq!(play_line(&g, &pos, "c3xe5").quiet_turns(), 0);
    let pos = setup_with(Variant::Standard, "W11@a1 B12@i9", Color::White, |p| {
        p.quiet = 50;
        p.turns = 150;
        p.ply = 200;
    });
    assert_eq!(play_line(&g, &pos, "@e5").quiet_turns(), 0);
    // The turn limit.
    let end = play_line(&g, &quiet(0, TURN_LIMIT - 1), "a1-b2");
    assert_eq!(end.result(), Some(GameResult::Draw));
    assert_eq!(end.end_reason(), Some("turn_limit"));
    // The key tells the counters apart.
    assert_ne!(quiet(3, 150).key(), quiet(4, 150).key());
    assert_ne!(quiet(3, 150).key(), quiet(3, 151).key());
}

// ---------------------------------------------------------------------------
// Notation, records, symmetries.

#[test]
fn jumps_read_apart_and_notation_errors_say_why() {
    let g = Emergo::default();
    for seed in 0..12 {
        let v = Variant::ALL[seed as usize % 3];
        let g = Emergo::new(v);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pos = g.start();
        let mut actions = Vec::new();
        while !pos.is_over() {
            let legal = pos.legal_actions();
            let a = legal[rng.random_range(0..legal.len())];
            actions.push(a);
            pos.play_unchecked(a);
        }
        // A chain is one token (`c3xe5xg7`) in a game's text, but jumps
        // written apart read the same.
        let apart = actions
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(g.parse_game(&g.start(), &apart).unwrap(), actions);
    }
    let start = g.start();
    for (text, want) in [
        ("e5", "not an action"),
        ("@j1", "off the 9x9 board"),
        ("@a2", "not a playable square"),
        ("@e", "not a square name"),
        ("c3xe5xg7", "one decision is one jump"),
        ("a1-b2", "no unit on a1"),
        ("a1xc3", "no unit on a1"),
    ] {
        let e = g.parse_action(&start, text).unwrap_err();
        assert!(e.contains(want), "{text}: {e}");
    }
    let pos = play_line(&g, &start, "@a1 @i9");
    let e = g.parse_action(&pos, "@a1").unwrap_err();
    assert!(e.contains("occupied"), "{e}");
    let e = g.parse_action(&pos, "i9-h8").unwrap_err();
    assert!(e.contains("black's"), "{e}");
    let e = g.parse_game(&start, "@a1 @a1").unwrap_err();
    assert!(e.contains("turn 2 `@a1`") && e.contains("occupied"), "{e}");
    // A refused action leaves the position alone.
    let mut p = pos.clone();
    assert!(p.play(Action::Enter(sq("a1"))).is_err());
    assert_eq!(p, pos);
}

#[test]
fn records_refuse_bad_bytes() {
    let mut rng = SmallRng::seed_from_u64(3);
    for v in Variant::ALL {
        let g = Emergo::new(v);
        for seed in 0..6 {
            let mut pos = g.start();
            while !pos.is_over() {
                let mut bytes = Vec::new();
                g.write_state(&pos, &mut bytes);
                assert_eq!(bytes.len(), 2 * v.geometry().playable_count() + 13);
                // Damaged bytes are an error or another position, never a panic.
                for _ in 0..4 {
                    let mut bad = bytes.clone();
                    let i = rng.random_range(0..bad.len());
                    bad[i] = rng.random();
                    let _ = g.read_state(&bad);
                }
                for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
                    let e = g.read_state(&bytes[..cut]).unwrap_err();
                    assert!(e.contains("bytes"), "{e}");
                }
                let legal = pos.legal_actions();
                pos.play_unchecked(legal[(seed + rng.random_range(0..legal.len())) % legal.len()]);
            }
        }
    }
    let g = Emergo::default();
    let pos = play_line(&g, &g.start(), "@c3 @e5 @a1 @g7 @b8");
    let mut good = Vec::new();
    g.write_state(&pos, &mut good);
    let end = good.len() - 13;
    let bad = |edit: &dyn Fn(&mut Vec<u8>), want: &str| {
        let mut b = good.clone();
        edit(&mut b);
        let e = g.read_state(&b).unwrap_err();
        assert!(e.contains(want), "{want}: {e}");
    };
    bad(&|b| b.truncate(50), "takes 95 bytes");
    // Square 0 is a1 (White's man), square 2 is e1 (empty).
    bad(&|b| b[0] = 7, "neither 0, 1 nor 2");
    bad(&|b| b[5] = 5, "has men counted");
    bad(&|b| b[1] = 0x20, "none leaves the game");
    bad(&|b| b[1] = 0x01, "no controller");
    bad(&|b| b[end] = 13, "more than 12");
    bad(&|b| b[end + 2] = 2, "neither 0 nor 1");
    bad(&|b| b[end + 3] = 41, "not one of the 41 playable squares");
    bad(
        &|b| {
            b[end + 3] = 0;
            b[end + 4] = 9;
        },
        "not 0 to 3",
    );
    bad(
        &|b| {
            b[end + 3] = 0;
            b[end + 4] = 0;
        },
        "to continue a chain",
    );
    bad(&|b| b[end + 5] = 200, "past the draw limit");
    bad(
        &|b| b[end + 9..end + 13].copy_from_slice(&u32::MAX.to_le_bytes()),
        "decisions",
    );
    // No entry before White's first.
    let mut start = Vec::new();
    g.write_state(&g.start(), &mut start);
    let mut b = start.clone();
    b[start.len() - 13 + 2] = 1;
    assert!(
        g.read_state(&b)
            .unwrap_err()
            .contains("white has entered no man")
    );
}

/// Symmetries in the middle of a jump chain, where the chain's unit and
/// the jumps still open are part of the position: the conformance suite's
/// check (`tests/it/common/conformance.rs`) on mid-chain positions.
#[test]
fn symmetries_hold_in_the_middle_of_a_chain() {
    for v in [Variant::Standard, Variant::Small] {
        let g = Emergo::new(v);
        let mut mid_chain = Vec::new();
        for seed in 0..6 {
            let mut rng = SmallRng::seed_from_u64(50 + seed);
            let mut s = g.start();
            while !s.is_over() {
                if s.chain().is_some() {
                    mid_chain.push(s.clone());
                }
                let legal = s.legal_actions();
                s.play_unchecked(legal[rng.random_range(0..legal.len())]);
            }
        }
        assert!(
            !mid_chain.is_empty(),
            "{v}: no position in the middle of a chain"
        );
        assert_eq!(conformance::symmetries(&g, &mid_chain), mid_chain.len());
    }
}

#[test]
fn action_index_is_injective_and_covers_the_actions() {
    for v in [Variant::Standard, Variant::Small] {
        let g = Emergo::new(v);
        let geo = v.geometry();
        let mut seen = 0;
        for i in 0..g.net_shape().action_space() {
            if let Some(a) = g.action_from_index(i) {
                assert_eq!(g.action_index(a), i, "{v} {a}");
                seen += 1;
            }
        }
        let steps: usize = geo
            .playable()
            .map(|c| {
                Dir::ALL
                    .iter()
                    .filter(|&&d| geo.step(c, d).is_some())
                    .count()
            })
            .sum();
        let jumps: usize = geo
            .playable()
            .map(|c| {
                Dir::ALL
                    .iter()
                    .filter(|&&d| geo.step(c, d).and_then(|o| geo.step(o, d)).is_some())
                    .count()
            })
            .sum();
        assert_eq!(seen, geo.playable_count() + steps + jumps, "{v}");
    }
}

#[test]
fn the_key_follows_the_position_not_the_move_order() {
    let g = Emergo::default();
    let a = play_line(&g, &g.start(), "@a1 @i9 @c1 @g9");
    let b = play_line(&g, &g.start(), "@c1 @g9 @a1 @i9");
    assert_eq!(a, b);
    assert_eq!(a.key(), b.key());
    let c = play_line(&g, &g.start(), "@c1 @i9 @a1 @g9");
    assert_eq!(c.key(), a.key());
    let d = play_line(&g, &g.start(), "@c1 @i9 @a1 @g7");
    assert_ne!(d.key(), a.key());
    // Mid-chain: the chain is part of the key.
    let pos = setup(Variant::Standard, "W1@c3 B2@d4 B1@f6", Color::White);
    let mid = play_line(&g, &pos, "c3xe5");
    let mut parts = mid.parts();
    parts.chain = None;
    parts.to_act = Color::Black;
    let not_mid = Position::from_parts(Variant::Standard, parts).unwrap();
    assert_ne!(mid.key(), not_mid.key());
}

// ---------------------------------------------------------------------------
// The generic machinery.

#[test]
fn generic_players_play_it() {
    let names: Vec<&str> = players_of::<Emergo>().iter().map(|p| p.name).collect();
    assert!(
        names.contains(&"alphabeta") && names.contains(&"mcts-rollout"),
        "{names:?}"
    );
    let mut wins = 0;
    for (i, v) in [Variant::Standard, Variant::Small].into_iter().enumerate() {
        let g = Emergo::new(v);
        let mut a = parse_game_player(&g, "alphabeta:depth=2", 1 + i as u64).unwrap();
        let mut b = parse_game_player(&g, "random", 2 + i as u64).unwrap();
        let rec = play_game(a.as_mut(), b.as_mut(), g.start()).unwrap();
        assert_eq!(rec.final_position().result(), Some(rec.result));
        wins += usize::from(rec.result == GameResult::Win(Color::White));
        let text = g.format_game(&g.start(), &rec.actions);
        assert_eq!(g.parse_game(&g.start(), &text).unwrap(), rec.actions);
    }
    assert!(wins >= 1, "alpha-beta beat random in neither game");
}

#[test]
fn the_registry_and_the_engine_know_it() {
    use yinsh_zero::games::{GameTask, with_game};
    struct Shape;
    impl GameTask for Shape {
        type Output = (String, usize, u64);
        fn run<G: yinsh_zero::arena::GamePlayers>(self, game: G) -> Self::Output {
            (
                game.variant().to_string(),
                game.net_shape().action_space(),
                perft(&game.start(), 2),
            )
        }
    }
    assert_eq!(
        with_game("emergo", "standard", Shape).unwrap(),
        ("standard".into(), 9 * 81, 1_504)
    );
    assert_eq!(with_game("emergo", "small", Shape).unwrap().1, 9 * 49);
    let e = with_game("emergo", "huge", Shape).unwrap_err().to_string();
    assert!(e.contains("blocked-loses"), "{e}");

    use yinsh_zero::engine::Engine;
    let mut e = Engine::for_game(Emergo::default(), "alphabeta:depth=2", 3).unwrap();
    assert_eq!(e.handle("game").lines, ["game emergo standard"]);
    assert!(
        e.handle("position startpos moves @c3 @e5 @a1 @g7 @b8")
            .lines
            .is_empty()
    );
    let reply = e.handle("go");
    let best = reply
        .lines
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_string();
    let pos = play_line(
        &Emergo::default(),
        &Emergo::default().start(),
        "@c3 @e5 @a1 @g7 @b8",
    );
    assert!(
        Emergo::default().parse_action(&pos, &best).is_ok(),
        "{best}"
    );
}

#[test]
fn the_shipped_config_parses() {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/emergo.toml");
    let cfg = yinsh_zero::run::config::RunConfig::load(Some(std::path::Path::new(p))).unwrap();
    assert_eq!(cfg.game.name, "emergo");
}

#[test]
fn the_reference_turns_are_named_like_ours() {
    let r = Ref::new(9, 12, false);
    assert_eq!(Turn::Enter(0, 0).notation(), "@a1");
    assert_eq!(
        Turn::Capture(vec![(2, 2), (4, 4), (6, 2)]).notation(),
        "c3xe5xc7"
    );
    assert_eq!(r.turns().len(), 40);
}
