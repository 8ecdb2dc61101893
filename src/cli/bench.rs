//! `yinsh-zero bench <what>`: speed of one hot path.

use anyhow::ensure;
use clap::Subcommand;

use crate::arena::GamePlayers;
use crate::arena::{MAX_THREADS, default_batch};
use crate::bench::{SelfPlayBench, TrainBench, bench_selfplay, bench_train, bench_workers};
use crate::checkpoint;
use crate::games::{GameTask, Registry};
use crate::mcts::{
    OneGameBench, SearchBench, SearchConfig, bench_one_game, bench_search, bench_search_with,
};
use crate::nn::{BenchOptions, NnError, bench_nn};
use crate::nn::{InferenceOptions, NetEvaluator};
use crate::run::config::RunConfig;
use crate::selfplay::SelfPlayError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to measure.
#[derive(Subcommand)]
pub enum What {
    /// A game's own benchmarks (YINSH: `engine`, the rules engine;
    /// `baselines`, its classical players).
    #[command(flatten)]
    Game(crate::games::GameBench),
    /// The tree search on one thread with games in flight as in self-play:
    /// simulations per second with a uniform evaluator (search overhead
    /// alone) and the default network. With --threads N above 1: one game's
    /// search as `net-mcts` plays it, on 1 thread and on N threads.
    Search(SearchArgs),
    /// The default network's inference: positions/s at batch 1..256 and GFLOP/s.
    Nn(NnArgs),
    /// Real self-play at a config (default: the default config) with a fresh
    /// network: games/hour, network positions/s, network time share, CPU use.
    Selfplay(SelfplayArgs),
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
    /// The game whose network or search is timed (default: the home game,
    /// `yinsh` in `yinsh-zero`).
    #[arg(long)]
    pub game: Option<String>,
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
    /// Channels of the globally pooled branch (`[model] global_pool_channels`;
    /// default 0, none).
    #[arg(long)]
    pub global_pool_channels: Option<usize>,
    /// The blocks with the branch: every this many (`[model] global_pool_every`).
    #[arg(long)]
    pub global_pool_every: Option<usize>,
    /// Batch sizes to time, comma-separated (default 1,8,32,64,128,256; the
    /// self-play batch is timed too).
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub batches: Option<Vec<usize>>,
    /// On the CPU, time burn's graph instead of the native pass (nn/cpu.rs)
    /// that inference uses.
    #[arg(long)]
    pub burn_graph: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub simd: super::SimdArg,
    #[command(flatten)]
    pub backend: super::BackendArg,
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
    pub simd: super::SimdArg,
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
    pub simd: super::SimdArg,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// The game whose network or search is timed (default: the home game,
    /// `yinsh` in `yinsh-zero`).
    #[arg(long)]
    pub game: Option<String>,
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
    /// Above 1: time one game's search at play settings (no noise, one
    /// tree, the network's cache off) instead, on 1 thread leaf by leaf and
    /// on this many threads with --batch leaves per step (virtual loss),
    /// alternating --rounds times, and print both rates and their ratio.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Leaves gathered per step on --threads (default: what `net-mcts`
    /// takes for that many threads).
    #[arg(long)]
    pub batch: Option<usize>,
    /// Rounds of the --threads comparison, each --seconds on 1 thread then
    /// on N (alternating, so that other work on the machine weighs on both).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// With --threads: split every layer of each batch's pass over the
    /// threads instead of running one share of the batch per thread side
    /// by side (the evaluator's default), to compare the two.
    #[arg(long)]
    pub layer_split: bool,
    /// Time this checkpoint's network instead of a fresh default one (for
    /// --threads: a trained network's trees, as played).
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub simd: super::SimdArg,
    #[command(flatten)]
    pub backend: super::BackendArg,
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Game(b) => b.run(),
        What::Search(a) => search::<R>(a),
        What::Nn(a) => nn::<R>(a),
        What::Selfplay(a) => selfplay::<R>(a),
        What::Train(a) => train::<R>(a),
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

fn nn<R: Registry>(args: NnArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    args.simd.apply()?;
    let mut model = crate::nn::ModelConfig::new();
    model.blocks = args.blocks.unwrap_or(model.blocks);
    model.channels = args.channels.unwrap_or(model.channels);
    model.global_pool_channels = args
        .global_pool_channels
        .unwrap_or(model.global_pool_channels);
    model.global_pool_every = args.global_pool_every.unwrap_or(model.global_pool_every);
    model
        .check_global_pool()
        .map_err(|e| anyhow::anyhow!("--global-pool-every: {e}"))?;
    let default = RunConfig::load(None)?;
    if let Some(batches) = &args.batches {
        ensure!(
            !batches.is_empty() && batches.iter().all(|&b| (1..=65_536).contains(&b)),
            "--batches must list batch sizes from 1 to 65536, got {batches:?}"
        );
    }
    let opts = BenchOptions {
        backend: args.backend.choose(default.run.backend),
        batches: args
            .batches
            .clone()
            .unwrap_or_else(|| BenchOptions::default().batches),
        model,
        min_seconds: args.seconds,
        threads: Some(args.threads.max(1)),
        // The headline batch is what one self-play worker evaluates at once.
        self_play_batch: default.selfplay.games_in_flight,
        native_cpu: !args.burn_graph,
    };
    struct Nn(BenchOptions);
    impl GameTask for Nn {
        type Output = Result<crate::nn::NnBench, NnError>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            bench_nn(&game, &self.0)
        }
    }
    let game = super::game_of::<R>(&args.game);
    let variant = R::default_variant(game)?;
    let b = R::with_game(game, variant, Nn(opts))??;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        print_nn(&b, args.threads.max(1));
    }
    Ok(())
}

/// `bench nn`'s report as text.
fn print_nn(b: &crate::nn::NnBench, threads: usize) {
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
        threads,
        b.flops_per_position as f64 / 1e6
    );
    println!(
        "CPU: {} ({}); kernels on the {} path",
        b.cpu.as_deref().unwrap_or("unknown model"),
        b.cpu_flags.join(" "),
        b.simd
    );
    match b.fma_peak_gflops {
        Some(p) => println!(
            "peak: {p:.1} GFLOP/s, one core's fp32 FMA loop in {} registers; GFLOP/s below \
             count a direct convolution's multiply-adds",
            crate::nn::simd::peak_path(b.simd)
        ),
        None => println!("peak: not measured on this architecture"),
    }
    for r in &b.by_batch {
        let share = r
            .peak_share
            .map(|s| format!(" {s:>5.2}x peak"))
            .unwrap_or_default();
        println!(
            "batch {:>4}: {:>9.1} positions/s {:>7.2} GFLOP/s{share}",
            r.batch, r.positions_per_s, r.gflops
        );
    }
    println!(
        "self-play batch {}: {:.1} positions/s, {:.2} GFLOP/s",
        b.batch, b.positions_per_s, b.gflops
    );
}

fn train<R: Registry>(args: TrainArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    args.simd.apply()?;
    let mut cfg = RunConfig::load_for::<R>(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    struct Bench<'a>(&'a RunConfig, f64, bool);
    impl GameTask for Bench<'_> {
        type Output = Result<TrainBench, NnError>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            bench_train(&game, self.0, self.1, self.2)
        }
    }
    let b = R::with_game(
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

fn selfplay<R: Registry>(args: SelfplayArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    args.simd.apply()?;
    let mut cfg = RunConfig::load_for::<R>(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    struct Bench<'a>(&'a RunConfig, f64);
    impl GameTask for Bench<'_> {
        type Output = Result<SelfPlayBench, SelfPlayError>;
        fn run<G: GamePlayers>(self, game: G) -> Self::Output {
            bench_selfplay(&game, self.0, self.1)
        }
    }
    let b = R::with_game(&cfg.game.name, &cfg.game.variant, Bench(&cfg, args.seconds))??;
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

/// The search over a uniform evaluator and over a fresh default network,
/// from the game's start.
struct Search<'a> {
    args: &'a SearchArgs,
    cfg: &'a SearchConfig,
    model: crate::nn::ModelConfig,
    backend: crate::nn::BackendKind,
}

impl GameTask for Search<'_> {
    type Output = anyhow::Result<(SearchBench, SearchBench)>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let (args, start) = (self.args, game.start());
        let uniform = bench_search(&start, args.seconds, self.cfg, args.games, 1);
        // The same search with the default network, one inference thread,
        // as one self-play worker runs it.
        let device = self.backend.device()?;
        let model = self.model.init(&game.net_shape(), &device);
        let mut net = NetEvaluator::new(game, model, device, InferenceOptions::default())?;
        let with_net = bench_search_with(&start, args.seconds, self.cfg, args.games, 1, &mut net);
        Ok((uniform, with_net))
    }
}

fn search<R: Registry>(args: SearchArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    args.simd.apply()?;
    ensure!(args.sims > 0, "--sims must be at least 1");
    ensure!(
        (1..=MAX_THREADS).contains(&args.threads),
        "--threads must be from 1 to {MAX_THREADS}"
    );
    if args.threads > 1 {
        return search_threads::<R>(args);
    }
    let cfg = SearchConfig {
        simulations: args.sims,
        gumbel: args.gumbel,
        ..SearchConfig::default()
    };
    cfg.validate()?;
    let default = RunConfig::load(None)?;
    let backend = args.backend.choose(default.run.backend);
    let game = super::game_of::<R>(&args.game);
    let variant = R::default_variant(game)?;
    ensure!(
        args.checkpoint.is_none(),
        "--checkpoint is for the --threads comparison"
    );
    let task = Search {
        args: &args,
        cfg: &cfg,
        model: default.model.to_model_config(),
        backend,
    };
    let (uniform, with_net) = R::with_game(game, variant, task)??;
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

/// One game's search as `net-mcts` plays it, on one thread and on
/// `threads`, the same network for both, in alternating rounds.
struct OneGame<'a> {
    args: &'a SearchArgs,
    cfg: SearchConfig,
    batch: usize,
    model: crate::nn::ModelConfig,
    backend: crate::nn::BackendKind,
}

impl GameTask for OneGame<'_> {
    type Output = anyhow::Result<Vec<[OneGameBench; 2]>>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let args = self.args;
        let device = self.backend.device()?;
        let model = match &args.checkpoint {
            Some(dir) => checkpoint::load_model(&game, dir, &device)?.0,
            None => self.model.init(&game.net_shape(), &device),
        };
        // No cache: a benchmark that replays its game would find it full.
        let options = |threads| InferenceOptions {
            threads: Some(threads),
            cache_capacity: 0,
            side_by_side: !args.layer_split,
            ..InferenceOptions::default()
        };
        let start = game.start();
        let mut one = NetEvaluator::new(game.clone(), model.clone(), device.clone(), options(1))?;
        let mut many = NetEvaluator::new(game, model, device, options(args.threads))?;
        let secs = args.seconds;
        Ok((0..args.rounds.max(1) as u64)
            .map(|r| {
                [
                    bench_one_game(&start, secs, &self.cfg, 1, r, &mut one),
                    bench_one_game(&start, secs, &self.cfg, self.batch, r, &mut many),
                ]
            })
            .collect())
    }
}

fn search_threads<R: Registry>(args: SearchArgs) -> anyhow::Result<()> {
    let cfg = SearchConfig {
        simulations: args.sims,
        gumbel: args.gumbel,
        ..SearchConfig::for_play()
    };
    cfg.validate()?;
    let batch = args.batch.unwrap_or(default_batch(args.threads));
    ensure!((1..=256).contains(&batch), "--batch must be from 1 to 256");
    let default = RunConfig::load(None)?;
    let task = OneGame {
        args: &args,
        cfg,
        batch,
        model: default.model.to_model_config(),
        backend: args.backend.choose(default.run.backend),
    };
    let game = super::game_of::<R>(&args.game);
    let variant = R::default_variant(game)?;
    let rounds = R::with_game(game, variant, task)??;
    let median = |i: usize| {
        let mut r: Vec<f64> = rounds.iter().map(|b| b[i].sims_per_s).collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    let (one, many) = (median(0), median(1));
    if args.json {
        let report = serde_json::json!({
            "threads": args.threads,
            "batch": batch,
            "layer_split": args.layer_split,
            "sims_per_s_1_thread": one,
            "sims_per_s_n_threads": many,
            "speedup": many / one,
            "rounds": rounds,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "one game's search ({}, {} sims/move, {}), 1 thread leaf by leaf against {} threads \
         with batches of {batch} ({})",
        if args.gumbel { "Gumbel" } else { "PUCT" },
        args.sims,
        match &args.checkpoint {
            Some(dir) => format!("network {}", dir.display()),
            None => "fresh default network".into(),
        },
        args.threads,
        if args.layer_split {
            "every layer split over the threads"
        } else {
            "one share of each batch per thread"
        },
    );
    for (r, [a, b]) in rounds.iter().enumerate() {
        println!(
            "round {}: {:>7.0} simulations/s on 1 thread, {:>7.0} on {} ({:.2}x; {:.2} leaves per call)",
            r + 1,
            a.sims_per_s,
            b.sims_per_s,
            args.threads,
            b.sims_per_s / a.sims_per_s,
            b.mean_leaves_per_call
        );
    }
    println!(
        "median: {one:.0} simulations/s on 1 thread, {many:.0} on {}: {:.2}x",
        args.threads,
        many / one
    );
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
