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
    use std::time::Duration;

    #[test]
    fn busy_work_shows_in_the_cpu_time_and_it_never_goes_back() {
        // Other tests' threads add to the process's time too, so only
        // growth is checked: this loop ends because it burns CPU itself.
        let before = cpu_time().expect("getrusage answers on Unix");
        let mut last = before;
        let mut x = 0u64;
        while last < before + Duration::from_millis(20) {
            for i in 0..10_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            let now = cpu_time().unwrap();
            assert!(now >= last, "{now:?} after {last:?}");
            last = now;
        }
    }
}
