//! The memory merge driver with real git: `cairn install` registers it, and
//! `git merge` of two people's memory goes through it.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

const LOG: &str = "memory_sessions/logs/2026-11-30.md";
const LONG: &str = "memory_sessions/long_memory.md";

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        let home = dir.path().join("home");
        let state = dir.path().join("state");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&home).unwrap();
        let repo = Repo {
            _dir: dir,
            root,
            home,
            state,
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn env(&self, c: &mut std::process::Command) {
        common::clear_env(c, &self.home, &self.state);
        c.env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .current_dir(&self.root);
    }

    fn git_output(&self, args: &[&str]) -> std::process::Output {
        let mut c = std::process::Command::new("git");
        self.env(&mut c);
        c.args(args).output().unwrap()
    }

    fn git(&self, args: &[&str]) -> String {
        let o = self.git_output(args);
        assert!(
            o.status.success(),
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }

    fn cairn(&self, args: &[&str]) -> std::process::Output {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("cairn"));
        common::clear_env(&mut c, &self.home, &self.state);
        c.env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(&self.root)
            .args(args)
            .output()
            .unwrap()
    }

    fn install(&self) -> String {
        let o = self.cairn(&["install"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root.join(rel)).unwrap()
    }

    fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Bullets of one `## ` section.
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("- "))
        .collect()
}

const BASE_LOG: &str = "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.

## Travail produit
- Parser des logs écrit.

## À suivre
- Écrire le driver de merge.
- Relire la doc.
";

#[test]
fn two_branches_logs_merge_without_markers_and_the_done_todo_is_finalised() {
    let r = Repo::new();
    r.install();
    r.write(LOG, BASE_LOG);
    r.commit_all("base");

    r.git(&["checkout", "-q", "-b", "alice"]);
    r.write(
        LOG,
        "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.
- Alice reprend le driver.

## Travail produit
- Parser des logs écrit.
- Driver de merge écrit.

## À suivre
- Relire la doc.
- Ajouter un benchmark.

## Finalisé
- ✅ Écrire le driver de merge.
",
    );
    // A sub-project's log created on this branch only, and the same day's
    // log of another sub-project created on both.
    r.write(
        "projects/api/memory_sessions/logs/2026-11-30.md",
        "# Log session — 2026-11-30\n\n## Contexte\n- API: Alice.\n",
    );
    r.commit_all("alice");

    r.git(&["checkout", "-q", "main"]);
    r.write(
        LOG,
        "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.

## Travail produit
- Parser des logs écrit.
- Doc du format relue par Bob.

## Décisions prises
- Garder divan pour les benchmarks.

## À suivre
- Écrire le driver de merge.
- Relire la doc.
- Publier la 0.2.
",
    );
    r.write(
        "projects/api/memory_sessions/logs/2026-11-30.md",
        "# Log session — 2026-11-30\n\n## Contexte\n- API: Bob.\n\n## À suivre\n- Versionner l'API.\n",
    );
    r.commit_all("bob");

    let o = r.git_output(&["merge", "--no-edit", "alice"]);
    assert!(
        o.status.success(),
        "merge failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let merged = r.read(LOG);
    assert!(
        !merged.contains("<<<<<<<") && !merged.contains(">>>>>>>"),
        "{merged}"
    );
    assert_eq!(
        merged,
        "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.
- Alice reprend le driver.

## Travail produit
- Parser des logs écrit.
- Doc du format relue par Bob.
- Driver de merge écrit.

## Décisions prises
- Garder divan pour les benchmarks.

## À suivre
- Relire la doc.
- Publier la 0.2.
- Ajouter un benchmark.

## Finalisé
- ✅ Écrire le driver de merge.
"
    );
    for bullet in [
        "Projet cairn, branche main.",
        "Alice reprend le driver.",
        "Parser des logs écrit.",
        "Doc du format relue par Bob.",
        "Driver de merge écrit.",
        "Garder divan pour les benchmarks.",
        "Relire la doc.",
        "Publier la 0.2.",
        "Ajouter un benchmark.",
        "Écrire le driver de merge.",
    ] {
        assert_eq!(count(&merged, bullet), 1, "{bullet} in\n{merged}");
    }
    assert_eq!(
        section(&merged, "## Finalisé"),
        ["- ✅ Écrire le driver de merge."]
    );
    let api = r.read("projects/api/memory_sessions/logs/2026-11-30.md");
    assert_eq!(
        api,
        "# Log session — 2026-11-30\n\n## Contexte\n- API: Bob.\n- API: Alice.\n\n## À suivre\n- Versionner l'API.\n"
    );
    assert_eq!(r.git(&["status", "--porcelain"]), "");
}

#[test]
fn long_memory_merges_the_same_way() {
    let r = Repo::new();
    r.install();
    let base =
        "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise jiff pour les dates.\n";
    r.write(LONG, base);
    r.commit_all("base");
    r.git(&["checkout", "-q", "-b", "alice"]);
    r.write(
        LONG,
        &format!("{base}\n## 2026-11-30\n\nLe driver de merge passe par git config.\n"),
    );
    r.commit_all("alice");
    r.git(&["checkout", "-q", "main"]);
    r.write(
        LONG,
        &format!(
            "{base}\n## 2026-11-30\n\nLes benchmarks utilisent divan.\n\n## Promotion 2026-11-30\n- Licence MIT.\n"
        ),
    );
    r.commit_all("bob");
    let o = r.git_output(&["merge", "--no-edit", "alice"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(
        r.read(LONG),
        "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise jiff pour les dates.\n\n## 2026-11-30\n\nLes benchmarks utilisent divan.\n\nLe driver de merge passe par git config.\n\n## Promotion 2026-11-30\n- Licence MIT.\n"
    );
}

#[test]
fn a_heading_edited_on_both_sides_falls_back_to_conflict_markers() {
    let r = Repo::new();
    r.install();
    r.write(LOG, BASE_LOG);
    r.commit_all("base");
    r.git(&["checkout", "-q", "-b", "alice"]);
    r.write(
        LOG,
        &BASE_LOG.replace("## Travail produit", "## Travail produit (Alice)"),
    );
    r.commit_all("alice");
    r.git(&["checkout", "-q", "main"]);
    r.write(
        LOG,
        &BASE_LOG.replace("## Travail produit", "## Travail fait par Bob"),
    );
    r.commit_all("bob");
    let o = r.git_output(&["merge", "--no-edit", "alice"]);
    assert!(!o.status.success(), "the merge must stop on the conflict");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stderr.contains("cairn: merge-driver: memory_sessions/logs/2026-11-30.md: the bullet \"parser des logs écrit.\" was moved to different sections on the two sides; left conflict markers"),
        "{stderr}{stdout}"
    );
    let text = r.read(LOG);
    assert_eq!(
        text,
        BASE_LOG.replace(
            "## Travail produit\n",
            "<<<<<<< ours\n## Travail fait par Bob\n=======\n## Travail produit (Alice)\n>>>>>>> theirs\n"
        )
    );
    let unmerged = r.git(&["ls-files", "-u"]);
    assert!(unmerged.contains(LOG), "{unmerged}");
}

#[test]
fn the_driver_writes_the_result_into_ours_and_falls_back_for_non_utf8() {
    let r = Repo::new();
    let (o, a, b) = (r.path("o.md"), r.path("a.md"), r.path("b.md"));
    fs::write(&o, "# T\n\n## Contexte\n- x\n").unwrap();
    fs::write(&a, "# T\n\n## Contexte\n- x\n- a\n").unwrap();
    fs::write(&b, "# T\n\n## Contexte\n- x\n- b\n").unwrap();
    let args = |p: &Path| p.to_string_lossy().into_owned();
    let out = r.cairn(&["merge-driver", &args(&o), &args(&a), &args(&b), "x.md"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        fs::read_to_string(&a).unwrap(),
        "# T\n\n## Contexte\n- x\n- a\n- b\n"
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty());

    fs::write(&a, b"# T\n\n## Contexte\n- \xff\n").unwrap();
    fs::write(&b, "# T\n\n## Contexte\n- y\n").unwrap();
    let out = r.cairn(&["merge-driver", &args(&o), &args(&a), &args(&b), "x.md"]);
    assert_eq!(out.status.code(), Some(1));
    let text = fs::read(&a).unwrap();
    assert_eq!(
        text,
        b"# T\n\n## Contexte\n<<<<<<< ours\n- \xff\n=======\n- y\n>>>>>>> theirs\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("x.md: not UTF-8 text; left conflict markers"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn install_and_uninstall_add_and_remove_exactly_the_registration() {
    let r = Repo::new();
    r.write(".gitattributes", "*.png binary\n");
    let config_before = fs::read(r.path(".git/config")).unwrap();
    let out = r.install();
    assert!(
        out.contains("updated .gitattributes: merge memory files with cairn (cairn-memory)\n"),
        "{out}"
    );
    let exe = assert_cmd::cargo::cargo_bin("cairn")
        .canonicalize()
        .unwrap();
    let driver = format!("{} merge-driver %O %A %B %P", exe.display());
    assert!(
        out.contains(&format!(
            "git config --local merge.cairn-memory.driver \"{driver}\"\n"
        )),
        "{out}"
    );
    assert_eq!(
        r.read(".gitattributes"),
        "*.png binary\n# cairn (added by cairn install)\nmemory_sessions/**/*.md merge=cairn-memory\nprojects/*/memory_sessions/**/*.md merge=cairn-memory\n"
    );
    assert_eq!(
        r.git(&["config", "--local", "--get", "merge.cairn-memory.driver"]),
        format!("{driver}\n")
    );
    assert_eq!(
        r.git(&["config", "--local", "--get", "merge.cairn-memory.name"]),
        "cairn: section-by-section merge of session memory\n"
    );
    assert_eq!(
        r.git(&[
            "check-attr",
            "merge",
            "memory_sessions/logs/2026-11-30.md",
            "projects/api/memory_sessions/long_memory.md",
            "docs/notes.md"
        ]),
        "memory_sessions/logs/2026-11-30.md: merge: cairn-memory\nprojects/api/memory_sessions/long_memory.md: merge: cairn-memory\ndocs/notes.md: merge: unspecified\n"
    );
    assert!(
        r.install()
            .starts_with("cairn is already installed here: nothing to change.\n")
    );

    let dry = r.cairn(&["uninstall", "--dry-run"]);
    let dry = String::from_utf8(dry.stdout).unwrap();
    assert!(
        dry.contains("git config --local --unset merge.cairn-memory.name\ngit config --local --unset merge.cairn-memory.driver\n"),
        "{dry}"
    );
    assert_eq!(
        r.git(&["config", "--local", "--get", "merge.cairn-memory.driver"]),
        format!("{driver}\n"),
        "a dry run changes nothing"
    );

    let o = r.cairn(&["uninstall"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(r.read(".gitattributes"), "*.png binary\n");
    assert_eq!(
        fs::read(r.path(".git/config")).unwrap(),
        config_before,
        "git config byte-identical after uninstall"
    );
}

#[test]
fn outside_a_git_repository_install_says_so_and_writes_no_gitattributes() {
    let r = Repo::new();
    fs::remove_dir_all(r.path(".git")).unwrap();
    let out = r.install();
    assert!(
        out.contains("note: not a git repository: the merge driver for memory files (.gitattributes and git config) is not registered; run `cairn install` again after `git init`.\n"),
        "{out}"
    );
    assert!(!r.path(".gitattributes").exists());
    r.git(&["init", "-q"]);
    let out = r.install();
    assert!(out.contains("created .gitattributes"), "{out}");
}

#[test]
fn doctor_checks_the_registration_in_this_clone() {
    let r = Repo::new();
    r.install();
    let doctor = || {
        let o = r.cairn(&["doctor", "--offline"]);
        String::from_utf8(o.stdout).unwrap()
    };
    let exe = assert_cmd::cargo::cargo_bin("cairn")
        .canonicalize()
        .unwrap();
    let out = doctor();
    assert!(
        out.lines().any(|l| l
            == format!(
                "ok   merge-driver: memory files merge with `{} merge-driver %O %A %B %P`",
                exe.display()
            )),
        "{out}"
    );
    // A fresh clone has the .gitattributes but not the local config.
    r.git(&["config", "--local", "--unset", "merge.cairn-memory.driver"]);
    let out = doctor();
    assert!(
        out.lines().any(|l| l.starts_with(
            "warn merge-driver: .gitattributes names the cairn-memory driver but git config does not define it: git merges memory files line by line; git config is not shared by git: run `cairn install` in this clone"
        )),
        "{out}"
    );
}
