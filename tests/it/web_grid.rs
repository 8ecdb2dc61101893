//! The grid game's page and JSON API through the real binary
//! (`yinsh-zero serve` on 127.0.0.1, port 0): whole games against the
//! exact `solver` from either side, the highlighting data (Green's steps,
//! corner steps that lose, Player 2's empty points), the two charts'
//! series checked against what the moves imply, the solver's verdict,
//! errors that leave the game unchanged, and undo. Also the web module's
//! solver helpers: the optimal lines, and the node budget that keeps a deep
//! position from stalling the server.

use crate::common;

use std::collections::BTreeSet;
use std::time::Instant;

use common::web::{GRID, Server, error_of, get, post, strings};
use serde_json::{Value, json};
use yinsh_zero::game::{Color, Game, State};
use yinsh_zero::games::grid::solve::Solver;
use yinsh_zero::games::grid::web::{OptimalLine, SOLVER_NODES, chart_series, solve_position};
use yinsh_zero::games::grid::{Grid, Position};

fn serve() -> Server {
    Server::start(&[&"--think-ms", &"500"])
}

/// The engine's reply: one decision.
fn engine(s: &Server, id: &str) -> Value {
    let (status, answer) = GRID.engine(s, id);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["played"].as_array().unwrap().len(), 1, "{answer}");
    answer["game"].clone()
}

/// The position the game's move list leads to, replayed by the library.
fn replay(side: u8, history: &[String]) -> Position {
    let g = Grid::new(side);
    let mut pos = g.start();
    for a in history {
        let action = g
            .parse_action(&pos, a)
            .unwrap_or_else(|e| panic!("{a}: {e}"));
        pos.play(action).unwrap();
    }
    pos
}

fn name(pos: &Position, q: u8) -> String {
    pos.square(q).to_string()
}

/// Everything the view says that the move list implies: the board, the
/// legal actions with their points and corner flags, who acts, and the
/// played series (start, then after each move of Player 1).
fn check_view(view: &Value) {
    let side = view["side"].as_u64().unwrap() as u8;
    let history = strings(&view["history"]);
    let pos = replay(side, &history);
    let board = &view["board"];
    assert_eq!(board["green"], name(&pos, pos.green()));
    let red: BTreeSet<String> = strings(&board["red"]).into_iter().collect();
    let want: BTreeSet<String> = (0..side * side)
        .filter(|&q| pos.red() & (1 << q) != 0)
        .map(|q| name(&pos, q))
        .collect();
    assert_eq!(red, want);
    assert_eq!(red.len() as u32, pos.ply(), "one Red stone per decision");
    assert_eq!(strings(&board["corners"]).len(), 4);
    assert_eq!(view["ply"], pos.ply());
    assert_eq!(view["outcome"].is_object(), pos.is_over());

    let legal = view["legal"].as_array().unwrap();
    if pos.is_over() {
        assert!(legal.is_empty());
        assert_eq!(view["to_act"], Value::Null);
    } else if pos.to_act() == Color::White {
        assert_eq!(view["to_act"], "white");
        // Green's free neighbours, each marked when it is a corner.
        let steps: BTreeSet<String> = pos
            .neighbours(pos.green())
            .into_iter()
            .filter(|&q| pos.red() & (1 << q) == 0)
            .map(|q| name(&pos, q))
            .collect();
        let got: BTreeSet<String> = legal
            .iter()
            .map(|l| l["point"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, steps);
        assert!(legal.len() <= 4);
        for l in legal {
            let point = l["point"].as_str().unwrap();
            assert_eq!(l["action"], format!("G{point}"));
            let q = pos
                .cell(yinsh_zero::games::grid::Square::parse(point).unwrap())
                .unwrap();
            assert_eq!(l["loses"], pos.is_corner(q), "{l}");
        }
    } else {
        assert_eq!(view["to_act"], "black");
        // Every empty point, Green's excluded, corners included.
        let empty: BTreeSet<String> = (0..side * side)
            .filter(|&q| pos.empty() & (1 << q) != 0)
            .map(|q| name(&pos, q))
            .collect();
        let got: BTreeSet<String> = legal
            .iter()
            .map(|l| l["action"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, empty);
        assert_eq!(
            legal.len(),
            usize::from(side) * usize::from(side) - 1 - red.len()
        );
        assert!(!got.contains(&name(&pos, pos.green())));
        for l in legal {
            assert_eq!(l["point"], l["action"]);
            assert_eq!(l["loses"], false);
        }
    }

    // The played series: the start, then after each move of Player 1.
    let played = view["charts"]["played"].as_array().unwrap();
    let steps: Vec<&String> = history.iter().filter(|a| a.starts_with('G')).collect();
    assert_eq!(played.len(), steps.len() + 1, "{played:?}");
    let g = Grid::new(side);
    let mut p = g.start();
    let mut k = 0;
    let check = |pt: &Value, p: &Position, k: u32| {
        assert_eq!(pt["p1_moves"], k);
        assert_eq!(pt["ply"], p.ply());
        assert_eq!(pt["red"], p.red().count_ones());
        // After Player 1's k-th move, 2k - 1 decisions have each left one stone.
        assert_eq!(pt["red"], if k == 0 { 0 } else { 2 * k - 1 });
        assert_eq!(pt["distance"], p.corner_distance(p.green()));
    };
    check(&played[0], &p, 0);
    assert_eq!(played[0]["distance"], u32::from(side - 1));
    for a in &history {
        let action = g.parse_action(&p, a).unwrap();
        p.play(action).unwrap();
        if a.starts_with('G') {
            k += 1;
            check(&played[k as usize], &p, k);
        }
    }
}

/// The optimal line's series against a replay of its moves, and its value
/// against the solver's.
fn check_optimal(view: &Value) {
    let side = view["side"].as_u64().unwrap() as u8;
    let g = Grid::new(side);
    let moves = strings(&view["optimal"]["moves"]);
    let series = view["charts"]["optimal"].as_array().unwrap();
    let end = replay(side, &moves);
    assert!(end.is_over());
    assert_eq!(end.result().unwrap().winner(), Some(Color::Black));
    let v = Solver::new(g).value(&g.start());
    assert_eq!(view["optimal"]["value"]["p1_moves"], v.p1_moves);
    assert_eq!(view["optimal"]["value"]["winner"], "black");
    assert_eq!(view["optimal"]["red_at_end"], end.red().count_ones());
    assert_eq!(end.red().count_ones(), 2 * v.p1_moves - 1);
    assert_eq!(series.len() as u32, v.p1_moves + 1);
    let mut p = g.start();
    let mut i = 0;
    assert_eq!(series[0]["distance"], p.corner_distance(p.green()));
    for a in &moves {
        p.play(g.parse_action(&p, a).unwrap()).unwrap();
        if a.starts_with('G') {
            i += 1;
            assert_eq!(series[i]["p1_moves"], i);
            assert_eq!(series[i]["red"], p.red().count_ones());
            assert_eq!(series[i]["distance"], p.corner_distance(p.green()));
        }
    }
    assert_eq!(series.last().unwrap()["distance"], 0);
}

/// The verdict on the position now, against the solver's own value.
fn check_verdict(view: &Value) {
    if view["outcome"].is_object() {
        assert_eq!(view["solver"], Value::Null);
        return;
    }
    let side = view["side"].as_u64().unwrap() as u8;
    let pos = replay(side, &strings(&view["history"]));
    let v = Solver::new(Grid::new(side)).value(&pos);
    let solver = &view["solver"];
    assert_eq!(solver["ply"], pos.ply(), "{solver}");
    let value = &solver["value"];
    assert_eq!(value["p1_moves"], v.p1_moves, "{solver}");
    assert_eq!(
        value["winner"],
        if v.winner == Color::White {
            "white"
        } else {
            "black"
        }
    );
    let legal: BTreeSet<String> = view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap().to_string())
        .collect();
    let best = strings(&solver["best"]);
    assert!(!best.is_empty());
    assert!(best.iter().all(|b| legal.contains(b)), "{best:?}");
}

#[test]
fn the_page_the_boards_and_refused_requests() {
    let s = serve();
    let (status, page) = get(&s, "/grid");
    assert_eq!(status, 200);
    let page = page.as_str().unwrap();
    assert!(page.contains("/assets/grid.js") && page.contains("chart-red"));
    let (status, script) = get(&s, "/assets/grid.js");
    assert_eq!(status, 200);
    assert!(script.as_str().unwrap().contains("/api/grid/games"));

    let (status, config) = get(&s, "/api/grid/config");
    assert_eq!(status, 200, "{config}");
    let variants = config["variants"].as_array().unwrap();
    let sides: Vec<u64> = variants
        .iter()
        .map(|v| v["side"].as_u64().unwrap())
        .collect();
    assert_eq!(sides, [9, 5, 7, 11]);
    for v in variants {
        assert_eq!(strings(&v["corners"]).len(), 4, "{v}");
    }
    assert_eq!(variants[0]["start"], "e5");
    assert_eq!(config["default_opponent"], "solver");
    assert_eq!(strings(&config["suggestions"])[0], "solver");
    // The network this project ships is offered, and as Player 2 it
    // answers a step of Green with a stone.
    let shipped = "net-mcts:net=grid";
    assert!(
        strings(&config["suggestions"]).iter().any(|o| o == shipped),
        "{config}"
    );
    let g = GRID.new_game(
        &s,
        json!({"opponent": shipped, "color": "white", "seed": 3}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    assert!(g["opponent"].as_str().unwrap().starts_with(shipped), "{g}");
    GRID.play_ok(&s, &id, "Ge6");
    let g = engine(&s, &id);
    assert_eq!(strings(&g["history"]).len(), 2, "{g}");
    assert!(g["outcome"].is_null(), "{g}");
    assert!(
        config["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "solver")
    );

    // A new game with nothing asked: 9 x 9, Player 1 against the solver.
    let g = GRID.new_game(&s, json!({}));
    assert_eq!(g["variant"], "9x9");
    assert_eq!(g["human"], "white");
    assert_eq!(g["opponent"], "solver");
    assert_eq!(g["to_act"], "white");
    assert_eq!(g["engine_to_act"], false);
    assert_eq!(g["can_undo"], false);
    check_view(&g);
    check_optimal(&g);
    check_verdict(&g);
    assert_eq!(g["solver"]["value"]["p1_moves"], 8);
    assert_eq!(g["optimal"]["red_at_end"], 15);
    let id = g["id"].as_str().unwrap().to_string();

    // Refused requests, each leaving the game as it was.
    for (body, status, words) in [
        (json!({"variant": "8x8"}), 400, "known"),
        (json!({"opponent": "nonsense"}), 400, "bad opponent"),
        (json!({"opponent": "alphabeta:time=99999"}), 400, "at most"),
        (json!({"color": "green"}), 400, "malformed"),
        (json!({"colour": "white"}), 400, "malformed"),
    ] {
        let (got, e) = post(&s, "/api/grid/games", &body.to_string());
        assert_eq!(got, status, "{body}: {e}");
        assert!(error_of(&e).contains(words), "{body}: {e}");
    }
    let before = GRID.game(&s, &id);
    for (action, status, words) in [
        ("xyz", 400, "no grid action"),
        ("ge6", 400, "no grid action"),
        ("e6", 422, "not legal"),
        ("Gk5", 422, "not a point"),
        ("Ge7", 422, "not next to Green"),
    ] {
        let (got, e) = GRID.play(&s, &id, action);
        assert_eq!(got, status, "{action}: {e}");
        assert!(error_of(&e).contains(words), "{action}: {e}");
    }
    let (got, e) = post(
        &s,
        &format!("/api/grid/games/{id}/play"),
        "{\"move\":\"Ge6\"}",
    );
    assert_eq!(got, 400, "{e}");
    let (got, e) = post(&s, &format!("/api/grid/games/{id}/engine"), "");
    assert_eq!(got, 409, "{e}");
    assert!(error_of(&e).contains("your turn"), "{e}");
    let (got, e) = post(&s, &format!("/api/grid/games/{id}/undo"), "");
    assert_eq!(got, 409, "{e}");
    assert!(error_of(&e).contains("nothing to undo"), "{e}");
    let after = GRID.game(&s, &id);
    assert_eq!(after["history"], before["history"]);
    assert_eq!(after["board"]["red"], before["board"]["red"]);
    for path in [
        "/api/grid/games/nope",
        "/api/grid/games/nope/play",
        "/api/grid/games/nope/undo",
    ] {
        let (status, e) = if path.ends_with("nope") {
            get(&s, path)
        } else {
            post(&s, path, "{\"action\":\"Ge6\"}")
        };
        assert_eq!(status, 404, "{path}: {e}");
        assert!(error_of(&e).contains("no game"), "{e}");
    }

    // Every board size starts, each with its optimal line.
    for (variant, moves, red) in [("5x5", 4, 7), ("7x7", 6, 11), ("11x11", 10, 19)] {
        let g = GRID.new_game(
            &s,
            json!({"variant": variant, "opponent": "random", "seed": 1}),
        );
        assert_eq!(g["optimal"]["value"]["p1_moves"], moves, "{variant}");
        assert_eq!(g["optimal"]["red_at_end"], red, "{variant}");
        assert_eq!(g["solver"]["value"]["p1_moves"], moves, "{variant}");
        check_view(&g);
        check_optimal(&g);
    }
}

/// Player 2 against the solver on 9 x 9, playing the solver's own best
/// placements: Player 2 wins in the olympiad's 8 moves of Player 1 with
/// 15 Red stones, and the played charts lie on the optimal ones.
#[test]
fn player_2_beats_the_solver_with_its_own_advice_and_undo() {
    let s = serve();
    let g = GRID.new_game(
        &s,
        json!({"variant": "9x9", "color": "black", "opponent": "solver", "seed": 3}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["engine_to_act"], true);
    check_view(&g);
    check_verdict(&g);
    let (status, e) = GRID.play(&s, &id, "e4");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("engine's turn"), "{e}");

    let mut game = g;
    let mut undone = 0;
    for _ in 0..200 {
        if game["outcome"].is_object() {
            break;
        }
        if game["engine_to_act"] == true {
            game = engine(&s, &id);
        } else {
            assert_eq!(game["to_act"], "black");
            let best = strings(&game["solver"]["best"]);
            let before = strings(&game["history"]);
            game = GRID.play_ok(&s, &id, &best[0]);
            if undone < 2 && before.len() >= 3 {
                // Once before the engine answers (one decision back), once
                // after (both back).
                if undone == 1 {
                    game = engine(&s, &id);
                    check_view(&game);
                }
                let (status, g) = post(&s, &format!("/api/grid/games/{id}/undo"), "");
                assert_eq!(status, 200, "{g}");
                assert_eq!(strings(&g["history"]), before);
                assert_eq!(g["to_act"], "black");
                check_view(&g);
                check_verdict(&g);
                undone += 1;
                game = GRID.play_ok(&s, &id, &best[0]);
            }
        }
        check_view(&game);
        check_verdict(&game);
    }
    assert_eq!(undone, 2);
    let outcome = &game["outcome"];
    assert_eq!(
        outcome["text"], "Player 2 wins: Green entered a corner",
        "{game}"
    );
    assert_eq!(outcome["winner"], "black");
    assert_eq!(outcome["reason"], "corner");
    let history = strings(&game["history"]);
    assert_eq!(history.len(), 15, "{history:?}");
    assert_eq!(game["board"]["red"].as_array().unwrap().len(), 15);
    check_optimal(&game);
    // Both sides played perfectly: the charts coincide point for point in
    // the Red stones and in length.
    let played = game["charts"]["played"].as_array().unwrap();
    let optimal = game["charts"]["optimal"].as_array().unwrap();
    assert_eq!(played.len(), 9);
    assert_eq!(played.len(), optimal.len());
    for (p, o) in played.iter().zip(optimal) {
        assert_eq!(p["red"], o["red"]);
        assert_eq!(p["p1_moves"], o["p1_moves"]);
    }
    assert_eq!(played.last().unwrap()["distance"], 0);
    assert_eq!(game["can_undo"], true);
    let (status, e) = GRID.play(&s, &id, "a1");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("over"), "{e}");
    let (status, e) = post(&s, &format!("/api/grid/games/{id}/engine"), "");
    assert_eq!(status, 409, "{e}");
    println!("9x9 as Player 2: {}", history.join(" "));
}

/// Player 1 against the solver on 5 x 5, stepping away from corners while
/// it can: the corner steps are flagged, the solver wins in 4 moves of
/// Player 1 at the latest, and undo takes back a step with the reply.
#[test]
fn player_1_loses_to_the_solver_on_5x5() {
    let s = serve();
    let g = GRID.new_game(
        &s,
        json!({"variant": "5x5", "color": "white", "opponent": "solver", "seed": 5}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    let mut game = g;
    let mut corner_flags = 0;
    let mut undone = false;
    for _ in 0..100 {
        check_view(&game);
        check_verdict(&game);
        if game["outcome"].is_object() {
            break;
        }
        assert_eq!(game["engine_to_act"], false, "the engine answers at once");
        let legal = game["legal"].as_array().unwrap();
        corner_flags += legal.iter().filter(|l| l["loses"] == true).count();
        // The solver's slowest loss when it has one, else a safe step.
        let best = strings(&game["solver"]["best"]);
        let action = best[0].clone();
        let before = strings(&game["history"]);
        game = GRID.play_ok(&s, &id, &action);
        if !game["outcome"].is_object() {
            assert_eq!(game["engine_to_act"], true);
            game = engine(&s, &id);
            if !undone && !game["outcome"].is_object() {
                let (status, g) = post(&s, &format!("/api/grid/games/{id}/undo"), "");
                assert_eq!(status, 200, "{g}");
                assert_eq!(strings(&g["history"]), before);
                undone = true;
                GRID.play_ok(&s, &id, &action);
                game = engine(&s, &id);
            }
        }
    }
    assert!(undone);
    assert!(corner_flags > 0, "no step onto a corner was ever offered");
    assert_eq!(game["outcome"]["winner"], "black", "{game}");
    let played = game["charts"]["played"].as_array().unwrap();
    assert_eq!(played.len(), 5, "Player 1 delayed the loss to 4 moves");
    assert_eq!(game["optimal"]["red_at_end"], 7);
}

/// Games of two humans: undo takes back one decision, there is no engine
/// to ask, and a position too deep for the solver is named, not waited for.
#[test]
fn two_humans_take_turns_and_undo_one_decision() {
    let s = serve();
    let g = GRID.new_game(&s, json!({"variant": "7x7", "opponent": "human"}));
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["opponent"], "human");
    let (status, e) = post(&s, &format!("/api/grid/games/{id}/engine"), "");
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("no engine"), "{e}");
    let g = GRID.play_ok(&s, &id, "Gd5");
    assert_eq!(g["to_act"], "black");
    let g = GRID.play_ok(&s, &id, "c5");
    check_view(&g);
    check_verdict(&g);
    let (status, g) = post(&s, &format!("/api/grid/games/{id}/undo"), "");
    assert_eq!(status, 200, "{g}");
    assert_eq!(strings(&g["history"]), ["Gd5"]);
    assert_eq!(g["to_act"], "black");
    check_view(&g);

    // A position too deep for the solver's budget (Player 2 played at
    // random): the verdict says so, in seconds, and is kept.
    let g = GRID.new_game(&s, json!({"variant": "7x7", "opponent": "human"}));
    let id = g["id"].as_str().unwrap().to_string();
    let mut g = g;
    for a in "Ge4 c1 Gf4 d5 Gg4 d7 Gg5 b2 Gf5 b7 Ge5 a3 Ge6 a7".split(' ') {
        g = GRID.play_ok(&s, &id, a);
    }
    check_view(&g);
    let solver = &g["solver"];
    assert_eq!(solver["ply"], 14, "{solver}");
    assert_eq!(solver["value"], Value::Null, "{solver}");
    assert_eq!(solver["best"], Value::Null, "{solver}");
    assert!(
        solver["text"].as_str().unwrap().starts_with("Too deep"),
        "{solver}"
    );
    let t = Instant::now();
    let again = GRID.game(&s, &id);
    assert_eq!(again["solver"], *solver);
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
    // The legal steps are still offered and played.
    let g = GRID.play_ok(&s, &id, "Gd6");
    check_view(&g);
}

#[test]
fn the_optimal_lines_are_the_readmes() {
    for (side, moves, red) in [(5, 4, 7), (7, 6, 11), (9, 8, 15), (11, 10, 19)] {
        let line = OptimalLine::solve(Grid::new(side));
        assert_eq!(line.value.winner, Color::Black);
        assert_eq!(line.value.p1_moves, moves, "{side}");
        assert_eq!(line.red_at_end, red, "{side}");
        assert_eq!(line.series.len() as u32, moves + 1, "{side}");
        assert_eq!(line.series.last().unwrap().distance, 0);
    }
    // The verdict on every start fits the budget with room to spare.
    for side in [5, 7, 9, 11] {
        let g = Grid::new(side);
        let t = Instant::now();
        let view = solve_position(g, &g.start(), SOLVER_NODES);
        println!(
            "{side}x{side} start: {} in {} nodes, {:?}; best {:?}",
            view.text,
            view.nodes,
            t.elapsed(),
            view.best
        );
        assert!(view.best.is_some(), "{}", view.text);
        assert!(view.nodes < SOLVER_NODES / 2, "{}", view.nodes);
    }
    let nine = OptimalLine::solve(Grid::new(9));
    assert_eq!(
        nine.moves.join(" "),
        "Ge6 d6 Ge7 d7 Ge8 d8 Ge9 d9 Gf9 f8 Gg9 g8 Gh9 h8 Gi9"
    );
    let g = Grid::new(9);
    let start = g.start();
    let actions: Vec<_> = nine
        .moves
        .iter()
        .scan(start, |p, m| {
            let a = g.parse_action(p, m).unwrap();
            p.play(a).unwrap();
            Some(a)
        })
        .collect();
    assert_eq!(chart_series(&start, &actions), nine.series);
}

#[test]
fn verdicts_within_the_budget_are_the_solvers() {
    let g = Grid::new(7);
    let mut solver = Solver::new(g);
    let mut pos = g.start();
    for a in solver.line(&pos) {
        let v = solver.value(&pos);
        let view = solve_position(g, &pos, SOLVER_NODES);
        let got = view.value.expect("an optimal line fits the budget");
        assert_eq!((got.winner, got.p1_moves), (v.winner, v.p1_moves));
        let mut best: Vec<String> = solver
            .best_actions(&pos)
            .iter()
            .map(|(a, _)| a.to_string())
            .collect();
        let mut mine = view.best.expect("within the budget");
        best.sort();
        mine.sort();
        assert_eq!(mine, best);
        pos.play(a).unwrap();
    }
}

/// Positions where Player 2 blundered and Player 1 wins can take the
/// solver minutes; the verdict gives up past its budget instead.
#[test]
fn a_deep_position_is_given_up_not_waited_for() {
    for (side, moves) in [
        // Player 2 played at random; the solver player took 9 s and 5 s
        // (release) over Player 1's next move.
        (7, "Ge4 c1 Gf4 d5 Gg4 d7 Gg5 b2 Gf5 b7 Ge5 a3 Ge6 a7"),
        (
            9,
            "Gf5 i4 Gg5 b2 Gh5 h4 Gh6 d8 Gg6 a5 Gf6 a1 Ge6 c4 Gd6 i5 Gd5 i8 Gd4 g9 Ge4 h1 Ge3 d1",
        ),
    ] {
        let history: Vec<String> = moves.split(' ').map(String::from).collect();
        let pos = replay(side, &history);
        let t = Instant::now();
        let small = solve_position(Grid::new(side), &pos, 20_000);
        println!(
            "{side}x{side}, budget 20000: {:?} after {} nodes, {:?}",
            small.value.as_ref().map(|v| &v.text),
            small.nodes,
            t.elapsed()
        );
        assert!(small.value.is_none(), "{}", small.text);
        assert!(small.nodes < 200_000, "{}", small.nodes);
        assert!(small.text.starts_with("Too deep"), "{}", small.text);
        let t = Instant::now();
        let full = solve_position(Grid::new(side), &pos, SOLVER_NODES);
        println!(
            "{side}x{side}, budget {SOLVER_NODES}: {:?}, best {:?} after {} nodes, {:?}",
            full.value.as_ref().map(|v| &v.text),
            full.best,
            full.nodes,
            t.elapsed()
        );
        // The solver counts the budget position by position: it
        // overshoots by little.
        assert!(
            full.nodes < SOLVER_NODES + SOLVER_NODES / 5,
            "{}",
            full.nodes
        );
    }
}
