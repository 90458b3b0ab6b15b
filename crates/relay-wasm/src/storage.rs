//! Persistent state: `chrome.storage.<area>` in the extension, an in-memory map elsewhere (Node,
//! plain browser tests). Everything that must survive a service-worker restart goes through here.

use relay_core::contract::ErrorKind;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;

use js_sys::{Object, Promise, Reflect};
use relay_core::contract::ErrorBody;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::js::{from_js, message, to_js};

#[wasm_bindgen]
extern "C" {
    /// A `chrome.storage` area (`local`, `session`).
    #[wasm_bindgen(extends = Object)]
    pub type StorageArea;

    /// `area.get(keys)`.
    #[wasm_bindgen(method, catch)]
    fn get(this: &StorageArea, keys: &JsValue) -> Result<Promise, JsValue>;

    /// `area.set(items)`.
    #[wasm_bindgen(method, catch)]
    fn set(this: &StorageArea, items: &JsValue) -> Result<Promise, JsValue>;

    /// `area.remove(keys)`.
    #[wasm_bindgen(method, catch)]
    fn remove(this: &StorageArea, keys: &JsValue) -> Result<Promise, JsValue>;
}

/// Where state is kept.
pub enum Store {
    /// `chrome.storage.<area>`.
    Chrome(StorageArea),
    /// No chrome.storage here: state lives as long as the module.
    Memory(RefCell<BTreeMap<String, Value>>),
}

/// Errors reading or writing storage.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("chrome.storage failed: {0}")]
    Chrome(String),
    #[error("stored value for '{0}' is not valid: {1}")]
    Corrupt(String, String),
}

impl From<StorageError> for ErrorBody {
    fn from(e: StorageError) -> Self {
        ErrorBody::new(ErrorKind::Storage, e.to_string()).with_hint(
            "Reload the extension; if it persists, reset its data in the side panel's settings.",
        )
    }
}

fn failed(e: JsValue) -> StorageError {
    StorageError::Chrome(message(&e, "unknown error"))
}

impl Store {
    /// `chrome.storage.<area>` when it exists, memory otherwise.
    pub fn detect(area: &str) -> Store {
        let found = ["chrome", "storage", area].iter().try_fold(
            js_sys::global().into(),
            |at: JsValue, key| {
                Reflect::get(&at, &JsValue::from_str(key))
                    .ok()
                    .filter(JsValue::is_object)
            },
        );
        match found {
            Some(a) => Store::Chrome(a.unchecked_into()),
            None => Store::Memory(RefCell::new(BTreeMap::new())),
        }
    }

    /// Reads `keys` with one `area.get`, started before this returns: each key's JSON,
    /// `Value::Null` when absent. Two areas read this way load concurrently: the worker's
    /// start-up waits for the slower one, not the sum.
    pub fn read(&self, keys: &[&str]) -> impl Future<Output = Result<Vec<Value>, StorageError>> {
        let keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
        let (pending, memory) = match self {
            Store::Memory(m) => {
                let m = m.borrow();
                let values = keys.iter().map(|k| m.get(k).cloned().unwrap_or_default());
                (None, values.collect())
            }
            Store::Chrome(area) => {
                let list: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
                (Some(area.get(&list)), Vec::new())
            }
        };
        async move {
            let Some(pending) = pending else {
                return Ok(memory);
            };
            let got = JsFuture::from(pending.map_err(failed)?)
                .await
                .map_err(failed)?;
            let read = |key: String| {
                let value = Reflect::get(&got, &JsValue::from_str(&key)).map_err(failed)?;
                // An absent key reads as `undefined`, which `from_js` reads as `null`.
                from_js(value, &key).map_err(|e| StorageError::Corrupt(key, message(&e, "")))
            };
            keys.into_iter().map(read).collect()
        }
    }

    /// Writes one key.
    pub async fn set(&self, key: &str, value: &Value) -> Result<(), StorageError> {
        let area = match self {
            Store::Memory(m) => {
                m.borrow_mut().insert(key.to_owned(), value.clone());
                return Ok(());
            }
            Store::Chrome(area) => area,
        };
        let items = Object::new();
        Reflect::set(&items, &key.into(), &to_js(value).map_err(failed)?).map_err(failed)?;
        JsFuture::from(area.set(&items).map_err(failed)?)
            .await
            .map_err(failed)?;
        Ok(())
    }

    /// Removes keys.
    pub async fn remove(&self, keys: &[String]) -> Result<(), StorageError> {
        let area = match self {
            Store::Memory(m) => {
                let mut m = m.borrow_mut();
                keys.iter().for_each(|k| drop(m.remove(k)));
                return Ok(());
            }
            Store::Chrome(area) => area,
        };
        let list: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
        JsFuture::from(area.remove(&list).map_err(failed)?)
            .await
            .map_err(failed)?;
        Ok(())
    }
}
