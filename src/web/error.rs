//! Why a request about a game is refused, and the few things every
//! game's page shares: the human opponent, a spec's thinking time bounded
//! for the server, one value per colour, a game's outcome.

use std::time::Duration;

use serde::Serialize;

use super::offers::NotOffered;
use crate::arena::{GamePlayers, PlayerSpec, PlayerSpecError, players_of};
use crate::game::Color;

/// The opponent spec that means "no engine: both sides are played by hand".
pub const HUMAN: &str = "human";

/// Why a request about a game was refused. Each variant names the problem
/// in words a player can act on.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("bad opponent: {0}")]
    Opponent(#[from] PlayerSpecError),
    #[error(
        "opponent `{spec}` thinks {asked} ms per decision; this server allows at most {max} ms"
    )]
    ThinkTooLong { spec: String, asked: u64, max: u64 },
    #[error("opponent `{spec}`: option `time={value}` is not a whole number of milliseconds")]
    BadTime { spec: String, value: String },
    /// A spec that names a file, or a network or database the server does
    /// not offer ([`super::Offers`]).
    #[error("bad opponent: {0}")]
    NotOffered(#[from] NotOffered),
    /// An offered network or database that could not be loaded.
    #[error("{0}")]
    Unavailable(String),
    /// A request that cannot be understood (a Morris action that is no
    /// point name, an unknown variant).
    #[error("{0}")]
    BadRequest(String),
    /// A well-formed Morris action that the rules forbid here.
    #[error("{0}")]
    Illegal(String),
    #[error("the game is over")]
    GameOver,
    #[error("it is the engine's turn ({0} to act): ask the engine to move")]
    EngineToAct(Color),
    #[error("it is your turn ({0} to act): the engine has nothing to do")]
    HumanToAct(Color),
    #[error("this game has no engine opponent")]
    NoEngine,
    #[error("the engine is still thinking about this game")]
    EngineBusy,
    #[error("nothing to undo")]
    NothingToUndo,
    #[error("the engine `{spec}` chose `{action}`, which is not legal: {why}")]
    EngineBug {
        spec: String,
        action: String,
        why: String,
    },
}

/// `spec` with its thinking time bounded by `max`: specs of players that
/// take a `time` option get `time=max` unless they ask for less.
///
/// ```
/// use std::time::Duration;
/// use yinsh_zero::web::bounded_spec;
/// use yinsh_zero::games::yinsh::Yinsh;
/// let max = Duration::from_millis(500);
/// let b = |s| bounded_spec::<Yinsh>(s, max);
/// assert_eq!(b("alphabeta:depth=4").unwrap(), "alphabeta:depth=4,time=500");
/// assert_eq!(b("mcts-rollout:time=100").unwrap(), "mcts-rollout:time=100");
/// assert_eq!(b("random").unwrap(), "random");
/// assert!(b("alphabeta:time=9000").is_err());
/// ```
pub fn bounded_spec<G: GamePlayers>(spec: &str, max: Duration) -> Result<String, GameError> {
    let players = players_of::<G>();
    let mut parsed: PlayerSpec = spec.parse()?;
    let max_ms = max.as_millis() as u64;
    let takes_time = players
        .iter()
        .find(|p| p.name == parsed.name)
        .is_some_and(|p| p.keys.iter().any(|(k, _)| *k == "time"));
    if let Some(value) = parsed.get("time") {
        let asked: u64 = value.parse().map_err(|_| GameError::BadTime {
            spec: spec.to_string(),
            value: value.to_string(),
        })?;
        if asked > max_ms {
            return Err(GameError::ThinkTooLong {
                spec: spec.to_string(),
                asked,
                max: max_ms,
            });
        }
    } else if takes_time {
        parsed.options.push(("time".into(), max_ms.to_string()));
    }
    for &(key, most) in WEB_LIMITS {
        if let Some(value) = parsed.get(key)
            && value.parse::<u64>().is_ok_and(|v| v > most)
        {
            return Err(GameError::BadRequest(format!(
                "opponent: option `{key}` may be at most {most} on this server"
            )));
        }
    }
    Ok(parsed.to_string())
}

/// Options that size what a player allocates, with the most a request may
/// ask: `alphabeta:tt=28` is a 4 GiB table, per game, and the server keeps
/// up to a thousand games. 20 bits is a 16 MiB table.
const WEB_LIMITS: &[(&str, u64)] = &[("tt", 20)];

/// One value per colour, as `{"white": .., "black": ..}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ByColour<T> {
    pub white: T,
    pub black: T,
}

#[derive(Clone, Debug, Serialize)]
pub struct OutcomeView {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: &'static str,
    /// E.g. "white wins (three rings)".
    pub text: String,
}
