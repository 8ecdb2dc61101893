//! The network made symmetric by averaging over the 12 board symmetries
//! gives transformed outputs for transformed positions. A raw network is
//! not symmetric (its weights are not tied), so this checks what the
//! averaging relies on: the encoding, the dense action index and the
//! symmetry tables agree with each other.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yinsh_zero::evaluator::Evaluator;
use yinsh_zero::game::Game;
use yinsh_zero::nn::{InferenceOptions, ModelConfig, NetEvaluator, default_device};
use yinsh_zero::yinsh::symmetry::Symmetry;
use yinsh_zero::yinsh::{Action, Position, Yinsh};

const GAME: Yinsh = Yinsh::standard();

/// Priors (keyed by action) and WDL averaged over all symmetries.
fn averaged(ev: &mut NetEvaluator<Yinsh>, pos: &Position) -> (Vec<(Action, f32)>, [f32; 3]) {
    let legal = pos.legal_actions();
    let mut priors = vec![0.0f32; legal.len()];
    let mut wdl = [0.0f32; 3];
    for t in Symmetry::ALL {
        let tp = t.position(pos);
        let e = ev.evaluate(&[tp]).pop().unwrap();
        let tl = tp.legal_actions();
        for (i, &a) in legal.iter().enumerate() {
            let j = tl
                .iter()
                .position(|&b| b == t.action(a))
                .expect("transformed action is legal");
            priors[i] += e.priors[j] / 12.0;
        }
        for (w, e) in wdl.iter_mut().zip(e.wdl) {
            *w += e / 12.0;
        }
    }
    (legal.iter().copied().zip(priors).collect(), wdl)
}

#[test]
fn symmetrised_network_outputs_transform_with_the_board() {
    let device = default_device();
    let model = ModelConfig::new()
        .with_blocks(1)
        .with_channels(8)
        .init(&GAME.net_shape(), &device);
    let mut ev = NetEvaluator::new(
        GAME,
        model,
        device,
        InferenceOptions {
            cache_capacity: 0,
            ..InferenceOptions::default()
        },
    )
    .unwrap();
    let mut rng = SmallRng::seed_from_u64(3);
    let mut checked = 0;
    for game in 0..4 {
        let mut pos = if game % 2 == 0 {
            Position::new()
        } else {
            Position::blitz()
        };
        for ply in 0.. {
            if pos.is_over() {
                break;
            }
            if ply % 9 == 4 {
                let (p0, w0) = averaged(&mut ev, &pos);
                for s in [Symmetry::ALL[1], Symmetry::ALL[4], Symmetry::ALL[7]] {
                    let (p1, w1) = averaged(&mut ev, &s.position(&pos));
                    for (a, p) in &p0 {
                        let q = p1.iter().find(|(b, _)| *b == s.action(*a)).unwrap().1;
                        assert!((p - q).abs() < 1e-4, "{a}: {p} vs {q}");
                    }
                    for k in 0..3 {
                        assert!((w0[k] - w1[k]).abs() < 1e-4);
                    }
                    checked += 1;
                }
            }
            let l = pos.legal_actions();
            pos.play_unchecked(l[rng.random_range(0..l.len())]);
        }
    }
    assert!(checked > 10);
}
