//! What the `Game` and `State` traits promise, checked on the positions of
//! seeded random games: the essential checks of the library's conformance
//! suite, written again here (the suite is yinsh-zero's own test code,
//! which an outside crate cannot import).

use std::collections::BTreeSet;

use othello::{CELLS, Othello, Position};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::game::{Color, Game, State};
use yinsh_zero::replay::record::{self, RecordFile, RecordMeta, Sample};

/// Every position of `games` seeded random games, and their actions.
fn random_games(games: usize, seed: u64) -> Vec<(Vec<Position>, Vec<othello::Move>)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..games)
        .map(|_| {
            let mut pos = Othello.start();
            let (mut seen, mut actions) = (vec![pos], Vec::new());
            while !pos.is_over() {
                let legal = pos.legal_actions();
                let m = legal[rng.random_range(0..legal.len())];
                pos.play(m).unwrap();
                seen.push(pos);
                actions.push(m);
            }
            (seen, actions)
        })
        .collect()
}

fn positions(games: usize, seed: u64) -> Vec<Position> {
    random_games(games, seed)
        .into_iter()
        .flat_map(|(p, _)| p)
        .collect()
}

#[test]
fn the_eight_symmetries_permute_the_actions_and_commute_with_play() {
    let game = Othello;
    let n = game.symmetries();
    assert_eq!(n, 8);
    let space = game.net_shape().action_space();
    let maps: Vec<Vec<usize>> = (0..n)
        .map(|k| (0..space).map(|i| game.transform_index(i, k)).collect())
        .collect();
    assert!(maps[0].iter().enumerate().all(|(i, &j)| i == j));
    for map in &maps {
        assert_eq!(map.iter().copied().collect::<BTreeSet<_>>().len(), space);
        assert_eq!(map[CELLS], CELLS, "the pass stays");
    }
    assert_eq!(maps.iter().collect::<BTreeSet<_>>().len(), n, "all differ");
    let inverse: Vec<usize> = (0..n)
        .map(|k| {
            (0..n)
                .find(|&j| (0..space).all(|i| maps[j][maps[k][i]] == i))
                .unwrap()
        })
        .collect();

    let shape = game.net_shape();
    let (mut e, mut et) = (vec![0.0; shape.input_size()], vec![0.0; shape.input_size()]);
    for s in positions(6, 31) {
        game.encode(&s, &mut e);
        for k in 0..n {
            let t = game.transform(&s, k);
            assert_eq!(game.transform(&t, inverse[k]), s, "round trip {k}\n{s}");
            assert_eq!(
                (t.result(), t.to_act(), t.ply()),
                (s.result(), s.to_act(), s.ply())
            );
            let mapped: BTreeSet<usize> = s
                .legal_actions()
                .iter()
                .map(|&a| maps[k][game.action_index(a)])
                .collect();
            let image: BTreeSet<usize> = t
                .legal_actions()
                .iter()
                .map(|&a| game.action_index(a))
                .collect();
            assert_eq!(mapped, image, "symmetry {k}\n{s}");
            for &a in s.legal_actions().iter() {
                let ta = game
                    .action_from_index(maps[k][game.action_index(a)])
                    .unwrap();
                let (mut after, mut image_after) = (s, t);
                after.play_unchecked(a);
                image_after.play(ta).unwrap();
                assert_eq!(game.transform(&after, k), image_after, "{a} under {k}\n{s}");
            }
            game.encode(&t, &mut et);
            for plane in 0..shape.planes {
                for (c, &to) in maps[k][..CELLS].iter().enumerate() {
                    let (from, to) = (plane * CELLS + c, plane * CELLS + to);
                    assert_eq!(et[to], e[from], "plane {plane} square {c} under {k}\n{s}");
                }
            }
        }
    }
}

#[test]
fn the_encoding_fills_its_planes_and_nothing_else() {
    let game = Othello;
    let shape = game.net_shape();
    assert_eq!((shape.planes, shape.height, shape.width), (5, 6, 6));
    assert_eq!(shape.action_space(), 37);
    assert_eq!(game.tensor_layout().planes.len(), shape.planes);
    let size = shape.input_size();
    for s in positions(4, 32) {
        let (mut a, mut b) = (vec![f32::NAN; size + 8], vec![7.5; size + 8]);
        game.encode(&s, &mut a);
        game.encode(&s, &mut b);
        assert_eq!(
            a[..size],
            b[..size],
            "the encoding depends on the buffer\n{s}"
        );
        assert!(a[..size].iter().all(|&x| x == 0.0 || x == 1.0));
        assert!(a[size..].iter().all(|x| x.is_nan()) && b[size..].iter().all(|&x| x == 7.5));
        // Own discs first: the player to act's.
        let own = s.discs(s.to_act());
        assert!((0..CELLS).all(|i| (a[i] == 1.0) == (own >> i & 1 == 1)));
        let mut seen = BTreeSet::new();
        for &m in s.legal_actions().iter() {
            let i = game.action_index(m);
            assert!(i < shape.action_space() && seen.insert(i));
            assert_eq!(game.action_from_index(i), Some(m));
            assert!(s.is_legal(m));
            // The legal-move plane marks the squares played.
            assert!(i == CELLS || a[2 * CELLS + i] == 1.0);
        }
    }
}

#[test]
fn notation_reads_back_every_legal_action_and_whole_games() {
    let game = Othello;
    for (seen, actions) in random_games(4, 33) {
        for s in &seen {
            for &m in s.legal_actions().iter() {
                assert_eq!(game.parse_action(s, &m.to_string()), Ok(m), "\n{s}");
            }
        }
        let text = game.format_game(&seen[0], &actions);
        assert_eq!(game.parse_game(&seen[0], &text), Ok(actions));
    }
}

#[test]
fn positions_and_record_files_read_back() {
    let game = Othello;
    let dir = tempfile::tempdir().unwrap();
    for (g, (seen, _)) in random_games(4, 34).into_iter().enumerate() {
        for s in &seen {
            let mut bytes = Vec::new();
            game.write_state(s, &mut bytes);
            let back = game.read_state(&bytes).unwrap();
            assert_eq!((back, back.key()), (*s, s.key()));
        }
        let last = *seen.last().unwrap();
        let result = last.result().unwrap();
        let samples: Vec<Sample> = seen[..seen.len() - 1]
            .iter()
            .map(|s| {
                let legal = s.legal_actions();
                let p = 1.0 / legal.len() as f32;
                let policy = legal
                    .iter()
                    .map(|&m| (game.action_index(m) as u32, p))
                    .collect();
                let me = s.to_act();
                let left = last.ply() - s.ply();
                Sample::new(
                    &game,
                    s,
                    policy,
                    result.score_for(me),
                    last.margin(me),
                    left,
                )
            })
            .collect();
        let file = RecordFile {
            meta: RecordMeta {
                game: Othello::NAME.into(),
                variant: game.variant().into(),
                generation: g as u64,
                games: 1,
                producer: "othello tests".into(),
            },
            samples,
        };
        let path = dir.path().join(format!("{g}.rec"));
        record::write(&path, &file).unwrap();
        assert_eq!(record::read(&game, &path).unwrap(), file);
    }
}

#[test]
fn record_bytes_that_play_cannot_reach_are_refused() {
    let game = Othello;
    let bytes = |black: u64, white: u64, ply: u8| {
        let mut b = black.to_le_bytes().to_vec();
        b.extend_from_slice(&white.to_le_bytes());
        b.push(ply);
        b
    };
    let start = Othello.start();
    let (black, white) = (start.discs(Color::Black), start.discs(Color::White));
    assert_eq!(game.read_state(&bytes(black, white, 0)), Ok(start));
    for (b, why) in [
        (bytes(black, white, 0)[..16].to_vec(), "takes 17 bytes"),
        (bytes(black | 1 << 40, white, 0), "off the 6x6 board"),
        (bytes(black | white, white, 0), "a black and a white disc"),
        (
            bytes(black & !(1 << 15), white, 0),
            "centre square is empty",
        ),
        (bytes(black | 1, white, 0), "cannot have placed 1 discs"),
        (bytes(black | 1, white, 3), "cannot have placed 1 discs"),
    ] {
        let e = game.read_state(&b).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
    assert!(
        Othello::with_variant("8x8")
            .unwrap_err()
            .contains("known: 6x6")
    );
    assert_eq!(Othello::with_variant("6x6"), Ok(Othello));
}
