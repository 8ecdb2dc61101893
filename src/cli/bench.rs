//! `yinsh-zero bench <what>`: speed of one hot path.

use std::time::Instant;

use anyhow::ensure;
use clap::Subcommand;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use yinsh_zero::arena::GamePlayers;
use yinsh_zero::bench::{
    SelfPlayBench, TrainBench, bench_engine, bench_selfplay, bench_train, bench_workers,
};
use yinsh_zero::game::Game;
use yinsh_zero::games::yinsh::alphabeta::{AlphaBetaConfig, AlphaBetaPlayer};
use yinsh_zero::games::yinsh::{Decision, Position, Yinsh, parse_player};
use yinsh_zero::games::{GameTask, with_game};
use yinsh_zero::mcts::{SearchConfig, bench_search, bench_search_with};
use yinsh_zero::nn::{BenchOptions, NnError, bench_nn};
use yinsh_zero::nn::{InferenceOptions, NetEvaluator};
use yinsh_zero::run::config::RunConfig;
use yinsh_zero::selfplay::SelfPlayError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to measure.
#[derive(Subcommand)]
pub enum What {
    /// The rules engine on one thread: random games, legal action and
    /// ring-move generation per second.
    Engine(EngineArgs),
    /// The tree search on one thread with games in flight as in self-play:
    /// simulations per second with a uniform evaluator (search overhead alone).
    Search(SearchArgs),
    /// The default network's inference: positions/s at batch 1..256 and GFLOP/s.
    Nn(NnArgs),
    /// Real self-play at a config (default: the default config) with a fresh
    /// network: games/hour, network positions/s, network time share, CPU use.
    Selfplay(SelfplayArgs),
    /// The baseline players on one thread, over the same sampled
    /// movement-phase positions: alpha-beta nodes/s at depths 2 and 3,
    /// mcts-rollout playouts/s, greedy decisions/s.
    Baselines(BaselinesArgs),
    /// Training: samples/s through gradient steps at the config's network and batch.
    Train(TrainArgs),
    /// Self-play workers (`yinsh-zero worker`) of a run at a location, as
    /// separate processes: games/hour per worker and in all, and the time
    /// each spent uploading. An empty run gets a fresh network first; on
    /// fresh runs the workers play the same games whatever the store.
    Workers(WorkersArgs),
}

#[derive(clap::Args)]
pub struct WorkersArgs {
    /// The run: a directory, file://DIR or s3://BUCKET/PREFIX.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Run config (default: the embedded default config).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Worker processes, one self-play thread each.
    #[arg(long, default_value_t = 1)]
    pub processes: usize,
    /// Batches each worker plays (`[workers] games_per_batch` games each).
    #[arg(long, default_value_t = 2)]
    pub batches: u64,
}

#[derive(clap::Args)]
pub struct NnArgs {
    /// Seconds per batch size.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Inference threads (default 1: what each self-play worker uses).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Residual blocks (default: the network's default, as the default config trains).
    #[arg(long)]
    pub blocks: Option<usize>,
    /// Trunk channels (default: the network's default).
    #[arg(long)]
    pub channels: Option<usize>,
    /// On the CPU, time burn's graph instead of the native pass (nn/cpu.rs)
    /// that inference uses.
    #[arg(long)]
    pub burn_graph: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct BaselinesArgs {
    /// Seconds to measure each player for.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Playouts per mcts-rollout decision.
    #[arg(long, default_value_t = 1000)]
    pub playouts: u32,
    /// Seed of the sampled positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct SelfplayArgs {
    /// Seconds of self-play to measure.
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// Run config (default: the embedded default config).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct TrainArgs {
    /// Seconds of gradient steps to time (after one warm-up step).
    #[arg(long, default_value_t = 20.0)]
    pub seconds: f64,
    /// Run config for [model] and [train] (default: the embedded default config).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// On the CPU, step through burn's autodiff graph instead of the
    /// native training pass (for comparison).
    #[arg(long)]
    pub burn_graph: bool,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

/// One baseline's speed.
#[derive(Serialize)]
struct BaselineSpeed {
    player: String,
    /// `nodes`, `playouts` or `decisions`.
    unit: &'static str,
    per_s: f64,
    /// Decisions searched, and the mean per decision of `unit`.
    decisions: u64,
    /// Whether the sampled positions ran out and were searched again (the
    /// transposition table then flatters alpha-beta).
    repeated: bool,
    per_decision: f64,
    seconds: f64,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Seconds to measure for.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Simulations per move.
    #[arg(long, default_value_t = 200)]
    pub sims: u32,
    /// Games stepped together, one leaf each per batch.
    #[arg(long, default_value_t = 32)]
    pub games: usize,
    /// Use Gumbel root search instead of PUCT.
    #[arg(long)]
    pub gumbel: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct EngineArgs {
    /// Seconds to measure for, split over the three measurements.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Engine(a) => engine(a),
        What::Search(a) => search(a),
        What::Nn(a) => nn(a),
        What::Selfplay(a) => selfplay(a),
        What::Baselines(a) => baselines(a),
        What::Train(a) => train(a),
        What::Workers(a) => workers(a),
    }
}

fn check_seconds(seconds: f64) -> anyhow::Result<()> {
    ensure!(
        seconds.is_finite() && seconds > 0.0,
        "--seconds must be a positive number, got {seconds}"
    );
    Ok(())
}

fn nn(args: NnArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    let mut model = yinsh_zero::nn::ModelConfig::new();
    model.blocks = args.blocks.unwrap_or(model.blocks);
    model.channels = args.channels.unwrap_or(model.channels);
    let default = RunConfig::load(None)?;
    let opts = BenchOptions {
        backend: args.backend.choose(default.run.backend),
        model,
        min_seconds: args.seconds,
        threads: Some(args.threads.max(1)),
        // The headline batch is what one self-play worker evaluates at once.
        self_play_batch: default.selfplay.games_in_flight,
        native_cpu: !args.burn_graph,
        ..BenchOptions::default()
    };
    let b = bench_nn(&Yinsh::standard(), &opts)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!(
            "network {}x{} on {}{}, {} inference thread(s), {:.1} MFLOP/position",
            b.blocks,
            b.channels,
            b.backend,
            if b.native_cpu {
                " (native CPU pass)"
            } else {
                " (burn's graph)"
            },
            args.threads.max(1),
            b.flops_per_position as f64 / 1e6
        );
        for r in &b.by_batch {
            println!(
                "batch {:>4}: {:>9.1} positions/s {:>7.2} GFLOP/s",
                r.batch, r.positions_per_s, r.gflops
            );
        }
        println!(
            "self-play batch {}: {:.1} positions/s, {:.2} GFLOP/s",
            b.batch, b.positions_per_s, b.gflops
        );
    }
    Ok(())
}

fn train(args: TrainArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    let mut cfg = RunConfig::load(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    struct Bench<'a>(&'a RunConfig, f64, bool);
    impl GameTask for Bench<'_> {
        type Output = Result<TrainBench, NnError>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            bench_train(&game, self.0, self.1, self.2)
        }
    }
    let b = with_game(
        &cfg.game.name,
        &cfg.game.variant,
        Bench(&cfg, args.seconds, args.burn_graph),
    )??;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!(
            "training {}x{} at batch {} on {}{} ({} threads): {:.1} samples/s ({} steps in {:.1} s)",
            b.blocks,
            b.channels,
            b.batch_size,
            b.backend,
            if b.native_cpu {
                " (native CPU pass)"
            } else {
                " (burn's graph)"
            },
            b.threads,
            b.samples_per_s,
            b.steps,
            b.seconds
        );
    }
    Ok(())
}

fn selfplay(args: SelfplayArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    let mut cfg = RunConfig::load(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    struct Bench<'a>(&'a RunConfig, f64);
    impl GameTask for Bench<'_> {
        type Output = Result<SelfPlayBench, SelfPlayError>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            bench_selfplay(&game, self.0, self.1)
        }
    }
    let b = with_game(&cfg.game.name, &cfg.game.variant, Bench(&cfg, args.seconds))??;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!(
            "self-play benchmark: {} workers x {} games in flight, network on {}, {:.0} s",
            b.workers, b.games_in_flight, b.backend, b.seconds
        );
        println!(
            "games/hour:          {:>10.0}{}",
            b.games_per_hour,
            if b.games_per_hour_estimated {
                " (too few games finished in the window: estimated from a uniform evaluator's positions per game)"
            } else {
                ""
            }
        );
        println!("network positions/s: {:>10.1}", b.positions_per_s);
        println!("network time share:  {:>10.1}%", 100.0 * b.nn_time_share);
        println!("decisions/s:         {:>10.1}", b.decisions_per_s);
        println!(
            "CPU use:             {:>10.1}% of {} cores",
            100.0 * b.cpu_utilization,
            b.workers
        );
        match b.server {
            Some(s) => println!(
                "inference server:    {:>10.1} positions a call ({} calls, {:.2} workers' batches a call)",
                s.mean_batch(),
                s.calls,
                s.mean_requests()
            ),
            None => println!("inference:           a network per worker"),
        }
    }
    Ok(())
}

fn search(args: SearchArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    ensure!(args.sims > 0, "--sims must be at least 1");
    let cfg = SearchConfig {
        simulations: args.sims,
        gumbel: args.gumbel,
        ..SearchConfig::default()
    };
    cfg.validate()?;
    let uniform = bench_search(&Position::new(), args.seconds, &cfg, args.games, 1);
    // The same search with the default network, one inference thread, as
    // one self-play worker runs it.
    let default = RunConfig::load(None)?;
    let device = args.backend.choose(default.run.backend).device()?;
    let game = Yinsh::standard();
    let model = default
        .model
        .to_model_config()
        .init(&game.net_shape(), &device);
    let mut net = NetEvaluator::new(game, model, device, InferenceOptions::default())?;
    let with_net = bench_search_with(
        &Position::new(),
        args.seconds,
        &cfg,
        args.games,
        1,
        &mut net,
    );
    let report = serde_json::json!({
        "sims_per_s": with_net.sims_per_s_uniform,
        "sims_per_s_uniform": uniform.sims_per_s_uniform,
        "games_in_flight": uniform.games_in_flight,
        "simulations_per_move": uniform.simulations_per_move,
        "gumbel": uniform.gumbel,
        "seconds": args.seconds,
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "search benchmark ({}), one thread, {} games in flight, {} sims/move",
            if uniform.gumbel { "Gumbel" } else { "PUCT" },
            uniform.games_in_flight,
            uniform.simulations_per_move,
        );
        println!(
            "simulations/s with the default network: {:>10.0}",
            with_net.sims_per_s_uniform
        );
        println!(
            "simulations/s, uniform evaluator:       {:>10.0}  (search overhead alone)",
            uniform.sims_per_s_uniform
        );
    }
    Ok(())
}

fn engine(args: EngineArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    let b = bench_engine(args.seconds);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!("engine benchmark, one thread, {:.1} s", b.seconds);
        println!(
            "random games:        {:>12.0} /s  ({} games, {:.0} decisions/s)",
            b.random_games_per_s, b.random_games, b.decisions_per_s
        );
        println!(
            "legal action lists:  {:>12.0} /s  (over {} sampled positions)",
            b.movegen_per_s, b.sampled_positions
        );
        println!(
            "ring-move generation:{:>12.0} /s  (all rings of the side to move)",
            b.ring_movegen_per_s
        );
    }
    Ok(())
}

/// Movement-phase positions (more than one legal decision) from random
/// games, where the baselines spend nearly all their time.
fn sample_positions(seed: u64, n: usize) -> Vec<Position> {
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

fn baselines(args: BaselinesArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    ensure!(args.playouts > 0, "--playouts must be at least 1");
    // Many distinct positions, so that alpha-beta's transposition table
    // (kept from decision to decision, as in a game) does not serve repeats.
    let positions = sample_positions(args.seed, 4096);
    let mut out = Vec::new();
    for depth in [2, 3] {
        let mut ab = AlphaBetaPlayer::new(
            AlphaBetaConfig {
                depth,
                ..AlphaBetaConfig::default()
            },
            args.seed,
        );
        out.push(measure(
            format!("alphabeta:depth={depth}"),
            "nodes",
            args.seconds,
            &positions,
            |p| ab.search(p).nodes,
        ));
    }
    let spec = format!("mcts-rollout:playouts={}", args.playouts);
    let mut mcts = parse_player(&spec, args.seed)?;
    out.push(measure(spec, "playouts", args.seconds, &positions, |p| {
        // A fresh game each time, so no tree is reused from the last position.
        mcts.new_game(p);
        mcts.choose(p);
        mcts.info().and_then(|i| i.nodes).unwrap_or(0)
    }));
    let mut greedy = parse_player("greedy", args.seed)?;
    out.push(measure(
        "greedy".into(),
        "decisions",
        args.seconds,
        &positions,
        |p| {
            greedy.choose(p);
            1
        },
    ));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "baseline benchmark, one thread, {} sampled movement-phase positions",
            positions.len()
        );
        for b in &out {
            println!(
                "{:<28} {:>12.0} {}/s  ({} decisions, {:.0} {} per decision, {:.1} s){}",
                b.player,
                b.per_s,
                b.unit,
                b.decisions,
                b.per_decision,
                b.unit,
                b.seconds,
                if b.repeated {
                    "  (positions repeated)"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}

fn workers(args: WorkersArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe()?;
    let b = bench_workers(
        &exe,
        &args.run,
        args.config.as_deref(),
        args.processes,
        args.batches,
    )?;
    if b.published_fresh {
        eprintln!("{}: published a fresh network (generation 0)", b.run);
    }
    println!(
        "workers benchmark: {} process(es) x 1 thread, {} batches of {} games each, run {}",
        args.processes, args.batches, b.games_per_batch, b.run
    );
    for (i, w) in b.workers.iter().enumerate() {
        println!(
            "worker {i}: {:>8.0} games/hour, uploading {:.2} s of {:.1} s ({:.2}%)",
            w.games_per_hour,
            w.upload_s,
            w.busy_s,
            100.0 * w.upload_s / w.busy_s
        );
    }
    println!(
        "in all:   {:>8.0} games/hour ({} games in {:.1} s, process start-up included)",
        b.games as f64 * 3600.0 / b.seconds,
        b.games,
        b.seconds
    );
    Ok(())
}
