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
