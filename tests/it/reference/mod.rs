//! A second implementation of the YINSH rules, written to be obviously right
//! rather than fast, for cross-checking the engine.
//!
//! It shares no code with `yinsh_zero::games::yinsh`: the board is a plain
//! `[[Cell; 11]; 11]` mailbox indexed `[col][row]` (both 0-based), the board
//! shape comes from the column ranges printed in the rules doc, rows of five
//! are found by walking every line, and actions exist only as the official
//! single-decision strings (`e3`, `a2-h9`, `xg5-g9`, `xa5`, `pass`). Anything
//! it is compared with is converted at the test boundary.
//!
//! Rules, as pinned in docs/yinsh-rules.md: placement alternates White first
//! until 10 rings stand; a turn puts a marker in one's ring and moves the
//! ring over empty points and at most one contiguous group of markers
//! (stopping right after the group), flipping the jumped markers; the mover
//! resolves all their rows of five first (choosing 5 of a longer line, then
//! a ring to remove), then the opponent resolves theirs; the first to remove
//! 3 rings (1 in Blitz) wins; a move that leaves all 51 markers on the board
//! (after its removals) ends the game, as do two passes in a row, and then
//! more rings removed wins.

#![allow(dead_code)]

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    fn slot(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
}

/// What stands on a cell of the 11x11 grid.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Cell {
    /// Not one of the 85 points.
    Off,
    Empty,
    Ring(Side),
    Marker(Side),
}

/// What the side to act must do.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Phase {
    PlaceRing,
    MoveRing,
    RemoveRow,
    RemoveRing,
    Over,
}

/// Rows (1-based) of columns A..K, from the rules doc.
const COLUMN_ROWS: [(i32, i32); 11] = [
    (2, 5),
    (1, 7),
    (1, 8),
    (1, 9),
    (1, 10),
    (2, 10),
    (2, 11),
    (3, 11),
    (4, 11),
    (5, 11),
    (7, 10),
];

/// The six ways a ring can move, as (column step, row step).
const DIRECTIONS: [(i32, i32); 6] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)];

/// The three line axes, each in the sense where both coordinates do not
/// shrink, so a window walked along one starts at its lower end.
const AXES: [(i32, i32); 3] = [(0, 1), (1, 0), (1, 1)];

const MARKERS_IN_GAME: usize = 51;

/// Whether (col, row), both 0-based, is one of the 85 points.
pub fn on_board(col: i32, row: i32) -> bool {
    if !(0..11).contains(&col) {
        return false;
    }
    let (lo, hi) = COLUMN_ROWS[col as usize];
    (lo - 1..=hi - 1).contains(&row)
}

/// `e3` for column 4, row 2.
pub fn name(col: i32, row: i32) -> String {
    format!("{}{}", (b'a' + col as u8) as char, row + 1)
}

/// Parses `e3` into (column, row), 0-based.
pub fn parse_point(s: &str) -> Option<(i32, i32)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if !c.is_ascii_lowercase() {
        return None;
    }
    let col = c as i32 - 'a' as i32;
    let digits = chars.as_str();
    if digits.is_empty() || digits.starts_with('0') || !digits.chars().all(|d| d.is_ascii_digit()) {
        return None;
    }
    let row: i32 = digits.parse::<i32>().ok()? - 1;
    on_board(col, row).then_some((col, row))
}

/// A position under the reference rules.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    board: [[Cell; 11]; 11],
    removed: [u8; 2],
    to_act: Side,
    phase: Phase,
    /// Whose move (or pass) is being resolved: their rows go first.
    mover: Side,
    passes_in_a_row: u8,
    rings_placed: u8,
    rings_to_win: u8,
    /// Set when the game is over: the winner, or `None` for a draw.
    result: Option<Option<Side>>,
}

impl Game {
    /// The empty board, White to place; `blitz` makes one removed ring win.
    pub fn new(blitz: bool) -> Game {
        let mut board = [[Cell::Off; 11]; 11];
        for (col, column) in board.iter_mut().enumerate() {
            for (row, cell) in column.iter_mut().enumerate() {
                if on_board(col as i32, row as i32) {
                    *cell = Cell::Empty;
                }
            }
        }
        Game {
            board,
            removed: [0, 0],
            to_act: Side::White,
            phase: Phase::PlaceRing,
            mover: Side::Black,
            passes_in_a_row: 0,
            rings_placed: 0,
            rings_to_win: if blitz { 1 } else { 3 },
            result: None,
        }
    }

    /// A movement-phase game with these pieces (`(col, row, cell)`, 0-based),
    /// rings already removed, and `to_act` to move a ring next; `passes` is
    /// how many passes were just made in a row.
    pub fn setup(
        pieces: &[(i32, i32, Cell)],
        removed: [u8; 2],
        to_act: Side,
        passes: u8,
        blitz: bool,
    ) -> Game {
        let mut g = Game::new(blitz);
        for &(c, r, cell) in pieces {
            assert!(on_board(c, r), "setup off the board");
            g.set(c, r, cell);
        }
        g.removed = removed;
        g.rings_placed = 10;
        g.phase = Phase::MoveRing;
        g.to_act = to_act;
        g.mover = to_act.other();
        g.passes_in_a_row = passes;
        g
    }

    /// What stands on (col, row); `Off` outside the board.
    pub fn cell(&self, col: i32, row: i32) -> Cell {
        if on_board(col, row) {
            self.board[col as usize][row as usize]
        } else {
            Cell::Off
        }
    }

    fn set(&mut self, col: i32, row: i32, cell: Cell) {
        self.board[col as usize][row as usize] = cell;
    }

    pub fn to_act(&self) -> Side {
        self.to_act
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn rings_removed(&self, side: Side) -> u8 {
        self.removed[side.slot()]
    }

    /// `Some(winner)` once the game is over (`Some(None)` for a draw).
    pub fn result(&self) -> Option<Option<Side>> {
        self.result
    }

    /// Every (col, row) on the board.
    pub fn points() -> impl Iterator<Item = (i32, i32)> {
        (0..11)
            .flat_map(|c| (0..11).map(move |r| (c, r)))
            .filter(|&(c, r)| on_board(c, r))
    }

    fn markers_on_board(&self) -> usize {
        Game::points()
            .filter(|&(c, r)| matches!(self.cell(c, r), Cell::Marker(_)))
            .count()
    }

    /// Where the ring on (c, r) can go, as (col, row) points.
    fn ring_moves(&self, c: i32, r: i32) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for (dc, dr) in DIRECTIONS {
            let (mut x, mut y) = (c + dc, r + dr);
            while self.cell(x, y) == Cell::Empty {
                out.push((x, y));
                x += dc;
                y += dr;
            }
            if matches!(self.cell(x, y), Cell::Marker(_)) {
                while matches!(self.cell(x, y), Cell::Marker(_)) {
                    x += dc;
                    y += dr;
                }
                if self.cell(x, y) == Cell::Empty {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// Every window of five markers of `side`, as its lower end and upper end.
    fn rows_of(&self, side: Side) -> Vec<((i32, i32), (i32, i32))> {
        let mut out = Vec::new();
        for (dc, dr) in AXES {
            for (c, r) in Game::points() {
                if (0..5).all(|k| self.cell(c + k * dc, r + k * dr) == Cell::Marker(side)) {
                    out.push(((c, r), (c + 4 * dc, r + 4 * dr)));
                }
            }
        }
        out
    }

    fn own_rings(&self) -> Vec<(i32, i32)> {
        Game::points()
            .filter(|&(c, r)| self.cell(c, r) == Cell::Ring(self.to_act))
            .collect()
    }

    /// The legal actions as official single-decision strings, in no
    /// particular order.
    pub fn legal_actions(&self) -> Vec<String> {
        match self.phase {
            Phase::PlaceRing => Game::points()
                .filter(|&(c, r)| self.cell(c, r) == Cell::Empty)
                .map(|(c, r)| name(c, r))
                .collect(),
            Phase::MoveRing => {
                let mut out = Vec::new();
                for (c, r) in self.own_rings() {
                    for (x, y) in self.ring_moves(c, r) {
                        out.push(format!("{}-{}", name(c, r), name(x, y)));
                    }
                }
                if out.is_empty() {
                    out.push("pass".to_string());
                }
                out
            }
            Phase::RemoveRow => self
                .rows_of(self.to_act)
                .into_iter()
                .map(|((c0, r0), (c1, r1))| format!("x{}-{}", name(c0, r0), name(c1, r1)))
                .collect(),
            Phase::RemoveRing => self
                .own_rings()
                .into_iter()
                .map(|(c, r)| format!("x{}", name(c, r)))
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    /// Plays the action named `action` if it is legal here.
    pub fn play(&mut self, action: &str) -> Result<(), String> {
        if !self.legal_actions().iter().any(|a| a == action) {
            return Err(format!("`{action}` is not legal in phase {:?}", self.phase));
        }
        self.apply(action)
    }

    /// Plays an action taken from [`Game::legal_actions`] of this position.
    fn apply(&mut self, action: &str) -> Result<(), String> {
        let me = self.to_act;
        let point = |s: &str| parse_point(s).ok_or_else(|| format!("bad point `{s}`"));
        match self.phase {
            Phase::PlaceRing => {
                let (c, r) = point(action)?;
                self.set(c, r, Cell::Ring(me));
                self.rings_placed += 1;
                if self.rings_placed == 10 {
                    self.to_act = Side::White;
                    self.phase = Phase::MoveRing;
                } else {
                    self.to_act = me.other();
                }
            }
            Phase::MoveRing if action == "pass" => {
                self.passes_in_a_row += 1;
                self.mover = me;
                if self.passes_in_a_row == 2 {
                    self.finish_by_score();
                } else {
                    self.after_removals_or_move();
                }
            }
            Phase::MoveRing => {
                let (from, to) = action.split_once('-').ok_or("a move has a dash")?;
                let ((c0, r0), (c1, r1)) = (point(from)?, point(to)?);
                let (dc, dr) = ((c1 - c0).signum(), (r1 - r0).signum());
                self.set(c0, r0, Cell::Marker(me));
                let (mut x, mut y) = (c0 + dc, r0 + dr);
                while (x, y) != (c1, r1) {
                    if let Cell::Marker(s) = self.cell(x, y) {
                        self.set(x, y, Cell::Marker(s.other()));
                    }
                    x += dc;
                    y += dr;
                }
                self.set(c1, r1, Cell::Ring(me));
                self.passes_in_a_row = 0;
                self.mover = me;
                self.after_removals_or_move();
            }
            Phase::RemoveRow => {
                let (lo, hi) = action[1..].split_once('-').ok_or("a row has a dash")?;
                let ((c0, r0), (c1, r1)) = (point(lo)?, point(hi)?);
                let (dc, dr) = ((c1 - c0).signum(), (r1 - r0).signum());
                for k in 0..5 {
                    self.set(c0 + k * dc, r0 + k * dr, Cell::Empty);
                }
                self.phase = Phase::RemoveRing;
            }
            Phase::RemoveRing => {
                let (c, r) = point(&action[1..])?;
                self.set(c, r, Cell::Empty);
                self.removed[me.slot()] += 1;
                if self.removed[me.slot()] >= self.rings_to_win {
                    self.result = Some(Some(me));
                    self.phase = Phase::Over;
                } else {
                    self.after_removals_or_move();
                }
            }
            Phase::Over => unreachable!("no action is legal once the game is over"),
        }
        Ok(())
    }

    /// Who must remove a row next, if anyone; else the pool test; else the
    /// other side's turn.
    fn after_removals_or_move(&mut self) {
        for side in [self.mover, self.mover.other()] {
            if !self.rows_of(side).is_empty() {
                self.to_act = side;
                self.phase = Phase::RemoveRow;
                return;
            }
        }
        if self.markers_on_board() == MARKERS_IN_GAME {
            self.finish_by_score();
            return;
        }
        self.to_act = self.mover.other();
        self.phase = Phase::MoveRing;
    }

    fn finish_by_score(&mut self) {
        let [w, b] = self.removed;
        self.result = Some(if w > b {
            Some(Side::White)
        } else if b > w {
            Some(Side::Black)
        } else {
            None
        });
        self.phase = Phase::Over;
    }

    /// Leaves of the game tree cut off at `depth` decisions; a finished game
    /// is one leaf.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.phase == Phase::Over {
            return 1;
        }
        let actions = self.legal_actions();
        if depth == 1 {
            return actions.len() as u64;
        }
        actions
            .iter()
            .map(|a| {
                let mut child = self.clone();
                child.apply(a).expect("a listed action applies");
                child.perft(depth - 1)
            })
            .sum()
    }
}
