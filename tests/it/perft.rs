//! The engine against the independent reference rules in `reference/`:
//! lockstep random games compared state by state, perft agreement, and pinned
//! perft values.

use crate::reference;

use std::collections::BTreeSet;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reference::{Cell, Game, Phase, Side};
use yinsh_zero::game::perft::{perft, perft_divide, perft_parallel};
use yinsh_zero::games::yinsh::{Action, Color, Decision, Point, Position};

fn side(c: Color) -> Side {
    match c {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

fn engine_actions(pos: &Position) -> BTreeSet<String> {
    pos.legal_actions()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn reference_actions(game: &Game) -> BTreeSet<String> {
    game.legal_actions().into_iter().collect()
}

/// Panics with `context` unless the two agree on every piece, the rings
/// removed, what is decided and by whom, and the result.
fn assert_same_state(pos: &Position, game: &Game, context: &str) {
    for col in 0..11u8 {
        for row in 0..11u8 {
            let want = match Point::new(col, row) {
                None => Cell::Off,
                Some(p) => match pos.piece_at(p) {
                    None => Cell::Empty,
                    Some((c, true)) => Cell::Ring(side(c)),
                    Some((c, false)) => Cell::Marker(side(c)),
                },
            };
            let got = game.cell(col as i32, row as i32);
            assert_eq!(got, want, "{context}: cell col {col} row {row}\n{pos}");
        }
    }
    for c in Color::BOTH {
        assert_eq!(
            game.rings_removed(side(c)),
            pos.rings_removed(c),
            "{context}: rings removed by {c}\n{pos}"
        );
    }
    let phase = match pos.decision() {
        Decision::PlaceRing => Phase::PlaceRing,
        Decision::MoveRing => Phase::MoveRing,
        Decision::RemoveRow => Phase::RemoveRow,
        Decision::RemoveRing => Phase::RemoveRing,
        Decision::GameOver => Phase::Over,
    };
    assert_eq!(game.phase(), phase, "{context}: decision\n{pos}");
    match pos.outcome() {
        Some(o) => assert_eq!(
            game.result(),
            Some(o.winner.map(side)),
            "{context}: result\n{pos}"
        ),
        None => {
            assert_eq!(game.result(), None, "{context}: result\n{pos}");
            assert_eq!(
                game.to_act(),
                side(pos.to_act()),
                "{context}: to act\n{pos}"
            );
        }
    }
}

/// Plays `actions` (single-decision notation) from the start, matching each
/// against the engine's legal actions.
fn position_after(blitz: bool, actions: &str) -> Position {
    let mut pos = if blitz {
        Position::blitz()
    } else {
        Position::new()
    };
    for (step, text) in actions.split_whitespace().enumerate() {
        let action = pos
            .legal_actions()
            .into_iter()
            .find(|a| a.to_string() == text)
            .unwrap_or_else(|| panic!("step {}: `{text}` is not legal\n{pos}", step + 1));
        pos.play(action).unwrap();
    }
    pos
}

/// One seeded uniformly random game, played in both implementations at
/// once; returns every position on the way (the final one included) with its
/// reference twin, after checking them against each other at every step.
fn lockstep_game(seed: u64, blitz: bool) -> Vec<(Position, Game)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = if blitz {
        Position::blitz()
    } else {
        Position::new()
    };
    let mut game = Game::new(blitz);
    let mut seen = vec![(pos, game.clone())];
    for step in 1.. {
        let context = format!("seed {seed} blitz {blitz} step {step}");
        let engine = engine_actions(&pos);
        assert_eq!(
            reference_actions(&game),
            engine,
            "{context}: legal actions\n{pos}"
        );
        assert_eq!(engine.len(), pos.legal_action_count(), "{context}: count");
        if pos.is_over() {
            break;
        }
        let legal = pos.legal_actions();
        let action = legal[rng.random_range(0..legal.len())];
        pos.play(action).unwrap();
        game.play(&action.to_string())
            .unwrap_or_else(|e| panic!("{context}: reference refuses {action}: {e}"));
        assert_same_state(&pos, &game, &context);
        seen.push((pos, game.clone()));
    }
    seen
}

#[test]
fn random_games_agree_with_the_reference_at_every_step() {
    let mut decisions = std::collections::HashMap::new();
    let mut ends = std::collections::HashMap::new();
    let mut several_rows = 0;
    for seed in 0..300 {
        let trajectory = lockstep_game(seed, seed % 4 == 3);
        for (pos, _) in &trajectory {
            *decisions.entry(pos.decision()).or_insert(0) += 1;
            if pos.decision() == Decision::RemoveRow && pos.legal_action_count() > 1 {
                several_rows += 1;
            }
        }
        let last = trajectory.last().unwrap().0;
        *ends.entry(last.outcome().unwrap().reason).or_insert(0) += 1;
    }
    // The games must have exercised every kind of decision and of ending
    // that uniform random play reaches, or the comparison proves little.
    for d in [
        Decision::PlaceRing,
        Decision::MoveRing,
        Decision::RemoveRow,
        Decision::RemoveRing,
    ] {
        assert!(decisions.get(&d).copied().unwrap_or(0) > 100, "{d:?}");
    }
    assert!(several_rows > 0, "no choice between rows was ever tested");
    assert!(ends.len() >= 2, "endings seen: {ends:?}");
}

/// Positions worth a perft from one random game: early placement, the first
/// move, two from the middle, every row or ring choice, and the last few
/// before the end (when the pool is low or a win is near).
fn perft_samples(trajectory: &[(Position, Game)]) -> Vec<&(Position, Game)> {
    let live: Vec<_> = trajectory.iter().filter(|(p, _)| !p.is_over()).collect();
    let n = live.len();
    let mut picks: Vec<usize> = vec![3, 10, n / 3, n / 2];
    picks.extend((0..n).filter(|&i| {
        matches!(
            live[i].0.decision(),
            Decision::RemoveRow | Decision::RemoveRing
        )
    }));
    picks.extend(n.saturating_sub(3)..n);
    picks.sort_unstable();
    picks.dedup();
    picks
        .into_iter()
        .filter(|&i| i < n)
        .map(|i| live[i])
        .collect()
}

#[test]
fn perft_agrees_with_the_reference() {
    let mut checked = 0;
    let mut low_pool = 0;
    for seed in 1000..1030 {
        let trajectory = lockstep_game(seed, seed % 5 == 0);
        for (k, (pos, game)) in perft_samples(&trajectory).into_iter().enumerate() {
            // Depth 3 where branching is small or on every fourth sample;
            // depth 2 elsewhere keeps the test to seconds.
            let depth = if pos.decision() != Decision::MoveRing || k % 4 == 0 {
                3
            } else {
                2
            };
            assert_eq!(
                perft(pos, depth),
                game.perft(depth),
                "seed {seed} depth {depth}\n{pos}"
            );
            checked += 1;
            low_pool += (pos.pool() < 10) as u32;
        }
    }
    assert!(checked > 200, "only {checked} positions checked");
    assert!(low_pool > 0, "no position with a low pool was checked");
}

#[test]
fn divide_and_parallel_agree_with_perft() {
    let pos = position_after(false, MIDGAME);
    for depth in 0..=3 {
        let total = perft(&pos, depth);
        assert_eq!(perft_parallel(&pos, depth), total, "depth {depth}");
        let divide = perft_divide(&pos, depth);
        if depth == 0 {
            assert!(divide.is_empty());
        } else {
            let actions: Vec<Action> = divide.iter().map(|&(a, _)| a).collect();
            assert_eq!(actions, pos.legal_actions().to_vec());
            assert_eq!(divide.iter().map(|&(_, n)| n).sum::<u64>(), total);
        }
    }
}

#[test]
fn a_finished_game_is_one_leaf() {
    let mut pos = Position::new();
    pos.resign(Color::White);
    for depth in 0..4 {
        assert_eq!(perft(&pos, depth), 1);
        assert_eq!(perft_parallel(&pos, depth), 1);
        assert!(perft_divide(&pos, depth).is_empty());
    }
}

/// Ten placements: the first ring move is next.
const MOVEMENT_START: &str = "f5 i5 a5 e8 h5 g10 e4 c8 f4 g8";
/// A game in the middle of the movement phase.
const MIDGAME: &str = "f5 i5 a5 e8 h5 g10 e4 c8 f4 g8 h5-h3 g8-d5 f5-f8 d5-d8 f8-h8 \
    g10-h11 h3-c3 i5-i4 c3-g3 d8-e9 g3-e3 c8-c2 h8-f6 c2-b1 e4-e6 b1-b7 a5-e5 e8-a4 e6-c4 e9-j9";
/// A row of five has just been made: its owner must choose which to remove.
const PENDING_ROW: &str = "f5 i5 a5 e8 h5 g10 e4 c8 f4 g8 h5-h3 g8-d5 f5-f8 d5-d8 f8-h8 \
    g10-h11 h3-c3 i5-i4 c3-g3 d8-e9 g3-e3 c8-c2 h8-f6 c2-b1 e4-e6 b1-b7 a5-e5 e8-a4 e6-c4 e9-j9 \
    f6-f7 h11-h9 f4-f2 h9-j11 f7-h7";
/// Four markers left in the pool, late in a game.
const LOW_POOL: &str = "a2 e3 g8 j5 h11 d6 h8 i4 i11 c2 a2-e6 c2-c7 h11-c6 e3-g3 g8-f8 g3-h4 \
    e6-e2 h4-j6 e2-e4 c7-d7 h8-h5 d6-f6 f8-f9 j6-f2 i11-i5 f2-e1 e4-b1 i4-g2 h5-g5 f6-c3 f9-e8 \
    e1-e5 i5-i6 d7-h7 g5-h6 j5-j7 b1-b7 h7-g6 e8-c8 g6-g9 c8-e10 j7-j8 c6-c4 e5-d5 c4-f4 j8-i7 \
    h6-h9 c3-c1 b7-b2 g9-g7 b2-b3 d5-f7 f4-f3 i7-k9 h9-i9 k9-k7 f3-d1";

#[test]
fn perft_from_the_start() {
    let start = Position::new();
    assert_eq!(perft(&start, 1), 85);
    assert_eq!(perft(&start, 2), 85 * 84);
    assert_eq!(perft(&start, 3), 85 * 84 * 83);
    assert_eq!(Game::new(false).perft(3), 85 * 84 * 83);
    assert_eq!(perft(&Position::blitz(), 2), 85 * 84);
}

/// Pinned counts, each one agreed by the reference when it was pinned
/// (`perft_agrees_with_the_reference` keeps checking such positions).
const PINNED: [(&str, bool, &str, [u64; 3]); 5] = [
    ("movement start", false, MOVEMENT_START, [70, 4641, 315_604]),
    ("midgame", false, MIDGAME, [40, 1982, 79_484]),
    ("pending row", false, PENDING_ROW, [1, 5, 211]),
    // Removing the ring wins at once in Blitz: each game ends after two
    // decisions and stays one leaf.
    ("pending row, blitz", true, PENDING_ROW, [1, 5, 5]),
    ("low pool", false, LOW_POOL, [14, 317, 4546]),
];

#[test]
fn perft_from_fixed_positions() {
    for (name, blitz, moves, counts) in PINNED {
        let pos = position_after(blitz, moves);
        for (depth, want) in (1..).zip(counts) {
            assert_eq!(perft(&pos, depth), want, "{name} depth {depth}\n{pos}");
        }
    }
    assert_eq!(
        position_after(false, PENDING_ROW).decision(),
        Decision::RemoveRow
    );
    assert_eq!(position_after(false, LOW_POOL).pool(), 4);
}

#[test]
fn the_reference_reproduces_the_pinned_counts() {
    for (name, blitz, moves, counts) in PINNED {
        let mut game = Game::new(blitz);
        for m in moves.split_whitespace() {
            game.play(m).unwrap();
        }
        for (depth, want) in (1..).zip(counts) {
            assert_eq!(game.perft(depth), want, "{name} depth {depth}");
        }
    }
}

/// Depth 4 from the start and from the fixed positions, and depth 5 against
/// the reference from the midgame.
#[test]
#[ignore]
fn deeper_perft() {
    assert_eq!(perft_parallel(&Position::new(), 4), 85 * 84 * 83 * 82);
    let deep = [
        (MOVEMENT_START, 20_266_710),
        (MIDGAME, 3_497_705),
        (PENDING_ROW, 10_227),
        (LOW_POOL, 90_388),
    ];
    for (moves, want) in deep {
        assert_eq!(perft_parallel(&position_after(false, moves), 4), want);
    }
    let mut game = Game::new(false);
    for m in MIDGAME.split_whitespace() {
        game.play(m).unwrap();
    }
    assert_eq!(game.perft(4), 3_497_705);
    assert_eq!(
        game.perft(5),
        perft_parallel(&position_after(false, MIDGAME), 5)
    );
}

/// Random play never walls a player in, so passes get a hand-built position:
/// White's rings on a2-a5 are boxed in by black rings on b2-b6, and the one
/// on b1 faces marker groups that run to the edge.
#[test]
fn a_walled_in_player_passes_in_both_implementations() {
    let pieces = "Wa2 Wa3 Wa4 Wa5 Wb1 Bb2 Bb3 Bb4 Bb5 Bb6 \
                  wc1 bd1 we1 wc2 bd3 we4 bf5 wg6 bh7 wi8 bj9 wk10";
    let pos = Position::setup(
        pieces,
        [0, 0],
        Color::White,
        yinsh_zero::games::yinsh::Variant::STANDARD,
    )
    .unwrap();
    let cells: Vec<(i32, i32, Cell)> = Point::all()
        .filter_map(|p| {
            let cell = match pos.piece_at(p)? {
                (c, true) => Cell::Ring(side(c)),
                (c, false) => Cell::Marker(side(c)),
            };
            Some((p.col() as i32, p.row() as i32, cell))
        })
        .collect();
    let game = Game::setup(&cells, [0, 0], Side::White, 0, false);
    assert_same_state(&pos, &game, "setup");
    assert_eq!(
        reference_actions(&game),
        BTreeSet::from(["pass".to_string()])
    );
    assert_eq!(engine_actions(&pos), reference_actions(&game));
    for depth in 1..=3 {
        assert_eq!(perft(&pos, depth), game.perft(depth), "depth {depth}");
    }
    let (mut pos, mut game) = (pos, game);
    let mut rng = SmallRng::seed_from_u64(5);
    for step in 0..40 {
        if pos.is_over() {
            break;
        }
        let legal = pos.legal_actions();
        let a = legal[rng.random_range(0..legal.len())];
        pos.play(a).unwrap();
        game.play(&a.to_string()).unwrap();
        assert_same_state(&pos, &game, &format!("step {step} after {a}"));
        assert_eq!(
            engine_actions(&pos),
            reference_actions(&game),
            "step {step}"
        );
    }

    // A pass right after the opponent's pass ends the game, scored by rings.
    let walled = Game::setup(&cells, [0, 0], Side::White, 1, false);
    let mut ended = walled.clone();
    ended.play("pass").unwrap();
    assert_eq!(ended.result(), Some(None));
}
