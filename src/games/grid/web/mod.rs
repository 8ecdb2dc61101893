//! The Grid game page on the server and its API (`api`).

mod api;
mod page;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use page::*;

use crate::web::{Layout, NavLink, Shared, WebPage, text_assets};

const HTML: &str = include_str!("assets/grid.html");

/// The Grid game page, as the registry lists it.
#[derive(Default)]
pub struct GridPage;

/// Its page in the layout every page shares.
const LAYOUT: Layout = Layout {
    title: "Grid game — play",
    heading: "Grid game",
    body_class: "play gridgame",
    styles: &[],
    scripts: &["page.js", "grid.js"],
};

impl WebPage for GridPage {
    fn nav(&self) -> Vec<NavLink> {
        vec![NavLink {
            path: "/grid",
            title: "Grid game",
            id: "grid-link",
        }]
    }

    fn assets(&self) -> &'static [crate::web::Asset] {
        text_assets!["grid.js": "javascript"]
    }

    fn routes(&self, common: &Shared) -> Router {
        Router::new()
            .route(
                "/grid",
                get(|State(c): State<Shared>| async move { c.page_in(&LAYOUT, HTML) }),
            )
            .with_state(common.clone())
            .merge(api::routes(common))
    }
}
