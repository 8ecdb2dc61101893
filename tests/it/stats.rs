//! Random-game statistics through the public API.

use yinsh_zero::games::yinsh::Variant;
use yinsh_zero::games::yinsh::stats::{plot_branching, random_game_stats};

#[test]
fn same_seed_same_json_on_any_thread_count() {
    let on = |threads: usize, seed: u64| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| serde_json::to_string(&random_game_stats(60, seed, Variant::STANDARD)))
            .unwrap()
    };
    let a = on(1, 3);
    assert_eq!(a, on(2, 3));
    assert_eq!(a, on(4, 3));
    assert_ne!(a, on(2, 4));
}

#[test]
fn a_few_hundred_games_give_plausible_numbers() {
    let s = random_game_stats(400, 11, Variant::STANDARD);
    assert_eq!(s.games, 400);
    assert!(s.max_turns <= 81, "max turns {}", s.max_turns);
    // Literature: branching about 40; a 20 000-game run here gives 38.
    assert!((30.0..48.0).contains(&s.mean_ring_moves), "{s}");
    assert!((25.0..50.0).contains(&s.median_ring_moves), "{s}");
    assert!(s.max_ring_moves as f64 > s.mean_ring_moves && s.max_ring_moves <= 135);
    // Placements (85 down to 76 options) pull the all-turns mean up.
    assert!(s.mean_options_all_turns > s.mean_ring_moves, "{s}");
    assert!((55.0..81.0).contains(&s.mean_turns), "{s}");
    assert!(s.min_turns >= 10 && s.min_turns as f64 <= s.median_turns);
    assert!(s.median_turns <= s.max_turns as f64);

    let ends: u64 = s.end_reasons.values().map(|r| r.count).sum();
    let results: u64 = s.outcomes.values().map(|r| r.count).sum();
    assert_eq!((ends, results), (400, 400));
    let shares: f64 = s.outcomes.values().map(|r| r.share).sum();
    assert!((shares - 1.0).abs() < 1e-9);
    assert!(s.end_reasons["three_rings"].count > 0);

    // Every game reaches the first turns: 85 empty points, then 84, ...
    assert_eq!(s.by_turn[0].turn, 1);
    assert_eq!((s.by_turn[0].games, s.by_turn[0].mean_options), (400, 85.0));
    assert_eq!(s.by_turn[9].mean_options, 76.0);
    assert_eq!(s.by_turn.len() as u32, s.max_turns);
    assert!(s.by_turn.windows(2).all(|w| w[0].games >= w[1].games));
}

#[test]
fn blitz_games_are_shorter() {
    let standard = random_game_stats(150, 5, Variant::STANDARD);
    let blitz = random_game_stats(150, 5, Variant::BLITZ);
    assert_eq!(blitz.variant, "blitz");
    assert!(blitz.mean_turns < standard.mean_turns);
    assert_eq!(
        blitz.end_reasons["three_rings"].count
            + blitz.end_reasons["pool_empty"].count
            + blitz.end_reasons["double_pass"].count,
        150
    );
}

#[test]
fn the_plot_is_an_svg_with_a_line() {
    let s = random_game_stats(30, 2, Variant::STANDARD);
    let path = std::env::temp_dir().join(format!("yinsh-stats-plot-{}.svg", std::process::id()));
    plot_branching(&s, &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        svg.trim_start().starts_with("<svg"),
        "{}",
        &svg[..100.min(svg.len())]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    // The data line is the one blue polyline (the axes are black), with a
    // vertex per turn.
    let line = svg
        .split("<polyline")
        .find(|el| el.contains("#0000FF"))
        .expect("a blue data line");
    let points = line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split_whitespace().count(), s.by_turn.len());
    assert!(svg.contains("mean legal options"));
}

#[test]
fn the_text_report_has_the_turn_table() {
    let s = random_game_stats(10, 1, Variant::STANDARD);
    let text = s.to_string();
    assert!(text.contains("branching by turn"));
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["1", "10", "85.00"])
    );
}
