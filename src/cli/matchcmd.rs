//! `yinsh-zero match`: two players, many games, wins/draws/losses.

use std::time::Duration;

use anyhow::ensure;
use serde::Serialize;

use crate::arena::{ArenaGame, GamePlayers, MatchConfig, MatchResult, PairResults, run_arena};
use crate::arena::{KNOWN_PLAYERS, PlayerInfo};
use crate::engine::{ExternalConfig, build_game_player, check_game_spec};
use crate::games::{GAMES, GameTask, Registry, default_variant, with_game};

#[derive(clap::Args)]
#[command(after_help = players_help())]
pub struct Args {
    /// Spec of the player with White (in every game, or the even ones with
    /// --swap): `name[:key=value,...]`, or an external program speaking
    /// docs/engine-protocol.md as `cmd:<command line>` (or any quoted
    /// command with a space, e.g. "./my-engine --fast").
    #[arg(long, value_name = "SPEC")]
    pub white: String,
    /// Spec of the player with Black (in every game, or the even ones with
    /// --swap).
    #[arg(long, value_name = "SPEC")]
    pub black: String,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Seed; the same seed gives the same results on any number of threads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Alternate colours between the two players from game to game.
    #[arg(long)]
    pub swap: bool,
    /// The game (default: the home game, `yinsh` in `yinsh-zero`; players of
    /// other games: `random`, `alphabeta`, `mcts-rollout`, `net-*`).
    #[arg(long)]
    pub game: Option<String>,
    /// The game's variant (default: the game's first: `standard`,
    /// `nine`, `9x9`).
    #[arg(long)]
    pub variant: Option<String>,
    /// YINSH Blitz rules (the first ring removed wins): `--variant blitz`.
    #[arg(long, conflicts_with = "variant")]
    pub blitz: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// External programs: seconds to wait for each `bestmove` (a program
    /// that takes longer loses that game by forfeit).
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub move_timeout: f64,
    /// External programs: arguments sent with every `go` (e.g. "sims 200").
    #[arg(long, default_value = "", value_name = "ARGS")]
    pub go: String,
}

/// The match result and the games lost by forfeit.
#[derive(Serialize)]
struct Report {
    #[serde(flatten)]
    result: MatchResult,
    forfeits: Vec<ArenaGame>,
}

fn players_help() -> String {
    fn kinds(s: &mut String, players: &[PlayerInfo]) {
        for p in players {
            *s += &format!("  {:<10} {}\n", p.name, p.about);
            for (k, about) in p.keys {
                *s += &format!("  {:<10}   {k}={about}\n", "");
            }
        }
    }
    struct Own;
    impl GameTask for Own {
        type Output = &'static [PlayerInfo];
        fn run<G: GamePlayers>(self, _: G) -> Self::Output {
            G::own_players()
        }
    }
    let mut s = String::from(
        "Players of every game (or `cmd:<command>` for an external engine program):\n",
    );
    kinds(&mut s, KNOWN_PLAYERS);
    // clap takes the help before any registry is known: the built-in games'.
    for game in GAMES {
        let own = default_variant(game)
            .ok()
            .and_then(|v| with_game(game, v, Own).ok())
            .unwrap_or_default();
        if !own.is_empty() {
            s += &format!("{game}'s own (one of the same name replaces the one above):\n");
            kinds(&mut s, own);
        }
    }
    s
}

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    ensure!(
        args.move_timeout.is_finite() && args.move_timeout > 0.0,
        "--move-timeout must be a positive number of seconds"
    );
    let game = super::game_of::<R>(&args.game);
    let variant = super::variant_of::<R>(game, args.variant.as_deref(), args.blitz)?;
    R::with_game(game, variant, Match(&args))?
}

/// The match on the game the flags name.
struct Match<'a>(&'a Args);

impl GameTask for Match<'_> {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> Self::Output {
        play(self.0, game)
    }
}

fn play<G: GamePlayers>(args: &Args, game: G) -> anyhow::Result<()> {
    check_game_spec(&game, &args.white).map_err(anyhow::Error::msg)?;
    check_game_spec(&game, &args.black).map_err(anyhow::Error::msg)?;
    // The arena of `play_match`, but with external programs allowed and a
    // failing player forfeiting its game instead of ending the match.
    let config = MatchConfig {
        first: args.white.clone(),
        second: args.black.clone(),
        games: args.games,
        seed: args.seed,
        swap: args.swap,
        game: game.clone(),
    }
    .arena();
    let external = ExternalConfig {
        move_timeout: Duration::from_secs_f64(args.move_timeout),
        go: args.go.clone(),
        ..ExternalConfig::default()
    };
    let factory = |spec: &str, seed: u64| build_game_player(&game, spec, seed, &external);
    let arena = run_arena(&config, &factory, &mut |_| {})?;
    let r = MatchResult::from_games(&config, &arena.games);
    let forfeits: Vec<ArenaGame> = arena.forfeits().cloned().collect();
    if args.json {
        let report = Report {
            result: r,
            forfeits,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_result(&r);
    if !forfeits.is_empty() {
        println!("forfeits ({}):", forfeits.len());
        for g in &forfeits {
            let f = g.forfeit.as_ref().expect("filtered on forfeits");
            println!(
                "  game {}: {} ({}) lost by forfeit: {}",
                g.index, f.player, f.side, f.error
            );
        }
    }
    Ok(())
}

fn print_result(r: &MatchResult) {
    println!(
        "A = {}, B = {}: {} games, seed {}{}",
        r.first,
        r.second,
        r.games,
        r.seed,
        if r.swap { ", colours alternating" } else { "" }
    );
    println!(
        "{:<34} {:>6} {:>6} {:>6} {:>7}",
        "", "wins", "draws", "losses", "score"
    );
    let line = |label: String, t: &PairResults| {
        if t.games() > 0 {
            println!(
                "{label:<34} {:>6} {:>6} {:>6} {:>6.1}%",
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score()
            );
        }
    };
    line(format!("A ({}) as white", r.first), &r.first_as_white);
    line(format!("A ({}) as black", r.first), &r.first_as_black);
    line(
        format!("B ({}) as white", r.second),
        &r.first_as_black.flipped(),
    );
    line(
        format!("B ({}) as black", r.second),
        &r.first_as_white.flipped(),
    );
    if r.swap {
        line(format!("A ({}) total", r.first), &r.first_total);
        line(format!("B ({}) total", r.second), &r.second_total);
    }
    line("white side, whoever played it".into(), &r.white);
    let reasons: Vec<String> = r
        .end_reasons
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    println!(
        "end reasons: {}; {:.1} decisions per game",
        reasons.join(", "),
        r.mean_actions
    );
}
