//! How far the semantic index has got, as the worker tells the extension's pages.

use serde::{Deserialize, Serialize};

/// The semantic index's state and counts, for the options page's `<progress>` and the popup's
/// notice: `{"status":"building","understood":120,"total":5000}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SemanticProgress {
    /// What the index is doing.
    pub status: SemanticStatus,
    /// Pages whose vector is stored and searchable.
    pub understood: u32,
    /// Pages to understand in all: `understood` plus those waiting or being embedded (a page
    /// being embedded again after its title changed is counted once).
    pub total: u32,
}

impl SemanticProgress {
    /// Whether it may still change: the pages keep asking how far it has got.
    pub fn is_moving(&self) -> bool {
        matches!(
            self.status,
            SemanticStatus::Loading | SemanticStatus::Building | SemanticStatus::Paused
        )
    }
}

/// What the semantic index is doing. Serialised as `"ready"`, `{"unavailable":"modelMissing"}`
/// (externally tagged, as every enum the popup reads: see the protocol's `Response`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SemanticStatus {
    /// Turned off by the user: no vector is kept, nothing is embedded.
    Off,
    /// Reading the stored vectors (or waiting for the worker to start it).
    Loading,
    /// Embedding pages, newest first; what is understood is searchable already.
    Building,
    /// Pages are left to embed, but the computer runs on a low battery
    /// ([`crate::power::Battery::is_low`]): no batch starts until it is charging or charged again;
    /// what is understood is searchable.
    Paused,
    /// Every page known is understood.
    Ready,
    /// The model cannot run: nothing more is embedded until the extension restarts or the switch is
    /// turned off and on; the lexical search answers alone.
    Unavailable(UnavailableReason),
    /// The browser refused to store more: the build is paused until pages are removed (or the
    /// extension restarts); what is understood is searchable, the lexical search is unaffected.
    StorageFull,
}

/// Why the model cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UnavailableReason {
    /// The model asset is not in the extension.
    ModelMissing,
    /// The model asset is there but does not load (truncated, another format).
    ModelCorrupt,
    /// This browser cannot run it (no WebAssembly SIMD, no offscreen documents, …).
    Unsupported,
    /// It loaded but kept failing (crashed, or gave broken vectors) on every attempt.
    ModelFailing,
    /// Vectors could not be stored, on every attempt, for another reason than quota.
    StoreFailing,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_shape_pages_read() {
        let rows = [
            (SemanticStatus::Off, json!("off")),
            (SemanticStatus::Loading, json!("loading")),
            (SemanticStatus::Building, json!("building")),
            (SemanticStatus::Ready, json!("ready")),
            (SemanticStatus::Paused, json!("paused")),
            (SemanticStatus::StorageFull, json!("storageFull")),
            (
                SemanticStatus::Unavailable(UnavailableReason::ModelMissing),
                json!({"unavailable": "modelMissing"}),
            ),
            (
                SemanticStatus::Unavailable(UnavailableReason::StoreFailing),
                json!({"unavailable": "storeFailing"}),
            ),
        ];
        for (status, want) in rows {
            let progress = SemanticProgress {
                status,
                understood: 3,
                total: 7,
            };
            let value = serde_json::to_value(progress).unwrap();
            assert_eq!(
                value,
                json!({"status": want, "understood": 3, "total": 7}),
                "{status:?}"
            );
            assert_eq!(
                serde_json::from_value::<SemanticProgress>(value).unwrap(),
                progress
            );
        }
    }
}
