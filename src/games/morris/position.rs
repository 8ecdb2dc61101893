//! A Morris position and its rules (pinned in `docs/morris-rules.md`).
//!
//! A turn that closes a mill is two decisions by the same player: the
//! placement or move, then the removal ([`Action::Remove`]), so the search
//! sees every choice and the action index stays small.

use std::fmt;
use std::sync::Arc;

use arrayvec::ArrayVec;

use super::geometry::{Geometry, Point, Square, Variant, points};
use crate::game::{Color, GameResult, IllegalAction, State};
use crate::util::mix64;

/// Moves (in the moving phase) without a placement or removal after which
/// the game is drawn: long enough that no won endgame of the solved
/// databases needs more (`solve` reports the longest), short enough that
/// self-play games end.
pub const NO_PROGRESS_LIMIT: u16 = 200;

/// The largest ply a position read from outside may have: far above any
/// game (see [`Position::from_parts`]).
pub const MAX_PLY: u32 = 1_000_000;

/// Times the same position (stones and player to act, in the moving phase)
/// must occur for the game to be drawn.
pub const REPETITIONS_TO_DRAW: u8 = 3;

/// One decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Put a stone from the hand on an empty point: `d2`.
    Place(Square),
    /// Move a stone along a line (or fly it): `d2-d3`.
    Move(Square, Square),
    /// Take an opponent's stone after closing a mill: `xd5`.
    Remove(Square),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Place(s) => write!(f, "{s}"),
            Action::Move(a, b) => write!(f, "{a}-{b}"),
            Action::Remove(s) => write!(f, "x{s}"),
        }
    }
}

/// The text of an action (`d2`, `d2-d3`, `xd5`), read without a board:
/// whether its squares are points of one is the board's question
/// ([`Game::parse_action`](crate::game::Game::parse_action) and the page
/// ask it).
impl std::str::FromStr for Action {
    type Err = String;

    fn from_str(text: &str) -> Result<Action, String> {
        let square =
            |t: &str| Square::parse(t).ok_or_else(|| format!("`{t}` is not a point name like a1"));
        Ok(if let Some(rest) = text.strip_prefix('x') {
            Action::Remove(square(rest)?)
        } else if let Some((a, b)) = text.split_once('-') {
            Action::Move(square(a)?, square(b)?)
        } else {
            Action::Place(square(text)?)
        })
    }
}

impl Action {
    /// The squares the action names, in the order it writes them.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let (a, b) = match self {
            Action::Place(s) | Action::Remove(s) => (s, None),
            Action::Move(a, b) => (a, Some(b)),
        };
        std::iter::once(a).chain(b)
    }
}

/// The legal actions of a position (at most 18 empty points times 3 flying
/// stones, or 24 placements, or 9 moving stones times 4 steps).
pub type Actions = ArrayVec<Action, 64>;

/// The positions since the last placement or removal, newest first, shared
/// between the states of a search tree so that cloning stays cheap.
#[derive(Clone, Debug, Default)]
struct History(Option<Arc<Seen>>);

#[derive(Debug)]
struct Seen {
    stones: [u32; 2],
    to_act: Color,
    prev: Option<Arc<Seen>>,
}

impl History {
    fn push(&mut self, stones: [u32; 2], to_act: Color) {
        let prev = self.0.take();
        self.0 = Some(Arc::new(Seen {
            stones,
            to_act,
            prev,
        }));
    }

    fn count(&self, stones: [u32; 2], to_act: Color) -> u8 {
        let mut n = 0u8;
        let mut at = self.0.as_deref();
        while let Some(s) = at {
            if s.stones == stones && s.to_act == to_act {
                n = n.saturating_add(1);
            }
            at = s.prev.as_deref();
        }
        n
    }

    fn entries(&self) -> Vec<([u32; 2], Color)> {
        let mut out = Vec::new();
        let mut at = self.0.as_deref();
        while let Some(s) = at {
            out.push((s.stones, s.to_act));
            at = s.prev.as_deref();
        }
        out
    }
}

/// A Morris position: the stones, the stones still in hand, who acts, and
/// the history that decides draws.
#[derive(Clone, Debug)]
pub struct Position {
    geo: &'static Geometry,
    /// Stones on the board, by [`Color::index`].
    stones: [u32; 2],
    /// Stones still to place.
    hand: [u8; 2],
    to_act: Color,
    /// The player to act closed a mill and now removes a stone.
    removing: bool,
    ply: u32,
    /// Moves since the last placement or removal.
    quiet: u16,
    /// How often the current position has occurred (this time included)
    /// since the last placement or removal.
    reps: u8,
    history: History,
    result: Option<GameResult>,
    end: Option<&'static str>,
}

impl PartialEq for Position {
    /// Everything but the shared history list, whose effect (`reps`) is
    /// compared.
    fn eq(&self, o: &Self) -> bool {
        self.geo.variant == o.geo.variant
            && self.stones == o.stones
            && self.hand == o.hand
            && self.to_act == o.to_act
            && self.removing == o.removing
            && self.ply == o.ply
            && self.quiet == o.quiet
            && self.reps == o.reps
            && self.result == o.result
    }
}

/// The fields of a position as records store them (see
/// [`Position::from_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    pub stones: [u32; 2],
    pub hand: [u8; 2],
    pub to_act: Color,
    pub removing: bool,
    pub ply: u32,
    pub quiet: u16,
    pub reps: u8,
}

impl Position {
    /// The empty board, every stone in hand, White to place.
    pub fn start(variant: Variant) -> Position {
        let geo = variant.geometry();
        let mut p = Position {
            geo,
            stones: [0; 2],
            hand: [geo.stones; 2],
            to_act: Color::White,
            removing: false,
            ply: 0,
            quiet: 0,
            reps: 1,
            history: History::default(),
            result: None,
            end: None,
        };
        p.history.push(p.stones, p.to_act);
        p
    }

    /// A position from its fields, checked against the rules: what a
    /// record or a set-up command gives. The history starts here.
    pub fn from_parts(variant: Variant, parts: Parts) -> Result<Position, String> {
        let geo = variant.geometry();
        let Parts {
            stones,
            hand,
            to_act,
            removing,
            ply,
            quiet,
            reps,
        } = parts;
        if stones[0] & stones[1] != 0 {
            return Err("a point holds stones of both colours".into());
        }
        for c in Color::BOTH {
            let s = stones[c.index()];
            if s & !geo.all != 0 {
                return Err(format!("{c} has stones off the {variant} board"));
            }
            let placed = geo.stones - hand[c.index()].min(geo.stones);
            if hand[c.index()] > geo.stones {
                return Err(format!(
                    "{c} holds {} stones, more than {}",
                    hand[c.index()],
                    geo.stones
                ));
            }
            if s.count_ones() > u32::from(placed) {
                return Err(format!(
                    "{c} has {} stones on the board but placed only {placed}",
                    s.count_ones()
                ));
            }
        }
        let placed = |c: Color| i32::from(geo.stones) - i32::from(hand[c.index()]);
        let lead = placed(Color::White) - placed(Color::Black);
        let placing = hand != [0, 0];
        let lead_ok = match (to_act, removing) {
            _ if !placing && lead == 0 => true,
            // White's turn begins level; after White's placement it leads.
            (Color::White, false) => lead == 0,
            (Color::White, true) => lead == 1,
            (Color::Black, false) => lead == 1,
            (Color::Black, true) => lead == 0,
        };
        if !lead_ok {
            return Err(format!(
                "{to_act} cannot be {} when White has placed {} stones and Black {}",
                if removing { "removing" } else { "to act" },
                placed(Color::White),
                placed(Color::Black)
            ));
        }
        if removing && geo.mill_wins {
            return Err(format!("nobody removes stones in {variant}"));
        }
        let me = stones[to_act.index()];
        if removing && !geo.mills.iter().any(|&m| m & !me == 0) {
            return Err(format!("{to_act} is removing without a mill"));
        }
        if removing && stones[(!to_act).index()] == 0 {
            return Err(format!(
                "{to_act} is removing but {} has no stone on the board",
                !to_act
            ));
        }
        if quiet > NO_PROGRESS_LIMIT {
            return Err(format!(
                "{quiet} quiet moves is past the draw limit {NO_PROGRESS_LIMIT}"
            ));
        }
        // Every placement, removal and mill resets the quiet count, and there
        // are at most 18 placements and 14 removals: a game lasts a few
        // thousand decisions. A ply read from outside near u32::MAX
        // overflowed the count at the next decision.
        if ply > MAX_PLY {
            return Err(format!(
                "ply {ply} is more decisions than a game can last (at most {MAX_PLY})"
            ));
        }
        if reps == 0 || reps >= REPETITIONS_TO_DRAW {
            return Err(format!(
                "a position cannot have occurred {reps} times in a game that goes on"
            ));
        }
        let mut p = Position {
            geo,
            stones,
            hand,
            to_act,
            removing,
            ply,
            quiet,
            reps,
            history: History::default(),
            result: None,
            end: None,
        };
        for _ in 0..reps {
            p.history.push(stones, to_act);
        }
        for c in Color::BOTH {
            if p.total(c) < 3 {
                return Err(format!("{c} has fewer than three stones: the game is over"));
            }
        }
        if !removing && p.legal_actions().is_empty() {
            return Err(format!("{to_act} cannot move: the game is over"));
        }
        // A mill closed on the last quiet move still removes (the removal
        // resets the count), so only a position between turns is over.
        if !removing && quiet >= NO_PROGRESS_LIMIT {
            return Err("the no-progress limit is reached: the game is over".into());
        }
        if geo.mill_wins {
            for &mill in &geo.mills {
                for c in Color::BOTH {
                    if stones[c.index()] & mill == mill {
                        return Err(format!("{c} has a line of three: the game is over"));
                    }
                }
            }
        }
        Ok(p)
    }

    /// The fields a record stores.
    pub fn parts(&self) -> Parts {
        Parts {
            stones: self.stones,
            hand: self.hand,
            to_act: self.to_act,
            removing: self.removing,
            ply: self.ply,
            quiet: self.quiet,
            reps: self.reps,
        }
    }

    pub fn variant(&self) -> Variant {
        self.geo.variant
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.geo
    }

    /// `c`'s stones on the board, as a mask of points.
    pub fn stones(&self, c: Color) -> u32 {
        self.stones[c.index()]
    }

    /// `c`'s stones still to place.
    pub fn hand(&self, c: Color) -> u8 {
        self.hand[c.index()]
    }

    /// Whether the player to act is removing a stone.
    pub fn removing(&self) -> bool {
        self.removing
    }

    /// Moves since the last placement or removal.
    pub fn quiet_moves(&self) -> u16 {
        self.quiet
    }

    /// How often the current position has occurred since the last
    /// placement or removal, this time included.
    pub fn repetitions(&self) -> u8 {
        self.reps
    }

    /// `c`'s stones on the board and in hand.
    pub fn total(&self, c: Color) -> u32 {
        self.stones[c.index()].count_ones() + u32::from(self.hand[c.index()])
    }

    /// Whether `c` may fly (has three stones, none to place, and the
    /// variant allows it).
    pub fn flies(&self, c: Color) -> bool {
        self.hand[c.index()] == 0 && self.geo.flies(self.stones[c.index()].count_ones())
    }

    /// The same position with the board under `sym` (an index into the
    /// geometry's symmetries); the history is mapped alike.
    pub fn transformed(&self, sym: usize) -> Position {
        let s = &self.geo.symmetries[sym];
        let mut out = self.clone();
        out.stones = [s.map(self.stones[0]), s.map(self.stones[1])];
        let mut entries = self.history.entries();
        entries.reverse();
        out.history = History::default();
        for (stones, to_act) in entries {
            out.history
                .push([s.map(stones[0]), s.map(stones[1])], to_act);
        }
        out
    }

    fn empty(&self) -> u32 {
        self.geo.all & !(self.stones[0] | self.stones[1])
    }

    fn point(&self, sq: Square) -> Option<Point> {
        self.geo.point_at(sq)
    }

    fn sq(&self, p: Point) -> Square {
        self.geo.square(p)
    }

    /// Whether `c` (to place nothing) has a stone that can move.
    fn can_move(&self, c: Color) -> bool {
        let empty = self.empty();
        let flies = self.flies(c);
        points(self.stones[c.index()]).any(|p| self.geo.targets(p, empty, flies) != 0)
    }

    /// Why `action` is not legal, or `None` if it is.
    fn illegal_reason(&self, action: Action) -> Option<String> {
        if let Some(r) = self.result {
            return Some(format!("the game is over ({r:?})"));
        }
        let me = self.to_act;
        let name = |s: Square| s.to_string();
        let on_board = |s: Square| -> Result<Point, String> {
            self.point(s).ok_or_else(|| {
                format!(
                    "{} is not a point of the {} board",
                    name(s),
                    self.geo.variant
                )
            })
        };
        let check = || -> Result<(), String> {
            match action {
                Action::Remove(s) => {
                    if !self.removing {
                        return Err(format!("{me} has closed no mill"));
                    }
                    let p = on_board(s)?;
                    let theirs = self.stones[(!me).index()];
                    if theirs & p.bit() == 0 {
                        return Err(format!("{} holds no {} stone", name(s), !me));
                    }
                    if self.geo.removable(theirs) & p.bit() == 0 {
                        return Err(format!(
                            "{} is in a mill and {} has stones outside mills",
                            name(s),
                            !me
                        ));
                    }
                }
                _ if self.removing => return Err(format!("{me} must first remove a stone")),
                Action::Place(s) => {
                    if self.hand[me.index()] == 0 {
                        return Err(format!("{me} has no stones left to place"));
                    }
                    let p = on_board(s)?;
                    if self.empty() & p.bit() == 0 {
                        return Err(format!("{} is occupied", name(s)));
                    }
                }
                Action::Move(a, b) => {
                    if self.hand[me.index()] > 0 {
                        return Err(format!("{me} still has stones to place"));
                    }
                    let from = on_board(a)?;
                    let to = on_board(b)?;
                    if self.stones[me.index()] & from.bit() == 0 {
                        return Err(format!("{} holds no {me} stone", name(a)));
                    }
                    if self.empty() & to.bit() == 0 {
                        return Err(format!("{} is occupied", name(b)));
                    }
                    if self.geo.targets(from, self.empty(), self.flies(me)) & to.bit() == 0 {
                        return Err(format!("{} is not next to {}", name(b), name(a)));
                    }
                }
            }
            Ok(())
        };
        check().err()
    }

    /// The player to act has finished a turn: hand over and decide draws
    /// and blocked players.
    fn end_turn(&mut self) {
        self.to_act = !self.to_act;
        let next = self.to_act;
        if self.hand[next.index()] == 0 && !self.can_move(next) {
            self.result = Some(GameResult::Win(!next));
            self.end = Some("blocked");
            return;
        }
        let placing = self.hand != [0, 0];
        if placing {
            self.reps = 1;
            return;
        }
        self.reps = self.history.count(self.stones, next) + 1;
        self.history.push(self.stones, next);
        if self.reps >= REPETITIONS_TO_DRAW {
            self.result = Some(GameResult::Draw);
            self.end = Some("repetition");
        } else if self.quiet >= NO_PROGRESS_LIMIT {
            self.result = Some(GameResult::Draw);
            self.end = Some("no_progress");
        }
    }

    /// After a placement or move to `at`: a mill wins, starts a removal, or
    /// the turn ends.
    fn after_arrival(&mut self, at: Point) {
        let me = self.to_act;
        if self.geo.in_mill(self.stones[me.index()], at) {
            if self.geo.mill_wins {
                self.result = Some(GameResult::Win(me));
                self.end = Some("line");
                return;
            }
            if self.stones[(!me).index()] != 0 {
                self.removing = true;
                return;
            }
        }
        self.end_turn();
    }

    fn apply(&mut self, action: Action) {
        let me = self.to_act.index();
        let geo = self.geo;
        self.ply += 1;
        match action {
            Action::Place(s) => {
                let p = geo.point_at(s).expect("legal placement");
                self.stones[me] |= p.bit();
                self.hand[me] -= 1;
                self.quiet = 0;
                self.history = History::default();
                self.after_arrival(p);
            }
            Action::Move(a, b) => {
                let from = geo.point_at(a).expect("legal move");
                let to = geo.point_at(b).expect("legal move");
                self.stones[me] ^= from.bit() | to.bit();
                self.quiet += 1;
                self.after_arrival(to);
            }
            Action::Remove(s) => {
                let p = geo.point_at(s).expect("legal removal");
                self.stones[1 - me] &= !p.bit();
                self.removing = false;
                self.quiet = 0;
                self.history = History::default();
                let them = !self.to_act;
                if self.total(them) < 3 {
                    self.result = Some(GameResult::Win(self.to_act));
                    self.end = Some("two_stones");
                    return;
                }
                self.end_turn();
            }
        }
    }
}

impl State for Position {
    type Action = Action;
    type Actions = Actions;

    fn to_act(&self) -> Color {
        self.to_act
    }

    fn legal_actions(&self) -> Actions {
        let mut out = Actions::new();
        if self.result.is_some() {
            return out;
        }
        let me = self.to_act;
        if self.removing {
            let theirs = self.stones[(!me).index()];
            for p in points(self.geo.removable(theirs)) {
                out.push(Action::Remove(self.sq(p)));
            }
        } else if self.hand[me.index()] > 0 {
            for p in points(self.empty()) {
                out.push(Action::Place(self.sq(p)));
            }
        } else {
            let empty = self.empty();
            let flies = self.flies(me);
            for from in points(self.stones[me.index()]) {
                for to in points(self.geo.targets(from, empty, flies)) {
                    out.push(Action::Move(self.sq(from), self.sq(to)));
                }
            }
        }
        out
    }

    fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if let Some(reason) = self.illegal_reason(action) {
            return Err(IllegalAction {
                action: action.to_string(),
                reason,
            });
        }
        self.apply(action);
        Ok(())
    }

    fn play_unchecked(&mut self, action: Action) {
        self.apply(action);
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.end
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn key(&self) -> u64 {
        let board = u64::from(self.stones[0]) | u64::from(self.stones[1]) << 32;
        let rest = u64::from(self.hand[0])
            | u64::from(self.hand[1]) << 8
            | (self.to_act.index() as u64) << 16
            | u64::from(self.removing) << 17
            | u64::from(self.reps) << 18
            | u64::from(self.quiet) << 24
            | (self.geo.variant as u64) << 40;
        mix64(board) ^ mix64(rest ^ 0x5151_5151_0000_0000).rotate_left(17)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let geo = self.geo;
        let mut grid = vec![vec![' '; geo.side]; geo.side];
        for p in 0..geo.points {
            let p = Point(p as u8);
            let (c, r) = geo.coords[p.index()];
            grid[r as usize][c as usize] = if self.stones[0] & p.bit() != 0 {
                'W'
            } else if self.stones[1] & p.bit() != 0 {
                'B'
            } else {
                '.'
            };
        }
        for r in (0..geo.side).rev() {
            let row: String = grid[r].iter().flat_map(|&c| [c, ' ']).collect();
            writeln!(f, "{} {}", r + 1, row.trim_end())?;
        }
        let cols: String = (0..geo.side)
            .flat_map(|c| [(b'a' + c as u8) as char, ' '])
            .collect();
        writeln!(f, "  {}", cols.trim_end())?;
        match self.result {
            Some(GameResult::Win(c)) => write!(f, "{c} wins ({})", self.end.unwrap_or("")),
            Some(GameResult::Draw) => write!(f, "draw ({})", self.end.unwrap_or("")),
            None => write!(
                f,
                "{} to {}; in hand W {} B {}; quiet moves {}",
                self.to_act,
                if self.removing {
                    "remove"
                } else if self.hand[self.to_act.index()] > 0 {
                    "place"
                } else {
                    "move"
                },
                self.hand[0],
                self.hand[1],
                self.quiet
            ),
        }
    }
}
