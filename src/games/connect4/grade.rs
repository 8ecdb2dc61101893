//! Grading a Connect Four player against the exact solver: the share of
//! its decisions that keep the game-theoretic value (a win stays a win, a
//! draw at least a draw; from a lost position every move keeps it) and the
//! share that are optimal (the best score: the fastest win, the slowest
//! loss), measured
//!
//! - (a) on the test set ([`super::testset`]), kind by kind, because
//!   finishing a won endgame and finding a plan from the opening are
//!   different skills and one tally would hide either behind the other;
//! - (b) on the player's own games (it plays both sides);
//! - (c) in games against perfect play from the empty board, on each side.
//!
//! A test position's score is its label, so grading one decision is one or
//! two null-window searches of the position after the chosen column (does
//! it keep the score? does it keep the sign?). A position from a game is
//! solved first. Positions near the start can take the solver minutes, so
//! every question has a node budget; a decision the solver cannot grade
//! within it is counted apart (`unsolved`), never guessed, and a game
//! against perfect play whose perfect move is past the budget stops
//! unresolved.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::bitboard::CELLS;
use super::book::Book;
use super::bounds::{Bounds, BoundsError};
use super::solve::{Score, Solver};
use super::testset::{self, Kind};
use super::{Column, Connect4, Position};
pub use crate::arena::grade::Tally;
use crate::arena::{PlayError, Player, play_game};
use crate::game::{Color, Game, GameResult, State, random_opening};
use crate::util::sub_seed;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Connect4GradeOptions {
    /// The test set's folder ([`testset::DEFAULT_DIR`]).
    pub testset: PathBuf,
    /// Test positions of each kind the player decides on (the first of
    /// each file); 0 skips the test set.
    pub per_kind: usize,
    /// Games of the player against itself whose decisions are graded.
    pub own_games: usize,
    /// Random columns opening each of those games, so that they differ.
    pub opening: u32,
    /// Games against perfect play on each side, from `versus_start`.
    pub versus_perfect: usize,
    /// Where those games start, as the columns played to it: `""`, the
    /// empty board, for `grade` (perfect play's first moves there take the
    /// solver minutes each, past any small node budget); a later position
    /// measures a player quickly.
    pub versus_start: String,
    /// Search nodes the solver may spend on one question.
    pub solver_nodes: u64,
    /// The solver's table, in bits of entries.
    pub table_bits: u32,
    /// The opening book the solver answers from first, if any.
    pub book: Option<Book>,
    /// Where the entries the solver adds to its book are synced
    /// ([`Book::sync`]) every [`SYNC_EVERY`] and at the end, so that a
    /// stopped grade keeps what it solved and the next one starts from it;
    /// `None` keeps them in memory only.
    pub book_file: Option<PathBuf>,
    /// A file of the bounds on exact scores that grades proved
    /// ([`super::bounds`]): read first (created if missing), every
    /// question it settles answered from it, and what this grade proves
    /// synced into it every [`SYNC_EVERY`] and at the end, so that the
    /// next grade on the same positions, or this one run again after a
    /// kill, asks the solver only what is new.
    pub bounds_file: Option<PathBuf>,
    /// Called with a line per kind of test position, per game and per
    /// game against perfect play: a whole grade takes hours, and the
    /// command prints them on standard error.
    pub progress: Option<fn(&str)>,
    pub seed: u64,
}

/// How often a grade with a `book_file` or a `bounds_file` syncs them.
pub const SYNC_EVERY: Duration = Duration::from_secs(300);

/// The decisions on one kind of test position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KindTally {
    /// `end-easy`, ..., `begin-hard`.
    pub kind: &'static str,
    pub tally: Tally,
}

/// Games of the player on one side against perfect play.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VersusPerfect {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Games stopped where perfect play's move was past the solver's node
    /// budget: counted in `games` only.
    pub unresolved: u32,
    /// Games in which at least one of the player's decisions was not
    /// optimal. As second from the empty board (lost under perfect play,
    /// which wins as fast as it can) these are the games it lost faster
    /// than perfect play allows.
    pub imperfect: u32,
    /// The player's decisions in those games.
    pub decisions: Tally,
    /// Each game's columns from its start (`4453...`).
    pub records: Vec<String>,
}

/// Everything [`grade`] measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Connect4GradeReport {
    /// By kind, in [`Kind::ALL`]'s order (kinds whose file is empty or
    /// skipped have no decisions).
    pub testset: Vec<KindTally>,
    pub own_games: Tally,
    /// The player moving first (White) against perfect play.
    pub as_first: VersusPerfect,
    /// The player moving second (Black) against perfect play.
    pub as_second: VersusPerfect,
    /// A few value-losing decisions, for people to look at.
    pub mistakes: Vec<String>,
}

/// Why grading stopped.
#[derive(Debug, thiserror::Error)]
pub enum Connect4GradeError {
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("{0}")]
    Player(String),
    #[error("{0}")]
    TestSet(String),
    #[error("the start of the games against perfect play: {0}")]
    Start(String),
    #[error(transparent)]
    Book(#[from] super::book::BookError),
    #[error(transparent)]
    Bounds(#[from] BoundsError),
}

const MISTAKES_KEPT: usize = 10;

/// The grader's solver, its node budget, what it has proved and the
/// mistakes it keeps.
struct Judge {
    solver: Solver,
    budget: u64,
    bounds: Bounds,
    bounds_file: Option<PathBuf>,
    /// Questions put to the judge, and how many its bounds answered.
    questions: u64,
    answered: u64,
    mistakes: Vec<String>,
    book_file: Option<PathBuf>,
    last_sync: Instant,
    progress: Option<fn(&str)>,
    started: Instant,
}

impl Judge {
    /// Whether `c` in `pos` is worth at least `target` to the player to
    /// act; `None` past the budget.
    fn at_least(&mut self, pos: &Position, c: Column, target: Score) -> Option<bool> {
        if pos.wins_with(c) {
            return Some(Score::win_now(pos.moves()) >= target);
        }
        let mut child = *pos;
        child.drop(c);
        if child.moves() == CELLS {
            return Some(Score::DRAW >= target);
        }
        self.questions += 1;
        if let Some(known) = self.bounds.at_most(&child, -target.get()) {
            self.answered += 1;
            return Some(known);
        }
        let answer = self
            .solver
            .try_at_most(&child, -target.get(), self.budget)?;
        self.bounds.record_at_most(&child, -target.get(), answer);
        Some(answer)
    }

    /// `pos`'s exact score, `None` past the budget.
    fn solve(&mut self, pos: &Position) -> Option<Score> {
        self.questions += 1;
        if let Some(known) = self.bounds.exact(pos) {
            self.answered += 1;
            return Some(known);
        }
        let score = self.solver.try_solve(pos, self.budget)?;
        self.bounds.record_exact(pos, score);
        Some(score)
    }

    /// Grades column `c` chosen in `pos` (written `moves`) into `tally`;
    /// `score` is the position's, when known.
    fn grade(
        &mut self,
        pos: &Position,
        moves: &str,
        score: Option<Score>,
        c: Column,
        tally: &mut Tally,
    ) {
        let score = match score {
            Some(s) => Some(s),
            None => self.solve(pos),
        };
        let Some(score) = score else {
            tally.unsolved += 1;
            return;
        };
        let Some(optimal) = self.at_least(pos, c, score) else {
            tally.unsolved += 1;
            return;
        };
        let preserving = if optimal || score.get() < 0 {
            Some(true)
        } else if score.get() > 0 {
            self.at_least(pos, c, Score::new(1).expect("a score"))
        } else {
            Some(false)
        };
        let Some(preserving) = preserving else {
            tally.unsolved += 1;
            return;
        };
        tally.decisions += 1;
        tally.optimal += u64::from(optimal);
        tally.preserving += u64::from(preserving);
        if !preserving && self.mistakes.len() < MISTAKES_KEPT {
            let lost = if score.get() > 0 { "win" } else { "draw" };
            self.mistakes.push(format!(
                "after `{moves}` (score {score}: a {} for the player to act)\n{pos}\nplayed {c}, \
                 which gives up the {lost}",
                score.outcome().word()
            ));
        }
    }

    /// Syncs the book file and the bounds file when [`SYNC_EVERY`] has
    /// passed since the last sync, or now if `now`.
    fn sync(&mut self, now: bool) -> Result<(), Connect4GradeError> {
        if !now && self.last_sync.elapsed() < SYNC_EVERY {
            return Ok(());
        }
        if let (Some(path), Some(book)) = (&self.book_file, self.solver.book_mut()) {
            book.sync(path)?;
        }
        if let Some(path) = &self.bounds_file {
            self.bounds.sync(path)?;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Hands `line`, stamped with the time since the grade began, to the
    /// progress callback.
    fn say(&self, line: std::fmt::Arguments<'_>) {
        if let Some(progress) = self.progress {
            let s = self.started.elapsed().as_secs();
            progress(&format!(
                "[{}:{:02}:{:02}] {line}",
                s / 3600,
                s / 60 % 60,
                s % 60
            ));
        }
    }

    /// Perfect play's column in `pos` (ties at random), `None` past the
    /// budget: the score, then which columns keep it, as
    /// [`Solver::try_best_columns`] finds them but through the bounds.
    fn perfect(&mut self, pos: &Position, ties: &mut SmallRng) -> Option<Column> {
        let score = self.solve(pos)?;
        let mut best = Vec::new();
        for c in Column::ALL {
            if pos.has_room(c) && self.at_least(pos, c, score)? {
                best.push(c);
            }
        }
        Some(best[ties.random_range(0..best.len())])
    }
}

/// A tally as a progress line gives it.
fn tally_summary(t: &Tally) -> String {
    let share = |n: u64| 100.0 * n as f64 / t.decisions.max(1) as f64;
    format!(
        "{} decisions graded, {:.1}% keep the value, {:.1}% optimal, {} unsolved",
        t.decisions,
        share(t.preserving),
        share(t.optimal),
        t.unsolved
    )
}

/// Asks `player` for its column in `pos`, checking that it is legal.
fn ask(player: &mut dyn Player<Position>, pos: &Position) -> Result<Column, Connect4GradeError> {
    let c = player
        .try_choose(pos)
        .map_err(|e| Connect4GradeError::Player(e.to_string()))?;
    if !pos.is_legal(c) {
        return Err(Connect4GradeError::Player(format!(
            "`{}` chose the illegal column {c} in\n{pos}",
            player.name()
        )));
    }
    Ok(c)
}

/// Grades the player that `make_player(seed)` builds against the exact
/// solver.
pub fn grade(
    game: &Connect4,
    make_player: &mut dyn FnMut(u64) -> Result<Box<dyn Player<Position>>, String>,
    opts: &Connect4GradeOptions,
) -> Result<Connect4GradeReport, Connect4GradeError> {
    let book = match (&opts.book, &opts.book_file) {
        (Some(b), _) => Some(b.clone()),
        // A book to fill, so that the file gains what is solved.
        (None, Some(_)) => Some(Book::default()),
        (None, None) => None,
    };
    let mut judge = Judge {
        solver: match book {
            Some(b) => Solver::new(opts.table_bits).with_book(b),
            None => Solver::new(opts.table_bits),
        },
        budget: opts.solver_nodes,
        bounds: match &opts.bounds_file {
            Some(path) => Bounds::load_or_empty(path)?,
            None => Bounds::default(),
        },
        bounds_file: opts.bounds_file.clone(),
        questions: 0,
        answered: 0,
        mistakes: Vec::new(),
        book_file: opts.book_file.clone(),
        last_sync: Instant::now(),
        progress: opts.progress,
        started: Instant::now(),
    };
    // At once, so that an unwritable book or bounds file stops the grade
    // before its hours, not after.
    judge.sync(true)?;
    let mut report = Connect4GradeReport::default();
    let mut player =
        make_player(sub_seed(opts.seed, 0x7e57)).map_err(Connect4GradeError::Player)?;

    // (a) The test set, kind by kind.
    for kind in Kind::ALL {
        let mut tally = Tally::default();
        if opts.per_kind > 0 {
            let positions =
                testset::load(&opts.testset, kind).map_err(Connect4GradeError::TestSet)?;
            for l in positions.iter().take(opts.per_kind) {
                player.new_game(&l.position);
                let c = ask(player.as_mut(), &l.position)?;
                judge.grade(&l.position, &l.moves, Some(l.score), c, &mut tally);
                judge.sync(false)?;
            }
            judge.say(format_args!(
                "test set, {}: {}",
                kind.name(),
                tally_summary(&tally)
            ));
        }
        report.testset.push(KindTally {
            kind: kind.name(),
            tally,
        });
    }

    // (b) The player's own games, after a few random columns.
    let mut rng = SmallRng::seed_from_u64(sub_seed(opts.seed, 0x0be1));
    for g in 0..opts.own_games {
        let mut white =
            make_player(sub_seed(opts.seed, 2 * g as u64)).map_err(Connect4GradeError::Player)?;
        let mut black = make_player(sub_seed(opts.seed, 2 * g as u64 + 1))
            .map_err(Connect4GradeError::Player)?;
        let mut start = game.start();
        let opening = random_opening(&start, opts.opening, &mut rng);
        for &c in &opening {
            start.play_unchecked(c);
        }
        let record = play_game(white.as_mut(), black.as_mut(), start)?;
        let mut pos = record.start;
        let mut moves = game.format_game(&game.start(), &opening);
        for &c in &record.actions {
            judge.grade(&pos, &moves, None, c, &mut report.own_games);
            pos.play_unchecked(c);
            moves.push_str(&c.to_string());
        }
        judge.sync(false)?;
        judge.say(format_args!(
            "own game {} of {}: `{moves}`; so far {}",
            g + 1,
            opts.own_games,
            tally_summary(&report.own_games)
        ));
    }

    // (c) Against perfect play, on each side.
    for (side, out) in [
        (Color::White, &mut report.as_first),
        (Color::Black, &mut report.as_second),
    ] {
        for g in 0..opts.versus_perfect {
            let mut me = make_player(sub_seed(opts.seed, 0x9e4f_0000 + g as u64))
                .map_err(Connect4GradeError::Player)?;
            let mut ties = SmallRng::seed_from_u64(sub_seed(opts.seed, 0x9e4f_8000 + g as u64));
            versus_perfect(
                &opts.versus_start,
                me.as_mut(),
                side,
                &mut judge,
                &mut ties,
                out,
            )?;
            judge.sync(false)?;
            judge.say(format_args!(
                "as {} against perfect, game {} of {}: `{}`; so far {} won, {} drawn, {} lost, \
                 {} unresolved, {} short of optimal",
                if side == Color::White {
                    "first"
                } else {
                    "second"
                },
                g + 1,
                opts.versus_perfect,
                out.records.last().map_or("", String::as_str),
                out.wins,
                out.draws,
                out.losses,
                out.unresolved,
                out.imperfect
            ));
        }
    }
    judge.sync(true)?;
    if let Some(path) = &judge.bounds_file {
        judge.say(format_args!(
            "{} of {} questions answered from the bounds; {} holds {} positions' bounds",
            judge.answered,
            judge.questions,
            path.display(),
            judge.bounds.len()
        ));
    }
    report.mistakes = judge.mistakes;
    Ok(report)
}

/// One game of `player` on `side` against perfect play from the position
/// after `start` (columns), its decisions graded, into `out`.
fn versus_perfect(
    start: &str,
    player: &mut dyn Player<Position>,
    side: Color,
    judge: &mut Judge,
    ties: &mut SmallRng,
    out: &mut VersusPerfect,
) -> Result<(), Connect4GradeError> {
    let mut pos = Position::from_moves(start).map_err(Connect4GradeError::Start)?;
    player.new_game(&pos);
    let mut moves = start
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>();
    out.games += 1;
    let before = out.decisions.clone();
    while !pos.is_over() {
        let c = if pos.to_act() == side {
            let c = ask(player, &pos)?;
            judge.grade(&pos, &moves, None, c, &mut out.decisions);
            c
        } else {
            let Some(c) = judge.perfect(&pos, ties) else {
                out.unresolved += 1;
                out.records.push(moves);
                return Ok(());
            };
            c
        };
        player.observe(&pos, c);
        pos.play_unchecked(c);
        moves.push_str(&c.to_string());
    }
    let d = &out.decisions;
    if d.decisions - before.decisions > d.optimal - before.optimal {
        out.imperfect += 1;
    }
    match pos.result() {
        Some(GameResult::Win(w)) if w == side => out.wins += 1,
        Some(GameResult::Win(_)) => out.losses += 1,
        _ => out.draws += 1,
    }
    out.records.push(moves);
    Ok(())
}
