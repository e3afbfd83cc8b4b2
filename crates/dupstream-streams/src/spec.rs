//! [`StreamSpec`]: what a stream is, as written in experiment files.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::deng::{self, DengStream};
use crate::drift::ZipfDriftStream;
use crate::error::ensure;
use crate::replay::{self, BadLinePolicy, ReplayFormat, ReplayStream};
use crate::shuffled::{ShuffledStream, shuffled_distinct};
use crate::uniform::{UniformStream, ZipfStream, universe_for_distinct_fraction};
use crate::{Error, KeyStream, Result};

/// The longest declared stream: `10^10` elements.
pub const MAX_LEN: u64 = 10_000_000_000;

/// Largest Zipf universe: ranks are drawn as `f64` and must be exact integers.
const MAX_ZIPF_UNIVERSE: u64 = 1 << 53;

fn default_deng_n() -> u64 {
    deng::FIG6_N
}

fn default_v() -> f64 {
    deng::DEFAULT_V
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// A stream, as written in experiment files (`kind = "uniform"`, ...).
///
/// Build one in code or deserialize it (TOML / JSON); [`validate`](Self::validate) checks every
/// field, [`open`](Self::open) starts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StreamSpec {
    /// Uniform draws from a finite universe (Bera et al., journal §3.1); see [`crate::uniform`].
    /// Give exactly one of `universe` and `distinct_fraction`.
    Uniform {
        /// Stream length `N`.
        n: u64,
        /// Universe size `U`: keys are `0..U`.
        #[serde(default)]
        universe: Option<u64>,
        /// Target distinct fraction `d ∈ (0, 1)`; `U` solves `U·(1 − e^{−N/U}) = d·N`.
        #[serde(default)]
        distinct_fraction: Option<f64>,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
    },
    /// A uniform shuffle of `D = round(d·N)` keys once each plus `N − D` copies drawn uniformly
    /// from them: exactly `D` distinct keys; see [`crate::shuffled`].
    Shuffled {
        /// Stream length `N`.
        n: u64,
        /// Distinct fraction `d ∈ (0, 1]`: the stream has exactly `round(d·N)` distinct keys.
        distinct_fraction: f64,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
    },
    /// Zipf draws over a finite universe; see [`crate::uniform`].
    Zipf {
        /// Stream length `N`.
        n: u64,
        /// Number of ranks `U`: keys are `0..U`, key 0 the most frequent.
        universe: u64,
        /// Exponent `s ≥ 0` (`P(rank r) ∝ r^{−s}`).
        s: f64,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
    },
    /// Zipf draws whose popularity drifts: the rank-to-key mapping moves by `shift` ranks every
    /// `period` elements, so the hot set is gradually replaced by new keys; see
    /// [`crate::drift`].
    ZipfDrift {
        /// Stream length `N`.
        n: u64,
        /// Number of ranks `U`: keys are `0..U`.
        universe: u64,
        /// Exponent `s ≥ 0` (`P(rank r) ∝ r^{−s}`).
        s: f64,
        /// Elements between two shifts of the mapping (at least 1).
        period: u64,
        /// Ranks the mapping moves per period (`0 ≤ shift < U`; 0 is a plain Zipf stream with
        /// its keys renamed).
        shift: u64,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
    },
    /// Deng & Rafiei's synthetic stream with Poisson arrivals of the frequent integer (SBF
    /// paper §5.1); see [`crate::deng`].
    DengPoisson {
        /// Stream length `N` (default `2^24`, Fig. 6).
        #[serde(default = "default_deng_n")]
        n: u64,
        /// Arrival rate `λ ∈ (0, 1]`: the expected fraction of frequent arrivals.
        lambda: f64,
        /// Mean `u > 0` of the exponential renaming distribution.
        u: f64,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
    },
    /// Deng & Rafiei's synthetic stream with b-model arrivals (SBF paper §5.1); see
    /// [`crate::deng`].
    DengBModel {
        /// Stream length `N` (default `2^24`, Fig. 6).
        #[serde(default = "default_deng_n")]
        n: u64,
        /// Bias `b ∈ [0.5, 1]`.
        b: f64,
        /// Aggregation level `l`, at most `ln(v) / ln(1/(2b))` and `log2 N`.
        l: u32,
        /// Volume `v ∈ (0, 1]`: fraction of the stream taken by frequent arrivals (default 0.1).
        #[serde(default = "default_v")]
        v: f64,
        /// Mean `u > 0` of the exponential renaming distribution.
        u: f64,
        /// Generator seed.
        #[serde(default)]
        seed: u64,
        /// Always give the first half the share `b` (the paper's presentation) instead of a fair
        /// coin per split (the b-model). Default false.
        #[serde(default)]
        heavy_first: bool,
    },
    /// Replay of a real stream from a file; see [`crate::replay`].
    Replay {
        /// The file (plain text or gzip, detected by magic bytes).
        path: PathBuf,
        /// Layout of the file.
        format: ReplayFormat,
        /// Key column for `tsv` / `csv`: a header name or a 0-based index (default 0).
        #[serde(default)]
        column: Option<String>,
        /// The first line is a header.
        #[serde(default)]
        header: bool,
        /// Seed of the XXH3-64 key fingerprint.
        #[serde(default)]
        fingerprint_seed: u64,
        /// What to do with malformed lines (default `fail`).
        #[serde(default)]
        bad_lines: BadLinePolicy,
        /// Skip the first `offset` keys (counted after `bad_lines`: a skipped line is not a
        /// key), before `limit` applies. Default 0. An offset that leaves no key is an error
        /// when the stream is read.
        #[serde(default, skip_serializing_if = "is_zero")]
        offset: u64,
        /// Stop after this many keys (after the offset).
        #[serde(default)]
        limit: Option<u64>,
    },
}

impl StreamSpec {
    /// Fig. 6 a–c of Deng & Rafiei: b-model, `N = 2^24`, `l = 6`, `v = 0.1`, bias `b`
    /// (0.5 or 0.7) and renaming mean `u` (`10^3` … `10^6`).
    pub fn deng_fig6_b_model(b: f64, u: f64, seed: u64) -> Self {
        Self::DengBModel {
            n: deng::FIG6_N,
            b,
            l: deng::FIG6_L,
            v: deng::DEFAULT_V,
            u,
            seed,
            heavy_first: false,
        }
    }

    /// Fig. 6 d of Deng & Rafiei: Poisson, `N = 2^24`, renaming mean `u`. The text does not give
    /// the figure's `λ`, so it is a parameter.
    pub fn deng_fig6_poisson(lambda: f64, u: f64, seed: u64) -> Self {
        Self::DengPoisson {
            n: deng::FIG6_N,
            lambda,
            u,
            seed,
        }
    }

    /// The stream kind, as spelled in experiment files.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Uniform { .. } => "uniform",
            Self::Shuffled { .. } => "shuffled",
            Self::Zipf { .. } => "zipf",
            Self::ZipfDrift { .. } => "zipf_drift",
            Self::DengPoisson { .. } => "deng_poisson",
            Self::DengBModel { .. } => "deng_b_model",
            Self::Replay { .. } => "replay",
        }
    }

    /// Checks every parameter without generating anything. For replay it opens the file and
    /// reads the header, so a missing file or an unknown column name is reported now.
    pub fn validate(&self) -> Result<()> {
        self.validate_params()?;
        if let Self::Replay {
            path,
            format,
            column,
            header,
            ..
        } = self
        {
            replay::probe(path, *format, column.as_deref(), *header)?;
        }
        Ok(())
    }

    /// The checks that need no I/O.
    fn validate_params(&self) -> Result<()> {
        let kind = self.kind();
        let check_n = |n: u64| {
            ensure(
                (1..=MAX_LEN).contains(&n),
                kind,
                "n",
                n,
                "must be between 1 and 10^10",
            )
        };
        // The Zipf kinds' universe and exponent (`zipf` and `zipf_drift`).
        let check_zipf = |universe: u64, s: f64| {
            ensure(
                (1..=MAX_ZIPF_UNIVERSE).contains(&universe),
                kind,
                "universe",
                universe,
                "must be between 1 and 2^53",
            )?;
            ensure(
                s.is_finite() && s >= 0.0,
                kind,
                "s",
                s,
                "must be finite and >= 0",
            )
        };
        let check_u = |u: f64| {
            ensure(
                u.is_finite() && u > 0.0,
                kind,
                "u",
                u,
                "the renaming mean must be finite and > 0",
            )
        };
        match *self {
            Self::Uniform {
                n,
                universe,
                distinct_fraction,
                ..
            } => {
                check_n(n)?;
                match (universe, distinct_fraction) {
                    (Some(u), None) => {
                        ensure(u >= 1, kind, "universe", u, "must be at least 1")?;
                        ensure(u <= 1 << 62, kind, "universe", u, "must be at most 2^62")?;
                    }
                    (None, Some(d)) => {
                        ensure(
                            d > 0.0 && d < 1.0,
                            kind,
                            "distinct_fraction",
                            d,
                            "must be in (0, 1)",
                        )?;
                        ensure(
                            universe_for_distinct_fraction(n, d).is_some(),
                            kind,
                            "distinct_fraction",
                            d,
                            &format!("no universe between 1 and 2^62 keys gives it for n = {n}"),
                        )?;
                    }
                    (Some(u), Some(d)) => {
                        return Err(Error::InvalidSpec {
                            stream: kind,
                            field: "universe",
                            value: u.to_string(),
                            reason: format!(
                                "give either `universe` or `distinct_fraction` (= {d}), not both"
                            ),
                        });
                    }
                    (None, None) => {
                        return Err(Error::InvalidSpec {
                            stream: kind,
                            field: "universe",
                            value: "none".into(),
                            reason: "give `universe` or `distinct_fraction`".into(),
                        });
                    }
                }
            }
            Self::Shuffled {
                n,
                distinct_fraction: d,
                ..
            } => {
                check_n(n)?;
                ensure(
                    d > 0.0 && d <= 1.0,
                    kind,
                    "distinct_fraction",
                    d,
                    "must be in (0, 1]",
                )?;
            }
            Self::Zipf { n, universe, s, .. } => {
                check_n(n)?;
                check_zipf(universe, s)?;
            }
            Self::ZipfDrift {
                n,
                universe,
                s,
                period,
                shift,
                ..
            } => {
                check_n(n)?;
                check_zipf(universe, s)?;
                ensure(period >= 1, kind, "period", period, "must be at least 1")?;
                ensure(
                    shift < universe,
                    kind,
                    "shift",
                    shift,
                    &format!("must be less than U = {universe} (a shift of U ranks is none)"),
                )?;
            }
            Self::DengPoisson { n, lambda, u, .. } => {
                check_n(n)?;
                ensure(
                    lambda > 0.0 && lambda <= 1.0,
                    kind,
                    "lambda",
                    lambda,
                    "must be in (0, 1] (Deng & Rafiei §5.1: λ ≤ 1)",
                )?;
                check_u(u)?;
            }
            Self::DengBModel { n, b, l, v, u, .. } => {
                check_n(n)?;
                ensure(
                    (0.5..=1.0).contains(&b),
                    kind,
                    "b",
                    b,
                    "must be in [0.5, 1] (Deng & Rafiei §5.1: b ≥ 0.5)",
                )?;
                ensure(v > 0.0 && v <= 1.0, kind, "v", v, "must be in (0, 1]")?;
                check_u(u)?;
                ensure(
                    l <= 62 && (1u64 << l) <= n,
                    kind,
                    "l",
                    l,
                    &format!("2^l must not exceed n = {n}"),
                )?;
                let max = deng::b_model_max_level(b, v);
                ensure(
                    f64::from(l) <= max + 1e-9,
                    kind,
                    "l",
                    l,
                    &format!(
                        "violates l ≤ ln(v)/ln(1/(2b)) = {max:.3} for b = {b}, v = {v} (Deng & Rafiei §5.1): \
                         the densest sub-interval would need more arrivals than positions"
                    ),
                )?;
            }
            Self::Replay {
                ref format,
                ref column,
                limit,
                ..
            } => {
                if let Some(lim) = limit {
                    ensure(lim >= 1, kind, "limit", lim, "must be at least 1")?;
                }
                if let Some(c) = column {
                    ensure(
                        matches!(format, ReplayFormat::Tsv | ReplayFormat::Csv),
                        kind,
                        "column",
                        format!("\"{c}\""),
                        &format!(
                            "only `tsv` and `csv` have columns, not `{}`",
                            format.as_str()
                        ),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The stream length, `None` for a replay without `limit` (with `limit`, an upper bound:
    /// the file may hold fewer keys past the `offset`).
    pub fn declared_len(&self) -> Option<u64> {
        match *self {
            Self::Uniform { n, .. }
            | Self::Shuffled { n, .. }
            | Self::Zipf { n, .. }
            | Self::ZipfDrift { n, .. }
            | Self::DengPoisson { n, .. }
            | Self::DengBModel { n, .. } => Some(n),
            Self::Replay { limit, .. } => limit,
        }
    }

    /// Size of the bounded universe the keys are drawn from (`0..U`), if the stream declares
    /// one: uniform (given or solved `U`), shuffled (its `D` distinct keys), Zipf and drifting
    /// Zipf.
    pub fn universe(&self) -> Option<u64> {
        match *self {
            Self::Uniform {
                universe: Some(u), ..
            } => Some(u),
            Self::Uniform {
                n,
                universe: None,
                distinct_fraction: Some(d),
                ..
            } => universe_for_distinct_fraction(n, d),
            Self::Shuffled {
                n,
                distinct_fraction,
                ..
            } => Some(shuffled_distinct(n, distinct_fraction)),
            Self::Zipf { universe, .. } | Self::ZipfDrift { universe, .. } => Some(universe),
            _ => None,
        }
    }

    /// The expected fraction of the stream's elements that repeat an earlier key, where the
    /// spec alone tells it: uniform `1 − U·(1 − e^{−N/U})/N`, shuffled `1 − D/N`; `None` for
    /// Zipf, the Deng streams and replays.
    pub fn expected_duplicate_fraction(&self) -> Option<f64> {
        match *self {
            Self::Uniform { n, .. } => self
                .universe()
                .map(|u| 1.0 - crate::uniform::expected_distinct_fraction(n, u)),
            Self::Shuffled {
                n,
                distinct_fraction,
                ..
            } => Some(1.0 - shuffled_distinct(n, distinct_fraction) as f64 / n.max(1) as f64),
            _ => None,
        }
    }

    /// A smaller version of the stream for quick runs: `n` and the universe divided by `f`
    /// (at least 1), keeping `N/U` and hence the distinct fraction. For the Deng streams the
    /// renaming mean `u` is divided too (at least 1), which keeps the ratio of frequent arrivals
    /// to `u` and so the duplicate structure; `λ`, `b`, `l`, `v` are kept. A drifting Zipf
    /// stream's `period` is divided too (at least 1) and its `shift` kept: the scaled stream
    /// has as many periods, and its mapping moves as many ranks over the whole stream, so the
    /// hot ranks are replaced as often. Replay is unchanged.
    /// `f <= 1` returns the spec unchanged.
    pub fn scaled(&self, f: u64) -> StreamSpec {
        if f <= 1 {
            return self.clone();
        }
        let div = |x: u64| (x / f).max(1);
        let mut s = self.clone();
        match &mut s {
            Self::Uniform { n, universe, .. } => {
                *n = div(*n);
                if let Some(u) = universe {
                    *u = div(*u);
                }
            }
            Self::Shuffled { n, .. } => *n = div(*n),
            Self::Zipf { n, universe, .. } => {
                *n = div(*n);
                *universe = div(*universe);
            }
            Self::ZipfDrift {
                n,
                universe,
                period,
                ..
            } => {
                *n = div(*n);
                *universe = div(*universe);
                *period = div(*period);
            }
            Self::DengPoisson { n, u, .. } | Self::DengBModel { n, u, .. } => {
                *n = div(*n);
                *u = (*u / f as f64).max(1.0);
            }
            Self::Replay { .. } => {}
        }
        s
    }

    /// Starts the stream (validating it first). Restarting is opening again.
    pub fn open(&self) -> Result<Box<dyn KeyStream>> {
        self.validate_params()?;
        Ok(match *self {
            Self::Uniform { n, seed, .. } => {
                let u = self.universe().expect("validated universe");
                Box::new(UniformStream::new(n, u, seed))
            }
            Self::Shuffled { n, seed, .. } => {
                let d = self
                    .universe()
                    .expect("a shuffled stream has its distinct count");
                Box::new(ShuffledStream::new(n, d, seed))
            }
            Self::Zipf {
                n,
                universe,
                s,
                seed,
            } => Box::new(ZipfStream::new(n, universe, s, seed)),
            Self::ZipfDrift {
                n,
                universe,
                s,
                period,
                shift,
                seed,
            } => Box::new(ZipfDriftStream::new(n, universe, s, period, shift, seed)),
            Self::DengPoisson { n, lambda, u, seed } => {
                Box::new(DengStream::poisson(n, lambda, u, seed))
            }
            Self::DengBModel {
                n,
                b,
                l,
                v,
                u,
                seed,
                heavy_first,
            } => Box::new(DengStream::b_model(n, b, l, v, u, heavy_first, seed)),
            Self::Replay { .. } => Box::new(self.open_replay().expect("a replay")?),
        })
    }

    /// Opens a replay as its [`ReplayStream`] (which can also read times); `None` for other
    /// kinds.
    pub(crate) fn open_replay(&self) -> Option<Result<ReplayStream>> {
        let Self::Replay {
            ref path,
            format,
            ref column,
            header,
            fingerprint_seed,
            bad_lines,
            offset,
            limit,
        } = *self
        else {
            return None;
        };
        Some(ReplayStream::open(
            path,
            format,
            column.as_deref(),
            header,
            fingerprint_seed,
            bad_lines,
            offset,
            limit,
        ))
    }

    /// One line for tables and logs, e.g. `uniform n=1000000000 U=149842795 (d=0.15) seed=1`.
    pub fn describe(&self) -> String {
        match self {
            Self::Uniform {
                n,
                universe,
                distinct_fraction,
                seed,
            } => match (universe, distinct_fraction) {
                (_, Some(d)) => match self.universe() {
                    Some(u) => format!("uniform n={n} U={u} (d={d}) seed={seed}"),
                    None => format!("uniform n={n} U=? (d={d}) seed={seed}"),
                },
                (Some(u), None) => format!("uniform n={n} U={u} seed={seed}"),
                (None, None) => format!("uniform n={n} U=? seed={seed}"),
            },
            Self::Shuffled {
                n,
                distinct_fraction: d,
                seed,
            } => format!(
                "shuffled n={n} D={} (d={d}) seed={seed}",
                shuffled_distinct(*n, *d)
            ),
            Self::Zipf {
                n,
                universe,
                s,
                seed,
            } => format!("zipf n={n} U={universe} s={s} seed={seed}"),
            Self::ZipfDrift {
                n,
                universe,
                s,
                period,
                shift,
                seed,
            } => format!(
                "zipf_drift n={n} U={universe} s={s} period={period} shift={shift} seed={seed}"
            ),
            Self::DengPoisson { n, lambda, u, seed } => {
                format!("deng_poisson n={n} lambda={lambda} u={u} seed={seed}")
            }
            Self::DengBModel {
                n,
                b,
                l,
                v,
                u,
                seed,
                heavy_first,
            } => format!(
                "deng_b_model n={n} b={b} l={l} v={v} u={u} seed={seed}{}",
                if *heavy_first { " heavy_first" } else { "" }
            ),
            Self::Replay {
                path,
                format,
                column,
                header,
                fingerprint_seed,
                bad_lines,
                offset,
                limit,
            } => {
                let mut s = format!("replay {} format={}", path.display(), format.as_str());
                if let Some(c) = column {
                    s += &format!(" column={c}");
                }
                if *header {
                    s += " header";
                }
                s += &format!(
                    " fingerprint_seed={fingerprint_seed} bad_lines={}",
                    bad_lines.as_str()
                );
                if *offset > 0 {
                    s += &format!(" offset={offset}");
                }
                if let Some(l) = limit {
                    s += &format!(" limit={l}");
                }
                s
            }
        }
    }
}
