//! The `ask` port (`chrome.runtime.connect`) between the popups and the service worker: the
//! worker's AI search tells every open popup how it goes ([`AskUpdate`]). The popup's end is
//! [`follow_asks`]; the worker's is [`accept`] and [`broadcast`].

use std::cell::RefCell;

use futures_channel::mpsc;
use futures_util::StreamExt;
use history_chat_core::ask::{AskUpdate, RECONNECT_MS};
use wasm_bindgen::prelude::*;

use crate::http::{Cancel, sleep};
use crate::js_json::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    /// A `chrome.runtime.Port`.
    type Port;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connect)]
    fn connect(info: &JsValue) -> Result<Port, JsValue>;
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message(this: &Port, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    fn on_message(this: &Port) -> PortEvent;
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    fn on_disconnect(this: &Port) -> PortEvent;
    #[wasm_bindgen(method, getter)]
    fn name(this: &Port) -> JsValue;

    /// `chrome.runtime`, for its `lastError`.
    type Runtime;
    #[wasm_bindgen(thread_local_v2, js_namespace = chrome, js_name = runtime)]
    static RUNTIME: Runtime;
    #[wasm_bindgen(method, getter, js_name = lastError)]
    fn last_error(this: &Runtime) -> JsValue;

    /// A port's `onMessage` or `onDisconnect`.
    type PortEvent;
    #[wasm_bindgen(method, catch, js_name = addListener)]
    fn add_listener(this: &PortEvent, listener: &js_sys::Function) -> Result<(), JsValue>;
}

/// The port's name.
const ASK_PORT: &str = "ask";
const POST: &str = "chrome.runtime.Port.postMessage";
const ON_PORT_MESSAGE: &str = "chrome.runtime.Port.onMessage";

/// What a popup's port hears: an update, or `None` when the worker went away.
type Heard = Option<AskUpdate>;

/// The popup's end, for as long as the popup lives: connects, hands every update to `on_update`,
/// and when the worker goes away (the browser stopped it) calls `on_lost` and connects again —
/// which starts a new worker, told nothing of the search the old one ran.
pub async fn follow_asks(mut on_update: impl FnMut(AskUpdate), mut on_lost: impl FnMut()) {
    loop {
        let (sender, mut heard) = mpsc::unbounded::<Heard>();
        let connected = open_port(sender);
        if let Some(_listening) = &connected {
            while let Some(item) = heard.next().await {
                match item {
                    Some(update) => on_update(update),
                    None => break,
                }
            }
            on_lost();
        }
        sleep(RECONNECT_MS, &Cancel::new()).await;
    }
}

/// What keeps a popup's port listening: the port and its two listeners.
struct Listening {
    _port: Port,
    _message: Closure<dyn FnMut(JsValue)>,
    _disconnect: Closure<dyn FnMut(JsValue)>,
}

fn open_port(sender: mpsc::UnboundedSender<Heard>) -> Option<Listening> {
    let info = js_sys::Object::new();
    js_sys::Reflect::set(&info, &"name".into(), &ASK_PORT.into()).ok()?;
    let port = connect(&info).ok()?;
    let updates = sender.clone();
    let message = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
        // A message this version cannot read is skipped; the next full state follows.
        if let Ok(update) = from_js::<AskUpdate>(ON_PORT_MESSAGE, &message) {
            let _ = updates.unbounded_send(Some(update));
        }
    });
    let disconnect = Closure::<dyn FnMut(JsValue)>::new(move |_port: JsValue| {
        // A worker that was stopping as the port connected leaves "Receiving end does not exist"
        // in `lastError`: expected (the popup connects again), and read so that Chrome does not
        // report it as unchecked in the console.
        let _ = RUNTIME.with(Runtime::last_error);
        let _ = sender.unbounded_send(None);
    });
    port.on_message()
        .add_listener(message.as_ref().unchecked_ref())
        .ok()?;
    port.on_disconnect()
        .add_listener(disconnect.as_ref().unchecked_ref())
        .ok()?;
    Some(Listening {
        _port: port,
        _message: message,
        _disconnect: disconnect,
    })
}

thread_local! {
    /// The worker's open `ask` ports, each with its id.
    static PORTS: RefCell<Vec<(u32, Port)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: RefCell<u32> = const { RefCell::new(0) };
}

/// The worker's end: keeps `port` (from `chrome.runtime.onConnect`) if it is an `ask` port, until
/// it disconnects, and tells it `greeting` (the state now). Other ports are left alone.
pub fn accept(port: JsValue, greeting: &AskUpdate) {
    let port: Port = port.unchecked_into();
    if port.name().as_string().as_deref() != Some(ASK_PORT) {
        return;
    }
    let id = NEXT_ID.with_borrow_mut(|next| {
        *next = next.wrapping_add(1);
        *next
    });
    let forget = Closure::once_into_js(move |_port: JsValue| {
        PORTS.with_borrow_mut(|ports| ports.retain(|(kept, _)| *kept != id));
    });
    if port
        .on_disconnect()
        .add_listener(forget.unchecked_ref())
        .is_err()
    {
        return;
    }
    if post(&port, greeting) {
        PORTS.with_borrow_mut(|ports| ports.push((id, port)));
    }
}

/// Tells every open popup `update`; a port that cannot be posted to any more is dropped.
pub fn broadcast(update: &AskUpdate) {
    PORTS.with_borrow_mut(|ports| ports.retain(|(_, port)| post(port, update)));
}

fn post(port: &Port, update: &AskUpdate) -> bool {
    to_js(POST, update)
        .ok()
        .is_some_and(|message| port.post_message(&message).is_ok())
}
