//! Many processes, one run, meeting in a real S3 server (s3s-fs and moto on
//! 127.0.0.1; see tests/it/common/s3.rs and tests/it/common/moto.rs): a trainer
//! that only trains on what workers upload, workers that pick up promoted
//! networks and stop by themselves when the run is finished, and the faults
//! a shared store must survive: a worker killed mid-game and mid-upload,
//! the server going away and coming back, wrong credentials, a missing
//! bucket, and damaged or foreign objects. The main scenario runs on both
//! servers; the fault injections on s3s-fs.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

use common::cli::{BIN, succeeded, yz};
use common::s3::{Kind, S3Server, TestS3, start};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::replay::record;
use yinsh_zero::store::Store;

/// configs/tiny.toml for a trainer fed by workers: every candidate is
/// promoted (so workers must switch networks), small batches, quick polls.
fn config(dir: &Path, generations: u64) -> PathBuf {
    let text = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml"))
        .unwrap()
        .replace("generations = 2", &format!("generations = {generations}"))
        .replace("[gating]\n", "[gating]\nenabled = false\n")
        .replace("[baseline]\nevery = 1", "[baseline]\nevery = 2");
    let text = format!("{text}\n[workers]\ngames_per_batch = 2\npoll_seconds = 0.2\n");
    let p = dir.join("workers.toml");
    fs::write(&p, text).unwrap();
    p
}

/// A `yinsh-zero` process with the server's environment, its stderr and
/// stdout in `log`.
fn spawn(server: &dyn TestS3, args: &[&str], log: &Path) -> Child {
    let out = fs::File::create(log).unwrap();
    Command::new(BIN)
        .args(args)
        .envs(server.env())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

/// `train --selfplay workers` on `run`.
fn trainer(server: &dyn TestS3, run: &str, cfg: &Path, cache: &Path, log: &Path) -> Child {
    spawn(
        server,
        &[
            "train",
            "--run",
            run,
            "--config",
            cfg.to_str().unwrap(),
            "--selfplay",
            "workers",
            "--cache",
            cache.to_str().unwrap(),
        ],
        log,
    )
}

fn worker(server: &dyn TestS3, run: &str, id: &str, dir: &Path) -> Child {
    let spool = dir.join(format!("spool-{id}"));
    let cache = dir.join(format!("cache-{id}"));
    spawn(
        server,
        &[
            "worker",
            "--run",
            run,
            "--id",
            id,
            "--threads",
            "1",
            "--spool",
            spool.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ],
        &dir.join(format!("{id}.log")),
    )
}

fn terminate(child: &mut Child) {
    // SIGTERM, as a scheduler stops a worker: it finishes its uploads.
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    child.wait().unwrap();
}

fn kill9(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

fn signal(pid: u32, sig: &str) {
    assert!(
        Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
}

/// Polls (bounded by count, not by a clock) until `cond` holds.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..30_000 {
        if cond() {
            return;
        }
        sleep(Duration::from_millis(20));
    }
    panic!("never happened: {what}");
}

fn log(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// Every record object in the store decodes as a whole file; their games.
fn uploaded_games(store: &Store) -> (usize, u64) {
    let mut games = 0;
    let listed = store.list("data/selfplay").unwrap();
    for (key, _) in &listed {
        let bytes = store.get(key).unwrap().unwrap();
        let f = record::decode(&Yinsh::blitz(), Path::new(key), &bytes)
            .unwrap_or_else(|e| panic!("a partial or damaged object is readable: {e}"));
        games += f.meta.games as u64;
    }
    (listed.len(), games)
}

/// Waits (bounded by count, not by a clock) until `child` exits by
/// itself; whether it succeeded. One that never does is killed and its
/// log (`log`) shown.
fn exits(child: &mut Child, what: &str, log: &Path) -> bool {
    for _ in 0..30_000 {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        sleep(Duration::from_millis(20));
    }
    kill9(child);
    panic!(
        "never happened: {what}; its log:\n{}",
        fs::read_to_string(log).unwrap_or_default()
    );
}

/// "worker X: ... N games ..." from a worker's closing line.
fn games_reported(log: &str) -> u64 {
    let line = log
        .lines()
        .rfind(|l| l.contains(" batches, "))
        .unwrap_or_else(|| panic!("no closing line in:\n{log}"));
    let games = line.split(" games, ").next().unwrap();
    games.rsplit(' ').next().unwrap().parse().unwrap()
}

/// The main scenario, on a server of `kind`: a trainer fed by two
/// workers trains 4 generations while the server goes away and comes
/// back; at the run's end the workers stop by themselves.
fn a_trainer_learns_only_from_two_workers_and_they_end_with_the_run(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut server = start(kind, "runs");
    let server = &mut *server;
    let run = "s3://runs/e2e";
    let cfg = config(d, 4);
    let cache = d.join("trainer-cache");
    let mut a = worker(server, run, "wa", d);
    let mut b = worker(server, run, "wb", d);
    let mut trainer = trainer(server, run, &cfg, &cache, &d.join("trainer.log"));
    let store = Store::open_with(run, &server.env()).unwrap();
    // Once the first trained generation is published, the server goes
    // away for a while and comes back with its data.
    wait_for("generation 1 published", || {
        store
            .get("checkpoints/000001/meta.json")
            .ok()
            .flatten()
            .is_some()
    });
    server.stop();
    sleep(Duration::from_secs(3));
    server.resume();
    let status = trainer.wait().unwrap();
    let trainer_log = log(d, "trainer.log");
    assert!(status.success(), "trainer failed:\n{trainer_log}");
    assert!(
        trainer_log.contains(
            "trained generations 1 to 4 (the config's limit is reached: generations = 4)"
        ),
        "{trainer_log}"
    );
    let finished: serde_json::Value =
        serde_json::from_slice(&store.get("finished.json").unwrap().unwrap()).unwrap();
    assert_eq!(finished["generation"], 4, "{finished}");
    assert_eq!(finished["limit"], "generations = 4", "{finished}");

    // The run is finished: the workers upload what they played and end,
    // with success and a line that says why.
    for (child, name) in [(&mut a, "wa"), (&mut b, "wb")] {
        let ok = exits(
            child,
            &format!("{name} stops at the run's end"),
            &d.join(format!("{name}.log")),
        );
        let l = log(d, &format!("{name}.log"));
        assert!(ok, "{name} failed:\n{l}");
        let k = games_reported(&l);
        assert!(
            l.contains(&format!(
                "worker {name}: run finished at generation 4 (generations = 4 reached): \
                 worker stops after uploading {k} games"
            )),
            "{l}"
        );
    }
    let (wa, wb) = (log(d, "wa.log"), log(d, "wb.log"));

    // Checkpoints and the best pointer are in the store, whole.
    let keys: Vec<String> = store
        .list("checkpoints")
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for g in 0..=4 {
        for f in ["model.bpk", "meta.json"] {
            assert!(
                keys.contains(&format!("checkpoints/{g:06}/{f}")),
                "{g} {f}: {keys:?}"
            );
        }
    }
    assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000004\n");
    assert!(store.get("config.toml").unwrap().is_some());
    assert!(store.get("logs/metrics.jsonl").unwrap().is_some());

    // The trainer trained only on uploaded records, and played no game.
    let meta: serde_json::Value =
        serde_json::from_slice(&store.get("checkpoints/000004/meta.json").unwrap().unwrap())
            .unwrap();
    let window: Vec<&str> = meta["replay_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!window.is_empty());
    let uploaded: Vec<String> = store
        .list("data/selfplay")
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for f in &window {
        assert!(f.starts_with("data/selfplay/w-w"), "{f}");
        assert!(uploaded.iter().any(|u| u == f), "{f} not in the store");
    }
    assert!(window.iter().any(|f| f.contains("/w-wa-")), "{window:?}");
    assert!(window.iter().any(|f| f.contains("/w-wb-")), "{window:?}");
    assert!(
        !trainer_log.contains("self-play:"),
        "the trainer played: {trainer_log}"
    );

    // Workers switched to promoted networks.
    for (name, l) in [("wa", &wa), ("wb", &wb)] {
        let switches = l.matches("playing with network").count();
        assert!(switches >= 2, "{name} never switched networks:\n{l}");
    }

    // The outage was reported and waited out, by the trainer or a worker.
    let all = format!("{trainer_log}{wa}{wb}");
    assert!(all.contains("trying again in"), "{all}");
    assert!(all.contains("the store answers again"), "{all}");

    // No finished game lost: what the workers say they played is what the
    // store holds, every object whole.
    let (files, games) = uploaded_games(&store);
    assert_eq!(
        games,
        games_reported(&wa) + games_reported(&wb),
        "{wa}\n{wb}"
    );

    // A worker started on the finished run says so and ends at once.
    let mut c = worker(server, run, "wc", d);
    let ok = exits(&mut c, "wc stops on the finished run", &d.join("wc.log"));
    let wc = log(d, "wc.log");
    assert!(ok, "{wc}");
    assert!(
        wc.contains(
            "worker wc: run s3://runs/e2e finished at generation 4 (generations = 4 reached, "
        ) && wc.contains("nothing to play, the worker stops"),
        "{wc}"
    );
    assert!(wc.contains("worker wc: 0 batches, 0 games"), "{wc}");

    // status reads the remote run like a local one, says it is finished
    // and counts what the workers uploaded (the trainer took part of it).
    let out = Command::new(BIN)
        .args(["status", "--run", run, "--cache"])
        .arg(d.join("status-cache"))
        .envs(server.env())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("run: s3://runs/e2e"), "{text}");
    assert!(text.contains("generation 4, best 4"), "{text}");
    assert!(text.contains("(workers)"), "{text}");
    assert!(
        text.contains("finished at generation 4 (generations = 4 reached, "),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "workers: 3 uploaded {games} games in {files} record files"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("  wa: {} games, ", games_reported(&wa)))
            && text.contains("stopped (run finished)"),
        "{text}"
    );
    assert!(
        text.contains("  wc: 0 games, 0 files, stopped (run finished)"),
        "{text}"
    );
    let taken: u64 = text
        .split("self-play games ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    // 4 generations of at least `games_per_generation = 4` games.
    assert!((16..=games).contains(&taken), "{taken} of {games}: {text}");

    // So does the dashboard: its data comes from the bucket.
    let web = common::web::Server::start_with_env(
        &[&"--run", &run, &"--cache", &d.join("web-cache")],
        &server.env(),
    );
    let (code, view) = common::web::get(&web, "/api/run");
    assert_eq!(code, 200, "{view}");
    let losses = view["metrics"]["train"]["loss"].as_array().unwrap();
    assert!(!losses.is_empty(), "{view}");
    assert_eq!(
        view["metrics"]["selfplay"]["games"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn a_trainer_learns_from_two_workers_through_s3s_fs_and_they_end_with_the_run() {
    a_trainer_learns_only_from_two_workers_and_they_end_with_the_run(Kind::S3sFs);
}

#[test]
fn a_trainer_learns_from_two_workers_through_moto_and_they_end_with_the_run() {
    a_trainer_learns_only_from_two_workers_and_they_end_with_the_run(Kind::Moto);
}

#[test]
fn killed_workers_leave_no_partial_object_and_a_restarted_one_uploads_what_was_left() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = S3Server::start("runs");
    let run = "s3://runs/kills";
    let store = Store::open_with(run, &server.env()).unwrap();
    // A trainer publishes the config and generation 0 and is killed: the
    // workers here need only a network.
    let cfg = config(d, 1);
    let mut trainer = trainer(&server, run, &cfg, &d.join("tc"), &d.join("trainer.log"));
    wait_for("generation 0 published", || {
        store.get("checkpoints/best").ok().flatten().is_some()
    });
    kill9(&mut trainer);

    // SIGKILL mid-game: the worker is playing its first batch.
    let mut w = worker(&server, run, "wk", d);
    wait_for("the worker plays", || {
        log(d, "wk.log").contains("playing with network 0")
    });
    kill9(&mut w);
    let (objects, _) = uploaded_games(&store);
    let spool = d.join("spool-wk");
    let spooled = |ext: &str| -> Vec<PathBuf> {
        fs::read_dir(&spool)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect()
    };
    // Whatever is in the spool is whole (atomic writes).
    for f in spooled("bin") {
        record::read(&Yinsh::blitz(), &f).unwrap();
    }

    // SIGKILL mid-upload: the server is frozen while the worker finishes
    // a batch and sends it, then the worker dies with the request open.
    let server_pid = server.pid();
    let mut w = worker(&server, run, "wk", d);
    wait_for("the worker plays again", || {
        log(d, "wk.log").matches("playing with network 0").count() >= 1
    });
    signal(server_pid, "-STOP");
    wait_for("a finished batch waits in the spool", || {
        !spooled("bin").is_empty()
    });
    sleep(Duration::from_millis(500));
    kill9(&mut w);
    signal(server_pid, "-CONT");
    let left: Vec<PathBuf> = spooled("bin");
    assert!(!left.is_empty(), "the unsent batch is kept");
    let left_games: u64 = left
        .iter()
        .map(|f| record::read(&Yinsh::blitz(), f).unwrap().meta.games as u64)
        .sum();
    // Every object anyone can list is whole (a partial PUT is never
    // published).
    let (after_kill, games_after_kill) = uploaded_games(&store);
    assert!(after_kill >= objects);

    // A worker started again with the same id and spool uploads what its
    // predecessor left, and goes on after its batches.
    let mut w = worker(&server, run, "wk", d);
    wait_for("the leftovers are uploaded", || {
        log(d, "wk.log").contains("an earlier run left")
    });
    terminate(&mut w);
    assert!(spooled("bin").is_empty(), "{:?}", spooled("bin"));
    let (_, games_now) = uploaded_games(&store);
    // The left batch is in the store now (or was already: the frozen
    // server may have completed the request the worker sent whole).
    assert!(
        games_now >= games_after_kill,
        "{games_now} {games_after_kill}"
    );
    let names: Vec<String> = store
        .list("data/selfplay")
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for f in &left {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(
            names.iter().any(|k| k.ends_with(&*name)),
            "{name} (with {left_games} games) was lost"
        );
    }
}

#[test]
fn bad_credentials_a_missing_bucket_and_damaged_objects_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = S3Server::start("runs");

    // Wrong credentials: the worker stops at once with the URL and advice.
    let out = Command::new(BIN)
        .args(["worker", "--run", "s3://runs/x", "--id", "w1"])
        .envs(server.env())
        .env("AWS_SECRET_ACCESS_KEY", "not-the-secret")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("s3://runs/x: access denied"), "{err}");
    assert!(err.contains("AWS_SECRET_ACCESS_KEY"), "{err}");

    // A bucket that does not exist, for the trainer.
    let out = Command::new(BIN)
        .args(["train", "--run", "s3://no-such-bucket/run", "--config"])
        .arg(config(d, 1))
        .args(["--cache", d.join("c0").to_str().unwrap()])
        .envs(server.env())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("s3://no-such-bucket/run: the bucket does not exist"),
        "{err}"
    );

    // Damaged and foreign objects among good ones: each is named once and
    // left out; the trainer trains on the rest.
    let run = "s3://runs/mixed";
    let store = Store::open_with(run, &server.env()).unwrap();
    store
        .put(
            "data/selfplay/w-zz-b000001-w00-00000.bin",
            b"not a record".to_vec(),
        )
        .unwrap();
    store
        .put("data/selfplay/notes.txt", b"hello".to_vec())
        .unwrap();
    let mut w = worker(&server, run, "wg", d);
    let out = Command::new(BIN)
        .args(["train", "--run", run, "--config"])
        .arg(config(d, 1))
        .args([
            "--selfplay",
            "workers",
            "--cache",
            d.join("c1").to_str().unwrap(),
        ])
        .envs(server.env())
        .output()
        .unwrap();
    terminate(&mut w);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("skipping uploaded file data/selfplay/w-zz-b000001-w00-00000.bin")
            .count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.matches("skipping uploaded file data/selfplay/notes.txt")
            .count(),
        1,
        "{err}"
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&store.get("checkpoints/000001/meta.json").unwrap().unwrap())
            .unwrap();
    let window = meta["replay_files"].as_array().unwrap();
    assert!(!window.is_empty());
    assert!(
        window
            .iter()
            .all(|f| f.as_str().unwrap().contains("/w-wg-")),
        "{window:?}"
    );
}

/// Workers and a trainer on one run directory; at its end the worker stops
/// by itself, and a trainer resumed with a higher limit takes back the
/// run's end, so that workers play for it again.
#[test]
fn workers_and_a_trainer_meet_in_a_local_folder_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = d.join("run");
    let run_s = run.to_str().unwrap();
    let cfg = config(d, 2);
    let log_of = |name: &str| fs::File::create(d.join(name)).unwrap();
    let local_worker = |log: &str| {
        Command::new(BIN)
            .args(["worker", "--run", run_s, "--id", "local1", "--threads", "1"])
            .arg("--spool")
            .arg(d.join("spool"))
            .stdout(log_of(log))
            .stderr(log_of("w.err"))
            .spawn()
            .unwrap()
    };
    let mut w = local_worker("w.log");
    let out = yz([
        "train",
        "--run",
        run_s,
        "--selfplay",
        "workers",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    succeeded(&out);
    let ok = exits(
        &mut w,
        "the worker stops at the run's end",
        &d.join("w.err"),
    );
    let wlog = log(d, "w.log");
    assert!(ok, "{wlog}{}", log(d, "w.err"));
    assert!(
        wlog.contains("run finished at generation 2 (generations = 2 reached): worker stops"),
        "{wlog}"
    );
    let finished = || -> Option<serde_json::Value> {
        Some(serde_json::from_slice(&fs::read(run.join("finished.json")).ok()?).unwrap())
    };
    assert_eq!(finished().unwrap()["generation"], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("games from workers"), "{err}");
    let meta: serde_json::Value =
        serde_json::from_slice(&fs::read(run.join("checkpoints/000002/meta.json")).unwrap())
            .unwrap();
    let window = meta["replay_files"].as_array().unwrap();
    assert!(!window.is_empty());
    for f in window {
        let f = f.as_str().unwrap();
        assert!(f.starts_with("data/selfplay/w-local1-b"), "{f}");
        record::read(&Yinsh::blitz(), &run.join(f)).unwrap();
    }
    assert_eq!(
        fs::read_to_string(run.join("checkpoints/best")).unwrap(),
        "000002\n"
    );

    // Trained further: the trainer takes the end back before it trains, a
    // worker started then plays, and both end at the new limit.
    let cfg = config(d, 3);
    let mut trainer = Command::new(BIN)
        .args(["train", "--run", run_s, "--selfplay", "workers", "--config"])
        .arg(&cfg)
        .stdout(log_of("t3.log"))
        .stderr(log_of("t3.err"))
        .spawn()
        .unwrap();
    wait_for("the trainer takes the run's end back", || {
        finished().is_none()
    });
    let mut w = local_worker("w3.log");
    let ok = exits(&mut trainer, "the resumed trainer ends", &d.join("t3.err"));
    assert!(ok, "{}", log(d, "t3.err"));
    let ok = exits(&mut w, "the worker stops at the new end", &d.join("w.err"));
    assert!(ok, "{}", log(d, "w.err"));
    let wlog = log(d, "w3.log");
    assert!(
        wlog.contains("run finished at generation 3 (generations = 3 reached): worker stops"),
        "{wlog}"
    );
    assert!(games_reported(&wlog) > 0, "{wlog}");
    assert_eq!(finished().unwrap()["generation"], 3);
}
