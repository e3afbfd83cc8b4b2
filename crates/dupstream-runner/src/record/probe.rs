//! What the results record about where they were produced: the build (revision, date,
//! compiler), the host, the Slurm job, the machine, the clock and this process's memory.
//! Every probe is here. The machine is read with `sysinfo`; only this process's peak resident
//! set comes from `/proc/self/status` (Linux), which `sysinfo` does not report.

use serde::{Deserialize, Serialize};

/// The git revision this binary was built from (`build.rs`): the short SHA, with `-dirty` when
/// tracked files differed from it, or `unknown` when it was built outside a git checkout
/// (from a `git archive` tarball, say).
pub const REVISION: &str = env!("DUPSTREAM_REVISION");
/// The date this binary was built (UTC, `YYYY-MM-DD`), or `unknown`.
pub const BUILD_DATE: &str = env!("DUPSTREAM_BUILD_DATE");
/// This binary's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `--version`: the version, the revision and the build date.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (revision ",
    env!("DUPSTREAM_REVISION"),
    ", built ",
    env!("DUPSTREAM_BUILD_DATE"),
    ")"
);

/// The revision results record: the one this binary was built from ([`REVISION`]), whatever
/// the directory the run is started from.
pub fn git_revision() -> String {
    REVISION.to_string()
}

/// The host name (`$SLURMD_NODENAME` under Slurm), or `unknown`.
pub fn hostname() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(sysinfo::System::host_name)
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The host as it appears in a directory name: its first label (`node7` of
/// `node7.cluster.org`), every character other than a letter, a digit, `-` and `_` replaced
/// by `-`.
pub fn host_tag() -> String {
    host_tag_of(&hostname())
}

fn host_tag_of(host: &str) -> String {
    let first = host.split('.').next().unwrap_or("");
    let tag: String = first
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if tag.is_empty() {
        "unknown".into()
    } else {
        tag
    }
}

/// `$SLURM_ARRAY_JOB_ID_$SLURM_ARRAY_TASK_ID` or `$SLURM_JOB_ID`, when run by Slurm.
pub fn slurm_job() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("SLURM_ARRAY_JOB_ID"), var("SLURM_ARRAY_TASK_ID")) {
        (Some(j), Some(t)) => Some(format!("{j}_{t}")),
        _ => var("SLURM_JOB_ID"),
    }
}

/// The machine a run used, read when the run starts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    /// The host name (`$SLURMD_NODENAME` under Slurm).
    pub host: String,
    /// The operating system (`linux`, `macos`, …).
    pub os: String,
    /// The operating system's long name and version.
    pub os_version: Option<String>,
    /// The kernel version.
    pub kernel: Option<String>,
    /// The architecture (`x86_64`, `aarch64`, …).
    pub arch: String,
    /// The CPU model (brand string of the first CPU).
    pub cpu: Option<String>,
    /// Logical CPUs this process may use.
    pub cores: usize,
    /// Physical cores.
    pub physical_cores: Option<usize>,
    /// Total memory.
    pub memory_bytes: Option<u64>,
    /// Memory available when the run started.
    pub available_memory_bytes: Option<u64>,
    /// The load average (1, 5 and 15 minutes) when the run started.
    pub load_average: [f64; 3],
}

impl Machine {
    /// This machine, now.
    pub fn probe() -> Self {
        let mut sys = sysinfo::System::new();
        sys.refresh_cpu_list(sysinfo::CpuRefreshKind::nothing());
        sys.refresh_memory();
        let cpu = sys
            .cpus()
            .first()
            .map(|c| c.brand().trim().to_string())
            .filter(|b| !b.is_empty());
        let known = |b: u64| (b > 0).then_some(b);
        let load = sysinfo::System::load_average();
        Self {
            host: hostname(),
            os: std::env::consts::OS.to_string(),
            os_version: sysinfo::System::long_os_version(),
            kernel: sysinfo::System::kernel_version(),
            arch: std::env::consts::ARCH.to_string(),
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            physical_cores: sysinfo::System::physical_core_count(),
            memory_bytes: known(sys.total_memory()),
            available_memory_bytes: known(sys.available_memory()),
            load_average: [load.one, load.five, load.fifteen],
        }
    }
}

/// Memory available to a new run, in bytes, when known.
pub fn available_memory() -> Option<u64> {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    Some(sys.available_memory()).filter(|&b| b > 0)
}

/// Peak resident set of this process (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time this process has used so far (user and system, every thread), in seconds, where
/// the platform tells (Linux); the load-independent measure a run's estimate is checked
/// against (`docs/timing.md`).
pub fn process_cpu_secs() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        Some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today() -> String {
    date_of(unix_now() as i64)
}

/// The date (UTC) of a Unix time in seconds, as `YYYY-MM-DD`.
pub fn date_of(unix_secs: i64) -> String {
    // Howard Hinnant's civil_from_days.
    let z = unix_secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_tags_fit_a_directory_name() {
        assert_eq!(host_tag_of("node7.cluster.org"), "node7");
        assert_eq!(host_tag_of("my host/x"), "my-host-x");
        assert_eq!(host_tag_of(""), "unknown");
        assert!(!host_tag().is_empty());
    }

    #[test]
    fn the_machine_is_described() {
        let m = Machine::probe();
        assert!(m.cores >= 1);
        assert!(!m.host.is_empty());
        if cfg!(target_os = "linux") {
            assert!(m.kernel.is_some() && m.memory_bytes.is_some(), "{m:?}");
            assert!(m.load_average.iter().all(|l| l.is_finite() && *l >= 0.0));
        }
    }
}
