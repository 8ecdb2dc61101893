//! The text engine protocol (`docs/engine-protocol.md`): a server that lets
//! other programs and GUIs drive any of our players over stdin/stdout
//! ([`Engine`], [`serve`]), and a client that plays any program speaking
//! the protocol as a [`Player`] ([`ExternalPlayer`]).
//!
//! On the command line an external program is a player spec like any other:
//! `cmd:<command line>`, or any spec containing whitespace whose name is not
//! a known player (`"./my-engine --level 3"`). The command runs under
//! `sh -c`.
//!
//! ```
//! use yinsh_zero::engine::{ExternalConfig, build_game_player, is_external};
//! use yinsh_zero::games::yinsh::Yinsh;
//!
//! assert!(is_external::<Yinsh>("cmd:./my-engine"));
//! assert!(is_external::<Yinsh>("./my-engine --level 3"));
//! assert!(!is_external::<Yinsh>("alphabeta:depth=3,tt=16"));
//! let p = build_game_player(&Yinsh::standard(), "greedy", 1, &ExternalConfig::default()).unwrap();
//! assert_eq!(p.name(), "greedy");
//! ```

mod external;
mod server;

use std::time::Duration;

pub use external::{ExternalError, ExternalPlayer, GoLine, read_go_line};
pub use server::{Engine, Reply, serve};

use crate::arena::{GamePlayers, Player, PlayerSpec, parse_game_player, players_of};

/// How to talk to external programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalConfig {
    /// Longest wait for `bestmove` after `go`.
    pub move_timeout: Duration,
    /// Longest wait for `yinshok` after `yinsh` and `readyok` after `isready`.
    pub handshake_timeout: Duration,
    /// Arguments sent with every `go` (e.g. `sims 200`); empty lets the
    /// program use its own limits.
    pub go: String,
}

impl Default for ExternalConfig {
    fn default() -> Self {
        ExternalConfig {
            move_timeout: Duration::from_secs(30),
            handshake_timeout: Duration::from_secs(10),
            go: String::new(),
        }
    }
}

/// The command line of an external player spec of game `G`: `cmd:...`, or
/// a spec with white space whose name is none of `G`'s players.
pub fn external_command_of<G: GamePlayers>(spec: &str) -> Option<&str> {
    let spec = spec.trim();
    if let Some(cmd) = spec.strip_prefix("cmd:") {
        return Some(cmd.trim());
    }
    let name = spec
        .split(':')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let known = players_of::<G>().iter().any(|p| p.name == name);
    (!known && spec.contains(char::is_whitespace)).then_some(spec)
}

/// Whether `spec` names an external program (for game `G`, whose player
/// names are not programs).
pub fn is_external<G: GamePlayers>(spec: &str) -> bool {
    external_command_of::<G>(spec).is_some()
}

/// One spelling per player, so that results recorded under different
/// spellings (`Greedy`, `greedy `) count for the same player: internal
/// specs as [`PlayerSpec`] prints them, external ones as `cmd:<command>`.
///
/// ```
/// use yinsh_zero::engine::canonical_spec;
/// use yinsh_zero::games::yinsh::Yinsh;
/// assert_eq!(canonical_spec::<Yinsh>(" AlphaBeta:depth = 3"), "alphabeta:depth=3");
/// assert_eq!(canonical_spec::<Yinsh>("./e  --x"), "cmd:./e  --x");
/// ```
pub fn canonical_spec<G: GamePlayers>(spec: &str) -> String {
    if let Some(cmd) = external_command_of::<G>(spec) {
        return format!("cmd:{cmd}");
    }
    match spec.parse::<PlayerSpec>() {
        Ok(s) => s.to_string(),
        Err(_) => spec.trim().to_string(),
    }
}

/// Checks a spec of `game` without starting anything: internal specs are
/// parsed, external ones must name a command.
pub fn check_game_spec<G: GamePlayers>(game: &G, spec: &str) -> Result<(), String> {
    match external_command_of::<G>(spec) {
        Some("") => Err(format!("`{spec}`: no command after `cmd:`")),
        Some(_) => Ok(()),
        None => parse_game_player(game, spec, 0)
            .map(|_| ())
            .map_err(|e| e.to_string()),
    }
}

/// Builds the player of `game` of any spec: ours through
/// [`parse_game_player`], external programs through
/// [`ExternalPlayer::spawn_for`] (which starts the program and completes
/// the handshake).
pub fn build_game_player<G: GamePlayers>(
    game: &G,
    spec: &str,
    seed: u64,
    external: &ExternalConfig,
) -> Result<Box<dyn Player<G::State>>, String> {
    match external_command_of::<G>(spec) {
        Some(cmd) => ExternalPlayer::spawn_for(game.clone(), cmd, external.clone())
            .map(|p| Box::new(p) as Box<dyn Player<G::State>>)
            .map_err(|e| e.to_string()),
        None => parse_game_player(game, spec, seed).map_err(|e| e.to_string()),
    }
}
