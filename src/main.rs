//! The `yinsh-zero` command line: parse, call the library, print.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
