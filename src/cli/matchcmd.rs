//! `yinsh-zero match`: two players, many games, wins/draws/losses.

use anyhow::ensure;

use yinsh_zero::eval::{KNOWN_PLAYERS, MatchConfig, Tally, play_match};
use yinsh_zero::yinsh::Variant;

#[derive(clap::Args)]
#[command(after_help = players_help())]
pub struct Args {
    /// Spec of the player with White (in every game, or the even ones with
    /// --swap): `name[:key=value,...]`.
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
    /// Blitz rules: the first ring removed wins.
    #[arg(long)]
    pub blitz: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

fn players_help() -> String {
    let mut s = String::from("Players:\n");
    for p in KNOWN_PLAYERS {
        s += &format!("  {:<10} {}\n", p.name, p.about);
        for (k, about) in p.keys {
            s += &format!("  {:<10}   {k}={about}\n", "");
        }
    }
    s
}

pub fn run(args: Args) -> anyhow::Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    let config = MatchConfig {
        first: args.white,
        second: args.black,
        games: args.games,
        seed: args.seed,
        swap: args.swap,
        variant: if args.blitz {
            Variant::BLITZ
        } else {
            Variant::STANDARD
        },
    };
    let r = play_match(&config)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
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
    let line = |label: String, t: &Tally| {
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
    Ok(())
}
