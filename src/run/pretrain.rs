//! The warm start: before its first self-play game, a run's network learns
//! from games that a classical teacher (a player spec such as
//! `alphabeta:depth=3`) plays against itself. A random network's self-play
//! spends its first hours discovering what any shallow search knows (make
//! rows, do not hand the opponent one); imitating such a player gets there
//! in minutes. Self-play then improves on the teacher from generation 1 on.
//!
//! The teacher's games are record files like self-play's (under
//! `<run>/data/teacher/`): every decision with a choice becomes a sample
//! whose policy target is the teacher's move (with a little of the target
//! spread over the other legal actions, so the search still looks at them)
//! and whose value target is the game's result. Generation 0 is the network
//! trained on them; its checkpoint lists the teacher files as its replay
//! window, so self-play's first generations train on both until the window
//! moves past them.
//!
//! A kill at any moment loses nothing finished: teacher files are written
//! atomically and counted on restart, and no checkpoint exists until the
//! training is done, so a restart plays the missing games and trains again.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use super::config::{PretrainConfig, RunConfig};
use super::dir::RunDir;
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use crate::arena::{GamePlayers, GameRecord, parse_game_player, play_game};
use crate::checkpoint::{self, CheckpointMeta};
use crate::game::{Game, State};
use crate::replay::record::{self, RecordFile, RecordMeta, Sample};
use crate::replay::window::{ReplayWindow, WindowConfig};
use crate::train::Trainer;
use crate::train::config::{LrSchedule, TrainConfig};
use crate::util::sub_seed;

/// What the teacher's games gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeacherGames {
    /// Every teacher record file of the run, sorted.
    pub files: Vec<PathBuf>,
    /// Games in them (earlier attempts included).
    pub games: u64,
    /// Games played by this call.
    pub played: u64,
    /// Whether a stop request cut the games short.
    pub interrupted: bool,
}

/// What a finished warm start did.
#[derive(Clone, Debug, PartialEq)]
pub struct WarmStart {
    pub games: u64,
    pub positions: usize,
    pub steps: u64,
    /// The last step's loss and how often the network's value head picked
    /// the game's result.
    pub loss: f64,
    pub value_accuracy: f64,
    pub seconds: f64,
}

/// Plays the teacher's games that `dir` does not hold yet (up to
/// `cfg.games` in all), on `cfg.workers` threads, writing record files of
/// `cfg.games_per_file` games. Game `i` starts from a random opening drawn
/// from `sub_seed(seed, i)` and its players are seeded from it, so a game's
/// moves do not depend on which thread played it.
pub fn play_teacher_games<G: GamePlayers>(
    game: &G,
    cfg: &PretrainConfig,
    seed: u64,
    dir: &Path,
    stop: &AtomicBool,
) -> anyhow::Result<TeacherGames> {
    fs::create_dir_all(dir)?;
    let (mut files, have) = existing(game, dir)?;
    let to_play = cfg.games.saturating_sub(have);
    let mut out = TeacherGames {
        games: have,
        ..TeacherGames::default()
    };
    if to_play > 0 {
        let next = AtomicU64::new(have);
        let done = AtomicU64::new(0);
        let phase = Phase::start(
            format!("warm start: {} games of {}", to_play, cfg.teacher),
            to_play,
            "games",
        );
        let started = Instant::now();
        let results: Vec<anyhow::Result<(Vec<PathBuf>, u64, bool)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..cfg.worker_count())
                .map(|id| {
                    let w = TeacherWorker {
                        game,
                        cfg,
                        seed,
                        id,
                        dir,
                        prefix: format!("t{have:06}"),
                        next: &next,
                        end: cfg.games,
                        done: &done,
                        stop,
                    };
                    let (phase, started, done) = (&phase, &started, &done);
                    s.spawn(move || {
                        w.play(|| {
                            let n = done.load(Ordering::Relaxed);
                            let secs = started.elapsed().as_secs_f64().max(1e-9);
                            phase.set(n, format!("{:.0} games/h", n as f64 * 3600.0 / secs));
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("teacher worker panicked"))
                .collect()
        });
        phase.finish();
        for r in results {
            let (f, games, interrupted) = r?;
            files.extend(f);
            out.played += games;
            out.interrupted |= interrupted;
        }
        out.games += out.played;
    }
    files.sort();
    out.files = files;
    Ok(out)
}

/// The teacher files already in `dir` and their games. A damaged file is
/// reported and its games played again.
fn existing<G: Game>(game: &G, dir: &Path) -> anyhow::Result<(Vec<PathBuf>, u64)> {
    let mut files = Vec::new();
    let mut games = 0;
    for entry in fs::read_dir(dir)? {
        let p = entry?.path();
        if p.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        match record::read(game, &p) {
            Ok(f) => {
                games += f.meta.games as u64;
                files.push(p);
            }
            Err(e) => eprintln!("skipping teacher file: {e}"),
        }
    }
    files.sort();
    Ok((files, games))
}

/// One thread of teacher games.
struct TeacherWorker<'a, G: GamePlayers> {
    game: &'a G,
    cfg: &'a PretrainConfig,
    seed: u64,
    id: usize,
    dir: &'a Path,
    /// Names this attempt's files apart from earlier attempts'.
    prefix: String,
    next: &'a AtomicU64,
    end: u64,
    done: &'a AtomicU64,
    stop: &'a AtomicBool,
}

impl<G: GamePlayers> TeacherWorker<'_, G> {
    /// Plays games until none are left or a stop request: the files
    /// written, the games in them, and whether it was stopped.
    fn play(&self, report: impl Fn()) -> anyhow::Result<(Vec<PathBuf>, u64, bool)> {
        let mut files = Vec::new();
        let mut pending = Vec::new();
        let (mut in_file, mut played) = (0u32, 0u64);
        let mut interrupted = false;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.end {
                break;
            }
            let rec = self.play_one(index)?;
            pending.extend(samples(self.game, &rec, self.cfg.label_smoothing));
            in_file += 1;
            played += 1;
            self.done.fetch_add(1, Ordering::Relaxed);
            report();
            if in_file as usize >= self.cfg.games_per_file {
                files.push(self.write(&mut pending, files.len(), in_file)?);
                in_file = 0;
            }
        }
        if in_file > 0 {
            files.push(self.write(&mut pending, files.len(), in_file)?);
        }
        Ok((files, played, interrupted))
    }

    fn play_one(&self, index: u64) -> anyhow::Result<GameRecord<G::State>> {
        let game_seed = sub_seed(self.seed, index);
        let mut rng = SmallRng::seed_from_u64(game_seed);
        let mut start = self.game.start();
        let randoms = rng.random_range(0..=self.cfg.opening_moves);
        for a in crate::game::random_opening(&start, randoms, &mut rng) {
            start.play_unchecked(a);
        }
        let teacher = |k| {
            parse_game_player(self.game, &self.cfg.teacher, sub_seed(game_seed, k))
                .map_err(|e| anyhow::anyhow!("pretrain.teacher: {e}"))
        };
        let (mut white, mut black) = (teacher(1)?, teacher(2)?);
        Ok(play_game(&mut *white, &mut *black, start)?)
    }

    fn write(&self, pending: &mut Vec<Sample>, seq: usize, games: u32) -> anyhow::Result<PathBuf> {
        let path = self
            .dir
            .join(format!("{}-w{:02}-{seq:05}.bin", self.prefix, self.id));
        let file = RecordFile {
            meta: RecordMeta {
                game: G::NAME.into(),
                variant: self.game.variant().into(),
                generation: 0,
                games,
                producer: format!(
                    "yinsh-zero {} teacher {}",
                    env!("CARGO_PKG_VERSION"),
                    self.cfg.teacher
                ),
            },
            samples: std::mem::take(pending),
        };
        record::write(&path, &file)?;
        Ok(path)
    }
}

/// The training samples of one teacher game: every decision that had a
/// choice, its target the teacher's move with `smoothing` of it spread
/// over all legal actions, its value the game's result for the player who
/// decided.
pub fn samples<G: Game>(game: &G, rec: &GameRecord<G::State>, smoothing: f32) -> Vec<Sample> {
    let last = rec.final_position();
    let mut pos = rec.start.clone();
    let mut out = Vec::new();
    for &played in &rec.actions {
        let legal = pos.legal_actions();
        if legal.len() > 1 {
            let me = pos.to_act();
            let spread = smoothing / legal.len() as f32;
            let policy = if smoothing > 0.0 {
                legal
                    .iter()
                    .map(|&a| {
                        let p = if a == played {
                            1.0 - smoothing + spread
                        } else {
                            spread
                        };
                        (game.action_index(a) as u32, p)
                    })
                    .collect()
            } else {
                vec![(game.action_index(played) as u32, 1.0)]
            };
            out.push(Sample::new(
                game,
                &pos,
                policy,
                rec.result.score_for(me),
                last.margin(me),
                last.ply() - pos.ply(),
            ));
        }
        pos.play_unchecked(played);
    }
    out
}

/// The warm start of a new run (one without checkpoints): the teacher's
/// games, then `epochs` passes of training on them from the run seed's
/// initial weights, saved as generation 0 and the best network. `None`
/// when a stop request came first (finished games are kept).
pub fn warm_start<G: GamePlayers>(
    game: &G,
    run: &RunDir,
    cfg: &RunConfig,
    stop: &AtomicBool,
) -> anyhow::Result<Option<WarmStart>> {
    let pc = &cfg.pretrain;
    anyhow::ensure!(
        pc.games > 0,
        "[pretrain] games is 0: no teacher games to learn from"
    );
    let ckpts = run.checkpoints();
    if let Some(&g) = checkpoint::list(&ckpts)?.last() {
        anyhow::bail!(
            "{} already has generation {g}: the warm start only begins a run (start a new run \
             directory, or train this one on)",
            ckpts.display()
        );
    }
    // Before the games: a backend missing from the build is refused at once.
    let device = cfg.run.backend.device()?;
    let started = Instant::now();
    let taught = play_teacher_games(
        game,
        pc,
        sub_seed(cfg.run.seed ^ 0x7eac, 0),
        &run.teacher(),
        stop,
    )?;
    if taught.interrupted {
        return Ok(None);
    }

    // Every teacher position, whatever the self-play window's size rule.
    let mut window = ReplayWindow::new(
        game.clone(),
        WindowConfig {
            min_size: cfg.replay.max_size,
            ..cfg.replay.clone()
        },
    );
    for f in &taught.files {
        if let Err(e) = window.add_file(f) {
            eprintln!("skipping teacher file: {e}");
        }
    }
    anyhow::ensure!(
        !window.is_empty(),
        "the teacher's games gave no positions to learn from"
    );

    let model = super::initial_model(game, cfg, &device);
    let batch = cfg.train.batch_size;
    let steps = (pc.epochs * window.len() as f64 / batch as f64).ceil() as u64;
    let schedule = TrainConfig {
        learning_rate: pc.learning_rate,
        lr_schedule: LrSchedule::Cosine,
        lr_decay_steps: steps,
        lr_floor: pc.lr_floor,
        ..cfg.train.clone()
    };
    let mut trainer = Trainer::new(model, schedule, &device, 0);
    let mut log = MetricsLog::open(&run.logs())?;
    let trained = super::in_train_pool(cfg.train.threads, || {
        super::gradient_steps(
            game,
            &mut trainer,
            &window,
            steps,
            cfg,
            0,
            &mut log,
            "warm start training".into(),
            stop,
        )
    })?;
    let Ok(last) = trained else {
        return Ok(None);
    };

    let meta = CheckpointMeta {
        positions_generated: window.generated(),
        samples_trained: steps * batch as u64,
        train_steps: trainer.steps(),
        replay_files: window
            .files()
            .iter()
            .map(|(p, _)| run.relative(p))
            .collect(),
        replay_spent: window.spent_files(),
        // A warm start is a new run's first work, in this process.
        cpu_seconds: super::process_cpu_seconds(),
        ..super::checkpoint_meta(game, cfg, 0)
    };
    let optimizer = trainer
        .optimizer_bytes()
        .map_err(|e| anyhow::anyhow!("optimizer state: {e}"))?;
    checkpoint::save(&ckpts, &meta, &trainer.inference_model(), Some(&optimizer))?;
    checkpoint::write_best(&ckpts, 0)?;
    let last = last.expect("at least one step");
    let done = WarmStart {
        games: taught.games,
        positions: window.len(),
        steps,
        loss: last.loss,
        value_accuracy: last.value_accuracy,
        seconds: started.elapsed().as_secs_f64(),
    };
    log.log(
        "pretrain",
        0,
        trainer.steps(),
        fields(&json!({
            "teacher": pc.teacher,
            "games": done.games,
            "positions": done.positions,
            "steps": done.steps,
            "loss": done.loss,
            "value_accuracy": done.value_accuracy,
            "seconds": done.seconds,
        })),
    );
    eprintln!(
        "warm start: {} games of {}, {} positions, {} steps, loss {:.3}, in {:.0} s: generation 0",
        done.games, pc.teacher, done.positions, done.steps, done.loss, done.seconds
    );
    Ok(Some(done))
}
