//! The notation and sgf parsers never panic, whatever they are fed: arbitrary
//! text, arbitrary bytes, and valid texts with characters dropped,
//! duplicated or swapped.

use proptest::prelude::*;
use yinsh_zero::games::yinsh::notation::{format_game, parse_action, parse_game, parse_turn};
use yinsh_zero::games::yinsh::sgf::parse_sgf;
use yinsh_zero::games::yinsh::{Action, Position};

const DRMIH: &str = include_str!("../data/Y-DrMih-Dumbot-2026-02-20-0858.sgf");
const PHIULBRICH: &str = include_str!("../data/Y-phiulbrich-BestBot-2026-03-21-2221.sgf");

/// A whole game in notation, from the DrMih record, and a position in its
/// middle (after the placements) to parse single turns in.
fn game_text() -> (String, Position) {
    let game = parse_sgf(DRMIH).expect("the shipped record replays");
    let start = Position::new();
    let mut mid = start;
    for &a in &game.actions[..12] {
        mid.play(a).expect("legal");
    }
    (format_game(&start, &game.actions), mid)
}

fn feed_all(text: &str) {
    let start = Position::new();
    let (_, mid) = game_text();
    for pos in [start, mid] {
        let _ = parse_action(&pos, text);
        let _ = parse_turn(&pos, text);
        let _ = parse_game(&pos, text);
    }
    let _ = parse_sgf(text);
}

#[derive(Clone, Debug)]
enum Mutation {
    Drop(usize),
    Duplicate(usize),
    Swap(usize),
    Insert(usize, char),
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        if chars.is_empty() {
            break;
        }
        let n = chars.len();
        match *m {
            Mutation::Drop(i) => {
                chars.remove(i % n);
            }
            Mutation::Duplicate(i) => chars.insert(i % n, chars[i % n]),
            Mutation::Swap(i) => chars.swap(i % n, (i + 1) % n),
            Mutation::Insert(i, c) => chars.insert(i % n, c),
        }
    }
    chars.into_iter().collect()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Drop),
        any::<usize>().prop_map(Mutation::Duplicate),
        any::<usize>().prop_map(Mutation::Swap),
        (
            any::<usize>(),
            prop::sample::select(vec![
                ';', 'x', '-', ' ', '[', ']', '(', ')', '\\', '9', 'k', 'é'
            ])
        )
            .prop_map(|(i, c)| Mutation::Insert(i, c)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        feed_all(&text);
    }

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        feed_all(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn notation_like_strings(text in "[a-kxX0-9;\\- ]{0,40}|pass|[a-k][0-9]{1,2}") {
        feed_all(&text);
    }

    #[test]
    fn mutated_notation(mutations in prop::collection::vec(mutation(), 1..6)) {
        let (game, mid) = game_text();
        let text = mutate(&game, &mutations);
        let start = Position::new();
        if let Ok(actions) = parse_game(&start, &text) {
            // Whatever still parses is a legal game that formats back.
            let again = format_game(&start, &actions);
            prop_assert_eq!(parse_game(&start, &again).ok(), Some(actions));
        }
        for token in text.split_whitespace().take(20) {
            let _ = parse_turn(&mid, token);
            let _ = parse_action(&mid, token);
        }
    }

    #[test]
    fn mutated_sgf(mutations in prop::collection::vec(mutation(), 1..6), which in any::<bool>()) {
        let text = mutate(if which { DRMIH } else { PHIULBRICH }, &mutations);
        if let Ok(game) = parse_sgf(&text) {
            // Whatever still parses replays legally.
            let mut pos = Position::with_variant(game.final_position.variant());
            for &a in &game.actions {
                prop_assert!(pos.play(a).is_ok());
            }
            prop_assert!(game.actions.iter().all(|a| *a != Action::Pass));
        }
    }
}
