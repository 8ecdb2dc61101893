//! `yinsh-zero stats`: branching factors and game lengths of random games.

use std::path::PathBuf;

use anyhow::{Context, ensure};

use yinsh_zero::games::yinsh::Variant;
use yinsh_zero::stats::{plot_branching, random_game_stats};

#[derive(clap::Args)]
pub struct Args {
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

pub fn run(args: Args) -> anyhow::Result<()> {
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
