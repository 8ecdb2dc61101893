//! The Connect Four page and its JSON API through the real binary
//! (`yinsh-zero serve` on 127.0.0.1, port 0): a new game, columns played,
//! refused requests that leave the game as it was (400 not a column, 409
//! out of turn or over, 422 a full column), the engine's reply, undo, the
//! winning four, and the solver's analysis. Every view is checked against
//! the library's own replay of the game's decisions.

use crate::common;

use common::web::{CONNECT4, Server, error_of, get, strings};
use serde_json::{Value, json};
use yinsh_zero::game::{Color, State};
use yinsh_zero::games::connect4::solve::Solver;
use yinsh_zero::games::connect4::{Column, Position};

fn serve() -> Server {
    Server::start(&[&"--think-ms", &"300"])
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The position the game's decisions lead to, replayed by the library.
fn replay(view: &Value) -> Position {
    let moves = strings(&view["history"]).concat();
    Position::from_moves(&moves).unwrap_or_else(|e| panic!("{e}"))
}

/// What the view says that its decisions imply: each column's stones,
/// who acts, the legal columns, the move list and the outcome.
fn check_view(view: &Value) {
    let pos = replay(view);
    let columns: Vec<Vec<&str>> = Column::ALL
        .iter()
        .map(|&c| {
            (0..pos.height(c))
                .map(|r| colour(pos.at(c.index(), r).unwrap()))
                .collect()
        })
        .collect();
    assert_eq!(view["columns"], json!(columns), "{view}");
    let legal: Vec<u8> = pos.legal_actions().iter().map(|c| c.number()).collect();
    assert_eq!(view["legal"], json!(legal));
    assert_eq!(view["ply"], pos.ply());
    assert_eq!(view["outcome"].is_object(), pos.is_over(), "{view}");
    if pos.is_over() {
        assert_eq!(view["to_act"], Value::Null);
    } else {
        assert_eq!(view["to_act"], colour(pos.to_act()));
    }
    let turns: Vec<String> = view["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(turns, strings(&view["history"]));
}

#[test]
fn the_page_new_games_columns_refusals_engine_and_undo() {
    let s = serve();
    let (status, page) = get(&s, "/connect4");
    assert_eq!(status, 200);
    let page = page.as_str().unwrap();
    for asset in [
        "/assets/connect4.js",
        "/assets/connect4.css",
        "/assets/page.js",
    ] {
        assert!(page.contains(asset), "{asset}");
        let (status, body) = get(&s, asset);
        assert_eq!(status, 200, "{asset}");
        assert!(!body.as_str().unwrap().is_empty());
    }
    // Every page links to the Connect Four page.
    for path in ["/", "/emergo", "/grid", "/connect4"] {
        let (status, page) = get(&s, path);
        assert_eq!(status, 200, "{path}");
        assert!(
            page.as_str().unwrap().contains("href=\"/connect4\""),
            "{path}"
        );
    }
    let (status, config) = get(&s, "/api/connect4/config");
    assert_eq!(status, 200, "{config}");
    let suggested = strings(&config["suggestions"]);
    assert_eq!(config["default_opponent"], suggested[0].as_str());
    assert!(
        suggested.iter().any(|s| s.starts_with("perfect")),
        "{suggested:?}"
    );
    let players: Vec<&str> = config["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(players.contains(&"perfect") && players.contains(&"alphabeta"));

    // Two humans: columns, refusals that change nothing, undo.
    let g = CONNECT4.new_game(&s, json!({"opponent": "human"}));
    assert_eq!(
        (g["title"].as_str(), g["variant"].as_str()),
        (Some("Connect Four"), Some("standard"))
    );
    assert_eq!(g["legal"], json!([1, 2, 3, 4, 5, 6, 7]));
    check_view(&g);
    let id = g["id"].as_str().unwrap().to_string();
    let mut g = g;
    for c in ["4", "4", "4", "4", "4", "4"] {
        g = CONNECT4.play_ok(&s, &id, c);
        check_view(&g);
    }
    assert_eq!(g["legal"], json!([1, 2, 3, 5, 6, 7]));
    for (action, status, words) in [
        ("8", 400, "numbered 1 to 7"),
        ("0", 400, "numbered 1 to 7"),
        ("x", 400, "not a column number"),
        ("", 400, "not a column number"),
        ("4", 422, "column 4 is full"),
    ] {
        let (got, e) = CONNECT4.play(&s, &id, action);
        assert_eq!(got, status, "`{action}`: {e}");
        assert!(error_of(&e).contains(words), "`{action}`: {e}");
        assert_eq!(CONNECT4.game(&s, &id), g, "`{action}` changed the game");
    }
    let (status, e) = CONNECT4.engine(&s, &id);
    assert_eq!(status, 409, "{e}");
    let (status, back) = CONNECT4.undo(&s, &id);
    assert_eq!(status, 200, "{back}");
    assert_eq!(strings(&back["history"]).len(), 5);
    // Black builds column 1: the four is shown, nothing is legal.
    let mut last = Value::Null;
    for c in ["1", "2", "1", "2", "1", "2", "1"] {
        last = CONNECT4.play_ok(&s, &id, c);
    }
    check_view(&last);
    assert_eq!(
        last["outcome"]["text"], "Black wins: four in a line",
        "{last}"
    );
    assert_eq!(last["outcome"]["winner"], "black");
    assert_eq!(
        last["four"],
        json!([[1, 1], [1, 2], [1, 3], [1, 4]]),
        "{last}"
    );
    assert_eq!(last["legal"], json!([]));
    let (status, e) = CONNECT4.play(&s, &id, "1");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("over"), "{e}");

    // Bad new-game requests: each a 400 naming the problem.
    for (body, words) in [
        (json!({"variant": "8x7"}), "standard"),
        (json!({"opponent": "nosuch"}), "unknown player"),
        (json!({"opponent": "perfect:tt=28"}), "at most 20"),
        (json!({"color": "red"}), "malformed request body"),
    ] {
        let (status, e) = common::web::post(&s, "/api/connect4/games", &body.to_string());
        assert_eq!(status, 400, "{body}: {e}");
        assert!(error_of(&e).contains(words), "{body}: {e}");
    }
}

#[test]
fn the_engine_replies_and_the_solver_analyses() {
    let s = serve();
    // The engine opens as White; the human answers.
    let g = CONNECT4.new_game(
        &s,
        json!({"color": "black", "opponent": "alphabeta:depth=4", "seed": 3}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["engine_to_act"], true);
    let (status, e) = CONNECT4.play(&s, &id, "4");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("engine's turn"), "{e}");
    let (status, answer) = CONNECT4.engine(&s, &id);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(strings(&answer["played"]).len(), 1);
    let g = &answer["game"];
    check_view(g);
    assert_eq!(g["to_act"], "black");

    // A game near its end against `perfect`, which wins as fast as it can.
    let g = CONNECT4.new_game(&s, json!({"color": "black", "opponent": "human"}));
    let hid = g["id"].as_str().unwrap().to_string();
    for c in "121212".chars() {
        CONNECT4.play_ok(&s, &hid, &c.to_string());
    }
    let (status, a) = get(&s, &CONNECT4.path(&hid, "/analysis"));
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["solved"], true);
    assert_eq!(a["score"], 18);
    assert_eq!(a["best"], json!([1]));
    assert_eq!(a["moves"], "121212");
    let columns = a["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 7);
    // The analysis agrees with the library's solver column by column.
    let pos = Position::from_moves("121212").unwrap();
    let want = Solver::new(18).column_scores(&pos);
    for (got, want) in columns.iter().zip(want) {
        assert_eq!(got.as_i64(), want.map(|s| i64::from(s.get())));
    }
    let (status, e) = get(&s, &CONNECT4.path("nope", "/analysis"));
    assert_eq!(status, 404, "{e}");

    // `perfect` is an opponent the page offers (its first moves from the
    // empty board take minutes, so it is not asked to move here).
    let g = CONNECT4.new_game(&s, json!({"color": "white", "opponent": "perfect:tt=18"}));
    assert_eq!(g["opponent"], "perfect:tt=18");
    assert_eq!(g["engine_to_act"], false);
}

/// A game on the page in a real browser (Debian's chromium driven by
/// playwright-core, `tests/web/connect4.mjs`): columns clicked against
/// `random` to the outcome, the stones drawn checked after every decision,
/// undo by the button, the solver's scores shown, the four outlined. Needs
/// what `tests/it/web_browser.rs` needs; `YINSH_SKIP_BROWSER=1` skips it.
#[test]
fn a_game_is_played_through_clicks_in_chromium() {
    use std::path::PathBuf;
    use std::process::Command;
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/web");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let ready = std::path::Path::new(&chromium).exists()
        && web.join("node_modules/playwright-core").is_dir()
        && Command::new("node").arg("--version").output().is_ok();
    if !ready {
        let skip = std::env::var("YINSH_SKIP_BROWSER").is_ok_and(|v| v == "1");
        assert!(
            skip,
            "the browser test needs {chromium}, node and `npm ci --prefix tests/web`; \
             set YINSH_SKIP_BROWSER=1 to skip it"
        );
        eprintln!("SKIPPED (YINSH_SKIP_BROWSER=1)");
        return;
    }
    let server = serve();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .arg(web.join("connect4.mjs"))
        .arg(server.url())
        .arg(shots.join("connect4"))
        .current_dir(&web)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "connect4.mjs failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("OK {\"outcome\":"), "{stdout}");
    for shot in ["connect4-mid.png", "connect4-end.png"] {
        let len = std::fs::metadata(shots.join(shot))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(len > 10_000, "screenshot {shot} is missing or empty");
    }
}
