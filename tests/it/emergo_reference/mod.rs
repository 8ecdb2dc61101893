//! A second implementation of the Emergo rules, written to be obviously
//! right rather than fast, for cross-checking `yinsh_zero::games::emergo`.
//!
//! It shares no code with the library: the board is a plain
//! `Vec<Vec<Option<Stack>>>` indexed `[row][col]` (row 0 is rank 1), a
//! stack is a tuple (colour letter, controllers, prisoners), capture chains
//! are found by a recursive search that clones the board at every jump, and
//! turns exist only as whole-turn strings in vchess notation (`@e5`,
//! `c3-d4`, `c3xe5xg3`) with the state they lead to.
//!
//! Rules, as pinned in docs/emergo-rules.md: play on squares with row +
//! column even; White first; a turn enters a man (all of the hand once the
//! opponent's hand is empty), steps a unit diagonally, or captures;
//! capturing is compulsory and must take a longest chain; a chain may not
//! reverse its last jump; a jump moves the jumper behind the jumped unit
//! with one more prisoner and takes the jumped unit's top man (a last
//! controller frees its prisoners, or leaves nothing); no steps while men
//! are in hand; no entry where an adjacent enemy could jump the new man at
//! once, unless the enemy already has a capture; White not on the centre at
//! the first move. At the start of a turn: no units and nothing in hand
//! loses; no legal turn is a draw (or a loss in `blocked-loses`); 100
//! turns without entry or capture draw, and so do 400 turns.

#![allow(dead_code)]

/// (colour 'W' or 'B', controllers, prisoners).
pub type Stack = (char, u8, u8);

/// `[row][col]`, row 0 = rank 1, col 0 = file a.
pub type Board = Vec<Vec<Option<Stack>>>;

pub const QUIET_LIMIT: u16 = 100;
pub const TURN_LIMIT: u16 = 400;

const DIAGONALS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Ref {
    pub n: i32,
    pub men: u8,
    pub blocked_loses: bool,
    pub board: Board,
    /// Men in hand: White's, Black's.
    pub hand: [u8; 2],
    /// 'W' or 'B'.
    pub turn: char,
    pub quiet: u16,
    pub turns: u16,
    /// `None` while the game runs; `Some(None)` drawn; `Some(Some(c))` won by `c`.
    pub over: Option<Option<char>>,
}

/// A whole turn.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Turn {
    Enter(i32, i32),
    Step(i32, i32, i32, i32),
    /// The squares visited, start first.
    Capture(Vec<(i32, i32)>),
}

pub fn other(c: char) -> char {
    if c == 'W' { 'B' } else { 'W' }
}

fn slot(c: char) -> usize {
    if c == 'W' { 0 } else { 1 }
}

pub fn name(r: i32, c: i32) -> String {
    format!("{}{}", (b'a' + c as u8) as char, r + 1)
}

impl Turn {
    pub fn notation(&self) -> String {
        match self {
            Turn::Enter(r, c) => format!("@{}", name(*r, *c)),
            Turn::Step(r, c, r2, c2) => format!("{}-{}", name(*r, *c), name(*r2, *c2)),
            Turn::Capture(path) => path
                .iter()
                .map(|&(r, c)| name(r, c))
                .collect::<Vec<_>>()
                .join("x"),
        }
    }
}

impl Ref {
    /// An empty board of side `n` with `men` in each hand.
    pub fn new(n: i32, men: u8, blocked_loses: bool) -> Ref {
        Ref {
            n,
            men,
            blocked_loses,
            board: vec![vec![None; n as usize]; n as usize],
            hand: [men, men],
            turn: 'W',
            quiet: 0,
            turns: 0,
            over: None,
        }
    }

    fn on(&self, r: i32, c: i32) -> bool {
        r >= 0 && c >= 0 && r < self.n && c < self.n
    }

    pub fn at(&self, r: i32, c: i32) -> Option<Stack> {
        self.board[r as usize][c as usize]
    }

    fn set(board: &mut [Vec<Option<Stack>>], r: i32, c: i32, s: Option<Stack>) {
        board[r as usize][c as usize] = s;
    }

    /// One jump on a copy of `board`: the stack on (r, c) jumps direction
    /// (dr, dc), if it can.
    fn jump(
        &self,
        board: &[Vec<Option<Stack>>],
        r: i32,
        c: i32,
        dr: i32,
        dc: i32,
    ) -> Option<Board> {
        let (mr, mc, lr, lc) = (r + dr, c + dc, r + 2 * dr, c + 2 * dc);
        if !self.on(lr, lc) {
            return None;
        }
        let (col, k, m) = board[r as usize][c as usize]?;
        let (jcol, jk, jm) = board[mr as usize][mc as usize]?;
        if jcol == col || board[lr as usize][lc as usize].is_some() {
            return None;
        }
        let mut b = board.to_vec();
        Ref::set(&mut b, r, c, None);
        Ref::set(&mut b, lr, lc, Some((col, k, m + 1)));
        let left = if jk >= 2 {
            Some((jcol, jk - 1, jm))
        } else if jm >= 1 {
            Some((other(jcol), jm, 0))
        } else {
            None
        };
        Ref::set(&mut b, mr, mc, left);
        Some(b)
    }

    /// Every chain from (r, c) that cannot be extended, as the squares it
    /// visits.
    fn chains(
        &self,
        board: &[Vec<Option<Stack>>],
        r: i32,
        c: i32,
        last: Option<(i32, i32)>,
        path: &mut Vec<(i32, i32)>,
        out: &mut Vec<Vec<(i32, i32)>>,
    ) {
        let mut extended = false;
        for (dr, dc) in DIAGONALS {
            if last == Some((-dr, -dc)) {
                continue;
            }
            if let Some(b) = self.jump(board, r, c, dr, dc) {
                extended = true;
                path.push((r + 2 * dr, c + 2 * dc));
                self.chains(&b, r + 2 * dr, c + 2 * dc, Some((dr, dc)), path, out);
                path.pop();
            }
        }
        if !extended && path.len() > 1 {
            out.push(path.clone());
        }
    }

    fn can_capture(&self, who: char) -> bool {
        for r in 0..self.n {
            for c in 0..self.n {
                if matches!(self.at(r, c), Some((col, _, _)) if col == who)
                    && DIAGONALS
                        .iter()
                        .any(|&(dr, dc)| self.jump(&self.board, r, c, dr, dc).is_some())
                {
                    return true;
                }
            }
        }
        false
    }

    /// The longest capture chains of the player to act.
    fn captures(&self) -> Vec<Vec<(i32, i32)>> {
        let mut all = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                if matches!(self.at(r, c), Some((col, _, _)) if col == self.turn) {
                    self.chains(&self.board, r, c, None, &mut vec![(r, c)], &mut all);
                }
            }
        }
        let longest = all.iter().map(|p| p.len()).max().unwrap_or(0);
        all.retain(|p| p.len() == longest);
        all
    }

    /// The legal turns, without asking whether the game is over.
    pub fn turns_raw(&self) -> Vec<Turn> {
        let caps = self.captures();
        if !caps.is_empty() {
            return caps.into_iter().map(Turn::Capture).collect();
        }
        let me = self.turn;
        let mut out = Vec::new();
        if self.hand[slot(me)] > 0 {
            let enemy_can_capture = self.can_capture(other(me));
            let centre = self.n / 2;
            for r in 0..self.n {
                for c in 0..self.n {
                    if (r + c) % 2 != 0 || self.at(r, c).is_some() {
                        continue;
                    }
                    if me == 'W' && self.hand[0] == self.men && r == centre && c == centre {
                        continue;
                    }
                    let exposed = DIAGONALS.iter().any(|&(dr, dc)| {
                        self.on(r + dr, c + dc)
                            && self.on(r - dr, c - dc)
                            && matches!(self.at(r + dr, c + dc), Some((col, _, _)) if col != me)
                            && self.at(r - dr, c - dc).is_none()
                    });
                    if !exposed || enemy_can_capture {
                        out.push(Turn::Enter(r, c));
                    }
                }
            }
        } else {
            for r in 0..self.n {
                for c in 0..self.n {
                    if !matches!(self.at(r, c), Some((col, _, _)) if col == me) {
                        continue;
                    }
                    for (dr, dc) in DIAGONALS {
                        if self.on(r + dr, c + dc) && self.at(r + dr, c + dc).is_none() {
                            out.push(Turn::Step(r, c, r + dr, c + dc));
                        }
                    }
                }
            }
        }
        out
    }

    /// The legal turns (none once the game is over).
    pub fn turns(&self) -> Vec<Turn> {
        if self.over.is_some() {
            return Vec::new();
        }
        self.turns_raw()
    }

    /// The state after `t` (a legal turn).
    pub fn play(&self, t: &Turn) -> Ref {
        let mut s = self.clone();
        let me = self.turn;
        let progress = match t {
            Turn::Enter(r, c) => {
                let k = if self.hand[slot(other(me))] == 0 {
                    self.hand[slot(me)]
                } else {
                    1
                };
                s.hand[slot(me)] -= k;
                Ref::set(&mut s.board, *r, *c, Some((me, k, 0)));
                true
            }
            Turn::Step(r, c, r2, c2) => {
                let st = s.at(*r, *c);
                Ref::set(&mut s.board, *r, *c, None);
                Ref::set(&mut s.board, *r2, *c2, st);
                false
            }
            Turn::Capture(path) => {
                for w in path.windows(2) {
                    let ((r, c), (r2, c2)) = (w[0], w[1]);
                    s.board = s
                        .jump(&s.board, r, c, (r2 - r) / 2, (c2 - c) / 2)
                        .expect("a chain's jump");
                }
                true
            }
        };
        s.turn = other(me);
        s.turns += 1;
        s.quiet = if progress { 0 } else { s.quiet + 1 };
        s.judge();
        s
    }

    /// Whether the game is over at the start of the new turn.
    fn judge(&mut self) {
        let me = self.turn;
        let has_unit = self
            .board
            .iter()
            .flatten()
            .any(|s| matches!(s, Some((col, _, _)) if *col == me));
        self.over = if self.hand[slot(me)] == 0 && !has_unit {
            Some(Some(other(me)))
        } else if self.turns_raw().is_empty() {
            Some(if self.blocked_loses {
                Some(other(me))
            } else {
                None
            })
        } else if self.quiet >= QUIET_LIMIT || self.turns >= TURN_LIMIT {
            Some(None)
        } else {
            None
        };
    }

    /// Leaves of the tree of whole turns cut at `depth` (a finished game
    /// is one leaf).
    pub fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 0 || self.over.is_some() {
            return 1;
        }
        let turns = self.turns();
        if depth == 1 {
            return turns.len() as u64;
        }
        turns
            .iter()
            .map(|t| self.play(t).perft_turns(depth - 1))
            .sum()
    }

    /// Leaves of the tree of single decisions cut at `depth`: an entry or
    /// a step is one decision, each jump of a chain one more (chains that
    /// share their first jumps share those decisions).
    pub fn perft_decisions(&self, depth: u32) -> u64 {
        if depth == 0 || self.over.is_some() {
            return 1;
        }
        let mut total = 0;
        let mut chains = Vec::new();
        for t in self.turns() {
            match t {
                Turn::Capture(p) => chains.push(p),
                _ if depth == 1 => total += 1,
                other => total += self.play(&other).perft_decisions(depth - 1),
            }
        }
        total + self.count_chains(&chains, 0, depth)
    }

    /// `chains` share their first `k` jumps (`k + 1` squares); `depth`
    /// decisions are left.
    fn count_chains(&self, chains: &[Vec<(i32, i32)>], k: usize, depth: u32) -> u64 {
        if chains.is_empty() {
            return 0;
        }
        if depth == 0 {
            return 1;
        }
        if k > 0 && chains[0].len() == k + 1 {
            return self
                .play(&Turn::Capture(chains[0].clone()))
                .perft_decisions(depth);
        }
        let mut keys: Vec<&[(i32, i32)]> = chains.iter().map(|p| &p[..k + 2]).collect();
        keys.sort();
        keys.dedup();
        keys.iter()
            .map(|key| {
                let group: Vec<Vec<(i32, i32)>> = chains
                    .iter()
                    .filter(|p| p[..k + 2] == key[..])
                    .cloned()
                    .collect();
                self.count_chains(&group, k + 1, depth - 1)
            })
            .sum()
    }
}
