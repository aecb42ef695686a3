//! One record per API response, across lines, files and sessions.
//!
//! The client writes one line per content block, each repeating the usage
//! (older clients the stream's first figures on some lines, the final ones
//! on others), so lines are merged by (message id, request id) and the
//! largest usage wins. Side questions and forks replay a parent message
//! under the same message id and a new request id, marked as sidechain:
//! when one side of such a pair is a sidechain the non-sidechain copy is
//! kept and the replay is not counted again (ccusage's rule, issue #913).

use super::store::Rec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The keys are already FNV hashes: spread them with one multiply instead
/// of hashing them again with SipHash (a report merges every record).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    // Only integer keys reach this hasher; bytes, should any come, go
    // through the crate's one FNV-1a.
    fn write(&mut self, bytes: &[u8]) {
        self.write_u64(self.0 ^ crate::hash::fnv1a(bytes));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(26);
    }
}

type KeyMap = HashMap<u64, usize, BuildHasherDefault<KeyHasher>>;

/// What an offered record did to the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A response not seen before.
    New(usize),
    /// A better copy of a response already kept (at that index).
    Replaced(usize),
    /// A copy that changes nothing.
    Dropped,
}

/// Kept records, each with an owner tag (the session it belongs to in a
/// report; unused within one session).
#[derive(Debug, Clone, Default)]
pub struct Dedup {
    by_key: KeyMap,
    by_msg: KeyMap,
    pub recs: Vec<Rec>,
    pub owners: Vec<u32>,
}

/// Is `new` a better copy of the response than `old`? The main thread's
/// copy beats a replay; otherwise the larger usage (a later line of the
/// same stream); on a tie the first one stays.
fn better(new: &Rec, old: &Rec) -> bool {
    if new.sidechain() != old.sidechain() {
        return !new.sidechain();
    }
    new.total_tokens() > old.total_tokens()
}

impl Dedup {
    pub fn new() -> Dedup {
        Dedup::default()
    }

    pub fn with_capacity(n: usize) -> Dedup {
        Dedup {
            by_key: KeyMap::with_capacity_and_hasher(n, Default::default()),
            by_msg: KeyMap::with_capacity_and_hasher(n, Default::default()),
            recs: Vec::with_capacity(n),
            owners: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.recs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    pub fn offer(&mut self, r: Rec, owner: u32) -> Offer {
        let existing = match self.by_key.get(&r.key) {
            Some(&i) => Some(i),
            None if r.msg != 0 => match self.by_msg.get(&r.msg) {
                Some(&i) if r.sidechain() || self.recs[i].sidechain() => {
                    // Later lines of this replay land here directly.
                    self.by_key.insert(r.key, i);
                    Some(i)
                }
                _ => None,
            },
            None => None,
        };
        match existing {
            Some(i) if better(&r, &self.recs[i]) => {
                self.recs[i] = r;
                self.owners[i] = owner;
                Offer::Replaced(i)
            }
            Some(_) => Offer::Dropped,
            None => {
                let i = self.recs.len();
                self.by_key.insert(r.key, i);
                if r.msg != 0 {
                    self.by_msg.entry(r.msg).or_insert(i);
                }
                self.recs.push(r);
                self.owners.push(owner);
                Offer::New(i)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::store::FLAG_SIDECHAIN;
    use proptest::prelude::*;

    fn r(key: u64, msg: u64, out: u32, side: bool) -> Rec {
        Rec {
            key,
            msg,
            input: 10,
            output: out,
            flags: if side { FLAG_SIDECHAIN } else { 0 },
            ..Rec::default()
        }
    }

    #[test]
    fn largest_wins_and_replays_yield_to_the_main_thread() {
        let mut d = Dedup::new();
        assert_eq!(d.offer(r(1, 11, 1, false), 0), Offer::New(0));
        assert_eq!(d.offer(r(1, 11, 55, false), 0), Offer::Replaced(0));
        assert_eq!(d.offer(r(1, 11, 1, false), 0), Offer::Dropped);
        // A retry: same message id from another request on the main thread
        // is another call.
        assert_eq!(d.offer(r(2, 11, 3, false), 0), Offer::New(1));
        // A sidechain replay of message 11 under a new request id.
        assert_eq!(d.offer(r(3, 11, 99, true), 1), Offer::Dropped);
        assert_eq!(d.offer(r(3, 11, 100, true), 1), Offer::Dropped);
        // The replay seen first, then the original: the original wins.
        assert_eq!(d.offer(r(5, 22, 9, true), 1), Offer::New(2));
        assert_eq!(d.offer(r(6, 22, 4, false), 0), Offer::Replaced(2));
        assert_eq!((d.recs[2].key, d.owners[2]), (6, 0));
        assert_eq!(d.offer(r(5, 22, 50, true), 1), Offer::Dropped);
        // No message id: never merged.
        assert_eq!(d.offer(r(7, 0, 1, false), 0), Offer::New(3));
        assert_eq!(d.offer(r(8, 0, 1, false), 0), Offer::New(4));
    }

    proptest! {
        /// Logging only what changed the set and replaying the log gives the
        /// same set: the property the incremental record log relies on.
        #[test]
        fn replaying_the_winners_gives_the_same_set(
            lines in proptest::collection::vec((0u64..6, 0u32..50, any::<bool>()), 0..60)
        ) {
            let mut d = Dedup::new();
            let mut log = Vec::new();
            for &(k, out, side) in &lines {
                let rec = r(k * 7 + u64::from(side), k + 100, out, side);
                if d.offer(rec, 0) != Offer::Dropped {
                    log.push(rec);
                }
            }
            let mut again = Dedup::new();
            for rec in log {
                again.offer(rec, 0);
            }
            let totals = |d: &Dedup| d.recs.iter().map(Rec::total_tokens).sum::<u64>();
            prop_assert_eq!(totals(&d), totals(&again));
            prop_assert_eq!(d.recs.len(), again.recs.len());
        }
    }
}
