//! The Morris family's rules, notation, records and symmetries, checked
//! against an independent implementation of the rules written here from
//! the boards' drawn lines (`docs/morris-rules.md`).
//!
//! The checks every game runs (symmetries, encoding, notation and record
//! round trips, random games ending, pinned perft) are in
//! `tests/it/conformance.rs`; this file keeps what is particular to Morris.

use std::collections::{BTreeSet, HashSet};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::arena::{parse_game_player, play_game, players_of};
use yinsh_zero::game::perft::perft;
use yinsh_zero::game::{Color, Game, GameResult, State};
use yinsh_zero::games::morris::{Action, Morris, NO_PROGRESS_LIMIT, Parts, Position, Variant};

// ---------------------------------------------------------------------------
// An independent rules implementation: points by name, lines as drawn.

/// Lines drawn on each board, point by point: consecutive points are
/// neighbours; a line of three is a mill.
fn lines(v: Variant) -> Vec<Vec<&'static str>> {
    let l = |s: &'static str| s.split_whitespace().collect::<Vec<_>>();
    match v {
        Variant::Nine => [
            "a1 a4 a7", "a7 d7 g7", "g7 g4 g1", "g1 d1 a1", "b2 b4 b6", "b6 d6 f6", "f6 f4 f2",
            "f2 d2 b2", "c3 c4 c5", "c5 d5 e5", "e5 e4 e3", "e3 d3 c3", "a4 b4 c4", "d7 d6 d5",
            "g4 f4 e4", "d1 d2 d3",
        ]
        .map(l)
        .to_vec(),
        Variant::Six => [
            "a1 a3 a5", "a5 c5 e5", "e5 e3 e1", "e1 c1 a1", "b2 b3 b4", "b4 c4 d4", "d4 d3 d2",
            "d2 c2 b2", "a3 b3", "c5 c4", "e3 d3", "c1 c2",
        ]
        .map(l)
        .to_vec(),
        Variant::Three => [
            "a1 a2 a3", "b1 b2 b3", "c1 c2 c3", "a1 b1 c1", "a2 b2 c2", "a3 b3 c3", "a1 b2 c3",
            "a3 b2 c1",
        ]
        .map(l)
        .to_vec(),
    }
}

struct Naive {
    names: Vec<&'static str>,
    adj: Vec<Vec<usize>>,
    mills: Vec<Vec<usize>>,
    flying: bool,
    mill_wins: bool,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct NState {
    board: Vec<u8>, // 0 empty, 1 White, 2 Black
    hand: [u8; 2],
    to_act: usize,
    removing: bool,
    over: bool,
}

impl Naive {
    fn new(v: Variant) -> Naive {
        let ls = lines(v);
        let mut names: Vec<&str> = ls.iter().flatten().copied().collect();
        names.sort();
        names.dedup();
        let at = |n: &str| names.iter().position(|&m| m == n).unwrap();
        let mut adj = vec![Vec::new(); names.len()];
        let mut mills = Vec::new();
        for line in &ls {
            for w in line.windows(2) {
                adj[at(w[0])].push(at(w[1]));
                adj[at(w[1])].push(at(w[0]));
            }
            if line.len() == 3 {
                mills.push(line.iter().map(|n| at(n)).collect());
            }
        }
        let (flying, mill_wins) = match v {
            Variant::Nine => (true, false),
            Variant::Six => (false, false),
            Variant::Three => (false, true),
        };
        Naive {
            names,
            adj,
            mills,
            flying,
            mill_wins,
        }
    }

    fn from(&self, pos: &Position) -> NState {
        let g = pos.geometry();
        let mut board = vec![0; self.names.len()];
        for (i, name) in self.names.iter().enumerate() {
            let p = g.parse_point(name).unwrap();
            board[i] = if pos.stones(Color::White) & p.bit() != 0 {
                1
            } else if pos.stones(Color::Black) & p.bit() != 0 {
                2
            } else {
                0
            };
        }
        NState {
            board,
            hand: [pos.hand(Color::White), pos.hand(Color::Black)],
            to_act: pos.to_act().index(),
            removing: pos.removing(),
            over: pos.is_over(),
        }
    }

    fn in_mill(&self, s: &NState, p: usize) -> bool {
        let who = s.board[p];
        self.mills
            .iter()
            .any(|m| m.contains(&p) && m.iter().all(|&q| s.board[q] == who))
    }

    fn moves(&self, s: &NState) -> Vec<(Option<usize>, usize, bool)> {
        // (from, to, is_removal)
        let me = s.to_act as u8 + 1;
        let them = 3 - me;
        let n = self.names.len();
        let mut out = Vec::new();
        if s.removing {
            let theirs: Vec<usize> = (0..n).filter(|&p| s.board[p] == them).collect();
            let free: Vec<usize> = theirs
                .iter()
                .copied()
                .filter(|&p| !self.in_mill(s, p))
                .collect();
            for p in if free.is_empty() { theirs } else { free } {
                out.push((None, p, true));
            }
        } else if s.hand[s.to_act] > 0 {
            for p in (0..n).filter(|&p| s.board[p] == 0) {
                out.push((None, p, false));
            }
        } else {
            let mine = (0..n).filter(|&p| s.board[p] == me).count();
            let fly = self.flying && mine == 3;
            for from in (0..n).filter(|&p| s.board[p] == me) {
                for to in 0..n {
                    if s.board[to] == 0 && (fly || self.adj[from].contains(&to)) {
                        out.push((Some(from), to, false));
                    }
                }
            }
        }
        out
    }

    fn end_turn(&self, s: &mut NState) {
        s.to_act = 1 - s.to_act;
        if s.hand[s.to_act] == 0 && self.moves(s).is_empty() {
            s.over = true;
        }
    }

    fn play(&self, s: &NState, (from, to, removal): (Option<usize>, usize, bool)) -> NState {
        let mut s = s.clone();
        let me = s.to_act as u8 + 1;
        if removal {
            s.board[to] = 0;
            s.removing = false;
            let them = 1 - s.to_act;
            let left =
                s.board.iter().filter(|&&b| b == them as u8 + 1).count() + s.hand[them] as usize;
            if left < 3 {
                s.over = true;
            } else {
                self.end_turn(&mut s);
            }
            return s;
        }
        match from {
            Some(f) => s.board[f] = 0,
            None => s.hand[s.to_act] -= 1,
        }
        s.board[to] = me;
        if self.in_mill(&s, to) {
            if self.mill_wins {
                s.over = true;
                return s;
            }
            if s.board.contains(&(3 - me)) {
                s.removing = true;
                return s;
            }
        }
        self.end_turn(&mut s);
        s
    }

    fn perft(&self, s: &NState, depth: u32) -> u64 {
        if depth == 0 || s.over {
            return 1;
        }
        self.moves(s)
            .into_iter()
            .map(|m| self.perft(&self.play(s, m), depth - 1))
            .sum()
    }
}

// ---------------------------------------------------------------------------

fn game(v: Variant) -> Morris {
    Morris::new(v)
}

fn play_line(v: Variant, line: &str) -> Position {
    let g = game(v);
    let mut pos = g.start();
    for t in line.split_whitespace() {
        let a = g
            .parse_action(&pos, t)
            .unwrap_or_else(|e| panic!("{t}: {e}\n{pos}"));
        pos.play(a).unwrap();
    }
    pos
}

/// A position after `plies` random decisions (or fewer if the game ends).
fn random_position(v: Variant, plies: u32, rng: &mut SmallRng) -> Position {
    let mut pos = game(v).start();
    for _ in 0..plies {
        let legal = pos.legal_actions();
        let a = legal[rng.random_range(0..legal.len())];
        let mut next = pos.clone();
        next.play_unchecked(a);
        if next.is_over() {
            break;
        }
        pos = next;
    }
    pos
}

#[test]
fn perft_from_the_start_matches_the_independent_rules() {
    let nine = game(Variant::Nine).start();
    let counts: Vec<u64> = (0..=4).map(|d| perft(&nine, d)).collect();
    assert_eq!(counts, [1, 24, 552, 12_144, 255_024]);
    for v in [Variant::Nine, Variant::Six, Variant::Three] {
        let naive = Naive::new(v);
        let start = game(v).start();
        let depth = match v {
            Variant::Nine => 5,
            Variant::Six => 6,
            Variant::Three => 8,
        };
        assert_eq!(
            perft(&start, depth),
            naive.perft(&naive.from(&start), depth),
            "{v} depth {depth}"
        );
    }
}

#[test]
fn perft_from_random_positions_matches_the_independent_rules() {
    let mut rng = SmallRng::seed_from_u64(15);
    let mut phases = HashSet::new();
    for v in [Variant::Nine, Variant::Six, Variant::Three] {
        let naive = Naive::new(v);
        for _ in 0..60 {
            let plies = rng.random_range(0..60);
            let pos = random_position(v, plies, &mut rng);
            // A fresh history: the independent rules know no repetition
            // draws, and none can happen within three plies of it.
            let pos = Position::from_parts(
                v,
                Parts {
                    reps: 1,
                    quiet: 0,
                    ..pos.parts()
                },
            )
            .unwrap();
            phases.insert((
                v,
                pos.removing(),
                pos.hand(pos.to_act()) > 0,
                pos.flies(pos.to_act()),
            ));
            assert_eq!(
                perft(&pos, 3),
                naive.perft(&naive.from(&pos), 3),
                "{v}\n{pos}"
            );
        }
    }
    // Flying comes late in a game: take positions where the player to act
    // has just come down to three stones.
    let naive = Naive::new(Variant::Nine);
    let mut flying = 0;
    while flying < 20 {
        let mut pos = game(Variant::Nine).start();
        let ready = |p: &Position| p.flies(p.to_act()) && !p.removing();
        while !pos.is_over() && !ready(&pos) {
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        if pos.is_over() {
            continue;
        }
        let pos = Position::from_parts(
            Variant::Nine,
            Parts {
                reps: 1,
                quiet: 0,
                ..pos.parts()
            },
        )
        .unwrap();
        phases.insert((Variant::Nine, false, false, true));
        assert_eq!(
            perft(&pos, 3),
            naive.perft(&naive.from(&pos), 3),
            "nine\n{pos}"
        );
        flying += 1;
    }
    // The sample covers placing, moving, removing and flying.
    assert!(
        phases.contains(&(Variant::Nine, true, true, false)),
        "{phases:?}"
    );
    assert!(
        phases.contains(&(Variant::Nine, false, false, false)),
        "{phases:?}"
    );
    assert!(
        phases.contains(&(Variant::Six, true, false, false)),
        "{phases:?}"
    );
    assert!(
        phases.iter().any(|p| p.0 == Variant::Nine && p.3),
        "{phases:?}"
    );
}

#[test]
fn three_mens_morris_reachable_positions_match_the_independent_rules() {
    // Every position (stones, hands, player to act, removing, over) reachable
    // from the start, by both implementations. Repetition draws depend on
    // the history, not on these fields, so neither side ends games by them.
    let g = game(Variant::Three);
    let naive = Naive::new(Variant::Three);
    let mut ours = HashSet::new();
    let mut stack = vec![g.start()];
    while let Some(p) = stack.pop() {
        if !ours.insert(naive.from(&p)) || p.is_over() {
            continue;
        }
        for &a in p.legal_actions().iter() {
            let mut c = p.clone();
            c.play_unchecked(a);
            if c.result() != Some(GameResult::Draw) {
                stack.push(c);
            }
        }
    }
    let mut theirs = HashSet::new();
    let mut stack = vec![naive.from(&g.start())];
    while let Some(s) = stack.pop() {
        if !theirs.insert(s.clone()) || s.over {
            continue;
        }
        for m in naive.moves(&s) {
            stack.push(naive.play(&s, m));
        }
    }
    assert_eq!(ours, theirs);
    assert!(ours.len() > 1000, "{}", ours.len());
}

#[test]
fn mills_removals_and_endings() {
    // A mill removes a stone outside the opponent's mills.
    let pos = play_line(Variant::Nine, "a1 d2 a4 d3 a7");
    assert!(pos.removing());
    assert_eq!(pos.to_act(), Color::White);
    let removals: BTreeSet<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    assert_eq!(removals, ["xd2", "xd3"].map(String::from).into());
    let mut after = pos.clone();
    after
        .play(game(Variant::Nine).parse_action(&pos, "xd2").unwrap())
        .unwrap();
    assert_eq!(after.to_act(), Color::Black);
    assert_eq!(after.hand(Color::Black), 7);
    assert_eq!(after.total(Color::Black), 8);

    // Stones in a mill are taken only when all are in mills.
    let pos = play_line(Variant::Nine, "g1 a1 g4 a4 b2 a7 xb2 g7");
    assert!(pos.removing());
    let removals: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    assert_eq!(removals.len(), 3, "{removals:?}");
    let e = game(Variant::Nine).parse_action(&pos, "xb2").unwrap_err();
    assert!(e.contains("no black stone"), "{e}");

    // A wrong action is refused with its reason and leaves the state alone.
    let mut p = play_line(Variant::Six, "a1");
    let before = p.clone();
    let err = p
        .play(Action::Place(yinsh_zero::games::morris::Square {
            col: 0,
            row: 0,
        }))
        .unwrap_err();
    assert!(err.reason.contains("occupied"), "{err}");
    assert_eq!(p, before);
    let e = game(Variant::Six).parse_action(&p, "a2").unwrap_err();
    assert!(e.contains("not a point of the six board"), "{e}");
    let e = game(Variant::Six).parse_action(&p, "a1-a3").unwrap_err();
    assert!(e.contains("still has stones to place"), "{e}");

    // Three Men's Morris: a line of three wins at once.
    let p = play_line(Variant::Three, "a1 a2 b2 c1 c3");
    assert_eq!(p.result(), Some(GameResult::Win(Color::White)));
    assert_eq!(p.end_reason(), Some("line"));
}

/// Plays random games until one ends in the way `want` accepts.
fn find_game(v: Variant, seed: u64, want: impl Fn(&Position) -> bool) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..20_000 {
        let mut pos = game(v).start();
        while !pos.is_over() {
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        if want(&pos) {
            return pos;
        }
    }
    panic!("no such {v} game in 20000 random games");
}

#[test]
fn every_way_a_game_ends_happens() {
    let p = find_game(Variant::Nine, 1, |p| p.end_reason() == Some("two_stones"));
    let winner = p.result().unwrap().winner().unwrap();
    assert!(p.total(!winner) == 2, "{p}");
    let p = find_game(Variant::Six, 2, |p| p.end_reason() == Some("blocked"));
    let winner = p.result().unwrap().winner().unwrap();
    assert_eq!(
        p.to_act(),
        !winner,
        "the blocked player is the one to act\n{p}"
    );
    assert!(p.legal_actions().is_empty());
    let p = find_game(Variant::Three, 3, |p| p.end_reason() == Some("repetition"));
    assert_eq!(p.result(), Some(GameResult::Draw));
    assert_eq!(p.repetitions(), 3);
}

#[test]
fn flying_and_the_no_progress_draw() {
    // White has three stones and flies; Black has four and steps.
    let nine = Variant::Nine.geometry();
    let mask = |names: &str| {
        names
            .split_whitespace()
            .fold(0, |m, n| m | nine.parse_point(n).unwrap().bit())
    };
    let parts = Parts {
        stones: [mask("a1 d7 g4"), mask("b2 b4 f6 f2")],
        hand: [0, 0],
        to_act: Color::White,
        removing: false,
        ply: 40,
        quiet: NO_PROGRESS_LIMIT - 1,
        reps: 1,
    };
    let pos = Position::from_parts(Variant::Nine, parts).unwrap();
    assert!(pos.flies(Color::White) && !pos.flies(Color::Black));
    assert_eq!(pos.legal_actions().len(), 3 * 17);
    let a = game(Variant::Nine).parse_action(&pos, "a1-e4").unwrap();
    let mut next = pos.clone();
    next.play(a).unwrap();
    assert_eq!(next.result(), Some(GameResult::Draw));
    assert_eq!(next.end_reason(), Some("no_progress"));
    // A move that closes a mill on the last quiet move still removes first.
    let parts = Parts {
        stones: [mask("a1 a4 g4"), mask("b2 b4 f6 f2")],
        ..parts
    };
    let pos = Position::from_parts(Variant::Nine, parts).unwrap();
    let mut next = pos.clone();
    next.play(game(Variant::Nine).parse_action(&pos, "g4-a7").unwrap())
        .unwrap();
    assert!(next.removing() && !next.is_over());
    // ... and a record of that removal reads back (self-play stores it).
    let back = Position::from_parts(Variant::Nine, next.parts()).unwrap();
    assert!(back.removing() && back.quiet_moves() == NO_PROGRESS_LIMIT);
    assert_eq!(back.legal_actions(), next.legal_actions());
}

#[test]
fn action_index_is_a_bijection_onto_the_actions() {
    for v in [Variant::Nine, Variant::Six, Variant::Three] {
        let g = game(v);
        let mut seen = 0;
        for i in 0..g.net_shape().action_space() {
            if let Some(a) = g.action_from_index(i) {
                assert_eq!(g.action_index(a), i, "{v} {a}");
                seen += 1;
            }
        }
        let n = v.geometry().points;
        assert_eq!(seen, 2 * n + n * (n - 1), "{v}");
    }
}

#[test]
fn records_take_19_bytes_and_refuse_impossible_positions() {
    let mut rng = SmallRng::seed_from_u64(5);
    for v in [Variant::Nine, Variant::Six, Variant::Three] {
        let g = game(v);
        for _ in 0..200 {
            let s = random_position(v, rng.random_range(0..80), &mut rng);
            let mut bytes = Vec::new();
            g.write_state(&s, &mut bytes);
            assert_eq!(bytes.len(), 19);
        }
    }
    let g = game(Variant::Six);
    let mut good = Vec::new();
    g.write_state(&play_line(Variant::Six, "a1 b2"), &mut good);
    let bad = |edit: &dyn Fn(&mut Vec<u8>), want: &str| {
        let mut b = good.clone();
        edit(&mut b);
        let e = g.read_state(&b).unwrap_err();
        assert!(e.contains(want), "{want}: {e}");
    };
    bad(&|b| b.truncate(10), "takes 19 bytes");
    bad(&|b| b[3] = 0x80, "off the six board");
    bad(&|b| b[4] = 1, "both colours");
    bad(&|b| b[8] = 9, "more than 6");
    bad(&|b| b[10] = 1, "black cannot be to act");
    bad(&|b| b[10] = 7, "neither 0 nor 1");
    bad(
        &|b| {
            b[10] = 1;
            b[11] = 1;
        },
        "removing without a mill",
    );
    bad(&|b| b[18] = 3, "occurred 3 times");
}

#[test]
fn the_key_follows_the_position_not_the_move_order() {
    let a = play_line(Variant::Nine, "a1 d2 a4 d3");
    let b = play_line(Variant::Nine, "a4 d3 a1 d2");
    assert_eq!(a.key(), b.key());
    let c = play_line(Variant::Nine, "a4 d3 a1 d1");
    assert_ne!(a.key(), c.key());
}

#[test]
fn generic_players_play_it() {
    let names: Vec<&str> = players_of::<Morris>().iter().map(|p| p.name).collect();
    assert!(
        names.contains(&"alphabeta") && names.contains(&"mcts-rollout"),
        "{names:?}"
    );
    for v in [Variant::Six, Variant::Three] {
        let g = game(v);
        let mut a = parse_game_player(&g, "alphabeta:depth=2", 1).unwrap();
        let mut b = parse_game_player(&g, "random", 2).unwrap();
        let rec = play_game(a.as_mut(), b.as_mut(), g.start()).unwrap();
        assert_eq!(rec.final_position().result(), Some(rec.result));
        assert_ne!(
            rec.result,
            GameResult::Win(Color::Black),
            "{v}: {:?}",
            rec.actions
        );
    }
}

#[test]
fn the_engine_protocol_plays_it() {
    use yinsh_zero::engine::Engine;
    // Depth 3: White's mill and its removal are two decisions.
    let mut e = Engine::for_game(game(Variant::Six), "alphabeta:depth=3", 3).unwrap();
    assert_eq!(e.handle("game").lines, ["game morris six"]);
    assert!(
        e.handle("position startpos moves a1 b2 a3")
            .lines
            .is_empty()
    );
    let reply = e.handle("go");
    assert_eq!(
        reply.lines.last().unwrap(),
        "bestmove a5",
        "{:?}",
        reply.lines
    );
    assert!(e.handle("play a5").lines.is_empty());
    let d = e.handle("d").lines;
    assert_eq!(d.last().unwrap(), "moves a1 b2 a3 a5", "{d:?}");
}
