//! `yinsh-zero worker`: a self-play worker of a run that a trainer
//! (`train --selfplay workers`) trains from. It plays until stopped
//! (SIGTERM, Ctrl-C) or until the run is finished (the trainer reached its
//! config's limit), and then exits with success.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::arena::GamePlayers;
use crate::games::{GameTask, Registry};
use crate::run::config::RunConfig;
use crate::run::shared::SharedRun;
use crate::run::worker::{WorkerOptions, WorkerSummary, check_id, default_id, work};

#[derive(clap::Args)]
pub struct Args {
    /// Where the run lives: a directory, file://DIR or s3://BUCKET/PREFIX
    /// (configured by the AWS_* environment variables; docs/distributed.md).
    #[arg(long, value_name = "DIR|URL")]
    run: String,
    /// Config to play by (default: the run's own config.toml, which the
    /// trainer publishes; the worker waits for it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// This worker's id, unique in the run (default: the host name and a
    /// random suffix). Give a stable one (a pod name) together with a
    /// kept --spool to have a restarted worker upload what it left.
    #[arg(long)]
    id: Option<String>,
    /// Folder where finished record files wait for their upload (default:
    /// one under the system's temporary directory, named after the id).
    #[arg(long, value_name = "DIR")]
    spool: Option<PathBuf>,
    /// Folder for the run's networks (default: one under the system's
    /// temporary directory named after the URL).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Self-play threads (default: the config's `[selfplay] workers`, 0 =
    /// one per core). Several worker processes on one machine want 1 each.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Stop after this many batches (default: play until stopped or until
    /// the run is finished).
    #[arg(long, default_value_t = 0)]
    batches: u64,
    #[command(flatten)]
    backend: super::BackendArg,
}

struct Work<'a> {
    run: &'a SharedRun,
    cfg: RunConfig,
    opts: WorkerOptions,
    stop: &'a AtomicBool,
}

impl GameTask for Work<'_> {
    type Output = anyhow::Result<WorkerSummary>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        work(&game, self.run, &self.cfg, &self.opts, self.stop)
    }
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let id = args.id.clone().unwrap_or_else(default_id);
    check_id(&id).map_err(anyhow::Error::msg)?;
    let stop = super::stop_on_ctrl_c("stopping after the current batch's uploads")?;
    let shared = SharedRun::open(&args.run, args.cache.as_deref(), stop.clone())?;
    let mut cfg = match &args.config {
        Some(path) => RunConfig::load_for::<R>(Some(path))?,
        None => run_config::<R>(&shared, &stop)?,
    };
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    let spool = args
        .spool
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("yinsh-zero-worker-{id}")));
    eprintln!(
        "worker {id}: run {}, {} ({}), spool {}",
        shared.url(),
        cfg.game.name,
        cfg.game.variant,
        spool.display()
    );
    let opts = WorkerOptions {
        id: id.clone(),
        spool,
        threads: args.threads,
        batches: args.batches,
    };
    let (name, variant) = (cfg.game.name.clone(), cfg.game.variant.clone());
    let s = R::with_game(
        &name,
        &variant,
        Work {
            run: &shared,
            cfg,
            opts,
            stop: &stop,
        },
    )??;
    if let Some(f) = &s.finished {
        // The run is over: its trainer reads no more games, so the worker
        // ends, with success (a scheduler need not restart it).
        if s.batches == 0 && s.games == 0 {
            println!(
                "worker {id}: run {} finished at {}: nothing to play, the worker stops",
                shared.url(),
                f.describe()
            );
        } else {
            println!(
                "worker {id}: run finished at generation {} ({} reached): worker stops after \
                 uploading {} games",
                f.generation, f.limit, s.games
            );
        }
    }
    println!(
        "worker {id}: {} batches, {} games, {} positions, {} files uploaded, networks {:?}, \
         {:.0} games/hour, {:.2} s of {:.1} s uploading",
        s.batches,
        s.games,
        s.positions,
        s.files_uploaded,
        s.networks,
        s.games as f64 * 3600.0 / s.seconds.max(1e-9),
        s.upload_seconds,
        s.seconds
    );
    println!(
        "worker {id}: {} games in {} files uploaded to the run under this id in all",
        s.tally.games, s.tally.files
    );
    Ok(())
}

/// The run's published config, waiting for the trainer to publish it.
fn run_config<R: Registry>(shared: &SharedRun, stop: &AtomicBool) -> anyhow::Result<RunConfig> {
    let mut said = false;
    loop {
        if let Some(text) = shared.config_text()? {
            return Ok(RunConfig::from_toml_for::<R>(
                &text,
                &format!("{}/config.toml", shared.url()),
            )?);
        }
        if !said {
            eprintln!(
                "{} has no config.toml yet; waiting for the trainer to start",
                shared.url()
            );
            said = true;
        }
        for _ in 0..20 {
            if stop.load(Ordering::Relaxed) {
                anyhow::bail!("stopped before the run had a config");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
