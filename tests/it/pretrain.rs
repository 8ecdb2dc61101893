//! The warm start: teacher games become record files, generation 0 learns
//! from them, and the run trains on from there. On tic-tac-toe (defined in
//! the tests) the teacher plays perfectly, so imitation can be measured
//! against perfect play; through the binary on YINSH.

use crate::common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

use common::cli::{BIN, failed, succeeded, yz};
use common::tictactoe::{Board, PerfectPlayer, TicTacToe};
use yinsh_zero::arena::{Player, parse_game_player, play_game};
use yinsh_zero::checkpoint;
use yinsh_zero::game::{Color, GameResult, State};
use yinsh_zero::replay::record;
use yinsh_zero::run::RunDir;
use yinsh_zero::run::config::PretrainConfig;
use yinsh_zero::run::config::{DEFAULT_CONFIG, RunConfig};
use yinsh_zero::run::pretrain::{play_teacher_games, samples, warm_start};
use yinsh_zero::run::train_loop::train;

/// A tic-tac-toe run whose generation 0 imitates a perfect player.
fn config() -> RunConfig {
    let mut cfg = RunConfig::from_toml(DEFAULT_CONFIG, "the default config").unwrap();
    cfg.game.name = "tictactoe".into();
    cfg.run.seed = 11;
    cfg.run.games_per_generation = 16;
    cfg.model.blocks = 1;
    cfg.model.channels = 32;
    cfg.model.value_channels = 4;
    cfg.model.value_hidden = 32;
    cfg.search.simulations = 16;
    cfg.search.fast_simulations = 16;
    cfg.search.gumbel_m = 9;
    cfg.selfplay.workers = 2;
    cfg.selfplay.games_in_flight = 8;
    cfg.selfplay.resign = false;
    cfg.replay.min_size = 1000;
    cfg.train.batch_size = 64;
    cfg.train.min_positions = 100;
    cfg.train.learning_rate = 0.003;
    cfg.train.warmup_steps = 10;
    cfg.train.margin_loss_weight = 0.0;
    cfg.gating.enabled = false;
    cfg.baseline.every = 0;
    cfg.baseline.opponents = vec!["random".into()];
    cfg.pretrain = PretrainConfig {
        games: 400,
        // Deep enough to search tic-tac-toe to the end: a perfect teacher.
        teacher: "alphabeta:depth=9".into(),
        epochs: 12.0,
        learning_rate: 0.003,
        lr_floor: 0.1,
        label_smoothing: 0.1,
        opening_moves: 2,
        workers: 2,
        games_per_file: 100,
    };
    cfg
}

/// Games of `spec` against a perfect player, both colours: its losses.
fn losses_against_perfect(spec: &str, games: u64) -> u32 {
    let mut lost = 0;
    for i in 0..games {
        let mut net: Box<dyn Player<Board>> = parse_game_player(&TicTacToe, spec, i).unwrap();
        let mut perfect = PerfectPlayer::new(500 + i);
        let (record, net_color) = if i % 2 == 0 {
            (
                play_game(net.as_mut(), &mut perfect, Board::new()),
                Color::White,
            )
        } else {
            (
                play_game(&mut perfect, net.as_mut(), Board::new()),
                Color::Black,
            )
        };
        if matches!(record.unwrap().result, GameResult::Win(c) if c != net_color) {
            lost += 1;
        }
    }
    lost
}

#[test]
fn generation_zero_imitates_a_perfect_teacher_and_the_run_trains_on() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path());
    let cfg = config();
    let stop = AtomicBool::new(false);
    let done = warm_start(&TicTacToe, &run, &cfg, &stop)
        .unwrap()
        .expect("not stopped");
    assert_eq!(done.games, 400);
    assert!(done.positions > 1000 && done.steps > 100, "{done:?}");

    let ckpts = run.checkpoints();
    assert_eq!(checkpoint::list(&ckpts).unwrap(), vec![0]);
    assert_eq!(checkpoint::read_best(&ckpts).unwrap(), Some(0));
    let gen0 = checkpoint::generation_dir(&ckpts, 0);
    let meta = checkpoint::read_meta(&gen0).unwrap();
    assert_eq!(meta.game, "tictactoe");
    assert_eq!(meta.train_steps, done.steps);
    assert!(!meta.replay_files.is_empty());
    assert!(
        meta.replay_files
            .iter()
            .all(|f| f.starts_with("data/teacher/")),
        "{:?}",
        meta.replay_files
    );
    assert!(gen0.join("optimizer.bpk").exists());

    // The network alone, no search. Before: a network with this run's
    // initial weights (a run without a warm start) loses most games to
    // perfect play. After imitating the perfect teacher it must lose few.
    let policy = |dir: &Path| format!("net-policy:checkpoint={}", dir.display());
    let lost_after = losses_against_perfect(&policy(&gen0), 40);
    eprintln!("warm-started policy vs perfect: lost {lost_after} of 40");
    assert!(
        lost_after <= 8,
        "the warm-started policy lost {lost_after} of 40"
    );
    // Generation 0 of a run without a warm start, for comparison.
    let fresh = RunDir::new(&tmp.path().join("fresh"));
    let mut cold = cfg.clone();
    cold.pretrain.games = 0;
    cold.run.generations = 1;
    cold.run.games_per_generation = 1;
    train(&TicTacToe, &fresh, cold, &stop).unwrap();
    let fresh0 = checkpoint::generation_dir(&fresh.checkpoints(), 0);
    let lost_before = losses_against_perfect(&policy(&fresh0), 40);
    eprintln!("random-start policy vs perfect: lost {lost_before} of 40");
    assert!(
        lost_before >= lost_after + 10,
        "random start lost {lost_before}, warm start {lost_after}"
    );

    // The run goes on from generation 0, its window starting with the
    // teacher's positions.
    let mut on = cfg.clone();
    on.run.generations = 1;
    let s = train(&TicTacToe, &run, on, &stop).unwrap();
    assert_eq!((s.first_generation, s.last_generation), (1, 1));
    let meta1 = checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, 1)).unwrap();
    assert!(meta1.train_steps > meta.train_steps);
    assert!(
        meta1
            .replay_files
            .iter()
            .any(|f| f.starts_with("data/teacher/"))
            && meta1
                .replay_files
                .iter()
                .any(|f| f.starts_with("data/selfplay/")),
        "{:?}",
        meta1.replay_files
    );

    // A second warm start of the same run is refused by name.
    let e = warm_start(&TicTacToe, &run, &cfg, &stop)
        .unwrap_err()
        .to_string();
    assert!(e.contains("already has generation 1"), "{e}");
}

#[test]
fn teacher_games_resume_and_target_the_teachers_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("teacher");
    let mut cfg = config().pretrain;
    cfg.games = 6;
    cfg.games_per_file = 4;
    let stop = AtomicBool::new(false);
    let first = play_teacher_games(&TicTacToe, &cfg, 3, &dir, &stop).unwrap();
    assert_eq!((first.games, first.played), (6, 6));
    cfg.games = 10;
    let second = play_teacher_games(&TicTacToe, &cfg, 3, &dir, &stop).unwrap();
    assert_eq!((second.games, second.played), (10, 4));
    assert!(second.files.len() > first.files.len());
    let in_files: u64 = second
        .files
        .iter()
        .map(|f| record::read(&TicTacToe, f).unwrap().meta.games as u64)
        .sum();
    assert_eq!(in_files, 10);
    // Nothing left to play: nothing is played.
    let third = play_teacher_games(&TicTacToe, &cfg, 3, &dir, &stop).unwrap();
    assert_eq!((third.games, third.played), (10, 0));

    // A stop request before the first game plays none.
    let stopped = play_teacher_games(
        &TicTacToe,
        &PretrainConfig { games: 20, ..cfg },
        3,
        &dir,
        &AtomicBool::new(true),
    )
    .unwrap();
    assert!(stopped.interrupted);
    assert_eq!(stopped.played, 0);
}

#[test]
fn a_teacher_sample_puts_most_of_its_target_on_the_move_played() {
    let mut w = PerfectPlayer::new(1);
    let mut b = PerfectPlayer::new(2);
    let rec = play_game(&mut w, &mut b, Board::new()).unwrap();
    assert_eq!(rec.result, GameResult::Draw, "perfect play draws");
    let s = samples(&TicTacToe, &rec, 0.1);
    // The last cell is forced: no sample for it.
    assert_eq!(s.len(), rec.actions.len() - 1);
    let mut pos = rec.start;
    for (sample, &played) in s.iter().zip(&rec.actions) {
        let legal = pos.legal_actions().len() as f32;
        let top = sample
            .policy
            .iter()
            .copied()
            .fold((0, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
        assert_eq!(top.0 as usize, played.0 as usize);
        assert!((top.1 - (0.9 + 0.1 / legal)).abs() < 1e-6);
        let sum: f32 = sample.policy.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-5);
        assert_eq!(sample.outcome, 0);
        sample.validate(&TicTacToe).unwrap();
        pos.play_unchecked(played);
    }
    // Without smoothing the target is the move alone.
    let hard = samples(&TicTacToe, &rec, 0.0);
    assert!(
        hard.iter()
            .all(|s| s.policy.len() == 1 && s.policy[0].1 == 1.0)
    );
}

fn tiny_config(dir: &Path) -> std::path::PathBuf {
    let text =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml")).unwrap();
    let header = "[pretrain]\n";
    assert!(
        text.contains(header),
        "configs/tiny.toml has a [pretrain] table"
    );
    let p = dir.join("tiny.toml");
    fs::write(
        &p,
        text.replace("generations = 2", "generations = 1").replace(
            header,
            "[pretrain]\nteacher = \"alphabeta:depth=1\"\nepochs = 1.0\n",
        ),
    )
    .unwrap();
    p
}

#[test]
fn the_pretrain_command_begins_a_run_that_train_continues() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tiny_config(tmp.path());
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let config_and_run = ["--config", cfg.to_str().unwrap(), "--run", run_s];
    let cmd = |args: &[&str]| yz(args.iter().chain(&config_and_run));

    // Without games there is nothing to learn from: said, and nothing made.
    assert!(failed(&cmd(&["pretrain"])).contains("--games"));
    // A network cannot teach.
    let err = failed(&cmd(&[
        "pretrain",
        "--games",
        "2",
        "--teacher",
        "net-policy",
    ]));
    assert!(err.contains("pretrain.teacher"), "{err}");

    let stdout = succeeded(&cmd(&["pretrain", "--games", "4"]));
    assert!(
        stdout.contains("warm start done: 4 teacher games"),
        "{stdout}"
    );
    assert!(run.join("checkpoints/000000/meta.json").exists());
    assert!(fs::read_dir(run.join("data/teacher")).unwrap().count() > 0);

    // `train` with the same config goes on from generation 0 (the frozen
    // config remembers the warm start's games).
    let stdout = succeeded(&cmd(&["train"]));
    assert!(stdout.contains("trained generation 1"), "{stdout}");
    let frozen = RunConfig::load(Some(&run.join("config.toml"))).unwrap();
    assert_eq!(frozen.pretrain.games, 4);

    let err = failed(&cmd(&["pretrain", "--games", "4"]));
    assert!(err.contains("already has generation 1"), "{err}");

    // A checkpoint travels without its replay data (as the shipped network
    // does): training goes on from its weights and optimizer state.
    fs::remove_dir_all(run.join("data")).unwrap();
    let two = tmp.path().join("two.toml");
    fs::write(
        &two,
        fs::read_to_string(&cfg)
            .unwrap()
            .replace("generations = 1", "generations = 2"),
    )
    .unwrap();
    let out = yz(["train", "--config", two.to_str().unwrap(), "--run", run_s]);
    let stdout = succeeded(&out);
    assert!(stdout.contains("trained generation 2"), "{stdout}");
    // One line says the old window is gone, not one line per file.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("are gone").count(), 1, "{stderr}");
    assert!(!stderr.contains("skipping record file"), "{stderr}");
    let m1 = checkpoint::read_meta(&run.join("checkpoints/000001")).unwrap();
    let m2 = checkpoint::read_meta(&run.join("checkpoints/000002")).unwrap();
    assert!(m2.train_steps > m1.train_steps);

    // `serve` in a folder whose checkpoints/ holds a network offers it first.
    let mut serve = Command::new(BIN)
        .args(["serve", "--port", "0"])
        .current_dir(&run)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let line = BufReader::new(serve.stderr.take().unwrap())
        .lines()
        .map(|l| l.unwrap())
        .find(|l| l.starts_with("default opponent"));
    serve.kill().unwrap();
    serve.wait().unwrap();
    assert_eq!(
        line.as_deref(),
        Some("default opponent: net-mcts:net=shipped")
    );
}
