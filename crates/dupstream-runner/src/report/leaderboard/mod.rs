//! The leaderboard (`dupstream leaderboard`): every structure at equal *measured* memory, its
//! settings tuned on streams that are not scored, summarised by the memory it needs to reach
//! an error target. LEADERBOARD.md states the rules ([`RULES`]); each is held by a test here.
//!
//! - A **board** is one results directory's scored stream on one **track**: *since-start*
//!   (an element is a duplicate iff it occurred anywhere before; error = FPR + FNR over the
//!   whole stream; memory per distinct key of the stream) or *windowed* (`[metrics] window`
//!   or `window_seconds`: a duplicate iff its previous occurrence is within the window; error
//!   = windowed FPR + FNR after `[metrics] warmup`; memory per window element).
//! - A **family** is an `[[algorithm]]`'s `family` (default its label): near-twins count as
//!   one entry, shown by their best member.
//! - **Columns** are the `[grid] memory` sizes; a family's entry in a column is chosen on the
//!   tuning stream among everything it ran whose measured memory fits the column
//!   (`build.rs`).
//! - The **frontier** ([`Reach`]): the bits per element a family needs to reach 1 % and
//!   0.1 %, from its tuned point at every size it ran.
//! - [`summary`]: medians across boards, and the transfer of each synthetic board's order to
//!   the real traces (Kendall τ-b).

mod build;
mod markdown;
mod model;
pub mod summary;

pub use build::{boards, reach};
pub use markdown::{bound_cell, place_text, reach_text};
pub use model::{Board, Column, Entry, FamilyRow, RULES, Reach, Track, error};
