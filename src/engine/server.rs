//! The protocol server: one player, one game at a time, driven line by line.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use crate::arena::{GamePlayers, MoveInfo, Player, PlayerSpec, parse_game_player, players_of};
use crate::game::{ActionOf, State};
use crate::util::sub_seed;

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

/// The state of the engine: which player, which game and variant, where
/// in it.
///
/// ```
/// use yinsh_zero::engine::Engine;
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let mut e = Engine::for_game(Yinsh::standard(), "greedy", 1).unwrap();
/// assert_eq!(e.handle("yinsh").lines.last().unwrap(), "yinshok");
/// assert!(e.handle("position startpos moves e3 f6").lines.is_empty());
/// let reply = e.handle("go");
/// let best = reply.lines.last().unwrap();
/// assert!(best.starts_with("bestmove "), "{best}");
/// assert!(e.handle("play zz").lines[0].starts_with("error "));
/// assert!(e.handle("quit").quit);
/// ```
pub struct Engine<G: GamePlayers> {
    /// The variant `newgame` without one starts.
    first: G,
    game: G,
    spec: PlayerSpec,
    seed: u64,
    builds: u64,
    player: Box<dyn Player<G::State>>,
    start: G::State,
    actions: Vec<ActionOf<G>>,
    pos: G::State,
}

impl<G: GamePlayers> Engine<G> {
    /// An engine for `game` playing `spec` (any spec
    /// [`parse_game_player`] knows for it), its randomness seeded with `seed`.
    pub fn for_game(game: G, spec: &str, seed: u64) -> Result<Engine<G>, String> {
        let parsed: PlayerSpec = spec.parse().map_err(|e| format!("{e}"))?;
        let player = parse_game_player(&game, spec, seed).map_err(|e| e.to_string())?;
        let start = game.start();
        let mut e = Engine {
            first: game.clone(),
            game,
            spec: parsed,
            seed,
            builds: 1,
            player,
            pos: start.clone(),
            start,
            actions: Vec::new(),
        };
        e.player.new_game(&e.start);
        Ok(e)
    }

    /// The current position.
    pub fn position(&self) -> &G::State {
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
            "game" => self.game_cmd(&rest),
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
                "unknown command `{other}`; known: yinsh, isready, game, newgame, position, play, go, d, quit"
            )),
        }
    }

    /// `game`: which game and variant this engine plays. `game <name>
    /// [variant]`: a new game of `name` (which must be this engine's game;
    /// another needs `engine --game <name>`).
    fn game_cmd(&mut self, args: &[&str]) -> Reply {
        match args {
            [] => Reply::lines(vec![format!("game {} {}", G::NAME, self.game.variant())]),
            [name, variant @ ..] if *name == G::NAME && variant.len() <= 1 => self.newgame(variant),
            [name, ..] if *name != G::NAME => Reply::error(format!(
                "`game {}`: this engine plays {}; start `yinsh-zero engine --game {name}` for another game",
                args.join(" "),
                G::NAME
            )),
            _ => Reply::error(format!(
                "`game {}`: expected `game` or `game {} [variant]`",
                args.join(" "),
                G::NAME
            )),
        }
    }

    fn newgame(&mut self, args: &[&str]) -> Reply {
        let game = match args {
            [] => self.first.clone(),
            [variant] => match G::with_variant(variant) {
                Ok(g) => g,
                Err(e) => return Reply::error(format!("`newgame {variant}`: {e}")),
            },
            _ => {
                return Reply::error(format!(
                    "`newgame {}`: expected `newgame` or `newgame <variant>`",
                    args.join(" ")
                ));
            }
        };
        self.start = game.start();
        self.game = game;
        self.actions.clear();
        self.pos = self.start.clone();
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
        let actions = match self.game.parse_game(&self.start, &text) {
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
            self.pos = self.start.clone();
            self.player.new_game(&self.start);
            for a in actions {
                self.apply(a);
            }
        }
        Reply::none()
    }

    fn apply(&mut self, a: ActionOf<G>) {
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
        match self.game.parse_action(&self.pos, text) {
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
        let mut special: Option<Box<dyn Player<G::State>>> = None;
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
        let player: &mut dyn Player<G::State> = match &mut special {
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
    fn with_limit(&mut self, key: &str, value: &str) -> Result<Box<dyn Player<G::State>>, String> {
        let players = players_of::<G>();
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
        let mut p = parse_game_player(
            &self.game,
            &spec.to_string(),
            sub_seed(self.seed, self.builds),
        )
        .map_err(|e| format!("`go {key} {value}`: {e}"))?;
        p.new_game(&self.start);
        let mut pos = self.start.clone();
        for &a in &self.actions {
            p.observe(&pos, a);
            pos.play_unchecked(a);
        }
        Ok(p)
    }

    fn display(&self) -> Reply {
        let mut lines: Vec<String> = self.pos.to_string().lines().map(String::from).collect();
        lines.push(format!("variant {}", self.game.variant()));
        lines.push(format!(
            "moves {}",
            self.game.format_game(&self.start, &self.actions)
        ));
        Reply::lines(lines)
    }
}

/// `info [depth D] [nodes N] [evaluations E] [value V] [score S] time MS pv
/// <decisions...>`.
fn info_line<S: State>(
    info: &Option<MoveInfo<S::Action>>,
    pos: &S,
    action: S::Action,
    millis: u128,
) -> String {
    let mut s = String::from("info");
    let mut pv: Vec<S::Action> = vec![action];
    if let Some(i) = info {
        if let Some(d) = i.depth {
            s += &format!(" depth {d}");
        }
        if let Some(n) = i.nodes {
            s += &format!(" nodes {n}");
        }
        if let Some(e) = i.evaluations {
            s += &format!(" evaluations {e}");
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
            let mut p = pos.clone();
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
pub fn serve<G: GamePlayers>(
    input: impl BufRead,
    mut output: impl Write,
    engine: &mut Engine<G>,
) -> io::Result<()> {
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
