//! The game interface every layer above is written against.
//!
//! Two traits split a game the way OpenSpiel does:
//!
//! - [`State`] is a position with its rules: who acts, the legal actions,
//!   playing one, and the result once the game is over. The search needs
//!   nothing else.
//! - [`Game`] is a game and its variant as a value: the start position, what
//!   the network sees ([`NetShape`], [`Game::encode`]), the dense action
//!   index, board symmetries for augmentation, the bytes a position takes in
//!   a record file, text notation, and an optional score margin.
//!
//! The shape of a game is asked of a `Game` *value* because it may depend on
//! the variant (an N x N board). Everything a state can answer alone stays on
//! [`State`], so the hot loops of the search carry no game value around.
//!
//! What the interface allows, because the games on it need it:
//!
//! - one player acting several times in a row (YINSH's move, row and ring
//!   decisions; Morris's move then removal): [`State::to_act`] is asked at
//!   every decision and nothing assumes players alternate;
//! - compound turns split into several decisions, each one action;
//! - phases and asymmetric action sets: the legal actions are whatever the
//!   position says; the dense index ([`Game::action_index`]) only has to be
//!   injective over every action the game can ever offer;
//! - draws by repetition or no-progress counters: the state carries whatever
//!   history decides them, and [`State::result`] reports the draw;
//! - a score margin where the game has one ([`State::margin`]), `None` where
//!   it has not.
//!
//! A whole game written on these traits (tic-tac-toe, about 100 lines),
//! trained and then asked for a move, is the example of
//! [`train`](crate::run::train_loop::train); `examples/othello` is 6x6
//! Othello in a crate of its own, with the command line.
//!
//! ```
//! use yinsh_zero::game::{Color, Game, State};
//! use yinsh_zero::games::yinsh::Yinsh;
//!
//! let game = Yinsh::standard();
//! let mut s = game.start();
//! assert_eq!(s.to_act(), Color::White);
//! let first = s.legal_actions()[0];
//! s.play(first).unwrap();
//! assert_eq!(s.to_act(), Color::Black);
//! assert!(s.result().is_none());
//! let shape = game.net_shape();
//! assert_eq!(shape.action_space(), 65 * 121 + 1);
//! ```

mod color;
pub mod perft;
mod square;

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::ops::Deref;

pub use color::Color;
pub use square::Square;

/// An action that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{action}` is not legal here: {reason}")]
pub struct IllegalAction {
    pub action: String,
    pub reason: String,
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win(Color),
    Draw,
}

impl GameResult {
    /// +1 if `c` won, -1 if it lost, 0 for a draw.
    ///
    /// ```
    /// use yinsh_zero::game::{Color, GameResult};
    /// assert_eq!(GameResult::Win(Color::Black).score_for(Color::White), -1);
    /// assert_eq!(GameResult::Draw.score_for(Color::Black), 0);
    /// ```
    pub fn score_for(self, c: Color) -> i8 {
        match self {
            GameResult::Draw => 0,
            GameResult::Win(w) if w == c => 1,
            GameResult::Win(_) => -1,
        }
    }

    /// The winner, `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::Win(c) => Some(c),
            GameResult::Draw => None,
        }
    }
}

/// A position and its rules: everything the search asks of a game.
///
/// Cloning a state must be cheap next to a network evaluation: the search
/// keeps one per tree node.
/// `Display` draws the position for humans (the engine's `d`, logs).
pub trait State: Clone + PartialEq + Debug + Display + Send + Sync + 'static {
    /// One decision. `Display` writes the game's own notation for it.
    type Action: Copy + Eq + Hash + Ord + Debug + Display + Send + Sync + 'static;
    /// The legal actions of a position, in a fixed order (a stack array, a
    /// vector: whatever the game generates fastest).
    type Actions: Deref<Target = [Self::Action]>;

    /// Who makes the current decision. Meaningless once the game is over.
    fn to_act(&self) -> Color;

    /// The legal actions, in the order every prior and policy target uses.
    /// Never empty while the game is not over (a game whose player may be
    /// unable to move offers a pass action, or ends).
    fn legal_actions(&self) -> Self::Actions;

    /// `legal_actions().len()`, where the game can count them faster.
    fn legal_action_count(&self) -> usize {
        self.legal_actions().len()
    }

    /// Whether `action` is legal here.
    fn is_legal(&self, action: Self::Action) -> bool {
        self.legal_actions().contains(&action)
    }

    /// Plays `action` after checking that it is legal; on error the state is
    /// unchanged.
    fn play(&mut self, action: Self::Action) -> Result<(), IllegalAction>;

    /// Plays an action known to be legal (one of [`State::legal_actions`]):
    /// the search's fast path.
    fn play_unchecked(&mut self, action: Self::Action) {
        if let Err(e) = self.play(action) {
            panic!("play_unchecked: {e}");
        }
    }

    /// The result once the game is over, else `None`.
    fn result(&self) -> Option<GameResult>;

    fn is_over(&self) -> bool {
        self.result().is_some()
    }

    /// Why the game ended, in a word for game records (`three_rings`,
    /// `pool_empty`); `None` while it runs, or where a game has only one
    /// way to end.
    fn end_reason(&self) -> Option<&'static str> {
        None
    }

    /// Decisions (or the game's own turn count) made so far: the clock of
    /// temperature schedules and of game-length statistics.
    fn ply(&self) -> u32;

    /// A 64-bit hash of everything that decides the rest of the game, for
    /// evaluation caches: equal states hash alike whatever the move order.
    fn key(&self) -> u64;

    /// The final score margin of a game ending here, for `player`, scaled
    /// into [-1, 1] (YINSH: rings removed by `player` minus the opponent's,
    /// over rings needed to win; Connect Four: how soon the game was won);
    /// `None` for a game without one, whose networks get no margin target
    /// and whose search can weigh no score. A property of the finished
    /// position, so that the search can read it at a terminal node without
    /// knowing the game.
    fn margin(&self, player: Color) -> Option<f32> {
        let _ = player;
        None
    }
}

/// The actions of a game's states.
pub type ActionOf<G> = <<G as Game>::State as State>::Action;

/// The tensor shapes a network for a game has.
///
/// Inputs are `planes` planes over a `height x width` grid. The policy is
/// `policy_planes` logits per grid cell, plane-major (`plane * height *
/// width + cell`), followed by `extra_actions` logits that belong to no cell
/// (YINSH's pass), read from globally pooled features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NetShape {
    pub planes: usize,
    pub height: usize,
    pub width: usize,
    pub policy_planes: usize,
    pub extra_actions: usize,
}

impl NetShape {
    /// Grid cells of one plane.
    pub const fn cells(&self) -> usize {
        self.height * self.width
    }

    /// Floats of one encoded position.
    pub const fn input_size(&self) -> usize {
        self.planes * self.cells()
    }

    /// Entries of the dense action index (the policy output).
    pub const fn action_space(&self) -> usize {
        self.policy_planes * self.cells() + self.extra_actions
    }
}

/// How a game's tensors read, in words, for people who use an exported
/// network outside this program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorLayout {
    /// The input planes' names, in order.
    pub planes: Vec<String>,
    /// Which grid cell is which point of the board.
    pub cells: String,
    /// How a dense action index names an action.
    pub policy_index: String,
    /// What the margin output is trained on.
    pub margin: String,
}

/// A game and its variant: what the trainer, the network and the records
/// need beyond the rules of a position.
pub trait Game: Clone + Debug + PartialEq + Send + Sync + 'static {
    type State: State;

    /// The game's name as configs, records and the engine protocol write it
    /// (`yinsh`).
    const NAME: &'static str;

    /// The names of the game's variants, the first the usual one.
    const VARIANTS: &'static [&'static str];

    /// The variant's name as configs and records write it (`standard`).
    fn variant(&self) -> &str;

    /// The game of a variant name; the error lists the known variants.
    fn with_variant(variant: &str) -> Result<Self, String>;

    /// The position every game starts from.
    fn start(&self) -> Self::State;

    /// What the network sees and answers.
    fn net_shape(&self) -> NetShape;

    /// The plane counts of the game's earlier encodings, each of whose
    /// planes are the first of today's (planes are only ever added at the
    /// end): a network trained on one still loads, the planes added since
    /// reaching it with zero weights. Empty for a game whose encoding never
    /// grew.
    fn earlier_input_planes(&self) -> &'static [usize] {
        &[]
    }

    /// Writes the input planes of `state` into `out[..input_size]`, seen by
    /// the player to act (one network plays both sides). Everything in that
    /// range is overwritten.
    fn encode(&self, state: &Self::State, out: &mut [f32]);

    /// The dense index of `action`, below [`NetShape::action_space`].
    fn action_index(&self, action: ActionOf<Self>) -> usize;

    /// The action at a dense index, if one has it.
    fn action_from_index(&self, index: usize) -> Option<ActionOf<Self>>;

    /// The ownership target of a game that ended in `last` (KataGo's,
    /// Wu 2019, section 4.1), for the network's auxiliary ownership head:
    /// for each cell of the input grid (`out[..cells]`, the planes' cell
    /// order), 1 where `player`'s piece stands at the end, -1 where the
    /// opponent's does, 0 where neither. Returns `false`, writing nothing,
    /// in a game without one (the default), which then trains no such head.
    /// Read from [`transform`](Self::transform)ed positions, so that the
    /// target turns with the input.
    fn ownership(&self, last: &Self::State, player: Color, out: &mut [f32]) -> bool {
        let _ = (last, player, out);
        false
    }

    /// Number of board symmetries, the identity (number 0) included; 1 for
    /// none.
    fn symmetries(&self) -> usize {
        1
    }

    /// `state` under symmetry `k` (`k < symmetries()`).
    fn transform(&self, state: &Self::State, k: usize) -> Self::State {
        debug_assert!(k < self.symmetries());
        state.clone()
    }

    /// The dense action index `index` under symmetry `k`: the index of the
    /// transformed action in the transformed state.
    fn transform_index(&self, index: usize, k: usize) -> usize {
        debug_assert!(k < self.symmetries());
        index
    }

    /// What the input planes, cells, action index and margin mean, for the
    /// manifest of an exported network. The default names planes by number.
    fn tensor_layout(&self) -> TensorLayout {
        let shape = self.net_shape();
        TensorLayout {
            planes: (0..shape.planes).map(|k| format!("plane_{k}")).collect(),
            cells: format!("row * {} + col", shape.width),
            policy_index: format!(
                "plane * {} + cell, then {} actions tied to no cell",
                shape.cells(),
                shape.extra_actions
            ),
            margin: "untrained: the game has no score margin".into(),
        }
    }

    /// Appends the bytes of `state` that a record file stores.
    fn write_state(&self, state: &Self::State, out: &mut Vec<u8>);

    /// Reads a state written by [`Game::write_state`], checking it against
    /// the rules; the error says what is wrong.
    fn read_state(&self, bytes: &[u8]) -> Result<Self::State, String>;

    /// Reads one action in the game's notation (the inverse of the action's
    /// `Display`) in `state`; the error says why it is not legal or not
    /// understood.
    fn parse_action(&self, state: &Self::State, text: &str) -> Result<ActionOf<Self>, String>;

    /// Reads a whole game from `start` in the game's notation. By default
    /// the actions are separated by white space; a game whose notation
    /// writes a turn of several actions as one token (YINSH: a ring move
    /// and the removals it causes) reads its own way.
    fn parse_game(&self, start: &Self::State, text: &str) -> Result<Vec<ActionOf<Self>>, String> {
        let mut pos = start.clone();
        let mut actions = Vec::new();
        for (i, token) in text.split_whitespace().enumerate() {
            let a = self
                .parse_action(&pos, token)
                .map_err(|e| format!("action {} `{token}`: {e}", i + 1))?;
            pos.play_unchecked(a);
            actions.push(a);
        }
        Ok(actions)
    }

    /// Writes `actions` played from `start` as [`parse_game`](Self::parse_game) reads them.
    fn format_game(&self, start: &Self::State, actions: &[ActionOf<Self>]) -> String {
        let _ = start;
        actions
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Up to `decisions` uniformly random legal actions from `start`, stopping
/// short of one that would end the game: the random openings that
/// self-play and matches start from, so that games differ.
pub fn random_opening<S: State>(
    start: &S,
    decisions: u32,
    rng: &mut impl rand::Rng,
) -> Vec<S::Action> {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(decisions as usize);
    while out.len() < decisions as usize && !pos.is_over() {
        let legal = pos.legal_actions();
        let a = legal[rng.random_range(0..legal.len())];
        let mut next = pos.clone();
        next.play_unchecked(a);
        if next.is_over() {
            break;
        }
        pos = next;
        out.push(a);
    }
    out
}
