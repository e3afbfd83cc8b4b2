//! Runs one structure over a uniform stream (about 50 % duplicates), for a profiler:
//! `cargo run --release -p dupstream-filters --example profile_step -- 'name = "sbf"' 1048576 1000000`
//! (TOML spec with `;` or newlines between keys, budget in bits, elements). Prints the number of
//! DUPLICATE verdicts, so a change of verdicts shows.

use dupstream_filters::hash::{hash_key, mix64, reduce};
use dupstream_filters::spec::FilterSpec;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let toml_src = args
        .first()
        .map_or("name = \"bloom\"\nk = 2".to_string(), |s| {
            s.replace(';', "\n")
        });
    let bits: u64 = args.get(1).map_or(1 << 20, |s| s.parse().expect("bits"));
    let n: usize = args
        .get(2)
        .map_or(1_000_000, |s| s.parse().expect("elements"));
    let spec: FilterSpec = toml::from_str(&toml_src).expect("spec");
    let mut f = spec.build(bits, 1).expect("build");
    let u = (n as u64) * 63 / 100;
    let mut buf = vec![0u64; 4096];
    let mut out = vec![false; 4096];
    let mut dups = 0u64;
    let mut done = 0;
    while done < n {
        for (i, h) in buf.iter_mut().enumerate() {
            *h = hash_key(reduce(mix64((done + i) as u64), u), 1);
        }
        f.step_batch(&buf, &mut out);
        dups += out.iter().filter(|&&d| d).count() as u64;
        done += buf.len();
    }
    println!("{dups}");
}
