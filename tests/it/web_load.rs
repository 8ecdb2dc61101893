//! 200 clients at once against the real `yinsh-zero serve` on 127.0.0.1,
//! each asking for an engine move (the server's slowest kind of request),
//! while one more client times a cheap request. The slow work goes through
//! the server's bounded line: it runs `--max-work 2` at a time, queues a
//! few, and answers the rest 503 with `Retry-After`, which the clients
//! honour. Every client gets its move; the server's threads stay bounded
//! and it answers the cheap request throughout. The figures (peak memory,
//! the cheap request's p50/p99, 503s) are printed for the README.
//!
//! Bounded in count and time: 200 clients, each at most 120 tries.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use common::web::{At, Server, get, post};

const CLIENTS: usize = 200;
const MAX_TRIES: usize = 120;

/// The status, the Retry-After header if any, and the body.
fn send(addr: SocketAddr, method: &str, path: &str) -> std::io::Result<(u16, Option<u64>, String)> {
    let mut conn = TcpStream::connect(addr)?;
    write!(
        conn,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let retry = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("retry-after")
            .then(|| v.trim().parse().ok())
            .flatten()
    });
    Ok((status, retry, body.to_string()))
}

/// A field of /proc/PID/status, in its own unit (kB for memory).
fn proc_status(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| {
            v.trim_start_matches(':')
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn two_hundred_clients_are_served_in_a_bounded_line() {
    let s = Server::start(&[&"--max-work", &"2"]);
    let addr = s.addr();
    let pid = s.pid();
    // A game per client, the engine (White) to move first: each engine
    // move is a fifth of a second of rollouts.
    let ids: Vec<String> = (0..CLIENTS)
        .map(|i| {
            let body =
                format!(r#"{{"color":"black","opponent":"mcts-rollout:time=200","seed":{i}}}"#);
            let (status, g) = post(&s, "/api/games", &body);
            assert_eq!(status, 201, "{g}");
            g["id"].as_str().unwrap().to_string()
        })
        .collect();
    let rss_before = proc_status(pid, "VmRSS");
    let done = Arc::new(AtomicBool::new(false));
    let busy = Arc::new(AtomicU64::new(0));
    let max_threads = Arc::new(AtomicU64::new(0));
    // The cheap request, timed throughout the load.
    let probe = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut ms = Vec::new();
            while !done.load(Ordering::Acquire) {
                let t = Instant::now();
                let (status, _, body) = send(addr, "GET", "/api/config").unwrap();
                assert_eq!(status, 200, "{body}");
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                std::thread::sleep(Duration::from_millis(20));
            }
            ms
        })
    };
    let watch = {
        let (done, max_threads) = (done.clone(), max_threads.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                max_threads.fetch_max(proc_status(pid, "Threads"), Ordering::AcqRel);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let start = Arc::new(Barrier::new(CLIENTS));
    let started = Instant::now();
    let clients: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let (start, busy) = (start.clone(), busy.clone());
            std::thread::spawn(move || {
                start.wait();
                for _ in 0..MAX_TRIES {
                    let (status, retry, body) =
                        send(addr, "POST", &format!("/api/games/{id}/engine")).unwrap();
                    match status {
                        200 => return,
                        503 => {
                            let wait = retry.expect("a 503 says when to retry");
                            busy.fetch_add(1, Ordering::Relaxed);
                            std::thread::sleep(Duration::from_secs(wait));
                        }
                        other => panic!("{id}: {other}: {body}"),
                    }
                }
                panic!("{id}: no move after {MAX_TRIES} tries");
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let wall = started.elapsed().as_secs_f64();
    done.store(true, Ordering::Release);
    watch.join().unwrap();
    let mut ms = probe.join().unwrap();
    ms.sort_by(f64::total_cmp);
    let peak = proc_status(pid, "VmHWM");
    let threads = max_threads.load(Ordering::Acquire);
    println!(
        "load: {CLIENTS} clients, one engine move each (mcts-rollout:time=200), --max-work 2: \
         all served in {wall:.1} s, {} answers 503 + Retry-After; server peak memory {:.1} MB \
         (before the load {:.1} MB), at most {threads} threads; GET /api/config during the \
         load: {} requests, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        busy.load(Ordering::Relaxed),
        peak as f64 / 1024.0,
        rss_before as f64 / 1024.0,
        ms.len(),
        percentile(&ms, 0.5),
        percentile(&ms, 0.99),
        ms[ms.len() - 1],
    );
    // The line held: at most two moves ran at once, so most clients were
    // told to come back, and the server's threads stayed few.
    assert!(busy.load(Ordering::Relaxed) > 0, "nothing was refused");
    assert!(threads < 64, "{threads} threads");
    assert!(!ms.is_empty());
    let (status, _) = get(&s, "/api/config");
    assert_eq!(status, 200);
}
