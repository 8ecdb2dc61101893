//! The agent's view of a position: a short search's win/draw/loss estimate
//! and its policy over the legal decisions.

use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;

use crate::arena::RolloutEvaluator;
use crate::evaluator::Evaluator;
use crate::games::yinsh::{Color, Position, Yinsh};
use crate::mcts::{SearchConfig, search};

/// Builds the evaluator that judges positions for the agent's view of a
/// game, given the game's opponent spec (or `"human"`).
///
/// The default, [`spec_evaluators`], asks the opponent's network for
/// `net-*` specs and judges by random playouts otherwise.
pub type EvaluatorFactory = Arc<dyn Fn(&str) -> Box<dyn Evaluator<Position> + Send> + Send + Sync>;

/// A factory of [`RolloutEvaluator`]s, whatever the spec.
pub fn rollout_evaluators() -> EvaluatorFactory {
    Arc::new(|_spec: &str| {
        Box::new(RolloutEvaluator::new(rand::random())) as Box<dyn Evaluator<Position> + Send>
    })
}

/// The network of a `net-policy`/`net-mcts` spec's checkpoint, else
/// random playouts (also when the checkpoint cannot be loaded: the game
/// itself already refused such a spec, so this only guards the view).
pub fn spec_evaluators() -> EvaluatorFactory {
    Arc::new(|spec: &str| {
        let net = spec
            .parse::<crate::arena::PlayerSpec>()
            .ok()
            .filter(|s| s.name.starts_with("net-"))
            .and_then(|s| {
                let dir = std::path::PathBuf::from(s.get("checkpoint")?);
                let backend = s.get("backend").unwrap_or("flex").parse().ok()?;
                crate::checkpoint::load_evaluator(&Yinsh::standard(), &dir, backend).ok()
            });
        match net {
            Some(ev) => Box::new(ev) as Box<dyn Evaluator<Position> + Send>,
            None => Box::new(RolloutEvaluator::new(rand::random())),
        }
    })
}

/// What the agent thinks of a position.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The player the estimate is for (the one to act).
    pub to_act: Color,
    /// Win, draw and loss probabilities for `to_act`.
    pub wdl: [f32; 3],
    /// White's expected score, P(win) - P(loss), in [-1, 1].
    pub white_value: f32,
    /// Simulations the search made.
    pub simulations: u32,
    /// Every legal decision with its share of the search's policy, best first.
    pub moves: Vec<MoveShare>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MoveShare {
    /// Single-decision notation.
    pub decision: String,
    /// Share of the policy, summing to 1 over all moves.
    pub policy: f32,
    pub visits: u32,
}

/// Searches `pos` with `simulations` descents over `evaluator`.
///
/// Returns `None` when the game is over.
///
/// ```
/// use yinsh_zero::evaluator::UniformEvaluator;
/// use yinsh_zero::games::yinsh::web::analyze;
/// use yinsh_zero::games::yinsh::Position;
/// let a = analyze(&Position::new(), &mut UniformEvaluator, 20, 1).unwrap();
/// assert_eq!(a.moves.len(), 85);
/// assert!((a.moves.iter().map(|m| m.policy).sum::<f32>() - 1.0).abs() < 1e-3);
/// ```
pub fn analyze(
    pos: &Position,
    evaluator: &mut dyn Evaluator<Position>,
    simulations: u32,
    seed: u64,
) -> Option<Analysis> {
    if pos.is_over() {
        return None;
    }
    let cfg = SearchConfig {
        simulations: simulations.max(1),
        ..SearchConfig::for_play()
    };
    let mut rng = SmallRng::seed_from_u64(seed);
    let result = search(pos, &cfg, evaluator, &mut rng).ok()?;
    // A forced decision is not searched: ask the evaluator directly.
    let wdl = match result.root_wdl {
        Some(w) => w,
        None => evaluator.evaluate(&[*pos]).pop()?.wdl,
    };
    let to_act = pos.to_act();
    let value = wdl[0] - wdl[2];
    let mut moves: Vec<MoveShare> = result
        .actions
        .iter()
        .zip(&result.policy)
        .zip(&result.visits)
        .map(|((a, &p), &v)| MoveShare {
            decision: a.to_string(),
            policy: p,
            visits: v,
        })
        .collect();
    moves.sort_by(|a, b| b.policy.total_cmp(&a.policy));
    Some(Analysis {
        to_act,
        wdl,
        white_value: if to_act == Color::White {
            value
        } else {
            -value
        },
        simulations: result.simulations,
        moves,
    })
}
