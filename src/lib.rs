//! yinsh-zero: an AlphaZero-style self-play trainer for the board game YINSH.
//!
//! Data flows one way: [`yinsh`] (rules) -> encoding -> search -> self-play
//! records -> replay -> training -> checkpoint -> [`eval`]uation.

pub mod encode;
pub mod eval;
pub mod evaluator;
pub mod nn;
pub mod stats;
pub mod yinsh;
