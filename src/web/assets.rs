//! The pages and their scripts, compiled into the binary so the server is
//! one file with nothing to install.

pub const PLAY_HTML: &str = include_str!("assets/play.html");
pub const RULES_HTML: &str = include_str!("assets/rules.html");
pub const DASHBOARD_HTML: &str = include_str!("assets/dashboard.html");
pub const MORRIS_HTML: &str = include_str!("assets/morris.html");
pub const GRID_HTML: &str = include_str!("assets/grid.html");
pub const EMERGO_HTML: &str = include_str!("assets/emergo.html");

const FILES: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "page.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/page.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/board.js"),
    ),
    (
        "play.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/play.js"),
    ),
    (
        "morris.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/morris.js"),
    ),
    (
        "grid.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/grid.js"),
    ),
    (
        "emergo.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/emergo.js"),
    ),
    (
        "dashboard.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/dashboard.js"),
    ),
];

/// The content type and text of the asset `name`.
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, mime, body)| (*mime, *body))
}
