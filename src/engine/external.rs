//! The protocol client: an external program as a [`Player`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::ExternalConfig;
use crate::arena::{MoveInfo, Player, PlayerFailure};
use crate::game::{ActionOf, Game, State};
use crate::games::GAMES;

/// Why an external program could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    #[error("cannot start `{command}`: {error}")]
    Spawn {
        command: String,
        error: std::io::Error,
    },
    #[error("engine `{command}`: {why}")]
    Protocol { command: String, why: String },
}

/// An external program speaking the engine protocol, as a [`Player`].
///
/// The program is started with `sh -c`, greeted with `yinsh` and must
/// answer `yinshok`. Then it is told the game (`game <name>`) and asked
/// which it plays (`game`, then `isready`): a program that answers with
/// another game is refused by name, and one that does not answer `game`
/// is taken to play the registry's home game, the first in
/// [`GAMES`] (engines from before the `game` line played it). For each
/// game it gets `newgame <variant>` and `isready`; for each decision the
/// whole game so far (`position startpos moves ...`) and `go`, and must
/// answer `bestmove <decision>` within [`ExternalConfig::move_timeout`].
/// Lines it prints that the protocol does not expect are ignored; `info`
/// lines are kept for [`Player::info`].
///
/// A crash, a timeout or a broken answer makes [`Player::try_choose`]
/// fail with a message that says what happened (with the last lines the
/// program wrote to stderr); the player then stays failed. The program is
/// killed when the player is dropped.
pub struct ExternalPlayer<G: Game> {
    game: G,
    command: String,
    config: ExternalConfig,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// `id name` from the handshake.
    id_name: Option<String>,
    start: G::State,
    actions: Vec<ActionOf<G>>,
    failed: Option<PlayerFailure>,
    last_info: Option<MoveInfo<ActionOf<G>>>,
}

/// What waiting for a line found.
enum Wait {
    Line(String),
    Timeout,
    Exited,
}

impl<G: Game> ExternalPlayer<G> {
    /// Starts `command`, an engine for `game` (any of its variants), and
    /// completes the handshake.
    pub fn spawn_for(
        game: G,
        command: &str,
        config: ExternalConfig,
    ) -> Result<Self, ExternalError> {
        // `exec` lets the program replace the shell, so that killing the
        // child kills the program itself; compound commands keep the shell.
        let plain = !command.contains([';', '&', '|', '<', '>', '(', ')', '$', '`', '\n']);
        let script = if plain {
            format!("exec {command}")
        } else {
            command.to_string()
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| ExternalError::Spawn {
                command: command.into(),
                error,
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        // Reader threads end when the program closes its pipes (it exits or
        // is killed), so none outlives the program for long.
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut t) = tail.lock() {
                    if t.len() == 5 {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        let mut p = ExternalPlayer {
            start: game.start(),
            game,
            command: command.into(),
            config,
            child,
            stdin,
            lines,
            stderr_tail,
            id_name: None,
            actions: Vec::new(),
            failed: None,
            last_info: None,
        };
        let timeout = p.config.handshake_timeout;
        p.send("yinsh")
            .and_then(|()| {
                p.expect(timeout, "the handshake (`yinsh`)", |p, line| {
                    if let Some(name) = line.strip_prefix("id name ") {
                        p.id_name = Some(name.trim().to_string());
                    }
                    Ok((line == "yinshok").then_some(()))
                })
            })
            .and_then(|()| p.choose_game())
            .map_err(|why| ExternalError::Protocol {
                command: command.into(),
                why,
            })?;
        Ok(p)
    }

    /// After the handshake: `game <name>` picks our game, `game` asks which
    /// game the program plays and `isready` bounds the wait. A program that
    /// names another game is refused. One that names none (it predates the
    /// `game` line, which the handshake does not require) is taken as an
    /// engine for the home game (the registry's first): accepted for it,
    /// refused for any other.
    fn choose_game(&mut self) -> Result<(), String> {
        let timeout = self.config.handshake_timeout;
        self.send(&format!("game {}", G::NAME))?;
        self.send("game")?;
        self.send("isready")?;
        let mut named = None;
        let mut said_error = None;
        self.expect(timeout, "`game` and `isready`", |_, line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("game") if named.is_none() => named = words.next().map(str::to_string),
                Some("error") if said_error.is_none() => said_error = Some(line.to_string()),
                _ => {}
            }
            Ok((line == "readyok").then_some(()))
        })?;
        let (ours, home) = (G::NAME, GAMES[0]);
        let plays = match named {
            Some(name) => name,
            None if ours == home => return Ok(()),
            None => {
                return Err(format!(
                    "it does not answer `game` with the game it plays (`game <name> <variant>`{}), \
                     so it is taken to be a {home} engine, not one for {ours}",
                    said_error
                        .map(|e| format!("; it said `{e}`"))
                        .unwrap_or_default(),
                ));
            }
        };
        if plays != ours {
            return Err(format!(
                "it plays {plays}, not {ours}: start an engine for {ours} (ours: \
                 `yinsh-zero engine --game {ours}`)"
            ));
        }
        Ok(())
    }

    /// The name the program gave in the handshake (`id name ...`).
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot send `{line}`: {e}{}", self.exit_report()))
    }

    fn wait_line(&mut self, deadline: Instant) -> Wait {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Wait::Line(l),
            Err(RecvTimeoutError::Timeout) => Wait::Timeout,
            Err(RecvTimeoutError::Disconnected) => Wait::Exited,
        }
    }

    /// Reads lines until `accept` returns a value, for at most `timeout`.
    fn expect<T>(
        &mut self,
        timeout: Duration,
        what: &str,
        mut accept: impl FnMut(&mut Self, &str) -> Result<Option<T>, String>,
    ) -> Result<T, String> {
        let deadline = Instant::now() + timeout;
        let mut last_error: Option<String> = None;
        loop {
            match self.wait_line(deadline) {
                Wait::Line(line) => {
                    let line = line.trim().to_string();
                    if line.starts_with("error") {
                        last_error = Some(line.clone());
                    }
                    if let Some(v) = accept(self, &line)? {
                        return Ok(v);
                    }
                }
                Wait::Timeout => {
                    return Err(format!(
                        "no answer to {what} within {:.1} s{}{}",
                        timeout.as_secs_f64(),
                        last_error
                            .map(|e| format!(" (it said `{e}`)"))
                            .unwrap_or_default(),
                        self.stderr_report()
                    ));
                }
                Wait::Exited => {
                    return Err(format!(
                        "it closed its output during {what}{}",
                        self.exit_report()
                    ));
                }
            }
        }
    }

    fn stderr_report(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ends: {tail}")
        }
    }

    fn exit_report(&mut self) -> String {
        // Give a program that is exiting a moment to be reaped, so the
        // report can say how it ended.
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                // And the stderr reader a moment to take its last lines.
                thread::sleep(Duration::from_millis(20));
                break;
            }
            thread::sleep(Duration::from_millis(2));
        }
        let how = match status {
            Some(s) => format!(" (it exited: {s})"),
            None => String::new(),
        };
        format!("{how}{}", self.stderr_report())
    }

    fn fail(&mut self, why: String) -> PlayerFailure {
        let f = PlayerFailure(format!("engine `{}`: {why}", self.command));
        self.failed = Some(f.clone());
        f
    }

    fn ask(&mut self, pos: &G::State) -> Result<ActionOf<G>, String> {
        let moves = self.game.format_game(&self.start, &self.actions);
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {moves}")
        };
        self.send(&position)?;
        let go = if self.config.go.is_empty() {
            "go".to_string()
        } else {
            format!("go {}", self.config.go)
        };
        self.send(&go)?;
        let timeout = self.config.move_timeout;
        let mut info = None;
        let action = self.expect(timeout, "`go`", |p, line| {
            match read_go_line(&p.game, pos, line) {
                Ok(GoLine::Info(i)) => {
                    info = Some(i);
                    Ok(None)
                }
                Ok(GoLine::BestMove(a)) => Ok(Some(a)),
                Ok(GoLine::Other) => Ok(None),
                Err(e) => Err(format!(
                    "answered `{line}` after `{position}`, which is not a legal decision: {e}"
                )),
            }
        })?;
        self.last_info = info;
        Ok(action)
    }
}

/// What one line of a program's answer to `go` says.
#[derive(Clone, Debug, PartialEq)]
pub enum GoLine<A> {
    /// `info ...`: the fields we understand ([`MoveInfo`]).
    Info(MoveInfo<A>),
    /// `bestmove <decision>`, the decision legal where `go` was asked.
    BestMove(A),
    /// Anything else, which the protocol lets a program print and we ignore.
    Other,
}

/// Reads one line (surrounding white space aside) that a program wrote
/// after `go` at `pos`; the error says why a `bestmove` is not a legal
/// decision there. The protocol client's whole reading of a program's
/// answer to `go` (tests/it/fuzz_targets.rs feeds it arbitrary lines).
///
/// ```
/// use yinsh_zero::engine::{GoLine, read_go_line};
/// use yinsh_zero::game::Game;
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let game = Yinsh::standard();
/// let start = game.start();
/// assert!(matches!(read_go_line(&game, &start, "bestmove e3"), Ok(GoLine::BestMove(_))));
/// assert!(read_go_line(&game, &start, "bestmove z99").is_err());
/// let Ok(GoLine::Info(info)) = read_go_line(&game, &start, "info depth 3 pv e3 f6") else {
///     panic!("an info line");
/// };
/// assert_eq!((info.depth, info.pv.len()), (Some(3), 2));
/// let line = "info nodes 520 evaluations 97 time 100 pv e3";
/// let Ok(GoLine::Info(info)) = read_go_line(&game, &start, line) else {
///     panic!("an info line");
/// };
/// assert_eq!((info.nodes, info.evaluations), (Some(520), Some(97)));
/// assert_eq!(read_go_line(&game, &start, "readyok"), Ok(GoLine::Other));
/// ```
pub fn read_go_line<G: Game>(
    game: &G,
    pos: &G::State,
    line: &str,
) -> Result<GoLine<ActionOf<G>>, String> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("info") {
        return Ok(GoLine::Info(parse_info(game, pos, rest)));
    }
    let Some(text) = line.strip_prefix("bestmove") else {
        return Ok(GoLine::Other);
    };
    game.parse_action(pos, text.trim()).map(GoLine::BestMove)
}

/// Reads the fields of an `info` line we understand; others are skipped.
fn parse_info<G: Game>(game: &G, pos: &G::State, rest: &str) -> MoveInfo<ActionOf<G>> {
    let mut info = MoveInfo::default();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let next = words.get(i + 1).copied().unwrap_or("");
        match words[i] {
            "value" => info.value = next.parse().ok(),
            "score" => info.score = next.parse().ok(),
            "depth" => info.depth = next.parse().ok(),
            "nodes" => info.nodes = next.parse().ok(),
            "evaluations" => info.evaluations = next.parse().ok(),
            "pv" => {
                let mut p = pos.clone();
                for w in &words[i + 1..] {
                    match game.parse_action(&p, w) {
                        Ok(a) => {
                            p.play_unchecked(a);
                            info.pv.push(a);
                        }
                        Err(_) => break,
                    }
                }
                break;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    info
}

impl<G: Game> Player<G::State> for ExternalPlayer<G> {
    fn name(&self) -> String {
        format!("cmd:{}", self.command)
    }

    /// Prefer [`Player::try_choose`]: this one cannot report a failure,
    /// and answers with the first legal decision instead (the failure is
    /// kept and every later `try_choose` returns it).
    fn choose(&mut self, pos: &G::State) -> ActionOf<G> {
        match self.try_choose(pos) {
            Ok(a) => a,
            Err(_) => pos.legal_actions()[0],
        }
    }

    fn try_choose(&mut self, pos: &G::State) -> Result<ActionOf<G>, PlayerFailure> {
        if let Some(f) = &self.failed {
            return Err(f.clone());
        }
        let mut replay = self.start.clone();
        for &a in &self.actions {
            replay.play_unchecked(a);
        }
        if replay != *pos {
            return Err(self.fail(
                "asked to play a position it was not shown: the game must start from the \
                 initial position and every decision must be observed"
                    .into(),
            ));
        }
        self.ask(pos).map_err(|why| self.fail(why))
    }

    fn info(&self) -> Option<MoveInfo<ActionOf<G>>> {
        self.last_info.clone()
    }

    fn new_game(&mut self, start: &G::State) {
        self.actions.clear();
        self.start = start.clone();
        self.last_info = None;
        if self.failed.is_some() {
            return;
        }
        // The protocol names a variant, so the game must begin at one's start.
        let Some(game) = G::VARIANTS
            .iter()
            .filter_map(|v| G::with_variant(v).ok())
            .find(|g| g.start() == *start)
        else {
            self.fail("cannot be given a game that does not begin at a start position".into());
            return;
        };
        // Named even when it is the usual one: a plain `newgame` starts
        // whatever variant the program was started with.
        let newgame = format!("newgame {}", game.variant());
        self.game = game;
        let timeout = self.config.handshake_timeout;
        let ready = self
            .send(&newgame)
            .and_then(|()| self.send("isready"))
            .and_then(|()| {
                self.expect(timeout, "`isready`", |_, line| {
                    Ok((line == "readyok").then_some(()))
                })
            });
        if let Err(why) = ready {
            self.fail(why);
        }
    }

    fn observe(&mut self, _pos_before: &G::State, action: ActionOf<G>) {
        self.actions.push(action);
    }
}

impl<G: Game> Drop for ExternalPlayer<G> {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // A polite moment to quit, then no more waiting.
        for _ in 0..25 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
