//! The HTTP server: pages, the game API, the agent's view and the run
//! dashboard's data.
//!
//! Locks are `std` mutexes held only for bookkeeping, never across an
//! `await` or while an engine thinks: the engine is lent out of its game
//! and runs on the blocking pool, so one slow engine never stalls other
//! games or other requests about its own game.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::analysis::{EvaluatorFactory, analyze, spec_evaluators};
use super::api::{ApiError, MAX_BODY_BYTES, body, lock, ok, page};
use super::assets;
use super::emergo::EmergoGame;
use super::error::GameError;
use super::game::{BoardView, GameOptions, GameView, PageGame, outcome_text};
use super::grid::{GridGame, OptimalLines};
use super::morris::MorrisGame;
use super::morris_db::MorrisDatabases;
use super::offers::Offers;
use super::run_view::read_run;
use super::seat::EngineDone;
use super::served::{DecisionRequest, ServedGame, create, game_routes, players_json};
use super::store::Games;
use super::work::Work;
use crate::games::yinsh::notation::{format_turns, parse_game};
use crate::games::yinsh::sgf::parse_sgf;
use crate::games::yinsh::{Action, Color, Decision, Position};
use crate::games::yinsh::{Variant, Yinsh};

/// How the server is set up.
#[derive(Clone)]
pub struct ServeConfig {
    /// The run directory the dashboard reads, if any.
    pub run_dir: Option<PathBuf>,
    /// The opponent the page offers first.
    pub default_opponent: String,
    /// The most an engine may think per decision (specs are bounded by it).
    pub max_think: Duration,
    /// Simulations of the agent's-view search, and the most a request may ask.
    pub analysis_simulations: u32,
    pub max_analysis_simulations: u32,
    /// Judges positions for the agent's view (the hook for networks).
    pub evaluators: EvaluatorFactory,
    /// Games kept (of each game); the least recently used one is dropped
    /// beyond this.
    pub max_games: usize,
    /// The directory holding the Morris perfect-play databases
    /// (`nine/`, `six/`, `three/`); `None` for where `solve` writes them
    /// (`data/morris/<variant>`).
    pub morris_db: Option<PathBuf>,
    /// The networks and databases a request may name ([`Offers`]).
    pub offers: Offers,
    /// Serve the dashboard and the run's JSON only: no games, analyses or
    /// reviews (for a dashboard exposed beyond this machine).
    pub read_only: bool,
    /// Engine moves, analyses, reviews and new games running at once; more
    /// wait in line ([`super::work::Work`]). 0: one per core.
    pub max_work: usize,
    /// Requests that may wait in line for one of those before the server
    /// answers 503 with Retry-After. 0: four per running slot.
    pub max_waiting: usize,
}

impl ServeConfig {
    /// [`ServeConfig::max_think`] as the pages' configs give it.
    pub(super) fn max_think_ms(&self) -> u64 {
        self.max_think.as_millis() as u64
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            run_dir: None,
            default_opponent: "mcts-rollout:playouts=2000".into(),
            max_think: Duration::from_secs(2),
            analysis_simulations: 300,
            max_analysis_simulations: 5000,
            evaluators: spec_evaluators(),
            max_games: 1000,
            morris_db: None,
            offers: Offers::default(),
            read_only: false,
            max_work: 0,
            max_waiting: 0,
        }
    }
}

pub(super) struct AppState {
    pub(super) config: ServeConfig,
    /// The bounded line every slow request goes through.
    pub(super) work: Work,
    games: Games<PageGame>,
    pub(super) morris: Games<MorrisGame>,
    pub(super) morris_dbs: MorrisDatabases,
    pub(super) grid: Games<GridGame>,
    /// Each grid board's optimal line from the start, solved once.
    pub(super) grid_lines: OptimalLines,
    pub(super) emergo: Games<EmergoGame>,
}

pub(super) type Shared = Arc<AppState>;

impl AppState {
    fn get(&self, id: &str) -> Result<Arc<Mutex<PageGame>>, ApiError> {
        self.games.get(id)
    }
}

/// YINSH's play and engine reply also note the markers flipped, and its
/// undo never takes back a random opening.
impl ServedGame for PageGame {
    type State = Position;
    type View = GameView;
    fn games(state: &AppState) -> &Games<Self> {
        &state.games
    }
    fn view(&self, id: &str) -> GameView {
        PageGame::view(self, id)
    }
    fn play(&mut self, text: &str) -> Result<(), GameError> {
        PageGame::play(self, text).map(drop)
    }
    fn undo(&mut self) -> Result<usize, GameError> {
        PageGame::undo(self)
    }
    fn finish_engine(&mut self, done: EngineDone<Position>) -> Result<Vec<Action>, GameError> {
        PageGame::finish_engine(self, done)
    }
}

/// The routes, ready to serve: with [`ServeConfig::read_only`] the
/// dashboard and the run's data alone.
pub fn router(mut config: ServeConfig) -> Router {
    let read_only = config.read_only;
    let morris_dbs = MorrisDatabases::new(config.morris_db.clone());
    // Each Morris variant's database folder is offered under the variant's
    // name (`perfect:db=six`), solved yet or not.
    for name in crate::games::morris::Variant::NAMES {
        let v = crate::games::morris::Variant::from_name(name).expect("a known name");
        let _ = config
            .offers
            .add_database(name, "morris", name, &morris_dbs.dir(v));
    }
    let state: Shared = Arc::new(AppState {
        work: Work::new(config.max_work, config.max_waiting),
        games: Games::new(config.max_games),
        morris: Games::new(config.max_games),
        morris_dbs,
        grid: Games::new(config.max_games),
        grid_lines: OptimalLines::default(),
        emergo: Games::new(config.max_games),
        config,
    });
    let not_found = || async { ApiError::new(StatusCode::NOT_FOUND, "no such page or API route") };
    if read_only {
        return Router::new()
            .route("/", get(|| async { Redirect::to("/dashboard") }))
            .route("/dashboard", get(|| async { page(assets::DASHBOARD_HTML) }))
            .route("/assets/{name}", get(asset))
            .route("/api/run", get(run))
            .fallback(not_found)
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .with_state(state);
    }
    Router::new()
        .route("/", get(|| async { page(assets::PLAY_HTML) }))
        .route("/rules", get(|| async { page(assets::RULES_HTML) }))
        .route("/dashboard", get(|| async { page(assets::DASHBOARD_HTML) }))
        .route("/assets/{name}", get(asset))
        .route("/api/config", get(config_info))
        .route("/api/offers", get(offers))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}/analysis", get(analysis))
        .route("/api/review", post(review))
        .route("/api/run", get(run))
        .merge(game_routes::<PageGame, DecisionRequest>("/api/games"))
        .merge(super::morris_api::routes())
        .merge(super::grid_api::routes())
        .merge(super::emergo_api::routes())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// What a request may name: `net=NAME` and `db=NAME` ([`Offers`]).
async fn offers(State(state): State<Shared>) -> Response {
    ok(&state.config.offers)
}

/// Serves on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    axum::serve(listener, router(config)).await
}

async fn asset(Path(name): Path<String>) -> Response {
    match assets::get(&name) {
        Some((mime, body)) => ([(header::CONTENT_TYPE, mime)], body).into_response(),
        None => ApiError::new(StatusCode::NOT_FOUND, format!("no asset `{name}`")).into_response(),
    }
}

async fn config_info(State(state): State<Shared>) -> Response {
    ok(json!({
        "default_opponent": state.config.default_opponent,
        "max_think_ms": state.config.max_think_ms(),
        "players": players_json::<Yinsh>(),
        "run": state.config.run_dir.as_ref().map(|d| d.display().to_string()),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    #[serde(default)]
    color: Option<Color>,
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    blitz: bool,
    #[serde(default)]
    random_placement: bool,
    #[serde(default)]
    seed: Option<u64>,
}

async fn new_game(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let options = GameOptions {
        human: req.color.unwrap_or(Color::White),
        opponent: req
            .opponent
            .unwrap_or_else(|| state.config.default_opponent.clone()),
        blitz: req.blitz,
        random_placement: req.random_placement,
        seed: req.seed.unwrap_or_else(rand::random),
    };
    // Building a player may allocate large tables: off the async threads.
    create(&state, move |st| {
        PageGame::new(&options, st.config.max_think, &st.config.offers)
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisQuery {
    sims: Option<u32>,
}

async fn analysis(
    State(state): State<Shared>,
    Path(id): Path<String>,
    query: Result<Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.body_text()))?;
    let max = state.config.max_analysis_simulations;
    let sims = q.sims.unwrap_or(state.config.analysis_simulations);
    if sims == 0 || sims > max {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("sims={sims}: expected 1 to {max} simulations"),
        ));
    }
    let game = state.get(&id)?;
    let (pos, spec) = {
        let g = lock(&game);
        (*g.position(), g.engine_spec().to_string())
    };
    if pos.is_over() {
        return Err(GameError::GameOver.into());
    }
    let factory = state.config.evaluators.clone();
    let result = state
        .work
        .run(move || {
            let mut evaluator = factory(&spec);
            analyze(&pos, evaluator.as_mut(), sims, rand::random())
        })
        .await?;
    match result {
        Some(a) => Ok(ok(a)),
        None => Err(GameError::GameOver.into()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewRequest {
    /// A move list in official notation.
    #[serde(default)]
    moves: Option<String>,
    /// A BoardSpace `.sgf` record.
    #[serde(default)]
    sgf: Option<String>,
    #[serde(default)]
    blitz: bool,
}

#[derive(Serialize)]
struct ReviewStep {
    decision: String,
    player: Color,
    /// The step as the source wrote it (sgf only).
    source: Option<String>,
}

#[derive(Serialize)]
struct ReviewPosition {
    board: BoardView,
    to_act: Option<Color>,
    decision: Decision,
    turn: u32,
}

#[derive(Serialize)]
struct Review {
    variant: &'static str,
    steps: Vec<ReviewStep>,
    /// One more than `steps`: the start, then after each step.
    positions: Vec<ReviewPosition>,
    moves: Vec<String>,
    result: Option<String>,
}

async fn review(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: ReviewRequest = body(&bytes)?;
    state.work.run(move || review_of(req)).await?
}

/// Replays a review request's game, position by position.
fn review_of(req: ReviewRequest) -> Result<Response, ApiError> {
    let bad = |msg: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, msg);
    let (start, actions, sources, resigned) = match (req.moves, req.sgf) {
        (Some(moves), None) => {
            let start = Position::with_variant(Variant::blitz_if(req.blitz));
            let actions = parse_game(&start, &moves).map_err(|e| bad(e.to_string()))?;
            let n = actions.len();
            (start, actions, vec![None; n], None)
        }
        (None, Some(sgf)) => {
            let game = parse_sgf(&sgf).map_err(|e| bad(e.to_string()))?;
            let mut start = Position::new();
            if game.final_position.variant().rings_to_win == 1 {
                start = Position::blitz();
            }
            let sources = game.steps.iter().map(|s| Some(s.text.clone())).collect();
            (start, game.actions, sources, game.resigned)
        }
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "give exactly one of `moves` (official notation) or `sgf` (a BoardSpace record)",
            ));
        }
    };
    let mut pos = start;
    let snap = |p: &Position| ReviewPosition {
        board: BoardView::of(p),
        to_act: (!p.is_over()).then(|| p.to_act()),
        decision: p.decision(),
        turn: p.turn(),
    };
    let mut positions = vec![snap(&pos)];
    let mut steps = Vec::new();
    for (&a, source) in actions.iter().zip(sources) {
        steps.push(ReviewStep {
            decision: a.to_string(),
            player: pos.to_act(),
            source,
        });
        pos.play_unchecked(a);
        positions.push(snap(&pos));
    }
    let result = match (pos.outcome(), resigned) {
        (_, Some(c)) => Some(format!("{c} resigned")),
        (Some(o), None) => Some(outcome_text(&o)),
        (None, None) => None,
    };
    Ok(ok(Review {
        variant: start.variant().name(),
        moves: format_turns(&start, &actions),
        steps,
        positions,
        result,
    }))
}

async fn run(State(state): State<Shared>) -> Result<Response, ApiError> {
    let Some(dir) = state.config.run_dir.clone() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no run directory: start the server with `serve --run DIR`",
        ));
    };
    let view = state.work.run(move || read_run(&dir)).await?;
    Ok(ok(view))
}
