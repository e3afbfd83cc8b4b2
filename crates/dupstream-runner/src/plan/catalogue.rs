//! The experiment catalogue compiled into the binary: every file of the workspace's
//! `experiments/` (experiment files, paper values, notes), written into the build by
//! `build.rs`. An installed `dupstream` thus finds `experiments/bera-journal/table7.toml`
//! from any directory: a relative path under `experiments/` that is not on disk reads the
//! embedded copy. A file on disk always wins, so a checkout's own (edited) catalogue is the
//! one used inside it.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));
}

/// The catalogue's directory, relative to the current directory.
pub const ROOT: &str = "experiments";

/// The environment variable naming the shared data directory (the catalogue's traces).
pub const SHARED_DATA_ENV: &str = "DUPSTREAM_SHARED_DATA";

/// Where a replayed trace of the catalogue is found: said by every error about a missing one.
pub const SHARED_DATA_HINT: &str = "the catalogue's traces are in the shared data directory, ../shared/data beside the checkout or $DUPSTREAM_SHARED_DATA (its README.md says where to download each)";

/// A replayed file `path` (relative, as joined to its experiment's directory) that is not on
/// disk, found instead by its file name in `$DUPSTREAM_SHARED_DATA`; `None` when it is on disk,
/// absolute, or not there either.
pub fn shared_data(path: &Path) -> Option<PathBuf> {
    if path.is_absolute() || std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let dir = std::env::var_os(SHARED_DATA_ENV)?;
    let found = Path::new(&dir).join(path.file_name()?);
    found.is_file().then_some(found)
}

/// `path` as a catalogue key (`experiments/a/b.toml`), when it is relative and lies lexically
/// under [`ROOT`].
fn key(path: &Path) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(s) => parts.push(s.to_str()?),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (parts.first() == Some(&ROOT)).then(|| parts.join("/"))
}

/// The embedded bytes of `path`, when `path` names a catalogue file and nothing is on disk
/// there.
pub fn embedded(path: &Path) -> Option<&'static [u8]> {
    if std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let k = key(path)?;
    embedded::CATALOGUE
        .iter()
        .find(|(p, _)| *p == k)
        .map(|&(_, b)| b)
}

/// The bytes of `path`: the file on disk, else the catalogue's embedded copy; the disk's error
/// when neither exists.
pub fn read(path: &Path) -> std::io::Result<Cow<'static, [u8]>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Cow::Owned(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            embedded(path).map(Cow::Borrowed).ok_or(e)
        }
        Err(e) => Err(e),
    }
}

/// The text of `path`, as [`read`] finds it.
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes.into_owned())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Whether `path` is a regular file on disk or, absent from the disk, a catalogue file.
pub fn is_file(path: &Path) -> bool {
    path.is_file() || embedded(path).is_some()
}

/// The embedded experiment files (`*.toml`) at or under `path`, sorted, when `path` is not on
/// disk and names the catalogue or a part of it; `None` otherwise.
pub fn experiment_files(path: &Path) -> Option<Vec<PathBuf>> {
    if std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let k = key(path)?;
    let under = format!("{k}/");
    let files: Vec<PathBuf> = embedded_experiments()
        .filter(|p| *p == k || p.starts_with(&under))
        .map(PathBuf::from)
        .collect();
    (!files.is_empty()).then_some(files)
}

/// Every embedded experiment file's path (`experiments/...toml`), sorted.
pub fn embedded_experiments() -> impl Iterator<Item = &'static str> {
    embedded::CATALOGUE
        .iter()
        .map(|&(p, _)| p)
        .filter(|p| p.ends_with(".toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_lexical_paths_under_the_catalogue() {
        let k = |p: &str| key(Path::new(p));
        assert_eq!(
            k("experiments/a/b.toml").as_deref(),
            Some("experiments/a/b.toml")
        );
        assert_eq!(
            k("./experiments/a/../b.toml").as_deref(),
            Some("experiments/b.toml")
        );
        assert_eq!(k("experiments").as_deref(), Some("experiments"));
        assert_eq!(k("experiments/../../x"), None);
        assert_eq!(k("other/a.toml"), None);
        assert_eq!(k("/experiments/a.toml"), None);
    }

    #[test]
    fn the_catalogue_is_embedded_and_sorted() {
        let paths: Vec<&str> = embedded::CATALOGUE.iter().map(|&(p, _)| p).collect();
        assert!(paths.contains(&"experiments/bera-journal/table7.toml"));
        assert!(paths.contains(&"experiments/bera-journal/paper-values.csv"));
        assert!(paths.windows(2).all(|w| w[0] < w[1]));
    }
}
