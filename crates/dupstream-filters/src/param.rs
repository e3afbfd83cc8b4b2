//! A built structure's parameters as typed values: [`Param`] and [`ParamValue`].
//!
//! [`DuplicateFilter::params`](crate::DuplicateFilter::params) lists the parameters a structure
//! was given and the ones it derived (SBF's `P`, RSBF's `k`, QHT's rows, ...), in a stable
//! order. Each value keeps its type, so a report can read `k` as a number without parsing text,
//! and renders through [`Display`](std::fmt::Display) exactly as the result files write it:
//! integers and booleans as Rust prints them, reals in Rust's shortest round-trip form (never
//! an exponent: `0.0000005500573844630832`), words as they are, and an absent optional
//! parameter as `-`. A [`Param`] renders as `name=value`; `raw.csv`'s `params` column joins
//! them with `;`.

use std::fmt;

/// One parameter of a built structure: its name (as in experiment files) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The parameter's name, e.g. `"k"`.
    pub name: &'static str,
    /// Its value.
    pub value: ParamValue,
}

impl Param {
    /// A parameter from anything that converts into a [`ParamValue`] (integers, `f64`, `bool`,
    /// `&'static str`, and `Option`s of them, `None` becoming [`ParamValue::Absent`]).
    pub fn new(name: &'static str, value: impl Into<ParamValue>) -> Self {
        Self {
            name,
            value: value.into(),
        }
    }
}

/// `name=value`.
impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

/// The value of a [`Param`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ParamValue {
    /// A count, size or index (`k`, `m`, `capacity`, `rows`, ...).
    UInt(u64),
    /// A real number (`fps`, `xi`, a derived rate).
    Float(f64),
    /// A switch (`insert_duplicates`).
    Bool(bool),
    /// One of a fixed set of words (`decrement = adjacent`, `reading = conference`).
    Word(&'static str),
    /// An optional parameter that was neither given nor derived; renders as `-`.
    Absent,
}

impl ParamValue {
    /// The value as a number, for the numeric kinds; `None` for words and absent values.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Self::UInt(v) => Some(v as f64),
            Self::Float(v) => Some(v),
            Self::Bool(_) | Self::Word(_) | Self::Absent => None,
        }
    }
}

/// The rendering of result files: Rust's `Display` of the underlying value, `-` when absent.
impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UInt(v) => v.fmt(f),
            Self::Float(v) => v.fmt(f),
            Self::Bool(v) => v.fmt(f),
            Self::Word(w) => f.write_str(w),
            Self::Absent => f.write_str("-"),
        }
    }
}

macro_rules! from_uint {
    ($($t:ty),*) => {$(
        impl From<$t> for ParamValue {
            fn from(v: $t) -> Self {
                Self::UInt(v as u64)
            }
        }
    )*};
}
from_uint!(u8, u16, u32, u64, usize);

impl From<f64> for ParamValue {
    fn from(v: f64) -> Self {
        Self::Float(v)
    }
}

impl From<bool> for ParamValue {
    fn from(v: bool) -> Self {
        Self::Bool(v)
    }
}

impl From<&'static str> for ParamValue {
    fn from(v: &'static str) -> Self {
        Self::Word(v)
    }
}

impl<T: Into<ParamValue>> From<Option<T>> for ParamValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(Self::Absent, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_the_values_display() {
        assert_eq!(Param::new("k", 3u32).to_string(), "k=3");
        assert_eq!(
            Param::new("m", u64::MAX).to_string(),
            "m=18446744073709551615"
        );
        assert_eq!(Param::new("q", 0.0).to_string(), "q=0");
        assert_eq!(Param::new("xi", 1.0).to_string(), "xi=1");
        assert_eq!(Param::new("fps", 0.1).to_string(), "fps=0.1");
        assert_eq!(
            ParamValue::from(5.500573844630832e-7).to_string(),
            "0.0000005500573844630832"
        );
        assert_eq!(ParamValue::from(f64::INFINITY).to_string(), "inf");
        assert_eq!(ParamValue::from(true).to_string(), "true");
        assert_eq!(ParamValue::from("adjacent").to_string(), "adjacent");
        assert_eq!(ParamValue::from(None::<f64>).to_string(), "-");
        assert_eq!(ParamValue::from(Some(4u64)), ParamValue::UInt(4));
    }

    #[test]
    fn numeric_kinds_read_as_numbers() {
        assert_eq!(ParamValue::UInt(3).as_f64(), Some(3.0));
        assert_eq!(ParamValue::Float(0.5).as_f64(), Some(0.5));
        assert_eq!(ParamValue::Word("x").as_f64(), None);
        assert_eq!(ParamValue::Absent.as_f64(), None);
    }
}
