//! The real `yinsh-zero` binary run to its end, as a user would run it,
//! and the checks of how it ended. A failed check shows what the binary
//! printed, since its own error message is what says why.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// The binary Cargo built for this test run, not one found on `PATH`.
pub const BIN: &str = env!("CARGO_BIN_EXE_yinsh-zero");

/// Runs `yinsh-zero ARGS` to its end and returns what it printed. Its
/// stdin is closed (as with [`Command::output`]), so a command that reads
/// it, such as `engine`, sees the end of its input rather than waiting.
#[track_caller]
pub fn yz<I, A>(args: I) -> Output
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    output(Command::new(BIN).args(args))
}

/// [`yz`] run from `dir`, for arguments that name files relative to it.
#[track_caller]
pub fn yz_in<I, A>(dir: impl AsRef<Path>, args: I) -> Output
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    output(Command::new(BIN).current_dir(dir).args(args))
}

/// [`yz_in`] with the environment variable `name` set to `value`.
#[track_caller]
pub fn yz_in_env<I, A>(dir: impl AsRef<Path>, (name, value): (&str, &str), args: I) -> Output
where
    I: IntoIterator<Item = A>,
    A: AsRef<OsStr>,
{
    output(
        Command::new(BIN)
            .current_dir(dir)
            .env(name, value)
            .args(args),
    )
}

#[track_caller]
fn output(command: &mut Command) -> Output {
    match command.output() {
        Ok(out) => out,
        Err(e) => panic!("cannot start {BIN}: {e}"),
    }
}

/// Asserts that the command succeeded and returns its stdout, which must
/// be UTF-8 since tests parse it. The panic names the test's line (these
/// helpers track their caller), not one in this file.
#[track_caller]
pub fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "yinsh-zero failed ({}):\n{}",
        out.status,
        printed(out)
    );
    match String::from_utf8(out.stdout.clone()) {
        Ok(stdout) => stdout,
        Err(e) => panic!("yinsh-zero's stdout is not UTF-8: {e}"),
    }
}

/// Asserts that the command failed and returns its stderr, where it says
/// why; read only for its words, so bytes that are not UTF-8 are replaced.
#[track_caller]
pub fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "yinsh-zero succeeded where it should fail:\n{}",
        printed(out)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn printed(out: &Output) -> String {
    format!(
        "--- stderr\n{}\n--- stdout\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    )
}
