//! Progress of one phase of a generation, for whoever watches: a bar on a
//! terminal, and plain lines where stderr is a log file, `nohup` or CI
//! (where a bar would print nothing at all).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a phase prints a plain line while it runs.
const PLAIN_EVERY: Duration = Duration::from_secs(30);

/// One phase's progress: `pos` of `len` units and a message.
pub struct Phase {
    what: String,
    unit: &'static str,
    len: u64,
    started: Instant,
    shown: Show,
}

enum Show {
    Bar(indicatif::ProgressBar),
    /// The time of the last line and the latest position and message.
    Lines(Mutex<(Instant, u64, String)>),
}

impl Phase {
    /// Starts showing `what` (e.g. `generation 3 self-play`), `len` `unit`s long.
    pub fn start(what: String, len: u64, unit: &'static str) -> Phase {
        let shown = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(len);
            bar.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "{what} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} {{msg}}"
                ))
                .expect("valid template"),
            );
            Show::Bar(bar)
        } else {
            eprintln!("{what}: {len} {unit}");
            Show::Lines(Mutex::new((Instant::now(), 0, String::new())))
        };
        Phase {
            what,
            unit,
            len,
            started: Instant::now(),
            shown,
        }
    }

    /// The phase is at `pos` units; `msg` says how it goes (rates, loss).
    pub fn set(&self, pos: u64, msg: String) {
        match &self.shown {
            Show::Bar(bar) => {
                bar.set_position(pos);
                bar.set_message(msg);
            }
            Show::Lines(last) => {
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                if last.0.elapsed() >= PLAIN_EVERY {
                    eprintln!("{}: {pos}/{} {}, {msg}", self.what, self.len, self.unit);
                    last.0 = Instant::now();
                }
                last.1 = pos;
                last.2 = msg;
            }
        }
    }

    /// The phase is over: the bar goes away, or a last line says how far it got.
    pub fn finish(self) {
        match self.shown {
            Show::Bar(bar) => bar.finish_and_clear(),
            Show::Lines(last) => {
                let (_, pos, msg) = last.into_inner().unwrap_or_else(|e| e.into_inner());
                let sep = if msg.is_empty() { "" } else { ", " };
                eprintln!(
                    "{}: {pos}/{} {} in {:.0} s{sep}{msg}",
                    self.what,
                    self.len,
                    self.unit,
                    self.started.elapsed().as_secs_f64()
                );
            }
        }
    }
}
