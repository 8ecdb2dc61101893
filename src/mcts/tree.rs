//! The search tree of one game: an arena of nodes and their child edges.
//!
//! Statistics are kept as win/draw/loss sums from each node's own *view*: the
//! player to act there, or, at a finished game, the player who acted into it.
//! In YINSH one player often decides several times in a row (a move, then a
//! row, then a ring), and other games have such compound turns too, so a
//! value flips only where the view changes between a parent and its child,
//! never simply at every ply.
//!
//! Beside them each node sums the final score margin the evaluator expects
//! ([`State::margin`]), which the search weighs in where
//! [`Scoring::score_weight`] asks it to (KataGo's score utility).
//!
//! Where [`Scoring::solver`] asks for it, each node also keeps bounds on its
//! exact value, the value of perfect play from there in the same utility,
//! known once finished games below it prove them (score-bounded MCTS,
//! Cazenave and Saffidine 2010, of which MCTS-Solver, Winands, Björnsson and
//! Saito 2008, is the win/loss case). A node whose bounds meet is *solved*:
//! the search treats it as a finished game and backs up its exact result, and
//! a child whose upper bound is below its parent's lower bound is provably
//! worse than a sibling, so the search no longer spends descents on it.

use crate::game::{Color, State};

/// Index of a node in its [`Tree`].
pub type NodeId = u32;

/// What a node knows of its own position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Created, waiting for its evaluation; no edges yet.
    Fresh,
    /// Evaluated (or a single-option decision that needs no evaluation): its
    /// edges exist.
    Expanded,
    /// The game is over here; every visit backs up the exact result.
    Terminal,
}

/// One legal action out of a node.
#[derive(Clone, Copy, Debug)]
pub struct Edge<A> {
    pub action: A,
    /// The evaluator's prior, renormalised over the legal actions.
    pub prior: f32,
    /// `ln(prior)`, floored so that a zero prior stays finite.
    pub logit: f32,
    /// The child, once this edge has been taken.
    pub child: Option<NodeId>,
}

/// Floor of the logits, so that a prior of exactly 0 gives no NaN.
pub const MIN_LOGIT: f32 = -30.0;

impl<A> Edge<A> {
    pub fn new(action: A, prior: f32) -> Edge<A> {
        Edge {
            action,
            prior,
            logit: prior.ln().max(MIN_LOGIT),
            child: None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Node<S> {
    pub pos: S,
    /// Whose view the statistics take (see the module docs).
    pub view: Color,
    pub state: NodeState,
    pub visits: u32,
    /// Sums of win, draw and loss probabilities over the visits, from `view`.
    pub wdl_sum: [f32; 3],
    /// Sum of the expected final margins over the visits, from `view`.
    pub margin_sum: f32,
    /// The evaluator's own win/draw/loss of the position from `view` (or a
    /// terminal's exact result), before any search below it; `None` until
    /// known.
    pub raw_wdl: Option<[f32; 3]>,
    /// The evaluator's own expected margin from `view` (a terminal's exact
    /// one), set with [`Node::raw_wdl`].
    pub raw_margin: f32,
    /// The node's edges are `edges[first_edge..first_edge + n_edges]`.
    pub first_edge: u32,
    pub n_edges: u32,
    /// Descents through this node whose leaf still waits for its
    /// evaluation: while a batch of leaves is gathered from one tree, each
    /// counts as a visit lost by whoever chose the node (virtual loss), so
    /// that the next descent of the batch goes elsewhere. 0 between batches.
    pub in_flight: u32,
}

/// What the finished games below a node prove of its exact value, kept
/// beside the nodes (not in them, so that a search without proofs walks
/// nodes no larger than before).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Bounds on the exact value to the node's view (the
    /// [`utility`](Tree::utility) of perfect play from there): `-inf` and
    /// `+inf` until finished games below prove more; equal once solved.
    pub lower: f32,
    pub upper: f32,
    /// A solved inner node's exact win/draw/loss and margin from its view,
    /// which each descent reaching it backs up, as a finished game's (a
    /// finished game's own are its `raw_wdl` and `raw_margin`).
    pub exact: Option<([f32; 3], f32)>,
}

impl Bounds {
    /// Nothing proved.
    pub const UNKNOWN: Bounds = Bounds {
        lower: f32::NEG_INFINITY,
        upper: f32::INFINITY,
        exact: None,
    };

    /// Solved: the bounds meet.
    #[inline]
    pub fn is_solved(&self) -> bool {
        self.lower == self.upper
    }
}

impl<S> Node<S> {
    /// Counts one visit of win/draw/loss `w` and margin `m`, both from the
    /// node's view.
    fn add_visit(&mut self, w: [f32; 3], m: f32) {
        self.visits += 1;
        for (s, x) in self.wdl_sum.iter_mut().zip(w) {
            *s += x;
        }
        self.margin_sum += m;
        // A single-option node never asked the evaluator: its first
        // backed-up value stands in for the evaluator's.
        if self.raw_wdl.is_none() {
            self.raw_wdl = Some(w);
            self.raw_margin = m;
        }
    }

    /// Mean win/draw/loss from the node's view; `None` if never visited.
    pub fn wdl(&self) -> Option<[f32; 3]> {
        (self.visits > 0).then(|| self.wdl_sum.map(|x| x / self.visits as f32))
    }

    /// Mean expected margin from the node's view; `None` if never visited.
    pub fn margin(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.margin_sum / self.visits as f32)
    }
}

/// `wdl` seen from the other player.
#[inline]
pub fn flip(wdl: [f32; 3]) -> [f32; 3] {
    [wdl[2], wdl[1], wdl[0]]
}

/// The exact result of a finished game for `view`.
pub fn terminal_wdl<S: State>(pos: &S, view: Color) -> [f32; 3] {
    match pos.result().map(|o| o.score_for(view)) {
        Some(1) => [1.0, 0.0, 0.0],
        Some(-1) => [0.0, 0.0, 1.0],
        _ => [0.0, 1.0, 0.0],
    }
}

/// A result seen from `from` (win/draw/loss, margin), as `view` sees it.
fn seen_from((wdl, margin, from): ([f32; 3], f32, Color), view: Color) -> ([f32; 3], f32) {
    if view == from {
        (wdl, margin)
    } else {
        (flip(wdl), -margin)
    }
}

/// The exact final margin of a finished game for `view` (0 in a game
/// without margins).
pub fn terminal_margin<S: State>(pos: &S, view: Color) -> f32 {
    pos.margin(view).unwrap_or(0.0)
}

/// How a tree turns win/draw/loss and margin into the one value the search
/// maximises; set from [`SearchConfig`](super::SearchConfig)'s fields of
/// the same names, documented there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scoring {
    /// What a draw is worth to the root's player, in [-1, 1], and minus that
    /// to the other (0: a draw is a draw).
    pub draw_score: f32,
    /// The share of a value kept per decision it is backed up through (1:
    /// none lost).
    pub discount: f32,
    /// Weight of the expected final margin beside win minus loss (0: none).
    pub score_weight: f32,
    /// Where the margin starts to weigh (0: everywhere, at the full
    /// weight): above 0, the margin of a node whose result value `r` (win
    /// minus loss, with draws at the draw score) is at most this in size
    /// weighs nothing, and its weight rises linearly with `|r|` to the full
    /// [`score_weight`](Scoring::score_weight) at `|r| = 1`. Leela Chess
    /// Zero's moves-left utility is gated the same way: how soon or how
    /// late is worth chasing once the result is settled, not while a
    /// sooner result could cost a surer one. A finished game's `|r|` is 1
    /// (or 0 for a draw without a draw score, whose margin is 0), so
    /// proved values are those of the plain weight.
    pub score_threshold: f32,
    /// Keep bounds on exact values and search by them (see the module
    /// docs). A discounted search keeps none, since its values depend on
    /// the distance from each node to the leaf, which the bounds do not;
    /// nor does one with a draw score, whose draws change sign when tree
    /// reuse hands the root to the other player, which kept bounds would not.
    pub solver: bool,
}

impl Scoring {
    /// Whether the tree keeps and uses bounds on exact values.
    #[inline]
    pub fn proves(&self) -> bool {
        self.solver && self.discount == 1.0 && self.draw_score == 0.0
    }
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            draw_score: 0.0,
            discount: 1.0,
            score_weight: 0.0,
            score_threshold: 0.0,
            solver: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tree<S: State> {
    pub nodes: Vec<Node<S>>,
    pub edges: Vec<Edge<S::Action>>,
    pub scoring: Scoring,
    /// Each node's [`Bounds`], index for index, where the scoring
    /// [`proves`](Scoring::proves); empty otherwise.
    pub bounds: Vec<Bounds>,
}

impl<S: State> Default for Tree<S> {
    fn default() -> Self {
        Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            scoring: Scoring::default(),
            bounds: Vec::new(),
        }
    }
}

impl<S: State> Tree<S> {
    /// A tree holding only `pos` at index 0, valuing positions by
    /// `scoring` (its draw score is for `pos`'s player to act).
    pub fn with_root(pos: S, scoring: Scoring) -> Tree<S> {
        let mut t = Tree {
            scoring,
            ..Tree::default()
        };
        // A finished root has no parent whose view it could take; its own
        // stale `to_act` is as good as any, since it is never searched.
        let view = pos.to_act();
        t.add_node(pos, view);
        t
    }

    /// Adds a node for `pos`, reached by a decision of `parent_view`.
    ///
    /// A finished game becomes a terminal node; a decision with a single
    /// legal option gets its one edge right away, so the search walks through
    /// it without asking the evaluator (most row and ring removals).
    pub fn add_node(&mut self, pos: S, parent_view: Color) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let view = pos.to_act();
        let mut node = Node {
            pos,
            view,
            state: NodeState::Fresh,
            visits: 0,
            wdl_sum: [0.0; 3],
            margin_sum: 0.0,
            raw_wdl: None,
            raw_margin: 0.0,
            first_edge: 0,
            n_edges: 0,
            in_flight: 0,
        };
        let mut bounds = Bounds::UNKNOWN;
        if node.pos.is_over() {
            node.view = parent_view;
            node.state = NodeState::Terminal;
            let (wdl, margin) = (
                terminal_wdl(&node.pos, parent_view),
                terminal_margin(&node.pos, parent_view),
            );
            node.raw_wdl = Some(wdl);
            node.raw_margin = margin;
            if self.scoring.proves() {
                // Its result is `raw_wdl` and `raw_margin` (see
                // `settled_result`): the bounds need only its value.
                let u = self.utility(wdl, margin, parent_view);
                (bounds.lower, bounds.upper) = (u, u);
            }
        } else if node.pos.legal_action_count() == 1 {
            let only = node.pos.legal_actions()[0];
            node.first_edge = self.edges.len() as u32;
            node.n_edges = 1;
            node.state = NodeState::Expanded;
            self.edges.push(Edge::new(only, 1.0));
        }
        self.nodes.push(node);
        if self.scoring.proves() {
            self.bounds.push(bounds);
        }
        id
    }

    /// Gives a fresh node its edges, one per legal action with its prior,
    /// and the evaluator's win/draw/loss and margin.
    pub fn expand(
        &mut self,
        id: NodeId,
        actions: &[S::Action],
        priors: &[f32],
        wdl: [f32; 3],
        margin: f32,
    ) {
        let first = self.edges.len() as u32;
        self.edges
            .extend(actions.iter().zip(priors).map(|(&a, &p)| Edge::new(a, p)));
        let node = &mut self.nodes[id as usize];
        node.first_edge = first;
        node.n_edges = actions.len() as u32;
        node.state = NodeState::Expanded;
        node.raw_wdl = Some(wdl);
        node.raw_margin = margin;
    }

    #[inline]
    pub fn node(&self, id: NodeId) -> &Node<S> {
        &self.nodes[id as usize]
    }

    #[inline]
    pub fn edge_range(&self, id: NodeId) -> std::ops::Range<usize> {
        let n = self.node(id);
        n.first_edge as usize..(n.first_edge + n.n_edges) as usize
    }

    #[inline]
    pub fn edges_of(&self, id: NodeId) -> &[Edge<S::Action>] {
        &self.edges[self.edge_range(id)]
    }

    /// The child through edge `e` of `parent`, created on first use.
    pub fn child(&mut self, parent: NodeId, e: usize) -> NodeId {
        if let Some(c) = self.edges[e].child {
            return c;
        }
        let p = self.node(parent);
        let (mut pos, view) = (p.pos.clone(), p.view);
        pos.play_unchecked(self.edges[e].action);
        let c = self.add_node(pos, view);
        self.edges[e].child = Some(c);
        c
    }

    /// The value to `view` of a win/draw/loss and a margin seen from
    /// `view`: win minus loss, plus the draws at [`Scoring::draw_score`]
    /// where `view` is the root's player and at minus that where not, so
    /// that the search stays zero-sum, plus the margin at
    /// [`Scoring::score_weight`] (gated by [`Scoring::score_threshold`]).
    #[inline]
    pub fn utility(&self, wdl: [f32; 3], margin: f32, view: Color) -> f32 {
        let outcome = self.outcome_utility(wdl, view);
        outcome + self.margin_weight(outcome) * margin
    }

    /// The weight of the margin beside a result worth `outcome` (see
    /// [`Scoring::score_threshold`]).
    #[inline]
    pub fn margin_weight(&self, outcome: f32) -> f32 {
        let Scoring {
            score_weight: w,
            score_threshold: t,
            ..
        } = self.scoring;
        if t == 0.0 {
            return w;
        }
        w * ((outcome.abs() - t) / (1.0 - t)).clamp(0.0, 1.0)
    }

    /// [`utility`](Tree::utility) without the margin: the value of the
    /// result alone.
    #[inline]
    pub fn outcome_utility(&self, wdl: [f32; 3], view: Color) -> f32 {
        let draw_score = self.scoring.draw_score;
        if draw_score == 0.0 {
            return wdl[0] - wdl[2];
        }
        let draw = if view == self.nodes[0].view {
            draw_score
        } else {
            -draw_score
        };
        wdl[0] - wdl[2] + draw * wdl[1]
    }

    /// A node's mean [`utility`](Tree::utility) to `view`; `None` if never
    /// visited.
    #[inline]
    pub fn q(&self, id: NodeId, view: Color) -> Option<f32> {
        let n = self.node(id);
        if n.visits == 0 {
            return None;
        }
        // Selection calls this for every edge, so the flip is done in place.
        let [w, d, l] = n.wdl_sum;
        let (sum, margin) = if n.view == view {
            ([w, d, l], n.margin_sum)
        } else {
            ([l, d, w], -n.margin_sum)
        };
        let visits = n.visits as f32;
        if self.scoring.score_threshold == 0.0 {
            // Linear in the sums: one division.
            return Some(self.utility(sum, margin, view) / visits);
        }
        // The gate weighs the mean result, not the sum.
        let outcome = self.outcome_utility(sum, view) / visits;
        Some(outcome + self.margin_weight(outcome) * margin / visits)
    }

    /// A node's [`utility`](Tree::utility) to its own view before any
    /// search below it: the evaluator's, else its mean so far.
    pub fn raw_q(&self, id: NodeId) -> Option<f32> {
        let n = self.node(id);
        match n.raw_wdl {
            Some(wdl) => Some(self.utility(wdl, n.raw_margin, n.view)),
            None => Some(self.utility(n.wdl()?, n.margin()?, n.view)),
        }
    }

    /// Visits, and mean [`utility`](Tree::utility) to `view`, of the child
    /// through edge `e`; `None` for the value if it was never visited.
    #[inline]
    pub fn edge_stats(&self, e: usize, view: Color) -> (u32, Option<f32>) {
        match self.edges[e].child {
            None => (0, None),
            Some(c) => (self.node(c).visits, self.q(c, view)),
        }
    }

    /// [`edge_stats`](Tree::edge_stats) as a descent gathering a batch sees
    /// them: each descent in flight through the child counts as a visit
    /// worth a loss (-1) to `view`, the player choosing the edge. Without
    /// any in flight, exactly [`edge_stats`](Tree::edge_stats).
    #[inline]
    pub fn started_stats(&self, e: usize, view: Color) -> (u32, Option<f32>) {
        let Some(c) = self.edges[e].child else {
            return (0, None);
        };
        let n = self.node(c);
        if n.in_flight == 0 {
            return (n.visits, self.q(c, view));
        }
        let started = n.visits + n.in_flight;
        let sum = self.q(c, view).map_or(0.0, |q| q * n.visits as f32);
        (started, Some((sum - n.in_flight as f32) / started as f32))
    }

    /// Visits of edge `e`'s child with the descents in flight through it.
    #[inline]
    pub fn started_visits(&self, e: usize) -> u32 {
        self.edges[e]
            .child
            .map_or(0, |c| self.node(c).visits + self.node(c).in_flight)
    }

    /// Marks a descent along `path` as in flight (see [`Node::in_flight`]).
    pub fn add_virtual_loss(&mut self, path: &[NodeId]) {
        for &id in path {
            self.nodes[id as usize].in_flight += 1;
        }
    }

    /// Takes back what [`add_virtual_loss`](Tree::add_virtual_loss) added
    /// for `path`. Only a counter changes, so the statistics come back
    /// exactly as they were.
    pub fn remove_virtual_loss(&mut self, path: &[NodeId]) {
        for &id in path {
            let n = &mut self.nodes[id as usize];
            debug_assert!(n.in_flight > 0, "virtual loss removed twice");
            n.in_flight -= 1;
        }
    }

    /// The mean win/draw/loss of edge `e`'s child, seen from `view`; `None`
    /// while the child is unvisited.
    pub fn edge_wdl(&self, e: usize, view: Color) -> Option<[f32; 3]> {
        let n = self.node(self.edges[e].child?);
        n.wdl().map(|w| if n.view == view { w } else { flip(w) })
    }

    /// What edge `e`'s child is worth to `view` as a training target: its
    /// exact win/draw/loss and margin where it is a finished game or solved
    /// (not the mean of the visits spent proving it), else its means;
    /// `None` while the child is unvisited.
    pub fn edge_value(&self, e: usize, view: Color) -> Option<([f32; 3], f32)> {
        let c = self.edges[e].child?;
        let n = self.node(c);
        let (wdl, margin) = match self.settled_result(c) {
            Some(exact) => exact,
            None => (n.wdl()?, n.margin()?),
        };
        Some(if n.view == view {
            (wdl, margin)
        } else {
            (flip(wdl), -margin)
        })
    }

    /// Bounds on the exact value of edge `e`'s child to `view`: unknown
    /// (`-inf`, `+inf`) while the edge is untaken or the tree keeps no
    /// bounds.
    #[inline]
    pub fn edge_bounds(&self, e: usize, view: Color) -> (f32, f32) {
        match self.edges[e].child {
            Some(c) if self.scoring.proves() => {
                let b = &self.bounds[c as usize];
                if self.node(c).view == view {
                    (b.lower, b.upper)
                } else {
                    (-b.upper, -b.lower)
                }
            }
            _ => (f32::NEG_INFINITY, f32::INFINITY),
        }
    }

    /// A node's [`Bounds`] ([`Bounds::UNKNOWN`] where the tree keeps none).
    #[inline]
    pub fn bounds_of(&self, id: NodeId) -> Bounds {
        self.bounds
            .get(id as usize)
            .copied()
            .unwrap_or(Bounds::UNKNOWN)
    }

    /// Whether the search treats the node as a finished game: it is one, or
    /// it is solved.
    #[inline]
    pub fn is_settled(&self, id: NodeId) -> bool {
        self.node(id).state == NodeState::Terminal
            || self.bounds.get(id as usize).is_some_and(Bounds::is_solved)
    }

    /// A finished or solved node's exact win/draw/loss and margin from its
    /// view; `None` for any other.
    pub fn settled_result(&self, id: NodeId) -> Option<([f32; 3], f32)> {
        let n = self.node(id);
        if n.state == NodeState::Terminal {
            return Some((n.raw_wdl?, n.raw_margin));
        }
        self.bounds.get(id as usize)?.exact
    }

    /// Whether edge `e` of a node whose view is `view` and lower bound
    /// `lower` is provably worse than one of its siblings: its child's
    /// upper bound is below the best value a sibling guarantees.
    #[inline]
    pub fn is_refuted(&self, e: usize, view: Color, lower: f32) -> bool {
        lower > f32::NEG_INFINITY && self.edge_bounds(e, view).1 < lower
    }

    /// Edge `e`'s mean `q` to `view` held within its child's proved bounds
    /// (a solved child's exact value): the search stops visiting a child
    /// once it is solved, so the mean keeps what the visits before the proof
    /// said. Where the tree keeps no bounds, `q` itself.
    #[inline]
    pub fn within_bounds(&self, e: usize, view: Color, q: f32) -> f32 {
        let (lower, upper) = self.edge_bounds(e, view);
        q.clamp(lower, upper)
    }

    /// The exact value to `view` of edge `e`'s child, if it is solved.
    #[inline]
    pub fn edge_exact(&self, e: usize, view: Color) -> Option<f32> {
        let (lower, upper) = self.edge_bounds(e, view);
        (lower == upper).then_some(lower)
    }

    /// After a descent along `path` ended in a finished game or a solved
    /// node: tightens the bounds of the nodes above it from their children,
    /// from the leaf's parent up, as far as anything changes. A node whose
    /// bounds meet becomes solved and takes the exact result of the child
    /// that proves it.
    pub fn update_bounds(&mut self, path: &[NodeId]) {
        if !self.scoring.proves() {
            return;
        }
        for &id in path.iter().rev().skip(1) {
            let view = self.node(id).view;
            let (mut lower, mut upper) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
            let mut best = None;
            for e in self.edge_range(id) {
                let (lo, hi) = self.edge_bounds(e, view);
                if lo > lower || best.is_none() {
                    (lower, best) = (lower.max(lo), Some(e));
                }
                upper = upper.max(hi);
            }
            let old = self.bounds[id as usize];
            if (lower, upper) == (old.lower, old.upper) {
                return;
            }
            let exact = match best {
                Some(e) if lower >= upper => {
                    let c = self.edges[e].child.expect("a bounded edge has a child");
                    let (wdl, margin) = self
                        .settled_result(c)
                        .expect("the child proving a node is solved");
                    Some(if self.node(c).view == view {
                        (wdl, margin)
                    } else {
                        (flip(wdl), -margin)
                    })
                }
                _ => None,
            };
            self.bounds[id as usize] = Bounds {
                lower,
                upper,
                exact,
            };
        }
    }

    /// Adds one visit of value `wdl` and margin `margin` (both from
    /// `leaf_view`) to every node on `path`, the win/draw/loss discounted by
    /// [`Scoring::discount`] per decision between the node and the leaf (as
    /// [`State::ply`] counts them). The margin is not discounted: where a
    /// game has one that tells a sooner result from a later one, it says so
    /// itself.
    ///
    /// Where the tree keeps bounds, the value carried up is raised, from the
    /// leaf up, at a node whose proved lower bound it falls below, to the
    /// exact result of the settled child that proves the bound: a node
    /// holding a proved win goes on visiting its player's other moves (a
    /// solved child is searched no further), and without the floor those
    /// visits would make the node and everything above it look as if the
    /// win were not there.
    pub fn backup(&mut self, path: &[NodeId], wdl: [f32; 3], margin: f32, leaf_view: Color) {
        if self.scoring.proves() {
            return self.backup_floored(path, (wdl, margin, leaf_view));
        }
        let flipped = flip(wdl);
        let discount = self.scoring.discount;
        // Only a discounting search needs the plies; the default pays nothing.
        let leaf_ply = match path.last() {
            Some(&l) if discount != 1.0 => self.node(l).pos.ply(),
            _ => 0,
        };
        for &id in path {
            let n = &mut self.nodes[id as usize];
            let same = n.view == leaf_view;
            let mut w = if same { wdl } else { flipped };
            if discount != 1.0 {
                // As the value targets were discounted in training: the
                // win and loss shares shrink, the rest counts as a draw.
                let f = discount.powi(leaf_ply.saturating_sub(n.pos.ply()) as i32);
                w = [w[0] * f, 1.0 - (w[0] + w[2]) * f, w[2] * f];
            }
            n.add_visit(w, if same { margin } else { -margin });
        }
    }

    /// [`backup`](Tree::backup) in a proving tree (never discounted: see
    /// [`Scoring::proves`]), from the leaf up, `sample` the result carried
    /// and the view it is seen from.
    fn backup_floored(&mut self, path: &[NodeId], mut sample: ([f32; 3], f32, Color)) {
        for &id in path.iter().rev() {
            if let Some(floor) = self.floor(id, sample) {
                sample = floor;
            }
            let n = &mut self.nodes[id as usize];
            let (w, m) = seen_from(sample, n.view);
            n.add_visit(w, m);
        }
    }

    /// The exact result of the settled child that proves node `id`'s lower
    /// bound, with the view it is seen from, where `sample` falls below
    /// that bound; `None` where it does not, or where the bound comes from
    /// a child only bounded itself.
    fn floor(&self, id: NodeId, sample: ([f32; 3], f32, Color)) -> Option<([f32; 3], f32, Color)> {
        let lower = self.bounds[id as usize].lower;
        if lower == f32::NEG_INFINITY {
            return None;
        }
        let view = self.node(id).view;
        let (w, m) = seen_from(sample, view);
        if self.utility(w, m, view) >= lower {
            return None;
        }
        self.edge_range(id).find_map(|e| {
            let c = self.edges[e].child?;
            if self.edge_exact(e, view)? != lower {
                return None;
            }
            let (wdl, margin) = self.settled_result(c)?;
            Some((wdl, margin, self.node(c).view))
        })
    }

    /// The subtree under `id` alone, with `id` as the new root (index 0).
    pub fn subtree(&self, id: NodeId) -> Tree<S> {
        let mut out = Tree {
            scoring: self.scoring,
            ..Tree::default()
        };
        let mut map = vec![NodeId::MAX; self.nodes.len()];
        // Breadth-first: copy each node, then its edges, pointing the edges at
        // the new indices their children will get.
        let mut queue = std::collections::VecDeque::from([id]);
        map[id as usize] = 0;
        out.nodes.push(self.node(id).clone());
        while let Some(old) = queue.pop_front() {
            let new = map[old as usize];
            let first = out.edges.len() as u32;
            for e in self.edges_of(old) {
                let mut e = *e;
                if let Some(c) = e.child {
                    let nc = out.nodes.len() as NodeId;
                    map[c as usize] = nc;
                    out.nodes.push(self.node(c).clone());
                    queue.push_back(c);
                    e.child = Some(nc);
                }
                out.edges.push(e);
            }
            out.nodes[new as usize].first_edge = first;
        }
        if self.scoring.proves() {
            out.bounds = vec![Bounds::UNKNOWN; out.nodes.len()];
            for (old, &new) in map.iter().enumerate() {
                if new != NodeId::MAX {
                    out.bounds[new as usize] = self.bounds[old];
                }
            }
        }
        out
    }
}
