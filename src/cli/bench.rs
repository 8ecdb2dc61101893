//! `yinsh-zero bench <what>`: speed of one hot path.

use anyhow::ensure;
use clap::Subcommand;

use yinsh_zero::bench::bench_engine;
use yinsh_zero::mcts::{SearchConfig, bench_search};

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
    /// The tree search on one thread with games in flight as in self-play:
    /// simulations per second with a uniform evaluator (search overhead alone).
    Search(SearchArgs),
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Seconds to measure for.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Simulations per move.
    #[arg(long, default_value_t = 200)]
    pub sims: u32,
    /// Games stepped together, one leaf each per batch.
    #[arg(long, default_value_t = 32)]
    pub games: usize,
    /// Use Gumbel root search instead of PUCT.
    #[arg(long)]
    pub gumbel: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
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
        What::Search(a) => search(a),
    }
}

fn check_seconds(seconds: f64) -> anyhow::Result<()> {
    ensure!(
        seconds.is_finite() && seconds > 0.0,
        "--seconds must be a positive number, got {seconds}"
    );
    Ok(())
}

fn search(args: SearchArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
    ensure!(args.sims > 0, "--sims must be at least 1");
    let cfg = SearchConfig {
        simulations: args.sims,
        gumbel: args.gumbel,
        ..SearchConfig::default()
    };
    cfg.validate()?;
    let b = bench_search(args.seconds, &cfg, args.games, 1);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        println!(
            "search benchmark ({}), one thread, {} games in flight, {} sims/move, {:.1} s",
            if b.gumbel { "Gumbel" } else { "PUCT" },
            b.games_in_flight,
            b.simulations_per_move,
            b.seconds
        );
        println!(
            "simulations, uniform evaluator: {:>10.0} /s  ({} moves, {} games finished)",
            b.sims_per_s_uniform, b.moves, b.games_finished
        );
    }
    Ok(())
}

fn engine(args: EngineArgs) -> anyhow::Result<()> {
    check_seconds(args.seconds)?;
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
