//! What a compared cell stands for, so that the catalogue's counts do not add unlike things.
//!
//! Each paper's directory under `experiments/` may hold a `readings.csv` that classifies the
//! columns of its experiment files (by `[[algorithm]]` label) and whole experiments:
//!
//! ```text
//! experiment,label,reading,why
//! *,SBF-rand31,hypothesis,decrement positions drawn from 31 bits (SETUP.md)
//! deng-fig4a,*,stand-in,the paper's web crawl is not available: ours runs a uniform stream
//! ```
//!
//! `experiment` and `label` are a name or `*` (any); the first row that matches a cell
//! decides. A column no row names is **faithful**: our reading of the paper's text. The other
//! readings are a **hypothesis** (a detail the paper does not state, chosen because it fits
//! its numbers), the paper's **pseudo-code** where it contradicts its prose, **the authors'
//! code** (a behaviour found in the code that produced the paper's tables), and a
//! **stand-in**: the paper's data is not available and ours runs other data, so its cells are
//! shown but not counted as compared.
//!
//! Independently of the column, an E = FPR + FNR cell whose printed value is at least
//! [`SATURATED_E_PCT`] is counted apart: a saturated filter's answers are nearly independent of
//! the truth, and any such filter has E ≈ 100 % whatever its split between FPR and FNR, so the
//! cell's agreement says nothing about the structure.

use anyhow::{Context, Result, bail};
use std::path::Path;

/// The file, in a paper's directory under `experiments/`.
pub const FILE: &str = "readings.csv";

/// A printed E (percent) from which the cell is one of a saturated filter: within 5 pp of the
/// 100 % of a filter whose answers do not depend on the truth.
pub const SATURATED_E_PCT: f64 = 95.0;

/// What a compared cell stands for; [`Reading::ALL`] in the order the counts are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Faithful,
    Hypothesis,
    PseudoCode,
    Authors,
    SaturatedE,
    StandIn,
}

impl Reading {
    pub const ALL: [Reading; 6] = [
        Self::Faithful,
        Self::Hypothesis,
        Self::PseudoCode,
        Self::Authors,
        Self::SaturatedE,
        Self::StandIn,
    ];

    /// As `readings.csv` writes it.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "faithful" => Self::Faithful,
            "hypothesis" => Self::Hypothesis,
            "pseudo-code" => Self::PseudoCode,
            "authors-code" => Self::Authors,
            "stand-in" => Self::StandIn,
            _ => return None,
        })
    }

    /// The heading of its count in the documents.
    pub fn heading(self) -> &'static str {
        match self {
            Self::Faithful => "faithful columns",
            Self::Hypothesis => "hypotheses",
            Self::PseudoCode => "pseudo-code readings",
            Self::Authors => "the authors' code",
            Self::SaturatedE => "E of saturated filters",
            Self::StandIn => "on stand-in data (not compared)",
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|&r| r == self).unwrap_or(0)
    }
}

/// The rules of one paper's `readings.csv`.
#[derive(Debug, Clone, Default)]
pub struct Readings {
    rules: Vec<(String, String, Reading)>,
}

impl Readings {
    /// Reads `dir/readings.csv`; none when the file does not exist (every column faithful).
    pub fn load(dir: &Path) -> Result<Self> {
        let path = dir.join(FILE);
        if !path.is_file() {
            return Ok(Self::default());
        }
        let mut r =
            csv::Reader::from_path(&path).with_context(|| format!("reading {}", path.display()))?;
        let headers = r.headers()?.clone();
        let col = |n: &str| {
            headers
                .iter()
                .position(|h| h == n)
                .with_context(|| format!("{}: no `{n}` column", path.display()))
        };
        let (e, l, g) = (col("experiment")?, col("label")?, col("reading")?);
        let mut rules = Vec::new();
        for rec in r.records() {
            let rec = rec.with_context(|| format!("{}: malformed", path.display()))?;
            let line = rec.position().map_or(0, |p| p.line());
            let field = |i: usize| rec.get(i).unwrap_or("").trim().to_string();
            let Some(reading) = Reading::parse(&field(g)) else {
                bail!(
                    "{}:{line}: reading `{}` (known: faithful, hypothesis, pseudo-code, authors-code, stand-in)",
                    path.display(),
                    field(g)
                );
            };
            rules.push((field(e), field(l), reading));
        }
        Ok(Self { rules })
    }

    /// The reading of the column `label` of `experiment`.
    pub fn of(&self, experiment: &str, label: &str) -> Reading {
        self.rules
            .iter()
            .find(|(e, l, _)| (e == "*" || e == experiment) && (l == "*" || l == label))
            .map_or(Reading::Faithful, |r| r.2)
    }

    /// Every `(experiment, label)` the rules name (`*` included), for checking that they exist.
    pub fn names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.rules.iter().map(|(e, l, _)| (e.as_str(), l.as_str()))
    }
}

/// `(within tolerance, compared)` cells per [`Reading`]; the E cells of saturated filters
/// are kept by the reading of their column as well, so that a column's cells can be removed
/// with its E cells ([`Counts::without`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    by: [(usize, usize); 6],
    saturated_by: [(usize, usize); 6],
}

impl Counts {
    pub fn get(&self, r: Reading) -> (usize, usize) {
        if r == Reading::SaturatedE {
            self.saturated_by
                .iter()
                .fold((0, 0), |(a, b), (ok, of)| (a + ok, b + of))
        } else {
            self.by[r.index()]
        }
    }

    /// A cell of a column of reading `r` (an E cell of a saturated filter when `saturated`).
    pub fn add(&mut self, r: Reading, saturated: bool, ok: bool) {
        let c = if saturated {
            &mut self.saturated_by[r.index()]
        } else {
            &mut self.by[r.index()]
        };
        *c = (c.0 + usize::from(ok), c.1 + 1);
    }

    /// Without the cells of columns of reading `r`, their saturated E cells included.
    pub fn without(&self, r: Reading) -> Self {
        let mut out = *self;
        out.by[r.index()] = (0, 0);
        out.saturated_by[r.index()] = (0, 0);
        out
    }

    pub fn is_empty(&self) -> bool {
        Reading::ALL.iter().all(|&r| self.get(r).1 == 0)
    }

    /// The non-empty counts as `5 / 8 faithful; hypotheses 2 / 4; …`.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = Reading::ALL
            .iter()
            .filter(|&&r| self.get(r).1 > 0)
            .map(|&r| {
                let (ok, of) = self.get(r);
                format!("{}: {ok} / {of}", r.heading())
            })
            .collect();
        if parts.is_empty() {
            "—".into()
        } else {
            parts.join("; ")
        }
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Self) {
        for (a, b) in self
            .by
            .iter_mut()
            .zip(o.by)
            .chain(self.saturated_by.iter_mut().zip(o.saturated_by))
        {
            *a = (a.0 + b.0, a.1 + b.1);
        }
    }
}

/// The compared cells of a run's `table.csv` (those with `within_tolerance` true or false) by
/// reading; `None` when the table has none.
pub fn count(table: &Path, experiment: &str, readings: &Readings) -> Option<Counts> {
    let mut r = csv::Reader::from_path(table).ok()?;
    let h = r.headers().ok()?.clone();
    let col = |n: &str| h.iter().position(|c| c == n);
    let (ok_col, label, metric, paper) = (
        col("within_tolerance")?,
        col("label")?,
        col("metric")?,
        col("paper_pct")?,
    );
    let mut counts = Counts::default();
    for rec in r.records() {
        let rec = rec.ok()?;
        let ok = match rec.get(ok_col)? {
            "true" => true,
            "false" => false,
            _ => continue,
        };
        let reading = readings.of(experiment, rec.get(label)?);
        let saturated = reading != Reading::StandIn
            && rec.get(metric) == Some("error")
            && rec
                .get(paper)
                .and_then(|p| p.parse::<f64>().ok())
                .is_some_and(|p| p >= SATURATED_E_PCT);
        counts.add(reading, saturated, ok);
    }
    (!counts.is_empty()).then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_first_and_default_to_faithful() {
        let r = Readings {
            rules: vec![
                ("fig4a".into(), "*".into(), Reading::StandIn),
                ("*".into(), "SBF-rand31".into(), Reading::Hypothesis),
            ],
        };
        assert_eq!(r.of("fig4a", "SBF-rand31"), Reading::StandIn);
        assert_eq!(r.of("t2", "SBF-rand31"), Reading::Hypothesis);
        assert_eq!(r.of("t2", "SBF"), Reading::Faithful);
        let mut c = Counts::default();
        c.add(Reading::Faithful, false, true);
        c.add(Reading::Faithful, false, false);
        c.add(Reading::StandIn, false, true);
        c.add(Reading::Authors, true, true);
        assert_eq!(
            c.summary(),
            "faithful columns: 1 / 2; E of saturated filters: 1 / 1; on stand-in data (not compared): 1 / 1"
        );
        assert_eq!(c.without(Reading::Authors).get(Reading::SaturatedE), (0, 0));
    }
}
