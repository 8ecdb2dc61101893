//! One Connect Four game on the server: a [`SeatedGame`] like every
//! page's, with a column number as the human's decision, the view its page
//! draws (each column's stones, the legal columns, the winning four), and
//! the solver's analysis of the position now within a node budget.

use std::time::Duration;

use serde::Serialize;

use crate::arena::parse_game_player;
use crate::game::{Color, Game, GameResult, State};
use crate::games::connect4::bitboard::{self, HEIGHT, STRIDE, WIDTH};
use crate::games::connect4::solve::Solver;
use crate::games::connect4::{Column, Connect4, Position};
use crate::web::EngineSeat;
use crate::web::Offers;
use crate::web::{GameError, OutcomeView, bounded_spec};
use crate::web::{SeatedGame, SeatedRules, SeatedView, TurnView};

/// Search nodes one analysis may take (about 10 M a second here): enough
/// for any position past the first dozen stones, and an answer within
/// seconds for the others, which say they are too deep instead.
pub const ANALYSIS_NODES: u64 = 20_000_000;

/// The solver table of an analysis, in bits of entries (16 MiB).
const ANALYSIS_TABLE_BITS: u32 = 21;

/// What a new Connect Four game is made of.
#[derive(Clone, Debug)]
pub struct Connect4Options {
    /// The colour the human plays (White drops first).
    pub human: Color,
    /// A player spec (see [`crate::arena::parse_game_player`]) or
    /// [`crate::web::HUMAN`].
    pub opponent: String,
    /// Seeds the engine.
    pub seed: u64,
}

/// The variant called `name` (only `standard`), or an error naming it.
pub fn connect4_named(name: &str) -> Result<Connect4, GameError> {
    Connect4::with_variant(name.trim()).map_err(GameError::BadRequest)
}

/// `spec` ready to build for Connect Four, its thinking time bounded by
/// `max` as [`crate::web::bounded_spec`] does for every game.
pub fn connect4_spec(spec: &str, max: Duration) -> Result<String, GameError> {
    bounded_spec::<Connect4>(spec, max)
}

/// Reads the human's column, `1` to `7`: anything else is a
/// [`GameError::BadRequest`]; a full column or a finished game is
/// [`GameError::Illegal`].
pub fn parse_action(pos: &Position, text: &str) -> Result<Column, GameError> {
    let text = text.trim();
    let col = Column::parse(text).map_err(GameError::BadRequest)?;
    let mut probe = *pos;
    probe
        .play(col)
        .map_err(|e| GameError::Illegal(format!("`{text}` is not legal: {}", e.reason)))?;
    Ok(col)
}

/// A decision is a column; every turn is one decision.
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Column, GameError> {
        parse_action(self, text)
    }
}

/// A Connect Four game between a human and an engine (or two humans at
/// one screen): its decisions and engine seat are a [`SeatedGame`] (its
/// field `seated`).
#[derive(Debug)]
pub struct Connect4Game {
    /// Its decisions and engine seat ([`ServedGame::seated`](crate::web::ServedGame::seated)).
    pub(super) seated: SeatedGame<Position>,
}

impl Connect4Game {
    /// A new game. The opponent spec is bounded by `max_think` and built at
    /// once, so a bad spec fails here.
    pub fn new(
        options: &Connect4Options,
        max_think: Duration,
        offers: &Offers,
    ) -> Result<Connect4Game, GameError> {
        let game = Connect4;
        let start = game.start();
        let seat = EngineSeat::new(
            options.human,
            &options.opponent,
            options.seed,
            &start,
            offers,
            (Connect4::NAME, game.variant()),
            |spec| connect4_spec(spec, max_think),
            Box::new(move |spec: &str, seed| parse_game_player(&game, spec, seed)),
        )?;
        Ok(Connect4Game {
            seated: SeatedGame::new(start, seat),
        })
    }

    /// Everything the page shows about the game.
    pub fn view(&self, id: &str) -> Connect4View {
        let pos = self.seated.position();
        let columns = Column::ALL
            .iter()
            .map(|&c| {
                (0..pos.height(c))
                    .map(|row| pos.at(c.index(), row).expect("a stone below the height"))
                    .collect()
            })
            .collect();
        Connect4View {
            seated: self.seated.seated_view(id),
            variant: "standard",
            title: "Connect Four".into(),
            width: WIDTH,
            height: HEIGHT,
            columns,
            legal: pos.legal_actions().iter().map(|c| c.number()).collect(),
            four: four_cells(pos),
            turns: self.seated.turns(),
            outcome: outcome(pos),
        }
    }
}

/// The cells of the winner's fours, as `[column, row]` counted from 1 (row
/// 1 at the bottom); empty unless the game is won.
pub fn four_cells(pos: &Position) -> Vec<[u8; 2]> {
    let Some(GameResult::Win(w)) = pos.result() else {
        return Vec::new();
    };
    let s = pos.stones(w);
    let mut cells = 0u64;
    for d in [1, STRIDE, STRIDE - 1, STRIDE + 1] {
        let starts = s & (s >> d) & (s >> (2 * d)) & (s >> (3 * d));
        cells |= starts | starts << d | starts << (2 * d) | starts << (3 * d);
    }
    let mut out = Vec::new();
    for col in 0..WIDTH {
        for row in 0..HEIGHT {
            if cells & bitboard::cell(col, row) != 0 {
                out.push([col as u8 + 1, row as u8 + 1]);
            }
        }
    }
    out
}

/// How a finished game ended, in words.
pub fn outcome(pos: &Position) -> Option<OutcomeView> {
    let result = pos.result()?;
    let reason = pos.end_reason().unwrap_or("over");
    let text = match result {
        GameResult::Win(Color::White) => "White wins: four in a line".to_string(),
        GameResult::Win(Color::Black) => "Black wins: four in a line".to_string(),
        GameResult::Draw => "Draw: the board is full".to_string(),
    };
    Some(OutcomeView {
        winner: result.winner(),
        reason,
        text,
    })
}

/// A Connect Four game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct Connect4View {
    /// Seats, turn and decisions, as every game's page has them.
    #[serde(flatten)]
    pub seated: SeatedView,
    pub variant: &'static str,
    pub title: String,
    /// Columns and rows of the board (7 and 6).
    pub width: usize,
    pub height: usize,
    /// Each column's stones from the bottom up, left to right.
    pub columns: Vec<Vec<Color>>,
    /// The columns the player to act may drop into (1 to 7); none once
    /// the game is over.
    pub legal: Vec<u8>,
    /// The cells of the winning four(s), `[column, row]` from 1, row 1 at
    /// the bottom.
    pub four: Vec<[u8; 2]>,
    /// The decisions, one turn each.
    pub turns: Vec<TurnView>,
    pub outcome: Option<OutcomeView>,
}

/// What the solver says of a position, within [`ANALYSIS_NODES`].
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Analysis {
    /// The columns played (`4453`).
    pub moves: String,
    /// Whether the solver answered within its budget (else only `moves`
    /// and `nodes` are filled in).
    pub solved: bool,
    /// The score for the player to act, in Pascal Pons's convention
    /// (positive: a win, `22 - k` with its own `k`-th stone; 0: a draw).
    pub score: Option<i32>,
    /// The score in words.
    pub verdict: Option<String>,
    /// Each column's score for the player to act, 1 to 7 (`null`: full).
    pub columns: Vec<Option<i32>>,
    /// The best columns.
    pub best: Vec<u8>,
    pub nodes: u64,
}

/// The solver's analysis of `pos` (written `moves`), within `budget`
/// search nodes; a finished game has none.
pub fn analyse(pos: &Position, moves: String, budget: u64) -> Result<Analysis, GameError> {
    if pos.is_over() {
        return Err(GameError::GameOver);
    }
    let mut solver = Solver::new(ANALYSIS_TABLE_BITS);
    let scores = solver.try_column_scores(pos, budget);
    let mut out = Analysis {
        moves,
        solved: scores.is_some(),
        score: None,
        verdict: None,
        columns: Vec::new(),
        best: Vec::new(),
        nodes: solver.nodes,
    };
    if let Some(scores) = scores {
        let best = scores
            .iter()
            .flatten()
            .max()
            .copied()
            .expect("a legal column");
        out.score = Some(best.get());
        out.verdict = Some(best.describe(pos));
        out.columns = scores.iter().map(|s| s.map(|s| s.get())).collect();
        out.best = Column::ALL
            .iter()
            .filter(|c| scores[c.index()] == Some(best))
            .map(|c| c.number())
            .collect();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::HUMAN;

    fn game(human: Color, opponent: &str) -> Connect4Game {
        let options = Connect4Options {
            human,
            opponent: opponent.into(),
            seed: 1,
        };
        Connect4Game::new(&options, Duration::from_millis(200), &Offers::default()).unwrap()
    }

    #[test]
    fn columns_refusals_and_the_winning_four() {
        let mut g = game(Color::White, HUMAN);
        assert!(
            matches!(g.seated.play("8"), Err(GameError::BadRequest(m)) if m.contains("1 to 7"))
        );
        assert!(matches!(g.seated.play("x"), Err(GameError::BadRequest(_))));
        for c in ["4", "4", "5", "5", "6", "6"] {
            g.seated.play(c).unwrap();
        }
        g.seated.play("3").unwrap();
        let v = g.view("g");
        assert_eq!(v.outcome.unwrap().text, "White wins: four in a line");
        assert_eq!(v.four, [[3, 1], [4, 1], [5, 1], [6, 1]]);
        assert!(v.legal.is_empty());
        assert!(matches!(g.seated.play("1"), Err(GameError::GameOver)));
    }

    #[test]
    fn a_full_column_is_illegal_and_analysis_says_the_best() {
        let mut g = game(Color::White, HUMAN);
        for c in "121212".chars() {
            g.seated.play(&c.to_string()).unwrap();
        }
        let a = analyse(g.seated.position(), "121212".into(), ANALYSIS_NODES).unwrap();
        assert!(a.solved);
        assert_eq!((a.score, a.best.as_slice()), (Some(18), &[1u8][..]));
        let mut g = game(Color::White, HUMAN);
        for c in "111111".chars() {
            g.seated.play(&c.to_string()).unwrap();
        }
        assert!(
            matches!(g.seated.play("1"), Err(GameError::Illegal(m)) if m.contains("column 1 is full"))
        );
    }
}
