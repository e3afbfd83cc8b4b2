//! Exact ground truth: every position of a stream labelled unseen (0) or duplicate (1), once
//! per stream, as a bit vector of `N` bits shared read-only by every filter run.
//!
//! **Oracle.** Membership of earlier keys is kept exactly, by one of two oracles, chosen
//! automatically and recorded in [`StreamStats::oracle`]:
//! - [`Oracle::Bitmap`]: a dense bit per key of a declared bounded universe `0..U` (uniform,
//!   Zipf), used when its `U/8` bytes are no more than the hash set's estimate for
//!   `min(N, U)` keys, or at most 256 MiB. It is the faster and smaller one for the papers'
//!   uniform streams (`N = 10^9`, `d = 0.9`: `U ≈ 4.7·10^9` bits = 590 MB, against ~9 GB for a
//!   hash set of 9·10^8 keys). Its probes are prefetched a fixed distance ahead.
//! - [`Oracle::HashSet`]: a hashbrown table of the keys seen (hash: see `set_hash`),
//!   pre-sized to `min(N, U)` when the length is declared.
//!
//! **Gap histogram.** The gap of a duplicate is its distance to the previous occurrence of the
//! same key; bucket `j` of [`StreamStats::gap_histogram`] counts gaps in `[2^j, 2^(j+1))`.
//! Keeping the last position of every distinct key would take `16` bytes per key (2.4 GB for
//! `1.5·10^8` keys, 75 GB at `4.7·10^9`), so the histogram is **exact over a deterministic,
//! hash-sampled subset of keys**: key `x` is tracked when `mix64(x ⊕ salt)` has at least `k`
//! trailing zero bits, i.e. at rate `2^−k` ([`StreamStats::gap_sample_rate`]), and every
//! occurrence of a tracked key contributes its exact gap. `k` starts at the smallest value for
//! which the expected tracked keys (`min(N, U)·2^−k`) stay under half of [`GAP_TABLE_CAP`], and
//! rises whenever the table reaches the cap: keys below the new level are dropped together with
//! the gaps they contributed (gaps are kept per level, so the histogram stays exactly that of
//! the keys at rate `2^−k`). The table never exceeds [`GAP_TABLE_CAP`] `= 2^18` entries
//! (≈ 9 MB), so it stays in the last-level cache and costs about 1 ns per element; a larger
//! table spills to DRAM and costs ~100 ns per tracked element. The histogram is exact (rate 1)
//! when the stream declares at most `2^17` possible distinct keys, or, for an undeclared length,
//! has fewer than `2^18`. At `N = 10^9` the rate is `2^−11` for `d = 0.15` (≈ 4·10^5 gaps
//! counted) and `2^−13` for `d = 0.9` (≈ 10^4 gaps, the stream having few duplicates). Divide a
//! count by the rate to estimate the full stream's count.

use dupstream_core::bits::BitArray;
use dupstream_core::hash::{mix64, rehash};
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use serde::{Deserialize, Serialize};

use crate::labels::{LabelWriter, Labels};
use crate::{Error, KeyStream, Result, StreamSpec};

/// The most distinct keys the gap-sampling table tracks at once (`2^18`; the table, ≈ 9 MB,
/// stays in the last-level cache).
pub const GAP_TABLE_CAP: usize = 1 << 18;
/// Largest bitmap chosen regardless of the hash-set estimate: 256 MiB.
const BITMAP_ALWAYS_BYTES: u64 = 1 << 28;
/// Largest bitmap at all: `2^40` bits (the filters crate's bit-array limit).
const BITMAP_MAX_BITS: u64 = 1 << 40;
const GAP_SALT: u64 = 0x6761_7073_616d_706c;
const BATCH: usize = 4096;
const PREFETCH_AHEAD: usize = 32;

/// Which exact membership structure labelled the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Oracle {
    /// One bit per key of the bounded universe.
    Bitmap,
    /// A hash set of the keys seen.
    HashSet,
}

impl Oracle {
    /// Stable name for result files: `bitmap` or `hash_set`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bitmap => "bitmap",
            Self::HashSet => "hash_set",
        }
    }
}

/// Statistics of a stream, measured while labelling it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamStats {
    /// Number of elements.
    pub n: u64,
    /// Number of distinct keys (unseen positions).
    pub distinct: u64,
    /// `distinct / n` (0 for an empty stream).
    pub distinct_fraction: f64,
    /// The oracle used.
    pub oracle: Oracle,
    /// Bucket `j` counts the gaps in `[2^j, 2^(j+1))` of the tracked keys (trailing zero buckets
    /// trimmed).
    pub gap_histogram: Vec<u64>,
    /// Fraction of keys whose gaps are counted (`2^−k`; 1 = exact).
    pub gap_sample_rate: f64,
    /// Malformed lines skipped (replay under the `skip` policy).
    pub skipped_lines: u64,
    /// The first skipped lines' numbers (1-based, at most
    /// [`crate::replay::SKIPPED_LINES_KEPT`]).
    #[serde(default)]
    pub first_skipped_lines: Vec<u64>,
}

/// Labels of every position of a stream (1 = duplicate) and its statistics.
#[derive(Debug, Clone)]
pub struct GroundTruth {
    labels: Labels,
    stats: StreamStats,
}

/// Bytes of a hashbrown table holding `cap` entries of `entry` bytes.
pub(crate) fn table_bytes(cap: u64, entry: u64) -> u64 {
    if cap == 0 {
        return 0;
    }
    let buckets = if cap < 8 {
        (cap + 1).next_power_of_two().max(4)
    } else {
        (cap * 8).div_ceil(7).next_power_of_two()
    };
    buckets * (entry + 1) + 16
}

/// What [`GroundTruth::compute`] will do for a spec.
#[derive(Debug, Clone, Copy)]
struct Plan {
    oracle: Oracle,
    len_hint: Option<u64>,
    universe: Option<u64>,
    /// Upper bound on the number of distinct keys, if known.
    distinct_bound: Option<u64>,
}

fn plan(spec: &StreamSpec) -> Plan {
    plan_for(spec.declared_len(), spec.universe())
}

fn plan_for(len_hint: Option<u64>, universe: Option<u64>) -> Plan {
    let distinct_bound = match (len_hint, universe) {
        (Some(n), Some(u)) => Some(n.min(u)),
        (n, u) => n.or(u),
    };
    let oracle = match universe {
        Some(u) if u <= BITMAP_MAX_BITS => {
            let bitmap = u.div_ceil(64) * 8;
            let set = table_bytes(distinct_bound.unwrap_or(u), 8);
            if bitmap <= set.max(BITMAP_ALWAYS_BYTES) {
                Oracle::Bitmap
            } else {
                Oracle::HashSet
            }
        }
        _ => Oracle::HashSet,
    };
    Plan {
        oracle,
        len_hint,
        universe,
        distinct_bound,
    }
}

/// Rough size of a replay stream without a limit, from the file size: at least 16 bytes per
/// line, and at most 8× compression for gzip (an upper bound for pricing memory); 0 for other
/// kinds.
pub fn replay_len_estimate(spec: &StreamSpec) -> u64 {
    if let StreamSpec::Replay { path, .. } = spec {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let factor = if is_gzip(path) { 8 } else { 1 };
        size.saturating_mul(factor) / 16
    } else {
        0
    }
}

fn is_gzip(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == [0x1f, 0x8b]
}

enum Membership {
    Bitmap(BitArray),
    Hash(HashTable<u64>),
}

/// Exact gaps over the keys whose sampling hash has at least `k` trailing zeros.
struct GapSampler {
    k: u32,
    /// (key, last position).
    table: HashTable<(u64, u64)>,
    /// `hist[t][j]`: gaps in bucket `j` of keys whose sampling hash has exactly `t` trailing
    /// zeros (`t = 64` for hash 0).
    hist: Vec<[u64; 64]>,
}

#[inline(always)]
fn sample_hash(key: u64) -> u64 {
    mix64(key ^ GAP_SALT)
}

/// Whether the gap histogram tracks `key` at sample rate `rate` (a power of two,
/// [`StreamStats::gap_sample_rate`]).
pub fn gap_tracks(key: u64, rate: f64) -> bool {
    let k = (-rate.log2()).round().clamp(0.0, 64.0) as u32;
    sample_hash(key).trailing_zeros() >= k
}

/// Hash of the hash-set oracle. Its bucket bits (hashbrown uses the low bits for the bucket
/// and the top 7 for the tag) place each aligned block of 64 consecutive keys in one random
/// aligned run of 64 buckets, so streams of mostly consecutive keys (the Deng streams'
/// positions) insert into one cache line of control bytes per 64 keys instead of a random line
/// per key; the tag comes from a full mix of the key. Random keys (fingerprints) stay random.
#[inline(always)]
pub(crate) fn set_hash(k: u64) -> u64 {
    const LOW: u64 = (1 << 57) - 1;
    (((mix64(k >> 6) << 6) | (k & 63)) & LOW) | (mix64(k) & !LOW)
}

#[inline(always)]
fn table_hash(h: u64) -> u64 {
    rehash(h, 1)
}

impl GapSampler {
    fn new(distinct_bound: Option<u64>) -> Self {
        let mut k = 0;
        if let Some(b) = distinct_bound {
            while k < 63 && (b >> k) > (GAP_TABLE_CAP / 2) as u64 {
                k += 1;
            }
        }
        Self {
            k,
            table: HashTable::new(),
            hist: vec![[0; 64]; 65],
        }
    }

    /// Handles the tracked occurrences of one batch, `(key, sampling hash, position)` in stream
    /// order. A first pass only looks the keys up: the lookups are independent, so their cache
    /// misses overlap (there is no prefetch without `unsafe`); the second pass, in order, then
    /// finds the lines cached. An occurrence whose key fell below a level raised earlier in
    /// the pass is dropped, as it would have been had the level been raised before.
    fn flush(&mut self, pending: &[(u64, u64, u64)]) {
        let mut hits = 0usize;
        for &(key, h, _) in pending {
            hits += usize::from(self.table.find(table_hash(h), |e| e.0 == key).is_some());
        }
        std::hint::black_box(hits);
        for &(key, h, pos) in pending {
            if h.trailing_zeros() >= self.k {
                self.track(key, h, pos);
            }
        }
    }

    #[inline(always)]
    fn track(&mut self, key: u64, h: u64, pos: u64) {
        match self.table.entry(
            table_hash(h),
            |e| e.0 == key,
            |e| table_hash(sample_hash(e.0)),
        ) {
            Entry::Occupied(mut o) => {
                let last = &mut o.get_mut().1;
                let gap = pos - *last;
                *last = pos;
                self.hist[h.trailing_zeros() as usize][(63 - gap.leading_zeros()) as usize] += 1;
            }
            Entry::Vacant(v) => {
                v.insert((key, pos));
                while self.table.len() >= GAP_TABLE_CAP && self.k < 64 {
                    self.k += 1;
                    let k = self.k;
                    self.table
                        .retain(|e| sample_hash(e.0).trailing_zeros() >= k);
                }
            }
        }
    }

    fn finish(&self) -> (Vec<u64>, f64) {
        let mut out = vec![0u64; 64];
        for level in &self.hist[self.k as usize..] {
            for (o, c) in out.iter_mut().zip(level) {
                *o += c;
            }
        }
        while out.last() == Some(&0) {
            out.pop();
        }
        (out, 0.5f64.powi(self.k as i32))
    }
}

/// Labels and gaps, filled position by position.
struct Recorder {
    gaps: GapSampler,
    /// Tracked occurrences of the current batch: (key, sampling hash, position).
    pending: Vec<(u64, u64, u64)>,
    labels: LabelWriter,
}

impl Recorder {
    /// Records the verdicts `dup(key)` of a batch, in order.
    #[inline(always)]
    fn scan(&mut self, keys: &[u64], mut dup: impl FnMut(usize, u64) -> bool) {
        let k = self.gaps.k;
        let pending = &mut self.pending;
        self.labels.extend(keys, |i, &key, pos| {
            let d = dup(i, key);
            let h = sample_hash(key);
            if h.trailing_zeros() >= k {
                pending.push((key, h, pos));
            }
            d
        });
        self.gaps.flush(&self.pending);
        self.pending.clear();
    }
}

struct Builder {
    membership: Membership,
    rec: Recorder,
}

impl Builder {
    fn new(oracle: Oracle, plan: &Plan, what: &dyn Fn() -> String) -> Result<Self> {
        let too_large = |reason: String| Error::TooLarge {
            stream: what(),
            reason,
        };
        let membership = match oracle {
            Oracle::Bitmap => {
                let u = plan.universe.ok_or_else(|| {
                    too_large("the bitmap oracle needs a bounded universe".into())
                })?;
                Membership::Bitmap(
                    BitArray::new("ground truth", u)
                        .map_err(|e| too_large(format!("bitmap over {u} keys: {e}")))?,
                )
            }
            Oracle::HashSet => {
                let mut t = HashTable::new();
                let cap = plan.distinct_bound.unwrap_or(0);
                let cap = usize::try_from(cap)
                    .map_err(|_| too_large(format!("hash set of {cap} keys")))?;
                t.try_reserve(cap, |&k: &u64| set_hash(k))
                    .map_err(|_| too_large(format!("hash set of {cap} keys: allocation failed")))?;
                Membership::Hash(t)
            }
        };
        let rec = Recorder {
            gaps: GapSampler::new(plan.distinct_bound),
            pending: Vec::with_capacity(BATCH),
            labels: LabelWriter::new(plan.len_hint, too_large)?,
        };
        Ok(Self { membership, rec })
    }

    fn batch(&mut self, keys: &[u64]) -> Result<()> {
        let rec = &mut self.rec;
        match &mut self.membership {
            Membership::Bitmap(bits) => {
                let u = bits.len();
                if let Some(&bad) = keys.iter().find(|&&k| k >= u) {
                    return Err(Error::TooLarge {
                        stream: "bitmap oracle".into(),
                        reason: format!("key {bad} outside the declared universe 0..{u}"),
                    });
                }
                for &k in keys.iter().take(PREFETCH_AHEAD) {
                    bits.prefetch(k);
                }
                rec.scan(keys, |i, k| {
                    if let Some(&ahead) = keys.get(i + PREFETCH_AHEAD) {
                        bits.prefetch(ahead);
                    }
                    bits.set(k)
                });
            }
            Membership::Hash(t) => {
                rec.scan(keys, |_, k| {
                    match t.entry(set_hash(k), |&x| x == k, |&x| set_hash(x)) {
                        Entry::Occupied(_) => true,
                        Entry::Vacant(v) => {
                            v.insert(k);
                            false
                        }
                    }
                });
            }
        }
        Ok(())
    }

    fn finish(self, skipped_lines: u64, first_skipped_lines: Vec<u64>) -> GroundTruth {
        let Self { membership, rec } = self;
        let (gap_histogram, gap_sample_rate) = rec.gaps.finish();
        let oracle = match membership {
            Membership::Bitmap(_) => Oracle::Bitmap,
            Membership::Hash(_) => Oracle::HashSet,
        };
        let (labels, duplicates) = rec.labels.finish();
        let n = labels.len();
        let distinct = n - duplicates;
        let stats = StreamStats {
            n,
            distinct,
            distinct_fraction: if n == 0 {
                0.0
            } else {
                distinct as f64 / n as f64
            },
            oracle,
            gap_histogram,
            gap_sample_rate,
            skipped_lines,
            first_skipped_lines,
        };
        GroundTruth { labels, stats }
    }
}

/// A stream over an in-memory slice.
pub(crate) struct SliceStream<'a> {
    pub(crate) keys: &'a [u64],
}

impl KeyStream for SliceStream<'_> {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let k = buf.len().min(self.keys.len());
        buf[..k].copy_from_slice(&self.keys[..k]);
        self.keys = &self.keys[k..];
        Ok(k)
    }
}

fn run(stream: &mut dyn KeyStream, mut b: Builder) -> Result<GroundTruth> {
    let mut buf = vec![0u64; BATCH];
    loop {
        let k = stream.fill(&mut buf)?;
        if k == 0 {
            break;
        }
        b.batch(&buf[..k])?;
    }
    Ok(b.finish(
        stream.skipped_lines(),
        stream.first_skipped_lines().to_vec(),
    ))
}

impl GroundTruth {
    /// Labels `spec`'s stream with the automatically chosen oracle.
    pub fn compute(spec: &StreamSpec) -> Result<GroundTruth> {
        Self::compute_with(spec, None)
    }

    /// Labels `spec`'s stream with the given oracle (`None` = automatic). The bitmap needs a
    /// declared universe.
    pub fn compute_with(spec: &StreamSpec, oracle: Option<Oracle>) -> Result<GroundTruth> {
        Self::compute_stoppable(spec, oracle, &|| false)
    }

    /// [`compute_with`](Self::compute_with), ended early with the error of a
    /// [`StopWhen`](crate::StopWhen) stream once `stop` returns true (checked before each
    /// batch of keys).
    pub fn compute_stoppable(
        spec: &StreamSpec,
        oracle: Option<Oracle>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<GroundTruth> {
        spec.validate()?;
        let plan = plan(spec);
        let b = Builder::new(oracle.unwrap_or(plan.oracle), &plan, &|| spec.describe())?;
        let mut stream = spec.open()?;
        run(&mut crate::StopWhen::new(&mut *stream, stop), b)
    }

    /// Labels an in-memory key sequence; `universe` (keys `0..U`) enables the bitmap oracle.
    pub fn from_keys(
        keys: &[u64],
        universe: Option<u64>,
        oracle: Option<Oracle>,
    ) -> Result<GroundTruth> {
        Self::from_stream(
            &mut SliceStream { keys },
            Some(keys.len() as u64),
            universe,
            oracle,
        )
    }

    /// Labels any stream. `len_hint` pre-sizes the labels and the hash set and sets the initial
    /// gap-sampling level (without it the level starts at exact and adapts); `universe` (keys
    /// `0..U`) enables the bitmap oracle; `oracle` = `None` chooses as
    /// [`compute`](Self::compute) does.
    pub fn from_stream(
        stream: &mut dyn KeyStream,
        len_hint: Option<u64>,
        universe: Option<u64>,
        oracle: Option<Oracle>,
    ) -> Result<GroundTruth> {
        let p = plan_for(len_hint, universe);
        let b = Builder::new(oracle.unwrap_or(p.oracle), &p, &|| "key stream".to_string())?;
        run(stream, b)
    }

    /// Number of positions.
    pub fn len(&self) -> u64 {
        self.stats.n
    }

    /// True for an empty stream.
    pub fn is_empty(&self) -> bool {
        self.stats.n == 0
    }

    /// Whether position `i` holds a duplicate.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn is_duplicate(&self, i: u64) -> bool {
        assert!(
            i < self.stats.n,
            "position {i} beyond stream length {}",
            self.stats.n
        );
        self.labels.get(i)
    }

    /// The labels: bit `i % 64` of word `i / 64` is position `i`'s label (1 = duplicate);
    /// bits beyond `len()` are 0.
    pub fn label_words(&self) -> &[u64] {
        self.labels.words()
    }

    /// Statistics measured while labelling.
    pub fn stats(&self) -> &StreamStats {
        &self.stats
    }

    /// The oracle [`compute`](Self::compute) would choose for `spec`.
    pub fn planned_oracle(spec: &StreamSpec) -> Oracle {
        plan(spec).oracle
    }

    /// Bytes of the oracle [`compute`](Self::compute) would use for `spec`: the bitmap of the
    /// universe, or the hash set pre-sized to the distinct-key bound (for a replay without
    /// `limit`, sized to the length guessed from the file, at its final size).
    pub fn oracle_bytes_estimate(spec: &StreamSpec) -> u64 {
        let p = plan(spec);
        match p.oracle {
            Oracle::Bitmap => p.universe.unwrap_or(0).div_ceil(64) * 8,
            Oracle::HashSet => table_bytes(
                p.distinct_bound
                    .unwrap_or_else(|| p.len_hint.unwrap_or_else(|| replay_len_estimate(spec))),
                8,
            ),
        }
    }

    /// Estimated peak heap bytes of [`compute`](Self::compute) for `spec` (labels, oracle,
    /// gap-sampling table at its largest, buffers). For a replay without `limit` the length is
    /// guessed from the file size (16 bytes a line, gzip 8× compression) and the hash set's
    /// growth (old and new table alive while it doubles) is included.
    pub fn heap_bytes_estimate(spec: &StreamSpec) -> u64 {
        let p = plan(spec);
        let n = p.len_hint.unwrap_or_else(|| replay_len_estimate(spec));
        let labels = n.div_ceil(64) * 8;
        let oracle = match (p.oracle, p.distinct_bound) {
            (Oracle::HashSet, None) => table_bytes(n, 8) * 3 / 2,
            _ => Self::oracle_bytes_estimate(spec),
        };
        let bound = p.distinct_bound.unwrap_or(n);
        let gaps = table_bytes(bound.min(GAP_TABLE_CAP as u64), 16);
        let buffers = (BATCH * 8 + (1 << 20)) as u64;
        labels + oracle + gaps + buffers
    }
}
