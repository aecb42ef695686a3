//! `cairn audit skill` and `cairn audit index` on fixture skills (a trivial
//! one, a mid-size one, one at the scale of the seeds' competitor_analyze
//! sample), golden reports in French and English, bad input, and real runs
//! measured from transcripts shaped like the client's (2.1.332).
//!
//! The reports are insta snapshots, `tests/snapshots/audit_*.snap`
//! (`cargo insta review` after a change).

use crate::common;
mod populate {
    include!("../fixtures/audit/populate.rs");
}

use common::Project;
use serde_json::json;
use std::path::{Path, PathBuf};

const THIN: &str = "\u{202f}";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit")
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else if e.file_name() != "make_skill.py" {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A project holding one fixture, with an empty client config folder so
/// the user's real skills and transcripts are never read.
fn project(fixture: &str) -> Project {
    let mut p = Project::new();
    copy_dir(&fixtures().join(fixture), &p.root);
    let cfg = p.home.join(".claude");
    std::fs::create_dir_all(cfg.join("projects")).unwrap();
    let cfg = cfg.display().to_string();
    p.env("CLAUDE_CONFIG_DIR", &cfg);
    p
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn audit(p: &Project, args: &[&str]) -> Run {
    let o = p.cairn().arg("audit").args(args).output().unwrap();
    Run {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code().unwrap_or(-1),
    }
}

fn ok(p: &Project, args: &[&str]) -> String {
    let r = audit(p, args);
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    r.stdout
}

fn report(p: &Project, skill: &str) -> String {
    std::fs::read_to_string(
        p.root
            .join(format!("docs/audits/token/token_audit_{skill}.md")),
    )
    .unwrap()
}

/// The report as written, against its committed snapshot.
fn golden(name: &str, actual: &str) {
    let name = name.trim_end_matches(".md").replace('.', "_");
    common::snapshot(&format!("audit_{name}"), actual);
}

#[test]
fn trivial_skill_gets_a_one_line_verdict_and_no_report() {
    let p = project("trivial");
    common::snapshot_output(
        "audit_trivial_verdict",
        &p.run(&["audit", "skill", "bonjour", "--no-measured"]),
    );
    assert!(!p.root.join("docs/audits").exists());
    let out = ok(&p, &["skill", "bonjour", "--no-measured", "--lang", "en"]);
    assert!(out.contains("optimising it is not worth it"), "{out}");
}

#[test]
fn without_a_name_skills_are_listed_with_their_always_on_cost_and_exit_2() {
    let p = project("mid");
    let r = audit(&p, &["skill"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("hint: cairn audit skill NAME"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("rapport_hebdo  project")
            && r.stdout
                .contains("tokens always on  .claude/skills/rapport_hebdo/SKILL.md"),
        "{}",
        r.stdout
    );
    let r = audit(&p, &["skill", "nope"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no skill named `nope`"), "{}", r.stderr);
    assert!(r.stdout.contains("rapport_hebdo"), "{}", r.stdout);
}

#[test]
fn user_plugin_and_legacy_command_skills_are_found() {
    let p = project("trivial");
    let cfg = p.home.join(".claude");
    std::fs::create_dir_all(cfg.join("skills/perso")).unwrap();
    std::fs::write(
        cfg.join("skills/perso/SKILL.md"),
        "---\nname: perso\ndescription: Mon skill.\n---\nCorps.\n",
    )
    .unwrap();
    let plug = cfg.join("plugins/cache/mk/outils/1.0.0");
    std::fs::create_dir_all(plug.join("skills/nettoyer")).unwrap();
    std::fs::write(plug.join("skills/nettoyer/SKILL.md"), "Nettoie.\n").unwrap();
    std::fs::create_dir_all(p.root.join(".claude/commands")).unwrap();
    std::fs::write(p.root.join(".claude/commands/deployer.md"), "Déployer.\n").unwrap();
    let r = audit(&p, &["skill"]);
    for name in ["bonjour", "deployer", "perso", "outils:nettoyer"] {
        assert!(r.stdout.contains(name), "{name} missing:\n{}", r.stdout);
    }
    assert!(r.stdout.contains("plugin outils"), "{}", r.stdout);
    // The bare name finds the plugin skill.
    let out = ok(&p, &["skill", "nettoyer", "--no-measured"]);
    assert!(out.starts_with("nettoyer : "), "{out}");
}

#[test]
fn mid_size_skill_report_matches_golden_in_french_and_english() {
    let p = project("mid");
    let out = ok(&p, &["skill", "rapport_hebdo", "--no-measured"]);
    assert!(out.contains("level of proof example_based"), "{out}");
    assert!(
        out.contains("report: docs/audits/token/token_audit_rapport_hebdo.md"),
        "{out}"
    );
    let fr = report(&p, "rapport_hebdo");
    golden("rapport_hebdo.fr.md", &fr);
    // What a reader checks, beyond the snapshot.
    assert!(fr.contains("skill_audite: rapport_hebdo\n"));
    assert!(fr.contains("niveau_de_preuve: example_based\n"));
    assert!(fr.contains("| Modèle recommandé | Sonnet 4.6 |"));
    // model: opus on a skill that needs Sonnet.
    assert!(fr.contains("Choisir un modèle adapté"), "{fr}");
    // The doc and the referenced files are measured.
    assert!(fr.contains("`docs/skills/rapport-hebdo.md`"), "{fr}");
    assert!(
        fr.contains(&format!("`notes/semaine.md` — 6{THIN}395{THIN}o")),
        "{fr}"
    );

    let out = ok(
        &p,
        &["skill", "rapport_hebdo", "--no-measured", "--lang", "en"],
    );
    assert!(out.contains("token audit of rapport_hebdo"), "{out}");
    let en = report(&p, "rapport_hebdo");
    // The French report is now the previous audit: the English one shows
    // the evolution table (same day, nothing changed).
    golden("rapport_hebdo.en.md", &en);
    assert!(en.contains("# Token audit: rapport_hebdo"));
    assert!(en.contains("## Evolution since the audit of 2026-11-30"));
}

fn large() -> Project {
    let p = project("large");
    populate::populate_competitors(&p.root);
    p
}

#[test]
fn large_skill_report_matches_golden_and_finds_the_costly_patterns() {
    let p = large();
    let skill_md = p.root.join(".claude/skills/competitor_analyze/SKILL.md");
    let size = std::fs::metadata(&skill_md).unwrap().len();
    assert!((26_000..29_000).contains(&size), "{size}");
    let out = ok(&p, &["skill", "competitor_analyze", "--no-measured"]);
    let fr = report(&p, "competitor_analyze");
    golden("competitor_analyze.fr.md", &fr);
    assert!(out.contains("level of proof example_based"), "{out}");
    // 140 analyses measured, read in full on every run: the incremental
    // read is proposed for that step, with a high confidence.
    assert!(
        fr.contains("projects/competitors/analyses/, 140 fichiers"),
        "{fr}"
    );
    assert!(fr.contains("Lecture incrémentale (étape 5a)"), "{fr}");
    assert!(fr.contains("Externaliser les gabarits du SKILL.md"), "{fr}");
    assert!(fr.contains("Diff/patch au lieu de régénérer"), "{fr}");
    assert!(fr.contains("| — | Contexte accumulé | Input |"), "{fr}");
    assert!(fr.contains("| Modèle recommandé | Opus 4.6 |"), "{fr}");
    assert!(fr.contains("Coût pondéré en régime établi") || !fr.contains("× 0,1) :"));

    let p = large();
    ok(
        &p,
        &[
            "skill",
            "competitor_analyze",
            "--no-measured",
            "--lang",
            "en",
        ],
    );
    let en = report(&p, "competitor_analyze");
    golden("competitor_analyze.en.md", &en);
    assert!(en.contains("Incremental read (step 5a)"), "{en}");
}

#[test]
fn a_second_audit_shows_the_evolution_and_the_optimisations_implemented() {
    let p = large();
    ok(&p, &["skill", "competitor_analyze", "--no-measured"]);
    // The user moves the inline templates out of SKILL.md.
    let path = p.root.join(".claude/skills/competitor_analyze/SKILL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = String::new();
    let mut fenced = false;
    for l in text.lines() {
        if l.starts_with("```") {
            fenced = !fenced;
            if fenced {
                out.push_str("Voir `projects/competitors/templates/analysis-prompt.md`.\n");
            }
            continue;
        }
        if !fenced {
            out.push_str(l);
            out.push('\n');
        }
    }
    std::fs::write(&path, out).unwrap();
    let r = p
        .cairn()
        .env("CAIRN_NOW", "2026-12-07T12:00:00Z")
        .args(["audit", "skill", "competitor_analyze", "--no-measured"])
        .output()
        .unwrap();
    assert!(r.status.success());
    let fr = report(&p, "competitor_analyze");
    assert!(fr.contains("date_creation: 2026-12-07"), "{fr}");
    assert!(
        fr.contains("## Évolution depuis l'audit 2026-11-30"),
        "{fr}"
    );
    assert!(
        fr.contains("| Opt. `templates` | proposée | ✓ semble implémentée |"),
        "{fr}"
    );
    assert!(
        fr.contains("| Opt. `incremental:5a` | proposée | non implémentée |"),
        "{fr}"
    );
}

#[test]
fn bad_skill_files_never_crash_the_audit() {
    let p = project("trivial");
    let skills = p.root.join(".claude/skills");
    let put = |name: &str, bytes: &[u8]| {
        std::fs::create_dir_all(skills.join(name)).unwrap();
        std::fs::write(skills.join(name).join("SKILL.md"), bytes).unwrap();
    };
    put(
        "sans_entete",
        "# Sans frontmatter\n\n## Étape 1 — Lire\n\nLire `x.md`.\n".as_bytes(),
    );
    put("yaml_casse", b"---\nname: yaml_casse\ndescription: \"jamais ferm\xc3\xa9e\nmetadata: [a, b\n  - orphelin\n---\n## 1. Lire\n\nLire tout.\n");
    put("vide", b"");
    put(
        "pas_utf8",
        b"---\nname: pas_utf8\n---\n## \xc9tape 1\n\nLire \xff\xfe le fichier.\n",
    );
    let mut huge = b"---\nname: enorme\n---\n".to_vec();
    while huge.len() < 5 * 1024 * 1024 {
        huge.extend_from_slice(
            "## Étape 1 — Lire\n\nLire `notes.md` avec Read. Écrire le résultat.\n\n".as_bytes(),
        );
    }
    put("enorme", &huge);
    for name in ["sans_entete", "yaml_casse", "vide", "pas_utf8"] {
        let r = audit(&p, &["skill", name, "--no-measured"]);
        assert_eq!(r.code, 0, "{name}: {} {}", r.stdout, r.stderr);
        assert!(!r.stderr.contains("panicked"), "{name}: {}", r.stderr);
    }
    let r = audit(&p, &["skill", "yaml_casse", "--no-measured"]);
    assert!(r.stdout.contains("yaml_casse"), "{}", r.stdout);
    // 5 MB: read in part, measured in full, reported.
    let r = audit(&p, &["skill", "enorme", "--no-measured"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rep = report(&p, "enorme");
    assert!(rep.contains("SKILL.md lu en partie"), "{}", &rep[..2000]);
    assert!(
        rep.contains("Alléger le SKILL.md"),
        "{}",
        &rep[rep.len().saturating_sub(3000)..]
    );
    let listed = audit(&p, &["skill"]);
    assert_eq!(listed.code, 2);
    for name in ["sans_entete", "yaml_casse", "vide", "pas_utf8", "enorme"] {
        assert!(listed.stdout.contains(name), "{}", listed.stdout);
    }
}

#[test]
fn index_is_rebuilt_from_valid_reports_and_names_the_invalid_ones() {
    let p = large();
    ok(&p, &["skill", "competitor_analyze", "--no-measured"]);
    let dir = p.root.join("docs/audits/token");
    // A hand-edited report (the seed's own format) and a corrupt one.
    std::fs::write(
        dir.join("token_audit_commit.md"),
        "---\ndate_creation: 2026-03-07\nskill_audite: commit\n---\n\n# Audit tokens : commit\n\n| Métrique | Valeur |\n|----------|--------|\n| Coût pondéré total | 7 817 unités |\n| Modèle recommandé | Haiku 4.5 |\n",
    )
    .unwrap();
    std::fs::write(dir.join("token_audit_casse.md"), b"\xff\xfe garbage").unwrap();
    std::fs::write(
        dir.join("token_audit_vide.md"),
        "---\nskill_audite: vide\n---\n",
    )
    .unwrap();
    let out = ok(&p, &["index"]);
    assert!(out.contains("index: docs/audits/token/README.md (2 reports; skipped token_audit_casse.md (not UTF-8), token_audit_vide.md (no date_creation))"), "{out}");
    let idx = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let cost = report(&p, "competitor_analyze")
        .lines()
        .find_map(|l| l.strip_prefix("cout_pondere_total: ").map(str::to_string))
        .unwrap();
    let cost: u64 = cost.parse().unwrap();
    let thin = |n: u64| {
        let s = n.to_string();
        let mut o = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                o.push_str(THIN);
            }
            o.push(c);
        }
        o
    };
    let expected = format!(
        "# Token Audit\n\nGénéré automatiquement par `cairn audit`. Dernière mise à jour : 2026-11-30.\n\n## Par coût décroissant\n\n| Date audit | Projet | Skill | Modèle recommandé | Coût pondéré total |\n| --- | --- | --- | --- | --- |\n| 2026-11-30 | veille | competitor_analyze | Opus 4.6 | {} unités |\n| 2026-03-07 | parent | commit | Haiku 4.5 | 7{THIN}817 unités |\n\n## Par projet\n\n| Date audit | Projet | Skill | Modèle recommandé | Coût pondéré total |\n| --- | --- | --- | --- | --- |\n| 2026-03-07 | parent | commit | Haiku 4.5 | 7{THIN}817 unités |\n| 2026-11-30 | veille | competitor_analyze | Opus 4.6 | {} unités |\n\n## Rapports ignorés\n\n- `token_audit_casse.md` : not UTF-8\n- `token_audit_vide.md` : no date_creation\n",
        thin(cost),
        thin(cost)
    );
    assert_eq!(idx, expected);
    // The corrupt files are left as they were.
    assert_eq!(
        std::fs::read(dir.join("token_audit_casse.md")).unwrap(),
        b"\xff\xfe garbage"
    );
}

#[test]
fn audit_ratios_come_from_the_config_and_bad_values_name_the_key() {
    let p = project("mid");
    std::fs::write(
        p.root.join(".cairn.toml"),
        "[audit]\nbytes_per_token_markdown = 2.0\n",
    )
    .unwrap();
    ok(&p, &["skill", "rapport_hebdo", "--no-measured"]);
    let rep = report(&p, "rapport_hebdo");
    // 1 718 bytes of SKILL.md at 2 bytes per token.
    assert!(
        rep.contains(
            "| 0 | Contexte système (SKILL.md 1\u{202f}718\u{202f}o) | Contexte système | 859 |"
        ),
        "{rep}"
    );
    std::fs::write(
        p.root.join(".cairn.toml"),
        "[audit]\nbytes_per_token_json = 0\n",
    )
    .unwrap();
    let r = audit(&p, &["skill", "rapport_hebdo", "--no-measured"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("audit.bytes_per_token_json"),
        "{}",
        r.stderr
    );
}

// ---------------------------------------------------------------------------
// Measured runs, on transcripts shaped like those of the real client 2.1.332
// (records observed in the e2e run: slash-command tags, the Skill tool's
// triple, attributionSkill, one line per content block repeating usage).

struct Tx {
    lines: Vec<String>,
    t: u64,
}

fn usage(i: u64, cr: u64, out: u64) -> serde_json::Value {
    json!({"input_tokens": i, "cache_creation_input_tokens": 100, "cache_read_input_tokens": cr,
           "output_tokens": out,
           "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 100}})
}

impl Tx {
    fn new() -> Tx {
        Tx {
            lines: Vec::new(),
            t: 0,
        }
    }
    fn ts(&mut self) -> String {
        self.t += 1;
        format!("2026-11-29T10:{:02}:{:02}.000Z", self.t / 60, self.t % 60)
    }
    fn push(&mut self, v: serde_json::Value) {
        self.lines.push(v.to_string());
    }
    fn prompt(&mut self, text: &str) {
        let ts = self.ts();
        self.push(
            json!({"type":"user","promptSource":"sdk","version":"2.1.332","timestamp":ts,
            "message":{"role":"user","content":text}}),
        );
    }
    fn slash(&mut self, name: &str) {
        let ts = self.ts();
        self.push(json!({"type":"user","version":"2.1.332","timestamp":ts,"message":{"role":"user",
            "content":format!("<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args></command-args>")}}));
        self.push(json!({"type":"user","isMeta":true,"version":"2.1.332","timestamp":ts,"message":{"role":"user",
            "content":[{"type":"text","text":format!("Base directory for this skill: /p/.claude/skills/{name}\n\n# /{name}")}]}}));
    }
    fn client_command(&mut self, name: &str) {
        let ts = self.ts();
        self.push(json!({"type":"user","isMeta":true,"timestamp":ts,"message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"}}));
        self.push(json!({"type":"user","timestamp":ts,"message":{"role":"user","content":format!("<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n<command-args></command-args>")}}));
        self.push(json!({"type":"user","timestamp":ts,"message":{"role":"user","content":"<local-command-stdout>done</local-command-stdout>"}}));
    }
    /// One response written as one line per block, usage repeated (the
    /// first line with the stream's placeholder output count, as older
    /// clients did).
    #[allow(clippy::too_many_arguments)]
    fn response(
        &mut self,
        id: &str,
        attr: Option<&str>,
        u: serde_json::Value,
        blocks: &[serde_json::Value],
    ) {
        let ts = self.ts();
        for (k, b) in blocks.iter().enumerate() {
            let mut uu = u.clone();
            if k == 0 && blocks.len() > 1 {
                uu["output_tokens"] = json!(1);
            }
            let mut rec = json!({"type":"assistant","requestId":format!("req_{id}"),"version":"2.1.332","timestamp":ts,
                "message":{"id":format!("msg_{id}"),"role":"assistant","model":"claude-sonnet-4-6","usage":uu,"content":[b]}});
            if let Some(a) = attr {
                rec["attributionSkill"] = json!(a);
            }
            self.push(rec);
        }
    }
    fn tool_result(&mut self, id: &str, text: &str, extra: Option<serde_json::Value>) {
        let ts = self.ts();
        let mut rec = json!({"type":"user","version":"2.1.332","timestamp":ts,"message":{"role":"user",
            "content":[{"type":"tool_result","tool_use_id":format!("toolu_{id}"),"content":text}]}});
        if let Some(e) = extra {
            rec["toolUseResult"] = e;
        }
        self.push(rec);
    }
    fn skill_body(&mut self, id: &str, name: &str) {
        let ts = self.ts();
        self.push(json!({"type":"user","isMeta":true,"sourceToolUseID":format!("toolu_{id}"),"timestamp":ts,
            "message":{"role":"user","content":[{"type":"text","text":format!("Base directory for this skill: /p/.claude/skills/{name}\n\n# /{name}")}]}}));
    }
    fn text() -> serde_json::Value {
        json!({"type":"text","text":"ok"})
    }
    fn tool(id: &str, name: &str, input: serde_json::Value) -> serde_json::Value {
        json!({"type":"tool_use","id":format!("toolu_{id}"),"name":name,"input":input})
    }
    fn write(&self, path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, self.lines.join("\n") + "\n").unwrap();
    }
}

fn tokens(i: u64, cr: u64, out: u64) -> u64 {
    i + 100 + cr + out
}

#[test]
fn measured_runs_equal_the_deduplicated_usage_sum_and_are_not_rescanned() {
    let p = project("mid");
    let sessions = p.home.join(".claude/projects/-tmp-proj");
    let name = "rapport_hebdo";
    let mut tx = Tx::new();
    // Run 1: typed by the user; three responses, one split over 2 lines.
    tx.prompt("Bonjour");
    tx.response("a0", None, usage(5, 1000, 10), &[Tx::text()]);
    tx.slash(name);
    tx.response(
        "a1",
        Some(name),
        usage(3, 20_000, 300),
        &[
            Tx::text(),
            Tx::tool("a1", "Read", json!({"file_path":"/p/notes/semaine.md"})),
        ],
    );
    tx.tool_result("a1", "notes…", None);
    tx.response(
        "a2",
        Some(name),
        usage(4, 22_000, 1_500),
        &[Tx::tool(
            "a2",
            "Write",
            json!({"file_path":"/p/rapports/2026-W48.md","content":"x"}),
        )],
    );
    tx.tool_result("a2", "written", None);
    tx.response("a3", Some(name), usage(2, 23_000, 80), &[Tx::text()]);
    // A client command is not a run; the next prompt ends run 1.
    tx.client_command("compact");
    tx.prompt("Et maintenant la suite. ");
    // The model calls the skill: the calling response is not the run's.
    tx.response(
        "b0",
        None,
        usage(6, 24_000, 40),
        &[Tx::text(), Tx::tool("b0", "Skill", json!({"skill": name}))],
    );
    tx.tool_result(
        "b0",
        &format!("Launching skill: {name}"),
        Some(json!({"success":true,"commandName":name})),
    );
    tx.skill_body("b0", name);
    tx.response(
        "b1",
        Some(name),
        usage(1, 25_000, 200),
        &[Tx::tool(
            "b1",
            "Agent",
            json!({"subagent_type":"general-purpose","prompt":"x"}),
        )],
    );
    tx.tool_result("b1", "report", None);
    tx.response("b2", Some(name), usage(1, 26_000, 90), &[Tx::text()]);
    tx.prompt("Merci");
    tx.response("c0", None, usage(9, 27_000, 20), &[Tx::text()]);
    let main = sessions.join("s1.jsonl");
    tx.write(&main);
    // The subagent of run 2 inherits the attribution.
    let mut sub = Tx::new();
    sub.t = 13;
    sub.response(
        "s1",
        Some(name),
        usage(7, 3_000, 400),
        &[
            Tx::text(),
            Tx::tool("s1", "Read", json!({"file_path":"/p/x.md"})),
        ],
    );
    sub.response("s2", Some(name), usage(2, 4_000, 100), &[Tx::text()]);
    sub.write(&sessions.join("s1/subagents/agent-x1.jsonl"));
    // An older client (no attribution): the interval rule.
    let mut old = Tx::new();
    old.t = 100;
    old.prompt("Début");
    old.slash(name);
    old.response("o1", None, usage(10, 5_000, 700), &[Tx::text(), Tx::text()]);
    old.response("o2", None, usage(11, 6_000, 50), &[Tx::text()]);
    old.prompt("Autre chose");
    old.response("o3", None, usage(12, 7_000, 60), &[Tx::text()]);
    old.write(&sessions.join("s2.jsonl"));

    let run1 = tokens(3, 20_000, 300) + tokens(4, 22_000, 1_500) + tokens(2, 23_000, 80);
    let run2 = tokens(1, 25_000, 200)
        + tokens(1, 26_000, 90)
        + tokens(7, 3_000, 400)
        + tokens(2, 4_000, 100);
    let run3 = tokens(10, 5_000, 700) + tokens(11, 6_000, 50);
    let all = run1 + run2 + run3;

    let out = ok(&p, &["skill", name]);
    assert!(out.contains("level of proof measured"), "{out}");
    let mut sorted = [run1, run2, run3];
    sorted.sort();
    assert!(
        out.contains(&format!(
            "measured: 3 runs, {all} tokens in all, median {} tokens (p90 {})",
            sorted[1], sorted[2]
        )),
        "{out}\nexpected runs {run1} {run2} {run3}"
    );
    let rep = report(&p, name);
    assert!(rep.contains("niveau_de_preuve: measured"), "{rep}");
    assert!(rep.contains("| Exécutions trouvées | 3 (2 par /rapport_hebdo, 1 par l'outil Skill, 0 par attribution) |"), "{rep}");
    assert!(rep.contains("| Écart de l'estimation statique |"), "{rep}");
    assert!(
        rep.contains("| Write 2026-W48.md | 1 | 23\u{202f}604 |"),
        "{rep}"
    );
    assert!(rep.contains("| Agent general-purpose | 1 |"), "{rep}");
    assert!(out.contains("transcripts: 3 files in 2 sessions"), "{out}");

    // Nothing changed: nothing is read again.
    let out = ok(&p, &["skill", name]);
    assert!(out.contains(" 0 B read this time"), "{out}");
    assert!(
        out.contains(&format!("measured: 3 runs, {all} tokens in all")),
        "{out}"
    );

    // Appended: only the new bytes are read, the new run is found.
    let before = std::fs::metadata(&main).unwrap().len();
    let mut more = Tx::new();
    more.t = 200;
    more.slash(name);
    more.response("d1", Some(name), usage(1, 30_000, 10), &[Tx::text()]);
    let appended = more.lines.join("\n") + "\n";
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&main)
        .unwrap();
    std::io::Write::write_all(&mut f, appended.as_bytes()).unwrap();
    drop(f);
    let out = ok(&p, &["skill", name]);
    let run4 = tokens(1, 30_000, 10);
    assert!(
        out.contains(&format!("measured: 4 runs, {} tokens in all", all + run4)),
        "{out}"
    );
    let read_line = out.lines().find(|l| l.starts_with("transcripts:")).unwrap();
    let expected_read = format!("{:.1} KiB read this time", appended.len() as f64 / 1024.0);
    let expected_b = format!("{} B read this time", appended.len());
    assert!(
        read_line.contains(&expected_read) || read_line.contains(&expected_b),
        "{read_line} (appended {} bytes after {before})",
        appended.len()
    );

    // --no-measured skips the scan.
    let out = ok(&p, &["skill", name, "--no-measured"]);
    assert!(
        !out.contains("transcripts:") && out.contains("example_based"),
        "{out}"
    );
}

#[test]
fn a_skill_called_inside_a_subagent_is_a_run_too() {
    let p = project("mid");
    let sessions = p.home.join(".claude/projects/-tmp-proj");
    let name = "rapport_hebdo";
    let mut main = Tx::new();
    main.prompt("Délègue le rapport à un agent.");
    main.response(
        "p0",
        None,
        usage(5, 1_000, 30),
        &[Tx::tool(
            "p0",
            "Agent",
            json!({"subagent_type":"general-purpose","prompt":"x"}),
        )],
    );
    main.tool_result("p0", "fait", None);
    main.response("p1", None, usage(5, 2_000, 20), &[Tx::text()]);
    main.write(&sessions.join("s9.jsonl"));
    let mut sub = Tx::new();
    sub.t = 2;
    sub.prompt("Fais le rapport hebdomadaire.");
    sub.response(
        "q0",
        None,
        usage(1, 500, 10),
        &[Tx::tool("q0", "Skill", json!({"skill": name}))],
    );
    sub.tool_result(
        "q0",
        &format!("Launching skill: {name}"),
        Some(json!({"success":true,"commandName":name})),
    );
    sub.skill_body("q0", name);
    sub.response(
        "q1",
        Some(name),
        usage(2, 600, 700),
        &[
            Tx::text(),
            Tx::tool("q1", "Write", json!({"file_path":"/p/r.md","content":"x"})),
        ],
    );
    sub.response("q2", Some(name), usage(3, 700, 50), &[Tx::text()]);
    sub.write(&sessions.join("s9/subagents/agent-a9.jsonl"));
    let expected = tokens(2, 600, 700) + tokens(3, 700, 50);
    let out = ok(&p, &["skill", name]);
    assert!(
        out.contains(&format!("measured: 1 run, {expected} tokens in all")),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&ok(&p, &["skill", name, "--json"])).unwrap();
    assert_eq!(v["measured"]["tokens_total"], json!(expected));
    assert_eq!(v["measured"]["runs"][0]["via"], json!("tool"));
    assert_eq!(v["measured"]["runs"][0]["responses"], json!(2));
    assert_eq!(v["level_of_proof"], json!("measured"));
    assert_eq!(
        v["report"],
        json!("docs/audits/token/token_audit_rapport_hebdo.md")
    );
}

#[test]
fn a_response_split_across_two_audits_counts_once_with_its_final_usage() {
    let p = project("mid");
    let sessions = p.home.join(".claude/projects/-tmp-proj");
    let name = "rapport_hebdo";
    let mut tx = Tx::new();
    tx.prompt("Go");
    tx.slash(name);
    // The client has written the first block of the response (placeholder
    // output count) when the first audit runs.
    tx.response(
        "e1",
        Some(name),
        usage(2, 9_000, 400),
        &[Tx::text(), Tx::tool("e1", "Bash", json!({"command":"ls"}))],
    );
    let last = tx.lines.pop().unwrap();
    let main = sessions.join("s5.jsonl");
    tx.write(&main);
    let out = ok(&p, &["skill", name]);
    assert!(
        out.contains(&format!(
            "measured: 1 run, {} tokens in all",
            tokens(2, 9_000, 1)
        )),
        "{out}"
    );
    // Then the rest of the response arrives, repeating the final usage.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&main)
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{last}\n").as_bytes()).unwrap();
    drop(f);
    let out = ok(&p, &["skill", name]);
    assert!(
        out.contains(&format!(
            "measured: 1 run, {} tokens in all",
            tokens(2, 9_000, 400)
        )),
        "{out}"
    );
}

#[test]
fn mechanical_generation_is_delegated_to_a_script() {
    let p = project("trivial");
    let dir = p.root.join(".claude/skills/export");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: export\ndescription: Exporte les sections.\n---\n\n## Étape 1 — Lire le document\n\nLire `doc.md` avec Read.\n\n## Étape 2 — Copier et trier les sections\n\nÉcrire dans le fichier de sortie une copie verbatim des sections, triées par date (~6 000 tokens).\n",
    )
    .unwrap();
    std::fs::write(p.root.join("doc.md"), "Une phrase de prose.\n".repeat(200)).unwrap();
    let out = ok(&p, &["skill", "export", "--no-measured", "--lang", "en"]);
    assert!(out.contains("optimisation: script:2b ("), "{out}");
    let rep = report(&p, "export");
    assert!(
        rep.contains("### 1. Delegate to a script (step 2b) — Estimated gain: "),
        "{rep}"
    );
    // 6 000 output tokens, 90 % saved, × 5.
    assert!(rep.contains("(27\u{202f}000 units)"), "{rep}");
}
