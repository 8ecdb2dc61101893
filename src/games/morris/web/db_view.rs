//! What the perfect-play database says about a Morris position, for the
//! page's "show perfect move": the position's value, each action's value,
//! the best actions, and the position's state number.
//!
//! The databases are opened lazily, one per variant, and kept (their layer
//! files are read when first needed, see [`crate::games::morris::db::Database`]).
//! A directory that does not exist yet, or holds no layer file, is looked
//! at again on the next request, so a database solved while the server
//! runs is found.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::page::title;
use crate::game::{Color, State};
use crate::games::morris::address::{self, Layer, LayerIndex, Numbering};
use crate::games::morris::db::{Database, DbError, Outcome, Value};
use crate::games::morris::{Position, Variant};

/// Layers with at most this many states are numbered without a database
/// (their index is built in memory); larger ones need their layer file.
pub const MAX_INDEX_WITHOUT_DB: u64 = 3_000_000;

/// States kept in built layer indices before the cache is emptied.
const MAX_CACHED_STATES: usize = 12_000_000;
/// The placing-phase search behind the page (Nine's placing phase has no
/// files): at most this many states per action's question. Positions
/// within the placing book's turns are answered from the book; with Nine's
/// four-turn book the largest questions are those four turns in: at most 41
/// million states for a whole position and no action's question over this
/// bound among the positions sampled by `bench morris-questions` (30
/// November, docs/results/morris-solver.md); the cap bounds what one
/// request can cost. The search is one per database behind a lock, so
/// requests together never keep more than one core searching.
const PAGE_SEARCH_BUDGET: u64 = 20_000_000;
/// 512 MB: a question four turns in expands about a sixth fewer states than
/// with 64 MB (median 15.8 against 18.9 million, five positions).
const PAGE_SEARCH_TABLE: usize = 512 << 20;

/// The Morris databases a server consults.
pub struct MorrisDatabases {
    /// The directory holding `nine/`, `six/` and `three/`; `None` for
    /// [`Database::default_dir`].
    root: Option<PathBuf>,
    open: Mutex<HashMap<Variant, Arc<Database>>>,
    numberings: Mutex<HashMap<Variant, Arc<Numbering>>>,
    indices: Mutex<HashMap<(Variant, Layer), Arc<LayerIndex>>>,
}

impl std::fmt::Debug for MorrisDatabases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MorrisDatabases")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a database is there, where, and how complete.
#[derive(Clone, Debug, Serialize)]
pub struct DbStatus {
    pub variant: &'static str,
    pub present: bool,
    pub dir: String,
    /// Layer files present, and layers the variant has.
    pub layers: usize,
    pub all_layers: usize,
    /// In words, for the page: what is loaded, or how to make one.
    pub note: String,
}

/// A position's place in the state numbering.
#[derive(Clone, Debug, Serialize)]
pub struct StateNumber {
    /// The global state number.
    pub number: u64,
    /// States of the variant, all layers.
    pub total: u64,
    /// The layer, e.g. `6:5 in hand 0:0` (the mover's count first).
    pub layer: String,
    /// The index within the layer.
    pub index: u64,
}

/// A database value for the page.
#[derive(Clone, Debug, Serialize)]
pub struct ValueView {
    /// `win`, `draw` or `loss`, for the player to act.
    pub outcome: &'static str,
    /// Whole turns to the end under best play (0 for a draw).
    pub plies: u16,
    /// E.g. `win in 5`.
    pub text: String,
}

impl ValueView {
    fn of(v: Value) -> ValueView {
        ValueView {
            outcome: match v.outcome {
                Outcome::Win => "win",
                Outcome::Draw => "draw",
                Outcome::Loss => "loss",
            },
            plies: v.plies,
            text: v.to_string(),
        }
    }
}

/// One legal action and the value it keeps for the player to act.
#[derive(Clone, Debug, Serialize)]
pub struct ActionValue {
    pub action: String,
    pub value: ValueView,
    /// One of the best actions (fastest win, slowest loss, or a draw).
    pub best: bool,
}

/// What the page shows under "show perfect move".
#[derive(Clone, Debug, Serialize)]
pub struct PerfectView {
    pub database: DbStatus,
    /// The player the value is for: the player to act.
    pub to_act: Option<Color>,
    /// `None` when there is no database, the game is over, or the
    /// position lies outside the solved layers (see `note`).
    pub value: Option<ValueView>,
    /// The value in a sentence, e.g. "White (to act) wins in 5 turns".
    pub value_text: Option<String>,
    /// Every legal action with its value, best first.
    pub actions: Vec<ActionValue>,
    pub best: Vec<String>,
    /// Why there is no value.
    pub note: Option<String>,
    pub state: Option<StateNumber>,
    /// Why there is no state number.
    pub state_note: Option<String>,
}

impl MorrisDatabases {
    /// Databases under `root` (`root/nine`, `root/six`, `root/three`), or
    /// where `solve` writes them by default.
    pub fn new(root: Option<PathBuf>) -> MorrisDatabases {
        MorrisDatabases {
            root,
            open: Mutex::new(HashMap::new()),
            numberings: Mutex::new(HashMap::new()),
            indices: Mutex::new(HashMap::new()),
        }
    }

    /// Where `variant`'s database is looked for.
    pub fn dir(&self, variant: Variant) -> PathBuf {
        match &self.root {
            Some(root) => root.join(variant.name()),
            None => Database::default_dir(variant),
        }
    }

    /// The directory a `perfect` opponent should read, when the server was
    /// given one (otherwise the player's own default is the same).
    pub fn configured_dir(&self, variant: Variant) -> Option<PathBuf> {
        self.root.as_ref().map(|r| r.join(variant.name()))
    }

    fn files_present(&self, variant: Variant) -> usize {
        let dir = self.dir(variant);
        address::layers(variant)
            .into_iter()
            .filter(|l| dir.join(l.file_name()).is_file())
            .count()
    }

    /// `variant`'s database, if its directory holds at least one layer
    /// file. Reopened when more layer files have appeared since.
    pub fn get(&self, variant: Variant) -> Result<Arc<Database>, DbError> {
        let dir = self.dir(variant);
        let all = address::layers(variant).len();
        {
            let open = lock(&self.open);
            if let Some(db) = open.get(&variant) {
                let have = db.layers().count();
                if have == all || self.files_present(variant) <= have {
                    return Ok(db.clone());
                }
            }
        }
        let db = Database::open(&dir, variant)?
            .with_placing_search(PAGE_SEARCH_TABLE, Some(PAGE_SEARCH_BUDGET));
        if db.layers().count() == 0 {
            return Err(DbError::NoDatabase { variant, path: dir });
        }
        let db = Arc::new(db);
        lock(&self.open).insert(variant, db.clone());
        Ok(db)
    }

    /// Whether `variant` has a database, in words.
    pub fn status(&self, variant: Variant) -> DbStatus {
        let dir = self.dir(variant);
        let all_layers = address::layers(variant).len();
        let make = format!("yinsh-zero solve --variant {}", variant.name());
        let (present, layers, note) = match self.get(variant) {
            Ok(db) => {
                let n = db.layers().count();
                let moving = address::layers(variant)
                    .into_iter()
                    .filter(|l| l.is_moving())
                    .collect::<Vec<_>>();
                let note = if n == all_layers {
                    format!(
                        "{} solved: database loaded from {}",
                        title(variant),
                        dir.display()
                    )
                } else if moving.iter().all(|&l| db.has_layer(l)) {
                    format!(
                        "{}'s moving phase solved ({} layers in {}); placing positions by search \
                         down to it, or from the placing book where built (`yinsh-zero morris \
                         placing-book --variant {}`)",
                        title(variant),
                        moving.len(),
                        dir.display(),
                        variant.name()
                    )
                } else {
                    format!(
                        "{} partly solved: {n} of {all_layers} layers in {} (the rest: `{make}`)",
                        title(variant),
                        dir.display()
                    )
                };
                (true, n, note)
            }
            Err(DbError::NoDatabase { .. }) => (
                false,
                0,
                format!(
                    "No perfect-play database for {} (looked in {}). Make one with `{make}`{}.",
                    title(variant),
                    dir.display(),
                    if self.root.is_some() {
                        format!(" --db {}", dir.display())
                    } else {
                        String::new()
                    }
                ),
            ),
            Err(e) => (false, 0, format!("The database cannot be read: {e}")),
        };
        DbStatus {
            variant: variant.name(),
            present,
            dir: dir.display().to_string(),
            layers,
            all_layers,
            note,
        }
    }

    fn numbering(&self, variant: Variant) -> Arc<Numbering> {
        let mut all = lock(&self.numberings);
        all.entry(variant)
            .or_insert_with(|| Arc::new(Numbering::new(variant)))
            .clone()
    }

    /// The index of a layer built in memory, when the layer is small
    /// enough.
    fn built_index(&self, variant: Variant, layer: Layer) -> Result<Arc<LayerIndex>, String> {
        if let Some(ix) = lock(&self.indices).get(&(variant, layer)) {
            return Ok(ix.clone());
        }
        let (size, _) = address::layer_size(variant, layer);
        if size > MAX_INDEX_WITHOUT_DB {
            return Err(format!(
                "layer {layer} has {size} states: too many to number without its database file"
            ));
        }
        let ix = Arc::new(LayerIndex::build(variant, layer));
        let mut cache = lock(&self.indices);
        let held: usize = cache.values().map(|i| i.len()).sum();
        if held + ix.len() > MAX_CACHED_STATES {
            cache.clear();
        }
        cache.insert((variant, layer), ix.clone());
        Ok(ix)
    }

    /// The state number of `pos`, from the database's layer when it has
    /// one, else from a layer index built here.
    pub fn state_number(
        &self,
        pos: &Position,
        db: Option<&Database>,
    ) -> Result<StateNumber, String> {
        let variant = pos.variant();
        let (layer, m, o) = address::locate(pos)?;
        let numbering = self.numbering(variant);
        let offset = numbering
            .offset(layer)
            .ok_or_else(|| format!("layer {layer} is not one of {}'s", title(variant)))?;
        // The database's layer carries its index; a layer it lacks (or
        // cannot read) is indexed here when small enough.
        let from_db = db
            .filter(|db| db.has_layer(layer))
            .and_then(|db| db.layer(layer).ok());
        let index = match from_db {
            Some(solved) => solved.index.index_of(m, o),
            None => self.built_index(variant, layer)?.index_of(m, o),
        }
        .ok_or_else(|| format!("the position is no state of layer {layer}"))?;
        Ok(StateNumber {
            number: offset + u64::from(index),
            total: numbering.total,
            layer: layer.to_string(),
            index: u64::from(index),
        })
    }

    /// Everything "show perfect move" needs about `pos`. Never fails: what
    /// cannot be answered is said in `note` and `state_note`.
    pub fn perfect(&self, pos: &Position) -> PerfectView {
        let database = self.status(pos.variant());
        let db = if database.present {
            self.get(pos.variant()).ok()
        } else {
            None
        };
        let mut view = PerfectView {
            to_act: (!pos.is_over()).then(|| pos.to_act()),
            value: None,
            value_text: None,
            actions: Vec::new(),
            best: Vec::new(),
            note: None,
            state: None,
            state_note: None,
            database,
        };
        match self.state_number(pos, db.as_deref()) {
            Ok(s) => view.state = Some(s),
            Err(e) => view.state_note = Some(e),
        }
        if pos.is_over() {
            view.note = Some("The game is over.".into());
            return view;
        }
        let Some(db) = db else {
            view.note = Some(view.database.note.clone());
            return view;
        };
        let values = match db.action_values(pos) {
            Ok(v) => v,
            Err(e) if e.is_not_solved() => {
                view.note = Some(format!(
                    "This position lies outside the solved layers: {e}. The `perfect` player searches here."
                ));
                return view;
            }
            Err(e) => {
                view.note = Some(format!("The database cannot answer: {e}"));
                return view;
            }
        };
        let Some(best) = values.iter().map(|(_, v)| v.rank()).max() else {
            view.note = Some("No legal action.".into());
            return view;
        };
        let value = values
            .iter()
            .map(|(_, v)| *v)
            .find(|v| v.rank() == best)
            .expect("the best is one of them");
        let mut values = values;
        values.sort_by_key(|(_, v)| -v.rank());
        let actions: Vec<ActionValue> = values
            .into_iter()
            .map(|(a, v)| ActionValue {
                action: a.to_string(),
                value: ValueView::of(v),
                best: v.rank() == best,
            })
            .collect();
        view.best = actions
            .iter()
            .filter(|a| a.best)
            .map(|a| a.action.clone())
            .collect();
        view.value_text = Some(value_sentence(pos.to_act(), value));
        view.value = Some(ValueView::of(value));
        view.actions = actions;
        view
    }
}

/// "White (to act) wins in 5 turns", "Black (to act) loses in 3 turns",
/// "a draw with best play".
fn value_sentence(to_act: Color, v: Value) -> String {
    let who = if to_act == Color::White {
        "White"
    } else {
        "Black"
    };
    let turns = |n: u16| {
        if n == 1 {
            "turn".to_string()
        } else {
            "turns".to_string()
        }
    };
    match v.outcome {
        Outcome::Win => format!("{who} (to act) wins in {} {}", v.plies, turns(v.plies)),
        Outcome::Loss => format!("{who} (to act) loses in {} {}", v.plies, turns(v.plies)),
        Outcome::Draw => "a draw with best play".into(),
    }
}
