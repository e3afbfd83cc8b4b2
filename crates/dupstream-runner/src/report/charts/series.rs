//! From rows to series: values grouped by label and x, averaged over seeds, with a 95 % band.

use super::Series;
use crate::record::RawRow;
use crate::report::stats::mean_ci;
use std::collections::BTreeMap;

/// The values of one series: per x (keyed by the x's bits), and values with no x (a series
/// drawn flat across the range).
#[derive(Debug, Default)]
pub struct Acc {
    pub by_x: BTreeMap<u64, Vec<f64>>,
    pub flat: Vec<f64>,
}

impl Acc {
    /// Adds a value at `x` (or flat, with no x).
    pub fn push(&mut self, x: Option<f64>, v: f64) {
        match x {
            Some(x) => self.by_x.entry(x.to_bits()).or_default().push(v),
            None => self.flat.push(v),
        }
    }
}

/// The entry labelled `label` in a list kept in order of first appearance.
pub fn slot<'a, T: Default>(list: &'a mut Vec<(String, T)>, label: &str) -> &'a mut T {
    let i = match list.iter().position(|(l, _)| l == label) {
        Some(i) => i,
        None => {
            list.push((label.to_string(), T::default()));
            list.len() - 1
        }
    };
    &mut list[i].1
}

/// A series from its values: the mean at each x (ascending), and the 95 % band when some x has
/// several values. A series with only flat values is drawn at `x_range`'s ends. With
/// `clamp_band`, the band of a non-negative mean stops at 0.
pub fn to_series(label: String, acc: &Acc, x_range: (f64, f64), clamp_band: bool) -> Series {
    let mut points = Vec::new();
    let mut band = Vec::new();
    let mut multi = false;
    let mut push = |x: f64, vals: &[f64]| {
        let (m, ci) = mean_ci(vals);
        multi |= vals.len() > 1;
        let ci = if ci.is_finite() { ci } else { 0.0 };
        let lo = if clamp_band && m >= 0.0 {
            (m - ci).max(0.0)
        } else {
            m - ci
        };
        points.push((x, m));
        band.push((x, lo, m + ci));
    };
    let mut xs: Vec<(f64, &Vec<f64>)> = acc
        .by_x
        .iter()
        .map(|(x, v)| (f64::from_bits(*x), v))
        .collect();
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    if xs.is_empty() && !acc.flat.is_empty() {
        for x in [x_range.0, x_range.1] {
            push(x, &acc.flat);
        }
    }
    for (x, vals) in xs {
        push(x, vals);
    }
    Series {
        label,
        points,
        band: multi.then_some(band),
    }
}

/// Groups rows by `key`, then by label, averaging `y` over seeds at each `x`.
pub fn series_by<K: Ord + Clone>(
    rows: &[&RawRow],
    key: impl Fn(&RawRow) -> K,
    x: impl Fn(&RawRow) -> f64,
    y: impl Fn(&RawRow) -> Option<f64>,
) -> BTreeMap<K, Vec<Series>> {
    let mut out: BTreeMap<K, Vec<(String, Acc)>> = BTreeMap::new();
    for r in rows {
        let Some(v) = y(r) else { continue };
        let group = out.entry(key(r)).or_default();
        slot(group, &r.label).push(Some(x(r)), v);
    }
    out.into_iter()
        .map(|(k, groups)| {
            let series = groups
                .into_iter()
                .map(|(label, acc)| to_series(label, &acc, (0.0, 0.0), true))
                .collect();
            (k, series)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    #[test]
    fn means_bands_and_flat_series() {
        let mut a = test_row("A", 0, 0.1, 0.0);
        let mut b = test_row("A", 1, 0.3, 0.0);
        a.seed = 1;
        b.seed = 2;
        let c = test_row("B", 2, 0.5, 0.0);
        let rows = [&a, &b, &c];
        let s = series_by(
            &rows,
            |_| 0,
            |r| r.position as f64,
            |r| r.fpr.map(|v| v * 100.0),
        );
        let s = &s[&0];
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].label, "A");
        assert!((s[0].points[0].1 - 20.0).abs() < 1e-9);
        assert!(s[0].band.as_ref().unwrap()[0].1 >= 0.0, "clamped at 0");
        assert!(s[1].band.is_none(), "one value per x: no band");
        let mut flat = Acc::default();
        flat.push(None, 2.0);
        flat.push(None, 4.0);
        let f = to_series("F".into(), &flat, (1.0, 9.0), false);
        assert_eq!(f.points, vec![(1.0, 3.0), (9.0, 3.0)]);
    }
}
