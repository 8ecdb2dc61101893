//! The JSON API over real HTTP on 127.0.0.1: games, errors, isolation,
//! review, the agent's view and the dashboard's data.

use crate::common;

use std::net::SocketAddr;
use std::path::PathBuf;

use common::web::{YINSH, get, post, request, strings};
use serde_json::json;
use yinsh_zero::games::serve;
use yinsh_zero::web::ServeConfig;

/// Starts a server on an ephemeral port in a background runtime.
fn start(config: ServeConfig) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            serve(listener, config).await.unwrap();
        });
    });
    addr
}

#[test]
fn a_game_against_random_runs_to_its_end_through_the_api() {
    let addr = start(ServeConfig::default());
    let game = YINSH.new_game(
        addr,
        json!({"color": "black", "opponent": "random", "blitz": true, "seed": 7}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["engine_to_act"], true);
    assert_eq!(game["legal"].as_array().unwrap().len(), 85);
    let mut decisions = 0;
    let mut game = game;
    while game["outcome"].is_null() {
        if game["engine_to_act"] == true {
            let (status, answer) = post(addr, &format!("/api/games/{id}/engine"), "");
            assert_eq!(status, 200, "{answer}");
            assert!(!answer["played"].as_array().unwrap().is_empty());
            game = answer["game"].clone();
        } else {
            // The human plays the first legal decision.
            let legal = strings(&game["legal"]);
            let body = json!({ "decision": legal[0] }).to_string();
            let (status, next) = post(addr, &format!("/api/games/{id}/play"), &body);
            assert_eq!(status, 200, "{next}");
            game = next;
        }
        decisions += 1;
        assert!(decisions < 1000, "the game does not end");
    }
    assert!(game["to_act"].is_null());
    assert!(game["legal"].as_array().unwrap().is_empty());
    let text = game["outcome"]["text"].as_str().unwrap();
    assert!(text.contains("wins") || text.contains("draw"), "{text}");
    // The move list replays to the same end.
    let moves = strings(&game["moves"]).join(" ");
    let (status, review) = post(
        addr,
        "/api/review",
        &json!({"moves": moves, "blitz": true}).to_string(),
    );
    assert_eq!(status, 200, "{review}");
    assert_eq!(review["result"].as_str().unwrap(), text);
    let n = game["history"].as_array().unwrap().len();
    assert_eq!(review["steps"].as_array().unwrap().len(), n);
    assert_eq!(review["positions"][n]["board"], game["board"]);
    // A finished game refuses further play and analysis, unchanged.
    let (status, err) = post(
        addr,
        &format!("/api/games/{id}/play"),
        r#"{"decision":"pass"}"#,
    );
    assert_eq!(
        (status, err["error"].as_str().unwrap()),
        (409, "the game is over")
    );
    let (status, _) = get(addr, &format!("/api/games/{id}/analysis"));
    assert_eq!(status, 409);
    assert_eq!(get(addr, &format!("/api/games/{id}")).1, game);
}

#[test]
fn malformed_and_illegal_requests_are_refused_and_change_nothing() {
    let addr = start(ServeConfig::default());
    let game = YINSH.new_game(addr, json!({"opponent": "random", "seed": 1}));
    let id = game["id"].as_str().unwrap();
    let play = format!("/api/games/{id}/play");
    let cases: &[(&str, &str, &str, u16, &str)] = &[
        ("POST", &play, "{bad json", 400, "malformed request body"),
        (
            "POST",
            &play,
            r#"{"decison":"e3"}"#,
            400,
            "unknown field `decison`",
        ),
        (
            "POST",
            &play,
            r#"{"decision":5}"#,
            400,
            "malformed request body",
        ),
        (
            "POST",
            &play,
            r#"{"decision":"zz9"}"#,
            400,
            "`zz9` is malformed",
        ),
        (
            "POST",
            &play,
            r#"{"decision":"a1"}"#,
            400,
            "`a1` is malformed",
        ),
        ("POST", &play, r#"{"decision":"a2-a4"}"#, 422, "not legal"),
        ("POST", &play, r#"{"decision":"xa5"}"#, 422, "not legal"),
        ("POST", &play, r#"{"decision":"pass"}"#, 422, "not legal"),
        (
            "POST",
            &format!("/api/games/{id}/engine"),
            "",
            409,
            "your turn",
        ),
        (
            "POST",
            &format!("/api/games/{id}/undo"),
            "",
            409,
            "nothing to undo",
        ),
        (
            "GET",
            &format!("/api/games/{id}/analysis?sims=0"),
            "",
            400,
            "1 to 5000",
        ),
        (
            "GET",
            &format!("/api/games/{id}/analysis?sims=x"),
            "",
            400,
            "sims",
        ),
        (
            "GET",
            &format!("/api/games/{id}/analysis?sims=99999"),
            "",
            400,
            "1 to 5000",
        ),
        (
            "POST",
            "/api/games/0000/play",
            r#"{"decision":"e3"}"#,
            404,
            "no game `0000`",
        ),
        (
            "POST",
            "/api/games",
            r#"{"opponent":"grredy"}"#,
            400,
            "unknown player `grredy`",
        ),
        (
            "POST",
            "/api/games",
            r#"{"opponent":"alphabeta:time=999999"}"#,
            400,
            "at most 2000 ms",
        ),
        (
            "POST",
            "/api/games",
            r#"{"color":"green"}"#,
            400,
            "unknown variant `green`",
        ),
        (
            "POST",
            "/api/review",
            r#"{"moves":"e3 e3"}"#,
            422,
            "token 2 `e3`",
        ),
        (
            "POST",
            "/api/review",
            r#"{"sgf":"(;SU[Yinsh]; P0[1 place wr Z 6])"}"#,
            422,
            "step 1",
        ),
        ("POST", "/api/review", "{}", 400, "exactly one of"),
        ("GET", "/api/run", "", 404, "serve --run DIR"),
        ("GET", "/nope", "", 404, "no such page"),
    ];
    for &(method, path, body, status, needle) in cases {
        let (got, answer) = request(addr, method, path, Some(body));
        let msg = answer["error"].as_str().unwrap_or_default();
        assert_eq!(got, status, "{method} {path} {body}: {answer}");
        assert!(
            msg.contains(needle),
            "{method} {path} {body}: `{msg}` lacks `{needle}`"
        );
        assert_eq!(
            get(addr, &format!("/api/games/{id}")).1,
            game,
            "{body} changed the game"
        );
    }
    // Out of turn: after the human's placement it is the engine's turn.
    let (status, after) = post(addr, &play, r#"{"decision":"F6"}"#);
    assert_eq!(status, 200);
    assert_eq!(strings(&after["history"]), ["f6"]);
    let (status, err) = post(addr, &play, r#"{"decision":"e3"}"#);
    assert_eq!(status, 409);
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("engine's turn (black")
    );
    assert_eq!(get(addr, &format!("/api/games/{id}")).1, after);
}

#[test]
fn games_are_isolated_and_undo_goes_back_to_the_humans_decision() {
    let addr = start(ServeConfig::default());
    let a = YINSH.new_game(addr, json!({"opponent": "random", "seed": 2}));
    let b = YINSH.new_game(
        addr,
        json!({"opponent": "human", "seed": 3, "random_placement": true}),
    );
    let (ia, ib) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    assert_ne!(ia, ib);
    // The random opening is ten placements, and undo never takes them back.
    assert_eq!(b["fixed"], 10);
    assert_eq!(b["decision"], "move_ring");
    assert_eq!(post(addr, &format!("/api/games/{ib}/undo"), "").0, 409);

    post(
        addr,
        &format!("/api/games/{ia}/play"),
        r#"{"decision":"e3"}"#,
    );
    let (_, answer) = post(addr, &format!("/api/games/{ia}/engine"), "");
    assert_eq!(answer["game"]["history"].as_array().unwrap().len(), 2);
    assert_eq!(get(addr, &format!("/api/games/{ib}")).1, b, "game b moved");

    // Two humans at one screen: both colours play through /play.
    let first = strings(&b["legal"])[0].clone();
    let (status, b2) = post(
        addr,
        &format!("/api/games/{ib}/play"),
        &json!({ "decision": first }).to_string(),
    );
    assert_eq!(status, 200, "{b2}");
    assert_eq!(b2["to_act"], "black");
    assert_eq!(b2["engine_to_act"], false);
    assert_eq!(post(addr, &format!("/api/games/{ib}/engine"), "").0, 409);

    let (status, undone) = post(addr, &format!("/api/games/{ia}/undo"), "");
    assert_eq!(status, 200);
    assert!(undone["history"].as_array().unwrap().is_empty());
    assert_eq!(undone["board"], a["board"]);
    // The rebuilt engine follows the game again.
    post(
        addr,
        &format!("/api/games/{ia}/play"),
        r#"{"decision":"f6"}"#,
    );
    let (status, answer) = post(addr, &format!("/api/games/{ia}/engine"), "");
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["game"]["turn"], 2);
}

#[test]
fn a_thinking_engine_blocks_neither_its_game_nor_others() {
    let addr = start(ServeConfig::default());
    // The engine plays White and thinks for a second and a half.
    let slow = YINSH.new_game(
        addr,
        json!({"color": "black", "opponent": "mcts-rollout:time=1500", "seed": 4}),
    );
    let other = YINSH.new_game(addr, json!({"opponent": "random", "seed": 5}));
    let (is, io) = (
        slow["id"].as_str().unwrap().to_string(),
        other["id"].as_str().unwrap().to_string(),
    );
    let thinker = {
        let is = is.clone();
        std::thread::spawn(move || post(addr, &format!("/api/games/{is}/engine"), ""))
    };
    let mut seen_thinking = false;
    for _ in 0..10_000 {
        let (_, g) = get(addr, &format!("/api/games/{is}"));
        if g["thinking"] == true {
            seen_thinking = true;
            break;
        }
        if !g["history"].as_array().unwrap().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(
        seen_thinking,
        "the game never answered while its engine thought"
    );
    // While it thinks: other games play, and this one refuses changes.
    let (status, _) = post(
        addr,
        &format!("/api/games/{io}/play"),
        r#"{"decision":"e3"}"#,
    );
    assert_eq!(status, 200);
    let (status, err) = post(addr, &format!("/api/games/{is}/undo"), "");
    let still = get(addr, &format!("/api/games/{is}")).1;
    if still["thinking"] == true {
        assert_eq!(status, 409, "{err}");
        assert!(err["error"].as_str().unwrap().contains("still thinking"));
    }
    let (status, answer) = thinker.join().unwrap();
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["played"].as_array().unwrap().len(), 1);
    assert_eq!(answer["game"]["thinking"], false);
    assert_eq!(answer["game"]["to_act"], "black");
}

#[test]
fn the_agents_view_sums_to_one_and_sgf_records_review() {
    let addr = start(ServeConfig::default());
    let g = YINSH.new_game(addr, json!({"opponent": "random", "seed": 6}));
    let id = g["id"].as_str().unwrap();
    let (status, a) = get(addr, &format!("/api/games/{id}/analysis?sims=50"));
    assert_eq!(status, 200, "{a}");
    let wdl: f64 = a["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((wdl - 1.0).abs() < 1e-3, "{a}");
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 85);
    let policy: f64 = moves.iter().map(|m| m["policy"].as_f64().unwrap()).sum();
    assert!((policy - 1.0).abs() < 1e-3);
    assert_eq!(a["simulations"], 50);

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/Y-DrMih-Dumbot-2026-02-20-0858.sgf");
    let sgf = std::fs::read_to_string(path).unwrap();
    let (status, review) = post(addr, "/api/review", &json!({ "sgf": sgf }).to_string());
    assert_eq!(status, 200, "{review}");
    let steps = review["steps"].as_array().unwrap();
    assert!(steps.len() > 20);
    assert!(steps[0]["source"].as_str().unwrap().contains("place"));
    assert_eq!(
        review["positions"].as_array().unwrap().len(),
        steps.len() + 1
    );
    assert!(review["result"].is_string());
}

#[test]
fn the_dashboard_reads_every_numeric_field_and_skips_bad_lines() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/web/run");
    let addr = start(ServeConfig {
        run_dir: Some(dir),
        ..ServeConfig::default()
    });
    let (status, run) = get(addr, "/api/run");
    assert_eq!(status, 200, "{run}");
    let m = &run["metrics"];
    let values = |kind: &str, field: &str| -> Vec<f64> {
        m[kind][field]
            .as_array()
            .unwrap_or_else(|| panic!("no {kind}.{field} in {m}"))
            .iter()
            .map(|p| p["v"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(values("train", "policy_loss"), [3.91, 3.42, 3.10]);
    assert_eq!(values("train", "value_accuracy"), [0.41, 0.47, 0.52]);
    assert_eq!(values("train", "lr"), [0.02, 0.02]);
    assert_eq!(values("selfplay", "games_per_hour"), [410.5, 398.0]);
    assert_eq!(values("gating", "score"), [0.58, 0.47]);
    assert_eq!(values("elo", "elo"), [35.0, 81.5]);
    assert_eq!(m["elo"]["elo"][1]["g"], 3.0);
    assert_eq!(m["elo"]["elo"][1]["t"], 1760002950.0);
    assert!(
        m["gating"].get("promoted").is_none(),
        "booleans are not series"
    );
    assert_eq!(
        (run["lines"].as_u64(), run["skipped_lines"].as_u64()),
        (Some(9), Some(2))
    );
    let eval = &run["eval"][0];
    assert_eq!(eval["name"], "gen0003-vs-greedy.jsonl");
    assert_eq!(eval["games"], 3);
    assert_eq!(eval["skipped_lines"], 1);
    assert_eq!(eval["counts"]["result"]["white"], 2);
    assert_eq!(eval["means"]["length"], (63.0 + 81.0 + 58.0) / 3.0);
    // The pages are served.
    for page in [
        "/",
        "/rules",
        "/dashboard",
        "/assets/play.js",
        "/assets/board.js",
    ] {
        assert_eq!(get(addr, page).0, 200, "{page}");
    }
}
