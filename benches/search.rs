//! `cairn memory search` over three years of daily logs (SPEC §6: p50 under
//! 20 ms warm), and the first query of a repository, which builds the index.
//!
//! The corpus: 1 095 days, each day's log in one of 5 projects (root and 4
//! sub-projects), logs older than 30 days in `logs/archives/`, a long
//! memory per project. Bullets mix French and English like real logs.
//!
//! Run: `cargo bench --bench search`.

use cairn::config::Config;
use cairn::context::{Clock, Ctx, Env};
use cairn::memory::store::Store;
use cairn::search::{Request, search};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

const DAYS: i64 = 1_095;
const PROJECTS: [&str; 5] = ["root", "api", "web", "infra", "docs"];

const FR: &[&str] = &[
    "migration de la base vers Postgres terminée",
    "le cache des requêtes expire trop tôt",
    "corriger le parseur de dates dans les journaux",
    "déploiement bloqué par un certificat expiré",
    "décision : garder SQLite pour l'index local",
    "les tests d'intégration échouent sur la CI",
    "ajouter une option --json à la commande",
    "refonte du module d'authentification",
    "mesurer la latence du hook Stop",
    "documenter la configuration des projets",
];
const EN: &[&str] = &[
    "cached responses are served from the edge",
    "renamed the deployment pipeline stages",
    "flaky benchmark on the shared runner",
    "rate limiter drops bursts above 100 rps",
    "moved the feature flags to the config file",
    "parser rejects trailing commas in settings",
    "upgrade the HTTP client to the new major",
    "session tokens rotate every hour now",
    "write the migration guide for plugin users",
    "profile the index rebuild on large repos",
];

struct Corpus {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: Ctx,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let state = dir.path().join("state");
        write_corpus(&root);
        let ctx = Ctx::new(
            Env::from_pairs([("CAIRN_STATE_DIR", state.to_str().unwrap())]),
            Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
        );
        let c = Corpus {
            _dir: dir,
            root,
            ctx,
        };
        run(&c, "cache");
        c
    })
}

fn mem_dir(root: &Path, project: &str) -> PathBuf {
    if project == "root" {
        root.join("memory_sessions")
    } else {
        root.join("projects").join(project).join("memory_sessions")
    }
}

fn write_corpus(root: &Path) {
    let today: jiff::civil::Date = "2026-11-30".parse().unwrap();
    let headings_fr = [
        "## Contexte",
        "## Problèmes rencontrés",
        "## Décisions prises",
        "## À suivre",
    ];
    let headings_en = ["## Context", "## Problems", "## Decisions", "## To do"];
    for d in 0..DAYS {
        let date = today.checked_sub(jiff::Span::new().days(d)).unwrap();
        let project = PROJECTS[(d % 5) as usize];
        let english = d % 3 == 0;
        let logs = mem_dir(root, project).join("logs");
        let dir = if d > 30 { logs.join("archives") } else { logs };
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = if english {
            format!("# Session log — {date}\n")
        } else {
            format!("# Log session — {date}\n")
        };
        let headings = if english { &headings_en } else { &headings_fr };
        for (h, heading) in headings.iter().enumerate() {
            write!(text, "\n{heading}\n").unwrap();
            for b in 0..4 {
                let i = (d as usize * 7 + h * 3 + b) % 10;
                let phrase = if (i + b).is_multiple_of(2) {
                    FR[i]
                } else {
                    EN[i]
                };
                writeln!(text, "- {phrase} (ticket #{})", d * 10 + b as i64).unwrap();
            }
        }
        std::fs::write(dir.join(format!("{date}.md")), text).unwrap();
    }
    for p in PROJECTS {
        let mut lm = format!("# Mémoire long terme — {p}\n");
        for m in 0..36 {
            write!(lm, "\n## Promotion 2026-{:02}-01\n\n", m % 12 + 1).unwrap();
            for b in 0..5 {
                writeln!(lm, "- {}", FR[(m + b) % 10]).unwrap();
            }
        }
        std::fs::write(mem_dir(root, p).join("long_memory.md"), lm).unwrap();
    }
}

fn run(c: &Corpus, query: &str) -> usize {
    let store = Store::discover(&c.root, &Config::default().memory);
    let req = Request {
        query: query.into(),
        ..Request::default()
    };
    search(&c.ctx, &store, &req).unwrap().results.len()
}

const QUERIES: [&str; 4] = [
    "cache",
    "migration postgres",
    "déploiement certificat",
    "flaky benchmark runner",
];

/// A query on an index that is up to date: list and stat the files, open
/// the index, rank. What every search after the first costs.
#[divan::bench(args = QUERIES, sample_count = 60)]
fn warm_query(query: &str) -> usize {
    run(corpus(), query)
}

/// The first search of a repository: the index is built from 1 095 logs.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn first_query_with_build(bencher: divan::Bencher) {
    let c = corpus();
    let path = cairn::search::index::index_path(&c.ctx.state_dir, &c.root);
    bencher
        .with_inputs(|| cairn::search::index::remove(&path))
        .bench_local_values(|()| run(c, "cache"));
}

/// One log changed since the last search: it alone is read again.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn one_file_changed(bencher: divan::Bencher) {
    let c = corpus();
    run(c, "cache");
    let log = mem_dir(&c.root, "root").join("logs/2026-11-30.md");
    let mut n = 0u64;
    bencher
        .with_inputs(|| {
            n += 1;
            let mut text = std::fs::read_to_string(&log).unwrap();
            writeln!(text, "- note {n} sur le cache").unwrap();
            std::fs::write(&log, text).unwrap();
        })
        .bench_local_values(|()| run(c, "cache"));
}
