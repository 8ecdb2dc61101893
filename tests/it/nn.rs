//! Position encoding, the network, batched inference, weights on disk.
//! Tiny nets (1 block x 8 channels) keep these fast.

use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::encode::{encode_batch, legal_indices, legal_mask, masked_softmax};
use yinsh_zero::game::Game;
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::games::yinsh::encode::{INPUT_PLANES, INPUT_SIZE, encode, planes};

const GAME: Yinsh = Yinsh::standard();
use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::games::yinsh::{ACTION_SPACE, Action, Color, Decision, Point, Position};
use yinsh_zero::nn::{
    BackendKind, BenchOptions, InferenceOptions, Model, ModelConfig, NetEvaluator, NnError,
    bench::sample_positions, bench_nn, default_device, load_weights, save_weights,
};

const CELLS: usize = 121;

fn tiny() -> ModelConfig {
    ModelConfig::new()
        .with_blocks(1)
        .with_channels(8)
        .with_value_channels(2)
        .with_value_hidden(16)
}

fn evaluator(config: &ModelConfig, cache: usize) -> NetEvaluator<Yinsh> {
    let device = default_device();
    with_model(config.init(&GAME.net_shape(), &device), cache)
}

fn with_model(model: Model, cache: usize) -> NetEvaluator<Yinsh> {
    NetEvaluator::new(
        GAME,
        model,
        default_device(),
        InferenceOptions {
            cache_capacity: cache,
            ..InferenceOptions::default()
        },
    )
    .unwrap()
}

/// `positions` encoded as one `[batch, planes, 11, 11]` input of burn's.
fn burn_input(positions: &[Position], device: &burn::tensor::Device) -> burn::tensor::Tensor<4> {
    let mut x = vec![0.0; positions.len() * INPUT_SIZE];
    encode_batch(&GAME, positions, &mut x);
    burn::tensor::Tensor::<4>::from_data(
        burn::tensor::TensorData::new(x, [positions.len(), INPUT_PLANES, 11, 11]),
        device,
    )
}

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yinsh-zero-nn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn plane(x: &[f32], k: usize) -> &[f32] {
    &x[k * CELLS..(k + 1) * CELLS]
}

/// Positions from random games, with several of each decision kind.
fn varied_positions() -> Vec<Position> {
    let all = sample_positions(&GAME, 3000, 11);
    let mut out: Vec<Position> = Vec::new();
    for d in [
        Decision::PlaceRing,
        Decision::MoveRing,
        Decision::RemoveRow,
        Decision::RemoveRing,
    ] {
        let before = out.len();
        out.extend(all.iter().filter(|p| p.decision() == d).step_by(7).take(4));
        assert!(out.len() > before, "no {d:?} position in the sample");
    }
    out
}

#[test]
fn encoding_of_a_known_position() {
    let mut pos = Position::new();
    for p in ["f6", "e5", "c3", "g7", "h8", "d4", "b2", "i9", "e9", "g3"] {
        pos.play(Action::Place(pt(p))).unwrap();
    }
    // White moves f6 -> f8: a white marker stays on f6.
    pos.play(Action::Move {
        from: pt("f6"),
        to: pt("f8"),
    })
    .unwrap();
    assert_eq!(pos.to_act(), Color::Black);
    assert_eq!(pos.decision(), Decision::MoveRing);

    let mut x = vec![f32::NAN; INPUT_SIZE];
    encode(&pos, &mut x);
    assert_eq!(x.len(), INPUT_PLANES * CELLS);

    let ones = |k: usize| -> Vec<usize> {
        let pl = plane(&x, k);
        (0..CELLS).filter(|&i| pl[i] == 1.0).collect()
    };
    let idx = |names: &[&str]| -> Vec<usize> {
        let mut v: Vec<usize> = names.iter().map(|n| pt(n).index()).collect();
        v.sort();
        v
    };
    // Black to act: own = black.
    assert_eq!(
        ones(planes::OWN_RINGS),
        idx(&["e5", "g7", "d4", "i9", "g3"])
    );
    assert_eq!(
        ones(planes::OPP_RINGS),
        idx(&["f8", "c3", "h8", "b2", "e9"])
    );
    assert_eq!(ones(planes::OPP_MARKERS), idx(&["f6"]));
    assert!(ones(planes::OWN_MARKERS).is_empty());
    assert_eq!(ones(planes::VALID).len(), 85);

    let board: Vec<usize> = Point::all().map(|p| p.index()).collect();
    let constant = |k: usize| -> f32 {
        let pl = plane(&x, k);
        let v = pl[board[0]];
        assert!(
            board.iter().all(|&i| pl[i] == v),
            "plane {k} is not constant"
        );
        v
    };
    assert_eq!(constant(planes::PLACE_RING), 0.0);
    assert_eq!(constant(planes::MOVE_RING), 1.0);
    assert_eq!(constant(planes::REMOVE_ROW), 0.0);
    assert_eq!(constant(planes::REMOVE_RING), 0.0);
    assert_eq!(constant(planes::OWN_REMOVED), 0.0);
    assert_eq!(constant(planes::OPP_REMOVED), 0.0);
    assert!((constant(planes::POOL) - 50.0 / 51.0).abs() < 1e-6);
    assert_eq!(constant(planes::WHITE_TO_ACT), 0.0);
    assert_eq!(constant(planes::BLACK_TO_ACT), 1.0);
    assert_eq!(constant(planes::OPPONENT_PASSED), 0.0);
    assert_eq!(constant(planes::BLITZ), 0.0);

    // Off-board cells are zero in every plane (and nothing is left NaN).
    for k in 0..INPUT_PLANES {
        for i in 0..CELLS {
            if !board.contains(&i) {
                assert_eq!(plane(&x, k)[i], 0.0, "plane {k} cell {i}");
            }
            assert!(x[k * CELLS + i].is_finite());
        }
    }

    // White's view of the same pieces swaps the colour planes.
    let mut white = Position::new();
    white.play(Action::Place(pt("f6"))).unwrap();
    white.play(Action::Place(pt("e5"))).unwrap();
    encode(&white, &mut x);
    assert_eq!(x[planes::OWN_RINGS * CELLS + pt("f6").index()], 1.0);
    assert_eq!(x[planes::OPP_RINGS * CELLS + pt("e5").index()], 1.0);
    assert_eq!(x[planes::WHITE_TO_ACT * CELLS + pt("f6").index()], 1.0);
    assert_eq!(x[planes::PLACE_RING * CELLS + pt("a2").index()], 1.0);
}

#[test]
fn encode_batch_matches_single_encodings() {
    let positions = varied_positions();
    let mut batch = vec![0.0; positions.len() * INPUT_SIZE];
    encode_batch(&GAME, &positions, &mut batch);
    let mut one = vec![0.0; INPUT_SIZE];
    for (i, pos) in positions.iter().enumerate() {
        encode(pos, &mut one);
        assert_eq!(&batch[i * INPUT_SIZE..(i + 1) * INPUT_SIZE], &one[..]);
    }
}

/// The 60-degree rotation about F6: (x, y) -> (x - y, x).
fn rotate(p: Point) -> Point {
    let (x, y) = (p.col() as i32 - 5, p.row() as i32 - 5);
    Point::new((x - y + 5) as u8, (x + 5) as u8).unwrap()
}

/// The mirror about F6: (x, y) -> (y, x).
fn mirror(p: Point) -> Point {
    Point::new(p.row(), p.col()).unwrap()
}

#[test]
fn encoding_commutes_with_rotation_and_mirror() {
    let mut rng = SmallRng::seed_from_u64(3);
    for sym in [rotate as fn(Point) -> Point, mirror] {
        for _ in 0..8 {
            let (mut a, mut b) = (Position::new(), Position::new());
            // Placements and ring moves only: their images are plain to write.
            while matches!(a.decision(), Decision::PlaceRing | Decision::MoveRing) {
                let actions = a.legal_actions();
                let act = actions[rng.random_range(0..actions.len())];
                let image = match act {
                    Action::Place(p) => Action::Place(sym(p)),
                    Action::Move { from, to } => Action::Move {
                        from: sym(from),
                        to: sym(to),
                    },
                    other => other,
                };
                a.play(act).unwrap();
                b.play(image).unwrap();
                let (mut xa, mut xb) = (vec![0.0; INPUT_SIZE], vec![0.0; INPUT_SIZE]);
                encode(&a, &mut xa);
                encode(&b, &mut xb);
                for k in 0..INPUT_PLANES {
                    for p in Point::all() {
                        assert_eq!(
                            xa[k * CELLS + p.index()],
                            xb[k * CELLS + sym(p).index()],
                            "plane {k} at {p}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn legal_helpers_agree_with_the_position() {
    for pos in varied_positions() {
        let actions = pos.legal_actions();
        let idx = legal_indices(&GAME, &pos);
        let mask = legal_mask(&GAME, &pos);
        assert_eq!(mask.len(), ACTION_SPACE);
        assert_eq!(mask.iter().filter(|&&m| m).count(), actions.len());
        for (a, &i) in actions.iter().zip(&idx) {
            assert_eq!(a.index(), i);
            assert!(mask[i]);
        }
    }
}

#[test]
fn masked_softmax_gives_no_mass_to_illegal_actions() {
    let pos = Position::new();
    let actions = pos.legal_actions();
    let mut logits = vec![-3.0f32; ACTION_SPACE];
    logits[ACTION_SPACE - 1] = 1e4; // pass: illegal in the placement phase
    logits[Action::RemoveRing(pt("f6")).index()] = 1e4; // illegal too
    logits[Action::Place(pt("f6")).index()] = 2.0; // legal, favoured
    let p = masked_softmax(&GAME, &logits, &actions);
    assert_eq!(p.len(), 85);
    assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    let f6 = actions
        .iter()
        .position(|&a| a == Action::Place(pt("f6")))
        .unwrap();
    let e = 5f32.exp();
    assert!((p[f6] - e / (e + 84.0)).abs() < 1e-5);
}

#[test]
fn priors_and_wdl_are_distributions_over_legal_actions() {
    let mut net = evaluator(&tiny(), 0);
    let positions = varied_positions();
    let evals = net.evaluate(&positions);
    assert_eq!(evals.len(), positions.len());
    for (pos, e) in positions.iter().zip(&evals) {
        assert_eq!(e.priors.len(), pos.legal_action_count());
        assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(e.priors.iter().all(|&p| p > 0.0 && p.is_finite()), "{pos}");
        assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(e.wdl.iter().all(|&p| p > 0.0));
    }
    // Different positions get different answers: the net reads its input.
    assert_ne!(evals[0].wdl, evals[evals.len() - 1].wdl);
}

#[test]
fn batched_results_equal_one_by_one() {
    let mut net = evaluator(&tiny(), 0);
    let positions = varied_positions();
    let batched = net.evaluate(&positions);
    for (pos, b) in positions.iter().zip(&batched) {
        let single = net.evaluate(std::slice::from_ref(pos)).remove(0);
        for (x, y) in single.priors.iter().zip(&b.priors) {
            assert!((x - y).abs() < 1e-5, "{x} vs {y}");
        }
        for (x, y) in single.wdl.iter().zip(&b.wdl) {
            assert!((x - y).abs() < 1e-5, "{x} vs {y}");
        }
    }
}

#[test]
fn batches_larger_than_max_batch_are_split() {
    let device = default_device();
    let model = tiny().init(&GAME.net_shape(), &device);
    let mut small = NetEvaluator::new(
        GAME,
        model.clone(),
        device.clone(),
        InferenceOptions {
            cache_capacity: 0,
            threads: Some(1),
            max_batch: 3,
            ..InferenceOptions::default()
        },
    )
    .unwrap();
    let mut big = NetEvaluator::new(GAME, model, device, InferenceOptions::default()).unwrap();
    let positions = varied_positions();
    let (a, b) = (small.evaluate(&positions), big.evaluate(&positions));
    for (x, y) in a.iter().zip(&b) {
        assert!((x.wdl[0] - y.wdl[0]).abs() < 1e-5);
        assert_eq!(x.priors.len(), y.priors.len());
    }
}

#[test]
fn cache_returns_identical_results() {
    let model = tiny().init(&GAME.net_shape(), &default_device());
    let mut net = with_model(model.clone(), 1024);
    let positions = varied_positions();
    let first = net.evaluate(&positions);
    let stats = net.cache_stats();
    assert_eq!(stats.misses, positions.len() as u64);
    let second = net.evaluate(&positions);
    assert_eq!(first, second);
    assert_eq!(net.cache_stats().hits, stats.hits + positions.len() as u64);
    assert_eq!(net.cache_stats().misses, stats.misses);

    // Repeats inside one request are evaluated once.
    net.clear_cache();
    let twice = [positions[0], positions[1], positions[0]];
    let before = net.cache_stats();
    let out = net.evaluate(&twice);
    assert_eq!(out[0], out[2]);
    assert_eq!(net.cache_stats().misses - before.misses, 2);

    // Cached answers equal what an uncached evaluator says.
    let mut plain = with_model(model, 0);
    assert_eq!(plain.evaluate(&positions), second);
}

#[test]
fn save_then_load_gives_identical_outputs() {
    let config = tiny();
    let mut net = evaluator(&config, 0);
    let path = temp_path("roundtrip.bpk");
    save_weights(net.model(), &path).unwrap();
    let mut loaded = NetEvaluator::from_file(
        GAME,
        &config,
        &path,
        default_device(),
        InferenceOptions {
            cache_capacity: 0,
            ..InferenceOptions::default()
        },
    )
    .unwrap();
    let positions = varied_positions();
    assert_eq!(net.evaluate(&positions), loaded.evaluate(&positions));

    // A fresh net really differs, so the equality above means
    // the weights travelled.
    let mut other = evaluator(&config, 0);
    assert_ne!(other.evaluate(&positions), loaded.evaluate(&positions));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn pooled_branches_added_to_a_trained_network_change_none_of_its_outputs() {
    use burn::module::Module;
    let config = tiny().with_blocks(2);
    let device = default_device();
    let model = config.init(&GAME.net_shape(), &device);
    let pooled = config
        .clone()
        .with_global_pool_channels(4)
        .with_global_pool_every(1);
    let grown = model.clone().with_global_pooling(&pooled, &device);
    // Both blocks got a branch: a 3x3 convolution of 8 into 4 channels,
    // its norm (scale, shift and the two running statistics), and the
    // dense layer from 8 pooled values to 8 biases.
    let branch = 9 * 8 * 4 + 4 * 4 + (8 * 8 + 8);
    assert_eq!(grown.num_params(), model.num_params() + 2 * branch);
    let positions = varied_positions();
    let input = || burn_input(&positions, &device);
    let read = |t: burn::tensor::Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
    let (a, b) = (model.forward(input()), grown.forward(input()));
    assert_eq!(read(a.policy), read(b.policy));
    assert_eq!(read(a.wdl), read(b.wdl));
    // A network built with the branches has the same parameters.
    let fresh = pooled.init(&GAME.net_shape(), &device);
    assert_eq!(fresh.num_params(), grown.num_params());
    // Adding them twice adds nothing.
    let again = grown.clone().with_global_pooling(&pooled, &device);
    assert_eq!(again.num_params(), grown.num_params());
}

#[test]
fn a_network_without_a_reply_head_loads_into_one_that_has_it() {
    let config = tiny();
    let device = default_device();
    let net = evaluator(&config, 0);
    let path = temp_path("no-reply.bpk");
    save_weights(net.model(), &path).unwrap();
    let with_head = config.clone().with_reply_head(true);
    let model = load_weights(&with_head, &GAME.net_shape(), &path, &device).unwrap();
    let positions = varied_positions();
    let input = || burn_input(&positions, &device);
    let read = |t: burn::tensor::Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
    // The network answers as it did; the new head answers too.
    let (out, aux) = model.forward_aux(input());
    assert_eq!(read(out.policy), read(net.model().forward(input()).policy));
    let reply = aux.reply.expect("the loaded network has a reply head");
    assert_eq!(reply.dims(), [positions.len(), ACTION_SPACE]);
    // Its own file holds the head and reloads whole; a config without the
    // head refuses it rather than drop weights.
    let whole = temp_path("reply.bpk");
    save_weights(&model, &whole).unwrap();
    let again = load_weights(&with_head, &GAME.net_shape(), &whole, &device).unwrap();
    assert_eq!(
        read(again.forward_aux(input()).1.reply.unwrap()),
        read(model.forward_aux(input()).1.reply.unwrap())
    );
    let err = load_weights(&config, &GAME.net_shape(), &whole, &device).unwrap_err();
    assert!(err.to_string().contains("reply.bpk"), "{err}");
    for p in [&path, &whole] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn bad_weight_files_are_errors_not_panics() {
    let config = tiny();
    let device = default_device();
    let net = evaluator(&config, 0);
    let good = temp_path("good.bpk");
    save_weights(net.model(), &good).unwrap();
    let bytes = std::fs::read(&good).unwrap();

    let missing = temp_path("does-not-exist.bpk");
    let garbage = temp_path("garbage.bpk");
    std::fs::write(&garbage, b"this is not a weights file at all").unwrap();
    let truncated = temp_path("truncated.bpk");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let empty = temp_path("empty.bpk");
    std::fs::write(&empty, b"").unwrap();

    for path in [&missing, &garbage, &truncated, &empty] {
        match load_weights(&config, &GAME.net_shape(), path, &device) {
            Err(NnError::LoadWeights { path: p, reason }) => {
                assert_eq!(&p, path);
                assert!(!reason.is_empty());
            }
            other => panic!("{}: expected a load error, got {other:?}", path.display()),
        }
    }
    // Weights of another shape do not load into this one.
    let wider = tiny().with_channels(16);
    let err = load_weights(&wider, &GAME.net_shape(), &good, &device).unwrap_err();
    assert!(err.to_string().contains("good.bpk"), "{err}");
    for p in [&good, &garbage, &truncated, &empty] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn model_output_shapes() {
    let config = tiny();
    let device = default_device();
    let model = config.init(&GAME.net_shape(), &device);
    let positions = varied_positions();
    let input = burn_input(&positions, &device);
    let out = model.forward(input);
    assert_eq!(out.policy.dims(), [positions.len(), ACTION_SPACE]);
    assert_eq!(out.wdl.dims(), [positions.len(), 3]);
    assert_eq!(out.margin.dims(), [positions.len(), 1]);
    let margin = out.margin.into_data();
    assert!(
        margin
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .all(|m| m.abs() <= 1.0)
    );
}

#[test]
fn model_config_round_trips_through_serde() {
    let config = tiny();
    let json = serde_json::to_string(&config).unwrap();
    let back: ModelConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, config);
    assert!(json.contains("\"blocks\":1"), "{json}");
}

#[test]
fn flops_count_matches_the_architecture() {
    // 1 block x 8 channels, value 2 x 16: count by hand.
    let c = 8u64;
    let macs = 121 * 16 * c * 9 // stem
        + 2 * 121 * c * c * 9 // one block
        + 121 * c * c + 121 * c * 65 + c // policy head and pass
        + 121 * c * 2 + 2 * 121 * 16 + 16 * 4; // value head
    assert_eq!(tiny().macs_per_position(&GAME.net_shape()), macs);
    assert_eq!(tiny().flops_per_position(&GAME.net_shape()), 2 * macs);
    // A pooled branch of 4 channels: its 3x3 convolution and dense layer.
    let pooled = tiny()
        .with_global_pool_channels(4)
        .with_global_pool_every(1);
    let branch = 121 * c * 4 * 9 + 2 * 4 * c;
    assert_eq!(pooled.macs_per_position(&GAME.net_shape()), macs + branch);
}

#[test]
fn backend_names_parse() {
    assert_eq!("flex".parse::<BackendKind>().unwrap(), BackendKind::Flex);
    assert_eq!("CUDA".parse::<BackendKind>().unwrap(), BackendKind::Cuda);
    assert!("tpu".parse::<BackendKind>().is_err());
    assert!(BackendKind::Flex.device().is_ok());
    if !BackendKind::Cuda.is_compiled() {
        assert!(matches!(
            BackendKind::Cuda.device(),
            Err(NnError::BackendNotBuilt { backend: "cuda" })
        ));
    }
}

#[test]
fn bench_reports_every_batch() {
    let bench = bench_nn(
        &GAME,
        &BenchOptions {
            model: tiny(),
            batches: vec![1, 4],
            self_play_batch: 2,
            min_seconds: 0.0,
            ..BenchOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        bench.by_batch.iter().map(|r| r.batch).collect::<Vec<_>>(),
        [1, 4]
    );
    assert_eq!(bench.batch, 2);
    assert!(bench.positions_per_s > 0.0 && bench.gflops > 0.0);
    let json = serde_json::to_value(&bench).unwrap();
    for key in ["positions_per_s", "gflops", "by_batch"] {
        assert!(json.get(key).is_some(), "{key} missing");
    }
}

/// The real measurement (about 10 s): `cargo test --test it nn:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_default_net() {
    for threads in [Some(1), None] {
        let bench = bench_nn(
            &GAME,
            &BenchOptions {
                threads,
                ..BenchOptions::default()
            },
        )
        .unwrap();
        println!("{}", serde_json::to_string_pretty(&bench).unwrap());
    }
}
