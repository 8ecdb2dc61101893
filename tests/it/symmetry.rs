//! The 12 board symmetries: group laws, and that the rules commute with
//! them on positions reached by random play.

use std::collections::{BTreeSet, HashSet};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::games::yinsh::symmetry::Symmetry;
use yinsh_zero::games::yinsh::{ACTION_SPACE, Action, Decision, Direction, Point, Position};

#[test]
fn group_laws() {
    let id = Symmetry::ALL[0];
    assert_eq!(id, Symmetry::IDENTITY);
    for p in Point::all() {
        assert_eq!(id.point(p), p);
    }
    for s in Symmetry::ALL {
        assert_eq!(s.then(id), s);
        assert_eq!(id.then(s), s);
        assert_eq!(s.then(s.inverse()), id);
        assert_eq!(s.inverse().then(s), id);
        for t in Symmetry::ALL {
            let st = s.then(t);
            assert!(Symmetry::ALL.contains(&st));
            for p in Point::all() {
                assert_eq!(st.point(p), t.point(s.point(p)), "{s:?} then {t:?} on {p}");
            }
            for d in Direction::ALL {
                assert_eq!(st.direction(d), t.direction(s.direction(d)));
            }
        }
    }
    // Twelve different maps of the board.
    let maps: HashSet<Vec<Point>> = Symmetry::ALL
        .iter()
        .map(|s| Point::all().map(|p| s.point(p)).collect())
        .collect();
    assert_eq!(maps.len(), 12);
    // Rotations have order dividing 6, mirrors order 2.
    for s in Symmetry::ALL {
        let order = if s.is_mirror() { 2 } else { 6 };
        let power = (0..order).fold(id, |acc, _| acc.then(s));
        assert_eq!(power, id, "{s:?}");
    }
}

#[test]
fn points_and_directions_are_permuted() {
    for s in Symmetry::ALL {
        let image: BTreeSet<Point> = Point::all().map(|p| s.point(p)).collect();
        assert_eq!(image.len(), 85, "{s:?}");
        let image: BTreeSet<Direction> = Direction::ALL.iter().map(|&d| s.direction(d)).collect();
        assert_eq!(image.len(), 6, "{s:?}");
        // Neighbours stay neighbours, in the transformed direction.
        for p in Point::all() {
            for d in Direction::ALL {
                assert_eq!(
                    p.step(d).map(|q| s.point(q)),
                    s.point(p).step(s.direction(d)),
                    "{s:?} {p} {d:?}"
                );
            }
        }
        assert_eq!(s.bitboard(Point::all().collect()).count(), 85);
    }
}

#[test]
fn action_index_is_a_permutation_matching_action() {
    for s in Symmetry::ALL {
        let mut hit = vec![false; ACTION_SPACE];
        for i in 0..ACTION_SPACE {
            let j = s.action_index(i);
            assert!(!hit[j], "{s:?}: {j} hit twice");
            hit[j] = true;
            match Action::from_index(i) {
                Some(a) => assert_eq!(j, s.action(a).index(), "{s:?} {a}"),
                None => assert_eq!(j, i),
            }
        }
        assert_eq!(s.action_indices().len(), ACTION_SPACE);
    }
}

/// Every position of one seeded uniformly random game, the final one
/// included.
fn random_game(seed: u64, blitz: bool) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = if blitz {
        Position::blitz()
    } else {
        Position::new()
    };
    let mut seen = vec![pos];
    while !pos.is_over() {
        let legal = pos.legal_actions();
        pos.play(legal[rng.random_range(0..legal.len())]).unwrap();
        seen.push(pos);
    }
    seen
}

#[test]
fn the_rules_commute_with_every_symmetry() {
    let mut decisions = HashSet::new();
    let mut checked = 0;
    for seed in 0..120 {
        // Every fifth position, plus every row or ring choice and the end.
        let game = random_game(seed, seed % 4 == 1);
        let last = game.len() - 1;
        for (k, pos) in game.into_iter().enumerate() {
            let interesting = matches!(
                pos.decision(),
                Decision::RemoveRow | Decision::RemoveRing | Decision::GameOver
            );
            if k % 5 != 0 && !interesting && k != last {
                continue;
            }
            decisions.insert(pos.decision());
            checked += 1;
            let legal = pos.legal_actions();
            for s in Symmetry::ALL {
                let image = s.position(&pos);
                let context = format!("seed {seed} step {k} {s:?}\n{pos}");
                assert_eq!(image.decision(), pos.decision(), "{context}");
                assert_eq!(image.to_act(), pos.to_act(), "{context}");
                assert_eq!(image.outcome(), pos.outcome(), "{context}");
                assert_eq!(image.pool(), pos.pool(), "{context}");
                assert_eq!(s.inverse().position(&image), pos, "{context}");

                let want: BTreeSet<Action> = legal.iter().map(|&a| s.action(a)).collect();
                let got: BTreeSet<Action> = image.legal_actions().into_iter().collect();
                assert_eq!(got, want, "{context}");
                assert_eq!(image.legal_action_count(), legal.len(), "{context}");

                for &a in &legal {
                    let ta = s.action(a);
                    assert_eq!(s.action_index(a.index()), ta.index(), "{context} {a}");
                    let mut after = pos;
                    after.play(a).unwrap();
                    let mut image_after = image;
                    image_after
                        .play(ta)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    assert_eq!(image_after, s.position(&after), "{context} {a} -> {ta}");
                    assert_eq!(image_after.outcome(), after.outcome(), "{context} {a}");
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} positions");
    assert_eq!(decisions.len(), 5, "decisions seen: {decisions:?}");
}

#[test]
fn a_policy_vector_follows_its_position() {
    // Moving probabilities with `action_indices` puts each one on the image
    // of its action in the transformed position.
    let pos = random_game(7, false)[30];
    let legal = pos.legal_actions();
    let mut policy = vec![0f32; ACTION_SPACE];
    for (k, a) in legal.iter().enumerate() {
        policy[a.index()] = (k + 1) as f32;
    }
    for s in Symmetry::ALL {
        let table = s.action_indices();
        let mut moved = vec![0f32; ACTION_SPACE];
        for (i, &p) in policy.iter().enumerate() {
            moved[table[i] as usize] = p;
        }
        let image = s.position(&pos);
        for (k, a) in legal.iter().enumerate() {
            assert_eq!(moved[s.action(*a).index()], (k + 1) as f32);
        }
        let mass: f32 = image.legal_actions().iter().map(|a| moved[a.index()]).sum();
        assert_eq!(mass, policy.iter().sum::<f32>());
    }
}

/// Each game's ownership target against its own encoding: where the player
/// to act's pieces stand, 1, the opponent's, -1, in the input planes' cell
/// order, under every symmetry; and the other player's side is its negation.
fn ownership_follows_the_encoding<G: yinsh_zero::game::Game>(
    game: &G,
    (own, opp): (usize, usize),
    seed: u64,
) {
    use yinsh_zero::game::State;
    let shape = game.net_shape();
    let cells = shape.cells();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut planes = vec![0.0; shape.input_size()];
    let (mut target, mut theirs) = (vec![0.0; cells], vec![0.0; cells]);
    let mut pieces = 0;
    for _ in 0..6 {
        let mut pos = game.start();
        while !pos.is_over() {
            for k in 0..game.symmetries() {
                let turned = game.transform(&pos, k);
                let me = turned.to_act();
                assert!(game.ownership(&turned, me, &mut target));
                assert!(game.ownership(&turned, !me, &mut theirs));
                game.encode(&turned, &mut planes);
                for c in 0..cells {
                    let want = planes[own * cells + c] - planes[opp * cells + c];
                    assert_eq!(target[c], want, "cell {c} of {turned:?}");
                    assert_eq!(theirs[c], -want);
                    pieces += usize::from(want != 0.0);
                }
            }
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
    }
    assert!(pieces > 0);
}

#[test]
fn yinsh_ownership_is_each_points_marker() {
    use yinsh_zero::games::yinsh::encode::planes;
    let game = yinsh_zero::games::yinsh::Yinsh::blitz();
    ownership_follows_the_encoding(&game, (planes::OWN_MARKERS, planes::OPP_MARKERS), 5);
}

#[test]
fn morris_ownership_is_each_points_man() {
    use yinsh_zero::games::morris::{Morris, Variant};
    // The encoding's first two planes are the men of the player to act and
    // of the opponent.
    ownership_follows_the_encoding(&Morris::new(Variant::Nine), (0, 1), 6);
}

#[test]
fn a_game_without_ownership_says_so() {
    use yinsh_zero::game::Game;
    let game = yinsh_zero::games::connect4::Connect4;
    let start = game.start();
    let mut out = vec![7.0; game.net_shape().cells()];
    assert!(!game.ownership(&start, yinsh_zero::game::Color::White, &mut out));
    assert!(out.iter().all(|&v| v == 7.0), "nothing written");
}
