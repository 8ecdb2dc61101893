//! The publish phase: what the loop has completed goes to the run's store
//! as soon as it is complete (docs/distributed.md), and nowhere when the
//! run is a plain folder; each generation also replaces the run's resume
//! point where it keeps one ([`ResumePoint`]). One small type, so that
//! each phase says what it publishes without asking where it goes.

use std::path::Path;

use super::dir::RunDir;
use super::resume::ResumePoint;
use super::shared::{Finished, SharedRun};
use crate::checkpoint;

/// The run's store, if it lives at a location ([`SharedRun`]), and its
/// resume point with the folder it is taken from, if it keeps one; what
/// has neither is not sent anywhere.
#[derive(Clone, Copy)]
pub(crate) struct Publish<'a> {
    store: Option<&'a SharedRun>,
    resume: Option<(&'a ResumePoint, &'a RunDir)>,
}

impl<'a> Publish<'a> {
    pub fn new(
        shared: Option<&'a SharedRun>,
        resume: Option<(&'a ResumePoint, &'a RunDir)>,
    ) -> Publish<'a> {
        Publish {
            store: shared,
            resume,
        }
    }

    /// The store, for the phases that also read from it.
    pub fn store(&self) -> Option<&'a SharedRun> {
        self.store
    }

    fn each(&self, f: impl FnOnce(&SharedRun) -> anyhow::Result<()>) -> anyhow::Result<()> {
        match self.store {
            Some(s) => f(s),
            None => Ok(()),
        }
    }

    /// The frozen config.
    pub fn config(&self) -> anyhow::Result<()> {
        self.each(|s| s.push_config())
    }

    /// Generation `g`'s checkpoint, whole.
    pub fn checkpoint(&self, g: u64) -> anyhow::Result<()> {
        self.each(|s| s.push_checkpoint(g))
    }

    /// Generation `g`'s `meta.json` again (after gating wrote its result).
    pub fn meta(&self, g: u64) -> anyhow::Result<()> {
        self.each(|s| s.push_meta(g))
    }

    /// The `best` pointer.
    pub fn best(&self) -> anyhow::Result<()> {
        self.each(|s| s.push_best())
    }

    /// The logs, as far as they were written.
    pub fn logs(&self) -> anyhow::Result<()> {
        self.each(|s| s.push_logs())
    }

    /// A generation is complete (gated, `best` written): the resume point
    /// goes on from it.
    pub fn generation_done(&self) -> anyhow::Result<()> {
        if let Some((point, run)) = self.resume {
            point
                .save(run)
                .map_err(|e| anyhow::anyhow!("resume point {}: {e}", point.path().display()))?;
        }
        Ok(())
    }

    /// The run is over: its workers stop, and its resume point, which
    /// nothing will go on from, is removed.
    pub fn finished(&self, finished: &Finished) -> anyhow::Result<()> {
        self.each(|s| s.publish_finished(finished))?;
        if let Some((point, _)) = self.resume {
            point
                .remove()
                .map_err(|e| anyhow::anyhow!("resume point {}: {e}", point.path().display()))?;
        }
        Ok(())
    }

    /// Every local checkpoint the store lacks, and the `best` pointer if
    /// the store has none: generation 0, new or from a warm start, may
    /// not be published yet (publishing it again is harmless).
    pub fn missing_checkpoints(&self, ckpts: &Path) -> anyhow::Result<()> {
        self.each(|s| {
            let published = s.generations()?;
            for g in checkpoint::list(ckpts)? {
                if !published.contains(&g) {
                    s.push_checkpoint(g)?;
                }
            }
            if s.best()?.is_none() {
                s.push_best()?;
            }
            Ok(())
        })
    }
}
