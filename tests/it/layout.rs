//! The source's layout keeps its promises (docs/architecture.md):
//!
//! - a game is its folder `src/games/<game>/` and its line in the registry,
//!   `src/games/mod.rs`: no other source file names it (its module path
//!   `games::<game>` or its type, e.g. `Morris`), outside comments;
//! - no function in `src/cli/` or a game's `commands.rs` is over 80
//!   lines: a command parses, calls the library and prints.
//!
//! Where the code does not keep them yet, the places are listed here by
//! name (`KNOWN_*`), so that the list can only shrink: a new place fails
//! the test, and so does a listed place that no longer breaks the rule
//! (take it off the list).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Files outside their game's folder that still name a game, as
/// `file: game`, work left: none. (A new one fails the test; a file that
/// must name a game for a reason other than the one below does not
/// belong outside its folder.)
const KNOWN_GAME_NAMES: &[&str] = &[];

/// Files that name YINSH because formats and the engine protocol are older
/// than the game interface, when YINSH was the only game: a checkpoint's
/// `meta.json`, an evaluation record and a config without a game are
/// YINSH's; an engine that never says its game plays YINSH; and the
/// protocol's greeting is the word `yinsh` (answered `yinshok`), as UCI's
/// is `uci`. Reading old files and old engines is worth more than the
/// rule; nothing new joins this list.
const OLDER_THAN_GAMES: &[&str] = &[
    "src/arena/tournament.rs: yinsh",
    "src/checkpoint.rs: yinsh",
    "src/engine/external.rs: yinsh",
    "src/engine/server.rs: yinsh",
    "src/run/config.rs: yinsh",
];

/// Command functions over 80 lines, as `file: fn name`: none left.
const KNOWN_LONG_CLI_FNS: &[&str] = &[];

const MAX_CLI_FN_LINES: usize = 80;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn relative(p: &Path) -> String {
    p.strip_prefix(src().parent().unwrap())
        .unwrap()
        .display()
        .to_string()
}

/// The code of a line: what is left of it once a `//` comment is cut.
/// (A `//` inside a string literal cuts too early, which can only hide a
/// name, never invent one.)
fn code(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Whether an identifier in `text` starts with `word` (`Morris`,
/// `MorrisGame`; not `IsMorris`).
fn starts_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .any(|(i, _)| !text[..i].chars().next_back().is_some_and(ident))
}

/// The registered games: the folders of src/games/.
fn games() -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(src().join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn type_name(game: &str) -> String {
    let mut c = game.chars();
    let first = c.next().unwrap().to_ascii_uppercase();
    std::iter::once(first).chain(c).collect()
}

fn check_against(found: &BTreeSet<String>, known: &[&str], what: &str) {
    let known: BTreeSet<String> = known.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "{what}:\n  new (fix them): {new:#?}\n  no longer there (take them off the list): {gone:#?}"
    );
}

#[test]
fn only_a_games_folder_and_the_registry_name_the_game() {
    let games = games();
    assert!(games.len() >= 4, "{games:?}");
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = BTreeSet::new();
    for file in &files {
        let rel = relative(file);
        if rel == "src/games/mod.rs" {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        // Unit tests may take a real game as their fixture, as tests/ do.
        let text = text.split("\n#[cfg(test)]\n").next().unwrap();
        for game in &games {
            if rel.starts_with(&format!("src/games/{game}/")) {
                continue;
            }
            let module = format!("games::{game}");
            let ty = type_name(game);
            // Its module, its types (`Morris`, `MorrisGame`), and its
            // registered name as a string (`"morris"`).
            let quoted = format!("\"{game}\"");
            let names = text
                .lines()
                .map(code)
                .any(|l| l.contains(&module) || starts_word(l, &ty) || l.contains(&quoted));
            if names {
                found.insert(format!("{rel}: {game}"));
            }
        }
    }
    let known: Vec<&str> = [KNOWN_GAME_NAMES, OLDER_THAN_GAMES].concat();
    check_against(&found, &known, "files that name a game outside its folder");
}

/// Each `fn` in `text` with its length in lines, found by the braces that
/// open and close its body.
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = code(lines[i]).trim_start();
        let is_fn = [
            "fn ",
            "pub fn ",
            "async fn ",
            "pub async fn ",
            "pub(crate) fn ",
        ]
        .iter()
        .any(|p| l.starts_with(p));
        if !is_fn {
            i += 1;
            continue;
        }
        let name: String = l[l.find("fn ").unwrap() + 3..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        while j < lines.len() {
            for c in code(lines[j]).chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                break;
            }
            // A declaration without a body (in a trait).
            if !opened && code(lines[j]).trim_end().ends_with(';') {
                break;
            }
            j += 1;
        }
        out.push((name, j - i + 1));
        i = j + 1;
    }
    out
}

#[test]
fn no_function_in_the_command_line_is_over_80_lines() {
    let mut files = Vec::new();
    rust_files(&src().join("cli"), &mut files);
    // A game's own commands are command-line code too.
    files.extend(
        games()
            .iter()
            .map(|g| src().join("games").join(g).join("commands.rs"))
            .filter(|p| p.exists()),
    );
    let mut found = BTreeSet::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let text = text.split("\n#[cfg(test)]\n").next().unwrap();
        for (name, n) in functions(text) {
            if n > MAX_CLI_FN_LINES {
                found.insert(format!("{}: {name}", relative(file)));
            }
        }
    }
    check_against(
        &found,
        KNOWN_LONG_CLI_FNS,
        &format!(
            "command functions (src/cli/, src/games/*/commands.rs) over {MAX_CLI_FN_LINES} lines"
        ),
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    // A check that finds nothing because it reads nothing would pass.
    let long = format!(
        "fn short() {{\n}}\npub fn long(x: u8) -> u8 {{\n{}    x\n}}\n",
        "    let _ = 1; // {\n".repeat(85)
    );
    let fns = functions(&long);
    assert_eq!(fns[0], ("short".to_string(), 2));
    assert_eq!(fns[1].0, "long");
    assert!(fns[1].1 > 80);
    assert!(starts_word("use crate::x::Morris;", "Morris"));
    assert!(starts_word("let g: MorrisGame;", "Morris"));
    assert!(!starts_word("IsMorris", "Morris"));
    assert_eq!(code("let a = 1; // Morris"), "let a = 1; ");
    assert!(games().iter().any(|g| g == "yinsh"));
}
