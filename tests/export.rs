//! Exported weights reload into a network that answers exactly like the
//! checkpoint's; damaged inputs are clear errors.

use std::process::Command;

use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::nn::export::{Manifest, load_safetensors, manifest_path};
use yinsh_zero::nn::{InferenceOptions, NetEvaluator, bench::sample_positions, default_device};
use yinsh_zero::run::checkpoint::{self, CHECKPOINT_VERSION, CheckpointMeta};
use yinsh_zero::run::config::ModelSection;

const BIN: &str = env!("CARGO_BIN_EXE_yinsh-zero");

#[test]
fn a_safetensors_export_reloads_with_identical_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let shape = ModelSection {
        blocks: 1,
        channels: 8,
        value_channels: 2,
        value_hidden: 16,
    };
    let device = default_device();
    let model = shape.to_model_config().init(&device);
    let meta = CheckpointMeta {
        version: CHECKPOINT_VERSION,
        generation: 7,
        model: shape.clone(),
        positions_generated: 0,
        samples_trained: 0,
        train_steps: 0,
        replay_files: vec![],
        games_played: 0,
        rng_stream: 0,
        gating: None,
        created_unix: 0,
    };
    let ckpts = tmp.path().join("checkpoints");
    let dir = checkpoint::save(&ckpts, &meta, &model, None).unwrap();
    let out = tmp.path().join("net.safetensors");
    let status = Command::new(BIN)
        .args(["export", "--checkpoint"])
        .arg(&dir)
        .args(["--format", "safetensors", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(manifest_path(&out)).unwrap()).unwrap();
    assert_eq!((manifest.generation, manifest.network.channels), (7, 8));
    assert_eq!(manifest.input.planes.len(), 16);
    assert_eq!(manifest.outputs.policy_size, 7866);
    assert!(!manifest.tensors.is_empty());

    let opts = || InferenceOptions {
        cache_capacity: 0,
        ..InferenceOptions::default()
    };
    let reloaded = load_safetensors(&shape.to_model_config(), &out, &device).unwrap();
    let mut a = checkpoint::load_evaluator(&dir).unwrap();
    let mut b = NetEvaluator::new(reloaded, device.clone(), opts()).unwrap();
    let positions = sample_positions(24, 3);
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
    assert!(load_safetensors(&bigger.to_model_config(), &out, &device).is_err());
    let out2 = Command::new(BIN)
        .args(["export", "--checkpoint"])
        .arg(tmp.path())
        .args(["--out"])
        .arg(tmp.path().join("x.safetensors"))
        .output()
        .unwrap();
    assert!(!out2.status.success());
    assert!(String::from_utf8_lossy(&out2.stderr).contains("not a yinsh-zero checkpoint"));
}
