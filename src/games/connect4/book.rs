//! The opening book: exact scores of early positions, found once by the
//! solver and kept in a file, so that no game waits on them twice.
//!
//! Near the empty board an exact answer costs minutes (the empty board
//! itself about 20 minutes and 6.6 billion nodes on the development
//! machine); twenty stones in, microseconds. `perfect` and the grader meet
//! the same few early positions in game after game, so the solver looks
//! each position up in the book before searching it, at the root and
//! inside the search alike, and `connect4-book` fills the book with the
//! positions perfect play meets, shallowest first.
//!
//! # The file
//!
//! Little-endian throughout, checked whole on load like the Morris
//! database's layers:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `YZC4BOOK` |
//! | 4 | format version, 1 |
//! | 8 | entries `n` |
//! | 9 `n` | per entry: the position's [`Position::code`] (8 bytes), the smaller of its own and its mirror image's, ascending; its score (1 byte, signed) |
//! | 4 | CRC-32 of everything before |
//!
//! Every entry must decode to a reachable, unfinished position whose
//! score lies in the range its stones allow. Written atomically (a
//! temporary file, fsync, rename), so a kill leaves the old book or the
//! new one.
//!
//! ```
//! use yinsh_zero::games::connect4::Position;
//! use yinsh_zero::games::connect4::book::Book;
//! use yinsh_zero::games::connect4::solve::Solver;
//!
//! let p = Position::from_moves("4453").unwrap();
//! let score = Solver::new(20).solve(&p);
//! let mut book = Book::default();
//! book.insert(&p, score);
//! // Its mirror image (columns 4 4 3 5) is the same entry.
//! assert_eq!(book.get(&p.mirrored()), Some(score));
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("book.bin");
//! book.save(&path).unwrap();
//! let back = Book::load(&path).unwrap();
//! assert_eq!(back.get(&p), Some(score));
//! ```

pub mod build;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::bitboard::CELLS;
use super::position::Position;
use super::position_file::Layout;
use super::solve::Score;
use crate::util::write_atomic;

/// The file: a score byte per position.
const FILE: Layout<1> = Layout {
    magic: b"YZC4BOOK",
    version: 1,
    what: "an opening book",
};

/// Where `perfect` and the grader look for the book when none is named.
pub const DEFAULT_BOOK: &str = "data/connect4/book.bin";

/// Exact scores of positions, a position and its mirror image sharing one
/// entry.
#[derive(Clone, Debug)]
pub struct Book {
    entries: HashMap<u64, Score>,
    /// The most stones of any entry: deeper positions are not looked up.
    max_stones: usize,
    /// Entries by stones on the board.
    by_stones: [usize; CELLS + 1],
}

impl Default for Book {
    fn default() -> Book {
        Book {
            entries: HashMap::new(),
            max_stones: 0,
            by_stones: [0; CELLS + 1],
        }
    }
}

/// Why a book file could not be read; every message names the file.
#[derive(Debug, thiserror::Error)]
#[error("opening book {}: {why}", path.display())]
pub struct BookError {
    pub path: PathBuf,
    pub why: String,
}

impl Book {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The most stones of any entry (0 for an empty book).
    pub fn max_stones(&self) -> usize {
        self.max_stones
    }

    /// The score of `p` if the book holds it.
    pub fn get(&self, p: &Position) -> Option<Score> {
        if p.moves() > self.max_stones {
            return None;
        }
        self.entries.get(&p.mirror_code()).copied()
    }

    /// Every entry: the position (the one of it and its mirror image with
    /// the smaller code) and its score, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = (Position, Score)> + '_ {
        self.entries.iter().map(|(&code, &score)| {
            let p = Position::from_code(code).expect("entries are real positions");
            (p, score)
        })
    }

    /// Records `score` as `p`'s (which the caller has solved exactly).
    pub fn insert(&mut self, p: &Position, score: Score) {
        if self.entries.insert(p.mirror_code(), score).is_none() {
            self.by_stones[p.moves()] += 1;
        }
        self.max_stones = self.max_stones.max(p.moves());
    }

    /// Entries with `stones` stones.
    pub fn count_with(&self, stones: usize) -> usize {
        self.by_stones.get(stones).copied().unwrap_or(0)
    }

    /// Reads the book at `path`, checking all of it.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let fail = |why: String| BookError {
            path: path.to_path_buf(),
            why,
        };
        let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        Book::from_bytes(&bytes).map_err(fail)
    }

    /// [`Book::load`] when `path` exists, an empty book when it does not.
    pub fn load_or_empty(path: &Path) -> Result<Book, BookError> {
        if path.exists() {
            Book::load(path)
        } else {
            Ok(Book::default())
        }
    }

    /// Writes the book to `path` atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomic(path, &self.to_bytes())
    }

    /// Adds every entry of `other` that this book lacks (where both hold a
    /// position they agree: a score is exact).
    pub fn merge(&mut self, other: &Book) {
        for (p, s) in other.entries() {
            if self.get(&p).is_none() {
                self.insert(&p, s);
            }
        }
    }

    /// Takes in the entries of the book at `path` (if there is one), then
    /// writes the union there atomically: two processes growing one file
    /// (`connect4-book` and a `grade`) keep and gain each other's entries
    /// instead of overwriting them. Not a lock: a write landing between
    /// this one's read and its rename is taken in at the next sync.
    pub fn sync(&mut self, path: &Path) -> Result<(), BookError> {
        let on_disk = Book::load_or_empty(path)?;
        self.merge(&on_disk);
        self.save(path).map_err(|e| BookError {
            path: path.to_path_buf(),
            why: format!("writing it: {e}"),
        })
    }

    fn to_bytes(&self) -> Vec<u8> {
        let entries = self
            .entries
            .iter()
            .map(|(&code, &score)| (code, [score.get() as i8 as u8]))
            .collect();
        FILE.encode(entries)
    }

    /// A book from the bytes of its file, checked as [`Book::load`]
    /// checks it (the error without the file's name).
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        let entries = FILE.decode(bytes, |p, [raw]| {
            let raw = raw as i8;
            Score::new(i32::from(raw))
                .filter(|s| s.fits(p.moves()))
                .ok_or_else(|| format!("score {raw} is out of range for {} stones", p.moves()))
        })?;
        let mut book = Book::default();
        for (p, score) in entries {
            book.insert(&p, score);
        }
        Ok(book)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mirror_files_under_the_same_code() {
        for moves in ["", "1", "4453", "1234567", "7766"] {
            let p = Position::from_moves(moves).unwrap();
            assert_eq!(p.mirror_code(), p.mirrored().mirror_code(), "{moves}");
            let c = p.mirror_code();
            assert!(c == p.code() || c == p.mirrored().code(), "{moves}");
        }
    }
}
