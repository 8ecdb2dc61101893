//! The Morris family's judgement for the generic `alphabeta` player.

use std::sync::Arc;

use super::perfect::PerfectPlayer;
use crate::arena::{GamePlayers, PlayerInfo, PlayerSpec, PlayerSpecError, parse_num};
use crate::arena::{Grading, Player};
use crate::game::State;
use crate::games::morris::db::{DEFAULT_SEARCH_BUDGET, DEFAULT_SEARCH_TABLE, Database};
use crate::games::morris::{Morris, Position};

const MORRIS_PLAYERS: &[PlayerInfo] = &[PlayerInfo {
    name: "perfect",
    keys: &[
        (
            "db",
            "database directory written by `solve` (default data/morris/<variant>)",
        ),
        (
            "depth",
            "decisions searched (alpha-beta, with the game's evaluation) where the database has no answer (default 4)",
        ),
        (
            "search",
            "most states the exact placing-phase search may expand per question where the placing layers are not solved, Nine's (default 2000000; 0: no limit)",
        ),
        (
            "table",
            "the placing-phase search's transposition table in MB (default 256)",
        ),
    ],
    about: "perfect play from the solved database: fastest win, slowest loss; Nine's placing phase by exact search down to the solved moving phase",
}];

impl GamePlayers for Morris {
    /// Graded against the solved database, Six Men's Morris by default
    /// (solved whole, placement included).
    fn grading() -> Option<Grading<Self>> {
        Some(Grading {
            variant: "six",
            grade: super::commands::grade,
        })
    }

    fn own_players() -> &'static [PlayerInfo] {
        MORRIS_PLAYERS
    }

    fn build_own(
        &self,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Box<dyn Player<Position>>, PlayerSpecError> {
        match spec.name.as_str() {
            "perfect" => {
                let dir = spec
                    .get("db")
                    .map(std::path::PathBuf::from)
                    .unwrap_or_else(|| Database::default_dir(self.rules));
                let db =
                    Database::open(&dir, self.rules).map_err(|e| PlayerSpecError::BadValue {
                        player: spec.name.clone(),
                        key: "db".into(),
                        value: dir.display().to_string(),
                        why: e.to_string(),
                    })?;
                let budget = match spec.get("search") {
                    Some(v) => match parse_num(spec, "search", v, 0, u64::MAX)? {
                        0 => None,
                        n => Some(n),
                    },
                    None => Some(DEFAULT_SEARCH_BUDGET),
                };
                let table = match spec.get("table") {
                    Some(v) => parse_num(spec, "table", v, 1, 65_536)? as usize,
                    None => DEFAULT_SEARCH_TABLE >> 20,
                };
                let db = db.with_placing_search(table << 20, budget);
                let depth = match spec.get("depth") {
                    Some(v) => parse_num(spec, "depth", v, 1, 64)? as u32,
                    None => 4,
                };
                Ok(Box::new(PerfectPlayer::new(
                    Arc::new(db),
                    depth,
                    spec.to_string(),
                    seed,
                )))
            }
            other => unreachable!("MORRIS_PLAYERS lists `{other}` but nothing builds it"),
        }
    }

    /// Stones (on the board and in hand) ahead, then mobility: a stone is
    /// worth far more than a free step, and a blocked player loses.
    fn evaluation(&self, state: &Position) -> f32 {
        let me = state.to_act();
        let geo = state.geometry();
        let stones = f32::from(geo.stones);
        let material = (state.total(me) as f32 - state.total(!me) as f32) / stones;
        let free = |c| {
            let empty = geo.all & !(state.stones(me) | state.stones(!me));
            crate::games::morris::geometry::points(state.stones(c))
                .map(|p| geo.targets(p, empty, state.flies(c)).count_ones())
                .sum::<u32>() as f32
        };
        let mobility = (free(me) - free(!me)) / (4.0 * stones);
        (0.8 * material + 0.2 * mobility).clamp(-1.0, 1.0)
    }
}
