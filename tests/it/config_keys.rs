//! Renamed config keys: `opening_moves` was `random_placements` (issue
//! 31). The old name is still read, with one line on stderr per config
//! load that names the new one, and configs are written with the new name.

use crate::common;

use std::fs;

use common::cli::{succeeded, yz};
use yinsh_zero::run::config::RunConfig;

/// A config small enough for one quick game, with the old key in two tables.
const OLD: &str = r#"
[game]
variant = "blitz"

[model]
blocks = 1
channels = 8
value_channels = 2
value_hidden = 16

[search]
simulations = 4
fast_simulations = 2

[selfplay]
workers = 1
games_in_flight = 1
random_placements = 3

[gating]
random_placements = 1
"#;

#[test]
fn the_old_opening_key_is_read_with_one_line_naming_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("old.toml");
    fs::write(&config, OLD).unwrap();
    let out = yz([
        "selfplay".as_ref(),
        "--random-init".as_ref(),
        "--games".as_ref(),
        "1".as_ref(),
        "--out".as_ref(),
        tmp.path().join("records").as_os_str(),
        "--config".as_ref(),
        config.as_os_str(),
    ]);
    succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("random_placements"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    let line = lines[0];
    assert!(
        line.contains("old.toml")
            && line.contains("`random_placements` is now `opening_moves`")
            && line.contains("[selfplay] random_placements")
            && line.contains("[gating] random_placements"),
        "{line}"
    );
}

#[test]
fn configs_are_written_with_the_new_opening_key() {
    let cfg = RunConfig::from_toml(OLD, "old.toml").unwrap();
    assert_eq!(
        (cfg.selfplay.opening_moves, cfg.gating.opening_moves),
        (3, 1)
    );
    let text = cfg.to_toml();
    assert!(!text.contains("random_placements"), "{text}");
    assert_eq!(text.matches("\nopening_moves = ").count(), 4, "{text}");
    let back = RunConfig::from_toml_noting(&text, "new.toml").unwrap();
    assert_eq!(back, (cfg, None));
    // The shipped configs use the new name only.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let text = fs::read_to_string(&p).unwrap();
        assert!(!text.contains("random_placements"), "{}", p.display());
    }
}
