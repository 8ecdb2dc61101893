//! The HTTP server, built from the pages the games register: the
//! dashboard, the shared assets, the offers and the run's data here, and
//! each game's page and API from its [`WebPage`].
//!
//! Locks are `std` mutexes held only for bookkeeping, never across an
//! `await` or while an engine thinks: the engine is lent out of its game
//! and runs on the blocking pool, so one slow engine never stalls other
//! games or other requests about its own game.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

use super::api::{ApiError, MAX_BODY_BYTES, ok};
use super::assets;
use super::common::Layout;
use super::common::{Common, NavLink, ServeConfig, Shared};
use super::page::{Asset, WebPage};
use super::run_view::read_run;

/// The routes, ready to serve, for `pages` (the first is the home page's
/// game): with [`ServeConfig::read_only`] the dashboard and the run's data
/// alone.
pub fn router(mut config: ServeConfig, pages: &[Box<dyn WebPage>]) -> Router {
    for p in pages {
        let before = config.clone();
        p.offer(&before, &mut config.offers);
    }
    let mut nav: Vec<NavLink> = pages.iter().flat_map(|p| p.nav()).collect();
    nav.push(NavLink {
        path: "/dashboard",
        title: "Dashboard",
        id: "dashboard-link",
    });
    let read_only = config.read_only;
    let common: Shared = Arc::new(Common::new(config, &nav));
    let files: Arc<Vec<Asset>> = Arc::new(
        assets::FILES
            .iter()
            .chain(pages.iter().flat_map(|p| p.assets()))
            .copied()
            .collect(),
    );
    let not_found = || async { ApiError::new(StatusCode::NOT_FOUND, "no such page or API route") };
    let shared = Router::new()
        .route("/dashboard", get(dashboard))
        .route("/api/run", get(run))
        .with_state(common.clone())
        .route(
            "/assets/{name}",
            get(move |name: Path<String>| asset(files.clone(), name)),
        );
    let app = if read_only {
        shared.route("/", get(|| async { Redirect::to("/dashboard") }))
    } else {
        let mut app = shared.route("/api/offers", get(offers).with_state(common.clone()));
        for p in pages {
            app = app.merge(p.routes(&common));
        }
        app
    };
    app.fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// Serves `pages` on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: ServeConfig,
    pages: &[Box<dyn WebPage>],
) -> std::io::Result<()> {
    axum::serve(listener, router(config, pages)).await
}

async fn dashboard(State(common): State<Shared>) -> Response {
    const LAYOUT: Layout = Layout {
        title: "yinsh-zero — training dashboard",
        heading: "Training",
        body_class: "",
        styles: &[],
        scripts: &["dashboard.js"],
    };
    common.page_in(&LAYOUT, assets::DASHBOARD_HTML)
}

/// What a request may name: `net=NAME` and `db=NAME` ([`super::Offers`]).
async fn offers(State(common): State<Shared>) -> Response {
    ok(&common.config.offers)
}

async fn asset(files: Arc<Vec<Asset>>, Path(name): Path<String>) -> Response {
    match files.iter().find(|(n, _, _)| *n == name) {
        Some((_, mime, body)) => ([(header::CONTENT_TYPE, *mime)], *body).into_response(),
        None => ApiError::new(StatusCode::NOT_FOUND, format!("no asset `{name}`")).into_response(),
    }
}

async fn run(State(common): State<Shared>) -> Result<Response, ApiError> {
    let Some(dir) = common.config.run_dir.clone() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no run directory: start the server with `serve --run DIR`",
        ));
    };
    let view = common.work.run(move || read_run(&dir)).await?;
    Ok(ok(view))
}
