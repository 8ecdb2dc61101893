//! What a caller over the network may name: the networks and databases the
//! server offers, each under a name it chose at start.
//!
//! A player spec that arrives in a request never names a path. Options that
//! open a file ([`crate::arena::FILE_KEYS`]: `checkpoint`, `db`) are refused
//! as the caller wrote them; a caller names an offered network with
//! `net=NAME` and an offered database with `db=NAME`, and only here are the
//! names turned into the paths the players open. Every game's new-game
//! request goes through [`Offers::resolve`] (the engine seat calls it), so
//! a game added later cannot forget to.
//!
//! ```
//! use yinsh_zero::web::Offers;
//! let offers = Offers::default();
//! let err = offers.resolve("net-mcts:checkpoint=/etc/passwd", "yinsh", "standard").unwrap_err();
//! assert!(!err.to_string().contains("/etc/passwd"), "{err}");
//! let err = offers.resolve("net-mcts:checkpoint=best", "yinsh", "standard").unwrap_err();
//! assert!(err.to_string().contains("names a file"), "{err}");
//! assert_eq!(offers.resolve("alphabeta:depth=2", "yinsh", "standard").unwrap().spec, "alphabeta:depth=2");
//! ```

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::arena::{FILE_KEYS, KNOWN_PLAYERS, PlayerSpec, add_default_threads};
use crate::checkpoint;

/// The option a caller names an offered network with.
pub const NET_KEY: &str = "net";

/// Longest player spec a request may carry: every real spec is far
/// shorter, and a long one is only ever an attack on a parser.
pub const MAX_SPEC_CHARS: usize = 300;

/// A network the server offers.
#[derive(Clone, Debug, Serialize)]
pub struct OfferedNetwork {
    /// What a caller writes: `net-mcts:net=NAME`.
    pub name: String,
    /// The game and variant it was trained on (from its `meta.json`).
    pub game: String,
    pub variant: String,
    #[serde(skip)]
    dir: PathBuf,
}

/// A perfect-play database the server offers.
#[derive(Clone, Debug, Serialize)]
pub struct OfferedDatabase {
    /// What a caller writes: `perfect:db=NAME`.
    pub name: String,
    pub game: String,
    pub variant: String,
    #[serde(skip)]
    dir: PathBuf,
}

/// Everything the server offers by name.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Offers {
    networks: Vec<OfferedNetwork>,
    databases: Vec<OfferedDatabase>,
    /// Threads a resolved player that takes `threads` gets when its spec
    /// sets none, and the most a spec may ask; 0 (the default) leaves
    /// specs as they are, and a spec may ask for one thread.
    #[serde(skip)]
    threads: usize,
}

/// Why an offer could not be added (at start, from the operator's own
/// command line: these errors may name paths).
#[derive(Debug, thiserror::Error)]
pub enum OfferError {
    #[error("offer name `{0}`: use letters, digits, `-`, `_` and `.` (at most 64)")]
    BadName(String),
    #[error("two offers are named `{0}`: give one of them another name (NAME=DIR)")]
    Duplicate(String),
    #[error("{0}")]
    Checkpoint(#[from] checkpoint::CheckpointError),
}

/// A spec a caller sent, refused before anything of the file system was
/// touched for it. Its text names no path (only the offered names).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotOffered(String);

/// A caller's spec made ready to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The spec with offered names turned into paths: for the server's own
    /// use, never shown.
    pub spec: String,
    /// Whether building it opens an offered file (so its errors may name
    /// a path and are not passed on).
    pub opens_files: bool,
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Offers {
    /// The networks this project ships under `checkpoints`
    /// ([`checkpoint::shipped`]): the YINSH network as `shipped`, the others
    /// under their folders' names (`six-mens-morris`, `grid`, ...).
    pub fn shipped(checkpoints: &Path) -> Offers {
        let mut offers = Offers::default();
        for net in checkpoint::shipped(checkpoints) {
            let _ = offers.offer_network(&net.name, net.dir, net.meta);
        }
        offers
    }

    /// Offers the checkpoint (or checkpoint folder, read through its `best`
    /// each time it is used) `dir` under `name`.
    pub fn add_network(&mut self, name: &str, dir: &Path) -> Result<(), OfferError> {
        self.check_network_name(name)?;
        let meta = checkpoint::read_meta(&checkpoint::resolve(dir)?)?;
        self.offer_network(name, dir.to_path_buf(), meta)
    }

    /// A name no network has yet, of the characters offers take.
    fn check_network_name(&self, name: &str) -> Result<(), OfferError> {
        if !valid_name(name) {
            return Err(OfferError::BadName(name.into()));
        }
        if self.has(name) {
            return Err(OfferError::Duplicate(name.into()));
        }
        Ok(())
    }

    /// Offers the checkpoint folder `dir`, whose best checkpoint's `meta`
    /// was read already, under `name`.
    fn offer_network(
        &mut self,
        name: &str,
        dir: PathBuf,
        meta: checkpoint::CheckpointMeta,
    ) -> Result<(), OfferError> {
        self.check_network_name(name)?;
        self.networks.push(OfferedNetwork {
            name: name.into(),
            game: meta.game,
            variant: meta.variant,
            dir,
        });
        Ok(())
    }

    /// Offers the database folder `dir` (which may not be solved yet) for
    /// `game`'s `variant` under `name`.
    pub fn add_database(
        &mut self,
        name: &str,
        game: &str,
        variant: &str,
        dir: &Path,
    ) -> Result<(), OfferError> {
        if !valid_name(name) {
            return Err(OfferError::BadName(name.into()));
        }
        if self.databases.iter().any(|d| d.name == name) {
            return Err(OfferError::Duplicate(name.into()));
        }
        self.databases.push(OfferedDatabase {
            name: name.into(),
            game: game.into(),
            variant: variant.into(),
            dir: dir.to_path_buf(),
        });
        Ok(())
    }

    /// `--offer NAME=DIR` or `--offer DIR` (named after its last folder).
    pub fn add_from_arg(&mut self, arg: &str) -> Result<String, OfferError> {
        let (name, dir) = match arg.split_once('=') {
            Some((n, d)) => (n.to_string(), PathBuf::from(d)),
            None => {
                let dir = PathBuf::from(arg);
                let name = dir
                    .canonicalize()
                    .ok()
                    .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_default();
                (name, dir)
            }
        };
        self.add_network(&name, &dir)?;
        Ok(name)
    }

    /// Whether `net` is offered from the folder `dir` (the same folder
    /// however it is written).
    pub fn same_dir(net: &OfferedNetwork, dir: &Path) -> bool {
        match (net.dir.canonicalize(), dir.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => net.dir == dir,
        }
    }

    fn has(&self, name: &str) -> bool {
        self.networks.iter().any(|n| n.name == name)
    }

    pub fn networks(&self) -> &[OfferedNetwork] {
        &self.networks
    }

    pub fn databases(&self) -> &[OfferedDatabase] {
        &self.databases
    }

    /// The offered network called `name` for `game`, if any. A network
    /// plays every variant of its game (the variant is part of what it
    /// sees), so only the game must match.
    pub fn network(&self, name: &str, game: &str) -> Option<&OfferedNetwork> {
        self.networks
            .iter()
            .find(|n| n.name == name && n.game == game)
    }

    /// The offered database folder for `game`'s `variant`, if any.
    pub fn database_dir(&self, game: &str, variant: &str) -> Option<&Path> {
        self.databases
            .iter()
            .find(|d| d.game == game && d.variant == variant)
            .map(|d| d.dir.as_path())
    }

    /// What a caller may name for `game`'s `variant`, in words.
    fn offered_words(&self, game: &str, variant: &str) -> String {
        let nets: Vec<String> = self
            .networks
            .iter()
            .filter(|n| n.game == game)
            .map(|n| format!("{NET_KEY}={}", n.name))
            .collect();
        let dbs: Vec<String> = self
            .databases
            .iter()
            .filter(|d| d.game == game && d.variant == variant)
            .map(|d| format!("db={}", d.name))
            .collect();
        let all: Vec<String> = nets.into_iter().chain(dbs).collect();
        if all.is_empty() {
            "this server offers no network or database for this game".into()
        } else {
            format!("offered here: {}", all.join(", "))
        }
    }

    /// Turns a caller's spec for `game`'s `variant` into one ready to
    /// build: `net=NAME` becomes the offered network's `checkpoint`,
    /// `db=NAME` the offered database's folder. A spec that names a file
    /// itself, an offer that does not exist or belongs to another game, or
    /// an over-long spec is refused, and nothing of the file system is
    /// touched for it.
    pub fn resolve(&self, spec: &str, game: &str, variant: &str) -> Result<Resolved, NotOffered> {
        if spec.chars().count() > MAX_SPEC_CHARS {
            return Err(NotOffered(format!(
                "the opponent spec is {} characters long; at most {MAX_SPEC_CHARS} are accepted",
                spec.chars().count()
            )));
        }
        // No player option but a file's takes a path, and those are
        // refused below: a separator anywhere is a path, refused without
        // echoing it (the parser's errors would quote it back).
        if spec.contains(['/', '\\']) {
            return Err(NotOffered(format!(
                "a player spec in a request may not contain `/` or `\\`: networks and \
                 databases are named by what the server offers; {}",
                self.offered_words(game, variant)
            )));
        }
        // A spec that does not parse is the player parser's to explain.
        let Ok(mut parsed) = spec.parse::<PlayerSpec>() else {
            return Ok(Resolved {
                spec: spec.to_string(),
                opens_files: false,
            });
        };
        // The arena's network players (`net-mcts`, `net-policy`) need a
        // network: on the web that is an offered one, never a folder.
        if parsed.name.starts_with("net-")
            && !parsed
                .options
                .iter()
                .any(|(k, _)| k == NET_KEY || k == "checkpoint")
        {
            return Err(NotOffered(format!(
                "`{}` plays with a network: name one the server offers with `{NET_KEY}=NAME`; {}",
                parsed.name,
                self.offered_words(game, variant)
            )));
        }
        let mut opens_files = false;
        for (key, value) in parsed.options.iter_mut() {
            if key == NET_KEY {
                let Some(net) = self.network(value, game) else {
                    return Err(NotOffered(format!(
                        "no network `{}` is offered for {game}; {}",
                        crate::util::excerpt(value),
                        self.offered_words(game, variant)
                    )));
                };
                *key = "checkpoint".into();
                *value = net.dir.display().to_string();
                opens_files = true;
            } else if key == "db" {
                let Some(db) = self
                    .databases
                    .iter()
                    .find(|d| d.name == *value && d.game == game && d.variant == variant)
                else {
                    return Err(NotOffered(format!(
                        "no database `{}` is offered for {game} {variant}; {}",
                        crate::util::excerpt(value),
                        self.offered_words(game, variant)
                    )));
                };
                *value = db.dir.display().to_string();
                opens_files = true;
            } else if FILE_KEYS.contains(&key.as_str()) {
                return Err(NotOffered(format!(
                    "option `{key}` names a file, which a request may not do: name an offered \
                     network with `{NET_KEY}=NAME` instead; {}",
                    self.offered_words(game, variant)
                )));
            }
        }
        self.apply_threads(&mut parsed)?;
        Ok(Resolved {
            spec: parsed.to_string(),
            opens_files,
        })
    }

    /// Gives every player resolved from now on that takes `threads` (the
    /// `net-mcts` engine) `threads` when its spec sets none, and refuses
    /// specs asking for more: each game's engine may use that many cores.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads;
    }

    fn apply_threads(&self, parsed: &mut PlayerSpec) -> Result<(), NotOffered> {
        let most = self.threads.max(1);
        if let Some(asked) = parsed.get("threads").and_then(|v| v.parse::<usize>().ok())
            && asked > most
        {
            return Err(NotOffered(format!(
                "option `threads` may be at most {most} on this server"
            )));
        }
        if self.threads > 0 {
            add_default_threads(parsed, self.threads, KNOWN_PLAYERS);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers() -> Offers {
        let mut o = Offers::default();
        o.networks.push(OfferedNetwork {
            name: "six".into(),
            game: "morris".into(),
            variant: "six".into(),
            dir: "/srv/nets/six".into(),
        });
        o.add_database("six", "morris", "six", Path::new("/srv/db/six"))
            .unwrap();
        o
    }

    #[test]
    fn names_become_paths_and_paths_are_refused() {
        let o = offers();
        let r = o
            .resolve("net-mcts:net=six,sims=300", "morris", "six")
            .unwrap();
        assert_eq!(r.spec, "net-mcts:checkpoint=/srv/nets/six,sims=300");
        assert!(r.opens_files);
        let r = o.resolve("perfect:db=six", "morris", "six").unwrap();
        assert_eq!(r.spec, "perfect:db=/srv/db/six");
        for bad in [
            "net-mcts:checkpoint=/srv/nets/six",
            "net-mcts:checkpoint=../../etc",
            "perfect:db=/etc",
            "perfect:db=../six",
            "net-mcts:net=/srv/nets/six",
            "net-mcts:net=six%2F..",
        ] {
            let e = o.resolve(bad, "morris", "six").unwrap_err().to_string();
            assert!(!e.contains("/srv"), "{bad}: {e}");
            assert!(!e.contains("/etc"), "{bad}: {e}");
            assert!(e.contains("net=six") && e.contains("db=six"), "{bad}: {e}");
        }
        // A network plays every variant of its game; another game's network
        // and another variant's database are no offers here.
        assert!(o.resolve("net-mcts:net=six", "morris", "nine").is_ok());
        let e = o.resolve("net-mcts:net=six", "grid", "9x9").unwrap_err();
        assert!(e.to_string().contains("no network `six`"), "{e}");
        assert!(o.resolve("perfect:db=six", "morris", "nine").is_err());
        assert!(o.resolve("cmd:/bin/sh", "morris", "six").is_err());
        let long = format!("alphabeta:depth=2{}", ",x=1".repeat(200));
        assert!(o.resolve(&long, "yinsh", "standard").is_err());
    }

    #[test]
    fn engines_get_the_servers_threads_and_no_more() {
        let mut o = offers();
        let spec = |o: &Offers, s| o.resolve(s, "morris", "six").map(|r| r.spec);
        // Unset, specs stay as they are and ask for one thread at most.
        assert_eq!(
            spec(&o, "net-mcts:net=six").unwrap(),
            "net-mcts:checkpoint=/srv/nets/six"
        );
        assert!(spec(&o, "net-mcts:net=six,threads=1").is_ok());
        let e = spec(&o, "net-mcts:net=six,threads=2").unwrap_err();
        assert!(e.to_string().contains("`threads` may be at most 1"), "{e}");
        o.set_threads(2);
        assert_eq!(
            spec(&o, "net-mcts:net=six,sims=300").unwrap(),
            "net-mcts:checkpoint=/srv/nets/six,sims=300,threads=2"
        );
        assert_eq!(
            spec(&o, "net-mcts:net=six,threads=1").unwrap(),
            "net-mcts:checkpoint=/srv/nets/six,threads=1"
        );
        assert_eq!(spec(&o, "alphabeta:depth=2").unwrap(), "alphabeta:depth=2");
        let e = spec(&o, "net-mcts:net=six,threads=3").unwrap_err();
        assert!(e.to_string().contains("`threads` may be at most 2"), "{e}");
    }

    #[test]
    fn offer_names_are_plain() {
        let mut o = Offers::default();
        for bad in ["", "a/b", "x y", "a=b", "c:\\d"] {
            assert!(
                matches!(
                    o.add_database(bad, "morris", "six", Path::new("d")),
                    Err(OfferError::BadName(_))
                ),
                "{bad}"
            );
        }
    }
}
