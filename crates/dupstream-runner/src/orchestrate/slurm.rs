//! `dupstream slurm EXP --shards N`: writes `shard.sbatch` (the array task), `merge.sbatch` and
//! `submit.sh` under `<out>/slurm/`, with a copy of this binary and of the experiment, so the
//! compute nodes need nothing but the output directory. The scripts are the template files
//! in `templates/`, filled by replacing `@name@` placeholders (a placeholder alone on its
//! line stands for zero or more whole lines).

use super::assign::assign;
use super::part::SHARD_FILE;
use super::stop::sh;
use crate::plan::cost::{cells_peak_bytes, run_secs};
use crate::plan::{Experiment, Registry};
use crate::record::files::write_executable;
use crate::record::probe::git_revision;
use crate::record::{Purpose, ResultsDir, atomic_write, digest};
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

const SHARD: &str = include_str!("templates/shard.sbatch");
const MERGE: &str = include_str!("templates/merge.sbatch");
const SUBMIT: &str = include_str!("templates/submit.sh");
const PROLOGUE: &str = include_str!("templates/prologue.sh");
const MIB: u64 = 1 << 20;

pub const SLURM_EXAMPLES: &str = "\
Examples:
  dupstream slurm experiments/bera-journal/table7.toml --shards 16 --partition short --time 2:00:00
      writes <out>/slurm/{shard.sbatch,merge.sbatch,submit.sh}; run submit.sh to submit
  dupstream slurm my.toml --shards 4 --account proj42 --module rust --submit
  <out>/slurm/submit.sh        resubmit the shards that did not finish (they resume), then merge
  <out>/slurm/submit.sh 2      resubmit shard 2 only

Memory per task is dupstream's own peak estimate for the shard's cells (plus 20 % and 256 MiB),
unless --mem is given.";

// The field docs are clap's help text, where `<DIR>` is the usual notation, not HTML.
#[allow(rustdoc::invalid_html_tags)]
#[derive(Debug, clap::Args)]
pub struct SlurmArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, value_name = "N")]
    pub shards: usize,
    /// As `dupstream run --scale`.
    #[arg(long, value_name = "F", value_parser = crate::plan::validate::grid::parse_scale_flag)]
    pub scale: Option<u64>,
    /// Output directory, shared with the compute nodes: parts go to <DIR>/shards, scripts and
    /// logs to <DIR>/slurm, merged results to <DIR> (default: results/<experiment>/<date>-<host>-<rev>[-scale<F>]-slurm).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Root of the default output directory.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_root: PathBuf,
    /// Slurm partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Slurm account to charge (sbatch --account).
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// Quality of service (sbatch --qos).
    #[arg(long, value_name = "Q")]
    pub qos: Option<String>,
    /// Time limit per shard task (sbatch --time, e.g. 2:00:00).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// Time limit of the merge job.
    #[arg(long, value_name = "T")]
    pub merge_time: Option<String>,
    /// CPUs per shard task; the task runs that many threads.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub cpus_per_task: usize,
    /// Memory per shard task, the same for all (sbatch --mem, e.g. 8G), instead of
    /// dupstream's per-shard estimate.
    #[arg(long, value_name = "M")]
    pub mem: Option<String>,
    /// Memory of the merge job.
    #[arg(long, value_name = "M", default_value = "2G")]
    pub merge_mem: String,
    /// Environment module to load in every job (repeatable), e.g. --module gcc.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// A shell line run before dupstream in every job (repeatable).
    #[arg(long = "setup", value_name = "LINE")]
    pub setup: Vec<String>,
    /// Extra `#SBATCH` option for every job (repeatable), e.g. --sbatch-option=--constraint=avx2.
    #[arg(long = "sbatch-option", value_name = "OPT", allow_hyphen_values = true)]
    pub sbatch_options: Vec<String>,
    /// Submit: run the generated submit.sh (sbatch must be on PATH).
    #[arg(long)]
    pub submit: bool,
}

/// Fills a template: a line that is only `@key@` becomes the value's lines (none when it is
/// empty); elsewhere `@key@` becomes the value. Only the given keys are replaced.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    for line in template.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if let Some((_, v)) = values.iter().find(|(k, _)| bare == format!("@{k}@")) {
            out.push_str(v);
            continue;
        }
        let mut line = line.to_string();
        for (k, v) in values {
            line = line.replace(&format!("@{k}@"), v);
        }
        out.push_str(&line);
    }
    out
}

/// The placeholder names of a template (`@word@` with a lowercase word).
#[cfg(test)]
fn placeholder_names(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in template.split('@').skip(1).step_by(2) {
        if !part.is_empty()
            && part.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            && !out.contains(&part.to_string())
        {
            out.push(part.to_string());
        }
    }
    out
}

/// Parses a Slurm memory size (`4096`, `512M`, `8G`, `1T`; default unit MiB) into MiB.
pub fn parse_slurm_mem(s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, "M"),
    };
    let v: u64 = num
        .parse()
        .with_context(|| format!("bad memory size `{s}` (e.g. 4096, 512M, 8G)"))?;
    let mib = match unit.to_ascii_uppercase().as_str() {
        "K" | "KB" => v.div_ceil(1024),
        "M" | "MB" => v,
        "G" | "GB" => v.saturating_mul(1024),
        "T" | "TB" => v.saturating_mul(1 << 20),
        _ => bail!("bad memory size `{s}` (e.g. 4096, 512M, 8G)"),
    };
    if mib == 0 {
        bail!("memory size `{s}` is zero (Slurm reads --mem=0 as the whole node)");
    }
    Ok(mib)
}

/// The memory request (MiB) for an estimate: 20 % and 256 MiB on top (binary, allocator,
/// page cache of the stream), rounded up to 256 MiB so shards share requests.
pub fn mem_request_mib(estimate_bytes: u64) -> u64 {
    let want = estimate_bytes
        .saturating_add(estimate_bytes / 5)
        .div_ceil(MIB)
        + 256;
    want.div_ceil(256) * 256
}

fn sh_path(p: &Path) -> String {
    sh(&p.display().to_string())
}

/// Where the experiment (and its reference file) are copied so the compute nodes need only
/// the output directory. The file name is kept (it is part of the experiment's digest);
/// a reference file reached through leading `..` gets matching directory levels.
fn stage_experiment(
    exp: &Experiment,
    raw_reference: Option<&str>,
    input: &Path,
) -> Result<PathBuf> {
    let name = exp
        .file
        .file_name()
        .context("the experiment path has no file name")?;
    let mut base = input.to_path_buf();
    if let Some(r) = raw_reference {
        let rel = Path::new(r);
        let ups = rel
            .components()
            .take_while(|c| matches!(c, Component::ParentDir))
            .count();
        let clean = rel
            .components()
            .skip(ups)
            .all(|c| matches!(c, Component::Normal(_)));
        if rel.is_absolute() || !clean {
            // Absolute or `a/../b`: keep pointing at the original (must be visible to the nodes).
            eprintln!(
                "dupstream: the reference file `{r}` is not copied; the experiment is used from {}",
                exp.file.display()
            );
            return Ok(std::path::absolute(&exp.file)?);
        }
        for i in 0..ups {
            base = base.join(format!("up{i}"));
        }
    }
    std::fs::create_dir_all(&base)?;
    let staged = base.join(name);
    atomic_write(&staged, exp.source.as_bytes())?;
    if let (Some(r), Some((path, _))) = (raw_reference, &exp.reference) {
        let to = base.join(r);
        std::fs::create_dir_all(to.parent().unwrap_or(&base))?;
        atomic_write(
            &to,
            &crate::plan::catalogue::read(path)
                .with_context(|| format!("reading {}", path.display()))?,
        )?;
    }
    Ok(staged)
}

/// The sweep's directories and staged inputs.
struct Layout {
    dir: PathBuf,
    slurm_dir: PathBuf,
    shards_dir: PathBuf,
    bin: PathBuf,
    staged: PathBuf,
}

/// The split and each shard's memory request (MiB) and estimated seconds.
struct Split {
    plan: Vec<Vec<usize>>,
    mems: Vec<u64>,
    secs: Vec<f64>,
}

/// The memory requests (`--mem`, `--merge-mem`) in MiB, once every argument is checked against
/// an experiment of `cells` cells.
fn checked_args(args: &SlurmArgs, cells: usize) -> Result<(Option<u64>, u64)> {
    let n = args.shards;
    if n == 0 {
        bail!("--shards must be at least 1");
    }
    if n > cells {
        bail!("--shards {n} exceeds the experiment's {cells} cells; use at most {cells}");
    }
    let fixed_mem = args.mem.as_deref().map(parse_slurm_mem).transpose()?;
    let merge_mem = parse_slurm_mem(&args.merge_mem)?;
    for (opt, v) in [("--time", &args.time), ("--merge-time", &args.merge_time)] {
        if let Some(v) = v
            && (v.trim().is_empty() || v.contains(char::is_whitespace))
        {
            bail!("{opt} `{v}` is not a Slurm time (e.g. 2:00:00 or 1-00:00:00)");
        }
    }
    Ok((fixed_mem, merge_mem))
}

/// Writes (and with `--submit`, submits) the Slurm scripts of a sweep.
pub fn slurm(args: &SlurmArgs, registry: &Registry) -> Result<()> {
    let exp = crate::plan::load_with(&args.experiment, args.scale, registry)?;
    let n = args.shards;
    // Refused arguments are bad input (exit 2), as a bad experiment file.
    let (fixed_mem, merge_mem) =
        checked_args(args, exp.cells.len()).map_err(|e| crate::plan::refuse(format!("{e:#}")))?;
    let layout = prepare(args, &exp)?;
    let cpus = args.cpus_per_task.max(1);
    let split = split(&exp, n, cpus, fixed_mem);
    let submit = write_scripts(args, &exp, &layout, &split, merge_mem)?;
    let longest = split.secs.iter().copied().fold(0.0, f64::max);
    eprintln!(
        "dupstream: {} — {} cells in {n} shards; longest shard ~{longest:.0} s on {cpus} CPU(s) (estimate), memory requests {}..{} MiB",
        exp.name,
        exp.cells.len(),
        split.mems.iter().min().copied().unwrap_or(0),
        split.mems.iter().max().copied().unwrap_or(0),
    );
    if args.time.is_none() {
        eprintln!(
            "dupstream: no --time given: the partition's default time limit applies (estimate above; allow a margin)"
        );
    }
    outln!("{}", submit.display())?;
    if args.submit {
        let status = std::process::Command::new("bash")
            .arg(&submit)
            .status()
            .with_context(|| format!("running {}", submit.display()))?;
        if !status.success() {
            bail!("{} failed ({status})", submit.display());
        }
    } else {
        eprintln!("dupstream: submit with {}", submit.display());
    }
    Ok(())
}

/// The sweep directory (created, holding the experiment's digest), a copy of this binary and
/// the staged experiment.
fn prepare(args: &SlurmArgs, exp: &Experiment) -> Result<Layout> {
    let digest = digest(exp)?;
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => ResultsDir::default_path(&args.results_root, exp, &digest, Purpose::Slurm),
    };
    let dir = std::path::absolute(&dir)?;
    if dir.display().to_string().contains(char::is_whitespace) {
        return Err(crate::plan::refuse(format!(
            "{}: #SBATCH lines cannot hold paths with spaces; choose another --out",
            dir.display()
        )));
    }
    ResultsDir::check(&dir, &digest)?;
    let slurm_dir = dir.join("slurm");
    let shards_dir = dir.join("shards");
    std::fs::create_dir_all(slurm_dir.join("logs"))
        .with_context(|| format!("creating {}", slurm_dir.display()))?;
    std::fs::create_dir_all(&shards_dir)?;
    ResultsDir::open(&dir, &digest)?;
    // The binary and the experiment travel in the output directory.
    let exe = std::env::current_exe().context("locating the dupstream binary")?;
    let bin = slurm_dir.join("bin").join("dupstream");
    if std::fs::canonicalize(&exe).ok() != std::fs::canonicalize(&bin).ok() {
        std::fs::create_dir_all(bin.parent().expect("bin dir"))?;
        let tmp = bin.with_extension("partial");
        std::fs::copy(&exe, &tmp).with_context(|| format!("copying {}", exe.display()))?;
        std::fs::rename(&tmp, &bin)?;
    }
    let raw_reference: Option<String> =
        toml::from_str::<toml::Table>(&exp.source)
            .ok()
            .and_then(|t| {
                t.get("reference")?
                    .get("file")?
                    .as_str()
                    .map(str::to_string)
            });
    let staged = stage_experiment(exp, raw_reference.as_deref(), &slurm_dir.join("input"))?;
    Ok(Layout {
        dir,
        slurm_dir,
        shards_dir,
        bin,
        staged,
    })
}

fn split(exp: &Experiment, n: usize, cpus: usize, fixed_mem: Option<u64>) -> Split {
    let plan = assign(exp, n);
    let mut mems = Vec::with_capacity(n);
    let mut secs = Vec::with_capacity(n);
    for cells in &plan {
        let est = cells_peak_bytes(exp, cells, cpus);
        let req = fixed_mem.unwrap_or_else(|| mem_request_mib(est));
        if req.saturating_mul(MIB) < est {
            eprintln!(
                "dupstream: warning: --mem {} MiB is below the estimate of {:.0} MiB for some shard",
                req,
                est as f64 / MIB as f64
            );
        }
        mems.push(req);
        secs.push(run_secs(&exp.restrict(cells), cpus));
    }
    Split { plan, mems, secs }
}

/// One line per item, each ending in a newline.
fn lines(items: &[String], f: impl Fn(&String) -> String) -> String {
    items.iter().map(|x| f(x) + "\n").collect()
}

/// The shell lines every job runs first: modules and setup lines. (The revision the parts
/// record is the one the staged binary was built from: nothing to fix here.)
fn prologue(args: &SlurmArgs) -> String {
    fill(
        PROLOGUE,
        &[
            (
                "modules",
                &lines(&args.modules, |m| format!("module load {m}")),
            ),
            ("setup", &lines(&args.setup, String::clone)),
        ],
    )
}

/// The `#SBATCH` lines every job shares, with its own time limit.
fn sbatch_lines(args: &SlurmArgs, time: Option<&String>) -> String {
    let mut out = String::new();
    for (k, v) in [
        ("partition", args.partition.as_ref()),
        ("account", args.account.as_ref()),
        ("qos", args.qos.as_ref()),
        ("time", time),
    ] {
        if let Some(v) = v {
            let _ = writeln!(out, "#SBATCH --{k}={v}");
        }
    }
    out + &lines(&args.sbatch_options, |o| format!("#SBATCH {o}"))
}

/// The split as comment lines of `submit.sh`.
fn plan_lines(s: &Split, cpus: usize) -> String {
    let mut out = String::new();
    for (i, cells) in s.plan.iter().enumerate() {
        let _ = writeln!(
            out,
            "#   shard {i}: {:>4} cells, ~{:.1} s on {cpus} CPU(s), --mem={}M",
            cells.len(),
            s.secs[i],
            s.mems[i]
        );
    }
    out
}

/// Fills a template with the values every script shares and its own.
fn render(template: &str, common: &[(&str, String)], own: &[(&str, String)]) -> String {
    let values: Vec<(&str, &str)> = common
        .iter()
        .chain(own)
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    fill(template, &values)
}

/// Writes `shard.sbatch`, `merge.sbatch` and `submit.sh`; returns the path of the last.
fn write_scripts(
    args: &SlurmArgs,
    exp: &Experiment,
    l: &Layout,
    s: &Split,
    merge_mem: u64,
) -> Result<PathBuf> {
    let rev = git_revision();
    let n = s.plan.len();
    let cpus = args.cpus_per_task.max(1);
    let common: Vec<(&str, String)> = vec![
        ("name", exp.name.clone()),
        ("n", n.to_string()),
        ("rev", rev.clone()),
        ("logs", l.slurm_dir.join("logs").display().to_string()),
        ("prologue", prologue(args)),
        ("bin", sh_path(&l.bin)),
        ("shards_dir", sh_path(&l.shards_dir)),
        ("shards_dir_display", l.shards_dir.display().to_string()),
        ("slurm_dir", sh_path(&l.slurm_dir)),
        ("dir", sh_path(&l.dir)),
        ("dir_display", l.dir.display().to_string()),
    ];
    let max_mem = s.mems.iter().max().copied().unwrap_or(1024);
    let mems: Vec<String> = s.mems.iter().map(u64::to_string).collect();
    let shard = [
        ("last", (n - 1).to_string()),
        ("cpus", cpus.to_string()),
        ("max_mem", max_mem.to_string()),
        ("sbatch_lines", sbatch_lines(args, args.time.as_ref())),
        ("experiment", sh_path(&l.staged)),
        ("scale", exp.scale.to_string()),
    ];
    let merge = [
        ("merge_mem", merge_mem.to_string()),
        ("sbatch_lines", sbatch_lines(args, args.merge_time.as_ref())),
    ];
    let submit = [
        ("plan_lines", plan_lines(s, cpus)),
        ("mems", mems.join(" ")),
        ("shard_file", SHARD_FILE.to_string()),
    ];
    let path = l.slurm_dir.join("submit.sh");
    write_executable(
        &l.slurm_dir.join("shard.sbatch"),
        &render(SHARD, &common, &shard),
    )?;
    write_executable(
        &l.slurm_dir.join("merge.sbatch"),
        &render(MERGE, &common, &merge),
    )?;
    write_executable(&path, &render(SUBMIT, &common, &submit))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_requests() {
        assert_eq!(parse_slurm_mem("8G").unwrap(), 8192);
        assert_eq!(parse_slurm_mem("4096").unwrap(), 4096);
        assert_eq!(parse_slurm_mem("512M").unwrap(), 512);
        assert!(parse_slurm_mem("0").is_err());
        assert!(parse_slurm_mem("8 parsecs").is_err());
        assert_eq!(mem_request_mib(0), 256);
        assert_eq!(mem_request_mib(1 << 30), 1536);
        assert!(mem_request_mib(3 << 30) as f64 * MIB as f64 >= 1.2 * (3u64 << 30) as f64);
    }

    #[test]
    fn templates_fill_lines_and_words() {
        let t = "a @x@ b\n@lines@\nend @x@\n";
        assert_eq!(fill(t, &[("x", "1"), ("lines", "")]), "a 1 b\nend 1\n");
        assert_eq!(
            fill(t, &[("x", "1"), ("lines", "p\nq\n")]),
            "a 1 b\np\nq\nend 1\n"
        );
        // Shell syntax that looks like a placeholder is left alone.
        assert_eq!(fill("\"$@\" ${a[@]}\n", &[("a", "z")]), "\"$@\" ${a[@]}\n");
        assert_eq!(sh("it's"), "'it'\\''s'");
    }

    #[test]
    fn every_template_placeholder_is_filled() {
        for t in [SHARD, MERGE, SUBMIT, PROLOGUE] {
            let filled = fill(
                t,
                &placeholder_names(t)
                    .iter()
                    .map(|k| (k.as_str(), "v"))
                    .collect::<Vec<_>>(),
            );
            assert!(placeholder_names(&filled).is_empty(), "{filled}");
        }
        assert!(placeholder_names(SHARD).contains(&"shards_dir".to_string()));
    }
}
