//! Every command that runs a network takes `--backend`, says where the
//! network runs, and refuses a backend this build lacks by name.

mod common;

use std::process::Output;

#[cfg(not(feature = "cuda"))]
use common::cli::failed;
use common::cli::yz_in;

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
