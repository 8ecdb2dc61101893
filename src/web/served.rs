//! What every game the server holds shares (YINSH's, Morris's, the grid
//! game's and Emergo's): the store of games, and the handlers of the routes
//! each game has — a game's view, the human's decision, the engine's reply
//! and undo — written once over [`ServedGame`].
//!
//! Locks are held only for bookkeeping: the engine is lent out of its game
//! and thinks on the blocking pool (see [`super::seat::EngineSeat`]), and
//! slow work a view waits for runs there too ([`ServedGame::slow_work`]).

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::api::{ApiError, body, lock, ok};
use super::common::{Common, Shared};
use super::error::GameError;
use super::offers::{NET_KEY, Offers};
use super::seat::EngineDone;
use super::seated::{SeatedGame, SeatedRules};
use super::store::Games;
use crate::arena::{GamePlayers, players_of};
use crate::game::Color;

/// Work a view waits for that is too slow for the game's lock (the grid
/// game's solver verdict): it fills in what the view shows through state
/// it shares with the game, and runs on the blocking pool.
pub type SlowWork = Box<dyn FnOnce() + Send>;

type ActionOf<G> = <<G as ServedGame>::State as crate::game::State>::Action;

/// The games of one kind and what every page shares: the state of the
/// routes [`game_routes`] serves.
pub struct Service<G> {
    pub common: Shared,
    pub games: Games<G>,
}

impl<G> Service<G> {
    pub fn new(common: &Shared) -> std::sync::Arc<Service<G>> {
        std::sync::Arc::new(Service {
            common: common.clone(),
            games: Games::new(common.config.max_games),
        })
    }
}

/// A game the server holds: a [`SeatedGame`] (its decisions and engine
/// seat, which [`ServedGame::seated`] lends) with its page's view. The handlers below serve every such game; a game whose
/// play, undo or engine reply does more than its [`SeatedGame`]'s
/// (YINSH's flipped markers and fixed opening) says so here.
pub trait ServedGame: Send + Sized + 'static {
    type State: SeatedRules;
    type View: Serialize + Send;
    /// Its decisions and engine seat.
    fn seated(&self) -> &SeatedGame<Self::State>;
    fn seated_mut(&mut self) -> &mut SeatedGame<Self::State>;
    fn view(&self, id: &str) -> Self::View;
    /// What must run off the lock before [`ServedGame::view`] shows the
    /// game whole; `None` (the default) when the view is ready.
    fn slow_work(&self) -> Option<SlowWork> {
        None
    }
    /// [`SeatedGame::play`] unless the game does more.
    fn play(&mut self, text: &str) -> Result<(), GameError> {
        self.seated_mut().play(text).map(drop)
    }
    /// [`SeatedGame::undo`] unless the game does more.
    fn undo(&mut self) -> Result<usize, GameError> {
        self.seated_mut().undo()
    }
    /// [`SeatedGame::finish_engine`] unless the game does more.
    fn finish_engine(
        &mut self,
        done: EngineDone<Self::State>,
    ) -> Result<Vec<ActionOf<Self>>, GameError> {
        self.seated_mut().finish_engine(done)
    }
}

/// The routes on one game that every game has, its games being under
/// `games` (`/api/games`, `/api/morris/games`, ...): `{id}` itself, the
/// human's decision (`{id}/play`, a body of type `P`), the engine's reply
/// (`{id}/engine`) and undo (`{id}/undo`).
pub fn game_routes<G: ServedGame, P: PlayText>(games: &str) -> Router<Arc<Service<G>>> {
    let game = format!("{games}/{{id}}");
    Router::new()
        .route(&game, get(get_game::<G>))
        .route(&format!("{game}/play"), post(play::<G, P>))
        .route(&format!("{game}/engine"), post(engine_move::<G>))
        .route(&format!("{game}/undo"), post(undo::<G>))
}

/// A new game's request as Morris, the grid game and Emergo take it (all
/// fields optional; each game has its defaults).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// One of the game's variants.
    #[serde(default)]
    pub variant: Option<String>,
    /// The colour the human plays.
    #[serde(default)]
    pub color: Option<Color>,
    /// A player spec or `human`.
    #[serde(default)]
    pub opponent: Option<String>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The opponents a page suggests for `game`'s variant: `default` first,
/// then every network the server offers for it (`net-mcts:net=NAME`),
/// played with the further options `played_as` gives for its name (the
/// way its card plays it, e.g. `",sims=300,draw=0.8,lcb=0"`), then `rest`. A
/// network plays one variant only, so it is suggested, not the default.
pub fn suggestions(
    offers: &Offers,
    game: (&str, &str),
    default: &str,
    played_as: &[(&str, &str)],
    rest: &[&str],
) -> Vec<String> {
    let mut out = vec![default.to_string()];
    for net in offers.networks() {
        if net.game == game.0 && net.variant == game.1 {
            let options = played_as
                .iter()
                .find(|(name, _)| *name == net.name)
                .map_or("", |(_, o)| *o);
            out.push(format!("net-mcts:{NET_KEY}={}{options}", net.name));
        }
    }
    out.extend(rest.iter().map(|s| s.to_string()));
    out
}

/// Game `G`'s player kinds with their options, for a page's help.
pub fn players_json<G: GamePlayers>() -> Vec<Value> {
    players_of::<G>()
        .iter()
        .map(|p| {
            // A request names offered files, not paths: the help says so.
            let keys: Vec<Value> = p
                .keys
                .iter()
                .map(|&(k, a)| match k {
                    "checkpoint" => json!({
                        "key": NET_KEY,
                        "about": "a network this server offers, by name (GET /api/offers lists them)",
                    }),
                    "db" => json!({
                        "key": k,
                        "about": "a database this server offers, by name (default: the variant's)",
                    }),
                    _ => json!({"key": k, "about": a}),
                })
                .collect();
            json!({ "name": p.name, "about": p.about, "keys": keys })
        })
        .collect()
}

/// Builds a game on the blocking pool (building a player may load a
/// network or open a database, a view may wait for slow work), keeps it
/// and answers 201 with its view.
pub async fn create<G: ServedGame>(
    service: &Arc<Service<G>>,
    build: impl FnOnce(&Common) -> Result<G, GameError> + Send + 'static,
) -> Result<Response, ApiError> {
    let st = service.common.clone();
    let game = service
        .common
        .work
        .run(move || {
            let game = build(&st)?;
            if let Some(work) = game.slow_work() {
                work();
            }
            Ok::<_, GameError>(game)
        })
        .await??;
    let (id, game) = service.games.insert(game);
    let view = lock(&game).view(&id);
    Ok((StatusCode::CREATED, axum::Json(view)).into_response())
}

/// The view of a game whose lock is held, or the slow work it waits for
/// (see [`ServedGame::slow_work`]): drop the lock and hand either to
/// [`view_after`].
fn view_or_work<G: ServedGame>(g: &G, id: &str) -> Result<G::View, SlowWork> {
    match g.slow_work() {
        None => Ok(g.view(id)),
        Some(work) => Err(work),
    }
}

/// The view [`view_or_work`] gave, or its slow work run on the blocking
/// pool, off the game's lock, and then the view (at most a few rounds,
/// should the game change meanwhile).
async fn view_after<G: ServedGame>(
    state: &Common,
    game: &Arc<Mutex<G>>,
    id: &str,
    first: Result<G::View, SlowWork>,
) -> Result<G::View, ApiError> {
    let mut work = match first {
        Ok(view) => return Ok(view),
        Err(work) => work,
    };
    for _ in 0..3 {
        state.work.run(work).await?;
        let next = view_or_work(&*lock(game), id);
        match next {
            Ok(view) => return Ok(view),
            Err(next) => work = next,
        }
    }
    Ok(lock(game).view(id))
}

async fn get_game<G: ServedGame>(
    State(service): State<Arc<Service<G>>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = service.games.get(&id)?;
    let first = view_or_work(&*lock(&game), &id);
    Ok(ok(view_after(&service.common, &game, &id, first).await?))
}

/// The body of a request to play: the human's decision as text.
pub trait PlayText: for<'de> Deserialize<'de> + Send + 'static {
    fn text(&self) -> &str;
}

/// `{"action": "d2-d3"}`: Morris, the grid game, Emergo.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    action: String,
}

impl PlayText for ActionRequest {
    fn text(&self) -> &str {
        &self.action
    }
}

/// `{"decision": "a2-h9"}`: YINSH.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    decision: String,
}

impl PlayText for DecisionRequest {
    fn text(&self) -> &str {
        &self.decision
    }
}

async fn play<G: ServedGame, P: PlayText>(
    State(service): State<Arc<Service<G>>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    let game = service.games.get(&id)?;
    let req: P = body(&bytes)?;
    let first = {
        let mut g = lock(&game);
        ServedGame::play(&mut *g, req.text())?;
        view_or_work(&*g, &id)
    };
    Ok(ok(view_after(&service.common, &game, &id, first).await?))
}

/// The engine's decisions and the game after them.
#[derive(Serialize)]
struct EngineAnswer<V> {
    played: Vec<String>,
    game: V,
}

/// Lends the game's engine out, lets it make its decisions on the blocking
/// pool, and gives it back to the game, which plays them.
async fn engine_move<G: ServedGame>(
    State(service): State<Arc<Service<G>>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = service.games.get(&id)?;
    // The slot first: a busy server refuses before the engine is lent out.
    let slot = service.common.work.slot().await?;
    let job = lock(&game).seated_mut().begin_engine()?;
    let done = slot.run(move || job.run()).await;
    let (played, first) = {
        let mut g = lock(&game);
        let done = match done {
            Ok(d) => d,
            Err(e) => {
                // The engine panicked; the game is as it was, with a new engine.
                g.seated_mut().engine_lost();
                eprintln!("web: an engine panicked: {e}");
                return Err(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the engine failed; the game is as it was, with a new engine",
                ));
            }
        };
        let played = ServedGame::finish_engine(&mut *g, done)?;
        let played: Vec<String> = played.iter().map(|a| a.to_string()).collect();
        (played, view_or_work(&*g, &id))
    };
    Ok(ok(EngineAnswer {
        played,
        game: view_after(&service.common, &game, &id, first).await?,
    }))
}

async fn undo<G: ServedGame>(
    State(service): State<Arc<Service<G>>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let game = service.games.get(&id)?;
    let first = {
        let mut g = lock(&game);
        ServedGame::undo(&mut *g)?;
        view_or_work(&*g, &id)
    };
    Ok(ok(view_after(&service.common, &game, &id, first).await?))
}
