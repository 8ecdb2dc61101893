//! The integration tests, one binary: each file here is a module that
//! drives the library through its public interface or the real
//! `yinsh-zero` binary, with the real components (a browser, S3 servers,
//! onnxruntime). One binary links the crate once, where a binary a file
//! linked it 54 times (issue 82). `cargo test --test it NAME` runs the
//! tests whose path contains NAME, e.g. `cargo test --test it morris_solve::`.

mod common;
mod emergo_reference;
mod fuzz;
mod reference;

mod arena;
mod average;
mod backprop;
mod cli_backend;
mod cli_engine;
mod closed_pipe;
mod config_keys;
mod conformance;
mod connect4;
mod connect4_book;
mod deploy;
mod distributed;
mod duel;
mod emergo;
mod engine;
mod export;
mod fuzz_parsers;
mod fuzz_regressions;
mod fuzz_targets;
mod grid;
mod grid_grade;
mod layout;
mod mcts;
mod mcts_solver;
mod morris;
mod morris_grade;
mod morris_pair;
mod morris_placing;
mod morris_solve;
mod nn;
mod nn_cpu;
mod nn_symmetry;
mod notation;
mod perft;
mod players;
mod pretrain;
mod reanalyse;
mod rules;
mod selfplay;
mod sgf;
mod stats;
mod store_s3;
mod symmetry;
mod tictactoe;
mod tictactoe_training;
mod train;
mod train_loop;
mod web_api;
mod web_attack;
mod web_browser;
mod web_connect4;
mod web_emergo;
mod web_grid;
mod web_load;
mod web_morris;
