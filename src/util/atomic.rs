//! Crash-safe file writes: a reader sees the old file or the new one, never
//! a half-written one, whenever the process is killed.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder
/// is written and fsynced, renamed over `path`, and the folder is fsynced so
/// the rename itself survives a power cut. The file gets the mode
/// `fs::write` would give it: an existing file's, else 0o666 less the umask
/// (a temporary file alone would be owner-only).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("state.json");
/// yinsh_zero::util::write_atomic(&p, b"{}").unwrap();
/// assert_eq!(std::fs::read(&p).unwrap(), b"{}");
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
        builder.permissions(fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder.tempfile_in(dir)?;
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

    #[cfg(unix)]
    #[test]
    fn new_files_get_the_usual_mode_and_old_files_keep_theirs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // What a plain `fs::write` gives under this process's umask.
        let plain = dir.path().join("plain");
        fs::write(&plain, b"x").unwrap();
        let p = dir.path().join("f");
        write_atomic(&p, b"x").unwrap();
        assert_eq!(mode(&p), mode(&plain));
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"y").unwrap();
        assert_eq!(mode(&p), 0o640);
    }
}
