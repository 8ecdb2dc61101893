//! PUCT child selection (AlphaZero), with Leela's first-play urgency.

use super::config::SearchConfig;
use super::tree::{NodeId, Tree};
use crate::game::State;

/// The exploration constant at a node with `visits` visits.
#[inline]
pub fn c_puct(cfg: &SearchConfig, visits: u32) -> f32 {
    cfg.c_puct
        + cfg.c_puct_growth * ((1.0 + visits as f32 + cfg.c_puct_base) / cfg.c_puct_base).ln()
}

/// The edge of `node` maximising `Q + c * P * sqrt(N) / (1 + n)`.
///
/// `priors`, when given, replaces the edges' own priors (the noised priors
/// at the root). `N` is the node's own visit count, which counts its first
/// evaluation, so that before any child is visited the priors still order the
/// children. Unvisited children are valued at the node's value minus
/// `fpu_reduction * sqrt(prior mass of visited children)`. Ties go to the
/// first edge, in the order of the legal actions.
///
/// Descents in flight (a batch being gathered, see
/// [`Tree::started_stats`]) count as visits that lost, so that successive
/// descents of one batch spread out; with none in flight this is the plain
/// PUCT choice.
///
/// Where the tree keeps bounds on exact values, a child provably worse than
/// a sibling is passed over, a child's mean is held within its bounds, and
/// a solved child is chosen only when every other is solved or refuted: a
/// descent into it backs up what is already known, and the node's own bounds
/// carry its value up to the parent (at the root, the move choice weighs it:
/// see `Search::result`).
pub fn select<S: State>(
    tree: &Tree<S>,
    node: NodeId,
    cfg: &SearchConfig,
    priors: Option<&[f32]>,
    fpu_reduction: f32,
) -> usize {
    let range = tree.edge_range(node);
    if range.len() == 1 {
        return range.start;
    }
    let n = tree.node(node);
    let view = n.view;
    let parent_q = tree.q(node, view).unwrap_or(0.0);
    let start = range.start;
    let prior_of = |i: usize| match priors {
        Some(p) => p[i - start],
        None => tree.edges[i].prior,
    };
    let visited_mass: f32 = range
        .clone()
        .filter(|&i| tree.started_visits(i) > 0)
        .map(prior_of)
        .sum();
    let fpu = parent_q - fpu_reduction * visited_mass.sqrt();
    let started = n.visits + n.in_flight;
    let scale = c_puct(cfg, started) * (started.max(1) as f32).sqrt();
    let score = |i: usize, visits: u32, q: Option<f32>| {
        q.unwrap_or(fpu) + scale * prior_of(i) / (1.0 + visits as f32)
    };
    if tree.scoring.proves() {
        return select_by_bounds(tree, node, score);
    }
    let mut best = range.start;
    let mut best_score = f32::NEG_INFINITY;
    for i in range {
        let (visits, q) = tree.started_stats(i, view);
        let score = score(i, visits, q);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// [`select`] where the tree keeps bounds on exact values, `score` giving
/// an edge's PUCT score from its visits and mean: the best open edge, a
/// solved one only when none is open. Kept out of line (and cold) so that
/// the plain loop above stays as small as it was without proofs.
#[cold]
#[inline(never)]
fn select_by_bounds<S: State>(
    tree: &Tree<S>,
    node: NodeId,
    score: impl Fn(usize, u32, Option<f32>) -> f32,
) -> usize {
    let view = tree.node(node).view;
    let lower_bound = tree.bounds_of(node).lower;
    let range = tree.edge_range(node);
    let mut best = [(range.start, f32::NEG_INFINITY); 2];
    for i in range {
        if tree.is_refuted(i, view, lower_bound) {
            continue;
        }
        let (visits, q) = tree.started_stats(i, view);
        let (lower, upper) = tree.edge_bounds(i, view);
        // What is proved outranks the mean of the estimates: a solved
        // child is worth its exact value, and a bound caps the mean.
        let s = score(i, visits, q.map(|q| q.clamp(lower, upper)));
        let b = &mut best[usize::from(lower == upper)];
        if s > b.1 {
            *b = (i, s);
        }
    }
    if best[0].1 > f32::NEG_INFINITY {
        best[0].0
    } else {
        best[1].0
    }
}

/// The visits KataGo's forced playouts owe a root child with prior `prior`
/// when the root's children hold `total` visits: `sqrt(k * prior * total)`
/// (Wu 2019, section 3.1; KataGo uses k = 2).
#[inline]
pub fn forced_visits(k: f32, prior: f32, total: u32) -> f32 {
    (k * prior * total as f32).sqrt()
}

/// Forced playouts at the root: among the children that have had fewer
/// descents than [`forced_visits`] owes them, the one PUCT ranks highest;
/// `None` when every child has had its due (then PUCT chooses as usual).
///
/// The priors are the root's noised ones, so a move the Dirichlet noise
/// favours gets enough visits for its value to be measured rather than
/// guessed. Where the tree keeps bounds, a child proven worse than a sibling,
/// or already solved, is owed nothing: its value is known.
pub fn select_forced<S: State>(
    tree: &Tree<S>,
    node: NodeId,
    cfg: &SearchConfig,
    priors: &[f32],
    k: f32,
) -> Option<usize> {
    let range = tree.edge_range(node);
    if range.len() < 2 {
        return None;
    }
    let n = tree.node(node);
    let view = n.view;
    let start = range.start;
    let total: u32 = range.clone().map(|i| tree.started_visits(i)).sum();
    let started = n.visits + n.in_flight;
    let scale = c_puct(cfg, started) * (started.max(1) as f32).sqrt();
    let parent_q = tree.q(node, view).unwrap_or(0.0);
    let proves = tree.scoring.proves();
    let lower_bound = if proves {
        tree.bounds_of(node).lower
    } else {
        0.0
    };
    let mut best: Option<(usize, f32)> = None;
    for i in range {
        let (visits, q) = tree.started_stats(i, view);
        let prior = priors[i - start];
        if (visits as f32) >= forced_visits(k, prior, total) {
            continue;
        }
        if proves {
            let (lower, upper) = tree.edge_bounds(i, view);
            if lower == upper || tree.is_refuted(i, view, lower_bound) {
                continue;
            }
        }
        let score = q.unwrap_or(parent_q) + scale * prior / (1.0 + visits as f32);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i)
}

/// KataGo's policy target pruning: the root's visits with what forced
/// playouts added taken back out, as weights for the policy target.
///
/// The most visited child keeps its visits. Every other child gives back up
/// to its [`forced_visits`], but only as far as PUCT, computed with the
/// root's final visits, would still have preferred the most visited child:
/// visits that PUCT alone would have spent stay. A child left with one visit
/// or less is dropped outright (Wu 2019, section 3.1). `q[i]` is child `i`'s
/// mean for the player to act, `None` where it has no visits.
///
/// ```
/// use yinsh_zero::mcts::{puct::prune_forced, SearchConfig};
/// let cfg = SearchConfig::default();
/// let q = [Some(0.3), Some(-0.9), Some(0.1)];
/// let pruned = prune_forced(&[90, 6, 4], &[0.6, 0.2, 0.2], &q, &cfg, 2.0);
/// // The best keeps all its visits; a poor child visited only because it
/// // was forced is dropped; a close one keeps what PUCT alone gave it.
/// assert_eq!(pruned, vec![90.0, 0.0, 4.0]);
/// ```
pub fn prune_forced(
    visits: &[u32],
    priors: &[f32],
    q: &[Option<f32>],
    cfg: &SearchConfig,
    k: f32,
) -> Vec<f32> {
    let total: u32 = visits.iter().sum();
    let mut out: Vec<f32> = visits.iter().map(|&v| v as f32).collect();
    let Some(best) = (0..visits.len()).max_by_key(|&i| (visits[i], std::cmp::Reverse(i))) else {
        return out;
    };
    if total == 0 {
        return out;
    }
    let scale = c_puct(cfg, total) * (total as f32).sqrt();
    let best_puct = q[best].unwrap_or(0.0) + scale * priors[best] / (1.0 + visits[best] as f32);
    for i in 0..visits.len() {
        if i == best || visits[i] == 0 {
            continue;
        }
        let n = visits[i] as f32;
        let gap = best_puct - q[i].unwrap_or(0.0);
        // The fewest visits at which PUCT still ranks this child below the
        // best: 1 + n > scale * prior / gap. With no gap no visit was forced.
        let keep_for_puct = if gap > 0.0 {
            (scale * priors[i] / gap - 1.0).max(0.0)
        } else {
            n
        };
        let reduced = (n - forced_visits(k, priors[i], total))
            .max(keep_for_puct)
            .clamp(0.0, n);
        out[i] = if reduced < n && reduced <= 1.0 {
            0.0
        } else {
            reduced
        };
    }
    out
}
