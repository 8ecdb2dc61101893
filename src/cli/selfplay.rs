//! `yinsh-zero selfplay`: play games with a network and write training records.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context;

use crate::arena::GamePlayers;
use crate::checkpoint;
use crate::game::Game;
use crate::games::{GameTask, Registry};
use crate::nn::WorkerNets;
use crate::run::config::RunConfig;
use crate::run::progress::Phase;
use crate::selfplay::{self, Progress, SelfPlayError, SelfPlaySummary};

#[derive(clap::Args)]
pub struct Args {
    /// Checkpoint directory whose network plays (e.g. runs/a/checkpoints/000012).
    #[arg(
        long,
        required_unless_present = "random_init",
        conflicts_with = "random_init"
    )]
    checkpoint: Option<PathBuf>,
    /// Play with a freshly initialised network of the config's [model] shape.
    #[arg(long)]
    random_init: bool,
    /// Games to play.
    #[arg(long, default_value_t = 16)]
    games: u64,
    /// Folder for the record files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Run config for [game], [search], [selfplay] and [model] (default: the embedded default config).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: super::BackendArg,
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let mut cfg = RunConfig::load_for::<R>(args.config.as_deref())?;
    cfg.run.backend = args.backend.choose(cfg.run.backend);
    let (name, variant) = (cfg.game.name.clone(), cfg.game.variant.clone());
    R::with_game(&name, &variant, SelfPlay { args, cfg })?
}

struct SelfPlay {
    args: Args,
    cfg: RunConfig,
}

impl GameTask for SelfPlay {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        play(&game, self.args, self.cfg)
    }
}

fn play<G: Game>(game: &G, args: Args, cfg: RunConfig) -> anyhow::Result<()> {
    let device = cfg.run.backend.device()?;
    let (model, generation) = match &args.checkpoint {
        Some(dir) => {
            let (m, meta) = checkpoint::load_model(game, dir, &device)?;
            (m, meta.generation)
        }
        None => (
            cfg.model.to_model_config().init(&game.net_shape(), &device),
            0,
        ),
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let sp = &cfg.selfplay;
    let nets = WorkerNets::new(game, &model, &device, sp.inference, sp.server_options()?)
        .map_err(SelfPlayError::Server)?;
    let progress = Progress::default();
    let summary = with_progress(args.games, &progress, || {
        selfplay::run(
            game,
            &cfg.selfplay,
            &cfg.search,
            args.games,
            args.seed,
            generation,
            &args.out,
            &format!("g{generation:06}-s{}", args.seed),
            nets.maker(),
            &progress,
            &|| false,
        )
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary);
    }
    Ok(())
}

/// Runs `work` while its progress shows: a bar on a terminal, else plain
/// lines on stderr (one at the start, one every 30 s, one at the end), as
/// `train` shows its phases.
fn with_progress<T>(games: u64, progress: &Progress, work: impl FnOnce() -> T + Send) -> T
where
    T: Send,
{
    let phase = Phase::start("self-play".into(), games, "games");
    let started = std::time::Instant::now();
    let show = || {
        let g = progress.games.load(Ordering::Relaxed);
        let p = progress.positions.load(Ordering::Relaxed);
        let t = started.elapsed().as_secs_f64().max(1e-9);
        phase.set(
            g,
            format!(
                "{:.2} games/s, {:.1} positions/s",
                g as f64 / t,
                p as f64 / t
            ),
        );
    };
    let done = std::sync::atomic::AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                show();
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        out
    });
    show();
    phase.finish();
    out
}

pub fn print_summary(s: &SelfPlaySummary) {
    let g = s.games.max(1) as f64;
    println!(
        "{} games, {} positions recorded, {} decisions in {:.1} s ({:.2} games/s, {:.1} positions/s)",
        s.games,
        s.positions,
        s.decisions,
        s.seconds,
        s.games as f64 / s.seconds.max(1e-9),
        s.positions as f64 / s.seconds.max(1e-9)
    );
    println!(
        "mean game length {:.1} turns; white {:.1}%, black {:.1}%, draws {:.1}%; resigned {}",
        s.mean_turns,
        100.0 * s.white_wins as f64 / g,
        100.0 * s.black_wins as f64 / g,
        100.0 * s.draws as f64 / g,
        s.resigned
    );
    if s.side_games > 0 {
        println!(
            "{} games from side positions of earlier games",
            s.side_games
        );
    }
    if s.positions != s.searched {
        println!(
            "policy surprise weighting: {} positions searched in full (mean surprise {:.3} nats) written as {} samples",
            s.searched, s.mean_surprise, s.positions
        );
    }
    if s.resign_checks > 0 {
        println!(
            "resignation checks: {} games played out, {} would-be resignations were wrong",
            s.resign_checks, s.false_resigns
        );
    }
    println!(
        "network: {} batches, {} positions evaluated, {:.0}% of worker time",
        s.batches,
        s.evaluated,
        100.0 * s.evaluator_share
    );
    println!("{} record files", s.files.len());
}
