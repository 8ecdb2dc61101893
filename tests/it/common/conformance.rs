//! The conformance suite every game runs (issue 31): what the [`Game`] and
//! [`State`] interface promises, checked on positions from seeded random
//! games, for any game, once.
//!
//! Each check is a function generic over the game, so a game's own tests
//! may call one on their positions; `tests/it/conformance.rs` runs them all on
//! every game and variant of the registry ([`yinsh_zero::games::GAMES`])
//! and on tic-tac-toe (`tests/it/common/tictactoe.rs`).
//!
//! - [`symmetries`]: symmetry 0 is the identity, each one permutes the
//!   action index and has an inverse among them, round-trips positions,
//!   keeps who acts and the result, maps the legal actions onto the legal
//!   actions of the image, commutes with play, and moves the encoding's
//!   cells as it moves the first policy plane's cells.
//! - [`encoding`]: the encoding fills exactly `net_shape().input_size()`
//!   floats, all finite, the same whatever the buffer held; legal actions
//!   are distinct indices inside the action space that name them back.
//! - [`notation`]: every legal action formats and parses back to itself;
//!   whole games format and parse back.
//! - [`random_games_end`]: random games end with a result within a bound,
//!   with legal actions at every decision before the end.
//! - [`perft_is_pinned`]: perft from the start at depths `1..=k` equals
//!   pinned numbers.
//! - [`records`]: positions round-trip through the game's record bytes, and
//!   a self-play-shaped record file of a random game written with
//!   [`record::write`] reads back identical with [`record::read`].

// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

use std::collections::{BTreeSet, HashSet};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::game::perft::perft;
use yinsh_zero::game::{ActionOf, Color, Game, State};
use yinsh_zero::replay::record::{self, RecordFile, RecordMeta, Sample};

/// The checks, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Symmetries,
    Encoding,
    Notation,
    RandomGamesEnd,
    Perft,
    Records,
}

/// What the interface cannot say about a game and a check needs.
#[derive(Clone, Copy, Debug)]
pub struct Expect<'a> {
    /// Perft from the start at depths 1, 2, ...; `None` where nothing is
    /// pinned (the perft check then fails, naming the counts to pin).
    pub perft: Option<&'a [u64]>,
    /// The most decisions a random game may take before it must have ended.
    pub max_decisions: usize,
}

/// Random games each check plays at least (seeded, so every run sees the
/// same), and positions they reach at least: short games play more.
pub const GAMES: usize = 3;
pub const POSITIONS: usize = 100;
/// Random games [`random_games_end`] plays.
pub const ENDING_GAMES: usize = 12;
/// The seed of the random games.
pub const SEED: u64 = 31;

/// `yinsh standard`: names a game and variant in messages.
pub fn label<G: Game>(game: &G) -> String {
    format!("{} {}", G::NAME, game.variant())
}

/// One random game: every position from the start to the end, and the
/// actions between them.
#[derive(Clone, Debug)]
pub struct Played<G: Game> {
    pub positions: Vec<G::State>,
    pub actions: Vec<ActionOf<G>>,
}

impl<G: Game> Played<G> {
    pub fn last(&self) -> &G::State {
        self.positions.last().expect("a game has a start")
    }
}

/// Plays a uniformly random game from the start, checking on the way what
/// every decision promises: legal actions while the game runs, each one
/// playable, a clock that never runs back, an end reason only at the end,
/// and a result within `max_decisions` decisions.
pub fn play_random<G: Game>(game: &G, rng: &mut SmallRng, max_decisions: usize) -> Played<G> {
    let name = label(game);
    let mut pos = game.start();
    let mut played = Played {
        positions: vec![pos.clone()],
        actions: Vec::new(),
    };
    while !pos.is_over() {
        assert_eq!(pos.result(), None, "{name}: a running game has a result");
        assert_eq!(pos.end_reason(), None, "{name}: a running game has an end");
        let legal = pos.legal_actions();
        assert!(
            !legal.is_empty(),
            "{name}: a running game without a legal action\n{pos}"
        );
        assert!(
            played.actions.len() < max_decisions,
            "{name}: a random game runs past {max_decisions} decisions\n{pos}"
        );
        assert_eq!(pos.legal_action_count(), legal.len(), "{name}\n{pos}");
        let a = legal[rng.random_range(0..legal.len())];
        let before = pos.ply();
        pos.play(a)
            .unwrap_or_else(|e| panic!("{name}: a legal action is refused: {e}"));
        assert!(pos.ply() >= before, "{name}: the clock ran back after {a}");
        played.positions.push(pos.clone());
        played.actions.push(a);
    }
    assert!(pos.result().is_some(), "{name}: over without a result");
    for c in [Color::White, Color::Black] {
        if let Some(m) = pos.margin(c) {
            assert!(
                m.is_finite() && (-1.0..=1.0).contains(&m),
                "{name}: margin {m} for {c:?} outside [-1, 1]\n{pos}"
            );
        }
    }
    played
}

/// Seeded random games (see [`play_random`]): at least `games`, and
/// at least `positions` positions in all.
pub fn random_games<G: Game>(
    game: &G,
    games: usize,
    positions: usize,
    seed: u64,
    max_decisions: usize,
) -> Vec<Played<G>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out: Vec<Played<G>> = Vec::new();
    while out.len() < games || out.iter().map(|p| p.positions.len()).sum::<usize>() < positions {
        out.push(play_random(game, &mut rng, max_decisions));
    }
    out
}

/// Every position of `played`.
pub fn positions<G: Game>(played: &[Played<G>]) -> Vec<G::State> {
    played.iter().flat_map(|p| p.positions.clone()).collect()
}

/// Runs one check on `game` with the suite's random games; returns a line
/// saying what it checked.
pub fn run<G: Game>(check: Check, game: &G, expect: &Expect) -> String {
    let name = label(game);
    let games = || random_games(game, GAMES, POSITIONS, SEED, expect.max_decisions);
    match check {
        Check::Symmetries => {
            let n = symmetries(game, &positions(&games()));
            format!("{name}: {} symmetries, {n} positions", game.symmetries())
        }
        Check::Encoding => format!("{name}: {} positions", encoding(game, &positions(&games()))),
        Check::Notation => format!("{name}: {} actions", notation(game, &games())),
        Check::RandomGamesEnd => {
            let d = random_games_end(game, ENDING_GAMES, SEED + 1, expect.max_decisions);
            format!("{name}: {ENDING_GAMES} games, the longest {d} decisions")
        }
        Check::Perft => {
            let pinned = expect.perft.unwrap_or_else(|| {
                let counts: Vec<u64> = (1..=3).map(|d| perft(&game.start(), d)).collect();
                panic!(
                    "{name}: no perft pinned; this build counts {counts:?} at depths 1 to 3: \
                     pin them in tests/it/conformance.rs"
                )
            });
            perft_is_pinned(game, pinned);
            format!("{name}: perft 1..={} = {pinned:?}", pinned.len())
        }
        Check::Records => format!("{name}: {} positions", records(game, &games())),
    }
}

// ---------------------------------------------------------------------------
// The checks.

/// The symmetries of `game` on `positions`; returns how many were checked.
pub fn symmetries<G: Game>(game: &G, positions: &[G::State]) -> usize {
    let name = label(game);
    let n = game.symmetries();
    assert!(
        n >= 1,
        "{name}: symmetry 0 is the identity, so there is one"
    );
    let shape = game.net_shape();
    let space = shape.action_space();
    let cells = shape.cells();

    // Each symmetry is a permutation of the action index, symmetry 0 the
    // identity, all different, each with an inverse among them.
    let maps: Vec<Vec<usize>> = (0..n)
        .map(|k| (0..space).map(|i| game.transform_index(i, k)).collect())
        .collect();
    assert!(
        maps[0].iter().enumerate().all(|(i, &j)| i == j),
        "{name}: symmetry 0 moves the action index"
    );
    for (k, map) in maps.iter().enumerate() {
        let image: BTreeSet<usize> = map.iter().copied().collect();
        assert!(
            image.len() == space && image.iter().all(|&j| j < space),
            "{name}: symmetry {k} is not a permutation of the {space} action indices"
        );
    }
    let distinct: HashSet<&Vec<usize>> = maps.iter().collect();
    assert_eq!(distinct.len(), n, "{name}: two symmetries move alike");
    let inverse: Vec<usize> = (0..n)
        .map(|k| {
            (0..n)
                .find(|&j| (0..space).all(|i| maps[j][maps[k][i]] == i))
                .unwrap_or_else(|| panic!("{name}: symmetry {k} has no inverse among them"))
        })
        .collect();
    // The encoding's cells move as the first policy plane's cells do.
    assert!(shape.policy_planes >= 1, "{name}: no policy plane");
    let cell_maps: Vec<&[usize]> = maps.iter().map(|m| &m[..cells]).collect();
    for (k, m) in cell_maps.iter().enumerate() {
        assert!(
            m.iter().all(|&c| c < cells),
            "{name}: symmetry {k} moves a cell of the first policy plane off that plane"
        );
    }

    let mut checked = 0;
    let mut e = vec![0.0; shape.input_size()];
    let mut et = vec![0.0; shape.input_size()];
    for s in positions {
        assert_eq!(&game.transform(s, 0), s, "{name}: symmetry 0 moves\n{s}");
        game.encode(s, &mut e);
        let legal = s.legal_actions();
        for k in 0..n {
            let t = game.transform(s, k);
            let at = |what: &str| format!("{name} symmetry {k}: {what}\n{s}");
            assert_eq!(
                &game.transform(&t, inverse[k]),
                s,
                "{}",
                at("no round trip")
            );
            assert_eq!(t.result(), s.result(), "{}", at("result"));
            if !s.is_over() {
                assert_eq!(t.to_act(), s.to_act(), "{}", at("to act"));
            }
            assert_eq!(t.ply(), s.ply(), "{}", at("ply"));

            let mapped: BTreeSet<usize> = legal
                .iter()
                .map(|&a| maps[k][game.action_index(a)])
                .collect();
            let image_legal = t.legal_actions();
            let want: BTreeSet<usize> = image_legal.iter().map(|&a| game.action_index(a)).collect();
            assert_eq!(mapped, want, "{}", at("legal actions"));
            assert_eq!(image_legal.len(), legal.len(), "{}", at("legal count"));

            for &a in legal.iter() {
                let ta = game
                    .action_from_index(maps[k][game.action_index(a)])
                    .unwrap_or_else(|| panic!("{}", at(&format!("{a} goes to no action"))));
                let mut after = s.clone();
                after.play_unchecked(a);
                let mut image_after = t.clone();
                image_after
                    .play(ta)
                    .unwrap_or_else(|err| panic!("{}", at(&format!("{a} -> {ta}: {err}"))));
                assert_eq!(
                    game.transform(&after, k),
                    image_after,
                    "{}",
                    at(&format!(
                        "play {a} then transform is not transform then play {ta}"
                    ))
                );
            }

            game.encode(&t, &mut et);
            for plane in 0..shape.planes {
                for c in 0..cells {
                    assert_eq!(
                        et[plane * cells + cell_maps[k][c]],
                        e[plane * cells + c],
                        "{}",
                        at(&format!("encoding plane {plane} cell {c}"))
                    );
                }
            }
        }
        checked += 1;
    }
    checked
}

/// Floats past the input that [`encoding`] checks are left alone.
const GUARD: usize = 16;

/// The encoding's shape and the legal actions' indices on `positions`;
/// returns how many were checked.
pub fn encoding<G: Game>(game: &G, positions: &[G::State]) -> usize {
    let name = label(game);
    let shape = game.net_shape();
    assert!(
        shape.planes > 0 && shape.height > 0 && shape.width > 0,
        "{name}: empty input {shape:?}"
    );
    assert_eq!(
        shape.input_size(),
        shape.planes * shape.height * shape.width
    );
    let space = shape.action_space();
    assert!(space > 0, "{name}: empty action space");
    assert_eq!(
        game.tensor_layout().planes.len(),
        shape.planes,
        "{name}: the layout names another number of planes"
    );
    let size = shape.input_size();
    let mut checked = 0;
    for s in positions {
        let mut a = vec![f32::NAN; size + GUARD];
        let mut b = vec![7.5; size + GUARD];
        game.encode(s, &mut a);
        game.encode(s, &mut b);
        assert!(
            a[..size].iter().all(|x| x.is_finite()),
            "{name}: the encoding leaves part of its {size} floats unwritten\n{s}"
        );
        assert_eq!(
            a[..size],
            b[..size],
            "{name}: the encoding depends on the buffer\n{s}"
        );
        assert!(
            a[size..].iter().all(|x| x.is_nan()) && b[size..].iter().all(|&x| x == 7.5),
            "{name}: the encoding writes past its {size} floats\n{s}"
        );

        let legal = s.legal_actions();
        let mut seen = BTreeSet::new();
        for &act in legal.iter() {
            let i = game.action_index(act);
            assert!(i < space, "{name}: {act} has index {i}, past {space}\n{s}");
            assert!(
                seen.insert(i),
                "{name}: two legal actions share index {i}\n{s}"
            );
            assert_eq!(
                game.action_from_index(i),
                Some(act),
                "{name}: index {i}\n{s}"
            );
            assert!(
                s.is_legal(act),
                "{name}: {act} is listed but not legal\n{s}"
            );
        }
        checked += 1;
    }
    checked
}

/// Notation on the games of `played`: every legal action along them, and
/// each whole game; returns how many actions were read back.
pub fn notation<G: Game>(game: &G, played: &[Played<G>]) -> usize {
    let name = label(game);
    let mut checked = 0;
    for p in played {
        for s in &p.positions {
            for &a in s.legal_actions().iter() {
                let text = a.to_string();
                assert_eq!(
                    game.parse_action(s, &text),
                    Ok(a),
                    "{name}: `{text}` does not read back\n{s}"
                );
                checked += 1;
            }
        }
        let start = &p.positions[0];
        let text = game.format_game(start, &p.actions);
        assert_eq!(
            game.parse_game(start, &text).as_deref(),
            Ok(p.actions.as_slice()),
            "{name}: the game `{text}` does not read back"
        );
    }
    checked
}

/// `n` random games end, each within `max_decisions` (see
/// [`play_random`]); returns the longest game's decisions.
pub fn random_games_end<G: Game>(game: &G, n: usize, seed: u64, max_decisions: usize) -> usize {
    random_games(game, n, 0, seed, max_decisions)
        .iter()
        .map(|p| {
            assert!(p.last().is_over());
            p.actions.len()
        })
        .max()
        .unwrap_or(0)
}

/// Perft from the start at depths `1..=pinned.len()` equals `pinned`.
pub fn perft_is_pinned<G: Game>(game: &G, pinned: &[u64]) {
    let start = game.start();
    assert_eq!(perft(&start, 0), 1);
    let counts: Vec<u64> = (1..=pinned.len() as u32)
        .map(|d| perft(&start, d))
        .collect();
    assert_eq!(counts, pinned, "{}: perft from the start", label(game));
}

/// Record bytes on the games of `played`: every position round-trips
/// through [`Game::write_state`], and a self-play-shaped record file of each
/// game (a sample per decision, a policy over its legal actions, the
/// result, margin and moves left from the game's end, a search value on
/// some) reads back identical; returns how many positions were checked.
pub fn records<G: Game>(game: &G, played: &[Played<G>]) -> usize {
    let name = label(game);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut rng = SmallRng::seed_from_u64(SEED + 2);
    let mut checked = 0;
    for (g, p) in played.iter().enumerate() {
        for s in &p.positions {
            let mut bytes = Vec::new();
            game.write_state(s, &mut bytes);
            let back = match game.read_state(&bytes) {
                Ok(back) => back,
                // Records hold no finished position, and a game may refuse
                // one (Morris does); what it reads must be the position.
                Err(_) if s.is_over() => continue,
                Err(e) => panic!("{name}: {e}\n{s}"),
            };
            assert_eq!(&back, s, "{name}: the position does not read back");
            assert_eq!(
                back.key(),
                s.key(),
                "{name}: the key does not read back\n{s}"
            );
            let mut again = Vec::new();
            game.write_state(&back, &mut again);
            assert_eq!(again, bytes, "{name}: the bytes do not read back\n{s}");
            checked += 1;
        }

        let last = p.last();
        let result = last.result().expect("a random game ends");
        let samples: Vec<Sample> = p.positions[..p.positions.len() - 1]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let me = s.to_act();
                let legal = s.legal_actions();
                let weights: Vec<u32> = legal.iter().map(|_| rng.random_range(1..=100)).collect();
                let total: u32 = weights.iter().sum();
                let policy = legal
                    .iter()
                    .zip(&weights)
                    .map(|(&a, &w)| (game.action_index(a) as u32, w as f32 / total as f32))
                    .collect();
                let margin = last.margin(me);
                let left = last.ply() - s.ply();
                let wdl = (i % 2 == 0).then(|| {
                    let w = rng.random_range(0.0..0.5f32);
                    let d = rng.random_range(0.0..0.5f32);
                    [w, d, 1.0 - w - d]
                });
                let search_margin = margin
                    .filter(|_| i % 3 == 0)
                    .map(|_| rng.random_range(-1.0..=1.0f32));
                let mut sample = Sample::new(game, s, policy, result.score_for(me), margin, left)
                    .with_search_wdl(wdl)
                    .with_search_margin(search_margin);
                sample.full_search = i % 3 != 1;
                sample
            })
            .collect();
        let file = RecordFile {
            meta: RecordMeta {
                game: G::NAME.into(),
                variant: game.variant().into(),
                generation: g as u64,
                games: 1,
                producer: "conformance".into(),
            },
            samples,
        };
        let path = dir.path().join(format!("{g}.rec"));
        record::write(&path, &file).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = record::read(game, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, file, "{name}: the record file does not read back");
        for (sample, s) in back.samples.iter().zip(&p.positions) {
            assert_eq!(sample.validate(game).as_ref(), Ok(s), "{name}: sample");
        }
        // A reader of another variant refuses the file.
        for &other in G::VARIANTS.iter().filter(|&&v| v != game.variant()) {
            let other = G::with_variant(other).expect("a listed variant");
            assert!(
                record::read(&other, &path).is_err(),
                "{name}: read as {}",
                label(&other)
            );
        }
    }
    checked
}
