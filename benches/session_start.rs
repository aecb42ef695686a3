//! SessionStart on large day logs (issue 9, finding 4): the injection must
//! be linear in the log's size. Before the fix, 10 000 bullets took 1.0 s,
//! 20 000 3.7 s and 80 000 66 s (one bullet dropped per rescan).
//!
//! Run: `cargo bench --bench session_start`.

use cairn::config::Config;
use cairn::context::{Clock, Ctx, Env};
use cairn::memory::{load, store::Store};

fn main() {
    divan::main();
}

struct Setup {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    store: Store,
}

fn setup(bullets: usize) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    let logs = root.join("memory_sessions/logs");
    std::fs::create_dir_all(&logs).unwrap();
    let mut text = String::from("# Log session — 2026-11-30\n\n");
    // Four sections, so the biggest-section-first rule has choices to make.
    for (s, heading) in [
        "## Contexte",
        "## Travail produit",
        "## Décisions prises",
        "## Problèmes rencontrés",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(heading);
        text.push('\n');
        for i in 0..bullets / 4 {
            text.push_str(&format!(
                "- section {s} étape {i:06} : ajouté le test du parseur\n"
            ));
        }
        text.push('\n');
    }
    std::fs::write(logs.join("2026-11-30.md"), text).unwrap();
    let ctx = Ctx::new(
        Env::from_pairs([
            ("TZ", "UTC"),
            (
                "CAIRN_STATE_DIR",
                dir.path().join("state").to_str().unwrap(),
            ),
        ]),
        Clock::Fixed("2026-11-30T12:00:00Z".parse().unwrap()),
    );
    let store = Store::discover(&root, &Config::default().memory);
    Setup {
        _dir: dir,
        ctx,
        store,
    }
}

#[divan::bench(args = [1_000, 10_000, 20_000, 80_000], sample_count = 10)]
fn session_start_context(bencher: divan::Bencher, bullets: usize) {
    let s = setup(bullets);
    let config = Config::default().memory;
    bencher.bench_local(|| {
        load::session_start_context(&s.ctx, &config, &s.store, "root", "startup", None)
    });
}
