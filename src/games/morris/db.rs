//! The perfect-play database: one file per [`Layer`], and the questions a
//! player asks of it (a position's value, its best actions).
//!
//! # File format (version 1)
//!
//! Little-endian throughout:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `MORRISDB` |
//! | 4 | format version (1) |
//! | 1 | variant: 0 nine, 1 six, 2 three |
//! | 4 | the layer: `a`, `b`, `hm`, `ho` |
//! | 1 | flags: bit 0, plies are stored |
//! | 2 | reserved, 0 |
//! | 8 | state count |
//! | 4 | reserved, 0 |
//! | n/4 | values, 2 bits per state (state `i` in byte `i / 4`, bits `2 (i % 4)`): 0 draw, 1 win, 2 loss for the player to move |
//! | 2n | plies to the end under best play, `u16` per state (when flagged) |
//! | 4 | CRC-32 of everything before |
//!
//! A *ply* here is a whole turn: a move (or placement) that closes a mill
//! and the removal that follows count one. A win in 1 ends the game with
//! this turn; a state whose mover cannot move is lost in 0.
//!
//! Values are those of the position without its history: the draw rules
//! (threefold repetition, [`NO_PROGRESS_LIMIT`](super::NO_PROGRESS_LIMIT))
//! are not in them; a position the solver cannot decide is a draw.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::address::{Layer, LayerIndex, locate, state_of};
use super::geometry::{Geometry, Variant, points};
use super::placing::{PlacingSearch, SearchStats};
use super::placing_book::PlacingBook;
use super::position::{Action, Position};
use crate::game::State;

pub const MAGIC: &[u8; 8] = b"MORRISDB";
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 32;
const FLAG_PLIES: u8 = 1;

/// Game-theoretic outcome for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    pub(crate) fn code(self) -> u8 {
        match self {
            Outcome::Draw => 0,
            Outcome::Win => 1,
            Outcome::Loss => 2,
        }
    }

    pub(crate) fn from_code(c: u8) -> Option<Outcome> {
        match c {
            0 => Some(Outcome::Draw),
            1 => Some(Outcome::Win),
            2 => Some(Outcome::Loss),
            _ => None,
        }
    }
}

/// A value: the outcome for the player to act and the turns to the end
/// (0 for a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    pub outcome: Outcome,
    pub plies: u16,
}

impl Value {
    pub const DRAW: Value = Value {
        outcome: Outcome::Draw,
        plies: 0,
    };

    pub const fn win(plies: u16) -> Value {
        Value {
            outcome: Outcome::Win,
            plies,
        }
    }

    pub const fn loss(plies: u16) -> Value {
        Value {
            outcome: Outcome::Loss,
            plies,
        }
    }

    /// The value one turn earlier, for the other player.
    pub fn back(self) -> Value {
        match self.outcome {
            Outcome::Win => Value::loss(self.plies.saturating_add(1)),
            Outcome::Loss => Value::win(self.plies.saturating_add(1)),
            Outcome::Draw => Value::DRAW,
        }
    }

    /// Higher is better for the player to act: the fastest win, then
    /// draws, then the slowest loss.
    pub fn rank(self) -> i32 {
        match self.outcome {
            Outcome::Win => 100_000 - i32::from(self.plies),
            Outcome::Draw => 0,
            Outcome::Loss => -100_000 + i32::from(self.plies),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Win => write!(f, "win in {}", self.plies),
            Outcome::Draw => f.write_str("draw"),
            Outcome::Loss => write!(f, "loss in {}", self.plies),
        }
    }
}

/// What can go wrong with a database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {why}")]
    Malformed { path: PathBuf, why: String },
    #[error("layer {layer} of {} Men's Morris is not solved (no file {path})", super::address::title(*variant))]
    NotSolved {
        variant: Variant,
        layer: Layer,
        path: PathBuf,
    },
    #[error("{0}")]
    BadPosition(String),
    #[error("stopped after a checkpoint, as asked; {path} holds the work so far")]
    Stopped { path: PathBuf },
    #[error(
        "the placing-phase search gave up after {nodes} states (a position this early needs a \
         placing book, `yinsh-zero morris placing-book`, or a larger search budget)"
    )]
    SearchLimit { nodes: u64 },
    #[error("{0}")]
    BadBook(String),
    #[error("no database directory {path} (run `yinsh-zero solve --variant {variant}`)")]
    NoDatabase { variant: Variant, path: PathBuf },
}

impl DbError {
    /// Whether the database simply has no answer here (a layer not
    /// solved, or a placing-phase search over its budget), as opposed to
    /// a damaged file or a bad question.
    pub fn is_not_solved(&self) -> bool {
        matches!(
            self,
            DbError::NotSolved { .. } | DbError::SearchLimit { .. }
        )
    }
}

/// The solved values of one layer, unpacked: outcome codes (see
/// [`Outcome`]) and plies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerValues {
    pub wdl: Vec<u8>,
    pub plies: Vec<u16>,
}

impl LayerValues {
    pub fn len(&self) -> usize {
        self.wdl.len()
    }

    pub fn is_empty(&self) -> bool {
        self.wdl.is_empty()
    }

    #[inline]
    pub fn get(&self, i: u32) -> Value {
        let i = i as usize;
        Value {
            outcome: Outcome::from_code(self.wdl[i]).unwrap_or(Outcome::Draw),
            plies: self.plies[i],
        }
    }
}

/// A variant's code in the database's files.
pub(crate) fn variant_code(v: Variant) -> u8 {
    match v {
        Variant::Nine => 0,
        Variant::Six => 1,
        Variant::Three => 2,
    }
}

/// A layer file's bytes.
pub fn encode(variant: Variant, layer: Layer, values: &LayerValues) -> Vec<u8> {
    let n = values.len();
    let mut out = Vec::with_capacity(HEADER + n.div_ceil(4) + 2 * n + 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(variant_code(variant));
    out.extend_from_slice(&[layer.a, layer.b, layer.hm, layer.ho]);
    out.push(FLAG_PLIES);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(n as u64).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    debug_assert_eq!(out.len(), HEADER);
    let mut packed = vec![0u8; n.div_ceil(4)];
    for (i, &c) in values.wdl.iter().enumerate() {
        packed[i / 4] |= (c & 3) << (2 * (i % 4));
    }
    out.extend_from_slice(&packed);
    for &p in &values.plies {
        out.extend_from_slice(&p.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// What each Morris file (layers, the placing book, the solver's
/// checkpoints) opens with: a magic, a format version and the variant's
/// code, in its first 13 bytes. `kind` names the file in errors.
pub(crate) struct Preamble {
    pub magic: &'static [u8; 8],
    pub version: u32,
    pub kind: &'static str,
}

const LAYER_FILE: Preamble = Preamble {
    magic: MAGIC,
    version: FORMAT_VERSION,
    kind: "Morris database file",
};

impl Preamble {
    /// Checks `head`, at least 13 bytes, against this preamble.
    pub(crate) fn check(&self, path: &Path, head: &[u8], variant: Variant) -> Result<(), DbError> {
        let bad = |why: String| DbError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        if &head[..8] != self.magic {
            return Err(bad(format!("not a {} (bad magic)", self.kind)));
        }
        let version = u32::from_le_bytes(head[8..12].try_into().unwrap());
        if version != self.version {
            return Err(bad(format!(
                "format version {version}, this program reads version {}",
                self.version
            )));
        }
        if head[12] != variant_code(variant) {
            return Err(bad(format!("variant code {} is not {variant}'s", head[12])));
        }
        Ok(())
    }
}

/// Checks that a file of `len` bytes has the `want` its header promises
/// for `count` (its states or entries).
pub(crate) fn check_size(path: &Path, len: u64, want: u64, count: &str) -> Result<(), DbError> {
    if len == want {
        return Ok(());
    }
    Err(DbError::Malformed {
        path: path.to_path_buf(),
        why: format!(
            "{len} bytes, expected {want} for {count}: {}",
            if len < want {
                "truncated"
            } else {
                "trailing bytes"
            }
        ),
    })
}

/// Checks `body` against the CRC-32 `stored` (4 bytes, little-endian).
fn check_crc(path: &Path, body: &[u8], stored: &[u8]) -> Result<(), DbError> {
    let stored = u32::from_le_bytes(stored.try_into().expect("a 4-byte checksum"));
    let crc = crc32fast::hash(body);
    if crc == stored {
        return Ok(());
    }
    Err(DbError::Malformed {
        path: path.to_path_buf(),
        why: format!(
            "checksum mismatch (stored {stored:08x}, computed {crc:08x}): the file is damaged"
        ),
    })
}

/// Checks a file held whole in `bytes` that ends in the CRC-32 of the rest:
/// its length is the `want` its header promises for `count`, and the
/// checksum holds.
pub(crate) fn check_sealed(
    path: &Path,
    bytes: &[u8],
    want: usize,
    count: &str,
) -> Result<(), DbError> {
    check_size(path, bytes.len() as u64, want as u64, count)?;
    check_crc(path, &bytes[..want - 4], &bytes[want - 4..])
}

/// Checks a layer file's bytes: magic, version, variant, layer, the state
/// count (`expected`, when known), length, value codes and checksum.
/// Returns the state count and whether plies are stored. Errors name
/// `path`.
fn check(
    path: &Path,
    bytes: &[u8],
    variant: Variant,
    layer: Layer,
    expected: Option<usize>,
) -> Result<(usize, bool), DbError> {
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
    LAYER_FILE.check(path, bytes, variant)?;
    let got = Layer {
        a: bytes[13],
        b: bytes[14],
        hm: bytes[15],
        ho: bytes[16],
    };
    if got != layer {
        return Err(bad(format!("holds layer {got}, expected {layer}")));
    }
    let flags = bytes[17];
    if flags & !FLAG_PLIES != 0 {
        return Err(bad(format!("unknown flags {flags:#x}")));
    }
    let n = u64::from_le_bytes(bytes[20..28].try_into().unwrap());
    if let Some(e) = expected
        && n != e as u64
    {
        return Err(bad(format!("holds {n} states, the layer has {e}")));
    }
    // Indexes are u32 (`LayerIndex`), so no layer holds more.
    let n = u32::try_from(n).map_err(|_| bad(format!("state count {n} too large")))? as usize;
    let with_plies = flags & FLAG_PLIES != 0;
    let want = HEADER + n.div_ceil(4) + if with_plies { 2 * n } else { 0 } + 4;
    check_sealed(path, bytes, want, &format!("{n} states"))?;
    let packed = &bytes[HEADER..HEADER + n.div_ceil(4)];
    // Code 3 is a pair of set bits in one 2-bit field; padding is 0.
    if let Some(at) = packed.iter().position(|&b| b & (b >> 1) & 0x55 != 0) {
        let b = packed[at];
        let k = (0..4).find(|k| (b >> (2 * k)) & 3 == 3).unwrap();
        return Err(bad(format!(
            "state {} has the invalid value code 3",
            4 * at + k
        )));
    }
    Ok((n, with_plies))
}

/// Reads a layer file's bytes, checking everything (see [`LayerData`]),
/// and unpacks them.
pub fn decode(
    path: &Path,
    bytes: &[u8],
    variant: Variant,
    layer: Layer,
    expected: Option<usize>,
) -> Result<LayerValues, DbError> {
    let (n, with_plies) = check(path, bytes, variant, layer, expected)?;
    let packed = &bytes[HEADER..];
    let wdl = (0..n)
        .map(|i| (packed[i / 4] >> (2 * (i % 4))) & 3)
        .collect();
    let plies = if with_plies {
        let start = HEADER + n.div_ceil(4);
        bytes[start..start + 2 * n]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    } else {
        vec![0; n]
    };
    Ok(LayerValues { wdl, plies })
}

/// A layer's values in the file's own packed form (2 bits and a `u16` a
/// state), read in place: Nine Men's Morris's largest layers hold over a
/// billion states, and unpacking them would take a third more memory for
/// nothing. Checked as a whole (header, length, value codes, CRC-32) when
/// read.
pub struct LayerData {
    /// The file mapped read-only. Layer files are only ever replaced by a
    /// rename (`write_atomic`), which leaves a mapped file's data in place;
    /// a program truncating one in place would make reads fault.
    bytes: memmap2::Mmap,
    n: usize,
    /// Where the plies start; 0 when the file has none.
    plies_at: usize,
}

impl fmt::Debug for LayerData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayerData")
            .field("states", &self.n)
            .finish()
    }
}

impl LayerData {
    /// Maps the file (its pages come in as lookups touch them, and the
    /// system may drop them again) and checks it.
    pub fn map(
        path: &Path,
        variant: Variant,
        layer: Layer,
        expected: Option<usize>,
    ) -> Result<LayerData, DbError> {
        let io = |e| DbError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        // SAFETY: read-only; see `LayerData::bytes` on why the data stays
        // put.
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        let (n, with_plies) = check(path, &bytes, variant, layer, expected)?;
        Ok(LayerData {
            bytes,
            n,
            plies_at: if with_plies {
                HEADER + n.div_ceil(4)
            } else {
                0
            },
        })
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The value of state `i` (checked codes: never 3).
    #[inline]
    pub fn get(&self, i: u32) -> Value {
        let (bytes, i): (&[u8], usize) = (&self.bytes, i as usize);
        let code = (bytes[HEADER + i / 4] >> (2 * (i % 4))) & 3;
        let plies = if self.plies_at != 0 {
            let at = self.plies_at + 2 * i;
            u16::from_le_bytes([bytes[at], bytes[at + 1]])
        } else {
            0
        };
        Value {
            outcome: Outcome::from_code(code).unwrap_or(Outcome::Draw),
            plies,
        }
    }
}

/// Reads a layer file, checked, and unpacks it (the solver's form: its
/// innermost loop reads the values of the layers captures lead to).
pub fn read_layer(
    path: &Path,
    variant: Variant,
    layer: Layer,
    expected: Option<usize>,
) -> Result<LayerValues, DbError> {
    let bytes = std::fs::read(path).map_err(|e| DbError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    decode(path, &bytes, variant, layer, expected)
}

/// Writes a layer file atomically.
pub fn write_layer(
    path: &Path,
    variant: Variant,
    layer: Layer,
    values: &LayerValues,
) -> Result<(), DbError> {
    crate::util::write_atomic(path, &encode(variant, layer, values)).map_err(|e| DbError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// A solved layer in the solver's memory: its states and their values,
/// unpacked (the solver's innermost loop reads them).
#[derive(Debug)]
pub struct Solved {
    pub index: LayerIndex,
    pub values: LayerValues,
}

impl Solved {
    /// The value of state `(m, o)` of this layer (any symmetric form).
    #[inline]
    pub fn value(&self, m: u32, o: u32) -> Option<Value> {
        self.index.index_of(m, o).map(|i| self.values.get(i))
    }
}

/// A solved layer as the [`Database`] reads it: its states, and its file
/// mapped, values looked up in their packed form.
#[derive(Debug)]
pub struct LayerFile {
    pub index: LayerIndex,
    pub values: LayerData,
}

impl LayerFile {
    /// The value of state `(m, o)` of this layer (any symmetric form).
    pub fn value(&self, m: u32, o: u32) -> Option<Value> {
        self.index.index_of(m, o).map(|i| self.values.get(i))
    }
}

/// Where a turn leads, from the view of the player whose turn it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The turn wins at once (a line of three in Three Men's Morris, or
    /// the opponent left with two stones).
    Win,
    /// The opponent moves next in state `(opponent's stones, own stones)`
    /// of this layer.
    To(Layer, u32, u32),
}

/// Every whole turn from state `(m, o)` of `layer`: each placement or
/// move, and after one that closes a mill each removal.
#[inline]
pub(crate) fn for_each_turn(geo: &Geometry, layer: Layer, m: u32, o: u32, mut f: impl FnMut(Turn)) {
    let empty = geo.all & !(m | o);
    if layer.hm > 0 {
        for p in points(empty) {
            arrive(geo, layer, m | p.bit(), o, p, layer.hm - 1, &mut f);
        }
    } else {
        let flies = geo.flies(m.count_ones());
        for x in points(m) {
            for y in points(geo.targets(x, empty, flies)) {
                arrive(geo, layer, m ^ x.bit() ^ y.bit(), o, y, 0, &mut f);
            }
        }
    }
}

#[inline]
fn arrive(
    geo: &Geometry,
    layer: Layer,
    m2: u32,
    o: u32,
    at: super::Point,
    hm2: u8,
    f: &mut impl FnMut(Turn),
) {
    let a2 = m2.count_ones() as u8;
    if geo.in_mill(m2, at) {
        if geo.mill_wins {
            f(Turn::Win);
            return;
        }
        if o != 0 {
            for r in points(geo.removable(o)) {
                if layer.b - 1 + layer.ho < 3 {
                    f(Turn::Win);
                } else {
                    let next = Layer {
                        a: layer.b - 1,
                        b: a2,
                        hm: layer.ho,
                        ho: hm2,
                    };
                    f(Turn::To(next, o & !r.bit(), m2));
                }
            }
            return;
        }
    }
    f(Turn::To(
        Layer {
            a: layer.b,
            b: a2,
            hm: layer.ho,
            ho: hm2,
        },
        o,
        m2,
    ));
}

/// The removals open to a player who has closed a mill with stones `m`,
/// the opponent having `o`, as whole-turn outcomes.
pub(crate) fn for_each_removal(
    layer_after: Layer,
    m: u32,
    o: u32,
    geo: &Geometry,
    mut f: impl FnMut(super::Point, Turn),
) {
    // `layer_after`: the state after the removal, from the opponent's view
    // (its `a` already one less).
    for r in points(geo.removable(o)) {
        if layer_after.a + layer_after.hm < 3 {
            f(r, Turn::Win);
        } else {
            f(r, Turn::To(layer_after, o & !r.bit(), m));
        }
    }
}

/// A solved database on disk, read layer by layer as positions need them.
///
/// ```no_run
/// use yinsh_zero::games::morris::db::Database;
/// use yinsh_zero::games::morris::{Position, Variant};
///
/// let db = Database::open(&Database::default_dir(Variant::Six), Variant::Six).unwrap();
/// let start = Position::start(Variant::Six);
/// println!("{}", db.value(&start).unwrap());
/// println!("{:?}", db.best_actions(&start).unwrap());
/// ```
pub struct Database {
    variant: Variant,
    dir: PathBuf,
    present: HashSet<Layer>,
    loaded: Mutex<HashMap<Layer, Arc<LayerFile>>>,
    /// Answers placing-phase states whose layers have no file (Nine Men's
    /// Morris's), made on first use.
    placing: Mutex<Option<PlacingSearch>>,
    search_table: usize,
    search_budget: Option<u64>,
    search_progress: Option<std::time::Duration>,
    /// The placing book, read on the first placing-phase question (an
    /// error is kept as its text and given to every such question).
    book: std::sync::OnceLock<Result<Option<PlacingBook>, String>>,
}

/// The placing search's table unless set otherwise.
pub const DEFAULT_SEARCH_TABLE: usize = 256 << 20;
/// The most states one placing-phase question expands unless set
/// otherwise: a few seconds of search, so that a player or the page never
/// stalls for long on a position the database cannot answer quickly.
pub const DEFAULT_SEARCH_BUDGET: u64 = 2_000_000;

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Database")
            .field("variant", &self.variant)
            .field("dir", &self.dir)
            .field("layers", &self.present.len())
            .finish()
    }
}

impl Database {
    /// The directory `solve` writes `variant` to by default.
    pub fn default_dir(variant: Variant) -> PathBuf {
        Path::new("data").join("morris").join(variant.name())
    }

    /// Opens the database in `dir` (its layer files are read when first
    /// needed, and checked then).
    pub fn open(dir: &Path, variant: Variant) -> Result<Database, DbError> {
        if !dir.is_dir() {
            return Err(DbError::NoDatabase {
                variant,
                path: dir.to_path_buf(),
            });
        }
        let present = super::address::layers(variant)
            .into_iter()
            .filter(|l| dir.join(l.file_name()).is_file())
            .collect();
        Ok(Database {
            variant,
            dir: dir.to_path_buf(),
            present,
            loaded: Mutex::new(HashMap::new()),
            placing: Mutex::new(None),
            search_table: DEFAULT_SEARCH_TABLE,
            search_budget: Some(DEFAULT_SEARCH_BUDGET),
            search_progress: None,
            book: std::sync::OnceLock::new(),
        })
    }

    /// Sets the placing-phase search's table size and the most states it
    /// may expand for one question (`None`: no limit).
    pub fn with_placing_search(mut self, table_bytes: usize, budget: Option<u64>) -> Database {
        self.search_table = table_bytes;
        self.search_budget = budget;
        *self.placing.get_mut().unwrap() = None;
        self
    }

    /// Has the placing-phase search report its work on standard error
    /// every `every`.
    pub fn with_search_progress(mut self, every: std::time::Duration) -> Database {
        self.search_progress = Some(every);
        *self.placing.get_mut().unwrap() = None;
        self
    }

    /// Drops the placing-phase search and its table: the next question
    /// starts cold, as in a database just opened, with the layers already
    /// read kept.
    pub fn forget_searches(&self) {
        *self.placing.lock().unwrap() = None;
    }

    /// The work the placing-phase search has done so far.
    pub fn search_stats(&self) -> SearchStats {
        self.placing
            .lock()
            .unwrap()
            .as_ref()
            .map(PlacingSearch::stats)
            .unwrap_or_default()
    }

    /// A placing-phase state of a layer without a file: from the placing
    /// book when it holds the state, else by search.
    fn searched_value(&self, layer: Layer, m: u32, o: u32) -> Result<Value, DbError> {
        let book = self
            .book
            .get_or_init(|| PlacingBook::load(&self.dir, self.variant).map_err(|e| e.to_string()));
        match book {
            Ok(Some(b)) => {
                if let Some(v) = b.get(layer, m, o) {
                    return Ok(v);
                }
            }
            Ok(None) => {}
            Err(why) => return Err(DbError::BadBook(why.clone())),
        }
        let mut guard = self.placing.lock().unwrap();
        let search = guard.get_or_insert_with(|| {
            let s = PlacingSearch::new(self.search_table, self.search_budget);
            match self.search_progress {
                Some(every) => s.with_progress(every),
                None => s,
            }
        });
        search.value(self, layer, m, o)
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The layers that have a file.
    pub fn layers(&self) -> impl Iterator<Item = Layer> + '_ {
        self.present.iter().copied()
    }

    pub fn has_layer(&self, layer: Layer) -> bool {
        self.present.contains(&layer)
    }

    /// A layer, read and checked on first use.
    pub fn layer(&self, layer: Layer) -> Result<Arc<LayerFile>, DbError> {
        let path = self.dir.join(layer.file_name());
        if !self.present.contains(&layer) {
            return Err(DbError::NotSolved {
                variant: self.variant,
                layer,
                path,
            });
        }
        if let Some(s) = self.loaded.lock().unwrap().get(&layer) {
            return Ok(s.clone());
        }
        let index = LayerIndex::build(self.variant, layer);
        let values = LayerData::map(&path, self.variant, layer, Some(index.len()))?;
        let solved = Arc::new(LayerFile { index, values });
        self.loaded.lock().unwrap().insert(layer, solved.clone());
        Ok(solved)
    }

    /// The value of state `(m, o)` of `layer`: from its file, or for a
    /// placing-phase layer without one, by searching down to the moving
    /// phase's files ([`PlacingSearch`]).
    pub fn state_value(&self, layer: Layer, m: u32, o: u32) -> Result<Value, DbError> {
        if !layer.is_moving() && !self.present.contains(&layer) {
            return self.searched_value(layer, m, o);
        }
        let solved = self.layer(layer)?;
        solved.value(m, o).ok_or_else(|| {
            DbError::BadPosition(format!(
                "the masks {m:#x}/{o:#x} are no state of layer {layer}"
            ))
        })
    }

    fn turn_value(&self, t: Turn) -> Result<Value, DbError> {
        match t {
            Turn::Win => Ok(Value::win(1)),
            Turn::To(l, m, o) => Ok(self.state_value(l, m, o)?.back()),
        }
    }

    fn check_variant(&self, pos: &Position) -> Result<(), DbError> {
        if pos.variant() != self.variant {
            return Err(DbError::BadPosition(format!(
                "a {} position asked of the {} database",
                pos.variant(),
                self.variant
            )));
        }
        if pos.result().is_some() {
            return Err(DbError::BadPosition("the game is over".into()));
        }
        Ok(())
    }

    /// The value of `pos` for the player to act (a pending removal
    /// included: the best over the removals).
    pub fn value(&self, pos: &Position) -> Result<Value, DbError> {
        self.check_variant(pos)?;
        if pos.removing() {
            return Ok(self
                .action_values(pos)?
                .into_iter()
                .map(|(_, v)| v)
                .max_by_key(|v| v.rank())
                .expect("a removal is open"));
        }
        let (layer, m, o) = locate(pos).map_err(DbError::BadPosition)?;
        self.state_value(layer, m, o)
    }

    /// The value of `pos` where a layer file holds it (no placing-phase
    /// search: a layer without a file is [`DbError::NotSolved`]).
    pub fn stored_value(&self, pos: &Position) -> Result<Value, DbError> {
        self.check_variant(pos)?;
        let (layer, m, o) = state_of(pos);
        // A pending removal is no state: the caller looks past it.
        if !self.present.contains(&layer) || pos.removing() {
            return Err(DbError::NotSolved {
                variant: self.variant,
                layer,
                path: self.dir.join(layer.file_name()),
            });
        }
        self.state_value(layer, m, o)
    }

    /// Every legal action of `pos` with the value it keeps for the player
    /// to act.
    pub fn action_values(&self, pos: &Position) -> Result<Vec<(Action, Value)>, DbError> {
        self.check_variant(pos)?;
        let geo = pos.geometry();
        let me = pos.to_act();
        let (m, o) = (pos.stones(me), pos.stones(!me));
        let (hm, ho) = (pos.hand(me), pos.hand(!me));
        let mut out = Vec::new();
        if pos.removing() {
            let after = Layer {
                a: o.count_ones() as u8 - 1,
                b: m.count_ones() as u8,
                hm: ho,
                ho: hm,
            };
            let mut turns = Vec::new();
            for_each_removal(after, m, o, geo, |r, t| turns.push((r, t)));
            for (r, t) in turns {
                out.push((Action::Remove(geo.square(r)), self.turn_value(t)?));
            }
            return Ok(out);
        }
        let layer = Layer {
            a: m.count_ones() as u8,
            b: o.count_ones() as u8,
            hm,
            ho,
        };
        for action in pos.legal_actions() {
            let (m2, at) = match action {
                Action::Place(s) => {
                    let p = geo.point_at(s).expect("legal placement");
                    (m | p.bit(), p)
                }
                Action::Move(x, y) => {
                    let (x, y) = (
                        geo.point_at(x).expect("legal"),
                        geo.point_at(y).expect("legal"),
                    );
                    (m ^ x.bit() ^ y.bit(), y)
                }
                Action::Remove(_) => unreachable!("no removal between turns"),
            };
            let hm2 = if hm > 0 { hm - 1 } else { 0 };
            let mut best: Option<Value> = None;
            let mut err = None;
            let mut single = |t: Turn| match self.turn_value(t) {
                Ok(v) => {
                    if best.is_none_or(|b| v.rank() > b.rank()) {
                        best = Some(v);
                    }
                }
                Err(e) => err = Some(e),
            };
            arrive(geo, layer, m2, o, at, hm2, &mut single);
            if let Some(e) = err {
                return Err(e);
            }
            out.push((action, best.expect("a turn has an outcome")));
        }
        Ok(out)
    }

    /// The actions of `pos` that keep its value: the fastest win, the
    /// slowest loss, or a draw.
    pub fn best_actions(&self, pos: &Position) -> Result<Vec<Action>, DbError> {
        let values = self.action_values(pos)?;
        let best = values.iter().map(|(_, v)| v.rank()).max();
        Ok(values
            .into_iter()
            .filter(|(_, v)| Some(v.rank()) == best)
            .map(|(a, _)| a)
            .collect())
    }
}
