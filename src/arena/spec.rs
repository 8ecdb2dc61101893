//! Naming players on the command line: `name[:key=value,key=value]`.

use std::fmt;
use std::str::FromStr;

use std::time::Duration;

use super::minimax::{MinimaxConfig, MinimaxPlayer};
use super::net_player::PolicyPlayer;
use super::player::Player;
use super::random::RandomPlayer;
use super::search_player::{RolloutEvaluator, SearchPlayer};
use crate::evaluator::{Evaluator, SymmetryAverage};
use crate::game::Game;
use crate::mcts::SearchConfig;

/// A player kind that [`parse_game_player`] can build, with its options.
#[derive(Clone, Copy, Debug)]
pub struct PlayerInfo {
    pub name: &'static str,
    /// Accepted keys, each with a one-line description.
    pub keys: &'static [(&'static str, &'static str)],
    pub about: &'static str,
}

/// The player kinds of every game, for help texts and errors; a game adds
/// its own ([`GamePlayers`]).
pub const KNOWN_PLAYERS: &[PlayerInfo] = &[
    PlayerInfo {
        name: "random",
        keys: &[],
        about: "uniformly random legal actions",
    },
    PlayerInfo {
        name: "alphabeta",
        keys: &[
            ("depth", "deepest iteration in decisions (default 4)"),
            (
                "time",
                "milliseconds per decision; stops deepening when spent",
            ),
        ],
        about: "minimax with alpha-beta pruning and iterative deepening over the game's own evaluation",
    },
    PlayerInfo {
        name: "mcts-rollout",
        keys: &[
            (
                "playouts",
                "random playouts (search simulations) per decision (default 1000)",
            ),
            (
                "time",
                "milliseconds per decision, at most `playouts` simulations (then 1,000,000 by default)",
            ),
            ("cpuct", "exploration constant (default 2.0)"),
        ],
        about: "tree search whose leaves are judged by uniformly random playouts (classic UCT design)",
    },
    PlayerInfo {
        name: "net-policy",
        keys: &[
            ("checkpoint", "checkpoint directory (required)"),
            ("backend", "flex (CPU, default), cuda or wgpu"),
            ("symmetries", SYMMETRIES_ABOUT),
        ],
        about: "the network's most probable action, no search",
    },
    PlayerInfo {
        name: "net-mcts",
        keys: &[
            ("checkpoint", "checkpoint directory (required)"),
            ("sims", "search simulations per decision (default 200)"),
            (
                "time",
                "milliseconds per decision, at most `sims` simulations",
            ),
            ("gumbel", "true|false: Gumbel root search (default false)"),
            (
                "cpuct",
                "PUCT's exploration constant at a node with few visits, 0 to 10 (default 1.25)",
            ),
            (
                "fpu",
                "first-play urgency below the root: an unvisited action is valued at its \
                 parent's value minus this times the root of the prior mass visited, 0 to 2 \
                 (default 0.25)",
            ),
            (
                "root_fpu",
                "the same reduction at the root, 0 to 2 (default 0)",
            ),
            (
                "policy_temp",
                "softmax temperature of the network's priors, 0.1 to 10 (default 1: as \
                 trained); above 1 the search spreads its visits wider",
            ),
            (
                "draw",
                "what a draw is worth to this player, -1 to 1 (default 0); \
                 above 0 it plays safe for a draw",
            ),
            (
                "lcb",
                "z of the lower confidence bound the move is chosen by, 0 to 10 (default 2; \
                 0 plays the most visited)",
            ),
            (
                "discount",
                "share of a value kept per decision backed up, above 0 to 1 (default 1: \
                 none lost); the network's `value_discount` makes the faster win and the \
                 slower loss weigh more",
            ),
            (
                "score",
                "weight of the network's expected final margin beside win minus loss, 0 to \
                 10 (default 0); for a network trained with margin targets (the `[search]` \
                 table's `score_weight`)",
            ),
            (
                "score_threshold",
                "where the margin starts to weigh, 0 to below 1 (default: the network's \
                 `[search] score_threshold`, else 0: everywhere); above it in |win - loss| \
                 its weight rises linearly to `score` at a certain result",
            ),
            (
                "solver",
                "true|false: prove results from the finished games the search reaches and \
                 play by the proofs, among proven losses the slowest where `score` is set \
                 (default false)",
            ),
            ("backend", "flex (CPU, default), cuda or wgpu"),
            ("symmetries", SYMMETRIES_ABOUT),
            (
                "threads",
                "cores for this player's network, 1 to 64 (default 1; `engine` and `serve` \
                 default to every core): each step evaluates a batch of leaves gathered \
                 from the one tree with virtual loss, split over the threads",
            ),
            (
                "batch",
                "leaves gathered and evaluated together per step, 1 to 256 (default: \
                 `threads`); 1 evaluates leaf by leaf",
            ),
        ],
        about: "the network guiding the tree search",
    },
];

/// Options whose value names a file or folder the player opens. A player
/// kind that opens one by an option lists that option here: the web server
/// refuses these from callers and offers its own files by name instead
/// (`web::Offers`).
pub const FILE_KEYS: &[&str] = &["checkpoint", "db"];

const SYMMETRIES_ABOUT: &str = "true|false: average the network over the board's symmetries, \
     one evaluation each (default false)";

/// A parsed player spec: a name and `key=value` options, in order.
///
/// ```
/// use yinsh_zero::arena::PlayerSpec;
/// let s: PlayerSpec = "alphabeta:depth=3,time=1.5".parse().unwrap();
/// assert_eq!(s.name, "alphabeta");
/// assert_eq!(s.get("depth"), Some("3"));
/// assert_eq!(s.to_string(), "alphabeta:depth=3,time=1.5");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub name: String,
    pub options: Vec<(String, String)>,
}

impl PlayerSpec {
    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a player spec was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerSpecError {
    #[error("empty player spec: expected `name[:key=value,...]`; known players: {known}")]
    Empty { known: String },
    #[error("`{spec}`: option `{option}` is not of the form key=value")]
    Malformed { spec: String, option: String },
    #[error("`{spec}`: option `{key}` is given twice")]
    DuplicateKey { spec: String, key: String },
    #[error("unknown player `{name}`; known players: {known}")]
    UnknownPlayer { name: String, known: String },
    #[error("player `{player}` has no option `{key}`; it accepts: {known}")]
    UnknownKey {
        player: String,
        key: String,
        known: String,
    },
    #[error("player `{player}`: option `{key}={value}`: {why}")]
    BadValue {
        player: String,
        key: String,
        value: String,
        why: String,
    },
}

/// The players a game offers beyond the generic ones ([`KNOWN_PLAYERS`]):
/// classical engines that know its rules (YINSH's greedy and alpha-beta).
/// A game without any implements it with an empty body.
pub trait GamePlayers: Game {
    /// This game's own player kinds, for help texts and errors.
    fn own_players() -> &'static [PlayerInfo] {
        &[]
    }

    /// A static judgement of `state` for the player to act, in [-1, 1]:
    /// what the generic `alphabeta` player sees at its depth limit. The
    /// default, 0 (no opinion), leaves it a solver of what it can search to
    /// the end.
    fn evaluation(&self, state: &Self::State) -> f32 {
        let _ = state;
        0.0
    }

    /// Builds one of [`own_players`](Self::own_players) from its spec
    /// (whose name and keys are already checked).
    fn build_own(
        &self,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Box<dyn Player<Self::State>>, PlayerSpecError> {
        let _ = seed;
        unreachable!("`{}` is not one of this game's own players", spec.name)
    }

    /// How `grade` grades a player against this game's perfect play;
    /// `None` (the default) where the game has none to grade against.
    fn grading() -> Option<super::grade::Grading<Self>> {
        None
    }
}

/// Every player kind of game `G`: `random`, the game's own, then the
/// searching and network players. A game's own player replaces a generic
/// one of the same name (YINSH's `alphabeta`).
pub fn players_of<G: GamePlayers>() -> Vec<PlayerInfo> {
    let own = G::own_players();
    let mut all = vec![KNOWN_PLAYERS[0]];
    all.extend_from_slice(own);
    all.extend(
        KNOWN_PLAYERS[1..]
            .iter()
            .filter(|p| !own.iter().any(|o| o.name == p.name))
            .copied(),
    );
    all
}

fn known_players<G: GamePlayers>() -> String {
    players_of::<G>()
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for PlayerSpec {
    type Err = PlayerSpecError;

    fn from_str(spec: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec, None),
        };
        if name.is_empty() {
            return Err(PlayerSpecError::Empty {
                known: KNOWN_PLAYERS
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let mut options: Vec<(String, String)> = Vec::new();
        for option in rest.into_iter().flat_map(|r| r.split(',')) {
            let Some((k, v)) = option.split_once('=') else {
                return Err(PlayerSpecError::Malformed {
                    spec: spec.into(),
                    option: option.into(),
                });
            };
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() {
                return Err(PlayerSpecError::Malformed {
                    spec: spec.into(),
                    option: option.into(),
                });
            }
            if options.iter().any(|(seen, _)| seen == k) {
                return Err(PlayerSpecError::DuplicateKey {
                    spec: spec.into(),
                    key: k.into(),
                });
            }
            options.push((k.into(), v.into()));
        }
        Ok(PlayerSpec {
            name: name.to_ascii_lowercase(),
            options,
        })
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Builds the player of `game` named by `spec`, seeding its randomness with
/// `seed`. Network players load their checkpoint, which must be of `game`.
pub fn parse_game_player<G: GamePlayers>(
    game: &G,
    spec: &str,
    seed: u64,
) -> Result<Box<dyn Player<G::State>>, PlayerSpecError> {
    let spec: PlayerSpec = spec.parse().map_err(|e| match e {
        PlayerSpecError::Empty { .. } => PlayerSpecError::Empty {
            known: known_players::<G>(),
        },
        e => e,
    })?;
    let all = players_of::<G>();
    let Some(info) = all.iter().find(|p| p.name == spec.name) else {
        return Err(PlayerSpecError::UnknownPlayer {
            name: spec.name,
            known: known_players::<G>(),
        });
    };
    for (k, _) in &spec.options {
        if !info.keys.iter().any(|(known, _)| known == k) {
            let known = if info.keys.is_empty() {
                "no options".to_string()
            } else {
                info.keys
                    .iter()
                    .map(|(k, about)| format!("{k} ({about})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(PlayerSpecError::UnknownKey {
                player: spec.name.clone(),
                key: k.clone(),
                known,
            });
        }
    }
    if G::own_players().iter().any(|p| p.name == info.name) {
        return game.build_own(&spec, seed);
    }
    Ok(match info.name {
        "random" => Box::new(RandomPlayer::new(seed)),
        "alphabeta" => {
            let mut config = MinimaxConfig::default();
            if let Some(v) = spec.get("depth") {
                config.depth = parse_num(&spec, "depth", v, 1, 64)? as u32;
            }
            if let Some(v) = spec.get("time") {
                config.time = Some(Duration::from_millis(parse_num(
                    &spec, "time", v, 1, 3_600_000,
                )?));
                if spec.get("depth").is_none() {
                    config.depth = 64;
                }
            }
            Box::new(MinimaxPlayer::new(
                game.clone(),
                G::evaluation,
                config,
                spec.to_string(),
                seed,
            ))
        }
        "mcts-rollout" => {
            let mut config = SearchConfig {
                simulations: 1000,
                c_puct: 2.0,
                c_puct_growth: 0.0,
                // Every child gets a playout before siblings are revisited,
                // as in UCT.
                fpu_reduction: 0.0,
                ..SearchConfig::for_play()
            };
            if let Some(v) = spec.get("playouts") {
                config.simulations = parse_num(&spec, "playouts", v, 1, 100_000_000)? as u32;
            }
            let mut time = None;
            if let Some(v) = spec.get("time") {
                time = Some(Duration::from_millis(parse_num(
                    &spec, "time", v, 1, 3_600_000,
                )?));
                // The search checks the clock between leaf evaluations, and
                // descents into finished games need none: a cap keeps an
                // endgame search from running on past the time.
                if spec.get("playouts").is_none() {
                    config.simulations = 1_000_000;
                }
            }
            if let Some(v) = spec.get("cpuct") {
                config.c_puct = parse_f32(&spec, "cpuct", v)?;
            }
            Box::new(SearchPlayer::new(
                spec.to_string(),
                RolloutEvaluator::new(seed ^ 0x5eed),
                config,
                time,
                seed,
            ))
        }
        "net-policy" => {
            let ev = load_net(game, &spec, 1)?;
            Box::new(PolicyPlayer::new(spec.to_string(), ev))
        }
        "net-mcts" => {
            let mut config = SearchConfig::for_play();
            if let Some(v) = spec.get("sims") {
                config.simulations = parse_num(&spec, "sims", v, 1, 10_000_000)? as u32;
            }
            let mut time = None;
            if let Some(v) = spec.get("time") {
                time = Some(Duration::from_millis(parse_num(
                    &spec, "time", v, 1, 3_600_000,
                )?));
                if spec.get("sims").is_none() {
                    config.simulations = 1_000_000;
                }
            }
            if let Some(v) = spec.get("gumbel") {
                config.gumbel = parse_bool(&spec, "gumbel", v)?;
            }
            if let Some(v) = spec.get("solver") {
                config.solver = parse_bool(&spec, "solver", v)?;
            }
            let tuning: [(&str, f32, f32, SetSearch); 4] = [
                ("cpuct", 0.0, 10.0, |c, x| c.c_puct = x),
                ("fpu", 0.0, 2.0, |c, x| c.fpu_reduction = x),
                ("root_fpu", 0.0, 2.0, |c, x| c.root_fpu_reduction = x),
                ("policy_temp", 0.1, 10.0, |c, x| c.policy_temperature = x),
            ];
            for (key, lo, hi, set) in tuning {
                if let Some(v) = spec.get(key) {
                    set_search_within(&spec, &mut config, key, v, lo, hi, set)?;
                }
            }
            if let Some(v) = spec.get("draw") {
                set_search_f32(&spec, &mut config, "draw", v, "from -1 to 1", |c, x| {
                    c.draw_score = x
                })?;
            }
            if let Some(v) = spec.get("discount") {
                set_search_f32(
                    &spec,
                    &mut config,
                    "discount",
                    v,
                    "above 0 and at most 1",
                    |c, x| c.discount = x,
                )?;
            }
            if let Some(v) = spec.get("score") {
                set_search_f32(&spec, &mut config, "score", v, "from 0 to 10", |c, x| {
                    c.score_weight = x
                })?;
            }
            if let Some(v) = spec.get("score_threshold") {
                set_search_f32(
                    &spec,
                    &mut config,
                    "score_threshold",
                    v,
                    "from 0 to below 1",
                    |c, x| c.score_threshold = x,
                )?;
            }
            if let Some(v) = spec.get("lcb") {
                config.lcb_z = v
                    .parse::<f32>()
                    .ok()
                    .filter(|z| (0.0..=10.0).contains(z))
                    .ok_or_else(|| PlayerSpecError::BadValue {
                        player: spec.name.clone(),
                        key: "lcb".into(),
                        value: v.into(),
                        why: "expected a number from 0 to 10".into(),
                    })?;
            }
            let threads = match spec.get("threads") {
                Some(v) => parse_num(&spec, "threads", v, 1, MAX_THREADS as u64)? as usize,
                None => 1,
            };
            let batch = match spec.get("batch") {
                Some(v) => parse_num(&spec, "batch", v, 1, 256)? as usize,
                None => default_batch(threads),
            };
            // Loading the network comes last: a bad option is reported
            // without reading a checkpoint first.
            let ev = load_net(game, &spec, threads)?;
            let (weight, threshold) = trained_scoring(&spec)?;
            if spec.get("score").is_none() {
                config.score_weight = weight;
            }
            if spec.get("score_threshold").is_none() {
                config.score_threshold = threshold;
            }
            Box::new(SearchPlayer::new(spec.to_string(), ev, config, time, seed).with_batch(batch))
        }
        other => unreachable!("KNOWN_PLAYERS lists `{other}` but nothing builds it"),
    })
}

pub fn parse_num(
    spec: &PlayerSpec,
    key: &str,
    value: &str,
    min: u64,
    max: u64,
) -> Result<u64, PlayerSpecError> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: key.into(),
            value: value.into(),
            why: format!("expected a whole number from {min} to {max}"),
        }),
    }
}

/// The most threads a `net-mcts` player takes.
pub const MAX_THREADS: usize = 64;

/// Leaves a `net-mcts` player on `threads` threads evaluates at once when
/// its spec does not say: one per thread, each running its share alone
/// (`docs/strength.md`, method 5, has the measurements).
pub fn default_batch(threads: usize) -> usize {
    threads
}

/// `spec` with `threads=N` added where it names one of `players` that
/// takes `threads` and sets none: how `engine` and `serve` give their
/// players every core while the arena's stay on one. Other specs (external
/// programs, unparsable ones: the parser explains them later) come back
/// as they are.
///
/// ```
/// use yinsh_zero::arena::{players_of, with_default_threads};
/// use yinsh_zero::games::yinsh::Yinsh;
/// let t = |s| with_default_threads(s, 2, &players_of::<Yinsh>());
/// assert_eq!(t("net-mcts:checkpoint=c,time=100"), "net-mcts:checkpoint=c,time=100,threads=2");
/// assert_eq!(t("net-mcts:checkpoint=c,threads=1"), "net-mcts:checkpoint=c,threads=1");
/// assert_eq!(t("alphabeta:depth=3"), "alphabeta:depth=3");
/// ```
pub fn with_default_threads(spec: &str, threads: usize, players: &[PlayerInfo]) -> String {
    let Ok(mut parsed) = spec.parse::<PlayerSpec>() else {
        return spec.to_string();
    };
    if !add_default_threads(&mut parsed, threads, players) {
        return spec.to_string();
    }
    parsed.to_string()
}

/// [`with_default_threads`] on a parsed spec; whether it added the option.
pub fn add_default_threads(spec: &mut PlayerSpec, threads: usize, players: &[PlayerInfo]) -> bool {
    let takes_threads = players
        .iter()
        .any(|p| p.name == spec.name && p.keys.iter().any(|(k, _)| *k == "threads"));
    if !takes_threads || spec.get("threads").is_some() {
        return false;
    }
    let threads = threads.clamp(1, MAX_THREADS);
    spec.options.push(("threads".into(), threads.to_string()));
    true
}

/// The number of cores this process may use (1 where unknown).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The network a `net-*` spec names, on `threads` inference threads,
/// averaged over the board's symmetries where it asks for that.
fn load_net<G: Game>(
    game: &G,
    spec: &PlayerSpec,
    threads: usize,
) -> Result<Box<dyn Evaluator<G::State> + Send>, PlayerSpecError> {
    let net = load_checkpoint(game, spec, threads)?;
    let symmetric = match spec.get("symmetries") {
        Some(v) => parse_bool(spec, "symmetries", v)?,
        None => false,
    };
    Ok(if symmetric {
        Box::new(SymmetryAverage::new(game.clone(), net))
    } else {
        Box::new(net)
    })
}

fn load_checkpoint<G: Game>(
    game: &G,
    spec: &PlayerSpec,
    threads: usize,
) -> Result<crate::nn::NetEvaluator<G>, PlayerSpecError> {
    let Some(dir) = spec.get("checkpoint") else {
        return Err(PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: "checkpoint".into(),
            value: String::new(),
            why: "a checkpoint directory is required, e.g. checkpoint=runs/a/checkpoints/000012"
                .into(),
        });
    };
    let backend = match spec.get("backend") {
        None => crate::nn::BackendKind::Flex,
        Some(v) => v
            .parse()
            .map_err(|e: crate::nn::NnError| PlayerSpecError::BadValue {
                player: spec.name.clone(),
                key: "backend".into(),
                value: v.into(),
                why: e.to_string(),
            })?,
    };
    let options = crate::nn::InferenceOptions {
        threads: Some(threads),
        ..crate::nn::InferenceOptions::default()
    };
    let dir_path = std::path::Path::new(dir);
    crate::checkpoint::load_evaluator_with(game, dir_path, backend, options).map_err(|e| {
        PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: "checkpoint".into(),
            value: dir.into(),
            why: e.to_string(),
        }
    })
}

/// The score weight and threshold the spec's checkpoint (already loaded)
/// was trained with, checked as `score=` and `score_threshold=` options
/// would be.
fn trained_scoring(spec: &PlayerSpec) -> Result<(f32, f32), PlayerSpecError> {
    let dir = spec.get("checkpoint").unwrap_or_default();
    let bad = |why: String| PlayerSpecError::BadValue {
        player: spec.name.clone(),
        key: "checkpoint".into(),
        value: dir.into(),
        why,
    };
    let meta = crate::checkpoint::resolve(std::path::Path::new(dir))
        .and_then(|d| crate::checkpoint::read_meta(&d))
        .map_err(|e| bad(e.to_string()))?;
    let (w, t) = (meta.score_weight, meta.score_threshold);
    let probe = |c: SearchConfig| c.validate().is_ok();
    if !probe(SearchConfig {
        score_weight: w,
        ..SearchConfig::for_play()
    }) {
        return Err(bad(format!(
            "meta.json's score_weight {w} is not from 0 to 10"
        )));
    }
    if !probe(SearchConfig {
        score_threshold: t,
        ..SearchConfig::for_play()
    }) {
        return Err(bad(format!(
            "meta.json's score_threshold {t} is not from 0 to below 1"
        )));
    }
    Ok((w, t))
}

/// Sets a search option from `value`, its range being the search config's
/// own check (`validate`); either failure names the key and `range`.
fn set_search_f32(
    spec: &PlayerSpec,
    config: &mut SearchConfig,
    key: &str,
    value: &str,
    range: &str,
    set: impl FnOnce(&mut SearchConfig, f32),
) -> Result<(), PlayerSpecError> {
    let bad = || PlayerSpecError::BadValue {
        player: spec.name.clone(),
        key: key.into(),
        value: value.into(),
        why: format!("expected a number {range}"),
    };
    set(config, value.parse::<f32>().map_err(|_| bad())?);
    config.validate().map_err(|_| bad())
}

/// What a tuning key sets in the search's config.
type SetSearch = fn(&mut SearchConfig, f32);

/// A search option that must lie in `lo..=hi`, stated in its own error:
/// the tuning keys, whose sensible range is narrower than what
/// [`SearchConfig::validate`] accepts and which a web caller could
/// otherwise push to absurd sizes.
fn set_search_within(
    spec: &PlayerSpec,
    config: &mut SearchConfig,
    key: &str,
    value: &str,
    lo: f32,
    hi: f32,
    set: SetSearch,
) -> Result<(), PlayerSpecError> {
    let x = value
        .parse::<f32>()
        .ok()
        .filter(|x| (lo..=hi).contains(x))
        .ok_or_else(|| PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: key.into(),
            value: value.into(),
            why: format!("expected a number from {lo} to {hi}"),
        })?;
    set(config, x);
    Ok(())
}

fn parse_f32(spec: &PlayerSpec, key: &str, value: &str) -> Result<f32, PlayerSpecError> {
    match value.parse::<f32>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: key.into(),
            value: value.into(),
            why: "expected a positive number".into(),
        }),
    }
}

pub fn parse_bool(spec: &PlayerSpec, key: &str, value: &str) -> Result<bool, PlayerSpecError> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err(PlayerSpecError::BadValue {
            player: spec.name.clone(),
            key: key.into(),
            value: value.into(),
            why: "expected true or false".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        let s: PlayerSpec = " greedy ".parse().unwrap();
        assert_eq!(s.to_string(), "greedy");
        assert!(s.options.is_empty());
        let s: PlayerSpec = "mcts:sims=800, cpuct=1.5".parse().unwrap();
        assert_eq!(s.get("cpuct"), Some("1.5"));
        assert_eq!(s.to_string(), "mcts:sims=800,cpuct=1.5");
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let yinsh = crate::games::yinsh::Yinsh::standard();
        let e = |s: &str| parse_game_player(&yinsh, s, 0).err().expect(s).to_string();
        assert!(e("").contains("known players: random, greedy, alphabeta"));
        assert!(e("minimax:depth=3").contains("unknown player `minimax`"));
        assert!(e("alphabeta:depth=0").contains("from 1 to 64"));
        assert!(e("greedy:depth=3").contains("no option `depth`; it accepts: threats"));
        assert!(e("random:x=1").contains("accepts: no options"));
        assert!(e("greedy:threats").contains("not of the form key=value"));
        assert!(e("greedy:threats=maybe").contains("expected true or false"));
        assert!(e("greedy:threats=1,threats=0").contains("given twice"));
        for (option, range) in [
            ("threads=0", "from 1 to 64"),
            ("threads=65", "from 1 to 64"),
            ("threads=all", "from 1 to 64"),
            ("batch=0", "from 1 to 256"),
            ("batch=257", "from 1 to 256"),
            ("cpuct=-1", "from 0 to 10"),
            ("cpuct=11", "from 0 to 10"),
            ("fpu=3", "from 0 to 2"),
            ("root_fpu=NaN", "from 0 to 2"),
            ("policy_temp=0", "from 0.1 to 10"),
            ("policy_temp=hot", "from 0.1 to 10"),
        ] {
            let spec = format!("net-mcts:checkpoint=nowhere,{option}");
            let err = e(&spec);
            assert!(
                err.contains(&format!("option `{option}`")) && err.contains(range),
                "{err}"
            );
        }
        assert!(e("net-policy:checkpoint=nowhere,threads=2").contains("no option `threads`"));
        // Good values pass to the checkpoint, the last thing read.
        let err = e(
            "net-mcts:checkpoint=nowhere,threads=2,batch=3,cpuct=2,fpu=0.5,root_fpu=0.1,policy_temp=1.4",
        );
        assert!(err.contains("option `checkpoint=nowhere`"), "{err}");
        for draw in ["1.5", "-2", "NaN", "safe"] {
            let spec = format!("net-mcts:checkpoint=nowhere,draw={draw}");
            let err = e(&spec);
            assert!(
                err.contains("`draw=") && err.contains("from -1 to 1"),
                "{err}"
            );
        }
    }
}
