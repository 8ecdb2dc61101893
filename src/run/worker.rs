//! A self-play worker: plays games with the run's best network and uploads
//! their record files, batch after batch, until stopped. Any number run
//! beside one trainer (`train --selfplay workers`), on any machines that
//! reach the run's store.
//!
//! Finished games are never lost: a batch's record files are written to
//! the worker's spool folder first (atomically, as everywhere) and removed
//! from it only once the store has them; a worker started again on the
//! same spool uploads what its predecessor left. Names are
//! `w-<worker id>-b<batch>-w<thread>-<file>.bin`: no two workers share an
//! id, and a worker with a given id goes on after the highest batch the
//! store or its spool holds, so no name is ever written twice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::config::RunConfig;
use super::shared::{RECORDS, SharedRun};
use crate::arena::GamePlayers;
use crate::checkpoint;
use crate::nn::{Model, WorkerNets};
use crate::selfplay::{self, Progress, SelfPlayError};
use crate::util::{mix64, sub_seed};

/// Who a worker is and how it runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Unique among the run's workers: `[A-Za-z0-9_.]`, e.g. a pod name.
    pub id: String,
    /// Finished record files wait here until the store has them.
    pub spool: PathBuf,
    /// Self-play threads (0: the config's `[selfplay] workers`).
    pub threads: usize,
    /// Stop after this many batches (0: until stopped).
    pub batches: u64,
}

/// What a worker did before it stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerSummary {
    pub batches: u64,
    pub games: u64,
    pub positions: u64,
    pub files_uploaded: u64,
    /// Networks it played with, in order.
    pub networks: Vec<u64>,
    /// Seconds spent playing and uploading (not waiting for a network).
    pub seconds: f64,
    /// Of those, seconds spent uploading.
    pub upload_seconds: f64,
}

/// A worker id from the host's name and a random suffix: unique without
/// coordination.
pub fn default_id() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .unwrap_or_else(|| "worker".into());
    let host: String = host
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .take(32)
        .collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let r = mix64(nanos ^ (std::process::id() as u64) << 32);
    format!("{host}.{:06x}", r & 0xff_ffff)
}

/// Checks a worker id: it becomes part of object names.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty()
        || id.len() > 64
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return Err(format!(
            "worker id `{id}`: 1 to 64 of A-Z, a-z, 0-9, `_` and `.` (it is part of object names)"
        ));
    }
    Ok(())
}

/// Runs a worker until `stop`, or `opts.batches` batches.
pub fn work<G: GamePlayers>(
    game: &G,
    run: &SharedRun,
    cfg: &RunConfig,
    opts: &WorkerOptions,
    stop: &AtomicBool,
) -> anyhow::Result<WorkerSummary> {
    check_id(&opts.id).map_err(anyhow::Error::msg)?;
    let device = cfg.run.backend.device()?;
    let mut selfplay_cfg = cfg.selfplay.clone();
    if opts.threads > 0 {
        selfplay_cfg.workers = opts.threads;
    }
    std::fs::create_dir_all(&opts.spool)?;
    let mut summary = WorkerSummary::default();
    let upload_left = upload_spool(run, &opts.spool)?;
    if upload_left > 0 {
        eprintln!(
            "worker {}: uploaded {upload_left} record files an earlier run left in {}",
            opts.id,
            opts.spool.display()
        );
        summary.files_uploaded += upload_left as u64;
    }
    let mut batch = next_batch(run, &opts.spool, &opts.id)?;
    let poll = Duration::from_secs_f64(cfg.workers.poll_seconds);
    let mut network: Option<(u64, Model)> = None;
    let mut waiting_said = false;
    while !stop.load(Ordering::Relaxed) && (opts.batches == 0 || summary.batches < opts.batches) {
        // The newest promoted network, between batches.
        let best = run.best()?;
        match best {
            None => {
                if !waiting_said {
                    eprintln!(
                        "worker {}: {} has no network yet; waiting for the trainer",
                        opts.id,
                        run.url()
                    );
                    waiting_said = true;
                }
                sleep(poll, stop);
                continue;
            }
            Some(g) if network.as_ref().is_none_or(|(n, _)| *n != g) => {
                let dir = run.pull_checkpoint(g, false)?;
                let (model, _) = checkpoint::load_model(game, &dir, &device)?;
                eprintln!("worker {}: playing with network {g}", opts.id);
                summary.networks.push(g);
                network = Some((g, model));
            }
            Some(_) => {}
        }
        let (g, model) = network.as_ref().expect("a network is loaded");
        let t = Instant::now();
        let prefix = format!("w-{}-b{batch:06}", opts.id);
        let progress = Progress::default();
        let sp = &selfplay_cfg;
        let nets = WorkerNets::new(game, model, &device, sp.inference, sp.server_options()?)
            .map_err(SelfPlayError::Server)?;
        let played = selfplay::run(
            game,
            &selfplay_cfg,
            &cfg.search,
            cfg.workers.games_per_batch,
            sub_seed(mix64(id_hash(&opts.id)), batch),
            *g,
            &opts.spool,
            &prefix,
            nets.maker(),
            &progress,
            &|| stop.load(Ordering::Relaxed),
        )?;
        // Games cut short by a stop are not in any file; every finished
        // file goes up, even when stopping.
        let up = Instant::now();
        let uploaded = upload_spool(run, &opts.spool)?;
        summary.upload_seconds += up.elapsed().as_secs_f64();
        summary.files_uploaded += uploaded as u64;
        summary.seconds += t.elapsed().as_secs_f64();
        // A stopped batch's finished games are in its files, uploaded above.
        summary.games += played.games;
        summary.positions += played.positions;
        if played.interrupted {
            break;
        }
        summary.batches += 1;
        eprintln!(
            "worker {}: batch {batch}: {} games with network {g} in {:.0} s ({:.0} games/hour), \
             {uploaded} files uploaded",
            opts.id,
            played.games,
            t.elapsed().as_secs_f64(),
            played.games as f64 * 3600.0 / t.elapsed().as_secs_f64().max(1e-9)
        );
        batch += 1;
    }
    Ok(summary)
}

/// Uploads every finished record file in `spool` under the run's records
/// and removes it from the spool once the store has it; the number
/// uploaded. Waits out an unreachable store (the store retries).
pub fn upload_spool(run: &SharedRun, spool: &Path) -> anyhow::Result<usize> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(spool)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    for f in &files {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        let bytes = std::fs::read(f)?;
        // A retried upload whose first try landed finds its own object.
        run.store().put_new(&format!("{RECORDS}/{name}"), bytes)?;
        std::fs::remove_file(f)?;
    }
    Ok(files.len())
}

/// The first batch number after every batch of worker `id` that the
/// store or the spool holds.
fn next_batch(run: &SharedRun, spool: &Path, id: &str) -> anyhow::Result<u64> {
    let mine = format!("w-{id}-b");
    let batch_of = |name: &str| -> Option<u64> {
        let rest = name.strip_prefix(&mine)?;
        rest.get(..6)?.parse().ok()
    };
    let mut last = 0;
    // Listing is by folder, so the whole records folder is read.
    for (key, _) in run.store().list(RECORDS)? {
        let name = key.rsplit('/').next().unwrap_or_default();
        last = last.max(batch_of(name).unwrap_or(0));
    }
    for e in std::fs::read_dir(spool)?.flatten() {
        last = last.max(batch_of(&e.file_name().to_string_lossy()).unwrap_or(0));
    }
    Ok(last + 1)
}

fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn sleep(d: Duration, stop: &AtomicBool) {
    let end = Instant::now() + d;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Publishes what a trainer's first start publishes, the config and
/// generation 0 (fresh weights from the run seed), to a run that has no
/// network: workers can then be measured (`bench workers`) without a
/// trainer. Refuses a run that has one.
pub fn publish_fresh_network<G: GamePlayers>(
    game: &G,
    run: &SharedRun,
    cfg: &RunConfig,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        run.best()?.is_none(),
        "{} already has a network: give an empty run",
        run.url()
    );
    let dir = run.dir();
    crate::util::write_atomic(&dir.config(), cfg.to_toml().as_bytes())?;
    run.push_config()?;
    let device = cfg.run.backend.device()?;
    let model = super::initial_model(game, cfg, &device);
    let meta = checkpoint::CheckpointMeta::new(game, 0, cfg.model.clone());
    checkpoint::save(&dir.checkpoints(), &meta, &model, None)?;
    checkpoint::write_best(&dir.checkpoints(), 0)?;
    run.push_checkpoint(0)?;
    run.push_best()
}
