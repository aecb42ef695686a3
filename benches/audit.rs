//! `cairn audit skill` (SPEC §3): the static estimate of the large fixture
//! skill (competitor_analyze, 27 KB, 140 example analyses on disk), and the
//! transcript scan for real runs, first (no remembered state) and second
//! (nothing appended: offsets remembered under `<state>/audit/`).
//!
//! Run: `cargo bench --bench audit`. The 1 GB figure is taken with the real
//! binary on the corpus of scripts/bench/peers/make_corpus.py (see the
//! architecture notes); this bench keeps to sizes a laptop runs in seconds.

mod populate {
    include!("../tests/fixtures/audit/populate.rs");
}

use cairn::audit::{AuditConfig, estimate, measure, model, optimize, report, skills};
use cairn::context::{Clock, Ctx, Env};
use cairn::memory::log::Lang;
use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

struct Large {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: Ctx,
}

fn large() -> Large {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/large"),
        &root,
    );
    populate::populate_competitors(&root);
    let ctx = Ctx::new(
        Env::from_pairs([
            ("HOME", dir.path().display().to_string()),
            (
                "CLAUDE_CONFIG_DIR",
                dir.path().join("cfg").display().to_string(),
            ),
            (
                "CAIRN_STATE_DIR",
                dir.path().join("state").display().to_string(),
            ),
        ]),
        Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
    );
    Large {
        _dir: dir,
        root,
        ctx,
    }
}

/// Static estimate, optimisations and the rendered report of the large
/// fixture (reads the skill, measures 1.8 MB of example outputs).
#[divan::bench]
fn static_estimate_large(b: divan::Bencher) {
    let l = large();
    let found = skills::discover(&l.ctx, &l.root);
    let f = skills::find(&found, "competitor_analyze").unwrap().clone();
    let cfg = AuditConfig::default();
    b.bench(|| {
        let sk = skills::read(&l.root, &f).unwrap();
        let est = estimate::estimate(&cfg, &l.root, &sk);
        let choice = model::recommend(&est);
        let opts = optimize::find(&sk, &est, choice.model, None);
        let refs = estimate::referenced(&l.root, &sk);
        let a = report::Audit {
            skill: &sk,
            est: &est,
            choice: &choice,
            current_model: None,
            opts: &opts,
            measured: None,
            proof: report::Proof::ExampleBased,
            date: "2026-11-30".into(),
            previous: None,
            references: &refs,
            lang: Lang::Fr,
            ratios: &cfg,
        };
        divan::black_box(report::render(&a))
    });
}

/// A config folder with `sessions` transcripts of about `mb` MiB in all,
/// one skill run every 40 turns.
fn corpus(dir: &Path, mb: usize, sessions: usize) {
    let projects = dir.join("cfg/projects/-proj");
    std::fs::create_dir_all(&projects).unwrap();
    let per = mb * 1024 * 1024 / sessions;
    let big = "x".repeat(4_000);
    for s in 0..sessions {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(projects.join(format!("s{s}.jsonl"))).unwrap(),
        );
        let (mut written, mut i) = (0usize, 0u64);
        while written < per {
            i += 1;
            let mut lines = Vec::new();
            let attr = if i % 40 == 0 {
                lines.push(
                    r#"{"type":"user","timestamp":"2026-11-29T10:00:00Z","message":{"role":"user","content":"<command-message>competitor_analyze</command-message>\n<command-name>/competitor_analyze</command-name>"}}"#
                        .to_string(),
                );
                lines.push(
                    r#"{"type":"user","isMeta":true,"timestamp":"2026-11-29T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /p\n\n# /competitor_analyze"}]}}"#
                        .to_string(),
                );
                r#","attributionSkill":"competitor_analyze""#
            } else {
                lines.push(format!(
                    r#"{{"type":"user","promptSource":"sdk","timestamp":"2026-11-29T10:00:00Z","message":{{"role":"user","content":"Turn {i}: fix the parser"}}}}"#
                ));
                ""
            };
            for k in 0..3 {
                lines.push(format!(
                    r#"{{"type":"assistant","requestId":"r{s}_{i}_{k}"{attr},"timestamp":"2026-11-29T10:00:01Z","message":{{"id":"m{s}_{i}_{k}","model":"claude-sonnet-4-6","content":[{{"type":"tool_use","id":"t{i}{k}","name":"Read","input":{{"file_path":"src/parse.rs"}}}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":20000,"output_tokens":50}}}}}}"#
                ));
                lines.push(format!(
                    r#"{{"type":"user","timestamp":"2026-11-29T10:00:02Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}{k}","content":"{big}"}}]}}}}"#
                ));
            }
            for l in lines {
                written += l.len() + 1;
                writeln!(f, "{l}").unwrap();
            }
        }
    }
}

fn scan_ctx(dir: &Path) -> Ctx {
    Ctx::new(
        Env::from_pairs([
            ("HOME", dir.display().to_string()),
            ("CLAUDE_CONFIG_DIR", dir.join("cfg").display().to_string()),
            ("CAIRN_STATE_DIR", dir.join("state").display().to_string()),
        ]),
        Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
    )
}

/// The first audit: every transcript read (the scan state removed before
/// each iteration).
#[divan::bench(args = [16, 64])]
fn measure_first_run(b: divan::Bencher, mb: usize) {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), mb, 8);
    let ctx = scan_ctx(dir.path());
    let prices = cairn::usage::PriceTable::embedded();
    b.with_inputs(|| {
        let _ = std::fs::remove_dir_all(dir.path().join("state/audit"));
    })
    .bench_values(|()| {
        let m = measure::measure(&ctx, &prices, "competitor_analyze").unwrap();
        assert!(!m.runs.is_empty());
        m
    });
}

/// A later audit with nothing appended: file fingerprints only.
#[divan::bench(args = [16, 64])]
fn measure_second_run(b: divan::Bencher, mb: usize) {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), mb, 8);
    let ctx = scan_ctx(dir.path());
    let prices = cairn::usage::PriceTable::embedded();
    measure::measure(&ctx, &prices, "competitor_analyze").unwrap();
    b.bench(|| {
        let m = measure::measure(&ctx, &prices, "competitor_analyze").unwrap();
        assert_eq!(m.stats.bytes_read, 0);
        m
    });
}
