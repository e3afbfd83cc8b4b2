//! `dupstream completions SHELL`: a completion script for the shell, from the command line's
//! own definition (clap_complete).

use anyhow::Result;

pub const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  dupstream completions bash > ~/.local/share/bash-completion/completions/dupstream
  dupstream completions zsh > ~/.zfunc/_dupstream      (with fpath+=~/.zfunc in ~/.zshrc)
  dupstream completions fish > ~/.config/fish/completions/dupstream.fish";

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Writes the completion script of `cmd`, the whole command line's definition (passed in:
/// this module is part of it).
pub fn run(args: CompletionsArgs, mut cmd: clap::Command) -> Result<()> {
    // Into memory first: clap_complete panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "dupstream", &mut script);
    out!("{}", String::from_utf8_lossy(&script))?;
    Ok(())
}
