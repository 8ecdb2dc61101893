//! Search settings, as a run's TOML config spells them.

use serde::{Deserialize, Serialize};

use super::SearchError;
use super::tree::Scoring;

/// Everything that shapes one search. Every field has a default, so a config
/// file may set any subset of them; unknown keys are refused so that a typo
/// does not silently fall back to a default.
///
/// The defaults describe self-play (noise on, temperature early on). For
/// playing or evaluating, start from [`SearchConfig::for_play`].
///
/// ```
/// use yinsh_zero::mcts::SearchConfig;
/// let cfg: SearchConfig = serde_json::from_str(r#"{ "simulations": 64, "gumbel": true }"#).unwrap();
/// assert_eq!(cfg.simulations, 64);
/// assert!(cfg.gumbel);
/// assert_eq!(cfg.c_puct, SearchConfig::default().c_puct);
/// assert!(cfg.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Descents from the root per full search (default 200). Visits the root
    /// already has from tree reuse do not count; expanding a fresh root costs
    /// one evaluation on top.
    pub simulations: u32,
    /// Descents of a fast search under playout-cap randomization (default
    /// 32). Fast searches get no Dirichlet noise and are meant not to be
    /// recorded as training targets ([`SearchResult::full`](super::SearchResult::full) is false).
    pub fast_simulations: u32,
    /// Probability that a move gets a full search rather than a fast one
    /// (default 1.0: playout-cap randomization off).
    pub full_search_prob: f32,
    /// Exploration constant of PUCT at a node with few visits (default 1.25).
    pub c_puct: f32,
    /// AlphaZero's growth of the exploration constant with the parent's
    /// visits: `c = c_puct + c_puct_growth * ln((1 + N + c_puct_base) / c_puct_base)`
    /// (defaults 19652 and 1.0; a growth of 0 keeps `c` constant).
    pub c_puct_base: f32,
    pub c_puct_growth: f32,
    /// First-play urgency below the root: an unvisited child is valued at the
    /// parent's value minus `fpu_reduction * sqrt(prior mass already
    /// visited)` (default 0.25, as in Leela).
    pub fpu_reduction: f32,
    /// The same reduction at the root (default 0.0: noise and the root's
    /// larger budget make trying every child cheap there).
    pub root_fpu_reduction: f32,
    /// Softmax temperature of the network's priors (default 1.0: as
    /// trained). Each prior `p` becomes `p^(1/T)`, renormalised over the
    /// legal actions, before the search uses it: above 1 a search of a
    /// hundred simulations spreads its visits over more of the network's
    /// candidates (Leela Chess Zero's `PolicyTemperature`). From 0.1 to 10.
    pub policy_temperature: f32,
    /// Self-play exploration (default true): Dirichlet noise at the root of
    /// full PUCT searches, and Gumbel noise on the sampled actions of Gumbel
    /// searches (scaled by the turn's temperature). Off, both searches are
    /// deterministic given the evaluator.
    pub noise: bool,
    /// Dirichlet concentration summed over the legal actions (default 10):
    /// each action gets `alpha = dirichlet_alpha_total / n_legal`, so noise
    /// spreads alike over 5 ring removals and 150 ring moves.
    pub dirichlet_alpha_total: f32,
    /// Weight of the noise in the root priors (default 0.25).
    pub noise_fraction: f32,
    /// Temperature of the move choice for the first `temperature_turns`
    /// turns (decisions, as the game's `ply` counts them; default 1.0 for
    /// 20 turns)... Under PUCT it flattens the sampling of visit counts; under
    /// Gumbel it scales the Gumbel noise of the root (mctx's
    /// `gumbel_scale`), which is what varies the Gumbel choice.
    pub temperature: f32,
    pub temperature_turns: u32,
    /// ...and after them (default 0: the most visited action under PUCT,
    /// the noise-free sequential halving winner under Gumbel).
    pub final_temperature: f32,
    /// Keep the subtree of the played action for the next search (default true).
    pub tree_reuse: bool,
    /// Gumbel root search with sequential halving instead of PUCT at the root
    /// (default false). Below the root the Gumbel search uses the paper's
    /// deterministic improved-policy selection, not PUCT.
    pub gumbel: bool,
    /// Actions sampled at the root by Gumbel-top-k (default 16).
    pub gumbel_m: u32,
    /// `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`, with `q` the
    /// completed Q rescaled to [0, 1] (defaults 50 and 0.1, as in the paper
    /// and DeepMind's mctx).
    pub c_visit: f32,
    pub c_scale: f32,
    /// What a draw is worth to the player whose move is searched, from -1 (a
    /// loss) to 1 (a win), and minus that to the opponent (default 0: a draw
    /// is a draw, as the network was trained). A positive score makes the
    /// search prefer lines the network thinks drawn over lines it thinks
    /// balanced between winning and losing: the draw score (contempt) of
    /// Leela Chess Zero, for playing safe where a draw is the aim.
    pub draw_score: f32,
    /// Where the move is chosen by visits alone (temperature 0, PUCT), choose
    /// instead the action whose value's lower confidence bound is highest,
    /// `q - lcb_z * sd / sqrt(visits)`, among the actions with at least a
    /// tenth of the most visits (KataGo's and Leela Chess Zero's LCB): a
    /// well-explored action is not passed over for one whose high visit
    /// count rests on a few lucky evaluations, nor the other way round.
    /// The outcome's spread comes from the action's mean win/draw/loss.
    /// 0 (the default, for self-play) chooses by visits; [`for_play`](Self::for_play)
    /// sets 2.
    pub lcb_z: f32,
    /// The share of a value kept per decision it is backed up through:
    /// `discount^k` of a leaf's win and loss reaches a node `k` decisions
    /// above it, the rest counting as a draw (default 1: nothing lost).
    /// Set to a network's `value_discount` (what its value targets were
    /// trained with), a finished game found deep in the tree and a leaf the
    /// network values are weighed alike, and the search prefers the faster
    /// win and the slower loss as its training did. A player's option
    /// (`net-mcts:...,discount=0.97`), not a key of the `[search]` table:
    /// in Connect Four it made the shipped network's losses as second player
    /// slower (85.4% of its decisions optimal against 80.9%) but drew one of
    /// 100 games as first that it won without (docs/results/connect4.md).
    #[serde(skip)]
    pub discount: f32,
    /// Weight of the expected final score margin ([`State::margin`](crate::game::State::margin))
    /// in the value the search maximises, beside win minus loss (default
    /// 0: the result alone). KataGo's score utility: where a game's margin
    /// tells a sooner win from a later one (Connect Four) or a large win
    /// from a narrow one (YINSH), the search and the policy it trains learn
    /// to tell them apart, which the result alone gives them no reason to.
    /// The network must have been trained with margin targets (its game has
    /// a margin); a terminal position in the tree counts its exact margin.
    pub score_weight: f32,
    /// Where the margin starts to weigh (default 0: everywhere, at the full
    /// [`score_weight`](Self::score_weight)). Above 0 the margin counts
    /// nothing in a position whose expected result (win minus loss) is at
    /// most this in size, and its weight rises linearly to the full weight
    /// where the result is certain: Leela Chess Zero's moves-left
    /// threshold. A heavy weight then ranks the ways to win, or to lose, a
    /// settled game without ever trading a surer result for a sooner one.
    /// From 0 to below 1; a network trained under it records it in its
    /// checkpoint (`net-mcts:...,score_threshold=` overrides it).
    pub score_threshold: f32,
    /// Prove what finished games in the tree show and search by it
    /// (default false): bounds on each node's exact value, a solved node
    /// treated as a finished game, an action proven worse than another
    /// never chosen, and one proven best always chosen (score-bounded MCTS,
    /// the score-aware MCTS-Solver). With a [`score_weight`](Self::score_weight)
    /// the bounds count the margin too, so that among proven losses the
    /// slowest is chosen. Off by default so that the baselines and the
    /// recipes measured before it search as they did; `net-mcts:solver=true`
    /// turns it on for a player. Ignored by a discounted search and by one
    /// with a [`draw_score`](Self::draw_score).
    pub solver: bool,
    /// KataGo's forced playouts and policy target pruning, at the root of a
    /// full PUCT search with noise (self-play), with `k` this value (default
    /// 0: off; KataGo uses 2). Each root child is owed `sqrt(k * P * N)`
    /// descents, `P` its noised prior and `N` the root's, and is descended
    /// into until it has had them, so that the moves the noise proposes are
    /// measured. The visits forced beyond what PUCT would have given are
    /// then taken back out of the policy target and of the temperature's
    /// sampling, and children left with one visit dropped, so that the
    /// network is not taught to repeat the noise (Wu 2019, section 3.1).
    /// PUCT only: the Gumbel root has its own answer to both problems, so
    /// a value above 0 with `gumbel = true` is refused.
    pub forced_playouts: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 200,
            fast_simulations: 32,
            full_search_prob: 1.0,
            c_puct: 1.25,
            c_puct_base: 19652.0,
            c_puct_growth: 1.0,
            fpu_reduction: 0.25,
            root_fpu_reduction: 0.0,
            policy_temperature: 1.0,
            noise: true,
            dirichlet_alpha_total: 10.0,
            noise_fraction: 0.25,
            temperature: 1.0,
            temperature_turns: 20,
            final_temperature: 0.0,
            tree_reuse: true,
            gumbel: false,
            gumbel_m: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            draw_score: 0.0,
            lcb_z: 0.0,
            discount: 1.0,
            score_weight: 0.0,
            score_threshold: 0.0,
            solver: false,
            forced_playouts: 0.0,
        }
    }
}

impl SearchConfig {
    /// Settings for playing to win: no noise, always the best action, every
    /// search full, the move chosen by its value's lower confidence bound at
    /// z = 2 (in YINSH at 100 ms a decision it scored 60.2% against choosing
    /// by visits over 200 games: docs/strength.md, method 6).
    ///
    /// ```
    /// use yinsh_zero::mcts::SearchConfig;
    /// let play = SearchConfig::for_play();
    /// assert!(!play.noise && play.temperature == 0.0);
    /// assert_eq!(play.lcb_z, 2.0);
    /// assert_eq!(SearchConfig::default().lcb_z, 0.0);
    /// ```
    pub fn for_play() -> SearchConfig {
        SearchConfig {
            noise: false,
            lcb_z: 2.0,
            temperature: 0.0,
            final_temperature: 0.0,
            full_search_prob: 1.0,
            ..SearchConfig::default()
        }
    }

    /// How the search's tree values positions: the draw score, the
    /// discount and the score weight.
    pub fn scoring(&self) -> Scoring {
        Scoring {
            draw_score: self.draw_score,
            discount: self.discount,
            score_weight: self.score_weight,
            score_threshold: self.score_threshold,
            solver: self.solver,
        }
    }

    /// The temperature of the move choice at `turn` (placements and ring
    /// moves made so far).
    pub fn temperature_at(&self, turn: u32) -> f32 {
        if turn < self.temperature_turns {
            self.temperature
        } else {
            self.final_temperature
        }
    }

    /// Checks that every value is in its range, naming the first that is not.
    pub fn validate(&self) -> Result<(), SearchError> {
        let bad = |field: &'static str, why: &str| {
            Err(SearchError::InvalidConfig {
                field,
                why: why.to_string(),
            })
        };
        let finite_nonneg = |x: f32| x.is_finite() && x >= 0.0;
        if !(0.0..=1.0).contains(&self.full_search_prob) {
            return bad("full_search_prob", "must be a probability in [0, 1]");
        }
        for (field, x) in [
            ("c_puct", self.c_puct),
            ("c_puct_growth", self.c_puct_growth),
            ("fpu_reduction", self.fpu_reduction),
            ("root_fpu_reduction", self.root_fpu_reduction),
            ("temperature", self.temperature),
            ("final_temperature", self.final_temperature),
            ("c_visit", self.c_visit),
            ("c_scale", self.c_scale),
            ("lcb_z", self.lcb_z),
            ("forced_playouts", self.forced_playouts),
        ] {
            if !finite_nonneg(x) {
                return bad(field, "must be a finite number >= 0");
            }
        }
        if !(0.1..=10.0).contains(&self.policy_temperature) {
            return bad("policy_temperature", "must be from 0.1 to 10");
        }
        if !(self.c_puct_base.is_finite() && self.c_puct_base > 0.0) {
            return bad("c_puct_base", "must be a finite number > 0");
        }
        if !(self.dirichlet_alpha_total.is_finite() && self.dirichlet_alpha_total > 0.0) {
            return bad("dirichlet_alpha_total", "must be a finite number > 0");
        }
        if !(0.0..=1.0).contains(&self.noise_fraction) {
            return bad("noise_fraction", "must be in [0, 1]");
        }
        if self.gumbel_m == 0 {
            return bad("gumbel_m", "must sample at least one action");
        }
        if !(-1.0..=1.0).contains(&self.draw_score) {
            return bad("draw_score", "must be in [-1, 1]");
        }
        if !(self.discount > 0.0 && self.discount <= 1.0) {
            return bad("discount", "must be in (0, 1]");
        }
        if !(0.0..=10.0).contains(&self.score_weight) {
            return bad("score_weight", "must be from 0 to 10");
        }
        if !(0.0..1.0).contains(&self.score_threshold) {
            return bad("score_threshold", "must be from 0 to below 1");
        }
        if self.forced_playouts > 0.0 && self.gumbel {
            return bad(
                "forced_playouts",
                "is PUCT's: set gumbel = false, or forced_playouts = 0 (the Gumbel root prunes its own targets)",
            );
        }
        Ok(())
    }

    /// Whether forced playouts act on a search's root: a full self-play
    /// PUCT search, as [`forced_playouts`](Self::forced_playouts) says.
    pub fn forces_playouts(&self, full: bool) -> bool {
        self.forced_playouts > 0.0 && self.noise && full && !self.gumbel
    }
}
