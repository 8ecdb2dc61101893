//! The publish phase: what the loop has completed goes to the run's store
//! as soon as it is complete (docs/distributed.md), and nowhere when the
//! run is a plain folder. One small type, so that each phase says what it
//! publishes without asking whether there is a store.

use std::path::Path;

use super::shared::{Finished, SharedRun};
use crate::checkpoint;

/// The run's store, if it lives at a location ([`SharedRun`]); every
/// method does nothing for a plain folder.
#[derive(Clone, Copy)]
pub(crate) struct Publish<'a>(Option<&'a SharedRun>);

impl<'a> Publish<'a> {
    pub fn new(shared: Option<&'a SharedRun>) -> Publish<'a> {
        Publish(shared)
    }

    /// The store, for the phases that also read from it.
    pub fn store(&self) -> Option<&'a SharedRun> {
        self.0
    }

    fn each(&self, f: impl FnOnce(&SharedRun) -> anyhow::Result<()>) -> anyhow::Result<()> {
        match self.0 {
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

    /// The run is over: its workers stop.
    pub fn finished(&self, finished: &Finished) -> anyhow::Result<()> {
        self.each(|s| s.publish_finished(finished))
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
