//! Every command that runs a network takes `--backend`, says where the
//! network runs, and refuses a backend this build lacks by name.

use crate::common;

use std::process::Output;

use common::cli::{failed, succeeded, yz_in, yz_in_env};

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A config small enough that a debug build plays a game in moments.
const TINY: &str = r#"
[model]
blocks = 1
channels = 8
value_channels = 2
value_hidden = 8

[search]
simulations = 4
fast_simulations = 4

[selfplay]
workers = 1
games_in_flight = 2

[train]
batch_size = 8
"#;

#[test]
fn commands_run_on_the_flex_backend_and_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("tiny.toml"), TINY).unwrap();
    // Each runs on flex, says so on stderr and prints JSON on stdout.
    let runs: &[&[&str]] = &[
        &[
            "bench",
            "nn",
            "--seconds",
            "0.01",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--backend",
            "flex",
            "--json",
        ],
        &[
            "bench",
            "train",
            "--seconds",
            "0.01",
            "--config",
            "tiny.toml",
            "--json",
        ],
        &[
            "selfplay",
            "--random-init",
            "--games",
            "1",
            "--out",
            "records",
            "--config",
            "tiny.toml",
            "--backend",
            "flex",
            "--json",
        ],
    ];
    let mut reports = Vec::new();
    let mut stderrs = Vec::new();
    for args in runs {
        let out = yz_in(tmp.path(), *args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains("network on the flex backend (CPU)"),
            "{args:?}: {}",
            text(&out)
        );
        reports.push(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap());
        stderrs.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert_eq!(reports[0]["backend"], "flex");
    assert_eq!(reports[1]["backend"], "flex");
    assert_eq!(reports[2]["games"], 1, "{}", reports[2]);
    // stderr is not a terminal: self-play says in plain lines that it
    // starts and how far it got, as `train` does, rather than nothing.
    let err = &stderrs[2];
    assert!(err.lines().any(|l| l == "self-play: 1 games"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("self-play: 1/1 games in ")
                && l.contains(" s, ")
                && l.ends_with(" positions/s")),
        "{err}"
    );
}

#[cfg(not(feature = "cuda"))]
#[test]
fn a_backend_missing_from_the_build_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("tiny.toml"), TINY).unwrap();
    let runs: &[&[&str]] = &[
        &["bench", "nn", "--seconds", "0.01", "--backend", "cuda"],
        &[
            "bench",
            "train",
            "--seconds",
            "0.01",
            "--config",
            "tiny.toml",
            "--backend",
            "cuda",
        ],
        &[
            "bench",
            "selfplay",
            "--seconds",
            "0.01",
            "--config",
            "tiny.toml",
            "--backend",
            "cuda",
        ],
        &["bench", "search", "--seconds", "0.01", "--backend", "cuda"],
        &[
            "selfplay",
            "--random-init",
            "--out",
            "records",
            "--config",
            "tiny.toml",
            "--backend",
            "cuda",
        ],
        &[
            "train",
            "--config",
            "tiny.toml",
            "--run",
            "run",
            "--backend",
            "cuda",
        ],
        // A new run's warm start would play teacher games for minutes
        // first: the backend is checked before them.
        &[
            "pretrain",
            "--config",
            "tiny.toml",
            "--run",
            "run2",
            "--backend",
            "cuda",
        ],
    ];
    for args in runs {
        let out = yz_in(tmp.path(), *args);
        assert!(!out.status.success(), "{args:?} ran");
        assert!(
            text(&out)
                .contains("backend `cuda` is not in this build (rebuild with `--features cuda`)"),
            "{args:?}: {}",
            text(&out)
        );
    }

    let out = yz_in(tmp.path(), ["bench", "nn", "--backend", "tpu"]);
    failed(&out);
    assert!(
        text(&out).contains("unknown backend `tpu` (expected flex, cuda or wgpu)"),
        "{}",
        text(&out)
    );
}

#[cfg(not(feature = "cuda"))]
#[test]
fn a_network_player_names_its_backend() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = "net-mcts:checkpoint=nowhere,backend=cuda";
    let out = yz_in(
        tmp.path(),
        [
            "match", "--white", spec, "--black", "random", "--games", "1",
        ],
    );
    failed(&out);
    assert!(text(&out).contains("not in this build"), "{}", text(&out));
    let out = yz_in(
        tmp.path(),
        [
            "match",
            "--white",
            "net-policy:checkpoint=nowhere,backend=tpu",
            "--black",
            "random",
            "--games",
            "1",
        ],
    );
    failed(&out);
    assert!(
        text(&out).contains("unknown backend `tpu`"),
        "{}",
        text(&out)
    );
}

/// `yinsh-zero ARGS` with `YINSH_ZERO_SIMD` set to `path`, from `dir`.
fn yz_on_path(dir: &std::path::Path, path: &str, args: &[&str]) -> Output {
    yz_in_env(dir, ("YINSH_ZERO_SIMD", path), args)
}

/// `bench nn --simd` and `YINSH_ZERO_SIMD` force the CPU kernels' path:
/// each path this CPU has runs and says so, with the CPU's flags and its
/// FMA peak; a path it lacks, or a name that is none, is refused by name
/// before anything runs.
#[test]
fn the_cpu_kernels_path_is_forced_by_flag_or_environment_and_refused_by_name() {
    use yinsh_zero::nn::Simd;
    let tmp = tempfile::tempdir().unwrap();
    let bench: &[&str] = &[
        "bench",
        "nn",
        "--seconds",
        "0.01",
        "--blocks",
        "1",
        "--channels",
        "16",
        "--json",
    ];
    for path in Simd::available() {
        let flag = [bench, &["--simd", path.name()]].concat();
        let by_flag = yz_in(tmp.path(), &flag);
        let by_env = yz_on_path(tmp.path(), path.name(), bench);
        for out in [by_flag, by_env] {
            let report: serde_json::Value = serde_json::from_str(&succeeded(&out)).unwrap();
            assert_eq!(report["simd"], path.name(), "{report}");
            let said =
                format!("network on the flex backend (CPU), native kernels on the {path} path");
            assert!(text(&out).contains(&said), "{}", text(&out));
            if cfg!(target_arch = "x86_64") {
                let peak = report["fma_peak_gflops"].as_f64().unwrap();
                assert!(peak > 0.0, "{report}");
                let share = report["by_batch"][0]["peak_share"].as_f64().unwrap();
                assert!(share > 0.0, "{report}");
            }
        }
    }
    if !Simd::Avx512.is_available() {
        let out = yz_in(tmp.path(), [bench, &["--simd", "avx512"]].concat());
        let err = failed(&out);
        assert!(err.contains("this CPU cannot run the avx512 path"), "{err}");
    }
    let err = failed(&yz_on_path(tmp.path(), "sse9", bench));
    assert!(
        err.contains(
            "YINSH_ZERO_SIMD: unknown SIMD path `sse9` (expected avx512, avx2 or portable)"
        ),
        "{err}"
    );
    let err = failed(&yz_in(tmp.path(), [bench, &["--simd", "AVX2"]].concat()));
    assert!(err.contains("unknown SIMD path `AVX2`"), "{err}");
}

/// The vector paths do the same arithmetic in the same order, so self-play
/// with a trained network writes the same records on each, byte for byte
/// (visit counts and search values included). The portable path agrees
/// with them within float rounding (its products are `gemm`'s), which
/// shows in the values' last bits, so it only has to play.
#[test]
fn self_play_writes_the_same_records_on_every_vector_path() {
    use yinsh_zero::nn::Simd;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    // The shipped grid network (4x32): one worker, so that the games'
    // order is fixed.
    let config = tmp.path().join("grid.toml");
    std::fs::write(
        &config,
        r#"
[game]
name = "grid"
variant = "9x9"
[model]
blocks = 4
channels = 32
value_channels = 8
value_hidden = 128
[search]
simulations = 32
fast_simulations = 8
[selfplay]
workers = 1
games_in_flight = 2
[baseline]
opponents = ["random"]
"#,
    )
    .unwrap();
    let checkpoint = root.join("checkpoints/grid/000311");
    let mut vector_records: Vec<(Simd, Vec<u8>)> = Vec::new();
    for path in Simd::available() {
        let out_dir = tmp.path().join(path.name());
        let args = [
            "selfplay",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--games",
            "2",
            "--seed",
            "5",
            "--config",
            config.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        succeeded(&yz_on_path(tmp.path(), path.name(), &args));
        let files: Vec<_> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{path}: {files:?}");
        let bytes = std::fs::read(&files[0]).unwrap();
        assert!(!bytes.is_empty(), "{path}");
        if path != Simd::Portable {
            vector_records.push((path, bytes));
        }
    }
    if vector_records.len() < 2 {
        eprintln!("SKIPPED the comparison: fewer than two vector paths here");
        return;
    }
    let (first, bytes) = &vector_records[0];
    for (path, other) in &vector_records[1..] {
        assert!(other == bytes, "{path}'s records differ from {first}'s");
    }
}
