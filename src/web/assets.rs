//! The files every page shares, compiled into the binary so the server is
//! one file with nothing to install. Each game's page brings its own
//! ([`super::WebPage::assets`]).

pub const DASHBOARD_HTML: &str = include_str!("assets/dashboard.html");

/// Text files with their content type, by the name pages load them as.
macro_rules! text_assets {
    ($($name:literal: $mime:literal),* $(,)?) => {
        &[$(($name, concat!("text/", $mime, "; charset=utf-8"), include_str!(concat!("assets/", $name)))),*]
    };
}
pub(crate) use text_assets;

pub const FILES: &[super::page::Asset] = text_assets![
    "style.css": "css",
    "page.js": "javascript",
    "dashboard.js": "javascript",
];
