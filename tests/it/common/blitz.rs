//! A replay window of real blitz YINSH self-play records, for the tests
//! that train on a window or search its positions again.

use yinsh_zero::evaluator::UniformEvaluator;
use yinsh_zero::games::yinsh::Yinsh;
use yinsh_zero::mcts::SearchConfig;
use yinsh_zero::replay::window::{ReplayWindow, WindowConfig};
use yinsh_zero::selfplay::{self, Progress, SelfPlayConfig};

pub const BLITZ: Yinsh = Yinsh::blitz();

/// Four games of blitz self-play (8 simulations, a uniform evaluator, seed
/// 5) in a window of the default size.
pub fn window() -> ReplayWindow<Yinsh> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = SelfPlayConfig {
        workers: 1,
        games_in_flight: 4,
        ..SelfPlayConfig::default()
    };
    let search = SearchConfig {
        simulations: 8,
        ..SearchConfig::default()
    };
    let s = selfplay::run(
        &BLITZ,
        &cfg,
        &search,
        4,
        5,
        0,
        dir.path(),
        "t",
        |_| Ok(UniformEvaluator),
        &Progress::default(),
        &|| false,
    )
    .unwrap();
    let mut w = ReplayWindow::new(BLITZ, WindowConfig::default());
    for f in &s.files {
        w.add_file(f).unwrap();
    }
    w
}
