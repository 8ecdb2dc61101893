//! The search through its public interface, with real positions reached by
//! playing legal moves, and the uniform evaluator (so that everything the
//! search finds, it finds by searching).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::evaluator::{Evaluation, Evaluator, UniformEvaluator};
use yinsh_zero::game::State;
use yinsh_zero::games::yinsh::{Action, Color, Decision, Position};
use yinsh_zero::mcts::{Leaf, Search, SearchConfig, SearchError, SearchResult, search};

/// Counts the positions it is asked about.
#[derive(Default)]
struct Counting {
    positions: usize,
}

impl Evaluator<Position> for Counting {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        self.positions += positions.len();
        UniformEvaluator.evaluate(positions)
    }
}

fn puct(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        ..SearchConfig::for_play()
    }
}

/// Gumbel search can only find what it samples at the root: with uniform
/// priors, sample every action (the test positions have at most ~40).
fn gumbel(simulations: u32) -> SearchConfig {
    SearchConfig {
        gumbel: true,
        gumbel_m: 64,
        ..puct(simulations)
    }
}

/// Every position of a few seeded random games (finished ones left out).
fn random_positions(start: Position, games: u64, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = start;
        while !pos.is_over() {
            out.push(pos);
            let actions = pos.legal_actions();
            pos.play(actions[rng.random_range(0..actions.len())])
                .unwrap();
        }
    }
    out
}

/// What a ring move leads to in Blitz, where the first ring removed wins:
/// the mover wins if the move makes a row of theirs (they resolve first),
/// loses if it makes only an opponent's row.
#[derive(PartialEq, Debug)]
enum Effect {
    Wins,
    Loses,
    Neither,
}

fn effect(pos: &Position, a: Action) -> Effect {
    let mover = pos.to_act();
    let mut next = *pos;
    next.play(a).unwrap();
    match (next.decision(), next.to_act()) {
        (Decision::RemoveRow, c) if c == mover => Effect::Wins,
        (Decision::RemoveRow, _) => Effect::Loses,
        _ => Effect::Neither,
    }
}

/// Blitz ring-move decisions where a few moves win at once and most do not.
fn blitz_wins_in_one() -> Vec<Position> {
    random_positions(Position::blitz(), 200, 11)
        .into_iter()
        .filter(|p| {
            if p.decision() != Decision::MoveRing {
                return false;
            }
            let actions = p.legal_actions();
            let wins = actions
                .iter()
                .filter(|&&a| effect(p, a) == Effect::Wins)
                .count();
            wins >= 1 && wins * 5 <= actions.len()
        })
        .take(6)
        .collect()
}

/// Blitz ring-move decisions with no win, where some moves hand the opponent
/// a row (a loss) and most do not.
fn blitz_blunders() -> Vec<Position> {
    random_positions(Position::blitz(), 300, 12)
        .into_iter()
        .filter(|p| {
            if p.decision() != Decision::MoveRing {
                return false;
            }
            let effects: Vec<Effect> = p.legal_actions().iter().map(|&a| effect(p, a)).collect();
            let losing = effects.iter().filter(|e| **e == Effect::Loses).count();
            !effects.contains(&Effect::Wins) && losing >= 1 && losing * 3 <= effects.len()
        })
        .take(4)
        .collect()
}

fn run(pos: &Position, cfg: &SearchConfig, seed: u64) -> SearchResult<Action> {
    let mut rng = SmallRng::seed_from_u64(seed);
    search(pos, cfg, &mut UniformEvaluator, &mut rng).unwrap()
}

fn check_result(pos: &Position, r: &SearchResult<Action>) {
    let legal: Vec<Action> = pos.legal_actions().to_vec();
    assert!(pos.is_legal(r.action), "illegal {} in\n{pos}", r.action);
    assert_eq!(r.actions, legal);
    assert_eq!(r.policy.len(), legal.len());
    assert_eq!(r.visits.len(), legal.len());
    assert!(r.policy.iter().all(|&p| p >= 0.0 && p.is_finite()));
    let sum: f32 = r.policy.iter().sum();
    assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
}

#[test]
fn puct_finds_the_winning_move() {
    let positions = blitz_wins_in_one();
    assert!(positions.len() >= 3, "too few test positions found");
    for pos in &positions {
        let r = run(pos, &puct(400), 1);
        assert_eq!(
            effect(pos, r.action),
            Effect::Wins,
            "PUCT played {} in\n{pos}",
            r.action
        );
        assert!(r.root_value().unwrap() > 0.5, "root value {:?}", r.root_wdl);
    }
}

#[test]
fn gumbel_finds_the_winning_move() {
    for pos in &blitz_wins_in_one() {
        let r = run(pos, &gumbel(600), 1);
        assert_eq!(
            effect(pos, r.action),
            Effect::Wins,
            "Gumbel played {} in\n{pos}",
            r.action
        );
        // The improved policy puts the winning moves on top.
        let best = (0..r.policy.len())
            .max_by(|&a, &b| r.policy[a].total_cmp(&r.policy[b]))
            .unwrap();
        assert_eq!(effect(pos, r.actions[best]), Effect::Wins);
        // The root's mean averages every sampled action, the draws kept for
        // a halving or two included; the value of the improved policy
        // is the win's.
        let (root, played) = (r.root_wdl.unwrap(), r.policy_wdl.unwrap());
        assert!((played.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(
            played[0] > 0.9 && played[0] > root[0],
            "{played:?} vs {root:?}"
        );
    }
}

/// With Gumbel noise the root samples like the policy would, and a win seen
/// after a couple of visits can still lose an early halving to the noise;
/// but it must win far more often than the ~1 in 30 of its prior.
#[test]
fn gumbel_with_noise_mostly_finds_the_win() {
    let cfg = SearchConfig {
        noise: true,
        temperature: 1.0,
        temperature_turns: u32::MAX,
        ..gumbel(600)
    };
    let positions = blitz_wins_in_one();
    let mut found = 0;
    let mut tries = 0;
    for pos in &positions {
        for seed in 0..5 {
            let r = run(pos, &cfg, seed);
            tries += 1;
            found += (effect(pos, r.action) == Effect::Wins) as usize;
        }
    }
    eprintln!("won {found} of {tries}");
    assert!(found * 4 >= tries * 3, "won {found} of {tries}");
}

/// The turn's temperature scales the Gumbel noise: in the first
/// `temperature_turns` the seed varies the choice, after them (a final
/// temperature of 0) the search is the same whatever the seed.
#[test]
fn gumbel_noise_follows_the_temperature_schedule() {
    let positions = random_positions(Position::new(), 2, 5);
    let (early, late): (Vec<&Position>, Vec<&Position>) = positions
        .iter()
        .filter(|p| p.legal_actions().len() > 4)
        .partition(|p| p.ply() < 10);
    assert!(early.len() >= 5 && late.len() >= 5);
    let cfg = SearchConfig {
        noise: true,
        temperature: 1.0,
        temperature_turns: 10,
        final_temperature: 0.0,
        gumbel_m: 4,
        ..gumbel(16)
    };
    let choices = |pos: &Position| -> Vec<Action> {
        (0..8).map(|seed| run(pos, &cfg, seed).action).collect()
    };
    let varied = |v: &[Action]| v.iter().any(|a| *a != v[0]);
    assert!(
        early.iter().filter(|p| varied(&choices(p))).count() * 2 >= early.len(),
        "the noise hardly varies the opening's choices"
    );
    for pos in late {
        let v = choices(pos);
        assert!(!varied(&v), "seeds chose {v:?} at ply {}", pos.ply());
        let quiet = SearchConfig {
            noise: false,
            ..cfg.clone()
        };
        assert_eq!(run(pos, &quiet, 0).action, v[0]);
    }
}

#[test]
fn sequential_halving_spends_the_budget_on_m_actions() {
    let pos = Position::new(); // 85 placements
    let cfg = SearchConfig {
        gumbel_m: 16,
        ..gumbel(200)
    };
    let r = run(&pos, &cfg, 0);
    check_result(&pos, &r);
    let visited: Vec<u32> = r.visits.iter().copied().filter(|&v| v > 0).collect();
    assert_eq!(visited.len(), 16);
    assert_eq!(visited.iter().sum::<u32>(), 200);
    // Phases of 200 / (4 halvings x k) visits for k = 16, 8, 4, 2 actions,
    // the 6 left over to the last two: 3, 9, 21 and 49 in all.
    let mut sorted = visited.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(sorted, [49, 49, 21, 21, 9, 9, 9, 9, 3, 3, 3, 3, 3, 3, 3, 3]);
    assert_eq!(
        r.visits[r.actions.iter().position(|&a| a == r.action).unwrap()],
        49
    );
}

/// The opponent's row is resolved by the opponent: the value must flip where
/// the actor changes, not at every decision.
#[test]
fn both_searches_avoid_handing_over_a_win() {
    let positions = blitz_blunders();
    assert!(positions.len() >= 2, "too few test positions found");
    for pos in &positions {
        for cfg in [puct(400), gumbel(600)] {
            let r = run(pos, &cfg, 3);
            assert_ne!(
                effect(pos, r.action),
                Effect::Loses,
                "gumbel={} played {} in\n{pos}",
                cfg.gumbel,
                r.action
            );
        }
    }
}

#[test]
fn only_legal_actions_and_proper_targets_on_random_positions() {
    let all = random_positions(Position::new(), 3, 5);
    let mut rng = SmallRng::seed_from_u64(9);
    for (i, pos) in all.iter().step_by(7).enumerate() {
        for cfg in [
            SearchConfig {
                simulations: 24,
                ..SearchConfig::default()
            },
            SearchConfig {
                simulations: 24,
                gumbel: true,
                gumbel_m: 8,
                ..SearchConfig::default()
            },
        ] {
            let r = search(pos, &cfg, &mut UniformEvaluator, &mut rng).unwrap();
            check_result(pos, &r);
            if r.forced {
                assert_eq!(r.simulations, 0);
            } else {
                // A fresh tree: every descent is one visit of a root child.
                assert_eq!(r.simulations, 24, "position {i}");
                assert_eq!(r.visits.iter().sum::<u32>(), 24);
            }
        }
    }
}

#[test]
fn forced_decisions_spend_nothing() {
    let pos = random_positions(Position::new(), 20, 6)
        .into_iter()
        .find(|p| p.legal_action_count() == 1)
        .expect("random games have single-option decisions");
    let mut counting = Counting::default();
    let mut s = Search::new(pos, puct(100), 0).unwrap();
    assert!(s.is_forced() && s.is_done());
    s.run(&mut counting).unwrap();
    assert_eq!(counting.positions, 0);
    let r = s.result();
    assert!(r.forced);
    assert_eq!(r.simulations, 0);
    assert_eq!(r.action, pos.legal_actions()[0]);
    assert_eq!(r.policy, vec![1.0]);
    assert_eq!(s.next_leaf(), Leaf::Done);
}

#[test]
fn last_decision_backs_up_exact_wins() {
    // Blitz, a ring to remove after one's row: every option ends the game.
    let pos = random_positions(Position::blitz(), 100, 7)
        .into_iter()
        .find(|p| p.decision() == Decision::RemoveRing && p.legal_action_count() > 1)
        .expect("random Blitz games remove rows");
    for cfg in [puct(50), gumbel(50)] {
        let mut counting = Counting::default();
        let mut s = Search::new(pos, cfg, 0).unwrap();
        s.run(&mut counting).unwrap();
        // Only the root is evaluated: every descent ends in a finished game.
        assert_eq!(counting.positions, 1);
        let r = s.result();
        check_result(&pos, &r);
        assert_eq!(r.simulations, 50);
        // 50 exact wins and the root's own even evaluation.
        let wdl = r.root_wdl.unwrap();
        assert!((wdl[0] - 50.0 / 51.0).abs() < 1e-4, "{wdl:?}");
    }
}

#[test]
fn exact_losses_one_decision_before_the_end() {
    // Blitz, the opponent to remove the row the mover just made for them:
    // searched from the mover's side one decision earlier, every descent
    // through that move ends in the opponent's win.
    let pos = blitz_blunders()[0];
    let losing: Vec<Action> = pos
        .legal_actions()
        .into_iter()
        .filter(|&a| effect(&pos, a) == Effect::Loses)
        .collect();
    let mut s = Search::new(pos, puct(300), 0).unwrap();
    s.run(&mut UniformEvaluator).unwrap();
    let r = s.result();
    let mut checked = 0;
    for a in losing {
        let i = r.actions.iter().position(|&b| b == a).unwrap();
        let mut after = pos;
        after.play(a).unwrap();
        assert_eq!(after.to_act(), !pos.to_act());
        if r.visits[i] >= 2 {
            // Every visit but the first evaluation ends in the opponent's
            // win; advanced into, the root takes the opponent's view.
            let mut t = s.clone();
            t.advance(a).unwrap();
            let v = t.result().root_value().unwrap();
            let expected = (r.visits[i] - 1) as f32 / r.visits[i] as f32;
            assert!(
                (v - expected).abs() < 1e-4,
                "opponent's value after {a}: {v}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no losing move was searched twice");
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let pos = random_positions(Position::new(), 1, 8)[30];
    assert_eq!(pos.decision(), Decision::MoveRing);
    let cfg = puct(300);
    let mut s = Search::new(pos, cfg.clone(), 4).unwrap();
    s.run(&mut UniformEvaluator).unwrap();
    let r = s.result();
    let i = r.actions.iter().position(|&a| a == r.action).unwrap();
    let kept = r.visits[i];
    assert!(kept > 1);
    s.advance(r.action).unwrap();
    assert_eq!(s.root_visits(), kept);
    let mut next = pos;
    next.play(r.action).unwrap();
    assert_eq!(*s.position(), next);
    assert_eq!(s.simulations(), 0);
    if !s.is_forced() {
        s.run(&mut UniformEvaluator).unwrap();
        let r2 = s.result();
        check_result(&next, &r2);
        assert_eq!(r2.simulations, 300);
        // The budget counts new descents; the kept ones come on top.
        assert_eq!(s.root_visits(), kept + 300);
    }

    // Without reuse, the next search starts from nothing.
    let mut s = Search::new(
        pos,
        SearchConfig {
            tree_reuse: false,
            ..cfg
        },
        4,
    )
    .unwrap();
    s.run(&mut UniformEvaluator).unwrap();
    let a = s.result().action;
    s.advance(a).unwrap();
    assert_eq!(s.root_visits(), 0);
    assert_eq!(s.tree_size(), 1);
}

#[test]
fn unplayed_subtrees_are_discarded() {
    let pos = random_positions(Position::new(), 1, 8)[30];
    let mut s = Search::new(pos, puct(10), 4).unwrap();
    s.run(&mut UniformEvaluator).unwrap();
    let r = s.result();
    // An action the search never tried.
    let i = r
        .visits
        .iter()
        .position(|&v| v == 0)
        .expect("some action unvisited");
    s.advance(r.actions[i]).unwrap();
    assert_eq!(s.root_visits(), 0);
    assert_eq!(s.tree_size(), 1);
    assert!(s.advance(Action::Pass).is_err() || s.position().legal_actions()[0] == Action::Pass);
}

#[test]
fn same_seed_same_search() {
    let pos = random_positions(Position::new(), 1, 10)[14];
    for gumbel in [false, true] {
        // Noise and temperature on: everything random comes from the seed.
        let cfg = SearchConfig {
            simulations: 64,
            gumbel,
            ..SearchConfig::default()
        };
        let play = |seed: u64| {
            let mut s = Search::new(pos, cfg.clone(), seed).unwrap();
            let mut results = Vec::new();
            for _ in 0..4 {
                s.run(&mut UniformEvaluator).unwrap();
                let r = s.result();
                s.advance(r.action).unwrap();
                results.push(r);
            }
            results
        };
        assert_eq!(play(42), play(42));
        assert!((0..8).any(|seed| play(seed) != play(42)));
    }
}

#[test]
fn batched_driving_matches_one_game_at_a_time() {
    let starts = random_positions(Position::new(), 2, 13);
    let starts: Vec<Position> = starts.into_iter().step_by(11).take(6).collect();
    let cfg = SearchConfig {
        simulations: 40,
        ..SearchConfig::default()
    };
    let alone: Vec<SearchResult<Action>> = starts
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let mut s = Search::new(p, cfg.clone(), i as u64).unwrap();
            s.run(&mut UniformEvaluator).unwrap();
            s.result()
        })
        .collect();

    let mut games: Vec<Search<Position>> = starts
        .iter()
        .enumerate()
        .map(|(i, &p)| Search::new(p, cfg.clone(), i as u64).unwrap())
        .collect();
    let mut evaluator = Counting::default();
    let mut batches = 0;
    loop {
        let mut waiting = Vec::new();
        let mut positions = Vec::new();
        for (i, g) in games.iter_mut().enumerate() {
            if let Leaf::NeedsEval(p) = g.next_leaf() {
                // Asking twice gives the same leaf.
                assert_eq!(g.next_leaf(), Leaf::NeedsEval(p));
                waiting.push(i);
                positions.push(p);
            }
        }
        if waiting.is_empty() {
            break;
        }
        batches += 1;
        for (i, e) in waiting.into_iter().zip(evaluator.evaluate(&positions)) {
            games[i].provide(e).unwrap();
        }
    }
    assert!(batches <= 41, "{batches} batches");
    let together: Vec<SearchResult<Action>> = games.iter().map(|g| g.result()).collect();
    assert_eq!(alone, together);
}

#[test]
fn bad_evaluations_are_refused() {
    let mut s = Search::new(Position::new(), puct(8), 0).unwrap();
    assert_eq!(
        s.provide(UniformEvaluator.evaluate(&[Position::new()]).remove(0)),
        Err(SearchError::NothingPending)
    );
    let Leaf::NeedsEval(p) = s.next_leaf() else {
        panic!("a fresh search needs its root evaluated")
    };
    let wrong = Evaluation {
        priors: vec![1.0; 3],
        wdl: [0.2, 0.6, 0.2],
        margin: 0.0,
    };
    assert!(matches!(
        s.provide(wrong),
        Err(SearchError::BadEvaluation(_))
    ));
    let mut no_margin = UniformEvaluator
        .evaluate(std::slice::from_ref(&p))
        .remove(0);
    no_margin.margin = f32::NAN;
    assert!(matches!(
        s.provide(no_margin),
        Err(SearchError::BadEvaluation(m)) if m.contains("margin")
    ));
    // The leaf still waits, and a proper answer goes through.
    assert_eq!(s.next_leaf(), Leaf::NeedsEval(p));
    s.provide(UniformEvaluator.evaluate(&[p]).remove(0))
        .unwrap();
}

#[test]
fn finished_games_and_bad_configs_are_refused() {
    let mut over = Position::new();
    over.resign(Color::White);
    assert_eq!(
        Search::new(over, puct(8), 0).err(),
        Some(SearchError::GameOver)
    );
    let bad = SearchConfig {
        noise_fraction: 1.5,
        ..SearchConfig::default()
    };
    assert!(matches!(
        Search::new(Position::new(), bad, 0),
        Err(SearchError::InvalidConfig {
            field: "noise_fraction",
            ..
        })
    ));
    assert!(serde_json::from_str::<SearchConfig>(r#"{ "simulation": 5 }"#).is_err());
}

#[test]
fn playout_cap_randomization_mixes_fast_and_full_searches() {
    let cfg = SearchConfig {
        simulations: 30,
        fast_simulations: 5,
        full_search_prob: 0.5,
        ..SearchConfig::default()
    };
    let mut s = Search::new(Position::new(), cfg, 2).unwrap();
    let (mut full, mut fast) = (0, 0);
    for _ in 0..12 {
        s.run(&mut UniformEvaluator).unwrap();
        let r = s.result();
        if r.full {
            assert_eq!(r.simulations, 30);
            full += 1;
        } else {
            assert_eq!(r.simulations, 5);
            fast += 1;
        }
        s.advance(r.action).unwrap();
    }
    assert!(full > 0 && fast > 0);
}

/// The throughput figure: `cargo test --release --test it mcts:: -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a check; run by hand in release"]
fn bench_search_uniform() {
    for gumbel in [false, true] {
        let cfg = SearchConfig {
            simulations: 200,
            gumbel,
            ..SearchConfig::default()
        };
        let b = yinsh_zero::mcts::bench_search(
            &yinsh_zero::games::yinsh::Position::new(),
            5.0,
            &cfg,
            32,
            1,
        );
        println!("{}", serde_json::to_string(&b).unwrap());
        assert!(b.simulations > 0);
    }
}

/// Drives `s` to the end of its move `k` leaves at a time, checking after
/// every batch that all its virtual loss is taken back; the largest batch.
fn run_in_batches(s: &mut Search<Position>, k: usize) -> usize {
    let mut largest = 0;
    loop {
        let leaves = s.next_leaves(k);
        if leaves.is_empty() {
            assert!(s.is_done());
            assert_eq!(s.next_leaf(), Leaf::Done);
            return largest;
        }
        assert!(
            leaves.len() <= k,
            "{} leaves for a batch of {k}",
            leaves.len()
        );
        // Asking again before answering gives the same leaves.
        assert_eq!(s.next_leaves(k), leaves);
        assert!(s.virtual_loss() > 0);
        largest = largest.max(leaves.len());
        for e in UniformEvaluator.evaluate(&leaves) {
            s.provide(e).unwrap();
        }
        assert_eq!(s.virtual_loss(), 0, "virtual loss left after a batch");
        assert_eq!(
            s.provide(UniformEvaluator.evaluate(&leaves[..1]).remove(0)),
            Err(SearchError::NothingPending)
        );
    }
}

#[test]
fn batches_of_one_search_exactly_as_leaf_by_leaf() {
    let positions = random_positions(Position::new(), 2, 21);
    for (i, pos) in positions.iter().step_by(9).enumerate() {
        for gumbel in [false, true] {
            // Noise on: the randomness must be drawn alike too.
            let cfg = SearchConfig {
                simulations: 40,
                gumbel,
                gumbel_m: 8,
                ..SearchConfig::default()
            };
            let mut alone = Search::new(*pos, cfg.clone(), i as u64).unwrap();
            let mut batched = Search::new(*pos, cfg, i as u64).unwrap();
            for _ in 0..3 {
                alone.run(&mut UniformEvaluator).unwrap();
                batched.run_batched(&mut UniformEvaluator, 1).unwrap();
                let (a, b) = (alone.result(), batched.result());
                assert_eq!(a, b, "position {i}, gumbel {gumbel}");
                if alone.advance(a.action).is_err() || alone.position().is_over() {
                    break;
                }
                batched.advance(b.action).unwrap();
            }
        }
    }
}

#[test]
fn batched_searches_spend_the_budget_and_take_back_virtual_loss() {
    let all = random_positions(Position::new(), 3, 22);
    for (i, pos) in all.iter().step_by(5).enumerate() {
        for (gumbel, k) in [(false, 4), (false, 7), (true, 4)] {
            let cfg = SearchConfig {
                simulations: 48,
                gumbel,
                gumbel_m: 8,
                ..SearchConfig::default()
            };
            let mut s = Search::new(*pos, cfg, i as u64).unwrap();
            let largest = run_in_batches(&mut s, k);
            let r = s.result();
            check_result(pos, &r);
            if r.forced {
                assert_eq!(r.simulations, 0);
                continue;
            }
            // Collisions are dropped, not counted: the budget is spent
            // exactly, one visit of a root child per descent.
            assert_eq!(r.simulations, 48, "position {i}");
            assert_eq!(r.visits.iter().sum::<u32>(), 48);
            assert_eq!(
                s.root_visits(),
                49,
                "48 descents and the root's own evaluation"
            );
            if pos.legal_action_count() > 2 * k {
                assert!(
                    largest > 1,
                    "position {i}: no batch gathered more than one leaf"
                );
            }
        }
    }
}

#[test]
fn batched_searches_find_the_winning_move() {
    for pos in &blitz_wins_in_one() {
        for (cfg, k) in [(puct(400), 4), (puct(400), 8), (gumbel(600), 4)] {
            let mut s = Search::new(*pos, cfg.clone(), 1).unwrap();
            run_in_batches(&mut s, k);
            let r = s.result();
            assert_eq!(
                effect(pos, r.action),
                Effect::Wins,
                "batches of {k} played {} in\n{pos}",
                r.action
            );
            // Descents into the win end in a finished game, backed up at
            // once within a batch. (Gumbel's root mean also averages the
            // actions sampled only to be dropped: the played policy's value
            // is the win's.)
            let value = if cfg.gumbel { r.policy_wdl } else { r.root_wdl };
            let [win, _, loss] = value.unwrap();
            assert!(win - loss > 0.5, "batches of {k}: value {value:?}");
        }
    }
}

#[test]
fn batched_searches_avoid_handing_over_a_win() {
    for pos in &blitz_blunders() {
        let mut s = Search::new(*pos, puct(400), 2).unwrap();
        run_in_batches(&mut s, 4);
        let r = s.result();
        assert_ne!(
            effect(pos, r.action),
            Effect::Loses,
            "{} in\n{pos}",
            r.action
        );
    }
}

#[test]
fn collisions_end_a_batch_early_without_counting() {
    let pos = random_positions(Position::new(), 30, 23)
        .into_iter()
        .find(|p| p.legal_action_count() == 2)
        .expect("random games have two-option decisions");
    let mut s = Search::new(pos, puct(30), 3).unwrap();
    let mut sizes = Vec::new();
    loop {
        let leaves = s.next_leaves(8);
        if leaves.is_empty() {
            break;
        }
        sizes.push(leaves.len());
        for e in UniformEvaluator.evaluate(&leaves) {
            s.provide(e).unwrap();
        }
        assert_eq!(s.virtual_loss(), 0);
    }
    // The root is evaluated alone; then its two children are the only
    // leaves until they are expanded, and every further descent collides.
    assert_eq!(sizes[0], 1, "{sizes:?}");
    assert!(sizes[1] <= 2, "{sizes:?}");
    let r = s.result();
    assert_eq!(r.simulations, 30);
    assert_eq!(r.visits.iter().sum::<u32>(), 30);
}

#[test]
fn advancing_with_leaves_waiting_takes_back_their_virtual_loss() {
    let pos = random_positions(Position::new(), 1, 8)[30];
    let mut s = Search::new(pos, puct(200), 4).unwrap();
    s.run_batched(&mut UniformEvaluator, 4).unwrap();
    let r = s.result();
    s.advance(r.action).unwrap();
    // Half a search, then the move is played with a batch still out.
    let mut waiting = s.next_leaves(4);
    while waiting.len() < 2 {
        for e in UniformEvaluator.evaluate(&waiting) {
            s.provide(e).unwrap();
        }
        waiting = s.next_leaves(4);
    }
    let kept = s.result();
    s.advance(kept.action).unwrap();
    assert_eq!(s.virtual_loss(), 0);
    if !s.is_done() {
        s.run_batched(&mut UniformEvaluator, 4).unwrap();
        assert_eq!(s.virtual_loss(), 0);
        check_result(s.position(), &s.result());
    }
}

#[test]
fn bench_one_game_gathers_batches() {
    let cfg = puct(32);
    let one =
        yinsh_zero::mcts::bench_one_game(&Position::new(), 0.1, &cfg, 1, 0, &mut UniformEvaluator);
    let four =
        yinsh_zero::mcts::bench_one_game(&Position::new(), 0.1, &cfg, 4, 0, &mut UniformEvaluator);
    assert!(one.simulations > 0 && four.simulations > 0);
    assert_eq!(one.mean_leaves_per_call, 1.0);
    assert!(four.mean_leaves_per_call > 1.5, "{four:?}");
}

#[test]
fn lcb_keeps_the_win_and_plays_only_well_visited_actions() {
    let lcb = |sims| SearchConfig {
        lcb_z: 3.0,
        ..puct(sims)
    };
    // A certain win has no spread: its bound is its value, the highest.
    for pos in &blitz_wins_in_one() {
        let r = run(pos, &lcb(400), 1);
        assert_eq!(
            effect(pos, r.action),
            Effect::Wins,
            "LCB played {} in\n{pos}",
            r.action
        );
    }
    let mut differs = 0;
    for pos in random_positions(Position::blitz(), 3, 11).iter().step_by(3) {
        let with = run(pos, &lcb(200), 2);
        check_result(pos, &with);
        let most = *with.visits.iter().max().unwrap();
        let k = with.actions.iter().position(|&a| a == with.action).unwrap();
        assert!(
            with.visits[k] * 10 >= most,
            "{} visits of {most}",
            with.visits[k]
        );
        // Its targets are the search's, whichever action it plays.
        let by_visits = SearchConfig {
            lcb_z: 0.0,
            ..puct(200)
        };
        let without = run(pos, &by_visits, 2);
        assert_eq!(with.visits, without.visits);
        assert_eq!(with.policy, without.policy);
        differs += usize::from(with.action != without.action);
    }
    // The bound is a different rule, not the same one: somewhere it plays
    // another action than the most visited.
    assert!(differs > 0, "LCB always played the most visited action");
}

#[test]
fn a_discount_shrinks_a_backed_up_value_once_per_decision() {
    use yinsh_zero::games::connect4::Position as Board;
    use yinsh_zero::mcts::tree::{Scoring, Tree};
    let pos = Board::from_moves("44").unwrap();
    for discount in [1.0f32, 0.9] {
        let scoring = Scoring {
            discount,
            ..Scoring::default()
        };
        let mut tree = Tree::with_root(pos, scoring);
        // Root, one child, one grandchild: two decisions, players alternating.
        let mut path = vec![0];
        for _ in 0..2 {
            let id = *path.last().unwrap();
            let p = tree.node(id).pos;
            let actions = p.legal_actions();
            let priors = vec![1.0 / actions.len() as f32; actions.len()];
            tree.expand(id, &actions, &priors, [0.0, 1.0, 0.0], 0.0);
            let e = tree.edge_range(id).start;
            path.push(tree.child(id, e));
        }
        let leaf = *path.last().unwrap();
        let leaf_view = tree.node(leaf).view;
        // A win for the grandchild's player to act.
        tree.backup(&path, [1.0, 0.0, 0.0], 0.0, leaf_view);
        let g = discount;
        let want = [
            [g * g, 1.0 - g * g, 0.0], // the root: the same player, two decisions up
            [0.0, 1.0 - g, g],         // the child: the other player, one up
            [1.0, 0.0, 0.0],           // the leaf itself
        ];
        for (&id, want) in path.iter().zip(want) {
            let got = tree.node(id).wdl().unwrap();
            for (x, y) in got.iter().zip(want) {
                assert!(
                    (x - y).abs() < 1e-6,
                    "discount {discount}: {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn a_score_weight_adds_the_margin_to_the_value_from_each_players_view() {
    use yinsh_zero::games::connect4::Position as Board;
    use yinsh_zero::mcts::tree::{Scoring, Tree};
    let pos = Board::from_moves("44").unwrap();
    let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
    for weight in [0.0f32, 0.5] {
        let scoring = Scoring {
            score_weight: weight,
            ..Scoring::default()
        };
        let mut tree = Tree::with_root(pos, scoring);
        let root_view = tree.node(0).view;
        let actions = pos.legal_actions();
        let priors = vec![1.0 / actions.len() as f32; actions.len()];
        // The root: even chances, a small lead in margin for its player.
        tree.expand(0, &actions, &priors, [0.0, 1.0, 0.0], 0.2);
        tree.backup(&[0], [0.0, 1.0, 0.0], 0.2, root_view);
        assert!(close(tree.q(0, root_view).unwrap(), weight * 0.2));
        // A child the other player wins by a wide margin.
        let e = tree.edge_range(0).start;
        let c = tree.child(0, e);
        let view = tree.node(c).view;
        assert_ne!(view, root_view);
        let p = tree.node(c).pos;
        let acts = p.legal_actions();
        let pri = vec![1.0 / acts.len() as f32; acts.len()];
        tree.expand(c, &acts, &pri, [1.0, 0.0, 0.0], 0.6);
        tree.backup(&[0, c], [1.0, 0.0, 0.0], 0.6, view);
        assert!(close(tree.raw_q(c).unwrap(), 1.0 + weight * 0.6));
        assert!(close(tree.q(c, view).unwrap(), 1.0 + weight * 0.6));
        assert!(close(tree.q(c, root_view).unwrap(), -1.0 - weight * 0.6));
        // The root's mean: a draw and a loss, margins 0.2 and -0.6.
        let want = (-1.0 + weight * (0.2 - 0.6)) / 2.0;
        assert!(
            close(tree.q(0, root_view).unwrap(), want),
            "weight {weight}"
        );
        assert!(close(tree.node(0).margin().unwrap(), -0.2));
        // The win/draw/loss is what it was without a weight.
        assert_eq!(tree.node(0).wdl().unwrap(), [0.0, 0.5, 0.5]);
    }
}

#[test]
fn a_score_threshold_weighs_the_margin_only_where_the_result_is_settled() {
    use yinsh_zero::games::connect4::Position as Board;
    use yinsh_zero::mcts::tree::{Scoring, Tree};
    let pos = Board::from_moves("44").unwrap();
    let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
    let scoring = Scoring {
        score_weight: 2.0,
        score_threshold: 0.5,
        ..Scoring::default()
    };
    let mut tree = Tree::with_root(pos, scoring);
    let view = tree.node(0).view;
    // The weight beside a result: none up to the threshold, then rising
    // linearly to the full weight at a certain result, for either side.
    for (outcome, weight) in [
        (0.0, 0.0),
        (0.5, 0.0),
        (-0.5, 0.0),
        (0.75, 1.0),
        (-1.0, 2.0),
    ] {
        assert!(close(tree.margin_weight(outcome), weight), "{outcome}");
    }
    // A finished game's value is what the plain weight gives it, so what
    // a solver proves is unchanged by the threshold.
    assert!(close(
        tree.utility([1.0, 0.0, 0.0], 0.3, view),
        1.0 + 2.0 * 0.3
    ));
    assert!(close(
        tree.utility([0.0, 0.0, 1.0], -0.3, view),
        -1.0 - 2.0 * 0.3
    ));
    let actions = pos.legal_actions();
    let priors = vec![1.0 / actions.len() as f32; actions.len()];
    tree.expand(0, &actions, &priors, [0.5, 0.0, 0.5], 0.4);
    // Two visits, a win and a loss with margins 0.6 and 0.2: the mean
    // result is even, so the mean margin (0.4) counts for nothing.
    tree.backup(&[0], [1.0, 0.0, 0.0], 0.6, view);
    tree.backup(&[0], [0.0, 0.0, 1.0], 0.2, view);
    assert!(close(tree.q(0, view).unwrap(), 0.0));
    // Six more wins: the mean result is 0.75, weighing the mean margin
    // at half the weight.
    for _ in 0..6 {
        tree.backup(&[0], [1.0, 0.0, 0.0], 0.4, view);
    }
    let (outcome, margin) = (0.75, 0.4);
    assert!(close(tree.q(0, view).unwrap(), outcome + 1.0 * margin));
    // Seen from the other player, the same value negated.
    let first = tree.edge_range(0).start;
    let child = tree.child(0, first);
    let other = tree.node(child).view;
    assert_ne!(other, view);
    assert!(close(tree.q(0, other).unwrap(), -(outcome + margin)));
    // Without a threshold the margin weighs fully everywhere, as before.
    let plain = Tree::with_root(
        pos,
        Scoring {
            score_threshold: 0.0,
            ..scoring
        },
    );
    assert!(close(plain.margin_weight(0.0), 2.0));
}

/// Every position won by White, by a margin of nothing.
struct WhiteWinsWithoutMargin;

impl<S: State> Evaluator<S> for WhiteWinsWithoutMargin {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_action_count();
                let wdl = if p.to_act() == yinsh_zero::game::Color::White {
                    [1.0, 0.0, 0.0]
                } else {
                    [0.0, 0.0, 1.0]
                };
                Evaluation {
                    priors: vec![1.0 / n as f32; n],
                    wdl,
                    margin: 0.0,
                }
            })
            .collect()
    }
}

#[test]
fn a_terminal_nodes_exact_margin_draws_the_search_to_the_sooner_win() {
    // White to act wins at once in column 1, with its fourth stone (margin
    // 1), and Black has no threat; the evaluator calls every other move a
    // win too, with margin 0.
    // Without a score weight all seven are worth the same and the visits
    // follow the even priors; with one the sooner win draws them.
    use yinsh_zero::games::connect4::Position as Board;
    let pos = Board::from_moves("121712").unwrap();
    let share_gated = |weight: f32, threshold: f32| {
        let cfg = SearchConfig {
            simulations: 700,
            score_weight: weight,
            score_threshold: threshold,
            ..SearchConfig::for_play()
        };
        let mut search = Search::new(pos, cfg, 1).unwrap();
        search.run(&mut WhiteWinsWithoutMargin).unwrap();
        let r = search.result();
        let at = r.actions.iter().position(|a| a.to_string() == "1").unwrap();
        r.visits[at] as f32 / r.visits.iter().sum::<u32>() as f32
    };
    let share = |weight: f32| share_gated(weight, 0.0);
    let (plain, weighted) = (share(0.0), share(1.0));
    // Every result here is certain, so a threshold leaves the weight whole.
    let gated = share_gated(1.0, 0.5);
    assert!(
        gated > 0.6,
        "with a threshold column 1 got {gated} of the visits"
    );
    assert!(
        plain < 0.3,
        "without a weight column 1 got {plain} of the visits"
    );
    assert!(
        weighted > 0.6,
        "with a weight column 1 got {weighted} of the visits"
    );
}

/// Every position a draw, with most of the prior on the first legal action.
struct FavoursTheFirst;

impl<S: State> Evaluator<S> for FavoursTheFirst {
    fn evaluate(&mut self, positions: &[S]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_action_count();
                let mut priors = vec![0.2 / (n - 1).max(1) as f32; n];
                priors[0] = 0.8;
                Evaluation {
                    priors,
                    wdl: [0.0, 1.0, 0.0],
                    margin: 0.0,
                }
            })
            .collect()
    }
}

#[test]
fn a_policy_temperature_spreads_or_sharpens_the_visits() {
    // Every value equal, so PUCT's visits follow the priors alone: the
    // first action's share of them is what the temperature made of its 0.8.
    use yinsh_zero::games::connect4::Position as Board;
    let pos = Board::from_moves("44").unwrap();
    let first_share = |t: f32| {
        let cfg = SearchConfig {
            simulations: 400,
            policy_temperature: t,
            fpu_reduction: 0.0,
            lcb_z: 0.0,
            ..SearchConfig::for_play()
        };
        let r = search(
            &pos,
            &cfg,
            &mut FavoursTheFirst,
            &mut SmallRng::seed_from_u64(1),
        )
        .unwrap();
        r.visits[0] as f32 / r.visits.iter().sum::<u32>() as f32
    };
    let (sharp, trained, flat) = (first_share(0.5), first_share(1.0), first_share(3.0));
    // At T = 1 the share is about the prior; 0.8^2 against 6 x (0.2/6)^2
    // is 0.99 at T = 0.5; 0.8^(1/3) against 6 x (0.2/6)^(1/3) is 0.24 at 3.
    assert!((trained - 0.8).abs() < 0.1, "T = 1: {trained}");
    assert!(sharp > 0.95, "T = 0.5: {sharp}");
    assert!((flat - 0.24).abs() < 0.1, "T = 3: {flat}");
    // Outside 0.1 to 10 the config is refused.
    for t in [0.0, 0.05, 11.0, f32::NAN] {
        let cfg = SearchConfig {
            policy_temperature: t,
            ..SearchConfig::for_play()
        };
        assert!(cfg.validate().is_err(), "{t}");
    }
}

/// A network sure of one move: 90% of the prior on the first legal action,
/// the rest spread evenly, every position a draw.
struct Peaked;

impl Evaluator<Position> for Peaked {
    fn evaluate(&mut self, positions: &[Position]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|p| {
                let n = p.legal_actions().len();
                let mut priors = vec![0.1 / (n - 1).max(1) as f32; n];
                priors[0] = if n == 1 { 1.0 } else { 0.9 };
                Evaluation {
                    priors,
                    wdl: [0.0, 1.0, 0.0],
                    margin: 0.0,
                }
            })
            .collect()
    }
}

/// Self-play PUCT whose root priors are the network's (noise on, at weight
/// 0), so the visits forced playouts owe each child are known.
fn forcing(k: f32, temperature: f32) -> SearchConfig {
    SearchConfig {
        simulations: 200,
        gumbel: false,
        noise: true,
        noise_fraction: 0.0,
        temperature,
        final_temperature: temperature,
        forced_playouts: k,
        ..SearchConfig::default()
    }
}

fn peaked_search(cfg: SearchConfig, seed: u64) -> SearchResult<Action> {
    let mut rng = SmallRng::seed_from_u64(seed);
    search(&Position::new(), &cfg, &mut Peaked, &mut rng).unwrap()
}

#[test]
fn forced_playouts_measure_every_move_the_root_may_play() {
    // Without forcing, PUCT spends 200 descents on the move the network is
    // sure of; the 84 others (prior 0.0012 each) get none.
    let plain = peaked_search(forcing(0.0, 0.0), 1);
    assert!(
        plain.visits[1..].iter().all(|&v| v == 0),
        "{:?}",
        plain.visits
    );
    // With k = 2 each is owed sqrt(2 * 0.0012 * 200) = 0.69 visits: one.
    let forced = peaked_search(forcing(2.0, 0.0), 1);
    let total: u32 = forced.visits.iter().sum();
    for (i, &v) in forced.visits.iter().enumerate() {
        let prior = if i == 0 { 0.9 } else { 0.1 / 84.0 };
        let owed = (2.0 * prior * total as f32).sqrt();
        assert!(
            v as f32 + 1.0 >= owed,
            "child {i}: {v} visits of {owed:.2} owed"
        );
        assert!(v >= 1, "child {i} never measured");
    }
    assert_eq!(forced.simulations, 200);
}

#[test]
fn policy_target_pruning_takes_forced_visits_back_out() {
    let plain = peaked_search(forcing(0.0, 0.0), 1);
    let total: u32 = plain.visits.iter().sum();
    for (p, &v) in plain.policy.iter().zip(&plain.visits) {
        assert!((p - v as f32 / total as f32).abs() < 1e-6);
    }
    // The forced visits were all that the 84 unlikely moves got, and none
    // of them is worth more than the favourite: the target is the
    // favourite's alone, though every move has visits.
    let forced = peaked_search(forcing(2.0, 0.0), 1);
    check_result(&Position::new(), &forced);
    assert!(forced.visits.iter().all(|&v| v >= 1));
    assert_eq!(forced.policy[0], 1.0);
    assert!(forced.policy[1..].iter().all(|&p| p == 0.0));
}

#[test]
fn forced_visits_never_decide_the_move() {
    // At temperature 1 a move is sampled in proportion to its visits. The
    // forced single visits hold over a fifth of them, so sampling the raw
    // visits would play one of the unlikely moves about once in five seeds
    // (24 seeds all missing: under 0.8^24, 0.5%); pruned, never.
    for seed in 0..24 {
        let r = peaked_search(forcing(2.0, 1.0), seed);
        let total: u32 = r.visits.iter().sum();
        assert!(5 * (total - r.visits[0]) > total, "{:?}", r.visits);
        assert_eq!(
            r.action, r.actions[0],
            "seed {seed}: a forced visit was played"
        );
    }
}

#[test]
fn forced_playouts_are_refused_where_they_cannot_act() {
    let with_gumbel = SearchConfig {
        gumbel: true,
        forced_playouts: 2.0,
        ..SearchConfig::default()
    };
    let negative = SearchConfig {
        forced_playouts: -1.0,
        ..SearchConfig::default()
    };
    for cfg in [with_gumbel, negative] {
        assert!(matches!(
            cfg.validate(),
            Err(SearchError::InvalidConfig {
                field: "forced_playouts",
                ..
            })
        ));
    }
    // In play (no noise) the key changes nothing.
    let play = SearchConfig {
        forced_playouts: 2.0,
        simulations: 200,
        ..SearchConfig::for_play()
    };
    let mut rng = SmallRng::seed_from_u64(3);
    let r = search(&Position::new(), &play, &mut Peaked, &mut rng).unwrap();
    assert!(r.visits[1..].iter().all(|&v| v == 0));
}
