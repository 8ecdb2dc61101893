//! A game's part of the server, as the game registers it: its entries in
//! the navigation bar, its scripts and its routes (page and JSON API). The
//! server builds itself from a list of these and names no game.

use axum::Router;

use super::common::{NavLink, ServeConfig, Shared};
use super::offers::Offers;

/// A static file a page loads from `/assets/{name}`.
pub type Asset = (&'static str, &'static str, &'static str);

/// A registered game's pages and API.
pub trait WebPage: Send + Sync {
    /// Its entries in the navigation bar, in order.
    fn nav(&self) -> Vec<NavLink>;
    /// Its files under `/assets/`: (name, content type, text).
    fn assets(&self) -> &'static [Asset] {
        &[]
    }
    /// Adds what the game lets requests name (its databases) before the
    /// server starts.
    fn offer(&self, config: &ServeConfig, offers: &mut Offers) {
        let _ = (config, offers);
    }
    /// Its routes, each with the state it needs, given what every page
    /// shares.
    fn routes(&self, common: &Shared) -> Router;
}
