//! The `yinsh-zero` command line: the library's, with its own games.

fn main() -> std::process::ExitCode {
    yinsh_zero::cli::main()
}
