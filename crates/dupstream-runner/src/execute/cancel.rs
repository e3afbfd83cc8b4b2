//! Stopping a run early: a [`Cancel`] flag that SIGINT or SIGTERM sets ([`Cancel::on_signals`]).
//! Cells poll it once per batch of [`BATCH`](crate::plan::cost::BATCH) elements (one relaxed
//! atomic load per 16,384 elements), and no cell starts once it is set; a cell stopped
//! midway writes nothing, so every cell file in the directory is a finished cell. A second
//! signal ends the process at once (exit 128 + the signal), for a run that does not stop.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// A flag that asks a run to stop: 0 while it runs on, else the signal that asked.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicUsize>);

/// The run stopped early, asked to by `signal` (SIGINT 2, SIGTERM 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted {
    pub signal: i32,
}

impl Interrupted {
    /// The signal's name (`SIGINT`, `SIGTERM`, else `signal N`).
    pub fn name(self) -> String {
        match self.signal {
            2 => "SIGINT".into(),
            15 => "SIGTERM".into(),
            s => format!("signal {s}"),
        }
    }

    /// The exit code of a process ended by the signal, as shells report it: 128 + signal
    /// (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_code(self) -> u8 {
        (128 + self.signal).clamp(0, 255) as u8
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}", self.name())
    }
}

impl std::error::Error for Interrupted {}

/// The process-wide flag the signal handlers set.
static ON_SIGNALS: OnceLock<Cancel> = OnceLock::new();
/// Set by the first signal; a second one then ends the process.
static ARMED: AtomicBool = AtomicBool::new(false);

impl Cancel {
    /// A flag that only [`Cancel::cancel`] sets.
    pub fn new() -> Self {
        Self::default()
    }

    /// The flag SIGINT and SIGTERM set, their handlers installed on the first call (the same
    /// flag on every call). The first signal only sets it; a second ends the process with
    /// 128 + the signal.
    pub fn on_signals() -> std::io::Result<Self> {
        if let Some(c) = ON_SIGNALS.get() {
            return Ok(c.clone());
        }
        let cancel = Cancel::new();
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // The order matters: the shutdown checks ARMED before the next line sets it, so
            // it fires only on a second signal.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, &ARMED)?;
            signal_hook::flag::register(sig, &ARMED)?;
            signal_hook::flag::register_usize(sig, Arc::clone(&cancel.0), sig as usize)?;
        }
        Ok(ON_SIGNALS.get_or_init(|| cancel).clone())
    }

    /// Asks the run to stop, as `signal` would.
    pub fn cancel(&self, signal: i32) {
        self.0.store(signal.max(1) as usize, Ordering::SeqCst);
    }

    /// `Err` once the run was asked to stop.
    #[inline]
    pub fn check(&self) -> Result<(), Interrupted> {
        match self.0.load(Ordering::Relaxed) {
            0 => Ok(()),
            s => Err(Interrupted { signal: s as i32 }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_reports_the_signal_that_set_it() {
        let c = Cancel::new();
        assert!(c.check().is_ok());
        let seen = c.clone();
        c.cancel(15);
        assert!(seen.check().is_err());
        let i = seen.check().unwrap_err();
        assert_eq!((i.name().as_str(), i.exit_code()), ("SIGTERM", 143));
        assert_eq!(Interrupted { signal: 2 }.exit_code(), 130);
        assert_eq!(i.to_string(), "interrupted by SIGTERM");
    }
}
