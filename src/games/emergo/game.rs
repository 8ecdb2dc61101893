//! Emergo on the [`Game`] interface.
//!
//! The network sees the board on its square grid (the squares that are not
//! played on stay 0 in the unit planes). The policy has a plane of entries,
//! four planes of steps and four of jumps, one per diagonal direction, the
//! moving unit's square being the cell: a chain of jumps is one policy entry
//! per jump.

use super::geometry::{Cell, Dir, Geometry, Square};
use super::notation::{self, Action};
use super::position::{Parts, Position};
use super::unit::Unit;
use super::variant::{Blocked, NO_PROGRESS_LIMIT, TURN_LIMIT, Variant};
use crate::game::{ActionOf, Color, Game, NetShape, State, TensorLayout};

/// Input planes (see [`Emergo::tensor_layout`]).
pub const INPUT_PLANES: usize = 15;

/// Policy planes: entries, then steps and jumps by direction.
pub const POLICY_PLANES: usize = 9;

/// Emergo in one of its [`Variant`]s.
///
/// ```
/// use yinsh_zero::games::emergo::Emergo;
/// use yinsh_zero::game::{Game, State};
///
/// let game = Emergo::default();
/// // White may enter anywhere but on the centre.
/// assert_eq!(game.start().legal_actions().len(), 40);
/// assert_eq!(game.net_shape().action_space(), 9 * 81);
/// assert!(Emergo::with_variant("huge").unwrap_err().contains("standard, blocked-loses, small"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Emergo {
    pub variant: Variant,
}

impl Default for Emergo {
    fn default() -> Emergo {
        Emergo::new(Variant::Standard)
    }
}

impl Emergo {
    pub const fn new(variant: Variant) -> Emergo {
        Emergo { variant }
    }

    fn geo(&self) -> Geometry {
        self.variant.geometry()
    }

    fn cell(&self, s: Square) -> usize {
        self.geo()
            .cell(s)
            .expect("an action's square is on the board")
            .index()
    }

    fn dir_of(a: Square, b: Square) -> Dir {
        let sign = |x: u8, y: u8| if y > x { 1 } else { -1 };
        Dir::from_delta(sign(a.col, b.col), sign(a.row, b.row)).expect("diagonal")
    }
}

impl Game for Emergo {
    type State = Position;

    const NAME: &'static str = "emergo";
    const VARIANTS: &'static [&'static str] = &Variant::NAMES;

    fn variant(&self) -> &str {
        self.variant.name()
    }

    fn with_variant(variant: &str) -> Result<Emergo, String> {
        Variant::from_name(variant).map(Emergo::new).ok_or_else(|| {
            format!(
                "emergo has no variant `{variant}` (known: {})",
                Variant::NAMES.join(", ")
            )
        })
    }

    fn start(&self) -> Position {
        Position::start(self.variant)
    }

    fn net_shape(&self) -> NetShape {
        let n = usize::from(self.geo().side);
        NetShape {
            planes: INPUT_PLANES,
            height: n,
            width: n,
            policy_planes: POLICY_PLANES,
            extra_actions: 0,
        }
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        let geo = self.geo();
        let cells = geo.cells();
        let out = &mut out[..INPUT_PLANES * cells];
        out.fill(0.0);
        let me = state.to_act();
        let men = f32::from(self.variant.men());
        for c in geo.playable() {
            let i = c.index();
            out[6 * cells + i] = 1.0;
            if let Some(u) = state.unit_at(c) {
                let base = if u.owner == me { 0 } else { 3 };
                out[base * cells + i] = 1.0;
                out[(base + 1) * cells + i] = f32::from(u.controllers) / men;
                out[(base + 2) * cells + i] = f32::from(u.prisoners) / men;
            }
        }
        if let Some((at, last)) = state.chain_cell() {
            out[7 * cells + at.index()] = 1.0;
            let over = geo
                .step(at, last.reverse())
                .expect("the chain came over a square");
            out[8 * cells + over.index()] = 1.0;
        }
        let constants = [
            f32::from(state.reserve(me)) / men,
            f32::from(state.reserve(!me)) / men,
            f32::from(u8::from(me == Color::White)),
            f32::from(state.quiet_turns()) / f32::from(NO_PROGRESS_LIMIT),
            f32::from(state.turns()) / f32::from(TURN_LIMIT),
            f32::from(u8::from(self.variant.blocked() == Blocked::Loss)),
        ];
        for (k, v) in constants.into_iter().enumerate() {
            out[(9 + k) * cells..(10 + k) * cells].fill(v);
        }
    }

    fn action_index(&self, action: ActionOf<Self>) -> usize {
        let cells = self.geo().cells();
        match action {
            Action::Enter(s) => self.cell(s),
            Action::Step(a, b) => (1 + Emergo::dir_of(a, b).index()) * cells + self.cell(a),
            Action::Jump(a, b) => (5 + Emergo::dir_of(a, b).index()) * cells + self.cell(a),
        }
    }

    fn action_from_index(&self, index: usize) -> Option<ActionOf<Self>> {
        let geo = self.geo();
        let cells = geo.cells();
        let (plane, cell) = (index / cells, Cell((index % cells) as u8));
        if !geo.is_playable(cell) || plane >= POLICY_PLANES {
            return None;
        }
        let from = geo.square(cell);
        if plane == 0 {
            return Some(Action::Enter(from));
        }
        let d = Dir::from_index((plane - 1) % 4)?;
        let to = geo.step(cell, d)?;
        if plane < 5 {
            Some(Action::Step(from, geo.square(to)))
        } else {
            Some(Action::Jump(from, geo.square(geo.step(to, d)?)))
        }
    }

    fn symmetries(&self) -> usize {
        8
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        state.transformed(k)
    }

    fn transform_index(&self, index: usize, k: usize) -> usize {
        let geo = self.geo();
        let cells = geo.cells();
        let (plane, cell) = (index / cells, Cell((index % cells) as u8));
        let plane = match plane {
            0 => 0,
            p => {
                let d = Dir::from_index((p - 1) % 4).expect("four directions");
                (p - 1) / 4 * 4 + 1 + d.mapped(k).index()
            }
        };
        plane * cells + geo.map_cell(cell, k).index()
    }

    fn tensor_layout(&self) -> TensorLayout {
        let n = self.geo().side;
        TensorLayout {
            planes: [
                "own units",
                "own units' controllers / men per side",
                "own units' prisoners / men per side",
                "opponent units",
                "opponent units' controllers / men per side",
                "opponent units' prisoners / men per side",
                "playable squares",
                "the unit that must continue a capture chain",
                "the square the chain jumped last (no turning back over it)",
                "own men in hand / men per side",
                "opponent men in hand / men per side",
                "white to act",
                "quiet turns / no-progress limit",
                "turns / turn limit",
                "a blocked player loses (variant)",
            ]
            .map(String::from)
            .to_vec(),
            cells: format!("row * {n} + column; row 0 is rank 1, column 0 is file a"),
            policy_index: format!(
                "plane * {} + cell: plane 0 enters a man on the cell, planes 1-4 step the unit on \
                 the cell north-east, north-west, south-west, south-east, planes 5-8 jump with it \
                 in those directions",
                n as usize * n as usize
            ),
            margin: "material (men in hand and in controlled units) ahead at the end, over all \
                     men"
            .into(),
        }
    }

    /// Per playable square (increasing cell order) two bytes: the owner (0
    /// empty, 1 White, 2 Black) and controllers * 16 + prisoners; then the
    /// men in hand (White, Black), the player to act (0/1), the chain's
    /// square as a playable-square number and its last direction (255 255
    /// for none), quiet turns and turns (`u16`) and decisions (`u32`),
    /// little-endian: 95 bytes on 9 x 9, 63 on 7 x 7.
    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        let geo = self.geo();
        for c in geo.playable() {
            match state.unit_at(c) {
                None => out.extend_from_slice(&[0, 0]),
                Some(u) => out.extend_from_slice(&[
                    1 + u.owner.index() as u8,
                    u.controllers << 4 | u.prisoners,
                ]),
            }
        }
        out.extend_from_slice(&[
            state.reserve(Color::White),
            state.reserve(Color::Black),
            state.to_act().index() as u8,
        ]);
        match state.chain_cell() {
            None => out.extend_from_slice(&[255, 255]),
            Some((at, d)) => {
                let k = geo.playable().position(|c| c == at).expect("playable");
                out.extend_from_slice(&[k as u8, d.index() as u8]);
            }
        }
        out.extend_from_slice(&state.quiet_turns().to_le_bytes());
        out.extend_from_slice(&state.turns().to_le_bytes());
        out.extend_from_slice(&state.ply().to_le_bytes());
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        let geo = self.geo();
        let squares: Vec<Cell> = geo.playable().collect();
        let want = 2 * squares.len() + 13;
        if bytes.len() != want {
            return Err(format!(
                "an emergo {} position takes {want} bytes, got {}",
                self.variant,
                bytes.len()
            ));
        }
        let mut units = Vec::new();
        for (k, &c) in squares.iter().enumerate() {
            let s = geo.square(c);
            let (owner, counts) = (bytes[2 * k], bytes[2 * k + 1]);
            let owner = match owner {
                0 if counts == 0 => continue,
                0 => return Err(format!("the empty square {s} has men counted on it")),
                1 => Color::White,
                2 => Color::Black,
                b => return Err(format!("owner byte {b} on {s} is neither 0, 1 nor 2")),
            };
            let unit = Unit {
                owner,
                controllers: counts >> 4,
                prisoners: counts & 15,
            };
            units.push((s, unit));
        }
        let at = 2 * squares.len();
        let to_act = match bytes[at + 2] {
            0 => Color::White,
            1 => Color::Black,
            b => return Err(format!("player to act byte {b} is neither 0 nor 1")),
        };
        let chain = match (bytes[at + 3], bytes[at + 4]) {
            (255, 255) => None,
            (k, d) => {
                let c = squares.get(usize::from(k)).ok_or_else(|| {
                    format!(
                        "chain square number {k} is not one of the {} playable squares",
                        squares.len()
                    )
                })?;
                let d = Dir::from_index(usize::from(d))
                    .ok_or_else(|| format!("chain direction byte {d} is not 0 to 3"))?;
                Some((geo.square(*c), d))
            }
        };
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let parts = Parts {
            units,
            reserve: [bytes[at], bytes[at + 1]],
            to_act,
            chain,
            quiet: u16_at(at + 5),
            turns: u16_at(at + 7),
            ply: u32::from_le_bytes(bytes[at + 9..at + 13].try_into().expect("4 bytes")),
        };
        Position::from_parts(self.variant, parts)
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<ActionOf<Self>, String> {
        let action = notation::parse(text)?;
        let mut probe = state.clone();
        probe.play(action).map_err(|e| e.reason)?;
        Ok(action)
    }

    /// Turns separated by white space; a capture turn is one token of its
    /// squares (`c3xe5xg3`), though its jumps may also be written apart.
    fn parse_game(&self, start: &Position, text: &str) -> Result<Vec<ActionOf<Self>>, String> {
        let mut pos = start.clone();
        let mut actions = Vec::new();
        for (i, token) in text.split_whitespace().enumerate() {
            for part in notation::split_turn(token) {
                let a = self
                    .parse_action(&pos, &part)
                    .map_err(|e| format!("turn {} `{token}`: {e}", i + 1))?;
                pos.play_unchecked(a);
                actions.push(a);
            }
        }
        Ok(actions)
    }

    /// Whole turns, a capture chain's jumps joined: `@e5 c3xe5xg3`.
    fn format_game(&self, start: &Position, actions: &[ActionOf<Self>]) -> String {
        let mut pos = start.clone();
        let mut turns: Vec<String> = Vec::new();
        for &a in actions {
            let continues = pos.chain_cell().is_some() && !turns.is_empty();
            if continues {
                notation::join_jump(turns.last_mut().expect("a turn under way"), a);
            } else {
                turns.push(a.to_string());
            }
            pos.play_unchecked(a);
        }
        turns.join(" ")
    }
}
