//! The page's frames (a page only, as [`crate::clipboard`]): waiting until what is in the DOM now
//! is on screen, so that work which can come later does not delay it.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = r#"
export function afterPaint() {
  // A hidden page paints nothing and runs no animation frame: there is nothing to wait for.
  if (typeof document === 'undefined' || document.visibilityState !== 'visible') return Promise.resolve();
  // The frame's callbacks run just before it is painted; a task queued from them runs after.
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}
"#)]
extern "C" {
    #[wasm_bindgen(catch, js_name = afterPaint)]
    fn after_paint() -> Result<js_sys::Promise, JsValue>;
}

/// Returns once the next frame has been painted (at once where the page is not shown).
pub async fn painted() {
    // The promise only ever resolves; a context without the functions has nothing to wait for.
    if let Ok(promise) = after_paint() {
        let _ = JsFuture::from(promise).await;
    }
}
