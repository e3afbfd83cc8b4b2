//! Helpers shared by the test modules.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use dupstream_streams::{KeyStream, Result};

/// A file under the temp dir with a unique name, removed on drop.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(tag: &str, contents: &[u8]) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!(
            "dupstream-streams-test-{}-{}-{nanos}-{tag}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, contents).expect("write temp file");
        Self(path)
    }

    pub fn gzip(tag: &str, contents: &[u8]) -> Self {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(contents).unwrap();
        Self::new(tag, &enc.finish().unwrap())
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The shared NASA log, from `DUPSTREAM_SHARED_DATA` or next to the repository; `None` (with a
/// visible note on stderr) when absent.
pub fn nasa_tsv() -> Option<PathBuf> {
    const NAME: &str = "nasa-http-1995-08-01.tsv";
    let path = match std::env::var_os("DUPSTREAM_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir).join(NAME),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/nasa-http-1995-08-01.tsv"
        )),
    };
    if path.is_file() {
        Some(path)
    } else {
        // Written to the stderr handle, not with `eprintln!`, so the test harness's output
        // capture does not hide it.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {} not found (set DUPSTREAM_SHARED_DATA to its directory)",
            path.display()
        );
        None
    }
}

/// Drains a stream with an odd buffer size (exercises partial fills).
pub fn drain(s: &mut dyn KeyStream, buf_len: usize) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    let mut buf = vec![0u64; buf_len];
    loop {
        let k = s.fill(&mut buf)?;
        if k == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..k]);
    }
}
