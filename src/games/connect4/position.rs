//! Connect Four's positions and rules on the bitboard ([`super::bitboard`]).
//!
//! Two players drop stones in turn into the seven columns of an upright
//! 7 x 6 board; a stone falls to the lowest free cell of its column. The
//! first to have four in a line (across, up or diagonally) wins; a full
//! board with no four is a draw. The first player is [`Color::White`].
//!
//! A position is Pascal Pons's pair of words: the stones of the player to
//! act and the occupied cells. Who acts is the parity of the stone count,
//! and the player who just moved is the only one who can have four, so
//! nothing else is stored.

use std::fmt;

use arrayvec::ArrayVec;

use super::bitboard::{self, BOTTOM, CELLS, HEIGHT, WIDTH};
use crate::game::{Color, GameResult, IllegalAction, State};
use crate::util::mix64;

/// A column of the board: Connect Four's one kind of action. Written 1 to
/// 7 from the left (`4` is the centre), as the common solvers and the test
/// sets of Pascal Pons write moves; held 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Column(u8);

impl Column {
    /// Every column, left to right.
    pub const ALL: [Column; WIDTH] = [
        Column(0),
        Column(1),
        Column(2),
        Column(3),
        Column(4),
        Column(5),
        Column(6),
    ];

    /// The column `index` (0-based) if there is one.
    pub const fn new(index: usize) -> Option<Column> {
        if index < WIDTH {
            Some(Column(index as u8))
        } else {
            None
        }
    }

    /// 0-based, left to right.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 1-based, as written.
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// The same column seen in a mirror.
    pub const fn mirrored(self) -> Column {
        Column(WIDTH as u8 - 1 - self.0)
    }

    /// Reads a column number, `1` to `7`; the error says what is wrong.
    ///
    /// ```
    /// use yinsh_zero::games::connect4::Column;
    /// assert_eq!(Column::parse("4").unwrap().index(), 3);
    /// assert!(Column::parse("8").unwrap_err().contains("1 to 7"));
    /// assert!(Column::parse("0").is_err());
    /// assert!(Column::parse("d").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Column, String> {
        let t = text.trim();
        match t.parse::<usize>() {
            Ok(n) if (1..=WIDTH).contains(&n) && t.len() == 1 => Ok(Column(n as u8 - 1)),
            Ok(_) => Err(format!(
                "`{t}` is not a column: columns are numbered 1 to {WIDTH} from the left"
            )),
            Err(_) => Err(format!(
                "`{t}` is not a column number: write a digit 1 to {WIDTH} (4 is the centre)"
            )),
        }
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// The legal columns of a position, left to right.
pub type Actions = ArrayVec<Column, WIDTH>;

/// A Connect Four position.
///
/// ```
/// use yinsh_zero::games::connect4::{Column, Position};
/// use yinsh_zero::game::{Color, GameResult, State};
///
/// let mut p = Position::start();
/// // White (first) builds a column: four in a line on its fourth stone.
/// for c in [1, 2, 1, 2, 1, 2, 1] {
///     p.play(Column::new(c).unwrap()).unwrap();
/// }
/// assert_eq!(p.result(), Some(GameResult::Win(Color::White)));
/// assert!(p.play(Column::new(3).unwrap()).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// The stones of the player to act.
    current: u64,
    /// Every stone.
    mask: u64,
    moves: u8,
}

impl Position {
    /// The empty board, White to act.
    pub const fn start() -> Position {
        Position {
            current: 0,
            mask: 0,
            moves: 0,
        }
    }

    /// The stones of the player to act (Pons's layout).
    pub const fn current(&self) -> u64 {
        self.current
    }

    /// Every stone on the board.
    pub const fn mask(&self) -> u64 {
        self.mask
    }

    /// Stones on the board: the decisions played.
    pub const fn moves(&self) -> usize {
        self.moves as usize
    }

    /// The stones of `c`.
    pub const fn stones(&self, c: Color) -> u64 {
        // White moved first: White is to act after an even number of moves.
        let white_to_act = self.moves.is_multiple_of(2);
        match (c, white_to_act) {
            (Color::White, true) | (Color::Black, false) => self.current,
            _ => self.current ^ self.mask,
        }
    }

    /// Who owns the cell in `col`, `row` (row 0 at the bottom).
    pub fn at(&self, col: usize, row: usize) -> Option<Color> {
        let bit = bitboard::cell(col, row);
        if self.mask & bit == 0 {
            None
        } else if self.stones(Color::White) & bit != 0 {
            Some(Color::White)
        } else {
            Some(Color::Black)
        }
    }

    /// Stones in column `col`.
    pub fn height(&self, col: Column) -> usize {
        (self.mask & bitboard::column(col.index())).count_ones() as usize
    }

    /// Whether `col` has room for a stone (whatever the game's state).
    pub const fn has_room(&self, col: Column) -> bool {
        self.mask & bitboard::top_of(col.index()) == 0
    }

    /// A unique number of the position that fits in 49 bits: the player
    /// to act's stones plus the occupied cells (Pons's key: adding the
    /// mask sets each column's first free bit, which marks the height).
    pub const fn code(&self) -> u64 {
        self.current + self.mask
    }

    /// The position whose [`Position::code`] is `code`, checked: a board
    /// that some order of play reaches (see [`Position::from_stones`]).
    /// The error says what is wrong.
    ///
    /// ```
    /// use yinsh_zero::games::connect4::Position;
    /// let p = Position::from_moves("4453").unwrap();
    /// assert_eq!(Position::from_code(p.code()).unwrap(), p);
    /// assert!(Position::from_code(1 << 60).is_err());
    /// ```
    pub fn from_code(code: u64) -> Result<Position, String> {
        // With the bottom row added, each column's top set bit marks its
        // height and the bits below it are the stones of the player to
        // act.
        let key = code
            .checked_add(BOTTOM)
            .filter(|k| k >> (WIDTH * bitboard::STRIDE) == 0)
            .ok_or_else(|| format!("code {code:#x} is wider than a 7 x 6 board's"))?;
        let (mut current, mut mask) = (0u64, 0u64);
        for col in 0..WIDTH {
            let seg = (key >> (col * bitboard::STRIDE)) & ((1 << bitboard::STRIDE) - 1);
            if seg == 0 {
                return Err(format!(
                    "code {code:#x}: column {} has no height mark",
                    col + 1
                ));
            }
            let h = 63 - seg.leading_zeros() as usize;
            let below = (1u64 << h) - 1;
            mask |= below << (col * bitboard::STRIDE);
            current |= (seg & below) << (col * bitboard::STRIDE);
        }
        let other = current ^ mask;
        let (white, black) = if mask.count_ones().is_multiple_of(2) {
            (current, other)
        } else {
            (other, current)
        };
        Position::from_stones(white, black).map_err(|e| format!("code {code:#x}: {e}"))
    }

    /// The smaller of the position's [`code`](Position::code) and its
    /// mirror image's: one number for both, as the solver's table and the
    /// opening book file them (a position and its mirror image have the
    /// same score).
    pub const fn mirror_code(&self) -> u64 {
        let code = self.code();
        let mirrored = bitboard::mirror(code);
        if mirrored < code { mirrored } else { code }
    }

    /// The playable cells: the lowest free cell of each column that has
    /// one.
    pub const fn playable(&self) -> u64 {
        (self.mask + BOTTOM) & bitboard::BOARD
    }

    /// Whether the player who just moved has four in a line.
    pub const fn last_mover_won(&self) -> bool {
        bitboard::has_four(self.current ^ self.mask)
    }

    /// Whether the player to act can win with the next stone.
    pub const fn can_win_next(&self) -> bool {
        self.winning_cells() & self.playable() != 0
    }

    /// Cells where a stone of the player to act would make four.
    pub const fn winning_cells(&self) -> u64 {
        bitboard::winning_cells(self.current, self.mask)
    }

    /// Cells where a stone of the opponent would make four.
    pub const fn opponent_winning_cells(&self) -> u64 {
        bitboard::winning_cells(self.current ^ self.mask, self.mask)
    }

    /// Whether playing `col` makes four for the player to act.
    pub const fn wins_with(&self, col: Column) -> bool {
        self.winning_cells() & self.playable() & bitboard::column(col.index()) != 0
    }

    /// Drops a stone of the player to act into the cell `bit` (a single
    /// playable cell): the solver's move, with no checks.
    pub(crate) const fn drop_bit(&mut self, bit: u64) {
        self.current ^= self.mask;
        self.mask |= bit;
        self.moves += 1;
    }

    /// Drops a stone into `col` with no checks (the column must have room).
    pub const fn drop(&mut self, col: Column) {
        self.current ^= self.mask;
        self.mask |= self.mask + bitboard::bottom_of(col.index());
        self.moves += 1;
    }

    /// The position seen in a mirror (columns 1..7 become 7..1).
    pub const fn mirrored(&self) -> Position {
        Position {
            current: bitboard::mirror(self.current),
            mask: bitboard::mirror(self.mask),
            moves: self.moves,
        }
    }

    /// The position after the columns of `moves` (`4453`, or `4 4 5 3`),
    /// each checked; the error names the move that is wrong.
    ///
    /// ```
    /// use yinsh_zero::games::connect4::Position;
    /// use yinsh_zero::game::State;
    /// let p = Position::from_moves("4453").unwrap();
    /// assert_eq!(p.ply(), 4);
    /// assert!(Position::from_moves("4448").unwrap_err().contains("move 4"));
    /// ```
    pub fn from_moves(moves: &str) -> Result<Position, String> {
        let mut p = Position::start();
        for (i, c) in moves.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let col = Column::parse(c.encode_utf8(&mut [0; 4]))
                .map_err(|e| format!("move {} of `{}`: {e}", i + 1, moves.trim()))?;
            p.play(col)
                .map_err(|e| format!("move {} of `{}`: {}", i + 1, moves.trim(), e.reason))?;
        }
        Ok(p)
    }

    /// The position with `white` and `black` stones, checked: every stone
    /// on the board with none floating, as many of White's as Black's or
    /// one more, and an order of play that reaches it (at most the last
    /// stone making four). The error says what is wrong.
    pub fn from_stones(white: u64, black: u64) -> Result<Position, String> {
        if white & black != 0 {
            return Err(format!(
                "{} cells hold both a White and a Black stone",
                (white & black).count_ones()
            ));
        }
        let mask = white | black;
        if mask & !bitboard::BOARD != 0 {
            return Err("stones lie outside the 7 x 6 board".into());
        }
        for col in Column::ALL {
            let c = (mask >> (col.index() * bitboard::STRIDE)) & ((1 << HEIGHT) - 1);
            if c & (c + 1) != 0 {
                return Err(format!(
                    "column {col} has a floating stone (a gap below it)"
                ));
            }
        }
        let (w, b) = (white.count_ones(), black.count_ones());
        if w != b && w != b + 1 {
            return Err(format!(
                "White (who moves first) has {w} stones and Black {b}: White has as many \
                 as Black or one more"
            ));
        }
        let white_four = bitboard::has_four(white);
        let black_four = bitboard::has_four(black);
        if white_four && black_four {
            return Err("both players have four in a line".into());
        }
        let last = if w > b { Color::White } else { Color::Black };
        if (white_four && last != Color::White) || (black_four && last != Color::Black) {
            return Err(format!(
                "{} has four in a line but {} moved last: the game ended before",
                if white_four { "White" } else { "Black" },
                if last == Color::White {
                    "White"
                } else {
                    "Black"
                },
            ));
        }
        let moves = (w + b) as u8;
        let current = if moves.is_multiple_of(2) {
            white
        } else {
            black
        };
        let pos = Position {
            current,
            mask,
            moves,
        };
        if !reachable(white, black, white_four || black_four) {
            return Err(if white_four || black_four {
                "no order of play reaches this board: the four in a line was made before \
                 the last stone"
                    .into()
            } else {
                "no order of play reaches this board: the stones cannot be stacked in turn, \
                 White first"
                    .into()
            });
        }
        Ok(pos)
    }

    fn over(&self) -> bool {
        self.last_mover_won() || self.moves as usize == CELLS
    }
}

/// Whether some order of play, White first and in turn, each stone on the
/// one below it, builds `white` and `black` with no four in a line before
/// the last stone (`won`: the last stone makes one). Searched backwards,
/// taking top stones off in turn, each set of column heights tried once.
fn reachable(white: u64, black: u64, won: bool) -> bool {
    let mask = white | black;
    let mut heights = [0u8; WIDTH];
    for (c, h) in heights.iter_mut().enumerate() {
        *h = (mask & bitboard::column(c)).count_ones() as u8;
    }
    let total: u32 = mask.count_ones();
    if total == 0 {
        return true;
    }
    let mut seen = std::collections::HashSet::new();
    if won {
        // The last stone must break every four; below it, none.
        let mover_white = total % 2 == 1;
        let mine = if mover_white { white } else { black };
        for c in 0..WIDTH {
            if heights[c] == 0 {
                continue;
            }
            let top = bitboard::cell(c, usize::from(heights[c]) - 1);
            if mine & top == 0 || bitboard::has_four(mine & !top) {
                continue;
            }
            heights[c] -= 1;
            if unstack(white, &mut heights, total - 1, &mut seen) {
                return true;
            }
            heights[c] += 1;
        }
        false
    } else {
        unstack(white, &mut heights, total, &mut seen)
    }
}

/// Whether the stones below `heights` (with `left` of them) can be taken
/// off one top stone at a time, the colours alternating back to White's
/// first stone.
fn unstack(
    white: u64,
    heights: &mut [u8; WIDTH],
    left: u32,
    seen: &mut std::collections::HashSet<u32>,
) -> bool {
    if left == 0 {
        return true;
    }
    let code = heights.iter().fold(0u32, |acc, &h| acc * 7 + u32::from(h));
    if !seen.insert(code) {
        return false;
    }
    // The stone number `left` was White's when `left` is odd.
    let want_white = left % 2 == 1;
    for c in 0..WIDTH {
        if heights[c] == 0 {
            continue;
        }
        let top = bitboard::cell(c, usize::from(heights[c]) - 1);
        if (white & top != 0) != want_white {
            continue;
        }
        heights[c] -= 1;
        let ok = unstack(white, heights, left - 1, seen);
        heights[c] += 1;
        if ok {
            return true;
        }
    }
    false
}

impl State for Position {
    type Action = Column;
    type Actions = Actions;

    fn to_act(&self) -> Color {
        if self.moves.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        }
    }

    fn legal_actions(&self) -> Actions {
        let mut out = Actions::new();
        if self.over() {
            return out;
        }
        for c in Column::ALL {
            if self.has_room(c) {
                out.push(c);
            }
        }
        out
    }

    fn legal_action_count(&self) -> usize {
        if self.over() {
            0
        } else {
            self.playable().count_ones() as usize
        }
    }

    fn is_legal(&self, action: Column) -> bool {
        !self.over() && self.has_room(action)
    }

    fn play(&mut self, action: Column) -> Result<(), IllegalAction> {
        let reason = if self.last_mover_won() {
            Some("the game is over: four in a line".to_string())
        } else if self.moves as usize == CELLS {
            Some("the game is over: the board is full".to_string())
        } else if !self.has_room(action) {
            Some(format!("column {action} is full"))
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(IllegalAction {
                action: action.to_string(),
                reason,
            });
        }
        self.drop(action);
        Ok(())
    }

    fn play_unchecked(&mut self, action: Column) {
        debug_assert!(self.is_legal(action), "{action} in\n{self}");
        self.drop(action);
    }

    fn result(&self) -> Option<GameResult> {
        if self.last_mover_won() {
            Some(GameResult::Win(!self.to_act()))
        } else if self.moves as usize == CELLS {
            Some(GameResult::Draw)
        } else {
            None
        }
    }

    fn end_reason(&self) -> Option<&'static str> {
        match self.result()? {
            GameResult::Win(_) => Some("four_in_a_line"),
            GameResult::Draw => Some("board_full"),
        }
    }

    fn ply(&self) -> u32 {
        u32::from(self.moves)
    }

    fn key(&self) -> u64 {
        mix64(self.code())
    }

    /// How soon the game was won: the solvers' score of a win with the
    /// winner's `k`-th stone, `22 - k` (a loss is minus that, a draw 0),
    /// over 18, the score of the soonest win (the fourth stone). A search
    /// that weighs it prefers the sooner win and the later loss, which the
    /// win/draw/loss result alone does not tell apart.
    fn margin(&self, player: Color) -> Option<f32> {
        let score = match self.result()? {
            GameResult::Draw => 0.0,
            GameResult::Win(w) => {
                // The winner made the last move: its stones are the odd or
                // even ones, `ceil(moves / 2)` of them either way.
                let k = f32::from(self.moves.div_ceil(2));
                let s = (22.0 - k) / 18.0;
                if w == player { s } else { -s }
            }
        };
        Some(score)
    }
}

/// The board from the top row down, `X` for White (first), `O` for Black,
/// `.` for empty, the column numbers below.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..HEIGHT).rev() {
            for col in 0..WIDTH {
                let ch = match self.at(col, row) {
                    None => '.',
                    Some(Color::White) => 'X',
                    Some(Color::Black) => 'O',
                };
                write!(f, "{ch}")?;
                if col + 1 < WIDTH {
                    write!(f, " ")?;
                }
            }
            writeln!(f)?;
        }
        write!(f, "1 2 3 4 5 6 7")
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} stones)\n{self}", self.moves)
    }
}
