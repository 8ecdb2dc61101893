//! `yinsh-zero engine`: speak the text engine protocol on stdin/stdout
//! (docs/engine-protocol.md) so other programs and GUIs can drive a player.

use std::io;

use yinsh_zero::engine::{Engine, serve};

#[derive(clap::Args)]
pub struct Args {
    /// The player that answers `go`: any spec `yinsh-zero match` accepts
    /// except external programs.
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:depth=3")]
    pub player: String,
    /// Seed of the player's randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut engine = Engine::new(&args.player, args.seed).map_err(anyhow::Error::msg)?;
    serve(io::stdin().lock(), io::stdout().lock(), &mut engine)?;
    Ok(())
}
