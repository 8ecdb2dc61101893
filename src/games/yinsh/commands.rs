//! YINSH's commands: `yinsh-zero sgf` (a BoardSpace record step by step,
//! also `replay`) and `yinsh-zero stats` (branching factors and game
//! lengths of random games). Each parses, calls the rules and prints.

use std::path::PathBuf;

use anyhow::{Context, ensure};

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
