//! The second S3 implementation the tests run against: moto's server
//! (PyPI `moto[server]`, an in-memory S3 in Python, run as
//! `python3 -m moto.server`). `.ci/run` installs it:
//! `python3 -m pip install 'moto[server]'`.
//!
//! moto checks no request signature here. It can (its IAM
//! authentication, `INITIAL_NO_AUTH_ACTION_COUNT`), but then it refuses
//! correctly signed listings whose prefix holds a `/`
//! (`SignatureDoesNotMatch` for `list-type=2&prefix=a/b/`; boto3's own
//! requests too, moto 5.2.1), and a run's store lists such prefixes all
//! the time. So refusals of wrong credentials are checked on s3s-fs only
//! ([`TestS3::checks_signatures`]).
//!
//! moto keeps its objects in memory, so its process cannot be restarted
//! with its data as s3s-fs can. An outage is made by a gate instead: the
//! clients reach moto through a TCP relay on their own port, and
//! [`TestS3::stop`] closes that port and cuts every open connection, which
//! is what clients see when a server dies; [`TestS3::resume`] opens it
//! again on the same port.
//!
//! The Python is `python3` on `PATH` or `MOTO_PYTHON`. A test that needs
//! moto fails, naming the install command, when that Python lacks it.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::s3::{Kind, TestS3, client_env};

fn python() -> String {
    std::env::var("MOTO_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A moto server with one bucket, behind a gate.
pub struct MotoServer {
    child: Child,
    gate: Gate,
}

impl MotoServer {
    pub fn start(bucket: &str) -> MotoServer {
        let has_moto = Command::new(python())
            .args(["-c", "import moto.server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            has_moto,
            "no moto for the object-storage tests: install it with \
             `{} -m pip install 'moto[server]'` (or set MOTO_PYTHON to a Python that has it)",
            python()
        );
        let port = free_port();
        let mut child = Command::new(python())
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto");
        // Up when it accepts connections (tries are counted, not timed: a
        // loaded machine only makes it slower).
        let mut tries = 0;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("moto exited at its start ({status})");
            }
            tries += 1;
            assert!(tries < 12_000, "moto never accepted a connection");
            std::thread::sleep(Duration::from_millis(50));
        }
        // The bucket: an unsigned CreateBucket, which moto takes.
        let mut http = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            http,
            "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        http.read_to_string(&mut answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "moto did not make bucket {bucket}: {answer}"
        );
        MotoServer {
            child,
            gate: Gate::open_to(port),
        }
    }
}

impl TestS3 for MotoServer {
    fn kind(&self) -> Kind {
        Kind::Moto
    }
    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.gate.port)
    }
    fn env(&self) -> Vec<(&'static str, String)> {
        client_env(self.endpoint(), "yinsh-moto-key", "yinsh-moto-secret")
    }
    fn checks_signatures(&self) -> bool {
        false
    }
    fn stop(&mut self) {
        self.gate.close();
    }
    fn resume(&mut self) {
        self.gate.open();
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        self.gate.close();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP relay from its own port on 127.0.0.1 to a server's, that can be
/// closed (connections refused, open ones cut) and opened again.
pub struct Gate {
    pub port: u16,
    to: u16,
    open: Option<Relay>,
}

/// The relay while the gate is open.
struct Relay {
    closing: Arc<AtomicBool>,
    accepting: JoinHandle<()>,
    /// Both ends of every connection not yet over, to cut them.
    links: Arc<Mutex<HashMap<u64, [TcpStream; 2]>>>,
}

impl Gate {
    /// An open gate to the server on port `to`.
    pub fn open_to(to: u16) -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut gate = Gate {
            port: listener.local_addr().unwrap().port(),
            to,
            open: None,
        };
        gate.relay(listener);
        gate
    }

    pub fn open(&mut self) {
        assert!(self.open.is_none(), "the gate is open");
        // The port was ours a moment ago; a bind can still find it busy.
        let mut tries = 0;
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", self.port)) {
                Ok(l) => break l,
                Err(e) => {
                    tries += 1;
                    assert!(tries < 1_000, "reopening port {}: {e}", self.port);
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        };
        self.relay(listener);
    }

    pub fn close(&mut self) {
        let Some(relay) = self.open.take() else {
            return;
        };
        relay.closing.store(true, Ordering::Relaxed);
        // The accepting thread drops the listener: connections are refused.
        relay.accepting.join().unwrap();
        for (_, ends) in relay.links.lock().unwrap().drain() {
            for end in ends {
                let _ = end.shutdown(Shutdown::Both);
            }
        }
    }

    fn relay(&mut self, listener: TcpListener) {
        listener.set_nonblocking(true).unwrap();
        let closing = Arc::new(AtomicBool::new(false));
        let links: Arc<Mutex<HashMap<u64, [TcpStream; 2]>>> = Arc::default();
        let (to, stop, all) = (self.to, closing.clone(), links.clone());
        let accepting = std::thread::spawn(move || {
            let next = AtomicU64::new(0);
            while !stop.load(Ordering::Relaxed) {
                let client = match listener.accept() {
                    Ok((c, _)) => c,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                    Err(_) => continue,
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else {
                    continue;
                };
                let id = next.fetch_add(1, Ordering::Relaxed);
                all.lock().unwrap().insert(
                    id,
                    [client.try_clone().unwrap(), server.try_clone().unwrap()],
                );
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || pipe(client, server));
                let all = all.clone();
                std::thread::spawn(move || {
                    pipe(s2, c2);
                    all.lock().unwrap().remove(&id);
                });
            }
        });
        self.open = Some(Relay {
            closing,
            accepting,
            links,
        });
    }
}

/// Copies `from` to `to` until `from` ends, then ends `to`'s writing half.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
