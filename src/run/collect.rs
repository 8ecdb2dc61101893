//! The collect phase (`[loop] selfplay = "workers"`): the trainer plays
//! no games; it waits until `yinsh-zero worker` processes have uploaded a
//! generation's games and takes them into the replay window.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::RunCtx;
use super::metrics::{MetricsLog, fields};
use super::progress::Phase;
use crate::game::Game;
use crate::replay::record;
use crate::replay::window::ReplayWindow;

/// What the collect phase remembers from one generation to the next.
#[derive(Default)]
pub(crate) struct Collector {
    /// Uploaded files found unusable (relative paths): reported once.
    rejected: BTreeSet<String>,
    /// When workers' games were last taken into the window.
    last_collected: Option<Instant>,
}

/// What one generation took from the workers.
pub(crate) struct Collected {
    /// Positions added to the window.
    pub positions: u64,
    /// Games taken: at least `[loop] games_per_generation`, since whole
    /// files are taken.
    pub games: u64,
}

impl Collector {
    /// Waits until workers have uploaded generation `g`'s games (record
    /// files not yet in the window holding `[loop] games_per_generation`
    /// games, from any network), then adds them to `window` and logs the
    /// workers' pace as `step`'s `selfplay` line. Files that cannot be
    /// used (damaged, another game's, not a record) are named once and
    /// left out. `None` on a stop request.
    pub fn collect<G: Game>(
        &mut self,
        ctx: &RunCtx<'_, G>,
        window: &mut ReplayWindow<G>,
        log: &mut MetricsLog,
        step: u64,
        g: u64,
    ) -> anyhow::Result<Option<Collected>> {
        let want = ctx.cfg.run.games_per_generation;
        let phase = Phase::start(format!("generation {g} games from workers"), want, "games");
        let t = Instant::now();
        let Some(found) = self.wait_for_games(ctx, window, &phase)? else {
            phase.finish();
            return Ok(None);
        };
        phase.finish();
        let games: u64 = found.iter().map(|(_, n)| n).sum();
        let before = window.generated();
        for (p, _) in &found {
            if let Err(e) = window.add_file(p) {
                eprintln!("skipping record file: {e}");
            }
        }
        // The workers' pace: games delivered since the previous
        // generation's games were taken (the trainer's own work included,
        // during which the workers went on).
        let now = Instant::now();
        let mut f = json!({
            "source": "workers",
            "games": games,
            "files": found.len(),
            "positions": window.generated() - before,
            "waited_s": t.elapsed().as_secs_f64(),
        });
        if let Some(last) = self.last_collected {
            let secs = (now - last).as_secs_f64().max(1e-9);
            f["games_per_hour"] = json!(games as f64 * 3600.0 / secs);
        }
        self.last_collected = Some(now);
        log.log("selfplay", g, step, fields(&f));
        Ok(Some(Collected {
            positions: window.generated() - before,
            games,
        }))
    }

    /// Polls the run's records every `[workers] poll_seconds` until the
    /// uploads not in `window` hold the generation's games: those files
    /// and their games, or `None` on a stop request.
    fn wait_for_games<G: Game>(
        &mut self,
        ctx: &RunCtx<'_, G>,
        window: &ReplayWindow<G>,
        phase: &Phase,
    ) -> anyhow::Result<Option<Vec<(PathBuf, u64)>>> {
        let want = ctx.cfg.run.games_per_generation;
        let poll = Duration::from_secs_f64(ctx.cfg.workers.poll_seconds);
        let run = ctx.run;
        let mut found: Vec<(PathBuf, u64)> = Vec::new();
        let mut games = 0;
        loop {
            if let Some(s) = ctx.publish.store() {
                s.pull_new_records(&self.rejected)?;
            }
            let mut known: BTreeSet<String> = window
                .files()
                .iter()
                .map(|(p, _)| run.relative(p))
                .collect();
            known.extend(self.rejected.iter().cloned());
            known.extend(found.iter().map(|(p, _)| run.relative(p)));
            for p in uploaded_files(&run.selfplay())? {
                let rel = run.relative(&p);
                if known.contains(&rel) {
                    continue;
                }
                let is_record = p.extension().is_some_and(|x| x == "bin");
                match record::read(ctx.game, &p) {
                    Ok(f) if is_record => {
                        games += f.meta.games as u64;
                        found.push((p, f.meta.games as u64));
                    }
                    Ok(_) => {
                        eprintln!("skipping uploaded file {rel}: record files end in .bin");
                        self.rejected.insert(rel);
                    }
                    Err(e) => {
                        eprintln!("skipping uploaded file {rel}: {e}");
                        self.rejected.insert(rel);
                    }
                }
            }
            phase.set(games.min(want), format!("{} files", found.len()));
            if games >= want {
                return Ok(Some(found));
            }
            let until = Instant::now() + poll;
            while Instant::now() < until {
                if ctx.stopping() {
                    return Ok(None);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// Files in the records folder, sorted, without the store's and
/// `write_atomic`'s staging files (an upload in progress).
fn uploaded_files(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let entries = match fs::read_dir(folder) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".tmp-") || name.contains('#') || !e.file_type()?.is_file() {
            continue;
        }
        out.push(e.path());
    }
    out.sort();
    Ok(out)
}
