//! `average`: checkpoints of one run become one network, their mean; unlike
//! ones are refused by name.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::cli::{failed, succeeded, yz};
use yinsh_zero::checkpoint::{self, CheckpointMeta};
use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::game::Game;
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::nn::{BackendKind, bench::sample_positions, default_device};
use yinsh_zero::run::config::ModelSection;

const GAME: Yinsh = Yinsh::standard();

fn small(channels: usize) -> ModelSection {
    ModelSection {
        blocks: 1,
        channels,
        value_channels: 2,
        value_hidden: 16,
        ..ModelSection::default()
    }
}

/// Generation `g`, freshly initialised (so every one differs), `channels` wide.
fn generation(ckpts: &Path, g: u64, channels: usize) -> PathBuf {
    let shape = small(channels);
    let model = shape
        .to_model_config()
        .init(&GAME.net_shape(), &default_device());
    let meta = CheckpointMeta {
        replay_files: vec![format!("selfplay/g{g:06}.bin")],
        replay_spent: 0,
        ..CheckpointMeta::new(&GAME, g, shape)
    };
    checkpoint::save(ckpts, &meta, &model, Some(b"optimizer state")).unwrap()
}

fn average(dirs: &[&Path], out: &Path) -> Output {
    let mut args = vec![OsStr::new("average")];
    args.extend(dirs.iter().map(|d| d.as_os_str()));
    args.extend([OsStr::new("--out"), out.as_os_str()]);
    yz(args)
}

fn outputs(dir: &Path) -> Vec<Vec<f32>> {
    let mut e = checkpoint::load_evaluator(&GAME, dir, BackendKind::Flex).unwrap();
    e.evaluate(&sample_positions(&GAME, 8, 5))
        .into_iter()
        .map(|x| x.priors.into_iter().chain(x.wdl).collect())
        .collect()
}

#[test]
fn the_mean_of_a_run_s_generations_is_a_checkpoint_that_plays() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpts = tmp.path().join("checkpoints");
    let (a, b, c) = (
        generation(&ckpts, 5, 8),
        generation(&ckpts, 6, 8),
        generation(&ckpts, 7, 8),
    );
    let out = tmp.path().join("mean");
    let said = succeeded(&average(&[&b, &c, &a], &out));
    assert!(
        said.contains("the mean of 3 1x8 networks") && said.contains("5, 6, 7"),
        "{said}"
    );
    let meta = checkpoint::read_meta(&out).unwrap();
    assert_eq!(
        (meta.generation, meta.averaged_from.clone()),
        (7, vec![5, 6, 7])
    );
    assert!(
        meta.replay_files.is_empty(),
        "the mean trained on nothing itself"
    );
    assert!(!out.join("optimizer.bpk").exists());
    let mean = outputs(&out);
    for member in [&a, &b, &c] {
        assert_ne!(outputs(member), mean);
    }

    // One network averaged with itself is itself, to the last bit.
    let same = tmp.path().join("same");
    succeeded(&average(&[&a, &a], &same));
    assert_eq!(outputs(&same), outputs(&a));
}

#[test]
fn unlike_checkpoints_and_missing_ones_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpts = tmp.path().join("checkpoints");
    let a = generation(&ckpts, 1, 8);
    let wide = generation(&ckpts, 2, 16);
    let out = tmp.path().join("mean");
    let err = failed(&average(&[&a, &wide], &out));
    assert!(
        err.contains("000002") && err.contains("1x16 network against 1x8"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");

    let err = failed(&average(&[&a, &tmp.path().join("nowhere")], &out));
    assert!(err.contains("nowhere"), "{err}");

    let o = average(&[], &out);
    assert!(!o.status.success(), "no checkpoints named");
}
