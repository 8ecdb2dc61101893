//! The training loop through the real binary: files, metrics, resume, a
//! refused config change, and SIGKILL in the middle of self-play and of
//! training.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

use common::cli::{BIN, failed, succeeded, yz};
use yinsh_zero::checkpoint;
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::replay::record;

fn tiny(extra: &str) -> String {
    let base =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml")).unwrap();
    // Later tables of the same name are not allowed in TOML, so overrides
    // replace whole lines of the tiny config.
    let mut text = base;
    for line in extra.lines().filter(|l| l.contains('=')) {
        let key = line.split('=').next().unwrap().trim();
        let table_key = key.rsplit('.').next().unwrap();
        let table = key.split('.').next().unwrap();
        let header = format!("[{table}]");
        let start = text.find(&header).unwrap_or_else(|| panic!("no {header}"));
        let value = line.split_once('=').unwrap().1.trim();
        let body_end = text[start + header.len()..]
            .find("\n[")
            .map_or(text.len(), |i| start + header.len() + i);
        let body = &text[start..body_end];
        let new_body = match body
            .lines()
            .position(|l| l.trim_start().starts_with(&format!("{table_key} ")))
        {
            Some(i) => body
                .lines()
                .enumerate()
                .map(|(j, l)| {
                    if j == i {
                        format!("{table_key} = {value}")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
            None => format!("{body}\n{table_key} = {value}"),
        };
        text = format!("{}{}{}", &text[..start], new_body, &text[body_end..]);
    }
    text
}

fn write_config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn train(config: &Path, run: &Path) -> std::process::Output {
    yz([
        "train",
        "--config",
        config.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ])
}

fn spawn_train(config: &Path, run: &Path) -> Child {
    Command::new(BIN)
        .args(["train", "--config"])
        .arg(config)
        .arg("--run")
        .arg(run)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn record_files(run: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(run.join("data/selfplay"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "bin"));
    v.sort();
    v
}

/// Polls (bounded by count, not by a clock) until `cond` holds.
fn wait_for(mut cond: impl FnMut() -> bool) {
    for _ in 0..6000 {
        if cond() {
            return;
        }
        sleep(Duration::from_millis(20));
    }
    panic!("condition never held");
}

#[test]
fn the_tiny_loop_writes_checkpoints_metrics_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let cfg = write_config(tmp.path(), "tiny.toml", &tiny(""));
    let out = train(&cfg, &run);
    let said = succeeded(&out);
    // Not a terminal: a plain line starts and ends each phase (with a
    // line every 30 s between them on a slow machine), and the last line
    // says what happened in words.
    let err = String::from_utf8_lossy(&out.stderr);
    for phase in ["self-play", "training", "gating", "baseline matches"] {
        let start = format!("generation 2 {phase}: ");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with(&start)).collect();
        assert!(lines.len() >= 2, "{phase}:\n{err}");
        assert!(!lines[0].contains('/'), "{phase}:\n{err}");
        let last = lines[lines.len() - 1];
        assert!(
            last.contains(" in ") && last.contains(" s"),
            "{phase}:\n{err}"
        );
    }
    assert!(
        said.contains(
            "trained generations 1 to 2 (the config's limit is reached: generations = 2); best network: generation"
        ),
        "{said}"
    );
    let ckpts = run.join("checkpoints");
    assert_eq!(checkpoint::list(&ckpts).unwrap(), vec![0, 1, 2]);
    assert!(checkpoint::read_best(&ckpts).unwrap().is_some());
    let metrics = fs::read_to_string(run.join("logs/metrics.jsonl")).unwrap();
    for kind in ["\"selfplay\"", "\"train\"", "\"gating\""] {
        assert!(metrics.contains(kind), "no {kind} in metrics");
    }
    assert!(fs::read_dir(run.join("logs")).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("events.out.tfevents")
    }));
    // Every generation's best network played `random` twice, recorded
    // like `evaluate`'s games.
    assert_eq!(
        metrics.matches("\"baseline/random\"").count(),
        2,
        "{metrics}"
    );
    let games = yinsh_zero::arena::read_history(&run.join("eval")).unwrap();
    assert_eq!(games.len(), 4);
    for g in &games {
        assert!(g.first.starts_with("net-mcts:checkpoint="), "{g:?}");
        assert!(g.first.ends_with(",sims=4"), "{g:?}");
        assert_eq!(g.second, "random");
        assert!(g.forfeit.is_none(), "{g:?}");
    }
    let m2 = checkpoint::read_meta(&ckpts.join("000002")).unwrap();
    assert!(m2.gating.is_some() && m2.train_steps > 0);
    assert_eq!(m2.replay_files.len(), record_files(&run).len());

    // More generations is a safe change: the run goes on from generation 3.
    let cfg3 = write_config(tmp.path(), "tiny3.toml", &tiny("loop.generations = 3"));
    succeeded(&train(&cfg3, &run));
    assert_eq!(checkpoint::list(&ckpts).unwrap(), vec![0, 1, 2, 3]);
    let m3 = checkpoint::read_meta(&ckpts.join("000003")).unwrap();
    assert!(m3.train_steps > m2.train_steps);
    assert!(m3.positions_generated > m2.positions_generated);
    // CPU time adds up over sittings: the second process's generation
    // carries the first's time too.
    assert!(m2.cpu_seconds > 0.0, "{m2:?}");
    assert!(m3.cpu_seconds > m2.cpu_seconds, "{m2:?} {m3:?}");

    // A CPU-hour budget counts the earlier sittings: one the run has
    // already spent stops a resume before any new generation.
    let spent = m3.cpu_seconds / 3600.0;
    let budget = tiny(&format!("loop.generations = 10\nloop.cpu_hours = {spent}"));
    let cfg_cpu = write_config(tmp.path(), "cpu.toml", &budget);
    let said = succeeded(&train(&cfg_cpu, &run));
    assert!(
        said.contains(&format!(
            "no generation completed (the config's limit is reached: cpu_hours = {spent})"
        )),
        "{said}"
    );
    assert_eq!(checkpoint::list(&ckpts).unwrap(), vec![0, 1, 2, 3]);
    let status = yz(["status", "--run", run.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("generation 3"), "{text}");
    assert!(
        text.contains("baseline matches of generation 3") && text.contains("vs random: +"),
        "{text}"
    );

    // Nor is another game or variant.
    let other = write_config(tmp.path(), "std.toml", &tiny("game.variant = \"standard\""));
    let err = failed(&train(&other, &run));
    assert!(err.contains("game.variant"), "{err}");

    // A different network shape is not a resume: refused, naming the key.
    let other = write_config(tmp.path(), "other.toml", &tiny("model.blocks = 2"));
    let err = failed(&train(&other, &run));
    assert!(err.contains("model.blocks"), "{err}");
}

#[test]
fn a_resumed_run_reads_only_the_record_files_its_window_still_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // A window of 20 positions: each generation's games push the older
    // files' positions out.
    let small = "replay.min_size = 10\nreplay.max_size = 20";
    let cfg = write_config(tmp.path(), "c.toml", &tiny(small));
    succeeded(&train(&cfg, &run));
    let m2 = checkpoint::read_meta(&run.join("checkpoints/000002")).unwrap();
    // The cursor still names every file, so none is taken for new again.
    assert_eq!(m2.replay_files.len(), record_files(&run).len());
    assert!(
        m2.replay_spent > 0 && m2.replay_spent < m2.replay_files.len(),
        "{} of {} spent",
        m2.replay_spent,
        m2.replay_files.len()
    );
    // Going on needs only the files that still hold positions.
    for f in &m2.replay_files[..m2.replay_spent] {
        fs::remove_file(run.join(f)).unwrap();
    }
    let more = format!("{small}\nloop.generations = 3");
    let cfg3 = write_config(tmp.path(), "c3.toml", &tiny(&more));
    let out = train(&cfg3, &run);
    succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("are gone") && !err.contains("skipping record file"),
        "{err}"
    );
    let m3 = checkpoint::read_meta(&run.join("checkpoints/000003")).unwrap();
    assert_eq!(
        m3.replay_files[..m2.replay_files.len()],
        m2.replay_files[..]
    );
    assert_eq!(
        m3.replay_files.len(),
        m2.replay_files.len() + record_files(&run).len()
            - (m2.replay_files.len() - m2.replay_spent)
    );
    assert!(m3.replay_spent >= m2.replay_spent && m3.replay_spent < m3.replay_files.len());
    assert!(m3.positions_generated > m2.positions_generated && m3.train_steps > m2.train_steps);
}

#[test]
fn a_kill_during_self_play_loses_no_finished_game() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // Many small files per generation, so a kill lands between two of them.
    let cfg = write_config(
        tmp.path(),
        "c.toml",
        &tiny(
            "loop.games_per_generation = 40\nselfplay.games_per_file = 1\nselfplay.workers = 1\nloop.generations = 1",
        ),
    );
    let mut child = spawn_train(&cfg, &run);
    wait_for(|| record_files(&run).len() >= 3);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = record_files(&run);
    assert!(before.len() < 40, "the kill came after self-play ended");
    for f in &before {
        record::read(&Yinsh::blitz(), f).unwrap();
    }
    succeeded(&train(&cfg, &run));
    let meta = checkpoint::read_meta(&run.join("checkpoints/000001")).unwrap();
    for f in &before {
        let rel = f.strip_prefix(&run).unwrap().to_string_lossy().into_owned();
        assert!(meta.replay_files.contains(&rel), "{rel} was lost");
    }
    let games: u32 = meta
        .replay_files
        .iter()
        .map(|f| {
            record::read(&Yinsh::blitz(), &run.join(f))
                .unwrap()
                .meta
                .games
        })
        .sum();
    assert_eq!(
        games, 40,
        "the generation played exactly its games, none twice"
    );
}

#[test]
fn a_kill_during_training_resumes_from_the_last_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // A high train ratio makes training the long phase.
    let cfg = write_config(
        tmp.path(),
        "c.toml",
        &tiny("train.train_ratio = 40.0\nloop.generations = 2"),
    );
    let mut child = spawn_train(&cfg, &run);
    let metrics = run.join("logs/metrics.jsonl");
    wait_for(|| {
        fs::read_to_string(&metrics)
            .map(|m| {
                m.lines()
                    .filter(|l| l.contains("\"kind\":\"train\""))
                    .count()
                    >= 5
            })
            .unwrap_or(false)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let ckpts = run.join("checkpoints");
    let kept = checkpoint::list(&ckpts).unwrap();
    let last = *kept.last().unwrap();
    assert!(last < 2, "the kill came after training ended");
    let files_before = record_files(&run);
    succeeded(&train(&cfg, &run));
    assert_eq!(checkpoint::list(&ckpts).unwrap(), vec![0, 1, 2]);
    let m = checkpoint::read_meta(&ckpts.join(format!("{:06}", last + 1))).unwrap();
    for f in &files_before {
        let rel = f.strip_prefix(&run).unwrap().to_string_lossy().into_owned();
        assert!(m.replay_files.contains(&rel), "{rel} was lost");
        record::read(&Yinsh::blitz(), f).unwrap();
    }
    // No leftover half-written checkpoint is taken for a real one.
    assert!(
        checkpoint::read_meta(&ckpts.join("000002"))
            .unwrap()
            .gating
            .is_some()
    );
}

#[test]
fn averaged_generations_play_and_training_goes_on_from_its_own_weights() {
    use yinsh_zero::evaluator::Evaluator;
    use yinsh_zero::nn::{InferenceOptions, NetEvaluator, bench::sample_positions, default_device};
    const BLITZ: Yinsh = Yinsh::blitz();

    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let cfg = write_config(
        tmp.path(),
        "avg.toml",
        &tiny("loop.generations = 3\ntrain.average_generations = 2\ngating.enabled = false"),
    );
    succeeded(&train(&cfg, &run));
    let ckpts = run.join("checkpoints");
    let dir = |g| checkpoint::generation_dir(&ckpts, g);
    assert!(
        checkpoint::read_meta(&dir(0))
            .unwrap()
            .averaged_from
            .is_empty()
    );
    assert!(!dir(0).join(checkpoint::TRAINED).exists());
    for g in 1..=3u64 {
        let meta = checkpoint::read_meta(&dir(g)).unwrap();
        assert_eq!(meta.averaged_from, vec![g - 1, g], "generation {g}");
        assert!(dir(g).join(checkpoint::TRAINED).is_file());
    }

    // Generation 3 plays the mean of what training arrived at in 2 and 3.
    let device = default_device();
    let trained = |g| {
        checkpoint::load_trained_model(&BLITZ, &dir(g), &device)
            .unwrap()
            .0
    };
    let answers = |model| {
        let opts = InferenceOptions {
            cache_capacity: 0,
            ..InferenceOptions::default()
        };
        let mut e = NetEvaluator::new(BLITZ, model, device.clone(), opts).unwrap();
        e.evaluate(&sample_positions(&BLITZ, 6, 2))
            .into_iter()
            .map(|x| x.priors.into_iter().chain(x.wdl).collect::<Vec<f32>>())
            .collect::<Vec<_>>()
    };
    let played = checkpoint::load_model(&BLITZ, &dir(3), &device).unwrap().0;
    let mean = yinsh_zero::nn::average(&[trained(2), trained(3)]).unwrap();
    let (played, mean, own) = (answers(played), answers(mean), answers(trained(3)));
    for (p, m) in played.iter().flatten().zip(mean.iter().flatten()) {
        assert!((p - m).abs() < 1e-5, "{p} vs {m}");
    }
    assert_ne!(played, own, "the network played is not the trained one");

    // Resumed, training goes on from generation 3's trained weights and
    // generation 4 averages them with its own.
    let cfg4 = write_config(
        tmp.path(),
        "avg4.toml",
        &tiny("loop.generations = 4\ntrain.average_generations = 2\ngating.enabled = false"),
    );
    succeeded(&train(&cfg4, &run));
    let m4 = checkpoint::read_meta(&dir(4)).unwrap();
    assert_eq!(m4.averaged_from, vec![3, 4]);
    assert!(m4.train_steps > checkpoint::read_meta(&dir(3)).unwrap().train_steps);
}

#[test]
fn a_score_weighted_run_trains_margins_and_plays_its_matches_with_the_weight() {
    // Connect Four, whose margin says how soon the game was won: with a
    // score weight, every recorded position carries the game's margin as
    // its target, training reports the margin's loss, and the network's
    // gating and baseline games are played with the same weight.
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let text = tiny(
        "game.variant = \"standard\"
         loop.generations = 1
         search.score_weight = 0.5
         search.score_threshold = 0.25
         train.margin_loss_weight = 1.0",
    )
    .replace("[game]\n", "[game]\nname = \"connect4\"\n");
    let cfg = write_config(tmp.path(), "c4.toml", &text);
    succeeded(&train(&cfg, &run));
    let game = yinsh_zero::games::connect4::Connect4;
    let files = record_files(&run);
    assert!(!files.is_empty());
    let mut decisive = 0;
    for f in &files {
        for s in record::read(&game, f).unwrap().samples {
            // The solvers' score over 18: a whole number of stones.
            let m = s.margin.expect("every Connect Four sample has a margin") * 18.0;
            assert!((m - m.round()).abs() < 1e-4 && m.abs() <= 18.0, "{m}");
            decisive += usize::from(m != 0.0);
        }
    }
    assert!(decisive > 0, "no decisive game");
    let metrics = fs::read_to_string(run.join("logs/metrics.jsonl")).unwrap();
    let train_line = metrics
        .lines()
        .find(|l| l.contains("\"train\""))
        .expect("a train line");
    assert!(train_line.contains("margin_loss"), "{train_line}");
    let games = yinsh_zero::arena::read_history(&run.join("eval")).unwrap();
    assert!(!games.is_empty());
    for g in &games {
        assert!(
            g.first.ends_with(",score=0.5,score_threshold=0.25"),
            "{g:?}"
        );
    }
    // The checkpoint remembers the weight, and a player of the network
    // searches with it unless its spec says otherwise.
    let ckpts = run.join("checkpoints");
    let meta = checkpoint::read_meta(&checkpoint::resolve(&ckpts).unwrap()).unwrap();
    assert_eq!((meta.score_weight, meta.score_threshold), (0.5, 0.25));
    let choices = |extra: &str| {
        let spec = format!("net-mcts:checkpoint={},sims=48{extra}", ckpts.display());
        let mut player = yinsh_zero::arena::parse_game_player(&game, &spec, 3).unwrap();
        [
            "", "44", "4433", "445", "12345", "445566", "776655", "112233",
        ]
        .iter()
        .map(|moves| {
            let pos = yinsh_zero::games::connect4::Position::from_moves(moves).unwrap();
            player.new_game(&pos);
            let column = player.choose(&pos).to_string();
            (column, player.info().and_then(|i| i.value))
        })
        .collect::<Vec<_>>()
    };
    let trained = choices("");
    assert_eq!(trained, choices(",score=0.5,score_threshold=0.25"));
    let ungated = choices(",score_threshold=0");
    assert_ne!(
        ungated,
        choices(",score=0"),
        "the weight changes nothing here"
    );
    // The reported values weigh the margin wherever the result is short of
    // certain, or not at all, as the threshold says.
    assert_ne!(trained, ungated, "the threshold changes nothing here");
    // A weight or threshold out of range in meta.json is refused, named.
    let bad = tmp.path().join("bad");
    fs::create_dir(&bad).unwrap();
    let good = checkpoint::resolve(&ckpts).unwrap();
    for f in ["model.bpk", "meta.json"] {
        fs::copy(good.join(f), bad.join(f)).unwrap();
    }
    let text = fs::read_to_string(bad.join("meta.json")).unwrap();
    let spec = format!("net-mcts:checkpoint={},sims=8", bad.display());
    for (field, was, value, range) in [
        ("score_weight", "0.5", "50", "from 0 to 10"),
        ("score_threshold", "0.25", "1.5", "below 1"),
    ] {
        let from = format!("\"{field}\": {was}");
        assert!(text.contains(&from), "{text}");
        fs::write(
            bad.join("meta.json"),
            text.replace(&from, &format!("\"{field}\": {value}")),
        )
        .unwrap();
        let e = yinsh_zero::arena::parse_game_player(&game, &spec, 3)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains(&format!("{field} {value}")) && e.contains(range),
            "{e}"
        );
    }
}

#[test]
fn an_auxiliary_heads_run_records_their_targets_trains_them_and_plays_without_them() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let text = tiny(
        "loop.generations = 1
         model.reply_head = true
         model.ownership_head = true
         train.reply_policy_weight = 0.15
         train.ownership_weight = 0.5",
    );
    let cfg = write_config(tmp.path(), "reply.toml", &text);
    succeeded(&train(&cfg, &run));
    let game = Yinsh::blitz();
    let samples: Vec<_> = record_files(&run)
        .iter()
        .flat_map(|f| record::read(&game, f).unwrap().samples)
        .collect();
    let replies = samples.iter().filter(|s| s.reply.is_some()).count();
    assert!(
        replies * 10 > samples.len() * 8,
        "{replies} of {}",
        samples.len()
    );
    // Every sample knows where its game ended, a finished game or a
    // resigned one.
    for s in &samples {
        let end = s.game_end.as_ref().expect("where the game ended");
        end.state(&game).unwrap();
    }
    let metrics = fs::read_to_string(run.join("logs/metrics.jsonl")).unwrap();
    let losses: Vec<f64> = metrics
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "train")
        .map(|v| {
            let reply = v["reply_loss"].as_f64().expect("a reply loss");
            let ownership = v["ownership_loss"].as_f64().expect("an ownership loss");
            reply.min(ownership)
        })
        .collect();
    assert!(
        !losses.is_empty() && losses.iter().all(|l| *l > 0.0),
        "{losses:?}"
    );
    // The network carries its heads in its checkpoint, and plays as any
    // other (gating played it; a player loads it).
    let ckpts = run.join("checkpoints");
    let meta = checkpoint::read_meta(&checkpoint::resolve(&ckpts).unwrap()).unwrap();
    assert!(meta.model.reply_head && meta.model.ownership_head);
    let spec = format!("net-mcts:checkpoint={},sims=8", ckpts.display());
    let mut player = yinsh_zero::arena::parse_game_player(&game, &spec, 3).unwrap();
    let start = yinsh_zero::game::Game::start(&game);
    player.new_game(&start);
    player.choose(&start);
}

#[test]
fn a_network_trained_without_auxiliary_heads_or_pooling_goes_on_with_fresh_ones() {
    // As docs/results/yinsh-recipe/start.sh begins a side from the shipped
    // network: a run folder holding another run's checkpoint, with its
    // weights and Adam state, and a config that adds both heads.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    let cfg = write_config(tmp.path(), "plain.toml", &tiny("loop.generations = 1"));
    succeeded(&train(&cfg, &plain));
    let generation = *checkpoint::list(&plain.join("checkpoints"))
        .unwrap()
        .last()
        .unwrap();
    let from = checkpoint::generation_dir(&plain.join("checkpoints"), generation);
    assert!(from.join("optimizer.bpk").exists());
    let run = tmp.path().join("heads");
    copy_checkpoint(&from, &run);
    let text = tiny(&format!(
        "loop.generations = {}
         model.reply_head = true
         model.ownership_head = true
         model.global_pool_channels = 4
         model.global_pool_every = 1
         train.reply_policy_weight = 0.15
         train.ownership_weight = 0.5",
        generation + 1
    ));
    let cfg = write_config(tmp.path(), "heads.toml", &text);
    succeeded(&train(&cfg, &run));
    let newest = *checkpoint::list(&run.join("checkpoints"))
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(newest, generation + 1);
    let meta = checkpoint::read_meta(&checkpoint::generation_dir(
        &run.join("checkpoints"),
        newest,
    ))
    .unwrap();
    assert!(meta.model.reply_head && meta.model.ownership_head);
    assert_eq!(meta.model.global_pool_channels, 4);
    assert!(meta.train_steps > 0);
    // A config that drops a head the network has is refused, named.
    let back = tiny(&format!("loop.generations = {}", generation + 2));
    let cfg = write_config(tmp.path(), "back.toml", &back);
    let copy = tmp.path().join("back");
    let newest_dir = checkpoint::generation_dir(&run.join("checkpoints"), newest);
    let name = newest_dir.file_name().unwrap().to_owned();
    fs::create_dir_all(copy.join("checkpoints").join(&name)).unwrap();
    for f in ["model.bpk", "optimizer.bpk", "meta.json"] {
        fs::copy(
            newest_dir.join(f),
            copy.join("checkpoints").join(&name).join(f),
        )
        .unwrap();
    }
    let out = train(&cfg, &copy);
    failed(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[model]"), "{err}");
}

/// A new run folder holding `checkpoint` (every file of it) as its only
/// generation, the best.
fn copy_checkpoint(checkpoint: &Path, run: &Path) {
    let name = checkpoint.file_name().unwrap();
    let to = run.join("checkpoints").join(name);
    fs::create_dir_all(&to).unwrap();
    for f in fs::read_dir(checkpoint).unwrap() {
        let f = f.unwrap();
        fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
    fs::write(run.join("checkpoints/best"), name.to_str().unwrap()).unwrap();
}

/// The generations a folder laid out as a run holds.
fn generations(root: &Path) -> Vec<u64> {
    checkpoint::list(&root.join("checkpoints")).unwrap()
}

#[test]
fn a_resume_point_carries_a_killed_run_to_a_new_folder_and_ends_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, point) = (tmp.path().join("run"), tmp.path().join("keep/point"));
    let long = write_config(tmp.path(), "long.toml", &tiny("loop.generations = 50"));
    let mut child = Command::new(BIN)
        .args(["train", "--config"])
        .arg(&long)
        .arg("--run")
        .arg(&run)
        .arg("--resume-point")
        .arg(&point)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let at = |g: u64| point.join("checkpoints").join(format!("{g:06}"));
    wait_for(|| at(2).join("meta.json").exists());
    // A kill at any moment, a save of the point in progress included.
    child.kill().unwrap();
    child.wait().unwrap();

    // The point is a run folder with the newest generation and the best
    // one, the optimizer state beside the newest, and no replay data.
    let kept = yinsh_zero::run::resume::ResumePoint::at(&point);
    let newest = kept.generation().unwrap().expect("a generation is kept");
    assert!(newest >= 2);
    // A kill in the middle of a save leaves the old folder set aside,
    // which is still the point: read through its own type.
    let from = if point.join("checkpoints/best").exists() {
        point.clone()
    } else {
        tmp.path().join("keep/.old-point")
    };
    let best = checkpoint::read_best(&from.join("checkpoints"))
        .unwrap()
        .unwrap();
    let mut want = vec![best, newest];
    want.sort();
    want.dedup();
    assert_eq!(generations(&from), want);
    let newest_dir = from.join("checkpoints").join(format!("{newest:06}"));
    assert!(newest_dir.join("optimizer.bpk").exists());
    assert!(from.join("config.toml").exists());
    assert!(!from.join("data").exists() && !from.join("logs").exists());
    let kept_meta = checkpoint::read_meta(&newest_dir).unwrap();

    // A new folder (the next machine) goes on from the point, to the end
    // of the run's budget, and the point is dropped with the run.
    let elsewhere = tmp.path().join("elsewhere");
    let last = newest + 1;
    let end = write_config(
        tmp.path(),
        "end.toml",
        &tiny(&format!("loop.generations = {last}")),
    );
    let out = yz([
        "train",
        "--config",
        end.to_str().unwrap(),
        "--run",
        elsewhere.to_str().unwrap(),
        "--resume-point",
        point.to_str().unwrap(),
    ]);
    succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "resumed from the resume point {}",
            point.display()
        )) && err.contains(&format!("at generation {newest}")),
        "{err}"
    );
    assert_eq!(*generations(&elsewhere).last().unwrap(), last);
    let m =
        checkpoint::read_meta(&elsewhere.join("checkpoints").join(format!("{last:06}"))).unwrap();
    assert!(m.train_steps > kept_meta.train_steps, "{m:?}");
    assert!(m.cpu_seconds > kept_meta.cpu_seconds, "{m:?}");
    assert!(m.games_played > kept_meta.games_played, "{m:?}");
    let left: Vec<_> = fs::read_dir(tmp.path().join("keep")).unwrap().collect();
    assert!(left.is_empty(), "the point outlived its run: {left:?}");
}

#[test]
fn a_resume_point_is_never_read_over_a_run_with_checkpoints_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, point) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("point"),
    );
    let one = write_config(tmp.path(), "one.toml", &tiny("loop.generations = 1"));
    succeeded(&train(&one, &a));
    succeeded(&train(&one, &b));
    let kept = yinsh_zero::run::resume::ResumePoint::at(&point);
    assert_eq!(kept.generation().unwrap(), None);
    assert_eq!(kept.save(&yinsh_zero::run::RunDir::new(&a)).unwrap(), 1);
    // Saving again replaces the folder whole and leaves nothing beside it.
    kept.save(&yinsh_zero::run::RunDir::new(&a)).unwrap();
    let beside: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
    let b_meta = checkpoint::read_meta(&b.join("checkpoints/000001")).unwrap();
    assert_eq!(
        kept.restore_into(&yinsh_zero::run::RunDir::new(&b))
            .unwrap(),
        None
    );
    assert_eq!(
        checkpoint::read_meta(&b.join("checkpoints/000001")).unwrap(),
        b_meta,
        "b's own checkpoint was overwritten"
    );
    // A kill between the swap's two renames: the point is the folder set
    // aside, and a new folder still begins from it.
    fs::rename(&point, tmp.path().join(".old-point")).unwrap();
    let c = yinsh_zero::run::RunDir::new(&tmp.path().join("c"));
    assert_eq!(kept.restore_into(&c).unwrap(), Some(1));
    let best_a = checkpoint::read_best(&a.join("checkpoints"))
        .unwrap()
        .unwrap();
    let mut want = vec![best_a, 1];
    want.sort();
    want.dedup();
    assert_eq!(generations(&c.root), want);
    assert_eq!(
        checkpoint::read_best(&c.checkpoints()).unwrap(),
        Some(best_a)
    );
    kept.remove().unwrap();
    assert_eq!(kept.generation().unwrap(), None);
}
