//! The batched duel (gating) plays exactly the games the arena plays with
//! the same searching players, in the arena's schedule, and honours SPRT
//! and stop requests.

use std::sync::atomic::{AtomicUsize, Ordering};

use yinsh_zero::arena::{
    ArenaConfig, ArenaGame, DuelSettings, Player, SearchPlayer, Sprt, run_arena, run_duel,
};
use yinsh_zero::evaluator::{Evaluation, Evaluator, UniformEvaluator};
use yinsh_zero::games::yinsh::{Position, Yinsh};
use yinsh_zero::mcts::SearchConfig;

/// A deterministic evaluator with opinions (removed rings, markers, and a
/// bias to low action indices), so that its searches differ from the
/// uniform evaluator's and the two sides' leaves must not be mixed up.
#[derive(Clone, Copy)]
struct MarkerCounter;

impl Evaluator<Position> for MarkerCounter {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let me = p.to_act();
                let legal = p.legal_actions();
                let priors: Vec<f32> = legal
                    .iter()
                    .map(|a| 1.0 + 1.0 / (1.0 + (a.index() % 97) as f32))
                    .collect();
                let rings = p.rings_removed(me) as f32 - p.rings_removed(!me) as f32;
                let markers = p.markers(me).count() as f32 - p.markers(!me).count() as f32;
                let v = (0.8 * rings + 0.02 * markers).tanh();
                let win = (0.5 + 0.45 * v).clamp(0.0, 1.0);
                Evaluation {
                    priors,
                    wdl: [win * 0.9, 0.1, (1.0 - win) * 0.9],
                    margin: 0.0,
                }
            })
            .collect()
    }
}

fn search() -> SearchConfig {
    SearchConfig {
        simulations: 12,
        ..SearchConfig::for_play()
    }
}

fn settings(workers: usize, in_flight: usize) -> DuelSettings {
    DuelSettings {
        search: search(),
        workers,
        games_in_flight: in_flight,
    }
}

fn arena_games(config: &ArenaConfig<Yinsh>) -> Vec<ArenaGame> {
    let factory = |spec: &str, seed: u64| -> Result<Box<dyn Player<Position>>, String> {
        Ok(match spec {
            "counter" => Box::new(SearchPlayer::new(
                spec.into(),
                MarkerCounter,
                search(),
                None,
                seed,
            )),
            _ => Box::new(SearchPlayer::new(
                spec.into(),
                UniformEvaluator,
                search(),
                None,
                seed,
            )),
        })
    };
    run_arena(config, &factory, &mut |_| {}).unwrap().games
}

/// Either side's evaluator as one type.
enum Side {
    Counter(MarkerCounter),
    Uniform(UniformEvaluator),
}

impl Evaluator<Position> for Side {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        match self {
            Side::Counter(e) => e.evaluate(positions),
            Side::Uniform(e) => e.evaluate(positions),
        }
    }
}

fn sides() -> Result<[Side; 2], String> {
    Ok([
        Side::Counter(MarkerCounter),
        Side::Uniform(UniformEvaluator),
    ])
}

#[test]
fn duel_plays_the_arenas_games() {
    let config = ArenaConfig::round_robin(Yinsh::standard(), &["counter", "uniform"], 8, 11);
    let expected = arena_games(&config);
    // Different worker and batch layouts change nothing.
    for (workers, in_flight) in [(1, 8), (2, 3)] {
        let r = run_duel(
            &config,
            &settings(workers, in_flight),
            |_| sides(),
            &|_| {},
            &|| false,
        )
        .unwrap();
        assert!(!r.interrupted);
        assert_eq!(r.arena.games, expected, "{workers} workers x {in_flight}");
        assert_eq!(r.arena.pairings[0].results.games(), 8);
    }
    // Colours alternate and each opening is played twice.
    assert_eq!(expected[0].opening, expected[1].opening);
    assert_ne!(expected[0].opening, expected[2].opening);
    assert!(expected[0].first_white && !expected[1].first_white);
    // The games were played to their end by the rules.
    for g in &expected {
        assert!(g.length > 10, "{g:?}");
        assert!(
            ["three_rings", "pool_empty", "double_pass"].contains(&g.reason.as_str()),
            "{g:?}"
        );
    }
}

#[test]
fn duel_sprt_stops_where_the_arenas_does() {
    let mut config = ArenaConfig::round_robin(Yinsh::standard(), &["counter", "uniform"], 40, 5);
    config.sprt = Some(Sprt::new(0.0, 200.0).unwrap());
    let expected = arena_games(&config);
    assert!(expected.len() < 40, "the SPRT should decide early");
    let seen = AtomicUsize::new(0);
    let r = run_duel(
        &config,
        &settings(2, 4),
        |_| sides(),
        &|g| {
            seen.fetch_add(g.len(), Ordering::Relaxed);
        },
        &|| false,
    )
    .unwrap();
    assert!(!r.interrupted);
    assert_eq!(r.arena.games, expected);
    assert_eq!(seen.load(Ordering::Relaxed), expected.len());
    assert_ne!(
        r.arena.sprt.unwrap().verdict,
        yinsh_zero::arena::Verdict::Continue
    );
}

#[test]
fn a_stop_request_drops_unfinished_games() {
    let config = ArenaConfig::round_robin(Yinsh::standard(), &["counter", "uniform"], 20, 2);
    let counted = AtomicUsize::new(0);
    let r = run_duel(
        &config,
        &settings(1, 2),
        |_| sides(),
        &|g| {
            counted.fetch_add(g.len(), Ordering::Relaxed);
        },
        &|| counted.load(Ordering::Relaxed) >= 3,
    )
    .unwrap();
    assert!(r.interrupted);
    assert!(r.arena.games.len() >= 3 && r.arena.games.len() < 20);
    // Counted games are a prefix of the schedule.
    for (k, g) in r.arena.games.iter().enumerate() {
        assert_eq!(g.index as usize, k);
    }
}

#[test]
fn bad_duels_are_refused() {
    let three = ArenaConfig::round_robin(Yinsh::standard(), &["a", "b", "c"], 2, 1);
    let err = run_duel(&three, &settings(1, 1), |_| sides(), &|_| {}, &|| false).unwrap_err();
    assert!(err.to_string().contains("exactly two players"), "{err}");
    let two = ArenaConfig::round_robin(Yinsh::standard(), &["a", "b"], 2, 1);
    let err = run_duel(&two, &settings(0, 1), |_| sides(), &|_| {}, &|| false).unwrap_err();
    assert!(err.to_string().contains("worker"), "{err}");
    let err = run_duel(
        &two,
        &settings(1, 1),
        |w| -> Result<[Side; 2], String> { Err(format!("no network for worker {w}")) },
        &|_| {},
        &|| false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("no network for worker 0"), "{err}");
}
