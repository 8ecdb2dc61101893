//! One evaluator answering the batches of many threads together.
//!
//! A GPU is paid per call more than per position: sixteen self-play workers
//! sending batches of 32 one after another leave it waiting on launches and
//! transfers, and give each worker a model of its own on the device. A
//! [`BatchServer`] owns the one evaluator, on a thread of its own; each worker
//! holds a [`ServerClient`], which is an [`Evaluator`] like any other, so the
//! search and self-play are unchanged. The server joins the batches that are
//! waiting into one call: it calls as soon as every live client has asked,
//! or `max_batch` positions wait, or `max_wait` has passed since the first
//! of them came, whichever is first. Workers that are still searching when
//! the batch leaves simply go into the next one, which keeps the evaluator
//! and the workers busy at the same time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Evaluation, Evaluator};
use crate::game::State;

/// Who evaluates self-play workers' positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inference {
    /// Each worker its own single-threaded network: no waiting on anyone,
    /// the fastest on CPU cores.
    #[default]
    PerWorker,
    /// One network (on every core, or on the GPU) answering all workers'
    /// batches together through a [`BatchServer`].
    Server,
}

/// When a [`BatchServer`] stops gathering and calls its evaluator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerOptions {
    /// Call once this many positions wait.
    pub max_batch: usize,
    /// Call at the latest this long after the first waiting request.
    pub max_wait: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            max_batch: 512,
            max_wait: Duration::from_millis(2),
        }
    }
}

/// What a [`BatchServer`] has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    /// Evaluator calls.
    pub calls: u64,
    /// Client requests answered (each a client's whole batch).
    pub requests: u64,
    /// Positions evaluated.
    pub positions: u64,
}

impl ServerStats {
    /// Positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.calls.max(1) as f64
    }

    /// Client requests joined into one evaluator call, on average.
    pub fn mean_requests(&self) -> f64 {
        self.requests as f64 / self.calls.max(1) as f64
    }
}

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    requests: AtomicU64,
    positions: AtomicU64,
}

struct Request<S> {
    positions: Vec<S>,
    reply: SyncSender<Vec<Evaluation>>,
}

/// Owns one evaluator on its own thread and answers [`ServerClient`]s.
///
/// ```
/// use yinsh_zero::evaluator::{BatchServer, Evaluator, ServerOptions, UniformEvaluator};
/// use yinsh_zero::games::yinsh::Position;
///
/// let server = BatchServer::<Position>::start(|| Ok(UniformEvaluator), ServerOptions::default())
///     .unwrap();
/// std::thread::scope(|s| {
///     for _ in 0..4 {
///         let mut client = server.client();
///         s.spawn(move || {
///             let e = client.evaluate(&[Position::new(), Position::new()]);
///             assert_eq!(e.len(), 2);
///             assert_eq!(e[0].priors.len(), 85);
///         });
///     }
/// });
/// assert_eq!(server.stats().positions, 8);
/// ```
pub struct BatchServer<S: State> {
    requests: Option<Sender<Request<S>>>,
    live: Arc<AtomicUsize>,
    counters: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
}

impl<S: State> BatchServer<S> {
    /// Starts the server thread and builds its evaluator there with `make`
    /// (a GPU context stays on the thread that made it). An error of `make`
    /// comes back here.
    pub fn start<E, F>(make: F, options: ServerOptions) -> Result<BatchServer<S>, String>
    where
        E: Evaluator<S>,
        F: FnOnce() -> Result<E, String> + Send + 'static,
    {
        if options.max_batch == 0 {
            return Err("an inference server's max_batch must be at least 1".into());
        }
        let (requests, inbox) = mpsc::channel::<Request<S>>();
        let (ready_tx, ready) = mpsc::sync_channel::<Result<(), String>>(1);
        let live = Arc::new(AtomicUsize::new(0));
        let counters = Arc::new(Counters::default());
        let (l, c) = (live.clone(), counters.clone());
        let thread = std::thread::Builder::new()
            .name("nn-server".into())
            .spawn(move || match make() {
                Ok(evaluator) => {
                    let _ = ready_tx.send(Ok(()));
                    serve(evaluator, inbox, &l, &c, options);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| format!("cannot start the inference server thread: {e}"))?;
        match ready.recv() {
            Ok(Ok(())) => Ok(BatchServer {
                requests: Some(requests),
                live,
                counters,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err("the inference server's evaluator panicked while it was built".into())
            }
        }
    }

    /// A new client: an [`Evaluator`] for one thread.
    pub fn client(&self) -> ServerClient<S> {
        self.live.fetch_add(1, Ordering::AcqRel);
        ServerClient {
            requests: self
                .requests
                .clone()
                .expect("the server's sender lives until it is dropped"),
            live: self.live.clone(),
        }
    }

    pub fn stats(&self) -> ServerStats {
        ServerStats {
            calls: self.counters.calls.load(Ordering::Relaxed),
            requests: self.counters.requests.load(Ordering::Relaxed),
            positions: self.counters.positions.load(Ordering::Relaxed),
        }
    }
}

impl<S: State> Drop for BatchServer<S> {
    /// Waits for the server thread when no client is left; a client still
    /// held keeps the thread (and its evaluator) alive until it goes too.
    fn drop(&mut self) {
        self.requests = None;
        if self.live.load(Ordering::Acquire) == 0
            && let Some(t) = self.thread.take()
        {
            let _ = t.join();
        }
    }
}

fn serve<S: State, E: Evaluator<S>>(
    mut evaluator: E,
    inbox: Receiver<Request<S>>,
    live: &AtomicUsize,
    counters: &Counters,
    options: ServerOptions,
) {
    let mut waiting: Vec<Request<S>> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    let mut positions: Vec<S> = Vec::new();
    // Ends when the server and every client are gone.
    while let Ok(first) = inbox.recv() {
        let deadline = Instant::now() + options.max_wait;
        let mut count = first.positions.len();
        waiting.push(first);
        while count < options.max_batch && waiting.len() < live.load(Ordering::Acquire) {
            match inbox.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(r) => {
                    count += r.positions.len();
                    waiting.push(r);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        positions.clear();
        sizes.clear();
        for r in &mut waiting {
            sizes.push(r.positions.len());
            positions.append(&mut r.positions);
        }
        let mut answers = evaluator.evaluate(&positions).into_iter();
        counters.calls.fetch_add(1, Ordering::Relaxed);
        counters
            .requests
            .fetch_add(waiting.len() as u64, Ordering::Relaxed);
        counters
            .positions
            .fetch_add(count as u64, Ordering::Relaxed);
        for (r, &n) in waiting.drain(..).zip(&sizes) {
            let mine: Vec<Evaluation> = answers.by_ref().take(n).collect();
            // A client gone meanwhile needs no answer.
            let _ = r.reply.send(mine);
        }
    }
}

/// One thread's handle on a [`BatchServer`]: an [`Evaluator`] whose calls
/// wait for the server's answer.
pub struct ServerClient<S: State> {
    requests: Sender<Request<S>>,
    live: Arc<AtomicUsize>,
}

impl<S: State> Evaluator<S> for ServerClient<S> {
    /// # Panics
    /// When the server's evaluator has panicked, as the evaluator itself
    /// would have in this thread.
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        if positions.is_empty() {
            return Vec::new();
        }
        // A channel per request: if the server dies holding it, the
        // answer's sender goes with it and the wait below ends.
        let (reply, answer) = mpsc::sync_channel(1);
        let sent = self.requests.send(Request {
            positions: positions.to_vec(),
            reply,
        });
        match sent.ok().and_then(|()| answer.recv().ok()) {
            Some(answers) => answers,
            None => panic!("the inference server stopped: its evaluator panicked"),
        }
    }
}

impl<S: State> Drop for ServerClient<S> {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::game::State;
    use crate::games::yinsh::Position;

    /// Answers from the position itself, so that an answer handed to the
    /// wrong client shows, and notes the size of every call.
    struct Keyed {
        calls: Arc<Mutex<Vec<usize>>>,
    }

    fn answer(p: &Position) -> Evaluation {
        let k = (p.key() % 1000) as f32 / 1000.0;
        Evaluation {
            priors: vec![1.0 / p.legal_action_count() as f32; p.legal_action_count()],
            wdl: [k, 1.0 - k, 0.0],
            margin: 0.0,
        }
    }

    impl Evaluator<Position> for Keyed {
        fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
            self.calls.lock().unwrap().push(positions.len());
            positions.iter().map(answer).collect()
        }
    }

    /// Distinct positions: the start after `n` different first placements.
    fn positions(from: usize, n: usize) -> Vec<Position> {
        let start = Position::new();
        let actions = start.legal_actions();
        (from..from + n)
            .map(|i| {
                let mut p = start;
                p.play_unchecked(actions[i]);
                p
            })
            .collect()
    }

    fn keyed(options: ServerOptions) -> (BatchServer<Position>, Arc<Mutex<Vec<usize>>>) {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let c = calls.clone();
        let server = BatchServer::start(move || Ok(Keyed { calls: c }), options).unwrap();
        (server, calls)
    }

    /// Waits far longer than any test runs: a batch that leaves before its
    /// condition is met can only be a batch that waited for nothing.
    const FOREVER: Duration = Duration::from_secs(3600);

    #[test]
    fn every_client_gets_its_own_answers_from_one_joined_call() {
        let (server, calls) = keyed(ServerOptions {
            max_batch: 1000,
            max_wait: FOREVER,
        });
        let clients: Vec<_> = (0..4).map(|_| server.client()).collect();
        std::thread::scope(|s| {
            for (i, mut client) in clients.into_iter().enumerate() {
                s.spawn(move || {
                    let mine = positions(i * 10, 3 + i);
                    let got = client.evaluate(&mine);
                    let want: Vec<Evaluation> = mine.iter().map(answer).collect();
                    assert_eq!(got, want, "client {i}");
                });
            }
        });
        // Four live clients: the server waits for all four, then calls once.
        assert_eq!(*calls.lock().unwrap(), vec![3 + 4 + 5 + 6]);
        let stats = server.stats();
        assert_eq!((stats.calls, stats.requests, stats.positions), (1, 4, 18));
        assert_eq!(stats.mean_requests(), 4.0);
    }

    #[test]
    fn a_full_batch_leaves_without_waiting_for_the_others() {
        let (server, calls) = keyed(ServerOptions {
            max_batch: 5,
            max_wait: FOREVER,
        });
        let _busy = server.client(); // alive, never asks
        let mut asking = server.client();
        let got = asking.evaluate(&positions(0, 5));
        assert_eq!(got.len(), 5);
        assert_eq!(*calls.lock().unwrap(), vec![5]);
    }

    #[test]
    fn a_dropped_client_is_not_waited_for() {
        let (server, calls) = keyed(ServerOptions {
            max_batch: 1000,
            max_wait: FOREVER,
        });
        let gone = server.client();
        let mut asking = server.client();
        drop(gone);
        assert_eq!(asking.evaluate(&positions(0, 2)).len(), 2);
        assert_eq!(*calls.lock().unwrap(), vec![2]);
    }

    #[test]
    fn the_wait_ends_a_batch_when_a_client_stays_away() {
        let (server, calls) = keyed(ServerOptions {
            max_batch: 1000,
            max_wait: Duration::from_millis(1),
        });
        let _away = server.client();
        let mut asking = server.client();
        for i in 0..3 {
            assert_eq!(
                asking.evaluate(&positions(i, 1)),
                vec![answer(&positions(i, 1)[0])]
            );
        }
        assert_eq!(*calls.lock().unwrap(), vec![1, 1, 1]);
    }

    #[test]
    fn an_evaluator_that_cannot_be_built_is_an_error_of_start() {
        let e = BatchServer::<Position>::start(
            || Err::<Keyed, _>("no device 7".to_string()),
            ServerOptions::default(),
        )
        .err()
        .unwrap();
        assert_eq!(e, "no device 7");
        let e = BatchServer::<Position>::start(
            || {
                Ok(Keyed {
                    calls: Arc::default(),
                })
            },
            ServerOptions {
                max_batch: 0,
                max_wait: FOREVER,
            },
        )
        .err()
        .unwrap();
        assert!(e.contains("max_batch"), "{e}");
    }

    struct Panicking;
    impl Evaluator<Position> for Panicking {
        fn evaluate(&mut self, _: &[Position]) -> Vec<Evaluation> {
            panic!("the device fell over");
        }
    }

    #[test]
    fn a_panicking_evaluator_stops_its_clients_with_a_clear_message() {
        let server =
            BatchServer::<Position>::start(|| Ok(Panicking), ServerOptions::default()).unwrap();
        let mut client = server.client();
        let err = std::thread::spawn(move || client.evaluate(&positions(0, 1)))
            .join()
            .unwrap_err();
        let msg = err
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        assert!(msg.contains("inference server stopped"), "{msg}");
    }
}
