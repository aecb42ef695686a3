//! Token usage: what one API response cost, and how full the context is.

use super::record::Record;
use serde::{Deserialize, Serialize};

/// `message.usage` of an assistant record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// Cache writes split by lifetime (`usage.cache_creation`), priced
    /// differently; both 0 on clients that do not record the split.
    pub cache_creation_5m: u64,
    pub cache_creation_1h: u64,
    pub web_search_requests: u64,
    pub web_fetch_requests: u64,
}

impl Usage {
    /// Field-wise maximum. The lines of one response repeat its usage, but
    /// older clients wrote the stream's first figures (`output_tokens: 1`) on
    /// some lines and the final ones on others: the largest is the truth.
    pub fn max_with(&mut self, o: &Usage) {
        self.input_tokens = self.input_tokens.max(o.input_tokens);
        self.output_tokens = self.output_tokens.max(o.output_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .max(o.cache_creation_input_tokens);
        self.cache_read_input_tokens = self.cache_read_input_tokens.max(o.cache_read_input_tokens);
        self.cache_creation_5m = self.cache_creation_5m.max(o.cache_creation_5m);
        self.cache_creation_1h = self.cache_creation_1h.max(o.cache_creation_1h);
        self.web_search_requests = self.web_search_requests.max(o.web_search_requests);
        self.web_fetch_requests = self.web_fetch_requests.max(o.web_fetch_requests);
    }
}

/// The main thread's latest usage, as the context guard needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextUsage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    pub model: Option<String>,
    pub message_id: Option<String>,
    pub timestamp: Option<String>,
    /// The text blocks of the line the usage came from, joined (empty for a
    /// tool call or thinking line): lets the guard tell whether the answer
    /// a Stop payload names has reached the file yet.
    pub text: String,
}

impl ContextUsage {
    /// Tokens the model had in context for that call.
    pub fn fill(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// What one line says about the context, read from the end of a transcript.
pub(super) enum ContextEvent {
    /// A compaction: any usage before it no longer describes the context.
    Reset,
    Usage(ContextUsage),
}

/// Whether `rec` is a main-thread usage line: subagents have their own
/// context; the client's placeholder records (`<synthetic>`, API errors)
/// carry zeros that say nothing about it.
fn is_context_usage(rec: &Record) -> bool {
    rec.is_assistant()
        && !rec.is_sidechain
        && !rec.is_synthetic()
        && !rec.is_api_error_message
        && rec.usage().is_some()
}

/// Whether [`context_event`] has something to say about `rec`, without
/// building the usage.
pub(super) fn says_context(rec: &Record) -> bool {
    rec.is_compact_boundary() || is_context_usage(rec)
}

pub(super) fn context_event(rec: &Record) -> Option<ContextEvent> {
    if rec.is_compact_boundary() {
        return Some(ContextEvent::Reset);
    }
    if !is_context_usage(rec) {
        return None;
    }
    let u = rec.usage()?;
    Some(ContextEvent::Usage(ContextUsage {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
        model: rec.model().map(str::to_owned),
        message_id: rec.message_id().map(str::to_owned),
        timestamp: rec.timestamp.as_deref().map(str::to_owned),
        text: rec.content().texts().collect::<Vec<_>>().join("\n"),
    }))
}

/// The usage carried by one assistant line, for aggregation. The lines of
/// one response repeat it: `usage::dedupe` folds them, the one dedupe.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageEntry {
    pub message_id: Option<String>,
    pub request_id: Option<String>,
    pub model: Option<String>,
    pub timestamp: Option<String>,
    pub session_id: Option<String>,
    /// Set in subagent transcripts.
    pub agent_id: Option<String>,
    pub is_sidechain: bool,
    pub usage: Usage,
}

impl UsageEntry {
    /// `None` for records that are not assistant turns with a usage.
    pub fn from_record(rec: &Record) -> Option<UsageEntry> {
        if !rec.is_assistant() {
            return None;
        }
        let usage = *rec.usage()?;
        let owned = |s: Option<&str>| s.map(str::to_owned);
        Some(UsageEntry {
            message_id: owned(rec.message_id()),
            request_id: owned(rec.request_id.as_deref()),
            model: owned(rec.model()),
            timestamp: owned(rec.timestamp.as_deref()),
            session_id: owned(rec.session_id.as_deref()),
            agent_id: owned(rec.agent_id.as_deref()),
            is_sidechain: rec.is_sidechain,
            usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_sums_the_three_input_kinds() {
        let c = ContextUsage {
            input_tokens: 1,
            cache_creation_input_tokens: 20,
            cache_read_input_tokens: 300,
            output_tokens: 4000,
            ..ContextUsage::default()
        };
        assert_eq!(c.fill(), 321);
    }
}
