//! TEMPORARY scaffold: players, filled by its owner.
