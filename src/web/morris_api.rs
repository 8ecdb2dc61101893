//! The Morris page and its JSON API, beside YINSH's: games of Nine, Six or
//! Three Men's Morris against any player spec, and what the perfect-play
//! database says about the position.
//!
//! Engines and database look-ups run on the blocking pool; a game's lock
//! is held only for bookkeeping, as in [`super::server`].

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

use super::assets;
use super::game::GameError;
use super::game::HUMAN;
use super::morris::{BoardGeometry, MorrisGame, MorrisOptions, MorrisView, title, variant_named};
use super::seat::{EngineDone, EngineJob};
use super::server::{
    ApiError, AppState, Games, ServedGame, Shared, body, created, engine_move, get_game, lock, ok,
    page, undo,
};
use crate::arena::players_of;
use crate::game::Color;
use crate::morris::{Action, Morris, Position, Variant};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/morris", get(|| async { page(assets::MORRIS_HTML) }))
        .route("/api/morris/config", get(config_info))
        .route("/api/morris/games", post(new_game))
        .route("/api/morris/games/{id}", get(get_game::<MorrisGame>))
        .route("/api/morris/games/{id}/play", post(play))
        .route(
            "/api/morris/games/{id}/engine",
            post(engine_move::<MorrisGame>),
        )
        .route("/api/morris/games/{id}/undo", post(undo::<MorrisGame>))
        .route("/api/morris/games/{id}/perfect", get(perfect))
}

impl ServedGame for MorrisGame {
    type State = Position;
    type View = MorrisView;
    fn games(state: &AppState) -> &Games<Self> {
        &state.morris
    }
    fn view(&self, id: &str) -> MorrisView {
        MorrisGame::view(self, id)
    }
    fn undo(&mut self) -> Result<usize, GameError> {
        MorrisGame::undo(self)
    }
    fn begin_engine(&mut self) -> Result<EngineJob<Position>, GameError> {
        MorrisGame::begin_engine(self)
    }
    fn finish_engine(&mut self, done: EngineDone<Position>) -> Result<Vec<Action>, GameError> {
        MorrisGame::finish_engine(self, done)
    }
    fn engine_lost(&mut self) {
        MorrisGame::engine_lost(self)
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// Opponents the page suggests for a variant, the default first: the
/// database's `perfect` player where there is one.
fn suggestions(has_db: bool) -> Vec<&'static str> {
    let mut out = Vec::new();
    if has_db {
        out.push("perfect");
    }
    out.extend([
        "alphabeta:depth=4",
        "alphabeta:depth=2",
        "mcts-rollout:playouts=1000",
        "random",
        HUMAN,
    ]);
    out
}

async fn config_info(State(state): State<Shared>) -> Result<Response, ApiError> {
    let st = state.clone();
    let variants = tokio::task::spawn_blocking(move || {
        Variant::NAMES
            .iter()
            .map(|name| {
                let v = Variant::from_name(name).expect("a known name");
                let db = st.morris_dbs.status(v);
                let suggested = suggestions(db.present);
                json!({
                    "name": v.name(),
                    "title": title(v),
                    "board": BoardGeometry::of(v),
                    "database": db,
                    "suggestions": suggested,
                    "default_opponent": suggested[0],
                })
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(internal)?;
    let players: Vec<_> = players_of::<Morris>()
        .iter()
        .map(|p| json!({ "name": p.name, "about": p.about, "keys": p.keys.iter().map(|(k, a)| json!({"key": k, "about": a})).collect::<Vec<_>>() }))
        .collect();
    Ok(ok(json!({
        "variants": variants,
        "players": players,
        "max_think_ms": state.config.max_think.as_millis() as u64,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    /// `nine` (default), `six` or `three`.
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    color: Option<Color>,
    /// A player spec or `human`; default: `perfect` where the variant has
    /// a database, else `alphabeta:depth=4`.
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
}

async fn new_game(State(state): State<Shared>, bytes: Bytes) -> Result<Response, ApiError> {
    let req: NewGame = body(&bytes)?;
    let variant = variant_named(req.variant.as_deref().unwrap_or("nine"))?;
    let st = state.clone();
    let game = tokio::task::spawn_blocking(move || {
        let opponent = match req.opponent {
            Some(o) => o,
            None => suggestions(st.morris_dbs.get(variant).is_ok())[0].to_string(),
        };
        let options = MorrisOptions {
            variant,
            human: req.color.unwrap_or(Color::White),
            opponent,
            seed: req.seed.unwrap_or_else(rand::random),
        };
        // Building a player may open a database or load a network.
        MorrisGame::new(
            &options,
            st.config.max_think,
            st.morris_dbs.configured_dir(variant).as_deref(),
        )
    })
    .await
    .map_err(internal)??;
    Ok(created(&state, game))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    /// `d2`, `d2-d3` or `xd5`.
    action: String,
}

async fn play(
    State(state): State<Shared>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let game = state.morris.get(&id)?;
    let req: PlayRequest = body(&bytes)?;
    let mut g = lock(&game);
    g.play(&req.action)?;
    Ok(ok(g.view(&id)))
}

/// The database's view of the game's position, with the decision count it
/// is about (so the page can drop an answer about an older position).
async fn perfect(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = state.morris.get(&id)?;
    let (pos, steps) = {
        let g = lock(&game);
        (g.position().clone(), g.actions().len())
    };
    let st = state.clone();
    let view = tokio::task::spawn_blocking(move || st.morris_dbs.perfect(&pos))
        .await
        .map_err(internal)?;
    let mut value = serde_json::to_value(view).map_err(internal)?;
    value["steps"] = json!(steps);
    Ok(ok(value))
}
