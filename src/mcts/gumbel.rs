//! Gumbel root search (Danihelka et al. 2022, "Policy improvement by planning
//! with Gumbel"), following DeepMind's reference implementation `mctx`:
//! Gumbel-top-k sampling of `m` root actions, sequential halving over the
//! simulation budget, the completed-Q transform, and the deterministic
//! improved-policy selection below the root.

use rand::Rng;

use super::config::SearchConfig;
use super::noise;
use super::tree::{NodeId, Tree};
use crate::game::State;

/// `sigma(completed Q)` for every edge of `node`, in edge order.
///
/// Visited children give their Q from the node's view; unvisited ones the
/// mixed value `v_mix` (the node's raw value blended with the prior-weighted
/// Q of the visited children). The completed Qs are rescaled to [0, 1] by
/// their min and max, then scaled by `(c_visit + max visits) * c_scale`.
///
/// Where the tree keeps bounds on exact values, a child's Q is held within
/// its bounds, a solved child's at its exact value: otherwise the improved
/// policy, self-play's policy target, would weigh a proved column by the
/// visits before its proof (a proved win can stand at 0.3) and teach
/// against the proof.
pub fn sigma_completed_q<S: State>(tree: &Tree<S>, node: NodeId, cfg: &SearchConfig) -> Vec<f32> {
    let range = tree.edge_range(node);
    let n = tree.node(node);
    let view = n.view;
    let mut stats: Vec<(u32, Option<f32>)> =
        range.clone().map(|i| tree.edge_stats(i, view)).collect();
    if tree.scoring.proves() {
        hold_within_bounds(tree, node, &mut stats);
    }

    let mut sum_visits = 0u32;
    let mut max_visits = 0u32;
    let mut visited_prior = 0.0f32;
    let mut weighted_q = 0.0f32;
    for (i, &(visits, q)) in range.clone().zip(&stats) {
        sum_visits += visits;
        max_visits = max_visits.max(visits);
        if let Some(q) = q {
            let p = tree.edges[i].prior.max(f32::MIN_POSITIVE);
            visited_prior += p;
            weighted_q += p * q;
        }
    }
    let raw = tree.raw_q(node).unwrap_or(0.0);
    let v_mix = if visited_prior > 0.0 {
        (raw + sum_visits as f32 * weighted_q / visited_prior) / (sum_visits as f32 + 1.0)
    } else {
        raw
    };
    let completed: Vec<f32> = stats.iter().map(|&(_, q)| q.unwrap_or(v_mix)).collect();
    let lo = completed.iter().cloned().fold(f32::INFINITY, f32::min);
    let hi = completed.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let span = (hi - lo).max(1e-8);
    let scale = (cfg.c_visit + max_visits as f32) * cfg.c_scale;
    completed.iter().map(|q| scale * (q - lo) / span).collect()
}

/// [`sigma_completed_q`]'s Qs where the tree keeps bounds: each visited
/// child's mean held within its bounds ([`Tree::within_bounds`]).
#[cold]
#[inline(never)]
fn hold_within_bounds<S: State>(tree: &Tree<S>, node: NodeId, stats: &mut [(u32, Option<f32>)]) {
    let view = tree.node(node).view;
    for (e, (_, q)) in tree.edge_range(node).zip(stats.iter_mut()) {
        if let Some(q) = q {
            *q = tree.within_bounds(e, view, *q);
        }
    }
}

/// The improved policy `softmax(logits + sigma(completed Q))` over the edges
/// of `node`.
pub fn improved_policy<S: State>(tree: &Tree<S>, node: NodeId, cfg: &SearchConfig) -> Vec<f32> {
    let sigma = sigma_completed_q(tree, node, cfg);
    let z: Vec<f32> = tree
        .edges_of(node)
        .iter()
        .zip(&sigma)
        .map(|(e, s)| e.logit + s)
        .collect();
    softmax(&z)
}

/// Selection below the root: the edge maximising
/// `pi'(a) - N(a) / (1 + sum_b N(b))`, which makes the visit counts track
/// the improved policy `pi'` deterministically. `N` counts the descents in
/// flight (a batch being gathered), which would otherwise all take the
/// same edge. Where the tree keeps bounds on exact values, a child provably
/// worse than a sibling is passed over and a solved one is chosen only when
/// no other is left (see [`puct::select`](super::puct::select)).
pub fn select<S: State>(tree: &Tree<S>, node: NodeId, cfg: &SearchConfig) -> usize {
    let range = tree.edge_range(node);
    if range.len() == 1 {
        return range.start;
    }
    let pi = improved_policy(tree, node, cfg);
    let visits: Vec<u32> = range.clone().map(|i| tree.started_visits(i)).collect();
    let total = 1.0 + visits.iter().sum::<u32>() as f32;
    if tree.scoring.proves() {
        return range.start + best_by_bounds(tree, node, &pi, &visits, total);
    }
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (k, (&p, &v)) in pi.iter().zip(&visits).enumerate() {
        let score = p - v as f32 / total;
        if score > best_score {
            best_score = score;
            best = k;
        }
    }
    range.start + best
}

/// [`select`]'s choice where the tree keeps bounds on exact values, as an
/// index among `node`'s edges: as PUCT's, the best open edge, a solved one
/// only when none is open.
#[cold]
#[inline(never)]
fn best_by_bounds<S: State>(
    tree: &Tree<S>,
    node: NodeId,
    pi: &[f32],
    visits: &[u32],
    total: f32,
) -> usize {
    let (view, lower_bound) = (tree.node(node).view, tree.bounds_of(node).lower);
    let start = tree.edge_range(node).start;
    let mut best = [(0, f32::NEG_INFINITY); 2];
    for (k, (&p, &v)) in pi.iter().zip(visits).enumerate() {
        let e = start + k;
        if tree.is_refuted(e, view, lower_bound) {
            continue;
        }
        let solved = tree.edge_exact(e, view).is_some();
        let score = p - v as f32 / total;
        let b = &mut best[usize::from(solved)];
        if score > b.1 {
            *b = (k, score);
        }
    }
    if best[0].1 > f32::NEG_INFINITY {
        best[0].0
    } else {
        best[1].0
    }
}

pub fn softmax(z: &[f32]) -> Vec<f32> {
    let max = z.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = z.iter().map(|x| (x - max).exp()).collect();
    let s: f32 = e.iter().sum();
    e.into_iter().map(|x| x / s).collect()
}

/// The root's side of a Gumbel search for one move: the sampled actions and
/// where sequential halving stands.
#[derive(Clone, Debug)]
pub struct GumbelRoot {
    /// Gumbel noise per root edge (all 0 without noise).
    pub g: Vec<f32>,
    /// Root edges (offsets from the root's first edge) still in the running.
    pub candidates: Vec<usize>,
    /// New visits each candidate gets in the current phase.
    per_phase: u32,
    /// New visits given to each candidate in the current phase.
    given: Vec<u32>,
    /// `ceil(log2(m))`, at least 1: the number of halvings planned.
    log2m: u32,
    budget: u32,
}

impl GumbelRoot {
    /// Samples `min(gumbel_m, legal actions, budget)` distinct actions by
    /// Gumbel-top-k over the root's logits, the Gumbel noise multiplied by
    /// `noise_scale` (mctx's `gumbel_scale`): 1 samples as the policy
    /// would, 0 takes the top logits and makes the whole search
    /// deterministic.
    pub fn new<S: State>(
        tree: &Tree<S>,
        root: NodeId,
        cfg: &SearchConfig,
        budget: u32,
        noise_scale: f32,
        rng: &mut impl Rng,
    ) -> GumbelRoot {
        let edges = tree.edges_of(root);
        let n = edges.len();
        let g = if noise_scale > 0.0 {
            let mut g = noise::gumbel(rng, n);
            g.iter_mut().for_each(|x| *x *= noise_scale);
            g
        } else {
            vec![0.0; n]
        };
        let m = (cfg.gumbel_m as usize)
            .min(n)
            .min(budget.max(1) as usize)
            .max(1);
        let mut order: Vec<usize> = (0..n).collect();
        // Stable sort: without noise, equal priors keep the legal-action order.
        order.sort_by(|&a, &b| (g[b] + edges[b].logit).total_cmp(&(g[a] + edges[a].logit)));
        order.truncate(m);
        let log2m = (m as f32).log2().ceil().max(1.0) as u32;
        let mut root = GumbelRoot {
            g,
            given: vec![0; order.len()],
            candidates: order,
            per_phase: 0,
            log2m,
            budget,
        };
        root.per_phase = root.phase_visits();
        root
    }

    fn phase_visits(&self) -> u32 {
        (self.budget / (self.log2m * self.candidates.len() as u32)).max(1)
    }

    /// The score that ranks root actions: `g + logit + sigma(completed Q)`.
    pub fn scores<S: State>(&self, tree: &Tree<S>, root: NodeId, cfg: &SearchConfig) -> Vec<f32> {
        let sigma = sigma_completed_q(tree, root, cfg);
        tree.edges_of(root)
            .iter()
            .zip(&sigma)
            .zip(&self.g)
            .map(|((e, s), g)| g + e.logit + s)
            .collect()
    }

    /// The root edge (offset) the next simulation goes through. Within a
    /// phase candidates take turns; when every candidate has had its share
    /// of the phase, the better half (at least two) goes on.
    pub fn next<S: State>(&mut self, tree: &Tree<S>, root: NodeId, cfg: &SearchConfig) -> usize {
        if self.given.iter().all(|&v| v >= self.per_phase) {
            if self.candidates.len() > 2 {
                let s = self.scores(tree, root, cfg);
                self.candidates.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
                self.candidates.truncate((self.candidates.len() / 2).max(2));
            }
            self.given = vec![0; self.candidates.len()];
            self.per_phase = self.phase_visits();
        }
        let k = (0..self.given.len())
            .min_by_key(|&k| self.given[k])
            .expect("at least one candidate");
        self.given[k] += 1;
        self.candidates[k]
    }

    /// The action to play: the best remaining candidate by
    /// `g + logit + sigma(completed Q)`.
    pub fn best<S: State>(&self, tree: &Tree<S>, root: NodeId, cfg: &SearchConfig) -> usize {
        let s = self.scores(tree, root, cfg);
        let mut best = self.candidates[0];
        for &c in &self.candidates {
            if s[c] > s[best] {
                best = c;
            }
        }
        best
    }
}
