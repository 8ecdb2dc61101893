//! The placing book: the exact values of the placing-phase states within a
//! few turns of the start, found once by [`PlacingSearch`] and stored, so
//! that the first placements of Nine Men's Morris (whose searches are the
//! largest) are answered at once by `perfect` and the page.
//!
//! # File format (version 1), `placing-book.mdb` beside the layer files
//!
//! Little-endian throughout:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `MORRISPB` |
//! | 4 | format version (1) |
//! | 1 | variant: 0 nine, 1 six, 2 three |
//! | 1 | turns from the start that the book covers |
//! | 1 | flags: bit 0, every state within those turns is in the book |
//! | 1 | reserved, 0 |
//! | 8 | entry count |
//! | 11 n | entries, keys strictly increasing: the state's key (`u64`: its canonical form with the hands), its value's outcome code (0 draw, 1 win, 2 loss for the player to move) and plies (`u16`) |
//! | 4 | CRC-32 of everything before |
//!
//! A book that is not complete (a build stopped part-way) is still exact in
//! every entry it holds, and a new build keeps them.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::address::Layer;
use super::db::{
    Database, DbError, Outcome, Preamble, Turn, Value, check_sealed, for_each_turn, variant_code,
};
use super::geometry::Variant;
use super::placing::{PlacingSearch, state_key};

pub const FILE_NAME: &str = "placing-book.mdb";
const MAGIC: &[u8; 8] = b"MORRISPB";
const VERSION: u32 = 1;
const HEADER: usize = 24;
const ENTRY: usize = 11;
const FLAG_COMPLETE: u8 = 1;
const BOOK: Preamble = Preamble {
    magic: MAGIC,
    version: VERSION,
    kind: "Morris placing book",
};

/// Stored values of the placing states near the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingBook {
    pub variant: Variant,
    /// Turns from the start covered.
    pub turns: u8,
    /// Whether every state within `turns` is held.
    pub complete: bool,
    /// Sorted by key.
    entries: Vec<(u64, Value)>,
}

impl PlacingBook {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The stored value of state `(m, o)` of `layer`, if the book holds it.
    pub fn get(&self, layer: Layer, m: u32, o: u32) -> Option<Value> {
        let k = state_key(self.variant.geometry(), layer, m, o);
        self.entries
            .binary_search_by_key(&k, |e| e.0)
            .ok()
            .map(|i| self.entries[i].1)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + ENTRY * self.entries.len() + 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(variant_code(self.variant));
        out.push(self.turns);
        out.push(if self.complete { FLAG_COMPLETE } else { 0 });
        out.push(0);
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for &(k, v) in &self.entries {
            out.extend_from_slice(&k.to_le_bytes());
            out.push(v.outcome.code());
            out.extend_from_slice(&v.plies.to_le_bytes());
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a book's bytes, checking everything; errors name `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8], variant: Variant) -> Result<PlacingBook, DbError> {
        let bad = |why: String| DbError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        if bytes.len() < HEADER + 4 {
            return Err(bad(format!(
                "truncated: {} bytes, shorter than the {}-byte header and checksum",
                bytes.len(),
                HEADER + 4
            )));
        }
        BOOK.check(path, bytes, variant)?;
        let turns = bytes[13];
        let flags = bytes[14];
        if flags & !FLAG_COMPLETE != 0 {
            return Err(bad(format!("unknown flags {flags:#x}")));
        }
        if bytes[15] != 0 {
            return Err(bad(format!("reserved byte {:#x}, not 0", bytes[15])));
        }
        let geo = variant.geometry();
        let n = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
        let want = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(ENTRY))
            .and_then(|b| b.checked_add(HEADER + 4))
            .ok_or_else(|| bad(format!("entry count {n} too large")))?;
        check_sealed(path, bytes, want, &format!("{n} entries"))?;
        let mut entries = Vec::with_capacity(n as usize);
        for (i, e) in bytes[HEADER..want - 4].chunks_exact(ENTRY).enumerate() {
            let k = u64::from_le_bytes(e[..8].try_into().unwrap());
            let outcome = Outcome::from_code(e[8])
                .ok_or_else(|| bad(format!("entry {i} has the invalid value code {}", e[8])))?;
            let plies = u16::from_le_bytes([e[9], e[10]]);
            let (m, o) = ((k >> 32) as u32, (k & 0xff_ffff) as u32);
            let (hm, ho) = (((k >> 24) & 0xf) as u8, ((k >> 28) & 0xf) as u8);
            if k >> 56 != 0
                || m & o != 0
                || (m | o) & !geo.all != 0
                || hm > geo.stones
                || ho > geo.stones
                || hm + ho == 0
            {
                return Err(bad(format!(
                    "entry {i}: key {k:#x} is no placing-phase state"
                )));
            }
            if entries.last().is_some_and(|&(p, _)| p >= k) {
                return Err(bad(format!("entry {i}: keys out of order")));
            }
            entries.push((k, Value { outcome, plies }));
        }
        Ok(PlacingBook {
            variant,
            turns,
            complete: flags & FLAG_COMPLETE != 0,
            entries,
        })
    }

    /// Reads and checks `dir`'s book; `None` when there is none.
    pub fn load(dir: &Path, variant: Variant) -> Result<Option<PlacingBook>, DbError> {
        let path = dir.join(FILE_NAME);
        match std::fs::read(&path) {
            Ok(bytes) => Self::from_bytes(&path, &bytes, variant).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(DbError::Io { path, source: e }),
        }
    }

    /// Writes the book into `dir` atomically.
    pub fn save(&self, dir: &Path) -> Result<(), DbError> {
        let path = dir.join(FILE_NAME);
        crate::util::write_atomic(&path, &self.to_bytes())
            .map_err(|e| DbError::Io { path, source: e })
    }
}

/// The placing states within `turns` turns of the start, one per symmetry
/// class, the farthest first (their searches are the smallest, and fill
/// the table for the nearer ones).
pub fn states_near_start(variant: Variant, turns: u8) -> Vec<(Layer, u32, u32)> {
    let geo = variant.geometry();
    let start = Layer {
        a: 0,
        b: 0,
        hm: geo.stones,
        ho: geo.stones,
    };
    let mut seen = HashSet::new();
    let mut levels = vec![vec![(start, 0u32, 0u32)]];
    seen.insert(state_key(geo, start, 0, 0));
    for _ in 0..turns {
        let mut next = Vec::new();
        for &(l, m, o) in levels.last().unwrap() {
            for_each_turn(geo, l, m, o, |t| {
                if let Turn::To(l2, m2, o2) = t
                    && !l2.is_moving()
                    && seen.insert(state_key(geo, l2, m2, o2))
                {
                    next.push((l2, m2, o2));
                }
            });
        }
        levels.push(next);
    }
    levels.into_iter().rev().flatten().collect()
}

/// Builds (or completes) the book of the states within `turns` of the
/// start, searching each over `db`'s moving-phase layers, one thread per
/// searcher in `searches` (each with its own table: the states are taken in
/// order from one queue, so neighbours, which share most of their lines,
/// still go to tables that have seen their like). Entries of `old` are
/// kept; the book so far is handed to `save` at least every `every`, so
/// that a stopped build loses little. The first error stops every thread.
pub fn build(
    db: &Database,
    searches: &mut [PlacingSearch],
    turns: u8,
    old: Option<PlacingBook>,
    every: Duration,
    save: impl FnMut(&PlacingBook) -> Result<(), DbError> + Send,
    progress: impl FnMut(usize, usize) + Send,
) -> Result<PlacingBook, DbError> {
    assert!(!searches.is_empty(), "a placing book needs a searcher");
    let variant = db.variant();
    let geo = variant.geometry();
    let states = states_near_start(variant, turns);
    let found: BTreeMap<u64, Value> = old
        .map(|b| b.entries.into_iter().collect())
        .unwrap_or_default();
    let todo: Vec<(Layer, u32, u32, u64)> = states
        .iter()
        .map(|&(l, m, o)| (l, m, o, state_key(geo, l, m, o)))
        .filter(|s| !found.contains_key(&s.3))
        .collect();
    let book = |found: &BTreeMap<u64, Value>, complete| PlacingBook {
        variant,
        turns,
        complete,
        entries: found.iter().map(|(&k, &v)| (k, v)).collect(),
    };
    struct Shared<S, P> {
        found: BTreeMap<u64, Value>,
        done: usize,
        last: Instant,
        save: S,
        progress: P,
    }
    let shared = Mutex::new(Shared {
        found,
        done: states.len() - todo.len(),
        last: Instant::now(),
        save,
        progress,
    });
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let work = |search: &mut PlacingSearch| -> Result<(), DbError> {
        while !stop.load(Ordering::Relaxed) {
            let Some(&(l, m, o, k)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let value = search.value(db, l, m, o)?;
            let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
            sh.found.insert(k, value);
            sh.done += 1;
            if sh.last.elapsed() >= every {
                let partial = book(&sh.found, false);
                (sh.save)(&partial)?;
                let done = sh.done;
                (sh.progress)(done, states.len());
                sh.last = Instant::now();
            }
        }
        Ok(())
    };
    let results: Vec<Result<(), DbError>> = std::thread::scope(|s| {
        let handles: Vec<_> = searches
            .iter_mut()
            .map(|search| {
                let (work, stop) = (&work, &stop);
                s.spawn(move || {
                    let r = work(search);
                    if r.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.into_iter().collect::<Result<Vec<()>, DbError>>()?;
    let mut sh = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let done = book(&sh.found, true);
    (sh.save)(&done)?;
    (sh.progress)(states.len(), states.len());
    Ok(done)
}
