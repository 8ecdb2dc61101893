//! A one-ply greedy player: a cheap baseline that already knows what rows
//! are for.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::arena::Player;
use crate::games::yinsh::lines::five_starts;
use crate::games::yinsh::{Action, ActionList, Axis, Color, Decision, Position};

/// Score of a won game; a lost one scores its negative.
const WIN: i32 = 1_000_000;
/// Per ring removed, own minus opponent's.
const RING: i32 = 10_000;
/// Per row of five on the board, own minus opponent's: each is a ring about
/// to be removed, worth a little less than one already taken.
const ROW: i32 = 9_000;
/// The opponent, to move next, can complete a row with some ring move.
const THREAT: i32 = 5_000;
/// Per marker on the board, own minus opponent's.
const MARKER: i32 = 10;
/// Per legal ring destination, own minus opponent's.
const MOBILITY: i32 = 1;

/// Plays every legal action, scores the position it leads to, and picks
/// the best, breaking ties uniformly at random.
///
/// The score of a position, for the player `me` who just acted, is
/// - `±1_000_000` for a won / lost game, `0` for a drawn one; otherwise
/// - `10_000` per ring removed (own minus opponent's),
/// - `9_000` per row of five on the board (own minus opponent's), so a move
///   that completes an own row is taken and one that completes the
///   opponent's (by flipping its markers) is avoided; when several own rows
///   intersect, the row removal that breaks the fewest others wins;
/// - `-5_000` when it is now the opponent's ring move and one of its moves
///   completes an opponent row (one extra ply over the opponent's ~40
///   replies; switch it off with `threats = false` for a faster, weaker
///   player);
/// - `10` per marker (own minus opponent's): flip markers to one's colour;
/// - `1` per legal ring destination (own minus opponent's): mobility, which
///   also decides ring placements and which ring to give up after a row
///   (the one whose removal costs the least mobility).
///
/// ```
/// use yinsh_zero::arena::Player;
/// use yinsh_zero::games::yinsh::greedy::GreedyPlayer;
/// use yinsh_zero::games::yinsh::Position;
///
/// let mut p = GreedyPlayer::new(1);
/// let pos = Position::new();
/// assert!(pos.is_legal(p.choose(&pos)));
/// ```
#[derive(Clone, Debug)]
pub struct GreedyPlayer {
    rng: SmallRng,
    threats: bool,
    actions: ActionList,
    replies: ActionList,
    best: Vec<Action>,
}

impl GreedyPlayer {
    /// A greedy player that looks at the opponent's replies for row threats.
    pub fn new(seed: u64) -> GreedyPlayer {
        GreedyPlayer::with_threats(seed, true)
    }

    /// A greedy player; `threats = false` skips the opponent-reply check.
    pub fn with_threats(seed: u64, threats: bool) -> GreedyPlayer {
        GreedyPlayer {
            rng: SmallRng::seed_from_u64(seed),
            threats,
            actions: ActionList::new(),
            replies: ActionList::new(),
            best: Vec::new(),
        }
    }

    /// The score of `after` for `me`, as documented on [`GreedyPlayer`].
    pub fn score(&mut self, after: &Position, me: Color) -> i32 {
        if let Some(o) = after.outcome() {
            return WIN * o.score_for(me) as i32;
        }
        let opp = !me;
        let mut s = RING * (after.rings_removed(me) as i32 - after.rings_removed(opp) as i32);
        s += ROW * (rows(after, me) - rows(after, opp));
        s += MARKER * (after.markers(me).count() as i32 - after.markers(opp).count() as i32);
        s += MOBILITY * (mobility(after, me) - mobility(after, opp));
        if self.threats
            && after.decision() == Decision::MoveRing
            && after.to_act() == opp
            && self.opponent_can_make_row(after)
        {
            s -= THREAT;
        }
        s
    }

    fn opponent_can_make_row(&mut self, pos: &Position) -> bool {
        let opp = pos.to_act();
        pos.legal_actions_into(&mut self.replies);
        self.replies.iter().any(|&a| {
            let mut p = *pos;
            p.play_unchecked(a);
            p.has_row(opp)
        })
    }
}

/// Rows of five of `c` on the board (a line of six counts twice).
fn rows(pos: &Position, c: Color) -> i32 {
    Axis::ALL
        .into_iter()
        .map(|a| five_starts(pos.markers(c), a).count() as i32)
        .sum()
}

/// Legal destinations over all rings of `c`.
fn mobility(pos: &Position, c: Color) -> i32 {
    pos.rings(c)
        .map(|r| pos.ring_destinations(r).count() as i32)
        .sum()
}

impl Player<Position> for GreedyPlayer {
    fn name(&self) -> String {
        if self.threats {
            "greedy".into()
        } else {
            "greedy:threats=false".into()
        }
    }

    fn choose(&mut self, pos: &Position) -> Action {
        pos.legal_actions_into(&mut self.actions);
        assert!(
            !self.actions.is_empty(),
            "greedy player asked to act in a finished game:\n{pos}"
        );
        if self.actions.len() == 1 {
            return self.actions[0];
        }
        let me = pos.to_act();
        let mut best_score = i32::MIN;
        self.best.clear();
        // Taken out for the loop so scoring may borrow `self` mutably.
        let actions = std::mem::take(&mut self.actions);
        for &a in &actions {
            let mut after = *pos;
            after.play_unchecked(a);
            let s = self.score(&after, me);
            if s > best_score {
                best_score = s;
                self.best.clear();
            }
            if s == best_score {
                self.best.push(a);
            }
        }
        self.actions = actions;
        self.best[self.rng.random_range(0..self.best.len())]
    }
}
