//! A run's configuration: one TOML file, one table per part of the loop.
//! Every field has a documented default (see `configs/default.toml`); an
//! unknown or ill-typed key is refused with its name.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::games::{Builtin, Registry};
use crate::mcts::SearchConfig;
use crate::nn::BackendKind;
pub use crate::nn::ModelSection;
use crate::reanalyse::ReanalyseConfig;
use crate::replay::window::WindowConfig;
use crate::selfplay::SelfPlayConfig;
use crate::train::config::TrainConfig;

/// The default config, embedded in the binary: the text of `configs/default.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../../configs/default.toml");

/// The `[pretrain]` table: the teacher, how many of its games, and how
/// long to learn from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PretrainConfig {
    /// Teacher games before the first generation (0 = no warm start: the
    /// run starts from random weights).
    pub games: u64,
    /// The teacher: a player spec (`yinsh-zero match --help`), no networks.
    pub teacher: String,
    /// Passes over the teacher's positions (gradient steps = epochs x
    /// positions / `[train] batch_size`).
    pub epochs: f64,
    /// The warm start's peak learning rate: it is its own, apart from
    /// `[train] learning_rate`, because self-play after a warm start pays
    /// at a lower rate than the warm start learns at (`docs/strength.md`).
    pub learning_rate: f64,
    /// The learning rate decays (cosine) from `learning_rate` to this
    /// share of it over the warm start's steps (1 = constant): the network
    /// it leaves is the annealed one, not one noisy step of many.
    pub lr_floor: f64,
    /// Share of each policy target spread evenly over all legal actions;
    /// the rest is on the teacher's move.
    pub label_smoothing: f32,
    /// Up to this many opening decisions made at random (YINSH: ring
    /// placements), so that a deterministic teacher's games differ.
    /// Formerly `random_placements`, still read.
    #[serde(alias = "random_placements")]
    pub opening_moves: u32,
    /// Threads playing teacher games (0 = one per core).
    pub workers: usize,
    /// Complete games per record file.
    pub games_per_file: usize,
}

impl Default for PretrainConfig {
    fn default() -> Self {
        PretrainConfig {
            games: 3000,
            teacher: "alphabeta:depth=3".into(),
            epochs: 1.5,
            learning_rate: 0.001,
            lr_floor: 0.1,
            label_smoothing: 0.1,
            opening_moves: 6,
            workers: 0,
            games_per_file: 32,
        }
    }
}

impl PretrainConfig {
    /// Checks the values, naming the first bad key; whether the teacher is
    /// a player of the run's game is [`RunConfig::validate_for`]'s to say.
    pub fn validate(&self) -> Result<(), String> {
        if self.games == 0 {
            return Ok(());
        }
        let name = self.teacher.split(':').next().unwrap_or_default();
        if name.starts_with("net-") || name == "cmd" {
            return Err(format!(
                "pretrain.teacher: `{}` is not a classical player (networks and external \
                 programs cannot teach)",
                self.teacher
            ));
        }
        if !(self.epochs.is_finite() && self.epochs > 0.0) {
            return Err(format!(
                "pretrain.epochs must be more than 0, got {}",
                self.epochs
            ));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!(
                "pretrain.learning_rate must be more than 0, got {}",
                self.learning_rate
            ));
        }
        if !(self.lr_floor > 0.0 && self.lr_floor <= 1.0) {
            return Err(format!(
                "pretrain.lr_floor must be within 0 (excluded) and 1, got {}",
                self.lr_floor
            ));
        }
        if !(0.0..1.0).contains(&self.label_smoothing) {
            return Err(format!(
                "pretrain.label_smoothing must be within 0..1, got {}",
                self.label_smoothing
            ));
        }
        if self.games_per_file == 0 {
            return Err("pretrain.games_per_file must be at least 1".into());
        }
        Ok(())
    }

    pub(super) fn worker_count(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

/// The loop itself: how long, how many games per generation, which backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Stop after this many generations (0 = no limit).
    pub generations: u64,
    /// Stop after this many hours of this process (0 = no limit).
    pub hours: f64,
    /// Stop once the run's `train` processes have spent this many hours of
    /// CPU time, all sittings together (0 = no limit). Unlike `hours` it
    /// neither restarts on a resume nor stretches with a busy machine: a
    /// quiet hour on two cores is two CPU-hours.
    pub cpu_hours: f64,
    /// Self-play games per generation.
    pub games_per_generation: u64,
    /// Seed of everything random in the run.
    pub seed: u64,
    /// Where the network runs: flex (CPU), cuda, wgpu.
    pub backend: BackendKind,
    /// Who plays the self-play games the trainer learns from.
    pub selfplay: SelfPlaySource,
}

/// Who plays a run's self-play games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SelfPlaySource {
    /// The trainer, between its training phases.
    #[default]
    Local,
    /// `yinsh-zero worker` processes, which upload record files to the
    /// run's store; the trainer only trains, gates and publishes.
    Workers,
}

/// Self-play workers (`yinsh-zero worker`) and a trainer that waits for
/// them (`[loop] selfplay = "workers"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkersConfig {
    /// Games a worker plays before it uploads them and looks for a newly
    /// promoted network.
    pub games_per_batch: u64,
    /// Seconds between looks at the store while waiting: a worker for a
    /// first network, the trainer for enough uploaded games.
    pub poll_seconds: f64,
}

impl Default for WorkersConfig {
    fn default() -> Self {
        WorkersConfig {
            games_per_batch: 32,
            poll_seconds: 5.0,
        }
    }
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            generations: 0,
            hours: 0.0,
            cpu_hours: 0.0,
            games_per_generation: 96,
            seed: 1,
            backend: BackendKind::Flex,
            selfplay: SelfPlaySource::Local,
        }
    }
}

/// The gating match of each candidate against the best network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatingConfig {
    /// Gate candidates at all (false: every candidate is promoted, i.e.
    /// continuous training).
    pub enabled: bool,
    /// Games per gating match (colours alternate; openings are paired).
    pub games: u64,
    /// Score the candidate needs to be promoted.
    pub threshold: f64,
    /// Decide by SPRT with these Elo hypotheses instead of the threshold
    /// (`[elo0, elo1]`, e.g. `[0, 30]`), stopping early once it decides.
    pub sprt: Option<[f64; 2]>,
    /// Search simulations per decision in gating games.
    pub simulations: u32,
    /// Gumbel root search instead of PUCT in gating games. Both networks
    /// play as the spec `net-mcts:sims=<simulations>,gumbel=<gumbel>`
    /// does: no noise, no temperature, every search full; `[search]` is
    /// self-play's and does not apply.
    pub gumbel: bool,
    /// Random opening decisions (YINSH: ring placements); each opening is
    /// played with both colours. Formerly `random_placements`, still read.
    #[serde(alias = "random_placements")]
    pub opening_moves: u32,
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            enabled: true,
            games: 40,
            threshold: 0.55,
            sprt: None,
            simulations: 32,
            gumbel: false,
            opening_moves: 4,
        }
    }
}

/// Matches of the best network against fixed opponents every few
/// generations. Gating compares each candidate only with the network
/// before it, so the Elo it chains drifts; these games measure every best
/// network against players that never change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BaselineConfig {
    /// Every this many generations (0 = never).
    pub every: u64,
    /// Player specs (`yinsh-zero match --help`); networks and external
    /// programs excepted.
    pub opponents: Vec<String>,
    /// Games against each opponent (colours alternate; openings are paired).
    pub games: u32,
    /// Search simulations per decision of the network.
    pub simulations: u32,
    /// Gumbel root search instead of PUCT for the network, which plays as
    /// the spec `net-mcts:sims=<simulations>,gumbel=<gumbel>` does (see
    /// [`GatingConfig::gumbel`]).
    pub gumbel: bool,
    /// Random opening decisions (YINSH: ring placements); each opening is
    /// played with both colours. Formerly `random_placements`, still read.
    #[serde(alias = "random_placements")]
    pub opening_moves: u32,
}

impl Default for BaselineConfig {
    fn default() -> Self {
        BaselineConfig {
            every: 5,
            opponents: vec!["greedy".into(), "alphabeta:depth=2".into()],
            games: 20,
            simulations: 64,
            gumbel: false,
            opening_moves: 4,
        }
    }
}

/// Which game the run plays (the `[game]` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSection {
    /// A game of [`crate::games::GAMES`].
    pub name: String,
    /// One of the game's variants (YINSH: `standard` or `blitz`).
    pub variant: String,
}

impl Default for GameSection {
    fn default() -> Self {
        GameSection {
            name: "yinsh".into(),
            variant: "standard".into(),
        }
    }
}

/// A whole run's configuration.
///
/// Its defaults are the embedded `configs/default.toml`'s
/// ([`RunConfig::default`]); each section's Rust `Default` agrees with it
/// (a test holds them equal) except `[search]`, whose table is self-play's
/// search while [`SearchConfig::default`] is a player's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    #[serde(default)]
    pub game: GameSection,
    #[serde(rename = "loop", default)]
    pub run: LoopConfig,
    #[serde(default)]
    pub model: ModelSection,
    #[serde(default)]
    pub search: SearchConfig,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    pub replay: WindowConfig,
    #[serde(default)]
    pub train: TrainConfig,
    #[serde(default)]
    pub gating: GatingConfig,
    #[serde(default)]
    pub baseline: BaselineConfig,
    #[serde(default)]
    pub pretrain: PretrainConfig,
    #[serde(default)]
    pub workers: WorkersConfig,
    #[serde(default)]
    pub reanalyse: ReanalyseConfig,
}

impl Default for RunConfig {
    /// The embedded default config, `configs/default.toml`.
    fn default() -> Self {
        RunConfig::from_toml(DEFAULT_CONFIG, "the default config")
            .expect("the embedded default config is valid")
    }
}

/// Keys that may differ between a run's frozen config and the config it is
/// resumed with: they change pace or budget, not what is being learned.
pub const SAFE_TO_CHANGE: &[&str] = &[
    "loop.generations",
    "loop.hours",
    "loop.cpu_hours",
    "loop.games_per_generation",
    "loop.backend",
    "loop.selfplay",
    "selfplay.workers",
    "selfplay.games_in_flight",
    "selfplay.games_per_file",
    "selfplay.inference",
    "selfplay.server_batch",
    "selfplay.server_wait_ms",
    "train.learning_rate",
    "train.threads",
    "gating.games",
    "baseline.every",
    "baseline.opponents",
    "baseline.games",
    "baseline.simulations",
    "baseline.gumbel",
    "baseline.opening_moves",
    "pretrain.games",
    "pretrain.workers",
    "pretrain.games_per_file",
    "workers.games_per_batch",
    "workers.poll_seconds",
];

/// Why a config cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// A TOML error as `line L, column C: what (at `excerpt`)`: toml's own
/// text quotes the whole offending line, and a config named by mistake
/// (`--config /etc/passwd`) would have its first line printed.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().trim_end_matches('\n').replace('\n', "; ");
    let Some(span) = e.span() else {
        return what;
    };
    let start = span.start.min(text.len());
    let before = text.get(..start).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    // The whole offending line, so that the key is in the excerpt.
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let near = text[line_start..].split('\n').next().unwrap_or("");
    if near.trim().is_empty() {
        format!("line {line}, column {column}: {what}")
    } else {
        format!(
            "line {line}, column {column}: {what} (in `{}`)",
            crate::util::excerpt::clip(near, 40)
        )
    }
}

/// Keys that were renamed, as (old, new): the old name is still read, in
/// any table, with one line on stderr per config that uses it.
pub const RENAMED_KEYS: &[(&str, &str)] = &[("random_placements", "opening_moves")];

/// Renames the [`RENAMED_KEYS`] in `tables` (a config's top-level
/// tables) to their new names, and says so in one line naming `origin`,
/// or `None` if none was there.
fn rename_old_keys(tables: &mut toml::Table, origin: &str) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    for (section, value) in tables.iter_mut() {
        let toml::Value::Table(keys) = value else {
            continue;
        };
        for &(old, new) in RENAMED_KEYS {
            if let Some(v) = keys.remove(old) {
                keys.insert(new.to_string(), v);
                found.push(format!("[{section}] {old}"));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let renames: Vec<String> = RENAMED_KEYS
        .iter()
        .filter(|(old, _)| found.iter().any(|f| f.ends_with(&format!(" {old}"))))
        .map(|(old, new)| format!("`{old}` is now `{new}`"))
        .collect();
    Some(format!(
        "{origin}: {} (in {}); the old name is still read, write the new one",
        renames.join(", "),
        found.join(", ")
    ))
}

impl RunConfig {
    /// Parses and validates a config text; `origin` names it in errors. A
    /// key that was renamed ([`RENAMED_KEYS`]) is read under its old name
    /// too, with one line on stderr that names the new one.
    pub fn from_toml(text: &str, origin: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::from_toml_for::<Builtin>(text, origin)
    }

    /// [`RunConfig::from_toml`] for a program whose games are `R`'s: the
    /// config's `[game]` must be one of them.
    pub fn from_toml_for<R: Registry>(text: &str, origin: &str) -> Result<RunConfig, ConfigError> {
        let (cfg, note) = RunConfig::parse_noting::<R>(text, origin)?;
        if let Some(line) = note {
            eprintln!("{line}");
        }
        Ok(cfg)
    }

    /// [`RunConfig::from_toml`] without printing: the config, and the
    /// line that says which old key names it used, if any.
    pub fn from_toml_noting(
        text: &str,
        origin: &str,
    ) -> Result<(RunConfig, Option<String>), ConfigError> {
        RunConfig::parse_noting::<Builtin>(text, origin)
    }

    fn parse_noting<R: Registry>(
        text: &str,
        origin: &str,
    ) -> Result<(RunConfig, Option<String>), ConfigError> {
        let parse_error = |e: toml::de::Error| ConfigError::Parse {
            origin: origin.to_string(),
            message: toml_message(text, &e),
        };
        // A key that moved gets its own message rather than "unknown field".
        if let Ok(t) = toml::from_str::<toml::Table>(text)
            && t.get("selfplay").and_then(|s| s.get("blitz")).is_some()
        {
            return Err(ConfigError::Invalid {
                origin: origin.to_string(),
                message: "[selfplay] blitz has moved: write `[game]` with `variant = \"blitz\"` \
                          (or \"standard\")"
                    .into(),
            });
        }
        // Parsed alone first, so that a bad key is reported with its line.
        toml::from_str::<RunConfig>(text).map_err(parse_error)?;
        // Omitted keys take the embedded default config's values, which
        // differ from the library's own defaults (a searching player's
        // `SearchConfig::default()` is not self-play's).
        let mut merged: toml::Table = toml::from_str(DEFAULT_CONFIG).map_err(parse_error)?;
        let mut given: toml::Table = toml::from_str(text).map_err(parse_error)?;
        let note = rename_old_keys(&mut given, origin);
        for (section, value) in given {
            match (merged.get_mut(&section), value) {
                (Some(toml::Value::Table(base)), toml::Value::Table(keys)) => base.extend(keys),
                (_, value) => {
                    merged.insert(section, value);
                }
            }
        }
        let cfg = RunConfig::deserialize(toml::Value::Table(merged)).map_err(parse_error)?;
        cfg.validate_for::<R>()
            .map_err(|message| ConfigError::Invalid {
                origin: origin.to_string(),
                message,
            })?;
        Ok((cfg, note))
    }

    /// Reads a config file, or the embedded default when `path` is `None`.
    pub fn load(path: Option<&Path>) -> Result<RunConfig, ConfigError> {
        RunConfig::load_for::<Builtin>(path)
    }

    /// [`RunConfig::load`] for a program whose games are `R`'s.
    pub fn load_for<R: Registry>(path: Option<&Path>) -> Result<RunConfig, ConfigError> {
        match path {
            None => RunConfig::from_toml_for::<R>(DEFAULT_CONFIG, "the default config"),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|source| ConfigError::Io {
                    path: p.display().to_string(),
                    source,
                })?;
                RunConfig::from_toml_for::<R>(&text, &p.display().to_string())
            }
        }
    }

    /// The config as TOML text (every key written out).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("configs are plain data")
    }

    /// Checks the values' ranges, naming the first bad key; the game must
    /// be one of this crate's.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_for::<Builtin>()
    }

    /// [`RunConfig::validate`] for a program whose games are `R`'s.
    pub fn validate_for<R: Registry>(&self) -> Result<(), String> {
        // One look-up of the game: an unknown one is the first error, the
        // players' verdict waits until the tables' own checks have spoken.
        let players = R::with_game(&self.game.name, &self.game.variant, Players(self))
            .map_err(|e| format!("[game] {e}"))?;
        self.search
            .validate()
            .map_err(|e| format!("[search] {e}"))?;
        self.train.validate()?;
        if self.search.score_weight > 0.0 && self.train.margin_loss_weight == 0.0 {
            return Err(format!(
                "[search] score_weight = {} weighs the network's margin, which [train] \
                 margin_loss_weight = 0 leaves untrained",
                self.search.score_weight
            ));
        }
        let m = &self.model;
        if m.blocks == 0 || m.channels == 0 || m.value_channels == 0 || m.value_hidden == 0 {
            return Err(
                "model: blocks, channels, value_channels and value_hidden must be at least 1"
                    .into(),
            );
        }
        m.to_model_config()
            .check_global_pool()
            .map_err(|e| format!("[model] {e}"))?;
        match (m.reply_head, self.train.reply_policy_weight > 0.0) {
            (false, true) => {
                return Err(format!(
                    "[train] reply_policy_weight = {} trains a reply head the network lacks: \
                     set [model] reply_head = true",
                    self.train.reply_policy_weight
                ));
            }
            (true, false) => {
                return Err(
                    "[model] reply_head = true with [train] reply_policy_weight = 0 \
                     trains nothing into the head: give the weight (KataGo's is 0.15)"
                        .into(),
                );
            }
            _ => {}
        }
        match (m.ownership_head, self.train.ownership_weight > 0.0) {
            (false, true) => {
                return Err(format!(
                    "[train] ownership_weight = {} trains an ownership head the network \
                     lacks: set [model] ownership_head = true",
                    self.train.ownership_weight
                ));
            }
            (true, false) => {
                return Err(
                    "[model] ownership_head = true with [train] ownership_weight = 0 \
                     trains nothing into the head: give the weight"
                        .into(),
                );
            }
            _ => {}
        }
        if self.run.games_per_generation == 0 {
            return Err("loop.games_per_generation must be at least 1".into());
        }
        for (key, hours) in [("hours", self.run.hours), ("cpu_hours", self.run.cpu_hours)] {
            if !(hours.is_finite() && hours >= 0.0) {
                return Err(format!("loop.{key} must be zero or more, got {hours}"));
            }
        }
        let g = &self.gating;
        if g.enabled && g.games == 0 {
            return Err("gating.games must be at least 1 when gating is enabled".into());
        }
        if !(0.0..=1.0).contains(&g.threshold) {
            return Err(format!(
                "gating.threshold must be within 0..=1, got {}",
                g.threshold
            ));
        }
        if let Some([e0, e1]) = g.sprt
            && !(e0.is_finite() && e1.is_finite() && e0 < e1)
        {
            return Err(format!(
                "gating.sprt must be [elo0, elo1] with elo0 < elo1, got [{e0}, {e1}]"
            ));
        }
        if g.simulations == 0 {
            return Err("gating.simulations must be at least 1".into());
        }
        let b = &self.baseline;
        if b.every > 0 {
            if b.games == 0 || b.simulations == 0 || b.opponents.is_empty() {
                return Err(
                    "baseline: games, simulations and opponents need at least one each \
                     (or every = 0 to turn the matches off)"
                        .into(),
                );
            }
            for spec in &b.opponents {
                let name = spec.split(':').next().unwrap_or_default();
                if name.starts_with("net-") || name == "cmd" || spec.contains(' ') {
                    return Err(format!(
                        "baseline.opponents: `{spec}` is not a fixed opponent (networks and \
                         external programs are not allowed)"
                    ));
                }
            }
        }
        self.pretrain.validate()?;
        self.reanalyse.validate()?;
        let r = &self.replay;
        if r.min_size == 0 || r.max_size < r.min_size || !(r.alpha > 0.0 && r.alpha <= 1.0) {
            return Err("replay: need 0 < min_size <= max_size and 0 < alpha <= 1".into());
        }
        let w = &self.workers;
        if w.games_per_batch == 0 || !(w.poll_seconds.is_finite() && w.poll_seconds > 0.0) {
            return Err(
                "workers: games_per_batch must be at least 1 and poll_seconds more than 0".into(),
            );
        }
        // Workers and the trainer sleep this long: it must be a Duration
        // (1e30 is finite, and Duration::from_secs_f64 panicked on it).
        if std::time::Duration::try_from_secs_f64(w.poll_seconds).is_err() {
            return Err(format!(
                "workers.poll_seconds = {} is longer than any wait can be",
                w.poll_seconds
            ));
        }
        self.selfplay
            .validate()
            .map_err(|e| format!("selfplay: {e}"))?;
        self.selfplay
            .server_options()
            .map_err(|e| format!("selfplay: {e}"))?;
        players
    }

    /// Keys whose values differ between two configs, as `table.key`.
    pub fn differing_keys(&self, other: &RunConfig) -> Vec<String> {
        let (a, b) = (flatten(self), flatten(other));
        let mut keys: Vec<String> = a
            .keys()
            .chain(b.keys())
            .filter(|k| a.get(*k) != b.get(*k))
            .cloned()
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// Checks that the baseline opponents and the warm start's teacher are
/// players of the config's game.
struct Players<'a>(&'a RunConfig);

impl crate::games::GameTask for Players<'_> {
    type Output = Result<(), String>;
    fn run<G: crate::arena::GamePlayers>(self, game: G) -> Result<(), String> {
        let cfg = self.0;
        if cfg.baseline.every > 0 {
            for spec in &cfg.baseline.opponents {
                crate::arena::parse_game_player(&game, spec, 0)
                    .map_err(|e| format!("baseline.opponents: {e}"))?;
            }
        }
        if cfg.pretrain.games > 0 {
            crate::arena::parse_game_player(&game, &cfg.pretrain.teacher, 0)
                .map_err(|e| format!("pretrain.teacher: {e}"))?;
        }
        if cfg.model.ownership_head {
            use crate::game::State;
            let start = game.start();
            let mut out = vec![0.0; game.net_shape().cells()];
            if !game.ownership(&start, start.to_act(), &mut out) {
                return Err(format!(
                    "[model] ownership_head: {} has no ownership target to train it on",
                    G::NAME
                ));
            }
        }
        Ok(())
    }
}

fn flatten(cfg: &RunConfig) -> BTreeMap<String, String> {
    let value = toml::Value::try_from(cfg).expect("configs are plain data");
    let mut out = BTreeMap::new();
    fn walk(prefix: &str, v: &toml::Value, out: &mut BTreeMap<String, String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    walk("", &value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error that refuses config `text` (read as `c.toml`), as shown.
    fn refusal(text: &str) -> String {
        RunConfig::from_toml(text, "c.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn shipped_configs_parse_and_validate() {
        let d = RunConfig::load(None).unwrap();
        // `train` in the project goes on from the network it ships, so the
        // default config has that network's shape.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints");
        let shipped = crate::checkpoint::resolve(&root).unwrap();
        let meta = crate::checkpoint::read_meta(&shipped).unwrap();
        assert_eq!(meta.model, d.model, "{}", shipped.display());
        // Every file in configs/, so that a new game's config is checked
        // the day it lands.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                RunConfig::load(Some(&p)).unwrap_or_else(|e| panic!("{}: {e:#}", p.display()));
                seen += 1;
            }
        }
        assert!(seen >= 6, "only {seen} configs in {}", dir.display());
    }

    /// `configs/default.toml` promises that an omitted key takes the value
    /// it shows: the built-in defaults must be that file.
    #[test]
    fn empty_config_is_the_default_config() {
        assert_eq!(
            RunConfig::from_toml("", "empty").unwrap(),
            RunConfig::load(None).unwrap()
        );
    }

    #[test]
    fn margin_target_share_follows_the_value_share_unless_given() {
        let c = RunConfig::from_toml("[train]\nsearch_value_weight = 0.5\n", "x").unwrap();
        let t = c.train.value_target();
        assert_eq!((t.search_weight, t.search_margin_weight), (0.5, 0.5));
        let text = "[train]\nsearch_value_weight = 0.0\nsearch_margin_weight = 0.25\n";
        let c = RunConfig::from_toml(text, "x").unwrap();
        let t = c.train.value_target();
        assert_eq!((t.search_weight, t.search_margin_weight), (0.0, 0.25));
        assert_eq!(RunConfig::from_toml(&c.to_toml(), "x").unwrap(), c);
    }

    #[test]
    fn written_configs_read_back_identical() {
        let d = RunConfig::load(None).unwrap();
        assert_eq!(RunConfig::from_toml(&d.to_toml(), "x").unwrap(), d);
    }

    #[test]
    fn bad_keys_are_named() {
        let e = refusal("[train]\nlearning_rat = 0.1\n");
        assert!(e.contains("c.toml") && e.contains("learning_rat"), "{e}");
        let e = refusal("[search]\nsimulations = \"many\"\n");
        assert!(e.contains("simulations"), "{e}");
        let e = refusal("[gating]\nthreshold = 1.5\n");
        assert!(e.contains("gating.threshold"), "{e}");
        let e = refusal("[train]\nsearch_value_weight = 1.5\n");
        assert!(e.contains("train.search_value_weight"), "{e}");
        let e = refusal("[train]\nsearch_margin_weight = -0.1\n");
        assert!(e.contains("train.search_margin_weight"), "{e}");
        for text in [
            "[selfplay]\nside_games = 1.5\n",
            "[selfplay]\nside_games = -0.5\n",
        ] {
            let e = refusal(text);
            assert!(e.contains("c.toml") && e.contains("side_games"), "{e}");
        }
        for text in [
            "[selfplay]\npolicy_surprise = 1.5\n",
            "[selfplay]\npolicy_surprise_share = 0.5\n",
        ] {
            let e = refusal(text);
            assert!(e.contains("c.toml") && e.contains("policy_surprise"), "{e}");
        }
        let e = refusal("[selfplay]\nresign_check_share = 2.0\n");
        assert!(e.contains("resign_check_share"), "{e}");
        for (text, needle) in [
            ("[search]\nscore_weight = -1.0\n", "score_weight"),
            ("[search]\nscore_weight = 11.0\n", "score_weight"),
            ("[search]\nscore_threshold = 1.0\n", "score_threshold"),
            ("[search]\nscore_threshold = -0.1\n", "score_threshold"),
            (
                "[search]\nscore_weight = 0.5\n[train]\nmargin_loss_weight = 0.0\n",
                "margin_loss_weight",
            ),
            ("[train]\nreply_policy_weight = 0.15\n", "reply_head"),
            ("[model]\nreply_head = true\n", "reply_policy_weight"),
            (
                "[model]\nreply_head = true\n[train]\nreply_policy_weight = -1.0\n",
                "reply_policy_weight",
            ),
            ("[model]\nreply_heads = true\n", "reply_heads"),
            ("[model]\nglobal_pool_channel = 16\n", "global_pool_channel"),
            (
                "[model]\nglobal_pool_channels = 16\nglobal_pool_every = 0\n",
                "global_pool_every",
            ),
            (
                "[model]\nblocks = 2\nglobal_pool_channels = 16\nglobal_pool_every = 3\n",
                "global_pool_every",
            ),
            ("[train]\nreply_weight = 0.15\n", "reply_weight"),
            ("[train]\nownership_weight = 0.5\n", "ownership_head"),
            ("[model]\nownership_head = true\n", "ownership_weight"),
            (
                "[game]\nname = \"connect4\"\nvariant = \"standard\"\n[baseline]\nevery = 0\n\
                 [model]\nownership_head = true\n[train]\nownership_weight = 0.5\n",
                "no ownership target",
            ),
        ] {
            let e = refusal(text);
            assert!(e.contains("c.toml") && e.contains(needle), "{e}");
        }
        RunConfig::from_toml("[search]\nscore_weight = 0.5\n", "c.toml").unwrap();
        RunConfig::from_toml("[model]\nglobal_pool_channels = 16\n", "c.toml").unwrap();
        RunConfig::from_toml(
            "[model]\nreply_head = true\n[train]\nreply_policy_weight = 0.15\n",
            "c.toml",
        )
        .unwrap();
        RunConfig::from_toml(
            "[model]\nownership_head = true\n[train]\nownership_weight = 0.5\n",
            "c.toml",
        )
        .unwrap();
        let e = refusal("[typo]\nx = 1\n");
        assert!(e.contains("typo"), "{e}");
    }

    #[test]
    fn inference_settings_are_checked() {
        let server =
            RunConfig::from_toml("[selfplay]\ninference = \"server\"\n", "c.toml").unwrap();
        assert_eq!(
            server.selfplay.inference,
            crate::evaluator::Inference::Server
        );
        for (text, needle) in [
            ("[selfplay]\ninference = \"gpu\"\n", "gpu"),
            ("[selfplay]\nserver_batch = 0\n", "server_batch"),
            ("[selfplay]\nserver_wait_ms = -2.0\n", "server_wait_ms"),
        ] {
            let e = refusal(text);
            assert!(e.contains("c.toml") && e.contains(needle), "{e}");
        }
    }

    #[test]
    fn baseline_opponents_must_be_fixed_players() {
        for (text, needle) in [
            ("[baseline]\nopponents = [\"alphabeta:depht=2\"]\n", "depht"),
            (
                "[baseline]\nopponents = [\"net-mcts:checkpoint=c/000001\"]\n",
                "not a fixed opponent",
            ),
            (
                "[baseline]\nopponents = []\n",
                "opponents need at least one",
            ),
        ] {
            let e = refusal(text);
            assert!(e.contains("baseline") && e.contains(needle), "{e}");
        }
        let off = RunConfig::from_toml("[baseline]\nevery = 0\nopponents = []\n", "c.toml");
        assert!(off.is_ok(), "{off:?}");
    }

    #[test]
    fn the_game_is_named_and_checked() {
        let blitz = RunConfig::from_toml("[game]\nvariant = \"blitz\"\n", "c.toml").unwrap();
        assert_eq!(
            (blitz.game.name.as_str(), blitz.game.variant.as_str()),
            ("yinsh", "blitz")
        );
        for (text, needle) in [
            ("[game]\nname = \"chess\"\n", "unknown game `chess`"),
            ("[game]\nvariant = \"speed\"\n", "no variant `speed`"),
            ("[selfplay]\nblitz = true\n", "variant = \"blitz\""),
        ] {
            let e = refusal(text);
            assert!(e.contains("c.toml") && e.contains(needle), "{e}");
        }
    }

    #[test]
    fn rust_defaults_agree_with_the_embedded_config() {
        let toml = RunConfig::default();
        assert_eq!(toml.game, GameSection::default());
        assert_eq!(toml.run, LoopConfig::default());
        assert_eq!(toml.model, ModelSection::default());
        assert_eq!(toml.selfplay, SelfPlayConfig::default());
        assert_eq!(toml.replay, WindowConfig::default());
        assert_eq!(toml.train, TrainConfig::default());
        assert_eq!(toml.gating, GatingConfig::default());
        assert_eq!(toml.baseline, BaselineConfig::default());
        assert_eq!(toml.pretrain, PretrainConfig::default());
        assert_eq!(toml.workers, WorkersConfig::default());
        // Self-play searches differ from a player's on purpose, and only here.
        let play = SearchConfig::default();
        let selfplay = SearchConfig {
            simulations: 64,
            fast_simulations: 16,
            full_search_prob: 0.5,
            gumbel: true,
            // Gumbel noise on every move (README, Six Men's Morris).
            final_temperature: 1.0,
            ..play
        };
        assert_eq!(toml.search, selfplay);
    }

    #[test]
    fn the_old_opening_key_is_read_with_one_line_and_the_new_one_written() {
        let old = "[selfplay]\nrandom_placements = 2\n[gating]\nrandom_placements = 1\n\
                   [baseline]\nrandom_placements = 0\n[pretrain]\nrandom_placements = 3\n";
        let (cfg, note) = RunConfig::from_toml_noting(old, "old.toml").unwrap();
        assert_eq!(cfg.selfplay.opening_moves, 2);
        assert_eq!(cfg.gating.opening_moves, 1);
        assert_eq!(cfg.baseline.opening_moves, 0);
        assert_eq!(cfg.pretrain.opening_moves, 3);
        let note = note.expect("the old key is noted");
        assert!(!note.contains('\n'), "{note}");
        assert!(
            note.starts_with("old.toml: `random_placements` is now `opening_moves`"),
            "{note}"
        );
        for table in ["selfplay", "gating", "baseline", "pretrain"] {
            assert!(
                note.contains(&format!("[{table}] random_placements")),
                "{note}"
            );
        }
        // Written out under the new name only, and read back the same.
        let text = cfg.to_toml();
        assert!(!text.contains("random_placements"), "{text}");
        assert_eq!(text.matches("opening_moves = ").count(), 4, "{text}");
        let (again, note) = RunConfig::from_toml_noting(&text, "new.toml").unwrap();
        assert_eq!((again, note), (cfg, None));
        // Both names in one table is one key given twice.
        let e = RunConfig::from_toml(
            "[gating]\nrandom_placements = 1\nopening_moves = 2\n",
            "c.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("c.toml") && e.contains("opening_moves"), "{e}");
    }

    #[test]
    fn differing_keys_are_listed() {
        let a = RunConfig::default();
        let mut b = a.clone();
        b.train.learning_rate = 0.5;
        b.model.blocks = 2;
        assert_eq!(
            a.differing_keys(&b),
            vec!["model.blocks", "train.learning_rate"]
        );
    }
}
