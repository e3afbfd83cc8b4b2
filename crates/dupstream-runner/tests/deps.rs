//! The runner's dependency rule (ARCHITECTURE.md), checked over its source:
//!
//! cli → orchestrate → {execute, report} → record → plan
//!
//! A stage may use only the stages to its right; `execute` and `report` do not use each
//! other. And no module may depend on itself through a chain of others, its parent and
//! children included: a parent that re-exports a child (`pub use child::X`) uses it, so the
//! child may not use what the parent itself defines.
//!
//! Every file is parsed whole (with `syn`): each `use` tree however it is wrapped or nested,
//! and every path in the code (types, expressions, patterns), `crate::`, `self::`,
//! `super::super::…` and paths relative to the module alike; comments and doc links do not
//! count. A path that names a re-export (`pub use`) counts as a use of the module the item is
//! re-exported from, so a child reaching a sibling through the parent's facade is not a use of
//! the parent.
//!
//! Not seen: a glob re-export (`pub use a::*`) is not followed (a path through it counts for
//! the module that globs), and a macro named bare (`my_macro!`, brought in by
//! `#[macro_use]` or textual scope) is not a path. A file that another `include!`s is part of
//! that one.
//!
//! The circle check covers every crate of the workspace with a `src/` (core, filters, streams
//! and the runner); the stage rule is the runner's.
//!
//! Run it alone with `cargo test -p dupstream-runner --test tests deps`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

const STAGES: [&str; 6] = ["plan", "record", "execute", "report", "orchestrate", "cli"];

/// The stages each stage may use.
fn allowed(stage: &str) -> &'static [&'static str] {
    match stage {
        "plan" => &[],
        "record" => &["plan"],
        "execute" | "report" => &["record", "plan"],
        "orchestrate" => &["execute", "report", "record", "plan"],
        "cli" => &["orchestrate", "execute", "report", "record", "plan"],
        _ => &[],
    }
}

type ModPath = Vec<String>;

/// The source folder of a crate of the workspace (`"dupstream-runner"`).
fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

/// The crates whose modules may not import one another in a circle.
const CRATES: [&str; 4] = [
    "dupstream-core",
    "dupstream-filters",
    "dupstream-streams",
    "dupstream-runner",
];

/// Every module file under a crate's `src/` by its module path (`["report", "charts",
/// "render"]`; `lib.rs` and `main.rs` are the root, `[]`).
fn module_files(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<ModPath, PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut next = prefix.to_vec();
                next.push(name);
                walk(&p, &next, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                // `main.rs` is the binary's root; the library's is `lib.rs`.
                if prefix.is_empty() && name == "main" {
                    continue;
                }
                let mut m = prefix.to_vec();
                if name != "mod" && !(prefix.is_empty() && name == "lib") {
                    m.push(name);
                }
                out.insert(m, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    // A file another file `include!`s is part of that one, not a module of its own.
    let included: Vec<PathBuf> = out
        .values()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let dir = f.parent().unwrap().to_path_buf();
            text.match_indices("include!(\"")
                .filter_map(|(i, m)| {
                    let rest = &text[i + m.len()..];
                    rest.find('"').map(|e| {
                        let p = dir.join(&rest[..e]);
                        p.canonicalize().unwrap_or(p)
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    out.retain(|_, f| !included.contains(&f.canonicalize().unwrap_or_else(|_| f.clone())));
    out
}

/// What one parsed file says: the absolute paths its code names and the names its `use`
/// items bind at file level (`name → absolute path`), through which a path naming them
/// resolves.
#[derive(Debug, Default)]
struct FileUses {
    paths: Vec<ModPath>,
    bindings: BTreeMap<String, ModPath>,
}

/// Collects a file's paths, resolved against the module they are written in.
struct Collector<'a> {
    /// The module being visited (the file's, then inline `mod`s inside it).
    scope: ModPath,
    /// Depth of inline modules below the file's module.
    inline: usize,
    /// Every module (files and the inline ones of this file) — to tell a relative path that
    /// starts at a child module from one that starts at a local item or another crate.
    modules: &'a BTreeSet<ModPath>,
    out: FileUses,
}

impl Collector<'_> {
    /// The absolute path of `segments` as written in the current scope, if it is a path into
    /// this crate.
    fn absolute(&self, segments: &[String]) -> Option<ModPath> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.scope.clone(),
            "super" => self.scope[..self.scope.len().checked_sub(1)?].to_vec(),
            _ => {
                let mut child = self.scope.clone();
                child.push(first.clone());
                if self.modules.contains(&child) {
                    child
                } else if let (0, Some(bound)) = (self.inline, self.out.bindings.get(first)) {
                    bound.clone()
                } else {
                    return None;
                }
            }
        };
        let mut rest = rest;
        while let Some((s, r)) = rest.split_first() {
            if s != "super" {
                break;
            }
            base.pop()?;
            rest = r;
        }
        base.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(base)
    }

    /// Flattens a `use` tree into its paths (each `{…}` member its own path; a glob ends at its
    /// module; a name or `as` rename is bound at file level, see [`FileUses::bindings`]).
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.use_path(prefix, Some(n.ident.to_string()));
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.use_path(prefix, Some(r.rename.to_string()));
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.use_path(prefix, None),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// Paths inside a macro's tokens (`format!("{}", crate::a::b())`), which `syn` leaves
    /// unparsed: every run of `ident::ident…`.
    fn tokens(&mut self, ts: proc_macro2::TokenStream) {
        use proc_macro2::{Spacing, TokenTree};
        let tt: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < tt.len() {
            match &tt[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(first) => {
                    let mut segments = vec![first.to_string()];
                    let mut j = i;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tt.get(j + 1), tt.get(j + 2), tt.get(j + 3))
                    {
                        if !(a.as_char() == ':'
                            && a.spacing() == Spacing::Joint
                            && b.as_char() == ':')
                        {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1
                        && let Some(abs) = self.absolute(&segments)
                    {
                        self.out.paths.push(abs);
                    }
                    i = j;
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn use_path(&mut self, segments: &[String], bound_as: Option<String>) {
        if let Some(abs) = self.absolute(segments) {
            // Public or not, a child may name it through `super::`, and the file's own paths
            // may start with it (`use crate::report;` then `report::table::build()`).
            if let (Some(name), 0) = (bound_as, self.inline) {
                self.out.bindings.insert(name, abs.clone());
            }
            self.out.paths.push(abs);
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.scope.push(m.ident.to_string());
            self.inline += 1;
            syn::visit::visit_item_mod(self, m);
            self.inline -= 1;
            self.scope.pop();
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(abs) = self.absolute(&segments) {
                self.out.paths.push(abs);
            }
        }
        syn::visit::visit_path(self, p);
    }
}

/// Inline modules (`mod tests { … }`) of a parsed file, as absolute module paths.
fn inline_modules(file: &syn::File, module: &[String]) -> Vec<ModPath> {
    fn walk(items: &[syn::Item], scope: &mut ModPath, out: &mut Vec<ModPath>) {
        for item in items {
            if let syn::Item::Mod(m) = item
                && let Some((_, inner)) = &m.content
            {
                scope.push(m.ident.to_string());
                out.push(scope.clone());
                walk(inner, scope, out);
                scope.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut module.to_vec(), &mut out);
    out
}

/// Parses `text` as the file of `module` and collects what it names.
fn parse_uses(text: &str, module: &[String], file_modules: &BTreeSet<ModPath>) -> FileUses {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{module:?}: {e}"));
    let mut modules = file_modules.clone();
    modules.extend(inline_modules(&file, module));
    let mut c = Collector {
        scope: module.to_vec(),
        inline: 0,
        modules: &modules,
        out: FileUses::default(),
    };
    c.visit_file(&file);
    c.out
}

/// The module file a path points into: its longest prefix that is a module file, followed
/// through re-exports (`pub use`) to where the item is defined.
fn resolve(path: &[String], files: &BTreeMap<ModPath, FileUses>, depth: usize) -> Option<ModPath> {
    let m = (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| files.contains_key(p))?;
    if depth < 16
        && let Some(target) = path.get(m.len()).and_then(|n| files[&m].bindings.get(n))
        && target.as_slice() != path
    {
        let mut next = target.clone();
        next.extend_from_slice(&path[m.len() + 1..]);
        return resolve(&next, files, depth + 1);
    }
    Some(m)
}

/// Module → the module files it uses, in the crate whose source is `src` (the root, `lib.rs`,
/// is left out: it holds only the modules' declarations and re-exports).
fn graph(src: &Path) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let files = module_files(src);
    let names: BTreeSet<ModPath> = files.keys().cloned().collect();
    let uses: BTreeMap<ModPath, FileUses> = files
        .iter()
        .map(|(m, f)| {
            let text = std::fs::read_to_string(f).unwrap();
            (m.clone(), parse_uses(&text, m, &names))
        })
        .collect();
    let mut g = BTreeMap::new();
    for (m, u) in &uses {
        if m.is_empty() {
            continue;
        }
        let deps: BTreeSet<ModPath> = u
            .paths
            .iter()
            .filter_map(|p| resolve(p, &uses, 0))
            .filter(|t| t != m && !t.is_empty())
            .collect();
        g.insert(m.clone(), deps);
    }
    g
}

#[test]
fn stages_depend_one_way_only() {
    let mut bad = Vec::new();
    let g = graph(&src("dupstream-runner"));
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
        "dependencies against the rule cli → orchestrate → {{execute, report}} → record → plan:\n{}",
        bad.join("\n")
    );
}

/// Every import circle of `g`, each as the modules around it (Tarjan's strongly connected
/// components of more than one module).
fn circles(g: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a ModPath) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let Some((w, _)) = self.g.get_key_value(w) else {
                    continue;
                };
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[w].min(self.low[v]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.index[w].min(self.low[v]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    scc.push(w.join("::"));
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let mut described = Vec::new();
    for krate in CRATES {
        let g = graph(&src(krate));
        assert!(g.len() > 3, "{krate}: found only {} modules", g.len());
        described.extend(describe_circles(krate, &g));
    }
    assert!(
        described.is_empty(),
        "import circles (each a set of modules that use one another):\n{}",
        described.join("\n")
    );
}

/// Each circle of `g` with the uses inside it, so the one to cut can be chosen.
fn describe_circles(krate: &str, g: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<String> {
    circles(g)
        .iter()
        .map(|c| {
            let edges: Vec<String> = g
                .iter()
                .filter(|(m, _)| c.contains(&m.join("::")))
                .flat_map(|(m, ds)| {
                    ds.iter()
                        .filter(|d| c.contains(&d.join("::")))
                        .map(move |d| format!("  {} uses {}", m.join("::"), d.join("::")))
                })
                .collect();
            format!("{krate}: {}:\n{}", c.join(", "), edges.join("\n"))
        })
        .collect()
}

fn strings(p: &[&str]) -> ModPath {
    p.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_checker_sees_every_form_of_path() {
    let module = strings(&["report", "charts", "length"]);
    let modules: BTreeSet<ModPath> = [
        vec![],
        strings(&["report"]),
        strings(&["report", "charts"]),
        strings(&["report", "charts", "length"]),
        strings(&["report", "charts", "length", "child"]),
        strings(&["record"]),
        strings(&["plan"]),
    ]
    .into_iter()
    .collect();
    let text = r#"
        use crate::{
            record::{RawRow, rows::test_row},
            plan::cost as c,
        };
        use super::super::table::md_cell; // crate::cli in a comment
        pub use child::Thing;
        use std::collections::BTreeMap;
        use crate::report;
        /// [`crate::execute`] in a doc link
        fn f() -> crate::plan::Experiment {
            let x = crate::plan::cost::BATCH;
            self::child::g();
            super::series::series_by();
            assert_eq!(format!("{}", crate::report::stats::mean(1)), "");
            report::runs::compare();
            Local::new()
        }
        #[cfg(test)]
        mod tests {
            use super::*;
            use super::super::super::derived::d;
        }
    "#;
    let u = parse_uses(text, &module, &modules);
    let joined: BTreeSet<String> = u.paths.iter().map(|x| x.join("::")).collect();
    let want: BTreeSet<String> = [
        "record::RawRow",
        "record::rows::test_row",
        "plan::cost",
        "report::table::md_cell",
        "report::charts::length::child::Thing",
        "plan::Experiment",
        "plan::cost::BATCH",
        "report::charts::length::child::g",
        "report::charts::series::series_by",
        "report::charts::length",
        "report::derived::d",
        "report::stats::mean",
        "report",
        "report::runs::compare",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(joined, want);
    assert_eq!(
        u.bindings.get("Thing").map(|p| p.join("::")).as_deref(),
        Some("report::charts::length::child::Thing")
    );
}

#[test]
fn a_use_through_a_facade_counts_for_the_module_behind_it() {
    // `a` re-exports `a::b::X`; `a::c` names `super::X`: a use of `a::b`, not of `a`. A
    // child that names what its parent defines (`a::Y`) closes a circle with the parent
    // that re-exports it.
    let modules: BTreeSet<ModPath> = [
        vec![],
        strings(&["a"]),
        strings(&["a", "b"]),
        strings(&["a", "c"]),
    ]
    .into_iter()
    .collect();
    let mut files = BTreeMap::new();
    files.insert(vec![], FileUses::default());
    files.insert(
        strings(&["a"]),
        parse_uses("pub use b::X;\npub struct Y;", &strings(&["a"]), &modules),
    );
    files.insert(
        strings(&["a", "b"]),
        parse_uses("pub struct X;", &strings(&["a", "b"]), &modules),
    );
    files.insert(
        strings(&["a", "c"]),
        parse_uses(
            "use super::X;\nuse super::Y;",
            &strings(&["a", "c"]),
            &modules,
        ),
    );
    let used: Vec<String> = files[&strings(&["a", "c"])]
        .paths
        .iter()
        .filter_map(|p| resolve(p, &files, 0))
        .map(|m| m.join("::"))
        .collect();
    assert_eq!(used, ["a::b", "a"]);
    let mut g = BTreeMap::new();
    g.insert(
        strings(&["a"]),
        [strings(&["a", "b"])].into_iter().collect(),
    );
    g.insert(strings(&["a", "b"]), BTreeSet::new());
    g.insert(
        strings(&["a", "c"]),
        [strings(&["a"])].into_iter().collect(),
    );
    assert!(circles(&g).is_empty());
    g.get_mut(&strings(&["a"]))
        .unwrap()
        .insert(strings(&["a", "c"]));
    assert_eq!(circles(&g), vec![vec!["a".to_string(), "a::c".to_string()]]);
}
