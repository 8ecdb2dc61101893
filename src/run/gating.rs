//! The gate phase: each candidate against the best network, its
//! promotion, and the Elo that the chain of promotions implies.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use super::RunCtx;
use super::baseline;
use super::config::RunConfig;
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use crate::arena::{ArenaConfig, DuelSettings, Openings, Sprt, Verdict, run_duel};
use crate::checkpoint::{self, CheckpointMeta, GatingResult};
use crate::game::Game;
use crate::nn::{InferenceOptions, NetEvaluator};
use crate::util::{sub_seed, write_atomic};

/// The gate phase of candidate generation `g` (its folder `dir`, its
/// metadata `meta`) against generation `best`: the match, its result
/// written into `meta` and published, and on promotion the `best` pointer
/// moved and published; the match and the promoted network's Elo are
/// logged as `step`'s `gating` and `elo` lines. `None` when a stop request
/// cut the match short (the candidate stays ungated).
pub(crate) fn gate_candidate<G: Game>(
    ctx: &RunCtx<'_, G>,
    log: &mut MetricsLog,
    step: u64,
    g: u64,
    dir: &Path,
    meta: &mut CheckpointMeta,
    best: u64,
) -> anyhow::Result<Option<GatingResult>> {
    let ckpts = ctx.run.checkpoints();
    let Some(result) = gate(ctx.game, &ctx.cfg, &ckpts, g, best, ctx.stop)? else {
        return Ok(None);
    };
    meta.gating = Some(result.clone());
    write_atomic(&dir.join("meta.json"), &serde_json::to_vec_pretty(meta)?)?;
    ctx.publish.meta(g)?;
    log.log("gating", g, step, fields(&result));
    if result.promoted {
        checkpoint::write_best(&ckpts, g)?;
        ctx.publish.best()?;
        let elo = promoted_elo(&ckpts, g)?;
        log.log("elo", g, step, fields(&json!({ "elo": elo })));
    }
    Ok(Some(result))
}

/// Plays the candidate against the best network and decides promotion;
/// `None` when `stop` cut the match short (the candidate stays ungated).
pub fn gate<G: Game>(
    game: &G,
    cfg: &RunConfig,
    ckpts: &Path,
    candidate: u64,
    best: u64,
    stop: &AtomicBool,
) -> Result<Option<GatingResult>, anyhow::Error> {
    let gc = &cfg.gating;
    if !gc.enabled {
        return Ok(Some(GatingResult {
            against: best,
            wins: 0,
            draws: 0,
            losses: 0,
            score: 0.5,
            promoted: true,
            rule: "disabled".into(),
        }));
    }
    let device = cfg.run.backend.device()?;
    let search = baseline::match_search(gc.simulations, gc.gumbel, &cfg.search);
    let mut models = Vec::new();
    let mut names = Vec::new();
    for g in [candidate, best] {
        let dir = checkpoint::generation_dir(ckpts, g);
        models.push(checkpoint::load_model(game, &dir, &device)?.0);
        names.push(baseline::network_spec(ckpts, g, &search));
    }
    let mut arena = ArenaConfig::round_robin(
        game.clone(),
        &[names[0].as_str(), names[1].as_str()],
        gc.games as u32,
        sub_seed(cfg.run.seed ^ 0x9a7e, candidate),
    );
    arena.openings = Openings::Random(gc.opening_moves);
    if let Some([e0, e1]) = gc.sprt {
        arena.sprt = Some(Sprt::new(e0, e1)?);
    }
    // The same players as `net-mcts:sims=N` specs, batched like self-play.
    let workers = cfg.selfplay.worker_count().max(1);
    let settings = DuelSettings {
        search,
        workers,
        games_in_flight: (gc.games as usize)
            .div_ceil(workers)
            .clamp(1, cfg.selfplay.games_in_flight.max(1)),
    };
    let phase = Phase::start(format!("generation {candidate} gating"), gc.games, "games");
    let counted = std::sync::atomic::AtomicU64::new(0);
    let result = run_duel(
        &arena,
        &settings,
        |_| {
            let net = |m: &crate::nn::Model| {
                NetEvaluator::new(
                    game.clone(),
                    m.clone(),
                    device.clone(),
                    InferenceOptions::default(),
                )
                .map_err(|e| e.to_string())
            };
            Ok([net(&models[0])?, net(&models[1])?])
        },
        &|games| {
            let n = counted.fetch_add(games.len() as u64, Ordering::Relaxed);
            phase.set(n + games.len() as u64, String::new());
        },
        &|| stop.load(Ordering::Relaxed),
    )?;
    phase.finish();
    if result.interrupted {
        return Ok(None);
    }
    let pair = &result.arena.pairings[0];
    let r = pair.results;
    let (rule, promoted) = match &result.arena.sprt {
        Some(s) => ("sprt", s.verdict == Verdict::AcceptH1),
        None => ("threshold", pair.score >= gc.threshold),
    };
    Ok(Some(GatingResult {
        against: best,
        wins: r.wins as u64,
        draws: r.draws as u64,
        losses: r.losses as u64,
        score: pair.score,
        promoted,
        rule: rule.into(),
    }))
}

/// Elo of promoted generation `g` against generation 0: the sum of the Elo
/// gains its gating scores imply along the chain of promotions. The chain
/// ends early at an ancestor whose folder is gone (a shipped network comes
/// without the generations before it): the Elo is then against the oldest
/// generation still on disk.
pub fn promoted_elo(ckpts: &Path, g: u64) -> Result<f64, anyhow::Error> {
    let mut elo = 0.0;
    let mut cur = g;
    while cur != 0 {
        let dir = checkpoint::generation_dir(ckpts, cur);
        if cur != g && !dir.exists() {
            break;
        }
        let meta = checkpoint::read_meta(&dir)?;
        let Some(gate) = meta.gating else { break };
        // A sweep has no finite Elo; cap it at the score of one lost draw.
        let games = (gate.wins + gate.draws + gate.losses).max(1) as f64;
        let score = gate.score.clamp(0.5 / games, 1.0 - 0.5 / games);
        elo += crate::arena::elo_from_score(score);
        cur = gate.against;
    }
    Ok(elo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::CheckpointMeta;
    use crate::games::yinsh::Yinsh;
    use crate::nn::ModelSection;

    fn write(ckpts: &Path, g: u64, against: u64, score: f64) {
        let mut meta = CheckpointMeta::new(
            &Yinsh::with_variant("standard").unwrap(),
            g,
            ModelSection::default(),
        );
        meta.gating = Some(GatingResult {
            against,
            wins: 3,
            draws: 0,
            losses: 1,
            score,
            promoted: true,
            rule: "threshold".into(),
        });
        let dir = checkpoint::generation_dir(ckpts, g);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("meta.json"), serde_json::to_string(&meta).unwrap()).unwrap();
    }

    #[test]
    fn the_chain_sums_gains_and_ends_where_the_history_does() {
        let tmp = tempfile::tempdir().unwrap();
        let ckpts = tmp.path();
        write(ckpts, 1, 0, 0.75);
        write(ckpts, 2, 1, 0.75);
        let one = crate::arena::elo_from_score(0.75);
        assert!((promoted_elo(ckpts, 2).unwrap() - 2.0 * one).abs() < 1e-9);
        // A shipped generation 100 gated against a 99 that did not ship.
        write(ckpts, 100, 99, 0.75);
        write(ckpts, 101, 100, 0.75);
        assert!((promoted_elo(ckpts, 101).unwrap() - 2.0 * one).abs() < 1e-9);
        // The generation asked about must exist, and a damaged ancestor is
        // an error, not the end of the chain.
        assert!(promoted_elo(ckpts, 102).is_err());
        std::fs::write(
            checkpoint::generation_dir(ckpts, 100).join("meta.json"),
            "{",
        )
        .unwrap();
        assert!(promoted_elo(ckpts, 101).is_err());
    }
}
