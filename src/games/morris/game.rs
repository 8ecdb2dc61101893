//! The Morris family on the [`Game`] interface.
//!
//! The network sees the board on its square grid (7x7, 5x5, 3x3; cells
//! that are no point stay 0 in the stone planes). The policy has one plane
//! of placements, one of removals, and one plane per destination point for
//! moves, the move's origin being the cell: a flying stone's move is one
//! entry like any other.

use super::geometry::{Point, Square, Variant};
use super::position::{Action, NO_PROGRESS_LIMIT, Parts, Position};
use crate::game::{ActionOf, Color, Game, NetShape, State, TensorLayout};

/// Input planes: own stones, the opponent's, the points of the board, own
/// and opponent's stones in hand (as a share of the set), removing, own and
/// opponent's flying, quiet moves (as a share of the limit), and whether
/// the position has occurred before.
pub const INPUT_PLANES: usize = 10;

/// Nine, Six or Three Men's Morris.
///
/// ```
/// use yinsh_zero::game::{Game, State};
/// use yinsh_zero::games::morris::Morris;
///
/// let six = Morris::with_variant("six").unwrap();
/// let start = six.start();
/// assert_eq!(start.legal_actions().len(), 16);
/// assert_eq!(six.net_shape().action_space(), (2 + 16) * 25);
/// assert!(Morris::with_variant("twelve").unwrap_err().contains("nine, six, three"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Morris {
    pub rules: Variant,
}

impl Morris {
    pub const fn new(rules: Variant) -> Morris {
        Morris { rules }
    }

    fn cells(&self) -> usize {
        let side = self.rules.geometry().side;
        side * side
    }

    /// The cell of a square (`row * side + column`).
    fn cell(&self, s: Square) -> usize {
        s.row as usize * self.rules.geometry().side + s.col as usize
    }

    fn square_of_cell(&self, cell: usize) -> Square {
        let side = self.rules.geometry().side;
        Square {
            col: (cell % side) as u8,
            row: (cell / side) as u8,
        }
    }

    /// The cell a symmetry sends `cell` to (cells that are no point stay).
    fn map_cell(&self, cell: usize, k: usize) -> usize {
        let geo = self.rules.geometry();
        match geo.point_at(self.square_of_cell(cell)) {
            Some(p) => geo.cell(geo.symmetries[k].point(p)),
            None => cell,
        }
    }
}

impl Game for Morris {
    type State = Position;

    const NAME: &'static str = "morris";
    const VARIANTS: &'static [&'static str] = &Variant::NAMES;

    fn variant(&self) -> &str {
        self.rules.name()
    }

    fn with_variant(variant: &str) -> Result<Morris, String> {
        Variant::from_name(variant).map(Morris::new).ok_or_else(|| {
            format!(
                "morris has no variant `{variant}` (known: {})",
                Variant::NAMES.join(", ")
            )
        })
    }

    fn start(&self) -> Position {
        Position::start(self.rules)
    }

    fn net_shape(&self) -> NetShape {
        let geo = self.rules.geometry();
        NetShape {
            planes: INPUT_PLANES,
            height: geo.side,
            width: geo.side,
            policy_planes: 2 + geo.points,
            extra_actions: 0,
        }
    }

    /// Each point's man at the end, the perfect-play database's own
    /// question asked of every point.
    fn ownership(&self, last: &Position, player: Color, out: &mut [f32]) -> bool {
        let geo = self.rules.geometry();
        out[..self.cells()].fill(0.0);
        for p in 0..geo.points {
            let p = Point(p as u8);
            if last.stones(player) & p.bit() != 0 {
                out[geo.cell(p)] = 1.0;
            } else if last.stones(!player) & p.bit() != 0 {
                out[geo.cell(p)] = -1.0;
            }
        }
        true
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        let geo = self.rules.geometry();
        let cells = self.cells();
        let out = &mut out[..INPUT_PLANES * cells];
        out.fill(0.0);
        let me = state.to_act();
        for p in 0..geo.points {
            let p = Point(p as u8);
            let cell = geo.cell(p);
            if state.stones(me) & p.bit() != 0 {
                out[cell] = 1.0;
            } else if state.stones(!me) & p.bit() != 0 {
                out[cells + cell] = 1.0;
            }
            out[2 * cells + cell] = 1.0;
        }
        let stones = f32::from(geo.stones);
        let constants = [
            f32::from(state.hand(me)) / stones,
            f32::from(state.hand(!me)) / stones,
            f32::from(u8::from(state.removing())),
            f32::from(u8::from(state.flies(me))),
            f32::from(u8::from(state.flies(!me))),
            f32::from(state.quiet_moves()) / f32::from(NO_PROGRESS_LIMIT),
            f32::from(u8::from(state.repetitions() > 1)),
        ];
        for (k, v) in constants.into_iter().enumerate() {
            out[(3 + k) * cells..(4 + k) * cells].fill(v);
        }
    }

    fn action_index(&self, action: ActionOf<Self>) -> usize {
        let geo = self.rules.geometry();
        let cells = self.cells();
        match action {
            Action::Place(s) => self.cell(s),
            Action::Remove(s) => cells + self.cell(s),
            Action::Move(a, b) => {
                let to = geo.point_at(b).expect("a move's destination is a point");
                (2 + to.index()) * cells + self.cell(a)
            }
        }
    }

    fn action_from_index(&self, index: usize) -> Option<ActionOf<Self>> {
        let geo = self.rules.geometry();
        let cells = self.cells();
        let (plane, cell) = (index / cells, index % cells);
        let sq = self.square_of_cell(cell);
        geo.point_at(sq)?;
        match plane {
            0 => Some(Action::Place(sq)),
            1 => Some(Action::Remove(sq)),
            p if p < 2 + geo.points => {
                let to = geo.square(Point((p - 2) as u8));
                (to != sq).then_some(Action::Move(sq, to))
            }
            _ => None,
        }
    }

    fn symmetries(&self) -> usize {
        self.rules.geometry().symmetries.len()
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        state.transformed(k)
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        let geo = self.rules.geometry();
        let cells = self.cells();
        let (plane, cell) = (index / cells, index % cells);
        let plane = if plane >= 2 {
            2 + geo.symmetries[k].perm[plane - 2] as usize
        } else {
            plane
        };
        plane * cells + self.map_cell(cell, k)
    }

    fn tensor_layout(&self) -> TensorLayout {
        let geo = self.rules.geometry();
        let side = geo.side;
        TensorLayout {
            planes: [
                "own stones",
                "opponent stones",
                "board points",
                "own stones in hand / stones per player",
                "opponent stones in hand / stones per player",
                "removing a stone",
                "own stones fly",
                "opponent stones fly",
                "quiet moves / no-progress limit",
                "position occurred before",
            ]
            .map(String::from)
            .to_vec(),
            cells: format!(
                "row * {side} + column; row 0 is rank 1, column 0 is file a (the point a1)"
            ),
            policy_index: format!(
                "plane * {} + cell: plane 0 places on the cell, plane 1 removes the stone on it, \
                 plane 2 + k moves the stone on the cell to point k (points numbered ring by ring, \
                 clockwise from each ring's lower-left corner{})",
                side * side,
                if geo.centre { ", the centre last" } else { "" }
            ),
            margin: "untrained: Morris has no score margin".into(),
        }
    }

    /// White's and Black's stones (two little-endian `u32` point masks),
    /// their stones in hand, the player to act (0 White, 1 Black),
    /// removing (0/1), the ply (`u32`), quiet moves (`u16`) and how often
    /// the position has occurred: 19 bytes.
    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        let p = state.parts();
        out.extend_from_slice(&p.stones[0].to_le_bytes());
        out.extend_from_slice(&p.stones[1].to_le_bytes());
        out.extend_from_slice(&[
            p.hand[0],
            p.hand[1],
            p.to_act.index() as u8,
            u8::from(p.removing),
        ]);
        out.extend_from_slice(&p.ply.to_le_bytes());
        out.extend_from_slice(&p.quiet.to_le_bytes());
        out.push(p.reps);
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        if bytes.len() != 19 {
            return Err(format!(
                "a {} position takes 19 bytes, got {}",
                self.rules,
                bytes.len()
            ));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let to_act = match bytes[10] {
            0 => Color::White,
            1 => Color::Black,
            b => return Err(format!("player to act byte {b} is neither 0 nor 1")),
        };
        let removing = match bytes[11] {
            0 => false,
            1 => true,
            b => return Err(format!("removing byte {b} is neither 0 nor 1")),
        };
        let parts = Parts {
            stones: [u32_at(0), u32_at(4)],
            hand: [bytes[8], bytes[9]],
            to_act,
            removing,
            ply: u32_at(12),
            quiet: u16::from_le_bytes([bytes[16], bytes[17]]),
            reps: bytes[18],
        };
        Position::from_parts(self.rules, parts)
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<ActionOf<Self>, String> {
        let action: Action = text.parse()?;
        let geo = self.rules.geometry();
        if let Some(s) = action.squares().find(|&s| geo.point_at(s).is_none()) {
            return Err(format!("{s} is not a point of the {} board", self.rules));
        }
        let mut probe = state.clone();
        probe.play(action).map_err(|e| e.reason)?;
        Ok(action)
    }
}
