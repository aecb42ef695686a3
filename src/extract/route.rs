//! Paths and projects: how a digest path is shown and which project it
//! belongs to (SPEC §1.7), plus the few facts read back from today's log.

use std::path::Path;

/// `path` as bullets show it: relative to the project root when it lies
/// under it, else unchanged (minus a leading `./`).
pub(crate) fn display_path(root: &Path, path: &str) -> String {
    let path = path.trim();
    let p = Path::new(path);
    if p.is_absolute() && !root.as_os_str().is_empty() {
        if let Ok(rel) = p.strip_prefix(root) {
            let rel = rel.to_string_lossy();
            return if rel.is_empty() {
                ".".to_string()
            } else {
                rel.into_owned()
            };
        }
        return path.to_string();
    }
    let mut rel = path;
    while let Some(rest) = rel.strip_prefix("./") {
        rel = rest;
    }
    rel.to_string()
}

/// The project a file belongs to: the known project whose folder holds it
/// (the deepest one wins), else the turn's default project.
pub(crate) fn project_of<'p>(
    projects: &'p [(String, String)],
    root: &Path,
    path: &str,
    default: &'p str,
) -> &'p str {
    let rel = display_path(root, path);
    if Path::new(&rel).is_absolute() {
        return default;
    }
    projects
        .iter()
        .filter(|(_, folder)| {
            let folder = folder.trim_matches('/');
            !folder.is_empty()
                && rel
                    .strip_prefix(folder)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
        .max_by_key(|(_, folder)| folder.len())
        .map(|(name, _)| name.as_str())
        .unwrap_or(default)
}

/// The default project if it is known, else the first known project: an
/// update naming an unknown project would be dropped.
pub(crate) fn known_default<'p>(projects: &'p [(String, String)], default: &'p str) -> &'p str {
    if projects.is_empty() || projects.iter().any(|(name, _)| name == default) {
        default
    } else {
        &projects[0].0
    }
}

/// Section keys a heading of the daily log stands for, in either language.
fn heading_key(line: &str) -> Option<&'static str> {
    let title = line.strip_prefix("## ")?.trim().to_lowercase();
    Some(match title.as_str() {
        "contexte" | "context" => "contexte",
        "objectif" | "goal" => "objectif",
        "problèmes rencontrés" | "problems" => "problemes",
        "connaissances acquises" | "knowledge" => "connaissances",
        "travail produit" | "work done" => "travail",
        "décisions prises" | "decisions" => "decisions",
        "à suivre" | "to do" => "a_suivre",
        "finalisé" | "done" => "finalise",
        _ => "other",
    })
}

/// The bullets (without `- `) of one section of a daily log.
pub(crate) fn log_bullets(log: &str, key: &str) -> Vec<String> {
    let mut current = None;
    let mut out = Vec::new();
    for line in log.lines() {
        if line.starts_with("## ") {
            current = heading_key(line);
        } else if line.starts_with("# ") {
            current = None;
        } else if current == Some(key)
            && let Some(b) = line.trim().strip_prefix("- ")
            && !b.trim().is_empty()
        {
            out.push(b.trim().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn projects() -> Vec<(String, String)> {
        vec![
            ("root".into(), "".into()),
            ("api".into(), "projects/api".into()),
            ("api_v2".into(), "projects/api/v2".into()),
            ("web".into(), "projects/web".into()),
        ]
    }

    #[test]
    fn paths_are_shown_relative_to_the_root() {
        let root = Path::new("/home/me/repo");
        assert_eq!(
            display_path(root, "/home/me/repo/src/main.rs"),
            "src/main.rs"
        );
        assert_eq!(display_path(root, "/home/me/repo/"), ".");
        assert_eq!(display_path(root, "./src/lib.rs"), "src/lib.rs");
        assert_eq!(display_path(root, "/etc/hosts"), "/etc/hosts");
        assert_eq!(
            display_path(root, "/home/me/repository/x"),
            "/home/me/repository/x"
        );
        assert_eq!(display_path(Path::new(""), "/a/b"), "/a/b");
    }

    #[test]
    fn files_route_to_the_deepest_known_project() {
        let p = projects();
        let root = Path::new("/r");
        assert_eq!(
            project_of(&p, root, "/r/projects/api/src/x.rs", "root"),
            "api"
        );
        assert_eq!(
            project_of(&p, root, "projects/api/v2/y.rs", "root"),
            "api_v2"
        );
        assert_eq!(project_of(&p, root, "projects/web", "root"), "web");
        assert_eq!(project_of(&p, root, "projects/apix/z.rs", "root"), "root");
        assert_eq!(project_of(&p, root, "projects/unknown/z.rs", "web"), "web");
        assert_eq!(
            project_of(&p, root, "/elsewhere/projects/api/x", "root"),
            "root"
        );
        assert_eq!(project_of(&p, root, "src/main.rs", "api"), "api");
    }

    #[test]
    fn unknown_default_falls_back_to_the_first_project() {
        let p = projects();
        assert_eq!(known_default(&p, "web"), "web");
        assert_eq!(known_default(&p, "ghost"), "root");
        assert_eq!(known_default(&[], "ghost"), "ghost");
    }

    #[test]
    fn log_bullets_reads_either_language() {
        let fr = "# Log session — 2026-03-21\n\n## Contexte\n- Refonte\n\n## À suivre\n- Écrire les tests\n-   \n- Relire la doc\n\n## Finalisé\n- ✅ Fait\n";
        assert_eq!(
            log_bullets(fr, "a_suivre"),
            ["Écrire les tests", "Relire la doc"]
        );
        let en = "# Session log — 2026-03-21\n\n## To do\n- Ship it\n## Done\n- ✅ Old\n";
        assert_eq!(log_bullets(en, "a_suivre"), ["Ship it"]);
        assert_eq!(log_bullets(en, "finalise"), ["✅ Old"]);
    }
}
