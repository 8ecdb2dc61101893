//! The Connect Four page on the server and its API (`api`).

mod api;
mod page;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use page::*;

use crate::web::{Layout, NavLink, Shared, WebPage, text_assets};

const HTML: &str = include_str!("assets/connect4.html");

/// The Connect Four page, as the registry lists it.
#[derive(Default)]
pub struct Connect4Page;

/// Its page in the layout every page shares.
const LAYOUT: Layout = Layout {
    title: "Connect Four — play",
    heading: "Connect Four",
    body_class: "play connect4",
    styles: &["connect4.css"],
    scripts: &["page.js", "connect4.js"],
};

impl WebPage for Connect4Page {
    fn nav(&self) -> Vec<NavLink> {
        vec![NavLink {
            path: "/connect4",
            title: "Connect Four",
            id: "connect4-link",
        }]
    }

    /// Its script and its own stylesheet (the board's styles live here,
    /// not in the shared `style.css`).
    fn assets(&self) -> &'static [crate::web::Asset] {
        text_assets!["connect4.js": "javascript", "connect4.css": "css"]
    }

    fn routes(&self, common: &Shared) -> Router {
        Router::new()
            .route(
                "/connect4",
                get(|State(c): State<Shared>| async move { c.page_in(&LAYOUT, HTML) }),
            )
            .with_state(common.clone())
            .merge(api::routes(common))
    }
}
