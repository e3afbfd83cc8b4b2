//! Integration tests of the `dupstream` command: one binary, a module per concern.

mod util;

mod adversarial;
mod catalogue;
mod cli;
mod compress;
mod configs;
mod custom;
mod deps;
mod docs;
mod features;
mod golden;
mod leaderboard;
mod messages;
mod outputs;
mod properties;
mod readme;
mod report;
mod schema;
mod shard;
mod time_window;
mod tuning;
mod verify;
mod window;
