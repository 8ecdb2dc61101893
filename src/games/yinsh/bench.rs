//! YINSH's own benchmarks: the rules engine alone (whole random games,
//! legal action generation, ring-move generation) and the baseline players
//! (alpha-beta, rollouts, greedy) on movement-phase positions. `yinsh-zero
//! bench engine` and `bench baselines` print them.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::alphabeta::{AlphaBetaConfig, AlphaBetaPlayer};
use super::{ActionList, Decision, Position, parse_player};
use crate::util::sub_seed;

/// What [`bench_engine`] measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineBench {
    /// Seconds requested, split evenly between the three measurements.
    pub seconds: f64,
    /// Complete uniformly random games per second: every decision's legal
    /// actions, a random choice, playing it (rows, removals, end test).
    pub random_games_per_s: f64,
    /// Decisions played per second inside those games.
    pub decisions_per_s: f64,
    pub random_games: u64,
    /// Full legal action lists per second, over positions sampled from
    /// random games (every decision kind, in game proportions).
    pub movegen_per_s: f64,
    /// Ring-move generations per second: the destinations of every ring of
    /// the side to move, over the sampled movement positions.
    pub ring_movegen_per_s: f64,
    /// Positions sampled from random games for the two generation figures.
    pub sampled_positions: usize,
}

/// Runs the engine benchmark for about `seconds` on the calling thread.
///
/// ```
/// let b = yinsh_zero::games::yinsh::bench::bench_engine(0.03);
/// assert!(b.random_games > 0 && b.movegen_per_s > 0.0);
/// ```
pub fn bench_engine(seconds: f64) -> EngineBench {
    let part = Duration::from_secs_f64(seconds.max(0.0) / 3.0);

    let mut rng = SmallRng::seed_from_u64(sub_seed(0xbe4c, 0));
    let mut list = ActionList::new();
    let (mut games, mut decisions) = (0u64, 0u64);
    let t0 = Instant::now();
    loop {
        let mut pos = Position::new();
        while !pos.is_over() {
            pos.legal_actions_into(&mut list);
            pos.play_unchecked(list[rng.random_range(0..list.len())]);
            decisions += 1;
        }
        black_box(&pos);
        games += 1;
        if t0.elapsed() >= part {
            break;
        }
    }
    let games_time = t0.elapsed().as_secs_f64();

    let sample = sample_positions(64, &mut rng);
    let mut generations = 0u64;
    let t0 = Instant::now();
    loop {
        for pos in &sample {
            black_box(pos).legal_actions_into(&mut list);
            black_box(&list);
        }
        generations += sample.len() as u64;
        if t0.elapsed() >= part {
            break;
        }
    }
    let movegen_time = t0.elapsed().as_secs_f64();

    let moving: Vec<Position> = sample
        .iter()
        .filter(|p| p.decision() == Decision::MoveRing)
        .copied()
        .collect();
    let mut ring_generations = 0u64;
    let t0 = Instant::now();
    loop {
        for pos in &moving {
            let pos = black_box(pos);
            for ring in pos.rings(pos.to_act()) {
                black_box(pos.ring_destinations(ring));
            }
        }
        ring_generations += moving.len() as u64;
        if t0.elapsed() >= part {
            break;
        }
    }
    let ring_time = t0.elapsed().as_secs_f64();

    EngineBench {
        seconds,
        random_games_per_s: games as f64 / games_time,
        decisions_per_s: decisions as f64 / games_time,
        random_games: games,
        movegen_per_s: generations as f64 / movegen_time,
        ring_movegen_per_s: ring_generations as f64 / ring_time,
        sampled_positions: sample.len(),
    }
}

/// Every undecided position of `games` random games.
fn sample_positions(games: usize, rng: &mut SmallRng) -> Vec<Position> {
    let mut out = Vec::new();
    let mut list = ActionList::new();
    for _ in 0..games {
        let mut pos = Position::new();
        while !pos.is_over() {
            out.push(pos);
            pos.legal_actions_into(&mut list);
            pos.play_unchecked(list[rng.random_range(0..list.len())]);
        }
    }
    out
}

/// One baseline's speed.
#[derive(Clone, Debug, Serialize)]
pub struct BaselineSpeed {
    pub player: String,
    /// `nodes`, `playouts` or `decisions`.
    pub unit: &'static str,
    pub per_s: f64,
    /// Decisions searched, and the mean per decision of `unit`.
    pub decisions: u64,
    /// Whether the sampled positions ran out and were searched again (the
    /// transposition table then flatters alpha-beta).
    pub repeated: bool,
    pub per_decision: f64,
    pub seconds: f64,
}

/// The baseline players' speed on one thread, each for about `seconds`,
/// over the same movement-phase positions (sampled with `seed`): returns
/// how many positions and each player's figures.
pub fn bench_baselines(
    seconds: f64,
    playouts: u32,
    seed: u64,
) -> anyhow::Result<(usize, Vec<BaselineSpeed>)> {
    // Many distinct positions, so that alpha-beta's transposition table
    // (kept from decision to decision, as in a game) does not serve repeats.
    let positions = movement_positions(seed, 4096);
    let mut out = Vec::new();
    for depth in [2, 3] {
        let mut ab = AlphaBetaPlayer::new(
            AlphaBetaConfig {
                depth,
                ..AlphaBetaConfig::default()
            },
            seed,
        );
        out.push(measure(
            format!("alphabeta:depth={depth}"),
            "nodes",
            seconds,
            &positions,
            |p| ab.search(p).nodes,
        ));
    }
    let spec = format!("mcts-rollout:playouts={}", playouts);
    let mut mcts = parse_player(&spec, seed)?;
    out.push(measure(spec, "playouts", seconds, &positions, |p| {
        // A fresh game each time, so no tree is reused from the last position.
        mcts.new_game(p);
        mcts.choose(p);
        mcts.info().and_then(|i| i.nodes).unwrap_or(0)
    }));
    let mut greedy = parse_player("greedy", seed)?;
    out.push(measure(
        "greedy".into(),
        "decisions",
        seconds,
        &positions,
        |p| {
            greedy.choose(p);
            1
        },
    ));
    Ok((positions.len(), out))
}

/// Movement-phase positions (more than one legal decision) from random
/// games, where the baselines spend nearly all their time.
fn movement_positions(seed: u64, n: usize) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::new();
        let stop = rng.random_range(12..60);
        while !pos.is_over() && pos.turn() < stop {
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        if !pos.is_over() && pos.decision() == Decision::MoveRing && pos.legal_action_count() > 1 {
            out.push(pos);
        }
    }
    out
}

/// Runs `decide` over `positions` in turn until `seconds` pass; `decide`
/// returns the work units of one decision.
fn measure(
    player: String,
    unit: &'static str,
    seconds: f64,
    positions: &[Position],
    mut decide: impl FnMut(&Position) -> u64,
) -> BaselineSpeed {
    let clock = Instant::now();
    let (mut work, mut decisions) = (0u64, 0u64);
    while decisions == 0 || clock.elapsed().as_secs_f64() < seconds {
        work += decide(&positions[decisions as usize % positions.len()]);
        decisions += 1;
    }
    let elapsed = clock.elapsed().as_secs_f64();
    BaselineSpeed {
        player,
        unit,
        per_s: work as f64 / elapsed,
        decisions,
        repeated: decisions as usize > positions.len(),
        per_decision: work as f64 / decisions as f64,
        seconds: elapsed,
    }
}
