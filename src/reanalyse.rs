//! Reanalyse (Schrittwieser et al. 2021, "Online and offline reinforcement
//! learning by planning with a learned model"): positions already in the
//! replay window searched again with the newest network, their policy
//! targets (and optionally their search values) replaced by what that
//! search finds.
//!
//! A self-play game's targets are as good as the network that played it
//! was; by the time the trainer draws a position for the fourth time that
//! network is several generations old. Searching a share of the window
//! again spends some of the CPU that self-play would have spent on new
//! games to give old positions the targets the current network earns.
//! Whether that pays is an equal-CPU question, which `docs/strength.md`
//! answers per game; the share is `[reanalyse] share`, 0 (off) by default.
//!
//! The searches are plain full searches of the `[search]` table's kind
//! without noise: exploration belongs to the games being played, and these
//! positions are not played on. The window keeps the new targets in
//! memory only; a resumed run reads its record files as self-play wrote
//! them.

use std::sync::Mutex;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};

use crate::evaluator::Evaluator;
use crate::game::Game;
use crate::mcts::batch::{self, Batches};
use crate::mcts::{Search, SearchConfig, SearchError};
use crate::replay::window::ReplayWindow;
use crate::util::sub_seed;

/// The `[reanalyse]` table of a run's config.
///
/// ```
/// use yinsh_zero::reanalyse::ReanalyseConfig;
/// let cfg: ReanalyseConfig = toml::from_str("share = 0.25").unwrap();
/// assert_eq!(cfg.share, 0.25);
/// assert!(!cfg.value);
/// assert!(toml::from_str::<ReanalyseConfig>("shares = 0.25").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReanalyseConfig {
    /// The share of each generation's trained samples (`[train]
    /// train_ratio` times the new positions) for which a window position,
    /// drawn at random, is searched again before training (default 0:
    /// off). From 0 to 1.
    pub share: f64,
    /// Replace the positions' search values too, which `[train]
    /// search_value_weight` mixes into the value target (default false:
    /// policy targets only, as MuZero Reanalyse's policy share).
    pub value: bool,
    /// Descents of each search (default 0: `[search] simulations`).
    pub simulations: u32,
}

impl Default for ReanalyseConfig {
    fn default() -> Self {
        ReanalyseConfig {
            share: 0.0,
            value: false,
            simulations: 0,
        }
    }
}

impl ReanalyseConfig {
    /// Checks each value's range, naming the first key out of it.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.share) {
            return Err(format!(
                "[reanalyse] share must be from 0 to 1, not {}",
                self.share
            ));
        }
        Ok(())
    }

    /// The settings of one reanalysis search: `search`'s, every search
    /// full, no noise, the best action (which nothing plays).
    pub fn search_config(&self, search: &SearchConfig) -> SearchConfig {
        SearchConfig {
            simulations: if self.simulations > 0 {
                self.simulations
            } else {
                search.simulations
            },
            full_search_prob: 1.0,
            noise: false,
            temperature: 0.0,
            final_temperature: 0.0,
            tree_reuse: false,
            forced_playouts: 0.0,
            ..search.clone()
        }
    }

    /// How many positions a generation that trains `trained` samples
    /// searches again.
    ///
    /// ```
    /// use yinsh_zero::reanalyse::ReanalyseConfig;
    /// let cfg = ReanalyseConfig { share: 0.25, ..ReanalyseConfig::default() };
    /// assert_eq!(cfg.positions(4096), 1024);
    /// assert_eq!(ReanalyseConfig::default().positions(4096), 0);
    /// ```
    pub fn positions(&self, trained: u64) -> usize {
        (self.share * trained as f64).round() as usize
    }
}

/// New targets for one window position.
#[derive(Clone, Debug, PartialEq)]
pub struct Reanalysed {
    /// The position's index in the window.
    pub index: usize,
    /// The search's policy target: (dense action index, probability).
    pub policy: Vec<(u32, f32)>,
    /// The search's value of playing that policy
    /// ([`SearchResult::policy_wdl`](crate::mcts::SearchResult::policy_wdl)).
    pub search_wdl: Option<[f32; 3]>,
}

/// What a reanalysis pass did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReanalyseSummary {
    /// Positions searched again.
    pub positions: usize,
    /// Positions the network evaluated in all those searches.
    pub evaluated: u64,
}

/// Searches `count` positions of `window`, drawn uniformly without
/// replacement, with `search` settings on `workers` threads, each stepping
/// `in_flight` searches together through its own evaluator from
/// `make_evaluator`; then writes the new targets into the window
/// ([`ReplayWindow::retarget`]). Once `should_stop` says so (Ctrl-C),
/// no new search starts; those finished keep their targets. Reproducible
/// for a given `seed`, window and evaluators' answers.
#[allow(clippy::too_many_arguments)]
pub fn reanalyse<G, E, F>(
    window: &mut ReplayWindow<G>,
    count: usize,
    search: &SearchConfig,
    with_value: bool,
    workers: usize,
    in_flight: usize,
    seed: u64,
    make_evaluator: F,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<ReanalyseSummary, String>
where
    G: Game,
    E: Evaluator<G::State>,
    F: Fn(usize) -> Result<E, String> + Sync,
{
    search.validate().map_err(|e| e.to_string())?;
    let count = count.min(window.len());
    if count == 0 {
        return Ok(ReanalyseSummary::default());
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut picked = rand::seq::index::sample(&mut rng, window.len(), count).into_vec();
    picked.sort_unstable();
    let workers = workers.clamp(1, count);
    let shares: Vec<&[usize]> = picked.chunks(count.div_ceil(workers)).collect();
    let results = Mutex::new(Vec::new());
    let window_ref: &ReplayWindow<G> = window;
    std::thread::scope(|s| {
        for (w, share) in shares.iter().enumerate() {
            let (results, make_evaluator) = (&results, &make_evaluator);
            s.spawn(move || {
                let r = make_evaluator(w).and_then(|mut ev| {
                    search_positions(
                        window_ref,
                        share,
                        search,
                        in_flight,
                        sub_seed(seed, w as u64),
                        &mut ev,
                        should_stop,
                    )
                });
                results.lock().unwrap().push(r);
            });
        }
    });
    let mut summary = ReanalyseSummary::default();
    let mut all = Vec::with_capacity(count);
    for r in results.into_inner().unwrap() {
        let (targets, evaluated) = r?;
        summary.evaluated += evaluated;
        all.extend(targets);
    }
    summary.positions = all.len();
    for t in all {
        let wdl = if with_value { t.search_wdl } else { None };
        window.retarget(t.index, t.policy, wdl);
    }
    Ok(summary)
}

/// One worker's share: the positions at `indices` of `window`, searched
/// `in_flight` at a time.
fn search_positions<G: Game, E: Evaluator<G::State>>(
    window: &ReplayWindow<G>,
    indices: &[usize],
    search: &SearchConfig,
    in_flight: usize,
    seed: u64,
    evaluator: &mut E,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Vec<Reanalysed>, u64), String> {
    struct Pending<S: crate::game::State> {
        index: usize,
        search: Search<S>,
    }
    impl<S: crate::game::State> batch::InFlight<S> for Pending<S> {
        fn current(&mut self) -> (usize, &mut Search<S>) {
            (0, &mut self.search)
        }
    }
    let game = window.game();
    let mut next = indices.iter().copied();
    let start = |index: usize| -> Result<Pending<G::State>, SearchError> {
        let pos = window.get(index).position.clone();
        Ok(Pending {
            index,
            search: Search::new(pos, search.clone(), sub_seed(seed, index as u64))?,
        })
    };
    let mut slots: Vec<Option<Pending<G::State>>> = Vec::new();
    for index in next.by_ref().take(in_flight.max(1)) {
        slots.push(Some(start(index).map_err(|e| e.to_string())?));
    }
    let mut buffers = Batches::new(1, slots.len());
    let evaluators = std::slice::from_mut(evaluator);
    let mut done = Vec::with_capacity(indices.len());
    let mut evaluated = 0u64;
    loop {
        let stepped = batch::step(&mut slots, evaluators, &mut buffers, |slot| {
            let p = slot.take().expect("a decided search is in its slot");
            let r = p.search.result();
            let policy = r
                .actions
                .iter()
                .zip(&r.policy)
                .map(|(&a, &pr)| (game.action_index(a) as u32, pr))
                .collect();
            done.push(Reanalysed {
                index: p.index,
                policy,
                search_wdl: r.policy_wdl,
            });
            if !should_stop()
                && let Some(index) = next.next()
            {
                *slot = Some(start(index)?);
            }
            Ok::<(), SearchError>(())
        })
        .map_err(|e| e.to_string())?;
        match stepped {
            Some(s) => evaluated += s.evaluated as u64,
            None => break,
        }
    }
    Ok((done, evaluated))
}
