//! Which instruction set the native CPU passes' kernels run in: the
//! Winograd products (`microkernel.rs`) and transforms (`cpu.rs`).
//!
//! The build targets plain x86-64, so every path past SSE2 is compiled
//! beside the portable one and chosen at run time: AVX-512 where the CPU has
//! it, else AVX2 with FMA (Intel since Haswell, AMD since Zen 1: most
//! desktops, laptops and cloud machines), else portable code whose products
//! go through `gemm`. One machine can run each path it has, forced with the
//! environment variable [`ENV`] (every command) or `bench`'s `--simd`, so
//! that it measures and tests all of them.
//!
//! ```
//! use yinsh_zero::nn::Simd;
//!
//! // The portable path runs everywhere; the best one is what runs unforced.
//! assert!(Simd::Portable.is_available());
//! assert!(Simd::best().is_available());
//! assert_eq!("avx2".parse::<Simd>().unwrap(), Simd::Avx2);
//! assert!("sse9".parse::<Simd>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU8, Ordering};

use serde::{Deserialize, Serialize};

/// The environment variable that forces a path: `avx512`, `avx2` or
/// `portable`.
pub const ENV: &str = "YINSH_ZERO_SIMD";

/// An instruction-set path of the native CPU kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Simd {
    /// AVX-512F with FMA: 32 registers of 16 floats.
    Avx512,
    /// AVX2 with FMA: 16 registers of 8 floats.
    Avx2,
    /// The build's own target (SSE2 on x86-64); products through `gemm`,
    /// which picks its own kernels.
    Portable,
}

/// What can go wrong choosing a path.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimdError {
    #[error("unknown SIMD path `{0}` (expected avx512, avx2 or portable)")]
    Unknown(String),
    #[error("this CPU cannot run the {0} path (it can run: {1})")]
    Unavailable(Simd, String),
    #[error("{ENV}: {0}")]
    Env(Box<SimdError>),
}

impl Simd {
    /// Every path, fastest first.
    pub const ALL: [Simd; 3] = [Simd::Avx512, Simd::Avx2, Simd::Portable];

    /// The name `FromStr` and [`ENV`] take.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx512 => "avx512",
            Simd::Avx2 => "avx2",
            Simd::Portable => "portable",
        }
    }

    /// Floats in one of the path's vector registers.
    pub fn lanes(self) -> usize {
        match self {
            Simd::Avx512 => 16,
            Simd::Avx2 => 8,
            Simd::Portable => 4,
        }
    }

    /// Whether this CPU can run the path.
    pub fn is_available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Simd::Avx512 | Simd::Avx2 => false,
            Simd::Portable => true,
        }
    }

    /// The paths this CPU can run, fastest first.
    pub fn available() -> Vec<Simd> {
        Simd::ALL.into_iter().filter(|s| s.is_available()).collect()
    }

    /// The fastest path this CPU can run.
    pub fn best() -> Simd {
        Simd::ALL
            .into_iter()
            .find(|s| s.is_available())
            .unwrap_or(Simd::Portable)
    }

    /// The path the kernels take now: the one [`force`]d, else the one
    /// [`ENV`] names, else [`best`](Self::best).
    ///
    /// # Panics
    /// If [`ENV`] names no path this CPU can run (the command line checks it
    /// first with [`from_env`] and says so as an error).
    pub fn active() -> Simd {
        match ACTIVE.load(Ordering::Relaxed) {
            UNSET => {
                let chosen = match from_env() {
                    Ok(forced) => forced.unwrap_or_else(Simd::best),
                    Err(e) => panic!("{e}"),
                };
                ACTIVE.store(chosen as u8, Ordering::Relaxed);
                chosen
            }
            v => Simd::ALL[v as usize],
        }
    }
}

impl fmt::Display for Simd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Simd {
    type Err = SimdError;

    fn from_str(s: &str) -> Result<Simd, SimdError> {
        Simd::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| SimdError::Unknown(s.to_string()))
    }
}

const UNSET: u8 = u8::MAX;

/// The active path as its index in [`Simd::ALL`], or [`UNSET`].
static ACTIVE: AtomicU8 = AtomicU8::new(UNSET);

/// Makes every kernel take `path` from now on, in this process.
pub fn force(path: Simd) -> Result<(), SimdError> {
    if !path.is_available() {
        return Err(SimdError::Unavailable(path, available_names()));
    }
    ACTIVE.store(path as u8, Ordering::Relaxed);
    Ok(())
}

/// The path [`ENV`] forces, if it is set: an error if it names none, or
/// one this CPU cannot run.
pub fn from_env() -> Result<Option<Simd>, SimdError> {
    let Some(value) = std::env::var_os(ENV) else {
        return Ok(None);
    };
    let wrap = |e| SimdError::Env(Box::new(e));
    let path: Simd = value
        .to_str()
        .ok_or_else(|| wrap(SimdError::Unknown(value.to_string_lossy().into_owned())))?
        .parse()
        .map_err(wrap)?;
    if !path.is_available() {
        return Err(wrap(SimdError::Unavailable(path, available_names())));
    }
    Ok(Some(path))
}

fn available_names() -> String {
    let names: Vec<&str> = Simd::available().into_iter().map(Simd::name).collect();
    names.join(", ")
}

/// The CPU's vector extensions that matter to the kernels, as `/proc/cpuinfo`
/// names them, those this CPU has.
pub fn cpu_flags() -> Vec<&'static str> {
    let mut flags = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! check {
            ($($f:tt => $name:literal),*) => {
                $(if std::arch::is_x86_feature_detected!($f) { flags.push($name); })*
            };
        }
        check!(
            "sse4.2" => "sse4_2", "avx" => "avx", "avx2" => "avx2", "fma" => "fma",
            "f16c" => "f16c", "avx512f" => "avx512f", "avx512bw" => "avx512bw",
            "avx512vl" => "avx512vl", "avx512vnni" => "avx512_vnni",
            "avx512bf16" => "avx512_bf16"
        );
    }
    flags
}

/// The CPU's model name (Linux's `/proc/cpuinfo`), if it says.
pub fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, name)| name.trim().to_string())
}

/// The path whose registers [`fma_peak_gflops`] measures for `path`: the
/// path itself, or for the portable one (which has no FMA) the fastest.
pub fn peak_path(path: Simd) -> Simd {
    if path == Simd::Portable {
        Simd::best()
    } else {
        path
    }
}

/// The calling core's fp32 multiply-add peak on `path`, in GFLOP/s (two
/// FLOPs a lane): a loop of independent FMAs on twelve registers, as many as
/// hide the FMA latency of the machines we meet (4 cycles, 2 units), for
/// about `seconds`. The portable path has no FMA: it reports the fastest
/// path's peak, the machine's own. `None` off x86-64.
pub fn fma_peak_gflops(path: Simd, seconds: f64) -> Option<f64> {
    let path = peak_path(path);
    #[cfg(target_arch = "x86_64")]
    {
        const ROUND: u64 = 1 << 20;
        let lanes = path.lanes() as f64;
        let start = std::time::Instant::now();
        let mut fmas = 0u64;
        while fmas == 0 || start.elapsed().as_secs_f64() < seconds {
            // SAFETY: the path is available (forced or best), so the CPU
            // has the instructions its loop is compiled for.
            let sink = unsafe {
                match path {
                    Simd::Avx512 => peak::avx512(ROUND),
                    Simd::Avx2 => peak::avx2(ROUND),
                    Simd::Portable => return None,
                }
            };
            std::hint::black_box(sink);
            fmas += ROUND * peak::CHAINS as u64;
        }
        Some(2.0 * lanes * fmas as f64 / start.elapsed().as_secs_f64() / 1e9)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (path, seconds);
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod peak {
    use std::arch::x86_64::*;

    /// Independent accumulator chains.
    pub(super) const CHAINS: usize = 12;

    macro_rules! fma_loop {
        ($name:ident, $feature:literal, $v:ty, $set1:ident, $fma:ident, $first:ident) => {
            /// `rounds` (a multiple of 256) FMAs on each of [`CHAINS`]
            /// registers; returns a lane, so that the loop is kept.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name(rounds: u64) -> f32 {
                // Factors near 1 keep every chain finite however long it
                // runs. The chains start apart and pass through
                // `black_box` now and then (a store and a load each per
                // 256 FMAs), or the compiler would merge or drop them.
                let (a, b) = ($set1(0.999_999), $set1(1e-6));
                let mut acc: [$v; CHAINS] =
                    std::hint::black_box(std::array::from_fn(|i| $set1(i as f32)));
                for _ in 0..rounds / 256 {
                    for _ in 0..256 {
                        for acc in &mut acc {
                            *acc = $fma(*acc, a, b);
                        }
                    }
                    acc = std::hint::black_box(acc);
                }
                let mut sum = $set1(0.0);
                for acc in acc {
                    sum = $fma(acc, a, sum);
                }
                $first(sum)
            }
        };
    }

    fma_loop!(
        avx2,
        "avx2,fma",
        __m256,
        _mm256_set1_ps,
        _mm256_fmadd_ps,
        _mm256_cvtss_f32
    );
    fma_loop!(
        avx512,
        "avx512f,fma",
        __m512,
        _mm512_set1_ps,
        _mm512_fmadd_ps,
        _mm512_cvtss_f32
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_named() {
        for p in Simd::ALL {
            assert_eq!(p.name().parse::<Simd>(), Ok(p));
            assert_eq!(p.to_string(), p.name());
        }
        let e = "AVX2".parse::<Simd>().unwrap_err().to_string();
        assert!(
            e.contains("`AVX2`") && e.contains("avx512, avx2 or portable"),
            "{e}"
        );
    }

    #[test]
    fn the_peak_loop_measures_something() {
        let peak = fma_peak_gflops(Simd::best(), 0.01);
        #[cfg(target_arch = "x86_64")]
        assert!(peak.is_some_and(|g| g.is_finite() && g > 0.0), "{peak:?}");
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(peak, None);
    }
}
