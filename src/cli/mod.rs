//! Clap commands. Each command lives in its own file and only parses,
//! calls the library and prints.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use clap::{Parser, Subcommand};

// Before the command modules, so that their `println!` is this one:
// output that a closed pipe ends quietly (see `util::out`).
use crate::games::{Builtin, Registry};
use crate::util::out;

/// `println!` that ends the process quietly when stdout's reader has gone.
macro_rules! println {
    () => {
        $crate::util::out::print(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::util::out::print(format_args!($($arg)*), true)
    };
}

mod average;
mod bench;
mod engine;
mod evaluate;
mod export;
mod grade;
mod matchcmd;
mod perft;
mod selfplay;
mod serve;
mod train;
mod worker;

/// AlphaZero-style self-play trainer for YINSH and other board games.
#[derive(Parser)]
#[command(name = "yinsh-zero", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train: self-play, replay, training, gating, checkpoints; resumes a run.
    Train(train::Args),
    /// Begin a run with a warm start: the network imitates a classical
    /// player's games (the config's `[pretrain]`), then `train` goes on.
    Pretrain(train::PretrainArgs),
    /// Print a run's generation, best checkpoint, gating results and throughput.
    Status(train::StatusArgs),
    /// Self-play for a run at a location: play with its best network,
    /// upload the games, pick up newer networks, until stopped
    /// (docs/distributed.md).
    Worker(worker::Args),
    /// Write a checkpoint's weights as safetensors with a JSON manifest.
    Export(export::Args),
    /// Average checkpoints' networks into one (the last generations of a
    /// run: stochastic weight averaging).
    Average(average::Args),
    /// Count decision sequences from a position (move-generation check).
    Perft(perft::Args),
    /// Play a match between two players and report wins/draws/losses per colour.
    Match(matchcmd::Args),
    /// Play self-play games with a network and write training records.
    Selfplay(selfplay::Args),
    /// Measure the speed of a hot path.
    Bench(bench::Args),
    /// Rate players: round robin or gauntlet, paired openings, W/D/L, Elo, SPRT.
    Evaluate(evaluate::Args),
    /// Speak the text engine protocol on stdin/stdout (docs/engine-protocol.md).
    Engine(engine::Args),
    /// Serve the play page, the rules, the training dashboard and a JSON API.
    Serve(serve::Args),
    /// Grade a network or player against perfect play (Morris: the solved
    /// database; the grid game and Connect Four: their exact solvers):
    /// share of value-keeping
    /// and optimal decisions, value-head accuracy, score vs perfect play.
    Grade(grade::Args),
    /// The registered games' own commands (each game's `commands.rs`).
    #[command(flatten)]
    Game(crate::games::GameCommand),
}

/// `--backend`, for every command that runs a network.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct BackendArg {
    /// The backend that runs the network: flex (CPU), cuda or wgpu (the
    /// last two need the cargo features of those names). Default: the
    /// config's `[loop] backend` (flex in the default config).
    #[arg(long, value_name = "flex|cuda|wgpu")]
    pub backend: Option<crate::nn::BackendKind>,
}

impl BackendArg {
    /// The flag's backend, else `config`'s; said on stderr (stdout may be
    /// JSON) so that a run's log shows where its network ran (on the CPU,
    /// with the instruction-set path of its kernels).
    pub fn choose(self, config: crate::nn::BackendKind) -> crate::nn::BackendKind {
        let b = self.backend.unwrap_or(config);
        let kernels = match b {
            crate::nn::BackendKind::Flex => {
                format!(", native kernels on the {} path", crate::nn::Simd::active())
            }
            _ => String::new(),
        };
        eprintln!("network on the {b} backend ({}){kernels}", b.hardware());
        b
    }
}

/// `--simd`, for the benchmarks of the native CPU kernels.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct SimdArg {
    /// The instruction-set path of the native CPU kernels: avx512, avx2
    /// or portable (default: the environment's `YINSH_ZERO_SIMD`, else the
    /// fastest this CPU has), to measure each path on one machine.
    #[arg(long, value_name = "avx512|avx2|portable")]
    pub simd: Option<crate::nn::Simd>,
}

impl SimdArg {
    /// Forces the flag's path, if given (before [`BackendArg::choose`],
    /// which says which path runs).
    pub fn apply(self) -> anyhow::Result<()> {
        if let Some(path) = self.simd {
            crate::nn::simd::force(path)?;
        }
        Ok(())
    }
}

/// A flag the first Ctrl-C raises (saying what will happen); a second one
/// quits at once.
fn stop_on_ctrl_c(what: &'static str) -> anyhow::Result<std::sync::Arc<AtomicBool>> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            // A second Ctrl-C: the user does not want to wait.
            std::process::exit(130);
        }
        eprintln!("{what} (Ctrl-C again to quit at once)");
    })
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}

/// The `yinsh-zero` binary: the command line over this crate's games.
pub fn main() -> ExitCode {
    main_with::<Builtin>()
}

/// The whole command line (`train`, `status`, `selfplay`, `evaluate`,
/// `match`, `engine`, `export`, `grade`, `serve`, ...) over the games of
/// `R`: a program built on this library hands it its own game with
/// [`With`](crate::games::With), and gets every command for it.
///
/// ```no_run
/// use yinsh_zero::games::{With, morris::Morris};
///
/// fn main() -> std::process::ExitCode {
///     // Your game in place of Morris: the home game, then the built-in ones.
///     yinsh_zero::cli::main_with::<With<Morris>>()
/// }
/// ```
pub fn main_with<R: Registry>() -> ExitCode {
    let cli = Cli::parse();
    // A mistyped path is an error now, not a panic mid-run.
    if let Err(e) = crate::nn::simd::from_env() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Train(a) => train::run::<R>(a),
        Command::Pretrain(a) => train::pretrain::<R>(a),
        Command::Status(a) => train::status(a),
        Command::Worker(a) => worker::run::<R>(a),
        Command::Export(a) => export::run::<R>(a),
        Command::Average(a) => average::run::<R>(a),
        Command::Perft(a) => perft::run::<R>(a),
        Command::Match(a) => matchcmd::run::<R>(a),
        Command::Bench(a) => bench::run::<R>(a),
        Command::Selfplay(a) => selfplay::run::<R>(a),
        Command::Evaluate(a) => evaluate::run::<R>(a),
        Command::Engine(a) => engine::run::<R>(a),
        Command::Serve(a) => serve::run::<R>(a),
        Command::Grade(a) => grade::run::<R>(a),
        Command::Game(c) => c.run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `engine` and `serve` write to stdout themselves and return its
        // errors: a reader that went away ends them as it ends `println!`.
        Err(e) if out::is_closed_stdout(&e) => out::end_quietly(),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The variant a command's `--variant` and its `--blitz` shorthand name
/// together (clap lets only one of the two be given); neither: the game's
/// first variant (`standard`, `nine`, `9x9`).
fn variant_of<'a, R: Registry>(
    game: &str,
    variant: Option<&'a str>,
    blitz: bool,
) -> Result<&'a str, crate::games::GameChoiceError> {
    match (variant, blitz) {
        (_, true) => Ok("blitz"),
        (Some(v), false) => Ok(v),
        (None, false) => R::default_variant(game),
    }
}

/// The game a `--game` names, else the registry's home game.
fn game_of<R: Registry>(game: &Option<String>) -> &str {
    game.as_deref().unwrap_or_else(|| R::home())
}
