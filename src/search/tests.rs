use super::*;
use crate::context::{Clock, Env};
use std::fs;
use std::path::PathBuf;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: Ctx,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let state = dir.path().join("state");
        let ctx = Ctx::new(
            Env::from_pairs([("CAIRN_STATE_DIR", state.to_str().unwrap())]),
            Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
        );
        let f = Fixture {
            _dir: dir,
            root,
            ctx,
        };
        f.write(
            "memory_sessions/logs/2026-11-28.md",
            "# Log session — 2026-11-28\n\n## Contexte\n- Migration de la base vers Postgres\n\n## Décisions prises\n- Garder le cache des requêtes en mémoire\n\n## À suivre\n- Écrire les tests de migration\n",
        );
        f.write(
            "memory_sessions/logs/2026-11-29.md",
            "# Session log — 2026-11-29\n\n## Decisions\n- Cached responses expire after 5 minutes\n\n## To do\n- Benchmark the cache warmup\n",
        );
        f.write(
            "memory_sessions/logs/archives/2025-01-10.md",
            "# Log session — 2025-01-10\n\n## Connaissances acquises\n- Le déploiement passe par Ansible\n",
        );
        f.write(
            "memory_sessions/long_memory.md",
            "# Mémoire long terme — root\n\n## 2026-11-01\n\n- Les migrations tournent dans une transaction\n",
        );
        f.write(
            "memory_sessions/checkpoints/2026-11-30T101500Z-abcd1234.md",
            "# Checkpoint — 2026-11-30 — session abcd1234\n\n## Goal\n- Finish the deployment pipeline\n",
        );
        f.write(
            "projects/blog/memory_sessions/logs/2026-11-27.md",
            "# Log session — 2026-11-27\n\n## Travail produit\n- Article sur le cache HTTP publié\n",
        );
        f
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn store(&self) -> Store {
        Store::discover(&self.root, &crate::memory::config::MemoryConfig::default())
    }

    fn search(&self, q: &str) -> Outcome {
        self.search_req(Request {
            query: q.into(),
            ..Request::default()
        })
    }

    fn search_req(&self, req: Request) -> Outcome {
        search(&self.ctx, &self.store(), &req).unwrap()
    }

    fn index_path(&self) -> PathBuf {
        index::index_path(&self.ctx.state_dir, &self.root)
    }
}

fn places(o: &Outcome) -> Vec<String> {
    o.results
        .iter()
        .map(|h| format!("{}:{}", h.path, h.line))
        .collect()
}

#[test]
fn stems_and_folds_across_languages_and_files() {
    let f = Fixture::new();
    // `cache` finds the French `cache`, the English `Cached`, the blog's post.
    let o = f.search("cache");
    let got = places(&o);
    for want in [
        "memory_sessions/logs/2026-11-28.md:7",
        "memory_sessions/logs/2026-11-29.md:4",
        "memory_sessions/logs/2026-11-29.md:7",
        "projects/blog/memory_sessions/logs/2026-11-27.md:4",
    ] {
        assert!(got.contains(&want.to_string()), "{want} not in {got:?}");
    }
    // Plural, accents, archives, long memory, checkpoints.
    let got = places(&f.search("migrations"));
    assert!(got.contains(&"memory_sessions/logs/2026-11-28.md:4".into()));
    assert!(
        got.contains(&"memory_sessions/long_memory.md:5".into()),
        "{got:?}"
    );
    assert_eq!(
        places(&f.search("deploiement ansible")),
        ["memory_sessions/logs/archives/2025-01-10.md:4"]
    );
    let o = f.search("deployment pipeline");
    assert_eq!(o.results[0].kind, "checkpoint");
    assert_eq!(o.results[0].date.as_deref(), Some("2026-11-30"));
    assert_eq!(o.results[0].section, "Goal");
}

#[test]
fn filters_by_project_section_and_dates() {
    let f = Fixture::new();
    let req = |project: Option<&str>, section: Option<&str>, since: Option<&str>| Request {
        query: "cache".into(),
        project: project.map(Into::into),
        section: section.map(Into::into),
        since: since.map(Into::into),
        until: None,
        limit: None,
    };
    let o = f.search_req(req(Some("blog"), None, None));
    assert_eq!(
        places(&o),
        ["projects/blog/memory_sessions/logs/2026-11-27.md:4"]
    );
    assert_eq!(o.results[0].project, "blog");
    // French heading, English heading and record key name the same section.
    for s in ["Décisions prises", "decisions", "DECISIONS"] {
        let mut got = places(&f.search_req(req(None, Some(s), None)));
        got.sort();
        assert_eq!(
            got,
            [
                "memory_sessions/logs/2026-11-28.md:7",
                "memory_sessions/logs/2026-11-29.md:4"
            ],
            "{s}"
        );
    }
    for s in ["to do", "À suivre", "a_suivre"] {
        assert_eq!(
            places(&f.search_req(req(None, Some(s), None))),
            ["memory_sessions/logs/2026-11-29.md:7"],
            "{s}"
        );
    }
    let got = places(&f.search_req(req(None, None, Some("20261129"))));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|p| p.contains("2026-11-29")));
    let store = f.store();
    let bad = |r: Request| search(&f.ctx, &store, &r).unwrap_err().to_string();
    assert!(bad(req(Some("nope"), None, None)).contains("unknown project `nope`"));
    assert!(bad(req(None, None, Some("yesterday"))).contains("not a date"));
    assert!(
        bad(Request {
            query: "!!".into(),
            ..Request::default()
        })
        .contains("nothing to search for")
    );
}

#[test]
fn updates_incrementally_and_says_nothing_when_healthy() {
    let f = Fixture::new();
    let first = f.search("cache");
    assert_eq!(first.notes.len(), 1, "{:?}", first.notes);
    assert!(first.notes[0].contains("missing"), "{:?}", first.notes);
    assert_eq!(first.source, "index");
    let again = f.search("cache");
    assert!(again.notes.is_empty(), "{:?}", again.notes);
    assert_eq!(places(&first), places(&again));

    // A changed file is read again, a removed one disappears, a new one appears.
    f.write(
        "memory_sessions/logs/2026-11-29.md",
        "# Session log — 2026-11-29\n\n## Decisions\n- Use a Redis cluster\n",
    );
    fs::remove_file(
        f.root
            .join("projects/blog/memory_sessions/logs/2026-11-27.md"),
    )
    .unwrap();
    f.write(
        "memory_sessions/logs/2026-11-30.md",
        "# Log session — 2026-11-30\n\n## Contexte\n- Redis remplace le cache maison\n",
    );
    let got = places(&f.search("cache"));
    assert!(
        !got.iter()
            .any(|p| p.contains("2026-11-29") || p.contains("blog")),
        "{got:?}"
    );
    assert!(got.contains(&"memory_sessions/logs/2026-11-30.md:4".into()));
    assert_eq!(f.search("redis").results.len(), 2);

    let mut idx = Index::open(&f.index_path(), &f.root).unwrap();
    let sync = idx.sync(&scan::sources(&f.store())).unwrap();
    assert_eq!((sync.changed, sync.removed), (0, 0));
}

#[test]
fn missing_index_is_rebuilt_and_nothing_is_lost() {
    let f = Fixture::new();
    let before = places(&f.search("cache"));
    index::remove(&f.index_path());
    let o = f.search("cache");
    assert_eq!(places(&o), before);
    assert_eq!(o.notes.len(), 1);
}

#[test]
fn corrupt_or_foreign_index_is_rebuilt_once() {
    let f = Fixture::new();
    let before = places(&f.search("cache"));
    let path = f.index_path();
    // Checkpoint the WAL so the main file holds the data, then cut it.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    let len = fs::metadata(&path).unwrap().len();
    for cut in [len / 2, 100, 0] {
        let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(cut).unwrap();
        drop(file);
        let o = f.search("cache");
        assert_eq!(places(&o), before, "cut at {cut}");
        assert_eq!(o.notes.len(), 1, "cut at {cut}: {:?}", o.notes);
        assert!(f.search("cache").notes.is_empty());
    }
    fs::write(&path, b"not a database at all, just text").unwrap();
    let o = f.search("cache");
    assert_eq!(places(&o), before);
    assert!(o.notes[0].contains("unreadable"), "{:?}", o.notes);

    // An index from another schema version is rebuilt too.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute("UPDATE meta SET value = '0' WHERE key = 'schema'", [])
            .unwrap();
    }
    let o = f.search("cache");
    assert_eq!(places(&o), before);
    assert!(o.notes[0].contains("schema 0"), "{:?}", o.notes);
}

#[test]
fn locked_index_falls_back_to_the_markdown() {
    let f = Fixture::new();
    f.search("cache");
    let holder = rusqlite::Connection::open(f.index_path()).unwrap();
    holder
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM meta WHERE key = 'root';")
        .unwrap();

    // Nothing changed: the index is read while the other writer works.
    let o = f.search("cache");
    assert!(o.notes.is_empty(), "{:?}", o.notes);
    assert_eq!(o.source, "index");

    // Something changed and the index cannot be written: read the files.
    f.write(
        "memory_sessions/logs/2026-11-30.md",
        "# Log session — 2026-11-30\n\n## Contexte\n- Un cache distribué\n",
    );
    let o = f.search("cache");
    assert_eq!(o.source, "markdown");
    assert_eq!(o.notes.len(), 1, "{:?}", o.notes);
    assert!(o.notes[0].contains("locked"), "{:?}", o.notes);
    assert!(places(&o).contains(&"memory_sessions/logs/2026-11-30.md:4".into()));

    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    let o = f.search("cache");
    assert_eq!(o.source, "index");
    assert!(o.notes.is_empty());
    assert!(places(&o).contains(&"memory_sessions/logs/2026-11-30.md:4".into()));
}

#[test]
fn unwritable_state_folder_still_answers() {
    let f = Fixture::new();
    // The state folder is a file: nothing can be created under it.
    fs::create_dir_all(f.ctx.state_dir.parent().unwrap()).unwrap();
    fs::write(&f.ctx.state_dir, b"").unwrap();
    let o = f.search("cache");
    assert_eq!(o.source, "markdown");
    assert_eq!(o.notes.len(), 1, "{:?}", o.notes);
    assert!(!o.results.is_empty());
}

#[test]
fn cli_output_is_path_line_then_text() {
    let f = Fixture::new();
    let out = run(
        &f.ctx,
        &crate::memory::config::MemoryConfig::default(),
        &f.root,
        SearchArgs {
            query: vec!["ansible".into()],
            limit: 5,
            ..SearchArgs::default()
        },
    )
    .unwrap();
    assert_eq!(
        out.stdout,
        "memory_sessions/logs/archives/2025-01-10.md:4  (2025-01-10, Connaissances acquises)\n    Le déploiement passe par Ansible\n"
    );
    assert_eq!(out.code, 0);
    assert!(
        out.stderr
            .starts_with("cairn: note: search index was missing")
    );
    let none = run(
        &f.ctx,
        &crate::memory::config::MemoryConfig::default(),
        &f.root,
        SearchArgs {
            query: vec!["kubernetes".into()],
            limit: 5,
            json: true,
            ..SearchArgs::default()
        },
    )
    .unwrap();
    assert_eq!(none.code, 1);
    let v: serde_json::Value = serde_json::from_str(&none.stdout).unwrap();
    assert_eq!(v["results"], serde_json::json!([]));
    assert_eq!(v["source"], "index");
}

#[test]
fn concurrent_searches_never_see_a_broken_index() {
    // Two processes (here threads, each with its own connection) searching
    // a repository whose index is missing or stale at the same moment.
    let f = Fixture::new();
    for round in 0..6 {
        if round % 2 == 0 {
            index::remove(&f.index_path());
        } else {
            f.write(
                "memory_sessions/logs/2026-11-30.md",
                &format!("# Log session — 2026-11-30\n\n## Contexte\n- cache round {round}\n"),
            );
        }
        let outcomes: Vec<Outcome> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3).map(|_| s.spawn(|| f.search("cache"))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for o in &outcomes {
            assert!(
                o.notes.iter().all(|n| !n.contains("unreadable")),
                "round {round}: {:?}",
                o.notes
            );
            assert!(places(o).contains(&"memory_sessions/logs/2026-11-28.md:7".into()));
        }
    }
    let o = f.search("cache");
    assert!(o.notes.is_empty(), "{:?}", o.notes);
    assert_eq!(o.source, "index");
}
