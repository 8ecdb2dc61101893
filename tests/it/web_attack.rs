//! The web API against a hostile caller: the real `yinsh-zero serve` on
//! 127.0.0.1, asked to open files through every game's player specs
//! (absolute and relative paths, `/proc`, a symlink, URL-encoded paths,
//! offered names that are paths), fed huge numbers, NaN, unknown keys,
//! 10,000-character specs, a 5 MB body and JSON nested 10,000 deep. Each
//! request is refused with the right status, no answer carries a file's
//! content or a server path, and the server is alive after every one.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use common::web::{At, Server, get, post};
use serde_json::{Value, json};

/// Every game's new-game route and a body field naming its variant.
const NEW_GAME: &[(&str, Option<(&str, &str)>)] = &[
    ("/api/games", None),
    ("/api/morris/games", Some(("variant", "six"))),
    ("/api/grid/games", Some(("variant", "9x9"))),
    ("/api/emergo/games", Some(("variant", "standard"))),
];

/// Texts that would show a file's content or where the server keeps its
/// files, had it opened one for the caller or echoed one.
fn leaks(answer: &str, server_dir: &str) -> Vec<String> {
    let mut found = Vec::new();
    let markers = [
        "root:x:0:0", // /etc/passwd
        "PATH=",      // /proc/self/environ
        "HOME=",
        "--port\u{0}", // /proc/self/cmdline
        "serve\u{0}",
        "\\u0000",
        "meta.json",
        "model.bpk",
    ];
    for m in markers {
        if answer.contains(m) {
            found.push(m.to_string());
        }
    }
    if answer.contains(server_dir) {
        found.push(format!("the server's folder {server_dir}"));
    }
    // The shipped networks' folders, which the server opens itself.
    for folder in ["checkpoints/", "data/morris", "/tmp/"] {
        if answer.contains(folder) {
            found.push(folder.to_string());
        }
    }
    found
}

/// A request whose body may be large or odd: the status and the raw
/// answer, or `None` when the server closed the connection without one
/// (which a huge body may make it do).
fn raw(at: &impl At, method: &str, path: &str, body: &[u8]) -> Option<(u16, String)> {
    let addr = at.addr();
    let mut conn = TcpStream::connect(addr).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).ok()?;
    // The server may answer and close before it has read a body it refuses.
    let _ = conn.write_all(body);
    let mut answer = Vec::new();
    let _ = conn.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text))
}

fn alive(s: &Server) {
    let (status, config) = get(s, "/api/config");
    assert_eq!(status, 200, "the server stopped answering: {config}");
}

fn body_for(route: &(&str, Option<(&str, &str)>), opponent: &Value) -> String {
    let mut body = json!({ "opponent": opponent, "seed": 1 });
    if let Some((k, v)) = route.1 {
        body[k] = json!(v);
    }
    body.to_string()
}

/// Asks every game for a new game against `opponent`, expecting `status`
/// and no leak.
fn refused_everywhere(s: &Server, dir: &str, opponent: &Value, status: u16) {
    for route in NEW_GAME {
        let body = body_for(route, opponent);
        let (got, text) = raw(s, "POST", route.0, body.as_bytes())
            .unwrap_or_else(|| panic!("{}: {body}: no answer", route.0));
        assert_eq!(got, status, "{}: {body}: {text}", route.0);
        let leaked = leaks(&text, dir);
        assert!(
            leaked.is_empty(),
            "{}: {body}: leaks {leaked:?}: {text}",
            route.0
        );
        alive(s);
    }
}

#[test]
fn no_request_opens_a_file_or_sees_one() {
    let s = Server::start(&[]);
    let here = std::env::current_dir().unwrap();
    let dir = here.display().to_string();
    // A symlink to /etc/passwd, and one to a real checkpoint folder: a path
    // the caller made is no offer however it points.
    let tmp = tempfile::tempdir().unwrap();
    let passwd_link = tmp.path().join("passwd");
    let net_link = tmp.path().join("net");
    std::os::unix::fs::symlink("/etc/passwd", &passwd_link).unwrap();
    std::os::unix::fs::symlink(here.join("checkpoints/grid"), &net_link).unwrap();
    let mut paths: Vec<String> = [
        "/etc/passwd",
        "/proc/self/environ",
        "/proc/self/cmdline",
        "/etc",
        "../../../../etc/passwd",
        "checkpoints/../../../etc/passwd",
        "checkpoints/best",
        "checkpoints/grid",
        "checkpoints",
        "%2Fetc%2Fpasswd",
        "..%2F..%2Fetc%2Fpasswd",
        "~/.aws/credentials",
        "file:///etc/passwd",
        "s3://bucket/run",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    paths.push(passwd_link.display().to_string());
    paths.push(net_link.display().to_string());
    for path in &paths {
        for spec in [
            format!("net-mcts:checkpoint={path}"),
            format!("net-policy:checkpoint={path},backend=flex"),
            format!("net-mcts:checkpoint={path},sims=10,time=100"),
            format!("perfect:db={path}"),
            format!("net-mcts:net={path}"),
            format!("cmd:{path}"),
        ] {
            refused_everywhere(&s, &dir, &json!(spec), 400);
        }
    }
    // Offered names are not paths: a name that points elsewhere is no
    // offer, nor is a network of another game.
    for spec in [
        "net-mcts:net=../shipped",
        "net-mcts:net=shipped/../grid",
        "net-mcts:net=",
        "net-mcts",
        "net-policy",
        "perfect:db=nine/../../etc",
    ] {
        refused_everywhere(&s, &dir, &json!(spec), 400);
    }
    let (status, e) = post(
        &s,
        "/api/grid/games",
        r#"{"opponent":"net-mcts:net=shipped"}"#,
    );
    assert_eq!(
        status, 400,
        "the YINSH network offered to the grid game: {e}"
    );
    // A refusal lists what may be named.
    let (_, e) = post(
        &s,
        "/api/games",
        r#"{"opponent":"net-mcts:checkpoint=/etc"}"#,
    );
    let text = e["error"].as_str().unwrap();
    assert!(text.contains("net=shipped"), "{text}");
    assert!(!text.contains("/etc"), "{text}");
}

#[test]
fn malformed_values_are_refused_and_the_server_lives() {
    let s = Server::start(&[]);
    let dir = std::env::current_dir().unwrap().display().to_string();
    let long = "x".repeat(10_000);
    let specs: Vec<Value> = vec![
        json!("alphabeta:depth=99999999999999999999999"),
        json!("alphabeta:depth=-1"),
        json!("alphabeta:depth=NaN"),
        json!("alphabeta:time=1e400"),
        json!("alphabeta:time=18446744073709551616"),
        json!("mcts-rollout:playouts=NaN"),
        json!("mcts-rollout:cpuct=inf"),
        json!("net-mcts:net=shipped,sims=NaN"),
        json!("net-mcts:net=shipped,draw=NaN"),
        json!("net-mcts:net=shipped,sims=99999999999999999999"),
        json!("net-mcts:net=shipped,backend=cuda"),
        json!("alphabeta:nosuchkey=1"),
        json!("alphabeta:tt=28"),
        json!("alphabeta:depth=2,depth=3"),
        json!(format!("alphabeta:depth={long}")),
        json!(format!("net-mcts:checkpoint={long}")),
        json!(long.clone()),
        json!(format!("{long}:a=b")),
        json!(""),
        json!(":"),
        json!("alphabeta:="),
        json!("\u{0}\u{1b}[2J"),
    ];
    for spec in &specs {
        refused_everywhere(&s, &dir, spec, 400);
    }
    // Fields of the wrong type or unknown: 400, nothing echoed at length.
    for route in NEW_GAME {
        for body in [
            r#"{"seed": 1e400}"#.to_string(),
            r#"{"seed": -1}"#.to_string(),
            r#"{"seed": 18446744073709551616}"#.to_string(),
            r#"{"seed": NaN}"#.to_string(),
            r#"{"color": "purple"}"#.to_string(),
            format!(r#"{{"{long}": 1}}"#),
            r#"{"opponent": 7}"#.to_string(),
            r#"{"opponent": ["random"]}"#.to_string(),
            r#"[1, 2, 3]"#.to_string(),
            "not json".to_string(),
            "\u{0}".to_string(),
        ] {
            let (status, text) = raw(&s, "POST", route.0, body.as_bytes()).unwrap();
            assert_eq!(status, 400, "{}: {body}: {text}", route.0);
            assert!(
                text.len() < 2_000,
                "{}: an answer of {} bytes",
                route.0,
                text.len()
            );
            assert!(leaks(&text, &dir).is_empty(), "{text}");
        }
        alive(&s);
    }
}

#[test]
fn huge_and_deep_bodies_are_refused() {
    let s = Server::start(&[]);
    let dir = std::env::current_dir().unwrap().display().to_string();
    let huge = format!(
        r#"{{"opponent": "random", "pad": "{}"}}"#,
        "a".repeat(5 << 20)
    );
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    let mut routes: Vec<&str> = NEW_GAME.iter().map(|r| r.0).collect();
    routes.push("/api/review");
    for route in routes {
        // A body over the limit: 413, and the server reads no more of it.
        if let Some((status, text)) = raw(&s, "POST", route, huge.as_bytes()) {
            assert_eq!(status, 413, "{route}: {}", &text[..text.len().min(300)]);
        }
        alive(&s);
        for body in [&deep, &deep_object] {
            let (status, text) = raw(&s, "POST", route, body.as_bytes()).unwrap();
            assert_eq!(status, 400, "{route}: {}", &text[..text.len().min(300)]);
            assert!(text.len() < 2_000, "{route}: {} bytes", text.len());
            assert!(leaks(&text, &dir).is_empty(), "{text}");
            alive(&s);
        }
    }
    // A review of a 10,000-character move list or record: refused
    // briefly, not echoed whole.
    let long_moves = "a1 ".repeat(3_400);
    for body in [
        json!({ "moves": long_moves }),
        json!({ "sgf": format!("(;{})", "X[".repeat(5_000)) }),
        json!({ "moves": "e5", "sgf": "(;)" }),
    ] {
        let (status, text) = raw(&s, "POST", "/api/review", body.to_string().as_bytes()).unwrap();
        assert!(status == 400 || status == 422, "{body}: {text}");
        assert!(text.len() < 2_000, "{} bytes", text.len());
        alive(&s);
    }
}

#[test]
fn every_game_route_refuses_what_it_cannot_use() {
    let s = Server::start(&[]);
    let dir = std::env::current_dir().unwrap().display().to_string();
    // Game ids that are paths, URL-encoded or not, and huge numbers.
    for id in [
        "..%2F..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "..",
        "0000000000000000",
        &"9".repeat(5_000),
    ] {
        for (method, suffix) in [
            ("GET", ""),
            ("POST", "/play"),
            ("POST", "/engine"),
            ("POST", "/undo"),
        ] {
            for games in [
                "/api/games",
                "/api/morris/games",
                "/api/grid/games",
                "/api/emergo/games",
            ] {
                let path = format!("{games}/{id}{suffix}");
                let (status, text) = raw(&s, method, &path, br#"{"action":"a1"}"#).unwrap();
                assert!(status == 404 || status == 400, "{path}: {text}");
                assert!(text.len() < 2_000, "{path}: {} bytes", text.len());
                assert!(leaks(&text, &dir).is_empty(), "{path}: {text}");
            }
        }
    }
    // The agent's view and the Morris database on a real game, with bad
    // numbers.
    let (status, g) = post(&s, "/api/games", r#"{"opponent":"human","seed":3}"#);
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    for q in [
        "sims=0",
        "sims=-5",
        "sims=NaN",
        "sims=99999999999999999999",
        "sims=1e9",
        "sims=100000",
        "x=1",
    ] {
        let (status, e) = get(&s, &format!("/api/games/{id}/analysis?{q}"));
        assert_eq!(status, 400, "{q}: {e}");
    }
    let (status, g) = post(
        &s,
        "/api/morris/games",
        r#"{"variant":"three","opponent":"human"}"#,
    );
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    let (_, view) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    let text = view.to_string();
    assert!(!text.contains(&dir), "{text}");
    alive(&s);
    let _ = Path::new(&dir);
}

#[test]
fn a_read_only_server_serves_the_dashboard_alone() {
    let s = Server::start(&[&"--read-only"]);
    let (status, _) = get(&s, "/dashboard");
    assert_eq!(status, 200);
    let (status, _) = get(&s, "/assets/dashboard.js");
    assert_eq!(status, 200);
    let (status, run) = get(&s, "/api/run");
    assert!(status == 200 || status == 404, "{run}");
    for (path, body) in [
        ("/api/games", r#"{"opponent":"random"}"#),
        ("/api/morris/games", "{}"),
        ("/api/grid/games", "{}"),
        ("/api/emergo/games", "{}"),
        ("/api/review", r#"{"moves":"e5"}"#),
    ] {
        let (status, e) = post(&s, path, body);
        assert_eq!(status, 404, "{path}: {e}");
    }
    for path in [
        "/api/config",
        "/api/morris/config",
        "/api/offers",
        "/morris",
    ] {
        let (status, e) = get(&s, path);
        assert_eq!(status, 404, "{path}: {e}");
    }
}

#[test]
fn a_server_other_machines_reach_must_be_read_only_or_say_so() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_yinsh-zero"))
        .args(["serve", "--host", "0.0.0.0", "--port", "0"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--read-only") && err.contains("--allow-remote-play"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
