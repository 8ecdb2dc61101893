//! The Morris family on the server: the page, its API (`api`) and what
//! the perfect-play database says about a position (`db_view`).

mod api;
mod db_view;
mod page;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use db_view::{
    ActionValue, DbStatus, MAX_INDEX_WITHOUT_DB, MorrisDatabases, PerfectView, StateNumber,
    ValueView,
};
pub use page::{
    BoardGeometry, MorrisBoard, MorrisEngineDone, MorrisEngineJob, MorrisGame, MorrisOptions,
    MorrisView, morris_spec,
};

use super::Variant;
use crate::web::{Layout, NavLink, Offers, ServeConfig, Shared, WebPage, text_assets};

const MORRIS_HTML: &str = include_str!("assets/morris.html");

/// The Morris page, as the registry lists it.
#[derive(Default)]
pub struct MorrisPage;

/// Its page in the layout every page shares.
const LAYOUT: Layout = Layout {
    title: "Morris — play",
    heading: "Morris",
    body_class: "play morris",
    styles: &[],
    scripts: &["page.js", "morris.js"],
};

impl WebPage for MorrisPage {
    fn nav(&self) -> Vec<NavLink> {
        vec![NavLink {
            path: "/morris",
            title: "Morris",
            id: "morris-link",
        }]
    }

    fn assets(&self) -> &'static [crate::web::Asset] {
        text_assets!["morris.js": "javascript"]
    }

    /// Each variant's database folder, under the variant's name
    /// (`perfect:db=six`), solved yet or not.
    fn offer(&self, config: &ServeConfig, offers: &mut Offers) {
        let dbs = MorrisDatabases::new(config.databases.clone());
        for name in Variant::NAMES {
            let v = Variant::from_name(name).expect("a known name");
            let _ = offers.add_database(name, "morris", name, &dbs.dir(v));
        }
    }

    fn routes(&self, common: &Shared) -> Router {
        Router::new()
            .route(
                "/morris",
                get(|State(c): State<Shared>| async move { c.page_in(&LAYOUT, MORRIS_HTML) }),
            )
            .with_state(common.clone())
            .merge(api::routes(
                common,
                MorrisDatabases::new(common.config.databases.clone()),
            ))
    }
}
