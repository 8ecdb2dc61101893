//! The protocol server: one player, one game at a time, driven line by line.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use crate::eval::{MoveInfo, Player, PlayerSpec, parse_player, players_of};
use crate::util::sub_seed;
use crate::yinsh::notation::{format_game, parse_action, parse_game};
use crate::yinsh::{Action, Position, Variant};

/// What the server says back to one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Lines to print, in order, without newlines.
    pub lines: Vec<String>,
    /// `quit` was received: stop reading.
    pub quit: bool,
}

impl Reply {
    fn lines(lines: Vec<String>) -> Reply {
        Reply { lines, quit: false }
    }
    fn none() -> Reply {
        Reply::lines(Vec::new())
    }
    fn error(message: impl std::fmt::Display) -> Reply {
        Reply::lines(vec![format!("error {message}")])
    }
}

/// The state of the engine: which player, which game, where in it.
///
/// ```
/// use yinsh_zero::engine::Engine;
///
/// let mut e = Engine::new("greedy", 1).unwrap();
/// assert_eq!(e.handle("yinsh").lines.last().unwrap(), "yinshok");
/// assert!(e.handle("position startpos moves e3 f6").lines.is_empty());
/// let reply = e.handle("go");
/// let best = reply.lines.last().unwrap();
/// assert!(best.starts_with("bestmove "), "{best}");
/// assert!(e.handle("play zz").lines[0].starts_with("error "));
/// assert!(e.handle("quit").quit);
/// ```
pub struct Engine {
    spec: PlayerSpec,
    seed: u64,
    builds: u64,
    player: Box<dyn Player<Position>>,
    start: Position,
    actions: Vec<Action>,
    pos: Position,
}

impl Engine {
    /// An engine playing `spec` (any spec [`parse_player`] knows), its
    /// randomness seeded with `seed`.
    pub fn new(spec: &str, seed: u64) -> Result<Engine, String> {
        let parsed: PlayerSpec = spec.parse().map_err(|e| format!("{e}"))?;
        let player = parse_player(spec, seed).map_err(|e| e.to_string())?;
        let start = Position::new();
        let mut e = Engine {
            spec: parsed,
            seed,
            builds: 1,
            player,
            start,
            actions: Vec::new(),
            pos: start,
        };
        e.player.new_game(&e.start);
        Ok(e)
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Handles one command line (see `docs/engine-protocol.md`). Never
    /// panics on bad input: problems come back as `error ...` lines.
    pub fn handle(&mut self, line: &str) -> Reply {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return Reply::none();
        };
        let rest: Vec<&str> = words.collect();
        match command {
            "yinsh" => Reply::lines(vec![
                format!("id name yinsh-zero {}", env!("CARGO_PKG_VERSION")),
                "id author the yinsh-zero developers".into(),
                format!("id player {}", self.spec),
                "yinshok".into(),
            ]),
            "isready" => Reply::lines(vec!["readyok".into()]),
            "newgame" => self.newgame(&rest),
            "position" => self.position_cmd(&rest),
            "play" => self.play(&rest),
            "go" => self.go(&rest),
            "d" => self.display(),
            "quit" => Reply {
                lines: Vec::new(),
                quit: true,
            },
            other => Reply::error(format!(
                "unknown command `{other}`; known: yinsh, isready, newgame, position, play, go, d, quit"
            )),
        }
    }

    fn newgame(&mut self, args: &[&str]) -> Reply {
        let variant = match args {
            [] | ["standard"] => Variant::STANDARD,
            ["blitz"] => Variant::BLITZ,
            _ => {
                return Reply::error(format!(
                    "`newgame {}`: expected `newgame`, `newgame standard` or `newgame blitz`",
                    args.join(" ")
                ));
            }
        };
        self.start = Position::with_variant(variant);
        self.actions.clear();
        self.pos = self.start;
        self.player.new_game(&self.start);
        Reply::none()
    }

    fn position_cmd(&mut self, args: &[&str]) -> Reply {
        let usage = "expected `position startpos [moves <turn> <turn> ...]`";
        let moves = match args {
            ["startpos"] => &[][..],
            ["startpos", "moves", moves @ ..] => moves,
            _ => return Reply::error(format!("`position {}`: {usage}", args.join(" "))),
        };
        let text = moves.join(" ");
        let actions = match parse_game(&self.start, &text) {
            Ok(a) => a,
            Err(e) => return Reply::error(format!("position not set: {e}")),
        };
        if actions.starts_with(&self.actions) {
            // The same game, further on: the player follows only the new
            // decisions and keeps what it learned (a search tree).
            for &a in &actions[self.actions.len()..] {
                self.apply(a);
            }
        } else {
            self.actions.clear();
            self.pos = self.start;
            self.player.new_game(&self.start);
            for a in actions {
                self.apply(a);
            }
        }
        Reply::none()
    }

    fn apply(&mut self, a: Action) {
        self.player.observe(&self.pos, a);
        self.pos.play_unchecked(a);
        self.actions.push(a);
    }

    fn play(&mut self, args: &[&str]) -> Reply {
        let [text] = args else {
            return Reply::error("expected `play <decision>`, e.g. `play e3` or `play xg5-g9`");
        };
        if self.pos.is_over() {
            return Reply::error(format!("`play {text}`: the game is over"));
        }
        match parse_action(&self.pos, text) {
            Ok(a) => {
                self.apply(a);
                Reply::none()
            }
            Err(e) => Reply::error(format!("`play {text}`: {e}")),
        }
    }

    fn go(&mut self, args: &[&str]) -> Reply {
        if self.pos.is_over() {
            return Reply::error("`go`: the game is over");
        }
        let mut lines = Vec::new();
        // A limit on `go` builds a player with that option (following the
        // game so far); the engine's own player keeps its tree for plain `go`.
        let mut special: Option<Box<dyn Player<Position>>> = None;
        match args {
            [] => {}
            [key, value] => match self.with_limit(key, value) {
                Ok(p) => special = Some(p),
                Err(e) => lines.push(format!("error {e}; searching with the player's own limits")),
            },
            _ => lines.push(format!(
                "error `go {}`: expected `go`, `go sims N`, `go time MS` or `go depth D`; \
                 searching with the player's own limits",
                args.join(" ")
            )),
        }
        let clock = Instant::now();
        let player: &mut dyn Player<Position> = match &mut special {
            Some(p) => p.as_mut(),
            None => self.player.as_mut(),
        };
        let action = match player.try_choose(&self.pos) {
            Ok(a) => a,
            Err(e) => {
                lines.push(format!("error the player failed: {e}"));
                return Reply::lines(lines);
            }
        };
        if !self.pos.is_legal(action) {
            lines.push(format!(
                "error the player chose the illegal decision `{action}`"
            ));
            return Reply::lines(lines);
        }
        let info = player.info();
        lines.push(info_line(
            &info,
            &self.pos,
            action,
            clock.elapsed().as_millis(),
        ));
        lines.push(format!("bestmove {action}"));
        Reply::lines(lines)
    }

    /// A fresh player with one limit changed, caught up with the game.
    fn with_limit(&mut self, key: &str, value: &str) -> Result<Box<dyn Player<Position>>, String> {
        let players = players_of::<crate::yinsh::Yinsh>();
        let info = players
            .iter()
            .find(|p| p.name == self.spec.name)
            .ok_or_else(|| format!("player `{}` takes no limits", self.spec.name))?;
        let accepts = |k: &str| info.keys.iter().any(|(known, _)| *known == k);
        let option = match key {
            "sims" => ["sims", "playouts"].into_iter().find(|k| accepts(k)),
            "time" | "depth" => Some(key).filter(|k| accepts(k)),
            _ => {
                return Err(format!(
                    "`go {key} {value}`: unknown limit `{key}` (sims, time or depth)"
                ));
            }
        }
        .ok_or_else(|| {
            format!(
                "`go {key} {value}`: player `{}` has no such limit",
                self.spec.name
            )
        })?;
        let mut spec = self.spec.clone();
        spec.options.retain(|(k, _)| k != option);
        spec.options.push((option.to_string(), value.to_string()));
        self.builds += 1;
        let mut p = parse_player(&spec.to_string(), sub_seed(self.seed, self.builds))
            .map_err(|e| format!("`go {key} {value}`: {e}"))?;
        p.new_game(&self.start);
        let mut pos = self.start;
        for &a in &self.actions {
            p.observe(&pos, a);
            pos.play_unchecked(a);
        }
        Ok(p)
    }

    fn display(&self) -> Reply {
        let mut lines: Vec<String> = self.pos.to_string().lines().map(String::from).collect();
        lines.push(format!(
            "variant {}",
            if self.start.variant() == Variant::BLITZ {
                "blitz"
            } else {
                "standard"
            }
        ));
        lines.push(format!("moves {}", format_game(&self.start, &self.actions)));
        Reply::lines(lines)
    }
}

/// `info [depth D] [nodes N] [value V] [score S] time MS pv <decisions...>`.
fn info_line(
    info: &Option<MoveInfo<Action>>,
    pos: &Position,
    action: Action,
    millis: u128,
) -> String {
    let mut s = String::from("info");
    let mut pv: Vec<Action> = vec![action];
    if let Some(i) = info {
        if let Some(d) = i.depth {
            s += &format!(" depth {d}");
        }
        if let Some(n) = i.nodes {
            s += &format!(" nodes {n}");
        }
        if let Some(v) = i.value {
            s += &format!(" value {v:.3}");
        }
        if let Some(sc) = i.score {
            s += &format!(" score {sc}");
        }
        if i.pv.first() == Some(&action) {
            // Keep the legal prefix only: a principal variation from a hash
            // table may run into a stale entry.
            let mut p = *pos;
            pv.clear();
            for &a in &i.pv {
                if p.is_over() || p.play(a).is_err() {
                    break;
                }
                pv.push(a);
            }
        }
    }
    s += &format!(" time {millis} pv");
    for a in pv {
        s += &format!(" {a}");
    }
    s
}

/// Runs the protocol on `input`/`output` until `quit` or the end of input.
/// Output is flushed after every reply, as a driving program waits for it.
pub fn serve(input: impl BufRead, mut output: impl Write, engine: &mut Engine) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        let reply = engine.handle(line.trim());
        for l in &reply.lines {
            writeln!(output, "{l}")?;
        }
        output.flush()?;
        if reply.quit {
            break;
        }
    }
    Ok(())
}
