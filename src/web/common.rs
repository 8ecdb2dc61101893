//! What every page of the server shares: how the server is set up, the
//! bounded line of slow work, and the navigation bar built from the
//! registered pages.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::offers::Offers;
use super::work::Work;

/// How the server is set up.
#[derive(Clone)]
pub struct ServeConfig {
    /// The run directory the dashboard reads, if any.
    pub run_dir: Option<PathBuf>,
    /// The opponent the home page (the first registered game's) offers
    /// first.
    pub default_opponent: String,
    /// The most an engine may think per decision (specs are bounded by it).
    pub max_think: Duration,
    /// Simulations of the agent's-view search, and the most a request may ask.
    pub analysis_simulations: u32,
    pub max_analysis_simulations: u32,
    /// Games kept (of each game); the least recently used one is dropped
    /// beyond this.
    pub max_games: usize,
    /// The folder of perfect-play databases, one subfolder per variant of
    /// a game that has them; `None` for where `solve` writes them.
    pub databases: Option<PathBuf>,
    /// The networks and databases a request may name ([`Offers`]).
    pub offers: Offers,
    /// Serve the dashboard and the run's JSON only: no games, analyses or
    /// reviews (for a dashboard exposed beyond this machine).
    pub read_only: bool,
    /// Engine moves, analyses, reviews and new games running at once; more
    /// wait in line (`Work`). 0: one per core.
    pub max_work: usize,
    /// Requests that may wait in line for one of those before the server
    /// answers 503 with Retry-After. 0: four per running slot.
    pub max_waiting: usize,
}

impl ServeConfig {
    /// [`ServeConfig::max_think`] as the pages' configs give it.
    pub fn max_think_ms(&self) -> u64 {
        self.max_think.as_millis() as u64
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            run_dir: None,
            default_opponent: "mcts-rollout:playouts=2000".into(),
            max_think: Duration::from_secs(2),
            analysis_simulations: 300,
            max_analysis_simulations: 5000,
            max_games: 1000,
            databases: None,
            offers: Offers::default(),
            read_only: false,
            max_work: 0,
            max_waiting: 0,
        }
    }
}

/// One entry of the navigation bar.
#[derive(Clone, Debug)]
pub struct NavLink {
    /// Where it goes: `/`, `/morris`, ...
    pub path: &'static str,
    /// What it says: `YINSH`, `Morris`, ...
    pub title: &'static str,
    /// Its element id (`morris-link`), for pages and tests to find it.
    pub id: &'static str,
}

/// What every page's routes share.
pub struct Common {
    pub config: ServeConfig,
    /// The bounded line every slow request goes through.
    pub work: Work,
    /// The navigation bar, the same on every page.
    nav: String,
}

/// What a page puts into the one layout ([`Common::page_in`]).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The browser tab's title.
    pub title: &'static str,
    /// The header's heading (`#title`, which a game's script may retitle).
    pub heading: &'static str,
    /// The body's classes, for the style sheet and the browser tests.
    pub body_class: &'static str,
    /// Its own style sheets under `/assets/`, after the shared one.
    pub styles: &'static [&'static str],
    /// Its scripts under `/assets/`, in order (`page.js` first where used).
    pub scripts: &'static [&'static str],
}

/// [`Common`] as handlers hold it.
pub type Shared = Arc<Common>;

impl Common {
    pub(super) fn new(config: ServeConfig, links: &[NavLink]) -> Common {
        let links: Vec<String> = links
            .iter()
            .map(|l| format!(r#"<a href="{}" id="{}">{}</a>"#, l.path, l.id, l.title))
            .collect();
        Common {
            work: Work::new(config.max_work, config.max_waiting),
            config,
            nav: format!("<nav>{}</nav>", links.join(" ")),
        }
    }

    /// A page in the layout every page shares: the head (the shared
    /// style sheet, the page's title), the header with its heading and the
    /// navigation bar, then the page's own `main` (compiled in) and its
    /// scripts.
    pub fn page_in(&self, layout: &Layout, main: &str) -> Response {
        let class = match layout.body_class {
            "" => String::new(),
            c => format!(r#" class="{c}""#),
        };
        let scripts: String = layout
            .scripts
            .iter()
            .map(|s| format!("<script src=\"/assets/{s}\"></script>\n"))
            .collect();
        let styles: String = layout
            .styles
            .iter()
            .map(|s| format!("<link rel=\"stylesheet\" href=\"/assets/{s}\">\n"))
            .collect();
        let html = format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/assets/style.css\">\n{styles}\
             <link rel=\"icon\" href=\"data:,\">\n</head>\n<body{class}>\n<header>\n  \
             <h1 id=\"title\">{heading}</h1>\n  {nav}\n</header>\n{main}{scripts}</body>\n</html>\n",
            title = layout.title,
            heading = layout.heading,
            nav = self.nav,
        );
        ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
    }
}
