//! Self-play: many games in flight per worker, one leaf per game per batch,
//! all leaves of a batch evaluated in one call, records written as
//! immutable files.
//!
//! Each worker is an OS thread that owns its evaluator (for a network: its
//! own single-threaded inference), so two workers keep two cores busy
//! without sharing anything but a game counter.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::evaluator::{Evaluator, Inference, ServerOptions};
use crate::game::{ActionOf, Color, Game, GameResult, State};
use crate::mcts::batch::{self, Batches, InFlight};
use crate::mcts::{Search, SearchConfig, SearchError};
use crate::replay::record::{self, GameEnd, RecordError, RecordFile, RecordMeta, Sample};
use crate::util::sub_seed;

/// Self-play settings (the `[selfplay]` table of a run config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Worker threads, each with its own evaluator; 0 = one per core.
    pub workers: usize,
    /// Games each worker steps together; their leaves form one batch.
    pub games_in_flight: usize,
    /// Up to this many opening decisions are made uniformly at random (the
    /// count itself is uniform in 0..=this), for variety between games
    /// (YINSH: ring placements). Formerly `random_placements`, still read.
    #[serde(alias = "random_placements")]
    pub opening_moves: u32,
    /// Share of games that start from a side position of an earlier game
    /// instead of the opening: a position one of its decisions could have
    /// reached with a uniformly random other move (KataGo's side
    /// positions). Self-play otherwise never meets the replies its own
    /// network would not make, which an opponent's different but sound
    /// moves (a perfect player's other drawing moves) steer into; the
    /// earlier game itself goes on unperturbed, so its targets stay clean.
    pub side_games: f32,
    /// Share of each game's training weight handed out by policy surprise
    /// (KataGo's policy surprise weighting): each position searched in full
    /// is written `(1 - share) + share * n * s / sum(s)` times on average,
    /// `n` the game's searched positions and `s` its
    /// [`surprise`](crate::mcts::SearchResult::surprise), so a game adds as
    /// many samples as before but more of those where the search overruled
    /// the network. KataGo uses a half and counts it among its larger gains;
    /// 0 writes every position once.
    pub policy_surprise: f32,
    /// Resign when the searched value of the player to act stays below this
    /// (P(win) - P(loss)) for `resign_consecutive` of its decisions.
    pub resign_threshold: f32,
    pub resign_consecutive: u32,
    /// Share of games in which nobody resigns but a resignation is noted,
    /// to measure how often resigning would have been wrong.
    pub resign_check_share: f32,
    /// Whether resignation is used at all.
    pub resign: bool,
    /// Complete games per record file.
    pub games_per_file: usize,
    /// Each worker its own network, or one network serving them all.
    pub inference: Inference,
    /// With a server: the most positions in one network call.
    pub server_batch: usize,
    /// With a server: the longest wait, in milliseconds, for more workers'
    /// batches after the first.
    pub server_wait_ms: f64,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: 0,
            games_in_flight: 32,
            opening_moves: 4,
            side_games: 0.0,
            policy_surprise: 0.0,
            resign_threshold: -0.9,
            resign_consecutive: 3,
            resign_check_share: 0.1,
            resign: true,
            games_per_file: 16,
            inference: Inference::PerWorker,
            server_batch: 512,
            server_wait_ms: 2.0,
        }
    }
}

impl SelfPlayConfig {
    /// Workers actually used: `workers`, or one per core.
    pub fn worker_count(&self) -> usize {
        if self.workers == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.workers
        }
    }

    /// Checks the settings that every self-play needs (the server's are
    /// checked by [`Self::server_options`]).
    pub fn validate(&self) -> Result<(), SelfPlayError> {
        if self.games_in_flight == 0 || self.games_per_file == 0 {
            return Err(SelfPlayError::Config(
                "games_in_flight and games_per_file must be at least 1".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.resign_check_share) {
            return Err(SelfPlayError::Config(format!(
                "resign_check_share is a share of games, within 0..=1, not {}",
                self.resign_check_share
            )));
        }
        if !(0.0..=1.0).contains(&self.side_games) {
            return Err(SelfPlayError::Config(format!(
                "side_games is a share of games, within 0..=1, not {}",
                self.side_games
            )));
        }
        if !(0.0..=1.0).contains(&self.policy_surprise) {
            return Err(SelfPlayError::Config(format!(
                "policy_surprise is a share of a game's training weight, within 0..=1, not {}",
                self.policy_surprise
            )));
        }
        Ok(())
    }

    /// The inference server's settings, when `inference` asks for one.
    pub fn server_options(&self) -> Result<ServerOptions, SelfPlayError> {
        if self.server_batch == 0 {
            return Err(SelfPlayError::Config(
                "server_batch must be at least 1".into(),
            ));
        }
        if !(self.server_wait_ms.is_finite() && self.server_wait_ms >= 0.0) {
            return Err(SelfPlayError::Config(format!(
                "server_wait_ms must be a number of milliseconds >= 0, not {}",
                self.server_wait_ms
            )));
        }
        // Finite is not enough: 1e26 ms is no Duration (from_secs_f64 panicked).
        let max_wait = Duration::try_from_secs_f64(self.server_wait_ms / 1000.0).map_err(|_| {
            SelfPlayError::Config(format!(
                "server_wait_ms = {} is longer than any wait can be",
                self.server_wait_ms
            ))
        })?;
        Ok(ServerOptions {
            max_batch: self.server_batch,
            max_wait,
        })
    }
}

/// What can stop self-play.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("search: {0}")]
    Search(#[from] SearchError),
    #[error("worker {worker}: cannot build its evaluator: {msg}")]
    Evaluator { worker: usize, msg: String },
    #[error("cannot start the inference server: {0}")]
    Server(String),
    #[error("invalid self-play config: {0}")]
    Config(String),
}

/// Counters shared by the workers, for progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished.
    pub games: AtomicU64,
    /// Training positions searched so far, counted as they are searched (a
    /// game interrupted by a stop request loses its own).
    pub positions: AtomicU64,
    pub decisions: AtomicU64,
}

/// What a self-play run produced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfPlaySummary {
    pub games: u64,
    /// Positions written as training samples, policy surprise weighting's
    /// copies included.
    pub positions: u64,
    /// Positions searched in full, each counted once.
    #[serde(default)]
    pub searched: u64,
    /// The mean [`surprise`](crate::mcts::SearchResult::surprise) of those
    /// searches, in nats: how far search moved the network's priors.
    #[serde(default)]
    pub mean_surprise: f64,
    /// Decisions played, forced and fast ones included.
    pub decisions: u64,
    /// Turns per game ([`State::ply`]: YINSH's placements and ring moves),
    /// on average.
    pub mean_turns: f64,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
    pub resigned: u64,
    /// Games played from a side position of an earlier game.
    #[serde(default)]
    pub side_games: u64,
    /// Games played out to check resignation, and how many of those the
    /// would-be resigner did not lose.
    pub resign_checks: u64,
    pub false_resigns: u64,
    pub seconds: f64,
    /// Wall time the workers spent inside the evaluator, summed.
    pub evaluator_seconds: f64,
    /// Share of worker time spent in the evaluator.
    pub evaluator_share: f64,
    /// Evaluator calls and positions evaluated, summed over workers.
    pub batches: u64,
    pub evaluated: u64,
    pub files: Vec<PathBuf>,
    /// Stopped early by `should_stop`; unfinished games were dropped.
    pub interrupted: bool,
}

impl SelfPlaySummary {
    fn absorb(&mut self, o: SelfPlaySummary) {
        self.games += o.games;
        self.positions += o.positions;
        self.searched += o.searched;
        self.mean_surprise += o.mean_surprise; // a sum until run() divides it
        self.decisions += o.decisions;
        self.mean_turns += o.mean_turns; // a sum until run() divides it
        self.white_wins += o.white_wins;
        self.black_wins += o.black_wins;
        self.draws += o.draws;
        self.resigned += o.resigned;
        self.side_games += o.side_games;
        self.resign_checks += o.resign_checks;
        self.false_resigns += o.false_resigns;
        self.evaluator_seconds += o.evaluator_seconds;
        self.seconds += o.seconds; // worker time, until finish()
        self.batches += o.batches;
        self.evaluated += o.evaluated;
        self.files.extend(o.files);
        self.interrupted |= o.interrupted;
    }
}

/// A game in progress in one worker slot.
impl<S: State> InFlight<S> for Slot<S> {
    /// One network plays both sides.
    fn current(&mut self) -> (usize, &mut Search<S>) {
        (0, &mut self.search)
    }
}

/// A position searched in full.
struct Searched<S> {
    pos: S,
    /// The policy target over dense action indices.
    policy: Vec<(u32, f32)>,
    /// The search's win/draw/loss and margin there.
    wdl: Option<[f32; 3]>,
    margin: Option<f32>,
    /// How far the target lies from the network's priors.
    surprise: f32,
}

/// How many times, on average, each of a game's searched positions is
/// written: `1 - share` each, and `share` of the game's `n` samples handed
/// out in proportion to `surprise` (KataGo's policy surprise weighting).
/// The weights sum to `n`, so a game adds as many samples as without; where
/// nothing surprised the search, each is written once.
///
/// ```
/// use yinsh_zero::selfplay::surprise_weights;
/// assert_eq!(surprise_weights(&[0.1, 0.3], 0.0), vec![1.0, 1.0]);
/// assert_eq!(surprise_weights(&[0.1, 0.3], 0.5), vec![0.75, 1.25]);
/// assert_eq!(surprise_weights(&[0.0, 0.0], 0.5), vec![1.0, 1.0]);
/// ```
pub fn surprise_weights(surprise: &[f32], share: f32) -> Vec<f32> {
    let total: f32 = surprise.iter().sum();
    if share <= 0.0 || total <= 0.0 {
        return vec![1.0; surprise.len()];
    }
    let n = surprise.len() as f32;
    surprise
        .iter()
        .map(|s| (1.0 - share) + share * n * s / total)
        .collect()
}

struct Slot<S: State> {
    decisions: u64,
    search: Search<S>,
    /// Positions searched in full, with their targets.
    samples: Vec<Searched<S>>,
    /// Every decision in order: who made it, its move's dense index, and
    /// its sample where a full search made one (the replies' source).
    moves: Vec<(Color, u32, Option<usize>)>,
    /// The position of the decision that ended the game, and its move:
    /// where the game ended, in a form the rules read back ([`GameEnd`]).
    before_last: Option<(S, u32)>,
    low_streak: [u32; 2],
    /// Nobody resigns in this game; the first would-be resigner is noted.
    check_only: bool,
    would_resign: Option<Color>,
    resigned: Option<Color>,
    /// Started from a side position rather than the opening.
    side: bool,
    /// This game's side position so far, and how many decisions could
    /// have given it: one is kept, uniformly over them (reservoir sampling).
    fork: Option<S>,
    fork_candidates: u32,
    rng: SmallRng,
}

/// Each sample's opponent reply ([`Sample::reply`]), from a game's
/// decisions in order (`moves`: who, the move's dense index, its sample):
/// the next decision by the other player, as its search's policy target
/// where a full search made it, else its move alone. Walked from the end,
/// so each player's next decision is known when its opponent's is reached.
fn replies<S>(
    moves: &[(Color, u32, Option<usize>)],
    samples: &[Searched<S>],
) -> Vec<Option<Vec<(u32, f32)>>> {
    let mut out = vec![None; samples.len()];
    let mut next: [Option<usize>; 2] = [None; 2];
    for (i, &(by, _, sample)) in moves.iter().enumerate().rev() {
        if let Some(k) = sample {
            out[k] = next[(!by).index()].map(|j| {
                let (_, action, reply_sample) = moves[j];
                match reply_sample {
                    Some(r) => samples[r].policy.clone(),
                    None => vec![(action, 1.0)],
                }
            });
        }
        next[by.index()] = Some(i);
    }
    out
}

/// Plays `games` self-play games of `game` with `search` settings, writing record
/// files into `out` named `<prefix>-w<worker>-<seq>.bin`. `make_evaluator`
/// builds each worker's evaluator on that worker's thread. `generation` is
/// stored in each file's metadata. Once `should_stop` says so (Ctrl-C, a
/// time budget), workers drop their unfinished games, write the finished
/// ones, and return; the summary's `interrupted` is then set.
#[allow(clippy::too_many_arguments)]
pub fn run<G, E, F>(
    game: &G,
    cfg: &SelfPlayConfig,
    search: &SearchConfig,
    games: u64,
    seed: u64,
    generation: u64,
    out: &Path,
    prefix: &str,
    make_evaluator: F,
    progress: &Progress,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<SelfPlaySummary, SelfPlayError>
where
    G: Game,
    E: Evaluator<G::State>,
    F: Fn(usize) -> Result<E, String> + Sync,
{
    search.validate()?;
    cfg.validate()?;
    let started = Instant::now();
    let next_game = AtomicU64::new(0);
    let workers = cfg.worker_count().max(1);
    // Each worker starts with its share of the games at most: claimed
    // `games_in_flight` at a time, the 48 games left of a resumed
    // generation went 32 to one worker and 16 to the other, which then sat
    // idle for half the generation.
    let slots = cfg
        .games_in_flight
        .min(games.div_ceil(workers as u64) as usize)
        .max(1);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..workers {
            let (next_game, results, make_evaluator) = (&next_game, &results, &make_evaluator);
            s.spawn(move || {
                let r = make_evaluator(w)
                    .map_err(|msg| SelfPlayError::Evaluator { worker: w, msg })
                    .and_then(|mut ev| {
                        Worker {
                            game,
                            id: w,
                            cfg,
                            search,
                            seed,
                            generation,
                            out,
                            prefix,
                            games,
                            slots,
                            next_game,
                            progress,
                            should_stop,
                        }
                        .play(&mut ev)
                    });
                results.lock().unwrap().push(r);
            });
        }
    });
    let mut total = SelfPlaySummary::default();
    let worker_seconds: f64;
    {
        for r in results.into_inner().unwrap() {
            total.absorb(r?);
        }
        worker_seconds = total.seconds;
    }
    total.files.sort();
    total.mean_turns /= total.games.max(1) as f64;
    total.mean_surprise /= total.searched.max(1) as f64;
    total.seconds = started.elapsed().as_secs_f64();
    total.evaluator_share = total.evaluator_seconds / worker_seconds.max(1e-9);
    Ok(total)
}

struct Worker<'a, G: Game> {
    game: &'a G,
    id: usize,
    cfg: &'a SelfPlayConfig,
    search: &'a SearchConfig,
    seed: u64,
    generation: u64,
    out: &'a Path,
    prefix: &'a str,
    games: u64,
    /// Games in flight at once.
    slots: usize,
    next_game: &'a AtomicU64,
    progress: &'a Progress,
    should_stop: &'a (dyn Fn() -> bool + Sync),
}

impl<G: Game> Worker<'_, G> {
    /// Starts the next game of this generation, if any is left: from the
    /// opening, or (a `side_games` share of them, while any is waiting)
    /// from the newest side position of the worker's earlier games.
    fn start_game(
        &self,
        forks: &mut VecDeque<G::State>,
    ) -> Result<Option<Slot<G::State>>, SelfPlayError> {
        let index = self.next_game.fetch_add(1, Ordering::Relaxed);
        if index >= self.games {
            return Ok(None);
        }
        let mut rng = SmallRng::seed_from_u64(sub_seed(self.seed, index));
        let mut side = None;
        if self.cfg.side_games > 0.0 && rng.random::<f32>() < self.cfg.side_games {
            side = forks.pop_back();
        }
        let is_side = side.is_some();
        let pos = match side {
            Some(pos) => pos,
            None => {
                let mut pos = self.game.start();
                let randoms = rng.random_range(0..=self.cfg.opening_moves);
                for a in crate::game::random_opening(&pos, randoms, &mut rng) {
                    pos.play_unchecked(a);
                }
                pos
            }
        };
        let check_only = self.cfg.resign && rng.random::<f32>() < self.cfg.resign_check_share;
        Ok(Some(Slot {
            decisions: 0,
            search: Search::new(pos, self.search.clone(), rng.random())?,
            samples: Vec::new(),
            moves: Vec::new(),
            before_last: None,
            low_streak: [0; 2],
            check_only,
            would_resign: None,
            resigned: None,
            side: is_side,
            fork: None,
            fork_candidates: 0,
            rng,
        }))
    }

    /// Offers the position after a random move other than `chosen` as this
    /// game's side position, keeping one of all offers uniformly. A move
    /// that ends the game leaves nothing to play out and is no offer.
    fn offer_fork(&self, game: &mut Slot<G::State>, pos: &G::State, chosen: ActionOf<G>) {
        if self.cfg.side_games <= 0.0 {
            return;
        }
        let legal = pos.legal_actions();
        if legal.len() < 2 {
            return;
        }
        // Uniform over the other moves without collecting them: `chosen`
        // appears once, so the last move stands in for it.
        let i = game.rng.random_range(0..legal.len() - 1);
        let other = if legal[i] == chosen {
            legal[legal.len() - 1]
        } else {
            legal[i]
        };
        let mut next = pos.clone();
        next.play_unchecked(other);
        if next.is_over() {
            return;
        }
        game.fork_candidates += 1;
        if game.rng.random_range(0..game.fork_candidates) == 0 {
            game.fork = Some(next);
        }
    }

    fn play<E: Evaluator<G::State>>(
        &self,
        evaluator: &mut E,
    ) -> Result<SelfPlaySummary, SelfPlayError> {
        let started = Instant::now();
        let mut summary = SelfPlaySummary::default();
        let mut slots: Vec<Option<Slot<G::State>>> = Vec::new();
        // Side positions waiting for a game, newest last. Games take the
        // newest; when more wait than two per slot, the oldest are dropped.
        let mut forks: VecDeque<G::State> = VecDeque::new();
        let fork_cap = 2 * self.cfg.games_in_flight;
        for _ in 0..self.slots {
            slots.push(self.start_game(&mut forks)?);
        }
        let mut pending: Vec<Sample> = Vec::new();
        let mut games_in_file = 0u32;
        let mut seq = 0u32;
        let mut eval_time = Duration::ZERO;
        let mut buffers = Batches::new(1, slots.len());
        loop {
            if (self.should_stop)() {
                summary.interrupted = true;
                break;
            }
            let stepped = batch::step(
                &mut slots,
                std::slice::from_mut(evaluator),
                &mut buffers,
                |slot| {
                    let game = slot.as_mut().expect("a deciding game is in its slot");
                    if self.finish_decision(game)? {
                        let mut game = slot.take().expect("slot holds a game");
                        if let Some(fork) = game.fork.take() {
                            if forks.len() >= fork_cap {
                                forks.pop_front();
                            }
                            forks.push_back(fork);
                        }
                        pending.extend(self.complete(game, &mut summary));
                        games_in_file += 1;
                        if games_in_file as usize >= self.cfg.games_per_file {
                            self.write(&mut pending, &mut seq, games_in_file, &mut summary)?;
                            games_in_file = 0;
                        }
                        *slot = self.start_game(&mut forks)?;
                    }
                    Ok::<(), SelfPlayError>(())
                },
            )?;
            let Some(stepped) = stepped else { break };
            eval_time += stepped.eval_time;
            summary.batches += stepped.batches as u64;
            summary.evaluated += stepped.evaluated as u64;
        }
        if games_in_file > 0 {
            self.write(&mut pending, &mut seq, games_in_file, &mut summary)?;
        }
        summary.evaluator_seconds = eval_time.as_secs_f64();
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Takes the finished search's decision: records the target, handles
    /// resignation, plays the action. Returns whether the game is over.
    fn finish_decision(&self, game: &mut Slot<G::State>) -> Result<bool, SelfPlayError> {
        let result = game.search.result();
        let pos = game.search.position().clone();
        let me = pos.to_act();
        self.progress.decisions.fetch_add(1, Ordering::Relaxed);
        game.decisions += 1;
        let sample = (result.full && !result.forced).then_some(game.samples.len());
        let index = self.game.action_index(result.action) as u32;
        game.moves.push((me, index, sample));
        if sample.is_some() {
            let policy = result
                .actions
                .iter()
                .zip(&result.policy)
                .map(|(&a, &p)| (self.game.action_index(a) as u32, p))
                .collect();
            self.offer_fork(game, &pos, result.action);
            game.samples.push(Searched {
                pos: pos.clone(),
                policy,
                wdl: result.policy_wdl,
                margin: result.policy_margin,
                surprise: result.surprise(),
            });
            self.progress.positions.fetch_add(1, Ordering::Relaxed);
        }
        if self.cfg.resign
            && !result.forced
            && let Some(v) = result.root_value()
        {
            let streak = &mut game.low_streak[me.index()];
            *streak = if v < self.cfg.resign_threshold {
                *streak + 1
            } else {
                0
            };
            if *streak >= self.cfg.resign_consecutive.max(1) {
                if game.check_only {
                    game.would_resign.get_or_insert(me);
                } else {
                    game.resigned = Some(me);
                    return Ok(true);
                }
            }
        }
        game.search.advance(result.action)?;
        let over = game.search.position().is_over();
        if over {
            // Kept only for the move that ended the game: a clone a
            // decision would tax every game for the one it needs.
            game.before_last = Some((pos, index));
        }
        Ok(over)
    }

    /// Turns a finished game into samples with outcomes and tallies it.
    fn complete(&self, mut game: Slot<G::State>, summary: &mut SelfPlaySummary) -> Vec<Sample> {
        let last = game.search.position();
        let outcome = match game.resigned {
            Some(c) => GameResult::Win(!c),
            None => last.result().expect("the game is over"),
        };
        summary.games += 1;
        summary.decisions += game.decisions;
        summary.mean_turns += last.ply() as f64;
        match outcome.winner() {
            Some(Color::White) => summary.white_wins += 1,
            Some(Color::Black) => summary.black_wins += 1,
            None => summary.draws += 1,
        }
        if game.resigned.is_some() {
            summary.resigned += 1;
        }
        if game.side {
            summary.side_games += 1;
        }
        if game.check_only {
            summary.resign_checks += 1;
            if let Some(c) = game.would_resign
                && outcome.winner() != Some(!c)
            {
                summary.false_resigns += 1;
            }
        }
        let replies = replies(&game.moves, &game.samples);
        // Where the game ended, where the game has an ownership target to
        // read from it: the position before the last move and the move, or
        // the position a player resigned in.
        let mut scratch = vec![0.0; self.game.net_shape().cells()];
        let game_end = self
            .game
            .ownership(last, Color::White, &mut scratch)
            .then(|| {
                let mut before = Vec::new();
                let last_move = match (&game.resigned, &game.before_last) {
                    (None, Some((pos, index))) => {
                        self.game.write_state(pos, &mut before);
                        Some(*index)
                    }
                    _ => {
                        self.game.write_state(last, &mut before);
                        None
                    }
                };
                GameEnd { before, last_move }
            });
        let surprise: Vec<f32> = game.samples.iter().map(|s| s.surprise).collect();
        summary.searched += surprise.len() as u64;
        summary.mean_surprise += surprise.iter().map(|&s| s as f64).sum::<f64>();
        let weights = surprise_weights(&surprise, self.cfg.policy_surprise);
        let mut samples = Vec::with_capacity(game.samples.len());
        for ((searched, reply), weight) in game.samples.into_iter().zip(replies).zip(weights) {
            // floor(w) copies and one more with probability frac(w), as
            // KataGo writes its rows: the expected count is the weight.
            let copies =
                weight.floor() as usize + usize::from(game.rng.random::<f32>() < weight.fract());
            if copies == 0 {
                continue;
            }
            let Searched {
                pos,
                policy,
                wdl,
                margin: search_margin,
                ..
            } = searched;
            let me = pos.to_act();
            let margin = last.margin(me);
            let left = last.ply() - pos.ply();
            // A game without a margin has no margin target to mix into.
            let search_margin = search_margin.filter(|_| margin.is_some());
            let sample = Sample::new(self.game, &pos, policy, outcome.score_for(me), margin, left)
                .with_search_wdl(wdl)
                .with_search_margin(search_margin)
                .with_reply(reply)
                .with_game_end(game_end.clone());
            samples.extend(std::iter::repeat_n(sample, copies));
        }
        summary.positions += samples.len() as u64;
        self.progress.games.fetch_add(1, Ordering::Relaxed);
        samples
    }

    fn write(
        &self,
        pending: &mut Vec<Sample>,
        seq: &mut u32,
        games: u32,
        summary: &mut SelfPlaySummary,
    ) -> Result<(), SelfPlayError> {
        let path = self
            .out
            .join(format!("{}-w{:02}-{:05}.bin", self.prefix, self.id, *seq));
        *seq += 1;
        let file = RecordFile {
            meta: RecordMeta {
                game: G::NAME.into(),
                variant: self.game.variant().into(),
                generation: self.generation,
                games,
                producer: format!(
                    "yinsh-zero {} worker {}",
                    env!("CARGO_PKG_VERSION"),
                    self.id
                ),
            },
            samples: std::mem::take(pending),
        };
        record::write(&path, &file)?;
        summary.files.push(path);
        Ok(())
    }
}
