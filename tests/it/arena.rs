//! The arena, Elo and SPRT through the public library API and the binary.

use crate::common;

use std::process::Command;

use common::cli::{failed, succeeded, yz};
use yinsh_zero::arena::{
    ArenaConfig, ArenaGame, Openings, PairResults, Player, Sprt, Verdict, fit_games,
    new_history_file, read_history, run_arena, write_history,
};
use yinsh_zero::games::yinsh::notation::parse_game;
use yinsh_zero::games::yinsh::{Action, Position, Yinsh, parse_player};

fn internal(spec: &str, seed: u64) -> Result<Box<dyn Player<Position>>, String> {
    parse_player(spec, seed).map_err(|e| e.to_string())
}

fn arena_on(threads: usize, config: &ArenaConfig<Yinsh>) -> Vec<ArenaGame> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| run_arena(config, &internal, &mut |_| {}).unwrap().games)
}

/// Runs `yinsh-zero evaluate` (4 games per pairing, 2 threads) recording into
/// `run` and writing `json`; stdout and stderr of a successful run.
fn evaluate(
    players: &str,
    seed: &str,
    run: &std::path::Path,
    json: &std::path::Path,
) -> (String, String) {
    let out = yz([
        "evaluate",
        "--players",
        players,
        "--games",
        "4",
        "--threads",
        "2",
        "--seed",
        seed,
        "--run",
        run.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = succeeded(&out);
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn results_depend_on_the_seed_not_the_threads() {
    let config = ArenaConfig::round_robin(
        Yinsh::standard(),
        &["random", "greedy", "alphabeta:depth=1"],
        6,
        11,
    );
    let one = arena_on(1, &config);
    let two = arena_on(2, &config);
    assert_eq!(one, two);
    assert_eq!(one.len(), 18);
    let other = arena_on(2, &ArenaConfig { seed: 12, ..config });
    assert_ne!(one, other);
}

#[test]
fn openings_are_paired_with_colours_swapped() {
    let config = ArenaConfig::round_robin(Yinsh::standard(), &["random", "greedy"], 8, 3);
    let games = arena_on(2, &config);
    let start = Position::new();
    for pair in games.chunks(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert_eq!(a.opening, b.opening);
        assert_eq!(
            (a.white.as_str(), a.black.as_str()),
            (b.black.as_str(), b.white.as_str())
        );
        assert!(a.first_white && !b.first_white);
        // Four ring placements, legal from the start.
        assert_eq!(parse_game(&start, &a.opening).unwrap().len(), 4);
        assert!(a.length > 4);
    }
    // Different openings for different pairs of games.
    assert_ne!(games[0].opening, games[2].opening);
}

#[test]
fn fixed_openings_are_used_in_turn() {
    let start = Position::new();
    let list = vec![
        parse_game(&start, "a2 b2").unwrap(),
        parse_game(&start, "k7 k8 k9").unwrap(),
    ];
    let config = ArenaConfig {
        openings: Openings::Fixed(list),
        ..ArenaConfig::round_robin(Yinsh::standard(), &["random", "greedy"], 6, 5)
    };
    let openings: Vec<String> = arena_on(1, &config)
        .into_iter()
        .map(|g| g.opening)
        .collect();
    assert_eq!(
        openings,
        ["a2 b2", "a2 b2", "k7 k8 k9", "k7 k8 k9", "a2 b2", "a2 b2"]
    );
}

/// Plays `pass` whatever the position: illegal until the very rare walled-in
/// case, so it forfeits.
struct Passer;

impl Player<Position> for Passer {
    fn name(&self) -> String {
        "passer".into()
    }
    fn choose(&mut self, _pos: &Position) -> Action {
        Action::Pass
    }
}

#[test]
fn failing_players_forfeit_and_the_arena_goes_on() {
    let factory = |spec: &str, seed: u64| -> Result<Box<dyn Player<Position>>, String> {
        match spec {
            "passer" => Ok(Box::new(Passer)),
            "broken" => Err("cannot start `broken`: no such program".into()),
            _ => internal(spec, seed),
        }
    };
    let config = ArenaConfig {
        gauntlet: Some("random".into()),
        ..ArenaConfig::round_robin(Yinsh::standard(), &["passer", "broken"], 4, 1)
    };
    let r = run_arena(&config, &factory, &mut |_| {}).unwrap();
    assert_eq!(r.games.len(), 8);
    assert_eq!(r.forfeits().count(), 8);
    for p in &r.pairings {
        assert_eq!(
            p.results,
            PairResults {
                wins: 4,
                draws: 0,
                losses: 0
            },
            "{p:?}"
        );
        assert_eq!((p.forfeits_first, p.forfeits_second), (0, 4));
    }
    let g = r.games.iter().find(|g| g.second == "passer").unwrap();
    let f = g.forfeit.as_ref().unwrap();
    assert_eq!(f.player, "passer");
    assert!(
        f.error.contains("`pass`") && f.error.contains("illegal"),
        "{}",
        f.error
    );
    let g = r.games.iter().find(|g| g.second == "broken").unwrap();
    assert!(
        g.forfeit
            .as_ref()
            .unwrap()
            .error
            .contains("no such program")
    );
    assert_eq!(g.reason, "forfeit");
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let config = ArenaConfig {
        gauntlet: Some("greedy".into()),
        sprt: Some(Sprt::new(0.0, 100.0).unwrap()),
        ..ArenaConfig::round_robin(Yinsh::standard(), &["random"], 400, 9)
    };
    let r = arena_on(2, &config);
    assert!(r.len() < 100, "greedy crushes random: {} games", r.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let full = pool.install(|| run_arena(&config, &internal, &mut |_| {}).unwrap());
    let s = full.sprt.unwrap();
    assert_eq!(s.verdict, Verdict::AcceptH1);
    assert_eq!(
        s.games as usize,
        r.len(),
        "the stop does not depend on threads"
    );
    assert!(s.llr >= s.upper_bound);
}

#[test]
fn history_round_trips_and_feeds_the_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let config = ArenaConfig::round_robin(Yinsh::standard(), &["random", "greedy"], 10, 2);
    let games = arena_on(2, &config);
    let first = new_history_file(dir.path());
    write_history(&first, &games).unwrap();
    let second = new_history_file(dir.path());
    assert_ne!(first, second);
    assert!(
        second
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("000002-")
    );
    write_history(&second, &games[..4]).unwrap();
    let back = read_history(dir.path()).unwrap();
    assert_eq!(back.len(), 14);
    assert_eq!(&back[..10], &games[..]);
    let fit = fit_games(&back, "greedy").unwrap();
    assert_eq!(fit.anchor, "random");
    assert_eq!(fit.rating("random").unwrap().elo, 0.0);
    assert!(fit.rating("greedy").unwrap().elo > 100.0, "{fit:?}");
    std::fs::write(dir.path().join("000003-1.jsonl"), "{not json\n").unwrap();
    let err = read_history(dir.path()).unwrap_err().to_string();
    assert!(err.contains("000003-1.jsonl, line 1"), "{err}");
}

#[test]
fn records_say_what_each_side_searched() {
    // mcts-rollout reports its simulations (at most 40 a decision),
    // alpha-beta its positions, random nothing.
    let players = ["random", "mcts-rollout:playouts=40", "alphabeta:depth=1"];
    let config = ArenaConfig::round_robin(Yinsh::blitz(), &players, 2, 5);
    let games = arena_on(2, &config);
    for g in &games {
        for (spec, effort) in [(&g.white, g.effort_white), (&g.black, g.effort_black)] {
            if spec == "random" {
                assert_eq!(effort, None, "{g:?}");
                continue;
            }
            let e = effort.unwrap_or_else(|| panic!("{spec} reports its search: {g:?}"));
            assert!(e.decisions > 0 && e.decisions as usize <= g.length, "{g:?}");
            assert!(e.nodes >= e.decisions as u64, "{g:?}");
            if spec.starts_with("mcts") {
                assert!(e.nodes <= 40 * e.decisions as u64, "{g:?}");
                // Each decision's playouts: one a leaf, the root's with them.
                let evaluated = e.evaluations.expect("a tree search says what it evaluated");
                assert!(
                    evaluated > 0 && evaluated <= e.nodes + e.decisions as u64,
                    "{g:?}"
                );
            } else {
                assert_eq!(e.evaluations, None, "{g:?}");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = new_history_file(dir.path());
    write_history(&file, &games).unwrap();
    assert_eq!(read_history(dir.path()).unwrap(), games);
    // Records written before efforts were kept still read.
    let old = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("effort_white");
            o.remove("effort_black");
            v.to_string() + "\n"
        })
        .collect::<String>();
    std::fs::write(&file, old).unwrap();
    let back = read_history(dir.path()).unwrap();
    assert!(
        back.iter()
            .all(|g| g.effort_white.is_none() && g.effort_black.is_none())
    );

    let pairings = yinsh_zero::arena::PairingResult::group(&config.pairings(), &games);
    let p = pairings
        .iter()
        .find(|p| p.first == "random" && p.second.starts_with("mcts"))
        .unwrap();
    assert_eq!(p.nodes_first, None);
    let n = p.nodes_second.unwrap();
    assert!((1.0..=40.0).contains(&n), "{n}");
    assert_eq!(p.evaluations_first, None);
    let e = p.evaluations_second.unwrap();
    assert!((1.0..=41.0).contains(&e), "{e}");
}

#[test]
fn evaluate_command_prints_tables_records_and_folds_history() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let evaluate = |seed: &str| {
        evaluate(
            "random,alphabeta:depth=1,tt=12,greedy",
            seed,
            dir.path(),
            &json,
        )
        .0
    };
    let text = evaluate("1");
    assert!(
        text.contains("random vs alphabeta:depth=1,tt=12")
            && text.contains("alphabeta:depth=1,tt=12 vs greedy"),
        "{text}"
    );
    assert!(text.contains("anchored at random = 0"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("random vs alphabeta:depth=1,tt=12 "))
        .unwrap();
    assert!(line.contains("nodes/decision - vs "), "{text}");
    // Alpha-beta evaluates no leaves with a network or playouts.
    assert!(!line.contains("evaluations/decision"), "{text}");
    evaluate("2");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        v["pairings"][0]["results"]["wins"].as_u64().unwrap()
            + v["pairings"][0]["results"]["draws"].as_u64().unwrap()
            + v["pairings"][0]["results"]["losses"].as_u64().unwrap(),
        4
    );
    let greedy = v["ratings"]["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "greedy")
        .unwrap();
    assert_eq!(greedy["games"], 16, "both runs' games are rated: {v}");
    assert_eq!(v["ratings_this_run"]["ratings"][0]["games"], 8);
    let files = std::fs::read_dir(dir.path().join("eval")).unwrap().count();
    assert_eq!(files, 2);
}

#[test]
fn evaluate_records_name_their_game_and_fold_only_that_game() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    evaluate("random,greedy", "3", dir.path(), &json);
    let eval = dir.path().join("eval");
    let games = read_history(&eval).unwrap();
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.game == "yinsh"), "{games:?}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["game"], "yinsh");

    // A record from before games had names is a YINSH game; one of another
    // game is kept on disk but left out of YINSH ratings.
    let mut old = serde_json::to_value(&games[0]).unwrap();
    old.as_object_mut().unwrap().remove("game");
    let mut other = serde_json::to_value(&games[1]).unwrap();
    other["game"] = "tictactoe".into();
    std::fs::write(eval.join("000009-1.jsonl"), format!("{old}\n{other}\n")).unwrap();
    let back = read_history(&eval).unwrap();
    assert_eq!(back.len(), 6);
    assert_eq!(back[4].game, "yinsh");
    assert_eq!(back[5].game, "tictactoe");
    let out = yz([
        "evaluate",
        "--history-only",
        "--run",
        dir.path().to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    succeeded(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 games of other games"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        v["pairings"][0]["results"]["wins"].as_u64().unwrap()
            + v["pairings"][0]["results"]["draws"].as_u64().unwrap()
            + v["pairings"][0]["results"]["losses"].as_u64().unwrap(),
        5
    );

    let stderr = failed(&yz([
        "evaluate",
        "--game",
        "chess",
        "--players",
        "random,greedy",
    ]));
    assert!(stderr.contains("unknown game `chess`"), "{stderr}");
}

#[test]
fn evaluate_rerun_with_the_same_seed_finishes_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let evaluate = || {
        let (_, stderr) = evaluate("random,greedy,alphabeta:depth=1", "5", dir.path(), &json);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        (stderr, v)
    };
    let eval_dir = dir.path().join("eval");
    let (_, whole) = evaluate();
    let files: Vec<_> = std::fs::read_dir(&eval_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let games_of = |fit: &serde_json::Value, player: &str| {
        fit["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player"] == player)
            .unwrap()["games"]
            .clone()
    };
    assert_eq!(games_of(&whole["ratings"], "greedy"), 8);

    // As if killed after 5 of the 12 games were written.
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let kept: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&files[0], kept.join("\n") + "\n").unwrap();
    let (stderr, resumed) = evaluate();
    assert!(stderr.contains("5 of these games are recorded"), "{stderr}");
    assert_eq!(resumed["pairings"], whole["pairings"]);
    assert_eq!(
        games_of(&resumed["ratings"], "greedy"),
        8,
        "no game is counted twice: {resumed}"
    );
    assert_eq!(read_history(&eval_dir).unwrap().len(), 12);

    // Finished: a third run plays nothing and writes no file.
    let (stderr, again) = evaluate();
    assert!(
        stderr.contains("12 of these games are recorded"),
        "{stderr}"
    );
    assert_eq!(again["pairings"], whole["pairings"]);
    assert_eq!(read_history(&eval_dir).unwrap().len(), 12);
    assert_eq!(std::fs::read_dir(&eval_dir).unwrap().count(), 2);
}

#[test]
fn ctrl_c_stops_evaluate_with_the_games_played_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_yinsh-zero"))
        .args([
            "evaluate",
            "--players",
            "alphabeta:depth=2,alphabeta:depth=1",
            "--games",
            "2000",
            "--threads",
            "1",
            "--seed",
            "9",
            "--run",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first recorded batch, then interrupt as a terminal would.
    let eval_dir = dir.path().join("eval");
    while read_history(&eval_dir).map_or(true, |g| g.is_empty()) {
        assert!(child.try_wait().unwrap().is_none(), "evaluate ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = read_history(&eval_dir).unwrap().len();
    assert!(recorded < 2000, "{recorded}");
    assert!(
        stdout.contains(&format!("stopped early: {recorded} of 2000 games played"))
            && stdout.contains("--seed 9 plays the other"),
        "{stdout}"
    );
    assert!(
        stdout.contains("alphabeta:depth=2 vs alphabeta:depth=1"),
        "{stdout}"
    );
}

#[test]
fn net_mcts_lcb_and_discount_are_checked() {
    use yinsh_zero::arena::parse_game_player;
    use yinsh_zero::games::yinsh::Yinsh;
    let cases = [
        ("lcb", &["-1", "11", "NaN", "x"][..], "from 0 to 10"),
        (
            "discount",
            &["0", "-0.5", "1.01", "NaN", "x"][..],
            "at most 1",
        ),
    ];
    for (key, bads, why) in cases {
        for bad in bads {
            let spec = format!("net-mcts:checkpoint=checkpoints/best,{key}={bad}");
            let e = parse_game_player(&Yinsh::standard(), &spec, 0)
                .err()
                .expect("refused")
                .to_string();
            assert!(e.contains(key) && e.contains(why), "{e}");
        }
    }
}
