//! The user's words out of what the client sends as the prompt, read the
//! way capture reads them (`capture::clean`): system reminders and IDE
//! context out, `\`-continued lines joined, `[Image #1]` placeholders out,
//! nothing left when it was only an acknowledgement or a bare "go ahead",
//! and the paragraphs that are pastes (fenced blocks, logs, traces, diffs)
//! marked, so that the matcher masks them instead of reading them as the
//! user's sentences. What is taken out is remembered: an IDE selection or open
//! file, a screenshot and a paste each show the model what the prompt is
//! about.

use crate::capture::clean;
use crate::transcript::text::strip_blocks;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Prepared {
    /// The user's words, pastes still in place (see `pastes`).
    pub text: String,
    /// Byte ranges of `text` that the user pasted rather than wrote.
    pub pastes: Vec<(usize, usize)>,
    /// The client showed the model something with the prompt: an IDE
    /// selection or open file, or an image.
    pub shown: bool,
}

/// `None`: nothing of the user's to read (only IDE context, only an
/// acknowledgement, a bare "go ahead").
pub(crate) fn prepare(raw: &str) -> Option<Prepared> {
    let text = strip_blocks(raw, "<system-reminder>", "</system-reminder>");
    let (text, ide) = clean::strip_ide(text.trim());
    let mut shown = !ide.is_empty();
    // A terminal line ending in `\` is the user's line break (Shift+Enter).
    let text = if text.contains("\\\n") {
        text.replace("\\\n", "\n")
    } else {
        text.into_owned()
    };
    let text = if text.contains("[Image #") {
        shown = true;
        clean::strip_image_tags(&text)
    } else {
        text
    };
    let text = text.trim();
    // Capture's reading of acknowledgements says when nothing else is
    // there; the words are kept whole ("Merci de corriger…" asks).
    if clean::strip_ack(text).is_empty() {
        return None;
    }
    let pastes = clean::paragraphs(text)
        .iter()
        .filter(|p| p.pasted)
        .filter_map(|p| {
            if p.fenced {
                return Some((p.start, p.end));
            }
            // The lines a program wrote: a sentence on the paragraph's
            // first or last line is still the user's ("Here is the log:").
            let at = |l: &str| l.as_ptr() as usize - text.as_ptr() as usize;
            let first = p.lines.iter().find(|l| clean::is_log_line(l))?;
            let last = p.lines.iter().rev().find(|l| clean::is_log_line(l))?;
            Some((at(first), at(last) + last.len()))
        })
        .collect();
    Some(Prepared {
        text: text.to_owned(),
        pastes,
        shown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ide_context_acks_and_images_are_not_the_users_words() {
        let p = prepare(
            "<ide_selection>The user selected the lines 206 to 215 from /p/README.md:\nthe previous fix is still broken\n\nThis may or may not be related to the current task.</ide_selection>\nFair enough. Let's update the readme",
        )
        .unwrap();
        assert_eq!(p.text, "Fair enough. Let's update the readme");
        assert!(p.shown && p.pastes.is_empty());
        let p = prepare("[Image #1] Can you add a margin here?").unwrap();
        assert_eq!(p.text, "Can you add a margin here?");
        assert!(p.shown);
        assert_eq!(prepare("yes please"), None);
        assert_eq!(prepare("Thanks, go ahead"), None);
        assert_eq!(
            prepare(
                "<ide_opened_file>The user opened the file /p/a.md in the IDE.</ide_opened_file>"
            ),
            None
        );
        assert_eq!(
            prepare("a<system-reminder>the old fix</system-reminder>b")
                .unwrap()
                .text,
            "ab"
        );
    }

    #[test]
    fn pastes_are_marked_where_they_are() {
        let raw = "Same error again:\\\n\\\n01:12:38.300 Host key verification failed.\n01:12:38.301 fatal: Could not read from remote repository.\n\nany idea?";
        let p = prepare(raw).unwrap();
        assert_eq!(p.pastes.len(), 1);
        let (s, e) = p.pastes[0];
        assert!(p.text[s..e].starts_with("01:12:38.300") && p.text[s..e].ends_with("repository."));
        assert!(p.text.starts_with("Same error again:") && p.text.ends_with("any idea?"));
    }
}
