//! The `anthropic` backend: the Messages API, with the record's shape
//! enforced by a forced tool call (a text answer is still accepted).

use std::time::Duration;

use anyhow::anyhow;
use serde_json::{Value, json};

use super::check;
use super::http::{Post, Retry, Secret, join_url, post_json, proxy_for};
use super::parse::{parse_answer, parse_value};
use super::{Answer, Backend, CallUsage, Completion, ExtractRequest, build_prompt};
use crate::context::Ctx;
use crate::memory::config::{BackendKind, MemoryConfig};

/// The tool the model is made to call; its input is the record.
const TOOL: &str = "record_session_memory";
pub(crate) const API_VERSION: &str = "2023-06-01";

pub struct AnthropicBackend {
    pub base_url: String,
    pub model: String,
    pub max_tokens: u32,
    pub timeout: Duration,
    pub retry: Retry,
    /// Named in the error when the key is missing.
    pub key_env: String,
    key: Option<Secret>,
    proxy: Option<ureq::Proxy>,
    /// Where the answer check reports what it dropped.
    ctx: Ctx,
}

impl AnthropicBackend {
    pub fn from_config(cfg: &MemoryConfig, ctx: &Ctx) -> Self {
        AnthropicBackend {
            base_url: cfg.anthropic_base_url.clone(),
            model: super::model_for(cfg, BackendKind::Anthropic),
            max_tokens: 2048,
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
            retry: Retry::default(),
            key_env: cfg.anthropic_api_key_env.clone(),
            key: Secret::from_env(&ctx.env, &cfg.anthropic_api_key_env),
            proxy: proxy_for(&cfg.anthropic_base_url, &ctx.env),
            ctx: ctx.clone(),
        }
    }

    fn request_body(&self, req: &ExtractRequest) -> Value {
        let list = json!({"type": "array", "items": {"type": "string"}});
        let sections: serde_json::Map<String, Value> = [
            "contexte",
            "objectif",
            "problemes",
            "connaissances",
            "travail",
            "decisions",
            "a_suivre",
            "a_suivre_done",
        ]
        .iter()
        .map(|k| (k.to_string(), list.clone()))
        .collect();
        let section_keys: Vec<&String> = sections.keys().collect();
        let projects: Vec<&str> = req.projects.iter().map(|(name, _)| name.as_str()).collect();
        let mut project = json!({"type": "string"});
        if !projects.is_empty() {
            project["enum"] = json!(projects);
        }
        json!({
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": build_prompt(req)}],
            "tools": [{
                "name": TOOL,
                "description": "Record what this exchange adds to today's session log of each project it concerns.",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "updates": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "project": project,
                                    "sections": {
                                        "type": "object",
                                        "properties": sections,
                                        "required": section_keys,
                                    },
                                    "long_memory_update": {"type": ["string", "null"]},
                                },
                                "required": ["project", "sections"],
                            },
                        },
                    },
                    "required": ["updates"],
                },
            }],
            "tool_choice": {"type": "tool", "name": TOOL},
        })
    }
}

impl Backend for AnthropicBackend {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer> {
        let response = self.post(&self.request_body(req))?;
        let answer = answer_of(&response, &self.model);
        Ok(check::checked(&self.ctx, self.name(), req, answer))
    }

    fn complete(&self, prompt: &str) -> Option<anyhow::Result<Completion>> {
        let body = json!({
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        });
        Some(self.post(&body).map(|response| {
            let a = answer_of(&response, &self.model);
            Completion {
                text: a.raw,
                usage: a.usage,
            }
        }))
    }
}

impl AnthropicBackend {
    /// One `POST /v1/messages` with the key, retries and timeouts.
    fn post(&self, body: &Value) -> anyhow::Result<Value> {
        let key = self.key.as_ref().ok_or_else(|| {
            anyhow!(
                "anthropic backend: no API key: set {} in the environment (memory.anthropic_api_key_env names the variable), or choose another memory.backend",
                self.key_env
            )
        })?;
        let url = join_url(&self.base_url, "v1/messages");
        post_json(Post {
            label: "anthropic",
            url: &url,
            headers: vec![
                ("x-api-key", key.expose().to_string()),
                ("anthropic-version", API_VERSION.to_string()),
            ],
            body,
            timeout: self.timeout,
            retry: &self.retry,
            proxy: self.proxy.clone(),
            secret: Some(key),
        })
    }
}

/// The record from a Messages API response: the forced tool call's input,
/// else the text blocks read like any other answer.
fn answer_of(response: &Value, model: &str) -> Answer {
    let blocks = response
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let tool_input = blocks
        .iter()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .and_then(|b| b.get("input"));
    let (raw, extraction) = match tool_input {
        Some(input) => (input.to_string(), parse_value(input)),
        None => {
            let text: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let raw = text.join("\n");
            let extraction = parse_answer(&raw);
            (raw, extraction)
        }
    };
    let count = |key: &str| {
        response
            .pointer(&format!("/usage/{key}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = response.get("usage").map(|_| CallUsage {
        model: response
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_string(),
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
        cache_write_tokens: count("cache_creation_input_tokens"),
    });
    Answer {
        raw,
        extraction,
        usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_input_is_the_record() {
        let resp = json!({
            "model": "claude-haiku-4-5-20251001",
            "content": [{"type": "tool_use", "id": "t", "name": TOOL, "input": {"updates": [{"project": "root", "sections": {"travail": ["Fait"]}}]}}],
            "usage": {"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 5}
        });
        let a = answer_of(&resp, "m");
        assert_eq!(a.extraction.unwrap().updates[0].sections.travail, ["Fait"]);
        assert!(a.raw.starts_with("{\"updates\""));
        assert_eq!(
            a.usage,
            Some(CallUsage {
                model: "claude-haiku-4-5-20251001".into(),
                input_tokens: 1200,
                output_tokens: 80,
                cache_read_tokens: 5,
                cache_write_tokens: 0
            })
        );
    }

    #[test]
    fn text_answers_are_parsed_too() {
        let resp = json!({"content": [{"type": "text", "text": "Voici :\n```json\n{\"updates\":[]}\n```"}]});
        let a = answer_of(&resp, "m");
        assert_eq!(a.extraction, Ok(Default::default()));
        assert_eq!(a.usage, None);
        let empty = answer_of(&json!({"content": []}), "m");
        assert_eq!(empty.extraction, Err("empty answer".into()));
    }
}
