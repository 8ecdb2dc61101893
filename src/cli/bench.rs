//! `yinsh-zero bench <what>`: speed of one hot path.

use anyhow::ensure;
use clap::Subcommand;

use yinsh_zero::bench::bench_engine;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to measure.
#[derive(Subcommand)]
pub enum What {
    /// The rules engine on one thread: random games, legal action and
    /// ring-move generation per second.
    Engine(EngineArgs),
}

#[derive(clap::Args)]
pub struct EngineArgs {
    /// Seconds to measure for, split over the three measurements.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Engine(a) => engine(a),
    }
}

fn engine(args: EngineArgs) -> anyhow::Result<()> {
    ensure!(
        args.seconds.is_finite() && args.seconds > 0.0,
        "--seconds must be a positive number, got {}",
        args.seconds
    );
    let b = bench_engine(args.seconds);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!("engine benchmark, one thread, {:.1} s", b.seconds);
        println!(
            "random games:        {:>12.0} /s  ({} games, {:.0} decisions/s)",
            b.random_games_per_s, b.random_games, b.decisions_per_s
        );
        println!(
            "legal action lists:  {:>12.0} /s  (over {} sampled positions)",
            b.movegen_per_s, b.sampled_positions
        );
        println!(
            "ring-move generation:{:>12.0} /s  (all rings of the side to move)",
            b.ring_movegen_per_s
        );
    }
    Ok(())
}
