//! Checkpoints: one directory per generation, written whole or not at all.
//!
//! ```text
//! <run>/checkpoints/000042/model.bpk      network weights (burnpack)
//! <run>/checkpoints/000042/optimizer.bpk  optimizer state (absent for generation 0)
//! <run>/checkpoints/000042/meta.json      CheckpointMeta
//! <run>/checkpoints/000042/trained.bpk    the trained weights, where model.bpk
//!                                         averages them with earlier generations'
//! <run>/checkpoints/best                  the promoted generation, as text
//! ```
//!
//! Wherever a checkpoint is asked for, the `best` pointer or the folder
//! holding it serves too ([`resolve`]): `checkpoints/best` names the
//! promoted network of the run in `checkpoints/`.
//!
//! A checkpoint is assembled in a hidden temporary directory, every file
//! fsynced, then renamed into place: a kill at any moment leaves either the
//! complete checkpoint or none, never half of one.
//!
//! Below both the training loop that writes checkpoints and the players
//! that load them.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::nn::{
    Model, ModelSection, NetEvaluator, NnError, average, load_game_weights, save_weights,
};
use crate::util::atomic::{sync_dir, write_atomic};

/// The trained weights of a checkpoint whose network is an average.
pub const TRAINED: &str = "trained.bpk";

/// Version of the checkpoint layout this build writes and reads.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Result of one gating match, kept with the candidate it judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GatingResult {
    /// The generation the candidate played against.
    pub against: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Candidate's score, (wins + draws / 2) / games.
    pub score: f64,
    pub promoted: bool,
    /// "threshold", "sprt" or "disabled".
    pub rule: String,
}

/// Everything about a generation besides its tensors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    pub version: u32,
    /// The game and variant the network plays (checkpoints written before
    /// games had names are YINSH standard).
    #[serde(default = "yinsh")]
    pub game: String,
    #[serde(default = "standard")]
    pub variant: String,
    pub generation: u64,
    pub model: ModelSection,
    /// Self-play positions generated in the run up to this checkpoint.
    pub positions_generated: u64,
    /// Training samples consumed up to this checkpoint (batch x steps).
    pub samples_trained: u64,
    pub train_steps: u64,
    /// Record files in the replay window, oldest first, relative to the
    /// run directory: the replay cursor. Files beyond these are new.
    pub replay_files: Vec<String>,
    /// How many of `replay_files`, oldest first, no longer hold a position
    /// of the window: a resume neither reads nor fetches them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replay_spent: usize,
    /// Self-play games played with the best network so far.
    pub games_played: u64,
    /// Seed stream position: every random draw of generation `g` is seeded
    /// from (run seed, `g`, purpose), so this and the run seed restore the
    /// random state exactly.
    pub rng_stream: u64,
    pub gating: Option<GatingResult>,
    pub created_unix: u64,
    /// For a network averaged from several ([`crate::nn::average()`]): the
    /// generations it is the mean of; empty for a trained one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub averaged_from: Vec<u64>,
    /// The weight of the expected final margin in the search the network
    /// learned under (`[search] score_weight`): a `net-mcts` player that is
    /// not told a `score=` searches with it, as the network was trained to
    /// be searched. 0 (left out of the file): the result alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub score_weight: f32,
    /// The margin's threshold in that search (`[search] score_threshold`),
    /// taken with the weight; 0 (left out of the file): none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub score_threshold: f32,
    /// CPU time (user plus system, every thread) the run's `train`
    /// processes had spent when this checkpoint was written, all sittings
    /// together: what `[loop] cpu_hours` budgets. Self-play workers' time
    /// is their own processes' and not counted. 0 (left out of the file):
    /// not counted, as in checkpoints written before it was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cpu_seconds: f64,
}

impl CheckpointMeta {
    /// The metadata of generation `generation` of a `game` network shaped
    /// `model`, created now, with nothing counted yet.
    pub fn new<G: Game>(game: &G, generation: u64, model: ModelSection) -> CheckpointMeta {
        CheckpointMeta {
            version: CHECKPOINT_VERSION,
            game: G::NAME.into(),
            variant: game.variant().into(),
            generation,
            model,
            positions_generated: 0,
            samples_trained: 0,
            train_steps: 0,
            replay_files: Vec::new(),
            replay_spent: 0,
            games_played: 0,
            rng_stream: generation,
            gating: None,
            created_unix: now_unix(),
            averaged_from: Vec::new(),
            score_weight: 0.0,
            score_threshold: 0.0,
            cpu_seconds: 0.0,
        }
    }
}

fn is_zero<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// Seconds since the Unix epoch (0 on a clock set before it).
fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn yinsh() -> String {
    "yinsh".into()
}

fn standard() -> String {
    "standard".into()
}

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a yinsh-zero checkpoint (no meta.json, and no `best` pointer to one)")]
    NotACheckpoint { path: PathBuf },
    #[error("{path}: damaged meta.json: {msg}")]
    BadMeta { path: PathBuf, msg: String },
    #[error("{path}: checkpoint layout version {found}, this build reads {CHECKPOINT_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: a network for {found}, not {expected}")]
    OtherGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: cannot be averaged with {first}: {why}")]
    Unlike {
        path: PathBuf,
        first: PathBuf,
        why: String,
    },
    #[error("no checkpoints to average")]
    NothingToAverage,
    #[error(transparent)]
    Weights(#[from] NnError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Directory of generation `g` under `<run>/checkpoints`.
pub fn generation_dir(checkpoints: &Path, g: u64) -> PathBuf {
    checkpoints.join(format!("{g:06}"))
}

/// Writes a checkpoint atomically: weights, optional optimizer state, meta.
pub fn save(
    checkpoints: &Path,
    meta: &CheckpointMeta,
    model: &Model,
    optimizer: Option<&[u8]>,
) -> Result<PathBuf, CheckpointError> {
    let dir = generation_dir(checkpoints, meta.generation);
    save_to(&dir, meta, model, None, optimizer)?;
    Ok(dir)
}

/// Writes a checkpoint atomically into the directory `dir`, whatever its
/// name (an averaged network, a network to ship): the network, the trained
/// weights where they differ from it (`trained.bpk`, which
/// [`load_trained_model`] goes on from), the optimizer state, the meta. A
/// directory already there is replaced.
pub fn save_to(
    dir: &Path,
    meta: &CheckpointMeta,
    model: &Model,
    trained: Option<&Model>,
    optimizer: Option<&[u8]>,
) -> Result<(), CheckpointError> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = dir.file_name().ok_or_else(|| CheckpointError::Io {
        path: dir.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a checkpoint directory needs a name",
        ),
    })?;
    fs::create_dir_all(parent).map_err(io(parent))?;
    let tmp = parent.join(format!(".tmp-{}", name.to_string_lossy()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    save_weights(model, &tmp.join("model.bpk"))?;
    if let Some(t) = trained {
        save_weights(t, &tmp.join(TRAINED))?;
    }
    if let Some(bytes) = optimizer {
        let p = tmp.join("optimizer.bpk");
        write_atomic(&p, bytes).map_err(io(&p))?;
    }
    let json = serde_json::to_vec_pretty(meta).expect("meta is plain data");
    let p = tmp.join("meta.json");
    write_atomic(&p, &json).map_err(io(&p))?;
    if dir.exists() {
        // A previous attempt at this generation that was never referenced.
        fs::remove_dir_all(dir).map_err(io(dir))?;
    }
    fs::rename(&tmp, dir).map_err(io(dir))?;
    sync_dir(parent).map_err(io(parent))?;
    Ok(())
}

/// Writes into `out` the mean of the networks of the checkpoints `dirs`
/// ([`crate::nn::average()`]), all of `game` and one network size: a
/// checkpoint with the newest one's meta, no optimizer state and no replay
/// files, its `averaged_from` listing the generations. Returns its meta.
pub fn average_checkpoints<G: Game>(
    game: &G,
    dirs: &[PathBuf],
    out: &Path,
    device: &burn::tensor::Device,
) -> Result<CheckpointMeta, CheckpointError> {
    let first = dirs.first().ok_or(CheckpointError::NothingToAverage)?;
    let mut models = Vec::with_capacity(dirs.len());
    let mut metas: Vec<CheckpointMeta> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let (model, meta) = load_model(game, dir, device)?;
        if let Some(m0) = metas.first() {
            let why = if meta.variant != m0.variant {
                Some(format!("variant {} against {}", meta.variant, m0.variant))
            } else if meta.model != m0.model {
                Some(format!(
                    "a {}x{} network against {}x{} (or other head sizes)",
                    meta.model.blocks, meta.model.channels, m0.model.blocks, m0.model.channels
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(CheckpointError::Unlike {
                    path: dir.clone(),
                    first: first.clone(),
                    why,
                });
            }
        }
        models.push(model);
        metas.push(meta);
    }
    let model = average(&models).expect("one game and one network size average");
    let newest = metas
        .iter()
        .max_by_key(|m| m.generation)
        .expect("at least one checkpoint");
    let mut generations: Vec<u64> = metas.iter().map(|m| m.generation).collect();
    generations.sort_unstable();
    let meta = CheckpointMeta {
        replay_files: Vec::new(),
        replay_spent: 0,
        averaged_from: generations,
        gating: None,
        created_unix: now_unix(),
        ..newest.clone()
    };
    save_to(out, &meta, &model, None, None)?;
    Ok(meta)
}

/// Reads a checkpoint's meta.json.
pub fn read_meta(dir: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let p = dir.join("meta.json");
    let bytes = match fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CheckpointError::NotACheckpoint {
                path: dir.to_path_buf(),
            });
        }
        Err(e) => return Err(io(&p)(e)),
    };
    let meta: CheckpointMeta =
        serde_json::from_slice(&bytes).map_err(|e| CheckpointError::BadMeta {
            path: dir.to_path_buf(),
            msg: crate::util::excerpt::clip(&e.to_string(), 120),
        })?;
    if meta.version != CHECKPOINT_VERSION {
        return Err(CheckpointError::Version {
            path: dir.to_path_buf(),
            found: meta.version,
        });
    }
    Ok(meta)
}

/// The checkpoint directory that `path` names: a checkpoint directory
/// itself, a `best` pointer file (the generation it names, beside it), or
/// a run's checkpoints folder (its best generation).
///
/// ```
/// # let tmp = tempfile::tempdir().unwrap();
/// use yinsh_zero::checkpoint::{generation_dir, resolve, write_best};
/// let ckpts = tmp.path();
/// std::fs::create_dir_all(generation_dir(ckpts, 7)).unwrap();
/// std::fs::write(generation_dir(ckpts, 7).join("meta.json"), "{}").unwrap();
/// write_best(ckpts, 7).unwrap();
/// assert_eq!(resolve(&ckpts.join("best")).unwrap(), generation_dir(ckpts, 7));
/// assert_eq!(resolve(ckpts).unwrap(), generation_dir(ckpts, 7));
/// assert!(resolve(&ckpts.join("000008")).is_err());
/// ```
pub fn resolve(path: &Path) -> Result<PathBuf, CheckpointError> {
    if path.join("meta.json").is_file() {
        return Ok(path.to_path_buf());
    }
    let (folder, pointer) = if path.is_file() {
        let folder = path.parent().unwrap_or(Path::new("."));
        (folder.to_path_buf(), path.to_path_buf())
    } else {
        (path.to_path_buf(), path.join("best"))
    };
    if !pointer.is_file() {
        return Err(CheckpointError::NotACheckpoint {
            path: path.to_path_buf(),
        });
    }
    let text = read_pointer(&pointer).map_err(io(&pointer))?;
    let g: u64 = text.trim().parse().map_err(|_| CheckpointError::BadMeta {
        path: pointer.clone(),
        msg: format!(
            "`{}` is not a generation number (a `best` pointer holds one)",
            crate::util::excerpt(&text)
        ),
    })?;
    let dir = generation_dir(&folder, g);
    if !dir.join("meta.json").is_file() {
        return Err(CheckpointError::NotACheckpoint { path: dir });
    }
    Ok(dir)
}

/// Loads a checkpoint's network for `game` onto `device`. A checkpoint of
/// another game is refused by name. (A network serves every variant of its
/// game: the variant is part of what it sees.)
pub fn load_model<G: Game>(
    game: &G,
    dir: &Path,
    device: &burn::tensor::Device,
) -> Result<(Model, CheckpointMeta), CheckpointError> {
    load_weights_file(game, dir, false, device)
}

/// Loads the weights training arrived at in a checkpoint: its
/// `trained.bpk` where its network is an average of generations
/// ([`save_to`]), else its network. Training goes on from these.
pub fn load_trained_model<G: Game>(
    game: &G,
    dir: &Path,
    device: &burn::tensor::Device,
) -> Result<(Model, CheckpointMeta), CheckpointError> {
    load_weights_file(game, dir, true, device)
}

fn load_weights_file<G: Game>(
    game: &G,
    dir: &Path,
    trained: bool,
    device: &burn::tensor::Device,
) -> Result<(Model, CheckpointMeta), CheckpointError> {
    let dir = &resolve(dir)?;
    let meta = read_meta(dir)?;
    if meta.game != G::NAME {
        return Err(CheckpointError::OtherGame {
            path: dir.to_path_buf(),
            found: format!("{} ({})", meta.game, meta.variant),
            expected: G::NAME.into(),
        });
    }
    let file = match dir.join(TRAINED) {
        t if trained && t.is_file() => t,
        _ => dir.join("model.bpk"),
    };
    let model = load_game_weights(game, &meta.model.to_model_config(), &file, device)?;
    Ok((model, meta))
}

/// An evaluator on a checkpoint's network for `game` on `backend` (on the
/// CPU: single-threaded, as each player of a parallel arena wants).
pub fn load_evaluator<G: Game>(
    game: &G,
    dir: &Path,
    backend: crate::nn::BackendKind,
) -> Result<NetEvaluator<G>, CheckpointError> {
    load_evaluator_with(game, dir, backend, crate::nn::InferenceOptions::default())
}

/// [`load_evaluator`] with its own inference options (more threads: one
/// game's batches split over several cores).
pub fn load_evaluator_with<G: Game>(
    game: &G,
    dir: &Path,
    backend: crate::nn::BackendKind,
    options: crate::nn::InferenceOptions,
) -> Result<NetEvaluator<G>, CheckpointError> {
    let device = backend.device()?;
    let (model, _) = load_model(game, dir, &device)?;
    Ok(NetEvaluator::new(game.clone(), model, device, options)?)
}

/// The start of a `best` pointer: a generation number is a few bytes, and
/// a path that names some large file by mistake must not be read whole.
fn read_pointer(p: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut head = Vec::new();
    fs::File::open(p)?.take(64).read_to_end(&mut head)?;
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The promoted generation recorded in `<checkpoints>/best`, if any.
pub fn read_best(checkpoints: &Path) -> Result<Option<u64>, CheckpointError> {
    let p = checkpoints.join("best");
    match read_pointer(&p) {
        Ok(s) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| CheckpointError::BadMeta {
                path: p.clone(),
                msg: format!("`{}` is not a generation number", crate::util::excerpt(&s)),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(&p)(e)),
    }
}

/// Points `<checkpoints>/best` at generation `g` (atomically).
pub fn write_best(checkpoints: &Path, g: u64) -> Result<(), CheckpointError> {
    let p = checkpoints.join("best");
    write_atomic(&p, format!("{g:06}\n").as_bytes()).map_err(io(&p))
}

/// Generations with a complete checkpoint directory, ascending.
pub fn list(checkpoints: &Path) -> Result<Vec<u64>, CheckpointError> {
    let mut out = Vec::new();
    let entries = match fs::read_dir(checkpoints) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io(checkpoints)(e)),
    };
    for e in entries {
        let e = e.map_err(io(checkpoints))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.len() == 6
            && let Ok(g) = name.parse::<u64>()
            && e.path().join("meta.json").exists()
        {
            out.push(g);
        }
    }
    out.sort();
    Ok(out)
}

/// A network a project ships: a folder of checkpoints with a `best`
/// pointer, and what that best checkpoint plays.
#[derive(Clone, Debug)]
pub struct Shipped {
    /// `shipped` for the folder's own network, else the subfolder's name.
    pub name: String,
    /// The folder holding `best`.
    pub dir: PathBuf,
    pub meta: CheckpointMeta,
}

/// The networks shipped in `root`, a folder laid out as this repository's
/// `checkpoints/`: the network `root/best` points at (the YINSH one), named
/// `shipped`, then each subfolder with a `best` (`six-mens-morris`,
/// `grid`, ...) under its name, in name order. Generation folders are the
/// project run's own, and folders whose best checkpoint cannot be read are
/// passed over: what a server offers and an engine plays by default.
pub fn shipped(root: &Path) -> Vec<Shipped> {
    let found = |name: &str, dir: PathBuf| {
        let meta = read_meta(&resolve(&dir).ok()?).ok()?;
        Some(Shipped {
            name: name.to_string(),
            dir,
            meta,
        })
    };
    let mut out: Vec<Shipped> = found("shipped", root.to_path_buf()).into_iter().collect();
    let mut folders: Vec<(String, PathBuf)> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| Some((e.file_name().to_str()?.to_string(), e.path())))
        .filter(|(name, dir)| {
            !name.bytes().all(|b| b.is_ascii_digit()) && dir.join("best").is_file()
        })
        .collect();
    folders.sort();
    out.extend(
        folders
            .into_iter()
            .filter_map(|(name, dir)| found(&name, dir)),
    );
    out
}
