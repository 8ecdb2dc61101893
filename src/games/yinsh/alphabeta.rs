//! `alphabeta`: a classical YINSH engine. Negamax with alpha-beta pruning,
//! iterative deepening, a transposition table, and history move ordering,
//! over a hand-written evaluation.
//!
//! YINSH turns are made of several decisions by the same player (a move,
//! then a row and a ring to remove), so the search negates scores only where
//! the player to act changes. Depth counts turns (placements and ring
//! moves); row and ring removals and forced decisions are searched without
//! spending depth, which doubles as a quiescence search over pending rows.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::SmallRng};

use crate::arena::{MoveInfo, Player};
use crate::games::yinsh::lines::{VALID, WINDOWS, between};
use crate::games::yinsh::{ACTION_SPACE, Action, Bitboard, Color, Decision, Position};

/// Score of a won game (minus the plies it takes, so faster wins score higher).
const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses found by search.
const MATE_BOUND: i32 = WIN - 10_000;

/// Weights of the evaluation, in points for the player to act.
mod weight {
    /// A ring removed: the goal of the game.
    pub const RING: i32 = 10_000;
    /// Four own markers and an empty point in a five-window.
    pub const FOUR: i32 = 300;
    /// Three own markers and two empty points in a five-window.
    pub const THREE: i32 = 40;
    /// A marker on the board.
    pub const MARKER: i32 = 12;
    /// A legal ring destination.
    pub const MOBILITY: i32 = 3;
    /// Having the move is worth part of a four (it may be completed).
    pub const TEMPO: i32 = 60;
}

/// How deep and how long to search.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaConfig {
    /// Deepest iteration, in turns.
    pub depth: u32,
    /// Time per decision; the iteration in progress is abandoned when it runs out.
    pub time: Option<Duration>,
    /// log2 of the transposition-table entries (16 bytes each).
    pub tt_bits: u32,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            depth: 3,
            time: None,
            tt_bits: 18,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    score: i32,
    best: u16,
    depth: u8,
    bound: Bound,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Empty,
    Exact,
    Lower,
    Upper,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub best: Action,
    /// Score for the player to act (see the weights; ±1,000,000 is a win).
    pub score: i32,
    /// Deepest iteration completed, in turns.
    pub depth: u32,
    pub nodes: u64,
    /// Principal variation from the transposition table.
    pub pv: Vec<Action>,
}

/// The alpha-beta player.
pub struct AlphaBetaPlayer {
    config: AlphaBetaConfig,
    tt: Vec<TtEntry>,
    history: Vec<i32>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
    rng: SmallRng,
    last: Option<SearchInfo>,
}

/// All 123 five-windows of the board.
static ALL_WINDOWS: LazyLock<Vec<Bitboard>> = LazyLock::new(|| {
    WINDOWS
        .iter()
        .flat_map(|w| w.iter().copied())
        .filter(|w| w.any())
        .collect()
});

/// Static evaluation for the player to act in a running game.
pub fn static_eval(pos: &Position) -> i32 {
    let me = pos.to_act();
    side_score(pos, me) - side_score(pos, !me) + weight::TEMPO
}

fn side_score(pos: &Position, c: Color) -> i32 {
    let own = pos.markers(c);
    let empty = VALID & !pos.occupied();
    let (mut fours, mut threes) = (0, 0);
    for &w in ALL_WINDOWS.iter() {
        let n = (w & own).count();
        if n >= 3 && (w & own).count() + (w & empty).count() == 5 {
            if n == 4 {
                fours += 1;
            } else if n == 3 {
                threes += 1;
            }
        }
    }
    let mobility: u32 = pos.rings(c).map(|r| pos.ring_destinations(r).count()).sum();
    pos.rings_removed(c) as i32 * weight::RING
        + fours * weight::FOUR
        + threes * weight::THREE
        + own.count() as i32 * weight::MARKER
        + mobility as i32 * weight::MOBILITY
}

impl AlphaBetaPlayer {
    pub fn new(config: AlphaBetaConfig, seed: u64) -> Self {
        let n = 1usize << config.tt_bits.clamp(8, 28);
        AlphaBetaPlayer {
            config,
            tt: vec![TtEntry::default(); n],
            history: vec![0; ACTION_SPACE],
            nodes: 0,
            deadline: None,
            aborted: false,
            rng: SmallRng::seed_from_u64(seed),
            last: None,
        }
    }

    /// The last search's report.
    pub fn last_search(&self) -> Option<&SearchInfo> {
        self.last.as_ref()
    }

    /// Searches `pos` (not over) by iterative deepening.
    pub fn search(&mut self, pos: &Position) -> SearchInfo {
        assert!(!pos.is_over(), "search on a finished game");
        self.nodes = 0;
        self.aborted = false;
        self.deadline = self.config.time.map(|t| Instant::now() + t);
        self.history.iter_mut().for_each(|h| *h /= 8);
        let mut root: Vec<Action> = pos.legal_actions().to_vec();
        // Seeded shuffling varies play between games without losing
        // reproducibility; the stable sort below keeps it among equals.
        root.shuffle(&mut self.rng);
        let mut best = SearchInfo {
            best: root[0],
            score: 0,
            depth: 0,
            nodes: 0,
            pv: vec![root[0]],
        };
        if root.len() == 1 {
            return best;
        }
        for depth in 1..=self.config.depth.max(1) {
            let (score, action) = self.root(pos, &mut root, depth);
            if self.aborted {
                break;
            }
            best = SearchInfo {
                best: action,
                score,
                depth,
                nodes: self.nodes,
                pv: self.pv(pos, action),
            };
            if score.abs() >= MATE_BOUND {
                break;
            }
        }
        best.nodes = self.nodes;
        best
    }

    fn root(&mut self, pos: &Position, root: &mut [Action], depth: u32) -> (i32, Action) {
        if let Some(e) = self.probe(pos.hash())
            && let Some(i) = root.iter().position(|a| a.index() == e.best as usize)
        {
            root[..=i].rotate_right(1);
        }
        let (mut alpha, beta) = (-WIN - 1, WIN + 1);
        let mut best = root[0];
        for &a in root.iter() {
            let v = self.child_score(pos, a, depth, alpha, beta, 0);
            if self.aborted {
                break;
            }
            if v > alpha {
                alpha = v;
                best = a;
            }
        }
        if !self.aborted {
            self.store(pos.hash(), depth, alpha, Bound::Exact, best, 0);
            let i = root.iter().position(|&a| a == best).unwrap();
            root[..=i].rotate_right(1);
        }
        (alpha, best)
    }

    /// Score of playing `a` in `pos`, for the player to act in `pos`.
    fn child_score(
        &mut self,
        pos: &Position,
        a: Action,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: u32,
    ) -> i32 {
        let mut child = *pos;
        child.play_unchecked(a);
        let me = pos.to_act();
        let spent = matches!(pos.decision(), Decision::PlaceRing | Decision::MoveRing) as u32;
        let d = depth.saturating_sub(spent);
        if let Some(o) = child.outcome() {
            return match o.winner {
                None => 0,
                Some(w) if w == me => WIN - ply as i32 - 1,
                Some(_) => -(WIN - ply as i32 - 1),
            };
        }
        if child.to_act() == me {
            self.negamax(&child, d, alpha, beta, ply + 1)
        } else {
            -self.negamax(&child, d, -beta, -alpha, ply + 1)
        }
    }

    fn negamax(&mut self, pos: &Position, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0
            && let Some(d) = self.deadline
            && Instant::now() >= d
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let removal = matches!(pos.decision(), Decision::RemoveRow | Decision::RemoveRing);
        if depth == 0 && !removal {
            return static_eval(pos);
        }
        let key = pos.hash();
        let mut tt_best = None;
        if let Some(e) = self.probe(key) {
            tt_best = Some(e.best as usize);
            if e.depth as u32 >= depth {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let mut moves = pos.legal_actions();
        self.order(pos, &mut moves, tt_best);
        let alpha0 = alpha;
        let mut best_score = -WIN - 1;
        let mut best = moves[0];
        for &a in moves.iter() {
            let v = self.child_score(pos, a, depth, alpha, beta, ply);
            if self.aborted {
                return 0;
            }
            if v > best_score {
                best_score = v;
                best = a;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                self.history[a.index()] += (depth * depth) as i32 + 1;
                break;
            }
        }
        let bound = if best_score <= alpha0 {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.store(key, depth, best_score, bound, best, ply);
        best_score
    }

    /// Transposition-table move first, then by history, then by the markers
    /// a move flips to our colour (cheap and telling in YINSH).
    fn order(&self, pos: &Position, moves: &mut [Action], tt_best: Option<usize>) {
        let me = pos.to_act();
        let key = |a: &Action| -> i32 {
            if Some(a.index()) == tt_best {
                return i32::MIN;
            }
            let flips = match *a {
                Action::Move { from, to } => {
                    let b = between(from, to);
                    (b & pos.markers(!me)).count() as i32 - (b & pos.markers(me)).count() as i32
                }
                _ => 0,
            };
            -(self.history[a.index()] + 16 * flips)
        };
        moves.sort_by_cached_key(key);
    }

    fn probe(&self, key: u64) -> Option<TtEntry> {
        let e = self.tt[(key as usize) & (self.tt.len() - 1)];
        (e.bound != Bound::Empty && e.key == key).then_some(e)
    }

    fn store(&mut self, key: u64, depth: u32, score: i32, bound: Bound, best: Action, ply: u32) {
        let slot = (key as usize) & (self.tt.len() - 1);
        let old = self.tt[slot];
        // Keep deeper results of the same position; otherwise replace.
        if old.key == key && old.depth as u32 > depth && old.bound != Bound::Empty {
            return;
        }
        self.tt[slot] = TtEntry {
            key,
            score: to_tt(score, ply),
            best: best.index() as u16,
            depth: depth.min(255) as u8,
            bound,
        };
    }

    fn pv(&self, pos: &Position, first: Action) -> Vec<Action> {
        let mut pv = vec![first];
        let mut p = *pos;
        p.play_unchecked(first);
        while pv.len() < 16 && !p.is_over() {
            let Some(e) = self.probe(p.hash()) else { break };
            let Some(a) = Action::from_index(e.best as usize).filter(|&a| p.is_legal(a)) else {
                break;
            };
            pv.push(a);
            p.play_unchecked(a);
        }
        pv
    }
}

/// Win scores are stored relative to the node, so a transposition reached at
/// another ply reads the right distance to the win.
fn to_tt(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl Player<Position> for AlphaBetaPlayer {
    fn name(&self) -> String {
        match self.config.time {
            Some(t) => format!("alphabeta:time={}", t.as_millis()),
            None => format!("alphabeta:depth={}", self.config.depth),
        }
    }

    fn choose(&mut self, pos: &Position) -> Action {
        let info = self.search(pos);
        let best = info.best;
        self.last = Some(info);
        best
    }

    fn info(&self) -> Option<MoveInfo<Action>> {
        self.last.as_ref().map(|s| MoveInfo {
            // A logistic squash of the points: a ring (10,000) is worth
            // most of a win.
            value: Some((2.0 / (1.0 + (-(s.score as f64) / 4000.0).exp()) - 1.0) as f32),
            score: Some(s.score),
            depth: Some(s.depth),
            nodes: Some(s.nodes),
            evaluations: None,
            pv: s.pv.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::yinsh::{Axis, Variant};

    #[test]
    fn finds_the_winning_row_in_blitz() {
        // White's ring on f6 leaves the fifth marker of f2-f6 when it moves:
        // in Blitz that row and any ring win at once.
        let pos = Position::setup(
            "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 wf5",
            [0, 0],
            Color::White,
            Variant::BLITZ,
        )
        .unwrap();
        let mut ab = AlphaBetaPlayer::new(AlphaBetaConfig::default(), 1);
        let info = ab.search(&pos);
        assert!(info.score >= MATE_BOUND, "{info:?}");
        let mut p = pos;
        p.play(info.best).unwrap();
        assert_eq!(p.decision(), Decision::RemoveRow);
        assert_eq!(
            p.legal_actions().to_vec(),
            vec![Action::RemoveRow {
                start: "f2".parse().unwrap(),
                axis: Axis::Column
            }]
        );
    }

    #[test]
    fn evaluation_is_antisymmetric_up_to_tempo() {
        let pos = Position::setup(
            "Wf6 Wk7 Wk8 Wk9 Wk10 Ba2 Ba3 Ba4 Bb1 Bc1 wf2 wf3 wf4 bg5",
            [0, 0],
            Color::White,
            Variant::STANDARD,
        )
        .unwrap();
        let mut other = pos;
        other.to_act = Color::Black;
        assert_eq!(
            static_eval(&pos) - weight::TEMPO,
            -(static_eval(&other) - weight::TEMPO)
        );
        assert!(static_eval(&pos) > 0, "white has a three and more markers");
    }
}
