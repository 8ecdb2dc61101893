//! Speed of the hot paths, measured on one thread.
//!
//! `bench_engine` times the rules engine alone: whole random games, legal
//! action generation, ring-move generation. Later benchmarks (network,
//! search, self-play) live beside it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::eval::sub_seed;
use crate::yinsh::{ActionList, Decision, Position};

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
/// let b = yinsh_zero::bench::bench_engine(0.03);
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
