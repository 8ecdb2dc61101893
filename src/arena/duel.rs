//! Batched matches between two searched evaluators: the gating match.
//!
//! The arena plays each game on its own thread and its search players ask
//! for one leaf evaluation at a time, which leaves a network at batch size
//! one. A duel steps many games per worker the way self-play does, and
//! evaluates the leaves waiting on each side in one batch per side, so
//! gating runs at self-play's network throughput.
//!
//! The schedule (pairing order, colours, openings, seeds) is the arena's
//! ([`ArenaConfig`]), and so are the records ([`ArenaGame`]); with an SPRT,
//! games count in schedule order, so the verdict falls at the same game
//! whatever order the workers finish them in.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::game::Effort;
use super::tournament::{
    ArenaConfig, ArenaError, ArenaGame, ArenaResult, PairingResult, ScheduledGame, SprtTracker,
    schedule,
};
use crate::evaluator::Evaluator;
use crate::game::{ActionOf, Color, Game, State};
use crate::mcts::batch::{self, Batches, InFlight};
use crate::mcts::{Search, SearchConfig, SearchError};

/// How a duel is played besides its schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct DuelSettings {
    /// Both sides search with this (normally [`SearchConfig::for_play`]
    /// with the wanted simulations).
    pub search: SearchConfig,
    /// Worker threads, each with its own pair of evaluators.
    pub workers: usize,
    /// Games each worker steps together.
    pub games_in_flight: usize,
}

/// What can stop a duel.
#[derive(Debug, thiserror::Error)]
pub enum DuelError {
    #[error(transparent)]
    Arena(#[from] ArenaError),
    #[error("a duel has exactly two players, not {0}")]
    NotTwoPlayers(usize),
    #[error("a duel needs at least one worker and one game in flight")]
    NoWorkers,
    #[error("worker {worker}: cannot build its evaluators: {msg}")]
    Evaluator { worker: usize, msg: String },
    #[error("search: {0}")]
    Search(#[from] SearchError),
}

/// A finished or stopped duel.
#[derive(Clone, Debug, PartialEq)]
pub struct DuelResult {
    /// The games counted, in schedule order (under an SPRT, up to the game
    /// that decided it).
    pub arena: ArenaResult,
    /// Stopped by `should_stop` before the schedule (or the SPRT) was done;
    /// unfinished games were dropped.
    pub interrupted: bool,
}

/// Games finished but not yet counted, and those counted so far.
struct Ledger {
    finished: BTreeMap<usize, ArenaGame>,
    counted: Vec<ArenaGame>,
    sprt: Option<SprtTracker>,
}

/// Plays the two-player schedule of `config` (its `players`, in order,
/// are evaluated by the first and second evaluator that `make_evaluators`
/// builds on each worker's thread). `progress` sees games as they are
/// counted; once `should_stop` says so, workers drop their unfinished games
/// and the result is marked interrupted.
///
/// ```
/// use yinsh_zero::arena::{ArenaConfig, DuelSettings, run_duel};
/// use yinsh_zero::evaluator::UniformEvaluator;
/// use yinsh_zero::mcts::SearchConfig;
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let config = ArenaConfig::round_robin(Yinsh::standard(), &["a", "b"], 4, 3);
/// let settings = DuelSettings {
///     search: SearchConfig { simulations: 8, ..SearchConfig::for_play() },
///     workers: 2,
///     games_in_flight: 2,
/// };
/// let r = run_duel(&config, &settings, |_| Ok([UniformEvaluator, UniformEvaluator]),
///                  &|_| {}, &|| false).unwrap();
/// assert_eq!(r.arena.games.len(), 4);
/// assert_eq!(r.arena.pairings[0].results.games(), 4);
/// assert!(!r.interrupted);
/// ```
pub fn run_duel<G, E, F>(
    config: &ArenaConfig<G>,
    settings: &DuelSettings,
    make_evaluators: F,
    progress: &(dyn Fn(&[ArenaGame]) + Sync),
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<DuelResult, DuelError>
where
    G: Game,
    E: Evaluator<G::State>,
    F: Fn(usize) -> Result<[E; 2], String> + Sync,
{
    if config.gauntlet.is_some() || config.players.len() != 2 {
        return Err(DuelError::NotTwoPlayers(
            config.players.len() + config.gauntlet.is_some() as usize,
        ));
    }
    if config.games == 0 {
        return Err(ArenaError::NoGames.into());
    }
    if settings.workers == 0 || settings.games_in_flight == 0 {
        return Err(DuelError::NoWorkers);
    }
    settings.search.validate()?;
    let pairings = config.pairings();
    let total = config.games as usize;
    let next = AtomicUsize::new(0);
    let decided = AtomicBool::new(false);
    let ledger = Mutex::new(Ledger {
        finished: BTreeMap::new(),
        counted: Vec::new(),
        sprt: config.sprt.map(SprtTracker::new),
    });
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..settings.workers {
            let (next, decided, ledger, errors, make_evaluators, pairings) = (
                &next,
                &decided,
                &ledger,
                &errors,
                &make_evaluators,
                &pairings,
            );
            s.spawn(move || {
                let r = make_evaluators(w)
                    .map_err(|msg| DuelError::Evaluator { worker: w, msg })
                    .and_then(|mut evs| {
                        let worker = DuelWorker {
                            config,
                            settings,
                            pairings,
                            total,
                            next,
                            decided,
                            ledger,
                            progress,
                            should_stop,
                        };
                        worker.play(&mut evs)
                    });
                if let Err(e) = r {
                    // One failing worker stops the others.
                    decided.store(true, Ordering::Relaxed);
                    errors.lock().unwrap().push(e);
                }
            });
        }
    });
    if let Some(e) = errors.into_inner().unwrap().into_iter().next() {
        return Err(e);
    }
    let ledger = ledger.into_inner().unwrap();
    let sprt_decided = ledger
        .sprt
        .as_ref()
        .and_then(|t| t.report.as_ref())
        .is_some_and(|r| r.verdict != super::Verdict::Continue);
    let interrupted = ledger.counted.len() < total && !sprt_decided;
    let games = ledger.counted;
    Ok(DuelResult {
        arena: ArenaResult {
            seed: config.seed,
            pairings: PairingResult::group(&pairings, &games),
            games,
            sprt: ledger.sprt.and_then(|t| t.report),
            resumed: 0,
        },
        interrupted,
    })
}

/// A game in progress: each side keeps its own tree (and reuses it), both
/// following every decision.
struct DuelGame<S: State> {
    scheduled: ScheduledGame<S::Action>,
    /// Searches of the first and second player.
    searches: [Search<S>; 2],
    decisions: usize,
    /// White's and Black's simulations and evaluations, as the arena's
    /// records keep them.
    effort: [Effort; 2],
}

impl<S: State> InFlight<S> for DuelGame<S> {
    /// The side to act searches with its own tree and its own evaluator.
    fn current(&mut self) -> (usize, &mut Search<S>) {
        let side = self.side_to_act();
        (side, &mut self.searches[side])
    }
}

impl<S: State> DuelGame<S> {
    /// Which player (0 = first) is to act.
    fn side_to_act(&self) -> usize {
        let pos = self.searches[0].position();
        let white_to_act = pos.to_act() == Color::White;
        usize::from(white_to_act != self.scheduled.game.first_white)
    }
}

struct DuelWorker<'a, G: Game> {
    config: &'a ArenaConfig<G>,
    settings: &'a DuelSettings,
    pairings: &'a [(String, String)],
    total: usize,
    next: &'a AtomicUsize,
    decided: &'a AtomicBool,
    ledger: &'a Mutex<Ledger>,
    progress: &'a (dyn Fn(&[ArenaGame]) + Sync),
    should_stop: &'a (dyn Fn() -> bool + Sync),
}

impl<G: Game> DuelWorker<'_, G> {
    fn start(&self) -> Result<Option<DuelGame<G::State>>, DuelError> {
        if self.decided.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        if k >= self.total {
            return Ok(None);
        }
        let scheduled = schedule(self.config, self.pairings, k);
        let mut pos = self.config.game.start();
        for &a in &scheduled.opening {
            pos.play(a).expect("arena openings are legal");
        }
        let searches = [
            Search::new(
                pos.clone(),
                self.settings.search.clone(),
                scheduled.seeds[0],
            )?,
            Search::new(pos, self.settings.search.clone(), scheduled.seeds[1])?,
        ];
        Ok(Some(DuelGame {
            decisions: scheduled.opening.len(),
            scheduled,
            searches,
            effort: [Effort::default(); 2],
        }))
    }

    /// Counts a finished game, in schedule order; an SPRT verdict stops
    /// new games everywhere.
    fn count(&self, game: ArenaGame) {
        let mut t = self.ledger.lock().unwrap();
        t.finished.insert(game.index as usize, game);
        let first_new = t.counted.len();
        while !self.decided.load(Ordering::Relaxed) {
            let k = t.counted.len();
            let Some(g) = t.finished.remove(&k) else {
                break;
            };
            if let Some(sprt) = &mut t.sprt
                && sprt.add(&g)
            {
                self.decided.store(true, Ordering::Relaxed);
            }
            t.counted.push(g);
        }
        if t.counted.len() > first_new {
            (self.progress)(&t.counted[first_new..]);
        }
    }

    fn play<E: Evaluator<G::State>>(&self, evaluators: &mut [E; 2]) -> Result<(), DuelError> {
        let mut slots: Vec<Option<DuelGame<G::State>>> = Vec::new();
        for _ in 0..self.settings.games_in_flight {
            slots.push(self.start()?);
        }
        let mut buffers = Batches::new(2, slots.len());
        loop {
            if (self.should_stop)() || self.decided.load(Ordering::Relaxed) {
                return Ok(());
            }
            let stepped = batch::step(&mut slots, evaluators, &mut buffers, |slot| {
                let game = slot.as_mut().expect("a deciding game is in its slot");
                let side = game.side_to_act();
                let result = game.searches[side].result();
                let colour = game.searches[side].position().to_act();
                game.effort[colour.index()]
                    .add(result.simulations as u64, Some(result.evaluations as u64));
                let action: ActionOf<G> = result.action;
                for s in &mut game.searches {
                    s.advance(action)?;
                }
                game.decisions += 1;
                if game.searches[0].position().is_over() {
                    let mut g = slot.take().expect("slot holds a game");
                    let last = g.searches[0].position().clone();
                    g.scheduled.game.finish(g.decisions, Ok(&last));
                    g.scheduled.game.set_effort(g.effort);
                    self.count(g.scheduled.game);
                    *slot = self.start()?;
                }
                Ok::<(), DuelError>(())
            })?;
            if stepped.is_none() {
                return Ok(());
            }
        }
    }
}
