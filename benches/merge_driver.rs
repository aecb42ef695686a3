//! The memory merge driver's section merge (SPEC §1.12): a real day's log
//! (tens of bullets) and a pathological one (thousands), both sides
//! appending to every section and one side finalising to-dos.
//!
//! Run: `cargo bench --bench merge_driver`.

fn main() {
    divan::main();
}

const SECTIONS: [&str; 4] = [
    "Contexte",
    "Travail produit",
    "Décisions prises",
    "À suivre",
];

/// Base, ours, theirs with `n` bullets per section in the base.
fn sides(n: usize) -> (String, String, String) {
    let doc = |extra: &str, finalise: bool| {
        let mut out = String::from("# Log session — 2026-11-30\n");
        let mut done = Vec::new();
        for s in SECTIONS {
            out.push_str(&format!("\n## {s}\n"));
            for i in 0..n {
                if finalise && s == "À suivre" && i % 2 == 0 {
                    done.push(format!("- ✅ {s} point {i} du jour\n"));
                    continue;
                }
                out.push_str(&format!("- {s} point {i} du jour\n"));
            }
            for i in 0..n / 2 {
                if !extra.is_empty() {
                    out.push_str(&format!("- {s} {extra} {i}\n"));
                }
            }
        }
        if !done.is_empty() {
            out.push_str("\n## Finalisé\n");
            out.extend(done);
        }
        out
    };
    (doc("", false), doc("alice", true), doc("bob", false))
}

#[divan::bench(args = [10, 100, 1000])]
fn three_way(bencher: divan::Bencher, n: usize) {
    let (o, a, b) = sides(n);
    bencher.bench(|| cairn::merge::three_way::merge(&o, &a, &b).unwrap());
}
