//! Self-play through its public interface, with the uniform evaluator
//! (network-driven self-play is tested with a tiny real network in nn tests).

use std::fs;
use std::path::Path;

use yinsh_zero::evaluator::{Evaluation, Evaluator, UniformEvaluator};
use yinsh_zero::game::{Game, State};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::mcts::SearchConfig;
use yinsh_zero::replay::record;
use yinsh_zero::selfplay::{self, Progress, SelfPlayConfig};

const BLITZ: Yinsh = Yinsh::blitz();

fn play(dir: &Path, workers: usize, games: u64, blitz: bool) -> selfplay::SelfPlaySummary {
    let cfg = SelfPlayConfig {
        workers,
        games_in_flight: 3,
        games_per_file: 2,
        ..SelfPlayConfig::default()
    };
    let game = if blitz { BLITZ } else { Yinsh::standard() };
    let search = SearchConfig {
        simulations: 8,
        ..SearchConfig::default()
    };
    selfplay::run(
        &game,
        &cfg,
        &search,
        games,
        42,
        7,
        dir,
        "g000007",
        |_| Ok(UniformEvaluator),
        &Progress::default(),
        &|| false,
    )
    .unwrap()
}

#[test]
fn games_become_valid_record_files() {
    let dir = tempfile::tempdir().unwrap();
    let s = play(dir.path(), 1, 5, true);
    assert_eq!(s.games, 5);
    assert_eq!(s.white_wins + s.black_wins + s.draws, 5);
    assert_eq!(s.files.len(), 3, "2 + 2 + 1 games");
    let mut positions = 0;
    let mut games = 0;
    let mut decided_searches = 0;
    let mut decided_margins = 0;
    for f in &s.files {
        let file = record::read(&BLITZ, f).unwrap();
        assert_eq!(file.meta.generation, 7);
        games += file.meta.games;
        for sample in &file.samples {
            let sum: f32 = sample.policy.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-3);
            assert!(sample.full_search);
            assert!((-1..=1).contains(&sample.outcome));
            let wdl = sample
                .search_wdl
                .expect("self-play keeps the search's value");
            assert!((wdl.iter().sum::<f32>() - 1.0).abs() < 1e-3, "{wdl:?}");
            if wdl[1] < 0.99 {
                decided_searches += 1;
            }
            // YINSH has a margin (rings removed), so the search's is kept.
            assert!(sample.margin.is_some());
            let m = sample
                .search_margin
                .expect("self-play keeps the search's margin");
            assert!((-1.0..=1.0).contains(&m), "{m}");
            if m != 0.0 {
                decided_margins += 1;
            }
        }
        // Each game's samples count down to its end, so the moves left
        // rise only where the next game begins.
        let left: Vec<u32> = file.samples.iter().map(|s| s.moves_left.unwrap()).collect();
        let rises = left.windows(2).filter(|w| w[1] > w[0]).count() as u32;
        assert!(rises < file.meta.games, "{left:?}");
        positions += file.samples.len() as u64;
    }
    assert_eq!((games as u64, positions), (s.games, s.positions));
    assert!(s.positions > 5 * 10, "every game has searched decisions");
    // The uniform evaluator calls every leaf a draw: only the game's ends,
    // reached near them, move a search's value off it.
    assert!(decided_searches > 0 && decided_margins > 0);
    assert!(s.batches > 0 && s.evaluated >= s.positions);
}

#[test]
fn one_worker_is_reproducible_from_the_seed() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sa = play(a.path(), 1, 3, false);
    let sb = play(b.path(), 1, 3, false);
    assert_eq!(sa.files.len(), sb.files.len());
    for (fa, fb) in sa.files.iter().zip(&sb.files) {
        assert_eq!(fs::read(fa).unwrap(), fs::read(fb).unwrap());
    }
}

#[test]
fn two_workers_share_the_games_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = play(dir.path(), 2, 6, true);
    assert_eq!(s.games, 6);
    let names: Vec<String> = s
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("g000007-w0")),
        "{names:?}"
    );
    let total: u32 = s
        .files
        .iter()
        .map(|f| record::read(&BLITZ, f).unwrap().meta.games)
        .sum();
    assert_eq!(total, 6);
}

/// The uniform evaluator, whose first answer waits until every worker has
/// asked its first question: each has started its first games by then.
struct AfterEveryWorkerStarted<'a> {
    barrier: &'a std::sync::Barrier,
    waited: bool,
}

impl<S: State> Evaluator<S> for AfterEveryWorkerStarted<'_> {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        if !std::mem::replace(&mut self.waited, true) {
            self.barrier.wait();
        }
        UniformEvaluator.evaluate(positions)
    }
}

#[test]
fn each_worker_starts_with_its_share_of_a_short_generation() {
    // Four games, two workers, three games in flight each: were slots
    // claimed three at a time, one worker would play three and the other
    // one (a resumed generation's remainder, played on half the cores).
    let dir = tempfile::tempdir().unwrap();
    let barrier = std::sync::Barrier::new(2);
    let cfg = SelfPlayConfig {
        workers: 2,
        games_in_flight: 3,
        games_per_file: 2,
        ..SelfPlayConfig::default()
    };
    let s = play_with(dir.path(), &cfg, 4, |_| {
        Ok(AfterEveryWorkerStarted {
            barrier: &barrier,
            waited: false,
        })
    });
    assert_eq!(s.games, 4);
    for w in ["w00", "w01"] {
        let games: u32 = s
            .files
            .iter()
            .filter(|f| f.file_name().unwrap().to_string_lossy().contains(w))
            .map(|f| record::read(&BLITZ, f).unwrap().meta.games)
            .sum();
        assert_eq!(games, 2, "worker {w}: {:?}", s.files);
    }
}

#[test]
fn a_stop_request_keeps_finished_games_and_drops_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 2,
        games_per_file: 1,
        ..SelfPlayConfig::default()
    };
    let search = SearchConfig {
        simulations: 4,
        ..SearchConfig::default()
    };
    let progress = Progress::default();
    let s = selfplay::run(
        &BLITZ,
        &cfg,
        &search,
        1000,
        3,
        0,
        dir.path(),
        "g000000",
        |_| Ok(UniformEvaluator),
        &progress,
        &|| progress.games.load(std::sync::atomic::Ordering::Relaxed) >= 3,
    )
    .unwrap();
    assert!(s.interrupted);
    assert!(s.games >= 3 && s.games < 1000);
    let on_disk: u32 = s
        .files
        .iter()
        .map(|f| record::read(&BLITZ, f).unwrap().meta.games)
        .sum();
    assert_eq!(on_disk as u64, s.games);
}

/// A 1-block, 8-channel network for blitz games.
fn tiny_net() -> (yinsh_zero::nn::Model, burn::tensor::Device) {
    let device = yinsh_zero::nn::default_device();
    let model = yinsh_zero::nn::ModelConfig::new()
        .with_blocks(1)
        .with_channels(8)
        .init(&BLITZ.net_shape(), &device);
    (model, device)
}

/// Plays `games` blitz games with a tiny search and `make`'s evaluators.
fn play_with<E, F>(
    dir: &Path,
    cfg: &SelfPlayConfig,
    games: u64,
    make: F,
) -> selfplay::SelfPlaySummary
where
    E: yinsh_zero::evaluator::Evaluator<yinsh_zero::games::yinsh::Position>,
    F: Fn(usize) -> Result<E, String> + Sync,
{
    let search = SearchConfig {
        simulations: 8,
        gumbel: true,
        gumbel_m: 4,
        ..SearchConfig::default()
    };
    selfplay::run(
        &BLITZ,
        cfg,
        &search,
        games,
        9,
        1,
        dir,
        "g000001",
        make,
        &Progress::default(),
        &|| false,
    )
    .unwrap()
}

#[test]
fn a_tiny_network_plays_and_its_records_read_back_identical() {
    use yinsh_zero::nn::{InferenceOptions, NetEvaluator};
    let dir = tempfile::tempdir().unwrap();
    let (model, device) = tiny_net();
    let cfg = SelfPlayConfig {
        workers: 2,
        games_in_flight: 2,
        games_per_file: 1,
        ..SelfPlayConfig::default()
    };
    let s = play_with(dir.path(), &cfg, 4, |_| {
        NetEvaluator::new(
            BLITZ,
            model.clone(),
            device.clone(),
            InferenceOptions::default(),
        )
        .map_err(|e| e.to_string())
    });
    assert_eq!(s.games, 4);
    for f in &s.files {
        let bytes = fs::read(f).unwrap();
        let file = record::read(&BLITZ, f).unwrap();
        assert_eq!(record::encode(&file), bytes, "{}", f.display());
    }
}

#[test]
fn workers_sharing_one_network_through_the_inference_server_play_whole_games() {
    use yinsh_zero::evaluator::Inference;
    use yinsh_zero::nn::WorkerNets;
    let dir = tempfile::tempdir().unwrap();
    let (model, device) = tiny_net();
    let cfg = SelfPlayConfig {
        workers: 3,
        games_in_flight: 2,
        games_per_file: 1,
        inference: Inference::Server,
        ..SelfPlayConfig::default()
    };
    let nets = WorkerNets::new(
        &BLITZ,
        &model,
        &device,
        cfg.inference,
        cfg.server_options().unwrap(),
    )
    .unwrap();
    let s = play_with(dir.path(), &cfg, 6, nets.maker());
    assert_eq!(s.games, 6);
    for f in &s.files {
        assert_eq!(record::read(&BLITZ, f).unwrap().meta.games, 1);
    }
    // Every position the workers asked about went through the one network,
    // in no more calls than the workers made.
    let server = nets.server_stats().expect("a server runs");
    assert_eq!(server.positions, s.evaluated);
    assert_eq!(server.requests, s.batches);
    assert!(server.calls <= server.requests);
}

#[test]
fn the_inference_server_answers_as_the_network_itself_does() {
    use yinsh_zero::evaluator::{Evaluator, Inference, ServerOptions};
    use yinsh_zero::nn::bench::sample_positions;
    use yinsh_zero::nn::{InferenceOptions, ModelConfig, NetEvaluator, WorkerNets, default_device};
    let game = Yinsh::standard();
    let device = default_device();
    let model = ModelConfig::new()
        .with_blocks(2)
        .with_channels(16)
        .init(&game.net_shape(), &device);
    let positions = sample_positions(&game, 48, 5);
    let mut direct = NetEvaluator::new(
        game,
        model.clone(),
        device.clone(),
        InferenceOptions::default(),
    )
    .unwrap();
    let want = direct.evaluate(&positions);
    let nets = WorkerNets::new(
        &game,
        &model,
        &device,
        Inference::Server,
        ServerOptions::default(),
    )
    .unwrap();
    let make = nets.maker();
    let got: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = positions
            .chunks(16)
            .map(|chunk| {
                let mut client = make(0).unwrap();
                s.spawn(move || client.evaluate(chunk))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.priors.len(), w.priors.len(), "position {i}");
        for (a, b) in g
            .priors
            .iter()
            .chain(&g.wdl)
            .zip(w.priors.iter().chain(&w.wdl))
        {
            assert!((a - b).abs() < 1e-4, "position {i}: {a} vs {b}");
        }
    }
}

#[test]
fn bad_inference_server_settings_are_refused_by_name() {
    let cfg = SelfPlayConfig {
        server_batch: 0,
        ..SelfPlayConfig::default()
    };
    assert!(
        cfg.server_options()
            .unwrap_err()
            .to_string()
            .contains("server_batch")
    );
    let cfg = SelfPlayConfig {
        server_wait_ms: -1.0,
        ..SelfPlayConfig::default()
    };
    assert!(
        cfg.server_options()
            .unwrap_err()
            .to_string()
            .contains("server_wait_ms")
    );
}

/// Self-play of `game` with the uniform evaluator, every decision searched
/// in full with `simulations` descents, into `dir`.
fn uniform_selfplay<G: Game>(
    game: &G,
    cfg: &SelfPlayConfig,
    simulations: u32,
    games: u64,
    seed: u64,
    dir: &Path,
) -> selfplay::SelfPlaySummary {
    let search = SearchConfig {
        simulations,
        full_search_prob: 1.0,
        ..SearchConfig::default()
    };
    selfplay::run(
        game,
        cfg,
        &search,
        games,
        seed,
        0,
        dir,
        "g000000",
        |_| Ok(UniformEvaluator),
        &Progress::default(),
        &|| false,
    )
    .unwrap()
}

/// Plays Six Men's Morris games, one game per record file, and returns the
/// summary with each game's first recorded position.
fn morris_games(
    dir: &Path,
    side_games: f32,
    games: u64,
) -> (
    selfplay::SelfPlaySummary,
    Vec<yinsh_zero::games::morris::Position>,
) {
    let game = yinsh_zero::games::morris::Morris::new(yinsh_zero::games::morris::Variant::Six);
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 2,
        games_per_file: 1,
        opening_moves: 0,
        side_games,
        ..SelfPlayConfig::default()
    };
    let s = uniform_selfplay(&game, &cfg, 8, games, 5, dir);
    let firsts = s
        .files
        .iter()
        .map(|f| {
            let file = record::read(&game, f).unwrap();
            game.read_state(&file.samples[0].position).unwrap()
        })
        .collect();
    (s, firsts)
}

#[test]
fn side_games_start_where_an_earlier_game_could_have_gone() {
    let game = yinsh_zero::games::morris::Morris::new(yinsh_zero::games::morris::Variant::Six);
    let start = game.start();

    let dir = tempfile::tempdir().unwrap();
    let (s, firsts) = morris_games(dir.path(), 0.0, 6);
    assert_eq!(s.side_games, 0);
    assert!(
        firsts.iter().all(|p| *p == start),
        "no random opening, no side games"
    );

    let dir = tempfile::tempdir().unwrap();
    let (s, firsts) = morris_games(dir.path(), 1.0, 12);
    assert_eq!(s.games, 12);
    // The first two games fill the slots before any game has ended; after
    // that every new game takes the side position of one that has.
    assert_eq!(s.side_games, 10, "{s:?}");
    let from_start = firsts.iter().filter(|p| **p == start).count();
    assert_eq!(from_start, 2);
    for p in firsts.iter().filter(|p| **p != start) {
        assert!(!p.is_over());
        assert!(p.ply() >= 1, "{p}");
    }
    // Side positions come from different decisions of different games.
    let distinct: std::collections::HashSet<String> =
        firsts.iter().map(|p| p.to_string()).collect();
    assert!(distinct.len() >= 8, "{} distinct starts", distinct.len());
}

#[test]
fn a_side_game_share_outside_zero_to_one_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [-0.1, 1.5, f32::NAN] {
        let cfg = SelfPlayConfig {
            side_games: bad,
            ..SelfPlayConfig::default()
        };
        let err = selfplay::run(
            &BLITZ,
            &cfg,
            &SearchConfig::default(),
            1,
            0,
            0,
            dir.path(),
            "g000000",
            |_| Ok(UniformEvaluator),
            &Progress::default(),
            &|| false,
        )
        .unwrap_err();
        assert!(err.to_string().contains("side_games"), "{err}");
    }
}

#[test]
fn each_sample_keeps_the_opponents_next_decision_as_its_reply() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 2,
        games_per_file: 1,
        ..SelfPlayConfig::default()
    };
    // Half the decisions fast: their moves are replies without a target.
    let search = SearchConfig {
        simulations: 8,
        fast_simulations: 2,
        full_search_prob: 0.5,
        ..SearchConfig::default()
    };
    let s = selfplay::run(
        &BLITZ,
        &cfg,
        &search,
        4,
        11,
        0,
        dir.path(),
        "g000000",
        |_| Ok(UniformEvaluator),
        &Progress::default(),
        &|| false,
    )
    .unwrap();
    let (mut searched, mut moved, mut last) = (0, 0, 0);
    for f in &s.files {
        let file = record::read(&BLITZ, f).unwrap();
        let to_act: Vec<_> = file
            .samples
            .iter()
            .map(|s| BLITZ.read_state(&s.position).unwrap().to_act())
            .collect();
        for (i, sample) in file.samples.iter().enumerate() {
            // The opponent's next searched decision, where there is one.
            let next = (i + 1..file.samples.len()).find(|&j| to_act[j] != to_act[i]);
            match (&sample.reply, next) {
                (None, None) => last += 1,
                (None, Some(j)) => panic!("sample {i} has no reply, but sample {j} is one"),
                (Some(r), _) if r.len() == 1 => {
                    // A fast decision's move (or a forced one's) came first.
                    assert_eq!(r[0].1, 1.0);
                    moved += 1;
                }
                (Some(r), Some(j)) => {
                    assert_eq!(r, &file.samples[j].policy, "sample {i}'s reply");
                    searched += 1;
                }
                (Some(r), None) => panic!("sample {i}'s reply {r:?} has no decision behind it"),
            }
        }
    }
    assert!(
        searched > 10 && moved > 10,
        "{searched} searched, {moved} moved"
    );
    assert!((1..4 * 4).contains(&last), "{last} samples without a reply");
}

/// Connect Four self-play with the uniform evaluator, every decision
/// searched in full, at a policy surprise share; returns the summary and
/// every written sample's policy target.
fn connect4_games(
    dir: &Path,
    policy_surprise: f32,
) -> (selfplay::SelfPlaySummary, Vec<Vec<(u32, f32)>>) {
    let game = yinsh_zero::games::connect4::Connect4;
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 4,
        opening_moves: 2,
        policy_surprise,
        ..SelfPlayConfig::default()
    };
    let s = uniform_selfplay(&game, &cfg, 32, 16, 3, dir);
    let policies = s
        .files
        .iter()
        .flat_map(|f| record::read(&game, f).unwrap().samples)
        .map(|sample| sample.policy)
        .collect();
    (s, policies)
}

/// The surprise of a target against the uniform evaluator's priors, which
/// are uniform over the legal actions the target lists.
fn surprise_against_uniform(policy: &[(u32, f32)]) -> f32 {
    let n = policy.len() as f32;
    policy
        .iter()
        .filter(|p| p.1 > 0.0)
        .map(|p| p.1 * (p.1 * n).ln())
        .sum()
}

#[test]
fn policy_surprise_writes_the_positions_search_overruled_and_drops_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, once) = connect4_games(dir.path(), 0.0);
    assert_eq!(plain.positions, plain.searched);
    assert_eq!(once.len() as u64, plain.searched);
    // Uniform priors and values: search moves off the priors only where it
    // finds a game's end, so the early positions teach nothing.
    let flat = once
        .iter()
        .filter(|p| surprise_against_uniform(p) < 1e-4)
        .count();
    assert!(
        flat > 0 && flat < once.len(),
        "{flat} of {} unsurprising",
        once.len()
    );
    assert!(plain.mean_surprise > 0.0);

    // All the weight by surprise: the same games (the copies are drawn
    // after each game ends), the unsurprising positions gone, the others
    // written about as often as all were.
    let dir = tempfile::tempdir().unwrap();
    let (weighted, copies) = connect4_games(dir.path(), 1.0);
    assert_eq!(weighted.searched, plain.searched);
    assert_eq!(weighted.mean_surprise, plain.mean_surprise);
    assert!(
        copies.iter().all(|p| surprise_against_uniform(p) >= 1e-4),
        "an unsurprising position was written"
    );
    assert!(copies.iter().all(|p| once.contains(p)));
    let ratio = copies.len() as f64 / once.len() as f64;
    assert!(
        (0.8..1.2).contains(&ratio),
        "{} written for {} searched",
        copies.len(),
        once.len()
    );
    let distinct = copies
        .iter()
        .filter(|p| copies.iter().filter(|q| q == p).count() == 1)
        .count();
    assert!(
        distinct < copies.len(),
        "some position written more than once"
    );
}

#[test]
fn a_policy_surprise_share_outside_zero_to_one_is_refused_by_name() {
    for bad in [-0.5, 1.01, f32::NAN] {
        let cfg = SelfPlayConfig {
            policy_surprise: bad,
            ..SelfPlayConfig::default()
        };
        let err = cfg.validate().unwrap_err();
        assert!(err.to_string().contains("policy_surprise"), "{err}");
    }
}
