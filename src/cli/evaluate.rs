//! `yinsh-zero evaluate`: a round robin or gauntlet with paired openings,
//! a W/D/L table with score intervals, Elo ratings, optionally an SPRT.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use serde::Serialize;

use crate::arena::{
    ArenaConfig, ArenaGame, EloFit, Evaluated, GamePlayers, Openings, PairingResult,
    RecordedTournament, Sprt, SprtReport, Verdict, fit_games, history_of,
};
use crate::engine::{ExternalConfig, build_game_player, canonical_spec, check_game_spec};
use crate::game::{ActionOf, Game, State};
use crate::games::{GameTask, Registry};

#[derive(clap::Args)]
#[command(
    after_help = "Player specs: see `yinsh-zero match --help`; an external program \
    speaking docs/engine-protocol.md is `cmd:<command line>` (or any spec with spaces).\n\
    Specs are separated by commas; a comma followed by `key=value` continues the previous \
    spec, so `--players random,alphabeta:depth=3,tt=16,greedy` names three players."
)]
pub struct Args {
    /// Players, all against all (or each against --gauntlet).
    #[arg(long, value_name = "SPEC,SPEC,...", num_args = 1.., required_unless_present = "history_only")]
    pub players: Vec<String>,
    /// Play this player against each of --players instead of a round robin.
    #[arg(long, value_name = "SPEC")]
    pub gauntlet: Option<String>,
    /// Games per pairing (the most, with --sprt); each opening is played
    /// twice with colours swapped.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of openings and players; the same seed gives the same games on
    /// any number of threads (and, with --run, lets an interrupted run
    /// rerun to finish where it stopped). Default: from the clock (printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The game (default: the home game, `yinsh` in `yinsh-zero`).
    #[arg(long)]
    pub game: Option<String>,
    /// The game's variant (default: the game's first: `standard`,
    /// `nine`, `9x9`).
    #[arg(long)]
    pub variant: Option<String>,
    /// YINSH Blitz rules (the first ring removed wins): `--variant blitz`.
    #[arg(long, conflicts_with = "variant")]
    pub blitz: bool,
    /// Random decisions that open each pair of games (YINSH: ring
    /// placements).
    #[arg(
        long,
        default_value_t = 4,
        value_name = "K",
        visible_alias = "opening-rings"
    )]
    pub opening_moves: u32,
    /// Openings from a file instead: one per line in the game's notation
    /// (blank lines and `#` comments skipped), used in turn.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Stop a two-player match once the SPRT of H0: elo <= elo0 against
    /// H1: elo >= elo1 (first player's view) decides.
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Run directory: games are appended to <run>/eval/*.jsonl and every
    /// earlier file there is folded into the ratings; games of this very
    /// schedule (same --seed, players and openings) recorded there already
    /// are taken, not played again.
    #[arg(long, value_name = "DIR")]
    pub run: Option<PathBuf>,
    /// With --run: record the games but rate this invocation's games only.
    #[arg(long)]
    pub no_history: bool,
    /// With --run: play nothing; print the table and ratings of every game
    /// recorded in <run>/eval (for example while a long run is going on).
    #[arg(long, requires = "run", conflicts_with = "no_history")]
    pub history_only: bool,
    /// Also write the tables as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// External programs: seconds to wait for each `bestmove`.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub move_timeout: f64,
    /// External programs: arguments sent with every `go` (e.g. "sims 200").
    #[arg(long, default_value = "", value_name = "ARGS")]
    pub go: String,
}

/// Splits comma-separated specs; a piece of the form `key=value` (no `:`)
/// continues the previous spec's options.
pub fn split_specs(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for value in values {
        let mut fresh = true;
        for piece in value.split(',') {
            let piece = piece.trim();
            if piece.is_empty() {
                continue;
            }
            let continues = piece.contains('=') && !piece.contains(':') && !fresh;
            match out.last_mut() {
                Some(last) if continues => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => out.push(piece.to_string()),
            }
            fresh = false;
        }
    }
    out
}

#[derive(Serialize)]
struct JsonOut<'a> {
    seed: u64,
    games_per_pairing: u32,
    game: &'a str,
    variant: &'a str,
    pairings: &'a [PairingResult],
    /// Ratings from this invocation's games only.
    ratings_this_run: Option<&'a EloFit>,
    /// Ratings from every recorded game (with --run), else this run's.
    ratings: Option<&'a EloFit>,
    rating_error: Option<String>,
    sprt: Option<&'a SprtReport>,
    forfeits: Vec<&'a ArenaGame>,
    history_file: Option<PathBuf>,
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let game = super::game_of::<R>(&args.game);
    let variant = super::variant_of::<R>(game, args.variant.as_deref(), args.blitz)?;
    R::with_game(game, variant, Evaluate(&args))?
}

/// The tournament on the game the flags name.
struct Evaluate<'a>(&'a Args);

impl GameTask for Evaluate<'_> {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        if self.0.history_only {
            history_only(self.0, &game)
        } else {
            tournament(self.0, game)
        }
    }
}

/// The arena the flags describe, checked before anything is played.
fn arena_config<G: GamePlayers>(args: &Args, game: G) -> anyhow::Result<ArenaConfig<G>> {
    ensure!(args.games > 0, "--games must be at least 1");
    ensure!(
        args.move_timeout.is_finite() && args.move_timeout > 0.0,
        "--move-timeout must be a positive number of seconds"
    );
    let players: Vec<String> = split_specs(&args.players)
        .iter()
        .map(|s| canonical_spec::<G>(s))
        .collect();
    let gauntlet = args.gauntlet.as_deref().map(canonical_spec::<G>);
    for spec in players.iter().chain(gauntlet.iter()) {
        check_game_spec(&game, spec).map_err(anyhow::Error::msg)?;
    }
    let openings = match &args.openings {
        None => Openings::Random(args.opening_moves),
        Some(path) => Openings::Fixed(read_openings(&game, path)?),
    };
    let sprt = match &args.sprt {
        None => None,
        Some(text) => {
            let s = Sprt::parse(text)?;
            Some(Sprt::with_rates(s.elo0, s.elo1, args.alpha, args.beta)?)
        }
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let config = ArenaConfig {
        players,
        gauntlet,
        games: args.games,
        seed,
        game,
        openings,
        alternate: true,
        sprt,
    };
    config.check().map_err(anyhow::Error::msg)?;
    Ok(config)
}

fn tournament<G: GamePlayers>(args: &Args, game: G) -> anyhow::Result<()> {
    let config = arena_config(args, game)?;
    let seed = config.seed;
    let eval_dir = args.run.as_ref().map(|r| r.join("eval"));
    let evaluation = RecordedTournament::open(&config, eval_dir.as_deref(), !args.no_history)?;
    if let Some(dir) = &eval_dir {
        left_out::<G>(evaluation.left_out(), dir);
    }
    let history_file = evaluation.history_file().map(|p| p.to_path_buf());
    let external = ExternalConfig {
        move_timeout: Duration::from_secs_f64(args.move_timeout),
        go: args.go.clone(),
        ..ExternalConfig::default()
    };
    let factory = |spec: &str, seed: u64| build_game_player(&config.game, spec, seed, &external);
    let (pool, threads) = thread_pool(args.threads)?;

    let total = args.games as usize * config.pairings().len();
    eprintln!(
        "evaluate: {} pairings x {} games = {total} games, seed {seed}, {threads} threads{}",
        config.pairings().len(),
        args.games,
        history_file
            .as_ref()
            .map(|p| format!(", recording to {}", p.display()))
            .unwrap_or_default()
    );
    // The same command run again (same seed, players and openings) takes
    // the games it recorded before instead of playing them twice.
    let already = evaluation.recorded();
    if already > 0 {
        eprintln!(
            "  {already} of these games are recorded in {} already (an earlier run with this \
             seed); they are not played again",
            eval_dir.as_ref().expect("history needs --run").display()
        );
    }
    let stop = super::stop_on_ctrl_c(
        "stopping after the games being played (the table covers the games played)",
    )?;
    let clock = std::time::Instant::now();
    let done = pool.install(|| {
        evaluation.play(
            &factory,
            &mut |played| {
                eprintln!(
                    "  {}/{total} games, {:.0} s",
                    already + played,
                    clock.elapsed().as_secs_f64()
                )
            },
            &|| stop.load(std::sync::atomic::Ordering::Relaxed),
        )
    })?;
    print_tables(&done.result.pairings, Some(&config.openings));
    let resume_hint = history_file.is_some().then_some(seed);
    print_outcome(&done, total, resume_hint);
    let rating_error = print_overall(&done);
    if let Some(path) = &args.json {
        let out = JsonOut {
            seed,
            games_per_pairing: args.games,
            game: G::NAME,
            variant: config.game.variant(),
            pairings: &done.result.pairings,
            ratings_this_run: done.this_run.as_ref().ok(),
            ratings: done.overall.as_ref().ok(),
            rating_error,
            sprt: done.result.sprt.as_ref(),
            forfeits: done.result.forfeits().collect(),
            history_file,
        };
        write_json(path, &out)?;
    }
    Ok(())
}

/// A pool of `threads` threads (default: one per core), and how many.
fn thread_pool(threads: Option<usize>) -> anyhow::Result<(rayon::ThreadPool, usize)> {
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    Ok((pool, threads))
}

/// Says how many records of other games the folder held.
fn left_out<G: Game>(n: usize, dir: &std::path::Path) {
    if n > 0 {
        eprintln!(
            "  {n} games of other games than {} recorded in {} are left out",
            G::NAME,
            dir.display()
        );
    }
}

/// Writes `out` as pretty JSON to `path`, whole or not at all.
fn write_json(path: &std::path::Path, out: &JsonOut<'_>) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(out)?;
    crate::util::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Whether the evaluation stopped early (and how to finish it: the same
/// command with `resume_seed`, when it records its games), its forfeits
/// and its SPRT.
fn print_outcome(done: &Evaluated, total: usize, resume_seed: Option<u64>) {
    let result = &done.result;
    let sprt_decided = result
        .sprt
        .as_ref()
        .is_some_and(|s| s.verdict != Verdict::Continue);
    if result.games.len() < total && !sprt_decided {
        println!(
            "\nstopped early: {} of {total} games played{}",
            result.games.len(),
            match resume_seed {
                Some(seed) => format!(
                    "; the same command with --seed {seed} plays the other {}",
                    total - result.games.len()
                ),
                None => String::new(),
            }
        );
    }
    let forfeits: Vec<&ArenaGame> = result.forfeits().collect();
    if !forfeits.is_empty() {
        println!("\nforfeits ({}):", forfeits.len());
        for g in forfeits.iter().take(20) {
            let f = g.forfeit.as_ref().expect("filtered on forfeits");
            println!(
                "  game {}: {} ({}) lost: {}",
                g.index, f.player, f.side, f.error
            );
        }
        if forfeits.len() > 20 {
            println!("  ... and {} more", forfeits.len() - 20);
        }
    }
    if let Some(s) = &result.sprt {
        println!(
            "\nSPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} in [{:.2}, {:.2}] after {} games: {}",
            s.sprt.elo0,
            s.sprt.elo1,
            s.sprt.alpha,
            s.sprt.beta,
            s.llr,
            s.lower_bound,
            s.upper_bound,
            s.games,
            match s.verdict {
                Verdict::AcceptH1 => "H1 accepted (the first player is stronger)",
                Verdict::AcceptH0 => "H0 accepted (not stronger by elo1)",
                Verdict::Continue => "undecided (game limit reached)",
            }
        );
    }
}

/// The ratings over every game rated, or why there are none (returned
/// for the JSON).
fn print_overall(done: &Evaluated) -> Option<String> {
    match &done.overall {
        Ok(fit) => {
            print_ratings(
                fit,
                if done.folded {
                    format!("all {} recorded games", done.rated)
                } else {
                    format!("this run's {} games", done.result.games.len())
                },
            );
            None
        }
        Err(e) => {
            println!("\nno ratings: {e}");
            Some(e.to_string())
        }
    }
}

/// The pairing table and ratings of every recorded game.
fn history_only<G: Game>(args: &Args, game: &G) -> anyhow::Result<()> {
    let dir = args.run.as_ref().expect("clap requires --run").join("eval");
    let (games, others) = history_of::<G>(&dir)?;
    left_out::<G>(others, &dir);
    ensure!(
        !games.is_empty(),
        "no games of {} recorded in {}",
        G::NAME,
        dir.display()
    );
    let mut pairs: Vec<(String, String)> = Vec::new();
    for g in &games {
        let key = (g.first.clone(), g.second.clone());
        if !pairs.contains(&key) {
            pairs.push(key);
        }
    }
    let pairings = PairingResult::group(&pairs, &games);
    println!("{} games recorded in {}", games.len(), dir.display());
    print_tables::<ActionOf<G>>(&pairings, None);
    let fit = fit_games(&games, &games[0].first);
    match &fit {
        Ok(fit) => print_ratings(fit, format!("all {} recorded games", games.len())),
        Err(e) => println!("\nno ratings: {e}"),
    }
    if let Some(path) = &args.json {
        let out = JsonOut {
            seed: 0,
            games_per_pairing: 0,
            game: G::NAME,
            variant: game.variant(),
            pairings: &pairings,
            ratings_this_run: None,
            ratings: fit.as_ref().ok(),
            rating_error: fit.as_ref().err().map(|e| e.to_string()),
            sprt: None,
            forfeits: games.iter().filter(|g| g.forfeit.is_some()).collect(),
            history_file: None,
        };
        write_json(path, &out)?;
    }
    Ok(())
}

/// Openings of `game` from a file, one per line in the game's notation.
fn read_openings<G: Game>(game: &G, path: &PathBuf) -> anyhow::Result<Vec<Vec<ActionOf<G>>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading openings from {}", path.display()))?;
    let start = game.start();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let actions = game
            .parse_game(&start, line)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{}, line {}", path.display(), i + 1))?;
        let mut end = start.clone();
        for &a in &actions {
            end.play_unchecked(a);
        }
        if end.is_over() {
            bail!(
                "{}, line {}: the opening ends the game",
                path.display(),
                i + 1
            );
        }
        out.push(actions);
    }
    ensure!(!out.is_empty(), "{} holds no openings", path.display());
    Ok(out)
}

fn fmt_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{:+}", x.round() as i64)
    } else if x > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// What the two players of a pairing searched a decision (`label`:
/// nodes, or the evaluations that say how far a time limit went on the
/// machine that played), where either reports it.
fn fmt_effort(label: &str, first: Option<f64>, second: Option<f64>) -> String {
    if first.is_none() && second.is_none() {
        return String::new();
    }
    let n = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
    format!("  {label}/decision {} vs {}", n(first), n(second))
}

/// The pairing table; `openings` says how the games opened (none for
/// recorded games of unknown schedules).
fn print_tables<A>(pairings: &[PairingResult], openings: Option<&Openings<A>>) {
    let width = pairings
        .iter()
        .map(|p| p.first.len() + p.second.len() + 4)
        .max()
        .unwrap_or(10)
        .max(8);
    println!(
        "\n{:<width$} {:>5} {:>5} {:>5} {:>5} {:>6}  {:<15} {:>6}  {:<15}",
        "pairing (first vs second)",
        "games",
        "W",
        "D",
        "L",
        "score",
        "95% interval",
        "Elo",
        "95% interval"
    );
    for p in pairings {
        let r = &p.results;
        println!(
            "{:<width$} {:>5} {:>5} {:>5} {:>5} {:>5.1}%  [{:>5.1}, {:>5.1}]  {:>6}  [{}, {}]{}{}{}",
            format!("{} vs {}", p.first, p.second),
            r.games(),
            r.wins,
            r.draws,
            r.losses,
            100.0 * p.score,
            100.0 * p.score_low,
            100.0 * p.score_high,
            fmt_elo(p.elo),
            fmt_elo(p.elo_low),
            fmt_elo(p.elo_high),
            if p.forfeits_first + p.forfeits_second > 0 {
                format!("  forfeits {}/{}", p.forfeits_first, p.forfeits_second)
            } else {
                String::new()
            },
            fmt_effort("nodes", p.nodes_first, p.nodes_second),
            fmt_effort("evaluations", p.evaluations_first, p.evaluations_second),
        );
    }
    let Some(openings) = openings else {
        println!("W/D/L and score are the first player's.");
        return;
    };
    let openings = match openings {
        Openings::Random(0) => "the start position".to_string(),
        Openings::Random(k) => format!("{k} random decisions"),
        Openings::Fixed(list) => format!("{} fixed openings", list.len()),
    };
    println!(
        "W/D/L and score are the first player's; each opening ({openings}) is played with both colours."
    );
}

fn print_ratings(fit: &EloFit, over: String) {
    println!(
        "\nElo (Bradley-Terry maximum likelihood, draws as half wins, anchored at {} = 0{}), over {over}:",
        fit.anchor,
        if fit.anchor == "random" {
            ""
        } else {
            "; `random` did not play, so the first player is the anchor"
        }
    );
    let width = fit
        .ratings
        .iter()
        .map(|r| r.player.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:>4}  {:<width$} {:>7} {:>7} {:>6} {:>6}",
        "rank", "player", "Elo", "±95%", "games", "score"
    );
    for (i, r) in fit.ratings.iter().enumerate() {
        println!(
            "{:>4}  {:<width$} {:>7.0} {:>7.0} {:>6} {:>5.1}%",
            i + 1,
            r.player,
            r.elo,
            r.error95,
            r.games,
            100.0 * r.score
        );
    }
}
