// TEMPORARY scaffold, replaced by the owner of this command.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
