//! Where a run stands (`yinsh-zero status`): read from its checkpoints,
//! its metrics and, for a run at a location, its store. Here rather than
//! in the command so that the command only prints, and so that anything
//! else that shows a run (a dashboard) can read the same facts.

use serde_json::Value;

use super::RunDir;
use super::shared::{Finished, SharedRun};
use super::worker::{WorkerTally, tallies};
use crate::checkpoint::{self, CheckpointMeta, GatingResult};

/// How many of the newest generations' gating results a status shows.
pub const GATING_SHOWN: usize = 5;

/// A run's state, as `yinsh-zero status` shows it.
pub struct RunStatus {
    /// The newest generation.
    pub latest: u64,
    /// The `best` pointer, if there is one.
    pub best: Option<u64>,
    /// The newest generation's metadata.
    pub meta: CheckpointMeta,
    /// Whether the trainer stopped at its config's limit (a run at a
    /// location only).
    pub finished: Option<Finished>,
    /// What each worker uploaded, sorted by id (a run at a location only).
    pub workers: Vec<WorkerTally>,
    /// The gating results among the [`GATING_SHOWN`] newest generations,
    /// newest first.
    pub gating: Vec<(u64, GatingResult)>,
    /// The last `selfplay` metrics line.
    pub selfplay: Option<Value>,
    /// The last `train` metrics line.
    pub train: Option<Value>,
    /// The newest baseline measurement: every `baseline/<opponent>` line
    /// of the last generation that had one.
    pub baseline: Vec<Value>,
}

impl RunStatus {
    /// Reads the status of the run in `dir`; `shared` is its store when it
    /// lives at a location (already pulled into `dir`). An error if the
    /// run has no checkpoint yet.
    pub fn read(dir: &RunDir, shared: Option<&SharedRun>) -> anyhow::Result<RunStatus> {
        let ckpts = dir.checkpoints();
        let gens = checkpoint::list(&ckpts)?;
        let Some(&latest) = gens.last() else {
            anyhow::bail!("{}: no checkpoints: not a run (yet)", ckpts.display());
        };
        let best = checkpoint::read_best(&ckpts)?;
        let meta = checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, latest))?;
        let (finished, workers) = match shared {
            Some(s) => (s.finished()?, tallies(s)?),
            None => (None, Vec::new()),
        };
        let mut gating = Vec::new();
        for &g in gens.iter().rev().take(GATING_SHOWN) {
            let m = checkpoint::read_meta(&checkpoint::generation_dir(&ckpts, g))?;
            if let Some(r) = m.gating {
                gating.push((g, r));
            }
        }
        let text = std::fs::read_to_string(dir.logs().join("metrics.jsonl")).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect();
        let last = |kind: &str| lines.iter().rev().find(|v| v["kind"] == kind).cloned();
        Ok(RunStatus {
            latest,
            best,
            meta,
            finished,
            workers,
            gating,
            selfplay: last("selfplay"),
            train: last("train"),
            baseline: newest_baseline(&lines),
        })
    }
}

/// The `baseline/<opponent>` lines of the last generation that has any.
fn newest_baseline(lines: &[Value]) -> Vec<Value> {
    let records: Vec<&Value> = lines
        .iter()
        .filter(|v| {
            v["kind"]
                .as_str()
                .is_some_and(|k| k.starts_with("baseline/"))
        })
        .collect();
    let Some(newest) = records.last() else {
        return Vec::new();
    };
    let g = &newest["generation"];
    records
        .iter()
        .filter(|v| &v["generation"] == g)
        .map(|v| (*v).clone())
        .collect()
}
