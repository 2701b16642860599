//! The workspace's import rules, on its own sources.

use std::path::{Path, PathBuf};

use history_chat_architecture::{
    CORE_LAYERS, CORE_WORDING, circles, read_crate, read_sources, upward_imports, wording_outside,
};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every crate of the workspace, by its root file.
const CRATES: &[&str] = &[
    "crates/history-chat-core/src/lib.rs",
    "crates/history-chat-bindings/src/lib.rs",
    "crates/history-chat-embedding/src/lib.rs",
    "crates/history-chat-wasm-bench/src/lib.rs",
    "crates/history-chat-architecture/src/lib.rs",
    "popup/src/lib.rs",
    "options/src/lib.rs",
    "service_worker/src/lib.rs",
    "embedder/src/lib.rs",
];

#[test]
fn no_crate_has_an_import_circle() {
    let mut report = String::new();
    for root in CRATES {
        let graph = read_crate(&workspace().join(root)).unwrap_or_else(|e| panic!("{e}"));
        for circle in circles(&graph) {
            report.push_str(&format!("{root}:\n  {}\n", circle.join("\n  ")));
        }
    }
    assert!(report.is_empty(), "import circles:\n{report}");
}

#[test]
fn the_core_imports_only_downwards() {
    let graph = read_crate(&workspace().join(CRATES[0])).unwrap_or_else(|e| panic!("{e}"));
    let upward = upward_imports(&graph, CORE_LAYERS);
    assert!(
        upward.is_empty(),
        "upward imports in the core:\n  {}",
        upward.join("\n  ")
    );
}

#[test]
fn the_core_words_only_in_its_presentation_layer() {
    let sources = read_sources(&workspace().join(CRATES[0])).unwrap_or_else(|e| panic!("{e}"));
    let outside = wording_outside(&sources, CORE_WORDING)
        .unwrap_or_else(|(module, e)| panic!("{module:?}: {e}"));
    assert!(
        outside.is_empty(),
        "sentences composed outside the core's presentation layer (wording/; see ARCHITECTURE.md):\n  {}",
        outside.join("\n  ")
    );
}
