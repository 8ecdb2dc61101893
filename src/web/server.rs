//! The HTTP server: pages, the game API, the agent's view and the run
//! dashboard's data.
//!
//! Locks are `std` mutexes held only for bookkeeping, never across an
//! `await` or while an engine thinks: the engine is lent out of its game
//! and runs on the blocking pool, so one slow engine never stalls other
//! games or other requests about its own game.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::analysis::{EvaluatorFactory, analyze, spec_evaluators};
use super::assets;
use super::game::{BoardView, GameError, GameOptions, GameView, PageGame, outcome_text};
use super::grid::{GridGame, OptimalLines};
use super::morris::MorrisGame;
use super::morris_db::MorrisDatabases;
use super::run_view::read_run;
use super::seat::{EngineDone, EngineJob};
use crate::arena::players_of;
use crate::yinsh::notation::{NotationError, format_turns, parse_game};
use crate::yinsh::sgf::parse_sgf;
use crate::yinsh::{Action, Color, Decision, Position};
use crate::yinsh::{Variant, Yinsh};

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
        }
    }
}

struct Entry<T> {
    game: Arc<Mutex<T>>,
    last_used: u64,
}

/// The games of one kind the server holds, the least recently used one
/// dropped beyond `max`.
pub(super) struct Games<T> {
    map: Mutex<HashMap<String, Entry<T>>>,
    clock: AtomicU64,
    max: usize,
}

impl<T> Games<T> {
    fn new(max: usize) -> Games<T> {
        Games {
            map: Mutex::new(HashMap::new()),
            clock: AtomicU64::new(0),
            max: max.max(1),
        }
    }

    pub(super) fn get(&self, id: &str) -> Result<Arc<Mutex<T>>, ApiError> {
        let mut games = lock(&self.map);
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        match games.get_mut(id) {
            Some(e) => {
                e.last_used = tick;
                Ok(e.game.clone())
            }
            None => Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no game `{id}` (games are kept in memory; start a new one)"),
            )),
        }
    }

    pub(super) fn insert(&self, game: T) -> (String, Arc<Mutex<T>>) {
        let mut games = lock(&self.map);
        while games.len() >= self.max {
            let oldest = games
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => games.remove(&k),
                None => break,
            };
        }
        let id = loop {
            let id = format!("{:016x}", rand::random::<u64>());
            if !games.contains_key(&id) {
                break id;
            }
        };
        let game = Arc::new(Mutex::new(game));
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        games.insert(
            id.clone(),
            Entry {
                game: game.clone(),
                last_used: tick,
            },
        );
        (id, game)
    }
}

pub(super) struct AppState {
    pub(super) config: ServeConfig,
    games: Games<PageGame>,
    pub(super) morris: Games<MorrisGame>,
    pub(super) morris_dbs: MorrisDatabases,
    pub(super) grid: Games<GridGame>,
    /// Each grid board's optimal line from the start, solved once.
    pub(super) grid_lines: OptimalLines,
}

pub(super) type Shared = Arc<AppState>;

impl AppState {
    fn get(&self, id: &str) -> Result<Arc<Mutex<PageGame>>, ApiError> {
        self.games.get(id)
    }
}

/// Work a view waits for that is too slow for the game's lock (the grid
/// game's solver verdict): it fills in what the view shows through state
/// it shares with the game, and runs on the blocking pool.
pub(super) type SlowWork = Box<dyn FnOnce() + Send>;

/// A game the server holds and the handlers shared by every game serve:
/// its view, undo, and an engine lent out to think (see
/// [`super::seat::EngineSeat`]).
pub(super) trait ServedGame: Send + Sized + 'static {
    type State: crate::game::State;
    type View: Serialize;
    /// Where the server keeps the games of this kind.
    fn games(state: &AppState) -> &Games<Self>;
    fn view(&self, id: &str) -> Self::View;
    /// What must run off the lock before [`ServedGame::view`] shows the
    /// game whole; `None` (the default) when the view is ready.
    fn slow_work(&self) -> Option<SlowWork> {
        None
    }
    fn undo(&mut self) -> Result<usize, GameError>;
    fn begin_engine(&mut self) -> Result<EngineJob<Self::State>, GameError>;
    fn finish_engine(
        &mut self,
        done: EngineDone<Self::State>,
    ) -> Result<Vec<<Self::State as crate::game::State>::Action>, GameError>;
    fn engine_lost(&mut self);
}

impl ServedGame for PageGame {
    type State = Position;
    type View = GameView;
    fn games(state: &AppState) -> &Games<Self> {
        &state.games
    }
    fn view(&self, id: &str) -> GameView {
        PageGame::view(self, id)
    }
    fn undo(&mut self) -> Result<usize, GameError> {
        PageGame::undo(self)
    }
    fn begin_engine(&mut self) -> Result<EngineJob<Position>, GameError> {
        PageGame::begin_engine(self)
    }
    fn finish_engine(&mut self, done: EngineDone<Position>) -> Result<Vec<Action>, GameError> {
        PageGame::finish_engine(self, done)
    }
    fn engine_lost(&mut self) {
        PageGame::engine_lost(self)
    }
}

/// A poisoned lock only means a panic elsewhere; the data is still whole
/// (every change is applied after its checks), so keep serving.
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An error answer: a status and `{"error": message}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let status = match &e {
            GameError::Opponent(_) | GameError::ThinkTooLong { .. } | GameError::BadTime { .. } => {
                StatusCode::BAD_REQUEST
            }
            GameError::Notation(NotationError::Malformed { .. }) | GameError::BadRequest(_) => {
                StatusCode::BAD_REQUEST
            }
            GameError::Notation(_) | GameError::Illegal(_) => StatusCode::UNPROCESSABLE_ENTITY,
            GameError::EngineBug { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            GameError::GameOver
            | GameError::EngineToAct(_)
            | GameError::HumanToAct(_)
            | GameError::NoEngine
            | GameError::EngineBusy
            | GameError::NothingToUndo => StatusCode::CONFLICT,
        };
        ApiError::new(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.message }))).into_response()
    }
}

/// Reads a JSON body, answering 400 with serde's words when it does not fit.
pub(super) fn body<T: for<'de> Deserialize<'de>>(bytes: &Bytes) -> Result<T, ApiError> {
    let text = if bytes.iter().all(u8::is_ascii_whitespace) {
        &b"{}"[..]
    } else {
        &bytes[..]
    };
    serde_json::from_slice(text).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("malformed request body: {e}"),
        )
    })
}

pub(super) fn ok<T: Serialize>(value: T) -> Response {
    axum::Json(value).into_response()
}

/// The routes, ready to serve.
pub fn router(config: ServeConfig) -> Router {
    let state: Shared = Arc::new(AppState {
        games: Games::new(config.max_games),
        morris: Games::new(config.max_games),
        morris_dbs: MorrisDatabases::new(config.morris_db.clone()),
        grid: Games::new(config.max_games),
        grid_lines: OptimalLines::default(),
        config,
    });
    Router::new()
        .route("/", get(|| async { page(assets::PLAY_HTML) }))
        .route("/rules", get(|| async { page(assets::RULES_HTML) }))
        .route("/dashboard", get(|| async { page(assets::DASHBOARD_HTML) }))
        .route("/assets/{name}", get(asset))
        .route("/api/config", get(config_info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(get_game::<PageGame>))
        .route("/api/games/{id}/play", post(play))
        .route("/api/games/{id}/engine", post(engine_move::<PageGame>))
        .route("/api/games/{id}/undo", post(undo::<PageGame>))
        .route("/api/games/{id}/analysis", get(analysis))
        .route("/api/review", post(review))
        .route("/api/run", get(run))
        .merge(super::morris_api::routes())
        .merge(super::grid_api::routes())
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page or API route") })
        .with_state(state)
}

/// Serves on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    axum::serve(listener, router(config)).await
}

pub(super) fn page(html: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

async fn asset(Path(name): Path<String>) -> Response {
    match assets::get(&name) {
        Some((mime, body)) => ([(header::CONTENT_TYPE, mime)], body).into_response(),
        None => ApiError::new(StatusCode::NOT_FOUND, format!("no asset `{name}`")).into_response(),
    }
}

async fn config_info(State(state): State<Shared>) -> Response {
    let players: Vec<_> = players_of::<Yinsh>()
        .iter()
        .map(|p| json!({ "name": p.name, "about": p.about, "keys": p.keys.iter().map(|(k, a)| json!({"key": k, "about": a})).collect::<Vec<_>>() }))
        .collect();
    ok(json!({
        "default_opponent": state.config.default_opponent,
        "max_think_ms": state.config.max_think.as_millis() as u64,
        "players": players,
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
    let max_think = state.config.max_think;
    // Building a player may allocate large tables: keep it off the async threads.
    let game = tokio::task::spawn_blocking(move || PageGame::new(&options, max_think))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(created(&state, game))
}

/// Keeps a new game and answers 201 with its view.
pub(super) fn created<G: ServedGame>(state: &AppState, game: G) -> Response {
    let (id, game) = G::games(state).insert(game);
    let view = lock(&game).view(&id);
    (StatusCode::CREATED, axum::Json(view)).into_response()
}

/// The view of a game whose lock is held, or the slow work it waits for
/// (see [`ServedGame::slow_work`]): drop the lock and hand either to
/// [`view_after`].
pub(super) fn view_or_work<G: ServedGame>(g: &G, id: &str) -> Result<G::View, SlowWork> {
    match g.slow_work() {
        None => Ok(g.view(id)),
        Some(work) => Err(work),
    }
}

/// The view [`view_or_work`] gave, or its slow work run on the blocking
/// pool, off the game's lock, and then the view (at most a few rounds,
/// should the game change meanwhile).
pub(super) async fn view_after<G: ServedGame>(
    game: &Arc<Mutex<G>>,
    id: &str,
    first: Result<G::View, SlowWork>,
) -> Result<G::View, ApiError> {
    let mut work = match first {
        Ok(view) => return Ok(view),
        Err(work) => work,
    };
    for _ in 0..3 {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let next = view_or_work(&*lock(game), id);
        match next {
            Ok(view) => return Ok(view),
            Err(next) => work = next,
        }
    }
    Ok(lock(game).view(id))
}

pub(super) async fn get_game<G: ServedGame>(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = G::games(&state).get(&id)?;
    let first = view_or_work(&*lock(&game), &id);
    Ok(ok(view_after(&game, &id, first).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    decision: String,
}

async fn play(
    State(state): State<Shared>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let game = state.get(&id)?;
    let req: PlayRequest = body(&bytes)?;
    let mut g = lock(&game);
    g.play(&req.decision)?;
    Ok(ok(g.view(&id)))
}

/// The engine's decisions and the game after them.
#[derive(Serialize)]
struct EngineAnswer<V> {
    played: Vec<String>,
    game: V,
}

/// Lends the game's engine out, lets it make its decisions on the blocking
/// pool, and gives it back to the game, which plays them.
pub(super) async fn engine_move<G: ServedGame>(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = G::games(&state).get(&id)?;
    let job = lock(&game).begin_engine()?;
    let done = tokio::task::spawn_blocking(move || job.run()).await;
    let (played, first) = {
        let mut g = lock(&game);
        let done = match done {
            Ok(d) => d,
            Err(e) => {
                // The engine panicked; the game is as it was, with a new engine.
                g.engine_lost();
                return Err(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the engine failed: {e}"),
                ));
            }
        };
        let played = g.finish_engine(done)?;
        let played: Vec<String> = played.iter().map(|a| a.to_string()).collect();
        (played, view_or_work(&*g, &id))
    };
    Ok(ok(EngineAnswer {
        played,
        game: view_after(&game, &id, first).await?,
    }))
}

pub(super) async fn undo<G: ServedGame>(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = G::games(&state).get(&id)?;
    let first = {
        let mut g = lock(&game);
        g.undo()?;
        view_or_work(&*g, &id)
    };
    Ok(ok(view_after(&game, &id, first).await?))
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
        (*g.position(), g.opponent().to_string())
    };
    if pos.is_over() {
        return Err(GameError::GameOver.into());
    }
    let factory = state.config.evaluators.clone();
    let result = tokio::task::spawn_blocking(move || {
        let mut evaluator = factory(&spec);
        analyze(&pos, evaluator.as_mut(), sims, rand::random())
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
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

async fn review(bytes: Bytes) -> Result<Response, ApiError> {
    let req: ReviewRequest = body(&bytes)?;
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
    let view = tokio::task::spawn_blocking(move || read_run(&dir))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(ok(view))
}
