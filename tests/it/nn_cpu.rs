//! The native CPU inference pass (`nn::CpuNet`) against burn's own forward
//! pass, on networks whose batch norms have learned something (a few
//! training steps move the running statistics and the affine weights off
//! their initial values, so folding them is really tested).

use crate::common;

use burn::tensor::{Tensor, TensorData};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use common::tictactoe::TicTacToe;
use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::game::{Game, State};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::nn::bench::sample_positions;
use yinsh_zero::nn::{CpuNet, InferenceOptions, Model, ModelConfig, NetEvaluator, default_device};
use yinsh_zero::replay::window::{ValueTarget, WindowSample};
use yinsh_zero::train::config::TrainConfig;
use yinsh_zero::train::{Batch, Trainer};

/// A `blocks x channels` network for `game` after `steps` gradient steps on
/// random-play positions with uniform policy targets and random outcomes.
fn trained<G: Game>(game: &G, blocks: usize, channels: usize, steps: usize) -> Model {
    let config = ModelConfig::new()
        .with_blocks(blocks)
        .with_channels(channels);
    trained_as(game, config, steps)
}

/// [`trained`] for a network of `config` (its value head made small).
fn trained_as<G: Game>(game: &G, config: ModelConfig, steps: usize) -> Model {
    let device = default_device();
    device.seed(3);
    let model = config
        .with_value_channels(3)
        .with_value_hidden(16)
        .init(&game.net_shape(), &device);
    let mut rng = SmallRng::seed_from_u64(9);
    let samples: Vec<WindowSample<G::State>> = sample_positions(game, 64, 4)
        .into_iter()
        .filter(|p| !p.is_over())
        .map(|p| {
            let legal = p.legal_actions();
            let share = 1.0 / legal.len() as f32;
            WindowSample {
                policy: legal
                    .iter()
                    .map(|&a| (game.action_index(a) as u32, share))
                    .collect(),
                outcome: rng.random_range(-1..=1),
                margin: None,
                moves_left: None,
                search_wdl: None,
                search_margin: None,
                reply: None,
                last: None,
                position: p,
            }
        })
        .collect();
    let refs: Vec<&WindowSample<G::State>> = samples.iter().collect();
    let cfg = TrainConfig {
        batch_size: refs.len(),
        learning_rate: 0.01,
        warmup_steps: 0,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(model, cfg, &device, 0);
    for _ in 0..steps {
        let batch = Batch::new(game, &refs, ValueTarget::default(), &mut rng);
        trainer.step(&batch);
    }
    trainer.inference_model()
}

fn encode_all<G: Game>(game: &G, positions: &[G::State]) -> Vec<f32> {
    let size = game.net_shape().input_size();
    let mut input = vec![0.0; positions.len() * size];
    for (p, x) in positions.iter().zip(input.chunks_exact_mut(size)) {
        game.encode(p, x);
    }
    input
}

fn assert_close(what: &str, native: &[f32], burn: &[f32]) {
    assert_eq!(native.len(), burn.len(), "{what}: lengths");
    let mut worst = 0.0f32;
    for (a, b) in native.iter().zip(burn) {
        let err = (a - b).abs() / b.abs().max(1.0);
        worst = worst.max(err);
    }
    assert!(worst < 1e-4, "{what}: largest error {worst}");
}

/// Every output of the native pass agrees with burn's within 1e-4.
fn agrees<G: Game>(game: &G, model: &Model, batch: usize) {
    let shape = game.net_shape();
    let positions: Vec<G::State> = sample_positions(game, batch * 3, 17)
        .into_iter()
        .filter(|p| !p.is_over())
        .take(batch)
        .collect();
    assert_eq!(positions.len(), batch);
    let input = encode_all(game, &positions);
    let x = Tensor::<4>::from_data(
        TensorData::new(
            input.clone(),
            [batch, shape.planes, shape.height, shape.width],
        ),
        &default_device(),
    );
    let expected = model.forward(x);
    let read = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
    let (policy, wdl, margin) = (
        read(expected.policy),
        read(expected.wdl),
        read(expected.margin),
    );
    let mut net = CpuNet::new(model, shape);
    // Twice: the second call reuses the buffers the first one grew. On
    // one thread, and with the positions shared out over three.
    for threads in [1, 3, 1] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let out = net.forward(&input, batch);
            assert_close("policy", out.policy, &policy);
            assert_close("wdl", out.wdl, &wdl);
            assert_close("margin", out.margin, &margin);
        });
    }
    // A smaller batch after a larger one reads only its own rows.
    let one = net.forward(&input[..shape.input_size()], 1);
    assert_close("policy of one", one.policy, &policy[..shape.action_space()]);
}

#[test]
fn yinsh_outputs_match_burn_at_every_batch_size() {
    let game = Yinsh::standard();
    let model = trained(&game, 2, 16, 6);
    for batch in [1, 3, 37] {
        agrees(&game, &model, batch);
    }
}

#[test]
fn globally_pooled_blocks_match_burn_too() {
    // Pooled branches in every block, then in every second; the branch's
    // maximum and mean over the board, its biases before the first ReLU.
    let game = Yinsh::standard();
    for (blocks, every) in [(2, 1), (3, 2)] {
        let config = ModelConfig::new()
            .with_blocks(blocks)
            .with_channels(16)
            .with_global_pool_channels(8)
            .with_global_pool_every(every);
        let model = trained_as(&game, config, 6);
        for batch in [1, 5] {
            agrees(&game, &model, batch);
        }
    }
    let ttt = TicTacToe;
    let config = ModelConfig::new()
        .with_blocks(2)
        .with_channels(12)
        .with_global_pool_channels(4);
    agrees(&ttt, &trained_as(&ttt, config, 6), 6);
}

#[test]
fn blitz_and_a_game_without_a_pass_action_match_too() {
    let blitz = Yinsh::blitz();
    agrees(&blitz, &trained(&blitz, 1, 8, 4), 5);
    // Tic-tac-toe: a 3x3 board, no action tied to no cell.
    let ttt = TicTacToe;
    agrees(&ttt, &trained(&ttt, 2, 12, 6), 6);
}

#[test]
fn the_evaluator_gives_the_same_answers_on_either_path() {
    let game = Yinsh::standard();
    let model = trained(&game, 1, 8, 4);
    let make = |native_cpu| {
        NetEvaluator::new(
            game,
            model.clone(),
            default_device(),
            InferenceOptions {
                cache_capacity: 0,
                native_cpu,
                ..InferenceOptions::default()
            },
        )
        .unwrap()
    };
    let (mut native, mut graph) = (make(true), make(false));
    let positions: Vec<_> = sample_positions(&game, 40, 5)
        .into_iter()
        .filter(|p| !p.is_over())
        .collect();
    let (a, b) = (native.evaluate(&positions), graph.evaluate(&positions));
    for (x, y) in a.iter().zip(&b) {
        assert_close("priors", &x.priors, &y.priors);
        assert_close("wdl", &x.wdl, &y.wdl);
    }
}

#[test]
fn batches_split_over_threads_give_the_one_thread_answers() {
    // Side by side (a share of the batch per thread, each through its own
    // copy of the network) or every layer split over the threads: the same
    // numbers as one thread, in batches that do not divide evenly too.
    let game = Yinsh::standard();
    let model = trained(&game, 1, 8, 4);
    let make = |threads, side_by_side| {
        NetEvaluator::new(
            game,
            model.clone(),
            default_device(),
            InferenceOptions {
                cache_capacity: 0,
                threads: Some(threads),
                side_by_side,
                ..InferenceOptions::default()
            },
        )
        .unwrap()
    };
    let positions: Vec<_> = sample_positions(&game, 40, 6)
        .into_iter()
        .filter(|p| !p.is_over())
        .collect();
    let mut one = make(1, true);
    for (threads, side_by_side) in [(2, true), (3, true), (2, false)] {
        let mut many = make(threads, side_by_side);
        for batch in [1, 2, 3, 5, 17] {
            let chunk = &positions[..batch];
            for (x, y) in many.evaluate(chunk).iter().zip(&one.evaluate(chunk)) {
                assert_close("priors", &x.priors, &y.priors);
                assert_close("wdl", &x.wdl, &y.wdl);
            }
        }
    }
}
