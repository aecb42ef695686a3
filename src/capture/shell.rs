//! What a Bash command line does, as far as memory cares: it changes the
//! world (a commit, a push, an install, a deploy…), runs tests or a build,
//! deletes or moves files, or only looks around.
//!
//! A model's command line is often compound (`cd x && git add -A && git
//! commit -m "…"`), so it is cut into segments, and each segment is read
//! without the wrappers that do not change what it is (`cd`, `source`,
//! `uv run`, `npx`, `VAR=value`, `time`, a subshell's parentheses).

use crate::extract::digest::{ActionKind, CiRun, CiState};

/// One thing a segment does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Action {
        kind: ActionKind,
        detail: String,
    },
    /// Tests (`test: true`) or a build / lint / type check.
    Check {
        test: bool,
    },
    Delete(Vec<String>),
    /// Empty folders removed (`rmdir`).
    RemoveDir(Vec<String>),
    /// Folders made (`mkdir -p a b`): only to tell scratch removed later.
    MakeDir(Vec<String>),
    /// A tracker's issue looked at (`bd show x`, `gh issue view 12`): its
    /// output names it.
    ShowTicket(String),
    /// CI runs looked at (`gh run list`, `gh run view`, `gh run watch`):
    /// the output says how the latest stands.
    WatchCi,
    Move {
        from: String,
        to: String,
    },
}

/// What `command` does, segment by segment, in order.
pub fn effects(command: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    let heredoc_message = heredoc_body(command);
    for segment in segments(command) {
        let words = words(&segment);
        let words = without_workspace_flags(unwrap(&words));
        if words.is_empty() {
            continue;
        }
        if let Some(e) = effect_of(&words, heredoc_message.as_deref()) {
            out.push(e);
        }
    }
    out
}

/// The file a command line sends its output to (`pytest > sweep.log
/// 2>&1`, `cargo test &> out.txt`, `… | tee run.log`): where its result
/// is read from when it ran in the background.
pub fn output_file(line: &str) -> Option<String> {
    let words = words(line);
    let target = |w: &str| {
        let w = w.trim();
        (!w.is_empty() && w != "/dev/null" && !w.starts_with('&') && !w.contains("$("))
            .then(|| w.to_owned())
    };
    let mut it = words.iter().map(String::as_str).peekable();
    while let Some(w) = it.next() {
        match w {
            ">" | ">>" | "1>" | "1>>" | "&>" | "&>>" => return it.next().and_then(target),
            "tee" => {
                while it.peek().is_some_and(|n| n.starts_with('-')) {
                    it.next();
                }
                return it.next().and_then(target);
            }
            _ => {
                let attached = ["&>>", "&>", "1>>", "1>", ">>", ">"]
                    .iter()
                    .find_map(|op| w.strip_prefix(op));
                if let Some(rest) = attached.filter(|r| !r.is_empty()) {
                    return target(rest);
                }
            }
        }
    }
    None
}

/// The first line of a here-document's body (`git commit -m "$(cat <<'EOF'
/// … EOF)"`, the way the client's models write commit messages).
fn heredoc_body(command: &str) -> Option<String> {
    let at = command.find("<<")?;
    let rest = &command[at + 2..];
    let rest = rest.trim_start_matches('-').trim_start();
    let delim: String = rest
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if delim.is_empty() {
        return None;
    }
    let body_start = rest.find('\n')? + 1;
    rest[body_start..]
        .lines()
        .take_while(|l| l.trim() != delim)
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

/// Splits on `&&`, `||`, `;`, `|` and newlines outside quotes; a
/// here-document's body is not split.
fn segments(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    let mut heredoc = false;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            cur.push(c);
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
            }
            '<' if chars.peek() == Some(&'<') => {
                heredoc = true;
                cur.push(c);
            }
            '\n' if heredoc => {
                // The body runs to the end: keep the segment whole.
                cur.push(c);
                cur.extend(chars.by_ref());
            }
            '&' | '|' if chars.peek() == Some(&c) => {
                chars.next();
                out.push(std::mem::take(&mut cur));
            }
            // `\` at a line's end continues the command on the next.
            '\\' if chars.peek() == Some(&'\n') => {
                chars.next();
                cur.push(' ');
            }
            ';' | '|' | '\n' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Shell words, quotes removed (no expansion).
fn words(segment: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in segment.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    // `(cd x && pytest)`: the subshell's closing parenthesis is glued to the
    // last word, which would hide the program when it stands alone.
    if let Some(last) = out.last_mut() {
        while last.ends_with(')') && last.matches(')').count() > last.matches('(').count() {
            last.pop();
        }
        if last.is_empty() {
            out.pop();
        }
    }
    out
}

/// The segment without what wraps the real program.
fn unwrap(words: &[String]) -> &[String] {
    let mut w = words;
    loop {
        let Some(first) = w.first() else { return w };
        let f = first.trim_start_matches('(');
        // `/opt/anaconda3/bin/conda`, `.venv/bin/python`: the program.
        let prog = if f.contains('=') {
            f
        } else {
            f.rsplit('/').next().unwrap_or(f)
        };
        let skip = match prog {
            "" => 1,
            "cd" | "pushd" | "source" | "." => return &[],
            "time" | "nohup" | "exec" | "command" | "sudo" => 1,
            // `env -i HOME="$HOME" PATH=… pytest`: its flags, then the
            // assignments the arm below skips.
            "env" => 1 + crate::extract::flag_words(&w[1..], &["-u", "--unset", "-C", "--chdir"]),
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "pixi"
                if w.get(1).is_some_and(|s| s == "run" || s == "exec") =>
            {
                2
            }
            // `conda run -n flits python -m pytest`.
            "conda" | "mamba" | "micromamba" if w.get(1).is_some_and(|s| s == "run") => {
                2 + crate::extract::flag_words(
                    &w[2..],
                    &["-n", "--name", "-p", "--prefix", "--cwd"],
                )
            }
            "npx" | "bunx" | "pnpx" => 1,
            // rtk, a proxy that trims what commands print for the model.
            "rtk" if w.get(1).is_some_and(|s| s == "proxy" || s == "test") => 2,
            "rtk" => 1,
            "pnpm" | "yarn" | "bun" if w.get(1).is_some_and(|s| s == "exec" || s == "dlx") => 2,
            _ if prog.starts_with("python") && w.get(1).is_some_and(|s| s == "-m") => 2,
            _ if f.contains('=') && !f.starts_with('-') && !f.starts_with('=') => 1,
            _ => 0,
        };
        if skip == 0 {
            return w;
        }
        w = &w[skip.min(w.len())..];
    }
}

/// A JavaScript package manager's words without the flags that pick where
/// it runs (`pnpm --filter @x/crypto test`, `npm --prefix web run build`,
/// `yarn workspace web test`): the subcommand is what it does.
fn without_workspace_flags(w: &[String]) -> Vec<String> {
    let prog = w.first().map(|p| p.rsplit('/').next().unwrap_or(p));
    if !matches!(prog, Some("npm" | "pnpm" | "yarn" | "bun")) {
        return w.to_vec();
    }
    let mut out = vec![w[0].clone()];
    let mut i = 1;
    while i < w.len() {
        let a = w[i].as_str();
        match a {
            "--filter" | "-F" | "--dir" | "-C" | "--prefix" | "--cwd" | "--workspace" | "-w"
                if out.len() == 1 =>
            {
                i += 2;
            }
            "workspace" if out.len() == 1 && prog == Some("yarn") => i += 2,
            "-r" | "--recursive" | "-s" | "--silent" | "--parallel" if out.len() == 1 => i += 1,
            _ if out.len() == 1 && a.starts_with("--") && a.contains('=') => i += 1,
            _ => {
                out.push(w[i].clone());
                i += 1;
            }
        }
    }
    out
}

fn effect_of(w: &[String], heredoc: Option<&str>) -> Option<Effect> {
    // `bun publish --help`, `npm help install`, `cargo test --version`:
    // reading how a command works does nothing.
    if w[1..]
        .iter()
        .any(|a| matches!(a.as_str(), "--help" | "-h" | "--version" | "-V" | "help"))
    {
        return None;
    }
    let prog = w[0]
        .trim_start_matches('(')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let arg = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let rest = || w[1..].iter().map(String::as_str);
    let action = |kind, detail: String| Some(Effect::Action { kind, detail });
    let test = Some(Effect::Check { test: true });
    let build = Some(Effect::Check { test: false });
    match prog {
        "git" => {
            // `git -C dir …`
            let mut i = 1;
            while matches!(arg(i), "-C" | "-c") {
                i += 2;
            }
            let sub = arg(i);
            let args: Vec<&str> = w[(i + 1).min(w.len())..]
                .iter()
                .map(String::as_str)
                .collect();
            match sub {
                "commit" => {
                    let msg = flag_value(&args, &["-m", "--message"])
                        .map(|m| {
                            if m.contains("$(cat") || m.contains("<<") {
                                heredoc.unwrap_or("").to_owned()
                            } else {
                                m.lines().next().unwrap_or("").trim().to_owned()
                            }
                        })
                        // `-F -` reads the message from stdin: the
                        // here-document's.
                        .or_else(|| {
                            (flag_value(&args, &["-F", "--file"]).as_deref() == Some("-"))
                                .then(|| heredoc.unwrap_or("").lines().next().unwrap_or(""))
                                .map(|l| l.trim().to_owned())
                        })
                        .unwrap_or_default();
                    action(ActionKind::Commit, msg)
                }
                "push" => {
                    // A forced push rewrote the remote's history, a
                    // `--delete` removed branches: said.
                    let rewrites = args
                        .iter()
                        .find(|a| {
                            matches!(**a, "-f" | "--force" | "-d" | "--delete")
                                || a.starts_with("--force-with-lease")
                        })
                        .map(|f| format!("{f} "))
                        .unwrap_or_default();
                    action(
                        ActionKind::Push,
                        format!("git push {rewrites}{}", non_flags(&args).join(" "))
                            .trim()
                            .to_owned(),
                    )
                }
                "merge" => action(
                    ActionKind::Merge,
                    non_flags(&without_values(
                        &args,
                        &["-m", "--message", "-X", "--strategy", "-s"],
                    ))
                    .join(" "),
                ),
                // Listing or verifying tags creates none.
                "tag"
                    if !non_flags(&without_values(&args, &["-m", "--message", "-F", "--file"]))
                        .is_empty()
                        && !args.iter().any(|a| {
                            matches!(
                                *a,
                                "-l" | "--list" | "-d" | "--delete" | "-v" | "--verify" | "-n"
                            ) || a.starts_with("--sort")
                                || a.starts_with("--contains")
                                || a.starts_with("--points-at")
                                || a.starts_with("--merged")
                                || a.starts_with("--no-merged")
                                || a.starts_with("--format")
                                || a.starts_with("-n")
                        }) =>
                {
                    action(
                        ActionKind::Tag,
                        non_flags(&args).first().copied().unwrap_or("").to_owned(),
                    )
                }
                "rm" => Some(Effect::Delete(
                    non_flags(&args).iter().map(|s| s.to_string()).collect(),
                )),
                "mv" => {
                    let p = non_flags(&args);
                    (p.len() == 2).then(|| Effect::Move {
                        from: p[0].to_owned(),
                        to: p[1].to_owned(),
                    })
                }
                _ => None,
            }
        }
        // An empty folder is nothing git keeps: removing one changes no
        // file, but gets past a deletion that failed.
        "rmdir" => {
            let paths: Vec<String> = non_flags(&rest().collect::<Vec<_>>())
                .iter()
                .filter(|p| !p.contains('$') && !p.contains('`'))
                .map(|s| s.to_string())
                .collect();
            (!paths.is_empty()).then_some(Effect::RemoveDir(paths))
        }
        "rm" => {
            // `rm -rf "$SMOKE_DIR"`, a line continued with `\`: no path
            // the log could name.
            let paths: Vec<String> = non_flags(&rest().collect::<Vec<_>>())
                .iter()
                .filter(|p| !p.contains('$') && !p.contains('`') && **p != "\\")
                .map(|s| s.to_string())
                .collect();
            (!paths.is_empty()).then_some(Effect::Delete(paths))
        }
        "mkdir" => {
            let args: Vec<&str> = rest().collect();
            let paths: Vec<String> = non_flags(&without_values(&args, &["-m", "--mode"]))
                .iter()
                .map(|s| s.to_string())
                .collect();
            (!paths.is_empty()).then_some(Effect::MakeDir(paths))
        }
        "mv" => {
            let p = non_flags(&rest().collect::<Vec<_>>());
            (p.len() == 2).then(|| Effect::Move {
                from: p[0].to_owned(),
                to: p[1].to_owned(),
            })
        }
        // beads (`bd`), the issue tracker a model drives from the shell:
        // its title is the first word that is no flag's value.
        "bd" => {
            let args: Vec<&str> = rest().skip(1).collect();
            match arg(1) {
                "create" | "new" => {
                    let title = flag_value(&args, &["--title"]).or_else(|| {
                        non_flags(&without_values(&args, BD_VALUE_FLAGS))
                            .first()
                            .map(|t| t.to_string())
                    });
                    action(ActionKind::TicketOpened, title.unwrap_or_default())
                }
                "update" if flag_value(&args, &["--status", "-s"]).as_deref() == Some("closed") => {
                    let ids = non_flags(&without_values(&args, BD_VALUE_FLAGS));
                    let ids: Vec<&str> = ids.into_iter().filter(|i| *i != "closed").collect();
                    (!ids.is_empty()).then(|| Effect::Action {
                        kind: ActionKind::TicketClosed,
                        detail: ids.join(" "),
                    })
                }
                "show" => {
                    let ids = non_flags(&args);
                    (ids.len() == 1).then(|| Effect::ShowTicket(ids[0].to_owned()))
                }
                "close" => {
                    let ids = non_flags(&without_values(&args, &["--reason", "-r"]));
                    (!ids.is_empty()).then(|| Effect::Action {
                        kind: ActionKind::TicketClosed,
                        detail: ids.join(" "),
                    })
                }
                _ => None,
            }
        }
        "gh" | "glab" if arg(1) == "issue" && matches!(arg(2), "create" | "new") => action(
            ActionKind::TicketOpened,
            flag_value(&rest().collect::<Vec<_>>(), &["--title", "-t"]).unwrap_or_default(),
        ),
        "gh" | "glab" if arg(1) == "issue" && arg(2) == "view" => {
            let args: Vec<&str> = rest().skip(2).collect();
            let ids = non_flags(&without_values(
                &args,
                &["--repo", "-R", "--json", "-q", "--jq"],
            ));
            (ids.len() == 1 && ids[0].chars().all(|c| c.is_ascii_digit()))
                .then(|| Effect::ShowTicket(format!("#{}", ids[0])))
        }
        // `gh issue comment 12 --body …`, `gh pr comment`, `glab mr note`.
        "gh" | "glab"
            if matches!(arg(1), "issue" | "pr" | "mr") && matches!(arg(2), "comment" | "note") =>
        {
            let args: Vec<&str> = rest().skip(2).collect();
            let target = non_flags(&without_values(
                &args,
                &[
                    "--body",
                    "-b",
                    "--body-file",
                    "-F",
                    "--repo",
                    "-R",
                    "--message",
                    "-m",
                ],
            ))
            .first()
            .map(|t| {
                if t.chars().all(|c| c.is_ascii_digit()) {
                    format!("#{t}")
                } else {
                    t.to_string()
                }
            })
            .unwrap_or_default();
            action(ActionKind::Commented, target)
        }
        "gh" | "glab" if arg(1) == "issue" && arg(2) == "close" => {
            let args: Vec<&str> = rest().skip(2).collect();
            let ids = non_flags(&without_values(
                &args,
                &["--comment", "-c", "--reason", "-r"],
            ));
            (!ids.is_empty()).then(|| Effect::Action {
                kind: ActionKind::TicketClosed,
                detail: ids
                    .iter()
                    .map(|i| {
                        if i.chars().all(|c| c.is_ascii_digit()) {
                            format!("#{i}")
                        } else {
                            i.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            })
        }
        "gh" if arg(1) == "run" && matches!(arg(2), "list" | "ls" | "view" | "watch") => {
            // `--log` prints the steps' output, not the run's state.
            (!rest().any(|a| a.starts_with("--log") || a == "--json" || a.starts_with("--json=")))
                .then_some(Effect::WatchCi)
        }
        "gh" => match (arg(1), arg(2)) {
            ("release", "create") => action(ActionKind::Release, arg(3).to_owned()),
            ("pr", "merge") => action(ActionKind::Merge, format!("PR {}", arg(3))),
            ("pr", "create") => action(
                ActionKind::Push,
                flag_value(&rest().collect::<Vec<_>>(), &["--title", "-t"])
                    .map(|t| format!("PR: {t}"))
                    .unwrap_or_else(|| "PR".into()),
            ),
            _ => None,
        },
        "npm" | "pnpm" | "yarn" | "bun" => match arg(1) {
            "publish" => action(ActionKind::Release, String::new()),
            "install" | "i" | "add" if w.len() > 2 => action(
                ActionKind::Install,
                non_flags(&rest().skip(1).collect::<Vec<_>>()).join(" "),
            ),
            "test" | "t" => test,
            "run" => match arg(2) {
                s if s.starts_with("test") => test,
                s if s.starts_with("build") || s == "lint" || s == "typecheck" || s == "check" => {
                    build
                }
                s if s.starts_with("deploy") => action(ActionKind::Deploy, s.to_owned()),
                s if s.starts_with("migrate") || s.contains("migrat") => {
                    action(ActionKind::Migration, s.to_owned())
                }
                _ => None,
            },
            "build" | "lint" => build,
            _ => None,
        },
        "cargo" => match arg(1) {
            "test" | "nextest" => test,
            "build" | "check" | "clippy" => build,
            "publish" => action(ActionKind::Release, String::new()),
            "add" | "install" => action(
                ActionKind::Install,
                non_flags(&rest().skip(1).collect::<Vec<_>>()).join(" "),
            ),
            _ => None,
        },
        "pip" | "pip3" if arg(1) == "install" => action(
            ActionKind::Install,
            non_flags(&rest().skip(1).collect::<Vec<_>>()).join(" "),
        ),
        "uv" | "poetry" | "pdm" if arg(1) == "add" => action(
            ActionKind::Install,
            non_flags(&rest().skip(1).collect::<Vec<_>>()).join(" "),
        ),
        "uv" if arg(1) == "tool" && arg(2) == "install" => action(
            ActionKind::Install,
            non_flags(&rest().skip(2).collect::<Vec<_>>()).join(" "),
        ),
        "brew" | "apt" | "apt-get" if arg(1) == "install" => action(
            ActionKind::Install,
            non_flags(&rest().skip(1).collect::<Vec<_>>()).join(" "),
        ),
        "pytest" | "jest" | "vitest" | "mocha" | "rspec" | "phpunit" | "tox" | "nox" | "ctest"
        | "playwright" => test,
        // GitHub Actions run locally.
        "act" if !matches!(arg(1), "-l" | "--list") => build,
        "go" | "dotnet" | "mix" | "swift" | "deno" if arg(1) == "test" => test,
        "go" | "dotnet" | "swift" | "deno" if arg(1) == "build" => build,
        "make" | "just" => match arg(1) {
            s if s.contains("test") || s == "check" => test,
            s if s.contains("deploy") => action(ActionKind::Deploy, s.to_owned()),
            "" | "all" | "build" | "lint" => build,
            _ => None,
        },
        // Task runners: `mise run test:ci`, `task lint`.
        "mise" | "task" => {
            let name = if prog == "mise" && matches!(arg(1), "run" | "r") {
                arg(2)
            } else {
                arg(1)
            };
            match name {
                s if s.starts_with("test") => test,
                s if s.starts_with("deploy") => action(ActionKind::Deploy, s.to_owned()),
                s if s.starts_with("build") || s.starts_with("lint") || s == "check" => build,
                _ => None,
            }
        }
        "tsc" | "mypy" | "pyright" | "ruff" | "eslint" | "ty" | "flake8" | "pylint" | "clippy"
        | "rubocop" | "golangci-lint" => {
            // `ruff format` rewrites files; the check is what tells.
            (!matches!(arg(1), "format" | "--fix")).then_some(Effect::Check { test: false })
        }
        "alembic" if arg(1) == "upgrade" || arg(1) == "downgrade" => action(
            ActionKind::Migration,
            format!("alembic {}", rest().collect::<Vec<_>>().join(" ")),
        ),
        "prisma" | "drizzle-kit" if arg(1) == "migrate" || arg(1) == "push" => {
            action(ActionKind::Migration, rest().collect::<Vec<_>>().join(" "))
        }
        "rails" | "rake" | "bin/rails" if arg(1).starts_with("db:") => {
            action(ActionKind::Migration, arg(1).to_owned())
        }
        "vercel" | "netlify" | "wrangler" | "flyctl" | "fly" | "firebase" | "heroku" => {
            let deploying = prog == "vercel" && arg(1).is_empty()
                || rest().any(|a| a == "deploy" || a == "--prod" || a == "publish");
            deploying.then(|| Effect::Action {
                kind: ActionKind::Deploy,
                detail: prog.to_owned(),
            })
        }
        "kubectl" | "helm" if matches!(arg(1), "apply" | "upgrade" | "install") => {
            action(ActionKind::Deploy, format!("{prog} {}", arg(1)))
        }
        "terraform" | "tofu" | "pulumi" if matches!(arg(1), "apply" | "up") => {
            action(ActionKind::Deploy, format!("{prog} {}", arg(1)))
        }
        "docker" if arg(1) == "push" => {
            action(ActionKind::Deploy, format!("docker push {}", arg(2)))
        }
        _ if prog.ends_with("manage.py") && arg(1) == "migrate" => {
            action(ActionKind::Migration, "manage.py migrate".into())
        }
        _ if prog.ends_with("manage.py") && arg(1) == "test" => test,
        "ssh" => remote(&w[1..]),
        _ => None,
    }
}

/// The file effects (deletions, moves) of the steps of a failed `a && b
/// && c` that ran before the failing one: the last step the output names
/// by one of its paths, as a whole word. Nothing when the line is anything
/// but a plain `&&` chain, or no step is named: better none than a guess.
pub fn effects_before_failure(command: &str, output: &str) -> Vec<Effect> {
    if command.contains('\n')
        || command.contains("||")
        || command.contains(';')
        || command.contains('|')
        || command.contains("<<")
    {
        return Vec::new();
    }
    let segs = segments(command);
    if segs.len() < 2 {
        return Vec::new();
    }
    let named = |seg: &str| {
        let w = words(seg);
        let w = unwrap(&w);
        w.iter().skip(1).any(|a| {
            !a.starts_with('-') && (a.contains('/') || a.contains('.')) && names_whole(output, a)
        })
    };
    // The first step named: with `&&`, a later one never ran, and naming
    // the same path is a coincidence.
    let Some(failing) = segs.iter().position(|s| named(s)) else {
        return Vec::new();
    };
    segs[..failing]
        .iter()
        .filter_map(|seg| {
            let w = words(seg);
            let w = without_workspace_flags(unwrap(&w));
            if w.is_empty() {
                return None;
            }
            effect_of(&w, None)
        })
        .filter(|e| matches!(e, Effect::Delete(_) | Effect::Move { .. }))
        .collect()
}

/// `text` holds `word` bounded by what cannot be part of a path.
fn names_whole(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
    text.match_indices(word).any(|(at, _)| {
        let rest = &text[at + word.len()..];
        let ends = match rest.chars().next() {
            None => true,
            // The end of a sentence, not of `a.wxs`'s stem.
            Some('.') => !rest[1..].starts_with(char::is_alphanumeric),
            Some(c) => !part(c),
        };
        ends && !text[..at].chars().next_back().is_some_and(part)
    })
}

/// `ssh host "…"` that changes the host: the files it writes there and the
/// services it restarts, said as `host: what, what`. A server fixed by hand
/// leaves no trace in the repository; this is the one the session keeps.
/// What only looks (`cat`, `nginx -T`, `journalctl`) is nothing.
fn remote(args: &[String]) -> Option<Effect> {
    // ssh's options that take a value (`-i key`, `-o Opt=x`, `-p 22`).
    const VALUED: &[&str] = &[
        "-i", "-o", "-p", "-l", "-F", "-J", "-L", "-R", "-D", "-c", "-m", "-b", "-E", "-S", "-W",
        "-w", "-O", "-Q", "-e", "-B", "-I",
    ];
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if VALUED.contains(&args[i].as_str()) {
            2
        } else {
            1
        };
    }
    let host = args.get(i)?;
    // A redirection outside the quotes is this machine's, not the host's.
    let command = args[i + 1..]
        .iter()
        .take_while(|a| {
            !a.trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('>')
        })
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    let mut changes: Vec<String> = Vec::new();
    for segment in segments(&command) {
        let words = words(&segment);
        let mut w = unwrap(&words);
        // `sudo -u app git …`: sudo's own flags, then the program.
        if words.first().is_some_and(|f| f == "sudo") {
            while let Some(f) = w.first().filter(|f| f.starts_with('-')) {
                let valued = matches!(f.as_str(), "-u" | "-g" | "-C" | "-D" | "-h" | "-p");
                w = &w[(if valued { 2 } else { 1 }).min(w.len())..];
            }
        }
        for c in remote_changes(w) {
            if !changes.contains(&c) {
                changes.push(c);
            }
        }
    }
    (!changes.is_empty()).then(|| Effect::Action {
        kind: ActionKind::Remote,
        detail: format!("{host}: {}", changes.join(", ")),
    })
}

/// What one command run on another host changes there.
fn remote_changes(w: &[String]) -> Vec<String> {
    let Some(prog) = w.first().map(|p| p.rsplit('/').next().unwrap_or(p)) else {
        return Vec::new();
    };
    let arg = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    let mut out = Vec::new();
    // `cat > /etc/x << 'EOF'`, `echo … >> file`: a file written. The
    // here-document's body is in the last word; a target is one word.
    for (k, a) in args.iter().enumerate() {
        let target = match *a {
            ">" | ">>" => args.get(k + 1).copied(),
            _ if a.starts_with('>') && !a.starts_with(">&") => Some(a.trim_start_matches('>')),
            _ => None,
        };
        if let Some(t) = target.filter(|t| is_remote_path(t)) {
            out.push(format!("> {t}"));
        }
    }
    match prog {
        "tee" => out.extend(
            non_flags(&args)
                .into_iter()
                .filter(|t| is_remote_path(t))
                .map(|t| format!("> {t}")),
        ),
        "sed" if args.iter().any(|a| a.starts_with("-i")) => {
            if let Some(t) = non_flags(&args).last().filter(|t| is_remote_path(t)) {
                out.push(format!("sed -i {t}"));
            }
        }
        "rm" | "mv" | "cp" | "ln" | "chmod" | "chown" | "mkdir" => {
            let paths = non_flags(&args);
            if !paths.is_empty() {
                out.push(format!("{prog} {}", paths.join(" ")));
            }
        }
        "systemctl"
            if matches!(
                arg(1),
                "start" | "stop" | "restart" | "reload" | "enable" | "disable" | "daemon-reload"
            ) =>
        {
            out.push(format!("systemctl {}", non_flags(&args).join(" ")));
        }
        "service" if matches!(arg(2), "start" | "stop" | "restart" | "reload") => {
            out.push(format!("service {} {}", arg(1), arg(2)));
        }
        "nginx" | "apachectl" if arg(1) == "-s" || arg(1) == "graceful" => {
            out.push(format!("{prog} {}", args.join(" ")));
        }
        "docker" | "docker-compose" | "podman" => {
            let sub: Vec<&str> = non_flags(&args);
            let verb = if matches!(sub.first(), Some(&"compose")) {
                sub.get(1)
            } else {
                sub.first()
            };
            if matches!(
                verb,
                Some(&("up" | "down" | "restart" | "start" | "stop" | "pull" | "rm" | "run"))
            ) {
                out.push(format!("{prog} {}", sub.join(" ")));
            }
        }
        "pm2" | "supervisorctl" if matches!(arg(1), "start" | "stop" | "restart" | "reload") => {
            out.push(format!("{prog} {}", args.join(" ")));
        }
        "git" => {
            // `git -C /srv pull`: the folder first.
            let mut i = 1;
            while matches!(arg(i), "-C" | "-c") {
                i += 2;
            }
            if matches!(arg(i), "pull" | "checkout" | "reset" | "switch") {
                out.push(format!("git {}", args.join(" ")));
            }
        }
        "apt" | "apt-get" | "yum" | "dnf" | "pip" | "pip3" | "npm"
            if matches!(arg(1), "install" | "remove" | "upgrade") =>
        {
            out.push(format!("{prog} {}", non_flags(&args).join(" ")));
        }
        _ => {}
    }
    out.into_iter().map(|c| c.trim().to_owned()).collect()
}

/// A file on the other host worth naming: not `/dev/null` nor a stream.
fn is_remote_path(t: &str) -> bool {
    !t.is_empty() && !t.starts_with("/dev/") && !t.starts_with('&') && !t.contains("<<")
}

/// How the latest CI run `gh run list`, `view` or `watch` printed stands.
/// `list` prints tab-separated rows, newest first (status, conclusion,
/// title, workflow, branch, event, id, …); `view` and `watch` a header
/// (`X main CI owner/repo#29 · 22136893405`, redrawn by `watch`: the last
/// one is the state) then the jobs and their steps (`  X Test`).
pub fn ci_run(output: &str) -> Option<CiRun> {
    if let Some(row) = output.lines().find(|l| l.matches('\t').count() >= 6) {
        let f: Vec<&str> = row.split('\t').map(str::trim).collect();
        let state = match (f[0], f[1]) {
            ("queued" | "waiting" | "pending" | "requested", _) => CiState::Queued,
            ("in_progress", _) => CiState::Running,
            ("completed", "success") => CiState::Passed,
            ("completed", "failure" | "timed_out" | "startup_failure") => CiState::Failed,
            ("completed", "cancelled") => CiState::Cancelled,
            _ => return None,
        };
        let id = f[6];
        if f[3].is_empty() || id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        return Some(CiRun {
            workflow: f[3].to_owned(),
            id: id.to_owned(),
            branch: f[4].to_owned(),
            state,
            failed_steps: Vec::new(),
        });
    }
    let lines: Vec<&str> = output.lines().collect();
    let (at, state, words, id) = lines.iter().enumerate().rev().find_map(|(i, l)| {
        let (head, id) = l.trim_end().rsplit_once(" · ")?;
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (sym, rest) = head.split_once(' ')?;
        let state = match sym {
            "✓" => CiState::Passed,
            "X" => CiState::Failed,
            "*" => CiState::Running,
            "-" => CiState::Cancelled,
            _ => return None,
        };
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        // `owner/repo#29`: the pull request the run is for.
        if words.len() > 2 && words.last().is_some_and(|w| w.contains('#')) {
            words.pop();
        }
        (words.len() >= 2).then_some((i, state, words, id))
    })?;
    let failed_steps = if state == CiState::Failed {
        lines[at + 1..]
            .iter()
            .take_while(|l| !l.starts_with("ANNOTATIONS"))
            .filter_map(|l| l.strip_prefix("  X "))
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .take(3)
            .collect()
    } else {
        Vec::new()
    };
    Some(CiRun {
        workflow: words[1..].join(" "),
        id: id.to_owned(),
        branch: words[0].to_owned(),
        state,
        failed_steps,
    })
}

/// `bd create`'s flags that take a value (`-t epic` is a type, not a title).
const BD_VALUE_FLAGS: &[&str] = &[
    "-t",
    "--type",
    "-p",
    "--priority",
    "-d",
    "--description",
    "--parent",
    "-l",
    "--labels",
    "-a",
    "--assignee",
    "--deps",
    "--id",
    "-f",
    "--file",
    "--acceptance",
    "--design",
    "--notes",
    "-e",
    "--estimate",
    "-s",
    "--status",
];

/// The ids a tracker printed for the issues it opened, in order: beads'
/// `Created issue: spotter-0p7`, or an issue's address (`…/issues/12` from
/// `gh`, `…/-/issues/12` from `glab`) as `#12`.
pub fn opened_tickets(output: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in output.lines().take(400) {
        let line = line.trim();
        if let Some(at) = line.find("Created issue") {
            let rest = line[at + "Created issue".len()..].trim_start_matches([':', ' ']);
            let id: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            let id = id.trim_end_matches('.');
            if !id.is_empty() {
                out.push(id.to_owned());
            }
        } else if line.starts_with("https://")
            && let Some(at) = line.rfind("/issues/")
        {
            let n: String = line[at + "/issues/".len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if !n.is_empty() {
                out.push(format!("#{n}"));
            }
        }
    }
    out
}

/// The line git prints for the commit it made, split: `[feat/x
/// (root-commit) 0c1d2e3] init` is (`feat/x (root-commit)`, `0c1d2e3`,
/// `init`).
fn commit_line(output: &str) -> Option<(&str, &str, &str)> {
    output.lines().take(400).find_map(|line| {
        let (inner, subject) = line.trim().strip_prefix('[')?.split_once(']')?;
        let (before, hash) = inner.rsplit_once(' ')?;
        ((7..=40).contains(&hash.len())
            && hash
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
        .then(|| (before.trim(), hash, subject.trim()))
    })
}

/// The short hash git printed for the commit it made: `[main a1f2839]
/// docs: …`, `[feat/x (root-commit) 0c1d2e3] init`.
pub fn commit_hash(output: &str) -> Option<String> {
    commit_line(output).map(|(_, hash, _)| hash.to_owned())
}

/// The subject git printed for the commit it made (`[main a1f2839] docs:
/// add FAQ`): the message of a commit made from a file.
pub fn commit_subject(output: &str) -> Option<String> {
    commit_line(output)
        .map(|(_, _, subject)| subject.to_owned())
        .filter(|s| !s.is_empty())
}

/// The branch git printed for the commit it made: `[main a1f2839] docs`
/// is on `main`; a detached HEAD (`[detached HEAD 0c1d2e3]`) is on none.
pub fn commit_branch(output: &str) -> Option<String> {
    let (before, _, _) = commit_line(output)?;
    let branch = before
        .strip_suffix("(root-commit)")
        .unwrap_or(before)
        .trim();
    (!branch.is_empty() && !branch.contains(' ') && branch.len() <= 200).then(|| branch.to_owned())
}

/// The files a commit added to the repository, as git listed them
/// (` create mode 100644 .entire/settings.json`), relative to its root.
pub fn committed_new_files(output: &str) -> Vec<String> {
    output
        .lines()
        .take(2000)
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("create mode ")?;
            let (mode, path) = rest.split_once(' ')?;
            let path = path.trim().trim_matches('"');
            // A path out of the repository (`../x`) is no file of its.
            let inside = !path.is_empty()
                && !path.starts_with('/')
                && !path.split(['/', '\\']).any(|c| c == "..");
            (mode.len() == 6 && mode.bytes().all(|b| b.is_ascii_digit()) && inside)
                .then(|| path.to_owned())
        })
        .take(crate::extract::digest::MAX_ENTRIES)
        .collect()
}

/// The branch a push updated, as git printed it (`   6c08f5a..b02b3c0
/// main -> main`, ` * [new branch]      fix/x -> fix/x`).
pub fn pushed_ref(output: &str) -> Option<String> {
    output.lines().take(400).find_map(|line| {
        let t = line.trim();
        let (left, dst) = t.split_once(" -> ")?;
        let updated = left.starts_with("* [new branch]")
            || left.starts_with("* [new tag]")
            || left.split_whitespace().next().is_some_and(|r| {
                r.contains("..")
                    && r.trim_start_matches('+')
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() || b == b'.')
            });
        let dst = dst.split_whitespace().next()?;
        (updated && !dst.is_empty()).then(|| dst.to_owned())
    })
}

/// The commits a `git push` moved a branch over (`   dfb6f1d..69c48f6
/// main -> main`; a forced `+a...b` too).
pub fn pushed_range(output: &str) -> Option<String> {
    output.lines().take(400).find_map(|line| {
        let (left, _) = line.trim().split_once(" -> ")?;
        // The flag column: ` + a...b` for a forced update.
        let r = left
            .split_whitespace()
            .find(|w| *w != "+")?
            .trim_start_matches('+');
        let (a, b) = r.split_once("...").or_else(|| r.split_once(".."))?;
        let hex = |h: &str| h.len() >= 7 && h.bytes().all(|c| c.is_ascii_hexdigit());
        (hex(a) && hex(b)).then(|| r.to_owned())
    })
}

/// What `git status` said of the branch against its upstream: ahead by
/// some commits (`Your branch is ahead of 'origin/main' by 2 commits.`),
/// or level with it (`up to date with`) as `Some(None)`; `None` when it
/// said neither.
pub fn ahead_of_upstream(output: &str) -> Option<Option<(String, u32)>> {
    output.lines().take(400).find_map(|line| {
        let t = line.trim();
        if t.starts_with("Your branch is up to date with") {
            return Some(None);
        }
        let rest = t.strip_prefix("Your branch is ahead of '")?;
        let (upstream, rest) = rest.split_once("' by ")?;
        let n: u32 = rest.split_whitespace().next()?.parse().ok()?;
        Some(Some((upstream.to_owned(), n)))
    })
}

/// The number of the pull request a forge printed the address of (`gh pr
/// create`: `https://github.com/o/r/pull/106`; `glab mr create`:
/// `…/-/merge_requests/12`), as `#106`.
pub fn opened_pull_request(output: &str) -> Option<String> {
    output.lines().take(400).find_map(|line| {
        let line = line.trim();
        if !line.starts_with("https://") {
            return None;
        }
        let at = line
            .rfind("/pull/")
            .map(|a| a + "/pull/".len())
            .or_else(|| {
                line.rfind("/merge_requests/")
                    .map(|a| a + "/merge_requests/".len())
            })?;
        let n: String = line[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!n.is_empty()).then(|| format!("#{n}"))
    })
}

/// The title a tracker printed for the issue `id` it showed: beads'
/// `○ x-4te [EPIC] · Title   [● P1 · OPEN]`, `gh`'s `title:\tTitle`.
pub fn ticket_title(id: &str, output: &str) -> Option<String> {
    let bare = id.trim_start_matches('#');
    for line in output.lines().take(20) {
        let line = line.trim();
        if let Some(t) = line.strip_prefix("title:") {
            return Some(t.trim().to_owned()).filter(|t| !t.is_empty());
        }
        if line.contains(bare)
            && let Some((_, rest)) = line.split_once(" · ")
        {
            let title = rest.split("   [").next().unwrap_or(rest).trim();
            if !title.is_empty() {
                return Some(title.to_owned());
            }
        }
    }
    None
}

/// `args` without the given flags and the value after each.
fn without_values<'a>(args: &[&'a str], flags: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if flags.contains(a) {
            skip = true;
            continue;
        }
        out.push(*a);
    }
    out
}

fn non_flags<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter()
        .copied()
        .filter(|a| !a.starts_with('-') && !a.starts_with('>') && !a.contains("2>"))
        .collect()
}

fn flag_value(args: &[&str], flags: &[&str]) -> Option<String> {
    for (i, a) in args.iter().enumerate() {
        for f in flags {
            if a == f {
                return args.get(i + 1).map(|s| s.to_string());
            }
            if let Some(v) = a.strip_prefix(&format!("{f}=")) {
                return Some(v.to_owned());
            }
        }
    }
    None
}

/// The total coverage a test run printed: pytest-cov's `TOTAL` row or
/// its `Total coverage:` line, tarpaulin's `85.00% coverage`, istanbul's
/// `All files` row (statements), go's `coverage: 85.2% of statements` when
/// one package ran. The last one printed wins: it is the run's total.
pub fn coverage(output: &str) -> Option<String> {
    let percent = |tok: &str| -> Option<String> {
        let t = tok.trim_matches(|c: char| c == ',' || c == ';' || c == '|');
        let num = t.strip_suffix('%').unwrap_or(t);
        let ok = !num.is_empty()
            && num.chars().all(|c| c.is_ascii_digit() || c == '.')
            && num.parse::<f64>().is_ok_and(|v| (0.0..=100.0).contains(&v));
        ok.then(|| format!("{num}%"))
    };
    let mut found = None;
    let mut go_lines = 0;
    let mut go = None;
    for line in output.lines() {
        let l = line.trim();
        let toks: Vec<&str> = l.split_whitespace().collect();
        if toks.first() == Some(&"TOTAL") {
            if let Some(p) = toks
                .last()
                .filter(|t| t.ends_with('%'))
                .and_then(|t| percent(t))
            {
                found = Some(p);
            }
        } else if let Some(at) = l.find("Total coverage:") {
            if let Some(p) = l[at + 15..].split_whitespace().next().and_then(percent) {
                found = Some(p);
            }
        } else if l.starts_with("All files") && l.contains('|') {
            if let Some(p) = l.split('|').nth(1).and_then(|c| percent(c.trim())) {
                found = Some(p);
            }
        } else if let Some(at) = l.find("% coverage,") {
            if let Some(p) = l[..at]
                .split_whitespace()
                .last()
                .and_then(|t| percent(&format!("{t}%")))
            {
                found = Some(p);
            }
        } else if let Some(at) = l.find("coverage: ")
            && l[at..].contains("% of statements")
        {
            go_lines += 1;
            go = l[at + 10..].split_whitespace().next().and_then(percent);
        }
    }
    // Several packages give several figures and none is the total.
    found.or(if go_lines == 1 { go } else { None })
}

/// How many packages `go test` reported `ok` (`ok  \tgithub.com/x/y\t1.2s`),
/// when none failed: the only word of success it prints without `-v`, and
/// the only one left when its exit status is a pipe's (`| tail -40`).
pub fn go_packages_ok(output: &str) -> Option<usize> {
    let mut ok = 0;
    for line in output.lines() {
        let l = line.trim();
        if l.starts_with("FAIL") || l.starts_with("--- FAIL") || l.starts_with("panic:") {
            return None;
        }
        let mut w = l.split_whitespace();
        if w.next() == Some("ok")
            && l[2..].starts_with(char::is_whitespace)
            && w.next().is_some_and(|pkg| {
                pkg.contains(['/', '.']) && !pkg.starts_with(|c: char| c.is_ascii_digit())
            })
        {
            ok += 1;
        }
    }
    (ok > 0).then_some(ok)
}

/// Passed and failed counts a test runner printed, from its summary lines
/// (pytest, cargo, jest, vitest, mocha, go, rspec…). Counts of several
/// summaries (cargo prints one per test binary) are added up.
pub fn test_counts(output: &str) -> (Option<u64>, Option<u64>) {
    let mut passed = None;
    let mut failed = None;
    let mut cargo_passed = None;
    let mut cargo_failed = None;
    let add = |slot: &mut Option<u64>, n: u64| *slot = Some(slot.unwrap_or(0).saturating_add(n));
    // unittest: `Ran 12 tests in 0.01s`, then `OK` or `FAILED (failures=2)`.
    let mut unittest_total: Option<u64> = None;
    // bun: ` 40 pass`, ` 0 fail` (after `pkg:test:` under turbo, one pair
    // per package: summed).
    let mut bun_passed = None;
    let mut bun_failed = None;
    for line in output.lines() {
        let l = line.trim().trim_matches('=').trim();
        let lower = l.to_lowercase();
        let toks: Vec<&str> = lower.split_whitespace().collect();
        if let [.., n, word] = toks.as_slice()
            && matches!(*word, "pass" | "fail")
            && (toks.len() == 2 || toks[toks.len() - 3].ends_with(':'))
            && let Ok(n) = n.parse::<u64>()
        {
            add(
                if *word == "pass" {
                    &mut bun_passed
                } else {
                    &mut bun_failed
                },
                n,
            );
            continue;
        }
        if let Some(rest) = lower.strip_prefix("ran ") {
            let mut w = rest.split_whitespace();
            if let (Some(Ok(n)), Some(t)) = (w.next().map(str::parse::<u64>), w.next())
                && t.starts_with("test")
            {
                unittest_total = Some(n);
                continue;
            }
        }
        if let Some(total) = unittest_total
            && (lower == "ok" || lower.starts_with("ok (") || lower.starts_with("failed ("))
        {
            let bad: u64 = lower
                .split(|c: char| c == '(' || c == ')' || c == ',' || c.is_whitespace())
                .filter_map(|t| t.split_once('='))
                .filter(|(k, _)| matches!(*k, "failures" | "errors"))
                .filter_map(|(_, v)| v.parse::<u64>().ok())
                .sum();
            (passed, failed) = (Some(total.saturating_sub(bad)), Some(bad));
            unittest_total = None;
            continue;
        }
        // jest/vitest print per-file and total lines; the total is enough.
        if lower.starts_with("test files") || lower.starts_with("test suites") {
            continue;
        }
        let summary = lower.starts_with("test result:")
            || lower.starts_with("tests:")
            || lower.starts_with("tests ")
            || lower.contains(" passed")
            || lower.contains(" failed")
            || lower.contains(" passing")
            || lower.contains(" failing")
            || lower.contains(" examples,")
            // ExUnit `309 tests, 0 failures`, PHPUnit `OK (12 tests, 30 assertions)`,
            // surefire `Tests run: 10, Failures: 1, Errors: 0, Skipped: 0`.
            || lower.contains(" tests, ")
            || lower.contains(" test, ")
            || lower.starts_with("ok (");
        // Source quoted in a failure (`89 | throw new Error("Item 3
        // failed");`) and the error it threw are no runner's count.
        let quoted_code = lower.contains('"')
            || lower.contains("throw ")
            || lower.starts_with("error")
            || l.split_once(" | ")
                .is_some_and(|(n, _)| n.trim().bytes().all(|b| b.is_ascii_digit()));
        if !summary || quoted_code {
            continue;
        }
        let mut line_passed = None;
        let mut line_failed = None;
        let mut line_total: Option<u64> = None;
        let mut line_skipped = 0u64;
        let toks: Vec<&str> = lower
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '(' || c == ')')
            .filter(|t| !t.is_empty())
            .collect();
        for pair in toks.windows(2) {
            let Ok(n) = pair[0].parse::<u64>() else {
                continue;
            };
            // `Failures: 1`: a label of the next number, not of this one.
            if pair[1].ends_with(':') {
                continue;
            }
            let word = pair[1].trim_end_matches(['.', ':']);
            match word {
                "passed" | "passing" | "pass" | "ok" => line_passed = Some(n),
                "failed" | "failing" | "failures" | "failure" | "errors" | "error" | "fail" => {
                    line_failed = Some(line_failed.unwrap_or(0u64).saturating_add(n))
                }
                "examples" => line_passed = Some(n),
                // ExUnit says doctests and properties apart: the count a
                // reader knows is its tests.
                "tests" | "test" => line_total = Some(line_total.unwrap_or(0).saturating_add(n)),
                "skipped" | "excluded" => line_skipped = line_skipped.saturating_add(n),
                _ => {}
            }
        }
        // `Label: N` pairs (surefire, PHPUnit's failure line).
        if line_passed.is_none() && line_failed.is_none() && line_total.is_none() {
            for pair in toks.windows(2) {
                let Ok(n) = pair[1].trim_end_matches('.').parse::<u64>() else {
                    continue;
                };
                match pair[0].trim_end_matches(':') {
                    "run" | "tests" => line_total = Some(n),
                    "failures" | "errors" => {
                        line_failed = Some(line_failed.unwrap_or(0u64).saturating_add(n))
                    }
                    "skipped" => line_skipped = line_skipped.saturating_add(n),
                    _ => {}
                }
            }
        }
        // A total alone is prose ("wrote 3 tests, then…"): a runner's line
        // also says its failures, or is PHPUnit's `OK (…)`.
        let counted = line_failed.is_some() || lower.starts_with("ok (");
        if let (None, Some(total), true) = (line_passed, line_total, counted) {
            let bad = line_failed.unwrap_or(0);
            line_failed = Some(bad);
            line_passed = Some(total.saturating_sub(bad).saturating_sub(line_skipped));
        }
        // rspec: "10 examples, 2 failures": passed = examples - failures.
        if lower.contains(" examples,")
            && let (Some(total), Some(f)) = (line_passed, line_failed)
        {
            line_passed = Some(total.saturating_sub(f));
        }
        if lower.starts_with("test result:") {
            add(&mut cargo_passed, line_passed.unwrap_or(0));
            add(&mut cargo_failed, line_failed.unwrap_or(0));
        } else {
            // Other runners print their total last (mocha on two lines).
            passed = line_passed.or(passed);
            failed = line_failed.or(failed);
        }
    }
    if cargo_passed.is_some() {
        (passed, failed) = (cargo_passed, cargo_failed);
    } else if bun_passed.is_some() || bun_failed.is_some() {
        (passed, failed) = (bun_passed, bun_failed);
    } else if passed.is_none() && failed.is_none() {
        // `go test -v` says each top-level test (`--- PASS: TestX`; its
        // subtests are indented) and no total.
        let (mut p, mut f) = (0u64, 0u64);
        for line in output.lines() {
            if line.starts_with("--- PASS:") {
                p += 1;
            } else if line.starts_with("--- FAIL:") {
                f += 1;
            }
        }
        if p + f > 0 {
            (passed, failed) = (Some(p), Some(f));
        }
    }
    if passed.is_some() || failed.is_some() {
        return (Some(passed.unwrap_or(0)), Some(failed.unwrap_or(0)));
    }
    (passed, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(cmd: &str) -> Vec<Effect> {
        effects(cmd)
    }

    #[test]
    fn the_range_a_push_moved_its_branch_over() {
        let out = "To github.com:o/r.git\n   dfb6f1d..69c48f6  authcode -> authcode\n";
        assert_eq!(pushed_range(out).as_deref(), Some("dfb6f1d..69c48f6"));
        let forced = " + 1a2b3c4...5d6e7f8 main -> main (forced update)";
        assert_eq!(pushed_range(forced).as_deref(), Some("1a2b3c4...5d6e7f8"));
        assert_eq!(pushed_range(" * [new branch]      feat -> feat"), None);
        assert_eq!(pushed_range("Everything up-to-date"), None);
    }

    #[test]
    fn where_a_command_sends_its_output() {
        let of = |l: &str| output_file(l);
        assert_eq!(
            of("pytest > scratch/sweep.log 2>&1").as_deref(),
            Some("scratch/sweep.log")
        );
        assert_eq!(of("cargo test &>out.txt").as_deref(), Some("out.txt"));
        assert_eq!(of("npm test >> run.log").as_deref(), Some("run.log"));
        assert_eq!(
            of("make check 2>&1 | tee -a build.log").as_deref(),
            Some("build.log")
        );
        assert_eq!(of("pytest > /dev/null 2>&1"), None);
        assert_eq!(of("pytest 2>&1"), None);
        assert_eq!(of("pytest > \"$(mktemp)\""), None);
        assert_eq!(of("go test ./..."), None);
    }

    #[test]
    fn the_branch_a_commit_went_on() {
        assert_eq!(
            commit_branch("[develop a4253d1] merge: resolve conflicts").as_deref(),
            Some("develop")
        );
        assert_eq!(
            commit_branch("[feat/x (root-commit) 0c1d2e3] init").as_deref(),
            Some("feat/x")
        );
        assert_eq!(commit_branch("[detached HEAD 0c1d2e3] x"), None);
        assert_eq!(
            commit_subject("[main a1f2839] docs: add FAQ\n 1 file changed").as_deref(),
            Some("docs: add FAQ")
        );
        assert_eq!(commit_subject("nothing to commit"), None);
        assert_eq!(commit_branch("nothing to commit, working tree clean"), None);
    }

    /// A failed `&&` chain's steps before the one its error names ran.
    #[test]
    fn what_git_status_says_of_the_upstream() {
        assert_eq!(
            ahead_of_upstream(
                "On branch main\nYour branch is ahead of 'origin/main' by 2 commits.\n  (use \"git push\")"
            ),
            Some(Some(("origin/main".to_owned(), 2)))
        );
        assert_eq!(
            ahead_of_upstream("Your branch is up to date with 'origin/main'."),
            Some(None)
        );
        assert_eq!(
            ahead_of_upstream("nothing to commit, working tree clean"),
            None
        );
    }

    #[test]
    fn what_ran_before_a_chain_failed() {
        let cmd = "git rm -q .github/a.yml .github/b.yml && git mv packages/msi packages/msix \
                   && git rm -q packages/msix/x.wxs && rm -f packages/msix/icon.ico";
        let out =
            "error: the following file has changes staged in the index:\n    packages/msix/x.wxs\n";
        assert_eq!(
            effects_before_failure(cmd, out),
            [
                Effect::Delete(vec![".github/a.yml".into(), ".github/b.yml".into()]),
                Effect::Move {
                    from: "packages/msi".into(),
                    to: "packages/msix".into()
                },
            ]
        );
        // The error names no step, or the line is no plain chain: nothing.
        assert!(effects_before_failure(cmd, "fatal: not a git repository").is_empty());
        assert!(
            effects_before_failure("git rm a.txt; git rm b.txt", "b.txt: no such file").is_empty()
        );
        // A path inside another is not it.
        assert!(
            effects_before_failure(
                "git rm old.txt && git mv src lib",
                "fatal: bad source, source=src/x.rs"
            )
            .is_empty()
        );
        // A later step naming the same path as the failed one never ran.
        assert!(
            effects_before_failure(
                "mv README.md docs/README.md && git add docs/README.md",
                "mv: cannot move 'README.md' to 'docs/README.md': No such file or directory"
            )
            .is_empty()
        );
        assert!(names_whole("cannot remove 'b.txt'.", "b.txt"));
        assert!(!names_whole("see b.txt.bak", "b.txt"));
    }

    /// `gh run list`'s newest row, and `view`/`watch`'s last header with
    /// the failed steps under it; a `--log` view says nothing of the state.
    #[test]
    fn a_ci_run_as_gh_printed_it() {
        assert_eq!(kinds("gh run list --limit 3"), [Effect::WatchCi]);
        assert_eq!(
            kinds("gh run watch 12 --exit-status 2>&1 | tail -20"),
            [Effect::WatchCi]
        );
        assert!(kinds("gh run view 12 --log-failed | tail -80").is_empty());
        let list = "queued\t\tfeat: add a disclaimer\tBuild and Deploy\tmain\tpush\t22424267252\t4s\t2026-02-26T01:47:15Z\n\
                    completed\tsuccess\tfeat: links\tBuild and Deploy\tmain\tpush\t22421211050\t1m12s\t2026-02-25T23:48:26Z\n";
        assert_eq!(
            ci_run(list),
            Some(CiRun {
                workflow: "Build and Deploy".into(),
                id: "22424267252".into(),
                branch: "main".into(),
                state: CiState::Queued,
                failed_steps: Vec::new(),
            })
        );
        let watch = "* rename-chkit CI owner/repo#29 · 22136893405\nJOBS\n* verify (ID 1)\n\n\
                     X rename-chkit CI owner/repo#29 · 22136893405\nTriggered via pull_request\n\nJOBS\n\
                     X verify in 1m4s (ID 63990817570)\n  ✓ Lint\n  X Test\n  - Build\n\nANNOTATIONS\n\
                     X Process completed with exit code 1.\n";
        assert_eq!(
            ci_run(watch),
            Some(CiRun {
                workflow: "CI".into(),
                id: "22136893405".into(),
                branch: "rename-chkit".into(),
                state: CiState::Failed,
                failed_steps: vec!["Test".into()],
            })
        );
        assert_eq!(
            ci_run("✓ main Build and Deploy · 7\nJOBS\n✓ deploy in 1m (ID 8)\n")
                .map(|r| (r.workflow, r.state)),
            Some(("Build and Deploy".into(), CiState::Passed))
        );
        assert_eq!(ci_run("no runs found"), None);
        assert_eq!(ci_run("🏃 Workflow Runs\n  ⏳ CI [22440111232]\n"), None);
    }

    /// A server fixed by hand over ssh: what was written and restarted
    /// there, not what was only looked at; a redirection outside the
    /// quotes writes here.
    #[test]
    fn what_ssh_changes_on_the_host() {
        let remote = |detail: &str| {
            vec![Effect::Action {
                kind: ActionKind::Remote,
                detail: detail.into(),
            }]
        };
        assert_eq!(
            kinds(
                "ssh -i ~/.ssh/k -o ConnectTimeout=10 root@10.0.0.1 \"cat > /etc/nginx/sites-enabled/a << 'EOF'\nserver {\n  listen 80;\n}\nEOF\" 2>&1"
            ),
            remote("root@10.0.0.1: > /etc/nginx/sites-enabled/a")
        );
        assert_eq!(
            kinds("ssh host \"nginx -t && systemctl reload nginx && echo 'ok'\" 2>&1"),
            remote("host: systemctl reload nginx")
        );
        assert_eq!(
            kinds("ssh deploy@web 'cd /srv/app && git pull && docker compose up -d --build'"),
            remote("deploy@web: git pull, docker compose up")
        );
        assert_eq!(
            kinds("ssh web \"sed -i 's/a/b/' /etc/app.conf; sudo service app restart\""),
            remote("web: sed -i /etc/app.conf, service app restart")
        );
        assert_eq!(
            kinds("ssh -t web sudo -u app git -C /srv/app pull"),
            remote("web: git -C /srv/app pull")
        );
        for looking in [
            "ssh -i ~/.ssh/k root@10.0.0.1 \"nginx -T 2>/dev/null | grep -A 20 'location'\" 2>&1",
            "ssh host \"cat /etc/nginx/sites-enabled/a\"",
            "ssh host journalctl -u app > /tmp/app.log",
            "ssh host ls /var/log",
        ] {
            assert!(kinds(looking).is_empty(), "{looking}: {:?}", kinds(looking));
        }
    }

    #[test]
    fn commits_with_their_message() {
        let e = kinds("cd /p && git add -A && git commit -m \"Fix the parser\n\nlong body\"");
        assert_eq!(
            e,
            [Effect::Action {
                kind: ActionKind::Commit,
                detail: "Fix the parser".into()
            }]
        );
        let heredoc =
            "git commit -m \"$(cat <<'EOF'\nAdd tokenizer files and README\n\n- more\nEOF\n)\"";
        assert_eq!(
            kinds(heredoc),
            [Effect::Action {
                kind: ActionKind::Commit,
                detail: "Add tokenizer files and README".into()
            }]
        );
        // `-F -`: the message comes on stdin, from the here-document.
        let stdin = "git add -A && git commit -q -F - <<'EOF' && git push\nAdd AncestryInvalid zero value\n\nbody\nEOF";
        assert!(
            kinds(stdin).contains(&Effect::Action {
                kind: ActionKind::Commit,
                detail: "Add AncestryInvalid zero value".into()
            }),
            "{:?}",
            kinds(stdin)
        );
        assert_eq!(
            kinds("git -C /p push origin main"),
            [Effect::Action {
                kind: ActionKind::Push,
                detail: "git push origin main".into()
            }]
        );
        assert!(kinds("git status && git log --oneline | head").is_empty());
        assert!(kinds("git tag -l").is_empty());
        assert!(kinds("git tag --sort=-creatordate | head -5").is_empty());
        assert!(kinds("git tag -n5 v1.0").is_empty());
        assert_eq!(
            kinds("git tag -a v1.2.0 -m \"Release 1.2\""),
            [Effect::Action {
                kind: ActionKind::Tag,
                detail: "v1.2.0".into()
            }]
        );
        assert!(kinds("bun publish --help 2>&1 | head -40").is_empty());
        assert!(kinds("bun test --help").is_empty());
        assert!(kinds("npm help publish").is_empty());
    }

    #[test]
    fn a_commit_s_new_files_stay_in_the_repository() {
        let out = "[main 1a2b3c4] x\n create mode 100644 src/a.rs\n create mode 100644 ../../etc/passwd\n create mode 100644 /etc/hosts\n create mode 100755 \"bin/run me\"";
        assert_eq!(committed_new_files(out), ["src/a.rs", "bin/run me"]);
    }

    #[test]
    fn go_packages_ok_are_counted_only_when_none_failed() {
        let out = "[test:ci] $ go test ./...\n?   \tgithub.com/x/cmd\t[no test files]\nok  \tgithub.com/x/cli\t12.241s\nok  \tgithub.com/x/cli/agent\t(cached)\n";
        assert_eq!(go_packages_ok(out), Some(2));
        let failed = format!("{out}--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/x/y\t0.1s\n");
        assert_eq!(go_packages_ok(&failed), None);
        // TAP's `ok 3 - name` is not a package.
        assert_eq!(go_packages_ok("ok 1 - parses\nok 2 - prints\n"), None);
        assert_eq!(go_packages_ok("looks ok to me"), None);
    }

    #[test]
    fn task_runners_run_tests_and_builds() {
        assert_eq!(kinds("mise run test:ci"), [Effect::Check { test: true }]);
        assert_eq!(kinds("mise run lint"), [Effect::Check { test: false }]);
        assert_eq!(kinds("task test"), [Effect::Check { test: true }]);
        assert!(kinds("mise install").is_empty());
        assert!(kinds("mise run fmt").is_empty());
        assert_eq!(
            kinds("mise run lint 2>&1 | tail -30"),
            [Effect::Check { test: false }]
        );
        assert_eq!(
            kinds("mise run test:ci 2>&1 | tail -40"),
            [Effect::Check { test: true }]
        );
    }

    #[test]
    fn go_test_verbose_counts_its_top_level_tests() {
        let out = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    --- PASS: TestB/sub (0.00s)\n--- FAIL: TestB (0.01s)\nFAIL\nFAIL\tgithub.com/o/r/cmd\t0.2s";
        assert_eq!(test_counts(out), (Some(1), Some(1)));
        assert_eq!(test_counts("ok  \tgithub.com/o/r/cmd\t0.2s"), (None, None));
    }

    #[test]
    fn code_quoted_in_a_failure_is_no_count() {
        let out =
            "src/x.test.ts:\n89 |   throw new Error(\"Item 3 failed\");\nerror: Item 3 failed";
        assert_eq!(test_counts(out), (None, None));
        assert_eq!(
            test_counts("Tests:       1 failed, 2 passed, 3 total"),
            (Some(2), Some(1))
        );
        assert_eq!(
            test_counts(
                " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 40 passed (41)"
            ),
            (Some(40), Some(1))
        );
    }

    #[test]
    fn a_package_manager_run_in_a_workspace_is_what_its_subcommand_does() {
        let test = [Effect::Check { test: true }];
        let build = [Effect::Check { test: false }];
        assert_eq!(kinds("pnpm --filter @cipherbox/crypto test"), test);
        assert_eq!(kinds("pnpm -F web run build"), build);
        assert_eq!(kinds("npm --prefix web run test"), test);
        assert_eq!(kinds("yarn workspace web test"), test);
        assert_eq!(kinds("pnpm -r --filter=./packages/* test"), test);
        assert!(kinds("pnpm --filter web dev").is_empty());
    }

    #[test]
    fn tickets_opened_and_closed_in_a_tracker() {
        let opened = |cmd: &str| match kinds(cmd).as_slice() {
            [
                Effect::Action {
                    kind: ActionKind::TicketOpened,
                    detail,
                },
            ] => detail.clone(),
            other => panic!("{cmd}: {other:?}"),
        };
        // `-t` is beads' type, not a title.
        assert_eq!(
            opened("bd create -t epic -p 1 \"Set up Credo\""),
            "Set up Credo"
        );
        assert_eq!(
            opened("bd create --title=\"Add alias\" --type=task --parent=app-0p7"),
            "Add alias"
        );
        assert_eq!(
            opened("gh issue create --title \"Crash on start\" --body x"),
            "Crash on start"
        );
        assert_eq!(
            kinds("bd close app-1 app-2 --reason \"done here\" && gh issue close 12"),
            [
                Effect::Action {
                    kind: ActionKind::TicketClosed,
                    detail: "app-1 app-2".into()
                },
                Effect::Action {
                    kind: ActionKind::TicketClosed,
                    detail: "#12".into()
                }
            ]
        );
        assert_eq!(
            kinds("bd ready && bd show app-1 && bd update app-1 --status in_progress"),
            [Effect::ShowTicket("app-1".into())]
        );
        assert_eq!(
            kinds("bd update app-3 --status closed"),
            [Effect::Action {
                kind: ActionKind::TicketClosed,
                detail: "app-3".into()
            }]
        );
        assert!(kinds("gh issue list").is_empty());
        assert_eq!(
            kinds("gh issue comment 7660 --body \"Both symptoms explained\""),
            [Effect::Action {
                kind: ActionKind::Commented,
                detail: "#7660".into()
            }]
        );
        assert_eq!(
            kinds("bd show app-4te"),
            [Effect::ShowTicket("app-4te".into())]
        );
        assert_eq!(
            kinds("gh issue view 12 --comments"),
            [Effect::ShowTicket("#12".into())]
        );
        assert_eq!(
            ticket_title(
                "app-4te",
                "○ app-4te [EPIC] · End-to-end tracing (plugin -> app)   [● P1 · OPEN]\nOwner: M"
            )
            .as_deref(),
            Some("End-to-end tracing (plugin -> app)")
        );
        assert_eq!(
            ticket_title("#12", "title:\tCrash on start\nstate:\tOPEN\n").as_deref(),
            Some("Crash on start")
        );
        assert_eq!(ticket_title("app-9", "no such issue"), None);

        let out = "✓ Created issue: app-0p7\n  Title: Set up\n✓ Created issue: app-0p7.1.\n";
        assert_eq!(opened_tickets(out), ["app-0p7", "app-0p7.1"]);
        assert_eq!(
            opened_tickets("Creating issue in o/r\n\nhttps://github.com/o/r/issues/42\n"),
            ["#42"]
        );
        assert!(opened_tickets("https://github.com/o/r/pull/42\nno issue here").is_empty());
    }

    #[test]
    fn tests_builds_installs_files() {
        assert_eq!(
            kinds("(source .venv/bin/activate && pytest -x)"),
            [Effect::Check { test: true }]
        );
        assert_eq!(
            kinds("(source .venv/bin/activate && ruff check src/ && pytest)"),
            [Effect::Check { test: false }, Effect::Check { test: true }]
        );
        assert_eq!(
            kinds("(source .venv/bin/activate && pytest)"),
            [Effect::Check { test: true }]
        );
        assert_eq!(
            kinds("uv run pytest test/ -q"),
            [Effect::Check { test: true }]
        );
        assert_eq!(
            kinds("RUST_LOG=1 cargo test --all"),
            [Effect::Check { test: true }]
        );
        // A clean environment, a conda environment, an interpreter by its
        // path: still the test runner.
        for cmd in [
            r#"env -i HOME="$HOME" PATH="/usr/bin:/bin" /opt/anaconda3/bin/conda run -n flits python -m pytest tests/ -q"#,
            "mamba run --no-capture-output -p ./env pytest",
            "/home/me/.conda/envs/flits/bin/python -m pytest galaxies/",
            "env -u DEBUG -- .venv/bin/pytest -x",
        ] {
            assert_eq!(kinds(cmd), [Effect::Check { test: true }], "{cmd}");
        }
        assert!(kinds("env -i bash").is_empty());
        assert_eq!(kinds("npm run build"), [Effect::Check { test: false }]);
        assert!(kinds("ruff format .").is_empty());
        assert_eq!(
            kinds("pnpm add three"),
            [Effect::Action {
                kind: ActionKind::Install,
                detail: "three".into()
            }]
        );
        assert!(
            kinds("pnpm install").is_empty(),
            "restoring dependencies changes nothing"
        );
        assert_eq!(
            kinds("rm -rf build/ old.txt"),
            [Effect::Delete(vec!["build/".into(), "old.txt".into()])]
        );
        assert_eq!(
            kinds("git mv a.py b.py"),
            [Effect::Move {
                from: "a.py".into(),
                to: "b.py".into()
            }]
        );
        assert_eq!(
            kinds("vercel --prod"),
            [Effect::Action {
                kind: ActionKind::Deploy,
                detail: "vercel".into()
            }]
        );
        assert!(kinds("ls -la && cat x | grep y").is_empty());
    }

    #[test]
    fn coverage_from_runners() {
        // pytest-cov, as a real session printed it.
        let pytest = "Name    Stmts   Miss Branch BrPart  Cover   Missing\n\
            deep_manifest/deep_manifest.py     120      0     38      0   100%\n\
            TOTAL                              123      2     38      1    98%\n\
            ============ 40 passed in 2.78s ============\n";
        assert_eq!(coverage(pytest).as_deref(), Some("98%"));
        assert_eq!(
            coverage("Required test coverage of 99% reached. Total coverage: 99.45%\n").as_deref(),
            Some("99.45%")
        );
        assert_eq!(
            coverage("All files |   87.5 |    75 |   90 |   87.5 |\n").as_deref(),
            Some("87.5%")
        );
        assert_eq!(
            coverage("85.00% coverage, 170/200 lines covered\n").as_deref(),
            Some("85.00%")
        );
        assert_eq!(
            coverage("ok  \tex/a\t0.1s\tcoverage: 85.2% of statements\n").as_deref(),
            Some("85.2%")
        );
        // Two packages: neither figure is the total.
        assert_eq!(
            coverage("coverage: 85.2% of statements\ncoverage: 40.0% of statements\n"),
            None
        );
        // A percentage that is not coverage.
        assert_eq!(coverage("tests/test_unit.py ....   [100%]\n"), None);
    }

    #[test]
    fn counts_from_bun() {
        let out = "bun test v1.2.0\n\nsrc/a.test.ts:\n(pass) a > works [0.3ms]\n\n 40 pass\n 0 fail\n 95 expect() calls\nRan 40 tests across 3 files. [120.00ms]\n";
        assert_eq!(test_counts(out), (Some(40), Some(0)));
        let turbo = "@x/core:test:  12 pass\n@x/core:test:  1 fail\n@x/cli:test:  30 pass\n@x/cli:test:  0 fail\n";
        assert_eq!(test_counts(turbo), (Some(42), Some(1)));
        // Prose is not a count.
        assert_eq!(test_counts("we let 2 pass"), (None, None));
    }

    #[test]
    fn counts_from_runners() {
        assert_eq!(
            test_counts("...\n========== 3 failed, 45 passed, 1 skipped in 2.1s ==========\n"),
            (Some(45), Some(3))
        );
        assert_eq!(
            test_counts("===== 45 passed in 1.20s ====="),
            (Some(45), Some(0))
        );
        assert_eq!(
            test_counts(
                "test result: ok. 12 passed; 0 failed; 0 ignored\n\ntest result: FAILED. 3 passed; 1 failed;"
            ),
            (Some(15), Some(1))
        );
        assert_eq!(
            test_counts(
                "Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 5 passed, 6 total"
            ),
            (Some(5), Some(1))
        );
        assert_eq!(
            test_counts("  5 passing (20ms)\n  1 failing"),
            (Some(5), Some(1))
        );
        assert_eq!(test_counts("10 examples, 2 failures"), (Some(8), Some(2)));
        // ExUnit, with its timing line before the count.
        assert_eq!(
            test_counts("Finished in 2.2 seconds (0.4s async, 1.7s sync)\n309 tests, 0 failures\n"),
            (Some(309), Some(0))
        );
        assert_eq!(
            test_counts("14 doctests, 40 tests, 1 failure, 3 skipped"),
            (Some(36), Some(1))
        );
        // unittest.
        assert_eq!(
            test_counts("Ran 12 tests in 0.003s\n\nOK\n"),
            (Some(12), Some(0))
        );
        assert_eq!(
            test_counts("Ran 12 tests in 0.003s\n\nFAILED (failures=2, errors=1)\n"),
            (Some(9), Some(3))
        );
        // Maven surefire, PHPUnit.
        assert_eq!(
            test_counts("Tests run: 10, Failures: 1, Errors: 1, Skipped: 2"),
            (Some(6), Some(2))
        );
        assert_eq!(
            test_counts("OK (12 tests, 30 assertions)"),
            (Some(12), Some(0))
        );
        assert_eq!(
            test_counts("Tests: 12, Assertions: 30, Failures: 2."),
            (Some(10), Some(2))
        );
        // Not counts: prose about tests.
        assert_eq!(test_counts("wrote 3 tests, then ran them"), (None, None));
        assert_eq!(test_counts("nothing here"), (None, None));
    }
}
