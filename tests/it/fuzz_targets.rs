//! Fuzz targets for every parser of outside input (issue 30; the harness,
//! how to run a target long and what the runs found: docs/fuzzing.md).
//!
//! `cargo test` runs each on a few thousand inputs; a long run of one:
//!
//! ```text
//! FUZZ_INPUTS=1000000 cargo test --test it -- --exact fuzz_targets::TARGET --nocapture
//! ```
//!
//! Each target checks more than "no panic": what a parser accepts must be
//! what it claims (a record that decodes re-encodes to itself, a decision
//! that parses is legal and formats back to itself, a web answer is JSON
//! with a 2xx or 4xx status).

// The harness keeps an input that aborts the process with libc's write.
#![cfg(unix)]

use crate::fuzz;

use std::io::Cursor;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use fuzz::{PeakAlloc, Target, run};
use yinsh_zero::arena::GamePlayers;
use yinsh_zero::game::{Game, State};
use yinsh_zero::games::connect4::Connect4;
use yinsh_zero::games::emergo::Emergo;
use yinsh_zero::games::grid::Grid;
use yinsh_zero::games::morris::{Morris, Variant as MorrisVariant};
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::replay::record::{self, RecordFile, RecordMeta, Sample};

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

const SMOKE: u64 = 3000;

fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Every variant of `G`.
fn variants<G: Game>() -> Vec<G> {
    G::VARIANTS
        .iter()
        .map(|v| G::with_variant(v).expect("a listed variant"))
        .collect()
}

/// A random game of `game` to its end (or `max` decisions): the states
/// along it and the decisions.
fn random_game<G: Game>(
    game: &G,
    rng: &mut SmallRng,
    max: usize,
) -> (Vec<G::State>, Vec<<G::State as State>::Action>) {
    let mut s = game.start();
    let mut states = vec![s.clone()];
    let mut actions = Vec::new();
    while !s.is_over() && actions.len() < max {
        let legal = s.legal_actions();
        let a = *legal.choose(rng).expect("a game not over has a decision");
        s.play(a).expect("a legal decision");
        actions.push(a);
        states.push(s.clone());
    }
    (states, actions)
}

/// Words of the corpus (runs of letters, digits and `_-.@`), and its
/// punctuation, for the dictionary.
fn words_of(corpus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = Vec::new();
    for input in corpus {
        for w in input.split(|b| !(b.is_ascii_alphanumeric() || b"_-.@".contains(b))) {
            if !w.is_empty() && w.len() <= 24 && !words.iter().any(|x| x == w) {
                words.push(w.to_vec());
            }
        }
    }
    for p in [
        "[", "]", "[[", "]]", "{", "}", "\"", "'", "=", ",", ":", ";", "\n", " ", "\\", "-", "x",
        "#", "\u{0}", "\u{ff}", "é",
    ] {
        words.push(p.as_bytes().to_vec());
    }
    words.truncate(400);
    words
}

fn slices(words: &[Vec<u8>]) -> Vec<&[u8]> {
    words.iter().map(Vec::as_slice).collect()
}

// ---------------------------------------------------------------- records

/// A record file's samples as format 2 wrote them.
#[derive(Serialize)]
struct SampleV2<'a> {
    position: &'a [u8],
    policy: &'a [(u32, f32)],
    outcome: i8,
    margin: Option<f32>,
    full_search: bool,
}

/// As format 3 wrote them: format 2's and the moves left (bincode lays a
/// nested struct out as its fields in order).
#[derive(Serialize)]
struct SampleV3<'a>(SampleV2<'a>, Option<u32>);

/// As format 4 wrote them: format 3's and the search's win/draw/loss.
#[derive(Serialize)]
struct SampleV4<'a>(SampleV3<'a>, Option<[f32; 3]>);

#[derive(Serialize)]
struct OldFile<'a, S> {
    meta: &'a RecordMeta,
    samples: Vec<S>,
}

/// A record file's header and `payload`, as `record::encode` lays it out.
fn framed(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = b"YZRECORD".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A file of each format (2 to 5) with samples of a random game of `game`.
fn record_files<G: Game>(game: &G, rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let (states, _) = random_game(game, rng, 60);
    let mut samples = Vec::new();
    for s in states.iter().filter(|s| !s.is_over()).step_by(7).take(3) {
        let legal = s.legal_actions();
        let p = 1.0 / legal.len() as f32;
        let policy = legal
            .iter()
            .map(|&a| (game.action_index(a) as u32, p))
            .collect();
        let margin = s.margin(s.to_act());
        samples.push(
            Sample::new(game, s, policy, 1, margin, 9)
                .with_search_wdl(Some([0.5, 0.25, 0.25]))
                .with_search_margin(margin.map(|m| m / 2.0)),
        );
    }
    let file = RecordFile {
        meta: RecordMeta {
            game: G::NAME.into(),
            variant: game.variant().into(),
            generation: 3,
            games: 1,
            producer: "fuzz".into(),
        },
        samples,
    };
    let old = |version: u32, bytes: Result<Vec<u8>, _>| framed(version, &bytes.unwrap());
    let v4: Vec<_> = file.samples.iter().map(v4).collect();
    let v3: Vec<_> = file.samples.iter().map(v3).collect();
    let v2: Vec<_> = file.samples.iter().map(v2).collect();
    vec![
        record::encode(&file),
        old(4, encode_old(&file.meta, v4)),
        old(3, encode_old(&file.meta, v3)),
        old(2, encode_old(&file.meta, v2)),
    ]
}

fn v2(s: &Sample) -> SampleV2<'_> {
    SampleV2 {
        position: &s.position,
        policy: &s.policy,
        outcome: s.outcome,
        margin: s.margin,
        full_search: s.full_search,
    }
}

fn v3(s: &Sample) -> SampleV3<'_> {
    SampleV3(v2(s), s.moves_left)
}

fn v4(s: &Sample) -> SampleV4<'_> {
    SampleV4(v3(s), s.search_wdl)
}

/// An older format's payload: the file's meta and its samples of that format.
fn encode_old<S: Serialize>(
    meta: &RecordMeta,
    samples: Vec<S>,
) -> Result<Vec<u8>, bincode::error::EncodeError> {
    bincode::serde::encode_to_vec(OldFile { meta, samples }, bincode::config::standard())
}

/// Mends a record file's payload length and checksum (nine times in ten),
/// and now and then names another format version.
fn fix_record(v: &mut [u8], rng: &mut SmallRng) {
    if v.len() < 24 || !rng.random_ratio(9, 10) {
        return;
    }
    if rng.random_ratio(1, 8) {
        let version: u32 = rng.random_range(1..=6);
        v[8..12].copy_from_slice(&version.to_le_bytes());
    }
    let len = (v.len() - 24) as u64;
    v[12..20].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&v[24..]);
    v[20..24].copy_from_slice(&crc.to_le_bytes());
}

/// Decodes `bytes` as records of each variant of `G`; what decodes must
/// re-encode to a file that decodes the same.
fn decode_all<G: Game>(games: &[G], bytes: &[u8]) -> bool {
    let path = Path::new("fuzz.rec");
    let mut accepted = false;
    for game in games {
        if let Ok(file) = record::decode(game, path, bytes) {
            let again = record::decode(game, path, &record::encode(&file))
                .unwrap_or_else(|e| panic!("a decoded file re-encodes to a broken one: {e}"));
            assert_eq!(again, file, "a decoded file re-encodes to another");
            for s in &file.samples {
                s.validate(game).expect("decode validated every sample");
            }
            accepted = true;
        }
    }
    accepted
}

#[test]
fn replay_records() {
    let mut rng = SmallRng::seed_from_u64(30);
    let (yinsh, morris, grid, emergo, connect4) = (
        variants::<Yinsh>(),
        variants::<Morris>(),
        variants::<Grid>(),
        variants::<Emergo>(),
        variants::<Connect4>(),
    );
    let mut corpus = Vec::new();
    for g in &yinsh {
        corpus.extend(record_files(g, &mut rng));
    }
    for g in &morris {
        corpus.extend(record_files(g, &mut rng));
    }
    for g in &grid {
        corpus.extend(record_files(g, &mut rng));
    }
    for g in &emergo {
        corpus.extend(record_files(g, &mut rng));
    }
    for g in &connect4 {
        corpus.extend(record_files(g, &mut rng));
    }
    let dictionary: &[&[u8]] = &[
        b"YZRECORD",
        b"yinsh",
        b"morris",
        b"grid",
        b"emergo",
        b"connect4",
        b"standard",
    ];
    let fix = fix_record;
    let target = Target {
        name: "replay_records",
        corpus,
        dictionary,
        fix: Some(&fix),
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        // Every game's decoder on every input: a mutation of a YINSH file
        // may well be read as a Morris one.
        let a = decode_all(&yinsh, bytes);
        let b = decode_all(&morris, bytes);
        let c = decode_all(&grid, bytes);
        let d = decode_all(&emergo, bytes);
        let e = decode_all(&connect4, bytes);
        a | b | c | d | e
    });
    assert!(
        summary.accepted > 0,
        "no input decoded: the corpus is broken"
    );
}

// ----------------------------------------------------------- game states

/// `read_state` of every variant: what it accepts is a position the rules
/// can go on from, and writes back to bytes that read the same.
fn states_of<G: Game>(games: &[G], bytes: &[u8]) -> bool {
    let mut accepted = false;
    for game in games {
        let Ok(s) = game.read_state(bytes) else {
            continue;
        };
        let mut again = Vec::new();
        game.write_state(&s, &mut again);
        let back = game
            .read_state(&again)
            .unwrap_or_else(|e| panic!("a read state writes to bytes it refuses: {e}"));
        assert_eq!(back, s, "a read state writes to another");
        let mut planes = vec![0.0; game.net_shape().input_size()];
        game.encode(&s, &mut planes);
        let _ = s.result();
        if !s.is_over() {
            let legal = s.legal_actions();
            if let Some(&a) = legal.first() {
                let mut next = s.clone();
                next.play(a).expect("a listed decision is legal");
            }
        }
        accepted = true;
    }
    accepted
}

fn state_corpus<G: Game>(games: &[G], rng: &mut SmallRng, corpus: &mut Vec<Vec<u8>>) {
    for game in games {
        let (states, _) = random_game(game, rng, 400);
        for s in states.iter().step_by(5) {
            let mut b = Vec::new();
            game.write_state(s, &mut b);
            corpus.push(b);
        }
    }
}

#[test]
fn game_states() {
    let mut rng = SmallRng::seed_from_u64(31);
    let (yinsh, morris, grid, emergo, connect4) = (
        variants::<Yinsh>(),
        variants::<Morris>(),
        variants::<Grid>(),
        variants::<Emergo>(),
        variants::<Connect4>(),
    );
    let mut corpus = Vec::new();
    state_corpus(&yinsh, &mut rng, &mut corpus);
    state_corpus(&morris, &mut rng, &mut corpus);
    state_corpus(&grid, &mut rng, &mut corpus);
    state_corpus(&emergo, &mut rng, &mut corpus);
    state_corpus(&connect4, &mut rng, &mut corpus);
    let target = Target {
        name: "game_states",
        corpus,
        dictionary: &[],
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        let a = states_of(&yinsh, bytes);
        let b = states_of(&morris, bytes);
        let c = states_of(&grid, bytes);
        let d = states_of(&emergo, bytes);
        let e = states_of(&connect4, bytes);
        a | b | c | d | e
    });
    assert!(summary.accepted > 0, "no input read: the corpus is broken");
}

// ------------------------------------------------------------ checkpoints

fn repo(path: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn checkpoint_meta() {
    use yinsh_zero::checkpoint::read_meta;
    let corpus: Vec<Vec<u8>> = [
        "checkpoints/000173/meta.json",
        "checkpoints/emergo/000007/meta.json",
        "checkpoints/grid/000311/meta.json",
        "checkpoints/nine-mens-morris/000155/meta.json",
        "checkpoints/six-mens-morris/000443/meta.json",
    ]
    .iter()
    .map(|p| repo(p))
    .collect();
    let words = words_of(&corpus);
    let dir = tempfile::tempdir().unwrap();
    let target = Target {
        name: "checkpoint_meta",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        std::fs::write(dir.path().join("meta.json"), bytes).unwrap();
        match read_meta(dir.path()) {
            Ok(meta) => {
                // What is read is what a checkpoint written now would hold.
                let again: serde_json::Value = serde_json::to_value(&meta).unwrap();
                assert!(again.is_object());
                true
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                false
            }
        }
    });
    assert!(
        summary.accepted > 0,
        "no meta.json read: the corpus is broken"
    );
}

#[test]
fn checkpoint_best() {
    use yinsh_zero::checkpoint::{generation_dir, read_best, resolve};
    let dir = tempfile::tempdir().unwrap();
    let ckpts = dir.path();
    for g in [0, 7, 42] {
        std::fs::create_dir_all(generation_dir(ckpts, g)).unwrap();
        std::fs::write(generation_dir(ckpts, g).join("meta.json"), "{}").unwrap();
    }
    let corpus = vec![
        b"000007\n".to_vec(),
        b"42".to_vec(),
        b"  0 \r\n".to_vec(),
        b"000043\n".to_vec(),
    ];
    let target = Target {
        name: "checkpoint_best",
        corpus,
        dictionary: &[b"\n", b" ", b"+", b"-", b"0x", b"\xef\xbb\xbf"],
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let best = ckpts.join("best");
    let summary = run(target, |bytes| {
        std::fs::write(&best, bytes).unwrap();
        let read = read_best(ckpts);
        let by_folder = resolve(ckpts);
        let by_pointer = resolve(&best);
        match read {
            Ok(Some(g)) => {
                let want = generation_dir(ckpts, g);
                let found = want.join("meta.json").is_file();
                assert_eq!(by_folder.as_ref().ok(), found.then_some(&want));
                assert_eq!(by_pointer.as_ref().ok(), found.then_some(&want));
                true
            }
            Ok(None) => unreachable!("the pointer file exists"),
            Err(e) => {
                assert!(by_folder.is_err() && by_pointer.is_err());
                let said = e.to_string();
                // The pointer's text is quoted, never in full.
                assert!(said.len() < 400, "a {}-byte error: {said}", said.len());
                false
            }
        }
    });
    assert!(summary.accepted > 0);
}

// ---------------------------------------------------------------- configs

#[test]
fn run_config() {
    use yinsh_zero::run::config::RunConfig;
    let corpus: Vec<Vec<u8>> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| std::fs::read(p).unwrap())
            .collect();
    let words = words_of(&corpus);
    let target = Target {
        name: "run_config",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        match RunConfig::from_toml(&text(bytes), "fuzz.toml") {
            Ok(config) => {
                config.validate().expect("from_toml validated the config");
                true
            }
            Err(e) => {
                assert!(
                    e.to_string().contains("fuzz.toml"),
                    "an error without its origin: {e}"
                );
                false
            }
        }
    });
    assert!(summary.accepted > 0, "no config read: the corpus is broken");
}

/// A `fix` for the checksummed file formats: now and then a count (a
/// `u64` at `count_at`) that fits the length (`fit`), then the CRC-32 in
/// the last 4 bytes recomputed, so that mutations get past the checksum.
/// Files shorter than `min_len` are left alone.
fn refit(
    v: &mut [u8],
    rng: &mut SmallRng,
    min_len: usize,
    count_at: usize,
    fit: impl Fn(usize) -> u64,
) {
    if v.len() < min_len || !rng.random_ratio(9, 10) {
        return;
    }
    if rng.random_ratio(1, 4) {
        let n = fit(v.len());
        v[count_at..count_at + 8].copy_from_slice(&n.to_le_bytes());
    }
    let end = v.len() - 4;
    let crc = crc32fast::hash(&v[..end]);
    v[end..].copy_from_slice(&crc.to_le_bytes());
}

// ------------------------------------------------------- Morris databases

#[test]
fn morris_db_files() {
    use yinsh_zero::games::morris::address::{LayerIndex, layers};
    use yinsh_zero::games::morris::db::{LayerValues, decode, encode};
    let mut rng = SmallRng::seed_from_u64(32);
    // Small layers of each variant, with random values.
    let mut known = Vec::new();
    let mut corpus = Vec::new();
    for v in [
        MorrisVariant::Three,
        MorrisVariant::Six,
        MorrisVariant::Nine,
    ] {
        // Layers with few stones (a Nine layer with many has millions of
        // states: indexing it is not this test's work), the largest of
        // them with a few thousand.
        let mut few: Vec<_> = layers(v)
            .into_iter()
            .filter(|l| l.a + l.b + l.hm + l.ho <= 6)
            .collect();
        few.sort_by_key(|l| (l.a + l.b + l.hm + l.ho, l.a + l.b));
        let sizes: Vec<_> = few
            .into_iter()
            .map(|l| (l, LayerIndex::build(v, l).len()))
            .filter(|&(_, n)| n <= 3000)
            .collect();
        let picked = sizes.iter().take(2).chain(sizes.iter().rev().take(2));
        for &(l, n) in picked {
            let values = LayerValues {
                wdl: (0..n).map(|_| rng.random_range(0..3)).collect(),
                plies: (0..n).map(|_| rng.random_range(0..40)).collect(),
            };
            corpus.push(encode(v, l, &values));
            known.push((v, l, n));
        }
    }
    assert!(!known.is_empty(), "no small layer to start from");
    let fix =
        |v: &mut [u8], rng: &mut SmallRng| refit(v, rng, 36, 20, |len| ((len - 36) * 4 / 9) as u64);
    let target = Target {
        name: "morris_db_files",
        corpus,
        dictionary: &[b"MORRISDB", b"\x01\x00\x00\x00"],
        fix: Some(&fix),
        smoke: SMOKE,
        all_threads: false,
    };
    let path = Path::new("fuzz.db");
    let summary = run(target, |bytes| {
        let mut accepted = false;
        for &(v, l, n) in &known {
            for expected in [Some(n), None] {
                if let Ok(values) = decode(path, bytes, v, l, expected) {
                    assert_eq!(values.wdl.len(), values.plies.len());
                    if let Some(n) = expected {
                        assert_eq!(values.len(), n);
                    }
                    assert!(values.wdl.iter().all(|&c| c < 3));
                    accepted = true;
                }
            }
        }
        accepted
    });
    assert!(
        summary.accepted > 0,
        "no layer file read: the corpus is broken"
    );
}

#[test]
fn morris_placing_books() {
    use std::time::Duration;
    use yinsh_zero::games::morris::db::Database;
    use yinsh_zero::games::morris::placing::PlacingSearch;
    use yinsh_zero::games::morris::placing_book::{PlacingBook, build};
    use yinsh_zero::games::morris::solve::{SolveOptions, solve};
    // Books of Three Men's Morris's first turns, built by the search.
    let dir = tempfile::tempdir().unwrap();
    solve(
        &SolveOptions::new(MorrisVariant::Three, dir.path(), None),
        |_| {},
    )
    .unwrap();
    let db = Database::open(dir.path(), MorrisVariant::Three).unwrap();
    let mut search = PlacingSearch::new(1 << 16, None);
    let mut corpus = Vec::new();
    for turns in [0, 2, 4] {
        let book = build(
            &db,
            std::slice::from_mut(&mut search),
            turns,
            None,
            Duration::MAX,
            |_| Ok(()),
            |_, _| {},
        )
        .unwrap();
        corpus.push(book.to_bytes());
    }
    let fix =
        |v: &mut [u8], rng: &mut SmallRng| refit(v, rng, 28, 16, |len| ((len - 28) / 11) as u64);
    let target = Target {
        name: "morris_placing_books",
        corpus,
        dictionary: &[b"MORRISPB", b"\x01\x00\x00\x00"],
        fix: Some(&fix),
        smoke: SMOKE,
        all_threads: false,
    };
    let path = Path::new("placing-book.mdb");
    let summary = run(target, |bytes| {
        match PlacingBook::from_bytes(path, bytes, MorrisVariant::Three) {
            Ok(book) => {
                // What was accepted is exactly what writing it gives back.
                assert_eq!(book.to_bytes(), bytes);
                true
            }
            Err(e) => {
                assert!(e.to_string().contains("placing-book.mdb"), "{e}");
                false
            }
        }
    });
    assert!(summary.accepted > 0, "no book read: the corpus is broken");
}

// -------------------------------------------------------------------- SGF

#[test]
fn sgf_records() {
    use yinsh_zero::games::yinsh::Position;
    use yinsh_zero::games::yinsh::sgf::parse_sgf;
    let corpus = vec![
        include_bytes!("../data/Y-DrMih-Dumbot-2026-02-20-0858.sgf").to_vec(),
        include_bytes!("../data/Y-phiulbrich-BestBot-2026-03-21-2221.sgf").to_vec(),
    ];
    let words = words_of(&corpus);
    let target = Target {
        name: "sgf_records",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| match parse_sgf(&text(bytes)) {
        Ok(game) => {
            let mut pos = Position::with_variant(game.final_position.variant());
            for &a in &game.actions {
                pos.play(a).expect("a parsed record replays");
            }
            if game.resigned.is_none() {
                assert_eq!(pos, game.final_position);
            }
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    });
    assert!(summary.accepted > 0);
}

// -------------------------------------------------------------- notations

/// Positions along a random game of each variant, to parse decisions at.
fn positions<G: Game>(games: &[G], rng: &mut SmallRng) -> Vec<(G, G::State)> {
    let mut out = Vec::new();
    for game in games {
        let (states, _) = random_game(game, rng, 300);
        let n = states.len();
        for k in [0, 1, n / 8, n / 4, n / 2, 3 * n / 4, n.saturating_sub(2)] {
            if let Some(s) = states.get(k)
                && !s.is_over()
            {
                out.push((game.clone(), s.clone()));
            }
        }
    }
    out
}

/// Whole games of each variant, and single decisions, in notation.
fn notation_corpus<G: Game>(games: &[G], rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let mut corpus = Vec::new();
    for game in games {
        for max in [6, 40, 300] {
            let (_, actions) = random_game(game, rng, max);
            corpus.push(game.format_game(&game.start(), &actions).into_bytes());
        }
        let start = game.start();
        for a in start.legal_actions().iter().take(5) {
            corpus.push(a.to_string().into_bytes());
        }
    }
    corpus
}

/// A decision that parses at a position is legal there and formats back to
/// itself; a game that parses replays and formats to a text that parses to
/// it again.
fn parse_notation<G: Game>(at: &[(G, G::State)], text: &str) -> bool {
    let mut accepted = false;
    for (game, pos) in at {
        if let Ok(a) = game.parse_action(pos, text) {
            assert!(pos.is_legal(a), "`{text}` parses to the illegal {a}");
            assert_eq!(game.parse_action(pos, &a.to_string()), Ok(a));
            accepted = true;
        }
        if let Ok(actions) = game.parse_game(pos, text) {
            let again = game.format_game(pos, &actions);
            assert_eq!(
                game.parse_game(pos, &again).as_ref(),
                Ok(&actions),
                "`{text}` formats to `{again}`, which parses otherwise"
            );
            accepted = true;
        }
    }
    accepted
}

/// `name`: `G`'s notation at positions of each variant, and `extra` (the
/// game's own further parsers) on the same inputs, `more` in the corpus.
fn notation_target<G: Game>(name: &'static str, more: Vec<Vec<u8>>, extra: impl Fn(&str) -> bool) {
    let mut rng = SmallRng::seed_from_u64(33);
    let games = variants::<G>();
    let at = positions(&games, &mut rng);
    let mut corpus = notation_corpus(&games, &mut rng);
    corpus.extend(more);
    let words = words_of(&corpus);
    let target = Target {
        name,
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        let text = text(bytes);
        // Single decisions are what the engine's `play` and the web's
        // decision requests carry: the first word too, alone.
        let first = text.split_whitespace().next().unwrap_or("");
        let a = parse_notation(&at, &text);
        let b = parse_notation(&at, first);
        let c = extra(&text);
        a | b | c
    });
    assert!(
        summary.accepted > 0,
        "{name}: nothing parsed: the corpus is broken"
    );
}

#[test]
fn yinsh_notation() {
    use yinsh_zero::games::yinsh::Position;
    use yinsh_zero::games::yinsh::notation::{format_game, parse_action, parse_game, parse_turn};
    let mut rng = SmallRng::seed_from_u64(34);
    let at: Vec<Position> = positions(&variants::<Yinsh>(), &mut rng)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    notation_target::<Yinsh>("yinsh_notation", Vec::new(), |text| {
        let mut accepted = false;
        for pos in &at {
            if let Ok(a) = parse_action(pos, text) {
                assert!(pos.is_legal(a));
                accepted = true;
            }
            if let Ok(turn) = parse_turn(pos, text) {
                let mut p = *pos;
                for a in turn {
                    p.play(a).expect("a parsed turn replays");
                }
                accepted = true;
            }
            if let Ok(game) = parse_game(pos, text) {
                assert_eq!(parse_game(pos, &format_game(pos, &game)).ok(), Some(game));
                accepted = true;
            }
        }
        accepted
    });
}

#[test]
fn morris_notation() {
    use yinsh_zero::games::morris::address::{parse_position, position_text};
    let mut rng = SmallRng::seed_from_u64(35);
    // Position texts of each variant too (`morris index`).
    let mut texts = Vec::new();
    for game in variants::<Morris>() {
        let (states, _) = random_game(&game, &mut rng, 200);
        texts.extend(
            states
                .iter()
                .step_by(9)
                .map(|s| position_text(s).into_bytes()),
        );
    }
    let kinds = [
        MorrisVariant::Nine,
        MorrisVariant::Six,
        MorrisVariant::Three,
    ];
    notation_target::<Morris>("morris_notation", texts, |text| {
        let mut accepted = false;
        for v in kinds {
            if let Ok(p) = parse_position(v, text) {
                assert_eq!(parse_position(v, &position_text(&p)).as_ref(), Ok(&p));
                if !p.is_over() {
                    let _ = p.legal_actions();
                }
                accepted = true;
            }
        }
        accepted
    });
}

#[test]
fn grid_notation() {
    notation_target::<Grid>("grid_notation", Vec::new(), |_| false);
}

#[test]
fn emergo_notation() {
    use yinsh_zero::games::emergo::notation::parse;
    notation_target::<Emergo>("emergo_notation", Vec::new(), |text| match parse(text) {
        Ok(a) => {
            assert_eq!(parse(&a.to_string()), Ok(a), "`{text}` reads as {a}");
            true
        }
        Err(e) => {
            assert!(!e.is_empty());
            false
        }
    });
}

#[test]
fn connect4_notation() {
    use yinsh_zero::games::connect4::Position;
    use yinsh_zero::games::connect4::testset::parse_line;
    // Test-set lines (`<moves> <score>`) too: the files `grade` reads.
    let lines: Vec<Vec<u8>> = [
        "4453 -2",
        "44444432 5",
        "1 0",
        " 2252576253462244111563365343671351441 7",
    ]
    .iter()
    .map(|l| l.as_bytes().to_vec())
    .collect();
    notation_target::<Connect4>("connect4_notation", lines, |text| {
        let mut accepted = false;
        if let Ok(p) = Position::from_moves(text) {
            assert!(p.moves() <= 42);
            assert_eq!(Position::from_code(p.code()), Ok(p), "`{text}`");
            accepted = true;
        }
        if let Ok(l) = parse_line(text) {
            assert!(l.score.fits(l.position.moves()), "`{text}`");
            assert!(!l.position.is_over(), "`{text}`");
            accepted = true;
        }
        accepted
    });
}

// ------------------------------------------------- Connect Four's book

#[test]
fn connect4_book_files() {
    use yinsh_zero::games::connect4::Position;
    use yinsh_zero::games::connect4::book::Book;
    use yinsh_zero::games::connect4::solve::Solver;
    let mut rng = SmallRng::seed_from_u64(36);
    // Books of a few dozen solved positions along random games.
    let mut corpus = Vec::new();
    let mut solver = Solver::new(18);
    let dir = tempfile::tempdir().unwrap();
    for n in [1, 5, 40] {
        let mut book = Book::default();
        while book.len() < n {
            let (states, _) = random_game(&Connect4, &mut rng, 42);
            for p in states.iter().filter(|p| !p.is_over() && p.moves() >= 16) {
                book.insert(p, solver.solve(p));
            }
        }
        let path = dir.path().join("book.bin");
        book.save(&path).unwrap();
        corpus.push(std::fs::read(&path).unwrap());
    }
    let fix =
        |v: &mut [u8], rng: &mut SmallRng| refit(v, rng, 24, 12, |len| ((len - 24) / 9) as u64);
    let target = Target {
        name: "connect4_book_files",
        corpus,
        dictionary: &[b"YZC4BOOK", b"\x01\x00\x00\x00"],
        fix: Some(&fix),
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| match Book::from_bytes(bytes) {
        Ok(book) => {
            for (p, score) in book.entries() {
                assert!(!p.is_over() && score.fits(p.moves()));
                assert_eq!(book.get(&p), Some(score));
                assert_eq!(Position::from_code(p.code()), Ok(p));
            }
            true
        }
        Err(e) => {
            assert!(!e.is_empty());
            false
        }
    });
    assert!(summary.accepted > 0, "no book read: the corpus is broken");
}

// ---------------------------------------------------------------- engine

/// A protocol session for `game`: every command, with decisions of a
/// random game of its variants.
fn engine_sessions<G: Game>(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for game in variants::<G>() {
        let (_, actions) = random_game(&game, rng, 60);
        let moves = game.format_game(&game.start(), &actions);
        let first = moves.split_whitespace().next().unwrap_or("").to_string();
        let session = format!(
            "yinsh\nisready\ngame\ngame {name} {variant}\nnewgame {variant}\n\
             position startpos moves {moves}\nd\ngo\nnewgame\nplay {first}\ngo sims 3\n\
             go depth 1\ngo time 1\nposition startpos\nplay {first}\nd\nquit\n",
            name = G::NAME,
            variant = game.variant(),
        );
        out.push(session.into_bytes());
    }
    out
}

/// Runs a session through `serve` on a fresh engine of `game`: every reply
/// is whole lines of text.
fn serve_session<G: GamePlayers>(game: G, bytes: &[u8]) -> bool {
    use yinsh_zero::engine::{Engine, serve};
    let mut engine = Engine::for_game(game, "random", 7).expect("the random player");
    let mut out = Vec::new();
    let served = serve(Cursor::new(bytes), &mut out, &mut engine);
    let replies = String::from_utf8(out).expect("replies are text");
    assert!(replies.is_empty() || replies.ends_with('\n'));
    served.is_ok()
}

#[test]
fn engine_server() {
    let mut rng = SmallRng::seed_from_u64(36);
    let mut corpus = engine_sessions::<Yinsh>(&mut rng);
    corpus.extend(engine_sessions::<Morris>(&mut rng));
    corpus.extend(engine_sessions::<Grid>(&mut rng));
    corpus.extend(engine_sessions::<Emergo>(&mut rng));
    corpus.extend(engine_sessions::<Connect4>(&mut rng));
    let words = words_of(&corpus);
    let target = Target {
        name: "engine_server",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    run(target, |bytes| {
        // Each game's engine, as `yinsh-zero engine --game G` starts it.
        let a = serve_session(Yinsh::standard(), bytes);
        let b = serve_session(Morris::with_variant("nine").unwrap(), bytes);
        let c = serve_session(Grid::with_variant("9x9").unwrap(), bytes);
        let d = serve_session(Emergo::with_variant("standard").unwrap(), bytes);
        let e = serve_session(Connect4, bytes);
        a | b | c | d | e
    });
}

/// A program's answers to `go` at positions of `G`, as the protocol
/// client reads them: a `bestmove` read is legal, an `info` line's
/// principal variation replays.
fn go_answers<G: Game>(at: &[(G, G::State)], text: &str) -> bool {
    use yinsh_zero::engine::{GoLine, read_go_line};
    let mut accepted = false;
    for line in text.lines() {
        for (game, pos) in at {
            match read_go_line(game, pos, line) {
                Ok(GoLine::BestMove(a)) => {
                    assert!(pos.is_legal(a), "`{line}` read as the illegal {a}");
                    accepted = true;
                }
                Ok(GoLine::Info(info)) => {
                    let mut p = pos.clone();
                    for &a in &info.pv {
                        p.play(a).expect("a principal variation read replays");
                    }
                }
                Ok(GoLine::Other) => {}
                Err(e) => assert!(!e.is_empty()),
            }
        }
    }
    accepted
}

fn client_corpus<G: Game>(at: &[(G, G::State)], rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (game, pos) in at.iter().step_by(3) {
        let legal = pos.legal_actions();
        let a = *legal.choose(rng).expect("not over");
        let mut p = pos.clone();
        p.play(a).unwrap();
        let line = decisions_from(game, &p, rng);
        out.push(
            format!(
                "info depth 3 nodes 1234 value -0.25 score 17 time 5 pv {a} {line}\nbestmove {a}\n\
                 id name fuzz\nyinshok\nreadyok\nerror nothing\n"
            )
            .into_bytes(),
        );
    }
    out
}

/// A few decisions on from `from`, in notation.
fn decisions_from<G: Game>(game: &G, from: &G::State, rng: &mut SmallRng) -> String {
    let mut s = from.clone();
    let mut actions = Vec::new();
    while !s.is_over() && actions.len() < 6 {
        let a = *s.legal_actions().choose(rng).unwrap();
        s.play(a).unwrap();
        actions.push(a);
    }
    game.format_game(from, &actions)
}

#[test]
fn engine_client() {
    let mut rng = SmallRng::seed_from_u64(37);
    let yinsh = positions(&variants::<Yinsh>(), &mut rng);
    let morris = positions(&variants::<Morris>(), &mut rng);
    let grid = positions(&variants::<Grid>(), &mut rng);
    let emergo = positions(&variants::<Emergo>(), &mut rng);
    let connect4 = positions(&variants::<Connect4>(), &mut rng);
    let mut corpus = client_corpus(&yinsh, &mut rng);
    corpus.extend(client_corpus(&morris, &mut rng));
    corpus.extend(client_corpus(&grid, &mut rng));
    corpus.extend(client_corpus(&emergo, &mut rng));
    corpus.extend(client_corpus(&connect4, &mut rng));
    let words = words_of(&corpus);
    let target = Target {
        name: "engine_client",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: SMOKE,
        all_threads: false,
    };
    let summary = run(target, |bytes| {
        let text = text(bytes);
        let a = go_answers(&yinsh, &text);
        let b = go_answers(&morris, &text);
        let c = go_answers(&grid, &text);
        let d = go_answers(&emergo, &text);
        let e = go_answers(&connect4, &text);
        a | b | c | d | e
    });
    assert!(
        summary.accepted > 0,
        "no bestmove read: the corpus is broken"
    );
}

// -------------------------------------------------------------------- web

/// The POST routes, `{id}` standing for a game made for each input.
const ROUTES: &[(&str, Option<&str>)] = &[
    ("/api/games", None),
    ("/api/review", None),
    ("/api/games/{id}/play", Some("/api/games")),
    ("/api/games/{id}/engine", Some("/api/games")),
    ("/api/games/{id}/undo", Some("/api/games")),
    ("/api/morris/games", None),
    ("/api/morris/games/{id}/play", Some("/api/morris/games")),
    ("/api/morris/games/{id}/engine", Some("/api/morris/games")),
    ("/api/morris/games/{id}/undo", Some("/api/morris/games")),
    ("/api/grid/games", None),
    ("/api/grid/games/{id}/play", Some("/api/grid/games")),
    ("/api/grid/games/{id}/engine", Some("/api/grid/games")),
    ("/api/grid/games/{id}/undo", Some("/api/grid/games")),
    ("/api/emergo/games", None),
    ("/api/emergo/games/{id}/play", Some("/api/emergo/games")),
    ("/api/emergo/games/{id}/engine", Some("/api/emergo/games")),
    ("/api/emergo/games/{id}/undo", Some("/api/emergo/games")),
    ("/api/connect4/games", None),
    ("/api/connect4/games/{id}/play", Some("/api/connect4/games")),
    (
        "/api/connect4/games/{id}/engine",
        Some("/api/connect4/games"),
    ),
    ("/api/connect4/games/{id}/undo", Some("/api/connect4/games")),
];

/// Bodies for each route (the route's index first).
fn web_corpus(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let sgf = include_str!("../data/Y-DrMih-Dumbot-2026-02-20-0858.sgf");
    let (_, yinsh_game) = random_game(&Yinsh::standard(), rng, 30);
    let yinsh_moves = Yinsh::standard().format_game(&Yinsh::standard().start(), &yinsh_game);
    let decisions = [
        Yinsh::standard().start().legal_actions()[0].to_string(),
        variants::<Morris>()[0].start().legal_actions()[0].to_string(),
        variants::<Grid>()[0].start().legal_actions()[0].to_string(),
        variants::<Emergo>()[0].start().legal_actions()[0].to_string(),
        variants::<Connect4>()[0].start().legal_actions()[3].to_string(),
    ];
    let bodies: Vec<(usize, String)> = vec![
        (0, "{}".into()),
        (0, r#"{"color":"black","opponent":"random","blitz":true,"random_placement":true,"seed":7}"#.into()),
        (0, r#"{"color":"white","opponent":"alphabeta:depth=1","seed":1}"#.into()),
        (1, serde_json::json!({ "moves": yinsh_moves }).to_string()),
        (1, serde_json::json!({ "sgf": sgf }).to_string()),
        (1, serde_json::json!({ "moves": "e3 f6", "blitz": true }).to_string()),
        (2, serde_json::json!({ "decision": decisions[0] }).to_string()),
        (3, "".into()),
        (4, "{}".into()),
        (5, r#"{"variant":"six","color":"white","opponent":"random","seed":3}"#.into()),
        (5, r#"{"variant":"three","opponent":"perfect"}"#.into()),
        (6, serde_json::json!({ "action": decisions[1] }).to_string()),
        (7, "".into()),
        (8, "{}".into()),
        (9, r#"{"variant":"5x5","color":"black","opponent":"random","seed":2}"#.into()),
        (10, serde_json::json!({ "action": decisions[2] }).to_string()),
        (11, "".into()),
        (12, "{}".into()),
        (13, r#"{"variant":"small","color":"white","opponent":"random","seed":4}"#.into()),
        (14, serde_json::json!({ "action": decisions[3] }).to_string()),
        (15, "".into()),
        (16, "{}".into()),
        (17, r#"{"color":"black","opponent":"alphabeta:depth=2","seed":5}"#.into()),
        (17, r#"{"color":"white","opponent":"random","seed":6}"#.into()),
        (18, serde_json::json!({ "action": decisions[4] }).to_string()),
        (19, "".into()),
        (20, "{}".into()),
    ];
    bodies
        .into_iter()
        .map(|(route, body)| {
            let mut b = vec![route as u8];
            b.extend_from_slice(body.as_bytes());
            b
        })
        .collect()
}

#[test]
fn web_bodies() {
    use axum::body::{Body, to_bytes};
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt;
    use yinsh_zero::games::router;
    use yinsh_zero::web::ServeConfig;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Engines and analyses as short as the server allows, so that inputs
    // are many: parsing is what is tried here, not thinking.
    let config = ServeConfig {
        default_opponent: "random".into(),
        max_think: std::time::Duration::from_millis(2),
        analysis_simulations: 2,
        max_analysis_simulations: 4,
        ..ServeConfig::default()
    };
    let app = router(config);
    let post = |path: &str, body: Vec<u8>| -> (StatusCode, bool, Vec<u8>) {
        let request = Request::builder()
            .method("POST")
            .uri(path)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap();
        runtime.block_on(async {
            let response = app.clone().oneshot(request).await.unwrap();
            let status = response.status();
            let json = response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/json"));
            let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
            (status, json, body.to_vec())
        })
    };
    let mut rng = SmallRng::seed_from_u64(38);
    let corpus = web_corpus(&mut rng);
    let words = words_of(&corpus);
    let target = Target {
        name: "web_bodies",
        corpus,
        dictionary: &slices(&words),
        fix: None,
        smoke: 600,
        all_threads: true,
    };
    let summary = run(target, |bytes| {
        let Some((&route, body)) = bytes.split_first() else {
            return false;
        };
        let (template, games) = ROUTES[route as usize % ROUTES.len()];
        let path = match games {
            None => template.to_string(),
            Some(games) => {
                // A fresh game for each input, so an input is reproduced alone.
                let made = br#"{"color":"white","opponent":"random","seed":5}"#.to_vec();
                let (status, _, reply) = post(games, made);
                assert!(
                    status.is_success(),
                    "POST {games} (a new game for the input) answered {status}: {} \
                     (if the new-game request changed, change it here and in web_corpus)",
                    text(&reply)
                );
                let view: serde_json::Value = serde_json::from_slice(&reply).unwrap();
                let id = view["id"].as_str().expect("a new game's view has its id");
                template.replace("{id}", id)
            }
        };
        let (status, json, reply) = post(&path, body.to_vec());
        let shown = || format!("POST {path} {}: {status}: {}", text(body), text(&reply));
        assert!(
            status.is_success() || status.is_client_error(),
            "{}",
            shown()
        );
        assert!(json, "not JSON: {}", shown());
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&reply);
        assert!(
            parsed.is_ok(),
            "a JSON answer that does not parse: {}",
            shown()
        );
        status.is_success()
    });
    assert!(
        summary.accepted > 0,
        "no request succeeded: the corpus is broken"
    );
}
