//! TEMPORARY scaffold: random-game statistics, filled by its owner.
