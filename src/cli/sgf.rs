//! `yinsh-zero sgf FILE [--json]` (or `replay`): step through a BoardSpace record.

use std::path::PathBuf;

use anyhow::Context;
use yinsh_zero::games::yinsh::Position;
use yinsh_zero::games::yinsh::notation::format_game;
use yinsh_zero::games::yinsh::sgf::parse_sgf;

#[derive(clap::Args)]
pub struct Args {
    /// The BoardSpace `.sgf` record.
    file: PathBuf,
    /// Print only the result, as one JSON object:
    /// `{"steps": N, "result": ..., "reason": ..., "rings_removed": {"white": W, "black": B}}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
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
