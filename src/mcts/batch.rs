//! Many games stepped together: each game's search runs to its next leaf,
//! then the leaves of all games are judged in one batch per evaluator.
//! Self-play (one network for both sides) and duels (one per side) are the
//! same loop with a different answer to "whose search moves, and what
//! happens when it has decided".

use std::time::{Duration, Instant};

use super::{Leaf, Search, SearchError};
use crate::evaluator::Evaluator;
use crate::game::State;

/// A game in flight.
pub trait InFlight<S: State> {
    /// The search that must move on, and the index of the evaluator that
    /// judges its leaves.
    fn current(&mut self) -> (usize, &mut Search<S>);
}

/// A lone search is a game in flight whose leaves the first evaluator
/// judges (the search benchmark steps bare searches).
impl<S: State> InFlight<S> for Search<S> {
    fn current(&mut self) -> (usize, &mut Search<S>) {
        (0, self)
    }
}

/// What one [`step`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stepped {
    /// Positions evaluated, over all evaluators.
    pub evaluated: usize,
    /// Evaluator calls (one per evaluator with leaves waiting).
    pub batches: usize,
    /// Time inside the evaluators.
    pub eval_time: Duration,
}

/// Reusable buffers of [`step`], one pair per evaluator.
pub struct Batches<S> {
    waiting: Vec<Vec<usize>>,
    positions: Vec<Vec<S>>,
}

impl<S> Batches<S> {
    /// Buffers for `evaluators` evaluators and up to `games` games.
    pub fn new(evaluators: usize, games: usize) -> Self {
        Batches {
            waiting: (0..evaluators).map(|_| Vec::with_capacity(games)).collect(),
            positions: (0..evaluators).map(|_| Vec::with_capacity(games)).collect(),
        }
    }
}

/// One pass over `slots`: every game's current search runs to its next
/// leaf; each time a search has decided, `decided` is called with its slot
/// (it plays the decision, and may finish the game and put the next one in
/// the slot, or empty it), and the slot's game goes on. Then the leaves
/// are judged, one batch per evaluator, and handed back. `None` when no
/// game needed an evaluation: every slot is empty.
pub fn step<S, T, E, Err>(
    slots: &mut [Option<T>],
    evaluators: &mut [E],
    buffers: &mut Batches<S>,
    mut decided: impl FnMut(&mut Option<T>) -> Result<(), Err>,
) -> Result<Option<Stepped>, Err>
where
    S: State,
    T: InFlight<S>,
    E: Evaluator<S>,
    Err: From<SearchError>,
{
    for (w, p) in buffers.waiting.iter_mut().zip(&mut buffers.positions) {
        w.clear();
        p.clear();
    }
    for (i, slot) in slots.iter_mut().enumerate() {
        while let Some(game) = slot {
            let (who, search) = game.current();
            match search.next_leaf() {
                Leaf::NeedsEval(p) => {
                    buffers.waiting[who].push(i);
                    buffers.positions[who].push(p);
                    break;
                }
                Leaf::Done => decided(slot)?,
            }
        }
    }
    if buffers.waiting.iter().all(Vec::is_empty) {
        return Ok(None);
    }
    let mut stepped = Stepped::default();
    for (who, evaluator) in evaluators.iter_mut().enumerate() {
        let positions = &buffers.positions[who];
        if positions.is_empty() {
            continue;
        }
        let t = Instant::now();
        let evals = evaluator.evaluate(positions);
        stepped.eval_time += t.elapsed();
        stepped.batches += 1;
        stepped.evaluated += positions.len();
        for (&i, e) in buffers.waiting[who].iter().zip(evals) {
            let game = slots[i].as_mut().expect("a game waits in this slot");
            let (_, search) = game.current();
            search.provide(e)?;
        }
    }
    Ok(Some(stepped))
}
