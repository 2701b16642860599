//! The evaluation set as a regression test: the smart search must keep its recall targets.

use history_chat_core::index::Index;
use history_chat_core::retrieval::eval::{self, EvalHistory, EvalQuery};

// The data is committed: failing to parse it is a test failure.
#[allow(clippy::unwrap_used)]
fn data() -> (EvalHistory, Vec<EvalQuery>) {
    let history = serde_json::from_str(include_str!("../eval/history.json")).unwrap();
    let queries = serde_json::from_str(include_str!("../eval/queries.json")).unwrap();
    (history, queries)
}

#[test]
fn eval_set_is_large_realistic_and_consistent() {
    let (history, queries) = data();
    assert!(history.entries.len() >= 1_000);
    assert!(queries.len() >= 60);
    let index = Index::build(history.items());
    for q in &queries {
        assert!(!q.expected.is_empty(), "{}", q.query);
        for url in &q.expected {
            assert!(
                index.page(url).is_some(),
                "{}: {url} is not a page",
                q.query
            );
        }
    }
    for kind in [
        "exact", "order", "partial", "accents", "typo", "plural", "english", "french",
    ] {
        assert!(queries.iter().any(|q| q.kind == kind), "no {kind} query");
    }
}

#[test]
fn smart_search_meets_its_recall_targets() {
    let (history, queries) = data();
    let rows = eval::summarize(&eval::run(&history, &queries));
    let table: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {:.2} {:.2}", r.kind, r.literal, r.smart))
        .collect();
    for row in &rows {
        assert!(row.smart >= row.literal, "{table:#?}");
        if row.literal < 1.0 {
            assert!(row.smart > row.literal, "{table:#?}");
        }
    }
    let overall = rows.last().unwrap();
    assert_eq!(overall.kind, "overall");
    assert!(overall.smart >= 0.9, "{table:#?}");
}
