//! Progress: an indicatif bar overall and one per running cell when stderr is a terminal;
//! plain one-line messages otherwise, so CI logs stay readable.

use crate::record::CellTiming;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

#[derive(Debug)]
pub struct Progress {
    multi: Option<MultiProgress>,
    overall: ProgressBar,
    quiet: bool,
}

impl Progress {
    /// `total` elements over all cells. Bars only when stdout and stderr are terminals.
    pub fn new(total: u64, quiet: bool) -> Self {
        let tty = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        if tty && !quiet {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let overall = multi.add(ProgressBar::new(total));
            overall.set_style(
                ProgressStyle::with_template("{prefix:>8} [{bar:40}] {percent:>3}% {human_pos}/{human_len} {per_sec} ETA {eta} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
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

    /// A bar for one cell (hidden without a terminal).
    pub fn cell_bar(&self, label: &str, len: u64) -> ProgressBar {
        match &self.multi {
            Some(m) => {
                let bar = m.add(ProgressBar::new(len));
                bar.set_style(
                    ProgressStyle::with_template(
                        "{prefix:>24} [{bar:30}] {percent:>3}% {per_sec} ETA {eta}",
                    )
                    .expect("valid template")
                    .progress_chars("=> "),
                );
                bar.set_prefix(label.chars().take(24).collect::<String>());
                bar
            }
            None => ProgressBar::hidden(),
        }
    }

    pub fn inc(&self, n: u64) {
        self.overall.inc(n);
    }

    pub fn message(&self, msg: &str) {
        if self.multi.is_some() {
            self.overall.set_message(msg.to_string());
        } else if !self.quiet {
            eprintln!("dupstream: {msg}");
        }
    }

    /// A warning, shown even when quiet (above the bars when they are drawn).
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
