//! YINSH's commands: `yinsh-zero sgf` (a BoardSpace record step by step,
//! also `replay`), `yinsh-zero stats` (branching factors and game lengths
//! of random games), and its benchmarks `bench engine` and `bench
//! baselines`. Each parses, calls the rules and prints.

use std::path::PathBuf;

use anyhow::{Context, ensure};

use super::bench::{bench_baselines, bench_engine};
use super::notation::format_game;
use super::sgf::parse_sgf;
use super::stats::{plot_branching, random_game_stats};
use super::{Position, Variant};
use crate::util::out::{print, println};

/// YINSH's commands, as the command line lists them.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Replay a BoardSpace `.sgf` game record step by step (also `replay`).
    #[command(alias = "replay")]
    Sgf(SgfArgs),
    /// Play uniformly random games and report branching factors and game lengths.
    Stats(StatsArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Sgf(a) => sgf(a),
            Command::Stats(a) => stats(a),
        }
    }
}

#[derive(clap::Args)]
pub struct SgfArgs {
    /// The BoardSpace `.sgf` record.
    file: PathBuf,
    /// Print only the result, as one JSON object:
    /// `{"steps": N, "result": ..., "reason": ..., "rings_removed": {"white": W, "black": B}}`.
    #[arg(long)]
    json: bool,
}

fn sgf(args: SgfArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let game = parse_sgf(&text).with_context(|| format!("{}", args.file.display()))?;
    let result = game.result();
    if args.json {
        println!("{}", serde_json::to_string(&result)?);
        return Ok(());
    }
    let start = Position::with_variant(game.final_position.variant());
    let mut pos = start;
    for step in &game.steps {
        pos.play(step.action)
            .context("a parsed record replays the same way")?;
        println!("step {} ({}): {}", step.number, step.player, step.action);
        println!("{pos}\n");
    }
    if let Some(c) = game.resigned {
        println!("{c} resigned");
    }
    println!("game: {}", format_game(&start, &game.actions));
    let rings = result.rings_removed;
    println!(
        "result: {} ({}), {} decisions, rings removed white {} black {}",
        result.result, result.reason, result.steps, rings[0], rings[1]
    );
    Ok(())
}

#[derive(clap::Args)]
pub struct StatsArgs {
    /// Number of uniformly random games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Seed; the same seed gives the same report on any number of threads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Blitz rules: the first ring removed wins.
    #[arg(long)]
    pub blitz: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also draw mean options by turn as an SVG chart to this file.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

fn stats(args: StatsArgs) -> anyhow::Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    let variant = Variant::blitz_if(args.blitz);
    let stats = random_game_stats(args.games, args.seed, variant);
    if let Some(path) = &args.plot {
        plot_branching(&stats, path).context("writing --plot")?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        print!("{stats}");
        if let Some(path) = &args.plot {
            println!("chart written to {}", path.display());
        }
    }
    Ok(())
}

/// YINSH's own benchmarks, as `yinsh-zero bench` lists them.
#[derive(clap::Subcommand)]
pub enum BenchCommand {
    /// The rules engine on one thread: random games, legal action and
    /// ring-move generation per second.
    Engine(EngineArgs),
    /// The baseline players on one thread, over the same sampled
    /// movement-phase positions: alpha-beta nodes/s at depths 2 and 3,
    /// mcts-rollout playouts/s, greedy decisions/s.
    Baselines(BaselinesArgs),
}

impl BenchCommand {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            BenchCommand::Engine(a) => bench_engine_run(a),
            BenchCommand::Baselines(a) => bench_baselines_run(a),
        }
    }
}

fn positive_seconds(seconds: f64) -> anyhow::Result<()> {
    ensure!(
        seconds.is_finite() && seconds > 0.0,
        "--seconds must be a positive number, got {seconds}"
    );
    Ok(())
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

#[derive(clap::Args)]
pub struct BaselinesArgs {
    /// Seconds to measure each player for.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Playouts per mcts-rollout decision.
    #[arg(long, default_value_t = 1000)]
    pub playouts: u32,
    /// Seed of the sampled positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

fn bench_engine_run(args: EngineArgs) -> anyhow::Result<()> {
    positive_seconds(args.seconds)?;
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

fn bench_baselines_run(args: BaselinesArgs) -> anyhow::Result<()> {
    positive_seconds(args.seconds)?;
    ensure!(args.playouts > 0, "--playouts must be at least 1");
    let (positions, out) = bench_baselines(args.seconds, args.playouts, args.seed)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "baseline benchmark, one thread, {} sampled movement-phase positions",
            positions
        );
        for b in &out {
            println!(
                "{:<28} {:>12.0} {}/s  ({} decisions, {:.0} {} per decision, {:.1} s){}",
                b.player,
                b.per_s,
                b.unit,
                b.decisions,
                b.per_decision,
                b.unit,
                b.seconds,
                if b.repeated {
                    "  (positions repeated)"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}
