//! The compact solver (issue 33): the layer index without a list of keys
//! against a brute-force list, and a moving-phase pair stopped at its
//! checkpoints and resumed, against the same pair solved in one go.

use std::collections::BTreeSet;

use crate::common;

use yinsh_zero::games::morris::Variant;
use yinsh_zero::games::morris::address::{Layer, LayerIndex, canonical, layer_size, layers};
use yinsh_zero::games::morris::db::DbError;
use yinsh_zero::games::morris::pair::{PairOptions, solve_pair};
use yinsh_zero::games::morris::solve::{SolveOptions, layers_to_solve, load, solve};

/// Every canonical key of a layer, by listing every pair of masks.
fn brute_keys(variant: Variant, layer: Layer) -> Vec<u64> {
    let geo = variant.geometry();
    let n = geo.points;
    let line = |s: u32| geo.mills.iter().any(|&l| l & !s == 0);
    let mut keys = BTreeSet::new();
    for m in 0u32..1 << n {
        if m.count_ones() != u32::from(layer.a) || (geo.mill_wins && line(m)) {
            continue;
        }
        let free = geo.all & !m;
        // Every subset of the free points with b points.
        let mut o = free;
        loop {
            if o.count_ones() == u32::from(layer.b) && !(geo.mill_wins && line(o)) {
                keys.insert(canonical(geo, m, o));
            }
            if o == 0 {
                break;
            }
            o = (o - 1) & free;
        }
    }
    keys.into_iter().collect()
}

#[test]
fn the_compact_index_lists_the_same_states_in_the_same_order() {
    let mut picked: Vec<(Variant, Layer)> = Vec::new();
    for l in layers(Variant::Three) {
        picked.push((Variant::Three, l));
    }
    for l in layers(Variant::Six) {
        if l.a + l.b <= 5 {
            picked.push((Variant::Six, l));
        }
    }
    // Nine: a few small layers, placement ones (symmetric movers) too.
    for l in layers(Variant::Nine) {
        if l.a + l.b <= 3 && l.hm + l.ho >= 15 {
            picked.push((Variant::Nine, l));
        }
    }
    assert!(picked.len() > 40);
    for (v, l) in picked {
        let ix = LayerIndex::build(v, l);
        let keys = brute_keys(v, l);
        assert_eq!(ix.len(), keys.len(), "{v} {l}");
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(ix.key(i as u32), k, "{v} {l} state {i}");
            assert_eq!(ix.index_of_key(k), Some(i as u32), "{v} {l} key {k:#x}");
        }
        // Walking a range gives the same masks.
        let mut seen = Vec::new();
        ix.for_each_in(0..ix.len(), |i, m, o| {
            seen.push((i, u64::from(m) << 32 | u64::from(o)))
        });
        let want: Vec<(usize, u64)> = keys.iter().copied().enumerate().collect();
        assert_eq!(seen, want, "{v} {l}");
        let mid = ix.len() / 3;
        let mut part = Vec::new();
        ix.for_each_in(mid..ix.len(), |i, _, _| part.push(i));
        assert_eq!(part, (mid..ix.len()).collect::<Vec<_>>());
    }
}

#[test]
fn a_non_canonical_key_has_no_index() {
    let v = Variant::Six;
    let l = Layer::moving(3, 4);
    let ix = LayerIndex::build(v, l);
    let geo = v.geometry();
    let (m, o) = ix.masks(1234);
    let mut found = 0;
    for s in &geo.symmetries {
        let (sm, so) = (s.map(m), s.map(o));
        let k = u64::from(sm) << 32 | u64::from(so);
        if k == canonical(geo, m, o) {
            assert_eq!(ix.index_of_key(k), Some(1234));
        } else {
            assert_eq!(ix.index_of_key(k), None, "a non-canonical key");
            found += 1;
        }
        assert_eq!(ix.index_of(sm, so), Some(1234));
    }
    assert!(found > 0);
    // Wrong stone counts, overlapping masks.
    assert_eq!(ix.index_of_key(u64::from(m) << 32), None);
    assert_eq!(ix.index_of_key(u64::from(m) << 32 | u64::from(m)), None);
}

/// A pair stopped after every `k` checkpoints and started again until it
/// finishes gives what one run gives, through both passes.
#[test]
fn a_pair_resumed_from_its_checkpoints_gives_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    solve(
        &SolveOptions::new(Variant::Nine, dir.path(), Some(3)),
        |_| {},
    )
    .unwrap();
    let store = load(dir.path(), Variant::Nine, Some(3)).unwrap();
    let ix = vec![
        LayerIndex::build(Variant::Nine, Layer::moving(3, 4)),
        LayerIndex::build(Variant::Nine, Layer::moving(4, 3)),
    ];
    let (once, log) = solve_pair(Variant::Nine, &ix, &store, &PairOptions::new(None, 0)).unwrap();
    assert_eq!(log.checkpoints_written, 0);
    let ck = dir.path().join("pair.ckpt");
    for k in [1u32, 3] {
        let _ = std::fs::remove_file(&ck);
        let opts = PairOptions {
            batch: 1 << 17,
            stop_after_checkpoints: Some(k),
            ..PairOptions::new(Some(ck.clone()), 0)
        };
        let mut phases = BTreeSet::new();
        let mut runs = 0;
        let values = loop {
            runs += 1;
            assert!(runs < 1000, "no end");
            match solve_pair(Variant::Nine, &ix, &store, &opts) {
                Ok((values, _)) => break values,
                Err(DbError::Stopped { path }) => {
                    assert_eq!(path, ck);
                    assert!(ck.exists());
                }
                Err(e) => panic!("{e}"),
            }
            // Which phase the checkpoint holds: its byte 17.
            let bytes = std::fs::read(&ck).unwrap();
            phases.insert(bytes[17]);
        };
        assert_eq!(values, once, "stopped every {k} checkpoints");
        assert_eq!(phases.len(), 2, "both passes were interrupted: {phases:?}");
        assert!(runs > 3);
    }
}

#[test]
fn a_damaged_checkpoint_is_named_and_not_used() {
    let dir = tempfile::tempdir().unwrap();
    solve(
        &SolveOptions::new(Variant::Nine, dir.path(), Some(3)),
        |_| {},
    )
    .unwrap();
    let store = load(dir.path(), Variant::Nine, Some(3)).unwrap();
    let ix = vec![
        LayerIndex::build(Variant::Nine, Layer::moving(3, 4)),
        LayerIndex::build(Variant::Nine, Layer::moving(4, 3)),
    ];
    let (once, _) = solve_pair(Variant::Nine, &ix, &store, &PairOptions::new(None, 0)).unwrap();
    let ck = dir.path().join("pair.ckpt");
    // A checkpoint, then damaged three ways.
    let opts = PairOptions {
        batch: 1 << 17,
        stop_after_checkpoints: Some(2),
        ..PairOptions::new(Some(ck.clone()), 0)
    };
    assert!(solve_pair(Variant::Nine, &ix, &store, &opts).is_err());
    let good = std::fs::read(&ck).unwrap();
    let mut flipped = good.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x10;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (flipped, "checksum mismatch"),
        (good[..good.len() - 7].to_vec(), "truncated"),
        (b"not a checkpoint".to_vec(), "truncated"),
    ];
    for (bytes, why) in cases {
        std::fs::write(&ck, &bytes).unwrap();
        let (values, log) = solve_pair(
            Variant::Nine,
            &ix,
            &store,
            &PairOptions::new(Some(ck.clone()), 3600),
        )
        .unwrap();
        let said = log.bad_checkpoint.expect("the damage is reported");
        assert!(said.contains(why), "{said}");
        assert!(said.contains("pair.ckpt"), "names the file: {said}");
        assert!(log.resumed_from.is_none());
        assert_eq!(values, once);
    }
    // Another pair's checkpoint is refused too.
    let other = vec![LayerIndex::build(Variant::Nine, Layer::moving(3, 3))];
    std::fs::write(&ck, &good).unwrap();
    let e = solve_pair(
        Variant::Nine,
        &other,
        &store,
        &PairOptions::new(Some(ck.clone()), 3600),
    )
    .map(|(_, log)| log.bad_checkpoint.unwrap())
    .unwrap();
    assert!(e.contains("expected 3:3"), "{e}");
}

/// `solve` resumes a pair from the checkpoint it left and removes it once
/// the pair's files are written.
#[test]
fn solve_leaves_no_checkpoint_behind() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SolveOptions {
        checkpoint_secs: 0,
        ..SolveOptions::new(Variant::Nine, dir.path(), Some(4))
    };
    solve(&opts, |_| {}).unwrap();
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".mdb"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The solver's benchmarks run through the command line: the solve counts
/// every state of the layers it was asked for, and the index look-ups
/// (checked against the index they came from, or the command fails) are
/// as many as asked.
#[test]
fn the_solver_benches_solve_what_they_say_and_print_their_rates() {
    use common::cli::{succeeded, yz};
    let out = succeeded(&yz([
        "bench",
        "morris-solve",
        "--max-stones",
        "4",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let todo = layers_to_solve(Variant::Nine, Some(4));
    let states: u64 = todo.iter().map(|&l| layer_size(Variant::Nine, l).0).sum();
    assert_eq!(v["layers"].as_u64().unwrap() as usize, todo.len(), "{v}");
    assert_eq!(v["states"].as_u64().unwrap(), states, "{v}");
    assert!(v["states_per_s"].as_f64().unwrap() > 0.0, "{v}");

    let out = succeeded(&yz([
        "bench",
        "morris-index",
        "--mover",
        "5",
        "--opponent",
        "4",
        "--lookups",
        "20000",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["layer"], Layer::moving(5, 4).to_string(), "{v}");
    assert_eq!(
        v["states"].as_u64().unwrap(),
        layer_size(Variant::Nine, Layer::moving(5, 4)).0,
        "{v}"
    );
    assert_eq!(v["lookups"], 20000, "{v}");
}
