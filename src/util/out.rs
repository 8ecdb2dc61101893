//! Standard output that a closed pipe ends quietly.
//!
//! `yinsh-zero bench nn --json | head -c 100`: once `head` has what it
//! wants it exits, and the next write to our stdout fails with EPIPE. Rust
//! ignores SIGPIPE, so `println!` panicked ("failed printing to stdout:
//! Broken pipe") with a backtrace. A Unix filter instead dies of SIGPIPE,
//! quietly, and so do we now: every command's output goes through here.
//!
//! Why not simply restore SIGPIPE's default disposition at start? The
//! signal is process-wide and not only stdout's: `match` and `evaluate`
//! write to external engines' stdin (`cmd:` players), and an engine that
//! crashed would then kill the whole tournament silently instead of
//! failing as a player with a message that says what happened. So SIGPIPE
//! stays ignored, every write reports EPIPE as an error, and only an error
//! on *stdout* ends the process:
//!
//! - `println!` and `print!` in the command modules are this module's
//!   (the binary's `cli/mod.rs` defines them before its command modules,
//!   and a game's `commands.rs` imports `println` and [`print`] from
//!   here, shadowing the standard ones): a broken pipe is a quiet end, any
//!   other failure panics as the standard macros do;
//! - a command that writes to stdout itself (`engine`, the address line of
//!   `serve`) returns the error, and [`is_closed_stdout`] tells `main`
//!   that it was stdout's reader that went away.

use std::io::{self, Write};

/// `println!` that ends the process quietly when stdout's reader has gone.
macro_rules! quiet_println {
    () => {
        $crate::util::out::print(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::util::out::print(format_args!($($arg)*), true)
    };
}

/// `print!` that ends the process quietly when stdout's reader has gone.
macro_rules! quiet_print {
    ($($arg:tt)*) => {
        $crate::util::out::print(format_args!($($arg)*), false)
    };
}

pub(crate) use {quiet_print as print, quiet_println as println};

/// Writes `args` (and a newline when `newline`) to stdout; on a broken pipe
/// ends the process as SIGPIPE would ([`end_quietly`]).
pub fn print(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => end_quietly(),
        Err(e) => panic!("failed printing to stdout: {e}"),
    }
}

/// Whether `e` is, or was caused by, a write to a stdout whose reader has
/// gone: a broken pipe in its chain while stdout's pipe has no reader (a
/// broken pipe to an external engine, with stdout still read, is not).
pub fn is_closed_stdout(e: &anyhow::Error) -> bool {
    let broken_pipe = e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    });
    broken_pipe && stdout_reader_gone()
}

/// Whether stdout is a pipe or socket whose other end has closed.
#[cfg(unix)]
fn stdout_reader_gone() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout; poll reads and writes only it.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    // A write end whose reader has closed polls as POLLERR (Linux) or
    // POLLHUP (sockets, BSDs).
    ready == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// Elsewhere it cannot be told, and the error is reported.
#[cfg(not(unix))]
fn stdout_reader_gone() -> bool {
    false
}

/// Ends the process as a Unix filter ends when its reader has gone: killed
/// by SIGPIPE (exit status 141 in a shell), saying nothing, since there is
/// no one left to read it.
pub fn end_quietly() -> ! {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default and raising it
    // touch no memory of ours; the default action ends the process here.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    // Not reached on Unix; elsewhere the status a shell gives SIGPIPE.
    std::process::exit(141)
}
