//! `yinsh-zero train`: the main job. `yinsh-zero pretrain`: a new run's
//! warm start alone. `yinsh-zero status`: where a run stands.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use crate::arena::GamePlayers;
use crate::games::{GameTask, Registry, With};
use crate::run::RunDir;
use crate::run::config::{RunConfig, SelfPlaySource};
use crate::run::pretrain::{WarmStart, warm_start};
use crate::run::resume::ResumePoint;
use crate::run::shared::{SharedRun, utc};
use crate::run::status::RunStatus;
use crate::run::train_loop::{LoopSummary, settle_config, train, train_keeping, train_shared};
use crate::run::worker::WorkerTally;

#[derive(clap::Args)]
pub struct Args {
    /// Run config (default: the config embedded in the binary, the text of
    /// configs/default.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where the run lives: a directory (default: this project's
    /// checkpoints/ and data/), file://DIR, or s3://BUCKET/PREFIX (an
    /// S3-compatible store, configured by the AWS_* environment variables;
    /// docs/distributed.md).
    #[arg(long, value_name = "DIR|URL")]
    run: Option<String>,
    /// Who plays self-play: this process (local) or `yinsh-zero worker`
    /// processes that upload to the run (workers). Default: the config's
    /// `[loop] selfplay`.
    #[arg(long, value_name = "local|workers")]
    selfplay: Option<SelfPlaySource>,
    /// Local folder of a remote run's files (default: a folder under the
    /// system's temporary directory named after the URL). It may be lost
    /// at any time: the store holds everything needed to resume.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Keep the run's resume point in DIR: the frozen config, the newest
    /// checkpoint with its optimizer state and the best network, replaced
    /// after each generation and removed when the run reaches its limit.
    /// A run folder without checkpoints begins from it, so a long run
    /// outlives its machine when DIR is kept (docs/reference.md).
    #[arg(long, value_name = "DIR")]
    resume_point: Option<PathBuf>,
    #[command(flatten)]
    backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct PretrainArgs {
    /// Run config (default: the embedded configs/default.toml); its
    /// `[pretrain]` table says who teaches and how much.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run directory to begin (default: this project's checkpoints/ and data/).
    #[arg(long)]
    run: Option<PathBuf>,
    /// Teacher games (overrides `[pretrain] games`).
    #[arg(long)]
    games: Option<u64>,
    /// The teacher's player spec (overrides `[pretrain] teacher`).
    #[arg(long)]
    teacher: Option<String>,
    #[command(flatten)]
    backend: super::BackendArg,
}

#[derive(clap::Args)]
pub struct StatusArgs {
    /// Where the run lives: a directory (default: this project's
    /// checkpoints/ and data/), file://DIR or s3://BUCKET/PREFIX.
    #[arg(long, value_name = "DIR|URL")]
    run: Option<String>,
    /// Local folder for a remote run's files (default: one under the
    /// system's temporary directory).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
}

fn run_dir(run: &Option<PathBuf>) -> RunDir {
    match run {
        Some(r) => RunDir::new(r),
        None => RunDir::project_default(std::path::Path::new(".")),
    }
}

/// The loop on the game the config names, in the project's own folders
/// or at a location.
struct Train<'a> {
    at: Where<'a>,
    resume: Option<ResumePoint>,
    cfg: RunConfig,
    stop: &'a AtomicBool,
}

enum Where<'a> {
    Project(RunDir),
    At(&'a SharedRun),
}

impl GameTask for Train<'_> {
    type Output = anyhow::Result<LoopSummary>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        match (self.at, &self.resume) {
            (Where::Project(dir), None) => train(&game, &dir, self.cfg, self.stop),
            (Where::At(shared), None) => train_shared(&game, shared, self.cfg, self.stop),
            (Where::Project(dir), Some(r)) => {
                train_keeping(&game, &dir, None, r, self.cfg, self.stop)
            }
            (Where::At(shared), Some(r)) => {
                train_keeping(&game, shared.dir(), Some(shared), r, self.cfg, self.stop)
            }
        }
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let mut cfg = RunConfig::load_for::<R>(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    if let Some(source) = args.selfplay {
        cfg.run.selfplay = source;
    }
    let stop = super::stop_on_ctrl_c("stopping after the current write")?;
    let shared = match &args.run {
        Some(location) => Some(SharedRun::open(
            location,
            args.cache.as_deref(),
            stop.clone(),
        )?),
        None => None,
    };
    if let Some(s) = &shared
        && s.is_mirrored()
    {
        eprintln!("run {} (local copy in {})", s.url(), s.dir().root.display());
    }
    let at = match &shared {
        Some(s) => Where::At(s),
        None => Where::Project(run_dir(&None)),
    };
    let (name, variant) = (cfg.game.name.clone(), cfg.game.variant.clone());
    let s = R::with_game(
        &name,
        &variant,
        Train {
            at,
            resume: args.resume_point.as_deref().map(ResumePoint::at),
            cfg,
            stop: &stop,
        },
    )??;
    println!("{}", summary_line(&s));
    Ok(())
}

/// The warm start on the game the config names.
struct Pretrain<'a> {
    dir: &'a RunDir,
    cfg: RunConfig,
    stop: &'a AtomicBool,
}

impl GameTask for Pretrain<'_> {
    type Output = anyhow::Result<Option<WarmStart>>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        let cfg = settle_config::<With<G>>(self.dir, self.cfg)?;
        warm_start(&game, self.dir, &cfg, self.stop)
    }
}

pub fn pretrain<R: Registry>(args: PretrainArgs) -> anyhow::Result<()> {
    let mut cfg = RunConfig::load_for::<R>(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    if let Some(n) = args.games {
        cfg.pretrain.games = n;
    }
    if let Some(t) = args.teacher {
        cfg.pretrain.teacher = t;
    }
    if cfg.pretrain.games == 0 {
        anyhow::bail!("no teacher games: give --games N, or set `[pretrain] games` in the config");
    }
    cfg.validate()
        .map_err(|e| anyhow::anyhow!("the given settings: {e}"))?;
    let dir = run_dir(&args.run);
    let stop = super::stop_on_ctrl_c("stopping after the current game")?;
    let (name, variant) = (cfg.game.name.clone(), cfg.game.variant.clone());
    let done = R::with_game(
        &name,
        &variant,
        Pretrain {
            dir: &dir,
            cfg,
            stop: &stop,
        },
    )??;
    match done {
        Some(w) => println!(
            "warm start done: {} teacher games, {} positions, {} training steps in {:.0} s; \
             generation 0 is the best network. Continue with: yinsh-zero train{}",
            w.games,
            w.positions,
            w.steps,
            w.seconds,
            args.run
                .as_ref()
                .map_or(String::new(), |r| format!(" --run {}", r.display()))
        ),
        None => println!(
            "warm start stopped early; finished teacher games are kept: run the same command \
             to resume"
        ),
    }
    Ok(())
}

/// What the run's workers uploaded (their tallies), if it has any: the
/// games in the store, of which the trainer took `self-play games`.
fn print_workers(all: &[WorkerTally]) {
    if all.is_empty() {
        return;
    }
    println!(
        "workers: {} uploaded {} games in {} record files",
        all.len(),
        all.iter().map(|t| t.games).sum::<u64>(),
        all.iter().map(|t| t.files).sum::<u64>()
    );
    const SHOWN: usize = 10;
    for t in all.iter().take(SHOWN) {
        let state = match &t.stopped {
            Some(why) => format!("stopped ({why}) {}", utc(t.updated_unix)),
            None => format!("last seen {}", utc(t.updated_unix)),
        };
        println!("  {}: {} games, {} files, {state}", t.id, t.games, t.files);
    }
    if all.len() > SHOWN {
        println!("  and {} more", all.len() - SHOWN);
    }
}

/// What a `train` invocation did, in words.
fn summary_line(s: &LoopSummary) -> String {
    let stopped = match &s.limit {
        Some(limit) if !s.interrupted => format!("the config's limit is reached: {limit}"),
        _ => "stopped early; run the same command to resume".to_string(),
    };
    match s.last_generation.checked_sub(s.first_generation) {
        Some(n) => format!(
            "trained generation{} {}{} ({stopped}); best network: generation {}",
            if n == 0 { "" } else { "s" },
            s.first_generation,
            if n == 0 {
                String::new()
            } else {
                format!(" to {}", s.last_generation)
            },
            s.best
        ),
        None => format!(
            "no generation completed ({stopped}); best network: generation {}",
            s.best
        ),
    }
}

pub fn status(args: StatusArgs) -> anyhow::Result<()> {
    let shared = match &args.run {
        None => None,
        Some(location) => {
            let stop = std::sync::Arc::new(AtomicBool::new(false));
            let shared = SharedRun::open(location, args.cache.as_deref(), stop)?;
            // A remote run is read through a fresh copy of what status shows.
            shared.pull_view()?;
            Some(shared)
        }
    };
    let (dir, name) = match &shared {
        None => (run_dir(&None), ".".to_string()),
        Some(s) => (s.dir().clone(), s.url()),
    };
    let st = RunStatus::read(&dir, shared.as_ref())?;
    let meta = &st.meta;
    println!("run: {name}");
    println!(
        "generation {}, best {}",
        st.latest,
        st.best.map_or("none".to_string(), |b| b.to_string())
    );
    println!(
        "positions generated {}, samples trained {}, training steps {}, self-play games {}",
        meta.positions_generated, meta.samples_trained, meta.train_steps, meta.games_played
    );
    if let Some(f) = &st.finished {
        println!("finished at {}: its workers stop", f.describe());
    }
    print_workers(&st.workers);
    println!("last gating results:");
    for (g, r) in &st.gating {
        println!(
            "  generation {g} vs {}: +{} ={} -{} score {:.1}% ({}) {}",
            r.against,
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.score,
            r.rule,
            if r.promoted {
                "promoted"
            } else {
                "not promoted"
            }
        );
    }
    print_metrics(&st);
    Ok(())
}

/// The last self-play, training and baseline lines of a run's metrics.
fn print_metrics(st: &RunStatus) {
    if let Some(s) = &st.selfplay {
        let mut line = match s["games_per_hour"].as_f64() {
            Some(r) => format!("self-play: {r:.0} games/hour"),
            None => format!("self-play: {} games", s["games"]),
        };
        if let Some(p) = s["positions_per_s"].as_f64() {
            line += &format!(", {p:.1} network positions/s");
        }
        if s["source"] == "workers" {
            line += " (workers)";
        }
        println!("{line}");
    }
    if let Some(t) = &st.train {
        println!(
            "training: {:.1} samples/s, loss {:.3} (policy {:.3}, value {:.3}), value accuracy {:.1}%",
            t["samples_per_s"].as_f64().unwrap_or(f64::NAN),
            t["loss"].as_f64().unwrap_or(f64::NAN),
            t["policy_loss"].as_f64().unwrap_or(f64::NAN),
            t["value_loss"].as_f64().unwrap_or(f64::NAN),
            100.0 * t["value_accuracy"].as_f64().unwrap_or(f64::NAN)
        );
    }
    if let Some(newest) = st.baseline.last() {
        println!(
            "baseline matches of generation {} (network {}):",
            newest["generation"], newest["network"]
        );
        for v in &st.baseline {
            let kind = v["kind"].as_str().unwrap_or_default();
            println!(
                "  vs {}: +{} ={} -{} score {:.1}%",
                kind.trim_start_matches("baseline/"),
                v["wins"],
                v["draws"],
                v["losses"],
                100.0 * v["score"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
}
