//! Turning a turn digest into an extraction record: the prompt, the answer
//! parser, the answer check, and the backends (offline, claude-cli,
//! anthropic, openai).
//!
//! Every backend yields the seeds' record (`record::Extraction`). The LLM
//! backends share one prompt (`prompt`: the digest rendered as evidence),
//! one lenient answer parser (`parse`) and one check of the answer against
//! the digest (`check`); the offline backend builds the record from the
//! digest itself and is the reference the tests pin down.

mod anthropic;
mod check;
mod claude_cli;
mod cues;
pub mod digest;
mod http;
mod offline;
mod openai;
mod parse;
mod prompt;
pub mod record;
mod route;

use std::path::Path;

use crate::context::Ctx;
use crate::memory::config::{BackendKind, MemoryConfig};
use crate::memory::log::Lang;
pub(crate) use cues::plan_title;
use digest::Digest;
use record::Extraction;

pub use anthropic::AnthropicBackend;
pub use claude_cli::ClaudeCliBackend;
pub use cues::is_request_sentence;
pub use http::Retry;
// What `cairn doctor` needs to check a backend without calling it.
pub(crate) use anthropic::API_VERSION as ANTHROPIC_API_VERSION;
pub(crate) use claude_cli::find_program;
pub(crate) use cues::{
    answers, closing_question, is_a_choice, offered_options, picked_option, sentences,
};
pub(crate) use http::{join_url, proxy_for};
pub use offline::OfflineBackend;
pub(crate) use offline::{flag_words, is_preamble, without_output_trim};
pub use openai::OpenAiBackend;
pub use parse::{parse_answer, parse_value};
pub use prompt::build_prompt;

/// Model used by `claude-cli` and `anthropic` when `memory.model` is empty:
/// the seeds' choice, fast and cheap enough for one call per turn.
pub const DEFAULT_CLAUDE_MODEL: &str = "claude-haiku-4-5-20251001";
/// Model used by `openai` when `memory.model` is empty: Ollama's common default.
pub const DEFAULT_OPENAI_MODEL: &str = "llama3.2";

/// Everything a backend needs for one job. The digest is already redacted.
#[derive(Debug, Clone)]
pub struct ExtractRequest<'a> {
    /// The turns since the session's last capture.
    pub digest: &'a Digest,
    /// The user's message was `OK-done`: only `a_suivre_done` may be filled.
    pub ok_done: bool,
    /// Known projects, `root` first, with their folder relative to the
    /// project root (`""` for root, `projects/<name>` for sub-projects).
    pub projects: &'a [(String, String)],
    /// Where the turn happened when nothing else routes it (from `cwd`).
    pub default_project: &'a str,
    /// Today's existing log per project (already redacted), so nothing is repeated.
    pub existing_logs: &'a [(String, String)],
    /// Offline OK-done: the open to-dos to finalise, chosen by the worker.
    pub done_candidates: &'a [String],
    /// To-dos earlier days' logs left open, per project, as written there:
    /// read only when the digest finishes something (a ticket closed, a
    /// to-do of the model's list completed), else empty.
    pub earlier_todos: &'a [(String, String)],
    pub lang: Lang,
    /// The project root: the digest's absolute paths are shown and routed
    /// relative to it.
    pub project_root: &'a Path,
}

/// Token counts of one backend call, for the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallUsage {
    pub model: String,
    /// Uncached input tokens.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Prompt-cache reads and writes, priced differently from plain input
    /// (the `claude` CLI sends a large cached system prompt on every call).
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl From<&CallUsage> for crate::usage::ledger::Call {
    fn from(u: &CallUsage) -> Self {
        crate::usage::ledger::Call {
            model: u.model.clone(),
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_write_tokens: u.cache_write_tokens,
            cache_read_tokens: u.cache_read_tokens,
        }
    }
}

/// A backend's answer: the raw text (kept in `.debug/` as it came) and what
/// it parsed to, already checked against the digest for the LLM backends.
#[derive(Debug, Clone)]
pub struct Answer {
    pub raw: String,
    pub extraction: Result<Extraction, String>,
    pub usage: Option<CallUsage>,
}

pub trait Backend {
    fn name(&self) -> &'static str;
    /// `Err` means the call itself failed (retry later); a parse failure is `Ok` with `extraction: Err`.
    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer>;
    /// A free-text answer to `prompt` (promotion rewrites long memory with
    /// it). `None`: this backend has no model (offline).
    fn complete(&self, prompt: &str) -> Option<anyhow::Result<Completion>> {
        let _ = prompt;
        None
    }
}

/// A free-text answer and what it cost.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub usage: Option<CallUsage>,
}

/// The backend `memory.backend` asks for, with `auto` resolved:
/// the `claude` CLI when it is on `PATH`, else the Anthropic API when its key
/// is set, else offline.
pub fn backend_for(cfg: &MemoryConfig, ctx: &Ctx) -> Box<dyn Backend> {
    match resolve_kind(cfg, ctx) {
        BackendKind::ClaudeCli => Box::new(ClaudeCliBackend::from_config(cfg, ctx)),
        BackendKind::Anthropic => Box::new(AnthropicBackend::from_config(cfg, ctx)),
        BackendKind::Openai => Box::new(OpenAiBackend::from_config(cfg, ctx)),
        BackendKind::Offline | BackendKind::Auto => Box::new(OfflineBackend),
    }
}

/// `memory.backend` with `auto` replaced by what it resolves to here.
pub fn resolve_kind(cfg: &MemoryConfig, ctx: &Ctx) -> BackendKind {
    match cfg.backend {
        BackendKind::Auto => {
            if claude_cli::find_program(&cfg.claude_command, &ctx.env).is_some() {
                BackendKind::ClaudeCli
            } else if ctx
                .env
                .get(&cfg.anthropic_api_key_env)
                .is_some_and(|k| !k.trim().is_empty())
            {
                BackendKind::Anthropic
            } else {
                BackendKind::Offline
            }
        }
        other => other,
    }
}

/// `memory.model`, or the default of the backend `kind`.
pub fn model_for(cfg: &MemoryConfig, kind: BackendKind) -> String {
    let configured = cfg.model.trim();
    if !configured.is_empty() {
        return configured.to_string();
    }
    match kind {
        BackendKind::Openai => DEFAULT_OPENAI_MODEL.to_string(),
        _ => DEFAULT_CLAUDE_MODEL.to_string(),
    }
}

/// Is this user message the `OK-done` signal? Exactly `ok`, one separator
/// (`-`, `_` or a space) and `done`, in any case, surrounding blanks ignored.
pub fn is_ok_done(human: &str) -> bool {
    let b = human.trim().as_bytes();
    b.len() == 7
        && b[..2].eq_ignore_ascii_case(b"ok")
        && matches!(b[2], b'-' | b'_' | b' ')
        && b[3..].eq_ignore_ascii_case(b"done")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Clock, Env};

    #[test]
    fn ok_done_accepts_the_documented_spellings() {
        for s in [
            "OK-done",
            "ok-done",
            "Ok_Done",
            "ok done",
            "  OK-DONE\n",
            "\tok_done ",
        ] {
            assert!(is_ok_done(s), "{s:?}");
        }
    }

    #[test]
    fn ok_done_rejects_anything_else() {
        for s in [
            "",
            "ok",
            "okdone",
            "ok--done",
            "ok  done",
            "ok-done.",
            "ok-done please",
            "not ok-done",
            "ok-dones",
            "ok–done",
            "ok-döne",
        ] {
            assert!(!is_ok_done(s), "{s:?}");
        }
    }

    fn ctx(pairs: &[(&str, &str)]) -> Ctx {
        Ctx::new(Env::from_pairs(pairs.iter().copied()), Clock::System)
    }

    #[test]
    fn auto_prefers_claude_on_path_then_key_then_offline() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("claude");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = dir.path().to_str().unwrap();
        let cfg = MemoryConfig {
            backend: BackendKind::Auto,
            ..MemoryConfig::default()
        };

        let with_cli = ctx(&[("PATH", path), ("ANTHROPIC_API_KEY", "k")]);
        assert_eq!(resolve_kind(&cfg, &with_cli), BackendKind::ClaudeCli);
        assert_eq!(backend_for(&cfg, &with_cli).name(), "claude-cli");

        let empty = tempfile::tempdir().unwrap();
        let key_only = ctx(&[
            ("PATH", empty.path().to_str().unwrap()),
            ("ANTHROPIC_API_KEY", "k"),
        ]);
        assert_eq!(resolve_kind(&cfg, &key_only), BackendKind::Anthropic);
        assert_eq!(backend_for(&cfg, &key_only).name(), "anthropic");

        let blank_key = ctx(&[
            ("PATH", empty.path().to_str().unwrap()),
            ("ANTHROPIC_API_KEY", " "),
        ]);
        assert_eq!(resolve_kind(&cfg, &blank_key), BackendKind::Offline);
        assert_eq!(backend_for(&cfg, &ctx(&[])).name(), "offline");
    }

    #[test]
    fn explicit_backends_are_kept() {
        let c = ctx(&[]);
        for (kind, name) in [
            (BackendKind::Offline, "offline"),
            (BackendKind::ClaudeCli, "claude-cli"),
            (BackendKind::Anthropic, "anthropic"),
            (BackendKind::Openai, "openai"),
        ] {
            let cfg = MemoryConfig {
                backend: kind,
                ..MemoryConfig::default()
            };
            assert_eq!(backend_for(&cfg, &c).name(), name);
        }
    }

    #[test]
    fn model_defaults_per_backend() {
        let cfg = MemoryConfig::default();
        assert_eq!(
            model_for(&cfg, BackendKind::ClaudeCli),
            "claude-haiku-4-5-20251001"
        );
        assert_eq!(
            model_for(&cfg, BackendKind::Anthropic),
            "claude-haiku-4-5-20251001"
        );
        assert_eq!(model_for(&cfg, BackendKind::Openai), "llama3.2");
        let cfg = MemoryConfig {
            model: " qwen2.5:7b ".into(),
            ..MemoryConfig::default()
        };
        assert_eq!(model_for(&cfg, BackendKind::Openai), "qwen2.5:7b");
        assert_eq!(model_for(&cfg, BackendKind::Anthropic), "qwen2.5:7b");
    }
}
