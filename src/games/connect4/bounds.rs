//! What the grader has proved about exact scores, kept in a file so that
//! the next grade asks the solver only what is new.
//!
//! Grading a decision on a test position is one or two null-window
//! searches of the position after the chosen column (is its score at most
//! `-target`?), and near the start of a game one costs seconds. Two
//! networks graded on the same test set choose the same column most of
//! the time, the bare policy and the search over it likewise, so most of a
//! second grade's questions were answered by the first. Each answer is a
//! bound on the position's exact score (at most `b`, or at least `b + 1`);
//! an exact score is both. [`Bounds`] keeps the tightest of each per
//! position (a position and its mirror image share one entry) and answers
//! a question when they settle it.
//!
//! A grade that is killed keeps what it proved up to its last sync, so
//! running the same command again goes on where it stopped in all but the
//! network's own (quick) decisions.
//!
//! # The file
//!
//! The shape the opening book's file has (`position_file.rs`), kind
//! `YZC4BNDS`, version 1, with two bytes an entry after the position's
//! code: the lowest and the highest score it can have (signed).
//!
//! Every entry must decode to a reachable, unfinished position; its bounds
//! must lie in the range its stones allow, the lower at most the higher,
//! and tell something (not the whole range). Written atomically (a
//! temporary file, fsync, rename). Like the book, the file is trusted: its
//! bounds are what a solver proved, and a checksum guards against damage,
//! not against a file written to mislead.
//!
//! ```
//! use yinsh_zero::games::connect4::Position;
//! use yinsh_zero::games::connect4::bounds::Bounds;
//! use yinsh_zero::games::connect4::solve::Solver;
//!
//! let p = Position::from_moves("4453").unwrap();
//! let mut bounds = Bounds::default();
//! // Unknown until proved.
//! assert_eq!(bounds.at_most(&p, 0), None);
//! let answer = Solver::new(20).try_at_most(&p, 0, u64::MAX).unwrap();
//! bounds.record_at_most(&p, 0, answer);
//! assert_eq!(bounds.at_most(&p, 0), Some(answer));
//! // A weaker question follows from the same bound.
//! let weaker = if answer { 1 } else { -1 };
//! assert_eq!(bounds.at_most(&p, weaker), Some(answer));
//! // The mirror image (columns 4 4 5 3) shares the entry.
//! assert_eq!(bounds.at_most(&p.mirrored(), 0), Some(answer));
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::position::Position;
use super::position_file::Layout;
use super::solve::Score;
use crate::util::write_atomic;

/// The file: the lowest and the highest score per position.
const FILE: Layout<2> = Layout {
    magic: b"YZC4BNDS",
    version: 1,
    what: "a bounds file",
};

/// Proven bounds on positions' exact scores: per position, the lowest and
/// the highest score it can still have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    entries: HashMap<u64, (i8, i8)>,
}

/// Why a bounds file could not be read or kept; every message names the
/// file.
#[derive(Debug, thiserror::Error)]
#[error("bounds file {}: {why}", path.display())]
pub struct BoundsError {
    pub path: PathBuf,
    pub why: String,
}

/// Two files (or a file and this process) disagree about a position: at
/// least one was not written by a correct solver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "position {position:#x}: one says its score lies in {}..={}, the other in {}..={}",
    ours.0, ours.1, theirs.0, theirs.1
)]
pub struct Contradiction {
    /// The position's code (the smaller of it and its mirror image's).
    pub position: u64,
    pub ours: (i8, i8),
    pub theirs: (i8, i8),
}

impl Bounds {
    /// Positions with a bound.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The lowest and highest score `p` can have, as far as is known.
    pub fn get(&self, p: &Position) -> (i8, i8) {
        self.entries
            .get(&p.mirror_code())
            .copied()
            .unwrap_or_else(|| Score::range(p.moves()))
    }

    /// Whether `p`'s score is at most `bound`, if the bounds settle it
    /// (the question [`Solver::try_at_most`](super::solve::Solver::try_at_most)
    /// answers).
    pub fn at_most(&self, p: &Position, bound: i32) -> Option<bool> {
        let (lo, hi) = self.get(p);
        if i32::from(hi) <= bound {
            Some(true)
        } else if i32::from(lo) > bound {
            Some(false)
        } else {
            None
        }
    }

    /// `p`'s exact score, if known.
    pub fn exact(&self, p: &Position) -> Option<Score> {
        let (lo, hi) = self.get(p);
        (lo == hi).then(|| Score::new(i32::from(lo)).expect("in range"))
    }

    /// Records the answer to "is `p`'s score at most `bound`?".
    pub fn record_at_most(&mut self, p: &Position, bound: i32, answer: bool) {
        let b = bound.clamp(-64, 64) as i8;
        if answer {
            self.tighten(p, i8::MIN, b);
        } else {
            self.tighten(p, b.saturating_add(1), i8::MAX);
        }
    }

    /// Records `p`'s exact score.
    pub fn record_exact(&mut self, p: &Position, score: Score) {
        let s = score.get() as i8;
        self.tighten(p, s, s);
    }

    /// Narrows `p`'s bounds to `lo..=hi`. A proof that leaves no score is
    /// a solver's error, not a fact: it panics.
    fn tighten(&mut self, p: &Position, lo: i8, hi: i8) {
        let (old_lo, old_hi) = self.get(p);
        let new = (old_lo.max(lo), old_hi.min(hi));
        assert!(
            new.0 <= new.1,
            "contradictory proofs for {p}: {old_lo}..={old_hi} and {lo}..={hi}"
        );
        if new != Score::range(p.moves()) {
            self.entries.insert(p.mirror_code(), new);
        }
    }

    /// Takes in every bound of `other`, keeping the tighter of each.
    pub fn merge(&mut self, other: &Bounds) -> Result<(), Contradiction> {
        for (&code, &theirs) in &other.entries {
            match self.entries.get(&code) {
                None => {
                    self.entries.insert(code, theirs);
                }
                Some(&ours) => {
                    let new = (ours.0.max(theirs.0), ours.1.min(theirs.1));
                    if new.0 > new.1 {
                        return Err(Contradiction {
                            position: code,
                            ours,
                            theirs,
                        });
                    }
                    self.entries.insert(code, new);
                }
            }
        }
        Ok(())
    }

    /// Reads the file at `path`, checking all of it.
    pub fn load(path: &Path) -> Result<Bounds, BoundsError> {
        let fail = |why: String| BoundsError {
            path: path.to_path_buf(),
            why,
        };
        let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        Bounds::from_bytes(&bytes).map_err(fail)
    }

    /// [`Bounds::load`] when `path` exists, no bounds when it does not.
    pub fn load_or_empty(path: &Path) -> Result<Bounds, BoundsError> {
        if path.exists() {
            Bounds::load(path)
        } else {
            Ok(Bounds::default())
        }
    }

    /// Takes in the bounds in the file at `path` (if there is one), then
    /// writes the union there atomically, so that two grades sharing one
    /// file keep each other's proofs (not a lock: a write landing between
    /// this one's read and its rename is taken in at the next sync).
    pub fn sync(&mut self, path: &Path) -> Result<(), BoundsError> {
        let fail = |why: String| BoundsError {
            path: path.to_path_buf(),
            why,
        };
        let on_disk = Bounds::load_or_empty(path)?;
        self.merge(&on_disk)
            .map_err(|c| fail(format!("contradicts this grade's proofs: {c}")))?;
        write_atomic(path, &self.to_bytes()).map_err(|e| fail(format!("writing it: {e}")))
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let entries = self
            .entries
            .iter()
            .map(|(&code, &(lo, hi))| (code, [lo as u8, hi as u8]))
            .collect();
        FILE.encode(entries)
    }

    /// Bounds from the bytes of their file, checked as [`Bounds::load`]
    /// checks them (the error without the file's name).
    pub fn from_bytes(bytes: &[u8]) -> Result<Bounds, String> {
        let entries = FILE.decode(bytes, |p, [lo, hi]| {
            let (lo, hi) = (lo as i8, hi as i8);
            let (min, max) = Score::range(p.moves());
            if !(min <= lo && lo <= hi && hi <= max) {
                return Err(format!(
                    "bounds {lo}..={hi} do not lie within {min}..={max}, the scores {} stones \
                     allow, lowest first",
                    p.moves()
                ));
            }
            if (lo, hi) == (min, max) {
                return Err("its bounds are the whole range (such entries are not written)".into());
            }
            Ok((lo, hi))
        })?;
        Ok(Bounds {
            entries: entries
                .into_iter()
                .map(|(p, b)| (p.mirror_code(), b))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::bitboard::CELLS;

    #[test]
    fn the_range_runs_from_a_loss_to_the_next_stone_to_a_win_with_ones_own() {
        for moves in 0..CELLS {
            let (lo, hi) = Score::range(moves);
            assert_eq!(i32::from(hi), Score::win_now(moves).get(), "{moves}");
            assert_eq!(i32::from(lo), -Score::win_now(moves + 1).get(), "{moves}");
        }
    }

    #[test]
    fn bounds_narrow_and_merge() {
        let p = Position::from_moves("4453").unwrap();
        let mut a = Bounds::default();
        a.record_at_most(&p, 3, true);
        a.record_at_most(&p, -2, false);
        assert_eq!(a.get(&p), (-1, 3));
        assert_eq!(a.exact(&p), None);
        assert_eq!((a.at_most(&p, 0), a.at_most(&p, -2)), (None, Some(false)));
        let mut b = Bounds::default();
        b.record_at_most(&p, 0, true);
        a.merge(&b).unwrap();
        assert_eq!(a.get(&p), (-1, 0));
        let mut c = Bounds::default();
        c.record_exact(&p, Score::new(2).unwrap());
        let e = a.merge(&c).unwrap_err();
        assert_eq!((e.ours, e.theirs), ((-1, 0), (2, 2)));
        let back = Bounds::from_bytes(&a.to_bytes()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn damaged_files_are_refused_by_what_is_wrong() {
        let p = Position::from_moves("11").unwrap();
        let mut b = Bounds::default();
        b.record_at_most(&p, 1, true);
        let good = b.to_bytes();
        assert!(
            Bounds::from_bytes(&good[..good.len() - 1])
                .unwrap_err()
                .contains("truncated")
        );
        let mut flipped = good.clone();
        flipped[20 + 3] ^= 1;
        assert!(
            Bounds::from_bytes(&flipped)
                .unwrap_err()
                .contains("checksum")
        );
        // A well-formed file whose bounds leave the range.
        let mut wide = good.clone();
        // The first entry's lower bound, after the 20-byte header and its code.
        wide[20 + 8] = (-30i8) as u8;
        let body = wide.len() - 4;
        let crc = crc32fast::hash(&wide[..body]);
        wide[body..].copy_from_slice(&crc.to_le_bytes());
        assert!(
            Bounds::from_bytes(&wide)
                .unwrap_err()
                .contains("do not lie within")
        );
        assert!(
            Bounds::from_bytes(b"YZC4BOOK\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0")
                .unwrap_err()
                .contains("not a bounds file")
        );
    }
}
