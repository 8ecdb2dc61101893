//! Filling the opening book with the positions perfect play meets.
//!
//! `perfect` needs, wherever it is to act, the exact score of every column
//! (to choose among the equally good ones at random). So the book is grown
//! over the tree of games it can play on either side: where `perfect` is
//! to act, every column's score is solved and only its best columns are
//! followed; where its opponent is, every column is followed. Whole plies
//! at a time, shallowest first (`plies` 1, then 2, ...), so that a stopped
//! build has finished the shallow plies, which cost the most to meet
//! unprepared; and what a ply solves makes the next one cheaper, the
//! solver looking every child up in the book before searching it.
//!
//! The same tree serves the grader: its games against `perfect` and its
//! test of the player's own early decisions ask the same questions.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::super::bitboard::CELLS;
use super::super::position::{Column, Position};
use super::super::solve::{Score, Solver};
use crate::game::{Color, State};

/// How far to build and when to stop.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Where the games start: the empty board for `perfect`'s book; a
    /// later position grows the book of its games alone.
    pub start: Position,
    /// Stones of the deepest positions `perfect` acts in that the book
    /// answers: their children, one stone deeper, are solved.
    pub plies: usize,
    /// Stop (between two solves) at this moment.
    pub deadline: Option<Instant>,
    /// Hand the book over to be saved at least this often.
    pub save_every: Duration,
}

/// What a build did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BuildReport {
    /// The deepest `plies` finished, on both sides (0: none).
    pub complete_plies: usize,
    /// Positions solved by search (the rest came from the book).
    pub solved: u64,
    /// Search nodes spent.
    pub nodes: u64,
    pub seconds: f64,
    /// Whether the deadline stopped it.
    pub stopped: bool,
}

/// One progress line's worth: a costly solve, or a ply finished.
#[derive(Clone, Debug)]
pub enum Progress {
    Solved {
        plies: usize,
        moves: String,
        score: Score,
        seconds: f64,
        nodes: u64,
        book: usize,
    },
    PliesDone {
        plies: usize,
        book: usize,
        seconds: f64,
    },
}

/// Grows `solver`'s book (see the [module docs](self)), handing it to
/// `save` every `save_every`, after each finished ply and at the end.
/// `progress` hears of every solve that took a second or more.
pub fn build(
    solver: &mut Solver,
    opts: &BuildOptions,
    save: &mut dyn FnMut(&mut Solver) -> anyhow::Result<()>,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<BuildReport> {
    assert!(solver.book().is_some(), "the solver has no book to fill");
    let started = Instant::now();
    let nodes_before = solver.nodes;
    let mut walk = Walk {
        solver,
        opts,
        save,
        progress,
        last_save: Instant::now(),
        solved: 0,
        plies: 0,
        seen: HashSet::new(),
        line: String::new(),
    };
    let mut report = BuildReport::default();
    for plies in opts.start.moves() + 1..=opts.plies {
        walk.plies = plies;
        let mut done = true;
        for side in [Color::White, Color::Black] {
            walk.seen.clear();
            done &= walk.visit(opts.start, side)?;
        }
        if !done {
            report.stopped = true;
            break;
        }
        report.complete_plies = plies;
        (walk.save)(walk.solver)?;
        walk.last_save = Instant::now();
        let book = walk.solver.book().map_or(0, |b| b.len());
        (walk.progress)(Progress::PliesDone {
            plies,
            book,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    if report.stopped {
        (walk.save)(walk.solver)?;
    }
    report.solved = walk.solved;
    report.nodes = walk.solver.nodes - nodes_before;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

struct Walk<'a> {
    solver: &'a mut Solver,
    opts: &'a BuildOptions,
    save: &'a mut dyn FnMut(&mut Solver) -> anyhow::Result<()>,
    progress: &'a mut dyn FnMut(Progress),
    last_save: Instant,
    solved: u64,
    plies: usize,
    /// Positions (and their mirror images) walked in this pass.
    seen: HashSet<u64>,
    /// The columns from the empty board to the position being walked.
    line: String,
}

impl Walk<'_> {
    /// Walks the games from `p` in which `side` plays perfectly; `false`
    /// when the deadline stopped it.
    fn visit(&mut self, p: Position, side: Color) -> anyhow::Result<bool> {
        if p.moves() >= self.plies || p.is_over() {
            return Ok(true);
        }
        if !self.seen.insert(p.mirror_code()) {
            return Ok(true);
        }
        // A board that is its own mirror image needs only its left half
        // and centre.
        let symmetric = p == p.mirrored();
        let columns = Column::ALL
            .into_iter()
            .filter(|&c| p.has_room(c) && !(symmetric && c.index() > 3));
        let follow: Vec<Column> = if p.to_act() == side {
            let mut scored = Vec::new();
            for c in columns {
                match self.column_score(&p, c)? {
                    Some(s) => scored.push((c, s)),
                    None => return Ok(false),
                }
            }
            let best = scored.iter().map(|s| s.1).max().expect("a column has room");
            self.solver.learn(&p, best);
            scored
                .into_iter()
                .filter(|s| s.1 == best)
                .map(|s| s.0)
                .collect()
        } else {
            columns.collect()
        };
        for c in follow {
            let mut child = p;
            child.drop(c);
            self.line.push(char::from(b'0' + c.number()));
            let finished = self.visit(child, side)?;
            self.line.pop();
            if !finished {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The exact score of column `c` in `p` for the player to act, from
    /// the book or solved (and then added to it); `None` when the deadline
    /// has passed.
    fn column_score(&mut self, p: &Position, c: Column) -> anyhow::Result<Option<Score>> {
        let mut child = *p;
        child.drop(c);
        // A win now, a full board or a book entry: answered without search.
        let known = p.wins_with(c)
            || child.moves() == CELLS
            || self.solver.book().is_some_and(|b| b.get(&child).is_some());
        if known {
            return Ok(self.solver.try_column_score(p, c, u64::MAX));
        }
        if self.opts.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(None);
        }
        let t = Instant::now();
        let nodes = self.solver.nodes;
        let s = self.solver.solve(&child);
        self.solver.learn(&child, s);
        self.solved += 1;
        let seconds = t.elapsed().as_secs_f64();
        if seconds >= 1.0 {
            let mut moves = self.line.clone();
            moves.push(char::from(b'0' + c.number()));
            let book = self.solver.book().map_or(0, |b| b.len());
            (self.progress)(Progress::Solved {
                plies: self.plies,
                moves,
                score: s,
                seconds,
                nodes: self.solver.nodes - nodes,
                book,
            });
        }
        if self.last_save.elapsed() >= self.opts.save_every {
            (self.save)(self.solver)?;
            self.last_save = Instant::now();
        }
        Ok(Some(s.negated()))
    }
}
