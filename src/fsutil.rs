//! Atomic file replacement and advisory locks: the two primitives that keep
//! concurrent hooks and a crash mid-write from corrupting anything.

pub mod confine;

use anyhow::{Context, Result};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes` atomically: a temp file in the same folder,
/// fsynced, then renamed over the target. The target's permissions are kept
/// (tempfile creates 0600 files, which would surprise a user's editor and git).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, true)
}

/// [`atomic_write`] without the fsyncs, for files whose loss in a power cut
/// costs nothing (diagnostic copies, caches): readers still never see a
/// half-written file, and the hook saves milliseconds.
pub fn atomic_write_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".cairn-tmp-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let perms = match fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => default_permissions(),
    };
    fs::set_permissions(tmp.path(), perms).ok();
    if durable {
        tmp.as_file().sync_all().ok();
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    if durable && let Ok(d) = File::open(dir) {
        d.sync_all().ok();
    }
    Ok(())
}

#[cfg(unix)]
fn default_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o644)
}

#[cfg(not(unix))]
fn default_permissions() -> fs::Permissions {
    tempfile::NamedTempFile::new()
        .unwrap()
        .as_file()
        .metadata()
        .unwrap()
        .permissions()
}

/// An exclusive advisory lock on a sidecar lock file, released on drop.
pub struct LockGuard {
    file: File,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

fn open_lock_file(lock_path: &Path) -> Result<File> {
    if let Some(dir) = lock_path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path)
        .with_context(|| format!("cannot open lock file {}", lock_path.display()))
}

/// Blocks until the lock is held.
pub fn lock(lock_path: &Path) -> Result<LockGuard> {
    let file = open_lock_file(lock_path)?;
    file.lock()
        .with_context(|| format!("cannot lock {}", lock_path.display()))?;
    Ok(LockGuard { file })
}

/// Takes the lock if it is free; `None` when another process holds it.
pub fn try_lock(lock_path: &Path) -> Result<Option<LockGuard>> {
    let file = open_lock_file(lock_path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(LockGuard { file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", lock_path.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        fs::write(&p, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        atomic_write(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file left behind");
    }

    #[test]
    fn try_lock_sees_a_held_lock() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        let g = lock(&p).unwrap();
        assert!(try_lock(&p).unwrap().is_none());
        drop(g);
        assert!(try_lock(&p).unwrap().is_some());
    }
}
