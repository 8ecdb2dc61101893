//! The ground floor: small utilities every room above may use and none of
//! which knows a game, a network or a run.

pub mod atomic;
pub mod clock;
pub mod excerpt;
pub mod out;
pub mod seed;

pub use atomic::write_atomic;
pub use excerpt::{excerpt, excerpt_bytes};
pub use seed::{mix64, sub_seed};
