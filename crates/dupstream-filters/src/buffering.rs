//! The buffering baselines of Deng & Rafiei, *Approximately Detecting Duplicates for Streaming
//! Data using Stable Bloom Filters*, SIGMOD 2006: LRU buffering (Section 2.2, "The Buffering
//! Method"; implementation in Section 5.2, "Buffering Implementation") and FPBuffering
//! (Section 5.2, "FPbuffering Implementation").
//!
//! A buffer keeps the most recent distinct elements. For each element the buffer is searched: a
//! hit answers DUPLICATE and moves the entry to the front (most recently used); a miss answers
//! UNSEEN and stores the element, evicting the least recently used entry when the buffer is
//! full. [`FpBuffering`] differs only on a miss: it answers DUPLICATE with probability `q` and
//! UNSEEN with probability `1 - q` ("q is the FP rate since a distinct element will be reported
//! as duplicate with a probability q"); the element is stored either way.
//!
//! Readings:
//! - **Memory.** The paper charges only the entries: "buffering and FP-buffering required 64
//!   bits per URL fingerprint on the Web data ... and 32 bits per element on the synthetic
//!   data", and "our error rate comparison did not account for the extra space we used in
//!   buffering" (the hash table and the LRU list). So the capacity is
//!   `floor(budget / entry_bits)` ([`capacity_for`]) and [`DuplicateFilter::memory_bits`] is
//!   `capacity · entry_bits`; the index (a table of node numbers) and the list links are not
//!   charged.
//! - **Entries.** With `entry_bits = 64` an entry is the 64-bit key hash itself. Key hashes are
//!   a bijection of the keys for a fixed seed, so the buffer is exact: no false positive, ever.
//!   With `entry_bits = 32` an entry is a 32-bit fingerprint derived from the hash
//!   ([`crate::hash::rehash`]); two keys with equal fingerprints collide, so a distinct element
//!   may be reported DUPLICATE when its fingerprint is in the buffer. With `n` entries stored
//!   this happens with probability about `n / 2^32` per distinct element
//!   ([`fingerprint_collision_rate`]). The paper's synthetic keys were 32-bit values, where
//!   storing the key itself is exact; here keys are arbitrary 64-bit values, hence the
//!   fingerprint.
//! - **q.** Section 5.2 sets q to the SBF's false positive rate ("we set the FP rates to the
//!   same number as SBF"), since q *is* FPBuffering's false positive rate on an exact buffer:
//!   [`q_for_fp_rate`] is that identity, and [`expected_fp_rate`] adds the fingerprint
//!   collisions of 32-bit entries.
//! - **LRU.** The paper used "a double linked list"; here the list lives in a slab (`Vec` of
//!   nodes with `u32` prev/next indices), so there is no allocation per element once the buffer
//!   is full. The slab and its index grow on demand up to the capacity, so a large budget does
//!   not allocate up front.

use crate::error::{Error, Result, ensure, words_for_bits};
use crate::hash::{mix64, rehash};
use crate::rng::{FilterRng, Rng, filter_rng, unit_f64};
use crate::{DuplicateFilter, Occupancy, OccupancyKind, PREFETCH_DISTANCE};

/// Salt for the 32-bit fingerprint of a key hash.
const FINGERPRINT_SALT: u64 = 0xb0ff_e41e;
/// The "no node" link.
const NIL: u32 = u32::MAX;

fn default_entry_bits() -> u32 {
    64
}

/// Parameters of [`LruBuffering`].
///
/// ```toml
/// entry_bits = 32   # default 64 (Section 5.2: 64 bits per URL fingerprint, 32 per synthetic element)
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct LruBufferingParams {
    /// Bits charged per buffer entry: 64 (the key hash, exact) or 32 (a 32-bit fingerprint,
    /// collisions possible). Default 64.
    #[cfg_attr(feature = "serde", serde(default = "default_entry_bits"))]
    pub entry_bits: u32,
}

impl Default for LruBufferingParams {
    fn default() -> Self {
        Self {
            entry_bits: default_entry_bits(),
        }
    }
}

/// Parameters of [`FpBuffering`].
///
/// ```toml
/// q = 0.1           # probability of answering DUPLICATE on a miss (= the target FP rate)
/// entry_bits = 64
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct FpBufferingParams {
    /// `q`, the probability that a miss is reported as DUPLICATE (Section 5.2). Set it to the
    /// false positive rate to match, see [`q_for_fp_rate`].
    pub q: f64,
    /// Bits charged per buffer entry: 64 or 32, as for [`LruBufferingParams::entry_bits`].
    #[cfg_attr(feature = "serde", serde(default = "default_entry_bits"))]
    pub entry_bits: u32,
}

/// Number of entries a buffer of `budget_bits` holds: `floor(budget_bits / entry_bits)`
/// (Section 5.2: only the entries are charged).
pub fn capacity_for(budget_bits: u64, entry_bits: u32) -> u64 {
    budget_bits / u64::from(entry_bits.max(1))
}

/// The `q` that gives FPBuffering the false positive rate `fp` (Section 5.2: "q is the FP
/// rate since a distinct element will be reported as duplicate with a probability q"). This is
/// the identity; with 32-bit entries the realised rate is slightly higher, see
/// [`expected_fp_rate`].
pub fn q_for_fp_rate(fp: f64) -> f64 {
    fp
}

/// Probability that a distinct element's entry collides with one of `stored` entries of
/// `entry_bits` bits: 0 for 64-bit entries (hashes are a bijection of keys), about
/// `stored / 2^32` for 32-bit fingerprints (not from the paper: a consequence of storing a
/// fingerprint instead of the key).
pub fn fingerprint_collision_rate(stored: u64, entry_bits: u32) -> f64 {
    if entry_bits >= 64 {
        0.0
    } else {
        (stored as f64 / 2f64.powi(entry_bits as i32)).min(1.0)
    }
}

/// Expected false positive rate of FPBuffering with a full buffer of `capacity` entries: a
/// distinct element is a false positive if its fingerprint collides, or else with probability
/// `q`: `c + (1 - c)·q` with `c` = [`fingerprint_collision_rate`]. For 64-bit entries this is
/// `q` (Section 5.2); for LRU buffering (`q = 0`) it is the collision rate alone.
pub fn expected_fp_rate(q: f64, capacity: u64, entry_bits: u32) -> f64 {
    let c = fingerprint_collision_rate(capacity, entry_bits);
    c + (1.0 - c) * q
}

/// Validates the entry width and returns the capacity for a budget.
fn resolve(structure: &'static str, budget_bits: u64, entry_bits: u32) -> Result<u64> {
    ensure(
        entry_bits == 32 || entry_bits == 64,
        "entry_bits",
        entry_bits,
        "must be 32 or 64",
    )?;
    words_for_bits(structure, budget_bits)?;
    let capacity = capacity_for(budget_bits, entry_bits);
    if capacity == 0 {
        return Err(Error::BudgetTooSmall {
            structure,
            budget_bits,
            needed_bits: u64::from(entry_bits),
        });
    }
    if capacity >= u64::from(NIL) {
        return Err(Error::CapacityTooLarge {
            structure,
            bits: budget_bits,
        });
    }
    Ok(capacity)
}

/// One slab node of the LRU list.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The index key of the entry (the hash, or the mixed 32-bit fingerprint).
    key: u64,
    prev: u32,
    next: u32,
}

/// Slots of an [`Index`] group.
const GROUP: usize = 8;
/// `0x01` in every byte.
const LSB: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte.
const MSB: u64 = 0x8080_8080_8080_8080;

/// A group of the [`Index`]: one cache line, eight one-byte tags (0 for an empty slot,
/// `0x80 | 7 bits of the key` for a used one) and the eight slots' nodes.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Group {
    tags: u64,
    nodes: [u32; GROUP],
}

const EMPTY_GROUP: Group = Group {
    tags: 0,
    nodes: [NIL; GROUP],
};

/// `0x80` in each byte of `tags` equal to `tag`, 0 elsewhere (exact: no false matches).
#[inline(always)]
fn match_byte(tags: u64, tag: u8) -> u64 {
    let x = tags ^ (LSB * u64::from(tag));
    !((((x & !MSB) + !MSB) | x) | !MSB)
}

/// The LRU's index, key → node, without the keys (they are in the nodes): a table of groups
/// of eight slots; a key lives in one of two groups, chosen by disjoint bits of the key
/// (which is uniform: a key hash or a mixed fingerprint), and goes into the emptier one. A
/// lookup reads both groups and compares a one-byte tag per slot, eight at a time, then the
/// node's key for a matching tag; a removal empties its tag. There is no probing, so no
/// branch on a probe's length and no tombstones. The table doubles when it would be more than
/// half full; a key whose two groups are both full (rare at that load, about 4 of 8 slots
/// used) goes to a small stash, searched only when it is not empty. A table of its own rather
/// than a `hashbrown` map because a key's groups can be computed, and so prefetched, before
/// the key's step.
#[derive(Debug, Clone)]
struct Index {
    groups: Box<[Group]>,
    /// Nodes whose key found both groups full.
    stash: Vec<u32>,
    len: usize,
}

impl Index {
    /// A table that holds `entries` at most half full without growing.
    fn for_entries(entries: usize) -> Self {
        Self::with_groups((2 * entries).div_ceil(GROUP).next_power_of_two().max(2))
    }

    fn with_groups(groups: usize) -> Self {
        debug_assert!(groups.is_power_of_two());
        Self {
            groups: vec![EMPTY_GROUP; groups].into_boxed_slice(),
            stash: Vec::new(),
            len: 0,
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// The key's two groups (bits 7.. and 39.. of the key; below 2^25 groups they are
    /// disjoint from each other and from the tag's bits 0..7) and its tag.
    #[inline(always)]
    fn place(&self, key: u64) -> (usize, usize, u8) {
        let mask = self.groups.len() - 1;
        let a = (key >> 7) as usize & mask;
        let b = (key.rotate_right(39)) as usize & mask;
        (a, b, 0x80 | (key as u8 & 0x7f))
    }

    /// The node indexed under `key`, if any (`nodes` holds the keys).
    #[inline(always)]
    fn get(&self, key: u64, nodes: &[Node]) -> Option<u32> {
        let (a, b, tag) = self.place(key);
        for g in [a, b] {
            let group = &self.groups[g];
            let mut m = match_byte(group.tags, tag);
            while m != 0 {
                let n = group.nodes[(m.trailing_zeros() / 8) as usize];
                if nodes[n as usize].key == key {
                    return Some(n);
                }
                m &= m - 1;
            }
        }
        if self.stash.is_empty() {
            return None;
        }
        self.stash
            .iter()
            .copied()
            .find(|&n| nodes[n as usize].key == key)
    }

    /// Indexes `node` under `key` (which must be absent; `nodes[node].key == key`).
    #[inline(always)]
    fn insert(&mut self, key: u64, node: u32, nodes: &[Node]) {
        if 2 * (self.len + 1) > self.groups.len() * GROUP {
            self.grow(nodes);
        }
        self.place_node(key, node);
        self.len += 1;
    }

    /// Puts `node` in the emptier of `key`'s groups, or in the stash.
    #[inline(always)]
    fn place_node(&mut self, key: u64, node: u32) {
        let (a, b, tag) = self.place(key);
        let free_a = !self.groups[a].tags & MSB;
        let free_b = !self.groups[b].tags & MSB;
        let (g, free) = if free_b.count_ones() > free_a.count_ones() {
            (b, free_b)
        } else {
            (a, free_a)
        };
        if free == 0 {
            self.stash.push(node);
            return;
        }
        let slot = (free.trailing_zeros() / 8) as usize;
        let group = &mut self.groups[g];
        group.tags |= u64::from(tag) << (8 * slot);
        group.nodes[slot] = node;
    }

    /// Removes the entry of `node`, indexed under `key`.
    #[inline(always)]
    fn remove(&mut self, key: u64, node: u32) {
        let (a, b, tag) = self.place(key);
        for g in [a, b] {
            let group = &mut self.groups[g];
            let mut m = match_byte(group.tags, tag);
            while m != 0 {
                let slot = (m.trailing_zeros() / 8) as usize;
                if group.nodes[slot] == node {
                    group.tags &= !(0xff << (8 * slot));
                    group.nodes[slot] = NIL;
                    self.len -= 1;
                    return;
                }
                m &= m - 1;
            }
        }
        let at = self.stash.iter().position(|&n| n == node);
        debug_assert!(at.is_some(), "node {node} not indexed");
        if let Some(at) = at {
            self.stash.swap_remove(at);
            self.len -= 1;
        }
    }

    /// Doubles the table and indexes every entry again.
    #[cold]
    fn grow(&mut self, nodes: &[Node]) {
        let old = std::mem::replace(self, Self::with_groups(2 * self.groups.len()));
        self.len = old.len;
        let grouped = old.groups.iter().flat_map(|group| {
            let mut used = group.tags & MSB;
            std::iter::from_fn(move || {
                (used != 0).then(|| {
                    let n = group.nodes[(used.trailing_zeros() / 8) as usize];
                    used &= used - 1;
                    n
                })
            })
        });
        for n in grouped.chain(old.stash.iter().copied()) {
            self.place_node(nodes[n as usize].key, n);
        }
    }

    /// The node of the first slot in `key`'s groups whose tag matches, without reading the
    /// node's key (a guess, for prefetching: right unless another key shares the tag).
    #[inline(always)]
    fn peek(&self, key: u64) -> Option<u32> {
        let (a, b, tag) = self.place(key);
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        let (ma, mb) = (match_byte(ga.tags, tag), match_byte(gb.tags, tag));
        let (group, m) = if ma != 0 { (ga, ma) } else { (gb, mb) };
        (m != 0).then(|| group.nodes[(m.trailing_zeros() / 8) as usize])
    }

    /// Hints that `key` will be looked up soon: its two groups.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        let (a, b, _) = self.place(key);
        crate::raw::prefetch(self.groups.as_ptr().wrapping_add(a));
        crate::raw::prefetch(self.groups.as_ptr().wrapping_add(b));
    }
}

/// Evictions ahead whose victims are prefetched: on each eviction the step walks this many
/// links from the new tail towards the head, prefetching the node reached and the index
/// groups of the one before it ([`Lru::prefetch_victims`]).
const EVICT_AHEAD: usize = 3;

/// Entries stored from which [`Lru::step_batch`] also prefetches a hit's node and its
/// neighbours (2^19: 8 MB of nodes and 8-16 MB of index, beyond this machine's caches; at
/// 2^18 entries it did not pay, at 2^19 it gained 10-17 %).
const STAGED_FROM: usize = 1 << 19;
/// Elements ahead whose node (a hit's) is prefetched.
const NODE_AHEAD: usize = 12;
/// Elements ahead whose node's neighbours are prefetched.
const LINKS_AHEAD: usize = 4;

/// An LRU set of `u64` keys (uniformly distributed).
#[derive(Debug, Clone)]
struct Lru {
    index: Index,
    nodes: Vec<Node>,
    /// Most recently used node.
    head: u32,
    /// Least recently used node.
    tail: u32,
    capacity: u32,
}

impl Lru {
    fn new(capacity: u32) -> Self {
        // Grow on demand: a 512 MB budget means 2^26 entries, which the stream may never fill.
        let initial = capacity.min(1 << 16) as usize;
        Self {
            index: Index::for_entries(initial),
            nodes: Vec::with_capacity(initial),
            head: NIL,
            tail: NIL,
            capacity,
        }
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    #[inline(always)]
    fn unlink(&mut self, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    #[inline(always)]
    fn push_front(&mut self, i: u32) {
        let old = self.head;
        {
            let n = &mut self.nodes[i as usize];
            n.prev = NIL;
            n.next = old;
        }
        if old == NIL {
            self.tail = i;
        } else {
            self.nodes[old as usize].prev = i;
        }
        self.head = i;
    }

    /// Looks `key` up; on a hit moves it to the front, on a miss stores it at the front
    /// (evicting the least recently used entry if full). Returns whether it was a hit.
    #[inline]
    fn access(&mut self, key: u64) -> bool {
        if let Some(i) = self.index.get(key, &self.nodes) {
            if i != self.head {
                self.unlink(i);
                self.push_front(i);
            }
            return true;
        }
        let i = if self.nodes.len() < self.capacity as usize {
            if self.nodes.len() == self.nodes.capacity() {
                // Doubling, but never past the capacity: a full slab holds no spare nodes.
                let len = self.nodes.len();
                self.nodes
                    .reserve_exact(len.max(1).min(self.capacity as usize - len));
            }
            self.nodes.push(Node {
                key,
                prev: NIL,
                next: NIL,
            });
            (self.nodes.len() - 1) as u32
        } else {
            let t = self.tail;
            self.index.remove(self.nodes[t as usize].key, t);
            self.unlink(t);
            self.prefetch_victims();
            self.nodes[t as usize].key = key;
            t
        };
        self.push_front(i);
        self.index.insert(key, i, &self.nodes);
        false
    }

    /// Prefetches what the coming evictions read. A miss evicts the tail: its node must be
    /// read before its key's index groups are known, and its predecessor is relinked. Walking
    /// [`EVICT_AHEAD`] links from the new tail (through nodes that earlier evictions
    /// prefetched) reaches the node to prefetch now; the index groups prefetched are those of
    /// the node before it. Only hints: a hit that moves one of these nodes to the front just
    /// wastes them.
    #[inline(always)]
    fn prefetch_victims(&self) {
        let mut p = self.tail;
        for hop in 0..EVICT_AHEAD {
            if p == NIL {
                return;
            }
            let n = &self.nodes[p as usize];
            if hop + 1 == EVICT_AHEAD {
                self.index.prefetch(n.key);
            }
            p = n.prev;
        }
        if p != NIL {
            crate::raw::prefetch(self.nodes.as_ptr().wrapping_add(p as usize));
        }
    }

    /// Hints that `key` will be accessed soon: its index groups.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        self.index.prefetch(key);
    }

    /// Second stage, once the groups are in: the node a hit would move.
    #[inline(always)]
    fn prefetch_node(&self, key: u64) {
        if let Some(n) = self.index.peek(key) {
            crate::raw::prefetch(self.nodes.as_ptr().wrapping_add(n as usize));
        }
    }

    /// Third stage, once the node is in: its neighbours, which a hit relinks.
    #[inline(always)]
    fn prefetch_links(&self, key: u64) {
        if let Some(n) = self.index.peek(key)
            && let Some(node) = self.nodes.get(n as usize)
        {
            // The head's `prev` and the tail's `next` are `NIL`: no node to fetch.
            for link in [node.prev, node.next] {
                if link != NIL {
                    crate::raw::prefetch(self.nodes.as_ptr().wrapping_add(link as usize));
                }
            }
        }
    }

    /// The batched step of both buffers (`step` is the buffer's own). Each element's index
    /// groups are prefetched [`PREFETCH_DISTANCE`] elements ahead. Once the buffer holds
    /// [`STAGED_FROM`] entries (beyond the caches), so are the node a hit would move,
    /// [`NODE_AHEAD`] ahead (its number read from the groups, now in), and that node's
    /// neighbours, [`LINKS_AHEAD`] ahead (read from the node, now in): a hit's relinking is a
    /// chain of dependent reads that the groups' prefetch alone leaves waiting. In cache the
    /// extra lookups cost more than they save.
    #[inline(always)]
    fn step_batch(
        &mut self,
        keys: impl Fn(u64) -> u64,
        hashes: &[u64],
        out: &mut [bool],
        step: impl FnMut(&mut Self, u64) -> bool,
    ) {
        assert!(out.len() >= hashes.len(), "output buffer too short");
        if self.nodes.len() >= STAGED_FROM {
            self.step_batch_with::<true>(keys, hashes, out, step);
        } else {
            self.step_batch_with::<false>(keys, hashes, out, step);
        }
    }

    #[inline(always)]
    fn step_batch_with<const STAGED: bool>(
        &mut self,
        keys: impl Fn(u64) -> u64,
        hashes: &[u64],
        out: &mut [bool],
        mut step: impl FnMut(&mut Self, u64) -> bool,
    ) {
        for &h in hashes.iter().take(PREFETCH_DISTANCE) {
            self.prefetch(keys(h));
        }
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&ahead) = hashes.get(i + PREFETCH_DISTANCE) {
                self.prefetch(keys(ahead));
            }
            if STAGED {
                if let Some(&ahead) = hashes.get(i + NODE_AHEAD) {
                    self.prefetch_node(keys(ahead));
                }
                if let Some(&ahead) = hashes.get(i + LINKS_AHEAD) {
                    self.prefetch_links(keys(ahead));
                }
            }
            out[i] = step(self, h);
        }
    }

    /// Keys from most to least recently used (for tests).
    #[cfg(test)]
    fn keys_mru(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len());
        let mut i = self.head;
        while i != NIL {
            out.push(self.nodes[i as usize].key);
            i = self.nodes[i as usize].next;
        }
        out
    }
}

/// The buffer entry of a key hash, as a well-mixed `u64` map key: the hash itself for 64-bit
/// entries; a bijective mix of the 32-bit fingerprint for 32-bit entries (the mix only spreads
/// the 32 bits over the word, since the index places a key by its bits; equal fingerprints stay
/// equal).
#[inline(always)]
fn entry_key(hash: u64, entry_bits: u32) -> u64 {
    if entry_bits == 64 {
        hash
    } else {
        mix64(rehash(hash, FINGERPRINT_SALT) >> 32)
    }
}

/// LRU buffering (Deng & Rafiei, Sections 2.2 and 5.2): no false positives with 64-bit
/// entries, false negatives for duplicates evicted before they recur.
///
/// ```
/// use dupstream_filters::{DuplicateFilter, buffering::{LruBuffering, LruBufferingParams}, hash::hash_key};
/// // 4 entries of 64 bits.
/// let mut b = LruBuffering::new(256, &LruBufferingParams::default(), 0).unwrap();
/// for key in 0..4 {
///     assert!(!b.step(hash_key(key, 0)));
/// }
/// assert!(b.step(hash_key(0, 0))); // hit; 0 becomes most recent
/// assert!(!b.step(hash_key(9, 0))); // miss; evicts 1, the least recently used
/// assert!(!b.step(hash_key(1, 0)));
/// ```
#[derive(Debug, Clone)]
pub struct LruBuffering {
    lru: Lru,
    entry_bits: u32,
}

impl LruBuffering {
    /// A buffer of `floor(budget_bits / entry_bits)` entries. It draws no random numbers, so
    /// `seed` is unused.
    pub fn new(budget_bits: u64, params: &LruBufferingParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let capacity = resolve("lru_buffering", budget_bits, params.entry_bits)?;
        Ok(Self {
            lru: Lru::new(capacity as u32),
            entry_bits: params.entry_bits,
        })
    }

    /// The state size a buffer built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &LruBufferingParams) -> Result<u64> {
        resolve("lru_buffering", budget_bits, params.entry_bits)
            .map(|c| c * u64::from(params.entry_bits))
    }

    /// Number of entries the buffer holds when full.
    pub fn capacity(&self) -> u64 {
        u64::from(self.lru.capacity)
    }

    /// Number of entries currently stored.
    pub fn len(&self) -> u64 {
        self.lru.len() as u64
    }

    /// True when nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.lru.len() == 0
    }
}

impl DuplicateFilter for LruBuffering {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        self.lru.access(entry_key(hash, self.entry_bits))
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.lru.prefetch(entry_key(hash, self.entry_bits));
    }

    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        let bits = self.entry_bits;
        self.lru.step_batch(
            |h| entry_key(h, bits),
            hashes,
            out,
            |lru, h| lru.access(entry_key(h, bits)),
        );
    }

    fn memory_bits(&self) -> u64 {
        u64::from(self.lru.capacity) * u64::from(self.entry_bits)
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("entry_bits", self.entry_bits),
            crate::Param::new("capacity", self.capacity()),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.len() as f64 / self.capacity() as f64,
        }
    }
}

/// FPBuffering (Deng & Rafiei, Section 5.2): LRU buffering that answers DUPLICATE on a miss
/// with probability `q`, so that its false positive rate can be matched to an SBF's.
///
/// ```
/// use dupstream_filters::{DuplicateFilter, buffering::{FpBuffering, FpBufferingParams}, hash::hash_key};
/// let p = FpBufferingParams { q: 0.0, entry_bits: 64 };
/// let mut b = FpBuffering::new(1 << 10, &p, 7).unwrap();
/// assert!(!b.step(hash_key(1, 0)));
/// assert!(b.step(hash_key(1, 0)));
/// ```
#[derive(Debug, Clone)]
pub struct FpBuffering {
    lru: Lru,
    entry_bits: u32,
    q: f64,
    rng: FilterRng,
}

impl FpBuffering {
    /// A buffer of `floor(budget_bits / entry_bits)` entries whose misses are reported
    /// DUPLICATE with probability `q`, drawn from the generator of `seed`.
    pub fn new(budget_bits: u64, params: &FpBufferingParams, seed: u64) -> Result<Self> {
        let capacity = Self::resolve(budget_bits, params)?;
        Ok(Self {
            lru: Lru::new(capacity as u32),
            entry_bits: params.entry_bits,
            q: params.q,
            rng: filter_rng(seed, 0),
        })
    }

    fn resolve(budget_bits: u64, params: &FpBufferingParams) -> Result<u64> {
        ensure(
            params.q.is_finite() && (0.0..=1.0).contains(&params.q),
            "q",
            params.q,
            "must be a probability in [0, 1]",
        )?;
        resolve("fp_buffering", budget_bits, params.entry_bits)
    }

    /// The state size a buffer built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &FpBufferingParams) -> Result<u64> {
        Self::resolve(budget_bits, params).map(|c| c * u64::from(params.entry_bits))
    }

    /// Number of entries the buffer holds when full.
    pub fn capacity(&self) -> u64 {
        u64::from(self.lru.capacity)
    }

    /// Number of entries currently stored.
    pub fn len(&self) -> u64 {
        self.lru.len() as u64
    }

    /// True when nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.lru.len() == 0
    }
}

impl DuplicateFilter for FpBuffering {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        if self.lru.access(entry_key(hash, self.entry_bits)) {
            return true;
        }
        unit_f64(self.rng.next_u64()) < self.q
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.lru.prefetch(entry_key(hash, self.entry_bits));
    }

    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        let Self {
            lru,
            entry_bits,
            q,
            rng,
        } = self;
        let bits = *entry_bits;
        // As `step`: the coin is drawn on a miss only.
        lru.step_batch(
            |h| entry_key(h, bits),
            hashes,
            out,
            |lru, h| lru.access(entry_key(h, bits)) || unit_f64(rng.next_u64()) < *q,
        );
    }

    fn memory_bits(&self) -> u64 {
        u64::from(self.lru.capacity) * u64::from(self.entry_bits)
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("q", self.q),
            crate::Param::new("entry_bits", self.entry_bits),
            crate::Param::new("capacity", self.capacity()),
            crate::Param::new(
                "expected_fp_rate",
                expected_fp_rate(self.q, self.capacity(), self.entry_bits),
            ),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.len() as f64 / self.capacity() as f64,
        }
    }
}

/// Heap bytes of an LRU buffer at its peak: at most 64 per entry of its capacity. The slab
/// node is 16 (the key and two links; the slab doubles but never past the capacity). The index
/// has 8 bytes per slot and at most four slots per entry (it doubles when more than half full),
/// so 32 per entry; while it doubles the old table (16) and the new one (32) are both alive.
fn lru_heap_bytes(budget_bits: u64, entry_bits: u32) -> u64 {
    budget_bits / u64::from(entry_bits) * 64 + 4096
}

/// Both buffers: the same cost and the same uncharged index.
macro_rules! buffering_structure {
    ($ty:ident, $name:literal, $params:ident) => {
        crate::structure::impl_structure!($ty {
            name: $name,
            params: $params,
            cost: 8.0,
            memory_bits_for: $ty::memory_bits_for,
        }

            /// 4: on a hit, the index probe for the key, the entry's list node and its two
            /// neighbours (unlinked, then the node goes to the front, whose old head was
            /// touched by the previous element); on a miss, the index probe for the key (also
            /// where it is inserted), the index probe that removes the evicted key, the least
            /// recently used node (reused for the new key) and its predecessor (the new tail).
            /// FPBuffering's coin is arithmetic, not memory.
            fn cells_per_element(_params: &$params, _budget_bits: u64) -> f64 {
                4.0
            }

            fn heap_bytes_estimate(params: &$params, budget_bits: u64, _hint: u64) -> u64 {
                lru_heap_bytes(budget_bits, params.entry_bits)
            }
        );
    };
}
buffering_structure!(LruBuffering, "lru_buffering", LruBufferingParams);
buffering_structure!(FpBuffering, "fp_buffering", FpBufferingParams);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Exact;
    use crate::hash::hash_key;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    /// A naive LRU model: a deque of keys, most recent first.
    struct ModelLru {
        q: VecDeque<u64>,
        cap: usize,
    }

    impl ModelLru {
        fn access(&mut self, key: u64) -> bool {
            if let Some(pos) = self.q.iter().position(|&k| k == key) {
                self.q.remove(pos);
                self.q.push_front(key);
                true
            } else {
                if self.q.len() == self.cap {
                    self.q.pop_back();
                }
                self.q.push_front(key);
                false
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The slab LRU behaves exactly like a naive deque LRU (verdicts and recency order),
        /// and 64-bit buffering never gives a false positive (checked against an exact set).
        #[test]
        fn lru_matches_naive_model_and_has_no_false_positives(
            keys in prop::collection::vec(0u64..60, 1..2000), cap in 1u64..40, seed: u64,
        ) {
            let mut b = LruBuffering::new(cap * 64, &LruBufferingParams::default(), seed).unwrap();
            let mut model = ModelLru { q: VecDeque::new(), cap: cap as usize };
            let mut exact = Exact::new();
            for key in keys {
                let h = hash_key(key, seed);
                let got = b.step(h);
                prop_assert_eq!(got, model.access(h));
                let truth = exact.step(h);
                prop_assert!(!got || truth, "false positive on key {}", key);
            }
            prop_assert_eq!(b.lru.keys_mru(), model.q.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(b.lru.index.len(), b.lru.len());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The index answers as a map from key to node through inserts, removals, growth and
        /// the stash. Keys come from a few group-bit patterns (bits 7.. from `0..hi`), so
        /// groups fill and overflow into the stash; `hi = 2^20` gives scattered keys.
        #[test]
        fn index_matches_a_map(
            ops in prop::collection::vec((any::<bool>(), 0u64..1 << 20, 0u64..128), 1..600),
            hi in prop::sample::select(vec![2u64, 5, 1 << 20]),
            initial in 1usize..40,
        ) {
            let mut index = Index::for_entries(initial);
            let mut nodes: Vec<Node> = Vec::new();
            let mut model = std::collections::HashMap::new();
            let (mut most, mut stashed) = (0, false);
            for (remove, x, lo) in ops {
                let key = ((x % hi) << 7) | lo;
                match (remove, model.get(&key).copied()) {
                    (true, Some(n)) => {
                        index.remove(key, n);
                        model.remove(&key);
                    }
                    (false, None) => {
                        let n = nodes.len() as u32;
                        nodes.push(Node { key, prev: NIL, next: NIL });
                        index.insert(key, n, &nodes);
                        model.insert(key, n);
                    }
                    _ => {}
                }
                prop_assert_eq!(index.get(key, &nodes), model.get(&key).copied());
                prop_assert_eq!(index.len(), model.len());
                most = most.max(model.len());
                stashed |= !index.stash.is_empty();
            }
            // Two groups of 8 slots hold at most 16 keys with `hi = 2`: more went to the stash.
            prop_assert!(hi != 2 || most <= 16 || stashed);
            for (&key, &n) in &model {
                prop_assert_eq!(index.get(key, &nodes), Some(n));
            }
            let used: usize = index.groups.iter().map(|g| (g.tags & MSB).count_ones() as usize).sum();
            prop_assert_eq!(used + index.stash.len(), model.len());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The LRU with keys crowded into two group patterns (bits 7.. from `0..2`), so that
        /// evictions and hits reach keys in the stash, in `step` and in the batched step alike:
        /// verdicts and recency order as the naive model's.
        #[test]
        fn lru_with_crowded_keys_matches_the_naive_model(
            keys in prop::collection::vec((0u64..2, 0u64..128), 1..1500),
            cap in 1u32..40,
            batched: bool,
        ) {
            let mut lru = Lru::new(cap);
            let mut model = ModelLru { q: VecDeque::new(), cap: cap as usize };
            let keys: Vec<u64> = keys.into_iter().map(|(x, lo)| (x << 7) | lo).collect();
            let mut stashed = false;
            if batched {
                let mut out = vec![false; keys.len()];
                lru.step_batch_with::<true>(|k| k, &keys, &mut out, |lru, key| lru.access(key));
                for (&key, &got) in keys.iter().zip(&out) {
                    prop_assert_eq!(got, model.access(key));
                }
            } else {
                for &key in &keys {
                    prop_assert_eq!(lru.access(key), model.access(key));
                    stashed |= !lru.index.stash.is_empty();
                }
            }
            prop_assert_eq!(lru.keys_mru(), model.q.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(lru.index.len(), lru.len());
            // Every entry once: the groups' used slots and the stash hold exactly the nodes.
            let used: usize =
                lru.index.groups.iter().map(|g| (g.tags & MSB).count_ones() as usize).sum();
            prop_assert_eq!(used + lru.index.stash.len(), lru.len());
            prop_assert!(lru.nodes.capacity() <= cap as usize, "slab past the capacity");
            // More than 16 keys held in two groups: some were stashed.
            prop_assert!(batched || model.q.len() <= 16 || stashed);
        }
    }

    /// With uniform keys (hashes) at the LRU's load, the second choice keeps the stash nearly
    /// empty: a key goes to its emptier group, and both of a key's groups are full with
    /// probability well below 10^-4 at half load. Were both choices the same group, about 5 %
    /// of the keys (a Poisson(4) group count of 8 or more) would be stashed, thousands here.
    #[test]
    fn uniform_keys_almost_never_reach_the_stash() {
        let entries = 1 << 16;
        let mut index = Index::for_entries(entries);
        let mut nodes: Vec<Node> = Vec::new();
        let mut order = VecDeque::new();
        let mut most_stashed = 0;
        for i in 0..1_000_000u64 {
            let key = hash_key(i, 5);
            let n = if nodes.len() < entries {
                nodes.push(Node {
                    key,
                    prev: NIL,
                    next: NIL,
                });
                (nodes.len() - 1) as u32
            } else {
                // Churn: the oldest key leaves, the new one takes its node.
                let n = order.pop_front().expect("full");
                index.remove(nodes[n as usize].key, n);
                nodes[n as usize].key = key;
                n
            };
            index.insert(key, n, &nodes);
            order.push_back(n);
            most_stashed = most_stashed.max(index.stash.len());
            if i % 4096 == 0 {
                assert_eq!(index.get(key, &nodes), Some(n));
            }
        }
        assert!(most_stashed <= 8, "stash reached {most_stashed} entries");
        assert_eq!(index.len(), entries);
    }

    #[test]
    fn match_byte_marks_exactly_the_equal_bytes() {
        let tags = u64::from_le_bytes([0x80, 0x81, 0, 0xff, 0x81, 0x01, 0x80, 0x7f]);
        assert_eq!(match_byte(tags, 0x81), 0x0000_0080_0000_8000);
        assert_eq!(match_byte(tags, 0x80), 0x0080_0000_0000_0080);
        assert_eq!(match_byte(tags, 0), 0x0000_0000_0080_0000);
        assert_eq!(match_byte(tags, 0x82), 0);
    }

    #[test]
    fn exact_when_the_buffer_holds_every_distinct_key() {
        // 5000 distinct keys, 200_000 elements, buffer of 5000 entries: verdicts equal the
        // exact set's, for both entry widths (32-bit collisions among 5000 keys have
        // probability ~ 5000^2 / 2^33 = 0.3 %, and seed 3 is collision-free: the assertion
        // would fail otherwise).
        for entry_bits in [64u32, 32] {
            let mut b = LruBuffering::new(
                5000 * u64::from(entry_bits),
                &LruBufferingParams { entry_bits },
                0,
            )
            .unwrap();
            let mut exact = Exact::new();
            let mut s = 3u64;
            for _ in 0..200_000 {
                s = mix64(s);
                let h = hash_key(s % 5000, 3);
                assert_eq!(b.step(h), exact.step(h));
            }
            assert_eq!(b.len(), 5000);
            assert_eq!(b.occupancy().value, 1.0);
        }
    }

    #[test]
    fn thirty_two_bit_entries_collide_at_the_predicted_rate() {
        // Direct check of the fingerprint collision rate: fill a buffer of n = 2^19 32-bit
        // entries with distinct keys, then present t = 2^19 fresh distinct keys. Each fresh key
        // (whose own insertion evicts one entry, so n stay stored) collides with probability
        // ~ n / 2^32 = 2^-13: expected 64 false positives, binomial sd 8; 5 sd bounds.
        let n = 1u64 << 19;
        let mut b = LruBuffering::new(n * 32, &LruBufferingParams { entry_bits: 32 }, 0).unwrap();
        for key in 0..n {
            b.step(hash_key(key, 11));
        }
        let fp = (n..2 * n).filter(|&key| b.step(hash_key(key, 11))).count() as f64;
        let mean = n as f64 * fingerprint_collision_rate(n, 32);
        assert!((fp - mean).abs() < 5.0 * mean.sqrt(), "fp {fp} vs {mean}");
        // With 64-bit entries: none.
        let mut b = LruBuffering::new(n * 64, &LruBufferingParams::default(), 0).unwrap();
        for key in 0..n {
            b.step(hash_key(key, 11));
        }
        assert_eq!(
            (n..2 * n).filter(|&key| b.step(hash_key(key, 11))).count(),
            0
        );
    }

    #[test]
    fn fp_buffering_fp_rate_is_q() {
        // All-distinct stream of t = 400_000 elements: every element misses, so the number of
        // DUPLICATE answers is binomial(t, q); 5 sd bounds (two-sided failure ~ 6e-7).
        let t = 400_000u64;
        for (q, seed) in [(0.01, 1u64), (0.1, 2), (0.5, 3)] {
            let p = FpBufferingParams {
                q: q_for_fp_rate(q),
                entry_bits: 64,
            };
            let mut b = FpBuffering::new(1 << 16, &p, seed).unwrap();
            let fp = (0..t).filter(|&key| b.step(hash_key(key, seed))).count() as f64;
            let sd = (t as f64 * q * (1.0 - q)).sqrt();
            assert!((fp - t as f64 * q).abs() < 5.0 * sd, "q {q}: fp {fp}");
            assert_eq!(expected_fp_rate(q, b.capacity(), 64), q);
        }
    }

    #[test]
    fn fp_buffering_hits_are_always_duplicates_and_q_one_answers_all_duplicate() {
        let mut b = FpBuffering::new(
            64 * 100,
            &FpBufferingParams {
                q: 0.3,
                entry_bits: 64,
            },
            5,
        )
        .unwrap();
        for key in 0..100 {
            b.step(hash_key(key, 0));
        }
        assert!((0..100).all(|key| b.step(hash_key(key, 0))));
        let mut b = FpBuffering::new(
            64 * 100,
            &FpBufferingParams {
                q: 1.0,
                entry_bits: 64,
            },
            5,
        )
        .unwrap();
        assert!((0..10_000).all(|key| b.step(hash_key(key, 0))));
    }

    #[test]
    fn lru_fn_rate_on_a_cyclic_stream() {
        // A cyclic stream over u keys with a buffer of c entries: if c >= u every repeat hits;
        // if c < u, LRU evicts each key just before it recurs: every element misses.
        let run = |c: u64, u: u64| {
            let mut b = LruBuffering::new(c * 64, &LruBufferingParams::default(), 0).unwrap();
            (0..10 * u).filter(|&i| b.step(hash_key(i % u, 0))).count() as u64
        };
        assert_eq!(run(100, 100), 900);
        assert_eq!(run(99, 100), 0);
    }

    #[test]
    fn step_batch_equals_step_and_seeds_are_deterministic() {
        let hashes: Vec<u64> = (0..50_000u64)
            .map(|i| hash_key(mix64(i) % 3000, 5))
            .collect();
        let p = FpBufferingParams {
            q: 0.2,
            entry_bits: 32,
        };
        let mut a = FpBuffering::new(64 * 1000, &p, 9).unwrap();
        let mut b = FpBuffering::new(64 * 1000, &p, 9).unwrap();
        let mut c = FpBuffering::new(64 * 1000, &p, 10).unwrap();
        let one: Vec<bool> = hashes.iter().map(|&h| a.step(h)).collect();
        let mut batch = vec![false; hashes.len()];
        b.step_batch(&hashes, &mut batch);
        assert_eq!(one, batch);
        let other: Vec<bool> = hashes.iter().map(|&h| c.step(h)).collect();
        assert_ne!(one, other, "a different seed draws different coins");
        let mut l1 = LruBuffering::new(64 * 1000, &LruBufferingParams::default(), 1).unwrap();
        let mut l2 = LruBuffering::new(64 * 1000, &LruBufferingParams::default(), 1).unwrap();
        let v1: Vec<bool> = hashes.iter().map(|&h| l1.step(h)).collect();
        l2.step_batch(&hashes, &mut batch);
        assert_eq!(v1, batch);
    }

    /// The staged batch (a hit's node and neighbours prefetched, used from `STAGED_FROM`
    /// entries) gives the verdicts and the recency order of one step at a time, on a buffer
    /// small enough for a test, for both buffers.
    #[test]
    fn the_staged_batch_equals_step() {
        let hashes: Vec<u64> = (0..20_000u64)
            .map(|i| hash_key(mix64(i) % 1500, 2))
            .collect();
        let mut one = LruBuffering::new(64 * 1000, &LruBufferingParams::default(), 0).unwrap();
        let mut staged = one.clone();
        let want: Vec<bool> = hashes.iter().map(|&h| one.step(h)).collect();
        let mut got = vec![false; hashes.len()];
        for (h, o) in hashes.chunks(777).zip(got.chunks_mut(777)) {
            staged
                .lru
                .step_batch_with::<true>(|h| h, h, o, |lru, h| lru.access(h));
        }
        assert_eq!(want, got);
        assert_eq!(one.lru.keys_mru(), staged.lru.keys_mru());

        let p = FpBufferingParams {
            q: 0.3,
            entry_bits: 32,
        };
        let mut one = FpBuffering::new(32 * 1000, &p, 4).unwrap();
        let mut staged = one.clone();
        let want: Vec<bool> = hashes.iter().map(|&h| one.step(h)).collect();
        let FpBuffering { lru, q, rng, .. } = &mut staged;
        let key = |h| entry_key(h, 32);
        lru.step_batch_with::<true>(key, &hashes, &mut got, |lru, h| {
            lru.access(key(h)) || unit_f64(rng.next_u64()) < *q
        });
        assert_eq!(want, got);
    }

    #[test]
    fn memory_within_budget_on_a_grid() {
        for e in 10..=32 {
            for budget in [1u64 << e, (1u64 << e) + 7, (1u64 << e) - 1] {
                for entry_bits in [32u32, 64] {
                    let bits =
                        LruBuffering::memory_bits_for(budget, &LruBufferingParams { entry_bits })
                            .unwrap();
                    assert!(bits <= budget && budget - bits < u64::from(entry_bits));
                    let p = FpBufferingParams { q: 0.1, entry_bits };
                    assert_eq!(FpBuffering::memory_bits_for(budget, &p).unwrap(), bits);
                }
            }
        }
        let b = LruBuffering::new(1000, &LruBufferingParams { entry_bits: 32 }, 0).unwrap();
        assert_eq!(
            (b.memory_bits(), b.capacity(), b.name()),
            (992, 31, "lru_buffering")
        );
        assert_eq!(
            LruBuffering::memory_bits_for(1000, &LruBufferingParams { entry_bits: 32 }),
            Ok(992)
        );
        let f = FpBuffering::new(
            1000,
            &FpBufferingParams {
                q: 0.1,
                entry_bits: 64,
            },
            0,
        )
        .unwrap();
        assert_eq!((f.memory_bits(), f.name()), (960, "fp_buffering"));
        assert_eq!(f.params()[0], crate::Param::new("q", 0.1));
    }

    #[test]
    fn invalid_params_are_errors() {
        for entry_bits in [0u32, 16, 48, 128] {
            assert!(matches!(
                LruBuffering::new(1 << 12, &LruBufferingParams { entry_bits }, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        for q in [-0.1, 1.1, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                FpBuffering::new(1 << 12, &FpBufferingParams { q, entry_bits: 64 }, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            LruBuffering::new(63, &LruBufferingParams::default(), 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            LruBuffering::memory_bits_for(u64::MAX, &LruBufferingParams::default()),
            Err(Error::CapacityTooLarge { .. })
        ));
        // 2^38 bits of 32-bit entries would need 2^33 list indices: too many for u32 links.
        assert!(matches!(
            LruBuffering::memory_bits_for(1 << 38, &LruBufferingParams { entry_bits: 32 }),
            Err(Error::CapacityTooLarge { .. })
        ));
    }

    #[test]
    #[cfg(feature = "serde")]
    fn params_deserialize_with_defaults_and_reject_unknown_fields() {
        use serde::Deserialize;
        use serde::de::value::{Error as DeError, MapDeserializer};
        let de = |fields: Vec<(&'static str, u32)>| {
            LruBufferingParams::deserialize(MapDeserializer::<_, DeError>::new(fields.into_iter()))
        };
        assert_eq!(de(vec![]).unwrap(), LruBufferingParams { entry_bits: 64 });
        assert_eq!(
            de(vec![("entry_bits", 32)]).unwrap(),
            LruBufferingParams { entry_bits: 32 }
        );
        assert!(de(vec![("entry_size", 32)]).is_err());
    }
}
