//! Monte-Carlo tree search: PUCT (AlphaZero) or a Gumbel root with sequential
//! halving, one single-threaded tree per game, written only against the
//! [`State`] and [`Evaluator`] traits: it knows neither the game nor what
//! evaluates its leaves.
//!
//! A [`Search`] belongs to one game and lives across its moves. It is driven
//! from outside one leaf at a time, so that a self-play worker can step many
//! games and evaluate all their leaves in one batch. A single game played
//! on several cores gathers a batch from its own tree instead
//! ([`Search::next_leaves`], with virtual loss), which the evaluator splits
//! over its threads:
//!
//! ```
//! use yinsh_zero::evaluator::{Evaluator, UniformEvaluator};
//! use yinsh_zero::mcts::{Leaf, Search, SearchConfig};
//! use yinsh_zero::games::yinsh::Position;
//!
//! let cfg = SearchConfig { simulations: 16, ..SearchConfig::default() };
//! let mut games: Vec<Search<Position>> = (0..4)
//!     .map(|seed| Search::new(Position::new(), cfg.clone(), seed).unwrap())
//!     .collect();
//! let mut evaluator = UniformEvaluator;
//! while games.iter().any(|g| !g.is_done()) {
//!     // One leaf per game, all evaluated together.
//!     let mut waiting = Vec::new();
//!     let mut positions = Vec::new();
//!     for (i, g) in games.iter_mut().enumerate() {
//!         if let Leaf::NeedsEval(pos) = g.next_leaf() {
//!             waiting.push(i);
//!             positions.push(pos);
//!         }
//!     }
//!     for (i, eval) in waiting.into_iter().zip(evaluator.evaluate(&positions)) {
//!         games[i].provide(eval).unwrap();
//!     }
//! }
//! for g in &mut games {
//!     let result = g.result();
//!     assert_eq!(result.simulations, 16);
//!     assert!((result.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
//!     g.advance(result.action).unwrap(); // keeps the played action's subtree
//! }
//! ```
//!
//! Values are stored from each node's own player to act (see [`tree`]), so
//! several decisions in a row by one player (YINSH's move, row and ring) are
//! handled without assuming that players alternate.

pub mod batch;
pub mod bench;
pub mod config;
pub mod gumbel;
pub mod noise;
pub mod puct;
pub mod tree;

use std::collections::VecDeque;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::evaluator::{Evaluation, Evaluator};
use crate::game::State;

pub use bench::{OneGameBench, SearchBench, bench_one_game, bench_search, bench_search_with};
pub use config::SearchConfig;
use gumbel::GumbelRoot;
use tree::{NodeId, NodeState, Tree};

/// What can go wrong when driving a search.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    #[error("cannot search a finished game")]
    GameOver,
    #[error("`{action}` is not legal in the searched position: {reason}")]
    IllegalAction { action: String, reason: String },
    #[error("search config field `{field}` {why}")]
    InvalidConfig { field: &'static str, why: String },
    #[error("the evaluator's answer is unusable: {0}")]
    BadEvaluation(String),
    #[error("provide() called with no leaf waiting for an evaluation (call next_leaf() first)")]
    NothingPending,
}

/// What [`Search::next_leaf`] asks of the caller.
#[derive(Clone, Debug, PartialEq)]
pub enum Leaf<S> {
    /// Evaluate this position and hand the answer to [`Search::provide`].
    NeedsEval(S),
    /// This move's search is over: take [`Search::result`].
    Done,
}

/// The outcome of one move's search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<A> {
    /// The action to play: sampled from the visits with the turn's
    /// temperature (PUCT), or the winner of sequential halving (Gumbel,
    /// whose root noise the turn's temperature scales).
    pub action: A,
    /// The legal actions of the root, in [`State::legal_actions`] order.
    pub actions: Vec<A>,
    /// The policy target over `actions`, summing to 1: the visit distribution
    /// (PUCT) or the improved policy `softmax(logits + sigma(completed Q))`
    /// (Gumbel).
    pub policy: Vec<f32>,
    /// The network's priors over `actions` (after `policy_temperature`,
    /// without root noise): what the search began from, so that
    /// [`surprise`](SearchResult::surprise) can say how far it moved.
    pub priors: Vec<f32>,
    /// Visits of each child of the root, reused ones included.
    pub visits: Vec<u32>,
    /// Mean win/draw/loss at the root for the player to act; `None` when the
    /// root was never evaluated (a forced decision in a fresh tree).
    pub root_wdl: Option<[f32; 3]>,
    /// The value of playing `policy`: the root's visited children's mean
    /// win/draw/loss for the player to act, weighted by `policy` (the root's
    /// own mean where no child was visited). A value target: under Gumbel
    /// the root's mean also averages the poor actions sampled only to be
    /// discarded, which this leaves out.
    pub policy_wdl: Option<[f32; 3]>,
    /// The expected final margin of playing `policy` for the player to act,
    /// weighted as [`policy_wdl`](SearchResult::policy_wdl) is: a margin
    /// target. A child the tree has solved counts its exact result in both.
    pub policy_margin: Option<f32>,
    /// Descents made for this move (0 for a forced decision).
    pub simulations: u32,
    /// Leaves this move's search handed to the evaluator, the root's
    /// included: what its time bought. Descents that end in finished or
    /// proven positions count in `simulations` but cost no evaluation.
    pub evaluations: u32,
    /// A single legal option, played without search.
    pub forced: bool,
    /// A full search (false for a fast search of playout-cap randomization,
    /// whose targets should not be trained on).
    pub full: bool,
}

impl<A> SearchResult<A> {
    /// The root's expected score for the player to act, P(win) - P(loss).
    pub fn root_value(&self) -> Option<f32> {
        self.root_wdl.map(|w| w[0] - w[2])
    }

    /// How much the search taught the network here: the Kullback-Leibler
    /// divergence of the policy target from the priors, in nats (0 where
    /// the search agreed with the network). KataGo's policy surprise
    /// weighting trains the surprising positions more often.
    ///
    /// ```
    /// use yinsh_zero::mcts::SearchResult;
    /// let mut r = SearchResult {
    ///     action: 0u8, actions: vec![0, 1], policy: vec![0.5, 0.5], priors: vec![0.5, 0.5],
    ///     visits: vec![1, 1], root_wdl: None, policy_wdl: None, policy_margin: None,
    ///     simulations: 2, evaluations: 2, forced: false, full: true,
    /// };
    /// assert_eq!(r.surprise(), 0.0);
    /// r.policy = vec![1.0, 0.0];
    /// assert!((r.surprise() - 2f32.ln()).abs() < 1e-6);
    /// ```
    pub fn surprise(&self) -> f32 {
        self.policy
            .iter()
            .zip(&self.priors)
            .filter(|&(&p, _)| p > 0.0)
            // A prior that underflowed to 0 would make any target infinitely
            // surprising; the floor keeps one position from taking a game's
            // whole weight.
            .map(|(&p, &q)| p * (p / q.max(1e-6)).ln())
            .sum::<f32>()
            .max(0.0)
    }
}

/// Per-move state: what this move's search may spend and has spent.
#[derive(Clone, Debug)]
struct MoveState {
    full: bool,
    budget: u32,
    sims: u32,
    evals: u32,
    /// Root noise and Gumbel sampling done (needs the root's priors).
    prepared: bool,
    /// The priors PUCT uses at the root: the edges' own, plus Dirichlet noise.
    root_priors: Vec<f32>,
    gumbel: Option<GumbelRoot>,
    /// A uniform draw in [0, 1) fixed at the start of the move, so that
    /// [`Search::result`] samples the temperature choice without mutation.
    pick: f64,
}

/// The search tree of one game, kept across its moves.
///
/// Reproducible: the same position, config, seed and evaluator answers give
/// the same results.
#[derive(Clone, Debug)]
pub struct Search<S: State> {
    cfg: SearchConfig,
    tree: Tree<S>,
    rng: SmallRng,
    /// The paths from the root to the leaves waiting for their evaluations,
    /// oldest first: one at a time, or a batch (see
    /// [`next_leaves`](Search::next_leaves)).
    pending: VecDeque<Vec<NodeId>>,
    mv: MoveState,
    total_sims: u64,
}

const ROOT: NodeId = 0;

impl<S: State> Search<S> {
    /// A search from `pos`, its randomness drawn from `seed`.
    ///
    /// Fails on a finished game or an invalid config.
    pub fn new(pos: S, cfg: SearchConfig, seed: u64) -> Result<Search<S>, SearchError> {
        cfg.validate()?;
        if pos.is_over() {
            return Err(SearchError::GameOver);
        }
        let mut s = Search {
            tree: Tree::with_root(pos, cfg.scoring()),
            rng: SmallRng::seed_from_u64(seed),
            pending: VecDeque::new(),
            mv: MoveState {
                full: true,
                budget: 0,
                sims: 0,
                evals: 0,
                prepared: false,
                root_priors: Vec::new(),
                gumbel: None,
                pick: 0.0,
            },
            total_sims: 0,
            cfg,
        };
        s.begin_move();
        Ok(s)
    }

    fn begin_move(&mut self) {
        let full = self.cfg.full_search_prob >= 1.0
            || self.rng.random::<f32>() < self.cfg.full_search_prob;
        self.mv = MoveState {
            full,
            budget: if full {
                self.cfg.simulations
            } else {
                self.cfg.fast_simulations
            },
            sims: 0,
            evals: 0,
            prepared: false,
            root_priors: Vec::new(),
            gumbel: None,
            pick: self.rng.random(),
        };
    }

    /// The position at the root: the game as it stands.
    pub fn position(&self) -> &S {
        &self.tree.node(ROOT).pos
    }

    pub fn config(&self) -> &SearchConfig {
        &self.cfg
    }

    /// The root has a single legal option: it is played without search.
    pub fn is_forced(&self) -> bool {
        // Single-option nodes get their one edge when created (see `tree`).
        let root = self.tree.node(ROOT);
        root.state == NodeState::Expanded && root.n_edges == 1
    }

    /// Visits of the root, those kept from earlier moves included.
    pub fn root_visits(&self) -> u32 {
        self.tree.node(ROOT).visits
    }

    /// The root's exact value to the player to act (in the search's
    /// utility: win minus loss, plus the margin at its score weight) once
    /// the finished games in the tree prove it; `None` before, and always
    /// without [`SearchConfig::solver`].
    pub fn proven_value(&self) -> Option<f32> {
        let b = self.tree.bounds_of(ROOT);
        b.is_solved().then_some(b.lower)
    }

    /// Descents made for the current move.
    pub fn simulations(&self) -> u32 {
        self.mv.sims
    }

    /// Descents made over the life of this search, all moves together.
    pub fn total_simulations(&self) -> u64 {
        self.total_sims
    }

    /// Nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Whether this move's search is over: its budget is spent (and the root
    /// has been evaluated), the decision is forced, or the game is over.
    pub fn is_done(&self) -> bool {
        let root = self.tree.node(ROOT);
        match root.state {
            NodeState::Terminal => true,
            NodeState::Fresh => false,
            NodeState::Expanded => {
                self.is_forced() || (self.pending.is_empty() && self.mv.sims >= self.mv.budget)
            }
        }
    }

    /// Walks down to the next leaf that needs an evaluation. Descents that end
    /// in a finished game back up its exact result and count as simulations
    /// at once; the walk goes on until a leaf needs the evaluator or the
    /// budget is spent. Asking again before [`provide`](Search::provide)
    /// returns the same leaf.
    pub fn next_leaf(&mut self) -> Leaf<S> {
        if self.pending.is_empty() {
            self.gather(1);
        }
        match self.pending.front() {
            Some(path) => Leaf::NeedsEval(self.leaf_position(path)),
            None => Leaf::Done,
        }
    }

    /// Up to `k` leaves to evaluate together, gathered from this one tree
    /// (empty once this move's search is over): the search's side of
    /// spreading one game's evaluations over several cores. Hand their
    /// evaluations to [`provide`](Search::provide) in this order.
    ///
    /// Each leaf's descent stays in flight until its evaluation comes back
    /// and counts meanwhile as a visit lost by every player choosing along
    /// it (virtual loss), so later descents of the batch take other paths.
    /// A descent that reaches a leaf already in the batch is dropped, not
    /// counted; its virtual loss steers the descents after it until the
    /// batch is gathered, and at most `k` such collisions end the gathering
    /// early. The root of a fresh tree is evaluated alone, and the batch
    /// never runs past the budget. With `k = 1` this is
    /// [`next_leaf`](Search::next_leaf), the same leaves in the same order.
    /// Asking again before the evaluations are provided returns the same
    /// leaves.
    pub fn next_leaves(&mut self, k: usize) -> Vec<S> {
        if self.pending.is_empty() {
            self.gather(k.max(1));
        }
        self.pending
            .iter()
            .map(|path| self.leaf_position(path))
            .collect()
    }

    fn leaf_position(&self, path: &[NodeId]) -> S {
        let leaf = *path.last().expect("a path holds the root");
        self.tree.node(leaf).pos.clone()
    }

    /// Gathers leaves into `pending` until it holds `k`, the budget is
    /// spent (leaves in flight counted), the move's search is over, or
    /// collisions end it (see [`next_leaves`](Search::next_leaves)).
    fn gather(&mut self, k: usize) {
        let mut collided: Vec<Vec<NodeId>> = Vec::new();
        while self.pending.len() < k && collided.len() < k && !self.is_done() {
            if self.tree.node(ROOT).state == NodeState::Fresh {
                // The root's priors shape every descent: nothing else can
                // be chosen before they are known.
                if self.pending.is_empty() {
                    self.tree.add_virtual_loss(&[ROOT]);
                    self.pending.push_back(vec![ROOT]);
                }
                break;
            }
            if self.mv.sims + self.pending.len() as u32 >= self.mv.budget {
                break;
            }
            if !self.mv.prepared {
                self.prepare_root();
            }
            let (path, state) = self.descend();
            let leaf = self.tree.node(*path.last().expect("a path holds the root"));
            match state {
                NodeState::Fresh if leaf.in_flight > 0 => {
                    self.tree.add_virtual_loss(&path);
                    collided.push(path);
                }
                NodeState::Fresh => {
                    self.tree.add_virtual_loss(&path);
                    self.pending.push_back(path);
                }
                NodeState::Terminal => {
                    // The exact result and margin were set when the node
                    // was made or solved; every visit backs them up
                    // unchanged.
                    let leaf_id = *path.last().expect("a path holds the root");
                    let (wdl, margin) = self
                        .tree
                        .settled_result(leaf_id)
                        .expect("a finished or solved node knows its result");
                    let view = leaf.view;
                    self.tree.backup(&path, wdl, margin, view);
                    self.tree.update_bounds(&path);
                    self.mv.sims += 1;
                    self.total_sims += 1;
                }
                NodeState::Expanded => unreachable!("a descent ends at a leaf"),
            }
        }
        for path in &collided {
            self.tree.remove_virtual_loss(path);
        }
    }

    /// One descent from the root to a node that is fresh or finished (or
    /// solved, which counts as finished): the path, and which of the two it
    /// reached.
    fn descend(&mut self) -> (Vec<NodeId>, NodeState) {
        let mut path = vec![ROOT];
        let mut node = ROOT;
        loop {
            let e = self.select(node);
            let child = self.tree.child(node, e);
            path.push(child);
            match self.tree.node(child).state {
                // A solved node is searched no deeper than a finished game.
                NodeState::Expanded if self.tree.is_settled(child) => {
                    return (path, NodeState::Terminal);
                }
                NodeState::Expanded => node = child,
                state => return (path, state),
            }
        }
    }

    fn select(&mut self, node: NodeId) -> usize {
        if node == ROOT {
            if let Some(g) = &mut self.mv.gumbel {
                return self.tree.node(ROOT).first_edge as usize
                    + g.next(&self.tree, ROOT, &self.cfg);
            }
            if self.cfg.forces_playouts(self.mv.full) {
                let k = self.cfg.forced_playouts;
                let priors = &self.mv.root_priors;
                if let Some(i) = puct::select_forced(&self.tree, ROOT, &self.cfg, priors, k) {
                    return i;
                }
            }
            return puct::select(
                &self.tree,
                ROOT,
                &self.cfg,
                Some(&self.mv.root_priors),
                self.cfg.root_fpu_reduction,
            );
        }
        if self.cfg.gumbel {
            gumbel::select(&self.tree, node, &self.cfg)
        } else {
            puct::select(&self.tree, node, &self.cfg, None, self.cfg.fpu_reduction)
        }
    }

    /// Once the root's priors are known: Gumbel sampling, or Dirichlet noise.
    fn prepare_root(&mut self) {
        self.mv.prepared = true;
        if self.cfg.gumbel {
            // The turn's temperature scales the Gumbel noise as it would
            // flatten PUCT's visit sampling: a zero temperature plays the
            // best action, which punishes the mistakes earlier noise let in
            // but narrows what self-play sees (README, Six Men's Morris).
            let scale = if self.cfg.noise {
                self.cfg.temperature_at(self.tree.node(ROOT).pos.ply())
            } else {
                0.0
            };
            self.mv.gumbel = Some(GumbelRoot::new(
                &self.tree,
                ROOT,
                &self.cfg,
                self.mv.budget,
                scale,
                &mut self.rng,
            ));
            return;
        }
        let edges = self.tree.edges_of(ROOT);
        let mut priors: Vec<f32> = edges.iter().map(|e| e.prior).collect();
        if self.cfg.noise && self.mv.full && priors.len() > 1 {
            let alpha = self.cfg.dirichlet_alpha_total / priors.len() as f32;
            let eta = noise::dirichlet(&mut self.rng, alpha, priors.len());
            let f = self.cfg.noise_fraction;
            for (p, n) in priors.iter_mut().zip(eta) {
                *p = (1.0 - f) * *p + f * n;
            }
        }
        self.mv.root_priors = priors;
    }

    /// Hands over the evaluation of the oldest leaf waiting, from
    /// [`next_leaf`](Search::next_leaf) or [`next_leaves`](Search::next_leaves):
    /// expands it and backs its value up to the root.
    ///
    /// Priors are renormalised over the legal actions (negative or NaN ones
    /// count as 0; all zero gives uniform). An answer with the wrong number of
    /// priors or an unusable WDL is refused and the leaf stays waiting.
    pub fn provide(&mut self, eval: Evaluation) -> Result<(), SearchError> {
        let path = self
            .pending
            .pop_front()
            .ok_or(SearchError::NothingPending)?;
        let leaf = *path.last().expect("a path holds the root");
        let n = self.tree.node(leaf);
        let (actions, view) = (n.pos.legal_actions(), n.view);
        let checked = check_evaluation(&eval, actions.len(), self.cfg.policy_temperature);
        let (priors, wdl, margin) = match checked {
            Ok(x) => x,
            Err(e) => {
                self.pending.push_front(path);
                return Err(e);
            }
        };
        self.tree.remove_virtual_loss(&path);
        self.tree.expand(leaf, &actions, &priors, wdl, margin);
        self.tree.backup(&path, wdl, margin, view);
        self.mv.evals += 1;
        if leaf != ROOT {
            self.mv.sims += 1;
            self.total_sims += 1;
        }
        Ok(())
    }

    /// Runs this move's search to the end, asking `evaluator` one leaf at a
    /// time.
    pub fn run(&mut self, evaluator: &mut dyn Evaluator<S>) -> Result<(), SearchError> {
        while let Leaf::NeedsEval(pos) = self.next_leaf() {
            let eval = evaluator
                .evaluate(std::slice::from_ref(&pos))
                .pop()
                .ok_or_else(|| SearchError::BadEvaluation("no evaluation returned".into()))?;
            self.provide(eval)?;
        }
        Ok(())
    }

    /// Runs this move's search to the end, asking `evaluator` about up to
    /// `k` leaves at a time ([`next_leaves`](Search::next_leaves)); `k = 1`
    /// is [`run`](Search::run).
    pub fn run_batched(
        &mut self,
        evaluator: &mut dyn Evaluator<S>,
        k: usize,
    ) -> Result<(), SearchError> {
        loop {
            if !self.step_batch(evaluator, k)? {
                return Ok(());
            }
        }
    }

    /// Gathers up to `k` leaves, evaluates them in one call and hands the
    /// evaluations back; false once this move's search is over.
    pub fn step_batch(
        &mut self,
        evaluator: &mut dyn Evaluator<S>,
        k: usize,
    ) -> Result<bool, SearchError> {
        let leaves = self.next_leaves(k);
        if leaves.is_empty() {
            return Ok(false);
        }
        let evals = evaluator.evaluate(&leaves);
        if evals.len() != leaves.len() {
            return Err(SearchError::BadEvaluation(format!(
                "{} evaluations for {} positions",
                evals.len(),
                leaves.len()
            )));
        }
        for eval in evals {
            self.provide(eval)?;
        }
        Ok(true)
    }

    /// Descents in flight, summed over the tree's nodes: 0 whenever no leaf
    /// waits for its evaluation (the virtual loss is all taken back).
    pub fn virtual_loss(&self) -> u64 {
        self.tree.nodes.iter().map(|n| n.in_flight as u64).sum()
    }

    /// The move chosen and the training targets, from the search so far
    /// (call it once [`is_done`](Search::is_done)).
    ///
    /// # Panics
    /// If the game is over, or the root has not been evaluated yet.
    pub fn result(&self) -> SearchResult<S::Action> {
        let root = self.tree.node(ROOT);
        assert!(
            root.state != NodeState::Terminal,
            "result(): the game is over"
        );
        if self.is_forced() {
            return SearchResult {
                action: root.pos.legal_actions()[0],
                actions: vec![root.pos.legal_actions()[0]],
                policy: vec![1.0],
                priors: vec![1.0],
                visits: vec![self.tree.edge_stats(root.first_edge as usize, root.view).0],
                root_wdl: root.wdl(),
                policy_wdl: root.wdl(),
                policy_margin: root.margin(),
                simulations: 0,
                evaluations: self.mv.evals,
                forced: true,
                full: self.mv.full,
            };
        }
        assert!(
            root.state == NodeState::Expanded,
            "result(): the root has not been evaluated yet (drive next_leaf/provide first)"
        );
        let range = self.tree.edge_range(ROOT);
        let edges = self.tree.edges_of(ROOT);
        let actions: Vec<S::Action> = edges.iter().map(|e| e.action).collect();
        let visits: Vec<u32> = range
            .clone()
            .map(|i| self.tree.edge_stats(i, root.view).0)
            .collect();
        let priors: Vec<f32> = edges.iter().map(|e| e.prior).collect();
        let proven = self.proven_best(&visits);
        let (policy, pick) = if self.cfg.gumbel {
            let policy = gumbel::improved_policy(&self.tree, ROOT, &self.cfg);
            let pick = proven.unwrap_or_else(|| {
                self.prefer_proven(match &self.mv.gumbel {
                    Some(g) => g.best(&self.tree, ROOT, &self.cfg),
                    None => argmax(&policy),
                })
            });
            (policy, pick)
        } else {
            // Forced playouts' extra visits leave both the target and the
            // sampled choice: they were spent to measure, not to recommend.
            let forced =
                self.cfg.forces_playouts(self.mv.full) && self.mv.root_priors.len() == visits.len();
            let weights: Vec<f32> = if forced {
                let q: Vec<Option<f32>> = range
                    .clone()
                    .map(|i| self.tree.edge_stats(i, root.view).1)
                    .collect();
                let k = self.cfg.forced_playouts;
                puct::prune_forced(&visits, &self.mv.root_priors, &q, &self.cfg, k)
            } else {
                visits.iter().map(|&v| v as f32).collect()
            };
            let total: f32 = weights.iter().sum();
            let policy = if total == 0.0 {
                priors.clone()
            } else {
                weights.iter().map(|&w| w / total).collect()
            };
            let t = self.cfg.temperature_at(root.pos.ply());
            // The policy target keeps every visit; the choice, none spent
            // on an action proven worse than another.
            let kept: Vec<u32> = weights.iter().map(|&w| w.round() as u32).collect();
            let choosable = self.unrefuted(&kept);
            let lcb = (t == 0.0 && self.cfg.lcb_z > 0.0)
                .then(|| self.lcb_pick(&choosable))
                .flatten();
            let pick = proven
                .or(lcb)
                .unwrap_or_else(|| choose_with_temperature(&choosable, &priors, t, self.mv.pick));
            (policy, self.prefer_proven(pick))
        };
        let (policy_wdl, policy_margin) = {
            let mut sum = [0.0f32; 3];
            let mut margin = 0.0f32;
            let mut weight = 0.0f32;
            for (i, p) in self.tree.edge_range(ROOT).zip(&policy) {
                if let Some((w, m)) = self.tree.edge_value(i, root.view) {
                    weight += p;
                    for (s, x) in sum.iter_mut().zip(w) {
                        *s += p * x;
                    }
                    margin += p * m;
                }
            }
            if weight > 0.0 {
                (Some(sum.map(|s| s / weight)), Some(margin / weight))
            } else {
                (root.wdl(), root.margin())
            }
        };
        SearchResult {
            action: actions[pick],
            actions,
            policy,
            priors,
            visits,
            root_wdl: root.wdl(),
            policy_wdl,
            policy_margin,
            simulations: self.mv.sims,
            evaluations: self.mv.evals,
            forced: false,
            full: self.mv.full,
        }
    }

    /// Where the tree keeps bounds on exact values: the root action proven
    /// at least as good as any other can be (its lower bound reaches every
    /// other's upper bound; the most visited of several), else `None`.
    fn proven_best(&self, visits: &[u32]) -> Option<usize> {
        if !self.tree.scoring.proves() {
            return None;
        }
        let view = self.tree.node(ROOT).view;
        let bounds: Vec<(f32, f32)> = self
            .tree
            .edge_range(ROOT)
            .map(|i| self.tree.edge_bounds(i, view))
            .collect();
        let mut best: Option<usize> = None;
        for (k, &(lower, _)) in bounds.iter().enumerate() {
            let dominates = bounds
                .iter()
                .enumerate()
                .all(|(j, &(_, upper))| j == k || lower >= upper);
            if dominates && best.is_none_or(|b| visits[k] > visits[b]) {
                best = Some(k);
            }
        }
        best
    }

    /// `pick`, or the best solved root action where its exact value is at
    /// least `pick`'s mean (held within `pick`'s bounds): the search leaves
    /// a solved action alone once solved, so its visits understate it.
    fn prefer_proven(&self, pick: usize) -> usize {
        if !self.tree.scoring.proves() {
            return pick;
        }
        let view = self.tree.node(ROOT).view;
        let first = self.tree.node(ROOT).first_edge as usize;
        // The first of equal values, as a strict comparison keeps it.
        let solved = self
            .tree
            .edge_range(ROOT)
            .filter_map(|i| Some((i - first, self.tree.edge_exact(i, view)?)))
            .rev()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((k, exact)) = solved else {
            return pick;
        };
        let q = self.tree.edge_stats(first + pick, view).1;
        match q {
            Some(q) if self.tree.within_bounds(first + pick, view, q) > exact => pick,
            _ => k,
        }
    }

    /// `visits` with the actions proven worse than another zeroed (see
    /// [`Tree::is_refuted`]), so that no choice made by visits takes one.
    fn unrefuted(&self, visits: &[u32]) -> Vec<u32> {
        let (view, lower) = (self.tree.node(ROOT).view, self.tree.bounds_of(ROOT).lower);
        self.tree
            .edge_range(ROOT)
            .zip(visits)
            .map(|(i, &v)| {
                if self.tree.is_refuted(i, view, lower) {
                    0
                } else {
                    v
                }
            })
            .collect()
    }

    /// The root action whose value's lower confidence bound is highest
    /// among those with at least a tenth of the most visits
    /// ([`SearchConfig::lcb_z`]); `None` when no action has visits.
    fn lcb_pick(&self, visits: &[u32]) -> Option<usize> {
        let most = *visits.iter().max()?;
        if most == 0 {
            return None;
        }
        let view = self.tree.node(ROOT).view;
        let z = self.cfg.lcb_z;
        // The outcome is +1, -1 or the draw's worth; the margin's share of
        // q moves the bound, not the spread, which the result dominates.
        let ds = self.tree.outcome_utility([0.0, 1.0, 0.0], view);
        let mut best: Option<(f32, u32, usize)> = None;
        for (k, i) in self.tree.edge_range(ROOT).enumerate() {
            let n = visits[k];
            if n == 0 || n * 10 < most {
                continue;
            }
            let (Some(q), Some([w, d, l])) =
                (self.tree.edge_stats(i, view).1, self.tree.edge_wdl(i, view))
            else {
                continue;
            };
            let mean = w - l + d * ds;
            let var = (w + l + d * ds * ds - mean * mean).max(0.0);
            let bound = q - z * (var / n as f32).sqrt();
            if best.is_none_or(|(b, bn, _)| bound > b || (bound == b && n > bn)) {
                best = Some((bound, n, k));
            }
        }
        best.map(|b| b.2)
    }

    /// Plays `action` at the root and starts the next move's search. With
    /// tree reuse the action's subtree is kept (its visits are not counted
    /// against the new budget); otherwise the tree starts afresh. A leaf
    /// waiting for evaluation is dropped.
    ///
    /// After the game ends only [`position`](Search::position) is meaningful.
    pub fn advance(&mut self, action: S::Action) -> Result<(), SearchError> {
        let root = self.tree.node(ROOT);
        if root.pos.is_over() {
            return Err(SearchError::GameOver);
        }
        let mut pos = root.pos.clone();
        pos.play(action).map_err(|e| SearchError::IllegalAction {
            action: e.action,
            reason: e.reason,
        })?;
        for path in std::mem::take(&mut self.pending) {
            self.tree.remove_virtual_loss(&path);
        }
        let child = self
            .tree
            .edges_of(ROOT)
            .iter()
            .find(|e| e.action == action)
            .and_then(|e| e.child);
        self.tree = match child {
            Some(c) if self.cfg.tree_reuse => self.tree.subtree(c),
            _ => Tree::with_root(pos, self.cfg.scoring()),
        };
        self.begin_move();
        Ok(())
    }
}

fn check_evaluation(
    eval: &Evaluation,
    n: usize,
    policy_temperature: f32,
) -> Result<(Vec<f32>, [f32; 3], f32), SearchError> {
    if eval.priors.len() != n {
        return Err(SearchError::BadEvaluation(format!(
            "{} priors for a position with {n} legal actions",
            eval.priors.len()
        )));
    }
    let wdl = eval.wdl.map(|x| x.max(0.0));
    let wsum: f32 = wdl.iter().sum();
    if !eval.wdl.iter().all(|x| x.is_finite()) || wsum <= 0.0 {
        return Err(SearchError::BadEvaluation(format!(
            "win/draw/loss {:?} is not a distribution",
            eval.wdl
        )));
    }
    let wdl = wdl.map(|x| x / wsum);
    if !eval.margin.is_finite() {
        return Err(SearchError::BadEvaluation(format!(
            "margin {} is not a number",
            eval.margin
        )));
    }
    let margin = eval.margin.clamp(-1.0, 1.0);
    let mut priors: Vec<f32> = eval
        .priors
        .iter()
        .map(|&p| if p.is_finite() && p > 0.0 { p } else { 0.0 })
        .collect();
    if policy_temperature != 1.0 {
        let inv = 1.0 / policy_temperature;
        priors.iter_mut().for_each(|p| *p = p.powf(inv));
    }
    let psum: f32 = priors.iter().sum();
    if psum > 0.0 {
        priors.iter_mut().for_each(|p| *p /= psum);
    } else {
        priors.iter_mut().for_each(|p| *p = 1.0 / n as f32);
    }
    Ok((priors, wdl, margin))
}

fn argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}

/// Index chosen from `visits` at temperature `t`: the most visited (ties to
/// the higher prior, then the first) when `t` is about 0, else sampled in
/// proportion to `visits^(1/t)` with the uniform draw `u`.
fn choose_with_temperature(visits: &[u32], priors: &[f32], t: f32, u: f64) -> usize {
    let max = visits.iter().copied().max().unwrap_or(0);
    if t < 1e-3 || max == 0 {
        let mut best = 0;
        for i in 1..visits.len() {
            if (visits[i], priors[i]) > (visits[best], priors[best]) {
                best = i;
            }
        }
        return best;
    }
    let inv_t = 1.0 / t as f64;
    let w: Vec<f64> = visits
        .iter()
        .map(|&v| (v as f64 / max as f64).powf(inv_t))
        .collect();
    let total: f64 = w.iter().sum();
    let mut target = u * total;
    for (i, &x) in w.iter().enumerate() {
        if target < x {
            return i;
        }
        target -= x;
    }
    // Rounding left a sliver past the end: the last visited action.
    w.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

/// Searches `pos` once, evaluating leaves one at a time: for one game at a
/// time (analysis, a match player). Self-play steps many [`Search`]es instead.
///
/// ```
/// use rand::SeedableRng;
/// use yinsh_zero::evaluator::UniformEvaluator;
/// use yinsh_zero::mcts::{SearchConfig, search};
/// use yinsh_zero::games::yinsh::Position;
///
/// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
/// let cfg = SearchConfig { simulations: 32, ..SearchConfig::for_play() };
/// let r = search(&Position::new(), &cfg, &mut UniformEvaluator, &mut rng).unwrap();
/// assert!(Position::new().is_legal(r.action));
/// assert_eq!(r.visits.iter().sum::<u32>(), 32);
/// ```
pub fn search<S: State>(
    pos: &S,
    cfg: &SearchConfig,
    evaluator: &mut dyn Evaluator<S>,
    rng: &mut impl Rng,
) -> Result<SearchResult<S::Action>, SearchError> {
    let mut s = Search::new(pos.clone(), cfg.clone(), rng.random())?;
    s.run(evaluator)?;
    Ok(s.result())
}
