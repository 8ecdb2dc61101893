//! Connect Four on the [`Game`] interface.
//!
//! The network sees the board from the player to act: its stones, the
//! opponent's, a plane of ones when that player moved first, and each
//! side's threats (the empty cells where one more stone of it makes four,
//! playable now or not). The sides are not alike (with perfect play the
//! first player wins, and the parity of the empty cells below a threat
//! decides who can use it), and the own/opponent planes alone would not
//! say which side the network plays: a threat on an odd row is good for
//! White, on an even one for Black.
//!
//! The threat planes are what Allis's analysis of the game turns on
//! (threats, their rows, and which side the zugzwang of the last columns
//! favours): a position's result is often settled twenty plies before its
//! end by a threat no search of a few hundred simulations reaches. They
//! are exact and cost a few shifts of the bitboard, so the network need not
//! learn to find four-in-a-line patterns through five layers of 3x3
//! convolutions before it can learn what the threats mean (as KataGo gives
//! its network liberties and ladders).
//!
//! The policy is one plane over the board whose bottom row names the
//! columns: action index = column (0-based). The 35 other entries are
//! never legal and the masked softmax gives them nothing; keeping the
//! policy a plane over the board keeps the network's convolutional head
//! and the left-right mirror the same for inputs and policy.

use super::bitboard::{self, CELLS, HEIGHT, WIDTH};
use super::position::{Column, Position};
use crate::game::{ActionOf, Color, Game, NetShape, State, TensorLayout};

/// Input planes: own stones, opponent stones, the player to act moved
/// first, own threats, opponent threats.
pub const INPUT_PLANES: usize = 5;

/// Connect Four on the standard 7 x 6 board.
///
/// ```
/// use yinsh_zero::games::connect4::Connect4;
/// use yinsh_zero::game::{Game, State};
///
/// let game = Connect4;
/// assert_eq!(game.start().legal_actions().len(), 7);
/// assert_eq!(game.net_shape().action_space(), 42);
/// let line = game.parse_game(&game.start(), "4453").unwrap();
/// assert_eq!(game.format_game(&game.start(), &line), "4453");
/// assert!(Connect4::with_variant("8x7").unwrap_err().contains("standard"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Connect4;

/// Bytes of a position in a record: two bitboards.
const STATE_BYTES: usize = 16;

/// The cell of the encoding (`row * 7 + column`, row 0 at the bottom) under
/// symmetry `k` (1 mirrors the columns).
fn map_cell(cell: usize, k: usize) -> usize {
    if k == 0 {
        cell
    } else {
        let (row, col) = (cell / WIDTH, cell % WIDTH);
        row * WIDTH + (WIDTH - 1 - col)
    }
}

impl Game for Connect4 {
    type State = Position;

    const NAME: &'static str = "connect4";
    const VARIANTS: &'static [&'static str] = &["standard"];

    fn variant(&self) -> &str {
        "standard"
    }

    fn with_variant(variant: &str) -> Result<Connect4, String> {
        match variant {
            "standard" => Ok(Connect4),
            other => Err(format!(
                "connect4 has no variant `{other}` (known: {})",
                Connect4::VARIANTS.join(", ")
            )),
        }
    }

    fn start(&self) -> Position {
        Position::start()
    }

    fn net_shape(&self) -> NetShape {
        NetShape {
            planes: INPUT_PLANES,
            height: HEIGHT,
            width: WIDTH,
            policy_planes: 1,
            extra_actions: 0,
        }
    }

    /// Before 6 December the network saw no threat planes: the networks of
    /// the first seven runs (`c4w`'s `000573`, shipped until then, among them)
    /// play as they were trained.
    fn earlier_input_planes(&self) -> &'static [usize] {
        &[3]
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        let out = &mut out[..INPUT_PLANES * CELLS];
        out.fill(0.0);
        let own = state.current();
        let theirs = state.current() ^ state.mask();
        let own_threats = state.winning_cells();
        let their_threats = state.opponent_winning_cells();
        for col in 0..WIDTH {
            for row in 0..HEIGHT {
                let bit = bitboard::cell(col, row);
                let i = row * WIDTH + col;
                if own & bit != 0 {
                    out[i] = 1.0;
                } else if theirs & bit != 0 {
                    out[CELLS + i] = 1.0;
                }
                if own_threats & bit != 0 {
                    out[3 * CELLS + i] = 1.0;
                }
                if their_threats & bit != 0 {
                    out[4 * CELLS + i] = 1.0;
                }
            }
        }
        if state.to_act() == Color::White {
            out[2 * CELLS..3 * CELLS].fill(1.0);
        }
    }

    fn action_index(&self, action: ActionOf<Self>) -> usize {
        action.index()
    }

    fn action_from_index(&self, index: usize) -> Option<ActionOf<Self>> {
        Column::new(index)
    }

    fn symmetries(&self) -> usize {
        2
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        debug_assert!(k < 2);
        if k == 0 { *state } else { state.mirrored() }
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        map_cell(index, k)
    }

    fn tensor_layout(&self) -> TensorLayout {
        TensorLayout {
            planes: [
                "stones of the player to act",
                "stones of the opponent",
                "the player to act moved first (White)",
                "threats of the player to act: empty cells where its stone would make four",
                "threats of the opponent",
            ]
            .map(String::from)
            .to_vec(),
            cells: "row * 7 + column; row 0 is the bottom row, column 0 the leftmost".into(),
            policy_index: "the column, 0 to 6 from the left (written 1 to 7); indices 7 to 41 \
                           are never legal"
                .into(),
            margin: "tanh-squashed: how soon the game is won, the solvers' score (22 - the winner's stones) over 18, minus for a loss, 0 for a draw".into(),
        }
    }

    /// White's stones, then Black's, each a `u64` little-endian bitboard
    /// in Pons's layout (bit `7 * column + row`, row 0 at the bottom): 16
    /// bytes. Who acts and the ply follow from the stone counts.
    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        out.extend_from_slice(&state.stones(Color::White).to_le_bytes());
        out.extend_from_slice(&state.stones(Color::Black).to_le_bytes());
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        if bytes.len() != STATE_BYTES {
            return Err(format!(
                "a connect4 position takes {STATE_BYTES} bytes, got {}",
                bytes.len()
            ));
        }
        let white = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        let black = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
        Position::from_stones(white, black).map_err(|e| format!("connect4 position: {e}"))
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<ActionOf<Self>, String> {
        let col = Column::parse(text)?;
        let mut probe = *state;
        probe.play(col).map_err(|e| e.reason)?;
        Ok(col)
    }

    /// The columns played, as digits: `4453`, the way the common solvers
    /// and Pons's test sets write a game; digits separated by white space
    /// (`4 4 5 3`) read too.
    fn parse_game(&self, start: &Position, text: &str) -> Result<Vec<ActionOf<Self>>, String> {
        let mut pos = *start;
        let mut actions = Vec::new();
        for (i, ch) in text.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let token = ch.to_string();
            let a = self
                .parse_action(&pos, &token)
                .map_err(|e| format!("move {} `{token}`: {e}", i + 1))?;
            pos.play_unchecked(a);
            actions.push(a);
        }
        Ok(actions)
    }

    /// The columns' digits with nothing between them: `4453`.
    fn format_game(&self, start: &Position, actions: &[ActionOf<Self>]) -> String {
        let _ = start;
        actions.iter().map(|a| a.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of plane `p` that are set, as (column, row) pairs.
    fn set_cells(planes: &[f32], p: usize) -> Vec<(usize, usize)> {
        (0..CELLS)
            .filter(|&i| planes[p * CELLS + i] == 1.0)
            .map(|i| (i % WIDTH, i / WIDTH))
            .collect()
    }

    #[test]
    fn threat_planes_mark_each_sides_fours_to_be() {
        let game = Connect4;
        let pos = Position::from_moves("445566").unwrap();
        let mut planes = vec![0.0; INPUT_PLANES * CELLS];
        game.encode(&pos, &mut planes);
        // White (to act) has columns 4-6 of the bottom row, Black the
        // row above: each side's four is one stone away at either end.
        assert_eq!(set_cells(&planes, 0), [(3, 0), (4, 0), (5, 0)]);
        assert_eq!(set_cells(&planes, 1), [(3, 1), (4, 1), (5, 1)]);
        assert_eq!(set_cells(&planes, 2).len(), CELLS);
        assert_eq!(set_cells(&planes, 3), [(2, 0), (6, 0)]);
        assert_eq!(set_cells(&planes, 4), [(2, 1), (6, 1)]);

        // After White's 1, Black is to act: the planes swap sides.
        let pos = Position::from_moves("4455661").unwrap();
        game.encode(&pos, &mut planes);
        assert!(set_cells(&planes, 2).is_empty());
        assert_eq!(set_cells(&planes, 3), [(2, 1), (6, 1)]);
        assert_eq!(set_cells(&planes, 4), [(2, 0), (6, 0)]);

        // The mirror's planes are the planes mirrored.
        let mut mirrored = vec![0.0; INPUT_PLANES * CELLS];
        game.encode(&game.transform(&pos, 1), &mut mirrored);
        for p in 0..INPUT_PLANES {
            for i in 0..CELLS {
                assert_eq!(mirrored[p * CELLS + map_cell(i, 1)], planes[p * CELLS + i]);
            }
        }
    }
}
