//! The analyzer on small crates: in memory for [`graph_of`], on disk for [`read_crate`].

use super::*;

/// A module path written `a::b` (`""` for the root).
fn module(path: &str) -> ModulePath {
    if path.is_empty() {
        ModulePath::new()
    } else {
        path.split("::").map(str::to_owned).collect()
    }
}

/// The graph of a crate given as `(module, text)` pairs.
fn graph(files: &[(&str, &str)]) -> Graph {
    let sources: Vec<SourceFile> = files
        .iter()
        .map(|(path, text)| SourceFile {
            module: module(path),
            text: (*text).to_owned(),
        })
        .collect();
    graph_of(&sources).unwrap_or_else(|(module, e)| panic!("{module:?}: {e}"))
}

/// Every edge of a graph, as `a → b` lines in the graph's order.
fn edges(graph: &Graph) -> Vec<String> {
    graph
        .edges
        .iter()
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .map(move |to| format!("{} → {}", name(from), name(to)))
        })
        .collect()
}

/// A crate's files, as `(module, text)` pairs.
type Files = &'static [(&'static str, &'static str)];

/// A crate, its files, the edges expected (every one, in order) and the circles expected.
struct Case {
    what: &'static str,
    files: Files,
    edges: &'static [&'static str],
    circles: &'static [&'static [&'static str]],
}

/// Checks every case, then fails with each one that went otherwise.
fn check(cases: &[Case]) {
    let mut failed = Vec::new();
    for case in cases {
        let graph = graph(case.files);
        let (edges, circles) = (edges(&graph), circles(&graph));
        if edges != case.edges || circles != case.circles {
            failed.push(format!(
                "{}:\n  edges {edges:?}, expected {:?}\n  circles {circles:?}, expected {:?}",
                case.what, case.edges, case.circles
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn circles_are_reported_and_chains_are_not() {
    check(&[
        Case {
            what: "a and b use each other",
            files: &[
                ("", "mod a; mod b;"),
                ("a", "use crate::b::X; pub struct Y;"),
                ("b", "use crate::a::Y; pub struct X;"),
            ],
            edges: &["a → b", "b → a"],
            circles: &[&["a → b", "b → a"]],
        },
        Case {
            what: "a → b → c, and nothing back",
            files: &[
                ("", "mod a; mod b; mod c;"),
                ("a", "use crate::b::X;"),
                ("b", "pub struct X; use crate::c::Z;"),
                ("c", "pub struct Z;"),
            ],
            edges: &["a → b", "b → c"],
            circles: &[],
        },
        Case {
            what: "a → b → c → a, every edge of the circle listed",
            files: &[
                ("", "mod a; mod b; mod c;"),
                ("a", "use crate::b::X;"),
                ("b", "use crate::c::Z;"),
                ("c", "use crate::a::Y;"),
            ],
            edges: &["a → b", "b → c", "c → a"],
            circles: &[&["a → b", "b → c", "c → a"]],
        },
        Case {
            what: "two circles tied by an edge are two circles; the edge between them is in neither",
            files: &[
                ("", "mod a; mod b; mod c; mod d; mod e;"),
                ("a", "use crate::b::X;"),
                ("b", "use crate::a::Y;"),
                ("c", "use crate::d::X; use crate::a::Y;"),
                ("d", "use crate::c::Y; use crate::e::Z;"),
                ("e", ""),
            ],
            edges: &["a → b", "b → a", "c → a", "c → d", "d → c", "d → e"],
            circles: &[&["a → b", "b → a"], &["c → d", "d → c"]],
        },
        Case {
            what: "a file using itself is no circle",
            files: &[
                ("", "mod a;"),
                ("a", "pub struct X; fn f() -> crate::a::X { self::X }"),
            ],
            edges: &[],
            circles: &[],
        },
    ]);
}

#[test]
fn a_module_re_exporting_its_children_does_not_use_them() {
    check(&[
        Case {
            what: "`pub use self::c::Item` in p, and c names `super::Other`",
            files: &[
                ("", "mod p;"),
                ("p", "mod c; pub use self::c::Item; pub struct Other;"),
                ("p::c", "use super::Other; pub struct Item;"),
            ],
            edges: &["p::c → p"],
            circles: &[],
        },
        Case {
            what: "`pub use c::Item` in p, and c names `super::Other`",
            files: &[
                ("", "mod p;"),
                ("p", "mod c; pub use c::Item; pub struct Other;"),
                ("p::c", "pub fn f(_: super::Other) {} pub struct Item;"),
            ],
            edges: &["p::c → p"],
            circles: &[],
        },
        Case {
            what: "`pub(crate) use crate::p::c::{Item, deeper::*}` in p: its own parts, by absolute paths",
            files: &[
                ("", "mod p;"),
                (
                    "p",
                    "mod c; pub(crate) use crate::p::c::{Item, deeper::*}; pub struct Other;",
                ),
                ("p::c", "mod deeper; use super::Other; pub struct Item;"),
                ("p::c::deeper", "pub struct Deep;"),
            ],
            edges: &["p::c → p"],
            circles: &[],
        },
        Case {
            what: "a private `use self::c::Item` is a use: with c naming `super::Other`, a circle",
            files: &[
                ("", "mod p;"),
                ("p", "mod c; use self::c::Item; pub struct Other;"),
                ("p::c", "use super::Other; pub struct Item;"),
            ],
            edges: &["p → p::c", "p::c → p"],
            circles: &[&["p → p::c", "p::c → p"]],
        },
        Case {
            what: "re-exporting a sibling's item is a use of the sibling",
            files: &[
                ("", "mod p; mod q;"),
                ("p", "pub use super::q::Item;"),
                ("q", "pub struct Item;"),
            ],
            edges: &["p → q"],
            circles: &[],
        },
    ]);
}

#[test]
fn aliased_modules_and_globs_are_uses() {
    check(&[
        Case {
            what: "`use crate::x as y; y::f()`",
            files: &[
                ("", "mod m; mod x;"),
                ("m", "use crate::x as y; fn g() { y::f() }"),
                ("x", "pub fn f() {}"),
            ],
            edges: &["m → x"],
            circles: &[],
        },
        Case {
            what: "through an alias to a deeper file: `y::deep::f()`, and `x::deep::f()` after `use crate::x`",
            files: &[
                ("", "mod m; mod n; mod x;"),
                ("m", "use crate::x as y; fn g() { y::deep::f() }"),
                ("n", "use crate::x; fn g() { x::deep::f() }"),
                ("x", "pub mod deep;"),
                ("x::deep", "pub fn f() {}"),
            ],
            edges: &["m → x", "m → x::deep", "n → x", "n → x::deep"],
            circles: &[],
        },
        Case {
            what: "`use crate::x::{self as y}` and an alias of an alias",
            files: &[
                ("", "mod m; mod n; mod x;"),
                ("m", "use crate::x::{self as y}; fn g() { y::deep::f() }"),
                (
                    "n",
                    "use crate::x as y; use y::deep as z; fn g() { z::f() }",
                ),
                ("x", "pub mod deep;"),
                ("x::deep", "pub fn f() {}"),
            ],
            edges: &["m → x", "m → x::deep", "n → x", "n → x::deep"],
            circles: &[],
        },
        Case {
            what: "an alias counts in the whole module, also before its `use`",
            files: &[
                ("", "mod m; mod x;"),
                ("m", "fn g() { y::deep::f() } use crate::x as y;"),
                ("x", "pub mod deep;"),
                ("x::deep", "pub fn f() {}"),
            ],
            edges: &["m → x", "m → x::deep"],
            circles: &[],
        },
        Case {
            what: "globs: `use crate::x::*`, `use super::*`, `use crate::x::deep::*`",
            files: &[
                ("", "mod m; mod x;"),
                ("m", "mod c; use crate::x::*;"),
                ("m::c", "use super::*; use crate::x::deep::*;"),
                ("x", "pub mod deep;"),
                ("x::deep", ""),
            ],
            edges: &["m → x", "m::c → m", "m::c → x::deep"],
            circles: &[],
        },
        Case {
            what: "an alias of something not ours, and a name that is not a module, are no edges",
            files: &[
                ("", "mod m; mod x;"),
                (
                    "m",
                    "use std::fmt as x; fn g() -> x::Result { Ok(()) } fn h() { Thing::new() }",
                ),
                ("x", ""),
            ],
            edges: &[],
            circles: &[],
        },
    ]);
}

#[test]
fn paths_name_files_without_a_use() {
    check(&[
        Case {
            what: "a call in a fn body",
            files: &[
                ("", "mod m; mod x;"),
                ("m", "fn g() { crate::x::f(); }"),
                ("x", ""),
            ],
            edges: &["m → x"],
            circles: &[],
        },
        Case {
            what: "a type in a signature, a field, an impl",
            files: &[
                ("", "mod a; mod b; mod c; mod x; mod y; mod z;"),
                ("a", "fn g(_: crate::x::T) {}"),
                (
                    "b",
                    "fn g() -> Option<crate::y::T> { None } struct S { z: crate::z::T }",
                ),
                ("c", "struct S; impl crate::x::Trait for S {}"),
                ("x", ""),
                ("y", ""),
                ("z", ""),
            ],
            edges: &["a → x", "b → y", "b → z", "c → x"],
            circles: &[],
        },
        Case {
            what: "`self::child::f()` and `child::f()` name a child module's file",
            files: &[
                ("", "mod m;"),
                ("m", "mod c; mod d; fn g() { self::c::f(); d::f(); }"),
                ("m::c", ""),
                ("m::d", ""),
            ],
            edges: &["m → m::c", "m → m::d"],
            circles: &[],
        },
        Case {
            what: "a macro's path is read, the tokens given to a macro are not",
            files: &[
                ("", "mod m; mod x; mod y;"),
                ("m", "fn g() { crate::x::m!(); vec![crate::y::f()]; }"),
                ("x", ""),
                ("y", ""),
            ],
            edges: &["m → x"],
            circles: &[],
        },
        Case {
            what: "`::c::f()` and `use ::c::T` name the extern crate `c`, not the child module `c`",
            files: &[
                ("", "mod m;"),
                ("m", "mod c; use ::c::T; fn g() { ::c::f(); }"),
                ("m::c", ""),
            ],
            edges: &[],
            circles: &[],
        },
    ]);
}

#[test]
fn super_self_and_nested_modules_resolve() {
    check(&[
        Case {
            what: "`super::super::x` from a::b::c is a::x",
            files: &[
                ("", "mod a;"),
                ("a", "mod b; mod x;"),
                ("a::b", "mod c;"),
                ("a::b::c", "use super::super::x::T;"),
                ("a::x", ""),
            ],
            edges: &["a::b::c → a::x"],
            circles: &[],
        },
        Case {
            what: "`super` from a::b is a, but from a top-level file it is the root, which is no edge",
            files: &[
                ("", "mod a; pub struct Item;"),
                ("a", "mod b; use super::Item; pub struct T;"),
                ("a::b", "use super::T;"),
            ],
            edges: &["a::b → a"],
            circles: &[],
        },
        Case {
            what: "more `super`s than there are parents name nothing",
            files: &[("", "mod a;"), ("a", "fn g() { super::super::a::f() }")],
            edges: &[],
            circles: &[],
        },
        Case {
            what: "the nested file a::b naming `crate::c`",
            files: &[
                ("", "mod a; mod c;"),
                ("a", "mod b;"),
                ("a::b", "use crate::c::T;"),
                ("c", ""),
            ],
            edges: &["a::b → c"],
            circles: &[],
        },
        Case {
            what: "inline modules: `super` from inside one, and a path into another file's one",
            files: &[
                ("", "mod a; mod b; mod x;"),
                (
                    "a",
                    "mod inner { use super::super::x::T; use super::Local; } struct Local;",
                ),
                (
                    "b",
                    "use crate::a::inner::Thing; mod deep { pub mod deeper { pub fn f() {} } } fn g() { deep::deeper::f() }",
                ),
                ("x", ""),
            ],
            edges: &["a → x", "b → a"],
            circles: &[],
        },
    ]);
}

#[test]
fn test_code_is_left_out() {
    check(&[
        Case {
            what: "a `#[cfg(test)] mod tests`, a `#[cfg(test)]` use, fn, impl, const and a `#[test]` fn",
            files: &[
                ("", "mod a; mod b;"),
                (
                    "a",
                    "#[cfg(test)] mod tests { use crate::b::X; }
                     #[cfg(test)] use crate::b::Y;
                     #[cfg(test)] fn helper() { crate::b::f() }
                     #[cfg(test)] impl crate::b::Trait for S {}
                     #[cfg(test)] const C: crate::b::T = crate::b::T;
                     #[test] fn works() { crate::b::f() }
                     struct S;",
                ),
                ("b", "use crate::a::S;"),
            ],
            edges: &["b → a"],
            circles: &[],
        },
        Case {
            what: "`cfg(all(test, …))` is test code",
            files: &[
                ("", "mod a; mod b;"),
                (
                    "a",
                    "#[cfg(all(test, not(target_arch = \"wasm32\")))] mod native { use crate::b::X; }",
                ),
                ("b", "use crate::a::S;"),
            ],
            edges: &["b → a"],
            circles: &[],
        },
        Case {
            what: "`cfg(not(test))` and `cfg(any(test, …))` are not only test code",
            files: &[
                ("", "mod a; mod b; mod c;"),
                (
                    "a",
                    "#[cfg(not(test))] use crate::b::X; #[cfg(any(test, feature = \"x\"))] use crate::c::X;",
                ),
                ("b", ""),
                ("c", ""),
            ],
            edges: &["a → b", "a → c"],
            circles: &[],
        },
    ]);
}

/// A crate written to a fresh directory, removed when dropped.
struct OnDisk(PathBuf);

impl OnDisk {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "history-chat-architecture-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        OnDisk(dir)
    }

    fn read(&self) -> Result<Graph, ReadError> {
        read_crate(&self.0.join("src/lib.rs"))
    }
}

impl Drop for OnDisk {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn files(graph: &Graph) -> Vec<String> {
    graph.files.iter().map(name).collect()
}

#[test]
fn read_crate_follows_mod_declarations() {
    let on_disk = OnDisk::new(
        "follows",
        &[
            ("src/lib.rs", "mod flat; mod nested; pub mod outer;"),
            ("src/flat.rs", "use crate::nested::T;"),
            ("src/nested/mod.rs", "mod child; pub struct T;"),
            ("src/nested/child.rs", "use crate::outer::inner::U;"),
            ("src/outer.rs", "pub mod inner;"),
            ("src/outer/inner.rs", "pub struct U; use crate::flat::V;"),
        ],
    );
    let graph = on_disk.read().unwrap();
    assert_eq!(
        files(&graph),
        [
            "crate",
            "flat",
            "nested",
            "nested::child",
            "outer",
            "outer::inner"
        ]
    );
    assert_eq!(
        edges(&graph),
        [
            "flat → nested",
            "nested::child → outer::inner",
            "outer::inner → flat"
        ]
    );
}

#[test]
fn read_crate_leaves_test_modules_out() {
    let on_disk = OnDisk::new(
        "tests",
        &[
            (
                "src/lib.rs",
                "mod a; mod b; mod tests; #[cfg(test)] mod helpers; #[cfg(test)] mod absent;",
            ),
            ("src/a.rs", "use crate::b::X; #[cfg(test)] mod tests;"),
            ("src/a/tests.rs", "use crate::b::X;"),
            ("src/b.rs", "pub struct X;"),
            ("src/tests.rs", "use crate::a::Y; use crate::b::X;"),
            ("src/helpers.rs", "use crate::a::Y;"),
        ],
    );
    let graph = on_disk.read().unwrap();
    assert_eq!(files(&graph), ["crate", "a", "b"]);
    assert_eq!(edges(&graph), ["a → b"]);
}

#[test]
fn read_crate_follows_path_attributes() {
    let on_disk = OnDisk::new(
        "path",
        &[
            ("src/lib.rs", "#[path = \"elsewhere/x.rs\"] mod x; mod a;"),
            // A `#[path]` file owns its directory, like a `mod.rs`: its `mod y;` is beside it.
            ("src/elsewhere/x.rs", "mod y; use crate::a::T;"),
            ("src/elsewhere/y.rs", "use crate::a::T;"),
            ("src/a.rs", "#[path = \"other.rs\"] mod b; pub struct T;"),
            // Relative to the directory of the declaring file, not to `a/`.
            ("src/other.rs", "use crate::x::y::Z;"),
        ],
    );
    let graph = on_disk.read().unwrap();
    assert_eq!(files(&graph), ["crate", "a", "a::b", "x", "x::y"]);
    assert_eq!(edges(&graph), ["a::b → x::y", "x → a", "x::y → a"]);
}

#[test]
fn read_crate_reports_a_missing_module() {
    let on_disk = OnDisk::new("missing", &[("src/lib.rs", "mod gone;")]);
    let error = on_disk.read().unwrap_err();
    assert!(
        matches!(&error, ReadError::MissingModule(_, name) if name == "gone"),
        "{error}"
    );
}

#[test]
fn upward_imports_are_reported() {
    const LAYERS: &[(&str, &[&str])] = &[("low", &["a", "c"]), ("high", &["b"])];
    let rows: &[(&str, Files, &[&str])] = &[
        (
            "a higher layer uses a lower one",
            &[("", "mod a; mod b;"), ("a", ""), ("b", "use crate::a::T;")],
            &[],
        ),
        (
            "a lower layer uses a higher one",
            &[("", "mod a; mod b;"), ("a", "use crate::b::T;"), ("b", "")],
            &["a (low) → b (high)"],
        ),
        (
            "a nested file, by its top-level module",
            &[
                ("", "mod a; mod b;"),
                ("a", "mod deep;"),
                ("a::deep", "use crate::b::inner::T;"),
                ("b", "pub mod inner;"),
                ("b::inner", ""),
            ],
            &["a::deep (low) → b::inner (high)"],
        ),
        (
            "a module of the same layer",
            &[
                ("", "mod a; mod c;"),
                ("a", "use crate::c::T;"),
                ("c", "use crate::a::T;"),
            ],
            &[],
        ),
        (
            "a module in no layer is reported, whatever it uses or is used by",
            &[
                ("", "mod a; mod new;"),
                ("a", "use crate::new::T;"),
                ("new", "mod deep; use crate::a::T;"),
                ("new::deep", ""),
            ],
            &["new: in no layer"],
        ),
        (
            "the root is in no layer and needs none",
            &[("", "mod a; use a::T;"), ("a", "")],
            &[],
        ),
    ];
    for (what, files, expected) in rows {
        assert_eq!(upward_imports(&graph(files), LAYERS), *expected, "{what}");
    }
}

/// What [`wording_outside`] reports of a crate given as `(module, text)` pairs, `wording` and
/// `i18n` being the presentation layer.
fn wording(files: &[(&str, &str)]) -> Vec<String> {
    let sources: Vec<SourceFile> = files
        .iter()
        .map(|(path, text)| SourceFile {
            module: module(path),
            text: (*text).to_owned(),
        })
        .collect();
    wording_outside(&sources, &["wording", "i18n"])
        .unwrap_or_else(|(module, e)| panic!("{module:?}: {e}"))
}

#[test]
fn wording_outside_the_presentation_layer_is_reported() {
    let rows: &[(&str, Files, &[&str])] = &[
        (
            "`t!` and `crate::t!` in a lower module",
            &[
                ("", "mod a;"),
                (
                    "a",
                    "fn f() -> String { t!(\"key\") } fn g() -> String { crate::t!(\"other\", 1) }",
                ),
            ],
            &["a: t!(\"key\")", "a: t!(\"other\", …)"],
        ),
        (
            "inside another macro's tokens; `t != 0` is no macro",
            &[
                ("", "mod a;"),
                (
                    "a",
                    "fn f() {
                         let _ = format!(\"{}\", t!(\"key\"));
                         let _ = vec![crate::i18n::plural(\"k\", 1, &[])];
                         view! { <p>{t!(\"label\")}</p> };
                         assert!(t != 0);
                     }",
                ),
            ],
            &[
                "a: t!(\"key\")",
                "a: crate::i18n::plural(…)",
                "a: t!(\"label\")",
            ],
        ),
        (
            "imported, then called bare or by an alias",
            &[
                ("", "mod a;"),
                (
                    "a",
                    "use crate::i18n::{number, plural as p}; fn f() { number(1); p(\"k\", 2, &[]); }",
                ),
            ],
            &[
                "a: use crate::i18n::number",
                "a: use crate::i18n::plural",
                "a: number(…)",
                "a: p(…)",
            ],
        ),
        (
            "through an alias of the module, and `text`, what `t!` calls",
            &[
                ("", "mod a;"),
                (
                    "a",
                    "use crate::i18n as words;
                     fn f() -> String { words::number(3) + &crate::i18n::text(\"k\", &[]) }",
                ),
            ],
            &["a: words::number(…)", "a: crate::i18n::text(…)"],
        ),
        (
            "a glob of i18n, an alias used above its `use`, a function passed as a value",
            &[
                ("", "mod a; mod b; mod c;"),
                ("a", "use crate::i18n::*; fn f() { plural(\"k\", 1, &[]); }"),
                (
                    "b",
                    "use words::plural; use crate::i18n as words; fn f() { plural(\"k\", 1, &[]); }",
                ),
                (
                    "c",
                    "fn f() -> Vec<String> { [1].into_iter().map(crate::i18n::number).collect() }",
                ),
            ],
            &[
                "a: use crate::i18n::*",
                "a: plural(…)",
                "b: use words::plural",
                "b: plural(…)",
                "c: crate::i18n::number",
            ],
        ),
        (
            "the presentation layer (and its nested files) and i18n itself word freely",
            &[
                ("", "#[macro_use] mod i18n; mod wording;"),
                ("i18n", "pub fn number(n: i64) -> String { t!(\"separator\") }"),
                ("wording", "mod deep; fn f() -> String { t!(\"key\") }"),
                (
                    "wording::deep",
                    "use crate::i18n::plural; fn f() -> String { plural(\"k\", 1, &[]) }",
                ),
            ],
            &[],
        ),
        (
            "test code, and names that are not i18n's, are not wording",
            &[
                ("", "mod a;"),
                (
                    "a",
                    "#[cfg(test)] mod tests { fn f() { t!(\"key\"); } }
                     #[cfg(test)] use crate::i18n::plural;
                     #[test] fn works() { t!(\"key\"); }
                     struct S;
                     impl S {
                         #[cfg(test)] fn g() { t!(\"key\"); }
                         fn number(&self) -> u8 { 1 }
                     }
                     fn plural(n: u8) -> u8 { n }
                     fn h(s: S, number: u8) -> u8 {
                         plural(s.number()) + number + other::number(1) + s.text(format!(\"{}\", s.number()))
                     }",
                ),
            ],
            &[],
        ),
    ];
    for (what, files, expected) in rows {
        assert_eq!(wording(files), *expected, "{what}");
    }
}

#[test]
fn read_sources_reads_every_file_but_the_tests() {
    let on_disk = OnDisk::new(
        "sources",
        &[
            ("src/lib.rs", "mod a; mod wording; #[cfg(test)] mod tests;"),
            (
                "src/a.rs",
                "fn f() -> String { t!(\"key\") } #[cfg(test)] mod tests;",
            ),
            ("src/a/tests.rs", "fn g() { t!(\"in a test\"); }"),
            ("src/wording/mod.rs", "mod deep;"),
            ("src/wording/deep.rs", "fn f() -> String { t!(\"key\") }"),
            ("src/tests.rs", "fn g() { t!(\"in a test\"); }"),
        ],
    );
    let sources = read_sources(&on_disk.0.join("src/lib.rs")).unwrap();
    let mut modules: Vec<String> = sources.iter().map(|s| name(&s.module)).collect();
    modules.sort();
    assert_eq!(modules, ["a", "crate", "wording", "wording::deep"]);
    assert_eq!(
        wording_outside(&sources, &["wording", "i18n"]).unwrap(),
        ["a: t!(\"key\")"]
    );
}
