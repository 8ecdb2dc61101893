//! Tournaments: many players, many games, paired openings, in parallel and
//! reproducible, with forfeits instead of aborts.
//!
//! A round robin plays every pair of players; a gauntlet plays one player
//! against each of a list. Within a pairing, game `g` starts from opening
//! `g / 2` and the players swap colours between the two games of an opening,
//! so neither side profits from a lopsided opening. Openings are `k` random
//! decisions (YINSH: ring placements; seeded, the same for every pairing)
//! or come from a fixed list. Games are interleaved across pairings, so a run stopped early still
//! has about as many games of every pairing.
//!
//! A player that fails (an external program that crashes, hangs or breaks
//! the protocol, or any player returning an illegal action) loses that game
//! by forfeit; the game is reported and the arena goes on.
//!
//! Results are written one JSON line per game ([`ArenaGame`]) to
//! `<run>/eval/*.jsonl` ([`write_history`]), and every file there is read
//! back ([`read_history`]) so that ratings accumulate across runs.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::elo::{EloError, EloFit, PairResults, ResultTable, elo_from_score};
use super::game::{Effort, PlayError};
use super::player::Player;
use super::sprt::{Sprt, Verdict};
use crate::game::{ActionOf, Color, Game, GameResult, State};
use crate::util::{sub_seed, write_atomic};

/// Builds the player for a spec with a seed; an error forfeits the game.
/// [`crate::engine::build_game_player`] (internal and external players)
/// and [`super::parse_game_player`] (internal only) both fit.
pub type PlayerFactory<'a, S> = dyn Fn(&str, u64) -> Result<Box<dyn Player<S>>, String> + Sync + 'a;

/// Where games start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings<A> {
    /// This many decisions uniformly at random from the arena's seed (in
    /// YINSH: ring placements, so at most 10); 0 starts every game from
    /// the start position.
    Random(u32),
    /// Fixed openings (decisions from the start of the variant), used in
    /// turn; each is played with both colours.
    Fixed(Vec<Vec<A>>),
}

/// What to play, and which game.
#[derive(Clone, Debug, PartialEq)]
pub struct ArenaConfig<G: Game> {
    /// Player specs: all play each other, or each plays the gauntlet player.
    pub players: Vec<String>,
    /// A player that plays each of `players` (and they not each other).
    pub gauntlet: Option<String>,
    /// Games per pairing (the most, with an SPRT).
    pub games: u32,
    pub seed: u64,
    pub game: G,
    pub openings: Openings<ActionOf<G>>,
    /// Swap colours between the two games of each opening. Without it, the
    /// first player of each pairing has White in every game.
    pub alternate: bool,
    /// Stop a two-player match once the test decides.
    pub sprt: Option<Sprt>,
}

impl<G: Game> ArenaConfig<G> {
    /// A round robin of `players` at `game`, `games` games per pairing,
    /// openings of 4 random decisions, colours alternating.
    pub fn round_robin(game: G, players: &[&str], games: u32, seed: u64) -> ArenaConfig<G> {
        ArenaConfig {
            players: players.iter().map(|p| p.to_string()).collect(),
            gauntlet: None,
            games,
            seed,
            game,
            openings: Openings::Random(4),
            alternate: true,
            sprt: None,
        }
    }

    /// The pairings, each as (first, second) spec.
    pub fn pairings(&self) -> Vec<(String, String)> {
        match &self.gauntlet {
            Some(g) => self
                .players
                .iter()
                .map(|p| (g.clone(), p.clone()))
                .collect(),
            None => {
                let mut v = Vec::new();
                for (i, a) in self.players.iter().enumerate() {
                    for b in &self.players[i + 1..] {
                        v.push((a.clone(), b.clone()));
                    }
                }
                v
            }
        }
    }

    /// The decisions of opening `o`. A random opening stops short of a
    /// decision that would end the game.
    pub fn opening(&self, o: u32) -> Vec<ActionOf<G>> {
        match &self.openings {
            Openings::Fixed(list) if !list.is_empty() => list[o as usize % list.len()].clone(),
            Openings::Fixed(_) => Vec::new(),
            Openings::Random(k) => {
                let mut rng = SmallRng::seed_from_u64(sub_seed(self.seed ^ 0x09e1_11a6, o as u64));
                crate::game::random_opening(&self.game.start(), *k, &mut rng)
            }
        }
    }
}

/// A player lost a game by failing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forfeit {
    /// `white` or `black`: the side that failed and lost.
    pub side: String,
    pub player: String,
    pub error: String,
}

/// One finished game, as written to `<run>/eval/*.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaGame {
    /// Index of the game in its arena run (the order of the schedule).
    pub index: u32,
    /// The pairing's two specs and which of them had White.
    pub first: String,
    pub second: String,
    pub white: String,
    pub black: String,
    /// Whether `first` had White (it may equal `second`).
    pub first_white: bool,
    /// The opening, its decisions in the game's notation separated by
    /// spaces (empty for none).
    pub opening: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// White's points: 1, 0.5 or 0.
    pub score_white: f64,
    /// How it ended: the game's own word (YINSH: `three_rings`,
    /// `pool_empty`, `double_pass`, `resign`), `end`, or `forfeit`.
    pub reason: String,
    /// Decisions played, the opening's included.
    pub length: usize,
    #[serde(default)]
    pub forfeit: Option<Forfeit>,
    /// The game's seed (players' seeds derive from it) and the run's.
    pub seed: u64,
    pub arena_seed: u64,
    /// The game's name; records written before games had names are YINSH.
    #[serde(default = "yinsh_name")]
    pub game: String,
    /// The game's variant (YINSH: `standard` or `blitz`).
    pub variant: String,
    /// What each side searched, where its player reports it (absent in
    /// records written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort_white: Option<Effort>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort_black: Option<Effort>,
}

fn yinsh_name() -> String {
    "yinsh".into()
}

impl ArenaGame {
    /// Whether this record is of the game `scheduled` (a record of the
    /// schedule before it was played): same place in the same schedule,
    /// players, colours, opening, seed and rules.
    fn is_scheduled_as(&self, scheduled: &ArenaGame) -> bool {
        self.index == scheduled.index
            && self.arena_seed == scheduled.arena_seed
            && self.seed == scheduled.seed
            && self.first == scheduled.first
            && self.second == scheduled.second
            && self.white == scheduled.white
            && self.black == scheduled.black
            && self.first_white == scheduled.first_white
            && self.opening == scheduled.opening
            && self.game == scheduled.game
            && self.variant == scheduled.variant
    }

    /// Keeps White's and Black's tallies (indexed by [`Color::index`]),
    /// each only if its player reported a count.
    pub(crate) fn set_effort(&mut self, effort: [Effort; 2]) {
        self.effort_white = effort[Color::White.index()].reported();
        self.effort_black = effort[Color::Black.index()].reported();
    }

    /// What the first and the second player searched, where reported.
    pub fn efforts(&self) -> (Option<Effort>, Option<Effort>) {
        if self.first_white {
            (self.effort_white, self.effort_black)
        } else {
            (self.effort_black, self.effort_white)
        }
    }

    /// The first player's points.
    pub fn score_first(&self) -> f64 {
        if self.first_white {
            self.score_white
        } else {
            1.0 - self.score_white
        }
    }
}

/// Plays one game from `start` through `opening` (which both players
/// observe, as if played) to the end. A player that fails or chooses an
/// illegal action loses by forfeit: the error comes back along with the
/// decisions played and White's and Black's search effort after the
/// opening. The end is the final position's result.
///
/// ```
/// use yinsh_zero::arena::{RandomPlayer, play_from_opening};
/// use yinsh_zero::game::State;
/// use yinsh_zero::games::yinsh::{Action, Position, parse_player};
///
/// let opening = [Action::Place("e3".parse().unwrap())];
/// let mut w = RandomPlayer::new(1);
/// let mut b = parse_player("alphabeta:depth=1", 2).unwrap();
/// let (actions, effort, end) = play_from_opening(&mut w, b.as_mut(), Position::new(), &opening);
/// let last = end.unwrap();
/// assert_eq!(effort[0].decisions, 0); // random reports no search
/// assert!(effort[1].decisions > 0 && effort[1].nodes >= effort[1].decisions as u64);
/// assert_eq!(actions[0].to_string(), "e3");
/// let mut pos = Position::new();
/// for a in &actions { pos.play(*a).unwrap(); }
/// assert_eq!(pos, last);
/// assert!(last.result().is_some());
/// ```
pub fn play_from_opening<S: State>(
    white: &mut dyn Player<S>,
    black: &mut dyn Player<S>,
    start: S,
    opening: &[S::Action],
) -> (Vec<S::Action>, [Effort; 2], Result<S, PlayError>) {
    white.new_game(&start);
    black.new_game(&start);
    let mut pos = start;
    let mut actions = Vec::with_capacity(128);
    for &a in opening {
        let before = pos.clone();
        if pos.play(a).is_err() {
            // Openings are checked when configured; an illegal one here is
            // a bug in the caller.
            panic!(
                "opening decision `{a}` is illegal at step {}",
                actions.len()
            );
        }
        white.observe(&before, a);
        black.observe(&before, a);
        actions.push(a);
    }
    let mut effort = [Effort::default(); 2];
    let result =
        super::game::play_out(white, black, &mut pos, &mut actions, &mut effort).map(|_| pos);
    (actions, effort, result)
}

/// The results of one pairing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairingResult {
    pub first: String,
    pub second: String,
    /// From the first player's point of view.
    pub results: PairResults,
    pub first_as_white: PairResults,
    pub first_as_black: PairResults,
    pub score: f64,
    /// 95% interval of the first player's score.
    pub score_low: f64,
    pub score_high: f64,
    /// Elo difference implied by the score and by the interval's ends
    /// (infinite for a sweep, written as null in JSON).
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// Games lost by forfeit by the first / second player.
    pub forfeits_first: u32,
    pub forfeits_second: u32,
    /// What the first / second player searched a decision on average
    /// (simulations, or alpha-beta's positions), over the games whose
    /// records say; none where its player reports no count.
    pub nodes_first: Option<f64>,
    pub nodes_second: Option<f64>,
    /// The leaves the first / second player handed its evaluator a
    /// decision on average (the network's or the playouts' work), where
    /// every decision with a count reported them: unlike the nodes, what
    /// a time limit bought on the machine that played.
    pub evaluations_first: Option<f64>,
    pub evaluations_second: Option<f64>,
}

impl PairingResult {
    /// Tallies `games` (all of this pairing).
    pub fn from_games(first: &str, second: &str, games: &[&ArenaGame]) -> PairingResult {
        let mut r = PairingResult {
            first: first.into(),
            second: second.into(),
            results: PairResults::default(),
            first_as_white: PairResults::default(),
            first_as_black: PairResults::default(),
            score: 0.5,
            score_low: 0.0,
            score_high: 1.0,
            elo: 0.0,
            elo_low: f64::NEG_INFINITY,
            elo_high: f64::INFINITY,
            forfeits_first: 0,
            forfeits_second: 0,
            nodes_first: None,
            nodes_second: None,
            evaluations_first: None,
            evaluations_second: None,
        };
        let (mut effort_first, mut effort_second) = (Effort::default(), Effort::default());
        for g in games {
            let (first, second) = g.efforts();
            effort_first.merge(first.unwrap_or_default());
            effort_second.merge(second.unwrap_or_default());
            let s = g.score_first();
            let first_white = g.first_white;
            r.results.add_points(s);
            if first_white {
                r.first_as_white.add_points(s);
            } else {
                r.first_as_black.add_points(s);
            }
            if let Some(f) = &g.forfeit {
                let white_failed = f.side == "white";
                if white_failed == first_white {
                    r.forfeits_first += 1;
                } else {
                    r.forfeits_second += 1;
                }
            }
        }
        r.nodes_first = effort_first.per_decision();
        r.nodes_second = effort_second.per_decision();
        r.evaluations_first = effort_first.evaluations_per_decision();
        r.evaluations_second = effort_second.evaluations_per_decision();
        r.score = r.results.score();
        (r.score_low, r.score_high) = r.results.score_interval();
        r.elo = elo_from_score(r.score);
        r.elo_low = elo_from_score(r.score_low);
        r.elo_high = elo_from_score(r.score_high);
        r
    }
}

/// Where a two-player match stopped under an SPRT.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    pub sprt: Sprt,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub verdict: Verdict,
    pub games: u32,
}

/// Everything an arena run played.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaResult {
    pub seed: u64,
    pub pairings: Vec<PairingResult>,
    /// Every game, in schedule order.
    pub games: Vec<ArenaGame>,
    pub sprt: Option<SprtReport>,
    /// How many of `games` were taken from earlier records
    /// ([`resume_arena`]) rather than played.
    pub resumed: usize,
}

impl PairingResult {
    /// One result per pairing, in `pairs` order, from the games between
    /// each pair (`first` vs `second` as named in the game records).
    pub fn group(pairs: &[(String, String)], games: &[ArenaGame]) -> Vec<PairingResult> {
        pairs
            .iter()
            .map(|(a, b)| {
                let mine: Vec<&ArenaGame> = games
                    .iter()
                    .filter(|g| &g.first == a && &g.second == b)
                    .collect();
                PairingResult::from_games(a, b, &mine)
            })
            .collect()
    }
}

impl ArenaResult {
    /// The games that ended by forfeit.
    pub fn forfeits(&self) -> impl Iterator<Item = &ArenaGame> {
        self.games.iter().filter(|g| g.forfeit.is_some())
    }
}

/// Why an arena could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("the arena needs at least two players (or a gauntlet player and one opponent)")]
    TooFewPlayers,
    #[error("--games must be at least 1")]
    NoGames,
    #[error("an SPRT needs exactly one pairing, this arena has {0}")]
    SprtNeedsOnePairing(usize),
}

/// Plays the arena described by `config`, its games in parallel on the
/// current rayon pool, building players with `factory`.
///
/// Game `k` of the schedule is seeded from `sub_seed(config.seed, k)`, its
/// players from that, and openings from the seed alone, so results depend
/// only on the config, never on the number of threads; with an SPRT, the
/// match stops at the first game (in schedule order) after which the test
/// decides. `progress` sees each batch of finished games in order (for
/// writing them out as they come).
///
/// ```
/// use yinsh_zero::arena::{ArenaConfig, parse_game_player, run_arena};
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let config = ArenaConfig::round_robin(Yinsh::standard(), &["random", "greedy"], 4, 7);
/// let yinsh = Yinsh::standard();
/// let factory =
///     |spec: &str, seed: u64| parse_game_player(&yinsh, spec, seed).map_err(|e| e.to_string());
/// let r = run_arena(&config, &factory, &mut |_| {}).unwrap();
/// assert_eq!(r.games.len(), 4);
/// assert_eq!(r.pairings[0].first_as_white.games(), 2);
/// // Game 1 repeats game 0's opening with colours swapped.
/// assert_eq!(r.games[0].opening, r.games[1].opening);
/// assert_eq!(r.games[0].white, r.games[1].black);
/// ```
pub fn run_arena<G: Game>(
    config: &ArenaConfig<G>,
    factory: &PlayerFactory<G::State>,
    progress: &mut dyn FnMut(&[ArenaGame]),
) -> Result<ArenaResult, ArenaError> {
    resume_arena(config, factory, &[], progress, &|| false)
}

/// [`run_arena`], taking the games of the schedule that `recorded` already
/// holds instead of playing them again: a game counts as recorded when its
/// index, seeds, players, colours, opening and variant all match (so an
/// interrupted `evaluate` rerun with the same seed and players picks up
/// where it stopped). Forfeits are played again, since the failure may have
/// been passing (an external program's crash). `progress` sees only the
/// games played now; the result holds them all, in schedule order. Once
/// `should_stop` says so (it is asked between batches of a few games per
/// thread), the arena ends early with the games played so far.
///
/// ```
/// use yinsh_zero::arena::{ArenaConfig, parse_game_player, resume_arena, run_arena};
/// use yinsh_zero::games::yinsh::Yinsh;
///
/// let config = ArenaConfig::round_robin(Yinsh::standard(), &["random", "greedy"], 6, 7);
/// let yinsh = Yinsh::standard();
/// let factory =
///     |spec: &str, seed: u64| parse_game_player(&yinsh, spec, seed).map_err(|e| e.to_string());
/// let all = run_arena(&config, &factory, &mut |_| {}).unwrap();
/// let mut fresh = 0;
/// let resumed = resume_arena(&config, &factory, &all.games[..4], &mut |b| fresh += b.len(), &|| false)
///     .unwrap();
/// assert_eq!(resumed.games, all.games);
/// assert_eq!((resumed.resumed, fresh), (4, 2));
/// ```
pub fn resume_arena<G: Game>(
    config: &ArenaConfig<G>,
    factory: &PlayerFactory<G::State>,
    recorded: &[ArenaGame],
    progress: &mut dyn FnMut(&[ArenaGame]),
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<ArenaResult, ArenaError> {
    let pairings = config.pairings();
    if pairings.is_empty() {
        return Err(ArenaError::TooFewPlayers);
    }
    if config.games == 0 {
        return Err(ArenaError::NoGames);
    }
    if config.sprt.is_some() && pairings.len() != 1 {
        return Err(ArenaError::SprtNeedsOnePairing(pairings.len()));
    }
    let total = config.games as usize * pairings.len();
    // Batches bound the games wasted past an SPRT decision and how often
    // progress is reported; they never change a game's result.
    let batch = (rayon::current_num_threads() * 4).max(8);
    let mut games: Vec<ArenaGame> = Vec::with_capacity(total);
    let mut tracker = config.sprt.map(SprtTracker::new);
    let recorded = Recorded::new(config, recorded);
    let mut resumed = 0;
    'batches: for start in (0..total).step_by(batch) {
        if should_stop() {
            break;
        }
        let end = (start + batch).min(total);
        let played: Vec<(ArenaGame, bool)> = (start..end)
            .into_par_iter()
            .map(|k| {
                let scheduled = schedule(config, &pairings, k);
                match recorded.find(&scheduled.game) {
                    Some(g) => (g.clone(), true),
                    None => (play_scheduled(config, scheduled, factory), false),
                }
            })
            .collect();
        let mut kept = played.len();
        let mut decided = false;
        if let Some(t) = &mut tracker {
            for (n, (g, _)) in played.iter().enumerate() {
                if t.add(g) {
                    kept = n + 1;
                    decided = true;
                    break;
                }
            }
        }
        let fresh: Vec<ArenaGame> = played[..kept]
            .iter()
            .filter(|(_, old)| !old)
            .map(|(g, _)| g.clone())
            .collect();
        resumed += kept - fresh.len();
        if !fresh.is_empty() {
            progress(&fresh);
        }
        games.extend(played.into_iter().take(kept).map(|(g, _)| g));
        if decided {
            break 'batches;
        }
    }
    let pairing_results = PairingResult::group(&pairings, &games);
    Ok(ArenaResult {
        seed: config.seed,
        pairings: pairing_results,
        games,
        sprt: tracker.and_then(|t| t.report),
        resumed,
    })
}

/// Earlier records of an arena's games, by place in the schedule.
struct Recorded<'a>(HashMap<u32, Vec<&'a ArenaGame>>);

impl<'a> Recorded<'a> {
    fn new<G: Game>(config: &ArenaConfig<G>, games: &'a [ArenaGame]) -> Recorded<'a> {
        let mut by_index: HashMap<u32, Vec<&ArenaGame>> = HashMap::new();
        for g in games {
            if g.arena_seed == config.seed && g.forfeit.is_none() {
                by_index.entry(g.index).or_default().push(g);
            }
        }
        Recorded(by_index)
    }

    /// The record of the game `scheduled` (not yet played), if any.
    fn find(&self, scheduled: &ArenaGame) -> Option<&'a ArenaGame> {
        self.0
            .get(&scheduled.index)?
            .iter()
            .find(|g| g.is_scheduled_as(scheduled))
            .copied()
    }
}

impl<G: Game> ArenaConfig<G> {
    /// How many games of this schedule `recorded` already holds: those
    /// [`resume_arena`] takes instead of playing.
    pub fn recorded_games(&self, recorded: &[ArenaGame]) -> usize {
        let found = Recorded::new(self, recorded);
        let pairings = self.pairings();
        if pairings.is_empty() {
            return 0;
        }
        (0..self.games as usize * pairings.len())
            .filter(|&k| found.find(&schedule(self, &pairings, k).game).is_some())
            .count()
    }
}

/// An SPRT fed one game at a time, in schedule order.
pub(crate) struct SprtTracker {
    sprt: Sprt,
    running: PairResults,
    pub report: Option<SprtReport>,
}

impl SprtTracker {
    pub fn new(sprt: Sprt) -> SprtTracker {
        SprtTracker {
            sprt,
            running: PairResults::default(),
            report: None,
        }
    }

    /// Counts `game` (from its first player's view); true once decided.
    pub fn add(&mut self, game: &ArenaGame) -> bool {
        self.running.add_points(game.score_first());
        let verdict = self.sprt.verdict(&self.running);
        let (lo, hi) = self.sprt.bounds();
        self.report = Some(SprtReport {
            sprt: self.sprt,
            llr: self.sprt.llr(&self.running),
            lower_bound: lo,
            upper_bound: hi,
            verdict,
            games: self.running.games(),
        });
        verdict != Verdict::Continue
    }
}

/// Game `k` of a schedule, before it is played.
#[derive(Clone, Debug)]
pub(crate) struct ScheduledGame<A> {
    /// The record, its result still to be filled in by [`ArenaGame::finish`].
    pub game: ArenaGame,
    pub opening: Vec<A>,
    /// Seeds of the first and second player of the pairing.
    pub seeds: [u64; 2],
}

/// Game `k` of `config`'s schedule: which pairing, which colours, which
/// opening and which seeds (all from the config alone).
pub(crate) fn schedule<G: Game>(
    config: &ArenaConfig<G>,
    pairings: &[(String, String)],
    k: usize,
) -> ScheduledGame<ActionOf<G>> {
    let p = k % pairings.len();
    let g = (k / pairings.len()) as u32;
    let (first, second) = &pairings[p];
    let first_white = !config.alternate || g.is_multiple_of(2);
    let opening = config.opening(g / 2);
    let seed = sub_seed(config.seed, k as u64);
    let (white, black) = if first_white {
        (first, second)
    } else {
        (second, first)
    };
    let game = ArenaGame {
        index: k as u32,
        first: first.clone(),
        second: second.clone(),
        white: white.clone(),
        black: black.clone(),
        first_white,
        opening: opening
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        result: String::new(),
        score_white: 0.5,
        reason: String::new(),
        length: 0,
        forfeit: None,
        seed,
        arena_seed: config.seed,
        game: G::NAME.into(),
        variant: config.game.variant().into(),
        effort_white: None,
        effort_black: None,
    };
    ScheduledGame {
        game,
        opening,
        seeds: [sub_seed(seed, 0), sub_seed(seed, 1)],
    }
}

impl ArenaGame {
    /// Fills in how the game ended after `length` decisions: in the final
    /// position `last`, or by a forfeit of the side that failed.
    pub(crate) fn finish<S: State>(&mut self, length: usize, end: Result<&S, (Color, String)>) {
        self.length = length;
        match end {
            Ok(last) => {
                let result: GameResult = last.result().expect("a finished game");
                self.score_white = (result.score_for(Color::White) as f64 + 1.0) / 2.0;
                self.reason = last.end_reason().unwrap_or("end").into();
            }
            Err((side, error)) => {
                self.score_white = if side == Color::White { 0.0 } else { 1.0 };
                self.reason = "forfeit".into();
                self.forfeit = Some(Forfeit {
                    side: side.to_string(),
                    player: if side == Color::White {
                        self.white.clone()
                    } else {
                        self.black.clone()
                    },
                    error,
                });
            }
        }
        self.result = match self.score_white {
            s if s > 0.75 => "1-0",
            s if s < 0.25 => "0-1",
            _ => "1/2-1/2",
        }
        .into();
    }
}

/// Plays a game of the schedule.
fn play_scheduled<G: Game>(
    config: &ArenaConfig<G>,
    scheduled: ScheduledGame<ActionOf<G>>,
    factory: &PlayerFactory<G::State>,
) -> ArenaGame {
    let ScheduledGame {
        mut game,
        opening,
        seeds,
    } = scheduled;
    let (white_seed, black_seed) = if game.first_white {
        (seeds[0], seeds[1])
    } else {
        (seeds[1], seeds[0])
    };
    match (
        factory(&game.white, white_seed),
        factory(&game.black, black_seed),
    ) {
        (Err(e), _) => game.finish::<G::State>(0, Err((Color::White, e))),
        (_, Err(e)) => game.finish::<G::State>(0, Err((Color::Black, e))),
        (Ok(mut w), Ok(mut b)) => {
            let (actions, effort, end) =
                play_from_opening(w.as_mut(), b.as_mut(), config.game.start(), &opening);
            game.set_effort(effort);
            let end = end.map_err(|e| (e.colour(), e.to_string()));
            game.finish(actions.len(), end.as_ref().map_err(Clone::clone));
        }
    }
    game
}

/// Fits Elo ratings to `games`, anchored at `random` when it played, else
/// at `fallback_anchor`. Returns the fit and the anchor used.
pub fn fit_games(games: &[ArenaGame], fallback_anchor: &str) -> Result<EloFit, EloError> {
    let mut table = ResultTable::new();
    for g in games {
        table.add_game(&g.white, &g.black, g.score_white);
    }
    let anchor = if table.players().iter().any(|p| p == "random") {
        "random"
    } else {
        fallback_anchor
    };
    table.fit_elo(anchor)
}

/// A history file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("{path}, line {line}: not a game record: {error}")]
    Parse {
        path: PathBuf,
        line: usize,
        error: serde_json::Error,
    },
}

/// Every game recorded in the `*.jsonl` files of `dir` (usually
/// `<run>/eval`), files in name order. A missing folder has no games.
pub fn read_history(dir: &Path) -> Result<Vec<ArenaGame>, HistoryError> {
    let io_err = |path: &Path, error| HistoryError::Io {
        path: path.to_path_buf(),
        error,
    };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir, e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut games = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let g = serde_json::from_str(line).map_err(|error| HistoryError::Parse {
                path: path.clone(),
                line: i + 1,
                error,
            })?;
            games.push(g);
        }
    }
    Ok(games)
}

/// A fresh file name in `dir` for this run's games: one past the highest
/// numbered `NNNNNN-*.jsonl` there, with the process id so that two runs
/// started together do not collide.
pub fn new_history_file(dir: &Path) -> PathBuf {
    let next = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    name.split(['-', '.']).next()?.parse::<u64>().ok()
                })
                .max()
                .map_or(1, |n| n + 1)
        })
        .unwrap_or(1);
    dir.join(format!("{next:06}-{}.jsonl", std::process::id()))
}

/// Writes `games` as JSON lines to `path`, atomically (a reader sees the
/// old file or the new one, never half of it).
pub fn write_history(path: &Path, games: &[ArenaGame]) -> Result<(), HistoryError> {
    let mut text = String::new();
    for g in games {
        text += &serde_json::to_string(g).expect("game records serialize");
        text.push('\n');
    }
    write_atomic(path, text.as_bytes()).map_err(|error| HistoryError::Io {
        path: path.to_path_buf(),
        error,
    })
}
