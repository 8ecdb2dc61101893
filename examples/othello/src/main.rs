//! `othello`: yinsh-zero's whole command line with 6x6 Othello as its home
//! game (the built-in games stay available by name).

use othello::Othello;
use yinsh_zero::games::With;

fn main() -> std::process::ExitCode {
    yinsh_zero::cli::main_with::<With<Othello>>()
}
