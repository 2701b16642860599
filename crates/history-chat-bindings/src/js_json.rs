//! Values cross the JS boundary as JSON text: `JSON.stringify` on the way in, `JSON.parse` on the
//! way out. Integers stay integers (a JS number holding an integer prints without a fraction), and
//! the core's serde types decide how lenient to be.

use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

use crate::ChromeError;

/// Reads a JS value into a Rust type. `undefined` reads as JSON `null`.
pub(crate) fn from_js<T: DeserializeOwned>(
    api: &'static str,
    value: &JsValue,
) -> Result<T, ChromeError> {
    let text = if value.is_undefined() {
        String::from("null")
    } else {
        js_sys::JSON::stringify(value)
            .map_err(|thrown| ChromeError::failed(api, thrown))?
            .as_string()
            .unwrap_or_else(|| String::from("null"))
    };
    // Through `Value`: every type is then read by the one deserializer its lenient fields use
    // already, instead of a second copy of each type's reader for JSON text (smaller modules).
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|error| ChromeError::Unreadable {
            api,
            message: error.to_string(),
        })?;
    T::deserialize(value).map_err(|error| ChromeError::Unreadable {
        api,
        message: error.to_string(),
    })
}

/// Turns a Rust value into a JS value.
pub(crate) fn to_js<T: Serialize>(api: &'static str, value: &T) -> Result<JsValue, ChromeError> {
    let text = serde_json::to_string(value).map_err(|error| ChromeError::Unreadable {
        api,
        message: error.to_string(),
    })?;
    js_sys::JSON::parse(&text).map_err(|thrown| ChromeError::failed(api, thrown))
}
