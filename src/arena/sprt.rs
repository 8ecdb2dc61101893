//! The sequential probability ratio test: stop a two-player match as soon
//! as the results decide between "the first player is `elo0` stronger" and
//! "it is `elo1` stronger".
//!
//! This is the test fishtest and cutechess run, in logistic Elo with the
//! trinomial (win/draw/loss) model, using the usual normal approximation of
//! the generalized log-likelihood ratio (Van den Bergh):
//!
//! ```text
//! LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var)
//! ```
//!
//! where `s0`, `s1` are the expected scores of the two hypotheses, `mu` the
//! observed mean score and `var` the observed per-game variance of the score.
//! The test accepts H1 when LLR >= ln((1 - beta) / alpha) and H0 when
//! LLR <= ln(beta / (1 - alpha)).

use serde::Serialize;

use super::elo::{PairResults, score_from_elo};

/// The hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// H0: the first player is `elo0` Elo stronger than the second.
    pub elo0: f64,
    /// H1: it is `elo1` Elo stronger (`elo1 > elo0`).
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// What the results say so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The first player is at least `elo1` stronger (within the error rates).
    AcceptH1,
    /// It is at most `elo0` stronger.
    AcceptH0,
    /// Play on.
    Continue,
}

/// Why an SPRT cannot be set up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("`{0}` is not of the form elo0,elo1 (two numbers, e.g. `0,10`)")]
    Malformed(String),
    #[error("elo1 ({elo1}) must be larger than elo0 ({elo0})")]
    Order { elo0: f64, elo1: f64 },
    #[error("alpha and beta must lie in (0, 0.5), got {alpha} and {beta}")]
    Rates { alpha: f64, beta: f64 },
}

impl Sprt {
    /// `elo0` against `elo1` with alpha = beta = 0.05.
    pub fn new(elo0: f64, elo1: f64) -> Result<Sprt, SprtError> {
        Sprt::with_rates(elo0, elo1, 0.05, 0.05)
    }

    pub fn with_rates(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo1 > elo0) {
            return Err(SprtError::Order { elo0, elo1 });
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(SprtError::Rates { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Parses `elo0,elo1` (default error rates).
    ///
    /// ```
    /// use yinsh_zero::arena::{PairResults, Sprt, Verdict};
    /// let sprt = Sprt::parse("0,50").unwrap();
    /// assert_eq!(sprt.verdict(&PairResults::default()), Verdict::Continue);
    /// let crushing = PairResults { wins: 60, draws: 5, losses: 5 };
    /// assert_eq!(sprt.verdict(&crushing), Verdict::AcceptH1);
    /// let even = PairResults { wins: 300, draws: 100, losses: 300 };
    /// assert_eq!(sprt.verdict(&even), Verdict::AcceptH0);
    /// ```
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let malformed = || SprtError::Malformed(text.into());
        let (a, b) = text.split_once(',').ok_or_else(malformed)?;
        let a: f64 = a.trim().parse().map_err(|_| malformed())?;
        let b: f64 = b.trim().parse().map_err(|_| malformed())?;
        Sprt::new(a, b)
    }

    /// `(lower, upper)` bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 given the first player's
    /// results.
    pub fn llr(&self, r: &PairResults) -> f64 {
        if r.games() == 0 {
            return 0.0;
        }
        // One virtual win, draw and loss: without them the observed
        // variance of a few games (or of a clean sweep) is near zero and
        // the ratio explodes after a single game; with them it is about
        // a game's real variance. Their weight fades as games accumulate.
        let (w, d, l) = (
            r.wins as f64 + 1.0,
            r.draws as f64 + 1.0,
            r.losses as f64 + 1.0,
        );
        let n = w + d + l;
        let mu = (w + 0.5 * d) / n;
        let var = (w * (1.0 - mu).powi(2) + d * (0.5 - mu).powi(2) + l * mu.powi(2)) / n;
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    pub fn verdict(&self, r: &PairResults) -> Verdict {
        let llr = self.llr(r);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::AcceptH1
        } else if llr <= lo {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_match_the_usual_values() {
        let (lo, hi) = Sprt::new(0.0, 5.0).unwrap().bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
    }

    #[test]
    fn llr_grows_with_evidence_and_is_antisymmetric_in_the_hypotheses() {
        let sprt = Sprt::new(-20.0, 20.0).unwrap();
        let small = PairResults {
            wins: 1199,
            draws: 399,
            losses: 799,
        };
        let big = PairResults {
            wins: 11999,
            draws: 3999,
            losses: 7999,
        };
        assert!(sprt.llr(&small) > 0.0);
        // With the virtual games, counts (w+1, d+1, l+1) scale by 10.
        assert!((sprt.llr(&big) - 10.0 * sprt.llr(&small)).abs() < 1e-6);
        assert!((sprt.llr(&small.flipped()) + sprt.llr(&small)).abs() < 1e-9);
    }

    #[test]
    fn one_game_never_decides() {
        let sprt = Sprt::new(0.0, 200.0).unwrap();
        for r in [
            PairResults {
                wins: 1,
                draws: 0,
                losses: 0,
            },
            PairResults {
                wins: 0,
                draws: 0,
                losses: 1,
            },
        ] {
            assert_eq!(sprt.verdict(&r), Verdict::Continue, "{r:?}");
        }
    }

    #[test]
    fn bad_hypotheses_are_rejected() {
        assert!(matches!(Sprt::parse("10,0"), Err(SprtError::Order { .. })));
        assert!(matches!(Sprt::parse("10"), Err(SprtError::Malformed(_))));
        assert!(matches!(Sprt::parse("a,b"), Err(SprtError::Malformed(_))));
        assert!(Sprt::with_rates(0.0, 5.0, 0.7, 0.05).is_err());
    }
}
