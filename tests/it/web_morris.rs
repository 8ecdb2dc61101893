//! The Morris page's JSON API through the real binary (`yinsh-zero serve`
//! on 127.0.0.1, port 0): boards, games against engines and by hand,
//! errors, undo, and "show perfect move" with and without a database. The
//! databases (Three Men's Morris, and Six, about 7 s) are solved by the
//! real `solve` command into temporary directories.

use crate::common;

use std::path::Path;

use common::cli::{succeeded, yz};
use common::web::{MORRIS, Server, error_of, get, post, strings};
use serde_json::{Value, json};
use yinsh_zero::games::morris::Variant;
use yinsh_zero::games::morris::address::layers;

/// Starts `yinsh-zero serve` on a free port with the Morris databases
/// under `db_root`.
fn serve(db_root: &Path) -> Server {
    Server::start(&[&"--think-ms", &"500", &"--morris-db", &db_root])
}

fn variant<'a>(config: &'a Value, name: &str) -> &'a Value {
    config["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name} in {config}"))
}

/// Solves `variant` with the real `solve` command into `root/<variant>`.
fn solve(root: &Path, variant: &str) {
    succeeded(&yz([
        "solve",
        "--variant",
        variant,
        "--no-reach",
        "--db",
        root.join(variant).to_str().unwrap(),
    ]));
}

#[test]
fn the_page_boards_and_bad_requests_without_a_database() {
    let empty = tempfile::tempdir().unwrap();
    let s = serve(empty.path());

    let (status, page) = get(&s, "/morris");
    assert_eq!(status, 200);
    let page = page.as_str().unwrap();
    assert!(page.contains("Show perfect move") && page.contains("/assets/morris.js"));
    let (status, script) = get(&s, "/assets/morris.js");
    assert_eq!(status, 200);
    assert!(script.as_str().unwrap().contains("/api/morris/games"));
    // The YINSH page links to the Morris page.
    let (_, yinsh) = get(&s, "/");
    assert!(yinsh.as_str().unwrap().contains("href=\"/morris\""));

    let (status, config) = get(&s, "/api/morris/config");
    assert_eq!(status, 200, "{config}");
    // Points, lines drawn between neighbours, mills, per variant.
    for (name, points, lines, mills) in [
        ("nine", 24, 32, 16),
        ("six", 16, 20, 8),
        ("three", 9, 16, 8),
    ] {
        let v = variant(&config, name);
        let board = &v["board"];
        assert_eq!(board["points"].as_array().unwrap().len(), points, "{name}");
        assert_eq!(board["lines"].as_array().unwrap().len(), lines, "{name}");
        assert_eq!(board["mills"].as_array().unwrap().len(), mills, "{name}");
        let db = &v["database"];
        assert_eq!(db["present"], false, "{name}: {db}");
        let note = db["note"].as_str().unwrap();
        assert!(
            note.contains(&format!("yinsh-zero solve --variant {name}")),
            "{note}"
        );
        let suggested = strings(&v["suggestions"]);
        assert!(!suggested.contains(&"perfect".to_string()), "{suggested:?}");
        assert_eq!(v["default_opponent"], suggested[0].as_str());
    }
    // The networks this project ships are offered for their variants, Six's
    // played safe for a draw as its card says, and it answers a placement.
    let six = "net-mcts:net=six-mens-morris,sims=300,draw=0.8,lcb=0";
    let nine = "net-mcts:net=nine-mens-morris";
    let offered = |name: &str| strings(&variant(&config, name)["suggestions"]);
    assert_eq!(offered("six")[..2], ["alphabeta:depth=4", six]);
    assert_eq!(offered("nine")[1], nine);
    assert!(!offered("three").iter().any(|o| o.starts_with("net-")));
    let g = MORRIS.new_game(
        &s,
        json!({"variant": "six", "color": "white", "opponent": six, "seed": 1}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    MORRIS.play_ok(&s, &id, "a1");
    let (status, answer) = MORRIS.engine(&s, &id);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(strings(&answer["game"]["history"]).len(), 2, "{answer}");
    let nine = &variant(&config, "nine")["board"];
    assert_eq!(nine["side"], 7);
    assert!(
        nine["points"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "d2" && p["col"] == 3 && p["row"] == 1)
    );
    assert!(
        strings(&variant(&config, "three")["board"]["lines"][0])
            .iter()
            .all(|p| p.len() == 2)
    );

    // Bad new-game requests: each a 400 naming the problem.
    let bad = |body: &str, needle: &str| {
        let (status, e) = post(&s, "/api/morris/games", body);
        assert_eq!(status, 400, "{body}: {e}");
        assert!(error_of(&e).contains(needle), "{body}: {e}");
    };
    bad(r#"{"variant":"twelve"}"#, "nine, six, three");
    bad(r#"{"variant":"six","opponent":"nosuch"}"#, "unknown player");
    bad(
        r#"{"variant":"six","opponent":"alphabeta:depth=x"}"#,
        "depth",
    );
    bad(
        r#"{"variant":"six","opponent":"perfect"}"#,
        "solve --variant six",
    );
    bad(
        r#"{"variant":"six","color":"green"}"#,
        "malformed request body",
    );
    bad(r#"{"variant":"six","colour":"white"}"#, "unknown field");
    bad(
        r#"{"variant":"six","opponent":"alphabeta:time=9000"}"#,
        "at most 500 ms",
    );

    // A game of two humans: a mill, its removal, errors, undo.
    let g = MORRIS.new_game(&s, json!({"variant": "six", "opponent": "human"}));
    let id = g["id"].as_str().unwrap();
    assert_eq!(g["variant"], "six");
    assert_eq!(g["phase"], "place");
    assert_eq!(g["to_act"], "white");
    assert_eq!(g["board"]["hand"], json!({"white": 6, "black": 6}));
    assert_eq!(strings(&g["legal"]).len(), 16);
    let malformed = |text: &str| {
        let (status, e) = MORRIS.play(&s, id, text);
        assert_eq!(status, 400, "{text}: {e}");
        assert!(error_of(&e).contains("no Morris action"), "{text}: {e}");
    };
    malformed("hello");
    malformed("d2-");
    malformed("x");
    malformed("a1x");
    let illegal = |text: &str, needle: &str| {
        let (status, e) = MORRIS.play(&s, id, text);
        assert_eq!(status, 422, "{text}: {e}");
        assert!(error_of(&e).contains(needle), "{text}: {e}");
    };
    illegal("g7", "not a point of the Six Men's Morris board");
    illegal("a2", "not a point");
    illegal("a1-a3", "still has stones to place");
    illegal("xb2", "closed no mill");
    let (status, e) = post(
        &s,
        &format!("/api/morris/games/{id}/play"),
        r#"{"decision":"a1"}"#,
    );
    assert_eq!(status, 400, "{e}");

    for a in ["a1", "b2", "a3", "c2"] {
        MORRIS.play_ok(&s, id, a);
    }
    illegal("a3", "occupied");
    let g = MORRIS.play_ok(&s, id, "a5");
    assert_eq!(g["phase"], "remove", "{g}");
    assert_eq!(g["to_act"], "white");
    let mut legal = strings(&g["legal"]);
    legal.sort();
    assert_eq!(legal, ["xb2", "xc2"]);
    illegal("b3", "must first remove");
    illegal("xa1", "holds no black stone");
    // The database view mid-turn: no database, and no state number.
    let (status, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["database"]["present"], false);
    assert!(p["value"].is_null() && p["best"] == json!([]));
    assert!(
        p["note"]
            .as_str()
            .unwrap()
            .contains("yinsh-zero solve --variant six"),
        "{p}"
    );
    assert!(p["state"].is_null());
    assert!(
        p["state_note"].as_str().unwrap().contains("removing"),
        "{p}"
    );
    let g = MORRIS.play_ok(&s, id, "xc2");
    assert_eq!(g["board"]["black"], json!(["b2"]));
    assert_eq!(g["to_act"], "black");
    let turns: Vec<&str> = g["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert_eq!(turns, ["a1", "b2", "a3", "c2", "a5 xc2"]);
    // Between turns, a state number without a database (Six's layers are
    // small enough to number in memory).
    let (_, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    let state = &p["state"];
    assert!(state["number"].as_u64().unwrap() < state["total"].as_u64().unwrap());
    assert_eq!(state["layer"], "1:3 in hand 4:3", "{p}");
    // Undo takes back the whole last turn, removal included.
    let (status, g) = post(&s, &format!("/api/morris/games/{id}/undo"), "");
    assert_eq!(status, 200, "{g}");
    assert_eq!(strings(&g["history"]), ["a1", "b2", "a3", "c2"]);
    assert_eq!(g["to_act"], "white");
    assert_eq!(g["phase"], "place");
    let (status, e) = post(&s, &format!("/api/morris/games/{id}/engine"), "");
    assert_eq!(status, 409, "{e}");

    // The start's state number is the last one: the layer with every stone
    // in hand comes last in the numbering and holds one state.
    for name in ["six", "nine"] {
        let g = MORRIS.new_game(&s, json!({"variant": name, "opponent": "human"}));
        let (status, p) = get(
            &s,
            &format!("/api/morris/games/{}/perfect", g["id"].as_str().unwrap()),
        );
        assert_eq!(status, 200, "{p}");
        let state = &p["state"];
        assert_eq!(
            state["number"].as_u64().unwrap() + 1,
            state["total"].as_u64().unwrap(),
            "{name}: {p}"
        );
        assert_eq!(state["index"], 0);
    }

    // Nine Men's Morris, no database: the middle of the placement lies in
    // layers too big to number in memory, and the page is told so.
    let g = MORRIS.new_game(&s, json!({"variant": "nine", "opponent": "human"}));
    let id = g["id"].as_str().unwrap();
    for a in ["a1", "d7", "g7", "g1", "d2", "c4", "b4", "f6", "e3", "e5"] {
        let g = MORRIS.play_ok(&s, id, a);
        assert_eq!(g["phase"], "place", "{a}: {g}");
    }
    let (_, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert!(p["state"].is_null(), "{p}");
    let note = p["state_note"].as_str().unwrap();
    assert!(
        note.contains("5:5 in hand 4:4")
            && note.contains("too many to number without its database"),
        "{note}"
    );

    // An empty body: Nine Men's Morris, White, the first suggestion.
    let (status, g) = post(&s, "/api/morris/games", "");
    assert_eq!(status, 201, "{g}");
    assert_eq!(g["variant"], "nine");
    assert_eq!(g["human"], "white");
    assert!(
        g["opponent"]
            .as_str()
            .unwrap()
            .starts_with("alphabeta:depth=4"),
        "{g}"
    );

    // Unknown games.
    let (status, e) = get(&s, "/api/morris/games/nope");
    assert_eq!(status, 404, "{e}");
    let (status, _) = get(&s, "/api/morris/games/nope/perfect");
    assert_eq!(status, 404);
    let (status, _) = MORRIS.play(&s, "nope", "a1");
    assert_eq!(status, 404);
}

#[test]
fn a_game_against_an_engine_to_its_end_with_undo() {
    let empty = tempfile::tempdir().unwrap();
    let s = serve(empty.path());
    let g = MORRIS.new_game(
        &s,
        json!({"variant": "six", "color": "black", "opponent": "random", "seed": 7}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["engine_to_act"], true);
    assert_eq!(g["can_undo"], false);
    let (status, e) = MORRIS.play(&s, &id, "a1");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("engine's turn"), "{e}");
    let (status, e) = post(&s, &format!("/api/morris/games/{id}/undo"), "");
    assert_eq!(status, 409, "{e}");

    let mut game = g;
    let mut undone = false;
    let mut removals = 0;
    for _ in 0..600 {
        if game["outcome"].is_object() {
            break;
        }
        if game["engine_to_act"] == true {
            let (status, answer) = post(&s, &format!("/api/morris/games/{id}/engine"), "");
            assert_eq!(status, 200, "{answer}");
            assert!(!strings(&answer["played"]).is_empty());
            game = answer["game"].clone();
            continue;
        }
        assert_eq!(game["to_act"], "black");
        let legal = strings(&game["legal"]);
        // Take stones when possible; otherwise the first legal action.
        let action = legal[legal.len() / 2].clone();
        if action.starts_with('x') {
            removals += 1;
        }
        let before = strings(&game["history"]);
        game = MORRIS.play_ok(&s, &id, &action);
        if !undone && before.len() >= 6 && !action.starts_with('x') && game["engine_to_act"] == true
        {
            // Undo takes back this action; the engine's reply was not made.
            let (status, g) = post(&s, &format!("/api/morris/games/{id}/undo"), "");
            assert_eq!(status, 200, "{g}");
            assert_eq!(strings(&g["history"]), before);
            undone = true;
            game = MORRIS.play_ok(&s, &id, &action);
        }
    }
    let outcome = &game["outcome"];
    assert!(outcome.is_object(), "the game did not end: {game}");
    let text = outcome["text"].as_str().unwrap();
    assert!(
        text.starts_with("White wins: ")
            || text.starts_with("Black wins: ")
            || text.starts_with("Draw: "),
        "{text}"
    );
    assert!(undone);
    let (status, e) = MORRIS.play(&s, &id, "a1");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("over"), "{e}");
    println!(
        "six vs random: {text} after {} decisions, {removals} removals by the human",
        game["history"].as_array().unwrap().len()
    );
}

#[test]
fn a_solved_three_database_gives_values_best_moves_and_the_perfect_opponent() {
    let root = tempfile::tempdir().unwrap();
    solve(root.path(), "three");
    let s = serve(root.path());

    let (_, config) = get(&s, "/api/morris/config");
    let three = variant(&config, "three");
    assert_eq!(three["database"]["present"], true, "{three}");
    assert_eq!(three["database"]["layers"], three["database"]["all_layers"]);
    assert_eq!(three["suggestions"][0], "perfect");
    assert_eq!(three["default_opponent"], "perfect");
    assert_eq!(variant(&config, "six")["database"]["present"], false);

    // Both sides by hand, each playing a best action: the values follow
    // each other (a win in n is answered by a loss in n - 1) to the end.
    let g = MORRIS.new_game(&s, json!({"variant": "three", "opponent": "human"}));
    let id = g["id"].as_str().unwrap().to_string();
    let mut game = g;
    let mut first: Option<Value> = None;
    let mut previous: Option<Value> = None;
    while game["outcome"].is_null() {
        let (status, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
        assert_eq!(status, 200, "{p}");
        assert_eq!(p["database"]["present"], true);
        assert_eq!(p["steps"], game["history"].as_array().unwrap().len());
        let value = p["value"].clone();
        assert!(value.is_object(), "{p}");
        assert!(p["state"]["number"].is_u64(), "{p}");
        let best = strings(&p["best"]);
        assert!(!best.is_empty(), "{p}");
        // Every legal action is valued; the best ones keep the value.
        let actions = p["actions"].as_array().unwrap();
        assert_eq!(actions.len(), game["legal"].as_array().unwrap().len());
        for a in actions {
            if a["best"] == true {
                assert_eq!(a["value"], value, "{p}");
            }
        }
        if let Some(prev) = &previous {
            let n = prev["plies"].as_u64().unwrap();
            match prev["outcome"].as_str().unwrap() {
                "win" => {
                    assert_eq!(value["outcome"], "loss", "{prev} then {value}");
                    assert_eq!(value["plies"].as_u64().unwrap(), n - 1);
                }
                "loss" => {
                    assert_eq!(value["outcome"], "win", "{prev} then {value}");
                    assert_eq!(value["plies"].as_u64().unwrap() + 1, n);
                }
                _ => assert_eq!(value["outcome"], "draw"),
            }
        }
        if first.is_none() {
            first = Some(p.clone());
        }
        previous = Some(value);
        game = MORRIS.play_ok(&s, &id, &best[0]);
    }
    let first = first.unwrap();
    // The start: the last state number, and a White win.
    assert_eq!(
        first["state"]["number"].as_u64().unwrap() + 1,
        first["state"]["total"].as_u64().unwrap()
    );
    assert_eq!(first["value"]["outcome"], "win", "{first}");
    assert!(
        first["value_text"]
            .as_str()
            .unwrap()
            .starts_with("White (to act) wins in "),
        "{first}"
    );
    assert_eq!(game["outcome"]["winner"], "white", "{game}");
    assert_eq!(game["outcome"]["text"], "White wins: three in a row");
    let (status, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert_eq!(status, 200);
    assert!(
        p["value"].is_null() && p["note"] == "The game is over.",
        "{p}"
    );

    // The `perfect` opponent reads the server's database directory (not
    // the default one, and without showing its path) and wins the won
    // start against anything.
    for seed in 0..3u64 {
        let g = MORRIS.new_game(
            &s,
            json!({"variant": "three", "color": "black", "seed": seed}),
        );
        assert!(g["opponent"].as_str() == Some("perfect"), "{g}");
        let id = g["id"].as_str().unwrap().to_string();
        let mut game = g;
        while game["outcome"].is_null() {
            if game["engine_to_act"] == true {
                let (status, answer) = post(&s, &format!("/api/morris/games/{id}/engine"), "");
                assert_eq!(status, 200, "{answer}");
                game = answer["game"].clone();
            } else {
                let legal = strings(&game["legal"]);
                game = MORRIS.play_ok(&s, &id, &legal[(seed as usize * 7) % legal.len()]);
            }
        }
        assert_eq!(game["outcome"]["winner"], "white", "seed {seed}: {game}");
    }
}

#[test]
fn a_damaged_database_is_named_not_a_crash() {
    let root = tempfile::tempdir().unwrap();
    solve(root.path(), "three");
    let dir = root.path().join("three");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "mdb") {
            std::fs::write(&path, b"not a database").unwrap();
        }
    }
    let s = serve(root.path());
    let g = MORRIS.new_game(&s, json!({"variant": "three", "opponent": "human"}));
    let id = g["id"].as_str().unwrap();
    let (status, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert_eq!(status, 200, "{p}");
    let note = p["note"].as_str().unwrap();
    assert!(note.contains("cannot") && note.contains(".mdb"), "{p}");
    assert!(p["value"].is_null());
    // The state number does not need the values.
    assert!(p["state"]["number"].is_u64(), "{p}");
    // The game goes on.
    MORRIS.play_ok(&s, id, "b2");
}

#[test]
fn a_solved_six_database_values_removals_and_numbers_states_as_without_it() {
    let root = tempfile::tempdir().unwrap();
    solve(root.path(), "six");
    let with_db = serve(root.path());
    let empty = tempfile::tempdir().unwrap();
    let without = serve(empty.path());

    let a = MORRIS.new_game(&with_db, json!({"variant": "six", "opponent": "human"}));
    let b = MORRIS.new_game(&without, json!({"variant": "six", "opponent": "human"}));
    let (ida, idb) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let perfect = |s: &Server, id: &str| {
        let (status, p) = get(s, &format!("/api/morris/games/{id}/perfect"));
        assert_eq!(status, 200, "{p}");
        p
    };
    // The start: a draw, every placement valued.
    let p = perfect(&with_db, ida);
    assert_eq!(p["value"]["outcome"], "draw", "{p}");
    assert_eq!(p["value_text"], "a draw with best play");
    assert_eq!(p["actions"].as_array().unwrap().len(), 16);
    // The database's layer indices and the ones built without it give the
    // same state numbers.
    for action in ["a1", "b2", "a3", "c2", "a5", "xc2", "c1", "b3", "e1"] {
        let pa = perfect(&with_db, ida);
        let pb = perfect(&without, idb);
        assert_eq!(pa["state"], pb["state"], "{pa}\n{pb}");
        if action == "xc2" {
            // Mid-turn: a value over the removals, no state number.
            assert!(pa["state"].is_null());
            let best = strings(&pa["best"]);
            assert!(
                !best.is_empty() && best.iter().all(|a| a.starts_with('x')),
                "{pa}"
            );
            let mut valued: Vec<String> = pa["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["action"].as_str().unwrap().to_string())
                .collect();
            valued.sort();
            assert_eq!(valued, ["xb2", "xc2"]);
            assert!(pa["value"].is_object(), "{pa}");
        } else {
            assert!(pa["state"]["number"].is_u64(), "{pa}");
        }
        MORRIS.play_ok(&with_db, ida, action);
        MORRIS.play_ok(&without, idb, action);
    }

    // The `perfect` opponent never loses the drawn start.
    let g = MORRIS.new_game(
        &with_db,
        json!({"variant": "six", "color": "black", "opponent": "perfect", "seed": 3}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    let mut game = g;
    let mut k = 0usize;
    while game["outcome"].is_null() {
        if game["engine_to_act"] == true {
            let (status, answer) = post(&with_db, &format!("/api/morris/games/{id}/engine"), "");
            assert_eq!(status, 200, "{answer}");
            game = answer["game"].clone();
        } else {
            let legal = strings(&game["legal"]);
            k += 1;
            game = MORRIS.play_ok(&with_db, &id, &legal[(k * 5) % legal.len()]);
        }
    }
    assert_ne!(game["outcome"]["winner"], "black", "{game}");
    println!(
        "six, perfect vs a fixed pattern: {}",
        game["outcome"]["text"]
    );
}

#[test]
fn the_moving_phase_alone_values_placements_by_search() {
    // As Nine Men's Morris is served: layer files for the moving phase
    // only, placing positions searched down to them.
    let root = tempfile::tempdir().unwrap();
    solve(root.path(), "six");
    let dir = root.path().join("six");
    for l in layers(Variant::Six).into_iter().filter(|l| !l.is_moving()) {
        std::fs::remove_file(dir.join(l.file_name())).unwrap();
    }
    let s = serve(root.path());
    let (_, config) = get(&s, "/api/morris/config");
    let note = variant(&config, "six")["database"]["note"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        note.contains("moving phase solved") && note.contains("placing positions by search"),
        "{note}"
    );
    let g = MORRIS.new_game(&s, json!({"variant": "six", "opponent": "human"}));
    let id = g["id"].as_str().unwrap();
    let (status, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["value"]["outcome"], "draw", "{p}");
    assert_eq!(p["actions"].as_array().unwrap().len(), 16, "{p}");
    MORRIS.play_ok(&s, id, "a1");
    let (_, p) = get(&s, &format!("/api/morris/games/{id}/perfect"));
    assert_eq!(p["value"]["outcome"], "draw", "{p}");
    assert!(!strings(&p["best"]).is_empty(), "{p}");
}
