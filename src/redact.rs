//! Secret redaction applied before any backend call and any write.
//!
//! PLACEHOLDER INTERFACE — being implemented.

/// Redacts secrets and removes `<private>…</private>` blocks.
pub fn redact(text: &str) -> String {
    text.to_string()
}
