//! Elo ratings from game results: a Bradley-Terry maximum-likelihood fit,
//! and score intervals for one pairing.
//!
//! # The model
//!
//! Player `i` beats player `j` with probability
//! `1 / (1 + 10^((R_j - R_i) / 400))`. A draw counts as half a win for each
//! side (the usual Bradley-Terry treatment of draws; it leaves the fitted
//! differences equal to those implied by the score rates). Ratings are the
//! maximum-likelihood fit, anchored by fixing one player's rating
//! (`random` = 0 by convention) and error bars come from the inverse of the
//! Fisher information (the negated Hessian of the log-likelihood) at the
//! optimum, with the anchor held fixed, so they measure uncertainty
//! *relative to the anchor*.
//!
//! A player who won (or lost) every game has no finite maximum-likelihood
//! rating. As in BayesElo, every pair of players that met gets one virtual
//! draw ([`EloFit::prior_draws`]), which keeps all ratings finite: a 200-0
//! sweep then reads as about +1040 Elo, a 400-0 one as +1160, so ratings
//! at the extremes are lower bounds that grow with the number of games.

use std::collections::BTreeMap;

use serde::Serialize;

/// Elo points per natural-log unit of odds.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Results between two players from the first one's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PairResults {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl PairResults {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Counts one game worth `points` (1, 0.5 or 0) to the first player.
    pub fn add_points(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Points per game (a draw is half a point), 0.5 without games.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }

    /// The same games from the other side.
    pub fn flipped(&self) -> PairResults {
        PairResults {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// The 95% interval of the score, normal approximation with the
    /// trinomial (win/draw/loss) variance of one game's points, clipped to
    /// [0, 1]. Draws narrow it, as they should. When every game had the
    /// same result the observed variance is zero, and the Wilson interval
    /// of the points (as if binomial) is used instead, so that a 20-0
    /// sweep reads as [0.84, 1], not [1, 1].
    ///
    /// ```
    /// use yinsh_zero::arena::PairResults;
    /// let r = PairResults { wins: 60, draws: 20, losses: 20 };
    /// let (lo, hi) = r.score_interval();
    /// assert!((r.score() - 0.7).abs() < 1e-12);
    /// assert!(lo < 0.7 && 0.7 < hi && hi - lo < 0.2);
    /// ```
    pub fn score_interval(&self) -> (f64, f64) {
        let n = self.games();
        if n == 0 {
            return (0.0, 1.0);
        }
        let mu = self.score();
        let nf = n as f64;
        let var = (self.wins as f64 * (1.0 - mu).powi(2)
            + self.draws as f64 * (0.5 - mu).powi(2)
            + self.losses as f64 * mu.powi(2))
            / nf;
        if var == 0.0 {
            let z2 = Z95 * Z95;
            let centre = (mu + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
            let half = Z95 * (mu * (1.0 - mu) / nf + z2 / (4.0 * nf * nf)).sqrt() / (1.0 + z2 / nf);
            return ((centre - half).max(0.0), (centre + half).min(1.0));
        }
        let half = Z95 * (var / nf).sqrt();
        ((mu - half).max(0.0), (mu + half).min(1.0))
    }
}

/// The Elo difference that a score rate implies: `-400 log10(1/s - 1)`;
/// infinite at 0 and 1.
///
/// ```
/// use yinsh_zero::arena::elo_from_score;
/// assert_eq!(elo_from_score(0.5), 0.0);
/// assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a player rated `diff` Elo above its opponent.
pub fn score_from_elo(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Results between named players, accumulated game by game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultTable {
    /// Players in order of first appearance.
    players: Vec<String>,
    /// `(i, j)` with `i < j` -> results of `i` against `j`.
    pairs: BTreeMap<(usize, usize), PairResults>,
}

impl ResultTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a player without games (so it is listed, and can be the anchor).
    pub fn add_player(&mut self, name: &str) -> usize {
        match self.players.iter().position(|p| p == name) {
            Some(i) => i,
            None => {
                self.players.push(name.to_string());
                self.players.len() - 1
            }
        }
    }

    /// Records one game: `score` is 1, 0.5 or 0 points for `a` against `b`.
    pub fn add_game(&mut self, a: &str, b: &str, score: f64) {
        let (i, j) = (self.add_player(a), self.add_player(b));
        let (key, score) = if i < j {
            ((i, j), score)
        } else {
            ((j, i), 1.0 - score)
        };
        self.pairs.entry(key).or_default().add_points(score);
    }

    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// The results of `a` against `b` (all zero if they never met).
    pub fn between(&self, a: &str, b: &str) -> PairResults {
        let find = |n: &str| self.players.iter().position(|p| p == n);
        match (find(a), find(b)) {
            (Some(i), Some(j)) if i < j => self.pairs.get(&(i, j)).copied().unwrap_or_default(),
            (Some(i), Some(j)) if i > j => self
                .pairs
                .get(&(j, i))
                .map(PairResults::flipped)
                .unwrap_or_default(),
            _ => PairResults::default(),
        }
    }

    /// All results of `name` against everyone.
    pub fn total(&self, name: &str) -> PairResults {
        let mut t = PairResults::default();
        for other in &self.players {
            if other != name {
                let r = self.between(name, other);
                t.wins += r.wins;
                t.draws += r.draws;
                t.losses += r.losses;
            }
        }
        t
    }

    /// Fits ratings with `anchor` fixed at 0 (see the module docs).
    ///
    /// ```
    /// use yinsh_zero::arena::ResultTable;
    /// let mut t = ResultTable::new();
    /// for g in 0..100 {
    ///     // b scores 75% against a: about +191 Elo.
    ///     t.add_game("a", "b", if g % 4 == 0 { 1.0 } else { 0.0 });
    /// }
    /// let fit = t.fit_elo("a").unwrap();
    /// let b = fit.rating("b").unwrap();
    /// assert!((b.elo - 190.0).abs() < 10.0, "{b:?}");
    /// assert!(b.error95 > 40.0 && b.error95 < 120.0);
    /// ```
    pub fn fit_elo(&self, anchor: &str) -> Result<EloFit, EloError> {
        fit(self, anchor)
    }
}

/// One player's fitted rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub player: String,
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Half-width of the 95% interval (1.96 standard errors); 0 for the anchor.
    pub error95: f64,
    pub games: u32,
    /// Points per game over all its games.
    pub score: f64,
}

/// Ratings of every player, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EloFit {
    pub anchor: String,
    pub ratings: Vec<Rating>,
    /// Virtual draws added between every pair of players that met.
    pub prior_draws: f64,
    /// Newton iterations the fit took.
    pub iterations: u32,
}

impl EloFit {
    pub fn rating(&self, player: &str) -> Option<&Rating> {
        self.ratings.iter().find(|r| r.player == player)
    }
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EloError {
    #[error("the anchor `{0}` has played no games in the results")]
    UnknownAnchor(String),
    #[error(
        "no chain of games links {players:?} to the anchor `{anchor}`: their ratings are undefined"
    )]
    Disconnected {
        anchor: String,
        players: Vec<String>,
    },
}

const PRIOR_DRAWS: f64 = 1.0;

fn fit(table: &ResultTable, anchor: &str) -> Result<EloFit, EloError> {
    let n = table.players.len();
    let a = table
        .players
        .iter()
        .position(|p| p == anchor)
        .ok_or_else(|| EloError::UnknownAnchor(anchor.into()))?;

    // Pair data with the prior: (i, j, points of i, games).
    let data: Vec<(usize, usize, f64, f64)> = table
        .pairs
        .iter()
        .filter(|(_, r)| r.games() > 0)
        .map(|(&(i, j), r)| {
            let s = r.wins as f64 + 0.5 * r.draws as f64 + 0.5 * PRIOR_DRAWS;
            (i, j, s, r.games() as f64 + PRIOR_DRAWS)
        })
        .collect();

    // Everyone must be linked to the anchor, or the Hessian is singular.
    let mut linked = vec![false; n];
    linked[a] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for &(i, j, _, _) in &data {
            if linked[i] != linked[j] {
                linked[i] = true;
                linked[j] = true;
                changed = true;
            }
        }
    }
    let loose: Vec<String> = (0..n)
        .filter(|&i| !linked[i])
        .map(|i| table.players[i].clone())
        .collect();
    if !loose.is_empty() {
        return Err(EloError::Disconnected {
            anchor: anchor.into(),
            players: loose,
        });
    }

    // Free parameters: everyone but the anchor, in natural-log odds units.
    let free: Vec<usize> = (0..n).filter(|&i| i != a).collect();
    let slot = |i: usize| free.iter().position(|&f| f == i);
    let m = free.len();
    let mut r = vec![0.0f64; n];
    let mut iterations = 0;
    let hessian = |r: &[f64]| -> (Vec<f64>, Vec<f64>) {
        // Gradient and negated Hessian (the Fisher information) over `free`.
        let mut g = vec![0.0; m];
        let mut h = vec![0.0; m * m];
        for &(i, j, s, games) in &data {
            let p = 1.0 / (1.0 + (r[j] - r[i]).exp());
            let w = games * p * (1.0 - p);
            let d = s - games * p;
            if let Some(x) = slot(i) {
                g[x] += d;
                h[x * m + x] += w;
            }
            if let Some(y) = slot(j) {
                g[y] -= d;
                h[y * m + y] += w;
            }
            if let (Some(x), Some(y)) = (slot(i), slot(j)) {
                h[x * m + y] -= w;
                h[y * m + x] -= w;
            }
        }
        (g, h)
    };
    // The log-likelihood is concave, so Newton's method converges; the step
    // is capped so the first steps from 0 cannot overshoot wildly.
    for _ in 0..200 {
        iterations += 1;
        let (g, h) = hessian(&r);
        let Some(step) = solve(&h, &g, m) else { break };
        let biggest = step.iter().fold(0.0f64, |acc, s| acc.max(s.abs()));
        let scale = if biggest > 2.0 { 2.0 / biggest } else { 1.0 };
        for (k, &i) in free.iter().enumerate() {
            r[i] += scale * step[k];
        }
        if biggest < 1e-10 {
            break;
        }
    }
    let (_, h) = hessian(&r);
    let cov = invert(&h, m);
    let mut ratings: Vec<Rating> = (0..n)
        .map(|i| {
            let var = match (slot(i), &cov) {
                (Some(x), Some(c)) => c[x * m + x],
                (Some(_), None) => f64::INFINITY,
                (None, _) => 0.0,
            };
            let name = &table.players[i];
            let total = table.total(name);
            Rating {
                player: name.clone(),
                elo: (r[i] - r[a]) * ELO_PER_NAT,
                error95: Z95 * var.max(0.0).sqrt() * ELO_PER_NAT,
                games: total.games(),
                score: total.score(),
            }
        })
        .collect();
    ratings.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    Ok(EloFit {
        anchor: anchor.into(),
        ratings,
        prior_draws: PRIOR_DRAWS,
        iterations,
    })
}

/// Solves `h x = g` for a symmetric positive definite `h` (m x m, row
/// major) by Gaussian elimination with partial pivoting.
fn solve(h: &[f64], g: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut a: Vec<f64> = h.to_vec();
    let mut b: Vec<f64> = g.to_vec();
    for col in 0..m {
        let pivot =
            (col..m).max_by(|&x, &y| a[x * m + col].abs().total_cmp(&a[y * m + col].abs()))?;
        if a[pivot * m + col].abs() < 1e-12 {
            return None;
        }
        if pivot != col {
            for k in 0..m {
                a.swap(pivot * m + k, col * m + k);
            }
            b.swap(pivot, col);
        }
        for row in col + 1..m {
            let f = a[row * m + col] / a[col * m + col];
            if f != 0.0 {
                for k in col..m {
                    a[row * m + k] -= f * a[col * m + k];
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; m];
    for row in (0..m).rev() {
        let mut s = b[row];
        for k in row + 1..m {
            s -= a[row * m + k] * x[k];
        }
        x[row] = s / a[row * m + row];
    }
    Some(x)
}

/// The inverse of `h` (m x m), column by column.
fn invert(h: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut inv = vec![0.0; m * m];
    for c in 0..m {
        let mut e = vec![0.0; m];
        e[c] = 1.0;
        let x = solve(h, &e, m)?;
        for r in 0..m {
            inv[r * m + c] = x[r];
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(games: &[(&str, &str, u32, u32, u32)]) -> ResultTable {
        let mut t = ResultTable::new();
        for &(a, b, w, d, l) in games {
            for _ in 0..w {
                t.add_game(a, b, 1.0);
            }
            for _ in 0..d {
                t.add_game(a, b, 0.5);
            }
            for _ in 0..l {
                t.add_game(a, b, 0.0);
            }
        }
        t
    }

    #[test]
    fn a_ladder_is_ordered_and_additive() {
        // b is +191 over a, c is +191 over b, and c vs a agrees (+382).
        let t = table(&[
            ("b", "a", 750, 0, 250),
            ("c", "b", 750, 0, 250),
            ("c", "a", 900, 0, 100),
        ]);
        let fit = t.fit_elo("a").unwrap();
        let e = |p: &str| fit.rating(p).unwrap().elo;
        assert_eq!(e("a"), 0.0);
        assert!((e("b") - 191.0).abs() < 15.0, "{fit:?}");
        assert!((e("c") - 382.0).abs() < 15.0, "{fit:?}");
        assert_eq!(fit.ratings[0].player, "c");
        assert_eq!(fit.rating("a").unwrap().error95, 0.0);
        // c is measured through two paths' worth of games to a: its error
        // relative to a is larger than b's only if it played fewer; here
        // both are a few tens of Elo.
        assert!(fit.rating("c").unwrap().error95 < 60.0);
    }

    #[test]
    fn sweeps_stay_finite_and_disconnected_players_are_errors() {
        let t = table(&[("strong", "random", 200, 0, 0)]);
        let fit = t.fit_elo("random").unwrap();
        let s = fit.rating("strong").unwrap();
        assert!(
            s.elo.is_finite() && s.elo > 900.0 && s.elo < 1200.0,
            "{s:?}"
        );
        let t = table(&[("a", "b", 5, 0, 5), ("c", "d", 5, 0, 5)]);
        let err = t.fit_elo("a").unwrap_err().to_string();
        assert!(err.contains("\"c\"") && err.contains("\"d\""), "{err}");
        assert!(matches!(t.fit_elo("zz"), Err(EloError::UnknownAnchor(_))));
    }

    #[test]
    fn scores_and_intervals() {
        let r = PairResults {
            wins: 20,
            draws: 0,
            losses: 0,
        };
        let (lo, hi) = r.score_interval();
        assert!((lo - 0.839).abs() < 1e-3 && hi == 1.0, "{lo} {hi}");
        let r = PairResults {
            wins: 50,
            draws: 0,
            losses: 50,
        };
        let (lo, hi) = r.score_interval();
        assert!((hi - lo - 2.0 * Z95 * 0.05).abs() < 1e-9);
        assert!((elo_from_score(score_from_elo(123.0)) - 123.0).abs() < 1e-9);
    }
}
