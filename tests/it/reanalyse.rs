//! Reanalyse: window positions searched again with a network, their
//! targets replaced; and a run that does it each generation.

use crate::common;

use std::fs;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use yinsh_zero::evaluator::{Evaluation, Evaluator};
use yinsh_zero::game::{Game, State};
use yinsh_zero::games::yinsh::{Position, Yinsh};
use yinsh_zero::mcts::{SearchConfig, search};
use yinsh_zero::reanalyse::{self, ReanalyseConfig};
use yinsh_zero::replay::window::{ReplayWindow, WindowSample};

use common::blitz::{BLITZ, window};
use common::cli::{succeeded, yz};

/// A network with opinions: the prior favours low action indices, the
/// value depends on the position, so a search's targets differ from the
/// uniform self-play that made the window.
struct Opinionated;

impl Evaluator<Position> for Opinionated {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_actions().len();
                let raw: Vec<f32> = (0..n).map(|i| 1.0 / (1 + i) as f32).collect();
                let sum: f32 = raw.iter().sum();
                let w = (p.key() % 100) as f32 / 200.0;
                Evaluation {
                    priors: raw.iter().map(|x| x / sum).collect(),
                    wdl: [w, 0.5, 0.5 - w],
                    margin: 0.0,
                }
            })
            .collect()
    }
}

/// Every position of the window with its targets, oldest first.
fn snapshot(w: &ReplayWindow<Yinsh>) -> Vec<WindowSample<Position>> {
    (0..w.len()).map(|i| w.get(i).clone()).collect()
}

#[test]
fn reanalysed_positions_get_the_new_searchs_targets_and_no_others_change() {
    let mut w = window();
    let before = snapshot(&w);
    let cfg = ReanalyseConfig {
        share: 0.5,
        ..ReanalyseConfig::default()
    };
    let base = SearchConfig {
        simulations: 16,
        gumbel: true,
        gumbel_m: 4,
        ..SearchConfig::default()
    };
    let search_cfg = cfg.search_config(&base);
    assert!(!search_cfg.noise && search_cfg.simulations == 16);
    let count = w.len() / 3;
    let s = reanalyse::reanalyse(
        &mut w,
        count,
        &search_cfg,
        false,
        2,
        3,
        11,
        |_| Ok(Opinionated),
        &|| false,
    )
    .unwrap();
    assert_eq!(s.positions, count);
    assert!(s.evaluated >= count as u64);
    let after = snapshot(&w);
    let mut changed = 0;
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        // What the game said stays the game's.
        assert_eq!(
            (a.outcome, a.margin, a.moves_left),
            (b.outcome, b.margin, b.moves_left)
        );
        assert_eq!(a.position, b.position);
        // Policy targets only: the search values stay self-play's.
        assert_eq!(a.search_wdl, b.search_wdl, "position {i}");
        if a.policy == b.policy {
            continue;
        }
        changed += 1;
        // The new target is what a fresh search of the position with the
        // same network and settings finds (noise-free, so any seed).
        let mut rng = SmallRng::seed_from_u64(99);
        let r = search(&a.position, &search_cfg, &mut Opinionated, &mut rng).unwrap();
        let expected: Vec<(u32, f32)> = r
            .actions
            .iter()
            .zip(&r.policy)
            .map(|(&x, &p)| (BLITZ.action_index(x) as u32, p))
            .collect();
        assert_eq!(a.policy, expected, "position {i}");
    }
    // Forced decisions are not recorded, so every searched position has a
    // choice; a few may come out as self-play had them, none more.
    assert!(
        changed <= count && changed * 10 >= count * 9,
        "{changed} of {count}"
    );
}

#[test]
fn with_value_the_search_values_are_replaced_too() {
    let mut w = window();
    let before = snapshot(&w);
    let search_cfg = ReanalyseConfig::default().search_config(&SearchConfig {
        simulations: 8,
        ..SearchConfig::default()
    });
    let n = w.len();
    reanalyse::reanalyse(
        &mut w,
        n,
        &search_cfg,
        true,
        1,
        4,
        3,
        |_| Ok(Opinionated),
        &|| false,
    )
    .unwrap();
    let after = snapshot(&w);
    let differ = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| a.search_wdl != b.search_wdl)
        .count();
    assert!(differ * 10 >= n * 9, "{differ} of {n} values replaced");
    assert!(after.iter().all(|a| a.search_wdl.is_some()));
}

#[test]
fn the_same_seed_reanalyses_the_same_positions_the_same_way() {
    let cfg = ReanalyseConfig::default().search_config(&SearchConfig {
        simulations: 8,
        ..SearchConfig::default()
    });
    let run = |seed| {
        let mut w = window();
        let k = w.len() / 4;
        reanalyse::reanalyse(
            &mut w,
            k,
            &cfg,
            false,
            2,
            2,
            seed,
            |_| Ok(Opinionated),
            &|| false,
        )
        .unwrap();
        snapshot(&w)
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn reanalyse_keys_are_checked_by_name() {
    let base = include_str!("../../configs/tiny.toml");
    let bad_key = format!("{base}\n[reanalyse]\nshares = 0.5\n");
    let e = yinsh_zero::run::config::RunConfig::from_toml(&bad_key, "t.toml").unwrap_err();
    assert!(e.to_string().contains("shares"), "{e}");
    let bad_share = format!("{base}\n[reanalyse]\nshare = 1.5\n");
    let e = yinsh_zero::run::config::RunConfig::from_toml(&bad_share, "t.toml").unwrap_err();
    assert!(e.to_string().contains("[reanalyse] share"), "{e}");
}

#[test]
fn a_run_reanalyses_each_generation_before_training() {
    let tmp = tempfile::tempdir().unwrap();
    let base = include_str!("../../configs/tiny.toml");
    let cfg = tmp.path().join("re.toml");
    fs::write(
        &cfg,
        format!("{base}\n[reanalyse]\nshare = 0.5\nvalue = true\n"),
    )
    .unwrap();
    let run = tmp.path().join("run");
    let out = yz([
        "train",
        "--config",
        cfg.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ]);
    succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("generation 2 reanalyse: "), "{err}");
    let metrics = fs::read_to_string(run.join("logs/metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["kind"] == "reanalyse")
        .collect();
    assert!(!lines.is_empty(), "no reanalyse line:\n{metrics}");
    for l in &lines {
        assert!(l["positions"].as_f64().unwrap() > 0.0, "{l}");
        assert!(l["evaluated"].as_f64().unwrap() >= l["positions"].as_f64().unwrap());
    }
    // The frozen config keeps the table, so a resume is checked against it.
    let frozen = fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(
        frozen.contains("[reanalyse]") && frozen.contains("share = 0.5"),
        "{frozen}"
    );
}

#[test]
fn a_stop_request_starts_no_new_search() {
    let mut w = window();
    let cfg = ReanalyseConfig::default().search_config(&SearchConfig {
        simulations: 8,
        ..SearchConfig::default()
    });
    let n = w.len();
    assert!(n > 6);
    let s = reanalyse::reanalyse(
        &mut w,
        n,
        &cfg,
        false,
        2,
        3,
        1,
        |_| Ok(Opinionated),
        &|| true,
    )
    .unwrap();
    // The searches already in flight (3 for each of 2 workers) finish.
    assert!(s.positions <= 6, "{} searched after the stop", s.positions);
}
