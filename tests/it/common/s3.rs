//! A real S3-compatible server for the tests: `s3s-fs` (crates.io, the
//! file-system server of the `s3s` S3 implementation, which checks
//! SigV4 signatures and keeps its objects on disk, so it can be stopped and
//! started again with its data). `.ci/run` installs it:
//! `cargo install s3s-fs@0.14.1 --features binary --locked`.
//!
//! Found through `S3S_FS` (a path to the binary), else on `PATH`, else in
//! `~/.cargo/bin`. A test that needs it fails, naming the install command,
//! when it is nowhere.
//!
//! A second implementation, moto's in-memory S3 (tests/it/common/moto.rs),
//! stands behind the same [`TestS3`] interface, so that a test can run
//! against either ([`start`]).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The S3 servers the tests know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// s3s-fs: objects as files on disk, SigV4 checked.
    S3sFs,
    /// moto (PyPI): in memory, no signature checked.
    Moto,
}

/// A running S3 server as a test uses it, whichever implementation.
pub trait TestS3: Send {
    fn kind(&self) -> Kind;
    /// `http://127.0.0.1:PORT`, where clients connect.
    fn endpoint(&self) -> String;
    /// The environment a client of this server needs.
    fn env(&self) -> Vec<(&'static str, String)>;
    /// Whether it refuses requests signed with a wrong key or secret.
    fn checks_signatures(&self) -> bool;
    /// The server becomes unreachable: new connections are refused and
    /// open ones cut, as when its process dies. Its objects stay.
    fn stop(&mut self);
    /// Reachable again, with the objects it had.
    fn resume(&mut self);
}

/// A server of `kind` with one bucket, `bucket`.
pub fn start(kind: Kind, bucket: &str) -> Box<dyn TestS3> {
    match kind {
        Kind::S3sFs => Box::new(S3Server::start(bucket)),
        Kind::Moto => Box::new(super::moto::MotoServer::start(bucket)),
    }
}

/// The client environment for a server at `endpoint` with these keys.
pub fn client_env(endpoint: String, access: &str, secret: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", access.to_string()),
        ("AWS_SECRET_ACCESS_KEY", secret.to_string()),
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_REGION", "us-east-1".to_string()),
        ("AWS_ALLOW_HTTP", "true".to_string()),
    ]
}

pub const ACCESS_KEY: &str = "yinsh-test-key";
pub const SECRET_KEY: &str = "yinsh-test-secret-0123456789";

fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("S3S_FS") {
        return PathBuf::from(p);
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("s3s-fs"))
            .find(|p| p.is_file())
    });
    if let Some(p) = on_path {
        return p;
    }
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let cargo_bin = home.join(".cargo/bin/s3s-fs");
    assert!(
        cargo_bin.is_file(),
        "no S3 server for the object-storage tests: install it with \
         `cargo install s3s-fs@0.14.1 --features binary --locked` (or set S3S_FS)"
    );
    cargo_bin
}

/// An S3 server process on 127.0.0.1 with its data in a folder of its own.
pub struct S3Server {
    pub port: u16,
    pub root: PathBuf,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl S3Server {
    /// Starts a server with one bucket, `bucket`.
    pub fn start(bucket: &str) -> S3Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("data");
        std::fs::create_dir_all(root.join(bucket)).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut s = S3Server {
            port,
            root,
            child: None,
            _dir: Some(dir),
        };
        s.resume();
        s
    }

    /// Starts the process (again), on the same port and data.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "the server is running");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let mut child = Command::new(binary())
                .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
                .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
                .arg(&self.root)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start s3s-fs");
            // Up when it accepts connections; a port still held by the
            // previous process makes it exit, and it is tried again.
            loop {
                if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                    self.child = Some(child);
                    return;
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                assert!(Instant::now() < deadline, "s3s-fs did not start");
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(Instant::now() < deadline, "s3s-fs did not start");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Kills the process; its data stays.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The server process's id (to freeze it with SIGSTOP).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("the server is running").id()
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment a client of this server needs.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        client_env(self.endpoint(), ACCESS_KEY, SECRET_KEY)
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

impl TestS3 for S3Server {
    fn kind(&self) -> Kind {
        Kind::S3sFs
    }
    fn endpoint(&self) -> String {
        S3Server::endpoint(self)
    }
    fn env(&self) -> Vec<(&'static str, String)> {
        S3Server::env(self)
    }
    fn checks_signatures(&self) -> bool {
        true
    }
    /// Kills the process (its files stay).
    fn stop(&mut self) {
        S3Server::stop(self)
    }
    /// Starts the process again on the same port and files.
    fn resume(&mut self) {
        S3Server::resume(self)
    }
}
