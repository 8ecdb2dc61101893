//! The web tests' server and client: the real `yinsh-zero serve` binary on
//! a free port, plain HTTP/1.1 requests answered in JSON, and each game's
//! API (`/api/games` for YINSH, `/api/{morris,grid,emergo,connect4}/games`).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// The server process, killed when the test ends however it ends.
pub struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `yinsh-zero serve --port 0 --player random` with `extra`
    /// arguments, and waits until it says where it listens.
    pub fn start(extra: &[&dyn AsRef<OsStr>]) -> Server {
        Server::start_with_env(extra, &[])
    }

    /// [`Server::start`] with environment variables set for the server.
    pub fn start_with_env(extra: &[&dyn AsRef<OsStr>], env: &[(&str, String)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_yinsh-zero"))
            .args(["serve", "--port", "0", "--player", "random"])
            .args(extra.iter().map(|a| a.as_ref()))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the server's first line");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|a| a.strip_suffix('/'))
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("the server did not print its address: `{line}`"));
        Server { child, addr }
    }

    /// The server's process id (to read its memory and threads in /proc).
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The address for a browser: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

/// Where requests go: a server process, or one running in the test.
pub trait At {
    fn addr(&self) -> SocketAddr;
}

impl At for SocketAddr {
    fn addr(&self) -> SocketAddr {
        *self
    }
}

impl At for Server {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl<T: At + ?Sized> At for &T {
    fn addr(&self) -> SocketAddr {
        (**self).addr()
    }
}

/// One HTTP/1.1 request: the status and the body as JSON (or as a JSON
/// string when it is not JSON).
pub fn request(at: impl At, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let addr = at.addr();
    let mut conn = TcpStream::connect(addr).unwrap();
    let body = body.unwrap_or("");
    write!(
        conn,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a header");
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    let value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, value)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = s.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
}

pub fn get(at: impl At, path: &str) -> (u16, Value) {
    request(at, "GET", path, None)
}

pub fn post(at: impl At, path: &str, body: &str) -> (u16, Value) {
    request(at, "POST", path, Some(body))
}

/// A JSON array of strings.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// The message of an error answer.
pub fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"))
}

/// One game's API: its games under the path it holds.
pub struct GameApi(pub &'static str);

pub const YINSH: GameApi = GameApi("/api/games");
pub const MORRIS: GameApi = GameApi("/api/morris/games");
pub const GRID: GameApi = GameApi("/api/grid/games");
pub const EMERGO: GameApi = GameApi("/api/emergo/games");
pub const CONNECT4: GameApi = GameApi("/api/connect4/games");

impl GameApi {
    /// `/api/{game}/games/{id}` followed by `rest` (`""`, `"/play"`, ...).
    pub fn path(&self, id: &str, rest: &str) -> String {
        format!("{}/{id}{rest}", self.0)
    }

    /// A new game from `body`; it must be created.
    pub fn new_game(&self, at: impl At, body: Value) -> Value {
        let (status, game) = post(at, self.0, &body.to_string());
        assert_eq!(status, 201, "{game}");
        game
    }

    /// The game `id`, which must be there.
    pub fn game(&self, at: impl At, id: &str) -> Value {
        let (status, game) = get(at, &self.path(id, ""));
        assert_eq!(status, 200, "{game}");
        game
    }

    /// The human's `{"action": ..}` (Morris, the grid game, Emergo).
    pub fn play(&self, at: impl At, id: &str, action: &str) -> (u16, Value) {
        let body = json!({ "action": action }).to_string();
        post(at, &self.path(id, "/play"), &body)
    }

    /// [`GameApi::play`], which must be accepted.
    pub fn play_ok(&self, at: impl At, id: &str, action: &str) -> Value {
        let (status, game) = self.play(at, id, action);
        assert_eq!(status, 200, "{action}: {game}");
        game
    }

    pub fn engine(&self, at: impl At, id: &str) -> (u16, Value) {
        post(at, &self.path(id, "/engine"), "")
    }

    pub fn undo(&self, at: impl At, id: &str) -> (u16, Value) {
        post(at, &self.path(id, "/undo"), "")
    }
}
