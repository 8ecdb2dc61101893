//! An evaluation: a tournament whose games are recorded in a run's
//! evaluation folder (`<run>/eval/*.jsonl`) as they finish, which takes
//! the games of its own schedule recorded there already instead of
//! playing them again, and rates the players over this evaluation's games
//! and over every recorded game. It is `yinsh-zero evaluate`'s work, here
//! so that the command only parses, calls and prints.

use std::path::{Path, PathBuf};

use super::elo::{EloError, EloFit};
use super::tournament::{
    ArenaConfig, ArenaGame, ArenaResult, HistoryError, PlayerFactory, fit_games, new_history_file,
    read_history, resume_arena, write_history,
};
use crate::game::Game;

/// The games of game `G` recorded in `dir`, and how many records of other
/// games (an evaluation folder shared between games) were left out.
pub fn history_of<G: Game>(dir: &Path) -> Result<(Vec<ArenaGame>, usize), HistoryError> {
    let mut games = read_history(dir)?;
    let before = games.len();
    games.retain(|g| g.game == G::NAME);
    let left_out = before - games.len();
    Ok((games, left_out))
}

impl<G: Game> ArenaConfig<G> {
    /// Checks the schedule before anything is played: a round robin names
    /// at least two players, none twice, and an SPRT decides one pairing.
    pub fn check(&self) -> Result<(), String> {
        let players = &self.players;
        if self.gauntlet.is_none() {
            if players.len() < 2 {
                return Err(format!(
                    "a round robin needs at least two players, got {players:?}"
                ));
            }
            let mut seen = players.clone();
            seen.sort();
            seen.dedup();
            if seen.len() != players.len() {
                return Err(format!("a player is listed twice in {players:?}"));
            }
        }
        let pairings = self.pairings().len();
        if self.sprt.is_some() && pairings != 1 {
            return Err(format!(
                "--sprt needs exactly two players (one pairing), got {pairings} pairings"
            ));
        }
        Ok(())
    }
}

/// An evaluation ready to play: its schedule and what its folder holds.
pub struct RecordedTournament<'a, G: Game> {
    config: &'a ArenaConfig<G>,
    /// The games rated beside this evaluation's (and taken where they are
    /// of its schedule).
    history: Vec<ArenaGame>,
    /// The new file this evaluation's games go to, if it records them.
    history_file: Option<PathBuf>,
    /// Records of other games left out of `history`.
    left_out: usize,
}

/// What an evaluation played and how it rates the players.
pub struct Evaluated {
    /// Every game of the schedule that is done (taken or played), in
    /// schedule order, with the pairing tables and the SPRT.
    pub result: ArenaResult,
    /// The games played now, in the order they finished.
    pub played: Vec<ArenaGame>,
    /// Ratings from this evaluation's games only.
    pub this_run: Result<EloFit, EloError>,
    /// Ratings from every recorded game and the games played now; the same
    /// as `this_run` when nothing was recorded before.
    pub overall: Result<EloFit, EloError>,
    /// Whether earlier games were folded into `overall`.
    pub folded: bool,
    /// The games `overall` rates.
    pub rated: usize,
}

impl<'a, G: Game> RecordedTournament<'a, G> {
    /// An evaluation of `config` recording its games in `eval_dir`, if
    /// given, and rating them together with the games recorded there
    /// unless `fold_history` is false.
    pub fn open(
        config: &'a ArenaConfig<G>,
        eval_dir: Option<&Path>,
        fold_history: bool,
    ) -> Result<RecordedTournament<'a, G>, HistoryError> {
        let (history, left_out) = match eval_dir {
            Some(dir) if fold_history => history_of::<G>(dir)?,
            _ => (Vec::new(), 0),
        };
        Ok(RecordedTournament {
            config,
            history,
            history_file: eval_dir.map(new_history_file),
            left_out,
        })
    }

    /// The file the games played now are written to.
    pub fn history_file(&self) -> Option<&Path> {
        self.history_file.as_deref()
    }

    /// How many games of other games the folder held (left out).
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    /// How many games of this schedule are recorded already (an earlier
    /// run with this seed): they are taken, not played again.
    pub fn recorded(&self) -> usize {
        self.config.recorded_games(&self.history)
    }

    /// Plays the games not yet recorded, each batch written to the history
    /// file as it finishes and then shown to `progress` (with the number
    /// of games played so far); `should_stop` ends it early.
    pub fn play(
        self,
        factory: &PlayerFactory<G::State>,
        progress: &mut dyn FnMut(usize),
        should_stop: &(dyn Fn() -> bool + Sync),
    ) -> anyhow::Result<Evaluated> {
        let mut played: Vec<ArenaGame> = Vec::new();
        let mut write_error: Option<anyhow::Error> = None;
        let result = resume_arena(
            self.config,
            factory,
            &self.history,
            &mut |batch| {
                played.extend_from_slice(batch);
                if let Some(path) = &self.history_file
                    && write_error.is_none()
                    && let Err(e) = write_history(path, &played)
                {
                    write_error = Some(e.into());
                }
                progress(played.len());
            },
            should_stop,
        )?;
        if let Some(e) = write_error {
            return Err(e.context("recording the games"));
        }
        // Ratings: this run's schedule, and every recorded game (the
        // history holds the resumed games already; `played` the ones
        // played now).
        let anchor = match &self.config.gauntlet {
            Some(g) => g.clone(),
            None => self.config.players.first().cloned().unwrap_or_default(),
        };
        let this_run = fit_games(&result.games, &anchor);
        let mut all = self.history;
        let folded = !all.is_empty();
        all.extend(played.iter().cloned());
        let overall = if folded {
            fit_games(&all, &anchor)
        } else {
            this_run.clone()
        };
        Ok(Evaluated {
            result,
            played,
            this_run,
            overall,
            folded,
            rated: all.len(),
        })
    }
}
