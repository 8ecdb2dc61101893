//! The placing phase by search (issue 33): a database holding only the
//! moving-phase layers answers every placing-phase state of Three and Six
//! Men's Morris exactly as the database that solved them state by state.

use crate::common;

use std::path::Path;
use std::sync::OnceLock;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::game::State;
use yinsh_zero::games::morris::address::{Layer, LayerIndex, layers};
use yinsh_zero::games::morris::db::{Database, DbError, Outcome};
use yinsh_zero::games::morris::placing::PlacingSearch;
use yinsh_zero::games::morris::solve::{SolveOptions, solve};
use yinsh_zero::games::morris::{Position, Variant};

/// The whole database (placing layers included), and a copy of its
/// moving-phase layers alone, solved once per test binary.
fn dbs(variant: Variant) -> (&'static Path, &'static Path) {
    static THREE: OnceLock<(tempfile::TempDir, tempfile::TempDir)> = OnceLock::new();
    static SIX: OnceLock<(tempfile::TempDir, tempfile::TempDir)> = OnceLock::new();
    let cell = match variant {
        Variant::Three => &THREE,
        Variant::Six => &SIX,
        Variant::Nine => unreachable!("Nine is not solved in tests"),
    };
    let (full, moving) = cell.get_or_init(|| {
        let full = tempfile::tempdir().unwrap();
        solve(&SolveOptions::new(variant, full.path(), None), |_| {}).unwrap();
        let moving = tempfile::tempdir().unwrap();
        for l in layers(variant).into_iter().filter(|l| l.is_moving()) {
            std::fs::copy(
                full.path().join(l.file_name()),
                moving.path().join(l.file_name()),
            )
            .unwrap();
        }
        (full, moving)
    });
    (full.path(), moving.path())
}

/// A copy of a database directory, for a test that changes it.
fn copy_of(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn placing_layers(variant: Variant) -> Vec<Layer> {
    layers(variant)
        .into_iter()
        .filter(|l| !l.is_moving())
        .collect()
}

/// Compares the searched value of `states` of `layer` with the solved one.
fn compare(
    full: &Database,
    search: &mut PlacingSearch,
    moving: &Database,
    layer: Layer,
    states: impl Iterator<Item = (u32, u32)>,
) -> usize {
    let mut n = 0;
    for (m, o) in states {
        let want = full.state_value(layer, m, o).unwrap();
        let got = search.value(moving, layer, m, o).unwrap();
        assert_eq!(got, want, "layer {layer}, state {m:#x}/{o:#x}");
        assert_eq!(
            search.outcome(moving, layer, m, o).unwrap(),
            want.outcome,
            "layer {layer}, state {m:#x}/{o:#x}"
        );
        n += 1;
    }
    n
}

#[test]
fn three_mens_morris_every_placing_state_matches_the_solved_database() {
    let (full, moving) = dbs(Variant::Three);
    let full = Database::open(full, Variant::Three).unwrap();
    let moving = Database::open(moving, Variant::Three).unwrap();
    assert!(moving.layers().all(|l| l.is_moving()));
    let mut search = PlacingSearch::new(1 << 20, None);
    let mut n = 0;
    for layer in placing_layers(Variant::Three) {
        let ix = LayerIndex::build(Variant::Three, layer);
        n += compare(
            &full,
            &mut search,
            &moving,
            layer,
            (0..ix.len() as u32).map(|i| ix.masks(i)),
        );
    }
    assert!(n > 300, "{n} states");
}

#[test]
fn six_mens_morris_placing_states_match_the_solved_database() {
    let (full, moving) = dbs(Variant::Six);
    let full = Database::open(full, Variant::Six).unwrap();
    let moving = Database::open(moving, Variant::Six).unwrap();
    // A small table, so that replacement is exercised too.
    let mut search = PlacingSearch::new(1 << 16, None);
    let mut rng = SmallRng::seed_from_u64(33);
    let mut n = 0;
    for layer in placing_layers(Variant::Six) {
        let ix = LayerIndex::build(Variant::Six, layer);
        // Every state of the early layers, a sample of the later ones.
        let k = ix.len() as u32;
        let picks: Vec<u32> = if k <= 40 {
            (0..k).collect()
        } else {
            (0..40).map(|_| rng.random_range(0..k)).collect()
        };
        n += compare(
            &full,
            &mut search,
            &moving,
            layer,
            picks.into_iter().map(|i| ix.masks(i)),
        );
    }
    assert!(n > 2000, "{n} states");
    let stats = search.stats();
    assert!(stats.nodes > 0 && stats.lookups > 0, "{stats:?}");
}

#[test]
fn the_database_answers_placing_positions_by_search_where_it_has_no_file() {
    let (full, moving) = dbs(Variant::Six);
    let full = Database::open(full, Variant::Six).unwrap();
    let moving = Database::open(moving, Variant::Six).unwrap();
    let mut pos = Position::start(Variant::Six);
    assert_eq!(moving.value(&pos).unwrap(), full.value(&pos).unwrap());
    assert_eq!(moving.value(&pos).unwrap().outcome, Outcome::Draw);
    // Along a game: the same values and the same best actions (which need
    // the exact length of every win and loss).
    let mut rng = SmallRng::seed_from_u64(7);
    while pos.hand(pos.to_act()) > 0 || pos.removing() {
        let mut a = moving.action_values(&pos).unwrap();
        let mut b = full.action_values(&pos).unwrap();
        a.sort_by_key(|(x, _)| format!("{x:?}"));
        b.sort_by_key(|(x, _)| format!("{x:?}"));
        assert_eq!(a, b, "{pos:?}");
        let actions = pos.legal_actions();
        let pick = actions[rng.random_range(0..actions.len())];
        pos.play(pick).unwrap();
    }
    assert!(moving.search_stats().nodes > 0);
}

#[test]
fn a_search_over_budget_or_missing_a_layer_says_so() {
    let (_, moving) = dbs(Variant::Six);
    let start = Position::start(Variant::Six);
    let db = Database::open(moving, Variant::Six)
        .unwrap()
        .with_placing_search(1 << 16, Some(10));
    let e = db.value(&start).unwrap_err();
    assert!(matches!(e, DbError::SearchLimit { nodes: 10 }), "{e}");
    assert!(e.is_not_solved());
    assert!(e.to_string().contains("gave up after 10 states"), "{e}");

    // Without the full-board layer the start cannot be searched.
    let dir = copy_of(moving);
    let gone = Layer::moving(6, 6);
    std::fs::remove_file(dir.path().join(gone.file_name())).unwrap();
    let db = Database::open(dir.path(), Variant::Six).unwrap();
    let e = db.value(&start).unwrap_err();
    assert!(
        matches!(e, DbError::NotSolved { layer, .. } if layer == gone),
        "{e}"
    );
}

#[test]
fn perfect_over_the_moving_phase_alone_keeps_every_value_from_the_first_stone() {
    use std::sync::Arc;
    use yinsh_zero::arena::parse_game_player;
    use yinsh_zero::games::morris::Morris;
    use yinsh_zero::games::morris::grade::{GradeOptions, grade};

    let (full, moving) = dbs(Variant::Six);
    let game = Morris::new(Variant::Six);
    let judge = Arc::new(Database::open(full, Variant::Six).unwrap());
    // No limit on the search: every placing decision is exact.
    let spec = format!("perfect:db={},search=0", moving.display());
    let mut player = |seed| parse_game_player(&game, &spec, seed).map_err(|e| e.to_string());
    let opts = GradeOptions {
        own_games: 4,
        random_positions: 60,
        perfect_games: 4,
        random_opening: 0,
        endgame_positions: 0,
        seed: 5,
    };
    let r = grade(&game, &judge, &mut player, None, &opts).unwrap();
    for t in [&r.own_games, &r.random_positions] {
        assert!(t.decisions > 0);
        assert_eq!(t.preserving, t.decisions, "{t:?}");
        assert_eq!(t.optimal, t.decisions, "{t:?}");
    }
    assert!(r.mistakes.is_empty(), "{:?}", r.mistakes);
    // Six Men's Morris is a draw: neither perfect side wins.
    let v = &r.versus_perfect;
    assert_eq!((v.wins, v.draws, v.losses), (0, 4, 0), "{v:?}");
}

#[test]
fn the_search_command_values_each_action_and_names_bad_input() {
    use common::cli::{failed, succeeded, yz};
    let (_, moving) = dbs(Variant::Six);
    let db = moving.to_str().unwrap();
    let search = |db: &str, more: &[&str]| {
        let args = ["morris", "search", "--variant", "six", "--db", db];
        yz(args.iter().chain(more))
    };
    let out = succeeded(&search(db, &["--table-mb", "16"]));
    // Sixteen first placements, each with its value, then the start's.
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" look-ups ") && !l.starts_with("value"))
        .collect();
    assert_eq!(lines.len(), 16, "{out}");
    assert!(lines.iter().all(|l| l.contains("draw")), "{out}");
    assert!(out.contains("value for white: draw"), "{out}");
    // Sixteen white stones: not a position.
    let e = failed(&search(db, &["--position", "WWWWWWWWWWWWWWWW w"]));
    assert!(e.contains("position"), "{e}");
    let e = failed(&search("/nonexistent/six", &[]));
    assert!(e.contains("/nonexistent/six"), "{e}");
}

#[test]
fn the_placing_book_holds_the_solved_values_and_is_checked_on_load() {
    use std::time::Duration;
    use yinsh_zero::games::morris::placing_book::{
        FILE_NAME, PlacingBook, build, states_near_start,
    };

    let (full, moving) = dbs(Variant::Six);
    let full = Database::open(full, Variant::Six).unwrap();
    let dir = copy_of(moving);
    let db = Database::open(dir.path(), Variant::Six).unwrap();
    let mut search = PlacingSearch::new(1 << 20, None);
    let save = |b: &PlacingBook| b.save(dir.path());
    // Two turns, then three: the second build keeps the first's entries.
    let two = build(
        &db,
        std::slice::from_mut(&mut search),
        2,
        None,
        Duration::ZERO,
        save,
        |_, _| {},
    )
    .unwrap();
    assert!(two.complete && two.turns == 2);
    assert_eq!(two.len(), states_near_start(Variant::Six, 2).len());
    let old = PlacingBook::load(dir.path(), Variant::Six)
        .unwrap()
        .unwrap();
    assert_eq!(old, two);
    // The third turn by two threads, each with its own table.
    let mut two_searches = [
        PlacingSearch::new(1 << 19, None),
        PlacingSearch::new(1 << 19, None),
    ];
    let three = build(
        &db,
        &mut two_searches,
        3,
        Some(old),
        Duration::ZERO,
        save,
        |_, _| {},
    )
    .unwrap();
    let states = states_near_start(Variant::Six, 3);
    assert_eq!(three.len(), states.len());
    assert!(three.len() > two.len());
    for &(l, m, o) in &states {
        assert_eq!(
            three.get(l, m, o),
            Some(full.state_value(l, m, o).unwrap()),
            "layer {l}, state {m:#x}/{o:#x}"
        );
    }

    // The database answers the start from the book: no search is allowed.
    let start = Position::start(Variant::Six);
    let db = Database::open(dir.path(), Variant::Six)
        .unwrap()
        .with_placing_search(1 << 16, Some(1));
    assert_eq!(db.value(&start).unwrap(), full.value(&start).unwrap());

    // A damaged or truncated book is named, not used.
    let path = dir.path().join(FILE_NAME);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad[30] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let e = Database::open(dir.path(), Variant::Six)
        .unwrap()
        .value(&start)
        .unwrap_err()
        .to_string();
    assert!(e.contains("checksum") && e.contains(FILE_NAME), "{e}");
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    let e = PlacingBook::load(dir.path(), Variant::Six)
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated") && e.contains(FILE_NAME), "{e}");
    let e = PlacingBook::from_bytes(Path::new("b"), &good, Variant::Nine)
        .unwrap_err()
        .to_string();
    assert!(e.contains("variant"), "{e}");
}

#[test]
fn the_placing_bench_proves_six_a_draw_and_prints_its_rates() {
    use common::cli::{succeeded, yz};
    let out = succeeded(&yz(["bench", "morris-placing", "--turns", "3", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["start_value"], "draw", "{v}");
    assert_eq!(
        v["book_entries"].as_u64().unwrap() as usize,
        yinsh_zero::games::morris::placing_book::states_near_start(Variant::Six, 3).len()
    );
    assert!(v["start_states"].as_u64().unwrap() > 0, "{v}");
    assert!(v["states_per_s"].as_f64().unwrap() > 0.0, "{v}");
}

/// `yinsh-zero` with `args` (words split at spaces, then `extra`), which
/// must succeed; its standard output read as JSON.
fn json_run(args: &str, extra: &[&str]) -> serde_json::Value {
    use common::cli::{succeeded, yz};
    let out = succeeded(&yz(args.split_whitespace().chain(extra.iter().copied())));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn grade_searches_the_placing_phase_within_solver_nodes_and_without_limit_at_0() {
    // Over Six's moving layers alone (as Nine's database is), `grade`
    // answers placing decisions by search: with no limit every decision
    // is graded, with a budget of one state the placing ones go unsolved.
    let (_, moving) = dbs(Variant::Six);
    let grade = |nodes: &str| {
        json_run(
            "grade --game morris --variant six --player random --games 2 --positions 0 \
             --vs-perfect 2 --json",
            &["--db", moving.to_str().unwrap(), "--solver-nodes", nodes],
        )
    };
    let all = grade("0");
    for key in ["own_games", "versus_perfect_decisions"] {
        let t = &all[key];
        assert!(t["decisions"].as_u64().unwrap() > 0, "{all}");
        assert_eq!(t["unsolved"].as_u64(), Some(0), "{key}: {all}");
    }
    // Random play loses to perfect play; the perfect side's moves are exact.
    assert_eq!(all["versus_perfect"]["wins"].as_u64(), Some(0), "{all}");
    let starved = grade("1");
    assert!(
        starved["own_games"]["unsolved"].as_u64().unwrap() > 0,
        "{starved}"
    );
}

#[test]
fn the_question_bench_answers_every_sampled_position_or_counts_it_over_budget() {
    use common::cli::{failed, yz};
    let (_, moving) = dbs(Variant::Six);
    let db = moving.to_str().unwrap();
    let bench = |budget: &str| {
        json_run(
            "bench morris-questions --variant six --turns 2-4 --samples 3 --json",
            &["--db", db, "--budget", budget],
        )
    };
    let free = bench("0");
    let rows = free["turns"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{free}");
    for (r, turn) in rows.iter().zip(2..) {
        assert_eq!(r["turn"], turn, "{r}");
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!((n("answered"), n("over_budget")), (3, 0), "{r}");
        assert!(
            n("states_median") > 0,
            "a placing position two turns in needs search: {r}"
        );
        assert!(
            n("states_median") <= n("states_p90") && n("states_p90") <= n("states_max"),
            "{r}"
        );
    }
    // One state a question: no placing position can be answered.
    for r in bench("1")["turns"].as_array().unwrap() {
        assert_eq!(
            (r["answered"].as_u64(), r["over_budget"].as_u64()),
            (Some(0), Some(3)),
            "{r}"
        );
    }
    for (turns, needle) in [
        ("9-3", "after the last"),
        ("12", "turns 0 to 11"),
        ("x", "no turn"),
    ] {
        let e = failed(&yz([
            "bench",
            "morris-questions",
            "--variant",
            "six",
            "--db",
            db,
            "--turns",
            turns,
        ]));
        assert!(e.contains("--turns") && e.contains(needle), "{e}");
    }
}
