//! YINSH's page and JSON API: games against any player spec, the agent's
//! view of a position, and reviews of a move list or a BoardSpace record.
//!
//! | route | what |
//! |---|---|
//! | `POST /api/games` `{"color","opponent","blitz","random_placement","seed"}` | a new game (all fields optional) |
//! | `GET /api/games/{id}` | the game: board, legal decisions, move list, outcome |
//! | `POST /api/games/{id}/play` `{"decision": "a2-h9"}` | the human's decision in single-decision notation |
//! | `POST /api/games/{id}/engine` | the engine makes all its decisions in a row |
//! | `POST /api/games/{id}/undo` | back to the human's last decision |
//! | `GET /api/games/{id}/analysis?sims=N` | the agent's view: win/draw/loss and policy |
//! | `POST /api/review` `{"moves": "..."}` or `{"sgf": "..."}` | a game to step through |
//! | `GET /api/config` | the default opponent, player kinds and the run |

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::analysis::{EvaluatorFactory, analyze};
use super::page::{BoardView, GameOptions, GameView, PageGame, outcome_text};
use crate::games::yinsh::notation::{format_turns, parse_game};
use crate::games::yinsh::sgf::parse_sgf;
use crate::games::yinsh::{Action, Color, Decision, Position, Variant, Yinsh};
use crate::web::SeatedGame;
use crate::web::{
    ApiError, DecisionRequest, EngineDone, GameError, ServedGame, Service, Shared, body, create,
    game_routes, lock, ok, players_json,
};

/// YINSH's routes' state: its games, and the judge of the agent's view.
pub(super) struct YinshState {
    pub(super) service: Arc<Service<PageGame>>,
    pub(super) evaluators: EvaluatorFactory,
}

/// The API's routes.
pub(super) fn routes(common: &Shared, evaluators: EvaluatorFactory) -> Router {
    let service = Service::new(common);
    let state = Arc::new(YinshState {
        service: service.clone(),
        evaluators,
    });
    Router::new()
        .route("/api/config", get(config_info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}/analysis", get(analysis))
        .route("/api/review", post(review))
        .with_state(state)
        .merge(game_routes::<PageGame, DecisionRequest>("/api/games").with_state(service))
}

/// YINSH's play and engine reply also note the markers flipped, and its
/// undo never takes back a random opening.
impl ServedGame for PageGame {
    type State = Position;
    type View = GameView;
    fn seated(&self) -> &SeatedGame<Position> {
        &self.seated
    }
    fn seated_mut(&mut self) -> &mut SeatedGame<Position> {
        &mut self.seated
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

async fn config_info(State(yinsh): State<Arc<YinshState>>) -> Response {
    let state = &yinsh.service.common;
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

async fn new_game(
    State(yinsh): State<Arc<YinshState>>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let state = &yinsh.service.common;
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
    create(&yinsh.service, move |st| {
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
    State(yinsh): State<Arc<YinshState>>,
    Path(id): Path<String>,
    query: Result<Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.body_text()))?;
    let state = &yinsh.service.common;
    let max = state.config.max_analysis_simulations;
    let sims = q.sims.unwrap_or(state.config.analysis_simulations);
    if sims == 0 || sims > max {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("sims={sims}: expected 1 to {max} simulations"),
        ));
    }
    let game = yinsh.service.games.get(&id)?;
    let (pos, spec) = {
        let g = lock(&game);
        (*g.seated.position(), g.seated.engine_spec().to_string())
    };
    if pos.is_over() {
        return Err(GameError::GameOver.into());
    }
    let factory = yinsh.evaluators.clone();
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

async fn review(State(yinsh): State<Arc<YinshState>>, bytes: Bytes) -> Result<Response, ApiError> {
    let state = &yinsh.service.common;
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
