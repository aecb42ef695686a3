//! Reading and writing inside a repository that may be a stranger's clone
//! (SPEC §1.11). A committed symlink can point a memory file at
//! `~/.aws/credentials`, a committed FIFO can block `open()` forever and a
//! sparse file can claim gigabytes: every memory path goes through a
//! [`Jail`], which resolves links, refuses what lands outside the project or
//! is neither a regular file nor a folder, and reads at most a capped size.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Memory files are Markdown a person reads: a day log is kilobytes. Past
/// this, a file is refused rather than read whole (a 2 GiB sparse log once
/// cost gigabytes of memory in SessionStart).
pub const MAX_MEMORY_FILE_BYTES: u64 = 8 << 20;

/// Opens `path` for reading only when it is a regular file. `O_NONBLOCK`
/// keeps `open()` itself from waiting for a FIFO's writer, and the check is
/// made on the opened file, so a swap between a `stat` and the `open`
/// cannot slip a FIFO or a device through.
pub fn open_regular(path: impl AsRef<Path>) -> io::Result<File> {
    let path = path.as_ref();
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Harmless on a regular file: reads of one never block anyway.
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = opts.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// Reads a regular file whole when it is at most `cap` bytes; a FIFO, a
/// device or a larger file is an error (`InvalidInput`, `FileTooLarge`).
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    let too_large = |len: u64| {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{} is {len} bytes, over the {cap}-byte cap", path.display()),
        )
    };
    if len > cap {
        return Err(too_large(len));
    }
    let mut buf = Vec::with_capacity(len as usize);
    // `take`: the file may grow while it is read.
    file.take(cap + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        return Err(too_large(buf.len() as u64));
    }
    Ok(buf)
}

/// What a generic read of a repository file (settings, `.cairn.toml`, git's
/// `HEAD`, a skill) takes at most: far past any real one, short of what a
/// hostile sparse file can claim.
pub const MAX_PLAIN_FILE_BYTES: u64 = 64 << 20;

/// `std::fs::read` for files a repository provides: regular files only, at
/// most [`MAX_PLAIN_FILE_BYTES`].
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    read_regular(path.as_ref(), MAX_PLAIN_FILE_BYTES)
}

/// `std::fs::read_to_string` for files a repository provides (see [`read`]).
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Why a path was refused. Shown in one diagnostics line.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("refused {}: it resolves to {}, outside the project {}", path.display(), real.display(), root.display())]
    Outside {
        path: PathBuf,
        real: PathBuf,
        root: PathBuf,
    },
    #[error("refused {}: {what}, not a regular file or folder", path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("refused {}: {len} bytes, over the {cap}-byte cap for memory files", path.display())]
    TooLarge { path: PathBuf, len: u64, cap: u64 },
    #[error("refused {}: a link that points nowhere", path.display())]
    Dangling { path: PathBuf },
    #[error("refused {}: `..` below the project", path.display())]
    Climbs { path: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl Refused {
    /// A refusal a user should hear about, as opposed to an ordinary read
    /// error (permissions, a disk error) that callers report their own way.
    pub fn is_hostile(&self) -> bool {
        !matches!(self, Refused::Io { .. })
    }
}

/// Where a path really is, once links are followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The path to open or write: inside the project, links resolved.
    pub real: PathBuf,
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// Not there yet (a file about to be created); its parent folders that
    /// exist are inside the project.
    Missing,
}

/// The project's folder, resolved once; every check compares against it.
#[derive(Debug, Clone)]
pub struct Jail {
    root: PathBuf,
}

fn describe(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device";
        }
    }
    let _ = ft;
    "a special file"
}

impl Jail {
    /// A project root that cannot be resolved (gone, unreadable) keeps its
    /// path as given: every check then fails closed, since nothing resolves
    /// under a path that does not exist.
    pub fn new(root: &Path) -> Jail {
        Jail {
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (absolute, or relative to the project) after links.
    /// Refused: anything that lands outside the project, a FIFO, socket or
    /// device, a dangling link, and `..` in the part that does not exist yet.
    pub fn resolve(&self, path: &Path) -> Result<Resolved, Refused> {
        let given = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };
        // The deepest part of the path that exists; the rest is created later.
        let mut existing = given.as_path();
        let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            match existing.symlink_metadata() {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    match (existing.file_name(), existing.parent()) {
                        (Some(name), Some(parent)) => {
                            missing.push(name);
                            existing = parent;
                        }
                        // `..` or the filesystem root: nothing to stand on.
                        _ => {
                            return Err(Refused::Climbs {
                                path: given.clone(),
                            });
                        }
                    }
                }
                Err(e) => {
                    return Err(Refused::Io {
                        path: given.clone(),
                        source: e,
                    });
                }
            }
        }
        if given
            .components()
            .rev()
            .take(missing.len())
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(Refused::Climbs { path: given });
        }
        let real = match existing.canonicalize() {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Refused::Dangling { path: given });
            }
            Err(e) => {
                return Err(Refused::Io {
                    path: given,
                    source: e,
                });
            }
        };
        if !real.starts_with(&self.root) {
            return Err(Refused::Outside {
                path: given,
                real,
                root: self.root.clone(),
            });
        }
        let meta = real.metadata().map_err(|e| Refused::Io {
            path: given.clone(),
            source: e,
        })?;
        let ft = meta.file_type();
        let kind = if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            return Err(Refused::NotRegular {
                path: given,
                what: describe(&ft),
            });
        };
        if missing.is_empty() {
            return Ok(Resolved { real, kind });
        }
        if kind != Kind::Dir {
            // `logs` is a file and we were asked for `logs/x.md`.
            return Err(Refused::Io {
                path: given,
                source: io::Error::new(io::ErrorKind::NotADirectory, "a parent is not a folder"),
            });
        }
        let mut real = real;
        for name in missing.iter().rev() {
            real.push(name);
        }
        Ok(Resolved {
            real,
            kind: Kind::Missing,
        })
    }

    /// The bytes of a memory file: `Ok(None)` when it does not exist. A
    /// folder where a file is expected is refused like a FIFO.
    pub fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, Refused> {
        self.read_capped(path, MAX_MEMORY_FILE_BYTES)
    }

    pub fn read_capped(&self, path: &Path, cap: u64) -> Result<Option<Vec<u8>>, Refused> {
        let r = self.resolve(path)?;
        match r.kind {
            Kind::Missing => return Ok(None),
            Kind::Dir => {
                return Err(Refused::NotRegular {
                    path: path.to_path_buf(),
                    what: "a folder",
                });
            }
            Kind::File => {}
        }
        match read_regular(&r.real, cap) {
            Ok(b) => Ok(Some(b)),
            // Swapped for a FIFO between the check and the open.
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => Err(Refused::NotRegular {
                path: path.to_path_buf(),
                what: "a special file",
            }),
            Err(e) if e.kind() == io::ErrorKind::FileTooLarge => Err(Refused::TooLarge {
                path: path.to_path_buf(),
                len: std::fs::metadata(&r.real).map_or(cap + 1, |m| m.len()),
                cap,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Refused::Io {
                path: path.to_path_buf(),
                source: e,
            }),
        }
    }

    /// [`Jail::read`] as text; invalid UTF-8 is replaced rather than making
    /// the whole file unreadable.
    pub fn read_text(&self, path: &Path) -> Result<Option<String>, Refused> {
        Ok(self.read(path)?.map(|b| match String::from_utf8(b) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }))
    }

    /// Where to write `path`: its real location inside the project. An
    /// existing folder or special file there is refused.
    pub fn writable(&self, path: &Path) -> Result<PathBuf, Refused> {
        let r = self.resolve(path)?;
        match r.kind {
            Kind::File | Kind::Missing => Ok(r.real),
            Kind::Dir => Err(Refused::NotRegular {
                path: path.to_path_buf(),
                what: "a folder",
            }),
        }
    }

    /// The entries of a folder that resolve inside the project, each as it
    /// is named in the folder (so paths shown to users keep their place),
    /// with what it is. Links out, dangling links and special files are left
    /// out and returned apart as refusals.
    pub fn list(&self, dir: &Path) -> (Vec<(PathBuf, Kind)>, Vec<Refused>) {
        let mut out = Vec::new();
        let mut refused = Vec::new();
        let base = match self.resolve(dir) {
            Ok(r) if r.kind == Kind::Dir => dir.to_path_buf(),
            Ok(_) => return (out, refused),
            Err(e) => {
                refused.push(e);
                return (out, refused);
            }
        };
        let Ok(entries) = std::fs::read_dir(&base) else {
            return (out, refused);
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(ft) = e.file_type() else { continue };
            let kind = if ft.is_file() {
                Kind::File
            } else if ft.is_dir() {
                Kind::Dir
            } else if ft.is_symlink() {
                match self.resolve(&path) {
                    Ok(r) => r.kind,
                    Err(err) => {
                        refused.push(err);
                        continue;
                    }
                }
            } else {
                refused.push(Refused::NotRegular {
                    path,
                    what: describe(&ft),
                });
                continue;
            };
            out.push((path, kind));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        (out, refused)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf, Jail) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("memory_sessions/logs")).unwrap();
        std::fs::write(dir.path().join("secret"), "AKIA...").unwrap();
        let jail = Jail::new(&root);
        (dir, root, jail)
    }

    fn mkfifo(p: &Path) {
        let made = std::process::Command::new("mkfifo").arg(p).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", p.display());
    }

    #[test]
    fn links_out_of_the_project_are_refused_for_reading_and_writing() {
        let (dir, root, jail) = setup();
        let lm = root.join("memory_sessions/long_memory.md");
        symlink(dir.path().join("secret"), &lm).unwrap();
        assert!(matches!(jail.read(&lm), Err(Refused::Outside { .. })));
        assert!(matches!(jail.writable(&lm), Err(Refused::Outside { .. })));
        // A folder link: writing below it would write outside.
        std::fs::create_dir_all(root.join("projects/docs")).unwrap();
        symlink("../../..", root.join("projects/docs/memory_sessions")).unwrap();
        let p = root.join("projects/docs/memory_sessions/logs/2026-11-30.md");
        assert!(matches!(jail.writable(&p), Err(Refused::Outside { .. })));
        assert!(matches!(
            jail.resolve(&root.join("memory_sessions/../../secret")),
            Err(Refused::Outside { .. })
        ));
    }

    #[test]
    fn links_inside_the_project_are_followed() {
        let (_dir, root, jail) = setup();
        std::fs::write(root.join("notes.md"), "- a\n").unwrap();
        let lm = root.join("memory_sessions/long_memory.md");
        symlink("../notes.md", &lm).unwrap();
        assert_eq!(jail.read_text(&lm).unwrap().unwrap(), "- a\n");
        assert_eq!(
            jail.writable(&lm).unwrap(),
            root.canonicalize().unwrap().join("notes.md")
        );
    }

    #[test]
    fn missing_files_resolve_below_real_folders_and_never_climb() {
        let (_dir, root, jail) = setup();
        let p = root.join("memory_sessions/logs/new/2026-11-30.md");
        let r = jail.resolve(&p).unwrap();
        assert_eq!(r.kind, Kind::Missing);
        assert!(r.real.starts_with(jail.root()));
        assert!(jail.read(&p).unwrap().is_none());
        let climbing = root.join("memory_sessions/nope/../../../x");
        assert!(jail.resolve(&climbing).is_err());
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (_dir, root, jail) = setup();
        let f = root.join("memory_sessions/logs/2026-11-30.md");
        mkfifo(&f);
        assert!(matches!(jail.read(&f), Err(Refused::NotRegular { .. })));
        assert!(matches!(jail.writable(&f), Err(Refused::NotRegular { .. })));
        let e = open_regular(&f).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let (listed, refused) = jail.list(&root.join("memory_sessions/logs"));
        assert!(listed.is_empty());
        assert_eq!(refused.len(), 1);
    }

    #[test]
    fn a_huge_sparse_file_is_refused_by_its_size() {
        let (_dir, root, jail) = setup();
        let f = root.join("memory_sessions/logs/2026-11-30.md");
        File::create(&f).unwrap().set_len(2 << 30).unwrap();
        assert!(matches!(jail.read(&f), Err(Refused::TooLarge { .. })));
    }

    #[test]
    fn dangling_links_are_refused() {
        let (_dir, root, jail) = setup();
        let f = root.join("memory_sessions/long_memory.md");
        symlink("/nonexistent/cairn/target", &f).unwrap();
        assert!(matches!(jail.read(&f), Err(Refused::Dangling { .. })));
        assert!(matches!(jail.writable(&f), Err(Refused::Dangling { .. })));
    }
}
