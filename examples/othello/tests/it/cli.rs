//! The `othello` binary: yinsh-zero's command line with Othello as its home
//! game, built from this crate through `cli::main_with`. A few seconds of
//! its training loop, from a config file naming `othello`, then the
//! commands that read the run; so that the library's API for outside games
//! cannot rot without this test failing.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_othello");

fn othello(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The example's own config, made tiny: the same keys a user edits.
fn tiny_config(dir: &Path) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/othello.toml"))
        .unwrap()
        .replace(
            "games_per_generation = 96",
            "games_per_generation = 8\ngenerations = 2",
        )
        .replace("cpu_hours = 1.0", "cpu_hours = 0.0")
        .replace("blocks = 4", "blocks = 1")
        .replace(
            "channels = 48",
            "channels = 8\nvalue_channels = 2\nvalue_hidden = 16",
        )
        .replace("simulations = 64", "simulations = 8")
        .replace("fast_simulations = 16", "fast_simulations = 4")
        .replace("min_size = 20000", "min_size = 100\nmax_size = 5000")
        .replace("every = 5", "every = 2\ngames = 2\nsimulations = 4")
        .replace("[gating]", "[gating]\ngames = 2\nsimulations = 4")
        .replace(
            "[selfplay]",
            "[selfplay]\nworkers = 1\ngames_in_flight = 8\ngames_per_file = 8",
        )
        + "\n[train]\nbatch_size = 32\ntrain_ratio = 1.0\nmin_positions = 10\n";
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_othello_binary_trains_resumes_and_plays_its_game() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let run = run.to_str().unwrap();
    let config = tiny_config(tmp.path());
    let said = succeeded(&othello(&["train", "--config", &config, "--run", run]));
    assert!(
        said.contains("the config's limit is reached: generations = 2"),
        "{said}"
    );

    // The frozen config names `othello`: a resume reads it back.
    let more = config.replace("tiny.toml", "more.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&more, text.replace("generations = 2", "generations = 3")).unwrap();
    succeeded(&othello(&["train", "--config", &more, "--run", run]));
    let status = succeeded(&othello(&["status", "--run", run]));
    assert!(status.contains("generation 3"), "{status}");

    // The network plays Othello in a match, the home game by default.
    let net = format!("net-mcts:checkpoint={run}/checkpoints,sims=4");
    let result = succeeded(&othello(&[
        "match",
        "--white",
        &net,
        "--black",
        "alphabeta:depth=1",
        "--games",
        "2",
        "--swap",
        "--json",
    ]));
    assert!(
        result.contains("\"games\": 2") || result.contains("\"games\":2"),
        "{result}"
    );

    // Perft is the game's own, and the built-in games are still there.
    let perft = succeeded(&othello(&["perft", "--depth", "3"]));
    assert!(perft.contains("perft 3: 56"), "{perft}");
    succeeded(&othello(&["perft", "--game", "morris", "--depth", "1"]));

    // An unknown game names Othello first among the known ones.
    let out = othello(&["perft", "--game", "chess", "--depth", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown game `chess` (known: othello, yinsh"),
        "{err}"
    );
}
