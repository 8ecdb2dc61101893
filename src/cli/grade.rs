//! `yinsh-zero grade`: a player's decisions against perfect play: a Morris
//! player against the solved database, a grid-game player against the
//! exact solver.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail, ensure};
use serde_json::json;

use yinsh_zero::arena::parse_game_player;
use yinsh_zero::checkpoint;
use yinsh_zero::game::Game;
use yinsh_zero::games::grid::Grid;
use yinsh_zero::games::grid::grade::{self as grid_grade, GridGradeOptions, GridGradeReport};
use yinsh_zero::games::morris::Morris;
use yinsh_zero::games::morris::db::Database;
use yinsh_zero::games::morris::grade::{GradeOptions, GradeReport, Tally, grade};

use super::BackendArg;

#[derive(clap::Args)]
pub struct Args {
    /// The network to grade (a checkpoint folder, a `best` pointer file or
    /// a run's checkpoints folder). Its value head is graded too.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Simulations per decision of the network's search (`net-mcts`); 0
    /// grades the bare policy (`net-policy`).
    #[arg(long, default_value_t = 100)]
    pub sims: u32,
    /// Grade this player spec instead (e.g. `alphabeta:depth=3`); with
    /// --checkpoint the network's value head is still graded.
    #[arg(long, value_name = "SPEC")]
    pub player: Option<String>,
    /// The game: morris or grid (default: the checkpoint's, else morris).
    #[arg(long)]
    pub game: Option<String>,
    /// The variant (default: the checkpoint's, else six for Morris and
    /// 9x9 for the grid game).
    #[arg(long)]
    pub variant: Option<String>,
    /// The database folder (default data/morris/<variant>).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Games of the player against itself whose decisions are graded.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Grid game: optimal games (the solver against itself, ties at
    /// random) on whose positions the player decides.
    #[arg(long, default_value_t = 20)]
    pub lines: usize,
    /// Positions from random play the player decides on.
    #[arg(long, default_value_t = 200)]
    pub positions: usize,
    /// Morris: positions drawn from the database's solved moving-phase
    /// layers (each layer, and each state in it, equally likely), graded by
    /// layer: Nine Men's Morris's endgame, which whole games seldom reach
    /// inside the solved layers.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub endgame: usize,
    /// Games against the database's perfect player (colours alternated,
    /// from the empty board); for the grid game, games against the solver
    /// on each side.
    #[arg(long, default_value_t = 20)]
    pub vs_perfect: usize,
    /// Grid game: positions the solver may search for one question (a
    /// decision's values, or its move in a game) before leaving it
    /// unanswered (about 2 µs and 40 bytes each): where Player 2 has
    /// strayed and Player 1 wins late, one question can take minutes.
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    pub solver_nodes: u64,
    /// Random decisions opening each of the player's own games.
    #[arg(long, default_value_t = 2)]
    pub opening: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print up to ten value-losing decisions.
    #[arg(long)]
    pub mistakes: bool,
    #[command(flatten)]
    pub backend: BackendArg,
}

fn tally_line(name: &str, t: &Tally) -> String {
    format!(
        "{name:<18} {:>6} decisions: {} keep the value, {} optimal; critical {}/{} = {}{}",
        t.decisions,
        pct(t.preserving_share()),
        pct(t.optimal_share()),
        t.critical_preserving,
        t.critical,
        pct(t.critical_share()),
        if t.unsolved > 0 {
            format!(" ({} outside the solved layers)", t.unsolved)
        } else {
            String::new()
        }
    )
}

fn print_text(player: &str, report: &GradeReport, mistakes: bool) {
    println!("graded: {player}");
    println!("{}", tally_line("own games", &report.own_games));
    println!(
        "{}",
        tally_line("random positions", &report.random_positions)
    );
    if let Some(v) = &report.value_head {
        println!(
            "value head         {:>6} positions: {:.1}% right (win/draw/loss, rows truth, columns guess: {:?})",
            v.positions(),
            100.0 * v.accuracy(),
            v.confusion
        );
    }
    if !report.endgame.is_empty() {
        for (layer, t) in &report.endgame {
            println!("{}", tally_line(&format!("endgame {layer}"), t));
        }
        println!("{}", tally_line("endgame, all", &endgame_total(report)));
    }
    if let Some(v) = &report.endgame_value_head {
        println!(
            "value head, endgame {:>5} positions: {:.1}% right (confusion {:?})",
            v.positions(),
            100.0 * v.accuracy(),
            v.confusion
        );
    }
    let p = &report.versus_perfect;
    let n = p.wins + p.draws + p.losses;
    if n > 0 {
        println!(
            "vs perfect         {n:>6} games: {} wins, {} draws, {} losses (score {:.1}%; a draw is the best possible)",
            p.wins,
            p.draws,
            p.losses,
            100.0 * (f64::from(p.wins) + 0.5 * f64::from(p.draws)) / f64::from(n)
        );
        println!(
            "{}",
            tally_line("  its decisions", &report.versus_perfect_decisions)
        );
    }
    if mistakes {
        for m in &report.mistakes {
            println!("\n{m}");
        }
        if !report.versus_perfect_mistakes.is_empty() {
            println!("\nin games against perfect:");
            for m in &report.versus_perfect_mistakes {
                println!("\n{m}");
            }
        }
    }
}

fn endgame_total(report: &GradeReport) -> Tally {
    report
        .endgame
        .values()
        .fold(Tally::default(), |a, t| a.merged(t))
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * x)
    }
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

pub fn run(args: Args) -> anyhow::Result<()> {
    let checkpoint = args
        .checkpoint
        .as_deref()
        .map(checkpoint::resolve)
        .transpose()
        .context("--checkpoint")?;
    let meta = checkpoint
        .as_deref()
        .map(checkpoint::read_meta)
        .transpose()?;
    let game_name = match (&args.game, &meta) {
        (Some(g), _) => g.clone(),
        (None, Some(m)) => m.game.clone(),
        (None, None) => Morris::NAME.into(),
    };
    ensure!(
        game_name == Morris::NAME || game_name == Grid::NAME,
        "grade knows perfect play of morris and grid, not of {game_name}"
    );
    if let Some(m) = &meta {
        ensure!(
            m.game == game_name,
            "the checkpoint plays {}, not {game_name}",
            m.game
        );
    }
    let variant = match (&args.variant, &meta) {
        (Some(v), _) => v.clone(),
        (None, Some(m)) => m.variant.clone(),
        (None, None) if game_name == Grid::NAME => "9x9".into(),
        (None, None) => "six".into(),
    };
    let spec_of = |checkpoint: &Option<PathBuf>| -> anyhow::Result<String> {
        Ok(match (&args.player, checkpoint) {
            (Some(s), _) => s.clone(),
            (None, Some(c)) if args.sims == 0 => format!("net-policy:checkpoint={}", c.display()),
            (None, Some(c)) => format!("net-mcts:checkpoint={},sims={}", c.display(), args.sims),
            (None, None) => bail!("give --checkpoint (a network to grade) or --player SPEC"),
        })
    };
    if game_name == Grid::NAME {
        let game = Grid::with_variant(&variant).map_err(anyhow::Error::msg)?;
        let spec = spec_of(&checkpoint)?;
        parse_game_player(&game, &spec, 0).with_context(|| format!("player `{spec}`"))?;
        let opts = GridGradeOptions {
            solver_lines: args.lines,
            own_games: args.games,
            versus_solver: args.vs_perfect,
            solver_nodes: args.solver_nodes,
            seed: args.seed,
        };
        let mut make = |seed: u64| parse_game_player(&game, &spec, seed).map_err(|e| e.to_string());
        let report = grid_grade::grade(&game, &mut make, &opts)?;
        if args.json {
            println!(
                "{}",
                json!({"player": spec, "game": "grid", "variant": variant, "report": report})
            );
        } else {
            print_grid(&spec, &variant, &report, args.mistakes);
        }
        return Ok(());
    }
    let game = Morris::with_variant(&variant).map_err(anyhow::Error::msg)?;
    let spec = spec_of(&checkpoint)?;
    // Fail on a bad spec before the database loads.
    parse_game_player(&game, &spec, 0).with_context(|| format!("player `{spec}`"))?;
    let dir = args
        .db
        .clone()
        .unwrap_or_else(|| Database::default_dir(game.rules));
    let missing = || {
        format!(
            "no {variant} database at {} (make it: yinsh-zero solve --variant {variant})",
            dir.display()
        )
    };
    let db = Arc::new(Database::open(&dir, game.rules).with_context(missing)?);
    ensure!(db.layers().next().is_some(), missing());
    let mut head = match &checkpoint {
        Some(c) => {
            let backend = args.backend.choose(yinsh_zero::nn::BackendKind::Flex);
            Some(checkpoint::load_evaluator(&game, c, backend)?)
        }
        None => None,
    };
    let opts = GradeOptions {
        own_games: args.games,
        random_positions: args.positions,
        perfect_games: args.vs_perfect,
        random_opening: args.opening,
        endgame_positions: args.endgame,
        seed: args.seed,
    };
    let mut make = |seed: u64| parse_game_player(&game, &spec, seed).map_err(|e| e.to_string());
    let report = grade(
        &game,
        &db,
        &mut make,
        head.as_mut()
            .map(|h| h as &mut dyn yinsh_zero::evaluator::Evaluator<_>),
        &opts,
    )?;
    if args.json {
        println!(
            "{}",
            json!({
                "player": spec,
                "variant": variant,
                "own_games": report.own_games,
                "own_games_preserving_share": report.own_games.preserving_share(),
                "random_positions": report.random_positions,
                "random_positions_preserving_share": report.random_positions.preserving_share(),
                "value_head": report.value_head,
                "value_head_accuracy": report.value_head.as_ref().map(|v| v.accuracy()),
                "endgame": report.endgame,
                "endgame_total": endgame_total(&report),
                "endgame_optimal_share": endgame_total(&report).optimal_share(),
                "endgame_preserving_share": endgame_total(&report).preserving_share(),
                "endgame_value_head": report.endgame_value_head,
                "endgame_value_head_accuracy": report.endgame_value_head.as_ref().map(|v| v.accuracy()),
                "versus_perfect": report.versus_perfect,
                "versus_perfect_decisions": report.versus_perfect_decisions,
                "mistakes": report.mistakes,
                "versus_perfect_mistakes": report.versus_perfect_mistakes,
            })
        );
    } else {
        print_text(&spec, &report, args.mistakes);
    }
    Ok(())
}
