//! Progress: an indicatif bar overall and one per running cell when stderr is a terminal;
//! plain one-line messages otherwise, so CI logs stay readable. Quiet, nothing but warnings
//! (and the errors the command prints) reaches stderr.

use crate::record::CellTiming;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;

#[derive(Debug)]
pub struct Progress {
    multi: Option<MultiProgress>,
    overall: ProgressBar,
    quiet: bool,
}

/// A rate in elements per second as people read it: `14.5 M/s`, `820 k/s`, `37/s`.
pub fn human_rate(per_sec: f64) -> String {
    let (value, unit) = if !per_sec.is_finite() || per_sec < 0.0 {
        return "-".into();
    } else if per_sec >= 1e9 {
        (per_sec / 1e9, " G")
    } else if per_sec >= 1e6 {
        (per_sec / 1e6, " M")
    } else if per_sec >= 1e3 {
        (per_sec / 1e3, " k")
    } else {
        return format!("{per_sec:.0}/s");
    };
    if value >= 100.0 {
        format!("{value:.0}{unit}/s")
    } else {
        format!("{value:.1}{unit}/s")
    }
}

/// A bar style whose `{rate}` key is [`human_rate`].
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&human_rate(s.per_sec()));
        })
        .progress_chars("=> ")
}

impl Progress {
    /// `total` elements over all cells. Bars only when stdout and stderr are terminals.
    pub fn new(total: u64, quiet: bool) -> Self {
        let tty = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        if tty && !quiet {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let overall = multi.add(ProgressBar::new(total));
            overall.set_style(style(
                "{prefix:>8} [{bar:40}] {percent:>3}% {human_pos}/{human_len} {rate} ETA {eta} {msg}",
            ));
            overall.set_prefix("overall");
            Self {
                multi: Some(multi),
                overall,
                quiet,
            }
        } else {
            Self {
                multi: None,
                overall: ProgressBar::hidden(),
                quiet,
            }
        }
    }

    /// A bar for one cell, named by its label and memory (hidden without a terminal).
    pub fn cell_bar(&self, label: &str, memory: &str, len: u64) -> ProgressBar {
        match &self.multi {
            Some(m) => {
                let bar = m.add(ProgressBar::new(len));
                bar.set_style(style(
                    "{prefix:>32} [{bar:30}] {percent:>3}% {rate} ETA {eta}",
                ));
                bar.set_prefix(cell_name(label, memory));
                bar
            }
            None => ProgressBar::hidden(),
        }
    }

    pub fn inc(&self, n: u64) {
        self.overall.inc(n);
    }

    /// A step of the run (the ground truth being computed): the overall bar's message, or a
    /// line on stderr without a terminal (none when quiet).
    pub fn message(&self, msg: &str) {
        if self.multi.is_some() {
            self.overall.set_message(msg.to_string());
        } else if !self.quiet {
            eprintln!("dupstream: {msg}");
        }
    }

    /// The step is over: the overall bar's message is cleared.
    pub fn clear_message(&self) {
        self.overall.set_message("");
    }

    /// A warning: printed even when quiet, above the bars when there are any.
    pub fn warn(&self, msg: &str) {
        let line = format!("dupstream: warning: {msg}");
        match &self.multi {
            Some(m) => {
                let _ = m.println(line);
            }
            None => eprintln!("{line}"),
        }
    }

    pub fn cell_done(&self, t: &CellTiming) {
        let line = format!(
            "cell {:>3} {:<28} {:>8.2} s  {:>7.2} ns/element",
            t.cell, t.label, t.wall_secs, t.ns_per_element
        );
        match &self.multi {
            Some(m) => {
                let _ = m.println(line);
            }
            None if !self.quiet => eprintln!("dupstream: {line}"),
            None => {}
        }
    }

    pub fn finish(&self) {
        self.overall.finish_and_clear();
    }
}

/// A cell bar's name: the label and the memory, cut to 32 characters from the label's end so
/// that the memory stays.
fn cell_name(label: &str, memory: &str) -> String {
    let room = 32usize.saturating_sub(memory.chars().count() + 1);
    let label: String = if label.chars().count() > room {
        let cut: String = label.chars().take(room.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        label.to_string()
    };
    format!("{label} {memory}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_people_write_them() {
        assert_eq!(human_rate(14_523_456.0), "14.5 M/s");
        assert_eq!(human_rate(820_400.0), "820 k/s");
        assert_eq!(human_rate(2_100.0), "2.1 k/s");
        assert_eq!(human_rate(37.4), "37/s");
        assert_eq!(human_rate(3.2e9), "3.2 G/s");
        assert_eq!(human_rate(f64::NAN), "-");
    }

    #[test]
    fn cell_bars_name_the_memory() {
        assert_eq!(cell_name("SBF", "64MB"), "SBF 64MB");
        let long = cell_name("RSBF-pseudocode with a very long label", "512MB");
        assert!(long.ends_with("… 512MB"), "{long}");
        assert_eq!(long.chars().count(), 32);
    }
}
