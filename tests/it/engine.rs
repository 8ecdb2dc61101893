//! The engine protocol through the real binary: our engine driven over a
//! pipe, matches against external programs, and fake engines that break
//! the protocol, crash or hang (short timeouts, so nothing waits long).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;

use common::cli::{BIN, failed, succeeded, yz};
use common::tictactoe::TicTacToe;
use serde_json::Value;
use yinsh_zero::arena::{PlayError, RandomPlayer, play_game};
use yinsh_zero::engine::{ExternalConfig, ExternalPlayer};
use yinsh_zero::games::yinsh::notation::parse_game;
use yinsh_zero::games::yinsh::{Position, Yinsh};

/// Runs `yinsh-zero engine <args>`, feeds it `script` and returns the lines
/// it printed; the engine must exit cleanly.
fn engine_session(args: &[&str], script: &str) -> Vec<String> {
    let mut child = Command::new(BIN)
        .arg("engine")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{script}").unwrap();
    drop(stdin);
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| l.unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    lines
}

#[test]
fn engine_answers_the_protocol_over_a_pipe() {
    let lines = engine_session(
        &["--player", "alphabeta:depth=1"],
        "yinsh\nisready\nnewgame\nposition startpos moves e3 f6 g7\ngo\nplay zz\nbogus\nquit",
    );
    assert!(lines[0].starts_with("id name yinsh-zero"), "{lines:?}");
    let at = |s: &str| lines.iter().position(|l| l == s);
    assert!(at("yinshok") < at("readyok"), "{lines:?}");
    let info = lines.iter().find(|l| l.starts_with("info ")).unwrap();
    assert!(info.contains(" depth 1") && info.contains(" pv "), "{info}");
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap();
    let start = Position::new();
    parse_game(&start, &format!("e3 f6 g7 {best}")).expect("bestmove is legal");
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error ")).collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert!(errors[0].contains("`play zz`") && errors[1].contains("`bogus`"));
}

#[test]
fn a_tree_search_reports_its_evaluations_beside_its_simulations() {
    let lines = engine_session(
        &["--player", "mcts-rollout:playouts=60"],
        "yinsh\nnewgame\nposition startpos\ngo\nquit",
    );
    let info = lines.iter().find(|l| l.starts_with("info ")).unwrap();
    let field = |key: &str| -> u64 {
        let words: Vec<&str> = info.split_whitespace().collect();
        let at = words.iter().position(|w| *w == key).expect(key);
        words[at + 1].parse().unwrap()
    };
    let (nodes, evaluations) = (field("nodes"), field("evaluations"));
    // Descents into decided positions cost no evaluation, and the root is
    // evaluated once on top of the simulations: never more leaves than that.
    assert!(evaluations > 0 && evaluations <= nodes + 1, "{info}");
    assert!(info.find(" nodes ") < info.find(" evaluations "), "{info}");
}

fn match_json(white: &str, black: &str, extra: &[&str]) -> Value {
    let args = ["match", "--white", white, "--black", black, "--json"];
    let stdout = succeeded(&yz(args.iter().chain(extra)));
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn match_against_our_own_engine_as_an_external_program() {
    let white = format!("{BIN} engine --player greedy");
    let v = match_json(&white, "random", &["--games", "4", "--swap", "--seed", "3"]);
    assert_eq!(v["forfeits"].as_array().unwrap().len(), 0, "{v}");
    let t = &v["first_total"];
    assert_eq!(
        t["wins"].as_u64().unwrap() + t["draws"].as_u64().unwrap() + t["losses"].as_u64().unwrap(),
        4
    );
    assert!(t["wins"].as_u64().unwrap() >= 3, "greedy beats random: {v}");
    // The same games as greedy played in-process: the external engine is
    // seeded differently but must be exactly as legal; here both win.
    let inside = match_json(
        "greedy",
        "random",
        &["--games", "4", "--swap", "--seed", "3"],
    );
    assert!(inside["first_total"]["wins"].as_u64().unwrap() >= 3);
}

#[test]
fn external_player_plays_a_whole_game_in_process() {
    let mut ext = ExternalPlayer::spawn_for(
        Yinsh::standard(),
        &format!("{BIN} engine --player greedy"),
        ExternalConfig::default(),
    )
    .unwrap();
    assert!(ext.id_name().unwrap().starts_with("yinsh-zero"));
    let mut random = RandomPlayer::new(5);
    let rec = play_game(&mut random, &mut ext, Position::blitz()).unwrap();
    assert!(rec.final_position().is_over());
}

fn fake_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\n\
         while read line; do\n\
           case \"$line\" in\n\
             yinsh) echo \"id name {name}\"; echo yinshok;;\n\
             isready) echo readyok;;\n\
             go*) {on_go};;\n\
             quit) exit 0;;\n\
           esac\n\
         done\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn broken_engines_forfeit_with_a_clear_report_and_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            fake_engine(
                dir.path(),
                "garbage",
                "echo 'info nonsense'; echo 'bestmove q99'",
            ),
            "not a legal decision",
        ),
        (
            fake_engine(dir.path(), "crash", "echo 'out of memory' >&2; exit 3"),
            "exit status: 3",
        ),
        (
            fake_engine(dir.path(), "hang", "exec sleep 60"),
            "no answer to `go` within 0.3 s",
        ),
        (dir.path().join("missing"), "exit status: 127"),
    ];
    for (path, why) in cases {
        let white = format!("cmd:{}", path.display());
        let v = match_json(&white, "random", &["--games", "2", "--move-timeout", "0.3"]);
        let forfeits = v["forfeits"].as_array().unwrap();
        assert_eq!(forfeits.len(), 2, "{v}");
        let f = &forfeits[0]["forfeit"];
        assert_eq!(f["side"], "white");
        let error = f["error"].as_str().unwrap();
        assert!(error.contains(why), "{path:?}: {error}");
        assert_eq!(v["first_total"]["losses"], 2);
        assert_eq!(v["end_reasons"]["forfeit"], 2);
    }
    // The crash report carries the program's last words.
    let crash = format!("cmd:{}", dir.path().join("crash").display());
    let v = match_json(&crash, "random", &["--games", "1", "--move-timeout", "0.3"]);
    let error = v["forfeits"][0]["forfeit"]["error"].as_str().unwrap();
    assert!(error.contains("out of memory"), "{error}");
}

#[test]
fn in_process_failures_are_play_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = fake_engine(dir.path(), "garbage", "echo 'bestmove a1-a2'");
    let mut ext = ExternalPlayer::spawn_for(
        Yinsh::standard(),
        path.to_str().unwrap(),
        ExternalConfig::default(),
    )
    .unwrap();
    let mut random = RandomPlayer::new(1);
    let err = play_game(&mut ext, &mut random, Position::new()).unwrap_err();
    assert!(
        matches!(err, PlayError::PlayerFailed { step: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("bestmove a1-a2"), "{err}");
}

#[test]
fn the_game_line_names_the_game_and_refuses_another() {
    let lines = engine_session(
        &["--player", "random", "--variant", "blitz"],
        "game\ngame yinsh standard\ngame\nnewgame\ngame\ngame chess\ngame yinsh nonsense\nquit",
    );
    assert_eq!(
        lines[..3],
        [
            "game yinsh blitz",
            "game yinsh standard",
            "game yinsh blitz"
        ],
        "{lines:?}"
    );
    assert!(
        lines[3].starts_with("error ") && lines[3].contains("engine --game chess"),
        "{lines:?}"
    );
    assert!(
        lines[4].starts_with("error ") && lines[4].contains("nonsense"),
        "{lines:?}"
    );
}

/// The error of starting `command` as an engine for `game`, which must fail.
fn refusal<G: yinsh_zero::game::Game>(game: G, command: &str) -> String {
    match ExternalPlayer::spawn_for(game, command, ExternalConfig::default()) {
        Ok(_) => panic!("`{command}` was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_external_program_is_told_the_game_and_refused_for_another() {
    // Our engine answers the client's `game` lines: it plays YINSH, so it
    // is refused as a tic-tac-toe engine, both games named, and accepted
    // for YINSH.
    let ours = format!("{BIN} engine --player random");
    let err = refusal(TicTacToe, &ours);
    assert!(
        err.contains("it plays yinsh, not tictactoe") && err.contains("engine --game tictactoe"),
        "{err}"
    );
    let mut ext =
        ExternalPlayer::spawn_for(Yinsh::blitz(), &ours, ExternalConfig::default()).unwrap();
    let rec = play_game(&mut RandomPlayer::new(2), &mut ext, Position::blitz()).unwrap();
    assert!(rec.final_position().is_over());

    // A program that answers `game` with another game is refused, naming it.
    let dir = tempfile::tempdir().unwrap();
    let othello = dir.path().join("othello");
    std::fs::write(
        &othello,
        "#!/bin/sh\n\
         while read line; do\n\
           case \"$line\" in\n\
             yinsh) echo yinshok;;\n\
             game) echo 'game othello standard';;\n\
             isready) echo readyok;;\n\
             quit) exit 0;;\n\
           esac\n\
         done\n",
    )
    .unwrap();
    std::fs::set_permissions(&othello, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = refusal(Yinsh::standard(), othello.to_str().unwrap());
    assert!(err.contains("it plays othello, not yinsh"), "{err}");

    // A program that does not answer `game` (written before the line) is
    // taken to be a YINSH engine: fine for YINSH, refused for another game.
    let old = fake_engine(dir.path(), "old", "echo 'bestmove e3'");
    let old = old.to_str().unwrap();
    ExternalPlayer::spawn_for(Yinsh::standard(), old, ExternalConfig::default()).unwrap();
    let err = refusal(TicTacToe, old);
    assert!(
        err.contains("taken to be a yinsh engine, not one for tictactoe"),
        "{err}"
    );
}

#[test]
fn an_unknown_game_is_refused_at_start() {
    let err = failed(&yz(["engine", "--game", "chess"]));
    assert!(
        err.contains("unknown game `chess`") && err.contains("yinsh"),
        "{err}"
    );
}

#[test]
fn without_a_player_the_engine_plays_the_shipped_network() {
    // Cargo runs the tests in the project's root, where checkpoints/ is.
    let player = |args: &[&str], dir: &Path| {
        let mut child = Command::new(BIN)
            .arg("engine")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // One quick search: the driver's limit replaces the default second.
        writeln!(child.stdin.take().unwrap(), "yinsh\ngo sims 4\nquit").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let lines: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert!(
            lines.iter().any(|l| l.starts_with("bestmove ")),
            "{lines:?}"
        );
        lines
            .iter()
            .find_map(|l| l.strip_prefix("id player "))
            .unwrap()
            .to_string()
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let one = ["--threads", "1"];
    assert_eq!(
        player(&one, root),
        "net-mcts:checkpoint=checkpoints/best,time=1000,threads=1"
    );
    // Each game its own network, the variant's own first.
    for (variant, folder) in [("six", "six-mens-morris"), ("nine", "nine-mens-morris")] {
        let args = [&one[..], &["--game", "morris", "--variant", variant]].concat();
        assert_eq!(
            player(&args, root),
            format!("net-mcts:checkpoint=checkpoints/{folder}/best,time=1000,threads=1")
        );
    }
    // No network shipped where the engine runs: alpha-beta.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(player(&one, elsewhere.path()), "alphabeta:depth=3");
}

#[test]
fn the_engines_network_player_gets_every_core_unless_told() {
    let session = |args: &[&str]| {
        let mut all = vec!["--player", "net-mcts:checkpoint=checkpoints/best,sims=8"];
        all.extend_from_slice(args);
        engine_session(&all, "yinsh\nposition startpos\ngo\nquit")
    };
    let player = |lines: &[String]| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix("id player "))
            .unwrap()
            .to_string()
    };
    let lines = session(&["--threads", "2"]);
    assert_eq!(
        player(&lines),
        "net-mcts:checkpoint=checkpoints/best,sims=8,threads=2"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("bestmove ")),
        "{lines:?}"
    );
    // By default: every core of the machine.
    let cores = std::thread::available_parallelism().unwrap().get();
    let lines = session(&[]);
    assert!(
        player(&lines).ends_with(&format!(",threads={cores}")),
        "{lines:?}"
    );
    // A spec's own `threads` stands.
    let mut all = vec![
        "--player",
        "net-mcts:checkpoint=checkpoints/best,sims=8,threads=1",
    ];
    all.extend_from_slice(&["--threads", "2"]);
    let lines = engine_session(&all, "yinsh\nquit");
    assert!(player(&lines).ends_with(",threads=1"), "{lines:?}");
    // Other players are left alone, and a bad count is refused.
    let lines = engine_session(&["--player", "alphabeta:depth=1"], "yinsh\nquit");
    assert_eq!(player(&lines), "alphabeta:depth=1");
    let err = failed(&yz(["engine", "--threads", "0"]));
    assert!(err.contains("--threads must be from 1 to 64"), "{err}");
}
