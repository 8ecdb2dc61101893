//! Exported weights reload into a network that answers exactly like the
//! checkpoint's; damaged inputs are clear errors.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::cli::{failed, succeeded, yz};
use yinsh_zero::checkpoint::{self, CHECKPOINT_VERSION, CheckpointMeta};
use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::game::Game;
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::nn::export::{Manifest, load_safetensors, manifest_path};
use yinsh_zero::nn::{InferenceOptions, NetEvaluator, bench::sample_positions, default_device};
use yinsh_zero::run::config::ModelSection;

const GAME: Yinsh = Yinsh::standard();
const BLITZ: Yinsh = Yinsh::blitz();

/// `yinsh-zero export`s the checkpoint in `dir` as `format` to `out`.
fn export(dir: &Path, format: &str, out: &Path) {
    let (dir, out) = (dir.to_str().unwrap(), out.to_str().unwrap());
    succeeded(&yz([
        "export",
        "--checkpoint",
        dir,
        "--format",
        format,
        "--out",
        out,
    ]));
}

#[test]
fn a_safetensors_export_reloads_with_identical_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    // With a globally pooled branch in its one block.
    let shape = ModelSection {
        blocks: 1,
        channels: 8,
        value_channels: 2,
        value_hidden: 16,
        global_pool_channels: 4,
        global_pool_every: 1,
        ..ModelSection::default()
    };
    let device = default_device();
    let model = shape.to_model_config().init(&GAME.net_shape(), &device);
    let meta = CheckpointMeta {
        version: CHECKPOINT_VERSION,
        game: "yinsh".into(),
        variant: "standard".into(),
        generation: 7,
        model: shape.clone(),
        positions_generated: 0,
        samples_trained: 0,
        train_steps: 0,
        replay_files: vec![],
        replay_spent: 0,
        games_played: 0,
        rng_stream: 0,
        gating: None,
        created_unix: 0,
        averaged_from: vec![],
        score_weight: 0.0,
        score_threshold: 0.0,
        cpu_seconds: 0.0,
    };
    let ckpts = tmp.path().join("checkpoints");
    let dir = checkpoint::save(&ckpts, &meta, &model, None).unwrap();
    let out = tmp.path().join("net.safetensors");
    export(&dir, "safetensors", &out);
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(manifest_path(&out)).unwrap()).unwrap();
    assert_eq!((manifest.generation, manifest.network.channels), (7, 8));
    assert_eq!(manifest.input.planes.len(), 16);
    assert_eq!(manifest.outputs.policy_size, 7866);
    assert_eq!(
        (manifest.game.as_str(), manifest.variant.as_str()),
        ("yinsh", "standard")
    );
    assert!(!manifest.tensors.is_empty());

    let opts = || InferenceOptions {
        cache_capacity: 0,
        ..InferenceOptions::default()
    };
    let reloaded =
        load_safetensors(&shape.to_model_config(), &GAME.net_shape(), &out, &device).unwrap();
    let mut a = checkpoint::load_evaluator(&GAME, &dir, yinsh_zero::nn::BackendKind::Flex).unwrap();
    let mut b = NetEvaluator::new(GAME, reloaded, device.clone(), opts()).unwrap();
    let positions = sample_positions(&GAME, 24, 3);
    for (x, y) in a.evaluate(&positions).iter().zip(b.evaluate(&positions)) {
        for (p, q) in x.priors.iter().zip(&y.priors) {
            assert!((p - q).abs() < 1e-6);
        }
        for (p, q) in x.wdl.iter().zip(&y.wdl) {
            assert!((p - q).abs() < 1e-6);
        }
    }

    // A file of another shape, or not a checkpoint at all, is a clear error.
    let bigger = ModelSection {
        channels: 16,
        ..shape
    };
    assert!(load_safetensors(&bigger.to_model_config(), &GAME.net_shape(), &out, &device).is_err());
    let out2 = yz([
        "export",
        "--checkpoint",
        tmp.path().to_str().unwrap(),
        "--out",
        tmp.path().join("x.safetensors").to_str().unwrap(),
    ]);
    assert!(failed(&out2).contains("not a yinsh-zero checkpoint"));
}

/// A network whose weights and batch-norm statistics have moved away from
/// their initial values (so that an export that dropped either would show),
/// saved as a checkpoint.
fn trained_checkpoint(root: &std::path::Path, shape: &ModelSection) -> std::path::PathBuf {
    use rand::SeedableRng;
    use yinsh_zero::evaluator::UniformEvaluator;
    use yinsh_zero::mcts::SearchConfig;
    use yinsh_zero::replay::window::{ReplayWindow, ValueTarget, WindowConfig};
    use yinsh_zero::selfplay::{self, Progress, SelfPlayConfig};
    use yinsh_zero::train::config::TrainConfig;
    use yinsh_zero::train::{Batch, Trainer};

    let records = root.join("records");
    std::fs::create_dir_all(&records).unwrap();
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 2,
        ..SelfPlayConfig::default()
    };
    let search = SearchConfig {
        simulations: 4,
        ..SearchConfig::default()
    };
    let s = selfplay::run(
        &BLITZ,
        &cfg,
        &search,
        2,
        9,
        0,
        &records,
        "t",
        |_| Ok(UniformEvaluator),
        &Progress::default(),
        &|| false,
    )
    .unwrap();
    let mut w = ReplayWindow::new(BLITZ, WindowConfig::default());
    for f in &s.files {
        w.add_file(f).unwrap();
    }
    let device = default_device();
    let train = TrainConfig {
        warmup_steps: 1,
        learning_rate: 1e-2,
        reply_policy_weight: if shape.reply_head { 0.15 } else { 0.0 },
        ownership_weight: if shape.ownership_head { 0.5 } else { 0.0 },
        ..TrainConfig::default()
    };
    let model = shape.to_model_config().init(&GAME.net_shape(), &device);
    let mut t = Trainer::new(model, train, &device, 0);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
    for _ in 0..5 {
        let batch = Batch::new(
            &BLITZ,
            &w.sample(&mut rng, 16),
            ValueTarget::default(),
            &mut rng,
        );
        t.step(&batch);
    }
    let meta = CheckpointMeta {
        version: CHECKPOINT_VERSION,
        game: "yinsh".into(),
        variant: "blitz".into(),
        generation: 3,
        model: shape.clone(),
        positions_generated: 0,
        samples_trained: 80,
        train_steps: 5,
        replay_files: vec![],
        replay_spent: 0,
        games_played: 2,
        rng_stream: 0,
        gating: None,
        created_unix: 0,
        averaged_from: vec![],
        score_weight: 0.0,
        score_threshold: 0.0,
        cpu_seconds: 0.0,
    };
    checkpoint::save(&root.join("checkpoints"), &meta, &t.inference_model(), None).unwrap()
}

/// The ONNX export is checked with a real ONNX runtime (onnxruntime, from
/// Python: `.ci/run` installs it), at a batch size other than the ones the
/// export was traced with.
#[test]
fn an_onnx_export_runs_in_onnxruntime_like_the_checkpoint() {
    use burn::tensor::{Tensor, TensorData};
    use yinsh_zero::encode::encode_batch;
    use yinsh_zero::games::yinsh::encode::INPUT_PLANES;

    let tmp = tempfile::tempdir().unwrap();
    // With the auxiliary heads, trained: the export leaves them out (search
    // never reads them), so the graph's outputs are the three below. The
    // second block has a globally pooled branch (its maximum is a pooling
    // window the board's size in the graph).
    let shape = ModelSection {
        blocks: 2,
        channels: 8,
        value_channels: 2,
        value_hidden: 16,
        reply_head: true,
        ownership_head: true,
        global_pool_channels: 4,
        global_pool_every: 2,
    };
    let dir = trained_checkpoint(tmp.path(), &shape);
    let out = tmp.path().join("net.onnx");
    export(&dir, "onnx", &out);
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(manifest_path(&out)).unwrap()).unwrap();
    assert_eq!(manifest.format, "onnx");
    assert_eq!((manifest.generation, manifest.network.blocks), (3, 2));

    let positions = sample_positions(&GAME, 24, 5);
    let n = positions.len();
    let mut x = vec![0.0f32; n * INPUT_PLANES * 121];
    encode_batch(&GAME, &positions, &mut x);
    let inputs = tmp.path().join("inputs.bin");
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&inputs, bytes).unwrap();
    let results = tmp.path().join("outputs.bin");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/onnx/run_onnx.py");
    let ort = Command::new("python3")
        .arg(script)
        .arg(&out)
        .arg(&inputs)
        .arg(n.to_string())
        .arg(&results)
        .output()
        .expect("python3 runs (install onnxruntime and numpy: pip install onnxruntime numpy)");
    assert!(
        ort.status.success(),
        "onnxruntime failed (pip install onnxruntime numpy):\n{}",
        String::from_utf8_lossy(&ort.stderr)
    );
    let got: Vec<f32> = std::fs::read(&results)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let per = 7866 + 3 + 1;
    assert_eq!(got.len(), n * per);

    let device = default_device();
    let (model, _) = checkpoint::load_model(&GAME, &dir, &device).unwrap();
    let input = Tensor::<4>::from_data(TensorData::new(x, [n, INPUT_PLANES, 11, 11]), &device);
    let o = model.forward(input);
    let want = Tensor::cat(vec![o.policy, o.wdl, o.margin], 1)
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    let worst = want
        .iter()
        .zip(&got)
        .map(|(a, b)| (a - b).abs() / (1.0 + a.abs()))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "largest relative difference {worst}");
    // The outputs depend on the position (the export is not a constant).
    assert!(want[..per] != want[per..2 * per]);
}
