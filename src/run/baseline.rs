//! The best network against fixed opponents: a strength curve on a scale
//! that does not move.
//!
//! Gating only says whether a candidate beats the network before it, and
//! the Elo chained from those matches drifts (small gains add up, and
//! self-play strength does not carry over fully to other opponents). Every
//! `[baseline] every` generations the loop plays the best network against
//! the configured opponents. Scores go to the metrics (TensorBoard tag
//! `baseline/<opponent>/score`), and the games are appended to
//! `<run>/eval/*.jsonl` like `yinsh-zero evaluate`'s. So
//! `yinsh-zero evaluate --run <run> --history-only` rates every measured
//! generation on one Elo scale.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use super::RunCtx;
use super::config::RunConfig;
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use crate::arena::{
    ArenaConfig, ArenaGame, GamePlayers, Openings, PairingResult, Player, SearchPlayer,
    new_history_file, parse_game_player, resume_arena, write_history,
};
use crate::checkpoint;
use crate::mcts::SearchConfig;
use crate::nn::{InferenceOptions, NetEvaluator};
use crate::util::sub_seed;

/// The spec under which generation `network`'s games are recorded, and
/// the player it builds: the one `yinsh-zero evaluate` would build from it.
pub fn network_spec(checkpoints: &Path, network: u64, search: &SearchConfig) -> String {
    let mut spec = format!(
        "net-mcts:checkpoint={},sims={}",
        checkpoint::generation_dir(checkpoints, network).display(),
        search.simulations
    );
    if search.gumbel {
        spec += ",gumbel=true";
    }
    if search.score_weight > 0.0 {
        spec += &format!(",score={}", search.score_weight);
    }
    if search.score_threshold > 0.0 {
        spec += &format!(",score_threshold={}", search.score_threshold);
    }
    spec
}

/// The search of a network in gating and baseline games: the
/// `net-mcts` player's ([`SearchConfig::for_play`]) with the match's
/// simulations and root search, and self-play's (`trained`) score weight
/// and threshold (a network trained to weigh its margin plays its matches
/// so).
pub fn match_search(simulations: u32, gumbel: bool, trained: &SearchConfig) -> SearchConfig {
    SearchConfig {
        simulations,
        gumbel,
        score_weight: trained.score_weight,
        score_threshold: trained.score_threshold,
        ..SearchConfig::for_play()
    }
}

/// The baselines phase of generation `g`: the best network (`best`)
/// against the fixed opponents, shown as a phase, logged as `step`'s
/// `baseline/<opponent>` lines and summed up in one line on stderr; false
/// when a stop request cut the matches short.
pub(crate) fn measure<G: GamePlayers>(
    ctx: &RunCtx<'_, G>,
    log: &mut MetricsLog,
    step: u64,
    best: u64,
    g: u64,
) -> anyhow::Result<bool> {
    let bc = &ctx.cfg.baseline;
    let phase = Phase::start(
        format!("generation {g} baseline matches"),
        bc.games as u64 * bc.opponents.len() as u64,
        "games",
    );
    let run = ctx.run;
    let played = play(
        ctx.game,
        &ctx.cfg,
        &run.checkpoints(),
        &run.eval(),
        best,
        g,
        ctx.stop,
    )?;
    let Some(pairings) = played else {
        phase.finish();
        return Ok(false);
    };
    phase.set(
        pairings.iter().map(|p| p.results.games() as u64).sum(),
        String::new(),
    );
    phase.finish();
    let mut line = format!("generation {g}: best network {best}");
    for p in &pairings {
        log.log(
            &format!("baseline/{}", p.second),
            g,
            step,
            fields(&json!({
                "network": best,
                "games": p.results.games(),
                "wins": p.results.wins,
                "draws": p.results.draws,
                "losses": p.results.losses,
                "score": p.score,
                "elo": p.elo,
            })),
        );
        line += &format!(", {:.1}% vs {}", 100.0 * p.score, p.second);
    }
    eprintln!("{line}");
    Ok(true)
}

/// Plays generation `network` against each opponent of `cfg.baseline`,
/// recording the games in `eval_dir`; one result per opponent, `None` when
/// `stop` cut the matches short (the games played so far stay recorded).
/// `generation` seeds the openings, so each measurement plays new ones.
pub fn play<G: GamePlayers>(
    game: &G,
    cfg: &RunConfig,
    checkpoints: &Path,
    eval_dir: &Path,
    network: u64,
    generation: u64,
    stop: &AtomicBool,
) -> anyhow::Result<Option<Vec<PairingResult>>> {
    let bc = &cfg.baseline;
    let device = cfg.run.backend.device()?;
    let (model, _) = checkpoint::load_model(
        game,
        &checkpoint::generation_dir(checkpoints, network),
        &device,
    )?;
    let search = match_search(bc.simulations, bc.gumbel, &cfg.search);
    let net = network_spec(checkpoints, network, &search);
    let arena = ArenaConfig {
        players: bc.opponents.clone(),
        gauntlet: Some(net.clone()),
        games: bc.games,
        seed: sub_seed(cfg.run.seed ^ 0xba5e, generation),
        game: game.clone(),
        openings: Openings::Random(bc.opening_moves),
        alternate: true,
        sprt: None,
    };
    // The network is built from the loaded model rather than its spec, so
    // games do not reload the checkpoint; the player is the one the spec
    // names.
    let factory = |spec: &str, seed: u64| -> Result<Box<dyn Player<G::State>>, String> {
        if spec == net {
            let ev = NetEvaluator::new(
                game.clone(),
                model.clone(),
                device.clone(),
                InferenceOptions::default(),
            )
            .map_err(|e| e.to_string())?;
            Ok(Box::new(SearchPlayer::new(
                spec.to_string(),
                ev,
                search.clone(),
                None,
                seed,
            )))
        } else {
            parse_game_player(game, spec, seed).map_err(|e| e.to_string())
        }
    };
    let history = new_history_file(eval_dir);
    let mut played: Vec<ArenaGame> = Vec::new();
    let mut write_error = None;
    let result = resume_arena(
        &arena,
        &factory,
        &[],
        &mut |batch| {
            played.extend_from_slice(batch);
            if write_error.is_none()
                && let Err(e) = write_history(&history, &played)
            {
                write_error = Some(e);
            }
        },
        &|| stop.load(Ordering::Relaxed),
    )?;
    if let Some(e) = write_error {
        return Err(anyhow::Error::new(e).context("recording the baseline games"));
    }
    if result.games.len() < arena.games as usize * arena.players.len() {
        return Ok(None);
    }
    Ok(Some(result.pairings))
}
