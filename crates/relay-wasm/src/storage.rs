//! Persistent state: `chrome.storage.local` in the extension, an in-memory map elsewhere (Node,
//! plain browser tests). Everything that must survive a service-worker restart goes through here.

use std::cell::RefCell;
use std::collections::BTreeMap;

use js_sys::{Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

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

    async fn settle(started: Result<Promise, JsValue>) -> Result<JsValue, StorageError> {
        let promise = started.map_err(|e| StorageError::Chrome(js_message(&e)))?;
        JsFuture::from(promise)
            .await
            .map_err(|e| StorageError::Chrome(js_message(&e)))
    }

    /// Reads one key as JSON (`Value::Null` when absent).
    pub async fn get(&self, key: &str) -> Result<Value, StorageError> {
        match self {
            Store::Memory(m) => Ok(m.borrow().get(key).cloned().unwrap_or(Value::Null)),
            Store::Chrome(area) => {
                let got = Self::settle(area.get(&JsValue::from_str(key))).await?;
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

    /// Starts reading `keys` at once (one `area.get` for all of them) and returns what
    /// [`Reading::finish`] resolves: each key's JSON, `Value::Null` when absent. Two areas read
    /// this way load concurrently: the worker's start-up waits for the slower one, not the sum.
    pub fn read(&self, keys: &[&str]) -> Reading {
        match self {
            Store::Memory(m) => Reading::Done(
                keys.iter()
                    .map(|k| m.borrow().get(*k).cloned().unwrap_or(Value::Null))
                    .collect(),
            ),
            Store::Chrome(area) => {
                let list = js_sys::Array::new();
                for k in keys {
                    list.push(&JsValue::from_str(k));
                }
                Reading::Pending(
                    area.get(&list),
                    keys.iter().map(|k| (*k).to_owned()).collect(),
                )
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
                Self::settle(area.set(&obj)).await.map(|_| ())
            }
        }
    }
}

/// A read of [`Store::read`], already under way.
pub enum Reading {
    /// Memory: the values, read at once.
    Done(Vec<Value>),
    /// chrome.storage: the pending `area.get` and its keys.
    Pending(Result<Promise, JsValue>, Vec<String>),
}

impl Reading {
    /// The values of the keys, in the order asked.
    pub async fn finish(self) -> Result<Vec<Value>, StorageError> {
        match self {
            Reading::Done(values) => Ok(values),
            Reading::Pending(started, keys) => {
                let got = Store::settle(started).await?;
                let mut out = Vec::with_capacity(keys.len());
                for key in keys {
                    let v = Reflect::get(&got, &JsValue::from_str(&key))
                        .map_err(|e| StorageError::Chrome(js_message(&e)))?;
                    out.push(if v.is_undefined() || v.is_null() {
                        Value::Null
                    } else {
                        crate::js::from_js(v, &key)
                            .map_err(|e| StorageError::Corrupt(key.clone(), js_message(&e)))?
                    });
                }
                Ok(out)
            }
        }
    }
}
