//! The exclusive lock on a results directory: one process at a time runs, resumes or merges
//! into a directory. The lock is an advisory lock (`flock`) on `DIR/.lock`, taken before
//! anything in the directory is read or written and released when the process ends, however
//! it ends (the kernel drops it with the file descriptor). The file's contents only name the
//! holder for the message a second process prints; a stale file left by a killed process
//! locks nothing. A lock file that is a symbolic link (or not a regular file) is refused,
//! never written through.

use crate::record::probe::hostname;
use anyhow::{Context, Result};
use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file inside a results directory.
pub const LOCK_FILE: &str = ".lock";

/// A held lock on a results directory; dropping it releases the lock.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    path: PathBuf,
}

/// Another process holds the directory: one line naming the directory and the holder
/// (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locked {
    /// The directory.
    pub dir: PathBuf,
    /// Who holds it, as its `.lock` file says.
    pub holder: String,
}

impl std::fmt::Display for Locked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is in use by another dupstream ({}); wait for it to finish or choose another --out",
            self.dir.display(),
            self.holder
        )
    }
}

impl std::error::Error for Locked {}

impl DirLock {
    /// Creates `dir` if needed and takes its lock without waiting; a directory another
    /// process holds gives [`Locked`].
    pub fn acquire(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(LOCK_FILE);
        // The lock file is written (the holder's name): a symbolic link would be written
        // through, to wherever it points.
        if let Ok(m) = std::fs::symlink_metadata(&path)
            && !m.file_type().is_file()
        {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "not a regular file"
            };
            return Err(crate::plan::refuse(format!(
                "{} is {what}; refusing to lock through it (remove it: dupstream recreates it)",
                path.display()
            )));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                return Err(Locked {
                    dir: dir.to_path_buf(),
                    holder: if holder.is_empty() {
                        "holder unknown".into()
                    } else {
                        holder.to_string()
                    },
                }
                .into());
            }
            Err(fs4::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        let who = format!(
            "pid {} on {}: {}",
            std::process::id(),
            hostname(),
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(who.as_bytes())?;
        file.flush()?;
        Ok(Self { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_and_named() {
        let dir = std::env::temp_dir().join(format!("dupstream-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = DirLock::acquire(&dir).unwrap();
        // flock locks belong to the open file description: a second open in this process is
        // refused just as another process would be.
        let e = DirLock::acquire(&dir).unwrap_err();
        let locked = e.downcast_ref::<Locked>().expect("a Locked error");
        assert!(
            locked
                .holder
                .contains(&format!("pid {}", std::process::id())),
            "{locked}"
        );
        drop(held);
        DirLock::acquire(&dir).expect("free again once dropped");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
