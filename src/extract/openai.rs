//! The `openai` backend: any OpenAI-compatible `/v1/chat/completions`
//! (Ollama, LM Studio, llama.cpp, vLLM, OpenRouter), JSON mode requested.

use std::time::Duration;

use anyhow::anyhow;
use serde_json::{Value, json};

use super::check;
use super::http::{Post, Retry, Secret, join_url, post_json, proxy_for};
use super::parse::parse_answer;
use super::{Answer, Backend, CallUsage, Completion, ExtractRequest, build_prompt};
use crate::context::Ctx;
use crate::memory::config::{BackendKind, MemoryConfig};

pub struct OpenAiBackend {
    /// Ends with `/v1`, as OpenAI-compatible servers document it.
    pub base_url: String,
    pub model: String,
    pub timeout: Duration,
    pub retry: Retry,
    /// Local servers need no key: `Authorization` is sent only when set.
    key: Option<Secret>,
    proxy: Option<ureq::Proxy>,
    /// Where the answer check reports what it dropped.
    ctx: Ctx,
}

impl OpenAiBackend {
    pub fn from_config(cfg: &MemoryConfig, ctx: &Ctx) -> Self {
        OpenAiBackend {
            base_url: cfg.openai_base_url.clone(),
            model: super::model_for(cfg, BackendKind::Openai),
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
            retry: Retry::default(),
            key: Secret::from_env(&ctx.env, &cfg.openai_api_key_env),
            proxy: proxy_for(&cfg.openai_base_url, &ctx.env),
            ctx: ctx.clone(),
        }
    }
}

impl Backend for OpenAiBackend {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn extract(&self, req: &ExtractRequest) -> anyhow::Result<Answer> {
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": build_prompt(req)}],
            "response_format": {"type": "json_object"},
            "temperature": 0,
            "stream": false,
        });
        let url = join_url(&self.base_url, "chat/completions");
        let mut headers = Vec::new();
        if let Some(key) = &self.key {
            headers.push(("authorization", format!("Bearer {}", key.expose())));
        }
        let response = post_json(Post {
            label: "openai",
            url: &url,
            headers,
            body: &body,
            timeout: self.timeout,
            retry: &self.retry,
            proxy: self.proxy.clone(),
            secret: self.key.as_ref(),
        })?;
        let answer = answer_of(&response, &self.model).map_err(|e| match &self.key {
            Some(k) => anyhow!(k.scrub(&e.to_string())),
            None => e,
        })?;
        Ok(check::checked(&self.ctx, self.name(), req, answer))
    }

    fn complete(&self, prompt: &str) -> Option<anyhow::Result<Completion>> {
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "stream": false,
        });
        let url = join_url(&self.base_url, "chat/completions");
        let mut headers = Vec::new();
        if let Some(key) = &self.key {
            headers.push(("authorization", format!("Bearer {}", key.expose())));
        }
        Some(
            post_json(Post {
                label: "openai",
                url: &url,
                headers,
                body: &body,
                timeout: self.timeout,
                retry: &self.retry,
                proxy: self.proxy.clone(),
                secret: self.key.as_ref(),
            })
            .and_then(|r| answer_of(&r, &self.model))
            .map(|a| Completion {
                text: a.raw,
                usage: a.usage,
            })
            .map_err(|e| match &self.key {
                Some(k) => anyhow!(k.scrub(&e.to_string())),
                None => e,
            }),
        )
    }
}

fn answer_of(response: &Value, model: &str) -> anyhow::Result<Answer> {
    let Some(choice) = response.pointer("/choices/0") else {
        // Some gateways answer 200 with an error object instead of choices.
        let why = response
            .pointer("/error/message")
            .or_else(|| response.get("error"))
            .and_then(Value::as_str)
            .unwrap_or("no choices in the response");
        return Err(anyhow!("openai: {why}"));
    };
    let raw = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let extraction = parse_answer(&raw);
    let count = |key: &str| {
        response
            .pointer(&format!("/usage/{key}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = response.get("usage").map(|_| {
        let cached = count("prompt_tokens_details/cached_tokens");
        CallUsage {
            model: response
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or(model)
                .to_string(),
            input_tokens: count("prompt_tokens").saturating_sub(cached),
            output_tokens: count("completion_tokens"),
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        }
    });
    Ok(Answer {
        raw,
        extraction,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_and_usage_are_read() {
        let resp = json!({
            "model": "llama3.2",
            "choices": [{"message": {"role": "assistant", "content": "{\"updates\":[{\"project\":\"root\",\"sections\":{\"decisions\":[\"Garder SQLite\"]}}]}"}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 100}}
        });
        let a = answer_of(&resp, "x").unwrap();
        assert_eq!(
            a.extraction.unwrap().updates[0].sections.decisions,
            ["Garder SQLite"]
        );
        assert_eq!(
            a.usage,
            Some(CallUsage {
                model: "llama3.2".into(),
                input_tokens: 800,
                output_tokens: 40,
                cache_read_tokens: 100,
                cache_write_tokens: 0
            })
        );
    }

    #[test]
    fn missing_content_is_a_parse_failure_and_missing_choices_an_error() {
        let a = answer_of(&json!({"choices": [{"message": {"content": null}}]}), "x").unwrap();
        assert_eq!(a.extraction, Err("empty answer".into()));
        let e = answer_of(&json!({"error": {"message": "model not loaded"}}), "x").unwrap_err();
        assert_eq!(e.to_string(), "openai: model not loaded");
    }
}
