//! The whole loop on a game other than YINSH: self-play, record files,
//! replay window, training, checkpoints, gating duels and baseline matches
//! run on tic-tac-toe (defined in the tests, on the public `Game` trait
//! only); the trained agent (the search guided by the network) must never
//! lose to a perfect player, and the network alone must lose far less than
//! before. A run and a network belong to their game: another game's are
//! refused by name.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use common::tictactoe::{Board, PerfectPlayer, TicTacToe};
use serde_json::Value;
use yinsh_zero::arena::{Player, parse_game_player, play_game};
use yinsh_zero::checkpoint::{self, CheckpointError};
use yinsh_zero::game::{Color, Game, GameResult};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::nn::default_device;
use yinsh_zero::run::RunDir;
use yinsh_zero::run::config::{DEFAULT_CONFIG, RunConfig};
use yinsh_zero::run::train_loop::train;
use yinsh_zero::train::config::LrSchedule;

/// A run sized for tic-tac-toe: a tiny network, every candidate promoted.
fn config(generations: u64) -> RunConfig {
    let mut cfg = RunConfig::from_toml(DEFAULT_CONFIG, "the default config").unwrap();
    cfg.game.name = "tictactoe".into();
    cfg.game.variant = "standard".into();
    cfg.run.generations = generations;
    cfg.run.games_per_generation = 96;
    cfg.run.seed = 7;
    cfg.model.blocks = 1;
    cfg.model.channels = 32;
    cfg.model.value_channels = 4;
    cfg.model.value_hidden = 32;
    cfg.search.simulations = 48;
    cfg.search.fast_simulations = 48;
    cfg.search.full_search_prob = 1.0;
    cfg.search.gumbel_m = 9;
    cfg.search.temperature_turns = 9;
    // One worker: with two, the order in which their games reach the
    // replay window varies run to run, and so does the network (final
    // loss 0.86 to 0.97 in four runs here; the 0.97 one's search lost 7 of
    // 40 to perfect play while its bare policy drew all 40). With one the
    // run repeats exactly on a machine (loss 0.465 three times).
    cfg.selfplay.workers = 1;
    cfg.selfplay.games_in_flight = 48;
    cfg.selfplay.opening_moves = 1;
    cfg.selfplay.resign = false;
    cfg.selfplay.games_per_file = 48;
    cfg.replay.min_size = 3000;
    cfg.replay.max_size = 20000;
    cfg.train.batch_size = 64;
    cfg.train.min_positions = 300;
    cfg.train.train_ratio = 8.0;
    cfg.train.warmup_steps = 10;
    cfg.train.learning_rate = 0.003;
    // A constant rate left the last network (the one tested) a noisy step
    // away from a good one: in 3 of 18 runs even the search lost games.
    // Decaying it over the run's steps (~92 a generation) settles it.
    cfg.train.lr_schedule = LrSchedule::Cosine;
    cfg.train.lr_decay_steps = 92 * generations;
    cfg.train.lr_floor = 0.05;
    cfg.train.margin_loss_weight = 0.0;
    cfg.gating.enabled = false;
    cfg.baseline.every = generations;
    cfg.baseline.opponents = vec!["random".into()];
    cfg.baseline.games = 10;
    cfg.baseline.simulations = 16;
    cfg.baseline.opening_moves = 0;
    // From random weights: the test is of self-play learning alone.
    cfg.pretrain.games = 0;
    cfg
}

/// Games of `player` against a perfect player from the empty board, with
/// both colours: (wins, draws, losses) of `player`.
fn against_perfect(spec: &str, games: u64) -> (u32, u32, u32) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for i in 0..games {
        let mut net: Box<dyn Player<Board>> = parse_game_player(&TicTacToe, spec, i).unwrap();
        let mut perfect = PerfectPlayer::new(1000 + i);
        let net_color = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let record = if net_color == Color::White {
            play_game(net.as_mut(), &mut perfect, Board::new())
        } else {
            play_game(&mut perfect, net.as_mut(), Board::new())
        }
        .unwrap();
        match record.result {
            GameResult::Draw => d += 1,
            GameResult::Win(c) if c == net_color => w += 1,
            GameResult::Win(_) => l += 1,
        }
    }
    (w, d, l)
}

#[test]
fn the_trained_agent_never_loses_to_a_perfect_player() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path());
    let generations = 16;
    let summary = train(
        &TicTacToe,
        &run,
        config(generations),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(summary.last_generation, generations);
    assert!(!summary.interrupted);

    let ckpts = run.checkpoints();
    let best = checkpoint::read_best(&ckpts).unwrap().unwrap();
    assert_eq!(
        best, generations,
        "with gating off every candidate is promoted"
    );
    let meta = checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, best)).unwrap();
    assert_eq!(meta.game, "tictactoe");
    assert!(meta.train_steps > 0 && meta.positions_generated > 0);

    let untrained = checkpoint::generation_dir(&ckpts, 0);
    let trained = checkpoint::generation_dir(&ckpts, best);
    let policy = |dir: &std::path::Path| format!("net-policy:checkpoint={}", dir.display());
    // The agent searches 200 simulations a decision: enough for the
    // search to reach finished games below most root moves, so that one
    // value the network has wrong cannot steer it into a lost line. (At 32
    // a CI machine's run lost 6 of 20 where the same network's bare policy
    // lost 1 of 40; the numerics of another CPU give another network.)
    let searched =
        |dir: &std::path::Path| format!("net-mcts:checkpoint={},sims=200", dir.display());

    // The network alone, no search: the untrained one (its weights come
    // from the run seed) loses 25 of 40; the trained one drew all 40 in 32
    // of 35 runs measured (12 and 16 generations) and in the other three
    // lost one line of the perfect player's (1, 2 and 8 games); a CI run
    // lost 1. The agent itself, the search guided by the network, lost no
    // game at 32 simulations in 34 runs here, 6 of 20 in that CI run, and
    // none at 200 in the 9 runs measured since (seeds 1 to 9).
    let (_, _, lost_before) = against_perfect(&policy(&untrained), 40);
    eprintln!("untrained policy vs perfect: lost {lost_before} of 40");
    assert!(
        lost_before >= 20,
        "an untrained network should lose to perfect play, lost {lost_before} of 40"
    );
    let (won, drawn, lost) = against_perfect(&policy(&trained), 40);
    eprintln!("trained policy vs perfect: {won} won, {drawn} drawn, {lost} lost");
    assert!(
        won == 0 && lost <= 10,
        "trained policy vs perfect: {won} won, {drawn} drawn, {lost} lost"
    );
    let (won, drawn, lost) = against_perfect(&searched(&trained), 40);
    assert_eq!(
        (won, lost),
        (0, 0),
        "trained search vs perfect: {won} won, {drawn} drawn, {lost} lost"
    );
    // The same search guided by the untrained network loses (4 to 19 of
    // 40 in the 9 runs measured, seeds 1 to 9): the training, not the
    // search budget, makes the agent sound.
    let (_, _, lost_before) = against_perfect(&searched(&untrained), 40);
    eprintln!("untrained search vs perfect: lost {lost_before} of 40");
    assert!(
        lost_before >= 1,
        "the untrained network's search should lose to perfect play"
    );

    // The baseline match ran against the generic random player.
    let metrics = std::fs::read_to_string(run.logs().join("metrics.jsonl")).unwrap();
    assert!(metrics.contains("baseline/random"), "{metrics}");
}

/// The records of `kind` in the run's metrics, in order.
fn metrics_of(run: &RunDir, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(run.logs().join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] == kind)
        .collect()
}

#[test]
fn gating_duels_each_candidate_against_the_best_network() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path());
    let generations = 3;
    let mut cfg = config(generations);
    cfg.gating.enabled = true;
    cfg.gating.games = 8;
    cfg.gating.simulations = 16;
    cfg.gating.opening_moves = 1;
    cfg.baseline.every = 0;
    let threshold = cfg.gating.threshold;
    let summary = train(&TicTacToe, &run, cfg, &AtomicBool::new(false)).unwrap();
    assert_eq!(
        (summary.first_generation, summary.last_generation),
        (1, generations)
    );
    assert!(!summary.interrupted);

    // One gating record a generation: the candidate's 8 games against the
    // best network of the time, scored and judged by the threshold.
    let ckpts = run.checkpoints();
    let gating = metrics_of(&run, "gating");
    let elo = metrics_of(&run, "elo");
    assert_eq!(gating.len(), generations as usize, "{gating:?}");
    let mut best = 0;
    for (r, g) in gating.iter().zip(1..) {
        assert_eq!(r["generation"], g, "{r}");
        assert_eq!(r["rule"], "threshold", "{r}");
        assert_eq!(r["against"], best, "{r}");
        let count = |k: &str| r[k].as_u64().unwrap();
        let (w, d, l) = (count("wins"), count("draws"), count("losses"));
        assert_eq!(w + d + l, 8, "{r}");
        let score = (w as f64 + d as f64 / 2.0) / 8.0;
        assert!((r["score"].as_f64().unwrap() - score).abs() < 1e-9, "{r}");
        let promoted = score >= threshold;
        assert_eq!(r["promoted"], promoted, "{r}");
        // The candidate's checkpoint holds the same verdict.
        let meta = checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, g)).unwrap();
        let held = meta.gating.unwrap();
        assert_eq!(
            (
                held.against,
                held.wins,
                held.draws,
                held.losses,
                held.promoted
            ),
            (best, w, d, l, promoted)
        );
        // A promotion, and only a promotion, logs the Elo it implies.
        assert_eq!(
            elo.iter().any(|e| e["generation"] == g),
            promoted,
            "{elo:?}"
        );
        if promoted {
            best = g;
        }
    }
    assert_eq!(checkpoint::read_best(&ckpts).unwrap(), Some(best));
    assert_eq!(summary.best, best);
}

/// The `OtherGame` refusal of loading `dir`'s network for `game`:
/// the path, the game found and the game expected.
fn other_game<G: Game>(game: &G, dir: &Path) -> (PathBuf, String, String) {
    match checkpoint::load_model(game, dir, &default_device()).err() {
        Some(CheckpointError::OtherGame {
            path,
            found,
            expected,
        }) => (path, found, expected),
        Some(e) => panic!("{}: refused, but not as another game's: {e}", dir.display()),
        None => panic!("{}: loaded for {}", dir.display(), G::NAME),
    }
}

#[test]
fn another_games_run_and_network_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    // Two runs stopped before their first generation, with the same config
    // but for the game: each has frozen its config and saved generation 0.
    let stopped = AtomicBool::new(true);
    let cfg = config(2);
    let ttt = RunDir::new(&tmp.path().join("tictactoe"));
    train(&TicTacToe, &ttt, cfg.clone(), &stopped).unwrap();
    let mut yinsh_cfg = cfg.clone();
    yinsh_cfg.game.name = "yinsh".into();
    let yinsh = RunDir::new(&tmp.path().join("yinsh"));
    train(&Yinsh::standard(), &yinsh, yinsh_cfg.clone(), &stopped).unwrap();
    for run in [&ttt, &yinsh] {
        assert_eq!(checkpoint::list(&run.checkpoints()).unwrap(), [0]);
    }

    // Resuming the YINSH run as tic-tac-toe: refused, naming the key.
    let e = train(&TicTacToe, &yinsh, cfg, &stopped)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("keys that cannot change mid-run: game.name\n"),
        "{e}"
    );
    // Resuming the tic-tac-toe run as YINSH: refused too. (Tic-tac-toe is
    // not in the registry, so its frozen config is refused, by the game's
    // name, before the two names are compared.)
    let e = train(&Yinsh::standard(), &ttt, yinsh_cfg, &stopped)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown game `tictactoe`"), "{e}");
    // Neither refusal touched the runs.
    for run in [&ttt, &yinsh] {
        assert_eq!(checkpoint::list(&run.checkpoints()).unwrap(), [0]);
    }
    // A run that lost its config still knows its game from its checkpoints,
    // and writes no config for another.
    std::fs::remove_file(yinsh.config()).unwrap();
    let e = train(&TicTacToe, &yinsh, config(2), &stopped)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("has no config, and its checkpoints play yinsh (standard), not the config's tictactoe (standard)"),
        "{e}"
    );
    assert!(!yinsh.config().exists());

    // Each network is refused as the other game's, naming both games,
    // whether named by its folder or by its run's checkpoints folder.
    let ttt0 = checkpoint::generation_dir(&ttt.checkpoints(), 0);
    let yinsh0 = checkpoint::generation_dir(&yinsh.checkpoints(), 0);
    assert_eq!(
        other_game(&Yinsh::standard(), &ttt0),
        (ttt0.clone(), "tictactoe (standard)".into(), "yinsh".into())
    );
    assert_eq!(
        other_game(&Yinsh::blitz(), &ttt.checkpoints()),
        (ttt0.clone(), "tictactoe (standard)".into(), "yinsh".into())
    );
    assert_eq!(
        other_game(&TicTacToe, &yinsh0),
        (
            yinsh0.clone(),
            "yinsh (standard)".into(),
            "tictactoe".into()
        )
    );
    // So is a network player of the wrong game, with the same words.
    let spec = format!("net-policy:checkpoint={}", ttt0.display());
    let e = match parse_game_player(&Yinsh::standard(), &spec, 0) {
        Ok(_) => panic!("a tic-tac-toe network played YINSH"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("a network for tictactoe (standard), not yinsh"),
        "{e}"
    );
    // Each loads for its own game.
    checkpoint::load_model(&TicTacToe, &ttt0, &default_device()).unwrap();
    checkpoint::load_model(&Yinsh::blitz(), &yinsh0, &default_device()).unwrap();
}
