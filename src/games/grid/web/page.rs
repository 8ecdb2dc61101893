//! One game of the UMO 2014 grid game on the server (`docs/grid-rules.md`):
//! the decisions so far, who the human is, the engine opponent that follows
//! the game (a [`SeatedGame`] like every page's), and what the
//! exact solver (`crate::games::grid::solve`) says about it: the optimal line from
//! the start, drawn beside the game actually played, and the verdict on the
//! position now.
//!
//! The solver runs on the blocking pool, never under the game's lock (see
//! [`crate::web::ServedGame::slow_work`]), and within a node budget: it
//! proves the start of every board size in well under a second, but a
//! position where Player 2 has blundered and Player 1 wins can take it
//! minutes. Past the budget the page says that the position is too deep
//! instead of waiting.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::arena::parse_game_player;
use crate::game::{Color, Game, GameResult, State};
use crate::games::grid::solve::{Solver, Value};
use crate::games::grid::{Action, Grid, Position, Square};
use crate::web::EngineSeat;
use crate::web::Offers;
use crate::web::{GameError, OutcomeView, bounded_spec};
use crate::web::{SeatedGame, SeatedRules, SeatedView};

/// Positions the solver may search for one verdict (its best actions
/// included) before it gives up: a few seconds (about 2 µs and 50 bytes of
/// tables each). The start of every board fits well within it (11 x 11's
/// whole solve is 146,025 positions).
pub const SOLVER_NODES: u64 = 1_000_000;

/// What a new grid game is made of.
#[derive(Clone, Debug)]
pub struct GridOptions {
    pub grid: Grid,
    /// The side the human plays: White is Player 1 (Green), Black is
    /// Player 2 (Red).
    pub human: Color,
    /// A player spec (see [`crate::arena::parse_game_player`]) or
    /// [`crate::web::HUMAN`].
    pub opponent: String,
    /// Seeds the engine.
    pub seed: u64,
}

/// "Player 1" (White, who moves Green) or "Player 2" (Black, who places
/// Red stones).
pub fn player_name(c: Color) -> &'static str {
    match c {
        Color::White => "Player 1",
        Color::Black => "Player 2",
    }
}

/// "UMO 2014 grid game, 9 x 9".
pub fn grid_title(grid: Grid) -> String {
    format!("UMO 2014 grid game, {0} x {0}", grid.side)
}

/// The variant called `name` (`9x9`, `5x5`, `7x7`, `11x11`), or an error
/// listing the known ones.
pub fn grid_named(name: &str) -> Result<Grid, GameError> {
    Grid::with_variant(name.trim()).map_err(GameError::BadRequest)
}

/// `spec` ready to build for the grid game, its thinking time bounded by
/// `max` as [`crate::web::bounded_spec`] does for YINSH.
pub fn grid_spec(spec: &str, max: Duration) -> Result<String, GameError> {
    bounded_spec::<Grid>(spec, max)
}

/// Reads an action written in the game's notation: `Ge6` (Player 1 moves
/// Green) or `d5` (Player 2 puts a Red stone). Text that is neither is a
/// [`GameError::BadRequest`]; a point off the board, or an action the rules
/// forbid in `pos`, is [`GameError::Illegal`].
pub fn parse_action(pos: &Position, text: &str) -> Result<Action, GameError> {
    let text = text.trim();
    // The page writes actions as the rules print them; anything else is
    // refused as malformed rather than guessed at.
    let action = text
        .parse::<Action>()
        .ok()
        .filter(|a| a.to_string() == text)
        .ok_or_else(|| {
            GameError::BadRequest(format!(
                "`{text}` is no grid action: write a step of Green like `Ge6` or a Red stone like `d5`"
            ))
        })?;
    let square = action.square();
    if pos.cell(square).is_none() {
        return Err(GameError::Illegal(format!(
            "`{text}`: {square} is not a point of the {0} x {0} board",
            pos.side()
        )));
    }
    let mut probe = *pos;
    probe
        .play(action)
        .map_err(|e| GameError::Illegal(format!("`{text}` is not legal: {}", e.reason)))?;
    Ok(action)
}

/// Where an action puts a stone: Green's new point or the Red stone's.
fn target(action: Action) -> Square {
    match action {
        Action::Step(s) | Action::Place(s) => s,
    }
}

/// Whether `action` in `pos` moves Green onto a corner (legal, but it
/// loses).
fn loses(pos: &Position, action: Action) -> bool {
    match action {
        Action::Step(s) => pos.cell(s).is_some_and(|q| pos.is_corner(q)),
        Action::Place(_) => false,
    }
}

/// One point of the charts: the board at the start or after a move of
/// Player 1.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct ChartPoint {
    /// Moves of Player 1 made so far (0 at the start).
    pub p1_moves: u32,
    /// Decisions made so far.
    pub ply: u32,
    /// Red stones on the board.
    pub red: u32,
    /// Green's Manhattan distance to the nearest corner (0 on a corner).
    pub distance: u32,
}

impl ChartPoint {
    fn of(pos: &Position, p1_moves: u32) -> ChartPoint {
        ChartPoint {
            p1_moves,
            ply: pos.ply(),
            red: pos.red().count_ones(),
            distance: pos.corner_distance(pos.green()),
        }
    }
}

/// The start, then the position after each move of Player 1 in `actions`
/// from `start`.
pub fn chart_series(start: &Position, actions: &[Action]) -> Vec<ChartPoint> {
    let mut pos = *start;
    let mut moves = 0;
    let mut out = vec![ChartPoint::of(&pos, 0)];
    for &a in actions {
        pos.play_unchecked(a);
        if matches!(a, Action::Step(_)) {
            moves += 1;
            out.push(ChartPoint::of(&pos, moves));
        }
    }
    out
}

/// A solver value as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct GridValue {
    pub winner: Color,
    /// 1 or 2.
    pub player: u8,
    /// Moves of Player 1 still to come under optimal play (the winner
    /// hurries, the loser delays).
    pub p1_moves: u32,
    pub text: String,
}

impl GridValue {
    fn of(v: Value) -> GridValue {
        let text = match (v.winner, v.p1_moves) {
            // Player 2 to act, and every stone she can put traps Green.
            (Color::White, 0) => "Player 1 wins: Green is trapped after Player 2's stone".into(),
            (w, n) => format!(
                "{} wins: {} after {n} more move{} of Player 1",
                player_name(w),
                match w {
                    Color::Black => "Green reaches a corner",
                    Color::White => "Green is trapped",
                },
                if n == 1 { "" } else { "s" }
            ),
        };
        GridValue {
            winner: v.winner,
            player: if v.winner == Color::White { 1 } else { 2 },
            p1_moves: v.p1_moves,
            text,
        }
    }
}

/// The solver's optimal line from the start of a board: the winner's
/// fastest play, the loser's slowest.
#[derive(Clone, Debug, Serialize)]
pub struct OptimalLine {
    pub value: GridValue,
    pub moves: Vec<String>,
    /// [`chart_series`] of the line.
    pub series: Vec<ChartPoint>,
    pub red_at_end: u32,
}

impl OptimalLine {
    /// Solves `grid` from the start (under a second for every size).
    pub fn solve(grid: Grid) -> OptimalLine {
        let start = grid.start();
        let mut solver = Solver::new(grid);
        let value = solver.value(&start);
        let line = solver.line(&start);
        let mut end = start;
        for &a in &line {
            end.play_unchecked(a);
        }
        OptimalLine {
            value: GridValue::of(value),
            moves: line.iter().map(|a| a.to_string()).collect(),
            series: chart_series(&start, &line),
            red_at_end: end.red().count_ones(),
        }
    }
}

/// Each board's optimal line, solved once and shared by its games.
#[derive(Default)]
pub struct OptimalLines {
    lines: Mutex<HashMap<u8, Arc<OptimalLine>>>,
}

impl OptimalLines {
    /// The line of `grid`, solved on first use. Blocks: call it off the
    /// async threads.
    pub fn get(&self, grid: Grid) -> Arc<OptimalLine> {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines
            .entry(grid.side)
            .or_insert_with(|| Arc::new(OptimalLine::solve(grid)))
            .clone()
    }
}

/// What the solver says about one position.
#[derive(Clone, Debug, Serialize)]
pub struct SolverView {
    /// The position's decision count (so an answer is matched to its
    /// position).
    pub ply: u32,
    /// `None` when the node budget ran out first.
    pub value: Option<GridValue>,
    /// The actions that keep the value (the winner's fastest, the loser's
    /// slowest), or `None` when the budget ran out before all were asked.
    pub best: Option<Vec<String>>,
    /// Positions searched.
    pub nodes: u64,
    pub text: String,
}

/// The solver's verdict on `p` (not over) within `budget` positions.
pub fn solve_position(grid: Grid, p: &Position, budget: u64) -> SolverView {
    let mut solver = Solver::new(grid);
    let value = solver.try_value(p, budget);
    // The value's proofs are in the tables: the best actions cost the
    // questions about each child, within what is left of the budget.
    let best = value
        .and_then(|_| solver.try_best_actions(p, budget.saturating_sub(solver.nodes)))
        .map(|best| {
            let mut best: Vec<Action> = best.into_iter().map(|(a, _)| a).collect();
            // Player 2's stones nearest Green first, as the optimal line reads.
            best.sort_by_key(|&a| match a {
                Action::Place(s) => p.distance(p.green(), p.cell(s).expect("on the board")),
                Action::Step(_) => 0,
            });
            best
        });
    let text = match value {
        Some(v) => GridValue::of(v).text,
        None => format!(
            "Too deep: the solver gave up after {} positions (positions off the optimal line, where Player 2 has strayed, can be hard to prove)",
            solver.nodes
        ),
    };
    SolverView {
        ply: p.ply(),
        value: value.map(GridValue::of),
        best: best.map(|b| b.iter().map(|a| a.to_string()).collect()),
        nodes: solver.nodes,
        text,
    }
}

/// The solver's verdicts on the positions of one game, filled off the
/// game's lock.
#[derive(Default)]
struct Verdicts {
    /// Held while a verdict is computed, so one game never solves twice
    /// at once.
    solving: Mutex<()>,
    known: Mutex<HashMap<Position, Arc<SolverView>>>,
}

/// At most this many verdicts are kept per game (a game has at most 121
/// positions; undo can branch).
const MAX_VERDICTS: usize = 512;

impl Verdicts {
    fn get(&self, p: &Position) -> Option<Arc<SolverView>> {
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(p)
            .cloned()
    }

    /// Computes and keeps the verdict on `p` unless it is known.
    fn fill(&self, grid: Grid, p: &Position) {
        let _solving = self.solving.lock().unwrap_or_else(|e| e.into_inner());
        if self.get(p).is_some() {
            return;
        }
        let view = Arc::new(solve_position(grid, p, SOLVER_NODES));
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() >= MAX_VERDICTS {
            known.clear();
        }
        known.insert(*p, view);
    }
}

/// A grid game between a human and an engine (or two humans at one
/// screen): its decisions and engine seat are a [`SeatedGame`] (its
/// field `seated`), beside the solver's view.
pub struct GridGame {
    grid: Grid,
    /// Its decisions and engine seat ([`ServedGame::seated`](crate::web::ServedGame::seated)).
    pub(super) seated: SeatedGame<Position>,
    optimal: Arc<OptimalLine>,
    verdicts: Arc<Verdicts>,
}

impl std::fmt::Debug for GridGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridGame")
            .field("side", &self.grid.side)
            .field("seated", &self.seated)
            .finish_non_exhaustive()
    }
}

/// Plays (`Ge6`, `d5`) as `parse_action` reads them; every turn is one
/// decision.
impl SeatedRules for Position {
    fn parse_human(&self, text: &str) -> Result<Action, GameError> {
        parse_action(self, text)
    }
}

impl GridGame {
    /// A new game against `options.opponent`, bounded by `max_think` and
    /// built at once (a bad spec fails here), beside the board's `optimal`
    /// line ([`OptimalLines::get`]).
    pub fn new(
        options: &GridOptions,
        max_think: Duration,
        optimal: Arc<OptimalLine>,
        offers: &Offers,
    ) -> Result<GridGame, GameError> {
        let grid = options.grid;
        let start = grid.start();
        let seat = EngineSeat::new(
            options.human,
            &options.opponent,
            options.seed,
            &start,
            offers,
            (Grid::NAME, grid.variant()),
            |spec| grid_spec(spec, max_think),
            Box::new(move |spec: &str, seed| parse_game_player(&grid, spec, seed)),
        )?;
        Ok(GridGame {
            grid,
            seated: SeatedGame::new(start, seat),
            optimal,
            verdicts: Arc::default(),
        })
    }

    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The solver's verdict on the position now, if the game is on and it
    /// is not known yet: work for the blocking pool that fills it in.
    pub fn verdict_work(&self) -> Option<Box<dyn FnOnce() + Send>> {
        let pos = *self.seated.position();
        if pos.is_over() || self.verdicts.get(&pos).is_some() {
            return None;
        }
        let verdicts = self.verdicts.clone();
        let grid = self.grid;
        Some(Box::new(move || verdicts.fill(grid, &pos)))
    }

    /// Everything the page shows about the game.
    pub fn view(&self, id: &str) -> GridView {
        let pos = self.seated.position();
        let over = pos.is_over();
        let start = *self.seated.start();
        GridView {
            seated: self.seated.seated_view(id),
            variant: self.grid.variant().to_string(),
            side: self.grid.side,
            title: grid_title(self.grid),
            board: GridBoard::of(pos),
            legal: pos
                .legal_actions()
                .iter()
                .map(|&a| LegalView {
                    action: a.to_string(),
                    point: target(a).to_string(),
                    loses: loses(pos, a),
                })
                .collect(),
            outcome: outcome(pos),
            charts: Charts {
                played: chart_series(&start, self.seated.actions()),
                optimal: self.optimal.series.clone(),
            },
            optimal: OptimalSummary {
                value: self.optimal.value.clone(),
                moves: self.optimal.moves.clone(),
                red_at_end: self.optimal.red_at_end,
            },
            solver: if over {
                None
            } else {
                self.verdicts.get(pos).map(|v| (*v).clone())
            },
        }
    }
}

/// How a finished game ended, in words.
pub fn outcome(pos: &Position) -> Option<OutcomeView> {
    let result = pos.result()?;
    let reason = pos.end_reason().unwrap_or("over");
    let (winner, text) = match result {
        GameResult::Win(c @ Color::Black) => (c, "Player 2 wins: Green entered a corner"),
        GameResult::Win(c @ Color::White) => (c, "Player 1 wins: Green is trapped"),
        GameResult::Draw => unreachable!("the grid game has no draw"),
    };
    Some(OutcomeView {
        winner: Some(winner),
        reason,
        text: text.to_string(),
    })
}

/// A grid engine lent out to think, with what it is asked about.
pub type GridEngineJob = crate::web::EngineJob<Position>;

/// What a lent grid engine brings back.
pub type GridEngineDone = crate::web::EngineDone<Position>;

/// The stones on the board by point name.
#[derive(Clone, Debug, Serialize)]
pub struct GridBoard {
    pub side: u8,
    pub green: String,
    pub red: Vec<String>,
    pub corners: Vec<String>,
}

impl GridBoard {
    pub fn of(pos: &Position) -> GridBoard {
        let n = pos.side();
        let name = |q: u8| pos.square(q).to_string();
        GridBoard {
            side: n,
            green: name(pos.green()),
            red: (0..n * n)
                .filter(|&q| pos.red() & (1 << q) != 0)
                .map(name)
                .collect(),
            corners: (0..n * n).filter(|&q| pos.is_corner(q)).map(name).collect(),
        }
    }
}

/// One legal action and the point it puts a stone on.
#[derive(Clone, Debug, Serialize)]
pub struct LegalView {
    /// `Ge6` or `d5`.
    pub action: String,
    /// `e6` or `d5`.
    pub point: String,
    /// A step of Green onto a corner: legal, but Player 1 loses.
    pub loses: bool,
}

/// The two charts' series: the game played and the optimal line.
#[derive(Clone, Debug, Serialize)]
pub struct Charts {
    pub played: Vec<ChartPoint>,
    pub optimal: Vec<ChartPoint>,
}

/// The optimal line from the start, without its series.
#[derive(Clone, Debug, Serialize)]
pub struct OptimalSummary {
    pub value: GridValue,
    pub moves: Vec<String>,
    pub red_at_end: u32,
}

/// A grid game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct GridView {
    /// Seats, turn and decisions, as every game's page has them.
    #[serde(flatten)]
    pub seated: SeatedView,
    /// `9x9`, `5x5`, `7x7` or `11x11`.
    pub variant: String,
    pub side: u8,
    pub title: String,
    pub board: GridBoard,
    pub legal: Vec<LegalView>,
    pub outcome: Option<OutcomeView>,
    pub charts: Charts,
    pub optimal: OptimalSummary,
    /// The solver's verdict on the position now; `None` once the game is
    /// over (or, rarely, while it is still being computed).
    pub solver: Option<SolverView>,
}
