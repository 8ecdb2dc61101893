//! Crash-safe file writes: a reader sees the old file or the new one, never
//! a half-written one, whenever the process is killed.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder
/// is written and fsynced, renamed over `path`, and the folder is fsynced so
/// the rename itself survives a power cut.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("state.json");
/// yinsh_zero::run::atomic::write_atomic(&p, b"{}").unwrap();
/// assert_eq!(std::fs::read(&p).unwrap(), b"{}");
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Fsyncs a directory so that renames and new entries in it are durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    // Directories cannot be opened for syncing on every platform; where they
    // cannot, the rename is as durable as the OS makes it.
    match File::open(dir) {
        Ok(f) => f.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("f.bin");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second, longer").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second, longer");
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.bin")]);
    }
}
