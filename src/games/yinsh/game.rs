//! YINSH on the [`Game`] interface: [`Position`] is its [`State`], and
//! [`Yinsh`] (standard or Blitz) its [`Game`].

use super::action::{ACTION_SPACE, Action, planes as action_planes};
use super::encode::{self, INPUT_PLANES};
use super::notation::parse_action;
use super::packed::PackedPosition;
use super::point::CELLS;
use super::position::{ActionList, Position, Variant};
use super::symmetry::Symmetry;
use crate::game::{Color, Game, GameResult, IllegalAction, NetShape, State, TensorLayout};

/// Side of the square grid the hexagonal board is drawn on.
const GRID: usize = 11;

impl State for Position {
    type Action = Action;
    type Actions = ActionList;

    #[inline]
    fn to_act(&self) -> Color {
        Position::to_act(self)
    }

    #[inline]
    fn legal_actions(&self) -> ActionList {
        Position::legal_actions(self)
    }

    #[inline]
    fn legal_action_count(&self) -> usize {
        Position::legal_action_count(self)
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        Position::is_legal(self, action)
    }

    #[inline]
    fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        Position::play(self, action)
    }

    #[inline]
    fn play_unchecked(&mut self, action: Action) {
        Position::play_unchecked(self, action)
    }

    #[inline]
    fn result(&self) -> Option<GameResult> {
        self.outcome().map(|o| match o.winner {
            Some(c) => GameResult::Win(c),
            None => GameResult::Draw,
        })
    }

    #[inline]
    fn is_over(&self) -> bool {
        Position::is_over(self)
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.outcome().map(|o| o.reason.name())
    }

    /// Placements and ring moves: a YINSH turn, not a decision.
    #[inline]
    fn ply(&self) -> u32 {
        self.turn()
    }

    #[inline]
    fn key(&self) -> u64 {
        self.hash()
    }

    fn margin(&self, player: Color) -> Option<f32> {
        let mine = self.rings_removed(player) as f32;
        let theirs = self.rings_removed(!player) as f32;
        Some((mine - theirs) / self.variant().rings_to_win.max(1) as f32)
    }
}

/// YINSH, standard (three rings win) or Blitz (one ring wins).
///
/// ```
/// use yinsh_zero::game::Game;
/// use yinsh_zero::games::yinsh::Yinsh;
/// assert_eq!(Yinsh::with_variant("blitz").unwrap(), Yinsh::blitz());
/// assert!(Yinsh::with_variant("speed").unwrap_err().contains("standard"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Yinsh {
    pub rules: Variant,
}

impl Yinsh {
    pub const fn standard() -> Yinsh {
        Yinsh {
            rules: Variant::STANDARD,
        }
    }

    pub const fn blitz() -> Yinsh {
        Yinsh {
            rules: Variant::BLITZ,
        }
    }

    /// The game a position is played under.
    pub fn of(pos: &Position) -> Yinsh {
        Yinsh {
            rules: pos.variant(),
        }
    }
}

impl Default for Yinsh {
    fn default() -> Self {
        Yinsh::standard()
    }
}

impl Game for Yinsh {
    type State = Position;

    const NAME: &'static str = "yinsh";
    const VARIANTS: &'static [&'static str] = &["standard", "blitz"];

    fn variant(&self) -> &str {
        self.rules.name()
    }

    fn with_variant(variant: &str) -> Result<Yinsh, String> {
        match variant {
            "standard" => Ok(Yinsh::standard()),
            "blitz" => Ok(Yinsh::blitz()),
            other => Err(format!(
                "yinsh has no variant `{other}` (known: {})",
                Yinsh::VARIANTS.join(", ")
            )),
        }
    }

    fn start(&self) -> Position {
        Position::with_variant(self.rules)
    }

    fn net_shape(&self) -> NetShape {
        NetShape {
            planes: INPUT_PLANES,
            height: GRID,
            width: GRID,
            policy_planes: action_planes::COUNT,
            extra_actions: 1,
        }
    }

    #[inline]
    /// Each point's marker colour at the end: where the rows a player made
    /// and the flips that decided the game left their marks.
    fn ownership(&self, last: &Position, player: Color, out: &mut [f32]) -> bool {
        out[..CELLS].fill(0.0);
        for p in last.markers(player) {
            out[p.index()] = 1.0;
        }
        for p in last.markers(!player) {
            out[p.index()] = -1.0;
        }
        true
    }

    fn encode(&self, state: &Position, out: &mut [f32]) {
        encode::encode(state, out)
    }

    #[inline]
    fn action_index(&self, action: Action) -> usize {
        action.index()
    }

    fn action_from_index(&self, index: usize) -> Option<Action> {
        Action::from_index(index)
    }

    fn symmetries(&self) -> usize {
        Symmetry::ALL.len()
    }

    fn transform(&self, state: &Position, k: usize) -> Position {
        Symmetry::ALL[k].position(state)
    }

    #[inline]
    fn transform_index(&self, index: usize, k: usize) -> usize {
        Symmetry::ALL[k].action_index(index)
    }

    fn tensor_layout(&self) -> TensorLayout {
        TensorLayout {
            planes: encode::PLANE_NAMES.iter().map(|s| s.to_string()).collect(),
            cells:
                "row * 11 + col; col 0..10 = A..K, row 0..10 = rows 1..11; off-board cells are 0"
                    .into(),
            policy_index: "plane * 121 + cell, pass = 7865; planes: 0 place ring; \
                           1 + direction * 10 + (distance - 1) ring move from the cell, \
                           directions E, N, NE, W, S, SW; 61 + axis remove the row starting \
                           at the cell, axes row (1,0), column (0,1), diagonal (1,1); 64 remove \
                           the ring on the cell. Logits: mask illegal actions, then softmax"
                .into(),
            margin: "tanh-squashed (own - opponent rings removed) / rings to win".into(),
        }
    }

    fn write_state(&self, state: &Position, out: &mut Vec<u8>) {
        bincode::serde::encode_into_std_write(
            PackedPosition::from(state),
            out,
            bincode::config::standard(),
        )
        .expect("writing to a vector cannot fail");
    }

    fn read_state(&self, bytes: &[u8]) -> Result<Position, String> {
        let (packed, used): (PackedPosition, usize) =
            bincode::serde::decode_from_slice(bytes, bincode::config::standard())
                .map_err(|e| format!("undecodable position: {e}"))?;
        if used != bytes.len() {
            return Err(format!("{} bytes after the position", bytes.len() - used));
        }
        let pos = Position::try_from(packed).map_err(|e| e.to_string())?;
        if pos.variant() != self.rules {
            return Err(format!(
                "a position of the {} variant, expected {}",
                Yinsh::of(&pos).variant(),
                self.variant()
            ));
        }
        Ok(pos)
    }

    fn parse_action(&self, state: &Position, text: &str) -> Result<Action, String> {
        parse_action(state, text).map_err(|e| e.to_string())
    }

    /// Official GIPF notation: turn tokens such as `i8-f5;xg5-g9xa5`.
    fn parse_game(&self, start: &Position, text: &str) -> Result<Vec<Action>, String> {
        super::notation::parse_game(start, text).map_err(|e| e.to_string())
    }

    fn format_game(&self, start: &Position, actions: &[Action]) -> String {
        super::notation::format_game(start, actions)
    }
}

const _: () = assert!(action_planes::COUNT * CELLS + 1 == ACTION_SPACE);
