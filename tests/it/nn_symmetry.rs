//! A network averaged over the board's symmetries ([`SymmetryAverage`])
//! gives transformed outputs for transformed positions, in every game that
//! has symmetries. A raw network is not symmetric (its weights are not
//! tied), so this checks what the averaging relies on: each game's encoding,
//! dense action index and symmetry tables agree with each other.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::evaluator::{Evaluation, Evaluator, SymmetryAverage};
use yinsh_zero::game::{Game, State};
use yinsh_zero::games::emergo::{Emergo, Variant as EmergoVariant};
use yinsh_zero::games::grid::Grid;
use yinsh_zero::games::morris::{Morris, Variant as MorrisVariant};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::nn::{InferenceOptions, ModelConfig, NetEvaluator, default_device};

fn small_net<G: Game>(game: &G) -> NetEvaluator<G> {
    let device = default_device();
    let model = ModelConfig::new()
        .with_blocks(1)
        .with_channels(8)
        .init(&game.net_shape(), &device);
    NetEvaluator::new(
        game.clone(),
        model,
        device,
        InferenceOptions {
            cache_capacity: 0,
            ..InferenceOptions::default()
        },
    )
    .unwrap()
}

/// The largest difference between `a` (for `pos`) and `b` (for `image`, its
/// image under symmetry `k`), priors compared action by action through the
/// game's own symmetry tables.
fn distance<G: Game>(
    game: &G,
    (pos, image): (&G::State, &G::State),
    k: usize,
    a: &Evaluation,
    b: &Evaluation,
) -> f32 {
    let image_legal = image.legal_actions();
    let mut worst = (0..3)
        .map(|i| (a.wdl[i] - b.wdl[i]).abs())
        .fold(0.0, f32::max);
    for (i, &action) in pos.legal_actions().iter().enumerate() {
        let target = game.transform_index(game.action_index(action), k);
        let j = image_legal
            .iter()
            .position(|&m| game.action_index(m) == target)
            .unwrap_or_else(|| panic!("symmetry {k} sends legal {action} to no legal action"));
        worst = worst.max((a.priors[i] - b.priors[j]).abs());
    }
    worst
}

/// Plays random games of `game` and compares, every few plies, the averaged
/// network's answer for a position and for its images; the raw network's
/// answers must differ somewhere, or the check would prove nothing.
fn check_equivariance<G: Game>(game: G, games: usize, every: u32) {
    let k = game.symmetries();
    assert!(k > 1, "{} has no symmetries to check", G::NAME);
    let mut raw = small_net(&game);
    let mut averaged = SymmetryAverage::new(game.clone(), small_net(&game));
    let mut rng = SmallRng::seed_from_u64(3);
    let (mut checked, mut raw_worst) = (0, 0.0f32);
    for _ in 0..games {
        let mut pos = game.start();
        while !pos.is_over() {
            if pos.ply() % every == 1 {
                let s = rng.random_range(1..k);
                let image = game.transform(&pos, s);
                let a = averaged.evaluate(std::slice::from_ref(&pos)).pop().unwrap();
                let b = averaged
                    .evaluate(std::slice::from_ref(&image))
                    .pop()
                    .unwrap();
                let d = distance(&game, (&pos, &image), s, &a, &b);
                assert!(
                    d < 1e-4,
                    "{}: symmetry {s} at ply {}: {d}",
                    G::NAME,
                    pos.ply()
                );
                assert!((a.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!((a.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                let a = raw.evaluate(std::slice::from_ref(&pos)).pop().unwrap();
                let b = raw.evaluate(std::slice::from_ref(&image)).pop().unwrap();
                raw_worst = raw_worst.max(distance(&game, (&pos, &image), s, &a, &b));
                checked += 1;
            }
            let l = pos.legal_actions();
            pos.play_unchecked(l[rng.random_range(0..l.len())]);
        }
    }
    assert!(checked > 10, "{}: only {checked} positions", G::NAME);
    assert!(
        raw_worst > 1e-3,
        "{}: the raw network is already symmetric",
        G::NAME
    );
}

#[test]
fn yinsh_averaged_network_outputs_transform_with_the_board() {
    check_equivariance(Yinsh::standard(), 2, 9);
}

#[test]
fn morris_averaged_network_outputs_transform_with_the_board() {
    check_equivariance(Morris::new(MorrisVariant::Six), 3, 5);
    check_equivariance(Morris::new(MorrisVariant::Nine), 2, 7);
}

#[test]
fn grid_averaged_network_outputs_transform_with_the_board() {
    check_equivariance(Grid::new(9), 3, 5);
}

#[test]
fn emergo_averaged_network_outputs_transform_with_the_board() {
    check_equivariance(Emergo::new(EmergoVariant::Standard), 2, 5);
}

/// Batches answer position by position as single calls do: the copies of
/// each position are kept apart.
#[test]
fn a_batch_is_averaged_position_by_position() {
    let game = Morris::new(MorrisVariant::Six);
    let mut ev = SymmetryAverage::new(game, small_net(&game));
    let mut rng = SmallRng::seed_from_u64(9);
    let mut positions = Vec::new();
    let mut pos = game.start();
    while !pos.is_over() && positions.len() < 12 {
        positions.push(pos.clone());
        let l = pos.legal_actions();
        pos.play_unchecked(l[rng.random_range(0..l.len())]);
    }
    let together = ev.evaluate(&positions);
    for (p, t) in positions.iter().zip(&together) {
        let alone = ev.evaluate(std::slice::from_ref(p)).pop().unwrap();
        assert_eq!(alone.priors.len(), t.priors.len());
        for (x, y) in alone.priors.iter().zip(&t.priors) {
            assert!((x - y).abs() < 1e-5);
        }
        for (x, y) in alone.wdl.iter().zip(t.wdl) {
            assert!((x - y).abs() < 1e-5);
        }
    }
}
