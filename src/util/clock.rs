//! The process's own CPU time. A budget or a figure counted in it does not
//! depend on what else the machine runs: a run started at `nice` beside a
//! build spends the same CPU-hours as one on a quiet machine, only later.

use std::time::Duration;

/// User plus system time of every thread of this process so far; `None`
/// where the platform does not say (outside Unix).
///
/// ```
/// let before = yinsh_zero::util::clock::cpu_time();
/// let mut x = 0u64;
/// for i in 0..1_000_000u64 {
///     x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
/// }
/// if let (Some(a), Some(b)) = (before, yinsh_zero::util::clock::cpu_time()) {
///     assert!(b >= a);
/// }
/// ```
#[cfg(unix)]
pub fn cpu_time() -> Option<Duration> {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let t = |v: libc::timeval| Duration::new(v.tv_sec as u64, v.tv_usec as u32 * 1000);
    Some(t(usage.ru_utime) + t(usage.ru_stime))
}

#[cfg(not(unix))]
pub fn cpu_time() -> Option<Duration> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::cpu_time;
    use std::time::{Duration, Instant};

    #[test]
    fn busy_work_shows_in_the_cpu_time() {
        let before = cpu_time().expect("getrusage answers on Unix");
        // Spin until the process has spent 20 ms more: a sleeping process
        // would never get there, so this also shows sleep is not counted.
        let started = Instant::now();
        let mut x = 0u64;
        while cpu_time().unwrap() < before + Duration::from_millis(20) {
            for i in 0..10_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
        assert!(started.elapsed() >= Duration::from_millis(15));
    }
}
