//! The SQLite FTS5 index: a cache of the Markdown, never a source of truth.
//!
//! One file per repository under `<state>/search/`. Before each query the
//! memory files are listed and compared with what the index saw (mtime and
//! size per file); only files that changed are read again, in one
//! transaction. Anything wrong with the file (missing, unreadable, from
//! another schema) means it is deleted and rebuilt; a file another process
//! is writing means the query runs on a throw-away in-memory index built
//! from the Markdown, so a search always answers.

use super::scan::{self, Entry, Kind, Source};
use super::text::{MatchExpr, Normalizer};
use crate::memory::log::SectionKey;
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bumped whenever the tables or the way text is normalised change: an
/// index written by another version is rebuilt rather than misread.
// 2: accents folded through Unicode decomposition (more Latin letters,
// and combining marks), so words indexed by 1 may not meet their query.
const SCHEMA_VERSION: &str = "2";

/// How long a writer waits for another process's transaction before the
/// query falls back to the Markdown. Short: an answer now beats a fresh index.
const BUSY_WAIT: Duration = Duration::from_millis(250);

const SCHEMA: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  rel TEXT NOT NULL UNIQUE,
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  mtime INTEGER NOT NULL,
  size INTEGER NOT NULL
);
CREATE TABLE entries(
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  section TEXT NOT NULL,
  skey TEXT,
  date TEXT,
  text TEXT NOT NULL
);
CREATE INDEX entries_file ON entries(file_id);
CREATE VIRTUAL TABLE fts USING fts5(norm, tokenize = 'unicode61 remove_diacritics 2');
";

/// What a query is narrowed to.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub project: Option<String>,
    pub section: Option<SectionFilter>,
    /// Inclusive `YYYY-MM-DD` bounds; entries without a date are left out
    /// when either is set.
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionFilter {
    Key(SectionKey),
    /// A heading the log format does not know (long memory, checkpoints):
    /// matched case-insensitively as part of the heading.
    Text(String),
}

/// One result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    pub path: String,
    pub line: usize,
    pub project: String,
    pub kind: &'static str,
    pub section: String,
    pub date: Option<String>,
    pub text: String,
    /// BM25, higher is better.
    pub score: f64,
}

/// Why the on-disk index could not be used for this query.
#[derive(Debug)]
pub enum Trouble {
    /// Another process holds the write lock.
    Busy,
    /// Anything else: unreadable, truncated, not a database, disk full.
    Broken(String),
}

impl From<rusqlite::Error> for Trouble {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Trouble::Busy,
            _ => Trouble::Broken(e.to_string()),
        }
    }
}

/// `(mtime in ns, size)` of a file as last indexed.
type Stamp = (i64, i64);

/// `<state>/search/<FNV-1a of the canonical root>.sqlite`.
pub fn index_path(state_dir: &Path, root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let h = crate::hash::fnv1a(canon.as_os_str().as_encoded_bytes());
    crate::state_layout::search(state_dir).join(format!("{h:016x}.sqlite"))
}

/// An open index, on disk or in memory.
pub struct Index {
    conn: Connection,
}

/// What bringing an index up to date did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Sync {
    pub files: usize,
    pub changed: usize,
    pub removed: usize,
}

impl Index {
    /// Opens the index at `path`, creating it when missing. An existing file
    /// of another schema is reported as broken so the caller rebuilds it.
    pub fn open(path: &Path, root: &Path) -> Result<Index, Trouble> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Trouble::Broken(format!("cannot create {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_WAIT)?;
        let index = Index { conn };
        index.prepare(root)?;
        Ok(index)
    }

    /// A throw-away index for when the file cannot be used.
    pub fn in_memory(root: &Path) -> Result<Index, Trouble> {
        let index = Index {
            conn: Connection::open_in_memory()?,
        };
        index.prepare(root)?;
        Ok(index)
    }

    fn prepare(&self, root: &Path) -> Result<(), Trouble> {
        // WAL: a query reads while another process updates the index.
        // Setting it needs the write lock only the first time.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
            self.conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))?;
        }
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        let has_meta: bool = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'meta'",
            [],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )?;
        if !has_meta {
            // Another process may be creating it at this very moment: take
            // the write lock, then look again.
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            let created = self.create_schema(root);
            match created {
                Ok(()) => self.conn.execute_batch("COMMIT")?,
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    return Err(e);
                }
            }
            return Ok(());
        }
        let version: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            return Err(Trouble::Broken(format!(
                "schema {} instead of {SCHEMA_VERSION}",
                version.as_deref().unwrap_or("unknown")
            )));
        }
        // A cheap look at every table: a truncated file fails here rather
        // than halfway through an update.
        self.conn
            .query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0))?;
        Ok(())
    }

    fn create_schema(&self, root: &Path) -> Result<(), Trouble> {
        let exists: i64 = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'meta'",
            [],
            |r| r.get(0),
        )?;
        if exists == 0 {
            self.conn.execute_batch(SCHEMA)?;
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('schema', ?1), ('root', ?2)",
                params![SCHEMA_VERSION, root.to_string_lossy()],
            )?;
        }
        Ok(())
    }

    /// Brings the index in line with the memory files: new and changed files
    /// are read again, vanished ones dropped. No write when nothing changed.
    pub fn sync(&mut self, sources: &[Source]) -> Result<Sync, Trouble> {
        let first = changes(&self.conn, sources)?;
        if first.todo.is_empty() && first.gone.is_empty() {
            return Ok(first.summary(sources));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Another process may have done part of the work while this one
        // waited for the lock: what to do is decided under the lock.
        let Changes { todo, gone } = changes(&tx, sources)?;
        let result = Sync {
            files: sources.len(),
            changed: todo.len(),
            removed: gone.len(),
        };

        {
            let mut del_fts = tx.prepare(
                "DELETE FROM fts WHERE rowid IN (SELECT id FROM entries WHERE file_id = ?1)",
            )?;
            let mut del_entries = tx.prepare("DELETE FROM entries WHERE file_id = ?1")?;
            let mut del_file = tx.prepare("DELETE FROM files WHERE id = ?1")?;
            for id in gone.iter().copied().chain(todo.iter().filter_map(|t| t.2)) {
                del_fts.execute([id])?;
                del_entries.execute([id])?;
                del_file.execute([id])?;
            }
            let mut add_file = tx.prepare(
                "INSERT INTO files(rel, project, kind, mtime, size) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut add_entry = tx.prepare(
                "INSERT INTO entries(file_id, line, section, skey, date, text)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut add_fts = tx.prepare("INSERT INTO fts(rowid, norm) VALUES (?1, ?2)")?;
            let mut norm = Normalizer::new();
            for (i, (mtime, size), _) in &todo {
                let s = &sources[*i];
                add_file.execute(params![s.rel, s.project, s.kind.as_str(), mtime, size])?;
                let file_id = tx.last_insert_rowid();
                for e in read_entries(s) {
                    add_entry.execute(params![
                        file_id,
                        e.line as i64,
                        e.section,
                        e.section_key.map(SectionKey::json_key),
                        e.date,
                        e.text
                    ])?;
                    let id = tx.last_insert_rowid();
                    let indexed = format!("{} {}", e.text, e.section);
                    add_fts.execute(params![id, norm.index_text(&indexed)])?;
                }
            }
        }
        tx.commit()?;
        Ok(result)
    }

    /// Ranked entries for a query: every word first; when no entry holds
    /// them all, any word.
    pub fn query(&self, expr: &MatchExpr, f: &Filters) -> Result<Vec<Hit>, Trouble> {
        let hits = self.run_query(&expr.all, f)?;
        if !hits.is_empty() || expr.words.len() < 2 {
            return Ok(hits);
        }
        self.run_query(&expr.any, f)
    }

    fn run_query(&self, expr: &str, f: &Filters) -> Result<Vec<Hit>, Trouble> {
        let (skey, stext) = match &f.section {
            Some(SectionFilter::Key(k)) => (Some(k.json_key()), None),
            Some(SectionFilter::Text(t)) => (None, Some(format!("%{}%", like_escape(t)))),
            None => (None, None),
        };
        let mut stmt = self.conn.prepare(
            "SELECT f.rel, e.line, f.project, f.kind, e.section, e.date, e.text, bm25(fts) AS score
             FROM fts JOIN entries e ON e.id = fts.rowid JOIN files f ON f.id = e.file_id
             WHERE fts MATCH ?1
               AND (?2 IS NULL OR f.project = ?2)
               AND (?3 IS NULL OR e.skey = ?3)
               AND (?4 IS NULL OR e.section LIKE ?4 ESCAPE '\\')
               AND (?5 IS NULL OR e.date >= ?5)
               AND (?6 IS NULL OR e.date <= ?6)
             ORDER BY score, e.date DESC, f.rel, e.line
             LIMIT ?7",
        )?;
        let rows = stmt.query_map(
            params![
                expr,
                f.project,
                skey,
                stext,
                f.since,
                f.until,
                f.limit.max(1) as i64
            ],
            |r| {
                let kind: String = r.get(3)?;
                Ok(Hit {
                    path: r.get(0)?,
                    line: r.get::<_, i64>(1)? as usize,
                    project: r.get(2)?,
                    kind: Kind::parse(&kind).unwrap_or(Kind::Log).as_str(),
                    section: r.get(4)?,
                    date: r.get(5)?,
                    text: r.get(6)?,
                    // bm25() is negative, lower is better; show it the usual way.
                    score: -r.get::<_, f64>(7)?,
                })
            },
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// Files to read again (index in `sources`, new stamp, old id) and ids of
/// files gone.
struct Changes {
    todo: Vec<(usize, Stamp, Option<i64>)>,
    gone: Vec<i64>,
}

impl Changes {
    fn summary(&self, sources: &[Source]) -> Sync {
        Sync {
            files: sources.len(),
            changed: self.todo.len(),
            removed: self.gone.len(),
        }
    }
}

fn changes(conn: &Connection, sources: &[Source]) -> Result<Changes, Trouble> {
    let known: HashMap<String, (i64, Stamp)> = {
        let mut stmt = conn.prepare("SELECT rel, id, mtime, size FROM files")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, (r.get(1)?, (r.get(2)?, r.get(3)?))))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let mut todo = Vec::new();
    let mut seen: std::collections::HashSet<&str> = Default::default();
    for (i, s) in sources.iter().enumerate() {
        seen.insert(&s.rel);
        let Some(now) = s.stamp else { continue };
        match known.get(&s.rel) {
            Some((_, was)) if *was == now => {}
            Some((id, _)) => todo.push((i, now, Some(*id))),
            None => todo.push((i, now, None)),
        }
    }
    let gone = known
        .iter()
        .filter(|(rel, _)| !seen.contains(rel.as_str()))
        .map(|(_, (id, _))| *id)
        .collect();
    Ok(Changes { todo, gone })
}

fn read_entries(s: &Source) -> Vec<Entry> {
    // The sources were checked inside the project; this keeps a FIFO or a
    // file swapped in since from blocking or flooding the index.
    match crate::fsutil::confine::read_regular(
        &s.path,
        crate::fsutil::confine::MAX_MEMORY_FILE_BYTES,
    ) {
        Ok(bytes) => scan::entries(s.kind, s.date.as_deref(), &String::from_utf8_lossy(&bytes)),
        Err(_) => Vec::new(),
    }
}

fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Removes an index and its WAL companions.
pub fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}
