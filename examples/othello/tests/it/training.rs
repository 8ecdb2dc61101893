//! The whole loop on Othello from this crate, through the library's
//! public `train`: two generations of a tiny network (seconds, learning
//! nothing to speak of), whose checkpoints are written, name their game,
//! load, and play.

use std::sync::atomic::AtomicBool;

use othello::Othello;
use yinsh_zero::arena::{Player, parse_game_player, play_game};
use yinsh_zero::checkpoint;
use yinsh_zero::game::{Game, State};
use yinsh_zero::nn::default_device;
use yinsh_zero::run::RunDir;
use yinsh_zero::run::config::{DEFAULT_CONFIG, RunConfig};
use yinsh_zero::run::train_loop::train;

/// A run in seconds: a tiny network, few games and simulations, set on the
/// parsed default config (`tests/cli.rs` reads a config file instead).
fn config(generations: u64) -> RunConfig {
    let mut cfg = RunConfig::from_toml(DEFAULT_CONFIG, "the default config").unwrap();
    cfg.game.name = Othello::NAME.into();
    cfg.game.variant = Othello.variant().into();
    cfg.run.generations = generations;
    cfg.run.games_per_generation = 8;
    cfg.run.seed = 7;
    cfg.model.blocks = 1;
    cfg.model.channels = 8;
    cfg.model.value_channels = 2;
    cfg.model.value_hidden = 16;
    cfg.search.simulations = 8;
    cfg.search.fast_simulations = 4;
    cfg.search.full_search_prob = 1.0;
    cfg.selfplay.workers = 1;
    cfg.selfplay.games_in_flight = 8;
    cfg.selfplay.games_per_file = 8;
    cfg.selfplay.opening_moves = 2;
    cfg.replay.min_size = 100;
    cfg.replay.max_size = 5000;
    cfg.train.batch_size = 32;
    cfg.train.train_ratio = 1.0;
    cfg.train.min_positions = 10;
    cfg.gating.enabled = true;
    cfg.gating.games = 2;
    cfg.gating.simulations = 4;
    cfg.baseline.every = generations;
    cfg.baseline.opponents = vec!["random".into(), "alphabeta:depth=1".into()];
    cfg.baseline.games = 2;
    cfg.baseline.simulations = 4;
    cfg.pretrain.games = 0;
    cfg
}

#[test]
fn two_generations_write_checkpoints_that_load_and_play() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path());
    let summary = train(&Othello, &run, config(2), &AtomicBool::new(false)).unwrap();
    assert_eq!((summary.last_generation, summary.interrupted), (2, false));

    let ckpts = run.checkpoints();
    assert_eq!(checkpoint::list(&ckpts).unwrap(), [0, 1, 2]);
    let best = checkpoint::read_best(&ckpts).unwrap().unwrap();
    let dir = checkpoint::generation_dir(&ckpts, 2);
    let meta = checkpoint::read_meta(&dir).unwrap();
    assert_eq!(
        (meta.game.as_str(), meta.variant.as_str()),
        ("othello", "6x6")
    );
    assert!(
        meta.train_steps > 0 && meta.positions_generated > 0,
        "{meta:?}"
    );
    assert!(meta.gating.is_some());
    checkpoint::load_model(&Othello, &dir, &default_device()).unwrap();

    // The best network searches a game against the generic alpha-beta
    // player on this crate's evaluation, from either side.
    let spec = format!(
        "net-mcts:checkpoint={},sims=8",
        checkpoint::generation_dir(&ckpts, best).display()
    );
    let mut net: Box<dyn Player<othello::Position>> =
        parse_game_player(&Othello, &spec, 1).unwrap();
    let mut ab: Box<dyn Player<othello::Position>> =
        parse_game_player(&Othello, "alphabeta:depth=2", 2).unwrap();
    for record in [
        play_game(net.as_mut(), ab.as_mut(), Othello.start()).unwrap(),
        play_game(ab.as_mut(), net.as_mut(), Othello.start()).unwrap(),
    ] {
        let end = record.final_position();
        assert_eq!(end.result(), Some(record.result));
        assert!(record.actions.len() >= 9, "{}", record.actions.len());
    }

    // The baseline matches ran against generic players.
    let metrics = std::fs::read_to_string(run.logs().join("metrics.jsonl")).unwrap();
    assert!(metrics.contains("baseline/random"), "{metrics}");
}

/// The generic alpha-beta on [`othello::Othello`]'s evaluation beats
/// random play.
#[test]
fn alphabeta_on_the_evaluation_beats_random_play() {
    let mut wins = 0;
    for i in 0..10 {
        let mut ab: Box<dyn Player<othello::Position>> =
            parse_game_player(&Othello, "alphabeta:depth=2", i).unwrap();
        let mut random: Box<dyn Player<othello::Position>> =
            parse_game_player(&Othello, "random", 100 + i).unwrap();
        let (record, side) = if i % 2 == 0 {
            (
                play_game(ab.as_mut(), random.as_mut(), Othello.start()),
                yinsh_zero::game::Color::White,
            )
        } else {
            (
                play_game(random.as_mut(), ab.as_mut(), Othello.start()),
                yinsh_zero::game::Color::Black,
            )
        };
        wins += u32::from(record.unwrap().result.winner() == Some(side));
    }
    assert!(wins >= 8, "alphabeta won {wins} of 10 against random");
}
