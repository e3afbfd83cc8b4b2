//! The runner's dependency rule (ARCHITECTURE.md), checked over its source:
//!
//! cli → distribute → {execute, report} → record → plan
//!
//! A stage may use only the stages to its right; `execute` and `report` do not use each
//! other. Every `crate::…` and `super::…` path in a stage's files counts, in `use` lines and
//! inline alike. Within the runner, no two modules may depend on each other through a chain
//! of such paths either (a module's use of an ancestor, its facade, is not counted).
//!
//! Run it alone with `cargo test -p dupstream-runner --test tests deps`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const STAGES: [&str; 6] = ["plan", "record", "execute", "report", "distribute", "cli"];

/// The stages each stage may use.
fn allowed(stage: &str) -> &'static [&'static str] {
    match stage {
        "plan" => &[],
        "record" => &["plan"],
        "execute" | "report" => &["record", "plan"],
        "distribute" => &["execute", "report", "record", "plan"],
        "cli" => &["distribute", "execute", "report", "record", "plan"],
        _ => &[],
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module file under `src/` by its module path (`["report", "charts", "render"]`).
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut next = prefix.to_vec();
                next.push(name);
                walk(&p, &next, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut m = prefix.to_vec();
                if name != "mod" && !(prefix.is_empty() && (name == "lib" || name == "main")) {
                    m.push(name);
                }
                if !m.is_empty() {
                    out.insert(m, p);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &[], &mut out);
    out
}

/// The module paths a file's code names: `crate::a::b…` and `super::…` (resolved against
/// `module`), including each name of a `{…}` group. Comments are skipped.
fn paths_named(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (root, rest) in [("crate::", None), ("super::", Some(()))] {
            let mut from = 0;
            while let Some(i) = code[from..].find(root) {
                let start = from + i + root.len();
                from = start;
                let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
                let before = code[..start - root.len()].chars().next_back();
                if before.is_some_and(|c| ident(c) || c == ':') {
                    continue;
                }
                let tail: String = code[start..]
                    .chars()
                    .take_while(|&c| ident(c) || c == ':' || c == '{' || c == ',' || c == ' ')
                    .collect();
                let (head, group) = match tail.split_once('{') {
                    Some((h, g)) => (h.to_string(), Some(g.to_string())),
                    None => (tail.clone(), None),
                };
                let mut base: Vec<String> = if rest.is_some() {
                    // `super` is the parent of the file's module (for `a/mod.rs`, of `a`).
                    module[..module.len().saturating_sub(1)].to_vec()
                } else {
                    Vec::new()
                };
                base.extend(
                    head.split("::")
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                );
                match group {
                    Some(g) => {
                        for item in g.split(',') {
                            let mut p = base.clone();
                            p.extend(item.trim().split("::").map(|s| s.trim().to_string()));
                            out.push(p);
                        }
                    }
                    None => out.push(base),
                }
            }
        }
    }
    out
}

/// The module a path points into: its longest prefix that is a module file.
fn resolve(path: &[String], modules: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains_key(p))
}

/// Module → modules it uses (uses of its own ancestors are not counted).
fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules();
    let mut g = BTreeMap::new();
    for (m, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let mut deps = BTreeSet::new();
        for p in paths_named(&text, m) {
            if let Some(t) = resolve(&p, &modules) {
                let ancestor = m.starts_with(&t);
                if t != *m && !ancestor {
                    deps.insert(t);
                }
            }
        }
        g.insert(m.clone(), deps);
    }
    g
}

#[test]
fn stages_depend_one_way_only() {
    let mut bad = Vec::new();
    let g = graph();
    assert!(g.len() > 30, "found only {} modules under src/", g.len());
    for (m, deps) in &g {
        let stage = m[0].as_str();
        assert!(STAGES.contains(&stage), "{m:?} is outside the stages");
        for d in deps {
            let to = d[0].as_str();
            if to != stage && !allowed(stage).contains(&to) {
                bad.push(format!("{} uses {}", m.join("::"), d.join("::")));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "dependencies against the rule cli → distribute → {{execute, report}} → record → plan:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let g = graph();
    // Depth-first search for a back edge; report the cycle found.
    fn visit(
        m: &Vec<String>,
        g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for d in g.get(m).into_iter().flatten() {
            match state.get(d).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|x| x == d).unwrap();
                    let mut cycle: Vec<String> = stack[i..].iter().map(|x| x.join("::")).collect();
                    cycle.push(d.join("::"));
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(m, &g, &mut state, &mut Vec::new()) {
                panic!("import circle: {}", cycle.join(" → "));
            }
        }
    }
}

#[test]
fn the_checker_sees_paths() {
    let m = vec![
        "report".to_string(),
        "charts".to_string(),
        "length".to_string(),
    ];
    let p = paths_named(
        "use crate::record::{RawRow, rows::test_row};\nuse super::series::series_by; // crate::cli\nlet x = crate::plan::cost::BATCH;",
        &m,
    );
    let joined: Vec<String> = p.iter().map(|x| x.join("::")).collect();
    assert_eq!(
        joined,
        [
            "record::RawRow",
            "record::rows::test_row",
            "report::charts::series::series_by",
            "plan::cost::BATCH"
        ]
    );
}
