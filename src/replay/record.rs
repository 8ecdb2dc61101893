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
//! A reader checks all of it, then every sample against the rules, so a
//! damaged or foreign file is reported by name and never trained on.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::run::atomic::write_atomic;
use crate::yinsh::packed::PackedPosition;
use crate::yinsh::{ACTION_SPACE, Action, Position};

const MAGIC: &[u8; 8] = b"YZRECORD";
/// The record format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 4;

/// One training position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub position: PackedPosition,
    /// Search target over the legal actions: (dense action index, probability).
    pub policy: Vec<(u16, f32)>,
    /// Final result for the player to act: 1 win, 0 draw, -1 loss.
    pub outcome: i8,
    /// Final rings removed by the player to act minus the opponent's.
    pub ring_margin: i8,
    /// Whether a full search made the target (playout-cap randomization
    /// records only full searches, but the flag keeps files self-describing).
    pub full_search: bool,
}

/// Where a file came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordMeta {
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
    #[error("{path}: record format version {found}, this build reads version {FORMAT_VERSION}")]
    Version { path: PathBuf, found: u32 },
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
    /// Checks a sample against the rules: a valid position, a policy over
    /// exactly legal actions that is a probability distribution, a result in
    /// range.
    pub fn validate(&self) -> Result<Position, String> {
        let pos = Position::try_from(self.position).map_err(|e| e.to_string())?;
        if pos.is_over() {
            return Err("a finished game is not a training position".into());
        }
        let mut sum = 0.0f64;
        for &(idx, p) in &self.policy {
            if idx as usize >= ACTION_SPACE {
                return Err(format!("action index {idx} out of range"));
            }
            let a = Action::from_index(idx as usize).ok_or(format!("action index {idx} unused"))?;
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
        if self.ring_margin.unsigned_abs() > 3 {
            return Err(format!("ring margin {}", self.ring_margin));
        }
        Ok(pos)
    }
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
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

/// Decodes and fully validates a record file's bytes; `path` names it in errors.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<RecordFile, RecordError> {
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
    if version != FORMAT_VERSION {
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
    let (file, used): (RecordFile, usize) = bincode::serde::decode_from_slice(payload, config())
        .map_err(|e| RecordError::Decode {
            path: path_buf(),
            msg: e.to_string(),
        })?;
    if used != payload.len() {
        return Err(RecordError::Decode {
            path: path_buf(),
            msg: format!("{} trailing bytes", payload.len() - used),
        });
    }
    for (index, s) in file.samples.iter().enumerate() {
        s.validate().map_err(|msg| RecordError::BadSample {
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

/// Reads and validates a record file.
pub fn read(path: &Path) -> Result<RecordFile, RecordError> {
    let bytes = fs::read(path).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yinsh::Position;

    fn sample_file() -> RecordFile {
        let mut pos = Position::new();
        let mut samples = Vec::new();
        for i in 0..12u32 {
            let legal = pos.legal_actions();
            let p = 1.0 / legal.len() as f32;
            samples.push(Sample {
                position: PackedPosition::from(&pos),
                policy: legal.iter().map(|a| (a.index() as u16, p)).collect(),
                outcome: [1, 0, -1][i as usize % 3],
                ring_margin: (i % 3) as i8 - 1,
                full_search: i % 2 == 0,
            });
            pos.play_unchecked(legal[(i as usize * 7) % legal.len()]);
        }
        RecordFile {
            meta: RecordMeta {
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
        assert_eq!(read(&p).unwrap(), f);
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
            let e = decode(p, &bytes).unwrap_err().to_string();
            assert!(e.starts_with("g000001.bin: ") && e.contains(want), "{e}");
        }
    }

    #[test]
    fn samples_that_break_the_rules_are_rejected() {
        let mut f = sample_file();
        f.samples[4].policy[0].1 += 0.5;
        let e = decode(Path::new("x"), &encode(&f)).unwrap_err().to_string();
        assert!(e.contains("sample 4") && e.contains("sums to"), "{e}");
        let mut f = sample_file();
        f.samples[2].policy[0].0 = Action::Pass.index() as u16;
        let e = decode(Path::new("x"), &encode(&f)).unwrap_err().to_string();
        assert!(
            e.contains("sample 2") && e.contains("illegal action pass"),
            "{e}"
        );
    }
}
