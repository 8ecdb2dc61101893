//! The training loop: self-play with the best network -> replay window ->
//! gradient steps -> candidate checkpoint -> gating match -> promotion (and
//! every few generations the best network against fixed opponents, see
//! [`super::baseline`]), one generation after another, resumable after a
//! kill at any moment. A new run with `[pretrain] games` set begins with
//! the warm start ([`super::pretrain`]), which makes generation 0.
//!
//! Resume rule: the newest complete checkpoint is the truth. Its meta lists
//! the record files its window held; record files written after it (self-
//! play that finished before a kill) are complete (atomic writes) and join
//! the window on restart, so no finished game is lost; training since that
//! checkpoint is redone from its weights and optimizer state, so nothing is
//! trained on top of a state that was never saved.

use std::collections::{BTreeSet, VecDeque};
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::baseline;
use super::config::{RunConfig, SAFE_TO_CHANGE, SelfPlaySource};
use super::dir::RunDir;
use super::gating::{gate, promoted_elo};
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use super::shared::{Finished, SharedRun, now_unix};
use crate::arena::GamePlayers;
use crate::checkpoint::{self, CheckpointMeta};
use crate::nn::{Model, WorkerNets};
use crate::replay::record::{self, RecordError};
use crate::replay::window::ReplayWindow;
use crate::selfplay::{self, Progress, SelfPlayError};
use crate::train::Trainer;
use crate::util::{sub_seed, write_atomic};

/// Why the loop stopped with an error.
pub type LoopError = anyhow::Error;

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
///
/// Once generation 0 exists the warm start is history: the frozen
/// `[pretrain]` table stays as it was, whatever `given` says.
pub fn settle_config(run: &RunDir, mut given: RunConfig) -> Result<RunConfig, LoopError> {
    let path = run.config();
    if !path.exists() {
        // A run whose config was lost still names its game in its
        // checkpoints: refuse another game before writing anything.
        if let Some(&g) = checkpoint::list(&run.checkpoints())?.last() {
            let meta = checkpoint::read_meta(&checkpoint::generation_dir(&run.checkpoints(), g))?;
            anyhow::ensure!(
                meta.game == given.game.name && meta.variant == given.game.variant,
                "{} has no config, and its checkpoints play {} ({}), not the config's {} ({}): \
                 give the run's own game, or another --run",
                run.meta().display(),
                meta.game,
                meta.variant,
                given.game.name,
                given.game.variant
            );
        }
        write_atomic(&path, given.to_toml().as_bytes())?;
        return Ok(given);
    }
    let frozen = RunConfig::load(Some(&path))?;
    if !checkpoint::list(&run.checkpoints())?.is_empty() {
        given.pretrain = frozen.pretrain.clone();
    }
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
    run_loop(game, run, None, cfg, stop)
}

/// The loop on a run at a location ([`SharedRun`]): what the store holds
/// is brought into the local folder first, and every checkpoint, `best`
/// pointer, config and log the loop writes is published to the store as
/// soon as it is complete. With `[loop] selfplay = "workers"` the games
/// come from `yinsh-zero worker` processes.
pub fn train_shared<G: GamePlayers>(
    game: &G,
    shared: &SharedRun,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    shared.pull_for_trainer()?;
    run_loop(game, shared.dir(), Some(shared), cfg, stop)
}

fn run_loop<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    shared: Option<&SharedRun>,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    let cfg = settle_config(run, cfg)?;
    if let Some(s) = shared {
        s.push_config()?;
    }
    anyhow::ensure!(
        cfg.game.name == G::NAME && cfg.game.variant == game.variant(),
        "the config plays {} ({}), not {} ({})",
        cfg.game.name,
        cfg.game.variant,
        G::NAME,
        game.variant()
    );
    for spec in &cfg.baseline.opponents {
        crate::arena::parse_game_player(game, spec, 0)
            .map_err(|e| anyhow::anyhow!("[baseline] opponents: {e}"))?;
    }
    let started = Instant::now();
    // A run that was finished and is trained further is not finished any
    // more: workers started from here on must play.
    if let Some(s) = shared {
        let next = checkpoint::list(&run.checkpoints())?
            .last()
            .map_or(1, |g| g + 1);
        if limit_reached(&cfg, next, started).is_none() && s.finished()?.is_some() {
            s.clear_finished()?;
        }
    }
    if cfg.pretrain.games > 0
        && checkpoint::list(&run.checkpoints())?.is_empty()
        && super::pretrain::warm_start(game, run, &cfg, stop)?.is_none()
    {
        return Ok(LoopSummary {
            first_generation: 1,
            last_generation: 0,
            best: 0,
            interrupted: true,
        });
    }
    let mut lp = Loop::open(game, run, shared, cfg, stop)?;
    let first_generation = lp.meta.generation + 1;
    let mut g = first_generation;
    let mut interrupted = false;
    loop {
        if let Some(limit) = limit_reached(&lp.cfg, g, started) {
            // Workers stop when they see this (docs/distributed.md).
            if let Some(s) = shared {
                s.publish_finished(&Finished {
                    generation: g - 1,
                    best: lp.best,
                    limit,
                    at_unix: now_unix(),
                })?;
            }
            break;
        }
        match lp.generation(g)? {
            Ended::Complete => g += 1,
            Ended::Stopped => {
                interrupted = true;
                break;
            }
            // The generation is complete; only its baseline match was cut.
            Ended::StoppedInBaseline => {
                interrupted = true;
                g += 1;
                break;
            }
        }
    }
    Ok(LoopSummary {
        first_generation,
        last_generation: g - 1,
        best: lp.best,
        interrupted,
    })
}

/// The config's limit (as the config says it) that stops the loop before
/// generation `g`, in a `train` started at `started`; `None` if `g` is
/// to be trained.
fn limit_reached(cfg: &RunConfig, g: u64, started: Instant) -> Option<String> {
    if cfg.run.generations > 0 && g > cfg.run.generations {
        return Some(format!("generations = {}", cfg.run.generations));
    }
    if cfg.run.hours > 0.0 && started.elapsed().as_secs_f64() > cfg.run.hours * 3600.0 {
        return Some(format!("hours = {}", cfg.run.hours));
    }
    None
}

/// How one generation ended.
enum Ended {
    Complete,
    /// A stop request before the candidate was gated: the generation is
    /// redone (self-play already written is kept).
    Stopped,
    StoppedInBaseline,
}

/// A run's state between generations: the newest checkpoint's trainer
/// and metadata, the replay window and the best network so far.
struct Loop<'a, G: GamePlayers> {
    game: &'a G,
    run: &'a RunDir,
    /// The store the run is published to, if it lives at a location.
    shared: Option<&'a SharedRun>,
    /// Uploaded files found unusable (relative paths): reported once.
    rejected: BTreeSet<String>,
    /// When workers' games were last taken into the window.
    last_collected: Option<Instant>,
    /// Games the last generation took from workers (at least `[loop]
    /// games_per_generation`: whole files are taken).
    games_taken: u64,
    cfg: RunConfig,
    stop: &'a AtomicBool,
    device: burn::tensor::Device,
    log: MetricsLog,
    trainer: Trainer,
    window: ReplayWindow<G>,
    /// The metadata of the newest checkpoint.
    meta: CheckpointMeta,
    best: u64,
    /// The trained weights of the latest generations, oldest first, that
    /// the next network averages in (`[train] average_generations`): read
    /// from their checkpoints once, then kept.
    recent: VecDeque<(u64, Model)>,
}

impl<'a, G: GamePlayers> Loop<'a, G> {
    /// Opens the run at its newest checkpoint, creating generation 0 (a
    /// fresh network, the first best) in a new run.
    fn open(
        game: &'a G,
        run: &'a RunDir,
        shared: Option<&'a SharedRun>,
        cfg: RunConfig,
        stop: &'a AtomicBool,
    ) -> Result<Self, LoopError> {
        let device = cfg.run.backend.device()?;
        let ckpts = run.checkpoints();
        fs::create_dir_all(run.selfplay())?;
        let log = MetricsLog::open(&run.logs())?;
        if checkpoint::list(&ckpts)?.is_empty() {
            let model = super::initial_model(game, &cfg, &device);
            let meta = CheckpointMeta::new(game, 0, cfg.model.clone());
            checkpoint::save(&ckpts, &meta, &model, None)?;
            checkpoint::write_best(&ckpts, 0)?;
        }
        if let Some(s) = shared {
            // Generation 0, new or from a warm start, may not be published
            // yet; publishing it again is harmless.
            let published = s.generations()?;
            for g in checkpoint::list(&ckpts)? {
                if !published.contains(&g) {
                    s.push_checkpoint(g)?;
                }
            }
            if s.best()?.is_none() {
                s.push_best()?;
            }
        }
        let latest = *checkpoint::list(&ckpts)?
            .last()
            .expect("generation 0 exists");
        let latest_dir = checkpoint::generation_dir(&ckpts, latest);
        let (model, meta) = checkpoint::load_trained_model(game, &latest_dir, &device)?;
        // The weights have the checkpoint's shape; candidates are saved
        // with the config's, so the two must agree.
        anyhow::ensure!(
            meta.model == cfg.model,
            "{}: the network is {:?}, the config's [model] is {:?}: train it on with its own \
             [model] table",
            latest_dir.display(),
            meta.model,
            cfg.model
        );
        let best = checkpoint::read_best(&ckpts)?.unwrap_or(latest);
        let mut trainer = Trainer::new(model, cfg.train.clone(), &device, meta.train_steps);
        if let Ok(bytes) = fs::read(latest_dir.join("optimizer.bpk")) {
            trainer
                .load_optimizer(bytes)
                .map_err(|e| anyhow::anyhow!("{}: optimizer state: {e}", latest_dir.display()))?;
        }
        let mut window = ReplayWindow::new(game.clone(), cfg.replay.clone());
        // A run resumed without its old data (a shipped network trained
        // on) misses every file of the window: one line says so, not one
        // per file. Damaged files are still named one by one.
        let mut missing = 0;
        for f in &meta.replay_files {
            match window.add_file(&run.root.join(f)) {
                Ok(_) => {}
                Err(RecordError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    missing += 1
                }
                Err(e) => eprintln!("skipping record file: {e}"),
            }
        }
        if missing > 0 {
            eprintln!(
                "{missing} of the {} record files of generation {latest}'s replay window are gone: \
                 training goes on with what self-play writes from here",
                meta.replay_files.len()
            );
        }
        Ok(Loop {
            game,
            run,
            shared,
            rejected: BTreeSet::new(),
            last_collected: None,
            games_taken: 0,
            cfg,
            stop,
            device,
            log,
            trainer,
            window,
            meta,
            best,
            recent: VecDeque::new(),
        })
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Generation `g`: self-play, training, the candidate checkpoint, its
    /// gating and, every few generations, the baseline matches.
    fn generation(&mut self, g: u64) -> Result<Ended, LoopError> {
        if self.stopping() {
            return Ok(Ended::Stopped);
        }
        let new_positions = match self.cfg.run.selfplay {
            SelfPlaySource::Local => self.self_play(g)?,
            SelfPlaySource::Workers => self.games_from_workers(g)?,
        };
        let Some(new_positions) = new_positions else {
            return Ok(Ended::Stopped);
        };
        let Some(trained) = self.train_steps(g, new_positions)? else {
            return Ok(Ended::Stopped);
        };
        let dir = self.save_candidate(g, trained)?;
        self.publish(|s| s.push_checkpoint(g))?;

        // A stop request leaves the candidate ungated; the resumed run
        // trains on from it and it is never promoted.
        if self.stopping() {
            return Ok(Ended::Stopped);
        }
        let ckpts = self.run.checkpoints();
        let Some(result) = gate(self.game, &self.cfg, &ckpts, g, self.best, self.stop)? else {
            return Ok(Ended::Stopped);
        };
        self.meta.gating = Some(result.clone());
        write_atomic(
            &dir.join("meta.json"),
            &serde_json::to_vec_pretty(&self.meta)?,
        )?;
        self.publish(|s| s.push_meta(g))?;
        self.log
            .log("gating", g, self.trainer.steps(), fields(&result));
        if result.promoted {
            checkpoint::write_best(&ckpts, g)?;
            self.publish(|s| s.push_best())?;
            self.best = g;
            let elo = promoted_elo(&ckpts, g)?;
            self.log.log(
                "elo",
                g,
                self.trainer.steps(),
                fields(&json!({ "elo": elo })),
            );
        }
        let verdict = match (self.cfg.gating.enabled, result.promoted) {
            (false, _) => "gating off, promoted".to_string(),
            (true, promoted) => format!(
                "gating {:.1}% -> {}",
                100.0 * result.score,
                if promoted { "promoted" } else { "kept best" }
            ),
        };
        eprintln!(
            "generation {g}: {} positions in window, {} steps, {verdict}",
            self.window.len(),
            self.trainer.steps(),
        );

        self.publish(|s| s.push_logs())?;
        if self.cfg.baseline.every > 0 && g.is_multiple_of(self.cfg.baseline.every) {
            let complete = self.baseline(g)?;
            self.publish(|s| s.push_logs())?;
            if !complete {
                return Ok(Ended::StoppedInBaseline);
            }
        }
        Ok(Ended::Complete)
    }

    /// Runs `f` on the run's store, if it has one.
    fn publish(&self, f: impl FnOnce(&SharedRun) -> anyhow::Result<()>) -> anyhow::Result<()> {
        match self.shared {
            Some(s) => f(s),
            None => Ok(()),
        }
    }

    /// Waits until workers have uploaded generation `g`'s games (record
    /// files not yet in the window holding `[loop] games_per_generation`
    /// games, from any network), then adds them to the window. Files that
    /// cannot be used (damaged, another game's, not a record) are named
    /// once and left out. The positions added, or `None` on a stop request.
    fn games_from_workers(&mut self, g: u64) -> Result<Option<u64>, LoopError> {
        let want = self.cfg.run.games_per_generation;
        let poll = Duration::from_secs_f64(self.cfg.workers.poll_seconds);
        let phase = Phase::start(format!("generation {g} games from workers"), want, "games");
        let t = Instant::now();
        let mut found: Vec<(PathBuf, u64)> = Vec::new();
        let mut games = 0;
        loop {
            if let Some(s) = self.shared {
                s.pull_new_records(&self.rejected)?;
            }
            let mut known: BTreeSet<String> = self
                .window
                .files()
                .iter()
                .map(|(p, _)| self.run.relative(p))
                .collect();
            known.extend(self.rejected.iter().cloned());
            known.extend(found.iter().map(|(p, _)| self.run.relative(p)));
            for p in uploaded_files(&self.run.selfplay())? {
                let rel = self.run.relative(&p);
                if known.contains(&rel) {
                    continue;
                }
                let is_record = p.extension().is_some_and(|x| x == "bin");
                match record::read(self.game, &p) {
                    Ok(f) if is_record => {
                        games += f.meta.games as u64;
                        found.push((p, f.meta.games as u64));
                    }
                    Ok(_) => {
                        eprintln!("skipping uploaded file {rel}: record files end in .bin");
                        self.rejected.insert(rel);
                    }
                    Err(e) => {
                        eprintln!("skipping uploaded file {rel}: {e}");
                        self.rejected.insert(rel);
                    }
                }
            }
            phase.set(games.min(want), format!("{} files", found.len()));
            if games >= want {
                break;
            }
            let until = Instant::now() + poll;
            while Instant::now() < until {
                if self.stopping() {
                    phase.finish();
                    return Ok(None);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        phase.finish();
        let before = self.window.generated();
        for (p, _) in &found {
            if let Err(e) = self.window.add_file(p) {
                eprintln!("skipping record file: {e}");
            }
        }
        // The workers' pace: games delivered since the previous
        // generation's games were taken (the trainer's own work included,
        // during which the workers went on).
        let now = Instant::now();
        let mut f = json!({
            "source": "workers",
            "games": games,
            "files": found.len(),
            "positions": self.window.generated() - before,
            "waited_s": t.elapsed().as_secs_f64(),
        });
        if let Some(last) = self.last_collected {
            let secs = (now - last).as_secs_f64().max(1e-9);
            f["games_per_hour"] = json!(games as f64 * 3600.0 / secs);
        }
        self.last_collected = Some(now);
        self.games_taken = games;
        self.log
            .log("selfplay", g, self.trainer.steps(), fields(&f));
        Ok(Some(self.window.generated() - before))
    }

    /// Self-play with the best network until generation `g` has its games,
    /// counting those that earlier attempts at it already wrote; then every
    /// record file not yet in the window joins it. The positions added, or
    /// `None` on a stop request.
    fn self_play(&mut self, g: u64) -> Result<Option<u64>, LoopError> {
        let known: BTreeSet<String> = self
            .window
            .files()
            .iter()
            .map(|(p, _)| self.run.relative(p))
            .collect();
        let pending = self.run.pending_records(self.game, &known, g)?;
        let mut new_files = pending.files;
        let to_play = self
            .cfg
            .run
            .games_per_generation
            .saturating_sub(pending.games);
        let mut stopped = false;
        if to_play > 0 {
            let best_dir = checkpoint::generation_dir(&self.run.checkpoints(), self.best);
            let (best_model, _) = checkpoint::load_model(self.game, &best_dir, &self.device)?;
            let s = self.play_games(g, pending.attempts, to_play, &best_model)?;
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
            self.log.log("selfplay", g, self.trainer.steps(), f);
            new_files.extend(s.summary.files.iter().cloned());
            stopped = s.summary.interrupted;
        }
        new_files.sort();
        new_files.dedup();
        let before = self.window.generated();
        for p in &new_files {
            if let Err(e) = self.window.add_file(p) {
                eprintln!("skipping record file: {e}");
            }
        }
        Ok((!stopped).then(|| self.window.generated() - before))
    }

    /// Plays `to_play` games of generation `g` with `model`, showing progress.
    fn play_games(
        &self,
        g: u64,
        attempt: u32,
        to_play: u64,
        model: &Model,
    ) -> Result<TimedSelfPlay, LoopError> {
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
        let sp = &self.cfg.selfplay;
        let nets = WorkerNets::new(
            self.game,
            model,
            &self.device,
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
                self.game,
                &self.cfg.selfplay,
                &self.cfg.search,
                to_play,
                sub_seed(self.cfg.run.seed, g * 1000 + attempt as u64),
                self.best,
                &self.run.selfplay(),
                &RunDir::record_prefix(g, attempt),
                nets.maker(),
                &progress,
                &|| self.stopping(),
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

    /// Gradient steps at the configured ratio of samples to the
    /// `new_positions`, on `[train] threads` cores: the samples trained, or
    /// `None` on a stop request.
    fn train_steps(&mut self, g: u64, new_positions: u64) -> Result<Option<u64>, LoopError> {
        let threads = self.trainer.config().threads;
        super::in_train_pool(threads, || self.train_steps_here(g, new_positions))
    }

    fn train_steps_here(&mut self, g: u64, new_positions: u64) -> Option<u64> {
        let tc = self.trainer.config().clone();
        let steps = if self.window.len() >= tc.min_positions {
            ((tc.train_ratio * new_positions as f64) / tc.batch_size as f64).ceil() as u64
        } else {
            0
        };
        super::gradient_steps(
            self.game,
            &mut self.trainer,
            &self.window,
            steps,
            &self.cfg,
            g,
            &mut self.log,
            format!("generation {g} training"),
            self.stop,
        )
        .ok()
        .map(|_| steps * tc.batch_size as u64)
    }

    /// Writes generation `g`'s candidate (weights, optimizer state and the
    /// window's files) and returns its folder.
    fn save_candidate(&mut self, g: u64, trained: u64) -> Result<PathBuf, LoopError> {
        self.meta = CheckpointMeta {
            positions_generated: self.window.generated(),
            samples_trained: self.meta.samples_trained + trained,
            train_steps: self.trainer.steps(),
            replay_files: self
                .window
                .files()
                .iter()
                .map(|(p, _)| self.run.relative(p))
                .collect(),
            games_played: self.meta.games_played
                + match self.cfg.run.selfplay {
                    SelfPlaySource::Local => self.cfg.run.games_per_generation,
                    SelfPlaySource::Workers => self.games_taken,
                },
            ..CheckpointMeta::new(self.game, g, self.cfg.model.clone())
        };
        let trained = self.trainer.inference_model();
        let optimizer = self
            .trainer
            .optimizer_bytes()
            .map_err(|e| anyhow::anyhow!("optimizer state: {e}"))?;
        let k = self.cfg.train.average_generations as usize;
        if k <= 1 {
            return Ok(checkpoint::save(
                &self.run.checkpoints(),
                &self.meta,
                &trained,
                Some(&optimizer),
            )?);
        }
        if self.recent.is_empty() {
            self.recent = self.trained_before(g, k - 1)?;
        }
        self.recent.push_back((g, trained.clone()));
        while self.recent.len() > k {
            self.recent.pop_front();
        }
        self.meta.averaged_from = self.recent.iter().map(|(e, _)| *e).collect();
        let models: Vec<Model> = self.recent.iter().map(|(_, m)| m.clone()).collect();
        let mean = crate::nn::average(&models).map_err(|e| anyhow::anyhow!("averaging: {e}"))?;
        let dir = checkpoint::generation_dir(&self.run.checkpoints(), g);
        checkpoint::save_to(&dir, &self.meta, &mean, Some(&trained), Some(&optimizer))?;
        Ok(dir)
    }

    /// The trained weights of the last `n` generations before `g`, oldest
    /// first, from their checkpoints. A trainer resumed on another machine
    /// fetches the ones it lacks from the run's store.
    fn trained_before(&self, g: u64, n: usize) -> Result<VecDeque<(u64, Model)>, LoopError> {
        let ckpts = self.run.checkpoints();
        let mut wanted: Vec<u64> = match self.shared {
            Some(s) => s.generations()?,
            None => checkpoint::list(&ckpts)?,
        };
        wanted.retain(|&e| e < g);
        let mut out = VecDeque::with_capacity(n);
        for &e in &wanted[wanted.len().saturating_sub(n)..] {
            let dir = checkpoint::generation_dir(&ckpts, e);
            if let Some(s) = self.shared
                && !dir.join("meta.json").is_file()
            {
                s.pull_checkpoint(e, true)?;
            }
            let (model, _) = checkpoint::load_trained_model(self.game, &dir, &self.device)?;
            out.push_back((e, model));
        }
        Ok(out)
    }

    /// The best network against opponents that never change; false when a
    /// stop request cut the matches short.
    fn baseline(&mut self, g: u64) -> Result<bool, LoopError> {
        let bc = &self.cfg.baseline;
        let phase = Phase::start(
            format!("generation {g} baseline matches"),
            bc.games as u64 * bc.opponents.len() as u64,
            "games",
        );
        let played = baseline::play(
            self.game,
            &self.cfg,
            &self.run.checkpoints(),
            &self.run.eval(),
            self.best,
            g,
            self.stop,
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
        let mut line = format!("generation {g}: best network {}", self.best);
        for p in &pairings {
            self.log.log(
                &format!("baseline/{}", p.second),
                g,
                self.trainer.steps(),
                fields(&json!({
                    "network": self.best,
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
}

/// Files in the records folder, sorted, without the store's and
/// `write_atomic`'s staging files (an upload in progress).
fn uploaded_files(folder: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let entries = match fs::read_dir(folder) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".tmp-") || name.contains('#') || !e.file_type()?.is_file() {
            continue;
        }
        out.push(e.path());
    }
    out.sort();
    Ok(out)
}

/// A self-play phase's summary and how long it took.
struct TimedSelfPlay {
    summary: selfplay::SelfPlaySummary,
    seconds: f64,
}
