//! Connect Four's opening book: what `connect4-book` builds is exact,
//! the solver answers from it as it would by searching, a build stopped
//! part way goes on where it stopped, and a damaged file is refused with
//! the file and the fault named.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::cli::{failed, succeeded, yz};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::game::State;
use yinsh_zero::games::connect4::Position;
use yinsh_zero::games::connect4::book::Book;
use yinsh_zero::games::connect4::book::build::{BuildOptions, build};
use yinsh_zero::games::connect4::solve::Solver;

/// A middle-game position (16 stones, White to act) whose games are still
/// open: small enough books to build in a debug test.
const START: &str = "4444433352255261";

fn start() -> Position {
    Position::from_moves(START).unwrap()
}

fn built(plies: usize) -> (Book, yinsh_zero::games::connect4::book::build::BuildReport) {
    let mut solver = Solver::new(20).with_book(Book::default());
    let opts = BuildOptions {
        start: start(),
        plies,
        deadline: None,
        save_every: Duration::from_secs(3600),
    };
    let report = build(&mut solver, &opts, &mut |_| Ok(()), &mut |_| {}).unwrap();
    (solver.book().unwrap().clone(), report)
}

#[test]
fn every_entry_of_a_built_book_is_the_exact_score() {
    let (book, report) = built(19);
    assert_eq!(report.complete_plies, 19);
    assert!(!report.stopped);
    assert!(book.len() > 20, "{} entries", book.len());
    assert!(book.get(&start()).is_some(), "the start's own score");
    let mut plain = Solver::new(20);
    for (p, score) in book.entries() {
        assert!(p.moves() >= 16 && p.moves() <= 19, "{p}");
        assert_eq!(plain.solve(&p), score, "{p}");
    }
}

#[test]
fn the_solver_answers_from_the_book_as_it_would_by_searching() {
    let (book, _) = built(19);
    let mut with = Solver::new(18).with_book(book);
    let mut without = Solver::new(18);
    let mut rng = SmallRng::seed_from_u64(5);
    for _ in 0..30 {
        let mut p = start();
        while !p.is_over() && p.moves() < 21 {
            assert_eq!(with.column_scores(&p), without.column_scores(&p), "{p}");
            assert_eq!(with.best_columns(&p), without.best_columns(&p), "{p}");
            let moves = p.legal_actions();
            let c = moves.get(rng.random_range(0..moves.len())).copied();
            p.play(c.unwrap()).unwrap();
        }
    }
}

#[test]
fn a_stopped_build_goes_on_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.bin");
    let save = |s: &mut Solver| -> anyhow::Result<()> { Ok(s.book().unwrap().save(&path)?) };
    // Stopped before its first solve: nothing finished, the empty book saved.
    let mut solver = Solver::new(20).with_book(Book::load_or_empty(&path).unwrap());
    let opts = BuildOptions {
        start: start(),
        plies: 19,
        deadline: Some(Instant::now()),
        save_every: Duration::from_secs(3600),
    };
    let r = build(&mut solver, &opts, &mut { save }, &mut |_| {}).unwrap();
    assert!(r.stopped);
    assert_eq!((r.complete_plies, r.solved), (0, 0));
    assert!(Book::load(&path).unwrap().is_empty());
    // Two plies, then the rest: the second run solves only what is new.
    let mut solver = Solver::new(20).with_book(Book::load(&path).unwrap());
    let two = BuildOptions {
        plies: 18,
        deadline: None,
        ..opts.clone()
    };
    let first = build(&mut solver, &two, &mut { save }, &mut |_| {}).unwrap();
    assert_eq!(first.complete_plies, 18);
    let mut solver = Solver::new(20).with_book(Book::load(&path).unwrap());
    let all = BuildOptions {
        plies: 19,
        deadline: None,
        ..opts.clone()
    };
    let second = build(&mut solver, &all, &mut { save }, &mut |_| {}).unwrap();
    let (whole, whole_report) = built(19);
    assert_eq!(first.solved + second.solved, whole_report.solved);
    assert_eq!(Book::load(&path).unwrap().len(), whole.len());
    // Once whole, a rebuild solves nothing.
    let mut solver = Solver::new(20).with_book(Book::load(&path).unwrap());
    let again = build(&mut solver, &all, &mut { save }, &mut |_| {}).unwrap();
    assert_eq!(again.solved, 0);
}

/// The bytes of a book whose entries are `entries` as stored (code,
/// score), with a correct checksum: a file that is damaged inside but
/// whole.
fn forged(version: u32, entries: &[(u64, i8)]) -> Vec<u8> {
    let mut out = b"YZC4BOOK".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for &(code, score) in entries {
        out.extend_from_slice(&code.to_le_bytes());
        out.push(score as u8);
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn code_of(moves: &str) -> u64 {
    let p = Position::from_moves(moves).unwrap();
    p.code().min(p.mirrored().code())
}

fn refused(dir: &Path, name: &str, bytes: &[u8], why: &str) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let e = Book::load(&path).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()), "{name}: {e}");
    assert!(e.contains(why), "{name}: `{e}` does not say `{why}`");
}

#[test]
fn a_damaged_book_is_refused_naming_the_file_and_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (book, _) = built(18);
    let good = d.join("good.bin");
    book.save(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    assert_eq!(Book::load(&good).unwrap().len(), book.len());

    refused(
        d,
        "short.bin",
        &bytes[..bytes.len() - 5],
        "truncated or damaged",
    );
    refused(d, "tiny.bin", &bytes[..10], "truncated");
    let mut flipped = bytes.clone();
    flipped[30] ^= 0x10;
    refused(d, "flipped.bin", &flipped, "checksum mismatch");
    let mut magic = bytes.clone();
    magic[0] = b'X';
    refused(d, "magic.bin", &magic, "not an opening book");
    refused(d, "version.bin", &forged(2, &[]), "format version 2");

    let (a, b) = (code_of("44"), code_of("4455"));
    let (lo, hi) = (a.min(b), a.max(b));
    refused(
        d,
        "order.bin",
        &forged(1, &[(hi, 0), (lo, 0)]),
        "out of order",
    );
    refused(
        d,
        "twice.bin",
        &forged(1, &[(lo, 0), (lo, 0)]),
        "out of order",
    );
    refused(d, "wide.bin", &forged(1, &[(1 << 60, 0)]), "wider than");
    // Seven bits set in column 1 carry into column 2: column 1 is left
    // without the bit that marks its height.
    refused(d, "nomark.bin", &forged(1, &[(0x7f, 0)]), "no height mark");
    // White four in a row on the bottom with Black's three above: over.
    refused(
        d,
        "over.bin",
        &forged(1, &[(code_of("1122334"), 0)]),
        "the game is over",
    );
    let p = Position::from_moves("7").unwrap();
    refused(
        d,
        "mirror.bin",
        &forged(1, &[(p.code().max(p.mirrored().code()), 0)]),
        "mirror image",
    );
    refused(
        d,
        "score.bin",
        &forged(1, &[(code_of("44"), 21)]),
        "score 21 is out of range for 2 stones",
    );
    // Black has more stones than White: no game reaches it.
    let two_black = 0b1 | (0b1 << 7); // one stone in each of columns 1 and 2
    let white_to_act_code = two_black + two_black; // current = both stones, mask = both
    refused(
        d,
        "count.bin",
        &forged(1, &[(white_to_act_code, 0)]),
        "White (who moves first)",
    );
}

#[test]
fn the_commands_build_check_and_answer_from_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.bin");
    let b = book.to_str().unwrap();
    let out = succeeded(&yz([
        "connect4-book",
        "--book",
        b,
        "--from",
        START,
        "--plies",
        "18",
        "--tt",
        "18",
    ]));
    assert!(out.contains("complete to 18 plies"), "{out}");
    let check = succeeded(&yz(["connect4-book", "--book", b, "--check"]));
    let n = Book::load(&book).unwrap().len();
    assert!(check.contains(&format!("{n} entries")), "{check}");
    assert!(check.contains("16: 1"), "the start itself: {check}");
    let score = |extra: &[&str]| {
        let mut args = vec!["solve-connect4", "--moves", START, "--tt", "18", "--json"];
        args.extend_from_slice(extra);
        let out = succeeded(&yz(args));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["score"].clone(), v["columns"].clone())
    };
    assert_eq!(score(&["--book", b]), score(&[]));
    // A damaged book is refused by its path, by the solver and by the
    // perfect player alike.
    let bytes = std::fs::read(&book).unwrap();
    std::fs::write(&book, &bytes[..bytes.len() - 1]).unwrap();
    let e = failed(&yz(["solve-connect4", "--moves", START, "--book", b]));
    assert!(e.contains(b) && e.contains("truncated"), "{e}");
    let spec = format!("perfect:book={b}");
    let e = failed(&yz([
        "match", "--game", "connect4", "--white", &spec, "--black", "random", "--games", "1",
    ]));
    assert!(e.contains(b) && e.contains("truncated"), "{e}");
}
