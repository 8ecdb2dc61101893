//! Morris's commands: `yinsh-zero solve` (the retrograde solver) and
//! `yinsh-zero morris` (state numbers, positions, layer sizes, database
//! look-ups). Each parses, calls the rules and the solver, and prints.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use serde_json::json;
use std::sync::Arc;

use super::Morris;
use super::address::{
    Layer, LayerIndex, Numbering, POSITION_FORMAT, canonical_with, layer_size, locate,
    mover_colour, parse_position, position_text, state_text, title,
};
use super::db::{Database, Outcome};
use super::grade::{GradeOptions, GradeReport, Tally};
use super::solve::{LayerReport, SolveOptions, Store, layers_to_solve, reachable, solve};
use super::{NO_PROGRESS_LIMIT, Position, Variant};
use crate::arena::grade::percent as pct;
use crate::arena::{GradeRequest, parse_game_player};
use crate::checkpoint;
use crate::game::{Game, State};
use crate::util::out::println;

/// Morris's commands, as the command line lists them.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Solve Morris by retrograde analysis into a perfect-play database.
    Solve(SolveArgs),
    /// Morris state numbers, positions and layers (and database look-ups).
    Morris(Args),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Solve(a) => solve_run(a),
            Command::Morris(a) => run(a),
        }
    }
}

fn variant(name: &str) -> anyhow::Result<Variant> {
    Variant::from_name(name).with_context(|| {
        format!(
            "--variant `{name}`: Morris has {}",
            Variant::NAMES.join(", ")
        )
    })
}

fn threads(n: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = n {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .context("setting up the thread pool")?;
    }
    Ok(())
}

/// Morris's benchmarks, listed under `yinsh-zero bench`.
#[derive(clap::Subcommand)]
pub enum BenchCommand {
    /// The placing-phase search (Nine's placing phase is searched, not
    /// solved): Six Men's Morris solved into a temporary folder, its placing
    /// layers set aside, then the start proven and a placing book built by
    /// search over the moving phase alone; states expanded and look-ups per
    /// second.
    MorrisPlacing(PlacingBenchArgs),
    /// The moving-phase solver (retrograde analysis, the hot path of
    /// `solve`): a variant's layers up to --max-stones solved into a
    /// temporary folder; states solved per second.
    MorrisSolve(SolveBenchArgs),
    /// The state addressing the solver leans on: a moving-phase layer's
    /// index built, then states of it in random symmetric forms turned
    /// into their indices (canonical form, mover, rank), as every un-move
    /// and capture of the solver does; look-ups per second.
    MorrisIndex(IndexBenchArgs),
    /// What a placing-phase question costs: random positions N turns from
    /// the start, each answered action by action as the page's "show
    /// perfect move" and the `perfect` player ask (the placing book first,
    /// then search, from a cold table); states expanded and seconds per
    /// position, turn by turn. Without --db, over Six Men's Morris's moving
    /// phase solved into a temporary folder.
    MorrisQuestions(QuestionBenchArgs),
}

#[derive(clap::Args)]
pub struct QuestionBenchArgs {
    /// A database directory whose placing phase is searched (Nine's);
    /// default: Six's moving phase alone, solved for the bench.
    #[arg(long)]
    db: Option<PathBuf>,
    /// The variant of --db.
    #[arg(long, default_value = "nine")]
    variant: String,
    /// The turns from the start to sample, e.g. `3-16` or `4` (a turn is a
    /// placement with the removal a mill brings); default: from 3 to the
    /// last placement.
    #[arg(long)]
    turns: Option<String>,
    /// Positions per turn.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    samples: u32,
    /// Most states one action's question may expand (0: no limit); a
    /// position over it is counted, not answered.
    #[arg(long, default_value_t = 20_000_000)]
    budget: u64,
    /// The search's table in MB (the page's is 64).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    table_mb: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct IndexBenchArgs {
    /// Nine Men's Morris layer: the mover's stones.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(3..=9))]
    mover: u8,
    /// ... and the opponent's.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(3..=9))]
    opponent: u8,
    /// Look-ups timed.
    #[arg(long, default_value_t = 10_000_000)]
    lookups: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct SolveBenchArgs {
    /// three, six or nine.
    #[arg(long, default_value = "nine")]
    variant: String,
    /// Solve the moving-phase layers with at most this many stones a side
    /// (Nine: 5 is about 90 million states).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(3..=9))]
    max_stones: u8,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PlacingBenchArgs {
    /// Turns from the start the book covers.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(0..=12))]
    turns: u8,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

impl BenchCommand {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            BenchCommand::MorrisPlacing(a) => bench_placing(a),
            BenchCommand::MorrisSolve(a) => bench_solve(a),
            BenchCommand::MorrisIndex(a) => bench_index(a),
            BenchCommand::MorrisQuestions(a) => bench_questions(a),
        }
    }
}

fn bench_index(args: IndexBenchArgs) -> anyhow::Result<()> {
    use rand::{Rng, SeedableRng, rngs::SmallRng};
    let v = Variant::Nine;
    let geo = v.geometry();
    let layer = Layer::moving(args.mover, args.opponent);
    let t = Instant::now();
    let ix = LayerIndex::build(v, layer);
    let build_secs = t.elapsed().as_secs_f64();
    // The questions first, so that only the look-ups are timed.
    let mut rng = SmallRng::seed_from_u64(1);
    let n = args.lookups.clamp(1, 100_000_000) as usize;
    let questions: Vec<(u32, u32, u32)> = (0..n)
        .map(|_| {
            let i = rng.random_range(0..ix.len() as u32);
            let (m, o) = ix.masks(i);
            let s = &geo.symmetries[rng.random_range(0..geo.symmetries.len())];
            (s.map(m), s.map(o), i)
        })
        .collect();
    let t = Instant::now();
    let mut wrong = 0u64;
    for &(m, o, i) in &questions {
        if ix.index_of(m, o) != Some(i) {
            wrong += 1;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    ensure!(wrong == 0, "{wrong} look-ups gave the wrong index");
    let ns = secs * 1e9 / n as f64;
    if args.json {
        println!(
            "{}",
            json!({
                "layer": layer.to_string(),
                "states": ix.len(),
                "build_seconds": build_secs,
                "lookups": n,
                "ns_per_lookup": ns,
                "lookups_per_s": n as f64 / secs.max(1e-9),
            })
        );
    } else {
        println!(
            "layer {layer}: {} states, index built in {build_secs:.2}s; {n} look-ups from \
             random symmetric forms, {ns:.1} ns each ({:.0}/s, one thread)",
            ix.len(),
            n as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

fn bench_solve(args: SolveBenchArgs) -> anyhow::Result<()> {
    let v = variant(&args.variant)?;
    threads(args.threads)?;
    let tmp = tempfile::tempdir().context("a temporary folder")?;
    let mut opts = SolveOptions::new(v, tmp.path(), Some(args.max_stones));
    // No checkpoint inside a pair: the figure is the solver's alone.
    opts.checkpoint_secs = u64::MAX;
    let (mut states, mut layers) = (0u64, 0usize);
    let t = Instant::now();
    solve(&opts, |r| {
        states += r.states;
        layers += 1;
    })?;
    let secs = t.elapsed().as_secs_f64();
    let rate = states as f64 / secs.max(1e-9);
    if args.json {
        println!(
            "{}",
            json!({
                "variant": v.name(),
                "max_stones": args.max_stones,
                "threads": rayon::current_num_threads(),
                "layers": layers,
                "states": states,
                "seconds": secs,
                "states_per_s": rate,
            })
        );
    } else {
        println!(
            "{}: {layers} moving-phase layers up to {} stones a side, {states} states in \
             {secs:.2}s on {} threads: {rate:.0} states/s",
            v.name(),
            args.max_stones,
            rayon::current_num_threads()
        );
    }
    Ok(())
}

/// `v` solved into `dir`, and a database of its moving-phase layers alone
/// (so that its placing phase is searched), with the solve's seconds.
fn moving_phase_only(v: Variant, dir: &Path) -> anyhow::Result<(Database, f64)> {
    let (full, moving) = (dir.join("full"), dir.join("moving"));
    let t = Instant::now();
    solve(&SolveOptions::new(v, &full, None), |_| {})?;
    let solve_secs = t.elapsed().as_secs_f64();
    std::fs::create_dir_all(&moving)?;
    for l in layers_to_solve(v, None)
        .into_iter()
        .filter(|l| l.is_moving())
    {
        std::fs::copy(full.join(l.file_name()), moving.join(l.file_name()))?;
    }
    Ok((Database::open(&moving, v)?, solve_secs))
}

fn bench_placing(args: PlacingBenchArgs) -> anyhow::Result<()> {
    use super::placing::PlacingSearch;
    use super::placing_book::build;
    let v = Variant::Six;
    let tmp = tempfile::tempdir().context("a temporary folder")?;
    let (db, solve_secs) = moving_phase_only(v, tmp.path())?;
    let table = 256 << 20;
    let start = Layer {
        a: 0,
        b: 0,
        hm: v.geometry().stones,
        ho: v.geometry().stones,
    };
    // Each measurement starts with an empty table.
    let mut search = PlacingSearch::new(table, None);
    let t = Instant::now();
    let value = search.value(&db, start, 0, 0)?;
    let start_secs = t.elapsed().as_secs_f64();
    let start_stats = search.stats();
    let mut search = PlacingSearch::new(table, None);
    let t = Instant::now();
    let book = build(
        &db,
        std::slice::from_mut(&mut search),
        args.turns,
        None,
        std::time::Duration::MAX,
        |_| Ok(()),
        |_, _| {},
    )?;
    let book_secs = t.elapsed().as_secs_f64();
    let book_stats = search.stats();
    let rate = |n: u64, s: f64| n as f64 / s.max(1e-9);
    if args.json {
        println!(
            "{}",
            json!({
                "variant": v.name(),
                "solve_seconds": solve_secs,
                "start_value": value.to_string(),
                "start_states": start_stats.nodes,
                "start_lookups": start_stats.lookups,
                "start_seconds": start_secs,
                "book_turns": args.turns,
                "book_entries": book.len(),
                "book_states": book_stats.nodes,
                "book_lookups": book_stats.lookups,
                "book_seconds": book_secs,
                "states_per_s": rate(book_stats.nodes, book_secs),
                "lookups_per_s": rate(book_stats.lookups, book_secs),
            })
        );
        return Ok(());
    }
    println!(
        "Six Men's Morris solved in {solve_secs:.1}s; searching its placing phase over the \
         moving phase alone, one thread"
    );
    println!(
        "the start: {value} ({} states expanded, {} look-ups, {start_secs:.2}s)",
        start_stats.nodes, start_stats.lookups
    );
    println!(
        "placing book of {} turns: {} states in {book_secs:.2}s ({} states expanded, {} look-ups)",
        args.turns,
        book.len(),
        book_stats.nodes,
        book_stats.lookups
    );
    println!(
        "{:.0} states expanded/s, {:.0} look-ups/s",
        rate(book_stats.nodes, book_secs),
        rate(book_stats.lookups, book_secs)
    );
    Ok(())
}

/// `--turns`: `a-b` or `a`, within the placing phase.
fn turn_range(text: &str, stones: u8) -> anyhow::Result<std::ops::RangeInclusive<u8>> {
    let last = 2 * stones - 1;
    let parse = |t: &str| -> anyhow::Result<u8> {
        let n: u8 = t
            .trim()
            .parse()
            .with_context(|| format!("--turns `{text}`: `{t}` is no turn number"))?;
        ensure!(
            n <= last,
            "--turns `{text}`: the placing phase has turns 0 to {last}"
        );
        Ok(n)
    };
    let (a, b) = match text.split_once('-') {
        Some((a, b)) => (parse(a)?, parse(b)?),
        None => (parse(text)?, parse(text)?),
    };
    ensure!(
        a <= b,
        "--turns `{text}`: the first turn comes after the last"
    );
    Ok(a..=b)
}

/// A position `turns` turns from the start by uniform random actions (a
/// removal finishes its turn), or `None` when the game left the placing
/// phase or ended first.
fn random_placing_position(
    v: Variant,
    turns: u8,
    rng: &mut impl rand::Rng,
) -> anyhow::Result<Option<Position>> {
    let mut pos = Position::start(v);
    for _ in 0..turns {
        loop {
            let legal = pos.legal_actions();
            let a = legal[rng.random_range(0..legal.len())];
            pos.play(a)?;
            if pos.is_over() {
                return Ok(None);
            }
            if !pos.removing() {
                break;
            }
        }
    }
    let placing = pos.hand(pos.to_act()) > 0 || pos.hand(!pos.to_act()) > 0;
    Ok(placing.then_some(pos))
}

/// The `q`-quantile of sorted `xs` (nearest rank).
fn quantile<T: Copy>(xs: &[T], q: f64) -> Option<T> {
    let n = xs.len();
    (n > 0).then(|| xs[((q * n as f64).ceil() as usize).clamp(1, n) - 1])
}

fn bench_questions(args: QuestionBenchArgs) -> anyhow::Result<()> {
    use rand::{SeedableRng, rngs::SmallRng};
    let v = match &args.db {
        Some(_) => variant(&args.variant)?,
        None => Variant::Six,
    };
    let stones = v.geometry().stones;
    let turns = match &args.turns {
        Some(text) => turn_range(text, stones)?,
        None => 3..=2 * stones - 1,
    };
    let tmp;
    let db = match &args.db {
        Some(dir) => Database::open(dir, v)?,
        None => {
            tmp = tempfile::tempdir().context("a temporary folder")?;
            moving_phase_only(v, tmp.path())?.0
        }
    };
    let budget = (args.budget > 0).then_some(args.budget);
    let db = db.with_placing_search((args.table_mb << 20) as usize, budget);
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut rows = Vec::new();
    for turn in turns {
        rows.push(question_costs(&db, v, turn, args.samples, &mut rng)?);
    }
    if args.json {
        println!(
            "{}",
            json!({
                "variant": v.name(),
                "budget": args.budget,
                "table_mb": args.table_mb,
                "seed": args.seed,
                "turns": rows,
            })
        );
    } else {
        print_question_costs(v, &args, &rows);
    }
    Ok(())
}

/// One row of `bench morris-questions`: what the database's answer to
/// every action of `samples` random placing positions `turn` turns from
/// the start costs, each asked with a cold search table.
fn question_costs(
    db: &Database,
    v: Variant,
    turn: u8,
    samples: u32,
    rng: &mut impl rand::Rng,
) -> anyhow::Result<serde_json::Value> {
    // (states expanded, seconds) of each answered position.
    let (mut answered, mut over, mut tries) = (Vec::new(), 0u32, 0u32);
    while answered.len() as u32 + over < samples {
        tries += 1;
        ensure!(
            tries <= 100 * samples,
            "turn {turn}: random play left the placing phase too often"
        );
        let Some(pos) = random_placing_position(v, turn, rng)? else {
            continue;
        };
        db.forget_searches();
        let t = Instant::now();
        let result = db.action_values(&pos);
        let secs = t.elapsed().as_secs_f64();
        let states = db.search_stats().nodes;
        match result {
            Ok(_) => answered.push((states, secs)),
            Err(super::db::DbError::SearchLimit { .. }) => over += 1,
            Err(e) => return Err(e).with_context(|| format!("turn {turn}: {pos}")),
        }
    }
    let mut states: Vec<u64> = answered.iter().map(|a| a.0).collect();
    let mut secs: Vec<f64> = answered.iter().map(|a| a.1).collect();
    states.sort_unstable();
    secs.sort_by(f64::total_cmp);
    Ok(json!({
        "turn": turn,
        "positions": samples,
        "answered": answered.len(),
        "over_budget": over,
        "states_median": quantile(&states, 0.5),
        "states_p90": quantile(&states, 0.9),
        "states_max": states.last(),
        "seconds_median": quantile(&secs, 0.5),
        "seconds_p90": quantile(&secs, 0.9),
        "seconds_max": secs.last(),
    }))
}

/// `bench morris-questions`'s table, a row a turn.
fn print_question_costs(v: Variant, args: &QuestionBenchArgs, rows: &[serde_json::Value]) {
    println!(
        "{}: every action of random placing positions, cold {} MB table, {}; one thread",
        title(v),
        args.table_mb,
        match args.budget {
            0 => "no limit on a question's states".to_string(),
            b => format!("at most {b} states a question"),
        }
    );
    println!(
        "{:>4} {:>9} {:>5} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}",
        "turn", "answered", "over", "states p50", "p90", "max", "s p50", "p90", "max"
    );
    for r in rows {
        let n = |k: &str| r[k].as_u64().map_or("-".to_string(), |x| x.to_string());
        let f = |k: &str| r[k].as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
        println!(
            "{:>4} {:>9} {:>5} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}",
            n("turn"),
            format!("{}/{}", n("answered"), n("positions")),
            n("over_budget"),
            n("states_median"),
            n("states_p90"),
            n("states_max"),
            f("seconds_median"),
            f("seconds_p90"),
            f("seconds_max")
        );
    }
}

#[derive(clap::Args)]
pub struct SolveArgs {
    /// three, six or nine. Three and Six are solved whole (placement
    /// included); Nine's moving-phase layers up to --max-stones.
    #[arg(long)]
    variant: String,
    /// Database directory (default `data/morris/<variant>`). Valid layer
    /// files already there are kept; damaged ones are named and recomputed.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Solve only the moving-phase layers with at most this many stones a
    /// side. Nine Men's Morris: default 4 (all layers with 3 and 4 stones);
    /// Three and Six: default all layers, placement included.
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=9))]
    max_stones: Option<u8>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Skip counting the positions reachable from the start (Three, Six).
    #[arg(long)]
    no_reach: bool,
    /// Most minutes between checkpoints inside a moving-phase pair (an
    /// interrupted solve resumes from the last one).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=30))]
    checkpoint_minutes: u64,
    /// Seconds between progress lines on standard error (0: none).
    #[arg(long, default_value_t = 60)]
    progress_secs: u64,
}

fn print_layer(r: &LayerReport) {
    let status = if r.resumed {
        " (kept)".to_string()
    } else if let Some(why) = &r.damaged {
        format!(" (recomputed: {why})")
    } else {
        String::new()
    };
    println!(
        "{:<18} {:>11} {:>13} {:>8.2}s  W {:>10}  D {:>10}  L {:>10}  longest win {:>4}{status}",
        r.layer.to_string(),
        r.states,
        r.raw,
        r.seconds,
        r.wins,
        r.draws,
        r.losses,
        r.longest_win
    );
}

fn solve_run(args: SolveArgs) -> anyhow::Result<()> {
    let v = variant(&args.variant)?;
    threads(args.threads)?;
    let dir = args.db.clone().unwrap_or_else(|| Database::default_dir(v));
    let max_stones = args.max_stones.or((v == Variant::Nine).then_some(4));
    print_solve_header(v, &dir, max_stones);
    let started = Instant::now();
    let opts = SolveOptions {
        checkpoint_secs: 60 * args.checkpoint_minutes,
        progress_secs: (args.progress_secs > 0).then_some(args.progress_secs),
        ..SolveOptions::new(v, &dir, max_stones)
    };
    let mut longest_moving = 0u16;
    let mut count = 0usize;
    let (mut states, mut raw) = (0u64, 0u64);
    let store = solve(&opts, |r| {
        print_layer(r);
        count += 1;
        states += r.states;
        raw += r.raw;
        if r.layer.is_moving() {
            longest_moving = longest_moving.max(r.longest_win);
        }
    })?;
    print_solve_summary(v, &dir, max_stones, count, states, raw, started);
    println!(
        "longest win in the moving phase: {longest_moving} turns (draw rule: {NO_PROGRESS_LIMIT} \
         moves without a placement or removal{})",
        if u32::from(longest_moving) < u32::from(NO_PROGRESS_LIMIT) {
            ": no solved win is cut short by it"
        } else {
            ": SOME SOLVED WINS ARE LONGER THAN THE DRAW RULE ALLOWS"
        }
    );
    if let Some(n) = max_stones {
        print_next_layers(v, n);
        return Ok(());
    }
    let db = Database::open(&dir, v)?;
    let start = Position::start(v);
    let value = db.value(&start)?;
    println!("start position: {value} for White (the player to place first)");
    if !args.no_reach {
        print_reachable(v, &store);
    }
    Ok(())
}

fn print_solve_header(v: Variant, dir: &Path, max_stones: Option<u8>) {
    println!(
        "solving {} Men's Morris into {} on {} threads",
        title(v),
        dir.display(),
        rayon::current_num_threads()
    );
    if let Some(n) = max_stones {
        println!("moving-phase layers with at most {n} stones a side");
    }
    println!(
        "{:<18} {:>11} {:>13} {:>9}  (layer = mover:opponent stones on the board, in hand; \
         states symmetry-reduced, then unreduced)",
        "layer", "states", "unreduced", "time"
    );
}

fn print_solve_summary(
    v: Variant,
    dir: &Path,
    max_stones: Option<u8>,
    count: usize,
    states: u64,
    raw: u64,
    started: Instant,
) {
    let size: u64 = layers_to_solve(v, max_stones)
        .iter()
        .filter_map(|l| std::fs::metadata(dir.join(l.file_name())).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "solved {count} layers: {states} states ({raw} unreduced), {:.1} MB on disk, in {:.1}s",
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
}

/// What solving one more stone a side would add (Nine Men's Morris).
fn print_next_layers(v: Variant, n: u8) {
    let next = n + 1;
    if next <= v.geometry().stones {
        let mut extra = 0u64;
        let mut extra_raw = 0u64;
        for a in 3..=next {
            for b in 3..=next {
                if a.max(b) == next {
                    let (n, r) = layer_size(v, Layer::moving(a, b));
                    extra += n;
                    extra_raw += r;
                }
            }
        }
        println!(
            "--max-stones {next} would add {extra} states ({extra_raw} unreduced; \
             about {:.0} MB of values and plies; the solver holds 2 bytes a state of the pair it \
             solves and 3 of the layers its captures lead to)",
            extra as f64 * 2.25 / 1e6
        );
    }
}

/// The positions reachable from the start, counted several ways.
fn print_reachable(v: Variant, store: &Store) {
    let t = Instant::now();
    let r = reachable(v, store);
    println!(
        "reachable from the start ({:.1}s; breadth-first search over the rules, \
         ignoring the draw rules):",
        t.elapsed().as_secs_f64()
    );
    println!(
        "  positions between turns (stones, stones in hand, player to act; \
         blocked players included): {} symmetry-reduced, {} unreduced",
        r.positions, r.positions_raw
    );
    println!(
        "  the same with colours identified (the solver's states): {} reduced, {} unreduced",
        r.states, r.states_raw
    );
    println!(
        "  positions with a removal pending: {} reduced, {} unreduced",
        r.removing, r.removing_raw
    );
    println!(
        "  final positions after a winning turn (two stones left{}): {} reduced, {} unreduced",
        if v == Variant::Three {
            ", or a line"
        } else {
            ""
        },
        r.ended,
        r.ended_raw
    );
    println!(
        "  between turns + removal pending: {} reduced, {} unreduced; all three: {} reduced, \
         {} unreduced",
        r.positions + r.removing,
        r.positions_raw + r.removing_raw,
        r.positions + r.removing + r.ended,
        r.positions_raw + r.removing_raw + r.ended_raw
    );
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: MorrisCommand,
}

#[derive(clap::Subcommand)]
enum MorrisCommand {
    /// The state number of a position.
    #[command(after_help = format!("Position format: {POSITION_FORMAT}"))]
    Index {
        #[arg(long)]
        variant: String,
        /// The position (see below), quoted.
        position: String,
        /// Also look its value and best actions up in this database
        /// directory (default data/morris/<variant>, if there).
        #[arg(long)]
        db: Option<PathBuf>,
    },
    /// The position of a state number (the player to move is White when
    /// the hands are equal, in the moving phase too).
    #[command(after_help = format!("Position format: {POSITION_FORMAT}"))]
    Position {
        #[arg(long)]
        variant: String,
        number: u64,
        /// Also look its value up in this database directory (default
        /// data/morris/<variant>, if there).
        #[arg(long)]
        db: Option<PathBuf>,
    },
    /// The value of a placing-phase position and of each of its actions,
    /// searched down to the solved moving-phase layers (for Nine Men's
    /// Morris, whose placing phase is not solved state by state).
    #[command(after_help = format!("Position format: {POSITION_FORMAT}"))]
    Search {
        #[arg(long)]
        variant: String,
        /// The position (default: the start), quoted.
        #[arg(long)]
        position: Option<String>,
        /// The database directory (default data/morris/<variant>).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
        table_mb: u64,
        /// Seconds between progress lines on standard error (0: none).
        #[arg(long, default_value_t = 60)]
        progress_secs: u64,
    },
    /// Builds (or completes) the placing book: the exact values of every
    /// placing-phase state within --turns of the start, found by search and
    /// stored beside the layer files, where `perfect` and the page read them.
    PlacingBook {
        #[arg(long)]
        variant: String,
        /// Turns from the start the book covers.
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=18))]
        turns: u8,
        /// The database directory (default data/morris/<variant>).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Transposition table size in MB, shared out among the threads
        /// (each searches with its own part).
        #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
        table_mb: u64,
        /// Searching threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Most minutes between saves of the book so far (a stopped build
        /// resumes from the last).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=60))]
        save_minutes: u64,
    },
    /// The layers of a variant, their sizes and state-number offsets.
    Layers {
        #[arg(long)]
        variant: String,
    },
}

fn open_db(v: Variant, dir: Option<PathBuf>) -> anyhow::Result<Option<Database>> {
    match dir {
        Some(d) => Ok(Some(Database::open(&d, v)?)),
        None => Ok(Database::open(&Database::default_dir(v), v).ok()),
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        MorrisCommand::Index {
            variant: name,
            position,
            db,
        } => index(&name, &position, db),
        MorrisCommand::Position {
            variant: name,
            number,
            db,
        } => position(&name, number, db),
        MorrisCommand::Search {
            variant: name,
            position,
            db,
            table_mb,
            progress_secs,
        } => search(&name, position.as_deref(), db, table_mb, progress_secs),
        MorrisCommand::PlacingBook {
            variant: name,
            turns,
            db,
            table_mb,
            threads,
            save_minutes,
        } => placing_book(&name, turns, db, table_mb, threads, save_minutes),
        MorrisCommand::Layers { variant: name } => layers(&name),
    }
}

/// `morris index`: a position's layer, index and state number.
fn index(name: &str, position: &str, db: Option<PathBuf>) -> anyhow::Result<()> {
    let v = variant(name)?;
    let pos = parse_position(v, position).map_err(anyhow::Error::msg)?;
    let (layer, m, o) = locate(&pos).map_err(anyhow::Error::msg)?;
    let ix = LayerIndex::build(v, layer);
    let (key, sym) = canonical_with(v.geometry(), m, o);
    let i = ix
        .index_of_key(key)
        .context("the position is in no layer")?;
    let numbering = Numbering::new(v);
    let offset = numbering.offset(layer).context("layer offset")?;
    println!("{pos}");
    println!("{}", position_text(&pos));
    println!("layer {layer}: index {i} of {}", ix.len());
    println!("state number {}", offset + u64::from(i));
    let (cm, co) = ix.masks(i);
    println!(
        "canonical form (symmetry {sym}): {}",
        state_text(v, layer, cm, co)
    );
    if let Some(db) = open_db(v, db)? {
        lookup(&db, &pos);
    }
    Ok(())
}

/// `morris position`: the position of a state number.
fn position(name: &str, number: u64, db: Option<PathBuf>) -> anyhow::Result<()> {
    let v = variant(name)?;
    let numbering = Numbering::new(v);
    let (layer, i) = numbering.locate(number).map_err(anyhow::Error::msg)?;
    let ix = LayerIndex::build(v, layer);
    let Ok(i) = u32::try_from(i) else {
        bail!("index {i} too large")
    };
    if i as usize >= ix.len() {
        bail!(
            "state number {number}: index {i} is past layer {layer}'s {} states",
            ix.len()
        );
    }
    let (m, o) = ix.masks(i);
    let text = state_text(v, layer, m, o);
    println!("{text}");
    println!("layer {layer}, index {i}; {} to act", mover_colour(layer));
    match parse_position(v, &text) {
        Ok(pos) => {
            println!("{pos}");
            if let Some(db) = open_db(v, db)? {
                lookup(&db, &pos);
            }
        }
        Err(e) => println!("(a finished position: {e})"),
    }
    Ok(())
}

/// `morris search`: a placing-phase position's value, action by action,
/// each with the search's work and time.
fn search(
    name: &str,
    position: Option<&str>,
    db: Option<PathBuf>,
    table_mb: u64,
    progress_secs: u64,
) -> anyhow::Result<()> {
    let v = variant(name)?;
    let pos = match position {
        Some(text) => parse_position(v, text).map_err(anyhow::Error::msg)?,
        None => Position::start(v),
    };
    ensure!(!pos.is_over(), "the game is over in this position");
    let dir = db.unwrap_or_else(|| Database::default_dir(v));
    let mut db = Database::open(&dir, v)?.with_placing_search((table_mb << 20) as usize, None);
    if progress_secs > 0 {
        db = db.with_search_progress(std::time::Duration::from_secs(progress_secs));
    }
    println!("{pos}");
    println!(
        "{} to act; searching with a {table_mb} MB table over the moving-phase layers in {}",
        pos.to_act(),
        dir.display()
    );
    let me = pos.to_act();
    let started = Instant::now();
    let mut best: Option<super::db::Value> = None;
    for a in pos.legal_actions() {
        let t = Instant::now();
        let before = db.search_stats();
        let mut child = pos.clone();
        child.play(a)?;
        let value = match child.result() {
            Some(crate::game::GameResult::Win(c)) if c == me => super::db::Value::win(1),
            Some(_) => super::db::Value::DRAW,
            None if child.removing() => db.value(&child)?,
            None => db.value(&child)?.back(),
        };
        let after = db.search_stats();
        println!(
            "{:<8} {:<12} {:>12} states {:>12} look-ups {:>9.1}s",
            a.to_string(),
            value.to_string(),
            after.nodes - before.nodes,
            after.lookups - before.lookups,
            t.elapsed().as_secs_f64()
        );
        if best.is_none_or(|b| value.rank() > b.rank()) {
            best = Some(value);
        }
    }
    let s = db.search_stats();
    println!(
        "value for {me}: {} ({} states expanded, {} look-ups, {} table answers, {:.1}s)",
        best.context("no legal action")?,
        s.nodes,
        s.lookups,
        s.table_hits,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `morris placing-book`: builds the book, saving as it goes.
fn placing_book(
    name: &str,
    turns: u8,
    db: Option<PathBuf>,
    table_mb: u64,
    threads: Option<usize>,
    save_minutes: u64,
) -> anyhow::Result<()> {
    use super::placing::{PlacingSearch, SearchStats};
    use super::placing_book::{FILE_NAME, PlacingBook, build};
    let v = variant(name)?;
    let dir = db.unwrap_or_else(|| Database::default_dir(v));
    let db = Database::open(&dir, v)?;
    let old = PlacingBook::load(&dir, v)
        .with_context(|| format!("delete {} to build it anew", dir.join(FILE_NAME).display()))?;
    if let Some(b) = &old {
        println!(
            "keeping the {} entries of the book there ({} turns{})",
            b.len(),
            b.turns,
            if b.complete { "" } else { ", not complete" }
        );
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let part = ((table_mb << 20) as usize / threads).max(1 << 20);
    let mut searches: Vec<_> = (0..threads)
        .map(|_| PlacingSearch::new(part, None))
        .collect();
    println!("{threads} threads, a {} MB table each", part >> 20);
    let started = Instant::now();
    let book = build(
        &db,
        &mut searches,
        turns,
        old,
        std::time::Duration::from_secs(60 * save_minutes),
        |b| b.save(&dir),
        |done, all| {
            eprintln!(
                "placing book: {done} of {all} states in {:.0}s",
                started.elapsed().as_secs_f64()
            )
        },
    )?;
    let s: SearchStats = searches.iter().map(PlacingSearch::stats).sum();
    let start = Layer {
        a: 0,
        b: 0,
        hm: v.geometry().stones,
        ho: v.geometry().stones,
    };
    println!(
        "placing book {}: {} states within {turns} turns of the start, in {:.1}s ({} states \
         expanded, {} look-ups); the start: {} for White",
        dir.join(FILE_NAME).display(),
        book.len(),
        started.elapsed().as_secs_f64(),
        s.nodes,
        s.lookups,
        book.get(start, 0, 0)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "not in the book".into())
    );
    Ok(())
}

/// `morris layers`: every layer with its size and state-number offset.
fn layers(name: &str) -> anyhow::Result<()> {
    let v = variant(name)?;
    let numbering = Numbering::new(v);
    println!(
        "{:<18} {:>14} {:>14} {:>16}",
        "layer", "offset", "states", "unreduced"
    );
    for (l, off, n, raw) in &numbering.layers {
        println!("{:<18} {off:>14} {n:>14} {raw:>16}", l.to_string());
    }
    let raw: u64 = numbering.layers.iter().map(|e| e.3).sum();
    println!(
        "{} layers, {} states ({raw} unreduced); layer = mover:opponent stones on the \
         board, in hand",
        numbering.layers.len(),
        numbering.total
    );
    Ok(())
}

fn lookup(db: &Database, pos: &Position) {
    match db.action_values(pos) {
        Ok(mut values) => {
            let best = values.iter().map(|(_, v)| v.rank()).max().unwrap_or(0);
            values.sort_by_key(|(_, v)| -v.rank());
            let value = values.first().map(|(_, v)| *v);
            if let Some(v) = value {
                println!("value for {}: {v}", pos.to_act());
            }
            let line: Vec<String> = values
                .iter()
                .map(|(a, v)| {
                    let mark = if v.rank() == best { "*" } else { "" };
                    let short = match v.outcome {
                        Outcome::Win => format!("W{}", v.plies),
                        Outcome::Draw => "D".into(),
                        Outcome::Loss => format!("L{}", v.plies),
                    };
                    format!("{a}{mark}={short}")
                })
                .collect();
            println!("actions (* best): {}", line.join(" "));
        }
        Err(e) => println!("database: {e}"),
    }
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

/// The placing-phase search's table in a grade: large, as one grade asks
/// thousands of related questions.
const GRADE_SEARCH_TABLE: usize = 2 << 30;

/// `grade` for Morris: the player's decisions against the solved
/// database ([`super::grade`]), printed.
pub(crate) fn grade(game: &Morris, req: &GradeRequest) -> anyhow::Result<()> {
    let spec = &req.spec;
    let variant = game.variant();
    // Fail on a bad spec before the database loads.
    parse_game_player(game, spec, 0).with_context(|| format!("player `{spec}`"))?;
    let dir = req
        .db
        .clone()
        .unwrap_or_else(|| Database::default_dir(game.rules));
    let missing = || {
        format!(
            "no {variant} database at {} (make it: yinsh-zero solve --variant {variant})",
            dir.display()
        )
    };
    // Nine's placing phase has no files: the grader and the perfect player
    // answer it by search, one table for the whole grade so that later
    // games reuse what earlier ones proved.
    let budget = (req.solver_nodes > 0).then_some(req.solver_nodes);
    let db = Database::open(&dir, game.rules)
        .with_context(missing)?
        .with_placing_search(GRADE_SEARCH_TABLE, budget);
    let db = Arc::new(db);
    ensure!(db.layers().next().is_some(), missing());
    let mut head = match &req.checkpoint {
        Some(c) => Some(checkpoint::load_evaluator(game, c, req.backend)?),
        None => None,
    };
    let opts = GradeOptions {
        own_games: req.games,
        random_positions: req.positions,
        perfect_games: req.vs_perfect,
        random_opening: req.opening,
        endgame_positions: req.endgame,
        seed: req.seed,
    };
    let mut make = |seed: u64| parse_game_player(game, spec, seed).map_err(|e| e.to_string());
    let report = super::grade::grade(
        game,
        &db,
        &mut make,
        head.as_mut()
            .map(|h| h as &mut dyn crate::evaluator::Evaluator<_>),
        &opts,
    )?;
    if req.json {
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
        print_text(spec, &report, req.mistakes);
    }
    Ok(())
}
