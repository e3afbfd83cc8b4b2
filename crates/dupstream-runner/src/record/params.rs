//! A structure's parameters in a result row: an ordered list of `(name, value)` pairs, as the
//! structure reports them (its typed [`Param`]s, each value rendered as its `Display`).
//! Written to CSV as `name=value;…` (the `params` column of `raw.csv`) and read back into
//! pairs once, at the file boundary; nothing downstream splits strings.

use dupstream_filters::Param;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Ordered `(name, value)` pairs; a name may repeat (a derived row prepends its own), and the
/// first occurrence wins on lookup.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// From a structure's own pairs.
    pub fn new<N: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (N, V)>) -> Self {
        Self(
            pairs
                .into_iter()
                .map(|(n, v)| (n.into(), v.into()))
                .collect(),
        )
    }

    /// A structure's own parameters.
    pub fn of(params: &[Param]) -> Self {
        Self::new(params.iter().map(|p| (p.name, p.value.to_string())))
    }

    /// The pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The value of `name` as a number, if given and numeric.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.get(name)?.trim().parse().ok()
    }

    /// `K`, the number of hash functions, when the structure has one (`k` or `K`).
    pub fn k(&self) -> Option<u64> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("k"))
            .and_then(|(_, v)| v.trim().parse().ok())
    }

    /// `pairs` followed by these.
    pub fn prepend(&self, pairs: &[(&str, &str)]) -> Self {
        let mut out = Params::new(pairs.iter().copied());
        out.0.extend(self.0.iter().cloned());
        out
    }

    /// Parses the CSV form `name=value;…` (a part without `=` is skipped).
    pub fn parse(text: &str) -> Self {
        Self(
            text.split(';')
                .filter_map(|kv| kv.split_once('='))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        )
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(";")?;
            }
            write!(f, "{n}={v}")?;
        }
        Ok(())
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(Params::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_looks_up() {
        let text = "max=1;k=2;p=4;fps=-;m=8388608;fps_bound=0.1111111464323905";
        let p = Params::parse(text);
        assert_eq!(p.to_string(), text);
        assert_eq!(p.get("fps"), Some("-"));
        assert_eq!(p.number("fps"), None);
        assert_eq!(p.number("fps_bound"), Some(0.1111111464323905));
        assert_eq!(p.k(), Some(2));
        assert_eq!(Params::parse("").to_string(), "");
        assert_eq!(Params::parse("K=3").k(), Some(3));
        let d = p.prepend(&[("derived", "difference"), ("k", "9")]);
        assert_eq!(d.get("k"), Some("9"), "first occurrence wins");
        assert!(d.to_string().starts_with("derived=difference;k=9;max=1;"));
        let typed = [
            Param::new("k", 2u32),
            Param::new("fps", None::<f64>),
            Param::new("q", 0.5),
        ];
        assert_eq!(Params::of(&typed).to_string(), "k=2;fps=-;q=0.5");
    }
}
