//! The reanalyse phase (`[reanalyse] share`): between a generation's games
//! and its training, a share of the window's positions searched again with
//! the network self-play just used, their targets replaced
//! ([`crate::reanalyse`]).

use std::time::Instant;

use serde_json::json;

use super::RunCtx;
use super::metrics::MetricsLog;
use super::progress::Phase;
use crate::checkpoint;
use crate::game::Game;
use crate::nn::WorkerNets;
use crate::reanalyse;
use crate::replay::window::ReplayWindow;
use crate::util::sub_seed;

/// Reanalyses as many positions as generation `g`'s training will draw
/// samples times the configured share, with generation `best`'s network;
/// nothing while the window is below `[train] min_positions` (no training
/// reads it yet). Logged as `step`'s `reanalyse` line.
pub(crate) fn reanalyse_window<G: Game>(
    ctx: &RunCtx<'_, G>,
    window: &mut ReplayWindow<G>,
    log: &mut MetricsLog,
    step: u64,
    best: u64,
    g: u64,
    new_positions: u64,
) -> anyhow::Result<()> {
    let cfg = &ctx.cfg;
    let tc = &cfg.train;
    if cfg.reanalyse.share == 0.0 || window.len() < tc.min_positions {
        return Ok(());
    }
    let count = cfg
        .reanalyse
        .positions((tc.train_ratio * new_positions as f64).round() as u64);
    if count == 0 {
        return Ok(());
    }
    let best_dir = checkpoint::generation_dir(&ctx.run.checkpoints(), best);
    let (model, _) = checkpoint::load_model(ctx.game, &best_dir, &ctx.device)?;
    let sp = &cfg.selfplay;
    let nets = WorkerNets::new(
        ctx.game,
        &model,
        &ctx.device,
        sp.inference,
        sp.server_options()?,
    )
    .map_err(|e| anyhow::anyhow!("reanalyse: {e}"))?;
    let search = cfg.reanalyse.search_config(&cfg.search);
    let phase = Phase::start(
        format!("generation {g} reanalyse"),
        count as u64,
        "positions",
    );
    let t = Instant::now();
    let summary = reanalyse::reanalyse(
        window,
        count,
        &search,
        cfg.reanalyse.value,
        sp.worker_count(),
        sp.games_in_flight,
        // Apart from self-play's seeds (g * 1000 + attempt).
        sub_seed(cfg.run.seed ^ 0x5245_414e, g),
        nets.maker(),
        &|| ctx.stopping(),
    )
    .map_err(|e| anyhow::anyhow!("reanalyse: {e}"))?;
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    phase.set(
        summary.positions as u64,
        format!("{:.1} positions/s", summary.positions as f64 / secs),
    );
    phase.finish();
    let mut f = serde_json::Map::new();
    f.insert("positions".into(), json!(summary.positions));
    f.insert("evaluated".into(), json!(summary.evaluated));
    f.insert("seconds".into(), json!(secs));
    log.log("reanalyse", g, step, f);
    Ok(())
}
