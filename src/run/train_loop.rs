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

use std::fs;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::RunCtx;
use super::averaging::Averager;
use super::baseline;
use super::collect::Collector;
use super::config::{RunConfig, SAFE_TO_CHANGE, SelfPlaySource};
use super::dir::RunDir;
use super::gating::gate_candidate;
use super::local_play::self_play;
use super::metrics::MetricsLog;
use super::publish::Publish;
use super::resume::ResumePoint;
use super::shared::{Finished, SharedRun, now_unix};
use super::training::train_generation;
use crate::arena::GamePlayers;
use crate::checkpoint::{self, CheckpointMeta, GatingResult};
use crate::game::Game;
use crate::games::{Registry, With};
use crate::replay::record::RecordError;
use crate::replay::window::ReplayWindow;
use crate::train::Trainer;
use crate::util::write_atomic;

/// Why the loop stopped with an error.
pub type LoopError = anyhow::Error;

/// How a `train` invocation ended.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopSummary {
    pub first_generation: u64,
    pub last_generation: u64,
    pub best: u64,
    pub interrupted: bool,
    /// The config's limit that ended the loop, as the config says it
    /// (`generations = 4`, `cpu_hours = 2`); `None` when it was stopped.
    pub limit: Option<String>,
}

/// Loads the config a run must use: the frozen `<run>/config.toml` if the
/// run exists (refusing changes to keys not safe to change), else `given`,
/// which is then frozen.
///
/// Once generation 0 exists the warm start is history: the frozen
/// `[pretrain]` table stays as it was, whatever `given` says.
pub fn settle_config<R: Registry>(
    run: &RunDir,
    mut given: RunConfig,
) -> Result<RunConfig, LoopError> {
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
    let frozen = RunConfig::load_for::<R>(Some(&path))?;
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
///
/// A game of your own, start to finish: tic-tac-toe on the game interface
/// ([`State`](crate::game::State) for the rules, [`Game`] for what the
/// network sees, records and notation, [`GamePlayers`] for the players,
/// every method of which has a default), trained for two generations, its
/// network then loaded from the checkpoint and asked for a move. (The
/// `examples/othello` crate does the same for 6x6 Othello outside this
/// crate, with the whole command line: `cli::main_with`.)
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use yinsh_zero::arena::{GamePlayers, parse_game_player};
/// use yinsh_zero::game::{Color, Game, GameResult, IllegalAction, NetShape, State};
/// use yinsh_zero::run::{RunDir, config::RunConfig, train_loop::train};
///
/// /// Tic-tac-toe: cells 0..9 row by row, White first.
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Board { cells: [Option<Color>; 9], to_act: Color, ply: u32 }
///
/// impl std::fmt::Display for Board {
///     fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
///         for row in self.cells.chunks(3) {
///             let marks: String = row.iter().map(|c| match c {
///                 Some(Color::White) => 'X', Some(Color::Black) => 'O', None => '.',
///             }).collect();
///             writeln!(f, "{marks}")?;
///         }
///         Ok(())
///     }
/// }
///
/// const LINES: [[usize; 3]; 8] =
///     [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
///
/// impl State for Board {
///     type Action = u8;
///     type Actions = Vec<u8>;
///     fn to_act(&self) -> Color { self.to_act }
///     fn legal_actions(&self) -> Vec<u8> {
///         if self.result().is_some() { return vec![] }
///         (0..9).filter(|&c| self.cells[c as usize].is_none()).collect()
///     }
///     fn play(&mut self, a: u8) -> Result<(), IllegalAction> {
///         if !self.legal_actions().contains(&a) {
///             return Err(IllegalAction { action: a.to_string(), reason: "not empty".into() });
///         }
///         self.cells[a as usize] = Some(self.to_act);
///         self.to_act = !self.to_act;
///         self.ply += 1;
///         Ok(())
///     }
///     fn result(&self) -> Option<GameResult> {
///         for [a, b, c] in LINES {
///             if let Some(s) = self.cells[a] {
///                 if self.cells[b] == Some(s) && self.cells[c] == Some(s) {
///                     return Some(GameResult::Win(s));
///                 }
///             }
///         }
///         (self.ply == 9).then_some(GameResult::Draw)
///     }
///     fn ply(&self) -> u32 { self.ply }
///     fn key(&self) -> u64 {
///         self.cells.iter().fold(self.to_act as u64, |k, c| k * 3 + c.map_or(0, |c| 1 + c as u64))
///     }
/// }
///
/// #[derive(Clone, Debug, PartialEq)]
/// struct TicTacToe;
///
/// impl Game for TicTacToe {
///     type State = Board;
///     const NAME: &'static str = "tictactoe";
///     const VARIANTS: &'static [&'static str] = &["standard"];
///     fn variant(&self) -> &str { "standard" }
///     fn with_variant(v: &str) -> Result<Self, String> {
///         if v == "standard" { Ok(TicTacToe) } else { Err(format!("no variant `{v}`")) }
///     }
///     fn start(&self) -> Board { Board { cells: [None; 9], to_act: Color::White, ply: 0 } }
///     fn net_shape(&self) -> NetShape {
///         // Two input planes (the mover's marks, the other's) on a 3x3 board,
///         // one policy plane: an action is a cell.
///         NetShape { planes: 2, height: 3, width: 3, policy_planes: 1, extra_actions: 0 }
///     }
///     fn encode(&self, b: &Board, out: &mut [f32]) {
///         out.fill(0.0);
///         for (i, c) in b.cells.iter().enumerate() {
///             if let Some(c) = c { out[if *c == b.to_act { i } else { 9 + i }] = 1.0 }
///         }
///     }
///     fn action_index(&self, a: u8) -> usize { a as usize }
///     fn action_from_index(&self, i: usize) -> Option<u8> { (i < 9).then_some(i as u8) }
///     fn write_state(&self, b: &Board, out: &mut Vec<u8>) {
///         out.extend(b.cells.iter().map(|c| c.map_or(0, |c| 1 + c as u8)));
///     }
///     fn read_state(&self, bytes: &[u8]) -> Result<Board, String> {
///         let mut b = self.start();
///         if bytes.len() != 9 || bytes.iter().any(|&x| x > 2) { return Err("not a board".into()) }
///         for (i, &x) in bytes.iter().enumerate() {
///             b.cells[i] = [None, Some(Color::White), Some(Color::Black)][x as usize];
///         }
///         b.ply = b.cells.iter().flatten().count() as u32;
///         b.to_act = if b.ply % 2 == 0 { Color::White } else { Color::Black };
///         Ok(b)
///     }
///     fn parse_action(&self, b: &Board, text: &str) -> Result<u8, String> {
///         let a: u8 = text.parse().map_err(|_| format!("`{text}` is not a cell 0-8"))?;
///         if b.legal_actions().contains(&a) { Ok(a) } else { Err(format!("{a} is taken")) }
///     }
/// }
///
/// impl GamePlayers for TicTacToe {}
///
/// // A run in seconds: the default config, resized for a 3x3 board.
/// let mut cfg = RunConfig::load(None).unwrap();
/// cfg.game.name = "tictactoe".into();
/// cfg.run.generations = 2;
/// cfg.run.games_per_generation = 16;
/// (cfg.model.blocks, cfg.model.channels) = (1, 8);
/// (cfg.model.value_channels, cfg.model.value_hidden) = (2, 16);
/// (cfg.search.simulations, cfg.search.fast_simulations) = (8, 8);
/// (cfg.selfplay.workers, cfg.selfplay.games_in_flight) = (1, 16);
/// (cfg.replay.min_size, cfg.train.min_positions, cfg.train.batch_size) = (100, 10, 32);
/// (cfg.gating.enabled, cfg.baseline.every, cfg.pretrain.games) = (false, 0, 0);
///
/// let dir = tempfile::tempdir().unwrap();
/// let run = RunDir::new(dir.path());
/// let summary = train(&TicTacToe, &run, cfg, &AtomicBool::new(false)).unwrap();
/// assert_eq!(summary.last_generation, 2);
///
/// // The trained network, from its checkpoint, searching 16 simulations.
/// let spec = format!("net-mcts:checkpoint={},sims=16", run.checkpoints().display());
/// let mut player = parse_game_player(&TicTacToe, &spec, 0).unwrap();
/// let board = TicTacToe.start();
/// assert!(board.legal_actions().contains(&player.choose(&board)));
/// ```
pub fn train<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    run_loop(game, run, None, None, cfg, stop)
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
    run_loop(game, shared.dir(), Some(shared), None, cfg, stop)
}

/// [`train`] (`shared` `None`) or [`train_shared`] keeping a resume point
/// at `resume`: a run folder without checkpoints begins from the resume
/// point if it holds one, each complete generation replaces it, and the
/// run that reaches its limit removes it ([`ResumePoint`]). How a long
/// run outlives the machine it started on: the resume point is the one
/// folder to keep.
pub fn train_keeping<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    shared: Option<&SharedRun>,
    resume: &ResumePoint,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    if let Some(s) = shared {
        s.pull_for_trainer()?;
    }
    if let Some(g) = resume.restore_into(run)? {
        eprintln!(
            "{}: resumed from the resume point {} at generation {g} (its replay window \
             refills from new self-play)",
            run.meta().display(),
            resume.path().display()
        );
    }
    run_loop(game, run, shared, Some(resume), cfg, stop)
}

fn run_loop<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    shared: Option<&SharedRun>,
    resume: Option<&ResumePoint>,
    cfg: RunConfig,
    stop: &AtomicBool,
) -> Result<LoopSummary, LoopError> {
    let resume = resume.map(|r| (r, run));
    // The run's game is `G`, whether or not this crate registers it.
    let cfg = settle_config::<With<G>>(run, cfg)?;
    Publish::new(shared, resume).config()?;
    anyhow::ensure!(
        cfg.game.name == G::NAME && cfg.game.variant == game.variant(),
        "the config plays {} ({}), not {} ({})",
        cfg.game.name,
        cfg.game.variant,
        G::NAME,
        game.variant()
    );
    // Opponents that never play (`every = 0`) need not be this game's.
    if cfg.baseline.every > 0 {
        for spec in &cfg.baseline.opponents {
            crate::arena::parse_game_player(game, spec, 0)
                .map_err(|e| anyhow::anyhow!("[baseline] opponents: {e}"))?;
        }
    }
    let started = Instant::now();
    // A run that was finished and is trained further is not finished any
    // more: workers started from here on must play.
    if let Some(s) = shared {
        let ckpts = run.checkpoints();
        let newest = checkpoint::list(&ckpts)?.last().copied();
        let next = newest.map_or(1, |g| g + 1);
        let cpu_seconds = newest
            .and_then(|g| checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, g)).ok())
            .map_or(0.0, |m| m.cpu_seconds);
        if limit_reached(&cfg, next, started, cpu_seconds).is_none() && s.finished()?.is_some() {
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
            limit: None,
        });
    }
    let mut lp = Loop::open(game, run, shared, resume, cfg, stop)?;
    let first_generation = lp.meta.generation + 1;
    let mut g = first_generation;
    let mut interrupted = false;
    let mut reached = None;
    loop {
        if let Some(limit) = limit_reached(&lp.ctx.cfg, g, started, lp.run_cpu_seconds()) {
            // Workers stop when they see this (docs/distributed.md).
            lp.ctx.publish.finished(&Finished {
                generation: g - 1,
                best: lp.best,
                limit: limit.clone(),
                at_unix: now_unix(),
            })?;
            reached = Some(limit);
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
        limit: reached,
    })
}

/// The config's limit (as the config says it) that stops the loop before
/// generation `g`, in a `train` started at `started` on a run that has
/// spent `cpu_seconds`; `None` if `g` is to be trained.
fn limit_reached(cfg: &RunConfig, g: u64, started: Instant, cpu_seconds: f64) -> Option<String> {
    if cfg.run.generations > 0 && g > cfg.run.generations {
        return Some(format!("generations = {}", cfg.run.generations));
    }
    if cfg.run.hours > 0.0 && started.elapsed().as_secs_f64() > cfg.run.hours * 3600.0 {
        return Some(format!("hours = {}", cfg.run.hours));
    }
    if cfg.run.cpu_hours > 0.0 && cpu_seconds >= cfg.run.cpu_hours * 3600.0 {
        return Some(format!("cpu_hours = {}", cfg.run.cpu_hours));
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
/// and metadata, the replay window, the best network so far, and what the
/// collect and average phases carry from one generation to the next.
/// Each generation calls the phases in order ([`Loop::generation`]).
struct Loop<'a, G: GamePlayers> {
    ctx: RunCtx<'a, G>,
    log: MetricsLog,
    trainer: Trainer,
    window: ReplayWindow<G>,
    /// The metadata of the newest checkpoint.
    meta: CheckpointMeta,
    best: u64,
    collector: Collector,
    averager: Averager,
    /// The run's CPU seconds before this process, less this process's at
    /// the start: with the process's own, the run's so far.
    cpu_base: f64,
}

impl<'a, G: GamePlayers> Loop<'a, G> {
    /// Opens the run at its newest checkpoint, creating generation 0 (a
    /// fresh network, the first best) in a new run.
    fn open(
        game: &'a G,
        run: &'a RunDir,
        shared: Option<&'a SharedRun>,
        resume: Option<(&'a ResumePoint, &'a RunDir)>,
        cfg: RunConfig,
        stop: &'a AtomicBool,
    ) -> Result<Self, LoopError> {
        let device = cfg.run.backend.device()?;
        let ckpts = run.checkpoints();
        fs::create_dir_all(run.selfplay())?;
        let log = MetricsLog::open(&run.logs())?;
        if checkpoint::list(&ckpts)?.is_empty() {
            let model = super::initial_model(game, &cfg, &device);
            let meta = super::checkpoint_meta(game, &cfg, 0);
            checkpoint::save(&ckpts, &meta, &model, None)?;
            checkpoint::write_best(&ckpts, 0)?;
        }
        let publish = Publish::new(shared, resume);
        publish.missing_checkpoints(&ckpts)?;
        let latest = *checkpoint::list(&ckpts)?
            .last()
            .expect("generation 0 exists");
        let latest_dir = checkpoint::generation_dir(&ckpts, latest);
        let (mut model, meta) = checkpoint::load_trained_model(game, &latest_dir, &device)?;
        // A run may add auxiliary heads or pooled branches to a network
        // trained without them: the heads start fresh, the branches add
        // nothing until trained, the rest goes on.
        let bare = |m: &crate::nn::ModelSection| crate::nn::ModelSection {
            reply_head: false,
            ownership_head: false,
            global_pool_channels: 0,
            global_pool_every: crate::nn::ModelConfig::new().global_pool_every,
            ..m.clone()
        };
        let pooling = |m: &crate::nn::ModelSection| (m.global_pool_channels, m.global_pool_every);
        let fits = bare(&meta.model) == bare(&cfg.model)
            && (cfg.model.reply_head || !meta.model.reply_head)
            && (cfg.model.ownership_head || !meta.model.ownership_head)
            && (meta.model.global_pool_channels == 0
                || pooling(&meta.model) == pooling(&cfg.model));
        if fits {
            let config = cfg.model.to_model_config();
            model = model
                .with_aux_heads(&config, &game.net_shape(), &device)
                .with_global_pooling(&config, &device);
        }
        // The weights have the checkpoint's shape; candidates are saved
        // with the config's, so the two must agree.
        anyhow::ensure!(
            fits,
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
        restore_window(&mut window, run, &meta, latest);
        let cpu_base = meta.cpu_seconds - super::process_cpu_seconds();
        Ok(Loop {
            ctx: RunCtx {
                game,
                run,
                publish,
                cfg,
                device,
                stop,
            },
            log,
            trainer,
            window,
            meta,
            best,
            collector: Collector::default(),
            averager: Averager::default(),
            cpu_base,
        })
    }

    /// The run's CPU seconds so far, every sitting together.
    fn run_cpu_seconds(&self) -> f64 {
        self.cpu_base + super::process_cpu_seconds()
    }

    /// Generation `g`: its games (self-play or the workers'), training,
    /// the candidate checkpoint (averaged), its gating and, every few
    /// generations, the baseline matches; each result is published as
    /// soon as it is complete.
    fn generation(&mut self, g: u64) -> Result<Ended, LoopError> {
        if self.ctx.stopping() {
            return Ok(Ended::Stopped);
        }
        let Some((new_positions, games)) = self.games(g)? else {
            return Ok(Ended::Stopped);
        };
        super::reanalysis::reanalyse_window(
            &self.ctx,
            &mut self.window,
            &mut self.log,
            self.trainer.steps(),
            self.best,
            g,
            new_positions,
        )?;
        let Some(trained) = train_generation(
            &self.ctx,
            &mut self.trainer,
            &self.window,
            &mut self.log,
            g,
            new_positions,
        )?
        else {
            return Ok(Ended::Stopped);
        };
        self.meta = self.candidate_meta(g, trained, games);
        let dir = self
            .averager
            .save_candidate(&self.ctx, &self.trainer, &mut self.meta, g)?;
        self.ctx.publish.checkpoint(g)?;

        // A stop request leaves the candidate ungated; the resumed run
        // trains on from it and it is never promoted.
        if self.ctx.stopping() {
            return Ok(Ended::Stopped);
        }
        let step = self.trainer.steps();
        let gated = gate_candidate(
            &self.ctx,
            &mut self.log,
            step,
            g,
            &dir,
            &mut self.meta,
            self.best,
        )?;
        let Some(result) = gated else {
            return Ok(Ended::Stopped);
        };
        if result.promoted {
            self.best = g;
        }
        self.report(g, &result);
        self.ctx.publish.logs()?;
        self.ctx.publish.generation_done()?;
        let bc = &self.ctx.cfg.baseline;
        if bc.every > 0 && g.is_multiple_of(bc.every) {
            let complete = baseline::measure(&self.ctx, &mut self.log, step, self.best, g)?;
            self.ctx.publish.logs()?;
            if !complete {
                return Ok(Ended::StoppedInBaseline);
            }
        }
        Ok(Ended::Complete)
    }

    /// The self-play or collect phase of generation `g`: the positions
    /// added to the window and the games they came from, or `None` on a
    /// stop request.
    fn games(&mut self, g: u64) -> Result<Option<(u64, u64)>, LoopError> {
        let step = self.trainer.steps();
        Ok(match self.ctx.cfg.run.selfplay {
            SelfPlaySource::Local => self_play(
                &self.ctx,
                &mut self.window,
                &mut self.log,
                step,
                self.best,
                g,
            )?
            .map(|positions| (positions, self.ctx.cfg.run.games_per_generation)),
            SelfPlaySource::Workers => self
                .collector
                .collect(&self.ctx, &mut self.window, &mut self.log, step, g)?
                .map(|c| (c.positions, c.games)),
        })
    }

    /// Generation `g`'s metadata after training `trained` samples on the
    /// window, which took in `games` new games.
    fn candidate_meta(&self, g: u64, trained: u64, games: u64) -> CheckpointMeta {
        let run = self.ctx.run;
        CheckpointMeta {
            positions_generated: self.window.generated(),
            samples_trained: self.meta.samples_trained + trained,
            train_steps: self.trainer.steps(),
            replay_files: self
                .window
                .files()
                .iter()
                .map(|(p, _)| run.relative(p))
                .collect(),
            replay_spent: self.window.spent_files(),
            games_played: self.meta.games_played + games,
            cpu_seconds: self.run_cpu_seconds(),
            ..super::checkpoint_meta(self.ctx.game, &self.ctx.cfg, g)
        }
    }

    /// The generation's line on stderr: the window, the steps and the
    /// gating verdict.
    fn report(&self, g: u64, result: &GatingResult) {
        let verdict = match (self.ctx.cfg.gating.enabled, result.promoted) {
            (false, _) => "gating off, promoted".to_string(),
            (true, promoted) => format!(
                "gating {:.1}% -> {}",
                100.0 * result.score,
                if promoted { "promoted" } else { "kept best" }
            ),
        };
        eprintln!(
            "generation {g}: {} positions in window, {} steps, {verdict}, {:.2} CPU-hours",
            self.window.len(),
            self.trainer.steps(),
            self.run_cpu_seconds() / 3600.0,
        );
    }
}

/// Fills a resumed run's `window` with the record files generation
/// `latest`'s checkpoint (`meta`) lists. A run resumed without its old
/// data (a shipped network trained on) misses every file of the window:
/// one line says so, not one per file. Damaged files are still named one
/// by one.
fn restore_window<G: Game>(
    window: &mut ReplayWindow<G>,
    run: &RunDir,
    meta: &CheckpointMeta,
    latest: u64,
) {
    let mut missing = 0;
    let paths: Vec<_> = meta.replay_files.iter().map(|f| run.root.join(f)).collect();
    let results = window.restore(
        paths.iter().map(|p| p.as_path()),
        meta.replay_spent,
        meta.positions_generated,
    );
    let held = results.len();
    for result in results {
        match result {
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
            "{missing} of the {held} record files of generation {latest}'s replay window are gone: \
             training goes on with what self-play writes from here"
        );
    }
}
