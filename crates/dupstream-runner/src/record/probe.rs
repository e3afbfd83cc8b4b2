//! What the results record about where they were produced: the git revision, the host, the
//! Slurm job, the machine, the clock and this process's memory. Every probe is here.

use serde::Serialize;

/// The revision results record: `$DUPSTREAM_GIT_REVISION` when set (the Slurm scripts fix it
/// when they are written, as compute nodes may have no checkout), else
/// `git rev-parse --short HEAD` with `-dirty` if the tree has changes, else `unknown`. Read
/// once per process (the first call, made when a run starts), so a commit made while a long
/// run is going does not change the revision its results record.
pub fn git_revision() -> String {
    static REV: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    REV.get_or_init(|| {
        std::env::var("DUPSTREAM_GIT_REVISION")
            .ok()
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(read_git_revision)
    })
    .clone()
}

fn read_git_revision() -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        _ => "unknown".to_string(),
    }
}

/// The host name (`$SLURMD_NODENAME` under Slurm).
pub fn hostname() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// `$SLURM_ARRAY_JOB_ID_$SLURM_ARRAY_TASK_ID` or `$SLURM_JOB_ID`, when run by Slurm.
pub fn slurm_job() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("SLURM_ARRAY_JOB_ID"), var("SLURM_ARRAY_TASK_ID")) {
        (Some(j), Some(t)) => Some(format!("{j}_{t}")),
        _ => var("SLURM_JOB_ID"),
    }
}

/// The machine a run used.
#[derive(Debug, Serialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub cpu: Option<String>,
}

impl Machine {
    pub fn probe() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        });
        Self {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes: meminfo("MemTotal:"),
            cpu,
        }
    }
}

/// A `/proc/meminfo` field in bytes.
pub fn meminfo(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory available to a new run, in bytes, when known.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// Peak resident set of this process (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today() -> String {
    let days = (unix_now() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
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
