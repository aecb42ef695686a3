//! The CI runs a turn looked at, as bullets.

use super::{Record, TurnCtx, cap, one_line};
use crate::extract::digest::CiState;

impl TurnCtx<'_> {
    /// The CI runs the turn looked at, the last of each workflow and
    /// branch: a run that failed, then one that passed after a fix, leaves
    /// the passing one. A failure is a problem; the rest is the work's
    /// state (a run still queued when the turn ended says the outcome was
    /// not seen).
    pub(super) fn ci_runs(&self, rec: &mut Record) {
        let w = self.w;
        let runs = &self.turn.ci;
        for (i, r) in runs.iter().enumerate() {
            let superseded = runs[i + 1..]
                .iter()
                .any(|l| l.workflow == r.workflow && l.branch == r.branch);
            let state = match r.state {
                CiState::Queued => 0,
                CiState::Running => 1,
                CiState::Passed => 2,
                CiState::Failed => 3,
                CiState::Cancelled => continue,
            };
            if superseded {
                continue;
            }
            let clean = |s: &str| cap(&one_line(s).replace('`', "'"), 60);
            let branch = if r.branch.is_empty() {
                String::new()
            } else {
                format!("`{}`, ", clean(&r.branch))
            };
            let steps = if r.failed_steps.is_empty() {
                String::new()
            } else {
                let steps: Vec<String> = r
                    .failed_steps
                    .iter()
                    .map(|s| format!("`{}`", clean(s)))
                    .collect();
                format!(" {} {}", w.ci_at_step, steps.join(", "))
            };
            let b = format!(
                "CI `{}` {}{steps} ({branch}run {})",
                clean(&r.workflow),
                w.ci[state],
                clean(&r.id)
            );
            if r.state == CiState::Failed {
                rec.push(&self.primary, |s| &mut s.problemes, &b);
            } else {
                rec.push(&self.primary, |s| &mut s.travail, &b);
            }
        }
    }
}
