//! Between a game's positions and a network's tensors, for any [`Game`]:
//! batches of input planes, and the policy logits of the dense action index
//! turned into priors over the legal actions.

use crate::game::{ActionOf, Game, State};

/// Encodes a batch: state `i` goes to `out[i * input_size..]`.
///
/// # Panics
/// If `out` is shorter than `states.len() * input_size`.
pub fn encode_batch<G: Game>(game: &G, states: &[G::State], out: &mut [f32]) {
    let size = game.net_shape().input_size();
    assert!(
        out.len() >= states.len() * size,
        "encode_batch: room for {} floats, {} positions need {}",
        out.len(),
        states.len(),
        states.len() * size
    );
    for (s, chunk) in states.iter().zip(out.chunks_exact_mut(size)) {
        game.encode(s, chunk);
    }
}

/// The dense indices of the legal actions of `state`, in
/// [`State::legal_actions`] order.
pub fn legal_indices<G: Game>(game: &G, state: &G::State) -> Vec<usize> {
    state
        .legal_actions()
        .iter()
        .map(|&a| game.action_index(a))
        .collect()
}

/// `true` at the dense index of every legal action of `state`; as long as
/// the action space.
pub fn legal_mask<G: Game>(game: &G, state: &G::State) -> Vec<bool> {
    let mut mask = vec![false; game.net_shape().action_space()];
    for &a in state.legal_actions().iter() {
        mask[game.action_index(a)] = true;
    }
    mask
}

/// Softmax of the dense policy `logits` restricted to `actions`: entry `i`
/// is the probability of `actions[i]`. Illegal actions take no mass, however
/// large their logits. An empty `actions` gives an empty vector.
///
/// ```
/// use yinsh_zero::encode::masked_softmax;
/// use yinsh_zero::game::{Game, State};
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let game = Yinsh::standard();
/// let space = game.net_shape().action_space();
/// let mut logits = vec![0.0f32; space];
/// logits[space - 1] = 100.0; // pass is illegal here
/// let priors = masked_softmax(&game, &logits, &game.start().legal_actions());
/// assert_eq!(priors.len(), 85);
/// assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// ```
///
/// # Panics
/// If an action's index is beyond `logits`.
pub fn masked_softmax<G: Game>(game: &G, logits: &[f32], actions: &[ActionOf<G>]) -> Vec<f32> {
    let mut out: Vec<f32> = actions
        .iter()
        .map(|&a| logits[game.action_index(a)])
        .collect();
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in &mut out {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in &mut out {
        *x /= sum;
    }
    out
}
