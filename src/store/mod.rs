//! Object storage: where a run lives when it is shared by many processes.
//!
//! A run is named by a location ([`Location`]): a plain path or `file://`
//! URL (the local file system, as always), or `s3://bucket/prefix` for any
//! S3-compatible store. [`Store`] is a small blocking facade over the
//! `object_store` crate, which does the HTTP, request signing and
//! multipart uploads; what this module adds is what every caller of a
//! shared store needs and would otherwise repeat:
//!
//! - keys relative to the run (`checkpoints/000007/meta.json`), the same
//!   relative paths a local run has on disk;
//! - retries with backoff that *report* themselves (a worker whose store
//!   went away says so every time it tries again) and stop on request;
//! - errors that name the run's URL and say what to check (credentials,
//!   bucket), instead of the client library's request dump.
//!
//! Credentials and endpoint come from the usual environment variables:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION` / `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` (a local or
//! non-AWS server) and `AWS_ALLOW_HTTP=true` (a server without TLS).
//!
//! Every PUT is atomic at the store: a reader sees the whole object or no
//! object, whenever the writer dies (S3 publishes an object only when its
//! upload completes; the local file system is written to a staging file
//! and renamed).
//!
//! The ground floor: it knows nothing of games, networks or runs.

mod location;

pub use location::Location;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::{
    BackoffConfig, ClientConfigKey, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
    RetryConfig,
};

/// Why a store operation failed. Every variant names the run's URL.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("`{location}` is not a run location: {why}")]
    BadLocation { location: String, why: String },
    #[error(
        "{url}: access denied ({detail}); check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and \
         the bucket's permissions"
    )]
    Denied { url: String, detail: String },
    #[error("{url}: the bucket does not exist or is not visible to these credentials ({detail})")]
    NoBucket { url: String, detail: String },
    #[error("{url}: {detail}")]
    Failed { url: String, detail: String },
    #[error("{url}: stopped while waiting for the store")]
    Stopped { url: String },
}

/// How failed requests are tried again: exponential backoff from `first`
/// to `longest`, for ever (a worker or trainer has nothing better to do
/// than wait for its store) unless `give_up_after` is set.
#[derive(Clone, Debug)]
pub struct Backoff {
    pub first: Duration,
    pub longest: Duration,
    pub give_up_after: Option<Duration>,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            first: Duration::from_millis(500),
            longest: Duration::from_secs(30),
            give_up_after: None,
        }
    }
}

/// A run's store: keys are paths relative to the run.
///
/// ```
/// use yinsh_zero::store::Store;
/// let dir = tempfile::tempdir().unwrap();
/// let store = Store::open(dir.path().to_str().unwrap()).unwrap();
/// store.put("checkpoints/best", b"000003\n".to_vec()).unwrap();
/// assert_eq!(store.get("checkpoints/best").unwrap().unwrap(), b"000003\n");
/// assert_eq!(store.get("checkpoints/none").unwrap(), None);
/// assert_eq!(store.list("checkpoints/").unwrap(), vec![("checkpoints/best".to_string(), 7)]);
/// // A local run's store is the run directory itself.
/// assert!(dir.path().join("checkpoints/best").is_file());
/// ```
pub struct Store {
    location: Location,
    inner: Arc<dyn ObjectStore>,
    /// The run's prefix inside the bucket (empty for local runs, whose
    /// store is rooted at the run directory).
    prefix: String,
    runtime: tokio::runtime::Runtime,
    backoff: Backoff,
    stop: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.location)
    }
}

impl Store {
    /// Opens the run at `location` (see [`Location::parse`]). A local run's
    /// directory is created; a bucket is not contacted until first used.
    pub fn open(location: &str) -> Result<Store, StoreError> {
        Store::at(Location::parse(location)?)
    }

    /// Opens the run at `location` with S3 settings given here rather than
    /// in the environment (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, ...: the
    /// same names, which override the environment's).
    pub fn open_with(location: &str, settings: &[(&str, String)]) -> Result<Store, StoreError> {
        Store::at_with(Location::parse(location)?, settings)
    }

    /// Opens the run at a parsed location.
    pub fn at(location: Location) -> Result<Store, StoreError> {
        Store::at_with(location, &[])
    }

    fn at_with(location: Location, settings: &[(&str, String)]) -> Result<Store, StoreError> {
        let bad = |why: String| StoreError::BadLocation {
            location: location.to_string(),
            why,
        };
        let (inner, prefix): (Arc<dyn ObjectStore>, String) = match &location {
            Location::Local(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| bad(format!("cannot create {}: {e}", dir.display())))?;
                let fs = LocalFileSystem::new_with_prefix(dir).map_err(|e| bad(e.to_string()))?;
                (Arc::new(fs), String::new())
            }
            Location::S3 { bucket, prefix } => {
                // Our own loop retries (and reports); the client's own
                // retries are kept short so that a dead server is noticed.
                let retry = RetryConfig {
                    backoff: BackoffConfig {
                        init_backoff: Duration::from_millis(100),
                        max_backoff: Duration::from_secs(1),
                        base: 2.0,
                    },
                    max_retries: 2,
                    retry_timeout: Duration::from_secs(20),
                };
                // Timeouts as config keys: client options would replace the
                // environment's (AWS_ALLOW_HTTP among them).
                let mut builder = AmazonS3Builder::from_env();
                for (key, value) in settings {
                    let key: AmazonS3ConfigKey = key
                        .to_ascii_lowercase()
                        .parse()
                        .map_err(|e: object_store::Error| bad(e.to_string()))?;
                    builder = builder.with_config(key, value);
                }
                let s3 = builder
                    .with_bucket_name(bucket)
                    .with_retry(retry)
                    .with_config(
                        AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
                        "5s",
                    )
                    .with_config(AmazonS3ConfigKey::Client(ClientConfigKey::Timeout), "120s")
                    .build()
                    .map_err(|e| bad(e.to_string()))?;
                (Arc::new(s3), prefix.clone())
            }
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store")
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start the I/O runtime: {e}")))?;
        Ok(Store {
            location,
            inner,
            prefix,
            runtime,
            backoff: Backoff::default(),
            stop: None,
        })
    }

    /// Retries end with [`StoreError::Stopped`] once `stop` is set.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Store {
        self.stop = Some(stop);
        self
    }

    pub fn with_backoff(mut self, backoff: Backoff) -> Store {
        self.backoff = backoff;
        self
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The run's URL, as errors and reports name it.
    pub fn url(&self) -> String {
        self.location.to_string()
    }

    fn key(&self, key: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(key)
        } else {
            Key::from(format!("{}/{key}", self.prefix))
        }
    }

    /// `key`'s bytes, or `None` if there is no such object.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let k = self.key(key);
        self.retrying(&format!("reading {key}"), || async {
            match self.inner.get(&k).await {
                Ok(r) => r.bytes().await.map(|b| Some(b.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    /// Writes `key` whole, replacing any object there.
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let k = self.key(key);
        let payload = PutPayload::from(bytes);
        self.retrying(&format!("writing {key}"), || async {
            self.inner.put(&k, payload.clone()).await.map(|_| ())
        })
    }

    /// Writes `key` only if no object has that name: false if one had (a
    /// retried request whose first try landed finds its own object).
    /// Stores without conditional writes overwrite; names that are unique
    /// by construction (worker id and sequence) do not rely on it.
    pub fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        let k = self.key(key);
        let payload = PutPayload::from(bytes);
        self.retrying(&format!("writing {key}"), || async {
            let opts = PutOptions {
                mode: PutMode::Create,
                ..PutOptions::default()
            };
            match self.inner.put_opts(&k, payload.clone(), opts).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                // A store that cannot do conditional writes at all.
                Err(object_store::Error::NotImplemented { .. })
                | Err(object_store::Error::NotSupported { .. }) => {
                    self.inner.put(&k, payload.clone()).await.map(|_| true)
                }
                Err(e) => Err(e),
            }
        })
    }

    /// Objects in the folder `prefix` and below it (keys relative to the
    /// run, with sizes), sorted by key. The prefix is a folder: `data/s`
    /// does not list `data/selfplay/...`.
    pub fn list(&self, prefix: &str) -> Result<Vec<(String, u64)>, StoreError> {
        let k = self.key(prefix.trim_end_matches('/'));
        let strip = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        let mut out: Vec<(String, u64)> =
            self.retrying(&format!("listing {prefix}"), || async {
                let found: Vec<object_store::ObjectMeta> =
                    self.inner.list(Some(&k)).try_collect().await.or_else(|e| {
                        // A local run lists an absent folder as empty, as S3 does.
                        match e {
                            object_store::Error::NotFound { .. } => Ok(Vec::new()),
                            e => Err(e),
                        }
                    })?;
                Ok(found
                    .into_iter()
                    .map(|m| {
                        let key = m.location.as_ref();
                        (key.strip_prefix(&strip).unwrap_or(key).to_string(), m.size)
                    })
                    .collect())
            })?;
        out.sort();
        Ok(out)
    }

    /// Removes `key` (absent is fine).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let k = self.key(key);
        self.retrying(&format!("deleting {key}"), || async {
            match self.inner.delete(&k).await {
                Err(object_store::Error::NotFound { .. }) => Ok(()),
                r => r,
            }
        })
    }

    /// Runs `op` until it succeeds or fails for good. A failure that may
    /// pass (the server unreachable, timing out or busy) is reported and
    /// tried again after a backoff; denial, a missing bucket or a malformed
    /// request is returned at once.
    fn retrying<T, F, Fut>(&self, what: &str, op: F) -> Result<T, StoreError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let started = Instant::now();
        let mut wait = self.backoff.first;
        let mut failures = 0u32;
        loop {
            match self.runtime.block_on(op()) {
                Ok(v) => {
                    if failures > 0 {
                        eprintln!(
                            "{}: {what}: the store answers again (after {failures} failed \
                             tr{}, {:.0} s)",
                            self.url(),
                            if failures == 1 { "y" } else { "ies" },
                            started.elapsed().as_secs_f64()
                        );
                    }
                    return Ok(v);
                }
                Err(e) => {
                    let passing = transient(&e);
                    let cause = innermost(&e);
                    let e = self.classify(e);
                    if !passing || !matches!(e, StoreError::Failed { .. }) {
                        return Err(e);
                    }
                    failures += 1;
                    if self
                        .backoff
                        .give_up_after
                        .is_some_and(|limit| started.elapsed() >= limit)
                    {
                        return Err(e);
                    }
                    eprintln!(
                        "{}: {what}: {cause} (try {failures}); trying again in {:.1} s",
                        self.url(),
                        wait.as_secs_f64()
                    );
                    if !self.sleep(wait) {
                        return Err(StoreError::Stopped { url: self.url() });
                    }
                    wait = (wait * 2).min(self.backoff.longest);
                }
            }
        }
    }

    /// Sleeps `d` in short steps; false if a stop was requested.
    fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        loop {
            if self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                return false;
            }
            let now = Instant::now();
            if now >= end {
                return true;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(100)));
        }
    }

    fn classify(&self, e: object_store::Error) -> StoreError {
        let url = self.url();
        let detail = chain(&e);
        match e {
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => StoreError::Denied { url, detail },
            _ if detail.contains("NoSuchBucket") => StoreError::NoBucket { url, detail },
            // Some servers answer a bad signature or unknown key with a
            // plain 403 that the client leaves generic.
            _ if [
                "InvalidAccessKeyId",
                "SignatureDoesNotMatch",
                "AccessDenied",
            ]
            .iter()
            .any(|c| detail.contains(c)) =>
            {
                StoreError::Denied { url, detail }
            }
            _ => StoreError::Failed { url, detail },
        }
    }
}

/// Whether a failure may pass by itself: no connection, a timeout, a
/// cut-off transfer, a server error or throttling. Anything else (a 4xx
/// answer, a misconfigured client) will not.
fn transient(e: &(dyn std::error::Error + 'static)) -> bool {
    use object_store::client::{HttpError, HttpErrorKind};
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(h) = c.downcast_ref::<HttpError>() {
            return matches!(
                h.kind(),
                HttpErrorKind::Connect | HttpErrorKind::Timeout | HttpErrorKind::Interrupted
            );
        }
        cause = c.source();
    }
    server_trouble(&chain(e))
}

/// A server's answer that says "later": 5xx, 408, 429 or S3's SlowDown.
fn server_trouble(detail: &str) -> bool {
    [
        "status code: 5",
        "status code: 408",
        "status code: 429",
        "SlowDown",
    ]
    .iter()
    .any(|w| detail.contains(w))
}

/// The error with its causes, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let t = c.to_string();
        if !s.contains(&t) {
            s += ": ";
            s += &t;
        }
        cause = c.source();
    }
    s
}

/// The deepest cause of an error: what a one-line report needs
/// ("Connection refused"), without the request dump around it.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last = e;
    while let Some(c) = last.source() {
        last = c;
    }
    last.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_and_throttling_pass_and_client_errors_do_not() {
        assert!(server_trouble(
            "Server returned non-2xx status code: 503 Service Unavailable: "
        ));
        assert!(server_trouble(
            "Server returned non-2xx status code: 429 Too Many Requests: "
        ));
        assert!(!server_trouble(
            "Server returned non-2xx status code: 400 Bad Request: InvalidArgument"
        ));
    }

    #[test]
    fn a_local_store_writes_whole_files_and_lists_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&format!("file://{}", dir.path().display())).unwrap();
        assert!(store.list("data/selfplay").unwrap().is_empty());
        assert!(store.put_new("data/selfplay/a.bin", vec![1, 2, 3]).unwrap());
        assert!(!store.put_new("data/selfplay/a.bin", vec![9]).unwrap());
        assert_eq!(
            store.get("data/selfplay/a.bin").unwrap().unwrap(),
            vec![1, 2, 3]
        );
        store.put("data/selfplay/b.bin", vec![4]).unwrap();
        assert_eq!(
            store.list("data/selfplay/").unwrap(),
            vec![
                ("data/selfplay/a.bin".to_string(), 3),
                ("data/selfplay/b.bin".to_string(), 1)
            ]
        );
        store.delete("data/selfplay/a.bin").unwrap();
        store.delete("data/selfplay/a.bin").unwrap();
        assert_eq!(store.list("data").unwrap().len(), 1);
    }
}
