//! `yinsh-zero serve`: every registered game's page, the dashboard and the
//! JSON API.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::arena::{GamePlayers, MAX_THREADS, PlayerSpec, available_cores, parse_game_player};
use crate::checkpoint::resolve;
use crate::games::{GameTask, Registry};
use crate::run::RunDir;
use crate::run::shared::SharedRun;
use crate::store::Location;
use crate::web::{NET_KEY, Offers, ServeConfig, bounded_spec};

#[derive(clap::Args)]
pub struct Args {
    /// The run whose metrics and evaluations the dashboard shows: a
    /// directory, file://DIR or s3://BUCKET/PREFIX (read again every
    /// --refresh seconds; docs/distributed.md). Default: the run `train`
    /// writes without --run, this project's checkpoints/ and data/.
    #[arg(long, value_name = "DIR|URL")]
    pub run: Option<String>,
    /// Local folder for a remote run's files (default: one under the
    /// system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Seconds between reads of a remote run.
    #[arg(long, default_value_t = 10.0)]
    pub refresh: f64,
    /// The opponent the home page (the first registered game's: YINSH)
    /// offers first: a player spec such as `alphabeta:depth=3` (default:
    /// the game's shipped network, `net-mcts:net=shipped`, where there is
    /// one; else `mcts-rollout:playouts=2000`). A `checkpoint=DIR` here is
    /// offered (as with --offer) and the page names it by that name.
    #[arg(long, value_name = "SPEC")]
    pub player: Option<String>,
    /// A further network the pages may play, as `NAME=DIR` or `DIR` (named
    /// after its folder); repeatable. Requests name networks only by the
    /// names offered (`net-mcts:net=NAME`), never by a path: the shipped
    /// networks in checkpoints/ and the --run's are offered without it.
    #[arg(long, value_name = "[NAME=]DIR")]
    pub offer: Vec<String>,
    /// Serve the dashboard and the run's data only: no games, analyses or
    /// reviews. For a dashboard reachable from other machines.
    #[arg(long)]
    pub read_only: bool,
    /// Serve games, analyses and reviews on an address other machines can
    /// reach (a --host other than loopback). Without it such a server must
    /// be --read-only: every game request costs the server CPU time.
    #[arg(long)]
    pub allow_remote_play: bool,
    /// Engine moves, analyses, reviews and new games running at once; more
    /// wait in line, and beyond four per slot a request gets 503 (0: one
    /// per core).
    #[arg(long, default_value_t = 0)]
    pub max_work: usize,
    /// Port to listen on; 0 picks a free one (the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Most milliseconds an engine may think per decision.
    #[arg(long, default_value_t = 2000)]
    pub think_ms: u64,
    /// Threads of each game's `net-mcts` engine whose spec sets no
    /// `threads`, and the most a request may ask for (default: every core
    /// of this machine). Games thinking at once (--max-work) share the
    /// cores.
    #[arg(long, default_value_t = available_cores())]
    pub threads: usize,
    /// Simulations of the agent's-view search.
    #[arg(long, default_value_t = 300)]
    pub analysis_sims: u32,
    /// Directory of the solved perfect-play databases the pages offer
    /// (Morris: one subdirectory per variant, `nine/`, `six/`, `three/`,
    /// as `solve --db DIR/six` writes them); default: each game's own,
    /// data/morris for Morris, where `solve` writes without --db.
    #[arg(long = "databases", alias = "morris-db", value_name = "DIR")]
    pub databases: Option<PathBuf>,
}

/// The shipped network, when this project has one.
const SHIPPED: &str = "net-mcts:net=shipped";

pub fn run<R: Registry>(args: Args) -> anyhow::Result<()> {
    let loopback = args
        .host
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.is_loopback())
        .unwrap_or(args.host == "localhost");
    anyhow::ensure!(
        loopback || args.read_only || args.allow_remote_play,
        "--host {}: a server other machines can reach plays games for anyone who asks; \
         give --read-only to serve the dashboard alone, or --allow-remote-play to serve \
         games too",
        args.host
    );
    anyhow::ensure!(
        (1..=MAX_THREADS).contains(&args.threads),
        "--threads must be from 1 to {MAX_THREADS}"
    );
    let max_think = Duration::from_millis(args.think_ms.max(1));
    let mut offers = Offers::shipped(Path::new("checkpoints"));
    offers.set_threads(args.threads);
    for arg in &args.offer {
        let name = offers
            .add_from_arg(arg)
            .with_context(|| format!("--offer {arg}"))?;
        eprintln!("offered: net={name} ({arg})");
    }
    let player = default_opponent::<R>(args.player.as_deref(), &mut offers, max_think)?;
    eprintln!("default opponent: {player}");
    let run = open_run(&args)?;
    if args.run.is_some() && resolve(&run.checkpoints()).is_ok() {
        offers
            .add_network("run", &run.checkpoints())
            .context("offering the run's best network as `run`")?;
    }
    let config = ServeConfig {
        run_dir: Some(run.meta().to_path_buf()),
        default_opponent: player,
        max_think,
        analysis_simulations: args.analysis_sims.max(1),
        databases: args.databases.clone(),
        offers,
        read_only: args.read_only,
        max_work: args.max_work,
        ..ServeConfig::default()
    };
    let offered: Vec<&str> = config
        .offers
        .networks()
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    eprintln!("networks offered: {}", offered.join(", "));
    if args.read_only {
        eprintln!("read-only: the dashboard and the run's data alone");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let addr: SocketAddr = format!("{}:{}", args.host, args.port)
            .parse()
            .with_context(|| format!("`{}:{}` is not an address", args.host, args.port))?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("binding {addr}"))?;
        let bound = listener.local_addr()?;
        // Tests and scripts read this line to find the port.
        println!("listening on http://{bound}/");
        std::io::stdout().flush()?;
        crate::web::serve(listener, config, &R::web_pages())
            .await
            .context("serving")
    })
}

/// The home game's (the registry's first) opponent, `--player` or its
/// shipped network, checked once at start-up rather than at the first game.
fn default_opponent<R: Registry>(
    asked: Option<&str>,
    offers: &mut Offers,
    max_think: Duration,
) -> anyhow::Result<String> {
    let home = R::home();
    let mut player = asked.map(str::to_string).unwrap_or_else(|| {
        if offers.network("shipped", home).is_some() {
            SHIPPED.into()
        } else {
            "mcts-rollout:playouts=2000".into()
        }
    });
    if !player.eq_ignore_ascii_case(crate::web::HUMAN) {
        player = offer_player(offers, &player)?;
        let variant = R::default_variant(home)?;
        let resolved = offers
            .resolve(&player, home, variant)
            .with_context(|| format!("--player `{player}`"))?;
        let check = CheckOpponent {
            spec: &resolved.spec,
            max_think,
        };
        R::with_game(home, variant, check)?.with_context(|| format!("--player `{player}`"))?;
    }
    Ok(player)
}

/// The run the dashboard shows: a local folder, or a remote run's copy.
fn open_run(args: &Args) -> anyhow::Result<RunDir> {
    Ok(match &args.run {
        None => RunDir::project_default(Path::new(".")),
        Some(location) => match Location::parse(location)? {
            Location::Local(dir) => {
                anyhow::ensure!(dir.is_dir(), "--run {}: not a directory", dir.display());
                RunDir::new(&dir)
            }
            Location::S3 { .. } => follow(location, args.cache.as_deref(), args.refresh)?,
        },
    })
}

/// Builds the home game's default opponent once, as a game would, with
/// its thinking time bounded as the server bounds it.
struct CheckOpponent<'a> {
    spec: &'a str,
    max_think: Duration,
}

impl GameTask for CheckOpponent<'_> {
    type Output = anyhow::Result<()>;
    fn run<G: GamePlayers>(self, game: G) -> anyhow::Result<()> {
        let spec = bounded_spec::<G>(self.spec, self.max_think)?;
        parse_game_player(&game, &spec, 0)?;
        Ok(())
    }
}

/// `--player` with a `checkpoint=DIR` of the operator's own turned into an
/// offered network (named after its folder, or `player`), so that the page
/// can send it back by name: requests never carry paths.
fn offer_player(offers: &mut Offers, player: &str) -> anyhow::Result<String> {
    let mut spec: PlayerSpec = player
        .parse()
        .with_context(|| format!("--player `{player}`"))?;
    for (key, value) in spec.options.iter_mut() {
        if key != "checkpoint" {
            continue;
        }
        let dir = PathBuf::from(&*value);
        let existing = offers
            .networks()
            .iter()
            .find(|n| Offers::same_dir(n, &dir))
            .map(|n| n.name.clone());
        let name = match existing {
            Some(name) => name,
            None => {
                let name = "player".to_string();
                offers
                    .add_network(&name, &dir)
                    .with_context(|| format!("--player `{player}`"))?;
                name
            }
        };
        *key = NET_KEY.into();
        *value = name;
    }
    Ok(spec.to_string())
}

/// A remote run's local copy for the dashboard: read now (so that bad
/// credentials fail at start-up), then again every `refresh` seconds on a
/// thread of its own, reporting a failed read and trying again.
fn follow(location: &str, cache: Option<&Path>, refresh: f64) -> anyhow::Result<RunDir> {
    anyhow::ensure!(
        refresh.is_finite() && refresh > 0.0,
        "--refresh must be more than 0 seconds"
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let shared = SharedRun::open(location, cache, stop)?;
    shared.pull_view()?;
    let dir = shared.dir().clone();
    eprintln!(
        "dashboard reads {} every {refresh} s (local copy in {})",
        shared.url(),
        dir.root.display()
    );
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs_f64(refresh));
            if let Err(e) = shared.pull_view() {
                eprintln!("{e:#}");
            }
        }
    });
    Ok(dir)
}
