//! Changes made on another host over ssh, as one action per host.

use crate::extract::digest::{Action, ActionKind};

/// The turn's actions with the changes made on one host over ssh said
/// once, in the order they were made: a server fixed over ten calls is one
/// bullet. One failing is kept apart.
pub(super) fn merged(actions: &[Action]) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for a in actions {
        if a.kind == ActionKind::Remote
            && a.ok
            && let Some((host, what)) = a.detail.split_once(": ")
            && let Some(m) = out.iter_mut().find(|m| {
                m.kind == ActionKind::Remote
                    && m.ok
                    && m.detail.split_once(": ").is_some_and(|(h, _)| h == host)
            })
        {
            for c in what.split(", ") {
                if !m
                    .detail
                    .split_once(": ")
                    .is_some_and(|(_, d)| d.split(", ").any(|x| x == c))
                {
                    m.detail = format!("{}, {c}", m.detail);
                }
            }
            continue;
        }
        out.push(a.clone());
    }
    out
}
