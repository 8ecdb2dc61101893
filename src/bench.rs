//! Speed of the hot paths every game shares: self-play, training and
//! self-play workers. (A game's own, such as YINSH's rules engine, live in
//! its folder.)

use std::time::Instant;

/// Self-play throughput on this machine with a real network.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SelfPlayBench {
    /// Complete games per hour: network positions per second divided by the
    /// network positions a game needs (measured on the games completed in
    /// the window, or, when fewer completed than were in flight, on games of
    /// the same search settings with a uniform evaluator:
    /// `games_per_hour_estimated`).
    pub games_per_hour: f64,
    pub games_per_hour_estimated: bool,
    /// Positions evaluated by the network per second, all workers together.
    pub positions_per_s: f64,
    /// Share of worker time spent inside the network.
    pub nn_time_share: f64,
    pub decisions_per_s: f64,
    /// Process CPU time over wall time and cores: 1.0 means every core busy.
    pub cpu_utilization: f64,
    pub workers: usize,
    pub games_in_flight: usize,
    pub completed_games: u64,
    pub evaluations_per_game: f64,
    pub seconds: f64,
    /// The backend that ran the network.
    pub backend: crate::nn::BackendKind,
    /// With `[selfplay] inference = "server"`: the shared network's calls.
    pub server: Option<crate::evaluator::ServerStats>,
    /// The instruction-set path of the native CPU kernels.
    pub simd: crate::nn::Simd,
}

/// CPU seconds this process has used (user + system), from /proc.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line, in clock ticks (100 per second
    // on Linux x86-64 and arm64).
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Runs real self-play of `game` (`cfg`'s search and self-play settings, a
/// freshly initialised network of `cfg`'s size) for about `seconds`.
pub fn bench_selfplay<G: crate::game::Game>(
    game: &G,
    cfg: &crate::run::config::RunConfig,
    seconds: f64,
) -> Result<SelfPlayBench, crate::selfplay::SelfPlayError> {
    use crate::evaluator::UniformEvaluator;
    use crate::nn::WorkerNets;
    use crate::selfplay::{Progress, run};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir()
        .map_err(|e| crate::selfplay::SelfPlayError::Config(format!("no temporary folder: {e}")))?;
    let device = cfg
        .run
        .backend
        .device()
        .map_err(|e| crate::selfplay::SelfPlayError::Config(e.to_string()))?;
    let model = cfg.model.to_model_config().init(&game.net_shape(), &device);
    let nets = WorkerNets::new(
        game,
        &model,
        &device,
        cfg.selfplay.inference,
        cfg.selfplay.server_options()?,
    )
    .map_err(crate::selfplay::SelfPlayError::Server)?;
    let progress = Progress::default();
    let cpu0 = process_cpu_seconds();
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    let s = run(
        game,
        &cfg.selfplay,
        &cfg.search,
        u64::MAX,
        1,
        0,
        dir.path(),
        "bench",
        nets.maker(),
        &progress,
        &|| Instant::now() >= deadline,
    )?;
    let wall = started.elapsed().as_secs_f64();
    let cpu = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => (b - a) / wall / cfg.selfplay.worker_count() as f64,
        _ => f64::NAN,
    };
    let positions_per_s = s.evaluated as f64 / wall;
    // All games in flight start together, so the first to finish are the
    // short ones, and `evaluated` counts unfinished games too: measure
    // positions per game on the window's games only once as many have
    // finished as were in flight.
    let in_flight = (cfg.selfplay.worker_count() * cfg.selfplay.games_in_flight) as u64;
    let (evals_per_game, estimated) = if s.games >= in_flight.max(1) {
        (s.evaluated as f64 / s.games as f64, false)
    } else {
        let one = crate::selfplay::SelfPlayConfig {
            workers: 1,
            ..cfg.selfplay.clone()
        };
        let u = run(
            game,
            &one,
            &cfg.search,
            8,
            1,
            0,
            dir.path(),
            "estimate",
            |_| Ok(UniformEvaluator),
            &Progress::default(),
            &|| false,
        )?;
        (u.evaluated as f64 / u.games.max(1) as f64, true)
    };
    Ok(SelfPlayBench {
        games_per_hour: positions_per_s * 3600.0 / evals_per_game.max(1.0),
        games_per_hour_estimated: estimated,
        positions_per_s,
        nn_time_share: s.evaluator_share,
        decisions_per_s: progress
            .decisions
            .load(std::sync::atomic::Ordering::Relaxed) as f64
            / wall,
        cpu_utilization: cpu,
        workers: cfg.selfplay.worker_count(),
        games_in_flight: cfg.selfplay.games_in_flight,
        completed_games: s.games,
        evaluations_per_game: evals_per_game,
        seconds: wall,
        backend: cfg.run.backend,
        server: nets.server_stats(),
        simd: crate::nn::Simd::active(),
    })
}

/// Training speed: samples per second through full gradient steps.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainBench {
    pub samples_per_s: f64,
    pub batch_size: usize,
    pub steps: u64,
    pub blocks: usize,
    pub channels: usize,
    /// CPU threads (what the flex backend computes with).
    pub threads: usize,
    pub seconds: f64,
    /// The backend that ran the steps.
    pub backend: crate::nn::BackendKind,
    /// Whether the native CPU training pass ran them (else burn's graph).
    pub native_cpu: bool,
    /// The instruction-set path of the native CPU kernels.
    pub simd: crate::nn::Simd,
}

/// Times gradient steps of `cfg`'s network for `game` at its batch size,
/// on `cfg`'s backend, on batches made from random-play positions (speed
/// does not depend on the data).
pub fn bench_train<G: crate::game::Game>(
    game: &G,
    cfg: &crate::run::config::RunConfig,
    seconds: f64,
    burn_graph: bool,
) -> Result<TrainBench, crate::nn::NnError> {
    use crate::game::State;
    use crate::replay::window::WindowSample;
    use crate::train::{Batch, Trainer};
    use rand::{Rng, SeedableRng, rngs::SmallRng};
    use std::time::Instant;

    let mut rng = SmallRng::seed_from_u64(1);
    let mut samples = Vec::new();
    while samples.len() < cfg.train.batch_size {
        let mut pos = game.start();
        let first = samples.len();
        while !pos.is_over() {
            let legal = pos.legal_actions();
            if legal.len() > 1 {
                let p = 1.0 / legal.len() as f32;
                let policy: Vec<(u32, f32)> = legal
                    .iter()
                    .map(|&a| (game.action_index(a) as u32, p))
                    .collect();
                samples.push(WindowSample {
                    position: pos.clone(),
                    // A reply target where the network has a head for it
                    // (the shape of one, not a real reply: the step's cost
                    // is what counts here).
                    reply: Some(policy.clone()),
                    policy,
                    outcome: 0,
                    margin: pos.margin(pos.to_act()),
                    moves_left: None,
                    search_wdl: None,
                    search_margin: None,
                    last: None,
                });
            }
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        let last = std::sync::Arc::new(pos);
        for s in &mut samples[first..] {
            s.last = Some(last.clone());
        }
    }
    let refs: Vec<&WindowSample<G::State>> = samples.iter().take(cfg.train.batch_size).collect();
    let batch = Batch::new(game, &refs, cfg.train.value_target(), &mut rng);
    let device = cfg.run.backend.device()?;
    let model = cfg.model.to_model_config().init(&game.net_shape(), &device);
    let mut trainer = if burn_graph {
        Trainer::on_burn_graph(model, cfg.train.clone(), &device, 0)
    } else {
        Trainer::new(model, cfg.train.clone(), &device, 0)
    };
    let native_cpu = trainer.native();
    trainer.step(&batch); // warm-up
    let started = Instant::now();
    let mut steps = 0;
    while started.elapsed().as_secs_f64() < seconds || steps == 0 {
        trainer.step(&batch);
        steps += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    Ok(TrainBench {
        samples_per_s: (steps * cfg.train.batch_size as u64) as f64 / elapsed,
        batch_size: cfg.train.batch_size,
        steps,
        blocks: cfg.model.blocks,
        channels: cfg.model.channels,
        threads: rayon::current_num_threads(),
        seconds: elapsed,
        backend: cfg.run.backend,
        native_cpu,
        simd: crate::nn::Simd::active(),
    })
}

/// One worker process of [`bench_workers`], as its summary line says.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerFigures {
    pub games: u64,
    pub games_per_hour: f64,
    /// Seconds it spent uploading...
    pub upload_s: f64,
    /// ...of the seconds it worked.
    pub busy_s: f64,
}

/// Self-play workers' speed as separate processes ([`bench_workers`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkersBench {
    /// The run's URL.
    pub run: String,
    /// Whether the run had no network and got a fresh one (generation 0).
    pub published_fresh: bool,
    pub games_per_batch: u64,
    pub workers: Vec<WorkerFigures>,
    /// Games in all.
    pub games: u64,
    /// Seconds from the first start to the last exit.
    pub seconds: f64,
}

/// Runs `processes` `worker` processes of the program `exe` (this crate's
/// binary, which the library cannot name itself) on the run at `location`,
/// one self-play thread and `batches` batches each, with the config at
/// `config` (default: the embedded one), and reads each one's summary
/// line. A run without a network first gets a fresh one. The workers'
/// ids are the same on every call, so that on a fresh run the same games
/// are played whichever store holds it and two stores compare. It exists
/// so that `bench workers` only parses, calls and prints.
pub fn bench_workers(
    exe: &std::path::Path,
    location: &str,
    config: Option<&std::path::Path>,
    processes: usize,
    batches: u64,
) -> anyhow::Result<WorkersBench> {
    use crate::run::config::RunConfig;
    use crate::run::shared::SharedRun;
    anyhow::ensure!(processes >= 1, "--processes must be at least 1");
    anyhow::ensure!(batches >= 1, "--batches must be at least 1");
    let cfg = RunConfig::load(config)?;
    let scratch = tempfile::tempdir()?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let shared = SharedRun::open(location, Some(&scratch.path().join("cache")), stop)?;
    let published_fresh = shared.best()?.is_none();
    if published_fresh {
        struct Publish<'a>(&'a SharedRun, &'a RunConfig);
        impl crate::games::GameTask for Publish<'_> {
            type Output = anyhow::Result<()>;
            fn run<G: crate::arena::GamePlayers>(self, game: G) -> Self::Output {
                crate::run::worker::publish_fresh_network(&game, self.0, self.1)
            }
        }
        crate::games::with_game(&cfg.game.name, &cfg.game.variant, Publish(&shared, &cfg))??;
    }
    let config = scratch.path().join("config.toml");
    std::fs::write(&config, cfg.to_toml())?;
    let t = Instant::now();
    let children: Vec<_> = (0..processes)
        .map(|i| {
            let id = format!("bench.{i}");
            std::process::Command::new(exe)
                .args(["worker", "--run", location, "--threads", "1", "--id", &id])
                .arg("--batches")
                .arg(batches.to_string())
                .arg("--config")
                .arg(&config)
                .arg("--spool")
                .arg(scratch.path().join(format!("spool-{i}")))
                .arg("--cache")
                .arg(scratch.path().join(format!("cache-{i}")))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    let mut workers = Vec::new();
    for c in children {
        let out = c.wait_with_output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        anyhow::ensure!(out.status.success(), "a worker failed: {text}");
        workers.push(worker_figures(text.lines().last().unwrap_or_default()));
    }
    Ok(WorkersBench {
        run: shared.url(),
        published_fresh,
        games_per_batch: cfg.workers.games_per_batch,
        games: workers.iter().map(|w| w.games).sum(),
        workers,
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// A worker's last line, "... N games, ... R games/hour, U s of T s
/// uploading", as figures (NaN where one is missing, 0 games).
fn worker_figures(line: &str) -> WorkerFigures {
    let number_before =
        |what: &str| -> Option<f64> { line.split(what).next()?.rsplit(' ').next()?.parse().ok() };
    WorkerFigures {
        games: number_before(" games, ").unwrap_or(0.0) as u64,
        games_per_hour: number_before(" games/hour").unwrap_or(f64::NAN),
        upload_s: number_before(" s of ").unwrap_or(f64::NAN),
        busy_s: line
            .split(" s of ")
            .nth(1)
            .and_then(|r| r.split(' ').next()?.parse::<f64>().ok())
            .unwrap_or(f64::NAN),
    }
}
