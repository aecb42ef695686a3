//! Atomic file replacement and advisory locks: the two primitives that keep
//! concurrent hooks and a crash mid-write from corrupting anything.

pub mod confine;

use anyhow::{Context, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Prefix of every temporary file [`atomic_write`] creates; a crash between
/// create and rename leaves one behind (see [`sweep_stale_temp_files`]).
pub const TEMP_PREFIX: &str = ".cairn-tmp-";

/// Replaces `path` with `bytes` atomically: a temp file in the same folder,
/// fsynced, then renamed over the target. The target's permissions are kept
/// (tempfile creates 0600 files, which would surprise a user's editor and git).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Mode::Keep, Some(&File::sync_all))
}

/// [`atomic_write`] without the fsyncs, for files whose loss in a power cut
/// costs nothing (diagnostic copies, caches): readers still never see a
/// half-written file, and the hook saves milliseconds.
pub fn atomic_write_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Mode::Keep, None)
}

/// [`atomic_write`] for cairn's own state (spool jobs, ratchets, hand-offs):
/// the file is 0600 whatever it was, and folders created on the way are
/// 0700. State files hold what a turn said; other users of the machine must
/// not read them. Memory files in the repository keep [`atomic_write`]: git
/// and editors expect 0644 there.
pub fn atomic_write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Mode::Private, Some(&File::sync_all))
}

/// [`atomic_write_private`] without the fsyncs (session hints, caches).
pub fn atomic_write_private_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Mode::Private, None)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The target's mode, else 0644.
    Keep,
    /// 0600, folders created on the way 0700.
    Private,
}

/// Creates `dir` and its missing parents readable by the user only (0700).
/// Folders that already exist keep their mode: the user may have chosen it.
pub fn create_private_dir_all(dir: &Path) -> Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
}

/// `sync` is the fsync of the written temp file (`None`: not durable); a
/// seam so a test can make it fail, which no real file system does on demand.
type Sync<'a> = Option<&'a dyn Fn(&File) -> io::Result<()>>;

fn replace(path: &Path, bytes: &[u8], mode: Mode, sync: Sync) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match mode {
        Mode::Keep => {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?
        }
        Mode::Private => create_private_dir_all(dir)?,
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let perms = match (mode, fs::metadata(path)) {
        (Mode::Private, _) => private_permissions(),
        (Mode::Keep, Ok(m)) => m.permissions(),
        (Mode::Keep, Err(_)) => default_permissions(),
    };
    fs::set_permissions(tmp.path(), perms).ok();
    if let Some(sync) = sync {
        // An fsync error means the bytes may never reach the disk: renaming
        // anyway would replace a good file by one that can vanish in a power
        // cut, and the caller (the spool) would believe the turn is safe.
        sync(tmp.as_file()).with_context(|| format!("cannot fsync {}", path.display()))?;
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    // Best effort: the rename is done and readers see the new file; a failed
    // folder fsync only weakens durability across a power cut, and some file
    // systems refuse to fsync a folder at all. Failing here would report an
    // error for a write that happened.
    if sync.is_some()
        && let Ok(d) = File::open(dir)
    {
        d.sync_all().ok();
    }
    Ok(())
}

/// Deletes `.cairn-tmp-*` files in `dir` older than `min_age`: the leftovers
/// of a process killed between writing and renaming. A younger one may be
/// another process mid-write, so it stays. Returns how many were removed.
pub fn sweep_stale_temp_files(
    dir: &Path,
    min_age: std::time::Duration,
    now: std::time::SystemTime,
) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        // `DirEntry::metadata` does not follow links: a link named like a
        // temp file is removed as a link, never followed.
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= min_age);
        if old && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(unix)]
fn private_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o600)
}

#[cfg(not(unix))]
fn private_permissions() -> fs::Permissions {
    default_permissions()
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
    // Lock files live in cairn's state folder only: the user's alone.
    if let Some(dir) = lock_path.parent()
        && !dir.is_dir()
    {
        create_private_dir_all(dir)?;
    }
    let mut o = OpenOptions::new();
    o.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        // A lock file holds nothing, but it names what is being worked on
        // in cairn's state folder, which is the user's alone.
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(lock_path)
        .with_context(|| format!("cannot open lock file {}", lock_path.display()))
}

/// Blocks until an exclusive lock on the folder `dir` itself is held: for
/// when no lock file can be created (the state folder is full or read-only).
/// Removes the regular files directly in `dir` last modified more than
/// `max_age` ago (by the system clock: file times are the file system's),
/// those `keep` accepts by name only; returns how many went. Errors are
/// ignored: this is tidying, not work.
pub fn remove_older_than(
    dir: &Path,
    max_age: std::time::Duration,
    keep: impl Fn(&str) -> bool,
) -> usize {
    let now = std::time::SystemTime::now();
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let named = e.file_name().to_str().is_some_and(&keep);
        let old = e
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > max_age);
        if named && old && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

pub fn lock_dir(dir: &Path) -> Result<LockGuard> {
    let file = File::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", dir.display()))?;
    Ok(LockGuard { file })
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

    /// Issue 9: `sync_all().ok()` dropped an fsync error and renamed anyway,
    /// so a spool job could be reported safe while its bytes were not.
    #[test]
    fn regression_fsync_error_fails_write() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("job.json");
        fs::write(&p, "old").unwrap();
        let failing = |_: &File| Err(io::Error::other("injected EIO"));
        let err = replace(&p, b"new", Mode::Private, Some(&failing)).unwrap_err();
        assert!(format!("{err:#}").contains("injected EIO"), "{err:#}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old", "target untouched");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["job.json"], "the temp file is removed on error");
    }

    #[cfg(unix)]
    #[test]
    fn private_writes_are_user_only_and_shared_ones_stay_0644() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state/spool/pending");
        let job = state.join("1.json");
        atomic_write_private(&job, b"{}").unwrap();
        assert_eq!(mode(&job), 0o600);
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&dir.path().join("state")), 0o700);
        // An existing 0644 state file is tightened, not kept.
        fs::set_permissions(&job, fs::Permissions::from_mode(0o644)).unwrap();
        atomic_write_private_unsynced(&job, b"{}").unwrap();
        assert_eq!(mode(&job), 0o600);
        let log = dir.path().join("repo/memory_sessions/logs/2026-01-01.md");
        atomic_write(&log, b"# log").unwrap();
        assert_eq!(
            mode(&log),
            0o644,
            "memory files stay readable by git and editors"
        );
        let lock_file = dir.path().join("state/locks/repo-1.lock");
        drop(lock(&lock_file).unwrap());
        assert_eq!(mode(&lock_file), 0o600);
    }

    #[test]
    fn sweep_removes_only_stale_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".cairn-tmp-old");
        let fresh = dir.path().join(".cairn-tmp-new");
        let job = dir.path().join("1.json");
        for p in [&stale, &fresh, &job] {
            fs::write(p, "x").unwrap();
        }
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let swept = sweep_stale_temp_files(
            dir.path(),
            std::time::Duration::from_secs(600),
            std::time::SystemTime::now(),
        );
        assert_eq!(swept, 1);
        assert!(!stale.exists() && fresh.exists() && job.exists());
    }
}
