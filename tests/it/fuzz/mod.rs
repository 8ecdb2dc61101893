//! A coverage-free fuzzing harness (docs/fuzzing.md): each target starts
//! from a corpus of valid inputs and feeds its parser mutations of them
//! (bit flips, cut, repeated and spliced ranges, tokens of the format,
//! extreme numbers) and some random bytes, all drawn from one seed, so a
//! run is repeatable. A panic is a crash; a single allocation larger than
//! [`MAX_ALLOCATION`] while one input is parsed is an over-large
//! allocation; both stop the run with the input, written to
//! `target/fuzz-crashes/` and shown escaped. Hangs are not timed out (no
//! test here has a wall-clock limit): a long run prints its progress and
//! its slowest input, so a stall shows in its log.
//!
//! `cargo test` runs each target on a few thousand inputs; `FUZZ_INPUTS=N`
//! runs N, and `FUZZ_SEED=S` draws other ones:
//!
//! ```text
//! FUZZ_INPUTS=1000000 cargo test --test it -- --exact fuzz_targets::replay_records --nocapture
//! ```

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The largest single allocation one input may cause. Inputs are at most
/// [`MAX_INPUT`] bytes; nothing the parsers make of that comes near this,
/// unless a length or count read from the input is trusted.
pub const MAX_ALLOCATION: usize = 64 << 20;

/// The longest input tried.
pub const MAX_INPUT: usize = 16 << 10;

/// Counts the largest allocation asked for since the last reset: on the
/// thread that parses, and on any thread (a web handler's work runs on a
/// pool of its own). Tests of one binary run side by side, so the count of
/// all threads is only read for targets that ask for it
/// ([`Target::all_threads`]), and a long run runs one target alone.
pub struct PeakAlloc;

static PEAK_ALL: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    PEAK_ALL.fetch_max(size, Ordering::Relaxed);
    // `try_with`: a thread being torn down has no counter left.
    let _ = PEAK.try_with(|p| p.set(p.get().max(size)));
    if size > MAX_ALLOCATION {
        keep_before_abort();
    }
}

/// The input being parsed, for [`keep_before_abort`].
static INPUT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static INPUT_LEN: AtomicUsize = AtomicUsize::new(0);
/// A file opened at the start of a run to take that input, and the line
/// that says where it is.
static KEEP_FD: AtomicI32 = AtomicI32::new(-1);
static KEEP_NOTE: OnceLock<String> = OnceLock::new();

/// An allocation too large to succeed (a length read from the input and
/// trusted: 6e18 bytes) aborts the process before the run can report the
/// input, so it is written out now, with calls that do not allocate.
fn keep_before_abort() {
    let fd = KEEP_FD.swap(-1, Ordering::Relaxed);
    let (ptr, len) = (
        INPUT.load(Ordering::Relaxed),
        INPUT_LEN.load(Ordering::Relaxed),
    );
    if fd < 0 || ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` and `len` are the input `run` is parsing (it clears
    // them before the input is dropped); writing from them reads only them.
    unsafe {
        libc::write(fd, ptr.cast(), len);
        if let Some(note) = KEEP_NOTE.get() {
            libc::write(2, note.as_ptr().cast(), note.len());
        }
    }
}

// SAFETY: every call goes to the system allocator unchanged; the only
// additions are counters (an atomic, a const-initialised thread-local
// without destructor), neither of which allocates.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Inputs a target tries: `FUZZ_INPUTS`, else `smoke`.
pub fn inputs(smoke: u64) -> u64 {
    match std::env::var("FUZZ_INPUTS") {
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("FUZZ_INPUTS=`{v}` is not a count")),
        Err(_) => smoke,
    }
}

/// The run's seed: `FUZZ_SEED`, else 1.
pub fn seed() -> u64 {
    match std::env::var("FUZZ_SEED") {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("FUZZ_SEED=`{v}` is not a number")),
        Err(_) => 1,
    }
}

/// Mends a mutated input in place (see [`Target::fix`]).
pub type Fix = dyn Fn(&mut [u8], &mut SmallRng);

/// What a target is fed and how.
pub struct Target<'a> {
    pub name: &'static str,
    /// Valid (or nearly valid) inputs to mutate.
    pub corpus: Vec<Vec<u8>>,
    /// Words of the format, inserted and swapped in.
    pub dictionary: &'a [&'a [u8]],
    /// Mends what a mutation broke that would stop the parser at its first
    /// check (a length, a checksum), for most inputs; it gets a coin.
    pub fix: Option<&'a Fix>,
    /// Inputs tried when `FUZZ_INPUTS` is not set.
    pub smoke: u64,
    /// The parser works on other threads too: count their allocations.
    pub all_threads: bool,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Summary {
    pub tried: u64,
    pub accepted: u64,
    pub slowest: Duration,
    pub largest_allocation: usize,
}

/// Runs `target` over its inputs: `parse` returns whether the input was
/// accepted, and panics (with a message) where an invariant of an
/// accepted input fails.
pub fn run(target: Target<'_>, mut parse: impl FnMut(&[u8]) -> bool) -> Summary {
    assert!(!target.corpus.is_empty(), "{}: empty corpus", target.name);
    let total = inputs(target.smoke);
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed ^ hash(target.name));
    let mut summary = Summary::default();
    let mut slowest_input = Vec::new();
    let started = Instant::now();
    let report_every = (total / 20).max(1);
    arm_keep(target.name, seed);
    for i in 0..total {
        let input = if i < target.corpus.len() as u64 {
            target.corpus[i as usize].clone()
        } else {
            let mut input = mutate(&mut rng, &target.corpus, target.dictionary);
            if let Some(fix) = target.fix {
                fix(&mut input, &mut rng);
            }
            input
        };
        PEAK.with(|p| p.set(0));
        PEAK_ALL.store(0, Ordering::Relaxed);
        let clock = Instant::now();
        INPUT_LEN.store(input.len(), Ordering::Relaxed);
        INPUT.store(input.as_ptr().cast_mut(), Ordering::Relaxed);
        let outcome = catch_unwind(AssertUnwindSafe(|| parse(&input)));
        INPUT.store(std::ptr::null_mut(), Ordering::Relaxed);
        let took = clock.elapsed();
        let peak = if target.all_threads {
            PEAK_ALL.load(Ordering::Relaxed)
        } else {
            PEAK.with(|p| p.get())
        };
        match outcome {
            Ok(accepted) => summary.accepted += u64::from(accepted),
            Err(e) => {
                let what = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                fail(target.name, i, seed, &input, &format!("panicked: {what}"));
            }
        }
        if peak > MAX_ALLOCATION {
            fail(
                target.name,
                i,
                seed,
                &input,
                &format!(
                    "allocated {peak} bytes at once for a {}-byte input",
                    input.len()
                ),
            );
        }
        summary.largest_allocation = summary.largest_allocation.max(peak);
        if took > summary.slowest {
            summary.slowest = took;
            slowest_input.clone_from(&input);
        }
        summary.tried += 1;
        if total >= 100_000 && (i + 1) % report_every == 0 {
            println!(
                "fuzz {}: {} of {total} inputs, {} accepted, {:.0} s, slowest {:.1} ms",
                target.name,
                i + 1,
                summary.accepted,
                started.elapsed().as_secs_f64(),
                summary.slowest.as_secs_f64() * 1e3
            );
        }
    }
    // Kept for a look at what was slow (a stall shows here first).
    let _ = std::fs::create_dir_all(crash_dir()).and_then(|()| {
        std::fs::write(
            crash_dir().join(format!("{}-seed{seed}-slowest.bin", target.name)),
            &slowest_input,
        )
    });
    println!(
        "fuzz {}: {} inputs (seed {seed}): {} accepted, {} rejected; {:.1} s; corpus {} \
         inputs of up to {} bytes; slowest input {:.2} ms ({} bytes: {}); largest \
         allocation {} bytes",
        target.name,
        summary.tried,
        summary.accepted,
        summary.tried - summary.accepted,
        started.elapsed().as_secs_f64(),
        target.corpus.len(),
        target.corpus.iter().map(Vec::len).max().unwrap_or(0),
        summary.slowest.as_secs_f64() * 1e3,
        slowest_input.len(),
        preview(&slowest_input),
        summary.largest_allocation
    );
    summary
}

fn crash_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("..")
        .join("fuzz-crashes")
}

/// Opens the file [`keep_before_abort`] writes to (the first run of a
/// process only: the others run beside it, and its input is theirs).
fn arm_keep(name: &str, seed: u64) {
    let file = crash_dir().join(format!("{name}-seed{seed}-over-large-allocation.bin"));
    let note = format!(
        "fuzz {name}: an allocation over {MAX_ALLOCATION} bytes (seed {seed}); its input is kept \
         in {}\n",
        file.display()
    );
    if KEEP_NOTE.set(note).is_err() {
        return;
    }
    let opened = std::fs::create_dir_all(crash_dir()).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&file)
    });
    if let Ok(f) = opened {
        use std::os::fd::IntoRawFd;
        KEEP_FD.store(f.into_raw_fd(), Ordering::Relaxed);
    }
}

/// Keeps the input that failed and stops the run.
fn fail(name: &str, i: u64, seed: u64, input: &[u8], why: &str) -> ! {
    let dir = crash_dir();
    let file = dir.join(format!("{name}-seed{seed}-input{i}.bin"));
    let kept = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&file, input))
        .map(|()| format!("kept in {}", file.display()))
        .unwrap_or_else(|e| format!("not kept: {e}"));
    panic!(
        "fuzz {name}: input {i} (seed {seed}) {why}\ninput ({} bytes, {kept}): {}",
        input.len(),
        preview(input)
    );
}

/// An input as an escaped byte string, cut at 2000 characters.
pub fn preview(input: &[u8]) -> String {
    let s: String = input.escape_ascii().to_string();
    if s.len() > 2000 {
        format!("b\"{}\"...", &s[..2000])
    } else {
        format!("b\"{s}\"")
    }
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Numbers that break arithmetic and allocations, as text.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e309",
    "-0",
    "NaN",
    "inf",
    "-inf",
    "0.0000001",
    "1.5",
];

/// The same, as little-endian integers.
const WORDS: &[u64] = &[
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    u64::MAX,
];

/// One mutated input: a corpus entry, or random bytes, changed 1 to 8 times.
pub fn mutate(rng: &mut SmallRng, corpus: &[Vec<u8>], dictionary: &[&[u8]]) -> Vec<u8> {
    let mut v = if rng.random_ratio(1, 32) {
        let n = rng.random_range(0..64);
        (0..n).map(|_| rng.random()).collect()
    } else {
        corpus[rng.random_range(0..corpus.len())].clone()
    };
    let ops = 1 + (rng.random::<u32>().trailing_zeros() as usize).min(7);
    for _ in 0..ops {
        mutate_once(rng, &mut v, corpus, dictionary);
    }
    v.truncate(MAX_INPUT);
    v
}

fn mutate_once(rng: &mut SmallRng, v: &mut Vec<u8>, corpus: &[Vec<u8>], dictionary: &[&[u8]]) {
    let len = v.len();
    let at = |rng: &mut SmallRng| rng.random_range(0..=len);
    match rng.random_range(0..12) {
        // A bit flipped.
        0 if len > 0 => {
            let i = rng.random_range(0..len);
            v[i] ^= 1 << rng.random_range(0..8);
        }
        // A byte replaced.
        1 if len > 0 => {
            let i = rng.random_range(0..len);
            v[i] = rng.random();
        }
        // Random bytes inserted.
        2 => {
            let i = at(rng);
            let n = rng.random_range(1..8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            v.splice(i..i, bytes);
        }
        // A range cut.
        3 if len > 0 => {
            let i = rng.random_range(0..len);
            let n = rng.random_range(1..=(len - i).min(64));
            v.drain(i..i + n);
        }
        // A range repeated elsewhere.
        4 if len > 0 => {
            let i = rng.random_range(0..len);
            let n = rng.random_range(1..=(len - i).min(64));
            let chunk = v[i..i + n].to_vec();
            let j = at(rng);
            v.splice(j..j, chunk);
        }
        // A word of the format inserted, or written over what was there.
        5 | 6 if !dictionary.is_empty() => {
            let word = dictionary[rng.random_range(0..dictionary.len())];
            let i = at(rng);
            if rng.random() {
                v.splice(i..i, word.iter().copied());
            } else {
                let end = (i + word.len()).min(len);
                v.splice(i..end, word.iter().copied());
            }
        }
        // A number in the text replaced by an extreme one.
        7 => {
            let digits: Vec<usize> = (0..len).filter(|&i| v[i].is_ascii_digit()).collect();
            let n = NUMBERS[rng.random_range(0..NUMBERS.len())].as_bytes();
            if digits.is_empty() {
                let i = at(rng);
                v.splice(i..i, n.iter().copied());
            } else {
                let start = digits[rng.random_range(0..digits.len())];
                let end = (start..len)
                    .find(|&i| !v[i].is_ascii_digit())
                    .unwrap_or(len);
                v.splice(start..end, n.iter().copied());
            }
        }
        // An extreme binary word written over the bytes there.
        8 if len > 0 => {
            let word = WORDS[rng.random_range(0..WORDS.len())].to_le_bytes();
            let width = [1, 2, 4, 8][rng.random_range(0..4)];
            let i = rng.random_range(0..len);
            let end = (i + width).min(len);
            v[i..end].copy_from_slice(&word[..end - i]);
        }
        // Spliced: this input's head, another's tail.
        9 => {
            let other = &corpus[rng.random_range(0..corpus.len())];
            let i = at(rng);
            let j = rng.random_range(0..=other.len());
            v.truncate(i);
            v.extend_from_slice(&other[j..]);
        }
        // Cut short.
        10 if len > 0 => v.truncate(rng.random_range(0..len)),
        // Two ranges swapped (a line or a field moved).
        _ if len > 1 => {
            let i = rng.random_range(0..len);
            let j = rng.random_range(0..len);
            v.swap(i, j);
        }
        _ => v.push(rng.random()),
    }
}
