//! Persistent state: `chrome.storage.local` in the extension, an in-memory map elsewhere (Node,
//! plain browser tests). Everything that must survive a service-worker restart goes through here.

use std::cell::RefCell;
use std::collections::BTreeMap;

use js_sys::{Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Where state is kept.
pub enum Store {
    /// `chrome.storage.<area>` (an object with `get` and `set`).
    Chrome(Object),
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

fn js_message(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

impl Store {
    /// `chrome.storage.<area>` when it exists, memory otherwise.
    pub fn detect(area: &str) -> Store {
        let global = js_sys::global();
        let found = Reflect::get(&global, &"chrome".into())
            .ok()
            .filter(|c| c.is_object())
            .and_then(|c| Reflect::get(&c, &"storage".into()).ok())
            .filter(|s| s.is_object())
            .and_then(|s| Reflect::get(&s, &area.into()).ok())
            .filter(|a| a.is_object());
        match found {
            Some(a) => Store::Chrome(a.unchecked_into()),
            None => Store::Memory(RefCell::new(BTreeMap::new())),
        }
    }

    async fn call(area: &Object, method: &str, arg: &JsValue) -> Result<JsValue, StorageError> {
        let f: Function = Reflect::get(area, &method.into())
            .map_err(|e| StorageError::Chrome(js_message(&e)))?
            .dyn_into()
            .map_err(|_| {
                StorageError::Chrome(format!("chrome.storage.{method} is not a function"))
            })?;
        let promise: Promise = f
            .call1(area, arg)
            .map_err(|e| StorageError::Chrome(js_message(&e)))?
            .dyn_into()
            .map_err(|_| {
                StorageError::Chrome(format!("chrome.storage.{method} returned no promise"))
            })?;
        JsFuture::from(promise)
            .await
            .map_err(|e| StorageError::Chrome(js_message(&e)))
    }

    /// Reads one key as JSON (`Value::Null` when absent).
    pub async fn get(&self, key: &str) -> Result<Value, StorageError> {
        match self {
            Store::Memory(m) => Ok(m.borrow().get(key).cloned().unwrap_or(Value::Null)),
            Store::Chrome(area) => {
                let got = Self::call(area, "get", &JsValue::from_str(key)).await?;
                let v = Reflect::get(&got, &key.into())
                    .map_err(|e| StorageError::Chrome(js_message(&e)))?;
                if v.is_undefined() || v.is_null() {
                    return Ok(Value::Null);
                }
                crate::js::from_js(v, key)
                    .map_err(|e| StorageError::Corrupt(key.to_owned(), js_message(&e)))
            }
        }
    }

    /// Writes one key.
    pub async fn set(&self, key: &str, value: &Value) -> Result<(), StorageError> {
        match self {
            Store::Memory(m) => {
                m.borrow_mut().insert(key.to_owned(), value.clone());
                Ok(())
            }
            Store::Chrome(area) => {
                let obj = Object::new();
                let v =
                    crate::js::to_js(value).map_err(|e| StorageError::Chrome(js_message(&e)))?;
                Reflect::set(&obj, &key.into(), &v)
                    .map_err(|e| StorageError::Chrome(js_message(&e)))?;
                Self::call(area, "set", &obj).await.map(|_| ())
            }
        }
    }
}
