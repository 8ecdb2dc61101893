//! The file shape that the opening book ([`super::book`]) and the bounds
//! ([`super::bounds`]) share: a table of unfinished positions, each with a
//! few bytes about it, checked whole on load.
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | the kind of file (`YZC4BOOK`, `YZC4BNDS`) |
//! | 4 | its format version |
//! | 8 | entries `n` |
//! | (8 + `P`) `n` | per entry: the position's [`Position::code`], the smaller of its own and its mirror image's, ascending; then `P` bytes of the file's own |
//! | 4 | CRC-32 of everything before |

use super::bitboard::CELLS;
use super::position::Position;

const HEADER: usize = 8 + 4 + 8;

/// One kind of position file: what tells it apart, and its entries' own
/// bytes.
pub(super) struct Layout<const P: usize> {
    pub magic: &'static [u8; 8],
    pub version: u32,
    /// What the file is, for "not ... (its first bytes are not ...)".
    pub what: &'static str,
}

impl<const P: usize> Layout<P> {
    const ENTRY: usize = 8 + P;

    /// The file's bytes, `entries` (a code and its bytes each, every code
    /// once) sorted here.
    pub fn encode(&self, mut entries: Vec<(u64, [u8; P])>) -> Vec<u8> {
        entries.sort_unstable_by_key(|e| e.0);
        let mut out = Vec::with_capacity(HEADER + Self::ENTRY * entries.len() + 4);
        out.extend_from_slice(self.magic);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (code, bytes) in entries {
            out.extend_from_slice(&code.to_le_bytes());
            out.extend_from_slice(&bytes);
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The entries of a file's `bytes`, after checking its kind, version,
    /// length, checksum, order and every position (a reachable, unfinished
    /// one, filed by the smaller code of it and its mirror image). `check`
    /// vets an entry's own bytes; its error is placed after the entry's
    /// number and code, as are the layout's own.
    pub fn decode<T>(
        &self,
        bytes: &[u8],
        mut check: impl FnMut(&Position, [u8; P]) -> Result<T, String>,
    ) -> Result<Vec<(Position, T)>, String> {
        if bytes.len() < HEADER + 4 {
            return Err(format!(
                "truncated: {} bytes, shorter than the {}-byte header and checksum",
                bytes.len(),
                HEADER + 4
            ));
        }
        if &bytes[..8] != self.magic {
            return Err(format!(
                "not {} (its first bytes are not `{}`)",
                self.what,
                String::from_utf8_lossy(self.magic)
            ));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != self.version {
            return Err(format!(
                "format version {version}; this build reads version {}",
                self.version
            ));
        }
        let n = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
        let expected = n
            .checked_mul(Self::ENTRY as u64)
            .and_then(|b| b.checked_add((HEADER + 4) as u64));
        if expected != Some(bytes.len() as u64) {
            return Err(format!(
                "{} bytes, but its header counts {n} entries, which take {} bytes: the file is \
                 truncated or damaged",
                bytes.len(),
                expected.map_or("too many".to_string(), |e| e.to_string())
            ));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        let crc = crc32fast::hash(body);
        if crc != stored {
            return Err(format!(
                "checksum mismatch (stored {stored:08x}, computed {crc:08x}): the file is damaged"
            ));
        }
        let mut out = Vec::with_capacity(n as usize);
        let mut last = None;
        for (i, e) in body[HEADER..].chunks_exact(Self::ENTRY).enumerate() {
            let code = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
            let entry = |why: String| format!("entry {i} (code {code:#x}): {why}");
            if last.is_some_and(|l| l >= code) {
                return Err(entry(
                    "out of order (entries ascend by code, once each)".into(),
                ));
            }
            last = Some(code);
            let p = Position::from_code(code).map_err(entry)?;
            if p.last_mover_won() || p.moves() == CELLS {
                return Err(entry("the game is over there".into()));
            }
            if p.mirror_code() != code {
                return Err(entry(
                    "its mirror image's code is smaller (entries are stored by the smaller)".into(),
                ));
            }
            let own = check(&p, e[8..].try_into().expect("P bytes")).map_err(entry)?;
            out.push((p, own));
        }
        Ok(out)
    }
}
