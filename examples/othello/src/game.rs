//! [`Othello`]: what the trainer needs beyond the rules (the network's
//! view, the action index, symmetries, records, notation), and its
//! evaluation for the generic `alphabeta` player.

use yinsh_zero::arena::GamePlayers;
use yinsh_zero::game::{Color, Game, NetShape, State, TensorLayout};

use crate::position::{CELLS, Move, Position};

/// Input planes: own discs, the opponent's, own moves, the opponent's
/// moves, and ones (which show the network the board's edge).
const PLANES: usize = 5;
/// A record's position: Black's and White's bits (`u64`, little-endian),
/// then the decisions made.
const RECORD_BYTES: usize = 17;
const CORNERS: u64 = 1 | (1 << 5) | (1 << 30) | (1 << 35);

/// Othello on the 6x6 board, its only variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Othello;

/// Where symmetry `k` (`k < 8`) of the square takes dense index `index`:
/// 0 is the identity, 1 to 3 the quarter turns, 4 and 5 the mirrors
/// left-right and top-bottom, 6 and 7 the two diagonals. The pass stays.
pub fn map_index(index: usize, k: usize) -> usize {
    if index == CELLS {
        return CELLS;
    }
    let (r, c) = (index / 6, index % 6);
    let (r, c) = match k {
        0 => (r, c),
        1 => (c, 5 - r),
        2 => (5 - r, 5 - c),
        3 => (5 - c, r),
        4 => (r, 5 - c),
        5 => (5 - r, c),
        6 => (c, r),
        7 => (5 - c, 5 - r),
        _ => panic!("the square has 8 symmetries, not {}", k + 1),
    };
    r * 6 + c
}

impl Game for Othello {
    type State = Position;

    const NAME: &'static str = "othello";
    const VARIANTS: &'static [&'static str] = &["6x6"];

    fn variant(&self) -> &str {
        "6x6"
    }

    fn with_variant(variant: &str) -> Result<Othello, String> {
        match variant {
            "6x6" => Ok(Othello),
            other => Err(format!(
                "othello has no variant `{other}` (known: {})",
                Othello::VARIANTS.join(", ")
            )),
        }
    }

    fn start(&self) -> Position {
        Position::start()
    }

    fn net_shape(&self) -> NetShape {
        NetShape {
            planes: PLANES,
            height: 6,
            width: 6,
            policy_planes: 1,
            extra_actions: 1,
        }
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        let out = &mut out[..PLANES * CELLS];
        out.fill(0.0);
        let me = state.to_act();
        let planes = [
            state.discs(me),
            state.discs(!me),
            state.moves_of(me),
            state.moves_of(!me),
            (1 << CELLS) - 1,
        ];
        for (p, bits) in planes.into_iter().enumerate() {
            for (i, x) in out[p * CELLS..(p + 1) * CELLS].iter_mut().enumerate() {
                *x = (bits >> i & 1) as f32;
            }
        }
    }

    fn action_index(&self, action: Move) -> usize {
        action.index()
    }

    fn action_from_index(&self, index: usize) -> Option<Move> {
        Move::from_index(index)
    }

    /// The square's eight. The start is kept by four of them (the identity,
    /// the half turn, the diagonals); the other four give the start with
    /// its centre turned a quarter, whose games follow the same rules.
    fn symmetries(&self) -> usize {
        8
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        state.map_squares(|i| map_index(i, k))
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        map_index(index, k)
    }

    fn tensor_layout(&self) -> TensorLayout {
        TensorLayout {
            planes: [
                "discs of the player to act",
                "discs of the opponent",
                "squares where the player to act may play",
                "squares where the opponent could play",
                "ones (the board)",
            ]
            .map(String::from)
            .to_vec(),
            cells: "row * 6 + column; row 0 is rank 1, column 0 file a".into(),
            policy_index: "the square, row * 6 + column; 36 is the pass".into(),
            margin: "disc difference for the player to act over 36, at the game's end".into(),
        }
    }

    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        out.extend_from_slice(&state.discs(Color::Black).to_le_bytes());
        out.extend_from_slice(&state.discs(Color::White).to_le_bytes());
        out.push(state.ply() as u8);
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        if bytes.len() != RECORD_BYTES {
            return Err(format!(
                "an othello position takes {RECORD_BYTES} bytes, got {}",
                bytes.len()
            ));
        }
        let black = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        let white = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
        Position::from_parts(black, white, bytes[16]).map_err(|e| format!("othello position: {e}"))
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<Move, String> {
        let m = Move::parse(text)?;
        match state.illegal_reason(m) {
            Some(reason) => Err(format!("`{text}` cannot be played: {reason}")),
            None => Ok(m),
        }
    }
}

/// No players of its own: the generic ones, with this evaluation.
impl GamePlayers for Othello {
    /// For the player to act: the shares of the discs (a quarter), of the
    /// moves (the most weight: mobility decides the middle game) and of
    /// the corners, each a difference in [-1, 1].
    fn evaluation(&self, state: &Position) -> f32 {
        let me = state.to_act();
        let share = |own: u64, opp: u64| {
            let (a, b) = (own.count_ones() as f32, opp.count_ones() as f32);
            if a + b == 0.0 { 0.0 } else { (a - b) / (a + b) }
        };
        let (own, opp) = (state.discs(me), state.discs(!me));
        let corners =
            ((own & CORNERS).count_ones() as f32 - (opp & CORNERS).count_ones() as f32) / 4.0;
        0.25 * share(own, opp)
            + 0.45 * share(state.moves_of(me), state.moves_of(!me))
            + 0.3 * corners
    }
}
