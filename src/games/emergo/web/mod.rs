//! The Emergo page on the server and its API (`api`).

mod api;
mod page;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use page::*;

use crate::web::{Layout, NavLink, Shared, WebPage, text_assets};

const HTML: &str = include_str!("assets/emergo.html");

/// The Emergo page, as the registry lists it.
#[derive(Default)]
pub struct EmergoPage;

/// Its page in the layout every page shares.
const LAYOUT: Layout = Layout {
    title: "Emergo — play",
    heading: "Emergo",
    body_class: "play emergo",
    styles: &[],
    scripts: &["page.js", "emergo.js"],
};

impl WebPage for EmergoPage {
    fn nav(&self) -> Vec<NavLink> {
        vec![NavLink {
            path: "/emergo",
            title: "Emergo",
            id: "emergo-link",
        }]
    }

    fn assets(&self) -> &'static [crate::web::Asset] {
        text_assets!["emergo.js": "javascript"]
    }

    fn routes(&self, common: &Shared) -> Router {
        Router::new()
            .route(
                "/emergo",
                get(|State(c): State<Shared>| async move { c.page_in(&LAYOUT, HTML) }),
            )
            .with_state(common.clone())
            .merge(api::routes(common))
    }
}
