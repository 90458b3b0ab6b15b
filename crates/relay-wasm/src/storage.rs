//! Persistent state: `chrome.storage.<area>` in the extension, an in-memory map elsewhere (Node,
//! plain browser tests). Everything that must survive a service-worker restart goes through here.

use std::cell::RefCell;
use std::collections::BTreeMap;

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
        ErrorBody::new("storage", e.to_string()).with_hint(
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

    /// Reads one key as JSON (`Value::Null` when absent).
    pub async fn get(&self, key: &str) -> Result<Value, StorageError> {
        let area = match self {
            Store::Memory(m) => return Ok(m.borrow().get(key).cloned().unwrap_or(Value::Null)),
            Store::Chrome(area) => area,
        };
        let got = JsFuture::from(area.get(&JsValue::from_str(key)).map_err(failed)?).await;
        let v = Reflect::get(&got.map_err(failed)?, &key.into()).map_err(failed)?;
        if v.is_undefined() || v.is_null() {
            return Ok(Value::Null);
        }
        from_js(v, key).map_err(|e| StorageError::Corrupt(key.to_owned(), message(&e, "")))
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
}
