//! `yinsh-zero perft`: count decision sequences from a position.

use std::time::Instant;

use anyhow::{Context, bail};
use yinsh_zero::yinsh::Position;
use yinsh_zero::yinsh::perft::{perft_divide, perft_parallel};

#[derive(clap::Args)]
pub struct Args {
    /// Number of decisions to look ahead (placements, ring moves, passes,
    /// row and ring removals each count one).
    #[arg(long, short)]
    depth: u32,
    /// Play the Blitz variant (one removed ring wins).
    #[arg(long)]
    blitz: bool,
    /// Print the count below each legal first decision.
    #[arg(long)]
    divide: bool,
    /// Start after these decisions, whitespace-separated, one action each in
    /// single-decision notation: `e3` (place), `a2-h9` (move), `xg5-g9`
    /// (remove a row), `xa5` (remove a ring), `pass`. Example:
    /// --moves "e3 f6 g5".
    #[arg(long, value_name = "ACTIONS", default_value = "")]
    moves: String,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut pos = if args.blitz {
        Position::blitz()
    } else {
        Position::new()
    };
    for (step, text) in args.moves.split_whitespace().enumerate() {
        let legal = pos.legal_actions();
        let Some(&action) = legal.iter().find(|a| a.to_string() == text) else {
            let listed: Vec<String> = legal.iter().map(ToString::to_string).collect();
            bail!(
                "--moves step {}: `{text}` is not a legal action here (legal: {})\n{pos}",
                step + 1,
                if listed.is_empty() {
                    "none, the game is over".to_string()
                } else {
                    listed.join(" ")
                }
            );
        };
        pos.play(action)
            .with_context(|| format!("--moves step {}", step + 1))?;
    }
    println!("{pos}");

    let started = Instant::now();
    let nodes = if args.divide {
        let divide = perft_divide(&pos, args.depth);
        for (action, n) in &divide {
            println!("{action}: {n}");
        }
        if divide.is_empty() {
            // Depth 0 or a finished game: the position itself is the one leaf.
            perft_parallel(&pos, args.depth)
        } else {
            divide.iter().map(|&(_, n)| n).sum()
        }
    } else {
        perft_parallel(&pos, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    println!("perft {}: {nodes}", args.depth);
    println!(
        "time {seconds:.3} s, {:.0} nodes/s",
        nodes as f64 / seconds.max(1e-9)
    );
    Ok(())
}
