//! Jobs spooled before the turn digest: their exchange as a one-turn digest,
//! so that an upgrade with turns still pending loses none of them.

use super::clean;
use crate::extract::digest::{Change, Digest, FileChange, ToolError, Turn};
use crate::transcript::Exchange;

pub fn digest_of(ex: &Exchange) -> Digest {
    let c = clean::clean_prompt(&ex.human);
    let d = &ex.digest;
    let mut files: Vec<FileChange> = Vec::new();
    for (list, change) in [
        (&d.files_written, Change::Created),
        (&d.files_edited, Change::Updated),
    ] {
        for p in list {
            if !files.iter().any(|f| &f.path == p) {
                files.push(FileChange {
                    path: p.clone(),
                    change,
                    from: None,
                });
            }
        }
    }
    let errors = d
        .tool_errors
        .iter()
        .map(|e| {
            let (tool, message) = e.split_once(": ").unwrap_or(("", e));
            ToolError {
                tool: tool.to_owned(),
                target: String::new(),
                message: message.to_owned(),
                resolved: false,
                fixed_in: Vec::new(),
                resolved_by: None,
                cause: None,
            }
        })
        .collect();
    Digest {
        turns: vec![Turn {
            timestamp: ex.timestamp.clone(),
            request: c.request,
            kind: c.kind,
            ide: c.ide,
            pasted: c.pasted,
            plan: c.plan,
            files,
            errors,
            answer: ex.assistant.clone(),
            ..Default::default()
        }],
    }
}
