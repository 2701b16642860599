//! Serde helpers for data written by someone else (the browser, another version of the extension):
//! a value we cannot read takes its default instead of failing the whole record.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `deserialize_with` for a field whose unreadable value should fall back to its default.
pub(crate) fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}
