//! `yinsh-zero solve-grid`: the UMO 2014 grid game solved exactly.

use std::time::Instant;

use anyhow::ensure;
use serde_json::json;

use yinsh_zero::game::{Color, Game, State};
use yinsh_zero::games::grid::solve::Solver;
use yinsh_zero::games::grid::{Grid, MAX_SIDE};

#[derive(clap::Args)]
pub struct Args {
    /// Board side (odd, 5 to 11; the problem's is 9). Several may be given.
    #[arg(long, num_args = 1.., default_values_t = [9u8])]
    pub size: Vec<u8>,
    /// Print one JSON object per size instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    for &n in &args.size {
        ensure!(
            n % 2 == 1 && (5..=MAX_SIDE).contains(&n),
            "--size {n}: the side must be odd, 5 to {MAX_SIDE}"
        );
        let grid = Grid::new(n);
        let start = grid.start();
        let t = Instant::now();
        let mut solver = Solver::new(grid);
        let value = solver.value(&start);
        let line = solver.line(&start);
        let seconds = t.elapsed().as_secs_f64();
        let mut end = start;
        for &a in &line {
            end.play_unchecked(a);
        }
        let stones = end.red().count_ones();
        let winner = if value.winner == Color::White {
            "Player 1"
        } else {
            "Player 2"
        };
        let line_text = grid.format_game(&start, &line);
        if args.json {
            println!(
                "{}",
                json!({
                    "size": n,
                    "winner": winner,
                    "player1_moves": value.p1_moves,
                    "red_stones": stones,
                    "line": line_text,
                    "nodes": solver.nodes,
                    "seconds": seconds,
                })
            );
        } else {
            println!(
                "{n}x{n}: {winner} wins; Player 1 makes {} moves, {stones} Red stones at the end \
                 ({} positions searched, {seconds:.2} s)",
                value.p1_moves, solver.nodes
            );
            println!("  optimal line: {line_text}");
        }
    }
    Ok(())
}
