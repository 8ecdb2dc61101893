//! The grid game's command: `yinsh-zero solve-grid`, the game solved
//! exactly.

use std::time::Instant;

use anyhow::{Context, ensure};
use serde_json::json;

use super::grade::{GridGradeOptions, GridGradeReport};
use super::solve::Solver;
use super::{Grid, MAX_SIDE};
use crate::arena::grade::percent as pct;
use crate::arena::{GradeRequest, parse_game_player};
use crate::game::{Color, Game, State};
use crate::util::out::println;

/// The grid game's commands, as the command line lists them.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Solve the UMO 2014 grid game exactly: winner, min-max length, an
    /// optimal line.
    SolveGrid(Args),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::SolveGrid(a) => run(a),
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Board side (odd, 5 to 11; the problem's is 9). Several may be given.
    #[arg(long, num_args = 1.., default_values_t = [9u8])]
    pub size: Vec<u8>,
    /// Print one JSON object per size instead of text.
    #[arg(long)]
    pub json: bool,
}

fn run(args: Args) -> anyhow::Result<()> {
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

fn print_grid(player: &str, variant: &str, report: &GridGradeReport, mistakes: bool) {
    println!("graded: {player} on the {variant} grid game");
    for (name, t) in [
        ("solver lines", &report.solver_lines),
        ("own games", &report.own_games),
    ] {
        for (side, s) in [("Player 1", &t.player1), ("Player 2", &t.player2)] {
            let unsolved = if s.unsolved > 0 {
                format!(
                    " ({} more left out: past the solver's node budget)",
                    s.unsolved
                )
            } else {
                String::new()
            };
            println!(
                "{name:<13} {side}: {:>5} decisions, {} keep the winner, {} optimal{unsolved}",
                s.decisions,
                pct(s.preserving_share()),
                pct(s.optimal_share())
            );
        }
    }
    for (side, v) in [
        ("as Player 2 vs solver", &report.as_player2),
        ("as Player 1 vs solver", &report.as_player1),
    ] {
        if v.games == 0 {
            continue;
        }
        let within = if side.contains("Player 2") {
            format!("won within {} moves of Player 1", v.optimal_p1_moves)
        } else {
            format!("held out at least {} moves of Player 1", v.optimal_p1_moves)
        };
        let unresolved = if v.unresolved > 0 {
            format!(
                "; {} stopped unresolved (the solver's move past its node budget), counted as not won",
                v.unresolved
            )
        } else {
            String::new()
        };
        println!(
            "{side}: {} games, {} won ({}), {} {within} ({}){unresolved}",
            v.games,
            v.wins,
            pct(f64::from(v.wins) / f64::from(v.games)),
            v.optimal_length,
            pct(f64::from(v.optimal_length) / f64::from(v.games)),
        );
    }
    if mistakes {
        for m in &report.mistakes {
            println!("\n{m}");
        }
    }
}

/// `grade` for the grid game: the player's decisions against the exact
/// solver ([`super::grade`]), printed.
pub(crate) fn grade(game: &Grid, req: &GradeRequest) -> anyhow::Result<()> {
    let spec = &req.spec;
    let variant = game.variant();
    parse_game_player(game, spec, 0).with_context(|| format!("player `{spec}`"))?;
    let opts = GridGradeOptions {
        solver_lines: req.lines,
        own_games: req.games,
        versus_solver: req.vs_perfect,
        solver_nodes: req.solver_nodes,
        seed: req.seed,
    };
    let mut make = |seed: u64| parse_game_player(game, spec, seed).map_err(|e| e.to_string());
    let report = super::grade::grade(game, &mut make, &opts)?;
    if req.json {
        println!(
            "{}",
            json!({"player": spec, "game": "grid", "variant": variant, "report": report})
        );
    } else {
        print_grid(spec, variant, &report, req.mistakes);
    }
    Ok(())
}
