//! A long run's resume point: the one folder that a run in progress keeps
//! where its run directory may not outlive the machine (a machine lent for
//! a session, with the folder committed to git between sessions).
//!
//! It holds what [`super::train_loop`] resumes from and nothing else: the
//! frozen config, the `best` pointer, the newest checkpoint with its
//! optimizer state and the best network where that is another generation.
//! Replay data stays out (a run resumed from here refills its window from
//! new self-play, the resume rule for a run whose record files are gone),
//! and so do older generations and logs. Each generation replaces the
//! folder whole; the run that reaches its limit removes it.
//!
//! The folder is laid out as a run directory (`config.toml`,
//! `checkpoints/NNNNNN/`, `checkpoints/best`), so every tool that reads a
//! run reads it too.

use std::fs;
use std::path::{Path, PathBuf};

use super::dir::RunDir;
use crate::checkpoint;
use crate::util::atomic::sync_dir;

/// Where a run keeps its resume point.
#[derive(Clone, Debug)]
pub struct ResumePoint {
    dir: PathBuf,
}

/// Why a resume point cannot be written or read.
pub type ResumeError = anyhow::Error;

impl ResumePoint {
    /// The resume point in folder `dir` (which need not exist yet).
    pub fn at(dir: &Path) -> ResumePoint {
        ResumePoint {
            dir: dir.to_path_buf(),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The folder a swap in progress set aside: the resume point, if a
    /// kill came between taking the old one out and putting the new one in.
    fn set_aside(&self) -> PathBuf {
        self.sibling(".old")
    }

    fn staging(&self) -> PathBuf {
        self.sibling(".tmp")
    }

    fn sibling(&self, prefix: &str) -> PathBuf {
        let name = self
            .dir
            .file_name()
            .map_or_else(|| "resume".into(), |n| n.to_string_lossy().into_owned());
        self.parent().join(format!("{prefix}-{name}"))
    }

    fn parent(&self) -> PathBuf {
        match self.dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The folder holding the complete resume point, if there is one.
    fn current(&self) -> Option<PathBuf> {
        let complete = |d: &Path| d.join("checkpoints").join("best").is_file();
        if complete(&self.dir) {
            Some(self.dir.clone())
        } else if complete(&self.set_aside()) {
            Some(self.set_aside())
        } else {
            None
        }
    }

    /// The generation the resume point goes on from (its newest), if it
    /// holds one.
    pub fn generation(&self) -> Result<Option<u64>, ResumeError> {
        match self.current() {
            Some(d) => Ok(checkpoint::list(&d.join("checkpoints"))?.last().copied()),
            None => Ok(None),
        }
    }

    /// Brings the resume point into `run` if `run` has no checkpoint yet,
    /// and returns the generation it goes on from; a run with checkpoints
    /// of its own is left alone (`None`): it is further along or another
    /// run, and its own checkpoints are the truth.
    pub fn restore_into(&self, run: &RunDir) -> Result<Option<u64>, ResumeError> {
        if !checkpoint::list(&run.checkpoints())?.is_empty() {
            return Ok(None);
        }
        let Some(from) = self.current() else {
            return Ok(None);
        };
        let ckpts = from.join("checkpoints");
        let generations = checkpoint::list(&ckpts)?;
        let Some(&newest) = generations.last() else {
            anyhow::bail!(
                "{}: the resume point holds no checkpoint",
                self.dir.display()
            );
        };
        let config = from.join("config.toml");
        anyhow::ensure!(
            config.is_file(),
            "{}: the resume point has no config.toml",
            self.dir.display()
        );
        copy_synced(&config, &run.config())?;
        for &g in &generations {
            copy_dir_into(
                &checkpoint::generation_dir(&ckpts, g),
                &checkpoint::generation_dir(&run.checkpoints(), g),
            )?;
        }
        copy_synced(&ckpts.join("best"), &run.checkpoints().join("best"))?;
        Ok(Some(newest))
    }

    /// Replaces the resume point with `run`'s state: the config, the
    /// `best` pointer, the newest checkpoint and the best one. A reader
    /// finds the old folder or the new one whenever the process dies
    /// (the new one is written aside and fsynced, then swapped in by two
    /// renames; [`restore_into`](Self::restore_into) takes the old one
    /// from where the swap set it aside).
    pub fn save(&self, run: &RunDir) -> Result<u64, ResumeError> {
        let ckpts = run.checkpoints();
        let Some(&newest) = checkpoint::list(&ckpts)?.last() else {
            anyhow::bail!("{}: no checkpoint to keep", ckpts.display());
        };
        let best = checkpoint::read_best(&ckpts)?.unwrap_or(newest);
        let staging = self.staging();
        remove_if_there(&staging)?;
        fs::create_dir_all(staging.join("checkpoints"))?;
        copy_synced(&run.config(), &staging.join("config.toml"))?;
        for g in [best, newest] {
            copy_dir_into(
                &checkpoint::generation_dir(&ckpts, g),
                &checkpoint::generation_dir(&staging.join("checkpoints"), g),
            )?;
        }
        checkpoint::write_best(&staging.join("checkpoints"), best)?;
        sync_dir(&staging)?;

        let parent = self.parent();
        let aside = self.set_aside();
        if self.dir.exists() {
            // The folder in place is the resume point (only a rename
            // puts one there); one set aside beside it is a finished
            // swap's leftover.
            remove_if_there(&aside)?;
            fs::rename(&self.dir, &aside)?;
            sync_dir(&parent)?;
        }
        fs::rename(&staging, &self.dir)?;
        sync_dir(&parent)?;
        remove_if_there(&aside)?;
        Ok(newest)
    }

    /// Removes the resume point (the run has reached its limit), every
    /// folder a swap may have left included.
    pub fn remove(&self) -> Result<(), ResumeError> {
        for d in [&self.dir, &self.set_aside(), &self.staging()] {
            remove_if_there(d)?;
        }
        sync_dir(&self.parent())?;
        Ok(())
    }
}

fn remove_if_there(dir: &Path) -> std::io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Copies the file `from` to `to` and fsyncs it.
fn copy_synced(from: &Path, to: &Path) -> Result<(), ResumeError> {
    let bytes = fs::read(from).map_err(|e| anyhow::anyhow!("{}: {e}", from.display()))?;
    crate::util::write_atomic(to, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", to.display()))
}

/// Copies the checkpoint folder `from` (plain files) to `to`, replacing
/// it: the files are written into a temporary folder beside `to`, which is
/// then renamed into place, so `to` is whole or absent.
fn copy_dir_into(from: &Path, to: &Path) -> Result<(), ResumeError> {
    let parent = to.parent().unwrap_or(Path::new("."));
    let name = to
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = parent.join(format!(".tmp-{name}"));
    remove_if_there(&tmp)?;
    fs::create_dir_all(&tmp)?;
    let entries = fs::read_dir(from).map_err(|e| anyhow::anyhow!("{}: {e}", from.display()))?;
    for e in entries {
        let e = e?;
        if e.file_type()?.is_file() {
            copy_synced(&e.path(), &tmp.join(e.file_name()))?;
        }
    }
    remove_if_there(to)?;
    fs::rename(&tmp, to)?;
    sync_dir(parent)?;
    Ok(())
}
