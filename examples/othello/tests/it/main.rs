//! Othello's tests, one binary (each file a module): its rules against an
//! independent implementation, the game interface's promises, and its
//! training through the library, programmatic and through its binary.

mod common;

mod cli;
mod interface;
mod perft;
mod rules;
mod training;
