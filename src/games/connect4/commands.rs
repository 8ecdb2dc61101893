//! Connect Four's commands: `yinsh-zero solve-connect4` (a position's
//! exact score and best columns), `yinsh-zero connect4-testset` (the
//! labelled test set), and the printer of `grade`'s report.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::json;

use super::book::build::{BuildOptions, Progress};
use super::book::{self, Book};
use super::grade::{Connect4GradeOptions, Connect4GradeReport, Tally, VersusPerfect};
use super::solve::{DEFAULT_TABLE_BITS, Score, Solver};
use super::testset::{self, GenerateOptions, Kind};
use super::{Connect4, Position};
use crate::arena::grade::percent as pct;
use crate::arena::{GradeRequest, parse_game_player};
use crate::game::{Color, Game, State};
use crate::util::out::println;

/// Connect Four's commands, as the command line lists them.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Solve a Connect Four position exactly: its score (Pascal Pons's
    /// convention), who wins in how many moves, and every column's score.
    SolveConnect4(SolveArgs),
    /// Generate the Connect Four test set: positions of six kinds labelled
    /// with their exact score (`<moves> <score>` per line).
    Connect4Testset(TestsetArgs),
    /// Grow (or check) the Connect Four opening book: the exact score of
    /// every column wherever `perfect` is to act in its first plies, on
    /// either side, so that no game waits minutes on them.
    Connect4Book(BookArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::SolveConnect4(a) => solve(a),
            Command::Connect4Testset(a) => make_testset(a),
            Command::Connect4Book(a) => grow_book(a),
        }
    }
}

#[derive(clap::Args)]
pub struct SolveArgs {
    /// The columns played from the empty board, as digits 1 to 7 (`4453`;
    /// empty: the empty board, which takes minutes).
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Solve every position of a test-set file instead (`<moves> <score>`
    /// a line, as `connect4-testset` writes them): the scores checked
    /// against the labels, and the mean time and nodes per position (the
    /// table cleared before each).
    #[arg(long, value_name = "FILE", conflicts_with = "moves")]
    pub file: Option<PathBuf>,
    /// The solver's table, in bits of entries of 8 bytes (24: 128 MiB).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(16..=30))]
    pub tt: u32,
    /// Answer from this opening book where it can (`connect4-book`
    /// writes it); without it the solver searches everything.
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct BookArgs {
    /// The book: read if it exists, rewritten atomically as it grows.
    #[arg(long, value_name = "FILE", default_value = book::DEFAULT_BOOK)]
    pub book: PathBuf,
    /// Grow it until `perfect`'s decisions at up to this many stones are
    /// answered (each column's position, one stone deeper, solved).
    #[arg(long, default_value_t = 4)]
    pub plies: usize,
    /// Stop after this many minutes (0: when done), keeping what was
    /// solved: a later run goes on from there.
    #[arg(long, default_value_t = 0.0)]
    pub minutes: f64,
    /// Grow the book of the games from this position (columns from the
    /// empty board, `4453`) instead of the empty board's.
    #[arg(long, default_value = "")]
    pub from: String,
    /// Save the book at least this often, in minutes.
    #[arg(long, default_value_t = 5.0)]
    pub save_minutes: f64,
    /// The solver's table, in bits of entries of 8 bytes (26: 512 MiB).
    #[arg(long, default_value_t = 26, value_parser = clap::value_parser!(u32).range(16..=30))]
    pub tt: u32,
    /// Only read the book, check every entry, and print its entries by
    /// stones.
    #[arg(long)]
    pub check: bool,
}

#[derive(clap::Args)]
pub struct TestsetArgs {
    /// Positions wanted of each of the six kinds.
    #[arg(long, default_value_t = 1000)]
    pub per_kind: usize,
    /// Seeds the random games (1 made the shipped set).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The folder written, one file per kind (`begin-hard.txt`, ...).
    #[arg(long, default_value = testset::DEFAULT_DIR)]
    pub out: PathBuf,
    /// Stop after this many minutes of CPU time (wall time where the system
    /// does not say), writing what was found.
    #[arg(long, default_value_t = 30.0)]
    pub minutes: f64,
    /// Search nodes one position's solve may take (about 5 to 10 s);
    /// positions past it are left out.
    #[arg(long, default_value_t = 50_000_000)]
    pub solver_nodes: u64,
    /// The solver's table, in bits of entries of 8 bytes.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(16..=30))]
    pub tt: u32,
    /// Keep the set already in --out (each file checked as `grade` reads
    /// it; a missing file is an empty kind) and add only what each kind
    /// lacks. Give each such run a --seed not used before, so that its
    /// random games are new ones.
    #[arg(long)]
    pub top_up: bool,
    /// Write the set to --out at least this often while it grows, so that
    /// a run stopped before --minutes keeps what it found.
    #[arg(long, default_value_t = 5.0)]
    pub save_minutes: f64,
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// `solve-connect4 --file`: every line solved, checked and timed.
fn solve_file(path: &std::path::Path, tt: u32, json: bool) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut solver = Solver::new(tt);
    let (mut count, mut wrong, mut seconds, mut nodes, mut stones) = (0u64, 0u64, 0.0, 0u64, 0);
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let l = testset::parse_line(line)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{} line {}", path.display(), i + 1))?;
        solver.clear();
        let before = solver.nodes;
        let t = Instant::now();
        let score = solver.solve(&l.position);
        seconds += t.elapsed().as_secs_f64();
        nodes += solver.nodes - before;
        stones += l.position.moves();
        count += 1;
        if score != l.score {
            wrong += 1;
            eprintln!(
                "line {}: `{}` scores {score}, labelled {}",
                i + 1,
                l.moves,
                l.score
            );
        }
    }
    ensure!(count > 0, "{}: no positions", path.display());
    let (mean_us, mean_nodes) = (1e6 * seconds / count as f64, nodes as f64 / count as f64);
    let mean_stones = stones as f64 / count as f64;
    if json {
        println!(
            "{}",
            json!({"file": path.display().to_string(), "positions": count, "wrong": wrong,
                   "mean_stones": mean_stones, "mean_seconds": seconds / count as f64,
                   "mean_nodes": mean_nodes, "nodes_per_second": nodes as f64 / seconds})
        );
    } else {
        println!(
            "{}: {count} positions ({mean_stones:.1} stones on average), {wrong} scored unlike \
             their label; {mean_us:.1} µs and {mean_nodes:.0} nodes each on average ({:.2} M \
             nodes/s)",
            path.display(),
            nodes as f64 / seconds / 1e6
        );
    }
    ensure!(wrong == 0, "{wrong} positions scored unlike their labels");
    Ok(())
}

fn solve(args: SolveArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.file {
        return solve_file(path, args.tt, args.json);
    }
    let game = Connect4;
    let start = game.start();
    let actions = game
        .parse_game(&start, &args.moves)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("--moves `{}`", args.moves))?;
    let mut pos = start;
    for &c in &actions {
        pos.play_unchecked(c);
    }
    ensure!(!pos.is_over(), "--moves `{}`: the game is over", args.moves);
    let moves = game.format_game(&start, &actions);
    let t = Instant::now();
    let mut solver = Solver::new(args.tt);
    if let Some(path) = &args.book {
        solver = solver.with_book(Book::load(path)?);
    }
    let score = solver.solve(&pos);
    let columns = solver.column_scores(&pos);
    let seconds = t.elapsed().as_secs_f64();
    let best: Vec<u8> = columns
        .iter()
        .enumerate()
        .filter(|(_, s)| **s == Some(score))
        .map(|(i, _)| i as u8 + 1)
        .collect();
    if args.json {
        let scores: Vec<Option<i32>> = columns.iter().map(|s| s.map(Score::get)).collect();
        println!(
            "{}",
            json!({
                "moves": moves,
                "stones": pos.moves(),
                "to_act": colour(pos.to_act()).to_lowercase(),
                "score": score.get(),
                "outcome": score.outcome(),
                "own_moves_left": score.own_moves_left(pos.moves()),
                "plies_left": score.plies_left(pos.moves()),
                "best": best,
                "columns": scores,
                "nodes": solver.nodes,
                "seconds": seconds,
            })
        );
        return Ok(());
    }
    println!("position `{moves}` ({} stones)\n{pos}", pos.moves());
    println!("score {score}: {}", score.describe(&pos));
    let best: Vec<String> = best.iter().map(u8::to_string).collect();
    println!("best columns: {}", best.join(" "));
    let each: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Some(s) => format!("{}:{s}", i + 1),
            None => format!("{}:full", i + 1),
        })
        .collect();
    println!("column scores: {}", each.join("  "));
    println!("{} positions searched, {seconds:.3} s", solver.nodes);
    Ok(())
}

fn make_testset(args: TestsetArgs) -> anyhow::Result<()> {
    ensure!(args.per_kind > 0, "--per-kind must be at least 1");
    ensure!(
        args.minutes > 0.0 && args.minutes.is_finite(),
        "--minutes must be a positive number"
    );
    ensure!(
        args.save_minutes > 0.0 && args.save_minutes.is_finite(),
        "--save-minutes must be a positive number"
    );
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("making the test set's folder {}", args.out.display()))?;
    let keep = if args.top_up {
        Kind::ALL
            .iter()
            .map(|&k| match k.file(&args.out).exists() {
                true => testset::load(&args.out, k).map_err(anyhow::Error::msg),
                false => Ok(Vec::new()),
            })
            .collect::<anyhow::Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    let kept: Vec<usize> = keep.iter().map(Vec::len).collect();
    let opts = GenerateOptions {
        per_kind: args.per_kind,
        seed: args.seed,
        solver_nodes: args.solver_nodes,
        time_limit: Duration::from_secs_f64(args.minutes * 60.0),
        table_bits: args.tt,
        keep,
    };
    let write = |g: &testset::Generated| {
        testset::write(&args.out, g)
            .with_context(|| format!("writing the test set to {}", args.out.display()))
    };
    let (mut last_line, mut last_save) = (Instant::now(), Instant::now());
    let mut save_error = None;
    let save_every = Duration::from_secs_f64(args.save_minutes * 60.0);
    let generated = testset::generate(&opts, |kind, g| {
        let n = g.positions[kind.index()].len();
        if n == opts.per_kind || last_line.elapsed() > Duration::from_secs(30) {
            eprintln!("{kind}: {n}");
            last_line = Instant::now();
        }
        if save_error.is_none() && last_save.elapsed() >= save_every {
            save_error = write(g).err();
            last_save = Instant::now();
        }
    });
    if let Some(e) = save_error {
        return Err(e);
    }
    let paths = write(&generated)?;
    for (i, (kind, positions)) in Kind::ALL.iter().zip(&generated.positions).enumerate() {
        let old = kept.get(i).copied().unwrap_or(0);
        let new = positions.len() - old;
        let mean_ms = 1000.0 * generated.seconds[i] / new.max(1) as f64;
        println!(
            "{kind:<14} {:>5} positions ({old} kept, {new} new, {mean_ms:.2} ms each to solve) \
             ({})",
            positions.len(),
            paths[i].display()
        );
    }
    println!(
        "{} positions drawn, {} past {} nodes left out, {} not solved (their kind was full or \
         not yet due), {:.1} minutes of CPU",
        generated.drawn,
        generated.over_budget,
        args.solver_nodes,
        generated.skipped,
        generated.elapsed.as_secs_f64() / 60.0
    );
    Ok(())
}

fn tally_line(name: &str, t: &Tally) -> String {
    let unsolved = if t.unsolved > 0 {
        format!(" ({} more past the solver's node budget)", t.unsolved)
    } else {
        String::new()
    };
    format!(
        "{name:<16} {:>6} decisions, {:>6} keep the value, {:>6} optimal{unsolved}",
        t.decisions,
        pct(t.preserving_share()),
        pct(t.optimal_share())
    )
}

fn versus_line(name: &str, v: &VersusPerfect) -> String {
    let unresolved = if v.unresolved > 0 {
        format!(
            ", {} stopped unresolved (perfect play's move past the node budget)",
            v.unresolved
        )
    } else {
        String::new()
    };
    format!(
        "{name}: {} games, {} won, {} drawn, {} lost{unresolved} (perfect play from the empty \
         board: the first player wins); {} with a decision short of optimal (as second: lost \
         faster than perfect play allows)",
        v.games, v.wins, v.draws, v.losses, v.imperfect
    )
}

fn print_report(player: &str, report: &Connect4GradeReport, req: &GradeRequest) {
    println!("graded: {player} on Connect Four, against the exact solver");
    println!("test set:");
    for k in &report.testset {
        println!("  {}", tally_line(k.kind, &k.tally));
    }
    println!("{}", tally_line("own games", &report.own_games));
    for (name, v) in [
        ("as first vs perfect", &report.as_first),
        ("as second vs perfect", &report.as_second),
    ] {
        if v.games > 0 {
            println!("{}", versus_line(name, v));
            println!("  {}", tally_line("its decisions", &v.decisions));
        }
    }
    let unsolved: u64 = report.testset.iter().map(|k| k.tally.unsolved).sum::<u64>()
        + report.own_games.unsolved
        + report.as_first.decisions.unsolved
        + report.as_second.decisions.unsolved;
    if unsolved > 0 {
        println!(
            "({unsolved} decisions were past {} search nodes: --solver-nodes 50000000 grades \
             nearly all but the first few plies of a game, at seconds each)",
            req.solver_nodes
        );
    }
    if req.mistakes {
        for m in &report.mistakes {
            println!("\n{m}");
        }
    }
}

/// `grade` for Connect Four: the player's decisions against the exact
/// solver ([`super::grade`]), printed. `--positions` is the number of test
/// positions per kind, `--db` the test set's folder.
pub(crate) fn grade(game: &Connect4, req: &GradeRequest) -> anyhow::Result<()> {
    let spec = &req.spec;
    parse_game_player(game, spec, 0).with_context(|| format!("player `{spec}`"))?;
    let opts = Connect4GradeOptions {
        testset: req
            .db
            .clone()
            .unwrap_or_else(|| PathBuf::from(testset::DEFAULT_DIR)),
        per_kind: req.positions,
        own_games: req.games,
        opening: req.opening,
        versus_perfect: req.vs_perfect,
        versus_start: String::new(),
        solver_nodes: req.solver_nodes,
        table_bits: DEFAULT_TABLE_BITS + 2,
        book: Book::load_or_empty(std::path::Path::new(book::DEFAULT_BOOK)).map(Some)?,
        book_file: req.save_book.then(|| PathBuf::from(book::DEFAULT_BOOK)),
        bounds_file: req.bounds.clone(),
        progress: Some(|line| eprintln!("{line}")),
        seed: req.seed,
    };
    let mut make = |seed: u64| parse_game_player(game, spec, seed).map_err(|e| e.to_string());
    let report = super::grade::grade(game, &mut make, &opts)?;
    if req.json {
        println!(
            "{}",
            json!({"player": spec, "game": Connect4::NAME, "variant": game.variant(), "report": report})
        );
    } else {
        print_report(spec, &report, req);
    }
    Ok(())
}

/// `connect4-book`: the book grown ply by ply (or checked), saved as it
/// grows.
fn grow_book(args: BookArgs) -> anyhow::Result<()> {
    let loaded = Book::load_or_empty(&args.book)?;
    let counts = |b: &Book| -> String {
        (0..=b.max_stones())
            .filter(|&n| b.count_with(n) > 0)
            .map(|n| format!("{n}: {}", b.count_with(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{}: {} entries (by stones {})",
        args.book.display(),
        loaded.len(),
        counts(&loaded)
    );
    if args.check {
        return Ok(());
    }
    ensure!(
        args.minutes >= 0.0 && args.minutes.is_finite() && args.save_minutes > 0.0,
        "--minutes must be 0 or more and --save-minutes more than 0"
    );
    let start = Position::from_moves(&args.from)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("--from `{}`", args.from))?;
    ensure!(!start.is_over(), "--from `{}`: the game is over", args.from);
    let opts = BuildOptions {
        start,
        plies: args.plies,
        deadline: (args.minutes > 0.0)
            .then(|| Instant::now() + Duration::from_secs_f64(args.minutes * 60.0)),
        save_every: Duration::from_secs_f64(args.save_minutes * 60.0),
    };
    let mut solver = Solver::new(args.tt).with_book(loaded);
    let path = args.book.clone();
    // Synced, not overwritten: a `grade --save-book` may be adding to the
    // same file.
    let mut save = |s: &mut Solver| -> anyhow::Result<()> {
        let b = s.book_mut().expect("the solver has its book");
        Ok(b.sync(&path)?)
    };
    let mut progress = |p: Progress| match p {
        Progress::Solved {
            plies,
            moves,
            score,
            seconds,
            nodes,
            book,
        } => println!(
            "plies {plies}: `{moves}` scores {score} ({seconds:.1} s, {nodes} nodes; book {book})"
        ),
        Progress::PliesDone {
            plies,
            book,
            seconds,
        } => println!("plies {plies} done: book {book} entries, {seconds:.0} s"),
    };
    let report = book::build::build(&mut solver, &opts, &mut save, &mut progress)?;
    let b = solver.book().expect("the solver has its book");
    println!(
        "{}: {} entries (by stones {}); {} positions solved, {} nodes, {:.0} s; complete to {} \
         plies{}",
        args.book.display(),
        b.len(),
        counts(b),
        report.solved,
        report.nodes,
        report.seconds,
        report.complete_plies,
        if report.stopped {
            " (stopped at --minutes: run it again to go on)"
        } else {
            ""
        }
    );
    Ok(())
}
