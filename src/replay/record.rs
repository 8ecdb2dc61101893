//! Self-play record files: immutable, versioned, checksummed.
//!
//! Layout (little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `YZRECORD` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 8 | payload length |
//! | 4 | CRC-32 of the payload |
//! | n | payload: bincode (standard config) of [`RecordFile`] |
//!
//! The payload names its game and variant, and each sample holds its
//! position in the game's own bytes ([`Game::write_state`]). A reader checks
//! all of it, then every sample against the rules of the game it expects, so
//! a damaged or foreign file, or one of another game, is reported by name
//! and never trained on.
//!
//! Version 1 (YINSH records written before the game interface, positions
//! stored as YINSH's packed struct) is refused by name: regenerate them.
//! Version 2 (before samples said how far their game's end was) is read,
//! its samples without [`Sample::moves_left`]; version 3 (before samples
//! kept their search's value) is read without [`Sample::search_wdl`], and
//! version 4 (before they kept the search's margin) without
//! [`Sample::search_margin`], and version 5 (before they kept the
//! opponent's reply and the game's last position) without [`Sample::reply`]
//! and [`Sample::game_end`].

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::{ActionOf, Game, State};
use crate::util::write_atomic;

const MAGIC: &[u8; 8] = b"YZRECORD";
/// The record format this build writes (it reads this one and 2 to 5).
pub const FORMAT_VERSION: u32 = 6;
const HEADER: usize = 8 + 4 + 8 + 4;

/// One training position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The position, in its game's bytes ([`Game::write_state`]).
    pub position: Vec<u8>,
    /// Search target over the legal actions: (dense action index, probability).
    pub policy: Vec<(u32, f32)>,
    /// Final result for the player to act: 1 win, 0 draw, -1 loss.
    pub outcome: i8,
    /// The game's final score margin for the player to act, in [-1, 1]
    /// ([`State::margin`]); `None` in games without one.
    pub margin: Option<f32>,
    /// Whether a full search made the target (playout-cap randomization
    /// records only full searches, but the flag keeps files self-describing).
    pub full_search: bool,
    /// How far the end of its game was, on the game's own clock
    /// ([`State::ply`]: decisions, or YINSH's turns): a discounted value
    /// target shrinks far results toward a draw. `None` in files of
    /// format 2, which did not record it.
    pub moves_left: Option<u32>,
    /// The search's win/draw/loss at this position for the player to act
    /// ([`SearchResult::policy_wdl`](crate::mcts::SearchResult::policy_wdl)): a value target that does not wait for the game's end, so a
    /// blunder the opponent never punished still shows ([`crate::replay::window::ValueTarget`]).
    /// `None` in files of formats 2 and 3, and for imitated games.
    pub search_wdl: Option<[f32; 3]>,
    /// The search's expected final margin here for the player to act, in
    /// [-1, 1] ([`SearchResult::policy_margin`](crate::mcts::SearchResult::policy_margin)),
    /// the margin target's counterpart of [`Sample::search_wdl`]. `None` in
    /// games without a margin, in files of formats 2 to 4, and for imitated
    /// games.
    pub search_margin: Option<f32>,
    /// What the other player did next, over dense action indices: the
    /// policy target of the next decision the opponent made, or that
    /// decision's move alone where a fast search made it (playout-cap
    /// randomization records no target there). The target of an
    /// auxiliary head that gives the trunk more signal per game (KataGo's
    /// opponent policy, Wu 2019, section 4.1). `None` where the game ended
    /// before the opponent moved again, in files of formats 2 to 5, and for
    /// imitated games.
    pub reply: Option<Vec<(u32, f32)>>,
    /// Where its game ended ([`GameEnd`]): the source of the ownership
    /// head's target ([`Game::ownership`]), read by training in the
    /// sample's own symmetry. Kept where the game has that target; `None`
    /// in files of formats 2 to 5 and for imitated games.
    pub game_end: Option<GameEnd>,
}

/// Where a game ended, in a form its rules read back: the position before
/// its last move and that move (a finished position may be one the rules
/// refuse to read, as Morris's third repetition of a position), or where a
/// player resigned, the position the game stopped in and no move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEnd {
    /// A position in its game's bytes ([`Game::write_state`]).
    pub before: Vec<u8>,
    /// The dense index of the move that ended the game from `before`.
    pub last_move: Option<u32>,
}

impl GameEnd {
    /// The game's last position.
    pub fn state<G: Game>(&self, game: &G) -> Result<G::State, String> {
        let mut state = game.read_state(&self.before)?;
        if let Some(idx) = self.last_move {
            let a: ActionOf<G> = game
                .action_from_index(idx as usize)
                .ok_or(format!("last move {idx} is not an action"))?;
            state
                .play(a)
                .map_err(|_| format!("last move {a} is illegal where it was played"))?;
        }
        Ok(state)
    }
}

/// A sample as format 2 wrote it.
#[derive(Deserialize)]
struct SampleV2 {
    position: Vec<u8>,
    policy: Vec<(u32, f32)>,
    outcome: i8,
    margin: Option<f32>,
    full_search: bool,
}

/// A sample as format 3 wrote it: format 2's and the moves left (bincode
/// lays a nested struct out as its fields in order, so each format's sample
/// is the one before it and the fields it added).
#[derive(Deserialize)]
struct SampleV3(SampleV2, Option<u32>);

/// A sample as format 4 wrote it: format 3's and the search's win/draw/loss.
#[derive(Deserialize)]
struct SampleV4(SampleV3, Option<[f32; 3]>);

impl From<SampleV2> for SampleV4 {
    fn from(s: SampleV2) -> SampleV4 {
        SampleV4(SampleV3(s, None), None)
    }
}

impl From<SampleV3> for SampleV4 {
    fn from(s: SampleV3) -> SampleV4 {
        SampleV4(s, None)
    }
}

/// A sample as format 5 wrote it: format 4's and the search's margin.
#[derive(Deserialize)]
struct SampleV5(SampleV4, Option<f32>);

impl From<SampleV4> for SampleV5 {
    fn from(s: SampleV4) -> SampleV5 {
        SampleV5(s, None)
    }
}

impl From<SampleV2> for SampleV5 {
    fn from(s: SampleV2) -> SampleV5 {
        SampleV4::from(s).into()
    }
}

impl From<SampleV3> for SampleV5 {
    fn from(s: SampleV3) -> SampleV5 {
        SampleV4::from(s).into()
    }
}

impl From<SampleV5> for Sample {
    fn from(
        SampleV5(SampleV4(SampleV3(s, moves_left), search_wdl), search_margin): SampleV5,
    ) -> Sample {
        Sample {
            position: s.position,
            policy: s.policy,
            outcome: s.outcome,
            margin: s.margin,
            full_search: s.full_search,
            moves_left,
            search_wdl,
            search_margin,
            reply: None,
            game_end: None,
        }
    }
}

/// A file as an older format wrote it, its samples of that format's kind.
#[derive(Deserialize)]
struct OldRecordFile<S> {
    meta: RecordMeta,
    samples: Vec<S>,
}

impl<S: Into<SampleV5>> From<OldRecordFile<S>> for RecordFile {
    fn from(f: OldRecordFile<S>) -> RecordFile {
        RecordFile {
            meta: f.meta,
            samples: f
                .samples
                .into_iter()
                .map(|s| Sample::from(s.into()))
                .collect(),
        }
    }
}

/// Where a file came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordMeta {
    /// The game's name ([`Game::NAME`]) and variant.
    pub game: String,
    pub variant: String,
    /// Generation of the network that played the games.
    pub generation: u64,
    /// Number of complete games whose positions the file holds.
    pub games: u32,
    /// Free text: program version, worker id.
    pub producer: String,
}

/// The content of one record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordFile {
    pub meta: RecordMeta,
    pub samples: Vec<Sample>,
}

/// Why a record file cannot be used. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a yinsh-zero record file (bad magic)")]
    Foreign { path: PathBuf },
    #[error("{path}: record format version {found}, this build reads versions 2 to {FORMAT_VERSION}{}", if *found == 1 { " (version 1 holds YINSH records from before the game interface: regenerate them with selfplay)" } else { "" })]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: records of {found}, expected {expected}")]
    OtherGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: truncated: header promises {expected} payload bytes, file has {found}")]
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{path}: checksum mismatch: the file is damaged")]
    Checksum { path: PathBuf },
    #[error("{path}: undecodable payload: {msg}")]
    Decode { path: PathBuf, msg: String },
    #[error("{path}: sample {index}: {msg}")]
    BadSample {
        path: PathBuf,
        index: usize,
        msg: String,
    },
}

impl Sample {
    /// The sample of `state`, searched to `policy` over its legal actions,
    /// in a game that ended `moves_left` later (on [`State::ply`]'s clock)
    /// with `outcome` for the player to act there. It holds no search
    /// value; self-play adds one with [`Sample::with_search_wdl`].
    pub fn new<G: Game>(
        game: &G,
        state: &G::State,
        policy: Vec<(u32, f32)>,
        outcome: i8,
        margin: Option<f32>,
        moves_left: u32,
    ) -> Sample {
        let mut position = Vec::new();
        game.write_state(state, &mut position);
        Sample {
            position,
            policy,
            outcome,
            margin,
            full_search: true,
            moves_left: Some(moves_left),
            search_wdl: None,
            search_margin: None,
            reply: None,
            game_end: None,
        }
    }

    /// The same sample with the search's win/draw/loss at its position.
    pub fn with_search_wdl(self, wdl: Option<[f32; 3]>) -> Sample {
        Sample {
            search_wdl: wdl,
            ..self
        }
    }

    /// The same sample with where its game ended ([`Sample::game_end`]).
    pub fn with_game_end(self, game_end: Option<GameEnd>) -> Sample {
        Sample { game_end, ..self }
    }

    /// The same sample with the opponent's reply ([`Sample::reply`]).
    pub fn with_reply(self, reply: Option<Vec<(u32, f32)>>) -> Sample {
        Sample { reply, ..self }
    }

    /// The same sample with the search's expected margin at its position.
    pub fn with_search_margin(self, margin: Option<f32>) -> Sample {
        Sample {
            search_margin: margin,
            ..self
        }
    }

    /// Checks a sample against the rules of `game`: a valid position, a
    /// policy over exactly legal actions that is a probability
    /// distribution, a result in range. Returns the position.
    pub fn validate<G: Game>(&self, game: &G) -> Result<G::State, String> {
        let pos = game.read_state(&self.position)?;
        if pos.is_over() {
            return Err("a finished game is not a training position".into());
        }
        let space = game.net_shape().action_space();
        let mut sum = 0.0f64;
        for &(idx, p) in &self.policy {
            if idx as usize >= space {
                return Err(format!("action index {idx} out of range"));
            }
            let a: ActionOf<G> = game
                .action_from_index(idx as usize)
                .ok_or(format!("action index {idx} unused"))?;
            if !pos.is_legal(a) {
                return Err(format!("policy names illegal action {a}"));
            }
            if !p.is_finite() || p < 0.0 {
                return Err(format!("policy probability {p} for {a}"));
            }
            sum += p as f64;
        }
        if (sum - 1.0).abs() > 1e-3 {
            return Err(format!("policy sums to {sum}, not 1"));
        }
        if !(-1..=1).contains(&self.outcome) {
            return Err(format!("outcome {}", self.outcome));
        }
        if let Some(m) = self.margin
            && !(m.is_finite() && (-1.0..=1.0).contains(&m))
        {
            return Err(format!("margin {m} outside [-1, 1]"));
        }
        if let Some(wdl) = self.search_wdl
            && !(wdl.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x))
                && (wdl.iter().sum::<f32>() - 1.0).abs() <= 1e-3)
        {
            return Err(format!(
                "search win/draw/loss {wdl:?} is not a distribution"
            ));
        }
        if let Some(m) = self.search_margin
            && !(m.is_finite() && (-1.0..=1.0).contains(&m))
        {
            return Err(format!("search margin {m} outside [-1, 1]"));
        }
        if let Some(reply) = &self.reply {
            // The reply was legal in a later position this sample does not
            // hold: checked as a distribution over the game's actions.
            let mut sum = 0.0f64;
            for &(idx, p) in reply {
                if idx as usize >= space || game.action_from_index(idx as usize).is_none() {
                    return Err(format!("reply names action index {idx}, not an action"));
                }
                if !p.is_finite() || p < 0.0 {
                    return Err(format!("reply probability {p}"));
                }
                sum += p as f64;
            }
            if (sum - 1.0).abs() > 1e-3 {
                return Err(format!("reply sums to {sum}, not 1"));
            }
        }
        if let Some(end) = &self.game_end {
            end.state(game).map_err(|e| format!("game end: {e}"))?;
        }
        Ok(pos)
    }
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// The most bytes a payload's lengths may claim in all (its strings: the
/// game, variant and producer names). bincode allocates a string's length
/// before it reads it, and without a limit a damaged length (6e18 bytes
/// in a 750-byte file) aborted the process.
const DECODE_LIMIT: usize = 16 << 20;

fn decode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

/// Encodes a record file's bytes (header and payload).
pub fn encode(file: &RecordFile) -> Vec<u8> {
    let payload = bincode::serde::encode_to_vec(file, config())
        .expect("records are plain data and always encode");
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Decodes a record file's bytes and fully validates them as records of
/// `game`; `path` names the file in errors.
pub fn decode<G: Game>(game: &G, path: &Path, bytes: &[u8]) -> Result<RecordFile, RecordError> {
    let path_buf = || path.to_path_buf();
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(RecordError::Foreign { path: path_buf() });
    }
    if bytes.len() < HEADER {
        return Err(RecordError::Truncated {
            path: path_buf(),
            expected: 0,
            found: bytes.len() as u64,
        });
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if !(2..=FORMAT_VERSION).contains(&version) {
        return Err(RecordError::Version {
            path: path_buf(),
            found: version,
        });
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    let crc = u32::from_le_bytes(bytes[20..24].try_into().unwrap());
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len {
        return Err(RecordError::Truncated {
            path: path_buf(),
            expected: len,
            found: payload.len() as u64,
        });
    }
    if crc32fast::hash(payload) != crc {
        return Err(RecordError::Checksum { path: path_buf() });
    }
    let decoded = match version {
        2 => bincode::serde::decode_from_slice::<OldRecordFile<SampleV2>, _>(
            payload,
            decode_config(),
        )
        .map(|(f, used)| (RecordFile::from(f), used)),
        3 => bincode::serde::decode_from_slice::<OldRecordFile<SampleV3>, _>(
            payload,
            decode_config(),
        )
        .map(|(f, used)| (RecordFile::from(f), used)),
        4 => bincode::serde::decode_from_slice::<OldRecordFile<SampleV4>, _>(
            payload,
            decode_config(),
        )
        .map(|(f, used)| (RecordFile::from(f), used)),
        5 => bincode::serde::decode_from_slice::<OldRecordFile<SampleV5>, _>(
            payload,
            decode_config(),
        )
        .map(|(f, used)| (RecordFile::from(f), used)),
        _ => bincode::serde::decode_from_slice(payload, decode_config()),
    };
    let (file, used): (RecordFile, usize) = decoded.map_err(|e| RecordError::Decode {
        path: path_buf(),
        msg: match e {
            bincode::error::DecodeError::LimitExceeded => format!(
                "a length in the payload claims more than {DECODE_LIMIT} bytes (a damaged file)"
            ),
            e => e.to_string(),
        },
    })?;
    if used != payload.len() {
        return Err(RecordError::Decode {
            path: path_buf(),
            msg: format!("{} trailing bytes", payload.len() - used),
        });
    }
    if file.meta.game != G::NAME || file.meta.variant != game.variant() {
        return Err(RecordError::OtherGame {
            path: path_buf(),
            found: format!("{} ({})", file.meta.game, file.meta.variant),
            expected: format!("{} ({})", G::NAME, game.variant()),
        });
    }
    for (index, s) in file.samples.iter().enumerate() {
        s.validate(game).map_err(|msg| RecordError::BadSample {
            path: path_buf(),
            index,
            msg,
        })?;
    }
    Ok(file)
}

/// Writes a record file atomically (temp file, fsync, rename).
pub fn write(path: &Path, file: &RecordFile) -> Result<(), RecordError> {
    write_atomic(path, &encode(file)).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a record file and validates it as records of `game`.
pub fn read<G: Game>(game: &G, path: &Path) -> Result<RecordFile, RecordError> {
    let bytes = fs::read(path).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(game, path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::yinsh::{Action, Position, Yinsh};

    const GAME: Yinsh = Yinsh::standard();

    fn sample_file() -> RecordFile {
        let mut pos = Position::new();
        let mut samples = Vec::new();
        for i in 0..12u32 {
            let legal = pos.legal_actions();
            let p = 1.0 / legal.len() as f32;
            let policy = legal.iter().map(|a| (a.index() as u32, p)).collect();
            let margin = Some((i % 3) as f32 / 3.0 - 1.0 / 3.0);
            let mut s = Sample::new(
                &GAME,
                &pos,
                policy,
                [1, 0, -1][i as usize % 3],
                margin,
                40 - i,
            );
            s.full_search = i % 2 == 0;
            let s = if i % 4 == 3 {
                s
            } else {
                let end = GameEnd {
                    before: s.position.clone(),
                    last_move: s.policy.first().map(|p| p.0),
                };
                s.with_search_wdl(Some([0.25, 0.5, 0.25]))
                    .with_search_margin(Some(-0.5))
                    .with_reply(Some(vec![(3, 0.75), (Action::Pass.index() as u32, 0.25)]))
                    .with_game_end(Some(end))
            };
            samples.push(s);
            pos.play_unchecked(legal[(i as usize * 7) % legal.len()]);
        }
        RecordFile {
            meta: RecordMeta {
                game: "yinsh".into(),
                variant: "standard".into(),
                generation: 3,
                games: 1,
                producer: "test".into(),
            },
            samples,
        }
    }

    #[test]
    fn files_round_trip_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        let f = sample_file();
        write(&p, &f).unwrap();
        assert_eq!(read(&GAME, &p).unwrap(), f);
    }

    #[test]
    fn damage_is_reported_by_name() {
        let p = Path::new("g000001.bin");
        let good = encode(&sample_file());
        let flip = {
            let mut b = good.clone();
            let n = b.len();
            b[n - 5] ^= 0x40;
            b
        };
        let cut = good[..good.len() - 9].to_vec();
        let mut version = good.clone();
        version[8] = 99;
        for (bytes, want) in [
            (flip, "checksum"),
            (cut, "truncated"),
            (version, "version 99"),
            (b"PK\x03\x04 zip".to_vec(), "not a yinsh-zero record"),
            (Vec::new(), "not a yinsh-zero record"),
        ] {
            let e = decode(&GAME, p, &bytes).unwrap_err().to_string();
            assert!(e.starts_with("g000001.bin: ") && e.contains(want), "{e}");
        }
    }

    /// `f` as an older format wrote it: bincode lays a struct out as the
    /// tuple of its fields, so tuples stand in for the old sample types.
    fn old_format(f: &RecordFile, version: u32) -> Vec<u8> {
        let v2 = |s: &Sample| {
            (
                s.position.clone(),
                s.policy.clone(),
                s.outcome,
                s.margin,
                s.full_search,
            )
        };
        let payload = match version {
            2 => {
                let samples: Vec<_> = f.samples.iter().map(v2).collect();
                bincode::serde::encode_to_vec((&f.meta, samples), config())
            }
            3 => {
                let samples: Vec<_> = f.samples.iter().map(|s| (v2(s), s.moves_left)).collect();
                bincode::serde::encode_to_vec((&f.meta, samples), config())
            }
            4 => {
                let samples: Vec<_> = f
                    .samples
                    .iter()
                    .map(|s| (v2(s), s.moves_left, s.search_wdl))
                    .collect();
                bincode::serde::encode_to_vec((&f.meta, samples), config())
            }
            5 => {
                let samples: Vec<_> = f
                    .samples
                    .iter()
                    .map(|s| ((v2(s), s.moves_left, s.search_wdl), s.search_margin))
                    .collect();
                bincode::serde::encode_to_vec((&f.meta, samples), config())
            }
            _ => unreachable!("formats 2 to 5 only"),
        }
        .unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    #[test]
    fn older_formats_read_without_the_fields_they_lacked() {
        let f = sample_file();
        assert!(f.samples.iter().any(|s| s.search_margin.is_some()));
        assert!(f.samples.iter().any(|s| s.reply.is_some()));
        for version in [2, 3, 4, 5] {
            let read = decode(&GAME, Path::new("old.bin"), &old_format(&f, version)).unwrap();
            assert_eq!(read.meta, f.meta);
            assert_eq!(read.samples.len(), f.samples.len());
            for (a, b) in read.samples.iter().zip(&f.samples) {
                // Format 2 knew no moves left, formats 2 and 3 no search
                // value, formats 2 to 4 no search margin, formats 2 to 5
                // no reply.
                let moves_left = if version == 2 { None } else { b.moves_left };
                let search_wdl = if version < 4 { None } else { b.search_wdl };
                let search_margin = if version < 5 { None } else { b.search_margin };
                let expected = Sample {
                    moves_left,
                    search_wdl,
                    search_margin,
                    reply: None,
                    game_end: None,
                    ..b.clone()
                };
                assert_eq!(a, &expected, "format {version}");
            }
        }
    }

    #[test]
    fn samples_that_break_the_rules_are_rejected() {
        let mut f = sample_file();
        f.samples[4].policy[0].1 += 0.5;
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample 4") && e.contains("sums to"), "{e}");
        let mut f = sample_file();
        f.samples[2].policy[0].0 = Action::Pass.index() as u32;
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sample 2") && e.contains("illegal action pass"),
            "{e}"
        );
        let mut f = sample_file();
        f.samples[5].search_wdl = Some([0.9, 0.9, -0.8]);
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sample 5") && e.contains("search win/draw/loss"),
            "{e}"
        );
        let mut f = sample_file();
        f.samples[6].search_margin = Some(1.5);
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sample 6") && e.contains("search margin 1.5"),
            "{e}"
        );
        let mut f = sample_file();
        f.samples[8].reply = Some(vec![(3, 0.5)]);
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample 8") && e.contains("reply sums to"), "{e}");
        let mut f = sample_file();
        f.samples[8].reply = Some(vec![(u32::MAX, 1.0)]);
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample 8") && e.contains("not an action"), "{e}");
        let mut f = sample_file();
        f.samples[9].game_end = Some(GameEnd {
            before: vec![7; 3],
            last_move: None,
        });
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample 9") && e.contains("game end"), "{e}");
        let mut f = sample_file();
        let end = f.samples[9].game_end.as_mut().unwrap();
        end.last_move = Some(Action::Pass.index() as u32);
        let e = decode(&GAME, Path::new("x"), &encode(&f))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample 9") && e.contains("illegal"), "{e}");
    }

    #[test]
    fn records_of_another_game_or_variant_are_refused_by_name() {
        let bytes = encode(&sample_file());
        let e = decode(&Yinsh::blitz(), Path::new("g7.bin"), &bytes)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("g7.bin: ")
                && e.contains("yinsh (standard)")
                && e.contains("expected yinsh (blitz)"),
            "{e}"
        );
        let mut v1 = bytes.clone();
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        let e = decode(&GAME, Path::new("old.bin"), &v1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("version 1") && e.contains("regenerate"), "{e}");
    }
}
