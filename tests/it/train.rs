//! Gradient steps with a real (tiny) network on real self-play records.

use crate::common::blitz::{BLITZ, window};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use yinsh_zero::game::Game;
use yinsh_zero::nn::{ModelConfig, default_device};
use yinsh_zero::replay::window::ValueTarget;
use yinsh_zero::train::config::TrainConfig;
use yinsh_zero::train::{Batch, Trainer};

#[test]
fn steps_fit_a_fixed_batch_and_report_sane_metrics() {
    let w = window();
    let mut rng = SmallRng::seed_from_u64(1);
    let batch = Batch::new(
        &BLITZ,
        &w.sample(&mut rng, 32),
        ValueTarget::default(),
        &mut rng,
    );
    let device = default_device();
    let model = ModelConfig::new()
        .with_blocks(1)
        .with_channels(16)
        .init(&BLITZ.net_shape(), &device);
    let cfg = TrainConfig {
        warmup_steps: 1,
        learning_rate: 3e-3,
        ..TrainConfig::default()
    };
    let mut t = Trainer::new(model, cfg, &device, 0);
    let first = t.step(&batch);
    let mut last = first.clone();
    for _ in 0..40 {
        last = t.step(&batch);
    }
    assert!(
        last.loss < first.loss * 0.8,
        "{} -> {}",
        first.loss,
        last.loss
    );
    assert_eq!(last.step, 41);
    assert!(first.policy_entropy > 0.0 && first.policy_entropy.is_finite());
    assert!((0.0..=1.0).contains(&last.value_accuracy));
    assert!(
        last.policy_loss.is_finite() && last.value_loss.is_finite() && last.margin_loss.is_finite()
    );

    // Optimizer state survives a round trip through bytes.
    let bytes = t.optimizer_bytes().unwrap();
    assert!(!bytes.is_empty());
    let mut u = Trainer::new(t.inference_model(), t.config().clone(), &device, t.steps());
    u.load_optimizer(bytes).unwrap();
    let a = t.step(&batch);
    let b = u.step(&batch);
    assert!(
        (a.loss - b.loss).abs() < 1e-3 * a.loss.abs().max(1.0),
        "{} vs {}",
        a.loss,
        b.loss
    );
    assert!(u.load_optimizer(b"garbage".to_vec()).is_err());
}

#[test]
fn batches_hold_distributions_and_one_hot_results() {
    let w = window();
    let mut rng = SmallRng::seed_from_u64(2);
    let b = Batch::new(
        &BLITZ,
        &w.sample(&mut rng, 16),
        ValueTarget::default(),
        &mut rng,
    );
    let n = yinsh_zero::games::yinsh::ACTION_SPACE;
    for i in 0..16 {
        let p = &b.policy[i * n..(i + 1) * n];
        let m = &b.mask[i * n..(i + 1) * n];
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-3);
        // Target mass only where the (transformed) position allows it.
        assert!(p.iter().zip(m).all(|(&p, &m)| p == 0.0 || m == 0.0));
        assert_eq!(b.wdl[i * 3..i * 3 + 3].iter().sum::<f32>(), 1.0);
    }
}

#[test]
fn a_reply_turns_with_its_position() {
    let w = window();
    let mut rng = SmallRng::seed_from_u64(3);
    // Replies equal to the samples' own policies: whatever symmetry a
    // sample draws, its reply row must come out as its policy row.
    let samples: Vec<_> = w
        .sample(&mut rng, 24)
        .into_iter()
        .enumerate()
        .map(|(i, s)| yinsh_zero::replay::window::WindowSample {
            reply: (i % 3 != 0).then(|| s.policy.clone()),
            ..s.clone()
        })
        .collect();
    let refs: Vec<_> = samples.iter().collect();
    let b = Batch::new(&BLITZ, &refs, ValueTarget::default(), &mut rng);
    let n = yinsh_zero::games::yinsh::ACTION_SPACE;
    let mut turned = 0;
    for (i, sample) in samples.iter().enumerate() {
        let (policy, reply) = (&b.policy[i * n..(i + 1) * n], &b.reply[i * n..(i + 1) * n]);
        if i % 3 == 0 {
            assert_eq!(b.reply_mask[i], 0.0);
            assert!(reply.iter().all(|&p| p == 0.0));
        } else {
            assert_eq!(b.reply_mask[i], 1.0);
            assert_eq!(policy, reply, "sample {i}");
            let untouched = sample.policy.iter().all(|&(a, p)| policy[a as usize] == p);
            turned += usize::from(!untouched);
        }
    }
    assert!(
        turned > 0,
        "no sample drew a symmetry other than the identity"
    );
}
