//! The local self-play phase (`[loop] selfplay = "local"`): the trainer
//! plays a generation's games with the best network between its training
//! phases, and the record files join the replay window.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::RunCtx;
use super::dir::RunDir;
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use crate::checkpoint;
use crate::game::Game;
use crate::nn::{Model, WorkerNets};
use crate::replay::window::ReplayWindow;
use crate::selfplay::{self, Progress, SelfPlayError, SelfPlaySummary};
use crate::util::sub_seed;

/// Self-play with generation `best`'s network until generation `g` has
/// its games, counting those that earlier attempts at it already wrote
/// (a run killed in self-play loses no finished game); then every record
/// file not yet in `window` joins it, and the pace is logged as `step`'s
/// `selfplay` line. The positions added, or `None` on a stop request.
pub(crate) fn self_play<G: Game>(
    ctx: &RunCtx<'_, G>,
    window: &mut ReplayWindow<G>,
    log: &mut MetricsLog,
    step: u64,
    best: u64,
    g: u64,
) -> anyhow::Result<Option<u64>> {
    let run = ctx.run;
    let known: BTreeSet<String> = window
        .files()
        .iter()
        .map(|(p, _)| run.relative(p))
        .collect();
    let pending = run.pending_records(ctx.game, &known, g)?;
    let mut new_files = pending.files;
    let to_play = ctx
        .cfg
        .run
        .games_per_generation
        .saturating_sub(pending.games);
    let mut stopped = false;
    if to_play > 0 {
        let best_dir = checkpoint::generation_dir(&run.checkpoints(), best);
        let (best_model, _) = checkpoint::load_model(ctx.game, &best_dir, &ctx.device)?;
        let s = play_games(ctx, best, g, pending.attempts, to_play, &best_model)?;
        let secs = s.seconds.max(1e-9);
        let mut f = fields(&s.summary);
        f.remove("files");
        f.insert(
            "games_per_hour".into(),
            json!(s.summary.games as f64 * 3600.0 / secs),
        );
        f.insert(
            "positions_per_s".into(),
            json!(s.summary.evaluated as f64 / secs),
        );
        log.log("selfplay", g, step, f);
        new_files.extend(s.summary.files.iter().cloned());
        stopped = s.summary.interrupted;
    }
    new_files.sort();
    new_files.dedup();
    let before = window.generated();
    for p in &new_files {
        if let Err(e) = window.add_file(p) {
            eprintln!("skipping record file: {e}");
        }
    }
    Ok((!stopped).then(|| window.generated() - before))
}

/// A self-play phase's summary and how long it took.
struct TimedSelfPlay {
    summary: SelfPlaySummary,
    seconds: f64,
}

/// Plays `to_play` games of generation `g` (its attempt `attempt`) with
/// `model`, generation `best`'s network, showing progress.
fn play_games<G: Game>(
    ctx: &RunCtx<'_, G>,
    best: u64,
    g: u64,
    attempt: u32,
    to_play: u64,
    model: &Model,
) -> anyhow::Result<TimedSelfPlay> {
    let progress = Progress::default();
    let t = Instant::now();
    let phase = Phase::start(format!("generation {g} self-play"), to_play, "games");
    let done = AtomicBool::new(false);
    let show = || {
        let secs = t.elapsed().as_secs_f64().max(1e-9);
        phase.set(
            progress.games.load(Ordering::Relaxed),
            format!(
                "{:.1} positions/s",
                progress.positions.load(Ordering::Relaxed) as f64 / secs
            ),
        );
    };
    let cfg = &ctx.cfg;
    let sp = &cfg.selfplay;
    let nets = WorkerNets::new(
        ctx.game,
        model,
        &ctx.device,
        sp.inference,
        sp.server_options()?,
    )
    .map_err(SelfPlayError::Server)?;
    let summary = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                show();
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        let r = selfplay::run(
            ctx.game,
            &cfg.selfplay,
            &cfg.search,
            to_play,
            sub_seed(cfg.run.seed, g * 1000 + attempt as u64),
            best,
            &ctx.run.selfplay(),
            &RunDir::record_prefix(g, attempt),
            nets.maker(),
            &progress,
            &|| ctx.stopping(),
        );
        done.store(true, Ordering::Relaxed);
        r
    })?;
    show();
    phase.finish();
    Ok(TimedSelfPlay {
        summary,
        seconds: t.elapsed().as_secs_f64(),
    })
}
