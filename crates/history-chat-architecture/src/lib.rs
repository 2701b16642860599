//! The workspace's import rules, read from the source and checked (`tests/rules.rs`, run by
//! `scripts/test`):
//!
//! - **No import circle between files**, in any crate: if a file uses another, the other does not
//!   use it back, directly or through others. Test modules (`#[cfg(test)]`, `tests.rs`) are left
//!   out: they use what they test and nothing uses them.
//! - **The core's layers import only downwards**: each of the core's top-level modules belongs to one
//!   layer ([`CORE_LAYERS`]), and a file may use its own layer's files and those of the layers
//!   below, never one above.
//! - **The core words only in its presentation layer**: outside [`CORE_WORDING`] (the `wording/`
//!   folder, and `i18n.rs`, which defines them), no file of the core calls `t!` or names
//!   `i18n`'s `plural`, `number` or `text` ([`wording_outside`]). The layers below return typed
//!   values; a method that words one (an inherent `impl`, a `Display`) is written in `wording/`,
//!   where the import check cannot see it called, and this rule is what keeps it there.
//!
//! A file is a node; an edge is any path in it (a `use`, a type, a call) that names an item of
//! another file of the same crate: `crate::…`, `super::…`, `self::…`, a child module's name, or a
//! module brought in by a `use`. Paths inside macro invocations (`view!`, `t!`) are not read, but
//! the names they use are imported by a `use`, which is. A `pub use` of a module's own descendants
//! re-exports them and is no edge. The crate's root file is never a target: a path that names no
//! deeper file (`crate::Item`, `super::Item` from a top-level file) names no edge, as most of what
//! the root names is re-exported from its modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

#[cfg(test)]
mod tests;

/// The core's layers, lowest first, and the top-level modules each one holds. A module may use its
/// own layer and the layers before it. ARCHITECTURE.md draws this table and says each layer's job.
pub const CORE_LAYERS: &[(&str, &[&str])] = &[
    // Words, addresses, numbers, time spans: what every part reads, using nothing of ours.
    (
        "primitives",
        &[
            "i18n", "lenient", "percent", "address", "period", "api_key", "failure", "power",
        ],
    ),
    // Browser history as History Chat understands it: cleaned pages, exclusions, kept pages, sites.
    (
        "history",
        &[
            "clean",
            "history",
            "exclusions",
            "site_filter",
            "origin",
            "archive",
            "display",
        ],
    ),
    // The engines that answer a question about pages: the lexical index, the semantic vectors,
    // what pages said (their content).
    ("engines", &["index", "semantic", "content", "places"]),
    // Retrieval: the sources behind one interface, the one plan, fusion.
    ("retrieval", &["search", "retrieval"]),
    // AI mode: the pipeline, its model trait and prompts, the providers' wire formats.
    ("ai", &["ai", "gemini"]),
    // The conversation and what a result row and the address bar offer.
    (
        "app",
        &[
            "settings",
            "conversation",
            "rows",
            "omnibox",
            "removal",
            "reading",
            "ask",
            "catch_up",
        ],
    ),
    // The wire protocol between the pages and the worker, and every sentence shown from its outcomes.
    ("protocol", &["messages", "wording"]),
];

/// A module, as the path of names from the crate's root (`["index", "host"]`; the root is `[]`).
pub type ModulePath = Vec<String>;

/// One crate's files and which of them each one uses.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every file-backed module, with the modules declared in it (inline ones included).
    pub files: BTreeSet<ModulePath>,
    /// file → the files it uses.
    pub edges: BTreeMap<ModulePath, BTreeSet<ModulePath>>,
}

/// What went wrong reading a crate's sources.
#[derive(Debug)]
pub enum ReadError {
    /// A file could not be read.
    Io(PathBuf, std::io::Error),
    /// A file is not valid Rust.
    Parse(PathBuf, syn::Error),
    /// A `mod name;` whose file is neither `name.rs` nor `name/mod.rs`.
    MissingModule(PathBuf, String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(path, error) => write!(f, "{}: {error}", path.display()),
            ReadError::Parse(path, error) => write!(f, "{}: {error}", path.display()),
            ReadError::MissingModule(path, name) => {
                write!(f, "{}: no file for `mod {name};`", path.display())
            }
        }
    }
}

/// The source of one file, at its module path.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub module: ModulePath,
    pub text: String,
}

/// Reads a crate from its root file (`src/lib.rs`), following its `mod name;` declarations, and
/// leaving out test modules.
pub fn read_crate(root: &Path) -> Result<Graph, ReadError> {
    let sources = read_sources(root)?;
    graph_of(&sources).map_err(|(module, e)| ReadError::Parse(PathBuf::from(module.join("/")), e))
}

/// The source files of a crate, from its root file (`src/lib.rs`), following its `mod name;`
/// declarations, and leaving out test modules: what [`read_crate`] makes its graph of, and what
/// [`wording_outside`] reads.
pub fn read_sources(root: &Path) -> Result<Vec<SourceFile>, ReadError> {
    let mut sources = Vec::new();
    let mut pending = vec![(root.to_path_buf(), ModulePath::new(), true)];
    while let Some((path, module, owns_dir)) = pending.pop() {
        let text = std::fs::read_to_string(&path).map_err(|e| ReadError::Io(path.clone(), e))?;
        let file = syn::parse_file(&text).map_err(|e| ReadError::Parse(path.clone(), e))?;
        // The directory of this file's child modules: `a/` beside `a.rs`, or the file's own for
        // `lib.rs` and `mod.rs`.
        let dir = if owns_dir {
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            path.with_file_name(stem.unwrap_or_default())
        };
        for (name, explicit) in declared_file_modules(&file) {
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            let mut child = module.clone();
            child.push(name.clone());
            if let Some(explicit) = explicit {
                // Relative to the declaring file's directory; and like rustc, the file it names
                // owns its directory, as a `mod.rs` does: its own `mod name;` files are beside it.
                let beside = path.parent().map(Path::to_path_buf).unwrap_or_default();
                pending.push((beside.join(explicit), child, true));
            } else if flat.exists() {
                pending.push((flat, child, false));
            } else if nested.exists() {
                pending.push((nested, child, true));
            } else {
                return Err(ReadError::MissingModule(path.clone(), name));
            }
        }
        sources.push(SourceFile { module, text });
    }
    Ok(sources)
}

/// The graph of files given as text (what [`read_crate`] reads; tests give it directly).
pub fn graph_of(sources: &[SourceFile]) -> Result<Graph, (ModulePath, syn::Error)> {
    let mut parsed = Vec::new();
    for source in sources {
        let file = syn::parse_file(&source.text).map_err(|e| (source.module.clone(), e))?;
        parsed.push((source.module.clone(), file));
    }
    let files: BTreeSet<ModulePath> = parsed.iter().map(|(m, _)| m.clone()).collect();
    // Every module, inline ones too, so that a path into an inline module resolves to its file.
    let mut modules = files.clone();
    for (module, file) in &parsed {
        collect_inline_modules(module, &file.items, &mut modules);
    }
    // A `use` counts in its whole module, also above it: the files are read again, knowing the
    // aliases of the reading before, until a reading finds no new one (an alias that names another,
    // `use y::deep as z` above `use crate::x as y`, is found one reading later).
    let mut known = Aliases::new();
    loop {
        let mut found = Aliases::new();
        let mut edges = BTreeMap::new();
        for (module, file) in &parsed {
            let mut reader = Reader {
                file: module.clone(),
                current: module.clone(),
                modules: &modules,
                files: &files,
                known: &known,
                aliases: Vec::new(),
                found: Aliases::new(),
                used: BTreeSet::new(),
                re_export: false,
            };
            reader.enter_scope();
            reader.visit_file(file);
            edges.insert(module.clone(), reader.used);
            for (scope, names) in reader.found {
                found.entry(scope).or_default().extend(names);
            }
        }
        let new = found.iter().any(|(scope, names)| {
            names
                .keys()
                .any(|name| !known.get(scope).is_some_and(|k| k.contains_key(name)))
        });
        if !new {
            return Ok(Graph { files, edges });
        }
        for (scope, names) in found {
            known.entry(scope).or_default().extend(names);
        }
    }
}

/// Per module: each name brought in by a `use` that is one of our modules → that module.
type Aliases = BTreeMap<ModulePath, BTreeMap<String, ModulePath>>;

/// Whether an item is built for the tests only: a `#[test]`, or a `#[cfg]` that cannot hold
/// without `test` (`test`, `all(test, …)`; not `not(test)` nor `any(test, …)`).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("test")
            || (attr.path().is_ident("cfg")
                && attr
                    .parse_args::<syn::Meta>()
                    .is_ok_and(|predicate| holds_without_test(&predicate) == Some(false)))
    })
}

/// Whether a `cfg` predicate holds in a build without `test`; `None` when that depends on the
/// build (a feature, a target).
fn holds_without_test(predicate: &syn::Meta) -> Option<bool> {
    let syn::Meta::List(list) = predicate else {
        return predicate.path().is_ident("test").then_some(false);
    };
    let arguments = list
        .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let values: Vec<Option<bool>> = arguments.iter().map(holds_without_test).collect();
    if list.path.is_ident("not") {
        match values[..] {
            [value] => value.map(|v| !v),
            _ => None,
        }
    } else if list.path.is_ident("all") {
        if values.contains(&Some(false)) {
            Some(false)
        } else {
            values.iter().all(|v| *v == Some(true)).then_some(true)
        }
    } else if list.path.is_ident("any") {
        if values.contains(&Some(true)) {
            Some(true)
        } else {
            values.iter().all(|v| *v == Some(false)).then_some(false)
        }
    } else {
        None
    }
}

/// An item's attributes.
fn attributes(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The `mod name;` declarations of a file (test modules left out), each with its `#[path]` if any.
fn declared_file_modules(file: &syn::File) -> Vec<(String, Option<String>)> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() && !is_test_only(&m.attrs) => {
                let name = m.ident.to_string();
                let path = m.attrs.iter().find_map(|attr| match &attr.meta {
                    syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                });
                (name != "tests").then_some((name, path))
            }
            _ => None,
        })
        .collect()
}

fn collect_inline_modules(at: &ModulePath, items: &[syn::Item], into: &mut BTreeSet<ModulePath>) {
    for item in items {
        if let syn::Item::Mod(m) = item {
            if is_test_only(&m.attrs) {
                continue;
            }
            let mut child = at.clone();
            child.push(m.ident.to_string());
            if let Some((_, items)) = &m.content {
                collect_inline_modules(&child, items, into);
            }
            into.insert(child);
        }
    }
}

struct Reader<'a> {
    /// The file being read.
    file: ModulePath,
    /// The module being read (the file's, or an inline module in it).
    current: ModulePath,
    modules: &'a BTreeSet<ModulePath>,
    files: &'a BTreeSet<ModulePath>,
    /// The aliases an earlier reading found.
    known: &'a Aliases,
    /// Per module scope, innermost last: a name brought in by `use` that is one of our modules →
    /// that module.
    aliases: Vec<BTreeMap<String, ModulePath>>,
    /// The aliases this reading found.
    found: Aliases,
    used: BTreeSet<ModulePath>,
    /// Whether the `use` being read is a re-export (`pub use`).
    re_export: bool,
}

impl Reader<'_> {
    /// Opens the scope of the current module, with the aliases known of it.
    fn enter_scope(&mut self) {
        let known = self.known.get(&self.current).cloned().unwrap_or_default();
        self.aliases.push(known);
    }

    /// The absolute path `segments` names from the current module, if it starts inside the crate.
    fn resolve(&self, segments: &[String]) -> Option<ModulePath> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" | "$crate" => ModulePath::new(),
            "self" => self.current.clone(),
            "super" => {
                let mut base = self.current.clone();
                base.pop()?;
                let mut rest = rest;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            name => {
                let mut child = self.current.clone();
                child.push(name.to_owned());
                if self.modules.contains(&child) {
                    child
                } else if let Some(target) =
                    self.aliases.iter().rev().find_map(|scope| scope.get(name))
                {
                    target.clone()
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// Records the use of `absolute`: an edge to the file holding the longest module it starts with.
    fn record(&mut self, absolute: &ModulePath) {
        // A module re-exporting its own parts (`pub use host::Host` in `index`) names them for
        // others; it does not use them.
        if self.re_export && absolute.starts_with(&self.current) {
            return;
        }
        let mut prefix = absolute.clone();
        loop {
            if self.files.contains(&prefix) {
                if prefix != self.file && !prefix.is_empty() {
                    self.used.insert(prefix);
                }
                return;
            }
            if prefix.pop().is_none() {
                return;
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident.to_string(), None),
            syn::UseTree::Rename(r) => {
                self.use_leaf(prefix, &r.ident.to_string(), Some(r.rename.to_string()))
            }
            syn::UseTree::Glob(_) => {
                if let Some(absolute) = self.resolve(prefix) {
                    self.record(&absolute);
                }
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], name: &str, rename: Option<String>) {
        let mut segments = prefix.to_vec();
        if name != "self" {
            segments.push(name.to_owned());
        }
        let Some(absolute) = self.resolve(&segments) else {
            return;
        };
        self.record(&absolute);
        if self.modules.contains(&absolute) {
            let alias = rename.or_else(|| absolute.last().cloned());
            if let (Some(alias), Some(scope)) = (alias, self.aliases.last_mut()) {
                scope.insert(alias.clone(), absolute.clone());
                let found = self.found.entry(self.current.clone()).or_default();
                found.insert(alias, absolute);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(attributes(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_none() {
            return;
        }
        self.current.push(m.ident.to_string());
        self.enter_scope();
        visit::visit_item_mod(self, m);
        self.aliases.pop();
        self.current.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // `use ::name::…` names an extern crate.
        if u.leading_colon.is_none() {
            self.re_export = !matches!(u.vis, syn::Visibility::Inherited);
            self.use_tree(&mut Vec::new(), &u.tree);
            self.re_export = false;
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // `::name::…` names an extern crate; a one-name path names no other file's item that a
        // `use` has not.
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(absolute) = self.resolve(&segments) {
                self.record(&absolute);
            }
        }
        visit::visit_path(self, path);
    }
}

/// The import circles of a graph: each group of files that reach each other, with the edges that
/// tie it, as `a → b` lines; empty when there is none.
pub fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let nodes: Vec<&ModulePath> = graph.files.iter().collect();
    let index: BTreeMap<&ModulePath, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            graph
                .edges
                .get(*m)
                .into_iter()
                .flatten()
                .filter_map(|t| index.get(t).copied())
                .collect()
        })
        .collect();
    let mut found = Vec::new();
    for component in strongly_connected(&successors) {
        if component.len() < 2 {
            continue;
        }
        let members: BTreeSet<usize> = component.iter().copied().collect();
        let mut lines = Vec::new();
        for &from in &members {
            for &to in &successors[from] {
                if members.contains(&to) {
                    lines.push(format!("{} → {}", name(nodes[from]), name(nodes[to])));
                }
            }
        }
        found.push(lines);
    }
    found
}

/// Tarjan's algorithm, iterative: the strongly connected components of a graph given as
/// successor lists.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut order = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut counter = 0;
    for start in 0..n {
        if order[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (node, ref mut next)) = work.last_mut() {
            if *next == 0 && order[node] == usize::MAX {
                order[node] = counter;
                low[node] = counter;
                counter += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&succ) = successors[node].get(*next) {
                *next += 1;
                if order[succ] == usize::MAX {
                    work.push((succ, 0));
                } else if on_stack[succ] {
                    low[node] = low[node].min(order[succ]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// The edges that go from a layer up to a later one, as `a (layer) → b (layer)` lines, after the
/// top-level modules that belong to no layer, as `name: in no layer` lines: a new module must be
/// given a layer (the root file needs none). The edges from and to a module in no layer are not
/// judged until it has one.
pub fn upward_imports(graph: &Graph, layers: &[(&str, &[&str])]) -> Vec<String> {
    let layer_of = |module: &ModulePath| -> Option<(usize, &str)> {
        let top = module.first()?;
        layers
            .iter()
            .enumerate()
            .find(|(_, (_, members))| members.contains(&top.as_str()))
            .map(|(i, (name, _))| (i, *name))
    };
    let mut found = Vec::new();
    let tops: BTreeSet<&String> = graph.files.iter().filter_map(|m| m.first()).collect();
    for top in tops {
        if layer_of(&vec![top.clone()]).is_none() {
            found.push(format!("{top}: in no layer"));
        }
    }
    for (from, targets) in &graph.edges {
        let Some((from_layer, from_name)) = layer_of(from) else {
            continue;
        };
        for to in targets {
            if let Some((to_layer, to_name)) = layer_of(to)
                && to_layer > from_layer
            {
                found.push(format!(
                    "{} ({from_name}) → {} ({to_name})",
                    name(from),
                    name(to)
                ));
            }
        }
    }
    found
}

/// The core's files that may compose sentences: the presentation layer (`wording/`) and the
/// primitives it words with (`i18n.rs`), by top-level module.
pub const CORE_WORDING: &[&str] = &["wording", "i18n"];

/// `i18n`'s functions that word: `text` (what `t!` calls), `plural` and `number`.
const WORDING_FUNCTIONS: &[&str] = &["text", "plural", "number"];

/// Where a crate composes a sentence outside the top-level modules `allowed`: every `t!` (also
/// inside another macro's tokens, `format!("{}", t!("key"))`), every `use` that brings in
/// `i18n`'s `text`, `plural` or `number` (a glob of `i18n` too), and every path that names one of
/// them (`i18n::plural(…)`, `words::number` after `use crate::i18n as words`, or a bare
/// `plural(…)` where the file imports it), as `module: what` lines in the files' order; empty
/// when there is none. Test code is left out, as [`read_sources`] and [`graph_of`] leave it.
pub fn wording_outside(
    sources: &[SourceFile],
    allowed: &[&str],
) -> Result<Vec<String>, (ModulePath, syn::Error)> {
    let mut found = Vec::new();
    for source in sources {
        let top = source.module.first().map(String::as_str);
        if top.is_some_and(|top| allowed.contains(&top)) {
            continue;
        }
        let file = syn::parse_file(&source.text).map_err(|e| (source.module.clone(), e))?;
        // The names a `use` binds to `i18n` and to its functions, anywhere in the file (a `use`
        // counts in its whole module, also above it): read again until a reading finds no new
        // one (an alias may name an alias).
        let mut names = WordingNames::default();
        let imports = loop {
            let mut collector = UseCollector {
                names: names.clone(),
                imports: Vec::new(),
            };
            collector.visit_file(&file);
            if collector.names == names {
                break collector.imports;
            }
            names = collector.names;
        };
        let mut finder = WordingFinder {
            names: &names,
            found: imports,
        };
        finder.visit_file(&file);
        let module = name(&source.module);
        found.extend(
            finder
                .found
                .into_iter()
                .map(|what| format!("{module}: {what}")),
        );
    }
    Ok(found)
}

/// The names a file's `use`s bind: to the `i18n` module, and to its wording functions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct WordingNames {
    /// Names of `i18n` itself (`i18n`, or an alias: `use crate::i18n as words`).
    i18n: BTreeSet<String>,
    /// Names of its wording functions (`plural`, or `p` after `use crate::i18n::plural as p`).
    functions: BTreeSet<String>,
}

impl WordingNames {
    /// Whether `segments` (a path, or a `use` leaf's whole path) names one of `i18n`'s wording
    /// functions: `…::i18n::plural`, `words::plural` after `use crate::i18n as words`, or a bare
    /// name bound to one.
    fn names_function(&self, segments: &[String]) -> bool {
        match segments {
            [name] => self.functions.contains(name),
            [.., module, function] => {
                WORDING_FUNCTIONS.contains(&function.as_str())
                    && (module == "i18n" || (segments.len() == 2 && self.i18n.contains(module)))
            }
            [] => false,
        }
    }

    /// Whether `segments` names `i18n` itself.
    fn names_i18n(&self, segments: &[String]) -> bool {
        match segments {
            [name] => name == "i18n" || self.i18n.contains(name),
            [.., last] => last == "i18n",
            [] => false,
        }
    }
}

/// Reads a file's `use`s (test code left out) into [`WordingNames`], and lists those that import a
/// wording function.
struct UseCollector {
    names: WordingNames,
    /// `use crate::i18n::plural`, as it reads.
    imports: Vec<String>,
}

impl UseCollector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident.to_string(), None),
            syn::UseTree::Rename(r) => {
                self.use_leaf(prefix, &r.ident.to_string(), Some(r.rename.to_string()))
            }
            syn::UseTree::Glob(_) => {
                if self.names.names_i18n(prefix) {
                    let all = WORDING_FUNCTIONS.iter().map(|f| (*f).to_owned());
                    self.names.functions.extend(all);
                    self.imports.push(format!("use {}::*", prefix.join("::")));
                }
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], name: &str, rename: Option<String>) {
        let mut segments = prefix.to_vec();
        if name != "self" {
            segments.push(name.to_owned());
        }
        let Some(last) = segments.last().cloned() else {
            return;
        };
        let bound = rename.unwrap_or(last);
        if segments.len() < 2 {
            // `use name;` names an extern crate.
        } else if self.names.names_function(&segments) {
            self.names.functions.insert(bound);
            self.imports.push(format!("use {}", segments.join("::")));
        } else if self.names.names_i18n(&segments) {
            self.names.i18n.insert(bound);
        }
    }
}

impl<'ast> Visit<'ast> for UseCollector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(attributes(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }
}

/// Finds the wording in a file (test code left out): `t!`, and paths naming a wording function.
struct WordingFinder<'a> {
    names: &'a WordingNames,
    /// What was found, as it reads (`t!("key", …)`, `plural(…)`, `use crate::i18n::plural`).
    found: Vec<String>,
}

impl WordingFinder<'_> {
    /// Reads tokens syn leaves unparsed (a macro's): `t!` invocations, and calls or paths naming a
    /// wording function.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Delimiter, TokenTree};
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident) => {
                    let next = trees.get(i + 1);
                    let after = trees.get(i + 2);
                    let bang = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '!');
                    if ident == "t" && bang {
                        if let Some(TokenTree::Group(group)) = after {
                            self.found.push(macro_call("t", &group.stream()));
                        }
                        continue;
                    }
                    let called = matches!(
                        next,
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                    );
                    // The path this name ends: `a::b::name`, read backwards over `::`.
                    let mut segments = vec![ident.to_string()];
                    let mut at = i;
                    while at >= 3
                        && matches!(&trees[at - 1], TokenTree::Punct(p) if p.as_char() == ':')
                        && matches!(&trees[at - 2], TokenTree::Punct(p) if p.as_char() == ':')
                    {
                        match &trees[at - 3] {
                            TokenTree::Ident(before) => segments.insert(0, before.to_string()),
                            _ => break,
                        }
                        at -= 3;
                    }
                    let method = at >= 1
                        && matches!(&trees[at - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    let qualified = segments.len() > 1;
                    if !method && (qualified || called) && self.names.names_function(&segments) {
                        self.found.push(path_text(&segments, called));
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for WordingFinder<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(attributes(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {
        // Read by `UseCollector`.
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac.path.segments.last().is_some_and(|s| s.ident == "t") {
            self.found.push(macro_call("t", &mac.tokens));
        } else {
            visit::visit_macro(self, mac);
        }
        self.tokens(mac.tokens.clone());
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(path) = &*call.func {
            let segments: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if self.names.names_function(&segments) {
                self.found.push(path_text(&segments, true));
                for arg in &call.args {
                    self.visit_expr(arg);
                }
                return;
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if self.names.names_function(&segments) {
            self.found.push(path_text(&segments, false));
        }
        visit::visit_path(self, path);
    }
}

/// `t!("key", …)`: a macro call as a report names it, by its first token.
fn macro_call(name: &str, tokens: &proc_macro2::TokenStream) -> String {
    let mut trees = tokens.clone().into_iter();
    let first = trees.next().map(|t| t.to_string()).unwrap_or_default();
    let more = if trees.next().is_some() { ", …" } else { "" };
    format!("{name}!({first}{more})")
}

/// `crate::i18n::plural(…)`, or the path alone when it is not called.
fn path_text(segments: &[String], called: bool) -> String {
    let path = segments.join("::");
    if called { format!("{path}(…)") } else { path }
}

fn name(module: &ModulePath) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}
