//! The IndexedDB side of the hosts that keep one record per page (topic search's vectors,
//! [`crate::semantic_host`]; the pages' content, [`crate::content_host`]): reading a store back in
//! chunks, writing a batch, and the model's failures as the core's hosts read them. Each host
//! keeps its own events; this module only moves records.

use history_chat_bindings::embedder::EmbedderError;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::idb::{self, Records, WriteError};
use history_chat_core::semantic::host::{EmbedFailure, StoredRecord};

/// Reads every record of `store` and hands them to `chunk`, `size` at a time (`done` on the
/// last), the worker's event loop serving the pages between two chunks. `false` when the store
/// could not be read (nothing was handed).
pub async fn load_in_chunks(
    store: Records,
    size: usize,
    mut chunk: impl FnMut(Vec<StoredRecord>, bool),
) -> bool {
    let Ok(pairs) = idb::all_records(store).await else {
        return false;
    };
    let mut records: Vec<StoredRecord> = pairs
        .into_iter()
        .map(|(url, bytes)| StoredRecord { url, bytes })
        .collect();
    loop {
        let rest = records.split_off(records.len().min(size.max(1)));
        let done = rest.is_empty();
        chunk(records, done);
        if done {
            return true;
        }
        records = rest;
        http::sleep(0, &Cancel::new()).await;
    }
}

/// How a batch's write ended.
pub enum Saved {
    /// Written, in one transaction.
    Written,
    /// Not written; `quota`: the browser refused for want of room.
    Failed {
        /// Whether the browser's quota refused it.
        quota: bool,
    },
}

/// Writes `records` into `store`, in one transaction.
pub async fn save(store: Records, records: Vec<StoredRecord>) -> Saved {
    let pairs: Vec<(String, Vec<u8>)> = records
        .into_iter()
        .map(|record| (record.url, record.bytes))
        .collect();
    match idb::put_records(store, &pairs).await {
        Ok(()) => Saved::Written,
        Err(WriteError::QuotaExceeded) => Saved::Failed { quota: true },
        Err(WriteError::Failed(_)) => Saved::Failed { quota: false },
    }
}

/// The model's failure as the hosts read it.
pub fn embed_failure(error: EmbedderError) -> EmbedFailure {
    match error {
        EmbedderError::ModelMissing(_) => EmbedFailure::ModelMissing,
        EmbedderError::ModelCorrupt(_) => EmbedFailure::ModelCorrupt,
        EmbedderError::Unsupported(_) => EmbedFailure::Unsupported,
        EmbedderError::Crashed(message) => EmbedFailure::Crashed(message),
    }
}
