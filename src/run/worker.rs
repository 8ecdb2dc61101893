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
//!
//! A worker stops by itself when the run is over: the trainer publishes
//! `finished.json` at its config's limit ([`super::shared::FINISHED`]), and
//! the worker, which looks for it between batches and while it waits for a
//! network, uploads what it finished and returns. Each worker keeps a tally
//! of what it uploaded in `workers/<id>.json` ([`WorkerTally`]), which
//! `status` sums.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::config::RunConfig;
use super::shared::{Finished, RECORDS, SharedRun, now_unix};
use crate::arena::GamePlayers;
use crate::checkpoint;
use crate::game::Game;
use crate::nn::{Model, WorkerNets};
use crate::replay::record;
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
    /// Set when the worker stopped because the run is over.
    pub finished: Option<Finished>,
    /// What this worker id has uploaded to the run in all, this process
    /// and any earlier one with the same id.
    pub tally: WorkerTally,
}

/// The store's folder of worker tallies.
pub const TALLIES: &str = "workers";

/// What one worker id has uploaded to a run, over all the processes that
/// had that id: `workers/<id>.json`, rewritten after every batch.
///
/// It is exact: it counts the batches whose files are all in the store,
/// and a worker that starts counts, from the objects themselves, the files
/// of its id from later batches (a predecessor killed between an upload
/// and the tally, or files it left in its spool).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerTally {
    pub id: String,
    /// Games in the worker's record files in the store.
    pub games: u64,
    /// The worker's record files in the store.
    pub files: u64,
    /// The last batch counted (0: none); its files and every earlier
    /// batch's are in the counts.
    pub batch: u64,
    /// When it was written, in seconds since 1970 (UTC).
    pub updated_unix: u64,
    /// Why the worker stopped, once it has: `run finished`, `stopped`
    /// (a signal), `batches done` (`--batches`).
    #[serde(default)]
    pub stopped: Option<String>,
}

fn tally_key(id: &str) -> String {
    format!("{TALLIES}/{id}.json")
}

fn write_tally(run: &SharedRun, tally: &mut WorkerTally) -> anyhow::Result<()> {
    tally.updated_unix = now_unix();
    let json = serde_json::to_vec_pretty(tally)?;
    Ok(run.store().put(&tally_key(&tally.id), json)?)
}

/// Every worker's tally in the run, sorted by id. A tally that cannot be
/// read is named on stderr and left out.
pub fn tallies(run: &SharedRun) -> anyhow::Result<Vec<WorkerTally>> {
    let mut out = Vec::new();
    for (key, _) in run.store().list(TALLIES)? {
        // Only whole objects: a local store's staging files end otherwise.
        if !key.ends_with(".json") {
            continue;
        }
        let Some(bytes) = run.store().get(&key)? else {
            continue;
        };
        match serde_json::from_slice::<WorkerTally>(&bytes) {
            Ok(t) => out.push(t),
            Err(e) => eprintln!("{}: skipping {key}: {e}", run.url()),
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
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

/// Runs a worker until `stop`, `opts.batches` batches, or the run is
/// finished (then [`WorkerSummary::finished`] says so).
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
    // Listing is by folder, so the whole records folder is read, once.
    let listing = run.store().list(RECORDS)?;
    let mut batch = next_batch(&listing, &opts.spool, &opts.id)?;
    summary.tally = settle_tally(game, run, &opts.id, &listing)?;
    drop(listing);
    let poll = Duration::from_secs_f64(cfg.workers.poll_seconds);
    let mut network: Option<(u64, Model)> = None;
    let mut waiting_said = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // A run that is over: nothing more to play (its trainer will read
        // no more games).
        if let Some(f) = run.finished()? {
            summary.finished = Some(f);
            break;
        }
        if opts.batches > 0 && summary.batches >= opts.batches {
            break;
        }
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
        let tally = &mut summary.tally;
        tally.games += played.games;
        tally.files += uploaded as u64;
        // A batch stopped before its first file leaves its number free:
        // the next start plays it, and must count it.
        if uploaded > 0 {
            tally.batch = batch;
        }
        write_tally(run, tally)?;
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
    let why = if summary.finished.is_some() {
        "run finished"
    } else if stop.load(Ordering::Relaxed) {
        "stopped"
    } else {
        "batches done"
    };
    summary.tally.stopped = Some(why.into());
    // The counts are already in the store; a stop that cuts this write
    // short loses only the reason.
    if let Err(e) = write_tally(run, &mut summary.tally) {
        eprintln!(
            "worker {}: the tally keeps no reason for the stop: {e}",
            opts.id
        );
    }
    Ok(summary)
}

/// The tally of worker `id`: the one in the store, with the files of
/// `listing` (the store's records) from batches it has not counted.
fn settle_tally<G: Game>(
    game: &G,
    run: &SharedRun,
    id: &str,
    listing: &[(String, u64)],
) -> anyhow::Result<WorkerTally> {
    let key = tally_key(id);
    let mut tally = match run.store().get(&key)? {
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "{}: {key}: {e}; remove it and the worker counts its files again",
                run.url()
            )
        })?,
        None => WorkerTally {
            id: id.to_string(),
            ..WorkerTally::default()
        },
    };
    let counted = tally.batch;
    let mut changed = false;
    for (key, _) in listing {
        let name = key.rsplit('/').next().unwrap_or_default();
        let Some(b) = batch_of(id, name).filter(|&b| b > counted) else {
            continue;
        };
        let Some(bytes) = run.store().get(key)? else {
            continue;
        };
        match record::decode(game, Path::new(key), &bytes) {
            Ok(f) => tally.games += f.meta.games as u64,
            Err(e) => eprintln!("worker {id}: counting no games of {key}: {e}"),
        }
        tally.files += 1;
        tally.batch = tally.batch.max(b);
        changed = true;
    }
    if changed || tally.stopped.is_some() {
        tally.stopped = None;
        write_tally(run, &mut tally)?;
    }
    Ok(tally)
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

/// The batch of a record file of worker `id` (`w-<id>-b<batch>-...`).
fn batch_of(id: &str, name: &str) -> Option<u64> {
    let rest = name
        .strip_prefix("w-")?
        .strip_prefix(id)?
        .strip_prefix("-b")?;
    rest.get(..6)?.parse().ok()
}

/// The first batch number after every batch of worker `id` that the
/// store (its records: `listing`) or the spool holds.
fn next_batch(listing: &[(String, u64)], spool: &Path, id: &str) -> anyhow::Result<u64> {
    let mut last = 0;
    for (key, _) in listing {
        let name = key.rsplit('/').next().unwrap_or_default();
        last = last.max(batch_of(id, name).unwrap_or(0));
    }
    for e in std::fs::read_dir(spool)?.flatten() {
        last = last.max(batch_of(id, &e.file_name().to_string_lossy()).unwrap_or(0));
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
    let meta = super::checkpoint_meta(game, cfg, 0);
    checkpoint::save(&dir.checkpoints(), &meta, &model, None)?;
    checkpoint::write_best(&dir.checkpoints(), 0)?;
    run.push_checkpoint(0)?;
    run.push_best()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_name_gives_its_batch_only_to_its_own_worker() {
        assert_eq!(batch_of("wa", "w-wa-b000012-w00-00000.bin"), Some(12));
        assert_eq!(batch_of("w.a_1", "w-w.a_1-b000001-w01-00003.bin"), Some(1));
        assert_eq!(batch_of("w", "w-wa-b000012-w00-00000.bin"), None);
        assert_eq!(batch_of("wa", "w-w-b000012-w00-00000.bin"), None);
        assert_eq!(batch_of("wa", "g000003-a00-w00-00000.bin"), None);
        assert_eq!(batch_of("wa", "w-wa-b12.bin"), None);
    }
}
