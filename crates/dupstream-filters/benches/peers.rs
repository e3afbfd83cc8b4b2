//! Our structures beside the Rust crates that implement the same ones, on the same keys, at the
//! same memory, in the same process and the same rounds.
//!
//! Pairs (ours, peer; `k = 2` throughout):
//! - `bloom` against `fastbloom::BloomFilter` (0.17), fed the project's XXH3 hash through its
//!   `hasher` hook ("xxh3") and with its default, SipHash-1-3 ("default"); and against
//!   `bloomfilter::Bloom` (3.0), which takes no hasher (two SipHash-1-3 per key).
//! - `bsbf`, `bsbfsd`, `rlbsbf` against `probabilistic_collections::bloom::{BSBloomFilter,
//!   BSSDBloomFilter, RLBSBloomFilter}` (0.7), fed XXH3 through their two hash builders (seeds 1
//!   and 2) and with their default, SipHash-2-4. Their `fpp = 0.5` gives `k = 2`.
//!
//! Every contender hashes its keys inside the timed region: ours with `hash::hash_key` (XXH3-64,
//! as the runner does), a peer with its hasher. Ours runs twice, through `step_batch` on blocks
//! of [`BLOCK`] hashes ("batch", as the runner calls it) and through `step` one key at a time
//! ("step", as a library user calls it). A peer has only a per-element API (fastbloom's and
//! bloomfilter's insert answer whether the key was there; probabilistic-collections' filters
//! are asked `contains`, then `insert` on a miss), against which both of our modes are timed;
//! fastbloom fed XXH3 also takes a pre-hashed key (`insert_hash`), so it is also fed as our
//! batch is, blocks of keys hashed first ("pre-hashed"), and our batch is timed against that.
//!
//! Keys are pre-generated once: a stationary stream with half its elements duplicates (key `i`
//! uniform on the `i + 1` keys introduced so far, as the roofline's). Every contender starts
//! empty and first runs the stream's first [`WARM`] keys, counting its false positives and false
//! negatives against the exact answer: the error-rate check. Then [`ROUNDS`] rounds, each timing
//! every contender on the same slice of the stream, in an order that rotates from round to
//! round; ratios are per round (ours over the peer's time on the same slice), reported as their
//! median. Time is the thread's CPU time (`support::Clock`).
//!
//! `--write PATH` also writes the results as CSV (`support/peers_csv.rs`: one row per pair,
//! with the machine, the load, the date, the revision and the peers' versions), atomically and
//! only after a whole run whose every pair's error rates agree; the committed one,
//! `benches/peers.csv`, is what the filters README's peer tables are generated from
//! (`dupstream docs --write`).
//!
//! ```text
//! cargo bench -p dupstream-filters --bench peers                 # the table
//! cargo bench -p dupstream-filters --bench peers -- --write benches/peers.csv   # (just peers)
//! cargo bench -p dupstream-filters --bench peers -- bloom 1mbit  # filters on name / size
//! ```

use dupstream_filters::DuplicateFilter;
use dupstream_filters::bloom::{BloomFilter, BloomParams};
use dupstream_filters::bsbf::{Bsbf, BsbfParams, Bsbfsd, BsbfsdParams, Rlbsbf, RlbsbfParams};
use dupstream_filters::hash::{hash_key, mix64, reduce};
use std::hash::{BuildHasher, Hasher};
use std::hint::black_box;

mod support;
use support::{Clock, load_average, machine, median};
#[path = "support/peers_csv.rs"]
mod peers_csv;

/// (label, bits): in L2, and in DRAM (Bera et al.'s full scale).
const SIZES: &[(&str, u64)] = &[("1Mbit", 1 << 20), ("512MB", 512 << 23)];

/// The seed of the key hash (every contender fed XXH3 uses it).
const SEED: u64 = 1;
/// Keys pre-generated; the rounds cycle through them.
const KEYS: usize = 1 << 22;
/// Keys run by a fresh contender before timing: the error-rate check, and the pages touched.
const WARM: usize = 1 << 21;
/// Keys per timed stretch.
const STRETCH: usize = 1 << 18;
/// Timed rounds per pair.
const ROUNDS: usize = 15;
/// Hashes per `step_batch` call in our batched mode.
const BLOCK: usize = 1024;
/// `k` of every filter here.
const K: u32 = 2;
/// probabilistic-collections derives `k` from a target false positive rate: `⌈(2 + ln fpp /
/// ln(1 − 1/e))/2⌉`, 2 for this one.
const PC_FPP: f64 = 0.5;

/// The stationary stream's keys: key `i` uniform on `0..i + 1` (half are duplicates).
fn keys() -> Vec<u64> {
    (0..KEYS as u64)
        .map(|i| reduce(mix64(i ^ 0x9e37_79b9), i + 1))
        .collect()
}

/// Whether each key of `keys` occurred before it (the exact answer).
fn truth(keys: &[u64]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    keys.iter().map(|&k| !seen.insert(k)).collect()
}

/// A `BuildHasher` whose hash of a `u64` key is the project's, `hash_key(key, seed)`.
#[derive(Debug, Clone, Copy)]
struct Xxh3(u64);

impl BuildHasher for Xxh3 {
    type Hasher = Xxh3Hasher;
    #[inline]
    fn build_hasher(&self) -> Xxh3Hasher {
        Xxh3Hasher { seed: self.0, h: 0 }
    }
}

#[derive(Debug)]
struct Xxh3Hasher {
    seed: u64,
    h: u64,
}

impl Hasher for Xxh3Hasher {
    #[inline]
    fn write_u64(&mut self, key: u64) {
        self.h = hash_key(key, self.seed);
    }
    fn write(&mut self, _bytes: &[u8]) {
        unimplemented!("the peer benchmark hashes u64 keys only");
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.h
    }
}

/// One contender: a name and a function running keys through it.
struct Contender {
    name: &'static str,
    run: Run,
}

/// Runs keys through a contender: `(keys, verdicts) -> duplicates reported`, `verdicts[i]`
/// receiving the verdict on `keys[i]`.
type Run = Box<dyn FnMut(&[u64], &mut [bool]) -> u64>;

/// Runs `keys` through `step` one at a time.
#[inline(always)]
fn per_element(keys: &[u64], verdicts: &mut [bool], mut step: impl FnMut(u64) -> bool) -> u64 {
    let mut dups = 0;
    for (v, &k) in verdicts.iter_mut().zip(keys) {
        *v = step(k);
        dups += u64::from(*v);
    }
    dups
}

/// Runs `keys` in blocks of [`BLOCK`]: hashes a block with `hash`, then `block(hashes, out)`
/// gives its verdicts.
#[inline(always)]
fn in_blocks(
    keys: &[u64],
    verdicts: &mut [bool],
    hash: impl Fn(u64) -> u64,
    mut block: impl FnMut(&[u64], &mut [bool]),
) -> u64 {
    let mut hashes = [0u64; BLOCK];
    let mut dups = 0;
    for (chunk, out) in keys.chunks(BLOCK).zip(verdicts.chunks_mut(BLOCK)) {
        let h = &mut hashes[..chunk.len()];
        for (h, &k) in h.iter_mut().zip(chunk) {
            *h = hash(k);
        }
        block(h, out);
        dups += out.iter().filter(|&&d| d).count() as u64;
    }
    dups
}

/// Ours through `step_batch` ("batch") and through `step` ("step").
fn ours<F: DuplicateFilter + 'static>(build: impl Fn() -> F) -> [Contender; 2] {
    let mut f = build();
    let batch = move |keys: &[u64], verdicts: &mut [bool]| {
        in_blocks(
            keys,
            verdicts,
            |k| hash_key(k, SEED),
            |h, o| f.step_batch(h, o),
        )
    };
    let mut g = build();
    let step = move |keys: &[u64], verdicts: &mut [bool]| {
        per_element(keys, verdicts, |k| g.step(hash_key(k, SEED)))
    };
    [
        Contender {
            name: "ours batch",
            run: Box::new(batch),
        },
        Contender {
            name: "ours step",
            run: Box::new(step),
        },
    ]
}

/// A peer driven one key at a time by `step`.
fn peer(name: &'static str, mut step: impl FnMut(u64) -> bool + 'static) -> Contender {
    Contender {
        name,
        run: Box::new(move |keys, verdicts| per_element(keys, verdicts, &mut step)),
    }
}

/// A peer fed blocks of keys hashed with the project's hash first, then `step` on each hash:
/// what a caller of a peer with a hash entry point can do instead of our `step_batch`.
fn prehashed(name: &'static str, mut step: impl FnMut(u64) -> bool + 'static) -> Contender {
    Contender {
        name,
        run: Box::new(move |keys, verdicts| {
            in_blocks(
                keys,
                verdicts,
                |k| hash_key(k, SEED),
                |h, o| {
                    for (o, &h) in o.iter_mut().zip(h) {
                        *o = step(h);
                    }
                },
            )
        }),
    }
}

/// A peer as its rows compare it: its name, the contender timed against our `step`, and the one
/// timed against our `step_batch` (the same one unless the peer takes pre-hashed keys).
struct Peer {
    name: &'static str,
    step: usize,
    batch: usize,
}

/// Contenders (ours first: batch, step) and the peers among them.
#[derive(Default)]
struct Lineup {
    contenders: Vec<Contender>,
    peers: Vec<Peer>,
}

impl Lineup {
    fn ours(&mut self, both: [Contender; 2]) {
        self.contenders.extend(both);
    }

    /// A peer timed per element against both of our modes.
    fn peer(&mut self, c: Contender) {
        let i = self.contenders.len();
        self.peers.push(Peer {
            name: c.name,
            step: i,
            batch: i,
        });
        self.contenders.push(c);
    }

    /// A peer timed per element against our `step` and fed pre-hashed blocks against our
    /// `step_batch`.
    fn peer_with_prehashed(&mut self, step: Contender, blocks: Contender) {
        let i = self.contenders.len();
        self.peers.push(Peer {
            name: step.name,
            step: i,
            batch: i + 1,
        });
        self.contenders.extend([step, blocks]);
    }
}

/// probabilistic-collections' stream filters: no verdict from `insert`, so `contains`, then
/// `insert` on a miss (its `insert` checks again and inserts only a key it does not hold).
trait PcFilter {
    fn contains(&self, key: &u64) -> bool;
    fn insert(&mut self, key: &u64);
}

macro_rules! pc_filter {
    ($($ty:ident),*) => {$(
        impl<B: BuildHasher> PcFilter for probabilistic_collections::bloom::$ty<u64, B> {
            #[inline]
            fn contains(&self, key: &u64) -> bool {
                probabilistic_collections::bloom::$ty::contains(self, key)
            }
            #[inline]
            fn insert(&mut self, key: &u64) {
                probabilistic_collections::bloom::$ty::insert(self, key)
            }
        }
    )*};
}
pc_filter!(BSBloomFilter, BSSDBloomFilter, RLBSBloomFilter);

/// A probabilistic-collections filter as a contender.
fn pc_peer<F: PcFilter + 'static>(name: &'static str, mut f: F) -> Contender {
    peer(name, move |k| {
        let dup = f.contains(&k);
        if !dup {
            f.insert(&k);
        }
        dup
    })
}

/// The default hash builders, seeded so that runs repeat (`new` seeds them from entropy).
fn sip_builders() -> [probabilistic_collections::SipHasherBuilder; 2] {
    use probabilistic_collections::SipHasherBuilder as S;
    [S::from_seed(1, 2), S::from_seed(3, 4)]
}

/// A structure of ours (both modes) and its peers at one size.
fn contenders(name: &str, bits: u64) -> Lineup {
    use probabilistic_collections::bloom::{BSBloomFilter, BSSDBloomFilter, RLBSBloomFilter};
    let words = (bits / 64) as usize;
    // Each of probabilistic-collections' k filters has `s` bits; ours share the budget the same
    // way (RLBSBF also charges its k load counters, 128 bits of 2^20 or more).
    let s = (bits / u64::from(K)) as usize;
    let xxh3 = [Xxh3(SEED), Xxh3(SEED + 1)];
    let mut v = Lineup::default();
    match name {
        "bloom" => {
            let p = BloomParams::with_k(K);
            v.ours(ours(move || BloomFilter::new(bits, &p, 1).expect("bloom")));
            let fastbloom = || {
                fastbloom::BloomFilter::from_vec(vec![0; words])
                    .hasher(Xxh3(SEED))
                    .hashes(K)
            };
            let (mut fx, mut fh) = (fastbloom(), fastbloom());
            v.peer_with_prehashed(
                peer("fastbloom xxh3", move |k| fx.insert(&k)),
                prehashed("fastbloom xxh3 pre-hashed", move |h| fh.insert_hash(h)),
            );
            let mut fd = fastbloom::BloomFilter::from_vec(vec![0; words])
                .seed(&1)
                .hashes(K);
            v.peer(peer("fastbloom default", move |k| fd.insert(&k)));
            // k = round(ln 2 · m/n): n = m/3 gives 2.08, so 2. The seed's two halves key its
            // two SipHashes: equal halves would make them one hash (a k = 1 filter).
            let seed: [u8; 32] = std::array::from_fn(|i| i as u8);
            let mut b = bloomfilter::Bloom::new_with_seed(words * 8, bits as usize / 3, &seed)
                .expect("bloomfilter");
            assert_eq!(b.number_of_hash_functions(), K);
            v.peer(peer("bloomfilter default", move |k| b.check_and_set(&k)));
        }
        "bsbf" => {
            let p = BsbfParams::default();
            v.ours(ours(move || Bsbf::new(bits, &p, 1).expect("bsbf")));
            let x = BSBloomFilter::<u64, _>::with_hashers(s, PC_FPP, xxh3);
            assert_eq!(x.hasher_count(), K as usize);
            v.peer(pc_peer("prob-coll xxh3", x));
            let d = BSBloomFilter::<u64, _>::with_hashers(s, PC_FPP, sip_builders());
            v.peer(pc_peer("prob-coll default", d));
        }
        "bsbfsd" => {
            let p = BsbfsdParams::default();
            v.ours(ours(move || Bsbfsd::new(bits, &p, 1).expect("bsbfsd")));
            let x = BSSDBloomFilter::<u64, _>::with_hashers(s, PC_FPP, xxh3);
            v.peer(pc_peer("prob-coll xxh3", x));
            let d = BSSDBloomFilter::<u64, _>::with_hashers(s, PC_FPP, sip_builders());
            v.peer(pc_peer("prob-coll default", d));
        }
        "rlbsbf" => {
            let p = RlbsbfParams::default();
            v.ours(ours(move || Rlbsbf::new(bits, &p, 1).expect("rlbsbf")));
            let x = RLBSBloomFilter::<u64, _>::with_hashers(s, PC_FPP, xxh3);
            v.peer(pc_peer("prob-coll xxh3", x));
            let d = RLBSBloomFilter::<u64, _>::with_hashers(s, PC_FPP, sip_builders());
            v.peer(pc_peer("prob-coll default", d));
        }
        _ => panic!("no peers listed for {name}"),
    }
    v
}

/// Our structures with peers, in the order they are measured.
const STRUCTURES: &[&str] = &["bloom", "bsbf", "bsbfsd", "rlbsbf"];

/// A contender's error rates on the first [`WARM`] keys: (false positives over new keys, false
/// negatives over duplicates), and its verdicts.
fn errors(c: &mut Contender, keys: &[u64], truth: &[bool]) -> (f64, f64, Vec<bool>) {
    let mut verdicts = vec![false; keys.len()];
    (c.run)(keys, &mut verdicts);
    let (mut fp, mut fneg) = (0u64, 0u64);
    for (&said, &was) in verdicts.iter().zip(truth) {
        fp += u64::from(said && !was);
        fneg += u64::from(!said && was);
    }
    let dups = truth.iter().filter(|&&t| t).count() as f64;
    let new = truth.len() as f64 - dups;
    (fp as f64 / new, fneg as f64 / dups.max(1.0), verdicts)
}

/// Two proportions over `n` trials each, as a z score of their difference (pooled); 0 when both
/// are 0 or 1.
fn z_score(a: f64, b: f64, n: f64) -> f64 {
    let p = (a + b) / 2.0;
    let sd = (p * (1.0 - p) * 2.0 / n).sqrt();
    if sd == 0.0 { 0.0 } else { (a - b) / sd }
}

/// |z| beyond which two error rates are reported as differing.
const Z_AGREE: f64 = 4.0;

/// One pair's result at one size.
struct Row {
    structure: &'static str,
    size: &'static str,
    peer: &'static str,
    /// ns per element: ours batched, the peer against it, ours per element, the peer against it.
    batch_ns: (f64, f64),
    step_ns: (f64, f64),
    /// Medians of the per-round ratios, ours over the peer's.
    batch_ratio: f64,
    step_ratio: f64,
    /// Ours (per element) and the peer's false positive and false negative rates.
    fpr: (f64, f64),
    fnr: (f64, f64),
    agree: bool,
}

impl Row {
    /// ns and ratios: ours batched, the peer against it, the ratio; the same per element.
    fn timings(&self) -> [f64; 6] {
        [
            self.batch_ns.0,
            self.batch_ns.1,
            self.batch_ratio,
            self.step_ns.0,
            self.step_ns.1,
            self.step_ratio,
        ]
    }
}

/// Our structure `name` and its peers at `size`: error check, then timed rounds.
fn measure(
    name: &'static str,
    size: (&'static str, u64),
    keys: &[u64],
    truth: &[bool],
) -> Vec<Row> {
    let Lineup {
        contenders: mut cs,
        peers,
    } = contenders(name, size.1);
    let warm = &keys[..WARM];
    let rates: Vec<(f64, f64, Vec<bool>)> = cs
        .iter_mut()
        .map(|c| errors(c, warm, &truth[..WARM]))
        .collect();
    // Two ways through one structure answer the same.
    let same = [(0, 1)]
        .into_iter()
        .chain(peers.iter().map(|p| (p.step, p.batch)));
    for (a, b) in same {
        assert!(
            rates[a].2 == rates[b].2,
            "{name}: {} and {} disagree",
            cs[a].name,
            cs[b].name
        );
    }
    let new = truth[..WARM].iter().filter(|&&t| !t).count() as f64;
    let dups = WARM as f64 - new;
    // ns[round][contender]
    let mut ns = vec![vec![0.0; cs.len()]; ROUNDS];
    let mut verdicts = vec![false; STRETCH];
    for (r, times) in ns.iter_mut().enumerate() {
        let slice = (WARM + r * STRETCH) % KEYS;
        let slice = &keys[slice..slice + STRETCH];
        let mut dup_counts = vec![0; cs.len()];
        for j in 0..cs.len() {
            let c = (j + r) % cs.len();
            let start = Clock::now();
            dup_counts[c] = black_box((cs[c].run)(black_box(slice), &mut verdicts));
            times[c] = start.elapsed_ns() / STRETCH as f64;
        }
        assert_eq!(
            dup_counts[0], dup_counts[1],
            "{name}: batch and step disagree"
        );
    }
    let med = |c: usize| median(&mut ns.iter().map(|t| t[c]).collect::<Vec<_>>());
    let ratio =
        |a: usize, b: usize| median(&mut ns.iter().map(|t| t[a] / t[b]).collect::<Vec<_>>());
    peers
        .iter()
        .map(|p| {
            let (fpr, fnr) = ((rates[1].0, rates[p.step].0), (rates[1].1, rates[p.step].1));
            let agree = z_score(fpr.0, fpr.1, new).abs() < Z_AGREE
                && z_score(fnr.0, fnr.1, dups).abs() < Z_AGREE;
            Row {
                structure: name,
                size: size.0,
                peer: if p.batch == p.step {
                    p.name
                } else {
                    cs[p.batch].name
                },
                batch_ns: (med(0), med(p.batch)),
                step_ns: (med(1), med(p.step)),
                batch_ratio: ratio(0, p.batch),
                step_ratio: ratio(1, p.step),
                fpr,
                fnr,
                agree,
            }
        })
        .collect()
}

/// The crate a peer's label names.
fn peer_crate(peer: &str) -> &'static str {
    match peer.split(' ').next() {
        Some("fastbloom") => "fastbloom",
        Some("bloomfilter") => "bloomfilter",
        Some("prob-coll") => "probabilistic-collections",
        _ => panic!("no crate known for the peer `{peer}`"),
    }
}

/// The rows as `peers_csv`'s columns, each with the run's provenance.
fn csv_rows(rows: &[Row], provenance: &[String]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            let bits = SIZES.iter().find(|s| s.0 == r.size).expect("size").1;
            let krate = peer_crate(r.peer);
            let mut v = vec![
                r.structure.to_string(),
                r.size.to_string(),
                bits.to_string(),
                krate.to_string(),
                peers_csv::locked_version(krate),
                r.peer.to_string(),
            ];
            v.extend(r.timings().map(|x| format!("{x:.3}")));
            v.extend([r.fpr.0, r.fpr.1, r.fnr.0, r.fnr.1].map(|x| format!("{x:.6}")));
            v.extend([ROUNDS, STRETCH, WARM].map(|x| x.to_string()));
            v.extend(provenance.iter().cloned());
            v
        })
        .collect()
}

fn main() {
    let (write, filters) = support::arguments();
    let wall = std::time::Instant::now();
    let wanted = |name: &str, size: &str| {
        filters
            .iter()
            .all(|f| name == f || size.to_lowercase() == *f)
    };
    let load_start = load_average();
    let keys = keys();
    let truth = truth(&keys);
    let mut rows = vec![];
    for &size in SIZES {
        for &name in STRUCTURES {
            if !wanted(name, size.0) {
                continue;
            }
            for r in measure(name, size, &keys, &truth) {
                let [bo, bp, br, so, sp, sr] = r.timings();
                eprintln!(
                    "{:<7} {:>6} {:<26} batch {bo:>6.1} / {bp:>6.1} ns {br:.2}×, per element {so:>6.1} / {sp:>6.1} ns {sr:.2}×, FPR {:.4} / {:.4}, FNR {:.4} / {:.4}{}",
                    r.structure,
                    r.size,
                    r.peer,
                    r.fpr.0,
                    r.fpr.1,
                    r.fnr.0,
                    r.fnr.1,
                    if r.agree { "" } else { "  ERROR RATES DIFFER" }
                );
                rows.push(r);
            }
        }
    }
    let load_end = load_average();
    println!(
        "\nMeasured on {}; load average (1, 5, 15 min) {load_start} at the start, {load_end} at the end.",
        machine()
    );
    println!(
        "ns per element (thread CPU time, median of {ROUNDS} rounds of {STRETCH} keys, hashing included); ratios below 1: ours faster. Error rates (ours / peer) over the first {WARM} keys of a fresh filter, checked to |z| < {Z_AGREE}."
    );
    if rows.iter().any(|r| !r.agree) {
        if write.is_some() {
            eprintln!("error rates differ: nothing written");
        }
        std::process::exit(1);
    }
    if let Some(path) = write {
        let provenance = [
            machine(),
            load_start,
            load_end,
            peers_csv::today(),
            peers_csv::git_revision(),
            format!("{:.0}", wall.elapsed().as_secs_f64()),
        ];
        let text = peers_csv::render(&csv_rows(&rows, &provenance));
        if let Err(e) = support::atomic_write(std::path::Path::new(&path), text.as_bytes()) {
            eprintln!("could not write {path}: {e} (the table is printed above)");
            std::process::exit(1);
        }
        eprintln!(
            "wrote {path}; `dupstream docs --write` (just docs) rewrites the README's tables"
        );
    }
}
