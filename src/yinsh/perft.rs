//! TEMPORARY scaffold: filled by its owner.
