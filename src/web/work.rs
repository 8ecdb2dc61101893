//! The server's slow work in one bounded line: engine moves, analyses,
//! reviews, new games (which may load a network or open a database), the
//! Morris database's answers and the grid solver's verdicts.
//!
//! At most `slots` run at once on the blocking pool; up to `max_waiting`
//! more wait their turn; beyond that a request is answered 503 with
//! `Retry-After` at once. So any number of clients costs at most `slots`
//! busy threads and `slots + max_waiting` requests' memory, and cheap
//! requests (a game's view, a page, the config) never wait behind them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::api::ApiError;

/// Seconds a client told the server is busy is asked to wait.
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// The bounded line of slow work.
pub struct Work {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
}

/// Takes one from the waiting count when a waiting request is served or
/// dropped (its client went away).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Work {
    /// `slots` at once (0: one per core), `max_waiting` in line (0: four
    /// per slot).
    pub fn new(slots: usize, max_waiting: usize) -> Work {
        let slots = if slots == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            slots
        };
        let max_waiting = if max_waiting == 0 {
            4 * slots
        } else {
            max_waiting
        };
        Work {
            slots: Arc::new(Semaphore::new(slots)),
            waiting: AtomicUsize::new(0),
            max_waiting,
        }
    }

    /// A free slot, once there is one, or 503 when the line is full.
    pub async fn slot(&self) -> Result<Slot, ApiError> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(Slot(permit));
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(ApiError::busy(
                "the server is busy with other requests; try again shortly",
                RETRY_AFTER_SECONDS,
            ));
        }
        let _waiting = Waiting(&self.waiting);
        let permit = self.slots.clone().acquire_owned().await.map_err(|_| {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping")
        })?;
        Ok(Slot(permit))
    }

    /// Runs `job` on the blocking pool once a slot is free, or answers 503
    /// when the line is full.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        self.slot().await?.run(job).await.map_err(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the request's work failed on the server",
            )
        })
    }
}

/// One of the line's slots, held until its job ends.
pub struct Slot(OwnedSemaphorePermit);

impl Slot {
    /// Runs `job` on the blocking pool, the slot held until it ends; the
    /// error says it panicked.
    pub async fn run<T: Send + 'static>(
        self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, tokio::task::JoinError> {
        let permit = self.0;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job()
        })
        .await
    }
}
