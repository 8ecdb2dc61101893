//! The Morris solver, its database files, state addressing and the
//! `perfect` player, on real files in temporary directories: Three Men's
//! Morris solved whole, small Six and Nine endgame layers.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use common::cli::yz;
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::arena::{RandomPlayer, parse_game_player, play_game};
use yinsh_zero::game::{Color, GameResult, State};
use yinsh_zero::games::morris::address::{
    Layer, LayerIndex, Numbering, canonical, layer_size, locate, parse_position, position_text,
    state_text,
};
use yinsh_zero::games::morris::db::{Database, DbError, Outcome, Value, read_layer};
use yinsh_zero::games::morris::solve::{SolveOptions, layers_to_solve, solve};
use yinsh_zero::games::morris::{Morris, Parts, Position, Variant};

fn solve_into(dir: &Path, variant: Variant, max: Option<u8>) -> Vec<(Layer, bool, Option<String>)> {
    let opts = SolveOptions::new(variant, dir, max);
    let mut seen = Vec::new();
    solve(&opts, |r| {
        seen.push((r.layer, r.resumed, r.damaged.clone()))
    })
    .unwrap();
    seen
}

/// Databases solved once per test binary.
fn solved(variant: Variant, max: Option<u8>) -> &'static Path {
    type Dirs = HashMap<(Variant, Option<u8>), &'static tempfile::TempDir>;
    static DIRS: OnceLock<Mutex<Dirs>> = OnceLock::new();
    let dirs = DIRS.get_or_init(Default::default);
    let mut dirs = dirs.lock().unwrap();
    let dir = dirs.entry((variant, max)).or_insert_with(|| {
        let d: &'static tempfile::TempDir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
        solve_into(d.path(), variant, max);
        d
    });
    dir.path()
}

// ---- an independent search over `Position`, history-free ----

/// The position again with a fresh history: the draw rules never fire, as
/// in the database.
fn fresh(pos: &Position) -> Position {
    let p = pos.parts();
    Position::from_parts(
        pos.variant(),
        Parts {
            ply: 0,
            quiet: 0,
            reps: 1,
            ..p
        },
    )
    .unwrap()
}

/// Every whole turn of the player to act: an action, and after a mill
/// each removal.
fn turns(pos: &Position) -> Vec<Position> {
    let mut out = Vec::new();
    for a in pos.legal_actions() {
        let mut c = pos.clone();
        c.play(a).unwrap();
        if c.result().is_none() && c.removing() {
            for r in c.legal_actions() {
                let mut g = c.clone();
                g.play(r).unwrap();
                out.push(g);
            }
        } else {
            out.push(c);
        }
    }
    out
}

type Memo = HashMap<(u32, u32, u8, u8, u8, u32, bool), bool>;

fn memo_key(pos: &Position, d: u32, win: bool) -> (u32, u32, u8, u8, u8, u32, bool) {
    let p = pos.parts();
    (
        p.stones[0],
        p.stones[1],
        p.hand[0],
        p.hand[1],
        p.to_act.index() as u8,
        d,
        win,
    )
}

/// Can the player to act force a win within `d` turns?
fn wins_within(pos: &Position, d: u32, memo: &mut Memo) -> bool {
    if d == 0 {
        return false;
    }
    if let Some(&r) = memo.get(&memo_key(pos, d, true)) {
        return r;
    }
    let me = pos.to_act();
    let r = turns(pos).iter().any(|n| match n.result() {
        Some(GameResult::Win(c)) => c == me,
        Some(_) => false,
        None => loses_within(&fresh(n), d - 1, memo),
    });
    memo.insert(memo_key(pos, d, true), r);
    r
}

/// Does the player to act lose within `d` turns whatever it does?
fn loses_within(pos: &Position, d: u32, memo: &mut Memo) -> bool {
    if d == 0 {
        return false;
    }
    if let Some(&r) = memo.get(&memo_key(pos, d, false)) {
        return r;
    }
    let me = pos.to_act();
    let r = turns(pos).iter().all(|n| match n.result() {
        Some(GameResult::Win(c)) => c != me,
        Some(_) => false,
        None => wins_within(&fresh(n), d - 1, memo),
    });
    memo.insert(memo_key(pos, d, false), r);
    r
}

/// Checks a database value against the search, as far as `bound` turns;
/// says whether the value was confirmed exactly (a win or loss within the
/// bound) rather than only not contradicted.
fn check_value(pos: &Position, v: Value, bound: u32, memo: &mut Memo) -> bool {
    let d = u32::from(v.plies);
    match v.outcome {
        Outcome::Win if d <= bound => {
            assert!(wins_within(pos, d, memo), "{pos}\nnot won in {d}");
            assert!(!wins_within(pos, d - 1, memo), "{pos}\nwon sooner than {d}");
        }
        Outcome::Loss if d <= bound => {
            assert!(loses_within(pos, d, memo), "{pos}\nnot lost in {d}");
            assert!(
                !loses_within(pos, d - 1, memo),
                "{pos}\nlost sooner than {d}"
            );
        }
        _ => {}
    }
    match v.outcome {
        Outcome::Win | Outcome::Loss if d <= bound => return true,
        Outcome::Win => {
            assert!(!wins_within(pos, bound, memo), "{pos}\nwon sooner than {d}");
            assert!(!loses_within(pos, bound, memo), "{pos}\nwon, yet lost");
        }
        Outcome::Loss => {
            assert!(
                !loses_within(pos, bound, memo),
                "{pos}\nlost sooner than {d}"
            );
            assert!(!wins_within(pos, bound, memo), "{pos}\nlost, yet won");
        }
        Outcome::Draw => {
            assert!(!wins_within(pos, bound, memo), "{pos}\ndrawn, yet won");
            assert!(!loses_within(pos, bound, memo), "{pos}\ndrawn, yet lost");
        }
    }
    false
}

/// Database values of sampled states of `layer` checked by the search:
/// how many were confirmed exactly, and how many only up to the bound.
/// Half the samples are drawn among the states the database says are
/// decided within the bound (where there are such), half at random.
fn check_layer(
    variant: Variant,
    db: &Database,
    layer: Layer,
    samples: usize,
    bound: u32,
    seed: u64,
) -> (usize, usize) {
    let solved = db.layer(layer).unwrap();
    let n = solved.index.len() as u32;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut checked = 0;
    let mut exact = 0;
    let mut tries = 0;
    let mut memo = Memo::new();
    let decided = |i: u32| {
        let v = solved.values.get(i);
        v.outcome != Outcome::Draw && u32::from(v.plies) <= bound
    };
    while checked < samples && tries < 1000 * samples {
        tries += 1;
        let i = if samples as u32 >= n {
            tries as u32 - 1
        } else {
            rng.random_range(0..n)
        };
        if i >= n {
            break;
        }
        if (samples as u32) < n && 2 * checked < samples && tries < 500 * samples && !decided(i) {
            continue;
        }
        let (m, o) = solved.index.masks(i);
        let Ok(pos) = parse_position(variant, &state_text(variant, layer, m, o)) else {
            // A blocked mover: lost in 0.
            assert_eq!(solved.values.get(i), Value::loss(0));
            continue;
        };
        let v = db.value(&pos).unwrap();
        assert_eq!(v, solved.values.get(i));
        if check_value(&pos, v, bound, &mut memo) {
            exact += 1;
        }
        checked += 1;
    }
    assert!(checked > 0, "{layer}: nothing checked");
    (exact, checked - exact)
}

#[test]
fn three_mens_morris_is_solved_and_matches_the_search() {
    let dir = solved(Variant::Three, None);
    let db = Database::open(dir, Variant::Three).unwrap();
    // Every moving-phase state, to 6 turns; placement states to 5.
    let (exact, bounded) = check_layer(Variant::Three, &db, Layer::moving(3, 3), 1000, 6, 1);
    eprintln!("three 3:3: {exact} exact, {bounded} bounded");
    assert!(exact >= 100 && bounded >= 30, "{exact} {bounded}");
    for l in layers_to_solve(Variant::Three, None)
        .into_iter()
        .filter(|l| !l.is_moving())
    {
        let (exact, bounded) = check_layer(Variant::Three, &db, l, 12, 5, 2);
        eprintln!("three {l}: {exact} exact, {bounded} bounded");
    }
    // The start: the first player wins (diagonal moves through the centre).
    let start = Position::start(Variant::Three);
    let v = db.value(&start).unwrap();
    check_value(&start, v, 9, &mut Memo::new());
    assert_eq!(v.outcome, Outcome::Win);
}

#[test]
fn six_endgames_match_the_search() {
    let dir = solved(Variant::Six, Some(4));
    let db = Database::open(dir, Variant::Six).unwrap();
    let mut exact = 0;
    for (l, n, bound, seed) in [
        (Layer::moving(3, 3), 40, 5, 3),
        (Layer::moving(4, 3), 15, 4, 4),
        (Layer::moving(3, 4), 15, 4, 5),
    ] {
        let (e, b) = check_layer(Variant::Six, &db, l, n, bound, seed);
        eprintln!("six {l}: {e} exact, {b} bounded");
        exact += e;
    }
    assert!(exact >= 10, "{exact}");
}

#[test]
fn nine_flying_endgames_match_the_search() {
    let dir = solved(Variant::Nine, Some(3));
    let db = Database::open(dir, Variant::Nine).unwrap();
    let (exact, bounded) = check_layer(Variant::Nine, &db, Layer::moving(3, 3), 12, 3, 6);
    eprintln!("nine 3:3: {exact} exact, {bounded} bounded");
    assert!(exact >= 4, "{exact} {bounded}");
    // Outside the solved layers: a named error.
    let e = db.state_value(Layer::moving(4, 3), 0xf, 0x700).unwrap_err();
    assert!(e.is_not_solved(), "{e}");
    assert!(e.to_string().contains("layer-4-3-0-0.mdb"), "{e}");
}

/// Four stones against three flying ones: the solver finds that the
/// flying side to move never loses and the four stones win only at once;
/// the search checks sampled states of both layers to three turns.
#[test]
fn nine_four_against_three_matches_the_search() {
    let dir = solved(Variant::Nine, Some(4));
    let db = Database::open(dir, Variant::Nine).unwrap();
    let mut exact = 0;
    for (l, seed) in [
        (Layer::moving(3, 4), 7),
        (Layer::moving(4, 3), 8),
        (Layer::moving(4, 4), 9),
    ] {
        let (e, b) = check_layer(Variant::Nine, &db, l, 16, 3, seed);
        eprintln!("nine {l}: {e} exact, {b} bounded");
        exact += e;
    }
    assert!(exact >= 2, "{exact}");
}

#[test]
fn layer_sizes_by_counting_match_the_listing() {
    for (v, l) in [
        (Variant::Six, Layer::moving(3, 3)),
        (Variant::Six, Layer::moving(4, 6)),
        (
            Variant::Six,
            Layer {
                a: 2,
                b: 3,
                hm: 2,
                ho: 1,
            },
        ),
        (Variant::Nine, Layer::moving(3, 3)),
        (
            Variant::Nine,
            Layer {
                a: 0,
                b: 2,
                hm: 8,
                ho: 7,
            },
        ),
        (Variant::Three, Layer::moving(3, 3)),
    ] {
        let ix = LayerIndex::build(v, l);
        assert_eq!(layer_size(v, l), (ix.len() as u64, ix.raw_len()), "{v} {l}");
    }
    // Every disjoint pair of masks is counted once unreduced.
    let ix = LayerIndex::build(Variant::Six, Layer::moving(3, 4));
    assert_eq!(ix.raw_len(), 560 * 715);
}

fn random_position(variant: Variant, seed: u64, plies: u32) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::start(variant);
    for _ in 0..plies {
        if pos.result().is_some() {
            break;
        }
        let acts = pos.legal_actions();
        let a = acts[rng.random_range(0..acts.len())];
        let before = pos.clone();
        pos.play(a).unwrap();
        if pos.result().is_some() {
            return before;
        }
    }
    pos
}

fn index_of(variant: Variant, layer: Layer) -> Arc<LayerIndex> {
    type Indexes = HashMap<(Variant, Layer), Arc<LayerIndex>>;
    static CACHE: OnceLock<Mutex<Indexes>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut c = cache.lock().unwrap();
    c.entry((variant, layer))
        .or_insert_with(|| Arc::new(LayerIndex::build(variant, layer)))
        .clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Position -> (layer, index) -> state number -> (layer, index) ->
    /// position: the same state, up to a symmetry.
    #[test]
    fn index_and_position_round_trip(seed in any::<u64>(), plies in 0u32..60, six in any::<bool>()) {
        let variant = if six { Variant::Six } else { Variant::Three };
        let pos = random_position(variant, seed, plies);
        prop_assume!(!pos.removing() && pos.result().is_none());
        let (layer, m, o) = locate(&pos).unwrap();
        let ix = index_of(variant, layer);
        let i = ix.index_of(m, o).expect("every position is in its layer");
        let numbering = numbering(variant);
        let number = numbering.offset(layer).unwrap() + u64::from(i);
        let (l2, i2) = numbering.locate(number).unwrap();
        prop_assert_eq!((l2, i2), (layer, u64::from(i)));
        let (cm, co) = ix.masks(i);
        prop_assert_eq!(canonical(variant.geometry(), m, o), canonical(variant.geometry(), cm, co));
        prop_assert_eq!(u64::from(cm) << 32 | u64::from(co), canonical(variant.geometry(), cm, co));
        let back = parse_position(variant, &state_text(variant, layer, cm, co)).unwrap();
        prop_assert_eq!(locate(&back).unwrap(), (layer, cm, co));
        // The position's own text reads back.
        let again = parse_position(variant, &position_text(&pos)).unwrap();
        prop_assert_eq!(again.parts().stones, pos.parts().stones);
        prop_assert_eq!(again.to_act(), pos.to_act());
    }

    /// Nine Men's Morris endgame states at random: every mask pair of a
    /// small layer has an index whose masks are its canonical form.
    #[test]
    fn nine_masks_round_trip(seed in any::<u64>(), a in 3u8..=4, b in 3u8..=3) {
        let variant = Variant::Nine;
        let geo = variant.geometry();
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pick = |n: u8, taken: u32| {
            let mut m = 0u32;
            while m.count_ones() < u32::from(n) {
                let p = rng.random_range(0..24);
                if (taken | m) & 1 << p == 0 {
                    m |= 1 << p;
                }
            }
            m
        };
        let m = pick(a, 0);
        let o = pick(b, m);
        let layer = Layer::moving(a, b);
        let ix = index_of(variant, layer);
        let i = ix.index_of(m, o).unwrap();
        let (cm, co) = ix.masks(i);
        prop_assert_eq!(canonical(geo, m, o), u64::from(cm) << 32 | u64::from(co));
    }
}

fn numbering(v: Variant) -> Arc<Numbering> {
    static CACHE: OnceLock<Mutex<HashMap<Variant, Arc<Numbering>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    cache
        .lock()
        .unwrap()
        .entry(v)
        .or_insert_with(|| Arc::new(Numbering::new(v)))
        .clone()
}

#[test]
fn bad_input_gives_named_errors() {
    let n = numbering(Variant::Three);
    let e = n.locate(n.total).unwrap_err();
    assert!(
        e.contains(&n.total.to_string()) && e.contains("out of range"),
        "{e}"
    );
    let e = n.locate(u64::MAX).unwrap_err();
    assert!(e.contains(&u64::MAX.to_string()), "{e}");
    for (text, says) in [
        ("W......B w", "9 points"),
        ("WWW..BB.B. w", "10 characters"),
        ("W.....B.. q", "neither w nor b"),
        ("W.....BZ. w 2 2", "`Z`"),
        ("W.....B.. w 2", "both hands"),
        ("WWW...BB. b 0 1", "line of three"),
    ] {
        let e = parse_position(Variant::Three, text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }

    // A database directory that is not there.
    let missing = Path::new("/nonexistent/morris-db");
    let e = Database::open(missing, Variant::Three).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/morris-db"), "{e}");
    let e = parse_game_player(&Morris::new(Variant::Three), "perfect:db=/nonexistent/x", 0)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("/nonexistent/x"), "{e}");
}

#[test]
fn damaged_files_are_named_and_recomputed_and_valid_ones_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let first = solve_into(dir, Variant::Three, None);
    assert!(
        first
            .iter()
            .all(|(_, resumed, damaged)| !resumed && damaged.is_none())
    );
    let layer = Layer::moving(3, 3);
    let path = dir.join(layer.file_name());
    let good = std::fs::read(&path).unwrap();
    let expected = LayerIndex::build(Variant::Three, layer).len();

    // Truncated.
    std::fs::write(&path, &good[..good.len() - 7]).unwrap();
    let e = read_layer(&path, Variant::Three, layer, Some(expected)).unwrap_err();
    assert!(matches!(e, DbError::Malformed { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("truncated"),
        "{text}"
    );
    // Too short for a header.
    std::fs::write(&path, &good[..10]).unwrap();
    let e = read_layer(&path, Variant::Three, layer, Some(expected))
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    // A flipped bit in the values.
    let mut bad = good.clone();
    bad[40] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    let e = read_layer(&path, Variant::Three, layer, Some(expected))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("checksum") && e.contains(&path.display().to_string()),
        "{e}"
    );
    // Another layer's file under this name.
    let other = dir.join(
        Layer {
            a: 2,
            b: 3,
            hm: 1,
            ho: 0,
        }
        .file_name(),
    );
    std::fs::copy(&other, &path).unwrap();
    let e = read_layer(&path, Variant::Three, layer, Some(expected))
        .unwrap_err()
        .to_string();
    assert!(e.contains("holds layer 2:3"), "{e}");
    // Not a database at all.
    std::fs::write(&path, vec![b'x'; good.len()]).unwrap();
    let e = read_layer(&path, Variant::Three, layer, Some(expected))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad magic"), "{e}");

    // A damaged file is what the database reports, not a panic.
    let db = Database::open(dir, Variant::Three).unwrap();
    let pos = parse_position(Variant::Three, "WW.B.B.BW w").unwrap();
    let e = db.value(&pos).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()), "{e}");

    // Resume: the damaged layer is named and recomputed, the rest kept.
    let again = solve_into(dir, Variant::Three, None);
    for (l, resumed, damaged) in &again {
        if *l == layer {
            assert!(!resumed);
            assert!(damaged.as_deref().unwrap().contains("bad magic"));
        } else {
            assert!(resumed, "{l} recomputed");
            assert!(damaged.is_none());
        }
    }
    assert_eq!(std::fs::read(&path).unwrap(), good);
    // A third run keeps everything.
    let third = solve_into(dir, Variant::Three, None);
    assert!(third.iter().all(|(_, resumed, _)| *resumed));
}

#[test]
fn perfect_player_never_loses_to_random_and_wins_three_as_white() {
    let dir = solved(Variant::Three, None);
    let game = Morris::new(Variant::Three);
    let spec = format!("perfect:db={}", dir.display());
    for seed in 0..12u64 {
        let mut perfect = parse_game_player(&game, &spec, seed).unwrap();
        let mut random = RandomPlayer::new(seed + 100);
        let (white, black): (
            &mut dyn yinsh_zero::arena::Player<Position>,
            &mut dyn yinsh_zero::arena::Player<Position>,
        ) = if seed % 2 == 0 {
            (perfect.as_mut(), &mut random)
        } else {
            (&mut random, perfect.as_mut())
        };
        let record = play_game(white, black, Position::start(Variant::Three)).unwrap();
        let perfect_colour = if seed % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        match record.result {
            GameResult::Win(c) => assert_eq!(c, perfect_colour, "seed {seed}: lost"),
            GameResult::Draw => {
                assert_ne!(perfect_colour, Color::White, "seed {seed}: drew a won game")
            }
        }
    }
    // The player in a Nine endgame, playing from the database (3 v 3).
    let dir9 = solved(Variant::Nine, Some(3));
    let game9 = Morris::new(Variant::Nine);
    let spec9 = format!("perfect:db={}", dir9.display());
    let db9 = Database::open(dir9, Variant::Nine).unwrap();
    let start = parse_position(Variant::Nine, "WWB.....W.B.....B....... w").unwrap();
    let v = db9.value(&start).unwrap();
    for seed in 0..4u64 {
        let mut perfect = parse_game_player(&game9, &spec9, seed).unwrap();
        let mut random = RandomPlayer::new(seed);
        let record = play_game(perfect.as_mut(), &mut random, start.clone()).unwrap();
        match v.outcome {
            Outcome::Win => assert_eq!(record.result, GameResult::Win(Color::White)),
            _ => assert_ne!(record.result, GameResult::Win(Color::Black)),
        }
    }
}

#[test]
fn best_actions_keep_the_value() {
    let dir = solved(Variant::Three, None);
    let db = Database::open(dir, Variant::Three).unwrap();
    let start = Position::start(Variant::Three);
    let v = db.value(&start).unwrap();
    let best = db.best_actions(&start).unwrap();
    assert!(!best.is_empty());
    for a in best {
        let mut c = start.clone();
        c.play(a).unwrap();
        let after = db.value(&c).unwrap();
        assert_eq!(after.outcome, Outcome::Loss);
        assert_eq!(after.plies + 1, v.plies);
    }
}

fn cli(args: &[&str]) -> (bool, String) {
    let out = yz(args);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn commands_solve_number_and_name_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("three");
    let db = db.to_str().unwrap();
    let (ok, out) = cli(&["solve", "--variant", "three", "--db", db, "--threads", "1"]);
    assert!(ok, "{out}");
    assert!(out.contains("start position: win in 9"), "{out}");
    assert!(
        out.contains("681 symmetry-reduced, 4974 unreduced"),
        "{out}"
    );
    let (ok, out) = cli(&["solve", "--variant", "three", "--db", db]);
    assert!(ok && out.matches("(kept)").count() == 7, "{out}");

    let (ok, out) = cli(&[
        "morris",
        "index",
        "--variant",
        "three",
        "W...B..BW w 1 1",
        "--db",
        db,
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("state number 423") && out.contains("value for white: draw"),
        "{out}"
    );
    let (ok, out) = cli(&[
        "morris",
        "position",
        "--variant",
        "three",
        "423",
        "--db",
        db,
    ]);
    assert!(
        ok && out.contains("layer 2:2 in hand 1:1, index 87"),
        "{out}"
    );
    let (ok, out) = cli(&["morris", "position", "--variant", "three", "498"]);
    assert!(
        !ok && out.contains("state number 498 is out of range"),
        "{out}"
    );
    let (ok, out) = cli(&["morris", "index", "--variant", "three", "W...B..B w 1 1"]);
    assert!(
        !ok && out.contains("W...B..B w 1 1") && out.contains("9 points"),
        "{out}"
    );
    let (ok, out) = cli(&["morris", "layers", "--variant", "six"]);
    assert!(
        ok && out.contains("146 layers, 3142031 states (49986423 unreduced)"),
        "{out}"
    );

    std::fs::write(
        tmp.path().join("three").join("layer-3-3-0-0.mdb"),
        b"MORRISDB",
    )
    .unwrap();
    let (ok, out) = cli(&[
        "morris",
        "index",
        "--variant",
        "three",
        "WW.B.B.BW w",
        "--db",
        db,
    ]);
    assert!(ok && out.contains("layer-3-3-0-0.mdb: truncated"), "{out}");
}

/// Samples of every Nine layer in the database named by `MORRIS_NINE_DB`
/// (a directory `solve --variant nine` wrote) checked by the search over
/// the rules, to `MORRIS_BOUND` turns (default 3), `MORRIS_SAMPLES` states
/// a layer (default 40). Ignored: it needs the big database.
/// `MORRIS_NINE_DB=/work/morris-db/nine cargo test --release --test
/// morris_solve -- --ignored --nocapture nine_database_on_disk`
#[test]
#[ignore]
fn nine_database_on_disk_matches_the_search() {
    let dir = std::env::var("MORRIS_NINE_DB")
        .expect("set MORRIS_NINE_DB to the folder `solve --variant nine` wrote");
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let bound = env("MORRIS_BOUND", 3) as u32;
    let samples = env("MORRIS_SAMPLES", 40);
    let db = Database::open(Path::new(&dir), Variant::Nine).unwrap();
    let mut present: Vec<Layer> = db.layers().collect();
    present.sort_by_key(|l| (l.hm + l.ho, l.a + l.b, l.a, l.b));
    assert!(!present.is_empty(), "no layer files in {dir}");
    for (k, l) in present.into_iter().enumerate() {
        // A database a layer: the one before lets its layer go.
        let db = Database::open(Path::new(&dir), Variant::Nine).unwrap();
        let (exact, bounded) = check_layer(Variant::Nine, &db, l, samples, bound, 100 + k as u64);
        eprintln!("nine {l}: {exact} exact, {bounded} bounded (to {bound} turns)");
    }
}
