//! A run shared through a store ([`crate::store`]) by one trainer, any
//! number of self-play workers and any number of readers (status, the
//! dashboard).
//!
//! Every process works on a local folder laid out as a run directory
//! ([`RunDir`]) and exchanges files with the store under the same relative
//! paths. For a local run the folder *is* the store and nothing is copied;
//! for `s3://...` it is a cache that a process may lose at any time (a
//! Kubernetes pod restarted): everything a process needs to go on is in
//! the store.
//!
//! What makes it safe without a rename (the consistency argument,
//! `docs/distributed.md` in full): S3 PUTs are atomic and reads after a
//! successful PUT see it. A checkpoint's files go up weights first and
//! `meta.json` last, and a generation counts (for [`checkpoint::list`]
//! and every reader here) only once its `meta.json` exists; `best` is one
//! object, written only after the generation it names is complete. Record
//! files have names no two workers share and are never rewritten.
//!
//! When the trainer stops because its config's limit is reached it
//! publishes [`FINISHED`] (one small object, so atomic like the rest);
//! workers stop when they see it. A trainer started again that will train
//! further removes it before its first generation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::RunDir;
use crate::checkpoint;
use crate::store::{Location, Store, StoreError};
use crate::util::write_atomic;

/// The store's folder of self-play records.
pub const RECORDS: &str = "data/selfplay";

/// The object that says the run is over: [`Finished`] as JSON.
pub const FINISHED: &str = "finished.json";

/// What `finished.json` holds: the trainer stopped because its config's
/// limit was reached (not because it was stopped: a stopped run is
/// resumed, and its workers go on waiting for it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    /// The last generation trained.
    pub generation: u64,
    /// The best network then.
    pub best: u64,
    /// The limit that was reached, as the config says it
    /// (`generations = 40`, `hours = 2`).
    pub limit: String,
    /// When, in seconds since 1970 (UTC).
    pub at_unix: u64,
}

impl Finished {
    /// "generation 4 (generations = 4 reached, 2026-11-25 22:08:29 UTC)".
    pub fn describe(&self) -> String {
        format!(
            "generation {} ({} reached, {})",
            self.generation,
            self.limit,
            utc(self.at_unix)
        )
    }
}

/// Seconds since 1970 now.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `secs` since 1970 as "YYYY-MM-DD HH:MM:SS UTC".
///
/// ```
/// use yinsh_zero::run::shared::utc;
/// assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
/// assert_eq!(utc(951_782_400 + 3_661), "2000-02-29 01:01:01 UTC");
/// assert_eq!(utc(1_795_644_509), "2026-11-25 22:08:29 UTC");
/// assert_eq!(utc(4_102_444_799), "2099-12-31 23:59:59 UTC");
/// ```
pub fn utc(secs: u64) -> String {
    // Days to a civil date (H. Hinnant's algorithm, proleptic Gregorian).
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let t = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// A run at a location, with the local folder this process works in.
pub struct SharedRun {
    store: Store,
    dir: RunDir,
    /// False when the store is the local folder itself.
    mirrored: bool,
    /// Sizes of the log files as last uploaded.
    pushed_logs: Mutex<BTreeMap<String, u64>>,
}

/// Why a shared run cannot be read or written.
pub type SharedError = anyhow::Error;

impl SharedRun {
    /// The run at `location`; a remote run is cached in `cache` (default:
    /// a folder under the system's temporary directory named after the
    /// URL). `stop` ends waits for an unreachable store.
    pub fn open(
        location: &str,
        cache: Option<&Path>,
        stop: Arc<AtomicBool>,
    ) -> Result<SharedRun, StoreError> {
        let loc = Location::parse(location)?;
        let (dir, mirrored) = match &loc {
            Location::Local(p) => (RunDir::new(p), false),
            Location::S3 { .. } => {
                let cache = match cache {
                    Some(c) => c.to_path_buf(),
                    None => default_cache(&loc),
                };
                (RunDir::new(&cache), true)
            }
        };
        Ok(SharedRun {
            store: Store::at(loc)?.with_stop(stop),
            dir,
            mirrored,
            pushed_logs: Mutex::new(BTreeMap::new()),
        })
    }

    /// The local folder, laid out as a run directory.
    pub fn dir(&self) -> &RunDir {
        &self.dir
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn url(&self) -> String {
        self.store.url()
    }

    /// Whether the local folder is a copy (a remote run).
    pub fn is_mirrored(&self) -> bool {
        self.mirrored
    }

    fn local(&self, key: &str) -> PathBuf {
        self.dir.root.join(key)
    }

    /// Copies `key` from the store into the local folder; false if the
    /// store has no such object.
    pub fn fetch(&self, key: &str) -> Result<bool, SharedError> {
        if !self.mirrored {
            return Ok(self.local(key).exists());
        }
        match self.store.get(key)? {
            Some(bytes) => {
                write_atomic(&self.local(key), &bytes)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Copies the local file at `key` into the store.
    pub fn send(&self, key: &str) -> Result<(), SharedError> {
        if !self.mirrored {
            return Ok(());
        }
        let bytes = std::fs::read(self.local(key))
            .map_err(|e| anyhow::anyhow!("{}: {e}", self.local(key).display()))?;
        Ok(self.store.put(key, bytes)?)
    }

    /// The generation `checkpoints/best` names in the store.
    pub fn best(&self) -> Result<Option<u64>, SharedError> {
        let text = if self.mirrored {
            self.store.get("checkpoints/best")?
        } else {
            std::fs::read(self.local("checkpoints/best")).ok()
        };
        let Some(text) = text else { return Ok(None) };
        let text = String::from_utf8_lossy(&text);
        text.trim().parse().map(Some).map_err(|_| {
            anyhow::anyhow!(
                "{}: checkpoints/best holds `{}`, not a generation number",
                self.url(),
                crate::util::excerpt(&text)
            )
        })
    }

    /// Generations whose `meta.json` is in the store: the complete ones.
    pub fn generations(&self) -> Result<Vec<u64>, SharedError> {
        if !self.mirrored {
            return Ok(checkpoint::list(&self.dir.checkpoints())?);
        }
        let mut out: Vec<u64> = self
            .store
            .list("checkpoints/")?
            .into_iter()
            .filter_map(|(k, _)| {
                let rest = k.strip_prefix("checkpoints/")?;
                let (g, file) = rest.split_once('/')?;
                (file == "meta.json" && g.len() == 6).then(|| g.parse().ok())?
            })
            .collect();
        out.sort();
        Ok(out)
    }

    fn checkpoint_key(g: u64, file: &str) -> String {
        format!("checkpoints/{g:06}/{file}")
    }

    /// Copies generation `g`'s checkpoint into the local folder: its
    /// weights (and, with `optimizer`, what training goes on from: the
    /// optimizer state and any trained weights), then `meta.json`,
    /// so that a local copy is complete whenever its meta is there.
    pub fn pull_checkpoint(&self, g: u64, optimizer: bool) -> Result<PathBuf, SharedError> {
        let dir = checkpoint::generation_dir(&self.dir.checkpoints(), g);
        if !self.mirrored {
            return Ok(dir);
        }
        anyhow::ensure!(
            self.fetch(&Self::checkpoint_key(g, "model.bpk"))?,
            "{}: generation {g} has no model.bpk",
            self.url()
        );
        if optimizer {
            self.fetch(&Self::checkpoint_key(g, "optimizer.bpk"))?;
            self.fetch(&Self::checkpoint_key(g, checkpoint::TRAINED))?;
        }
        anyhow::ensure!(
            self.fetch(&Self::checkpoint_key(g, "meta.json"))?,
            "{}: generation {g} has no meta.json",
            self.url()
        );
        Ok(dir)
    }

    /// Publishes generation `g` from the local folder: weights and
    /// optimizer state first, `meta.json` last (it makes the generation
    /// count).
    pub fn push_checkpoint(&self, g: u64) -> Result<(), SharedError> {
        for file in ["model.bpk", checkpoint::TRAINED, "optimizer.bpk"] {
            let key = Self::checkpoint_key(g, file);
            if self.local(&key).exists() {
                self.send(&key)?;
            }
        }
        self.send(&Self::checkpoint_key(g, "meta.json"))
    }

    /// Publishes a rewritten `meta.json` (the gating result added).
    pub fn push_meta(&self, g: u64) -> Result<(), SharedError> {
        self.send(&Self::checkpoint_key(g, "meta.json"))
    }

    /// Publishes the local `best` pointer (after the generation it names).
    pub fn push_best(&self) -> Result<(), SharedError> {
        self.send("checkpoints/best")
    }

    pub fn push_config(&self) -> Result<(), SharedError> {
        self.send("config.toml")
    }

    /// The run's frozen config text, if the trainer has published one.
    pub fn config_text(&self) -> Result<Option<String>, SharedError> {
        let bytes = if self.mirrored {
            self.store.get("config.toml")?
        } else {
            std::fs::read(self.dir.config()).ok()
        };
        Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Whether the trainer has said the run is over ([`FINISHED`]).
    pub fn finished(&self) -> Result<Option<Finished>, SharedError> {
        let Some(bytes) = self.store.get(FINISHED)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            anyhow::anyhow!(
                "{}: {FINISHED} is not what a trainer writes ({e}); remove it if the run is not over",
                self.url()
            )
        })
    }

    /// Says in the store that the run is over (the trainer, at its
    /// config's limit).
    pub fn publish_finished(&self, finished: &Finished) -> Result<(), SharedError> {
        let json = serde_json::to_vec_pretty(finished)?;
        Ok(self.store.put(FINISHED, json)?)
    }

    /// Takes back [`Self::publish_finished`]: the run goes on (a trainer
    /// resumed with a higher limit).
    pub fn clear_finished(&self) -> Result<(), SharedError> {
        Ok(self.store.delete(FINISHED)?)
    }

    /// Uploads every file under `logs/` and `eval/` that grew or changed
    /// size since the last upload: what status and the dashboard read.
    pub fn push_logs(&self) -> Result<(), SharedError> {
        if !self.mirrored {
            return Ok(());
        }
        for folder in ["logs", "eval"] {
            for path in files_under(&self.local(folder)) {
                let key = self.dir.relative(&path);
                let size = std::fs::metadata(&path).map_or(0, |m| m.len());
                let mut pushed = self.pushed_logs.lock().unwrap();
                if pushed.get(&key) == Some(&size) {
                    continue;
                }
                self.send(&key)?;
                pushed.insert(key, size);
            }
        }
        Ok(())
    }

    /// Copies `logs/`, `eval/`, `config.toml`, every generation's
    /// `meta.json` and `best` into the local folder: all that status and
    /// the dashboard read, and what a trainer needs to go on with its log.
    pub fn pull_view(&self) -> Result<(), SharedError> {
        if !self.mirrored {
            return Ok(());
        }
        self.fetch("config.toml")?;
        for folder in ["logs/", "eval/"] {
            for (key, size) in self.store.list(folder)? {
                let local = self.local(&key);
                if std::fs::metadata(&local).is_ok_and(|m| m.len() == size) {
                    continue;
                }
                self.fetch(&key)?;
                self.pushed_logs.lock().unwrap().insert(key, size);
            }
        }
        for g in self.generations()? {
            self.fetch(&Self::checkpoint_key(g, "meta.json"))?;
        }
        self.fetch("checkpoints/best")?;
        Ok(())
    }

    /// Copies what a trainer needs to resume into the local folder: the
    /// view ([`Self::pull_view`]), the newest generation whole, the best
    /// network's weights, and the record files in the newest generation's
    /// replay window. Local generations that the store does not have (a
    /// cache older than a lost store, or newer than what was published)
    /// are removed, so that the store is the truth.
    pub fn pull_for_trainer(&self) -> Result<(), SharedError> {
        if !self.mirrored {
            return Ok(());
        }
        let published: BTreeSet<u64> = self.generations()?.into_iter().collect();
        for g in checkpoint::list(&self.dir.checkpoints())? {
            if !published.contains(&g) {
                let dir = checkpoint::generation_dir(&self.dir.checkpoints(), g);
                std::fs::remove_dir_all(&dir)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            }
        }
        self.pull_view()?;
        let Some(&newest) = published.iter().next_back() else {
            return Ok(());
        };
        self.pull_checkpoint(newest, true)?;
        if let Some(best) = self.best()? {
            self.pull_checkpoint(best, false)?;
        }
        let meta =
            checkpoint::read_meta(&checkpoint::generation_dir(&self.dir.checkpoints(), newest))?;
        for f in meta.replay_files.iter().skip(meta.replay_spent) {
            if !self.local(f).exists() {
                // A record file the store lost is reported by the loop
                // when it opens the window.
                self.fetch(f)?;
            }
        }
        Ok(())
    }

    /// Copies record files that are in the store but neither in the local
    /// folder nor in `skip` (files already judged unusable); the number
    /// copied.
    pub fn pull_new_records(&self, skip: &BTreeSet<String>) -> Result<usize, SharedError> {
        if !self.mirrored {
            return Ok(0);
        }
        let mut n = 0;
        for (key, _) in self.store.list(&format!("{RECORDS}/"))? {
            if skip.contains(&key) || self.local(&key).exists() {
                continue;
            }
            if self.fetch(&key)? {
                n += 1;
            }
        }
        Ok(n)
    }
}

/// The cache folder of a remote run when none is given.
fn default_cache(loc: &Location) -> PathBuf {
    let name: String = loc
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::env::temp_dir().join("yinsh-zero-runs").join(name)
}

/// Plain files under `dir`, at any depth (none if it does not exist).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            if name.to_string_lossy().starts_with(".tmp-") {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}
