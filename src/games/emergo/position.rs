//! An Emergo position and its rules (pinned in `docs/emergo-rules.md`).
//!
//! A capture chain is one decision per jump, all by the same player: the
//! position remembers the jumping unit and its last direction
//! ([`Position::chain`]) until the chain can go no further. Only jumps that
//! keep the chain one of the longest are legal, at its start and on the way,
//! so the jumps a player makes always add up to a longest chain, and the
//! network's action index stays small (a square and a direction).

use std::fmt;

use arrayvec::ArrayVec;

use super::capture::{self, Cells, Jump};
use super::geometry::{Cell, Dir, Geometry, MAX_CELLS, Square};
use super::notation::Action;
use super::unit::Unit;
use super::variant::{Blocked, NO_PROGRESS_LIMIT, TURN_LIMIT, Variant};
use crate::game::{Color, GameResult, IllegalAction, State};
use crate::util::mix64;

/// The legal actions of a position: at most 41 entries, or 12 units times
/// four steps or jumps (entries and steps never mix: a player with men in
/// hand does not step).
pub type Actions = ArrayVec<Action, 64>;

/// A position: the units on the board, the men in hand, who acts, the
/// capture chain under way, and the counters that end long games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    variant: Variant,
    cells: Cells,
    /// Men in hand, by [`Color::index`].
    reserve: [u8; 2],
    to_act: Color,
    /// In the middle of a capture: the jumping unit's cell and the
    /// direction of its last jump.
    chain: Option<(Cell, Dir)>,
    /// Turns since the last entry or capture.
    quiet: u16,
    /// Turns completed.
    turns: u16,
    /// Decisions made (a chain of three jumps is three).
    ply: u32,
    result: Option<GameResult>,
    end: Option<&'static str>,
}

/// A position's fields as a set-up or a record gives them (see
/// [`Position::from_parts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    /// The units, each on its square (any order).
    pub units: Vec<(Square, Unit)>,
    /// Men in hand, White's then Black's.
    pub reserve: [u8; 2],
    pub to_act: Color,
    /// In the middle of a capture: the jumping unit's square and the
    /// direction of its last jump.
    pub chain: Option<(Square, Dir)>,
    /// Turns since the last entry or capture.
    pub quiet: u16,
    /// Turns completed.
    pub turns: u16,
    /// Decisions made.
    pub ply: u32,
}

/// The direction of a jump from `a` to `b` (two squares along a diagonal).
fn jump_dir(a: Square, b: Square) -> Option<Dir> {
    let dc = i16::from(b.col) - i16::from(a.col);
    let dr = i16::from(b.row) - i16::from(a.row);
    if dc.abs() != 2 || dr.abs() != 2 {
        return None;
    }
    Dir::from_delta((dc / 2) as i8, (dr / 2) as i8)
}

/// The direction of a step from `a` to `b` (one square along a diagonal).
fn step_dir(a: Square, b: Square) -> Option<Dir> {
    let dc = i16::from(b.col) - i16::from(a.col);
    let dr = i16::from(b.row) - i16::from(a.row);
    if dc.abs() != 1 || dr.abs() != 1 {
        return None;
    }
    Dir::from_delta(dc as i8, dr as i8)
}

impl Position {
    /// The empty board, every man in hand, White to enter.
    pub fn start(variant: Variant) -> Position {
        let men = variant.men();
        Position {
            variant,
            cells: [None; MAX_CELLS],
            reserve: [men; 2],
            to_act: Color::White,
            chain: None,
            quiet: 0,
            turns: 0,
            ply: 0,
            result: None,
            end: None,
        }
    }

    /// A position from its fields, checked against what play can reach:
    /// units on playable squares with at least one controller, every man of
    /// each colour accounted for (in hand, controlling, or a prisoner), no
    /// entry by anyone before White's first, a chain only where its unit
    /// can jump on, and counters within their limits. The result is worked
    /// out (a position may be over).
    pub fn from_parts(variant: Variant, parts: Parts) -> Result<Position, String> {
        let geo = variant.geometry();
        let men = variant.men();
        let n = geo.side;
        let mut cells: Cells = [None; MAX_CELLS];
        for &(s, u) in &parts.units {
            let c = geo
                .cell(s)
                .ok_or_else(|| format!("{s} is off the {n}x{n} board"))?;
            if !geo.is_playable(c) {
                return Err(format!(
                    "{s} is not a playable square (file and rank must be both odd or both even)"
                ));
            }
            if u.controllers == 0 {
                return Err(format!("the unit on {s} has no controller"));
            }
            if cells[c.index()].is_some() {
                return Err(format!("two units on {s}"));
            }
            cells[c.index()] = Some(u);
        }
        for c in Color::BOTH {
            let hand = parts.reserve[c.index()];
            if hand > men {
                return Err(format!("{c} has {hand} men in hand, more than {men}"));
            }
            let total = u32::from(hand)
                + cells
                    .iter()
                    .flatten()
                    .map(|u| u32::from(u.men_of(c)))
                    .sum::<u32>();
            if total != u32::from(men) {
                return Err(format!(
                    "{c} has {total} men in hand and on the board; {variant} gives each side {men} \
                     and none leaves the game"
                ));
            }
        }
        if parts.reserve[Color::White.index()] == men
            && (parts.reserve[Color::Black.index()] != men || parts.to_act != Color::White)
        {
            return Err(
                "white has entered no man yet, so nobody has played and white is to act".into(),
            );
        }
        let chain = match parts.chain {
            None => None,
            Some((s, d)) => {
                let at = geo
                    .cell(s)
                    .filter(|&c| geo.is_playable(c))
                    .ok_or_else(|| format!("the chain's square {s} is not a playable square"))?;
                match cells[at.index()] {
                    Some(u) if u.owner == parts.to_act && u.prisoners > 0 => {}
                    _ => {
                        return Err(format!(
                            "no unit of {} with a prisoner on {s} to continue a chain",
                            parts.to_act
                        ));
                    }
                }
                let came_from = geo
                    .step(at, d.reverse())
                    .and_then(|over| geo.step(over, d.reverse()));
                match came_from {
                    Some(c) if cells[c.index()].is_none() => {}
                    _ => {
                        return Err(format!(
                            "the chain's unit on {s} cannot have jumped there in direction {d:?}"
                        ));
                    }
                }
                if capture::jumps_from(geo, &cells, at, Some(d)).is_empty() {
                    return Err(format!(
                        "the chain on {s} has no jump left, so the turn would have ended"
                    ));
                }
                Some((at, d))
            }
        };
        if parts.quiet > NO_PROGRESS_LIMIT {
            return Err(format!(
                "{} quiet turns is past the draw limit {NO_PROGRESS_LIMIT}",
                parts.quiet
            ));
        }
        if parts.turns > TURN_LIMIT {
            return Err(format!(
                "{} turns is past the turn limit {TURN_LIMIT}",
                parts.turns
            ));
        }
        if parts.quiet > parts.turns || u32::from(parts.turns) > parts.ply {
            return Err(format!(
                "{} quiet turns, {} turns and {} decisions: each counts at most the next",
                parts.quiet, parts.turns, parts.ply
            ));
        }
        // A chain takes a controller from the opponent at every jump, so a
        // turn has at most `men` decisions.
        if parts.ply > (u32::from(parts.turns) + 1) * u32::from(men) {
            return Err(format!(
                "{} decisions in {} turns: a turn has at most {men} decisions",
                parts.ply, parts.turns
            ));
        }
        let mut p = Position {
            variant,
            cells,
            reserve: parts.reserve,
            to_act: parts.to_act,
            chain,
            quiet: parts.quiet,
            turns: parts.turns,
            ply: parts.ply,
            result: None,
            end: None,
        };
        if p.chain.is_none() {
            p.settle();
        }
        Ok(p)
    }

    /// The fields [`from_parts`](Self::from_parts) takes.
    pub fn parts(&self) -> Parts {
        let geo = self.geometry();
        Parts {
            units: geo
                .playable()
                .filter_map(|c| self.cells[c.index()].map(|u| (geo.square(c), u)))
                .collect(),
            reserve: self.reserve,
            to_act: self.to_act,
            chain: self.chain.map(|(c, d)| (geo.square(c), d)),
            quiet: self.quiet,
            turns: self.turns,
            ply: self.ply,
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn geometry(&self) -> Geometry {
        self.variant.geometry()
    }

    /// The unit on square `s`, if any (off the board: none).
    pub fn unit(&self, s: Square) -> Option<Unit> {
        self.geometry().cell(s).and_then(|c| self.cells[c.index()])
    }

    /// The unit on cell `c`, if any.
    pub fn unit_at(&self, c: Cell) -> Option<Unit> {
        self.cells[c.index()]
    }

    /// `c`'s men in hand.
    pub fn reserve(&self, c: Color) -> u8 {
        self.reserve[c.index()]
    }

    /// In the middle of a capture: the square of the unit that must jump
    /// on, and the direction of its last jump (the way back is barred).
    pub fn chain(&self) -> Option<(Square, Dir)> {
        self.chain.map(|(c, d)| (self.geometry().square(c), d))
    }

    /// [`chain`](Self::chain) by cell.
    pub fn chain_cell(&self) -> Option<(Cell, Dir)> {
        self.chain
    }

    /// Turns since the last entry or capture.
    pub fn quiet_turns(&self) -> u16 {
        self.quiet
    }

    /// Turns completed (a capture chain is one turn).
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// The units `c` controls.
    pub fn units_of(&self, c: Color) -> usize {
        self.cells.iter().flatten().filter(|u| u.owner == c).count()
    }

    /// `c`'s material: men in hand and every man in the units `c`
    /// controls (its own and its prisoners). Both sides' add up to twice
    /// the men each starts with.
    pub fn material(&self, c: Color) -> u32 {
        u32::from(self.reserve[c.index()])
            + self
                .cells
                .iter()
                .flatten()
                .filter(|u| u.owner == c)
                .map(|u| u32::from(u.men()))
                .sum::<u32>()
    }

    /// Whether the player to act must capture (a jump is available, or a
    /// chain is under way).
    pub fn must_capture(&self) -> bool {
        self.chain.is_some() || capture::any_capture(self.geometry(), &self.cells, self.to_act)
    }

    /// The same position under symmetry `k` (0..8) of the square.
    pub fn transformed(&self, k: usize) -> Position {
        let geo = self.geometry();
        let mut out = self.clone();
        out.cells = [None; MAX_CELLS];
        for c in geo.playable() {
            out.cells[geo.map_cell(c, k).index()] = self.cells[c.index()];
        }
        out.chain = self.chain.map(|(c, d)| (geo.map_cell(c, k), d.mapped(k)));
        out
    }

    fn sq(&self, c: Cell) -> Square {
        self.geometry().square(c)
    }

    /// Whether the opponent of the player to act could capture now: then
    /// the player may enter anywhere.
    fn opponent_can_capture(&self) -> bool {
        capture::any_capture(self.geometry(), &self.cells, !self.to_act)
    }

    /// Why the player to act may not enter on the playable cell `at`
    /// (`None`: allowed), given whether the opponent can already capture.
    fn entry_ban(&self, at: Cell, opponent_captures: bool) -> Option<String> {
        let geo = self.geometry();
        let me = self.to_act;
        let s = self.sq(at);
        if self.cells[at.index()].is_some() {
            return Some(format!("{s} is occupied"));
        }
        if at == geo.centre()
            && me == Color::White
            && self.reserve[me.index()] == self.variant.men()
        {
            return Some(format!(
                "white may not enter on the centre {s} on the first move"
            ));
        }
        if opponent_captures {
            return None;
        }
        for d in Dir::ALL {
            let (Some(near), Some(behind)) = (geo.step(at, d), geo.step(at, d.reverse())) else {
                continue;
            };
            if self.cells[near.index()].is_some_and(|u| u.owner != me)
                && self.cells[behind.index()].is_none()
            {
                return Some(format!(
                    "the unit on {} could jump a man entered on {s} at once (allowed only while \
                     {} already has a capture)",
                    self.sq(near),
                    !me
                ));
            }
        }
        None
    }

    /// Whether the player to act has any legal action (cheaper than
    /// listing them: no longest-chain search).
    fn has_action(&self) -> bool {
        let geo = self.geometry();
        let me = self.to_act;
        if self.must_capture() {
            return true;
        }
        if self.reserve[me.index()] > 0 {
            let opp = self.opponent_can_capture();
            geo.playable().any(|at| self.entry_ban(at, opp).is_none())
        } else {
            geo.playable().any(|at| {
                self.cells[at.index()].is_some_and(|u| u.owner == me)
                    && Dir::ALL.into_iter().any(|d| {
                        geo.step(at, d)
                            .is_some_and(|to| self.cells[to.index()].is_none())
                    })
            })
        }
    }

    fn generate(&self) -> Actions {
        let mut out = Actions::new();
        if self.result.is_some() {
            return out;
        }
        let geo = self.geometry();
        let me = self.to_act;
        let (jumps, _) = capture::best_jumps(geo, &self.cells, me, self.chain);
        if !jumps.is_empty() || self.chain.is_some() {
            out.extend(
                jumps
                    .iter()
                    .map(|j| Action::Jump(self.sq(j.from), self.sq(j.to))),
            );
            return out;
        }
        if self.reserve[me.index()] > 0 {
            let opp = self.opponent_can_capture();
            out.extend(
                geo.playable()
                    .filter(|&at| self.entry_ban(at, opp).is_none())
                    .map(|at| Action::Enter(self.sq(at))),
            );
        } else {
            for at in geo.playable() {
                if self.cells[at.index()].is_none_or(|u| u.owner != me) {
                    continue;
                }
                for d in Dir::ALL {
                    if let Some(to) = geo.step(at, d)
                        && self.cells[to.index()].is_none()
                    {
                        out.push(Action::Step(self.sq(at), self.sq(to)));
                    }
                }
            }
        }
        out
    }

    /// A playable cell of this board, or why `s` is none.
    fn playable_cell(&self, s: Square) -> Result<Cell, String> {
        let geo = self.geometry();
        let n = geo.side;
        let c = geo
            .cell(s)
            .ok_or_else(|| format!("{s} is off the {n}x{n} board"))?;
        if !geo.is_playable(c) {
            return Err(format!(
                "{s} is not a playable square (file and rank must be both odd or both even)"
            ));
        }
        Ok(c)
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        if let Some(r) = self.result {
            let what = match r.winner() {
                Some(c) => format!("{c} won"),
                None => "drawn".into(),
            };
            return Some(format!(
                "the game is over ({what}: {})",
                self.end.unwrap_or("ended")
            ));
        }
        self.check(action).err()
    }

    fn check(&self, action: Action) -> Result<(), String> {
        let geo = self.geometry();
        let me = self.to_act;
        let in_chain = |c: Cell| {
            format!(
                "the unit on {} is in the middle of a capture and must jump on",
                self.sq(c)
            )
        };
        let mine = |at: Cell, s: Square| match self.cells[at.index()] {
            None => Err(format!("there is no unit on {s}")),
            Some(u) if u.owner != me => Err(format!("the unit on {s} is {}'s", u.owner)),
            Some(_) => Ok(()),
        };
        let (jumps, longest) = capture::best_jumps(geo, &self.cells, me, self.chain);
        let compulsory = || {
            let j = jumps[0];
            format!(
                "capturing is compulsory: {me} can capture (e.g. {}x{})",
                self.sq(j.from),
                self.sq(j.to)
            )
        };
        match action {
            Action::Enter(s) => {
                if let Some((c, _)) = self.chain {
                    return Err(in_chain(c));
                }
                if !jumps.is_empty() {
                    return Err(compulsory());
                }
                if self.reserve[me.index()] == 0 {
                    return Err(format!("{me} has no men in hand"));
                }
                let at = self.playable_cell(s)?;
                if let Some(why) = self.entry_ban(at, self.opponent_can_capture()) {
                    return Err(why);
                }
            }
            Action::Step(a, b) => {
                if let Some((c, _)) = self.chain {
                    return Err(in_chain(c));
                }
                if !jumps.is_empty() {
                    return Err(compulsory());
                }
                let from = self.playable_cell(a)?;
                let to = self.playable_cell(b)?;
                mine(from, a)?;
                if self.reserve[me.index()] > 0 {
                    return Err(format!(
                        "{me} still has men in hand: units on the board may only capture until \
                         all are entered"
                    ));
                }
                if step_dir(a, b).is_none() {
                    return Err(format!("{a}-{b} is not one diagonal step"));
                }
                if self.cells[to.index()].is_some() {
                    return Err(format!("{b} is occupied"));
                }
            }
            Action::Jump(a, b) => {
                let from = self.playable_cell(a)?;
                let to = self.playable_cell(b)?;
                if let Some((c, _)) = self.chain
                    && c != from
                {
                    return Err(in_chain(c));
                }
                mine(from, a)?;
                let d = jump_dir(a, b).ok_or_else(|| {
                    format!("{a}x{b} is not a jump: a jump goes two squares along a diagonal")
                })?;
                if let Some((_, last)) = self.chain
                    && d == last.reverse()
                {
                    return Err(format!(
                        "a capture chain may not turn back 180 degrees ({a}x{b} reverses the last jump)"
                    ));
                }
                let over = geo.step(from, d).expect("between two playable squares");
                match self.cells[over.index()] {
                    None => return Err(format!("there is no unit on {} to jump", self.sq(over))),
                    Some(u) if u.owner == me => {
                        return Err(format!(
                            "the unit on {} is {me}'s own: only the opponent's units are jumped",
                            self.sq(over)
                        ));
                    }
                    Some(_) => {}
                }
                if self.cells[to.index()].is_some() {
                    return Err(format!("{b} is occupied"));
                }
                let j = Jump {
                    from,
                    over,
                    to,
                    dir: d,
                };
                if !jumps.contains(&j) {
                    let mut scratch = self.cells;
                    capture::apply(&mut scratch, j);
                    let n = 1 + capture::longest(geo, &mut scratch, to, Some(d));
                    return Err(if self.chain.is_some() {
                        format!(
                            "the chain must go on as long as it can: {a}x{b} allows {n} more \
                             jump(s), another way {longest}"
                        )
                    } else {
                        format!(
                            "a longer capture is compulsory: a chain starting {a}x{b} has at most \
                             {n} jump(s), the longest {longest}"
                        )
                    });
                }
            }
        }
        Ok(())
    }

    fn apply(&mut self, action: Action) {
        let geo = self.geometry();
        let me = self.to_act;
        let cell = |s: Square| {
            geo.cell(s)
                .expect("a legal action's square is on the board")
        };
        self.ply += 1;
        match action {
            Action::Enter(s) => {
                let men = if self.reserve[(!me).index()] == 0 {
                    self.reserve[me.index()]
                } else {
                    1
                };
                self.cells[cell(s).index()] = Some(Unit::pure(me, men));
                self.reserve[me.index()] -= men;
                self.end_turn(true);
            }
            Action::Step(a, b) => {
                self.cells[cell(b).index()] = self.cells[cell(a).index()].take();
                self.end_turn(false);
            }
            Action::Jump(a, b) => {
                let (from, to) = (cell(a), cell(b));
                let dir = jump_dir(a, b).expect("a legal jump");
                let over = geo.step(from, dir).expect("a legal jump");
                capture::apply(
                    &mut self.cells,
                    Jump {
                        from,
                        over,
                        to,
                        dir,
                    },
                );
                if capture::jumps_from(geo, &self.cells, to, Some(dir)).is_empty() {
                    self.end_turn(true);
                } else {
                    self.chain = Some((to, dir));
                }
            }
        }
    }

    fn end_turn(&mut self, progress: bool) {
        self.chain = None;
        self.to_act = !self.to_act;
        self.turns += 1;
        self.quiet = if progress { 0 } else { self.quiet + 1 };
        self.settle();
    }

    /// Works out whether the game is over at the start of the turn of the
    /// player to act.
    fn settle(&mut self) {
        let me = self.to_act;
        let blocked = match self.variant.blocked() {
            Blocked::Draw => GameResult::Draw,
            Blocked::Loss => GameResult::Win(!me),
        };
        let (result, end) = if self.reserve[me.index()] == 0 && self.units_of(me) == 0 {
            (Some(GameResult::Win(!me)), Some("no_units"))
        } else if !self.has_action() {
            (Some(blocked), Some("blocked"))
        } else if self.quiet >= NO_PROGRESS_LIMIT {
            (Some(GameResult::Draw), Some("no_progress"))
        } else if self.turns >= TURN_LIMIT {
            (Some(GameResult::Draw), Some("turn_limit"))
        } else {
            (None, None)
        };
        self.result = result;
        self.end = end;
    }
}

impl State for Position {
    type Action = Action;
    type Actions = Actions;

    fn to_act(&self) -> Color {
        self.to_act
    }

    fn legal_actions(&self) -> Actions {
        self.generate()
    }

    fn is_legal(&self, action: Action) -> bool {
        self.illegal_reason(action).is_none()
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

    /// `no_units` (the player to act controls nothing and has nothing in
    /// hand), `blocked`, `no_progress` or `turn_limit`.
    fn end_reason(&self) -> Option<&'static str> {
        self.end
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn key(&self) -> u64 {
        let chain = self
            .chain
            .map_or(0, |(c, d)| 1 + u64::from(c.0) * 4 + d.index() as u64);
        let mut h = mix64(
            self.variant.index() as u64
                | (self.to_act.index() as u64) << 4
                | u64::from(self.reserve[0]) << 8
                | u64::from(self.reserve[1]) << 16
                | chain << 24
                | u64::from(self.quiet) << 40,
        ) ^ mix64(u64::from(self.turns) ^ 0x5eed_e3e7_0000_0000).rotate_left(29);
        for (i, u) in self.cells.iter().enumerate() {
            if let Some(u) = u {
                h ^= mix64(
                    1 << 48
                        | (i as u64) << 24
                        | (u.owner.index() as u64) << 16
                        | u64::from(u.controllers) << 8
                        | u64::from(u.prisoners),
                );
            }
        }
        h
    }

    /// Material ahead at the end: the men in hand and in the units each
    /// side controls, `player`'s minus the opponent's, over all the men.
    /// A lost game by `no_units` gives -1; a drawn one says who was ahead,
    /// a denser signal than the result alone.
    fn margin(&self, player: Color) -> Option<f32> {
        let all = 2.0 * f32::from(self.variant.men());
        Some((self.material(player) as f32 - self.material(!player) as f32) / all)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let geo = self.geometry();
        let n = geo.side;
        for row in (0..n).rev() {
            write!(f, "{:>2} ", row + 1)?;
            for col in 0..n {
                let c = Cell(row * n + col);
                let text = match self.cells[c.index()] {
                    Some(u) => u.to_string(),
                    None if geo.is_playable(c) => ".".into(),
                    None => String::new(),
                };
                write!(f, " {text:<4}")?;
            }
            writeln!(f)?;
        }
        write!(f, "   ")?;
        for col in 0..n {
            write!(f, " {:<4}", (b'a' + col) as char)?;
        }
        writeln!(f)?;
        write!(
            f,
            "in hand: white {}, black {}; turn {}, {} quiet; ",
            self.reserve[0], self.reserve[1], self.turns, self.quiet
        )?;
        match self.result {
            Some(GameResult::Win(c)) => write!(f, "{c} wins ({})", self.end.unwrap_or("")),
            Some(GameResult::Draw) => write!(f, "drawn ({})", self.end.unwrap_or("")),
            None => match self.chain {
                Some((c, _)) => write!(
                    f,
                    "{} to act: the unit on {} jumps on",
                    self.to_act,
                    self.sq(c)
                ),
                None => write!(f, "{} to act", self.to_act),
            },
        }
    }
}
