//! The rules: a position, its legal decisions, and playing them.
//!
//! A [`Position`] is 80-odd bytes of bitboards and counters, so search trees
//! and self-play copy it freely. Every decision of the game is one
//! [`Action`]; [`Position::decision`] says what is being asked and
//! [`Position::to_act`] who must answer.
//!
//! Rules the printed rules leave open, as pinned in the project's rules doc:
//! - a player with no legal ring move passes (the designer's ruling);
//! - two passes in succession end the game, scored like an empty pool
//!   (the project's choice);
//! - the pool running out is checked after a move and all its removals.

use std::fmt;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use super::action::{Action, Color};
use super::bitboard::Bitboard;
use super::lines::{VALID, five_starts, ray};
use super::point::{Axis, Direction, Point};

/// Markers in the common pool at the start.
pub const MARKERS: u32 = 51;
/// Rings per side.
pub const RINGS: u32 = 5;

/// Enough room for the legal actions of any position: at most 85 placements,
/// 123 row windows, or 5 rings x 3 lines x 9 destinations.
pub const MAX_ACTIONS: usize = 160;

/// The legal actions of a position, on the stack.
pub type ActionList = ArrayVec<Action, MAX_ACTIONS>;

/// What the player to act must decide now.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Placement phase: put a ring on an empty point.
    PlaceRing,
    /// Movement phase: move a ring (or pass when none can move).
    MoveRing,
    /// Choose which row of five of one's colour to remove.
    RemoveRow,
    /// Choose which of one's rings to remove after removing a row.
    RemoveRing,
    /// The game has ended.
    GameOver,
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A player removed the rings needed to win (3, or 1 in Blitz).
    ThreeRings,
    /// All 51 markers are on the board after a move and its removals.
    PoolEmpty,
    /// Both players passed in succession.
    DoublePass,
    /// A player resigned (only from game records and external players).
    Resign,
}

impl EndReason {
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::ThreeRings => "three_rings",
            EndReason::PoolEmpty => "pool_empty",
            EndReason::DoublePass => "double_pass",
            EndReason::Resign => "resign",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// Rings removed by white and by black.
    pub rings_removed: [u8; 2],
}

impl Outcome {
    /// +1 if `c` won, -1 if it lost, 0 for a draw.
    pub fn score_for(&self, c: Color) -> i8 {
        match self.winner {
            None => 0,
            Some(w) if w == c => 1,
            Some(_) => -1,
        }
    }
}

/// Game options.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Variant {
    /// Rings a player must remove to win: 3 normally, 1 in Blitz.
    pub rings_to_win: u8,
}

impl Variant {
    pub const STANDARD: Variant = Variant { rings_to_win: 3 };
    pub const BLITZ: Variant = Variant { rings_to_win: 1 };

    /// Blitz if `blitz` (a `--blitz` flag, a request's `blitz` field), else
    /// standard.
    pub const fn blitz_if(blitz: bool) -> Variant {
        if blitz {
            Variant::BLITZ
        } else {
            Variant::STANDARD
        }
    }

    /// The name configs, records and the protocol write: `standard` or `blitz`.
    pub const fn name(self) -> &'static str {
        if self.rings_to_win == Variant::BLITZ.rings_to_win {
            "blitz"
        } else {
            "standard"
        }
    }
}

impl Default for Variant {
    fn default() -> Self {
        Variant::STANDARD
    }
}

pub use crate::game::IllegalAction;

/// A YINSH position, including whose decision it is and what is asked.
///
/// ```
/// use yinsh_zero::games::yinsh::{Action, Decision, Position, Color};
/// let mut pos = Position::new();
/// assert_eq!(pos.decision(), Decision::PlaceRing);
/// assert_eq!(pos.legal_actions().len(), 85);
/// pos.play(Action::Place("f6".parse().unwrap())).unwrap();
/// assert_eq!(pos.to_act(), Color::Black);
/// assert!(pos.play(Action::Place("f6".parse().unwrap())).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) rings: [Bitboard; 2],
    pub(crate) markers: [Bitboard; 2],
    pub(crate) removed: [u8; 2],
    pub(crate) to_act: Color,
    pub(crate) decision: Decision,
    /// The player whose move (or pass) is being resolved: their rows go first.
    pub(crate) last_mover: Color,
    pub(crate) passes: u8,
    /// Placements and ring moves made so far.
    pub(crate) turn: u16,
    pub(crate) variant: Variant,
    /// Set once the game is over.
    pub(crate) ending: Option<(Option<Color>, EndReason)>,
}

impl Default for Position {
    fn default() -> Self {
        Position::new()
    }
}

impl Position {
    /// The empty board, White to place, standard rules.
    pub fn new() -> Position {
        Position::with_variant(Variant::STANDARD)
    }

    /// The empty board under the Blitz rule (one ring wins).
    pub fn blitz() -> Position {
        Position::with_variant(Variant::BLITZ)
    }

    pub fn with_variant(variant: Variant) -> Position {
        Position {
            rings: [Bitboard::EMPTY; 2],
            markers: [Bitboard::EMPTY; 2],
            removed: [0; 2],
            to_act: Color::White,
            decision: Decision::PlaceRing,
            last_mover: Color::Black,
            passes: 0,
            turn: 0,
            variant,
            ending: None,
        }
    }

    #[inline]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// What is being decided now.
    #[inline]
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// Who makes the current decision (meaningless once the game is over).
    #[inline]
    pub fn to_act(&self) -> Color {
        self.to_act
    }

    /// Placements and ring moves made so far.
    #[inline]
    pub fn turn(&self) -> u32 {
        self.turn as u32
    }

    #[inline]
    pub fn rings(&self, c: Color) -> Bitboard {
        self.rings[c.index()]
    }

    #[inline]
    pub fn markers(&self, c: Color) -> Bitboard {
        self.markers[c.index()]
    }

    #[inline]
    pub fn rings_removed(&self, c: Color) -> u8 {
        self.removed[c.index()]
    }

    /// Points holding a ring or a marker.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.rings[0] | self.rings[1] | self.markers[0] | self.markers[1]
    }

    /// Markers left in the common pool.
    #[inline]
    pub fn pool(&self) -> u32 {
        MARKERS - (self.markers[0] | self.markers[1]).count()
    }

    /// Consecutive passes just made (0 or 1 in a running game).
    #[inline]
    pub fn passes(&self) -> u8 {
        self.passes
    }

    #[inline]
    pub fn is_over(&self) -> bool {
        self.decision == Decision::GameOver
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.ending.map(|(winner, reason)| Outcome {
            winner,
            reason,
            rings_removed: self.removed,
        })
    }

    /// What stands on `p`: `(colour, is_ring)`.
    pub fn piece_at(&self, p: Point) -> Option<(Color, bool)> {
        Color::BOTH.into_iter().find_map(|c| {
            if self.rings(c).contains(p) {
                Some((c, true))
            } else if self.markers(c).contains(p) {
                Some((c, false))
            } else {
                None
            }
        })
    }

    /// Whether `c` has a row of five markers on the board.
    #[inline]
    pub fn has_row(&self, c: Color) -> bool {
        let m = self.markers[c.index()];
        Axis::ALL.into_iter().any(|a| five_starts(m, a).any())
    }

    /// A 64-bit hash of everything that decides the rest of the game (pieces,
    /// rings removed, who acts and on what, the pass count, the variant). Two
    /// positions reached by different move orders hash alike.
    pub fn hash(&self) -> u64 {
        #[inline]
        fn mix(h: u64, v: u64) -> u64 {
            // splitmix64 finaliser over a running sum: cheap and well spread.
            let mut z = (h ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        let mut h = 0u64;
        for b in [
            self.rings[0],
            self.rings[1],
            self.markers[0],
            self.markers[1],
        ] {
            h = mix(h, b.0 as u64);
            h = mix(h, (b.0 >> 64) as u64);
        }
        let small = self.removed[0] as u64
            | (self.removed[1] as u64) << 8
            | (self.to_act as u64) << 16
            | (self.decision as u64) << 18
            | (self.last_mover as u64) << 21
            | (self.passes as u64) << 22
            | (self.variant.rings_to_win as u64) << 24;
        mix(h, small)
    }

    /// The legal actions, in a fixed order.
    pub fn legal_actions(&self) -> ActionList {
        let mut out = ActionList::new();
        self.legal_actions_into(&mut out);
        out
    }

    /// Fills `out` (cleared first) with the legal actions.
    pub fn legal_actions_into(&self, out: &mut ActionList) {
        out.clear();
        let me = self.to_act.index();
        match self.decision {
            Decision::PlaceRing => {
                out.extend((VALID & !self.occupied()).map(Action::Place));
            }
            Decision::MoveRing => {
                for from in self.rings[me] {
                    for to in self.ring_destinations(from) {
                        // Capacity: at most 5 rings x 27 destinations.
                        unsafe { out.push_unchecked(Action::Move { from, to }) };
                    }
                }
                if out.is_empty() {
                    out.push(Action::Pass);
                }
            }
            Decision::RemoveRow => {
                let m = self.markers[me];
                for axis in Axis::ALL {
                    out.extend(five_starts(m, axis).map(|start| Action::RemoveRow { start, axis }));
                }
            }
            Decision::RemoveRing => out.extend(self.rings[me].map(Action::RemoveRing)),
            Decision::GameOver => {}
        }
    }

    /// Number of legal actions, without building the list.
    pub fn legal_action_count(&self) -> usize {
        let me = self.to_act.index();
        match self.decision {
            Decision::PlaceRing => (VALID & !self.occupied()).count() as usize,
            Decision::MoveRing => {
                let n: u32 = self.rings[me]
                    .map(|r| self.ring_destinations(r).count())
                    .sum();
                n.max(1) as usize
            }
            Decision::RemoveRow => {
                let m = self.markers[me];
                Axis::ALL
                    .into_iter()
                    .map(|a| five_starts(m, a).count() as usize)
                    .sum()
            }
            Decision::RemoveRing => self.rings[me].count() as usize,
            Decision::GameOver => 0,
        }
    }

    /// Where the ring on `from` may go: along each direction, every empty
    /// point up to the first piece; if that piece is a marker, also the first
    /// empty point right after its contiguous group (never past a ring).
    #[inline]
    pub fn ring_destinations(&self, from: Point) -> Bitboard {
        let rings = self.rings[0] | self.rings[1];
        let markers = self.markers[0] | self.markers[1];
        let occ = rings | markers;
        let mut dests = Bitboard::EMPTY;
        for d in Direction::ALL {
            let r = ray(from, d);
            let blockers = r & occ;
            // Positive directions meet the nearest piece at the lowest index.
            let (first, before, after) = if d.is_positive() {
                match blockers.first() {
                    None => {
                        dests |= r;
                        continue;
                    }
                    Some(b) => (b, Bitboard::below(b), Bitboard::above(b)),
                }
            } else {
                match blockers.last() {
                    None => {
                        dests |= r;
                        continue;
                    }
                    Some(b) => (b, Bitboard::above(b), Bitboard::below(b)),
                }
            };
            dests |= r & before;
            if markers.contains(first) {
                let beyond = r & after & !markers;
                let landing = if d.is_positive() {
                    beyond.first()
                } else {
                    beyond.last()
                };
                if let Some(q) = landing
                    && !rings.contains(q)
                {
                    dests = dests.with(q);
                }
            }
        }
        dests
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        let me = self.to_act.index();
        match (self.decision, action) {
            (Decision::PlaceRing, Action::Place(p)) => !self.occupied().contains(p),
            (Decision::MoveRing, Action::Move { from, to }) => {
                self.rings[me].contains(from) && self.ring_destinations(from).contains(to)
            }
            (Decision::MoveRing, Action::Pass) => self.rings[me]
                .into_iter()
                .all(|r| self.ring_destinations(r).is_empty()),
            (Decision::RemoveRow, Action::RemoveRow { start, axis }) => {
                five_starts(self.markers[me], axis).contains(start)
            }
            (Decision::RemoveRing, Action::RemoveRing(p)) => self.rings[me].contains(p),
            _ => false,
        }
    }

    /// Plays `action` after checking it is legal; on error the position is unchanged.
    pub fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if !self.is_legal(action) {
            return Err(IllegalAction {
                action: action.to_string(),
                reason: self.why_illegal(action),
            });
        }
        self.play_unchecked(action);
        Ok(())
    }

    fn why_illegal(&self, action: Action) -> String {
        let who = self.to_act;
        let me = who.index();
        let asked = match self.decision {
            Decision::PlaceRing => "place a ring",
            Decision::MoveRing => "move a ring",
            Decision::RemoveRow => "remove a row of five",
            Decision::RemoveRing => "remove one of its rings",
            Decision::GameOver => return "the game is over".into(),
        };
        let kind_matches = matches!(
            (self.decision, action),
            (Decision::PlaceRing, Action::Place(_))
                | (Decision::MoveRing, Action::Move { .. } | Action::Pass)
                | (Decision::RemoveRow, Action::RemoveRow { .. })
                | (Decision::RemoveRing, Action::RemoveRing(_))
        );
        if !kind_matches {
            return format!("{who} must {asked} now");
        }
        match action {
            Action::Place(p) => format!("{p} is occupied"),
            Action::Move { from, .. } if !self.rings[me].contains(from) => {
                format!("there is no {who} ring on {from}")
            }
            Action::Move { from, to } => format!(
                "the ring on {from} cannot reach {to} (it slides over empty points, jumps one \
                 contiguous group of markers, lands on the first empty point after it, and \
                 never passes a ring)"
            ),
            Action::Pass => format!("{who} has a ring that can move"),
            Action::RemoveRow { .. } => format!("those five points are not a {who} row"),
            Action::RemoveRing(p) => format!("there is no {who} ring on {p}"),
        }
    }

    /// Plays a legal action. Playing an illegal one leaves the position
    /// inconsistent (checked in debug builds).
    pub fn play_unchecked(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal {action} in\n{self}");
        let me = self.to_act;
        let mi = me.index();
        match action {
            Action::Place(p) => {
                self.rings[mi] = self.rings[mi].with(p);
                self.turn += 1;
                if self.turn as u32 == 2 * RINGS {
                    self.to_act = Color::White;
                    self.decision = Decision::MoveRing;
                    self.last_mover = Color::Black;
                } else {
                    self.to_act = !me;
                }
            }
            Action::Move { from, to } => {
                self.rings[mi] = self.rings[mi].without(from).with(to);
                let flip = super::lines::between(from, to) & (self.markers[0] | self.markers[1]);
                self.markers[0] ^= flip;
                self.markers[1] ^= flip;
                self.markers[mi] = self.markers[mi].with(from);
                self.turn += 1;
                self.passes = 0;
                self.last_mover = me;
                self.settle();
            }
            Action::Pass => {
                self.passes += 1;
                self.last_mover = me;
                if self.passes >= 2 {
                    self.end_by_score(EndReason::DoublePass);
                } else {
                    self.settle();
                }
            }
            Action::RemoveRow { start, axis } => {
                let w = super::lines::WINDOWS[start.index()][axis.index()];
                self.markers[mi] &= !w;
                self.decision = Decision::RemoveRing;
            }
            Action::RemoveRing(p) => {
                self.rings[mi] = self.rings[mi].without(p);
                self.removed[mi] += 1;
                if self.removed[mi] >= self.variant.rings_to_win {
                    self.end(Some(me), EndReason::ThreeRings);
                } else {
                    self.settle();
                }
            }
        }
    }

    /// After a move, a pass or a removal: the last mover's rows first, then
    /// the opponent's, then the pool test, then the opponent's turn.
    fn settle(&mut self) {
        let p = self.last_mover;
        for c in [p, !p] {
            if self.has_row(c) {
                self.to_act = c;
                self.decision = Decision::RemoveRow;
                return;
            }
        }
        if self.pool() == 0 {
            self.end_by_score(EndReason::PoolEmpty);
            return;
        }
        self.to_act = !p;
        self.decision = Decision::MoveRing;
    }

    fn end_by_score(&mut self, reason: EndReason) {
        let [w, b] = self.removed;
        let winner = match w.cmp(&b) {
            std::cmp::Ordering::Greater => Some(Color::White),
            std::cmp::Ordering::Less => Some(Color::Black),
            std::cmp::Ordering::Equal => None,
        };
        self.end(winner, reason);
    }

    fn end(&mut self, winner: Option<Color>, reason: EndReason) {
        self.decision = Decision::GameOver;
        self.ending = Some((winner, reason));
    }

    /// `c` resigns: the game ends and the other side wins.
    pub fn resign(&mut self, c: Color) {
        if !self.is_over() {
            self.end(Some(!c), EndReason::Resign);
        }
    }
}

/// An ASCII drawing of the board: columns are vertical, row numbers grow
/// upwards along each column, so the (1,1) lines run up and to the right.
/// `W`/`B` are rings, `w`/`b` markers, `.` empty points.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letters: String = (0..11)
            .map(|c| format!("{:>4}", (b'A' + c) as char))
            .collect();
        writeln!(f, "   {letters}")?;
        // Screen line y = 2*row - col, from top (20) to bottom (-10).
        for y in (-10i32..=20).rev() {
            let mut line = vec![b' '; 56];
            let mut any = false;
            for col in 0..11i32 {
                if (y + col) % 2 != 0 {
                    continue;
                }
                let row = (y + col) / 2;
                if !(0..11).contains(&row) {
                    continue;
                }
                let Some(p) = Point::new(col as u8, row as u8) else {
                    continue;
                };
                any = true;
                let ch = match self.piece_at(p) {
                    None => b'.',
                    Some((Color::White, true)) => b'W',
                    Some((Color::Black, true)) => b'B',
                    Some((Color::White, false)) => b'w',
                    Some((Color::Black, false)) => b'b',
                };
                let x = 3 + 4 * col as usize;
                line[x] = ch;
                // Row numbers beside the lowest point of the A and K columns
                // and the top of each column, so every point can be named.
                if p.step(Direction::North).is_none() {
                    let label = format!("{}", row + 1);
                    for (k, b) in label.bytes().enumerate() {
                        line[x + 1 + k] = b;
                    }
                }
            }
            if any {
                writeln!(f, "   {}", String::from_utf8_lossy(&line).trim_end())?;
            }
        }
        writeln!(f, "   {letters}")?;
        let status = match self.outcome() {
            Some(o) => match o.winner {
                Some(w) => format!("game over: {w} wins ({})", o.reason.name()),
                None => format!("game over: draw ({})", o.reason.name()),
            },
            None => format!("{} to {:?}", self.to_act, self.decision),
        };
        write!(
            f,
            "turn {} | {} | rings removed W {} B {} | pool {}",
            self.turn,
            status,
            self.removed[0],
            self.removed[1],
            self.pool()
        )
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
