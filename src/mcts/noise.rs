//! Random perturbations of the root: Dirichlet noise for PUCT, Gumbel noise
//! for the Gumbel root search.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};

/// A sample of the symmetric Dirichlet distribution of concentration `alpha`
/// over `n` outcomes, as normalised Gamma(alpha, 1) draws (the number of legal
/// actions varies, which `rand_distr`'s fixed-size `Dirichlet` does not allow).
///
/// For the small alphas of large action sets every draw can underflow to 0;
/// then all the mass goes to one uniformly chosen outcome, the limit of the
/// distribution as alpha goes to 0.
pub fn dirichlet(rng: &mut impl Rng, alpha: f32, n: usize) -> Vec<f32> {
    if n == 0 {
        return Vec::new();
    }
    let gamma = Gamma::new(alpha as f64, 1.0).expect("alpha is positive and finite");
    let mut v: Vec<f64> = (0..n).map(|_| gamma.sample(rng)).collect();
    let sum: f64 = v.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        v.iter_mut().for_each(|x| *x /= sum);
    } else {
        v.iter_mut().for_each(|x| *x = 0.0);
        v[rng.random_range(0..n)] = 1.0;
    }
    v.into_iter().map(|x| x as f32).collect()
}

/// `n` independent standard Gumbel(0, 1) draws.
pub fn gumbel(rng: &mut impl Rng, n: usize) -> Vec<f32> {
    let g = Gumbel::new(0.0, 1.0).expect("unit scale");
    (0..n).map(|_| g.sample(rng) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn dirichlet_is_a_distribution() {
        let mut rng = SmallRng::seed_from_u64(7);
        for (alpha, n) in [(10.0 / 3.0, 3), (10.0 / 150.0, 150), (1e-6, 40)] {
            let d = dirichlet(&mut rng, alpha, n);
            assert_eq!(d.len(), n);
            assert!(d.iter().all(|&x| x >= 0.0));
            assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
    }

    #[test]
    fn small_alpha_concentrates() {
        // Total concentration 0.1: the mass mostly lands on one outcome.
        let mut rng = SmallRng::seed_from_u64(1);
        let mean_max: f32 = (0..20)
            .map(|_| {
                dirichlet(&mut rng, 0.001, 100)
                    .into_iter()
                    .fold(0.0, f32::max)
            })
            .sum::<f32>()
            / 20.0;
        assert!(mean_max > 0.8, "mean largest share {mean_max}");
    }

    #[test]
    fn gumbel_mean_is_euler_gamma() {
        let mut rng = SmallRng::seed_from_u64(3);
        let g = gumbel(&mut rng, 20_000);
        let mean = g.iter().sum::<f32>() / g.len() as f32;
        assert!((mean - 0.5772).abs() < 0.05, "mean {mean}");
    }
}
