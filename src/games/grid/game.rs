//! The grid game on the [`Game`] interface.
//!
//! The two players' action sets differ (Player 1: at most four steps of
//! Green; Player 2: a Red stone on any empty point), so the policy has a
//! plane for each and the input says who acts.

use super::position::{Action, Position, Square};
use crate::game::{ActionOf, Color, Game, NetShape, State, TensorLayout};

/// Input planes: Red stones, Green, the corners, Player 1 to act.
pub const INPUT_PLANES: usize = 4;

/// The UMO 2014 grid game on an N x N board (odd N, 5 to 11; 9 is the
/// problem's).
///
/// ```
/// use yinsh_zero::game::{Game, State};
/// use yinsh_zero::games::grid::Grid;
///
/// let g = Grid::with_variant("9x9").unwrap();
/// let start = g.start();
/// assert_eq!(start.legal_actions().len(), 4);
/// assert_eq!(g.net_shape().action_space(), 2 * 81);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    pub side: u8,
}

impl Grid {
    pub const fn new(side: u8) -> Grid {
        Grid { side }
    }

    fn cells(&self) -> usize {
        usize::from(self.side) * usize::from(self.side)
    }

    fn square(&self, cell: usize) -> Square {
        let n = usize::from(self.side);
        Square {
            col: (cell % n) as u8,
            row: (cell / n) as u8,
        }
    }

    fn cell(&self, s: Square) -> usize {
        usize::from(s.row) * usize::from(self.side) + usize::from(s.col)
    }

    /// Where symmetry `k` (of the square's 8) sends `cell`.
    pub fn map_cell(&self, cell: usize, k: usize) -> usize {
        let m = self.side - 1;
        let Square { col: c, row: r } = self.square(cell);
        let (c, r) = if k & 4 != 0 { (r, c) } else { (c, r) };
        let (c, r) = match k & 3 {
            0 => (c, r),
            1 => (m - r, c),
            2 => (m - c, m - r),
            _ => (r, m - c),
        };
        self.cell(Square { col: c, row: r })
    }

    fn map_mask(&self, mask: u128, k: usize) -> u128 {
        let mut out = 0u128;
        let mut m = mask;
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            out |= 1 << self.map_cell(q, k);
        }
        out
    }
}

impl Game for Grid {
    type State = Position;

    const NAME: &'static str = "grid";
    const VARIANTS: &'static [&'static str] = &["9x9", "5x5", "7x7", "11x11"];

    fn variant(&self) -> &str {
        match self.side {
            5 => "5x5",
            7 => "7x7",
            11 => "11x11",
            _ => "9x9",
        }
    }

    fn with_variant(variant: &str) -> Result<Grid, String> {
        match variant {
            "9x9" => Ok(Grid::new(9)),
            "5x5" => Ok(Grid::new(5)),
            "7x7" => Ok(Grid::new(7)),
            "11x11" => Ok(Grid::new(11)),
            other => Err(format!(
                "grid has no variant `{other}` (known: {})",
                Grid::VARIANTS.join(", ")
            )),
        }
    }

    fn start(&self) -> Position {
        Position::start(self.side)
    }

    fn net_shape(&self) -> NetShape {
        let n = usize::from(self.side);
        NetShape {
            planes: INPUT_PLANES,
            height: n,
            width: n,
            policy_planes: 2,
            extra_actions: 0,
        }
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        let cells = self.cells();
        let out = &mut out[..INPUT_PLANES * cells];
        out.fill(0.0);
        for q in 0..cells {
            if state.red() & (1 << q) != 0 {
                out[q] = 1.0;
            }
            if state.is_corner(q as u8) {
                out[2 * cells + q] = 1.0;
            }
        }
        out[cells + usize::from(state.green())] = 1.0;
        if state.to_act() == Color::White {
            out[3 * cells..4 * cells].fill(1.0);
        }
    }

    fn action_index(&self, action: ActionOf<Self>) -> usize {
        match action {
            Action::Place(s) => self.cell(s),
            Action::Step(s) => self.cells() + self.cell(s),
        }
    }

    fn action_from_index(&self, index: usize) -> Option<ActionOf<Self>> {
        let cells = self.cells();
        match index / cells {
            0 => Some(Action::Place(self.square(index))),
            1 => Some(Action::Step(self.square(index - cells))),
            _ => None,
        }
    }

    fn symmetries(&self) -> usize {
        8
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        state.mapped(
            self.map_mask(state.red(), k),
            self.map_cell(usize::from(state.green()), k) as u8,
        )
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        let cells = self.cells();
        (index / cells) * cells + self.map_cell(index % cells, k)
    }

    fn tensor_layout(&self) -> TensorLayout {
        let n = self.side;
        TensorLayout {
            planes: ["Red stones", "Green", "corners", "Player 1 (Green) to act"]
                .map(String::from)
                .to_vec(),
            cells: format!("row * {n} + column; row 0 is rank 1, column 0 is file a"),
            policy_index: format!(
                "plane * {} + cell: plane 0 puts a Red stone on the cell (Player 2), plane 1 moves Green to it (Player 1)",
                self.cells()
            ),
            margin: "untrained: the game has no score margin".into(),
        }
    }

    /// Red stones (`u128`, little-endian), Green's point, the ply (`u32`):
    /// 21 bytes.
    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        out.extend_from_slice(&state.red().to_le_bytes());
        out.push(state.green());
        out.extend_from_slice(&state.ply().to_le_bytes());
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        if bytes.len() != 21 {
            return Err(format!(
                "a grid position takes 21 bytes, got {}",
                bytes.len()
            ));
        }
        let red = u128::from_le_bytes(bytes[..16].try_into().unwrap());
        let ply = u32::from_le_bytes(bytes[17..21].try_into().unwrap());
        Position::from_parts(self.side, red, bytes[16], ply)
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<ActionOf<Self>, String> {
        let action: Action = text.parse()?;
        let mut probe = *state;
        probe.play(action).map_err(|e| e.reason)?;
        Ok(action)
    }
}
