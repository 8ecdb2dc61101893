//! BoardSpace records: the two shipped games through the library and the
//! real binary, and broken records rejected with the step that broke them.

use crate::common;

use std::path::Path;

use common::cli::{failed, succeeded, yz, yz_in};
use yinsh_zero::games::yinsh::notation::{format_game, parse_game};
use yinsh_zero::games::yinsh::sgf::{SgfError, parse_sgf};
use yinsh_zero::games::yinsh::{Action, Color, Position};

const DRMIH: &str = "tests/data/Y-DrMih-Dumbot-2026-02-20-0858.sgf";
const PHIULBRICH: &str = "tests/data/Y-phiulbrich-BestBot-2026-03-21-2221.sgf";

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn replay_json(path: &str) -> serde_json::Value {
    let stdout = succeeded(&yz_in(env!("CARGO_MANIFEST_DIR"), ["sgf", path, "--json"]));
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn drmih_dumbot_black_removes_its_third_ring() {
    // RE says (in Russian) that Dumbot, P1 = Black, won. The rules agree: at
    // step 129 Black removes its third ring (E6, J9, F6) while White has
    // removed two (E10, F10), which ends the game at once. Decisions: 10
    // placements, 36 ring moves, 5 rows and 5 rings = 56.
    let json = replay_json(DRMIH);
    assert_eq!(
        json,
        serde_json::json!({
            "steps": 56,
            "result": "black",
            "reason": "three_rings",
            "rings_removed": {"white": 2, "black": 3}
        })
    );
    let game = parse_sgf(&read(DRMIH)).unwrap();
    assert_eq!(game.resigned, None);
    let last = game.steps.last().unwrap();
    assert_eq!((last.number, last.player), (129, Color::Black));
    assert_eq!(last.action, Action::RemoveRing("f6".parse().unwrap()));
    // The two-step move is one decision, numbered by its drop.
    assert_eq!(game.steps[10].number, 22);
    assert_eq!(game.steps[10].action.to_string(), "g11-g9");
    assert!(
        game.properties
            .iter()
            .any(|(k, v)| k == "SU" && v == "Yinsh")
    );
    // The whole game reads back from its official notation.
    let start = Position::new();
    let text = format_game(&start, &game.actions);
    assert_eq!(parse_game(&start, &text).unwrap(), game.actions);
    assert!(text.contains("h9-h10;xh5-h9xe10"), "{text}");
}

#[test]
fn phiulbrich_bestbot_white_resigns() {
    // P0 = White resigns at step 109 with one ring removed on each side.
    // Decisions: 10 placements, 32 ring moves, 2 rows and 2 rings = 46.
    let json = replay_json(PHIULBRICH);
    assert_eq!(
        json,
        serde_json::json!({
            "steps": 46,
            "result": "black",
            "reason": "resign",
            "rings_removed": {"white": 1, "black": 1}
        })
    );
    let game = parse_sgf(&read(PHIULBRICH)).unwrap();
    assert_eq!(game.resigned, Some(Color::White));
    assert!(game.final_position.is_over());
}

#[test]
fn replay_prints_steps_boards_and_the_game() {
    let stdout = succeeded(&yz_in(env!("CARGO_MANIFEST_DIR"), ["sgf", PHIULBRICH]));
    assert!(stdout.contains("step 1 (white): j11"), "{stdout}");
    assert!(stdout.contains("step 98 (white): xe9-i9"), "{stdout}");
    assert!(stdout.contains("game: j11 e10 "), "{stdout}");
    assert!(stdout.contains("result: black (resign)"), "{stdout}");
}

fn step_error(text: &str) -> (String, String, String) {
    match parse_sgf(text) {
        Err(SgfError::Step { number, text, why }) => (number, text, why.to_string()),
        other => panic!("expected a step error, got {other:?}"),
    }
}

#[test]
fn an_illegal_step_is_named() {
    // Step 29 moves Black's E9 ring onto G11, where White left a marker at
    // step 21.
    let record = read(DRMIH).replace("29 move E 9 E 5", "29 move E 9 G 11");
    let (number, text, why) = step_error(&record);
    assert_eq!((number.as_str(), text.as_str()), ("29", "29 move E 9 G 11"));
    assert!(why.contains("cannot reach g11"), "{why}");
    let msg = parse_sgf(&record).unwrap_err().to_string();
    assert!(msg.starts_with("step 29 `29 move E 9 G 11`"), "{msg}");
}

#[test]
fn a_malformed_step_is_named() {
    let record = read(DRMIH).replace("79 remove w H 5 H 9", "79 remove w H 5 H 8");
    let (number, text, why) = step_error(&record);
    assert_eq!(
        (number.as_str(), text.as_str()),
        ("79", "79 remove w H 5 H 8")
    );
    assert!(why.contains("five points"), "{why}");
    let record = read(DRMIH).replace("24 move C 6 C 1", "24 jump C 6 C 1");
    let (number, text, why) = step_error(&record);
    assert_eq!((number.as_str(), text.as_str()), ("24", "24 jump C 6 C 1"));
    assert!(why.contains("malformed"), "{why}");
}

#[test]
fn the_wrong_player_or_colour_is_named() {
    let record = read(DRMIH).replace("P1[24 move C 6 C 1]", "P0[24 move C 6 C 1]");
    let (number, _, why) = step_error(&record);
    assert_eq!(number, "24");
    assert!(why.contains("black must decide"), "{why}");
    let record = read(DRMIH).replace("3 place br  G 6", "3 place wr  G 6");
    let (number, _, why) = step_error(&record);
    assert_eq!(number, "3");
    assert!(why.contains("names white's pieces"), "{why}");
}

#[test]
fn a_pick_without_drop_is_named() {
    // The next board-changing step finds the ring still in the air.
    let record = read(DRMIH).replace("P0[22 drop board  G 9]", "P0[22 Done]");
    let (number, text, why) = step_error(&record);
    assert_eq!((number.as_str(), text.as_str()), ("24", "24 move C 6 C 1"));
    assert!(why.contains("picked up at g11"), "{why}");
    // A record that ends there names the pick itself.
    let cut = read(DRMIH);
    let cut = format!("{})", &cut[..cut.find("; P0[22 drop").unwrap()]);
    let (number, text, why) = step_error(&cut);
    assert_eq!((number.as_str(), text.as_str()), ("21", "21 place w  G 11"));
    assert!(why.contains("drop board"), "{why}");
}

#[test]
fn a_bad_file_fails_the_command() {
    let dir = std::env::temp_dir().join(format!("yinsh-zero-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.sgf");
    std::fs::write(
        &path,
        read(DRMIH).replace("29 move E 9 E 5", "29 move E 9 G 11"),
    )
    .unwrap();
    let out = yz(["replay", "--json", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = failed(&out);
    assert!(stderr.contains("step 29 `29 move E 9 G 11`"), "{stderr}");
}

#[test]
fn broken_sgf_syntax() {
    for text in ["", "(;GM[24]", "(;GM[24]P0[1 place wr H 6)", "(;(;))", "x"] {
        assert!(
            matches!(parse_sgf(text), Err(SgfError::Syntax { .. })),
            "{text}"
        );
    }
}
