//! The training loop: self-play with the best network -> replay window ->
//! gradient steps -> candidate checkpoint -> gating match -> promotion (and
//! every few generations the best network against fixed opponents, see
//! [`super::baseline`]), one generation after another, resumable after a
//! kill at any moment.
//!
//! Resume rule: the newest complete checkpoint is the truth. Its meta lists
//! the record files its window held; record files written after it (self-
//! play that finished before a kill) are complete (atomic writes) and join
//! the window on restart, so no finished game is lost; training since that
//! checkpoint is redone from its weights and optimizer state, so nothing is
//! trained on top of a state that was never saved.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde_json::json;

use super::baseline;
use super::config::{RunConfig, SAFE_TO_CHANGE};
use super::metrics::{MetricsLog, fields};
use crate::checkpoint::{self, CHECKPOINT_VERSION, CheckpointMeta, GatingResult};
use crate::eval::{ArenaConfig, DuelSettings, GamePlayers, Openings, Sprt, Verdict, run_duel};
use crate::game::Game;
use crate::mcts::SearchConfig;
use crate::nn::{InferenceOptions, NetEvaluator};
use crate::replay::window::ReplayWindow;
use crate::selfplay::{self, Progress};
use crate::train::{Batch, Trainer};
use crate::util::{sub_seed, write_atomic};

/// Why the loop stopped with an error.
pub type LoopError = anyhow::Error;

/// Paths of a run directory. `<run>/checkpoints`, `<run>/data/selfplay`,
/// `<run>/logs`, `<run>/eval` and the frozen `<run>/config.toml`; the
/// project's default run keeps checkpoints in `checkpoints/` and the rest
/// under `data/`.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// Paths in checkpoint metadata are relative to this.
    pub root: PathBuf,
    checkpoints: PathBuf,
    data: PathBuf,
    meta: PathBuf,
}

impl RunDir {
    /// The standard layout under `root`.
    pub fn new(root: &Path) -> RunDir {
        RunDir {
            root: root.to_path_buf(),
            checkpoints: root.join("checkpoints"),
            data: root.join("data"),
            meta: root.to_path_buf(),
        }
    }

    /// The project's own folders: `checkpoints/` and `data/` under `project`.
    pub fn project_default(project: &Path) -> RunDir {
        RunDir {
            root: project.to_path_buf(),
            checkpoints: project.join("checkpoints"),
            data: project.join("data"),
            meta: project.join("data"),
        }
    }

    pub fn config(&self) -> PathBuf {
        self.meta.join("config.toml")
    }
    pub fn checkpoints(&self) -> PathBuf {
        self.checkpoints.clone()
    }
    pub fn selfplay(&self) -> PathBuf {
        self.data.join("selfplay")
    }
    pub fn logs(&self) -> PathBuf {
        self.meta.join("logs")
    }
    pub fn eval(&self) -> PathBuf {
        self.meta.join("eval")
    }
    fn relative(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    }
}

/// How a `train` invocation ended.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopSummary {
    pub first_generation: u64,
    pub last_generation: u64,
    pub best: u64,
    pub interrupted: bool,
}

/// Loads the config a run must use: the frozen `<run>/config.toml` if the
/// run exists (refusing changes to keys not safe to change), else `given`,
/// which is then frozen.
pub fn settle_config(run: &RunDir, given: RunConfig) -> Result<RunConfig, LoopError> {
    let path = run.config();
    if !path.exists() {
        write_atomic(&path, given.to_toml().as_bytes())?;
        return Ok(given);
    }
    let frozen = RunConfig::load(Some(&path))?;
    let differ = frozen.differing_keys(&given);
    let unsafe_keys: Vec<&String> = differ
        .iter()
        .filter(|k| !SAFE_TO_CHANGE.contains(&k.as_str()))
        .collect();
    if !unsafe_keys.is_empty() {
        anyhow::bail!(
            "the config differs from the run's frozen {} in keys that cannot change mid-run: {}\n\
             (keys safe to change: {})",
            path.display(),
            unsafe_keys
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            SAFE_TO_CHANGE.join(", ")
        );
    }
    if !differ.is_empty() {
        eprintln!("resuming with changed keys: {}", differ.join(", "));
        write_atomic(&path, given.to_toml().as_bytes())?;
    }
    Ok(given)
}

/// Runs the loop on `game` (the game `cfg.game` names) until the config's
/// limits or `stop` (Ctrl-C).
pub fn train<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    let cfg = settle_config(run, cfg)?;
    anyhow::ensure!(
        cfg.game.name == G::NAME && cfg.game.variant == game.variant(),
        "the config plays {} ({}), not {} ({})",
        cfg.game.name,
        cfg.game.variant,
        G::NAME,
        game.variant()
    );
    for spec in &cfg.baseline.opponents {
        crate::eval::parse_game_player(game, spec, 0)
            .map_err(|e| anyhow::anyhow!("[baseline] opponents: {e}"))?;
    }
    let started = Instant::now();
    let device = cfg.run.backend.device()?;
    let ckpts = run.checkpoints();
    fs::create_dir_all(run.selfplay())?;
    let mut log = MetricsLog::open(&run.logs())?;

    // Generation 0: a fresh network is the first best.
    if checkpoint::list(&ckpts)?.is_empty() {
        let model = cfg.model.to_model_config().init(&game.net_shape(), &device);
        let meta = CheckpointMeta {
            version: CHECKPOINT_VERSION,
            game: G::NAME.into(),
            variant: game.variant().into(),
            generation: 0,
            model: cfg.model.clone(),
            positions_generated: 0,
            samples_trained: 0,
            train_steps: 0,
            replay_files: Vec::new(),
            games_played: 0,
            rng_stream: 0,
            gating: None,
            created_unix: now(),
        };
        checkpoint::save(&ckpts, &meta, &model, None)?;
        checkpoint::write_best(&ckpts, 0)?;
    }
    let latest = *checkpoint::list(&ckpts)?
        .last()
        .expect("generation 0 exists");
    let latest_dir = checkpoint::generation_dir(&ckpts, latest);
    let (model, mut meta) = checkpoint::load_model(game, &latest_dir, &device)?;
    let mut best = checkpoint::read_best(&ckpts)?.unwrap_or(latest);
    let mut trainer = Trainer::new(model, cfg.train.clone(), &device, meta.train_steps);
    if let Ok(bytes) = fs::read(latest_dir.join("optimizer.bpk")) {
        trainer
            .load_optimizer(bytes)
            .map_err(|e| anyhow::anyhow!("{}: optimizer state: {e}", latest_dir.display()))?;
    }

    let mut window = ReplayWindow::new(game.clone(), cfg.replay.clone());
    for f in &meta.replay_files {
        if let Err(e) = window.add_file(&run.root.join(f)) {
            eprintln!("skipping record file: {e}");
        }
    }
    let first_generation = latest + 1;
    let mut g = first_generation;
    let mut interrupted = false;
    loop {
        let out_of_time =
            cfg.run.hours > 0.0 && started.elapsed().as_secs_f64() > cfg.run.hours * 3600.0;
        let done = cfg.run.generations > 0 && g > cfg.run.generations;
        if done || out_of_time {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }

        // 1. Self-play with the best network, counting games that earlier
        //    attempts at this generation already finished.
        let known: BTreeSet<String> = window
            .files()
            .iter()
            .map(|(p, _)| run.relative(p))
            .collect();
        let mut new_files = Vec::new();
        let mut games_done = 0u64;
        let mut attempts = 0u32;
        for entry in fs::read_dir(run.selfplay())? {
            let p = entry?.path();
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if !name.ends_with(".bin") || known.contains(&run.relative(&p)) {
                continue;
            }
            if name.starts_with(&format!("g{g:06}-")) {
                attempts += 1;
                match crate::replay::record::read(game, &p) {
                    Ok(f) => games_done += f.meta.games as u64,
                    Err(e) => eprintln!("skipping record file: {e}"),
                }
            }
            new_files.push(p);
        }
        let to_play = cfg.run.games_per_generation.saturating_sub(games_done);
        if to_play > 0 {
            let best_dir = checkpoint::generation_dir(&ckpts, best);
            let (best_model, _) = checkpoint::load_model(game, &best_dir, &device)?;
            let progress = Progress::default();
            let t = Instant::now();
            let bar = phase_bar(to_play, &format!("generation {g} self-play"));
            let done = AtomicBool::new(false);
            let s = std::thread::scope(|scope| {
                scope.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        bar.set_position(progress.games.load(Ordering::Relaxed));
                        let secs = t.elapsed().as_secs_f64().max(1e-9);
                        bar.set_message(format!(
                            "{:.1} positions/s",
                            progress.positions.load(Ordering::Relaxed) as f64 / secs
                        ));
                        std::thread::sleep(std::time::Duration::from_millis(250));
                    }
                });
                let r = selfplay::run(
                    game,
                    &cfg.selfplay,
                    &cfg.search,
                    to_play,
                    sub_seed(cfg.run.seed, g * 1000 + attempts as u64),
                    best,
                    &run.selfplay(),
                    &format!("g{g:06}-a{attempts:02}"),
                    |_| {
                        NetEvaluator::new(
                            game.clone(),
                            best_model.clone(),
                            device.clone(),
                            InferenceOptions::default(),
                        )
                        .map_err(|e| e.to_string())
                    },
                    &progress,
                    &|| stop.load(Ordering::Relaxed),
                );
                done.store(true, Ordering::Relaxed);
                r
            })?;
            bar.finish_and_clear();
            let hours = t.elapsed().as_secs_f64() / 3600.0;
            let mut f = fields(&s);
            f.remove("files");
            f.insert(
                "games_per_hour".into(),
                json!(s.games as f64 / hours.max(1e-9)),
            );
            f.insert(
                "positions_per_s".into(),
                json!(s.evaluated as f64 / (hours * 3600.0).max(1e-9)),
            );
            log.log("selfplay", g, trainer.steps(), f);
            new_files.extend(s.files.iter().cloned());
            if s.interrupted {
                interrupted = true;
                break;
            }
        }
        new_files.sort();
        new_files.dedup();
        let before = window.generated();
        for p in &new_files {
            if let Err(e) = window.add_file(p) {
                eprintln!("skipping record file: {e}");
            }
        }
        let new_positions = window.generated() - before;

        // 2. Train, at the configured ratio of samples to new positions.
        let tc = trainer.config().clone();
        let steps = if window.len() >= tc.min_positions {
            ((tc.train_ratio * new_positions as f64) / tc.batch_size as f64).ceil() as u64
        } else {
            0
        };
        let mut rng = SmallRng::seed_from_u64(sub_seed(cfg.run.seed ^ 0x7a11, g));
        let mut trained = 0u64;
        let bar = phase_bar(steps, &format!("generation {g} training"));
        for _ in 0..steps {
            if stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            let batch = Batch::new(game, &window.sample(&mut rng, tc.batch_size), &mut rng);
            let m = trainer.step(&batch);
            bar.inc(1);
            bar.set_message(format!(
                "loss {:.3}, {:.0} samples/s",
                m.loss, m.samples_per_s
            ));
            trained += tc.batch_size as u64;
            log.log("train", g, m.step, fields(&m));
        }
        bar.finish_and_clear();
        if interrupted {
            break;
        }

        // 3. The candidate checkpoint.
        meta = CheckpointMeta {
            version: CHECKPOINT_VERSION,
            game: G::NAME.into(),
            variant: game.variant().into(),
            generation: g,
            model: cfg.model.clone(),
            positions_generated: window.generated(),
            samples_trained: meta.samples_trained + trained,
            train_steps: trainer.steps(),
            replay_files: window
                .files()
                .iter()
                .map(|(p, _)| run.relative(p))
                .collect(),
            games_played: meta.games_played + cfg.run.games_per_generation,
            rng_stream: g,
            gating: None,
            created_unix: now(),
        };
        let candidate = trainer.inference_model();
        let optimizer = trainer
            .optimizer_bytes()
            .map_err(|e| anyhow::anyhow!("optimizer state: {e}"))?;
        let dir = checkpoint::save(&ckpts, &meta, &candidate, Some(&optimizer))?;

        // 4. Gating. A stop request leaves the candidate ungated; the
        //    resumed run trains on from it and it is never promoted.
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let Some(result) = gate(game, &cfg, &ckpts, g, best, stop)? else {
            interrupted = true;
            break;
        };
        meta.gating = Some(result.clone());
        write_atomic(&dir.join("meta.json"), &serde_json::to_vec_pretty(&meta)?)?;
        log.log("gating", g, trainer.steps(), fields(&result));
        if result.promoted {
            checkpoint::write_best(&ckpts, g)?;
            best = g;
            let elo = promoted_elo(&ckpts, g)?;
            log.log("elo", g, trainer.steps(), fields(&json!({ "elo": elo })));
        }
        eprintln!(
            "generation {g}: {} positions in window, {} steps, gating {:.1}% -> {}",
            window.len(),
            trainer.steps(),
            100.0 * result.score,
            if result.promoted {
                "promoted"
            } else {
                "kept best"
            }
        );

        // 5. Every few generations, the best network against opponents
        //    that never change. A stop request cuts the match short; the
        //    generation is complete and the next run skips the match.
        if cfg.baseline.every > 0 && g.is_multiple_of(cfg.baseline.every) {
            let bar = phase_bar(
                cfg.baseline.games as u64 * cfg.baseline.opponents.len() as u64,
                &format!("generation {g} baseline matches"),
            );
            let Some(pairings) = baseline::play(game, &cfg, &ckpts, &run.eval(), best, g, stop)?
            else {
                bar.finish_and_clear();
                interrupted = true;
                g += 1;
                break;
            };
            bar.finish_and_clear();
            let mut line = format!("generation {g}: best network {best}");
            for p in &pairings {
                log.log(
                    &format!("baseline/{}", p.second),
                    g,
                    trainer.steps(),
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
        }
        g += 1;
    }
    Ok(LoopSummary {
        first_generation,
        last_generation: g - 1,
        best,
        interrupted,
    })
}

/// Plays the candidate against the best network and decides promotion;
/// `None` when `stop` cut the match short (the candidate stays ungated).
fn gate<G: Game>(
    game: &G,
    cfg: &RunConfig,
    ckpts: &Path,
    candidate: u64,
    best: u64,
    stop: &AtomicBool,
) -> Result<Option<GatingResult>, LoopError> {
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
    let mut models = Vec::new();
    let mut names = Vec::new();
    for g in [candidate, best] {
        let dir = checkpoint::generation_dir(ckpts, g);
        models.push(checkpoint::load_model(game, &dir, &device)?.0);
        names.push(format!(
            "net-mcts:checkpoint={},sims={}",
            dir.display(),
            gc.simulations
        ));
    }
    let mut arena = ArenaConfig::round_robin(
        game.clone(),
        &[names[0].as_str(), names[1].as_str()],
        gc.games as u32,
        sub_seed(cfg.run.seed ^ 0x9a7e, candidate),
    );
    arena.openings = Openings::Random(gc.random_placements);
    if let Some([e0, e1]) = gc.sprt {
        arena.sprt = Some(Sprt::new(e0, e1)?);
    }
    // The same players as `net-mcts:sims=N` specs, batched like self-play.
    let workers = cfg.selfplay.worker_count().max(1);
    let settings = DuelSettings {
        search: SearchConfig {
            simulations: gc.simulations,
            ..SearchConfig::for_play()
        },
        workers,
        games_in_flight: (gc.games as usize)
            .div_ceil(workers)
            .clamp(1, cfg.selfplay.games_in_flight.max(1)),
    };
    let bar = phase_bar(gc.games, &format!("generation {candidate} gating"));
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
            bar.set_position(n + games.len() as u64);
        },
        &|| stop.load(Ordering::Relaxed),
    )?;
    bar.finish_and_clear();
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
/// gains its gating scores imply along the chain of promotions.
fn promoted_elo(ckpts: &Path, g: u64) -> Result<f64, LoopError> {
    let mut elo = 0.0;
    let mut cur = g;
    while cur != 0 {
        let meta = checkpoint::read_meta(&checkpoint::generation_dir(ckpts, cur))?;
        let Some(gate) = meta.gating else { break };
        // A sweep has no finite Elo; cap it at the score of one lost draw.
        let games = (gate.wins + gate.draws + gate.losses).max(1) as f64;
        let score = gate.score.clamp(0.5 / games, 1.0 - 0.5 / games);
        elo += crate::eval::elo_from_score(score);
        cur = gate.against;
    }
    Ok(elo)
}

/// A progress bar on stderr for one phase (hidden when stderr is not a terminal).
fn phase_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{what} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {{msg}}"
        ))
        .expect("valid template"),
    );
    bar
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
