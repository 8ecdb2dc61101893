//! Self-play records on disk and the replay window.

pub mod record;
pub mod window;
