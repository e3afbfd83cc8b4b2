//! What the hand-timed benchmarks (`roofline.rs`, `peers.rs`) share: the thread's CPU clock,
//! the median, the machine and load for their headers, their arguments, and writing a file
//! atomically.

#[cfg(not(target_os = "linux"))]
use std::time::Instant;

/// The thread's CPU time on Linux (`CLOCK_THREAD_CPUTIME_ID`), so that time spent descheduled
/// on a loaded machine is not counted; wall time elsewhere.
pub struct Clock {
    #[cfg(target_os = "linux")]
    t0: rustix::time::Timespec,
    #[cfg(not(target_os = "linux"))]
    t0: Instant,
}

impl Clock {
    #[cfg(target_os = "linux")]
    pub fn now() -> Self {
        Self {
            t0: rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime),
        }
    }
    #[cfg(target_os = "linux")]
    pub fn elapsed_ns(&self) -> f64 {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        (t.tv_sec - self.t0.tv_sec) as f64 * 1e9 + (t.tv_nsec - self.t0.tv_nsec) as f64
    }
    #[cfg(not(target_os = "linux"))]
    pub fn now() -> Self {
        Self { t0: Instant::now() }
    }
    #[cfg(not(target_os = "linux"))]
    pub fn elapsed_ns(&self) -> f64 {
        self.t0.elapsed().as_secs_f64() * 1e9
    }
}

/// The median (the upper one of an even count); sorts `v`.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The load average (1, 5, 15 minutes) now (Linux; "unknown" elsewhere).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_string(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

/// The CPU model and the number of cores.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} cores")
}

/// The benchmark's arguments: `--write PATH` and the filters (lowercased; cargo's `--bench`
/// dropped). Exits with status 2 when `--write` has no path or comes with a filter: a file
/// written is always the whole run's.
#[allow(dead_code)] // apbf.rs takes no arguments
pub fn arguments() -> (Option<String>, Vec<String>) {
    let mut write = None;
    let mut filters = vec![];
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--bench" => {}
            "--write" => match it.next() {
                Some(p) => write = Some(p),
                None => {
                    eprintln!("--write needs a path");
                    std::process::exit(2);
                }
            },
            s => filters.push(s.to_lowercase()),
        }
    }
    if write.is_some() && !filters.is_empty() {
        eprintln!("--write needs the whole run (no filter): nothing run");
        std::process::exit(2);
    }
    (write, filters)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed over
/// it, so that a run killed while writing leaves the previous file whole.
#[allow(dead_code)] // apbf.rs writes no file
pub fn atomic_write(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)
}
