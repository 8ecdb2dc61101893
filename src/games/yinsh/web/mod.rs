//! YINSH on the server: the play page (the home page), the rules, and the
//! API behind them (`api`).

mod analysis;
mod api;
mod page;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use analysis::{
    Analysis, EvaluatorFactory, MoveShare, analyze, rollout_evaluators, spec_evaluators,
};
pub use page::{BoardView, EngineDone, EngineJob, GameOptions, GameView, PageGame};

use crate::web::{Layout, NavLink, Shared, WebPage, text_assets};

const PLAY_HTML: &str = include_str!("assets/play.html");
const RULES_HTML: &str = include_str!("assets/rules.html");

/// YINSH's pages, as the registry lists them.
pub struct YinshPage {
    /// Judges positions for the agent's view (the hook for networks).
    pub evaluators: EvaluatorFactory,
}

impl Default for YinshPage {
    fn default() -> Self {
        YinshPage {
            evaluators: spec_evaluators(),
        }
    }
}

/// Its page in the layout every page shares.
const PLAY: Layout = Layout {
    title: "YINSH — play",
    heading: "YINSH",
    body_class: "play",
    styles: &[],
    scripts: &["page.js", "board.js", "play.js"],
};

/// Its page in the layout every page shares.
const RULES: Layout = Layout {
    title: "YINSH — rules",
    heading: "YINSH",
    body_class: "",
    styles: &[],
    scripts: &[],
};

impl WebPage for YinshPage {
    fn nav(&self) -> Vec<NavLink> {
        vec![
            NavLink {
                path: "/",
                title: "YINSH",
                id: "play-link",
            },
            NavLink {
                path: "/rules",
                title: "YINSH rules",
                id: "rules-link",
            },
        ]
    }

    fn assets(&self) -> &'static [crate::web::Asset] {
        text_assets!["play.js": "javascript", "board.js": "javascript"]
    }

    fn routes(&self, common: &Shared) -> Router {
        Router::new()
            .route(
                "/",
                get(|State(c): State<Shared>| async move { c.page_in(&PLAY, PLAY_HTML) }),
            )
            .route(
                "/rules",
                get(|State(c): State<Shared>| async move { c.page_in(&RULES, RULES_HTML) }),
            )
            .with_state(common.clone())
            .merge(api::routes(common, self.evaluators.clone()))
    }
}
