//! Where a run keeps its files, and which self-play record files it has
//! not yet taken into its replay window.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::game::Game;
use crate::replay::record;

/// Paths of a run directory. `<run>/checkpoints`, `<run>/data/selfplay`,
/// `<run>/data/teacher`, `<run>/logs`, `<run>/eval` and the frozen
/// `<run>/config.toml`; the project's default run keeps checkpoints in
/// `checkpoints/` and the rest under `data/`.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// Paths in checkpoint metadata are relative to this.
    pub root: PathBuf,
    checkpoints: PathBuf,
    data: PathBuf,
    meta: PathBuf,
}

/// Record files of one generation found on disk but not yet in the
/// window: self-play that finished before a kill.
#[derive(Clone, Debug, Default)]
pub struct PendingRecords {
    /// Every record file not in the window, of any generation.
    pub files: Vec<PathBuf>,
    /// Games in this generation's files.
    pub games: u64,
    /// This generation's files: earlier attempts at it.
    pub attempts: u32,
}

impl RunDir {
    /// The standard layout under `root`.
    pub fn new(root: &Path) -> RunDir {
        RunDir {
            root: root.to_path_buf(),
            checkpoints: root.join("checkpoints"),
            data: root.join("data"),
            meta: root.to_path_buf(),
        }
    }

    /// The project's own folders: `checkpoints/` and `data/` under `project`.
    pub fn project_default(project: &Path) -> RunDir {
        RunDir {
            root: project.to_path_buf(),
            checkpoints: project.join("checkpoints"),
            data: project.join("data"),
            meta: project.join("data"),
        }
    }

    /// The folder holding `config.toml`, `logs/` and `eval/`: what the
    /// dashboard reads.
    pub fn meta(&self) -> &Path {
        &self.meta
    }
    pub fn config(&self) -> PathBuf {
        self.meta.join("config.toml")
    }
    pub fn checkpoints(&self) -> PathBuf {
        self.checkpoints.clone()
    }
    pub fn selfplay(&self) -> PathBuf {
        self.data.join("selfplay")
    }
    /// Record files of the warm start's teacher games.
    pub fn teacher(&self) -> PathBuf {
        self.data.join("teacher")
    }
    pub fn logs(&self) -> PathBuf {
        self.meta.join("logs")
    }
    pub fn eval(&self) -> PathBuf {
        self.meta.join("eval")
    }

    /// `p` as checkpoint metadata records it: relative to the root.
    pub fn relative(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    }

    /// The name prefix of generation `g`'s record files of attempt `attempt`.
    pub fn record_prefix(g: u64, attempt: u32) -> String {
        format!("g{g:06}-a{attempt:02}")
    }

    /// Record files in the self-play folder that are not in `known` (paths
    /// relative to the root), counting the games of generation `g`'s. An
    /// unreadable file of generation `g` is reported and its games played
    /// again.
    pub fn pending_records<G: Game>(
        &self,
        game: &G,
        known: &BTreeSet<String>,
        g: u64,
    ) -> std::io::Result<PendingRecords> {
        let mut pending = PendingRecords::default();
        let this_generation = format!("g{g:06}-");
        for entry in fs::read_dir(self.selfplay())? {
            let p = entry?.path();
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if !name.ends_with(".bin") || known.contains(&self.relative(&p)) {
                continue;
            }
            if name.starts_with(&this_generation) {
                pending.attempts += 1;
                match record::read(game, &p) {
                    Ok(f) => pending.games += f.meta.games as u64,
                    Err(e) => eprintln!("skipping record file: {e}"),
                }
            }
            pending.files.push(p);
        }
        pending.files.sort();
        Ok(pending)
    }
}
