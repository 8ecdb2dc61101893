//! Players, games and matches through the public API.

use std::collections::HashSet;

use yinsh_zero::arena::{MatchConfig, PlayError, Player, RandomPlayer, play_game, play_match};
use yinsh_zero::games::yinsh::{Action, Decision, Position, Variant, Yinsh, parse_player};
use yinsh_zero::util::sub_seed;

/// Wraps a player, checks every choice with `is_legal` before the game sees
/// it, and notes which kinds of decision it was asked.
struct Checked {
    inner: Box<dyn Player<Position>>,
    decisions: HashSet<Decision>,
    illegal: Vec<String>,
    observed: usize,
}

impl Checked {
    fn new(inner: Box<dyn Player<Position>>) -> Checked {
        Checked {
            inner,
            decisions: HashSet::new(),
            illegal: Vec::new(),
            observed: 0,
        }
    }
}

impl Player<Position> for Checked {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn choose(&mut self, pos: &Position) -> Action {
        let a = self.inner.choose(pos);
        self.decisions.insert(pos.decision());
        if !pos.is_legal(a) || !pos.legal_actions().contains(&a) {
            self.illegal
                .push(format!("{} chose {a} in\n{pos}", self.name()));
        }
        a
    }
    fn new_game(&mut self, start: &Position) {
        self.observed = 0;
        self.inner.new_game(start);
    }
    fn observe(&mut self, pos_before: &Position, action: Action) {
        self.observed += 1;
        self.inner.observe(pos_before, action);
    }
}

#[test]
fn random_and_greedy_only_play_legal_actions() {
    let mut seen = HashSet::new();
    for (variant, games) in [(Variant::STANDARD, 40u64), (Variant::BLITZ, 60)] {
        for g in 0..games {
            let specs = ["random", "greedy", "greedy:threats=false"];
            let w = specs[g as usize % 3];
            let b = specs[(g as usize / 3) % 3];
            let mut white = Checked::new(parse_player(w, sub_seed(g, 0)).unwrap());
            let mut black = Checked::new(parse_player(b, sub_seed(g, 1)).unwrap());
            let rec = play_game(&mut white, &mut black, Position::with_variant(variant))
                .unwrap_or_else(|e| panic!("{w} vs {b}: {e}"));
            for p in [&white, &black] {
                assert!(p.illegal.is_empty(), "{}", p.illegal.join("\n"));
                assert_eq!(p.observed, rec.actions.len(), "every action is observed");
                seen.extend(p.decisions.iter().copied());
            }
            let end = rec.final_position();
            assert!(end.is_over());
            assert_eq!(end.outcome().map(|o| o.winner), Some(rec.result.winner()));
            assert!(end.turn() <= 81);
        }
    }
    for d in [
        Decision::PlaceRing,
        Decision::MoveRing,
        Decision::RemoveRow,
        Decision::RemoveRing,
    ] {
        assert!(seen.contains(&d), "no {d:?} decision was ever asked");
    }
}

/// Always passes: illegal except when no ring can move.
struct Passer;

impl Player<Position> for Passer {
    fn name(&self) -> String {
        "passer".into()
    }
    fn choose(&mut self, _: &Position) -> Action {
        Action::Pass
    }
}

#[test]
fn an_illegal_choice_stops_the_game_with_a_clear_error() {
    let err = play_game(&mut Passer, &mut RandomPlayer::new(1), Position::new()).unwrap_err();
    let PlayError::IllegalAction {
        player,
        step,
        action,
        ..
    } = &err
    else {
        panic!("expected an illegal action, got {err}");
    };
    assert_eq!(
        (player.as_str(), *step, action.as_str()),
        ("passer", 0, "pass")
    );
    let msg = err.to_string();
    assert!(msg.contains("white must place a ring now"), "{msg}");
}

#[test]
fn greedy_beats_random_in_both_colours() {
    // Measured with seed 2024: greedy scores about 99% as White and as
    // Black; 75% leaves room for any reasonable change of seed.
    let as_white = play_match(&MatchConfig::new(
        Yinsh::standard(),
        "greedy",
        "random",
        100,
        2024,
    ))
    .unwrap();
    let as_black = play_match(&MatchConfig::new(
        Yinsh::standard(),
        "random",
        "greedy",
        100,
        2025,
    ))
    .unwrap();
    let greedy_white = as_white.first_total.score();
    let greedy_black = as_black.second_total.score();
    assert!(
        greedy_white >= 0.75,
        "greedy as white scored {greedy_white}"
    );
    assert!(
        greedy_black >= 0.75,
        "greedy as black scored {greedy_black}"
    );
}

#[test]
fn matches_are_reproducible_and_independent_of_threads() {
    let mut config = MatchConfig::new(Yinsh::standard(), "greedy:threats=false", "random", 24, 99);
    config.swap = true;
    config.game = Yinsh::blitz();
    let on = |threads: usize, config: &MatchConfig<Yinsh>| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| play_match(config).unwrap())
    };
    let one = on(1, &config);
    assert_eq!(one, on(2, &config));
    assert_eq!(one, on(3, &config));
    assert_eq!(one.first_as_white.games(), 12);
    assert_eq!(one.first_as_black.games(), 12);
    assert_eq!(one.second_total, one.first_total.flipped());
    assert_eq!(one.end_reasons.values().sum::<u32>(), 24);

    config.seed = 100;
    let other = on(2, &config);
    assert_ne!(
        one.mean_actions, other.mean_actions,
        "a different seed plays different games"
    );
}

#[test]
fn players_are_reproducible_from_their_seed() {
    let game = |seed: u64| {
        let mut w = parse_player("greedy", sub_seed(seed, 0)).unwrap();
        let mut b = parse_player("random", sub_seed(seed, 1)).unwrap();
        play_game(w.as_mut(), b.as_mut(), Position::new()).unwrap()
    };
    assert_eq!(game(5), game(5));
    assert_ne!(game(5).actions, game(6).actions);
}

#[test]
fn match_rejects_bad_specs_before_playing() {
    let err = play_match(&MatchConfig::new(
        Yinsh::standard(),
        "greedy",
        "minimax",
        10,
        0,
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("second player: unknown player `minimax`"),
        "{err}"
    );
    assert!(err.contains("random, greedy"), "{err}");
}

/// The shipped network, for players that need one.
const SHIPPED: &str = "checkpoints/best";

#[test]
fn net_mcts_on_two_threads_plays_legal_games() {
    for (w, b) in [
        ("threads=2", "threads=2,batch=3"),
        ("threads=2,batch=1", "batch=4"),
    ] {
        let spec = |extra: &str| format!("net-mcts:checkpoint={SHIPPED},sims=24,{extra}");
        let mut white = Checked::new(parse_player(&spec(w), 1).unwrap());
        let mut black = Checked::new(parse_player(&spec(b), 2).unwrap());
        let rec = play_game(&mut white, &mut black, Position::blitz())
            .unwrap_or_else(|e| panic!("{w} vs {b}: {e}"));
        for p in [&white, &black] {
            assert!(p.illegal.is_empty(), "{}", p.illegal.join("\n"));
            // The last search reported what it saw.
            let info = p.inner.info();
            assert!(info.is_some(), "{} reported nothing", p.name());
        }
        assert!(rec.final_position().is_over());
    }
}

#[test]
fn net_mcts_on_one_thread_is_unchanged_by_the_new_keys() {
    // `threads=1` and `batch=1` are the defaults: the same games, move for
    // move, as the spec without them.
    let game = |extra: &str| {
        let spec = |seed| {
            parse_player(
                &format!("net-mcts:checkpoint={SHIPPED},sims=16{extra}"),
                seed,
            )
            .unwrap()
        };
        let (mut w, mut b) = (spec(3), spec(4));
        play_game(w.as_mut(), b.as_mut(), Position::blitz()).unwrap()
    };
    let plain = game("");
    assert_eq!(plain.actions, game(",threads=1").actions);
    assert_eq!(plain.actions, game(",threads=1,batch=1").actions);
}
