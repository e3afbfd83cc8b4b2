//! TEMPORARY STUB of the streams API so the runner can be built; replaced by the real crate.
#![forbid(unsafe_code)]
#![allow(missing_docs)]
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Invalid(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StreamSpec {
    Uniform {
        n: u64,
        universe: Option<u64>,
        distinct_fraction: Option<f64>,
        seed: u64,
    },
    Replay {
        path: PathBuf,
    },
}

pub trait KeyStream: Send {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize, Error>;
}

struct Uni {
    left: u64,
    u: u64,
    state: u64,
}
impl KeyStream for Uni {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize, Error> {
        let n = (buf.len() as u64).min(self.left) as usize;
        for b in &mut buf[..n] {
            self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *b =
                dupstream_filters::hash::reduce(dupstream_filters::hash::mix64(self.state), self.u);
        }
        self.left -= n as u64;
        Ok(n)
    }
}

impl StreamSpec {
    pub fn validate(&self) -> Result<(), Error> {
        Ok(())
    }
    pub fn declared_len(&self) -> Option<u64> {
        match self {
            Self::Uniform { n, .. } => Some(*n),
            _ => None,
        }
    }
    pub fn universe(&self) -> Option<u64> {
        match self {
            Self::Uniform {
                n,
                universe,
                distinct_fraction,
                ..
            } => universe.or_else(|| distinct_fraction.map(|d| solve(*n, d))),
            _ => None,
        }
    }
    pub fn scaled(&self, f: u64) -> StreamSpec {
        match self {
            Self::Uniform {
                n,
                universe,
                distinct_fraction,
                seed,
            } => Self::Uniform {
                n: n / f,
                universe: universe.map(|u| u / f),
                distinct_fraction: *distinct_fraction,
                seed: *seed,
            },
            o => o.clone(),
        }
    }
    pub fn open(&self) -> Result<Box<dyn KeyStream>, Error> {
        match self {
            Self::Uniform { n, seed, .. } => Ok(Box::new(Uni {
                left: *n,
                u: self.universe().unwrap(),
                state: *seed,
            })),
            _ => Err(Error::Invalid("stub".into())),
        }
    }
    pub fn describe(&self) -> String {
        format!("{self:?}")
    }
}

fn solve(n: u64, d: f64) -> u64 {
    let (mut lo, mut hi) = (1.0f64, 1e13f64);
    for _ in 0..200 {
        let u = (lo + hi) / 2.0;
        if u * (1.0 - (-(n as f64) / u).exp()) < d * n as f64 {
            lo = u
        } else {
            hi = u
        }
    }
    lo.round() as u64
}

#[derive(Debug, Clone, Copy)]
pub enum Oracle {
    HashSet,
}
impl Oracle {
    pub fn as_str(&self) -> &'static str {
        "hashset"
    }
}
#[derive(Debug, Clone)]
pub struct StreamStats {
    pub n: u64,
    pub distinct: u64,
    pub distinct_fraction: f64,
    pub oracle: Oracle,
    pub gap_histogram: Vec<u64>,
    pub gap_sample_rate: f64,
}
pub struct GroundTruth {
    words: Vec<u64>,
    stats: StreamStats,
}
impl GroundTruth {
    pub fn compute(spec: &StreamSpec) -> Result<GroundTruth, Error> {
        let mut s = spec.open()?;
        let mut seen = hashbrown::HashSet::new();
        let mut words = Vec::new();
        let mut buf = vec![0u64; 4096];
        let mut n = 0u64;
        loop {
            let got = s.fill(&mut buf)?;
            if got == 0 {
                break;
            }
            for &k in &buf[..got] {
                if n % 64 == 0 {
                    words.push(0);
                }
                if !seen.insert(k) {
                    *words.last_mut().unwrap() |= 1 << (n % 64);
                }
                n += 1;
            }
        }
        let distinct = seen.len() as u64;
        Ok(GroundTruth {
            words,
            stats: StreamStats {
                n,
                distinct,
                distinct_fraction: distinct as f64 / n as f64,
                oracle: Oracle::HashSet,
                gap_histogram: vec![],
                gap_sample_rate: 0.0,
            },
        })
    }
    pub fn len(&self) -> u64 {
        self.stats.n
    }
    pub fn label_words(&self) -> &[u64] {
        &self.words
    }
    pub fn stats(&self) -> &StreamStats {
        &self.stats
    }
    pub fn heap_bytes_estimate(spec: &StreamSpec) -> u64 {
        spec.declared_len().unwrap_or(0) / 8 + spec.universe().unwrap_or(0) * 16
    }
}
