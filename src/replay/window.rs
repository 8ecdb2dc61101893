//! The replay window: the newest self-play positions, sized to grow
//! sub-linearly with everything generated so far, sampled uniformly.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::record::{self, RecordError};
use crate::game::Game;

/// How big the window is. With `n` positions generated so far the window
/// holds `min(n, size(n))` of the newest, where `size` follows KataGo's
/// power law: `c * (1 + beta * ((n/c)^alpha - 1) / alpha)` past `c =
/// min_size`, capped at `max_size`. Early on every position is kept; later
/// the window grows slower than the data, so old games from weak networks
/// fade out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WindowConfig {
    /// Positions kept before the window starts to lag behind the data.
    pub min_size: usize,
    /// Hard cap on positions held in memory.
    pub max_size: usize,
    /// Exponent of the growth law (0 < alpha <= 1).
    pub alpha: f64,
    /// Slope of the growth law.
    pub beta: f64,
}

impl Default for WindowConfig {
    fn default() -> Self {
        WindowConfig {
            min_size: 20_000,
            max_size: 500_000,
            alpha: 0.75,
            beta: 0.4,
        }
    }
}

impl WindowConfig {
    /// Window size after `generated` positions in total.
    ///
    /// ```
    /// use yinsh_zero::replay::window::WindowConfig;
    /// let c = WindowConfig::default();
    /// assert_eq!(c.size(5_000), 5_000);
    /// assert!(c.size(1_000_000) < 1_000_000 / 2);
    /// assert_eq!(c.size(u64::MAX / 4), c.max_size);
    /// ```
    pub fn size(&self, generated: u64) -> usize {
        let c = self.min_size.max(1) as f64;
        let n = generated as f64;
        let s = if n <= c {
            n
        } else {
            c * (1.0 + self.beta * ((n / c).powf(self.alpha) - 1.0) / self.alpha)
        };
        (s as usize).min(self.max_size)
    }
}

/// How a sample's win/draw/loss and margin targets are made from what its
/// game recorded (the `[train]` table's `value_discount` and
/// `search_value_weight`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueTarget {
    /// Per move left to the end, the share of the target kept on the result,
    /// the rest on a draw (1 = the plain result).
    pub discount: f32,
    /// Share of the target taken from the search's value (and margin) at
    /// the position where the sample has one, the rest from the result (0 =
    /// the result alone). A result says how the game ended after every later
    /// mistake; the search says what the position was worth when it was
    /// played.
    pub search_weight: f32,
    /// The same share for the margin target alone. Apart from
    /// `search_weight` because the two targets teach different things: the
    /// margin orders moves that all lose (or all win) by how soon, which a
    /// result knows only after every later slip, while a win/draw/loss
    /// target mixed with a young network's search stays where the network
    /// already was.
    pub search_margin_weight: f32,
}

impl Default for ValueTarget {
    /// The game's result, undiscounted.
    fn default() -> Self {
        ValueTarget {
            discount: 1.0,
            search_weight: 0.0,
            search_margin_weight: 0.0,
        }
    }
}

/// A position of the window, checked and unpacked.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowSample<S> {
    pub position: S,
    pub policy: Vec<(u32, f32)>,
    pub outcome: i8,
    pub margin: Option<f32>,
    /// How far the game's end was ([`Sample::moves_left`](super::record::Sample::moves_left)).
    pub moves_left: Option<u32>,
    /// The search's win/draw/loss here ([`Sample::search_wdl`](super::record::Sample::search_wdl)).
    pub search_wdl: Option<[f32; 3]>,
    /// The search's margin here ([`Sample::search_margin`](super::record::Sample::search_margin)).
    pub search_margin: Option<f32>,
    /// The opponent's reply ([`Sample::reply`](super::record::Sample::reply)).
    pub reply: Option<Vec<(u32, f32)>>,
    /// The position its game ended in
    /// ([`Sample::game_end`](super::record::Sample::game_end)), one copy
    /// shared by the samples of a game.
    pub last: Option<Arc<S>>,
}

impl<S> WindowSample<S> {
    /// The win/draw/loss target for the player to act: the result, with
    /// `target.discount` to the power of the moves left (0 where unknown)
    /// of its weight on the result and the rest on a draw; then, where the
    /// sample has a search value, `target.search_weight` of it mixed in.
    ///
    /// ```
    /// use yinsh_zero::replay::window::{ValueTarget, WindowSample};
    /// let s = WindowSample { position: (), policy: vec![], outcome: 1, margin: None,
    ///     moves_left: Some(2), search_wdl: Some([0.2, 0.8, 0.0]), search_margin: None,
    ///     reply: None, last: None };
    /// assert_eq!(s.wdl_target(ValueTarget::default()), [1.0, 0.0, 0.0]);
    /// let t = ValueTarget::default();
    /// let [w, d, l] = s.wdl_target(ValueTarget { discount: 0.9, ..t });
    /// assert!((w - 0.81).abs() < 1e-6 && (d - 0.19).abs() < 1e-6 && l == 0.0);
    /// let [w, d, l] = s.wdl_target(ValueTarget { search_weight: 0.5, ..t });
    /// assert!((w - 0.6).abs() < 1e-6 && (d - 0.4).abs() < 1e-6 && l == 0.0);
    /// ```
    pub fn wdl_target(&self, target: ValueTarget) -> [f32; 3] {
        let weight = target
            .discount
            .powi(self.moves_left.unwrap_or(0).min(i32::MAX as u32) as i32);
        let result = match self.outcome {
            1 => [weight, 1.0 - weight, 0.0],
            -1 => [0.0, 1.0 - weight, weight],
            _ => [0.0, 1.0, 0.0],
        };
        match self.search_wdl {
            Some(q) if target.search_weight > 0.0 => {
                let k = target.search_weight;
                std::array::from_fn(|i| (1.0 - k) * result[i] + k * q[i])
            }
            _ => result,
        }
    }

    /// The margin target for the player to act: the game's final margin,
    /// with `target.search_margin_weight` of the search's margin mixed in where the
    /// sample has one (the margin is not discounted: it is the score itself,
    /// which already says how soon). `None` where the game has no margin.
    ///
    /// ```
    /// use yinsh_zero::replay::window::{ValueTarget, WindowSample};
    /// let s = WindowSample { position: (), policy: vec![], outcome: -1, margin: Some(-0.5),
    ///     moves_left: Some(2), search_wdl: None, search_margin: Some(-0.25),
    ///     reply: None, last: None };
    /// assert_eq!(s.margin_target(ValueTarget::default()), Some(-0.5));
    /// let mixed = ValueTarget { discount: 0.9, search_weight: 0.0, search_margin_weight: 0.5 };
    /// assert_eq!(s.margin_target(mixed), Some(-0.375));
    /// let wdl_only = ValueTarget { search_weight: 0.5, search_margin_weight: 0.0, ..mixed };
    /// assert_eq!(s.margin_target(wdl_only), Some(-0.5));
    /// let plain = WindowSample { search_margin: None, ..s };
    /// assert_eq!(plain.margin_target(mixed), Some(-0.5));
    /// ```
    pub fn margin_target(&self, target: ValueTarget) -> Option<f32> {
        let m = self.margin?;
        Some(match self.search_margin {
            Some(q) if target.search_margin_weight > 0.0 => {
                (1.0 - target.search_margin_weight) * m + target.search_margin_weight * q
            }
            _ => m,
        })
    }
}

/// The newest positions of one game, in the order their files were added.
#[derive(Debug)]
pub struct ReplayWindow<G: Game> {
    game: G,
    config: WindowConfig,
    samples: VecDeque<WindowSample<G::State>>,
    /// Files added so far, oldest first, with their sample counts.
    files: Vec<(PathBuf, usize)>,
    /// `files[held_from..]` are those some of whose positions are held.
    held_from: usize,
    /// The sum of those files' counts: the positions they hold, evicted or not.
    held_samples: usize,
    generated: u64,
}

impl<G: Game> ReplayWindow<G> {
    pub fn new(game: G, config: WindowConfig) -> Self {
        ReplayWindow {
            game,
            config,
            samples: VecDeque::new(),
            files: Vec::new(),
            held_from: 0,
            held_samples: 0,
            generated: 0,
        }
    }

    /// Positions generated in total (every file ever added).
    pub fn generated(&self) -> u64 {
        self.generated
    }

    /// Positions held now.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Files added so far, oldest first, with their sample counts (0 for
    /// those a resumed window took as spent, unread): what a checkpoint
    /// lists as its replay cursor, so that a resumed run takes every file
    /// not among them as new.
    pub fn files(&self) -> &[(PathBuf, usize)] {
        &self.files
    }

    /// How many of [`files`](Self::files), oldest first, have had every
    /// position leave the window: a resumed run need not read them again
    /// (nor fetch them from a store), however long the run has been.
    pub fn spent_files(&self) -> usize {
        self.held_from
    }

    /// Reads a record file and adds its positions, dropping the oldest ones
    /// beyond the window. A damaged or foreign file is an error naming it,
    /// and the window is unchanged.
    pub fn add_file(&mut self, path: &Path) -> Result<usize, RecordError> {
        let file = record::read(&self.game, path)?;
        let n = file.samples.len();
        self.generated += n as u64;
        self.push(path, file.samples, self.config.size(self.generated));
        Ok(n)
    }

    /// Refills a resumed run's window from the files its checkpoint listed
    /// (oldest first), `generated` positions having been made in the run
    /// up to then, which sizes the window as it was. The first `spent` of
    /// them left the window before: they are taken as added, unread. One
    /// result per file read, as [`add_file`](Self::add_file) gives: a
    /// missing or damaged file is skipped and the others still count.
    /// For a new, empty window.
    pub fn restore<'p>(
        &mut self,
        paths: impl IntoIterator<Item = &'p Path>,
        spent: usize,
        generated: u64,
    ) -> Vec<Result<usize, RecordError>> {
        debug_assert!(self.files.is_empty(), "restore fills a new window");
        let keep = self.config.size(generated);
        let mut read = 0u64;
        let mut results = Vec::new();
        for (i, path) in paths.into_iter().enumerate() {
            if i < spent {
                self.files.push((path.to_path_buf(), 0));
                self.held_from += 1;
                continue;
            }
            results.push(record::read(&self.game, path).map(|file| {
                let n = file.samples.len();
                read += n as u64;
                self.push(path, file.samples, keep);
                n
            }));
        }
        self.generated = generated.max(self.generated + read);
        let keep = self.config.size(self.generated);
        while self.samples.len() > keep {
            self.samples.pop_front();
        }
        self.forget_spent_files();
        results
    }

    /// Appends a file's checked samples and trims the window to `keep`.
    fn push(&mut self, path: &Path, samples: Vec<record::Sample>, keep: usize) {
        let n = samples.len();
        // A game's samples follow each other and share its last position:
        // one copy for them all.
        let mut last: Option<(record::GameEnd, Arc<G::State>)> = None;
        for s in samples {
            let position = self
                .game
                .read_state(&s.position)
                .expect("record::read validated every sample");
            let shared = s.game_end.map(|end| match &last {
                Some((e, state)) if *e == end => state.clone(),
                _ => {
                    let state = Arc::new(
                        end.state(&self.game)
                            .expect("record::read validated every sample"),
                    );
                    last = Some((end, state.clone()));
                    state
                }
            });
            self.samples.push_back(WindowSample {
                position,
                policy: s.policy,
                outcome: s.outcome,
                margin: s.margin,
                moves_left: s.moves_left,
                search_wdl: s.search_wdl,
                search_margin: s.search_margin,
                reply: s.reply,
                last: shared,
            });
        }
        while self.samples.len() > keep {
            self.samples.pop_front();
        }
        self.files.push((path.to_path_buf(), n));
        self.held_samples += n;
        self.forget_spent_files();
    }

    /// Moves past the oldest held files while the newer ones alone hold
    /// every sample of the window: samples leave oldest first, so those
    /// files' positions are all gone.
    fn forget_spent_files(&mut self) {
        while let Some(&(_, n)) = self.files.get(self.held_from) {
            if self.held_samples - n < self.samples.len() {
                break;
            }
            self.held_samples -= n;
            self.held_from += 1;
        }
    }

    /// The game whose positions the window holds.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The position held at `index` (0 the oldest), with its targets.
    ///
    /// # Panics
    /// If `index` is not below [`len`](Self::len).
    pub fn get(&self, index: usize) -> &WindowSample<G::State> {
        &self.samples[index]
    }

    /// Gives the position at `index` a new policy target and, where
    /// `search_wdl` is given, a new search value: a later search's answer
    /// ([`crate::reanalyse`]). The result, margin and moves left stay the
    /// game's. In memory only: the record files keep what self-play wrote.
    ///
    /// # Panics
    /// If `index` is not below [`len`](Self::len).
    pub fn retarget(
        &mut self,
        index: usize,
        policy: Vec<(u32, f32)>,
        search_wdl: Option<[f32; 3]>,
    ) {
        let s = &mut self.samples[index];
        s.policy = policy;
        if search_wdl.is_some() {
            s.search_wdl = search_wdl;
        }
    }

    /// `n` positions drawn uniformly (with replacement) from the window.
    pub fn sample<'a, R: Rng>(&'a self, rng: &mut R, n: usize) -> Vec<&'a WindowSample<G::State>> {
        if self.samples.is_empty() {
            return Vec::new();
        }
        (0..n)
            .map(|_| &self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::yinsh::{Position, Yinsh};
    use crate::replay::record::{RecordFile, RecordMeta, Sample};
    use rand::{SeedableRng, rngs::SmallRng};

    fn file_of(n: usize, tag: i8) -> RecordFile {
        let pos = Position::new();
        let legal = pos.legal_actions();
        let p = 1.0 / legal.len() as f32;
        let policy = legal.iter().map(|a| (a.index() as u32, p)).collect();
        let sample = Sample::new(&Yinsh::standard(), &pos, policy, tag, Some(0.0), 50);
        RecordFile {
            meta: RecordMeta {
                game: "yinsh".into(),
                variant: "standard".into(),
                generation: 0,
                games: 1,
                producer: "test".into(),
            },
            samples: vec![sample; n],
        }
    }

    fn window_of(min_size: usize, max_size: usize) -> WindowConfig {
        WindowConfig {
            min_size,
            max_size,
            alpha: 0.75,
            beta: 0.4,
        }
    }

    #[test]
    fn keeps_the_newest_positions_and_skips_damaged_files() {
        let dir = tempfile::tempdir().unwrap();
        let config = window_of(10, 15);
        let mut w = ReplayWindow::new(Yinsh::standard(), config.clone());
        for (i, tag) in [(0, -1), (1, 0), (2, 1)] {
            let p = dir.path().join(format!("{i}.bin"));
            record::write(&p, &file_of(8, tag)).unwrap();
            assert_eq!(w.add_file(&p).unwrap(), 8);
        }
        assert_eq!(w.generated(), 24);
        assert_eq!(w.len(), config.size(24));
        assert!(w.len() < 24 && w.len() >= 10);
        // The oldest file's positions went first.
        assert!(w.samples.iter().all(|s| s.outcome >= 0));
        let bad = dir.path().join("bad.bin");
        std::fs::write(&bad, b"YZRECORD garbage").unwrap();
        let e = w.add_file(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.bin"), "{e}");
        // The first file's positions are all gone: it is spent.
        assert_eq!(
            (w.len(), w.generated(), w.files().len(), w.spent_files()),
            (config.size(24), 24, 3, 1)
        );
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(w.sample(&mut rng, 100).len(), 100);
    }

    #[test]
    fn a_restored_window_holds_what_the_listed_files_left_it() {
        let dir = tempfile::tempdir().unwrap();
        let config = window_of(20, 40);
        let mut w = ReplayWindow::new(Yinsh::standard(), config.clone());
        for i in 0..30 {
            let p = dir.path().join(format!("{i}.bin"));
            record::write(&p, &file_of(5 + i % 4, [-1, 0, 1][i % 3])).unwrap();
            w.add_file(&p).unwrap();
            // Never more files held than it takes to hold the window.
            let held = &w.files()[w.spent_files()..];
            let newer: usize = held.iter().skip(1).map(|(_, n)| n).sum();
            assert!(newer < w.len(), "file {i}: {held:?}");
        }
        assert!(w.spent_files() > 15 && w.len() == config.size(w.generated()));
        let paths: Vec<_> = w.files().iter().map(|(p, _)| p.clone()).collect();
        // The spent files are not read: gone, they are not missed.
        let spent = w.spent_files();
        for p in &paths[..spent] {
            std::fs::remove_file(p).unwrap();
        }
        let mut back = ReplayWindow::new(Yinsh::standard(), config.clone());
        let results = back.restore(paths.iter().map(|p| p.as_path()), spent, w.generated());
        assert_eq!(results.len(), paths.len() - spent);
        assert!(results.iter().all(|r| r.is_ok()));
        assert_eq!(back.samples, w.samples);
        assert_eq!(back.generated(), w.generated());
        assert_eq!(back.spent_files(), spent);
        assert_eq!(back.files()[spent..], w.files()[spent..]);
        assert_eq!(back.files().len(), paths.len());
        // A missing held file is reported and skipped; the window keeps its
        // size law and the rest of what it held.
        std::fs::remove_file(&paths[spent]).unwrap();
        let mut gap = ReplayWindow::new(Yinsh::standard(), config);
        let results = gap.restore(paths.iter().map(|p| p.as_path()), spent, w.generated());
        assert!(results[0].is_err() && results[1..].iter().all(|r| r.is_ok()));
        assert_eq!(gap.generated(), w.generated());
        let rest: usize = w.files()[spent + 1..].iter().map(|(_, n)| n).sum();
        assert_eq!(gap.len(), rest);
        assert_eq!(gap.files().len(), paths.len() - 1);
    }
}
