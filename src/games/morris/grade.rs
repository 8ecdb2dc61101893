//! Grading a Morris player against perfect play: how often its decisions
//! keep the game-theoretic value, how well a network's value head knows
//! the values, and its score against the database's own player.
//!
//! Decisions are graded where they matter too: a *critical* position is one
//! where some legal action changes the value (a win can be thrown away, a
//! draw lost). Everywhere else every action keeps the value and a grade
//! says nothing.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::perfect::PerfectPlayer;
use crate::arena::Player;
use crate::arena::grade::share;
use crate::arena::{PlayError, play_game};
use crate::evaluator::Evaluator;
use crate::game::{Color, Game, GameResult, State, random_opening};
use crate::games::morris::address::Layer;
use crate::games::morris::db::{Database, DbError, Outcome};
use crate::games::morris::{Morris, Parts, Position};
use crate::util::sub_seed;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct GradeOptions {
    /// Games of the player against itself whose decisions are graded.
    pub own_games: usize,
    /// Positions from random play on which the player is asked to decide.
    pub random_positions: usize,
    /// Games against the perfect player (colours alternated).
    pub perfect_games: usize,
    /// Random decisions opening each of the player's own games, so that
    /// they differ. Games against the perfect player start from the empty
    /// board (the perfect player breaks ties at random).
    pub random_opening: u32,
    /// Positions drawn from the database's solved moving-phase layers (the
    /// endgame of Nine Men's Morris, which the player's own games and
    /// random play seldom reach): each solved layer equally likely, each of
    /// its states equally likely, in a random one of its symmetric forms,
    /// either colour to move.
    pub endgame_positions: usize,
    pub seed: u64,
}

/// Graded decisions of one sample of positions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Decisions in positions the database values.
    pub decisions: u64,
    /// ... whose action keeps the position's outcome (win, draw, loss).
    pub preserving: u64,
    /// ... whose action is one of the database's best (fastest win,
    /// slowest loss).
    pub optimal: u64,
    /// Decisions where some legal action changes the outcome.
    pub critical: u64,
    /// ... and this one does not.
    pub critical_preserving: u64,
    /// Decisions in positions outside the solved layers (not graded).
    pub unsolved: u64,
}

impl Tally {
    /// The two samples' decisions together.
    pub fn merged(&self, o: &Tally) -> Tally {
        Tally {
            decisions: self.decisions + o.decisions,
            preserving: self.preserving + o.preserving,
            optimal: self.optimal + o.optimal,
            critical: self.critical + o.critical,
            critical_preserving: self.critical_preserving + o.critical_preserving,
            unsolved: self.unsolved + o.unsolved,
        }
    }

    /// Share of value-keeping decisions.
    pub fn preserving_share(&self) -> f64 {
        share(self.preserving, self.decisions)
    }

    pub fn optimal_share(&self) -> f64 {
        share(self.optimal, self.decisions)
    }

    pub fn critical_share(&self) -> f64 {
        share(self.critical_preserving, self.critical)
    }
}

/// A value head's verdicts against the database's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ValueTally {
    /// `confusion[truth][guess]`, outcomes in the order win, draw, loss for
    /// the player to act; the guess is the most probable of the head's
    /// three.
    pub confusion: [[u64; 3]; 3],
}

impl ValueTally {
    pub fn positions(&self) -> u64 {
        self.confusion.iter().flatten().sum()
    }

    pub fn correct(&self) -> u64 {
        (0..3).map(|k| self.confusion[k][k]).sum()
    }

    pub fn accuracy(&self) -> f64 {
        share(self.correct(), self.positions())
    }
}

/// A player's score against perfect play.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VersusPerfect {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// Everything [`grade`] measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GradeReport {
    /// Decisions of the player's games against itself.
    pub own_games: Tally,
    /// Decisions on positions from random play.
    pub random_positions: Tally,
    /// Decisions on positions drawn from the solved moving-phase layers,
    /// by layer (`a:b`: the mover's stones, the opponent's).
    pub endgame: BTreeMap<String, Tally>,
    /// The network's value head on the own-game and random positions,
    /// where one was given.
    pub value_head: Option<ValueTally>,
    /// ... and on the endgame positions.
    pub endgame_value_head: Option<ValueTally>,
    pub versus_perfect: VersusPerfect,
    /// The player's own decisions in its games against the perfect player:
    /// where a lost game was thrown away.
    pub versus_perfect_decisions: Tally,
    /// A few value-losing decisions, for people to look at: the position,
    /// the action and what it turned.
    pub mistakes: Vec<String>,
    /// ... and a few of its games against the perfect player.
    pub versus_perfect_mistakes: Vec<String>,
}

fn outcome_index(o: Outcome) -> usize {
    match o {
        Outcome::Win => 0,
        Outcome::Draw => 1,
        Outcome::Loss => 2,
    }
}

/// Why grading stopped.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("{0}")]
    Player(String),
    #[error("{0}")]
    NoEndgame(String),
}

const MISTAKES_KEPT: usize = 10;

/// Decisions the perfect player searches where the database has no answer
/// (the `perfect` spec's default).
const PERFECT_DEPTH: u32 = 4;

/// Grades one decision: `action` chosen in `pos`.
fn grade_decision(
    db: &Database,
    pos: &Position,
    action: <Position as State>::Action,
    tally: &mut Tally,
    mistakes: &mut Vec<String>,
) -> Result<(), DbError> {
    let values = match db.action_values(pos) {
        Ok(v) => v,
        Err(e) if e.is_not_solved() => {
            tally.unsolved += 1;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let best = values
        .iter()
        .map(|(_, v)| v.rank())
        .max()
        .expect("a legal action");
    let truth = values
        .iter()
        .find(|(_, v)| v.rank() == best)
        .map(|(_, v)| v.outcome)
        .expect("a best action");
    let chosen = values
        .iter()
        .find(|(a, _)| *a == action)
        .map(|(_, v)| *v)
        .expect("the chosen action is legal");
    tally.decisions += 1;
    let keeps = chosen.outcome == truth;
    tally.preserving += u64::from(keeps);
    tally.optimal += u64::from(chosen.rank() == best);
    if values.iter().any(|(_, v)| v.outcome != truth) {
        tally.critical += 1;
        tally.critical_preserving += u64::from(keeps);
    }
    if !keeps && mistakes.len() < MISTAKES_KEPT {
        let best_value = values.iter().find(|(_, v)| v.rank() == best).unwrap().1;
        mistakes.push(format!(
            "{pos}\nply {}: played {action} ({chosen}) where {best_value} was there",
            pos.parts().ply
        ));
    }
    Ok(())
}

/// `player`'s decision in `pos`, met fresh (no game before it).
fn decide(
    player: &mut dyn Player<Position>,
    pos: &Position,
) -> Result<<Position as State>::Action, GradeError> {
    player.new_game(pos);
    let action = player
        .try_choose(pos)
        .map_err(|e| GradeError::Player(e.to_string()))?;
    if !pos.is_legal(action) {
        return Err(GradeError::Player(format!(
            "`{}` chose the illegal {action} in\n{pos}",
            player.name()
        )));
    }
    Ok(action)
}

/// The value head's verdicts on every position of `positions` the
/// database knows.
fn judge_values(
    db: &Database,
    head: &mut dyn Evaluator<Position>,
    positions: Vec<Position>,
) -> Result<ValueTally, GradeError> {
    let mut tally = ValueTally::default();
    let mut known = Vec::new();
    let mut truths = Vec::new();
    for pos in positions {
        match db.value(&pos) {
            Ok(v) => {
                truths.push(outcome_index(v.outcome));
                known.push(pos);
            }
            Err(e) if e.is_not_solved() => {}
            Err(e) => return Err(e.into()),
        }
    }
    for (chunk, truth) in known.chunks(256).zip(truths.chunks(256)) {
        for (ev, &t) in head.evaluate(chunk).iter().zip(truth) {
            let guess = (0..3)
                .max_by(|&a, &b| ev.wdl[a].total_cmp(&ev.wdl[b]))
                .expect("three outcomes");
            tally.confusion[t][guess] += 1;
        }
    }
    Ok(tally)
}

/// `n` positions between turns from the solved moving-phase layers (see
/// [`GradeOptions::endgame_positions`]); states that are already over (the
/// mover cannot move) are drawn again.
fn endgame_sample(
    game: &Morris,
    db: &Database,
    n: usize,
    rng: &mut SmallRng,
) -> Result<Vec<Position>, GradeError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut layers: Vec<Layer> = db.layers().filter(|l| l.is_moving()).collect();
    layers.sort();
    let mut solved = Vec::new();
    for l in layers {
        let s = db.layer(l)?;
        if !s.index.is_empty() {
            solved.push(s);
        }
    }
    if solved.is_empty() {
        return Err(GradeError::NoEndgame(format!(
            "the database at {} has no solved moving-phase layer to draw endgame positions from",
            db.dir().display()
        )));
    }
    let geo = game.rules.geometry();
    let mut out = Vec::with_capacity(n);
    // Blocked states are rare, but a layer of nothing else would loop.
    let mut tries = 0usize;
    while out.len() < n {
        tries += 1;
        if tries > 1000 * n {
            return Err(GradeError::NoEndgame(format!(
                "only {} of {n} endgame positions found: the solved layers hold almost no playable state",
                out.len()
            )));
        }
        let s = &solved[rng.random_range(0..solved.len())];
        let (m, o) = s.index.masks(rng.random_range(0..s.index.len()) as u32);
        let sym = &geo.symmetries[rng.random_range(0..geo.symmetries.len())];
        let to_act = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        let mut stones = [0; 2];
        stones[to_act.index()] = sym.map(m);
        stones[(!to_act).index()] = sym.map(o);
        let parts = Parts {
            stones,
            hand: [0, 0],
            to_act,
            removing: false,
            // Every stone placed and some taken: a ply count a game could show.
            ply: 2 * u32::from(geo.stones)
                + 2 * (2 * u32::from(geo.stones) - m.count_ones() - o.count_ones()),
            quiet: 0,
            reps: 1,
        };
        if let Ok(pos) = Position::from_parts(game.rules, parts) {
            out.push(pos);
        }
    }
    Ok(out)
}

/// Grades the player that `make_player(seed)` builds against the database
/// `db`; `value_head`, where given, is judged on every graded position.
pub fn grade(
    game: &Morris,
    db: &Arc<Database>,
    make_player: &mut dyn FnMut(u64) -> Result<Box<dyn Player<Position>>, String>,
    value_head: Option<&mut dyn Evaluator<Position>>,
    opts: &GradeOptions,
) -> Result<GradeReport, GradeError> {
    let mut report = GradeReport::default();
    let mut rng = SmallRng::seed_from_u64(sub_seed(opts.seed, 0x6ead));
    let mut judged: Vec<Position> = Vec::new();

    // The player's own games: both sides are the player.
    for g in 0..opts.own_games {
        let mut p = [
            make_player(sub_seed(opts.seed, 2 * g as u64)).map_err(GradeError::Player)?,
            make_player(sub_seed(opts.seed, 2 * g as u64 + 1)).map_err(GradeError::Player)?,
        ];
        let opening = random_opening(&game.start(), opts.random_opening, &mut rng);
        let mut pos = game.start();
        for a in opening {
            pos.play_unchecked(a);
        }
        let [white, black] = &mut p;
        let record = play_game(white.as_mut(), black.as_mut(), pos)?;
        let mut pos = record.start.clone();
        for &a in &record.actions {
            grade_decision(db, &pos, a, &mut report.own_games, &mut report.mistakes)?;
            judged.push(pos.clone());
            pos.play_unchecked(a);
        }
    }

    // Positions from random play, each decided by a fresh player.
    let mut player = make_player(sub_seed(opts.seed, 0x7a4d)).map_err(GradeError::Player)?;
    let mut found = 0;
    while found < opts.random_positions {
        let mut pos = game.start();
        let stop = rng.random_range(0..120);
        for _ in 0..stop {
            let legal = pos.legal_actions();
            let mut next = pos.clone();
            next.play_unchecked(legal[rng.random_range(0..legal.len())]);
            if next.is_over() {
                break;
            }
            pos = next;
        }
        let action = decide(player.as_mut(), &pos)?;
        grade_decision(
            db,
            &pos,
            action,
            &mut report.random_positions,
            &mut report.mistakes,
        )?;
        judged.push(pos);
        found += 1;
    }

    let endgame = endgame_sample(game, db, opts.endgame_positions, &mut rng)?;
    for pos in &endgame {
        let action = decide(player.as_mut(), pos)?;
        let (layer, ..) = crate::games::morris::address::locate(pos).map_err(GradeError::Player)?;
        let tally = report
            .endgame
            .entry(format!("{}:{}", layer.a, layer.b))
            .or_default();
        grade_decision(db, pos, action, tally, &mut report.mistakes)?;
    }

    if let Some(head) = value_head {
        report.value_head = Some(judge_values(db, &mut *head, judged)?);
        if !endgame.is_empty() {
            report.endgame_value_head = Some(judge_values(db, head, endgame)?);
        }
    }

    // Against the perfect player, colours alternated.
    for g in 0..opts.perfect_games {
        let mut me =
            make_player(sub_seed(opts.seed, 0x9e4f_0000 + g as u64)).map_err(GradeError::Player)?;
        let mut perfect = PerfectPlayer::new(
            db.clone(),
            PERFECT_DEPTH,
            "perfect".into(),
            sub_seed(opts.seed, 0x9e4f_8000 + g as u64),
        );
        let pos = game.start();
        let my_colour = if g % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let record = if my_colour == Color::White {
            play_game(me.as_mut(), &mut perfect, pos)?
        } else {
            play_game(&mut perfect, me.as_mut(), pos)?
        };
        let mut pos = record.start.clone();
        for &a in &record.actions {
            if pos.to_act() == my_colour {
                grade_decision(
                    db,
                    &pos,
                    a,
                    &mut report.versus_perfect_decisions,
                    &mut report.versus_perfect_mistakes,
                )?;
            }
            pos.play_unchecked(a);
        }
        let v = &mut report.versus_perfect;
        match record.result {
            GameResult::Draw => v.draws += 1,
            GameResult::Win(c) if c == my_colour => v.wins += 1,
            GameResult::Win(_) => v.losses += 1,
        }
    }
    Ok(report)
}
