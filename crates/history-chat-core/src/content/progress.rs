//! How far reading pages has got, as the worker tells the options page.

use serde::{Deserialize, Serialize};

use crate::semantic::UnavailableReason;

/// The content store's state and counts, for the options page's progress bar and its "N pages
/// read, M MB" line: `{"status":"reading","pages":120,"passagesEmbedded":800,
/// "passagesTotal":960,"bytes":1234567}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentProgress {
    /// What the store is doing.
    pub status: ContentStatus,
    /// Pages whose content is held (searchable by their words).
    pub pages: u32,
    /// Passages embedded (searchable by their meaning too).
    pub passages_embedded: u32,
    /// Passages to embed in all: `passages_embedded` and those waiting or being embedded.
    pub passages_total: u32,
    /// The stored records' bytes, each page counted at the size of its record once all its
    /// passages are embedded (what the cap is compared with).
    pub bytes: u64,
    /// Why passages are not being embedded, when the model cannot run: pages are still read and
    /// found by their words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<UnavailableReason>,
}

impl ContentProgress {
    /// Whether it may still change: the options page keeps asking how far it has got.
    pub fn is_moving(&self) -> bool {
        matches!(
            self.status,
            ContentStatus::Loading | ContentStatus::Reading | ContentStatus::Paused
        )
    }
}

/// What the content store is doing. Serialised as `"reading"`, `{"unavailable":"storeFailing"}`
/// (externally tagged, as every enum the extension's pages read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentStatus {
    /// The switch is off: nothing is read or kept.
    Off,
    /// Reading the stored pages (pages read meanwhile are searchable already).
    Loading,
    /// Storing pages just read, or embedding their passages.
    Reading,
    /// Passages are left to embed, but the computer runs on a low battery
    /// ([`crate::power::Battery::is_low`]): none is embedded until it is charging or charged
    /// again; pages are still read and searchable by their words.
    Paused,
    /// Everything read is stored and embedded (or cannot be embedded: see
    /// [`ContentProgress::model`]).
    Ready,
    /// The browser refused to store more: nothing more is read until pages are removed, the cap
    /// is lowered, or the extension restarts; what is held stays searchable.
    StorageFull,
    /// The store cannot be read or written ([`UnavailableReason::StoreFailing`]): nothing more is
    /// read this session; what was loaded stays searchable.
    Unavailable(UnavailableReason),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_shape_pages_read() {
        let rows = [
            (ContentStatus::Off, json!("off"), None, None),
            (ContentStatus::Loading, json!("loading"), None, None),
            (ContentStatus::Reading, json!("reading"), None, None),
            (ContentStatus::Paused, json!("paused"), None, None),
            (
                ContentStatus::Ready,
                json!("ready"),
                Some(UnavailableReason::ModelMissing),
                Some(json!("modelMissing")),
            ),
            (ContentStatus::StorageFull, json!("storageFull"), None, None),
            (
                ContentStatus::Unavailable(UnavailableReason::StoreFailing),
                json!({"unavailable": "storeFailing"}),
                None,
                None,
            ),
        ];
        for (status, want, model, model_json) in rows {
            let progress = ContentProgress {
                status,
                pages: 3,
                passages_embedded: 10,
                passages_total: 20,
                bytes: 5_000_000_000,
                model,
            };
            let value = serde_json::to_value(progress).unwrap();
            let mut expected = json!({
                "status": want,
                "pages": 3,
                "passagesEmbedded": 10,
                "passagesTotal": 20,
                "bytes": 5_000_000_000u64,
            });
            if let Some(model) = model_json {
                expected["model"] = model;
            }
            assert_eq!(value, expected, "{status:?}");
            assert_eq!(
                serde_json::from_value::<ContentProgress>(value).unwrap(),
                progress
            );
        }
        let moving: Vec<bool> = [
            ContentStatus::Loading,
            ContentStatus::Reading,
            ContentStatus::Paused,
            ContentStatus::Ready,
            ContentStatus::Off,
        ]
        .into_iter()
        .map(|status| {
            ContentProgress {
                status,
                pages: 0,
                passages_embedded: 0,
                passages_total: 0,
                bytes: 0,
                model: None,
            }
            .is_moving()
        })
        .collect();
        assert_eq!(moving, [true, true, true, false, false]);
    }
}
