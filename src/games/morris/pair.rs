//! One moving-phase pair of layers `{a:b, b:a}` (or a single layer `a:a`)
//! solved by retrograde analysis in two bytes a state, resumable.
//!
//! Every state holds one `u16`: two bits of status and fourteen of
//! number. An *open* state's number is how many of its distinct
//! successors inside the pair are not yet known to win (for the player
//! then to move); a *won* or *lost* state's number is its turns to the
//! end; a state that can never be lost (a turn leaving the pair draws) is
//! *open, never lost*. Nothing else is stored: predecessors come from
//! un-moves, and the value of a lost state's turns out of the pair (its
//! captures, into layers solved before) is looked up again when its last
//! open successor turns out won.
//!
//! The pass goes level by level in turns to the end. At level `L` every
//! state settled with `L` turns is taken (a scan of the array, no
//! queues): a lost one makes its open predecessors won in `L + 1` (or
//! sooner than a win found earlier through a capture), a won one takes
//! one from its open predecessors' counts, and a count that runs out
//! makes the state lost, as late as its slowest turn allows. So wins take
//! the fastest line and losses the slowest, as before. What is never
//! settled is a draw.
//!
//! A checkpoint (the array, the phase and how far it got) is written
//! atomically next to the layer files at most every
//! [`PairOptions::checkpoint_secs`], between chunks of the first pass and
//! between levels, and read back (checked) when the pair is started
//! again.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::time::Instant;

use arrayvec::ArrayVec;
use rayon::prelude::*;

use super::address::{Layer, LayerIndex, canonical};
use super::db::{DbError, LayerValues, Outcome, Preamble, Turn, check_size, for_each_turn};
use super::geometry::{Geometry, Variant, points};
use super::solve::Store;

const TAG: u16 = 0xC000;
const OPEN: u16 = 0x0000;
const WIN: u16 = 0x4000;
const LOSS: u16 = 0x8000;
const NO_LOSS: u16 = 0xC000;
const NUM: u16 = 0x3FFF;

const CK_MAGIC: &[u8; 8] = b"MORRISCK";
const CK_VERSION: u32 = 1;
const CK_HEADER: usize = 40;
const CHECKPOINT: Preamble = Preamble {
    magic: CK_MAGIC,
    version: CK_VERSION,
    kind: "Morris solver checkpoint",
};

/// How a pair is solved.
#[derive(Clone, Debug)]
pub struct PairOptions {
    /// Where the checkpoint goes (`None`: no checkpoints).
    pub checkpoint: Option<PathBuf>,
    /// Most seconds between checkpoints.
    pub checkpoint_secs: u64,
    /// Print progress lines (to standard error) about every this many
    /// seconds (`None`: quiet).
    pub progress_secs: Option<u64>,
    /// States of the first pass between chances to checkpoint.
    pub batch: usize,
    /// Stop with [`DbError::Stopped`] after writing this many checkpoints
    /// (tests of resuming).
    pub stop_after_checkpoints: Option<u32>,
}

impl PairOptions {
    /// Checkpoints into `path` every `secs` seconds, quiet.
    pub fn new(checkpoint: Option<PathBuf>, secs: u64) -> PairOptions {
        PairOptions {
            checkpoint,
            checkpoint_secs: secs,
            progress_secs: None,
            batch: 1 << 26,
            stop_after_checkpoints: None,
        }
    }
}

/// What happened to a pair besides its values.
#[derive(Clone, Debug, Default)]
pub struct PairLog {
    /// Resumed from a checkpoint: its phase and place.
    pub resumed_from: Option<String>,
    /// Why a checkpoint there was not used.
    pub bad_checkpoint: Option<String>,
    pub checkpoints_written: u32,
}

struct Pair<'a> {
    geo: &'static Geometry,
    variant: Variant,
    ix: &'a [LayerIndex],
    layers: Vec<Layer>,
    /// The first global index of side 1 (the total when single).
    split: usize,
    store: &'a Store,
}

impl Pair<'_> {
    #[inline]
    fn partner(&self, side: usize) -> usize {
        if self.ix.len() == 2 { 1 - side } else { 0 }
    }

    #[inline]
    fn locate(&self, g: usize) -> (usize, u32) {
        if g >= self.split {
            (1, (g - self.split) as u32)
        } else {
            (0, g as u32)
        }
    }

    #[inline]
    fn global(&self, side: usize, i: u32) -> usize {
        if side == 1 {
            self.split + i as usize
        } else {
            i as usize
        }
    }

    /// The first pass's word for a state.
    fn start(&self, side: usize, m: u32, o: u32) -> u16 {
        let other = self.layers[self.partner(side)];
        let mut inside: ArrayVec<u64, 192> = ArrayVec::new();
        let (mut win, mut draw, mut loss, mut blocked) = (u16::MAX, false, 0u16, true);
        for_each_turn(self.geo, self.layers[side], m, o, |t| {
            blocked = false;
            match t {
                Turn::To(l, m2, o2) if l == other => inside.push(canonical(self.geo, m2, o2)),
                t => {
                    let v = self.store.turn(t);
                    match v.outcome {
                        Outcome::Win => win = win.min(v.plies),
                        Outcome::Draw => draw = true,
                        Outcome::Loss => loss = loss.max(v.plies),
                    }
                }
            }
        });
        if blocked {
            return LOSS;
        }
        if win != u16::MAX {
            assert!(
                win <= NUM,
                "a win in {win} turns: more than the solver counts"
            );
            return WIN | win;
        }
        if draw {
            return NO_LOSS;
        }
        inside.sort_unstable();
        let mut n = 0u16;
        for (i, k) in inside.iter().enumerate() {
            if i == 0 || inside[i - 1] != *k {
                n += 1;
            }
        }
        if n == 0 {
            assert!(
                loss <= NUM,
                "a loss in {loss} turns: more than the solver counts"
            );
            LOSS | loss
        } else {
            OPEN | n
        }
    }

    /// The slowest loss through the turns of `g` that leave the pair (0:
    /// none).
    fn outside_loss(&self, g: usize) -> u16 {
        let (side, i) = self.locate(g);
        let (m, o) = self.ix[side].masks(i);
        let other = self.layers[self.partner(side)];
        let mut loss = 0u16;
        for_each_turn(self.geo, self.layers[side], m, o, |t| match t {
            Turn::To(l, ..) if l == other => {}
            t => {
                let v = self.store.turn(t);
                debug_assert_eq!(v.outcome, Outcome::Loss, "an open state's way out");
                loss = loss.max(v.plies);
            }
        });
        loss
    }

    /// The distinct predecessors of `g` in the pair.
    #[inline]
    fn predecessors(&self, g: usize) -> ArrayVec<u32, 192> {
        let (side, i) = self.locate(g);
        let ps = self.partner(side);
        let (m, o) = self.ix[side].masks(i);
        let mut preds: ArrayVec<u32, 192> = ArrayVec::new();
        for_each_unmove(self.geo, m, o, |mp, op| {
            if let Some(j) = self.ix[ps].index_of(mp, op) {
                let gp = self.global(ps, j) as u32;
                if !preds.contains(&gp) {
                    preds.push(gp);
                }
            }
        });
        preds
    }
}

/// The states of the moving phase one quiet move before `(m, o)`: the
/// opponent's stone at `y`, in no mill of its own there, came from an
/// empty point next to it (any empty point if the opponent flies). Each
/// comes as `(opponent's stones before, m)`: the previous mover's view.
#[inline]
pub(crate) fn for_each_unmove(geo: &Geometry, m: u32, o: u32, mut f: impl FnMut(u32, u32)) {
    let empty = geo.all & !(m | o);
    let flies = geo.flies(o.count_ones());
    for y in points(o) {
        if geo.in_mill(o, y) {
            continue;
        }
        for x in points(geo.targets(y, empty, flies)) {
            f(o ^ y.bit() ^ x.bit(), m);
        }
    }
}

/// Phase of a checkpoint.
const PHASE_START: u8 = 0;
const PHASE_LEVELS: u8 = 1;

fn variant_code(v: Variant) -> u8 {
    match v {
        Variant::Nine => 0,
        Variant::Six => 1,
        Variant::Three => 2,
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> DbError + '_ {
    move |e| DbError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn ck_header(variant: Variant, layer: Layer, phase: u8, at: u64, n: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(CK_HEADER);
    h.extend_from_slice(CK_MAGIC);
    h.extend_from_slice(&CK_VERSION.to_le_bytes());
    h.push(variant_code(variant));
    h.extend_from_slice(&[layer.a, layer.b, layer.hm, layer.ho]);
    h.push(phase);
    h.extend_from_slice(&[0, 0]);
    h.extend_from_slice(&at.to_le_bytes());
    h.extend_from_slice(&n.to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    debug_assert_eq!(h.len(), CK_HEADER);
    h
}

/// Writes the checkpoint atomically (temporary file, fsync, rename).
fn write_checkpoint(
    path: &Path,
    variant: Variant,
    layer: Layer,
    phase: u8,
    at: u64,
    words: &[AtomicU16],
) -> Result<(), DbError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let err = io_err(path);
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-ck-")
        .tempfile_in(dir)
        .map_err(&err)?;
    let mut crc = crc32fast::Hasher::new();
    {
        let mut w = BufWriter::with_capacity(1 << 22, tmp.as_file());
        let h = ck_header(variant, layer, phase, at, words.len() as u64);
        crc.update(&h);
        w.write_all(&h).map_err(&err)?;
        let mut buf = Vec::with_capacity(1 << 21);
        for chunk in words.chunks(1 << 20) {
            buf.clear();
            for w in chunk {
                buf.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
            }
            crc.update(&buf);
            w.write_all(&buf).map_err(&err)?;
        }
        w.write_all(&crc.finalize().to_le_bytes()).map_err(&err)?;
        w.flush().map_err(&err)?;
    }
    tmp.as_file().sync_all().map_err(&err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    crate::util::atomic::sync_dir(dir).map_err(&err)
}

/// Reads a checkpoint into `words`, checked (magic, version, variant,
/// layer, size, checksum): its phase and place.
fn read_checkpoint(
    path: &Path,
    variant: Variant,
    layer: Layer,
    words: &[AtomicU16],
) -> Result<(u8, u64), DbError> {
    let bad = |why: String| DbError::Malformed {
        path: path.to_path_buf(),
        why,
    };
    let err = io_err(path);
    let f = File::open(path).map_err(&err)?;
    let len = f.metadata().map_err(&err)?.len();
    let want = (CK_HEADER + 2 * words.len() + 4) as u64;
    if len < CK_HEADER as u64 {
        return Err(bad(format!(
            "checkpoint truncated: {len} bytes, shorter than its {CK_HEADER}-byte header"
        )));
    }
    let mut r = BufReader::with_capacity(1 << 22, f);
    let mut h = [0u8; CK_HEADER];
    r.read_exact(&mut h).map_err(&err)?;
    CHECKPOINT.check(path, &h, variant)?;
    let got = Layer {
        a: h[13],
        b: h[14],
        hm: h[15],
        ho: h[16],
    };
    if got != layer {
        return Err(bad(format!("checkpoint of layer {got}, expected {layer}")));
    }
    let phase = h[17];
    if phase != PHASE_START && phase != PHASE_LEVELS {
        return Err(bad(format!("unknown phase {phase}")));
    }
    let at = u64::from_le_bytes(h[20..28].try_into().unwrap());
    let n = u64::from_le_bytes(h[28..36].try_into().unwrap());
    if n != words.len() as u64 {
        return Err(bad(format!(
            "checkpoint of {n} states, the pair has {}",
            words.len()
        )));
    }
    check_size(path, len, want, &format!("{n} states"))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&h);
    let mut buf = vec![0u8; 1 << 21];
    for chunk in words.chunks(1 << 20) {
        let bytes = &mut buf[..2 * chunk.len()];
        r.read_exact(bytes).map_err(&err)?;
        crc.update(bytes);
        for (w, b) in chunk.iter().zip(bytes.chunks_exact(2)) {
            w.store(u16::from_le_bytes([b[0], b[1]]), Ordering::Relaxed);
        }
    }
    let mut tail = [0u8; 4];
    r.read_exact(&mut tail).map_err(&err)?;
    let stored = u32::from_le_bytes(tail);
    let computed = crc.finalize();
    if stored != computed {
        return Err(bad(format!(
            "checkpoint checksum mismatch (stored {stored:08x}, computed {computed:08x}): \
             the file is damaged"
        )));
    }
    Ok((phase, at))
}

fn hms(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Solves a moving-phase pair (`ix`: one layer `a:a`, or `a:b` and
/// `b:a`), its capture layers being in `store`.
pub fn solve_pair(
    variant: Variant,
    ix: &[LayerIndex],
    store: &Store,
    opts: &PairOptions,
) -> Result<(Vec<LayerValues>, PairLog), DbError> {
    let geo = variant.geometry();
    let split = ix[0].len();
    let total: usize = ix.iter().map(LayerIndex::len).sum();
    let pair = Pair {
        geo,
        variant,
        ix,
        layers: ix.iter().map(|x| x.layer).collect(),
        split,
        store,
    };
    let name = if ix.len() == 2 {
        format!(
            "{}:{}+{}:{}",
            ix[0].layer.a, ix[0].layer.b, ix[1].layer.a, ix[1].layer.b
        )
    } else {
        format!("{}:{}", ix[0].layer.a, ix[0].layer.b)
    };
    let say = |text: String| {
        if opts.progress_secs.is_some() {
            eprintln!("  [{name}] {text}");
        }
    };
    let words: Vec<AtomicU16> = (0..total)
        .into_par_iter()
        .map(|_| AtomicU16::new(0))
        .collect();
    let mut log = PairLog::default();
    let (mut phase, mut at) = (PHASE_START, 0u64);
    if let Some(path) = &opts.checkpoint
        && path.exists()
    {
        match read_checkpoint(path, variant, pair.layers[0], &words) {
            Ok((p, a)) => {
                phase = p;
                at = a;
                let text = if p == PHASE_START {
                    format!("first pass at state {a} of {total}")
                } else {
                    format!("level {a}")
                };
                say(format!("resumed from {} ({text})", path.display()));
                log.resumed_from = Some(text);
            }
            Err(e) => {
                say(format!("checkpoint not used: {e}"));
                log.bad_checkpoint = Some(e.to_string());
                words.par_iter().for_each(|w| w.store(0, Ordering::Relaxed));
            }
        }
    }
    let mut last_ck = Instant::now();
    let mut last_say = Instant::now();
    let every = opts.progress_secs.unwrap_or(u64::MAX) as f64;
    let checkpoint = |phase: u8, at: u64, log: &mut PairLog| -> Result<(), DbError> {
        if let Some(path) = &opts.checkpoint {
            let t = Instant::now();
            write_checkpoint(path, variant, pair.layers[0], phase, at, &words)?;
            log.checkpoints_written += 1;
            say(format!(
                "checkpoint written ({:.1} GB, {:.1}s)",
                (2 * total) as f64 / 1e9,
                t.elapsed().as_secs_f64()
            ));
            if opts.stop_after_checkpoints == Some(log.checkpoints_written) {
                return Err(DbError::Stopped { path: path.clone() });
            }
        }
        Ok(())
    };

    // First pass: each state's successors.
    const CHUNK: usize = 1 << 16;
    if phase == PHASE_START {
        let started = Instant::now();
        let from = at as usize;
        let mut next = from;
        while next < total {
            // A batch of chunks, then maybe a checkpoint.
            let end = (next + opts.batch.max(1)).min(total);
            let chunks: Vec<usize> = (next..end).step_by(CHUNK).collect();
            chunks.par_iter().for_each(|&c| {
                let stop = (c + CHUNK).min(end);
                let mut g = c;
                while g < stop {
                    let (side, i) = pair.locate(g);
                    let side_end = if side == 0 { split.min(stop) } else { stop };
                    let range = i as usize..i as usize + (side_end - g);
                    ix[side].for_each_in(range, |j, m, o| {
                        let w = pair.start(side, m, o);
                        words[pair.global(side, j as u32)].store(w, Ordering::Relaxed);
                    });
                    g = side_end;
                }
            });
            next = end;
            let secs = started.elapsed().as_secs_f64();
            if last_say.elapsed().as_secs_f64() >= every || next == total {
                let rate = (next - from) as f64 / secs.max(1e-9);
                say(format!(
                    "first pass {next}/{total} states ({:.1}%), {:.0} states/s, {} left in this pass",
                    100.0 * next as f64 / total.max(1) as f64,
                    rate,
                    hms((total - next) as f64 / rate.max(1e-9))
                ));
                last_say = Instant::now();
            }
            if next < total && last_ck.elapsed().as_secs() >= opts.checkpoint_secs {
                checkpoint(PHASE_START, next as u64, &mut log)?;
                last_ck = Instant::now();
            }
        }
        phase = PHASE_LEVELS;
        at = 0;
    }
    debug_assert_eq!(phase, PHASE_LEVELS);

    // Levels.
    let top = AtomicU64::new(0);
    words.par_iter().for_each(|w| {
        let v = w.load(Ordering::Relaxed);
        if v & TAG == WIN || v & TAG == LOSS {
            top.fetch_max(u64::from(v & NUM), Ordering::Relaxed);
        }
    });
    // The least level still to take in each chunk of words (u16::MAX:
    // none), so that a level scans only the chunks that have states at
    // it: past the first few dozen levels almost none do, and a scan of
    // the whole array per level would cost more than the level's work.
    const SPAN: usize = 1 << 16;
    let pending: Vec<AtomicU16> = (0..total.div_ceil(SPAN))
        .into_par_iter()
        .map(|c| {
            let stop = ((c + 1) * SPAN).min(total);
            let least = words[c * SPAN..stop]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .filter(|v| (v & TAG == WIN || v & TAG == LOSS) && u64::from(v & NUM) >= at)
                .map(|v| v & NUM)
                .min()
                .unwrap_or(u16::MAX);
            AtomicU16::new(least)
        })
        .collect();
    let started = Instant::now();
    let mut level = at;
    let settled = AtomicU64::new(0);
    while level <= top.load(Ordering::Relaxed) {
        let l = level as u16;
        let next = l + 1;
        assert!(
            next <= NUM,
            "level {next}: more turns than the solver counts"
        );
        (0..pending.len()).into_par_iter().for_each(|c| {
            if pending[c].load(Ordering::Acquire) > l {
                return;
            }
            // Emptied first, so that a state another chunk's work settles
            // here meanwhile (always at a later level) is not lost when
            // this scan's own least later level is put back.
            pending[c].swap(u16::MAX, Ordering::AcqRel);
            let stop = ((c + 1) * SPAN).min(total);
            let mut here = 0u64;
            let mut later = u16::MAX;
            for g in c * SPAN..stop {
                let v = words[g].load(Ordering::Acquire);
                let tag = v & TAG;
                if tag != WIN && tag != LOSS {
                    continue;
                }
                if v & NUM != l {
                    if v & NUM > l {
                        later = later.min(v & NUM);
                    }
                    continue;
                }
                here += 1;
                let lost = tag == LOSS;
                for gp in pair.predecessors(g) {
                    let w = &words[gp as usize];
                    let mut cur = w.load(Ordering::Acquire);
                    loop {
                        let new = if lost {
                            match cur & TAG {
                                LOSS => {
                                    debug_assert!(false, "a lost state with a lost successor");
                                    break;
                                }
                                WIN if cur & NUM <= next => break,
                                _ => WIN | next,
                            }
                        } else {
                            if cur & TAG != OPEN {
                                break;
                            }
                            let c = cur & NUM;
                            debug_assert!(c > 0, "a predecessor counted too few successors");
                            if c > 1 {
                                cur - 1
                            } else {
                                let p = next.max(pair.outside_loss(gp as usize));
                                assert!(p <= NUM, "a loss in {p} turns");
                                LOSS | p
                            }
                        };
                        match w.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Acquire)
                        {
                            Ok(_) => {
                                if new & TAG != OPEN {
                                    top.fetch_max(u64::from(new & NUM), Ordering::Relaxed);
                                    pending[gp as usize / SPAN]
                                        .fetch_min(new & NUM, Ordering::AcqRel);
                                }
                                break;
                            }
                            Err(c) => cur = c,
                        }
                    }
                }
            }
            pending[c].fetch_min(later, Ordering::AcqRel);
            settled.fetch_add(here, Ordering::Relaxed);
        });
        level += 1;
        if last_say.elapsed().as_secs_f64() >= every {
            say(format!(
                "level {level} of at least {}: {} states settled in {} ({:.1}% of the pair)",
                top.load(Ordering::Relaxed),
                settled.load(Ordering::Relaxed),
                hms(started.elapsed().as_secs_f64()),
                100.0 * settled.load(Ordering::Relaxed) as f64 / total.max(1) as f64
            ));
            last_say = Instant::now();
        }
        if level <= top.load(Ordering::Relaxed)
            && last_ck.elapsed().as_secs() >= opts.checkpoint_secs
        {
            checkpoint(PHASE_LEVELS, level, &mut log)?;
            last_ck = Instant::now();
        }
    }

    let mut out = Vec::with_capacity(ix.len());
    for (side, x) in ix.iter().enumerate() {
        let lo = pair.global(side, 0);
        let range = lo..lo + x.len();
        let (wdl, plies): (Vec<u8>, Vec<u16>) = words[range]
            .par_iter()
            .map(|w| {
                let v = w.load(Ordering::Relaxed);
                match v & TAG {
                    WIN => (Outcome::Win.code(), v & NUM),
                    LOSS => (Outcome::Loss.code(), v & NUM),
                    _ => (Outcome::Draw.code(), 0),
                }
            })
            .unzip();
        out.push(LayerValues { wdl, plies });
    }
    let _ = pair.variant;
    Ok((out, log))
}
