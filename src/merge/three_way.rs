//! The three-way merge of one memory file, section by section and bullet by
//! bullet (SPEC §1.12).
//!
//! Rules, each the answer a person merging two logs by hand would give:
//! - a section or a bullet added on either side is kept, once (bullets are
//!   the same when their comparison key is, as in the log merge, §1.4);
//! - one deleted on one side and left as it was on the other is deleted;
//!   one deleted on one side and changed on the other is kept, changed;
//! - a to-do finalised on one side (moved to `Finalisé`) and left open on
//!   the other ends up only in `Finalisé`;
//! - order follows our side; what only their side added goes right after
//!   the line that precedes it on their side, after what we added there.
//!
//! What has no single right answer is a [`Conflict`], and the caller falls
//! back to git's own line merge: a heading edited differently on both
//! sides, the same lines rewritten differently on both sides, a bullet of
//! the common ancestor that the two sides moved to different sections.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::doc::{Doc, Section, SectionId, Unit, UnitId};
use crate::memory::log::SectionKey;

/// Why the merge gave up; the caller leaves conflict markers instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict(pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Merges `ours` and `theirs`, both descended from `base` (empty when the
/// file was created on both sides). The result keeps our line endings.
pub fn merge(base: &str, ours: &str, theirs: &str) -> Result<String, Conflict> {
    if ours == theirs || base == theirs {
        return Ok(ours.to_string());
    }
    if base == ours {
        return Ok(theirs.to_string());
    }
    let (o, a, b) = (Doc::parse(base), Doc::parse(ours), Doc::parse(theirs));
    let mut sections = merge_sections(&o, &a, &b)?;
    one_title(&sections, &a, &b)?;
    finalise_todos(&mut sections, &a, &b);
    drop_duplicates(&mut sections, &o, &a, &b)?;
    drop_emptied(&mut sections, &a, &b);
    order_log_sections(&mut sections, &a, &b);
    tidy_seams(&mut sections, &a, &b);
    close_blocks(&mut sections);
    let doc = Doc {
        bom: a.bom,
        crlf: a.crlf,
        final_newline: a.final_newline || (ours.is_empty() && b.final_newline),
        sections: sections.into_iter().map(|(s, _)| s).collect(),
    };
    Ok(doc.render())
}

/// Which side a piece of the result comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Ours,
    Theirs,
    Both,
}

type Merged = Vec<(Section, Vec<Origin>)>;

fn merge_sections(o: &Doc, a: &Doc, b: &Doc) -> Result<Merged, Conflict> {
    let ids = |d: &Doc| d.sections.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    let base_ids: HashSet<SectionId> = ids(o).into_iter().collect();
    let mut out = Vec::new();
    for id in merge_order(&ids(a), &ids(b), &base_ids) {
        let (so, sa, sb) = (o.section(&id), a.section(&id), b.section(&id));
        if let (Some(so), Some(sa), Some(sb)) = (so, sa, sb)
            && sa.heading != so.heading
            && sb.heading != so.heading
            && sa.heading != sb.heading
        {
            return Err(Conflict(format!(
                "the heading {:?} was edited differently on both sides",
                so.heading.as_deref().unwrap_or("")
            )));
        }
        let none: &[Unit] = &[];
        let units = merge_units(
            so.map_or(none, |s| &s.units),
            sa.map_or(none, |s| &s.units),
            sb.map_or(none, |s| &s.units),
        )
        .map_err(|why| Conflict(format!("{}: {why}", describe(&id))))?;
        let present = pick(&so.is_some(), &sa.is_some(), &sb.is_some());
        if !(present || !units.is_empty() || id == SectionId::Head) {
            continue;
        }
        let from = sa.or(sb).expect("an id comes from one side");
        let (units, origins) = units.into_iter().unzip();
        out.push((
            Section {
                id,
                heading: from.heading.clone(),
                units,
                trailing: from.trailing.clone(),
            },
            origins,
        ));
    }
    Ok(out)
}

fn describe(id: &SectionId) -> String {
    match id {
        SectionId::Head => "the title block".to_string(),
        SectionId::Known(key, _) => format!("section {}", key.heading(Default::default())),
        SectionId::Other(heading, _) => format!("section {heading}"),
    }
}

/// The three-way choice for one value: unchanged on a side means the other
/// side's change wins; changed on both, ours.
fn pick<T: PartialEq + Clone>(base: &T, ours: &T, theirs: &T) -> T {
    if ours == base { theirs } else { ours }.clone()
}

fn merge_units(o: &[Unit], a: &[Unit], b: &[Unit]) -> Result<Vec<(Unit, Origin)>, String> {
    let index = |units: &[Unit]| -> HashMap<UnitId, usize> {
        units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.id.clone(), i))
            .collect()
    };
    let (io, ia, ib) = (index(o), index(a), index(b));
    let ids = |units: &[Unit]| units.iter().map(|u| u.id.clone()).collect::<Vec<_>>();
    let base_ids: HashSet<UnitId> = ids(o).into_iter().collect();

    // The same lines rewritten on both sides: deleted from the ancestor on
    // both, and each side put its own new text there. Keeping both would
    // say two different things at once; choosing would lose one.
    let is_text = |id: &UnitId| matches!(id, UnitId::Text(..));
    let added = |side: &[Unit]| -> HashSet<UnitId> {
        side.iter()
            .map(|u| u.id.clone())
            .filter(|id| is_text(id) && !base_ids.contains(id))
            .collect()
    };
    let rewritten_on_both = o
        .iter()
        .any(|u| is_text(&u.id) && !ia.contains_key(&u.id) && !ib.contains_key(&u.id));
    let (added_a, added_b) = (added(a), added(b));
    if rewritten_on_both && !added_a.is_empty() && !added_b.is_empty() && added_a != added_b {
        return Err("the same lines were rewritten differently on both sides".to_string());
    }

    let mut out = Vec::new();
    for id in merge_order(&ids(a), &ids(b), &base_ids) {
        let uo = io.get(&id).map(|&i| &o[i]);
        let (ua, ub) = (ia.get(&id).map(|&i| &a[i]), ib.get(&id).map(|&i| &b[i]));
        match (ua, ub) {
            (Some(ua), Some(ub)) => out.push((merge_unit(uo, ua, ub), Origin::Both)),
            // Added on one side, or changed there while the other deleted it.
            (Some(u), None) if uo.is_none_or(|uo| uo.lines != u.lines) => {
                out.push((u.clone(), Origin::Ours))
            }
            (None, Some(u)) if uo.is_none_or(|uo| uo.lines != u.lines) => {
                out.push((u.clone(), Origin::Theirs))
            }
            _ => {}
        }
    }
    Ok(out)
}

/// One unit both sides kept: the bullet line as the side that changed it
/// wrote it; the lines hanging from it merged line by line.
fn merge_unit(o: Option<&Unit>, a: &Unit, b: &Unit) -> Unit {
    let mut unit = a.clone();
    if a.lines == b.lines {
        return unit;
    }
    match o {
        Some(o) if o.lines == a.lines => unit.lines = b.lines.clone(),
        Some(o) if o.lines == b.lines => {}
        _ => {
            let none: &[String] = &[];
            let attached = merge_lines(
                o.map_or(none, |o| &o.lines[1..]),
                &a.lines[1..],
                &b.lines[1..],
            );
            let head = pick(
                &o.map(|o| o.lines[0].clone()),
                &Some(a.lines[0].clone()),
                &Some(b.lines[0].clone()),
            )
            .expect("units have a first line");
            unit.lines = std::iter::once(head).chain(attached).collect();
        }
    }
    unit
}

/// Lines merged as a set that keeps order: added on either side kept once,
/// deleted on one side and present on the other deleted.
fn merge_lines(o: &[String], a: &[String], b: &[String]) -> Vec<String> {
    let ranked = |lines: &[String]| -> Vec<(String, usize)> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        lines
            .iter()
            .map(|l| {
                let n = seen.entry(l).or_default();
                *n += 1;
                (l.clone(), *n - 1)
            })
            .collect()
    };
    let (ro, ra, rb) = (ranked(o), ranked(a), ranked(b));
    let base: HashSet<(String, usize)> = ro.into_iter().collect();
    let (in_a, in_b): (HashSet<_>, HashSet<_>) =
        (ra.iter().cloned().collect(), rb.iter().cloned().collect());
    merge_order(&ra, &rb, &base)
        .into_iter()
        .filter(|k| (in_a.contains(k) && in_b.contains(k)) || !base.contains(k))
        .map(|(line, _)| line)
        .collect()
}

/// The union of both sides' items in one order: ours as it is, then each
/// item only theirs has, placed right after the nearest item that precedes
/// it on their side, past what only we added there (so two sides appending
/// to the same list give ours then theirs).
fn merge_order<K: Clone + Eq + Hash>(a: &[K], b: &[K], base: &HashSet<K>) -> Vec<K> {
    let in_a: HashSet<&K> = a.iter().collect();
    let in_b: HashSet<&K> = b.iter().collect();
    // Each item only theirs has hangs from the last item before it on
    // their side that we also have (or from the start).
    let mut front: Vec<&K> = Vec::new();
    let mut attached: HashMap<&K, Vec<&K>> = HashMap::new();
    let mut anchor: Option<&K> = None;
    let mut seen: HashSet<&K> = HashSet::new();
    for k in b {
        if in_a.contains(k) {
            anchor = Some(k);
        } else if seen.insert(k) {
            match anchor {
                Some(x) => attached.entry(x).or_default().push(k),
                None => front.push(k),
            }
        }
    }
    let ours_only_new = |k: &K| !base.contains(k) && !in_b.contains(k);
    let mut out: Vec<K> = Vec::with_capacity(a.len() + seen.len());
    let mut waiting: Vec<&K> = front;
    for k in a {
        if !waiting.is_empty() && !ours_only_new(k) {
            out.extend(waiting.drain(..).cloned());
        }
        out.push(k.clone());
        if let Some(list) = attached.get(k) {
            waiting.extend(list.iter().copied());
        }
    }
    out.extend(waiting.into_iter().cloned());
    out
}

/// Keys of bullets in sections of one kind.
fn keys_in(doc_sections: &[&Section], key: SectionKey) -> HashSet<String> {
    doc_sections
        .iter()
        .filter(|s| matches!(s.id, SectionId::Known(k, _) if k == key))
        .flat_map(|s| &s.units)
        .filter_map(|u| u.id.bullet_key().map(str::to_string))
        .collect()
}

/// A to-do one side finalised (in `Finalisé`, no longer in `À suivre`) and
/// the other still has open leaves `À suivre`; lines the open copy had
/// gained move with it under the finalised bullet.
fn finalise_todos(sections: &mut Merged, a: &Doc, b: &Doc) {
    let finalised_by = |d: &Doc| -> HashSet<String> {
        let all: Vec<&Section> = d.sections.iter().collect();
        let open = keys_in(&all, SectionKey::ASuivre);
        keys_in(&all, SectionKey::Finalise)
            .into_iter()
            .filter(|k| !open.contains(k))
            .collect()
    };
    let finalised: HashSet<String> = finalised_by(a).union(&finalised_by(b)).cloned().collect();
    let merged: Vec<&Section> = sections.iter().map(|(s, _)| s).collect();
    let done = keys_in(&merged, SectionKey::Finalise);
    let mut moved: Vec<(String, Vec<String>)> = Vec::new();
    for (section, origins) in sections.iter_mut() {
        if !matches!(section.id, SectionId::Known(SectionKey::ASuivre, _)) {
            continue;
        }
        let mut i = 0;
        while i < section.units.len() {
            match section.units[i].id.bullet_key().map(str::to_string) {
                Some(k) if finalised.contains(&k) && done.contains(&k) => {
                    let unit = section.units.remove(i);
                    origins.remove(i);
                    moved.push((k, unit.lines[1..].to_vec()));
                }
                _ => i += 1,
            }
        }
    }
    for (key, lines) in moved {
        let target = sections
            .iter_mut()
            .filter(|(s, _)| matches!(s.id, SectionId::Known(SectionKey::Finalise, _)))
            .flat_map(|(s, _)| s.units.iter_mut())
            .find(|u| u.id.bullet_key() == Some(key.as_str()));
        if let Some(unit) = target {
            for line in lines {
                if !unit.lines[1..].contains(&line) {
                    unit.lines.push(line);
                }
            }
        }
    }
}

/// Every bullet once: a bullet both sides added, each in its own section,
/// stays where we put it. One of the ancestor's that the two sides moved to
/// different sections cannot be placed without choosing: a conflict.
fn drop_duplicates(sections: &mut Merged, o: &Doc, a: &Doc, b: &Doc) -> Result<(), Conflict> {
    let (co, ca, cb) = (o.bullet_counts(), a.bullet_counts(), b.bullet_counts());
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (s, _) in sections.iter() {
        for k in s.units.iter().filter_map(|u| u.id.bullet_key()) {
            *counts.entry(k.to_string()).or_default() += 1;
        }
    }
    let mut excess: HashMap<String, usize> = HashMap::new();
    for (k, n) in counts {
        let allowed = ca
            .get(k.as_str())
            .copied()
            .unwrap_or(0)
            .max(cb.get(k.as_str()).copied().unwrap_or(0));
        if n > allowed {
            if co.contains_key(k.as_str()) {
                return Err(Conflict(format!(
                    "the bullet {k:?} was moved to different sections on the two sides"
                )));
            }
            excess.insert(k, n - allowed);
        }
    }
    if excess.is_empty() {
        return Ok(());
    }
    // Drop their copies, last first; lines hanging from them move to ours.
    let mut orphans: Vec<(String, Vec<String>)> = Vec::new();
    for (section, origins) in sections.iter_mut().rev() {
        let mut i = section.units.len();
        while i > 0 {
            i -= 1;
            let Some(k) = section.units[i].id.bullet_key() else {
                continue;
            };
            if origins[i] == Origin::Theirs
                && let Some(n) = excess.get_mut(k)
                && *n > 0
            {
                *n -= 1;
                let unit = section.units.remove(i);
                origins.remove(i);
                orphans.push((k_owned(&unit), unit.lines[1..].to_vec()));
            }
        }
    }
    for (key, lines) in orphans {
        let keeper = sections
            .iter_mut()
            .flat_map(|(s, _)| s.units.iter_mut())
            .find(|u| u.id.bullet_key() == Some(key.as_str()));
        if let Some(unit) = keeper {
            for line in lines {
                if !unit.lines[1..].contains(&line) {
                    unit.lines.push(line);
                }
            }
        }
    }
    if let Some((k, _)) = excess.iter().find(|(_, n)| **n > 0) {
        return Err(Conflict(format!(
            "the bullet {k:?} was added to different sections on the two sides"
        )));
    }
    Ok(())
}

fn k_owned(unit: &Unit) -> String {
    unit.id.bullet_key().unwrap_or_default().to_string()
}

/// A log section left with nothing under it goes, as the log writer never
/// writes one; unless a side has that heading empty on purpose.
fn drop_emptied(sections: &mut Merged, a: &Doc, b: &Doc) {
    sections.retain(|(s, _)| {
        !s.units.is_empty()
            || !matches!(s.id, SectionId::Known(..))
            || [a, b]
                .iter()
                .any(|d| d.section(&s.id).is_some_and(|x| x.units.is_empty()))
    });
}

/// Sections from the two sides meet: a heading must not follow text with
/// no blank line between, and the file ends as ours did.
fn tidy_seams(sections: &mut Merged, a: &Doc, b: &Doc) {
    let n = sections.len();
    for (s, _) in sections.iter_mut().take(n.saturating_sub(1)) {
        let has_lines = s.heading.is_some() || !s.units.is_empty();
        if has_lines && s.trailing.is_empty() {
            s.trailing.push(String::new());
        }
    }
    let last_of = |d: &Doc| d.sections.last().map(|s| s.trailing.clone());
    if let Some((s, _)) = sections.last_mut() {
        let tail = if a
            .sections
            .iter()
            .any(|s| s.heading.is_some() || !s.units.is_empty())
        {
            last_of(a)
        } else {
            last_of(b)
        };
        s.trailing = tail.unwrap_or_default();
    }
}

/// Log sections come in the format's order. Theirs-only sections are placed
/// by their neighbours, which can put `À suivre` after our new `Finalisé`;
/// when both sides keep the format's order, so does the result.
fn order_log_sections(sections: &mut Merged, a: &Doc, b: &Doc) {
    let known = |ids: &mut dyn Iterator<Item = &SectionId>| -> Vec<(SectionKey, usize)> {
        ids.filter_map(|id| match id {
            SectionId::Known(k, n) => Some((*k, *n)),
            _ => None,
        })
        .collect()
    };
    let ordered = |d: &Doc| known(&mut d.sections.iter().map(|s| &s.id)).is_sorted();
    if !(ordered(a) && ordered(b)) {
        return;
    }
    let slots: Vec<usize> = (0..sections.len())
        .filter(|&i| matches!(sections[i].0.id, SectionId::Known(..)))
        .collect();
    let mut moved: Vec<_> = slots.iter().map(|&i| sections[i].clone()).collect();
    moved.sort_by(|x, y| x.0.id.cmp(&y.0.id));
    for (slot, item) in slots.into_iter().zip(moved) {
        sections[slot] = item;
    }
}

/// A code block or comment that ran to the end of its file is closed when
/// the merge put something after it, which it would otherwise swallow.
fn close_blocks(sections: &mut Merged) {
    let n = sections.len();
    for i in 0..n {
        let more_sections = sections[i + 1..]
            .iter()
            .any(|(s, _)| s.heading.is_some() || !s.units.is_empty());
        let units = &mut sections[i].0.units;
        let count = units.len();
        for (j, u) in units.iter_mut().enumerate() {
            if (j + 1 < count || more_sections)
                && let Some(closing) = u.unclosed.take()
            {
                u.lines.push(closing);
            }
        }
    }
}

/// A file has one title: two different ones (both sides created the file
/// with their own, or retitled it) is for a person to settle.
fn one_title(sections: &Merged, a: &Doc, b: &Doc) -> Result<(), Conflict> {
    let titles = |s: Option<&Section>| {
        s.map_or(0, |s| {
            s.units
                .iter()
                .filter(|u| u.lines[0].starts_with("# ") || u.lines[0] == "#")
                .count()
        })
    };
    let merged = titles(
        sections
            .iter()
            .map(|(s, _)| s)
            .find(|s| s.id == SectionId::Head),
    );
    let allowed = titles(a.section(&SectionId::Head)).max(titles(b.section(&SectionId::Head)));
    if merged > allowed {
        return Err(Conflict("the title differs on the two sides".to_string()));
    }
    Ok(())
}
