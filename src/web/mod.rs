//! Play YINSH, Morris, the UMO 2014 grid game and Emergo in the browser,
//! and watch a training run: `yinsh-zero serve`.
//!
//! [`router`] serves six pages (play, rules, dashboard, `/morris`, `/grid`,
//! `/emergo`) and a JSON API:
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
//! | `GET /api/run` | the run directory's metrics and evaluations |
//! | `GET /api/morris/config` | each Morris variant's board, database status and suggested opponents |
//! | `POST /api/morris/games` `{"variant","color","opponent","seed"}` | a new Morris game (all fields optional) |
//! | `GET /api/morris/games/{id}` | the game: stones, hands, legal actions, turns, outcome |
//! | `POST /api/morris/games/{id}/play` `{"action": "d2-d3"}` | the human's action (`d2`, `d2-d3`, `xd5`) |
//! | `POST /api/morris/games/{id}/engine` | the engine makes all its decisions in a row |
//! | `POST /api/morris/games/{id}/undo` | back to the start of the human's last turn |
//! | `GET /api/morris/games/{id}/perfect` | the database's value, best actions and the state number |
//! | `GET /api/grid/config` | the grid game's boards (`9x9`, `5x5`, `7x7`, `11x11`) and suggested opponents |
//! | `POST /api/grid/games` `{"variant","color","opponent","seed"}` | a new grid game (all fields optional; `white` is Player 1, who moves Green; default opponent `solver`) |
//! | `GET /api/grid/games/{id}` | the game: Green, Red stones, corners, legal actions with their points, moves, outcome, the charts' series (played and the solver's optimal line) and the solver's verdict |
//! | `POST /api/grid/games/{id}/play` `{"action": "Ge6"}` | the human's action (`Ge6` moves Green, `d5` puts a Red stone) |
//! | `POST /api/grid/games/{id}/engine` | the engine makes its decision |
//! | `POST /api/grid/games/{id}/undo` | back to the human's last decision |
//! | `GET /api/emergo/config` | each Emergo variant's board (`standard`, `blocked-loses`, `small`), suggested opponents and player kinds |
//! | `POST /api/emergo/games` `{"variant","color","opponent","seed"}` | a new Emergo game (all fields optional; default `standard`, White, `alphabeta:depth=4`) |
//! | `GET /api/emergo/games/{id}` | the game: units (controllers over prisoners), men in hand, legal entries, steps and jumps, the chain under way, turns, outcome |
//! | `POST /api/emergo/games/{id}/play` `{"action": "c3xe5"}` | the human's decision (`@e5` enters, `c3-d4` steps, `c3xe5` is one jump of a chain) |
//! | `POST /api/emergo/games/{id}/engine` | the engine makes all its decisions in a row (a whole chain) |
//! | `POST /api/emergo/games/{id}/undo` | back to the start of the human's last turn (a whole chain) |
//!
//! Errors are `{"error": message}` with a 4xx status: 400 for a malformed
//! request (an unknown variant, text that is no action, a bad player spec),
//! 404 for an unknown game, 409 for a request out of turn, 422 for an
//! illegal decision. A refused request never changes the game.
//!
//! The grid game's solver runs within a node budget ([`SOLVER_NODES`]):
//! where Player 2 has blundered, proving Player 1's win can take it
//! minutes, and the verdict then says the position is too deep.

mod analysis;
mod api;
mod assets;
mod emergo;
mod emergo_api;
mod error;
mod game;
mod grid;
mod grid_api;
mod morris;
mod morris_api;
mod morris_db;
mod offers;
mod run_view;
mod seat;
mod seated;
mod served;
mod server;
mod store;
mod work;

pub use analysis::{
    Analysis, EvaluatorFactory, MoveShare, analyze, rollout_evaluators, spec_evaluators,
};
pub use api::{ApiError, MAX_BODY_BYTES};
pub use emergo::{
    EmergoBoard, EmergoEngineDone, EmergoEngineJob, EmergoGame, EmergoLegalView, EmergoOptions,
    EmergoVariantView, EmergoView, UnitView, emergo_named, emergo_spec, emergo_title,
};
pub use error::{ByColour, GameError, HUMAN, OutcomeView, bounded_spec};
pub use game::{BoardView, EngineDone, EngineJob, GameOptions, GameView, PageGame};
pub use grid::{
    ChartPoint, Charts, GridBoard, GridEngineDone, GridEngineJob, GridGame, GridOptions, GridValue,
    GridView, LegalView, OptimalLine, OptimalLines, OptimalSummary, SOLVER_NODES, SolverView,
    chart_series, grid_named, grid_spec, grid_title, solve_position,
};
pub use morris::{
    BoardGeometry, MorrisBoard, MorrisEngineDone, MorrisEngineJob, MorrisGame, MorrisOptions,
    MorrisView, morris_spec,
};
pub use morris_db::{
    ActionValue, DbStatus, MAX_INDEX_WITHOUT_DB, MorrisDatabases, PerfectView, StateNumber,
    ValueView,
};
pub use offers::{
    MAX_SPEC_CHARS, NET_KEY, NotOffered, OfferError, OfferedDatabase, OfferedNetwork, Offers,
    Resolved,
};
pub use run_view::{EvalFile, RunView, SeriesPoint, read_run};
pub use seated::{SeatedGame, SeatedRules, SeatedView, TurnView};
pub use server::{ServeConfig, router, serve};
pub use work::RETRY_AFTER_SECONDS;
