//! An event's listener handed to the browser for the rest of the page's or worker's life.

use wasm_bindgen::JsValue;
use wasm_bindgen::closure::{Closure, WasmClosure};

use crate::ChromeError;

/// Adds `listener` with `add` (an event's `addListener`); once the browser holds it, it is kept
/// for good (the browser calls it until the page or worker ends). `api` names the call in a
/// failure.
pub(crate) fn keep<F: ?Sized + WasmClosure>(
    api: &'static str,
    listener: Closure<F>,
    add: impl FnOnce(&Closure<F>) -> Result<(), JsValue>,
) -> Result<(), ChromeError> {
    add(&listener).map_err(|thrown| ChromeError::failed(api, thrown))?;
    listener.forget();
    Ok(())
}
