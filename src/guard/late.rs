//! Whether a Stop's guard check must wait for the answer's line.
//!
//! The client can fire Stop before the line of the call that answered the
//! turn reaches the transcript (the TUI does, 85–170 ms late). Read then,
//! the last usage in the file is an earlier call's, and the guard judges a
//! fill that is already out of date. Waiting for every late line would make
//! every such Stop pay up to [`crate::transcript::SETTLE_WAIT`]; the guard
//! waits only when the fill it cannot see yet could reach a level the fill
//! it sees does not.
//!
//! # How far the late call's fill can be from the one seen
//!
//! A call's fill is its whole input. The late call's input is the seen
//! call's input, plus that call's own output (its text, thinking and tool
//! calls are sent back), plus what the client recorded after it (tool
//! results, the next prompt, hook context: the lines after the usage line,
//! at least one byte per token), plus a little it sends without recording
//! it (reminders). So
//!
//! `late fill ≤ seen fill + seen output + bytes after + UNRECORDED_TOKENS`.
//!
//! Measured on the 721 pairs of consecutive main-thread calls of
//! `../shared/real-sessions/` (clients 1.0.29 to 2.1.114): the fill grew by
//! at most 12 042 tokens between two calls (p99 8 275); the growth beyond
//! the output plus the bytes in between was at most 2 768 tokens (a 1.0.51
//! session; 1 680 on 2.1.114). `UNRECORDED_TOKENS` has half as much again
//! above the worst seen. Older clients wrote the stream's first figure
//! (`output_tokens: 1`) on some lines; such a figure bounds nothing, so the
//! model's largest output stands in for it.

use super::limits::{Level, Limits};
use crate::transcript::ContextUsage;

/// What the client sends in a call and does not record in the transcript
/// (reminders, per-message overhead), in tokens; see the module docs.
pub const UNRECORDED_TOKENS: u64 = 4_096;

/// The most one reply can write: the `max_tokens` Claude Code 2.1.332 asks
/// for (`../shared/lab/REPORT.md` §3), above every current model's limit.
pub const MAX_OUTPUT_TOKENS: u64 = 128_000;

/// The largest fill the call that answers after `seen` can have, given
/// `bytes_after` bytes recorded after `seen`'s line.
pub fn late_fill_bound(seen: &ContextUsage, bytes_after: u64) -> u64 {
    // 1 is the placeholder of a stream's first event, not a count.
    let output = if seen.output_tokens > 1 {
        seen.output_tokens.min(MAX_OUTPUT_TOKENS)
    } else {
        MAX_OUTPUT_TOKENS
    };
    seen.fill()
        .saturating_add(output)
        .saturating_add(bytes_after)
        .saturating_add(UNRECORDED_TOKENS)
}

/// Whether the late call could make this Stop fire a level that deciding
/// on `seen_fill` would not: a level above both the one already fired
/// (`fired`) and the one `seen_fill` is at.
pub fn could_cross(limits: &Limits, fired: Level, seen_fill: u64, bound: u64) -> bool {
    let late = limits.level(bound);
    late > fired && late > limits.level(seen_fill)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::WindowSource;

    const LIMITS: Limits = Limits {
        window: 200_000,
        warn: 120_000,
        hard: 160_000,
        source: WindowSource::Table,
    };

    fn seen(fill: u64, output: u64) -> ContextUsage {
        ContextUsage {
            cache_read_input_tokens: fill,
            output_tokens: output,
            ..Default::default()
        }
    }

    #[test]
    fn the_bound_adds_output_bytes_and_the_unrecorded_margin() {
        assert_eq!(
            late_fill_bound(&seen(100_000, 900), 3_000),
            100_000 + 900 + 3_000 + UNRECORDED_TOKENS
        );
    }

    #[test]
    fn a_placeholder_output_counts_as_the_largest_reply() {
        assert_eq!(
            late_fill_bound(&seen(10_000, 1), 0),
            10_000 + MAX_OUTPUT_TOKENS + UNRECORDED_TOKENS
        );
        assert_eq!(
            late_fill_bound(&seen(10_000, 500_000), 0),
            10_000 + MAX_OUTPUT_TOKENS + UNRECORDED_TOKENS
        );
    }

    #[test]
    fn far_from_every_level_the_guard_does_not_wait() {
        let s = seen(21_200, 70);
        let bound = late_fill_bound(&s, 5_000);
        assert!(!could_cross(&LIMITS, Level::None, s.fill(), bound));
    }

    #[test]
    fn near_a_level_not_fired_yet_it_waits() {
        let s = seen(116_000, 70);
        let bound = late_fill_bound(&s, 0);
        assert!(bound >= LIMITS.warn, "{bound}");
        assert!(could_cross(&LIMITS, Level::None, s.fill(), bound));
    }

    #[test]
    fn a_level_already_fired_or_already_reached_is_no_reason_to_wait() {
        // Warn fired; the late call can reach warn again but not hard.
        let s = seen(130_000, 70);
        let bound = late_fill_bound(&s, 2_000);
        assert!(bound < LIMITS.hard);
        assert!(!could_cross(&LIMITS, Level::Warn, s.fill(), bound));
        // Not fired, but the seen fill is at warn already: warn fires now,
        // on what is seen, and the late call cannot reach hard.
        assert!(!could_cross(&LIMITS, Level::None, s.fill(), bound));
        // A big tool result recorded after the seen call can reach hard.
        let bound = late_fill_bound(&s, 40_000);
        assert!(could_cross(&LIMITS, Level::Warn, s.fill(), bound));
    }
}
