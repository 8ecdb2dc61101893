//! A closed pipe ends a command quietly (issue 30): `yinsh-zero ... | head
//! -c 100` must end the command as it ends a Unix filter, killed by SIGPIPE
//! (status 141 in a shell) or with status 0, never with a panic and a
//! backtrace ("failed printing to stdout: Broken pipe").
//!
//! Each command runs as the real binary with its stdout on a pipe whose
//! reader goes away. Two readers:
//!
//! - [`Reader::Gone`]: the read end is closed before the command starts,
//!   so its first write fails, whatever the command prints and however
//!   fast: every command is checked this way, and must die of SIGPIPE
//!   (which also shows that its write did fail);
//! - [`Reader::OneByte`]: the reader takes one byte and closes, as `head
//!   -c 1` does. The command may have printed everything into the pipe
//!   before the reader closed it (a pipe holds 64 KiB on Linux), so here
//!   it may also end with status 0.

#![cfg(unix)]

use crate::common;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

use common::cli::BIN;

const SGF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/Y-DrMih-Dumbot-2026-02-20-0858.sgf"
);

/// SIGPIPE's number on Linux, the BSDs and macOS.
const SIGPIPE: i32 = 13;

#[derive(Clone, Copy, Debug)]
enum Reader {
    Gone,
    OneByte,
}

/// How the command ended, and its stderr.
struct Ended {
    status: ExitStatus,
    stderr: String,
}

#[track_caller]
fn run(args: &[&str], stdin: &str, reader: Reader) -> Ended {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match reader {
        Reader::Gone => {
            let (read, write) = std::io::pipe().expect("a pipe");
            drop(read);
            command.stdout(write).spawn()
        }
        Reader::OneByte => command.stdout(Stdio::piped()).spawn(),
    }
    .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    // The script is small: the pipe holds it whether or not it is read.
    let mut input = child.stdin.take().expect("stdin is piped");
    // A command that ended before reading its input closed this pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    if let Reader::OneByte = reader {
        let mut out = child.stdout.take().expect("stdout is piped");
        let mut byte = [0u8; 1];
        out.read_exact(&mut byte)
            .expect("the command prints at least one byte");
        drop(out);
    }
    let out = child.wait_with_output().expect("waiting for the command");
    Ended {
        status: out.status,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Checks that `yinsh-zero ARGS`, fed `stdin`, ends quietly when its
/// reader goes: killed by SIGPIPE (or status 0, when `may_finish` or the
/// reader took a byte first: clap ignores a failed `--help`), with nothing
/// on stderr about a panic.
#[track_caller]
fn ends_quietly(args: &[&str], stdin: &str, reader: Reader, may_finish: bool) {
    let ended = run(args, stdin, reader);
    let may_finish = may_finish || matches!(reader, Reader::OneByte);
    let by_sigpipe = ended.status.signal() == Some(SIGPIPE) || ended.status.code() == Some(141);
    let finished = may_finish && ended.status.success();
    assert!(
        by_sigpipe || finished,
        "`yinsh-zero {}` ({reader:?}) ended with {}, not by SIGPIPE{}; stderr:\n{}",
        args.join(" "),
        ended.status,
        if may_finish { " or 0" } else { "" },
        ended.stderr
    );
    for said in [
        "panicked",
        "stack backtrace",
        "RUST_BACKTRACE",
        "Broken pipe",
    ] {
        assert!(
            !ended.stderr.contains(said),
            "`yinsh-zero {}` ({reader:?}) said `{said}` on stderr:\n{}",
            args.join(" "),
            ended.stderr
        );
    }
}

#[test]
fn bench_nn_json_ends_quietly() {
    // A one-block network and a short measurement: the JSON object comes
    // after the benchmark, in one piece.
    let args = [
        "bench",
        "nn",
        "--json",
        "--seconds",
        "0.01",
        "--blocks",
        "1",
        "--channels",
        "8",
    ];
    ends_quietly(&args, "", Reader::Gone, false);
    // `| head -c 1`.
    ends_quietly(&args, "", Reader::OneByte, false);
}

#[test]
fn bench_nn_text_ends_quietly() {
    let args = [
        "bench",
        "nn",
        "--seconds",
        "0.01",
        "--blocks",
        "1",
        "--channels",
        "8",
    ];
    ends_quietly(&args, "", Reader::Gone, false);
}

#[test]
fn sgf_replay_ends_quietly() {
    // Every step's board, 55 KB: near what a pipe holds.
    ends_quietly(&["sgf", SGF], "", Reader::OneByte, false);
    ends_quietly(&["sgf", SGF], "", Reader::Gone, false);
    ends_quietly(&["replay", "--json", SGF], "", Reader::Gone, false);
}

#[test]
fn perft_stats_and_morris_end_quietly() {
    for args in [
        &["perft", "--depth", "1", "--divide"][..],
        &["perft", "--game", "grid", "--depth", "1"],
        &["stats", "--games", "2"],
        &["stats", "--games", "2", "--json"],
        &["morris", "layers", "--variant", "nine"],
        &["morris", "position", "--variant", "six", "0"],
        &["solve-grid", "--size", "5", "9", "--json"],
    ] {
        ends_quietly(args, "", Reader::Gone, false);
        ends_quietly(args, "", Reader::OneByte, false);
    }
}

#[test]
fn engine_protocol_ends_quietly() {
    // `engine` writes its replies itself (not with `println!`) and returns
    // the failed write as an error: that too must end quietly.
    ends_quietly(
        &["engine", "--player", "random"],
        "yinsh\nisready\nquit\n",
        Reader::Gone,
        false,
    );
    ends_quietly(
        &["engine", "--player", "random"],
        "yinsh\nisready\nquit\n",
        Reader::OneByte,
        false,
    );
}

#[test]
fn serve_ends_quietly_when_its_address_line_has_no_reader() {
    ends_quietly(
        &["serve", "--port", "0", "--host", "127.0.0.1"],
        "",
        Reader::Gone,
        false,
    );
}

#[test]
fn help_and_version_end_quietly() {
    // clap prints these itself and ignores a failed write.
    for args in [&["--help"][..], &["--version"], &["bench", "--help"]] {
        ends_quietly(args, "", Reader::Gone, true);
    }
}
