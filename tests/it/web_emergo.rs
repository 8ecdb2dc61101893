//! The Emergo page and its JSON API through the real binary (`yinsh-zero
//! serve` on 127.0.0.1, port 0): the boards of the three variants, refused
//! requests that leave the game as it was (400 malformed, 404 unknown game,
//! 409 out of turn, 422 illegal), a capture chain played one jump per
//! decision with only its continuations legal, undo of a whole chain, and
//! whole games against engines to their end. Every view is checked against
//! the library's own replay of the game's decisions.

use crate::common;

use common::web::{EMERGO, Server, error_of, get, post, strings};
use serde_json::{Value, json};
use yinsh_zero::game::{Color, Game, State};
use yinsh_zero::games::emergo::{Emergo, Position};

fn serve() -> Server {
    Server::start(&[&"--think-ms", &"500"])
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The legal decisions of a view.
fn legal_actions(view: &Value) -> Vec<String> {
    view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap().to_string())
        .collect()
}

/// The move list of a view, one token a turn.
fn turn_texts(view: &Value) -> Vec<String> {
    view["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect()
}

/// The position the game's decisions lead to, replayed by the library.
fn replay(view: &Value) -> Position {
    let game = Emergo::with_variant(view["variant"].as_str().unwrap()).unwrap();
    let mut pos = game.start();
    for a in strings(&view["history"]) {
        let action = game
            .parse_action(&pos, &a)
            .unwrap_or_else(|e| panic!("{a}: {e}"));
        pos.play(action).unwrap();
    }
    pos
}

/// Everything the view says that its decisions imply: the units, the men
/// in hand, who acts, the chain under way, the legal decisions with their
/// squares, the turns as the library writes them, and whether it is over.
fn check_view(view: &Value) {
    let pos = replay(view);
    let geo = pos.geometry();
    assert_eq!(view["side"], geo.side);
    let units: Vec<Value> = geo
        .playable()
        .filter_map(|c| {
            let u = pos.unit_at(c)?;
            Some(json!({
                "square": geo.square(c).to_string(),
                "owner": colour(u.owner),
                "controllers": u.controllers,
                "prisoners": u.prisoners,
                "text": u.to_string(),
            }))
        })
        .collect();
    assert_eq!(view["board"]["units"], json!(units), "{view}");
    for c in Color::BOTH {
        assert_eq!(view["board"]["hand"][colour(c)], pos.reserve(c));
        assert_eq!(view["board"]["material"][colour(c)], pos.material(c));
    }
    // Nothing leaves the game.
    let men = u32::from(pos.variant().men());
    assert_eq!(
        pos.material(Color::White) + pos.material(Color::Black),
        2 * men
    );
    assert_eq!(view["ply"], pos.ply());
    assert_eq!(view["turn"], pos.turns());
    assert_eq!(view["quiet_turns"], pos.quiet_turns());
    assert_eq!(
        view["chain"],
        match pos.chain() {
            Some((s, _)) => json!(s.to_string()),
            None => Value::Null,
        }
    );
    assert_eq!(view["outcome"].is_object(), pos.is_over(), "{view}");
    let legal = view["legal"].as_array().unwrap();
    let got = legal_actions(view);
    let want: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    assert_eq!(got, want);
    if pos.is_over() {
        assert_eq!(view["to_act"], Value::Null);
        assert_eq!(view["phase"], "over");
    } else {
        assert_eq!(view["to_act"], colour(pos.to_act()));
    }
    for l in legal {
        let action = l["action"].as_str().unwrap();
        match l["kind"].as_str().unwrap() {
            "enter" => {
                assert_eq!(format!("@{}", l["to"].as_str().unwrap()), action);
                assert_eq!(view["phase"], "enter", "{view}");
            }
            "step" => {
                assert_eq!(
                    format!(
                        "{}-{}",
                        l["from"].as_str().unwrap(),
                        l["to"].as_str().unwrap()
                    ),
                    action
                );
                assert_eq!(view["phase"], "move", "{view}");
            }
            "jump" => {
                assert_eq!(
                    format!(
                        "{}x{}",
                        l["from"].as_str().unwrap(),
                        l["to"].as_str().unwrap()
                    ),
                    action
                );
                let over = l["over"].as_str().unwrap();
                let unit = units.iter().find(|u| u["square"] == over).unwrap();
                assert_ne!(unit["owner"], view["to_act"], "{l}: jumps its own unit");
                let phase = if view["chain"].is_null() {
                    "capture"
                } else {
                    "chain"
                };
                assert_eq!(view["phase"], phase, "{view}");
                if let Some(chain) = view["chain"].as_str() {
                    assert_eq!(l["from"], chain, "only the chain's unit jumps on");
                }
            }
            other => panic!("unknown kind {other} in {l}"),
        }
    }
    // The turns are the library's record of the game, a chain one token.
    let game = Emergo::new(pos.variant());
    let actions = game
        .parse_game(&game.start(), &strings(&view["history"]).join(" "))
        .unwrap();
    let record = game.format_game(&game.start(), &actions);
    assert_eq!(turn_texts(view).join(" "), record);
}

#[test]
fn the_page_the_boards_and_refused_requests() {
    let s = serve();
    let (status, page) = get(&s, "/emergo");
    assert_eq!(status, 200);
    let page = page.as_str().unwrap();
    assert!(page.contains("/assets/emergo.js") && page.contains("/assets/page.js"));
    let (status, script) = get(&s, "/assets/emergo.js");
    assert_eq!(status, 200);
    assert!(script.as_str().unwrap().contains("/api/emergo/games"));
    // Every page links to the Emergo page.
    for path in ["/", "/rules", "/dashboard", "/morris", "/grid", "/emergo"] {
        let (status, page) = get(&s, path);
        assert_eq!(status, 200, "{path}");
        assert!(
            page.as_str().unwrap().contains("href=\"/emergo\""),
            "{path}"
        );
    }

    let (status, config) = get(&s, "/api/emergo/config");
    assert_eq!(status, 200, "{config}");
    let variants = config["variants"].as_array().unwrap();
    let summary: Vec<(String, u64, usize, String, u64, String)> = variants
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["side"].as_u64().unwrap(),
                v["squares"].as_array().unwrap().len(),
                v["centre"].as_str().unwrap().to_string(),
                v["men"].as_u64().unwrap(),
                v["blocked"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("standard", 9, 41, "e5", 12, "draw"),
        ("blocked-loses", 9, 41, "e5", 12, "loss"),
        ("small", 7, 25, "d4", 8, "draw"),
    ];
    assert_eq!(summary.len(), want.len());
    for (got, want) in summary.iter().zip(want) {
        assert_eq!(
            (
                got.0.as_str(),
                got.1,
                got.2,
                got.3.as_str(),
                got.4,
                got.5.as_str()
            ),
            want
        );
    }
    assert!(strings(&variants[0]["squares"]).contains(&"a1".to_string()));
    assert!(!strings(&variants[0]["squares"]).contains(&"b1".to_string()));
    let suggested = strings(&config["suggestions"]);
    assert_eq!(config["default_opponent"], suggested[0].as_str());
    for spec in ["alphabeta:depth=2", "random", "human"] {
        assert!(suggested.contains(&spec.to_string()), "{suggested:?}");
    }
    // The network this project ships is offered, and plays its decision.
    let shipped = "net-mcts:net=emergo";
    assert!(suggested.contains(&shipped.to_string()), "{suggested:?}");
    let g = EMERGO.new_game(&s, json!({"opponent": shipped, "seed": 5}));
    let id = g["id"].as_str().unwrap().to_string();
    let first = legal_actions(&g)[0].clone();
    EMERGO.play_ok(&s, &id, &first);
    let (status, answer) = EMERGO.engine(&s, &id);
    assert_eq!(status, 200, "{answer}");
    let g = &answer["game"];
    assert_eq!(strings(&g["history"]).len(), 2, "{g}");
    assert_eq!(replay(g).to_act(), Color::White, "{g}");
    let players: Vec<&str> = config["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(players.contains(&"net-mcts") && players.contains(&"alphabeta"));

    // A new game with nothing asked: standard, White, the first suggestion.
    let g = EMERGO.new_game(&s, json!({}));
    assert_eq!(g["variant"], "standard");
    assert_eq!(g["title"], "Emergo");
    assert_eq!(g["human"], "white");
    assert!(
        g["opponent"]
            .as_str()
            .unwrap()
            .starts_with(suggested[0].as_str()),
        "{g}"
    );
    assert_eq!(g["to_act"], "white");
    assert_eq!(g["phase"], "enter");
    assert_eq!(g["engine_to_act"], false);
    assert_eq!(g["can_undo"], false);
    assert_eq!(g["board"]["hand"], json!({"white": 12, "black": 12}));
    assert_eq!(
        g["legal"].as_array().unwrap().len(),
        40,
        "all but the centre"
    );
    check_view(&g);

    // Bad new-game requests: each a 400 naming the problem.
    for (body, words) in [
        (json!({"variant": "huge"}), "standard, blocked-loses, small"),
        (json!({"opponent": "nosuch"}), "unknown player"),
        (json!({"opponent": "alphabeta:depth=x"}), "depth"),
        (json!({"opponent": "alphabeta:time=9000"}), "at most 500 ms"),
        (json!({"opponent": "net-mcts"}), "net=emergo"),
        (json!({"color": "green"}), "malformed request body"),
        (json!({"colour": "white"}), "unknown field"),
    ] {
        let (status, e) = post(&s, "/api/emergo/games", &body.to_string());
        assert_eq!(status, 400, "{body}: {e}");
        assert!(error_of(&e).contains(words), "{body}: {e}");
    }

    // Refused decisions, each leaving the game as it was.
    let g = EMERGO.new_game(&s, json!({"variant": "standard", "opponent": "human"}));
    let id = g["id"].as_str().unwrap().to_string();
    for (action, status, words) in [
        ("hello", 400, "not an action"),
        ("e5", 400, "not an action"),
        ("@zz", 400, "not a square name"),
        ("c3xe5xg3", 400, "one decision is one jump"),
        ("@e5", 422, "centre"),
        ("@b1", 422, "not a playable square"),
        ("@j1", 422, "off the 9x9 board"),
        ("c3-d4", 422, "no unit on c3"),
        ("a1xc3", 422, "no unit on a1"),
    ] {
        let (got, e) = EMERGO.play(&s, &id, action);
        assert_eq!(got, status, "{action}: {e}");
        assert!(error_of(&e).contains(words), "{action}: {e}");
        assert_eq!(EMERGO.game(&s, &id), g, "{action} changed the game");
    }
    let (status, e) = post(&s, &EMERGO.path(&id, "/play"), r#"{"decision":"@a1"}"#);
    assert_eq!(status, 400, "{e}");
    assert!(error_of(&e).contains("unknown field"), "{e}");
    let (status, e) = post(&s, &EMERGO.path(&id, "/play"), "{bad json");
    assert_eq!(status, 400, "{e}");
    let (status, e) = EMERGO.engine(&s, &id);
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("no engine"), "{e}");
    let (status, e) = EMERGO.undo(&s, &id);
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("nothing to undo"), "{e}");
    assert_eq!(EMERGO.game(&s, &id), g);

    // The entering ban: a man next to an enemy unit with the square
    // behind it empty could be jumped at once.
    EMERGO.play_ok(&s, &id, "@c3");
    let (status, e) = EMERGO.play(&s, &id, "@d4");
    assert_eq!(status, 422, "{e}");
    assert!(error_of(&e).contains("could jump"), "{e}");

    // Unknown games.
    for (method, path) in [
        ("GET", "/api/emergo/games/nope"),
        ("POST", "/api/emergo/games/nope/play"),
        ("POST", "/api/emergo/games/nope/engine"),
        ("POST", "/api/emergo/games/nope/undo"),
    ] {
        let (status, e) = common::web::request(&s, method, path, Some(r#"{"action":"@a1"}"#));
        assert_eq!(status, 404, "{path}: {e}");
        assert!(error_of(&e).contains("no game `nope`"), "{e}");
    }
}

/// Two humans play seeded decisions until a capture chain of two jumps or
/// more is under way: the chain is one decision per jump by the same
/// player, only its continuations are legal, anything else is refused, the
/// move list writes it as one turn, and undo takes the whole chain back.
#[test]
fn a_capture_chain_is_one_decision_per_jump_and_undo_takes_it_back_whole() {
    let s = serve();
    let mut found = None;
    'games: for seed in 0..40usize {
        let g = EMERGO.new_game(&s, json!({"variant": "standard", "opponent": "human"}));
        let id = g["id"].as_str().unwrap().to_string();
        let mut game = g;
        for k in 0..300usize {
            if game["outcome"].is_object() {
                break;
            }
            if !game["chain"].is_null() {
                found = Some((id, game));
                break 'games;
            }
            let legal = legal_actions(&game);
            game = EMERGO.play_ok(&s, &id, &legal[(k * 7 + seed * 13) % legal.len()]);
        }
    }
    let (id, game) = found.expect("no capture chain in 40 games");
    check_view(&game);
    let chain = game["chain"].as_str().unwrap().to_string();
    let player = game["to_act"].clone();
    let history = strings(&game["history"]);
    let first_jump = history.last().unwrap().clone();
    assert!(
        first_jump.ends_with(&format!("x{chain}")),
        "{first_jump} then {chain}"
    );
    assert_eq!(game["phase"], "chain");
    // The same player acts again; the turn so far is one token.
    let turns = game["turns"].as_array().unwrap();
    let last_turn = turns.last().unwrap();
    assert_eq!(last_turn["player"], player);
    assert_eq!(last_turn["text"], first_jump);
    // Nothing but the chain's next jumps.
    let legal = game["legal"].as_array().unwrap();
    assert!(
        legal
            .iter()
            .all(|l| l["kind"] == "jump" && l["from"] == chain.as_str())
    );
    let units: Vec<Value> = game["board"]["units"].as_array().unwrap().clone();
    let other = units
        .iter()
        .find(|u| u["owner"] == player && u["square"] != chain.as_str())
        .map(|u| u["square"].as_str().unwrap().to_string());
    let mut refused = vec![format!("@{}", "a1")];
    if let Some(sq) = other {
        refused.push(format!("{sq}x{sq}"));
    }
    for action in refused {
        let (status, e) = EMERGO.play(&s, &id, &action);
        assert!(status == 422 || status == 400, "{action}: {status} {e}");
        assert_eq!(EMERGO.game(&s, &id), game, "{action} changed the game");
    }
    // Jump on to the end of the chain.
    let mut g = game.clone();
    let mut jumps = vec![first_jump.clone()];
    while !g["chain"].is_null() {
        let next = g["legal"][0]["action"].as_str().unwrap().to_string();
        jumps.push(next.clone());
        g = EMERGO.play_ok(&s, &id, &next);
        check_view(&g);
    }
    assert!(jumps.len() >= 2);
    let turn = g["turns"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(turn["player"], player);
    let joined = jumps[0].clone()
        + &jumps[1..]
            .iter()
            .map(|j| format!("x{}", j.split('x').nth(1).unwrap()))
            .collect::<String>();
    assert_eq!(turn["text"], joined.as_str(), "{g}");
    if g["outcome"].is_null() {
        assert_ne!(g["to_act"], player);
    }
    // Undo (two humans): the whole turn, chain and all.
    let (status, back) = EMERGO.undo(&s, &id);
    assert_eq!(status, 200, "{back}");
    let before_turn = &history[..history.len() - 1];
    assert_eq!(strings(&back["history"]), before_turn);
    assert_eq!(back["chain"], Value::Null);
    assert_eq!(back["to_act"], player);
    check_view(&back);
    println!("chain {joined} after {}", before_turn.join(" "));
}

/// The human plays the first legal decision every turn, against an engine
/// that replies on its own (a whole chain in one reply), to the end.
fn play_to_the_end(s: &Server, variant: &str, color: &str, opponent: &str, seed: u64) -> Value {
    let g = EMERGO.new_game(
        s,
        json!({"variant": variant, "color": color, "opponent": opponent, "seed": seed}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    let mut game = g;
    let mut undone = false;
    for _ in 0..2000 {
        check_view(&game);
        if game["outcome"].is_object() {
            break;
        }
        if game["engine_to_act"] == true {
            let (status, e) = EMERGO.play(s, &id, "@a1");
            assert_eq!(status, 409, "{e}");
            assert!(error_of(&e).contains("engine's turn"), "{e}");
            let (status, answer) = EMERGO.engine(s, &id);
            assert_eq!(status, 200, "{answer}");
            let played = strings(&answer["played"]);
            assert!(!played.is_empty());
            game = answer["game"].clone();
            // The engine made its whole turn.
            assert!(
                game["outcome"].is_object() || game["engine_to_act"] == false,
                "{game}"
            );
            assert!(played.iter().skip(1).all(|a| a.contains('x')), "{played:?}");
            continue;
        }
        assert_eq!(game["to_act"], color);
        let (status, e) = EMERGO.engine(s, &id);
        assert_eq!(status, 409, "{e}");
        let action = game["legal"][0]["action"].as_str().unwrap().to_string();
        let before = strings(&game["history"]);
        game = EMERGO.play_ok(s, &id, &action);
        let one_decision = turn_texts(&game).last() == Some(&action);
        if !undone && before.len() >= 6 && one_decision && game["engine_to_act"] == true {
            // Undo takes back this turn of one decision; the engine has
            // not replied.
            let (status, g) = EMERGO.undo(s, &id);
            assert_eq!(status, 200, "{g}");
            assert_eq!(strings(&g["history"]), before);
            assert_eq!(g["can_undo"], true);
            undone = true;
            game = EMERGO.play_ok(s, &id, &action);
        }
    }
    assert!(undone, "undo was never tried");
    let outcome = &game["outcome"];
    assert!(outcome.is_object(), "the game did not end: {game}");
    // The library's verdict on the decisions played, in words.
    let end = replay(&game);
    let winner = end.result().expect("over").winner();
    assert_eq!(outcome["winner"], json!(winner.map(colour)));
    assert_eq!(outcome["reason"], end.end_reason().unwrap());
    let text = outcome["text"].as_str().unwrap();
    let lead = match winner {
        Some(Color::White) => "White wins: ",
        Some(Color::Black) => "Black wins: ",
        None => "Draw: ",
    };
    assert!(text.starts_with(lead), "{text}");
    assert_eq!(game["legal"], json!([]));
    let (status, e) = EMERGO.play(s, &id, "@a1");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("over"), "{e}");
    let (status, e) = EMERGO.engine(s, &id);
    assert_eq!(status, 409, "{e}");
    println!(
        "{variant}, {color} vs {opponent}: {text} after {} decisions: {}",
        game["history"].as_array().unwrap().len(),
        turn_texts(&game).join(" ")
    );
    game
}

#[test]
fn games_against_engines_run_to_their_end_with_undo() {
    let s = serve();
    let small = play_to_the_end(&s, "small", "black", "random", 7);
    assert_eq!(small["title"], "Emergo on 7 x 7");
    play_to_the_end(&s, "small", "white", "alphabeta:depth=2", 1);
    let blocked = play_to_the_end(&s, "blocked-loses", "white", "random", 3);
    assert_eq!(blocked["title"], "Emergo (a blocked player loses)");
}
