//! The DPoP proof keys of the servers signed in to (RFC 9449): one ECDSA P-256 key pair per
//! server, made with `crypto.subtle.generateKey` with a private key that is not extractable,
//! and kept in IndexedDB (a `CryptoKey` is stored as it is, by structured clone), so a worker
//! restart keeps the DPoP-bound tokens usable while no code, not even this one, can read the
//! private key out. The core only ever gets the public JWK (`relay_core::auth::PublicJwk`) and
//! asks for signatures of the proofs it builds. See SECURITY.md, "DPoP keys".

use relay_core::sorted_map::SortedMap;
use std::cell::RefCell;

use relay_core::auth::encode::base64url;
use relay_core::auth::PublicJwk;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbFactory, IdbRequest, IdbTransactionMode};

const DATABASE: &str = "mcp-relay-dpop";
const STORE: &str = "keys";

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["crypto", "subtle"], js_name = generateKey)]
    fn generate_key(
        algorithm: &JsValue,
        extractable: bool,
        usages: &js_sys::Array,
    ) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["crypto", "subtle"], js_name = exportKey)]
    fn export_key(format: &str, key: &JsValue) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["crypto", "subtle"], js_name = sign)]
    fn subtle_sign(
        algorithm: &JsValue,
        key: &JsValue,
        data: &[u8],
    ) -> Result<js_sys::Promise, JsValue>;
}

/// A server's key: the private `CryptoKey` (not extractable) and the public JWK.
#[derive(Clone)]
pub struct ProofKey {
    private: JsValue,
    pub jwk: PublicJwk,
}

/// The keys of every server, read from IndexedDB once per worker life.
#[derive(Default)]
pub struct DpopKeys {
    cache: RefCell<SortedMap<String, ProofKey>>,
}

fn message(error: &JsValue) -> String {
    crate::js::message(error, "IndexedDB or WebCrypto failed")
}

fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let object = js_sys::Object::new();
    for (key, value) in pairs {
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(key), value);
    }
    object.into()
}

fn get(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Waits for an IndexedDB request: `onsuccess` resolves, `onerror` rejects.
async fn done(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise).await.map_err(|e| message(&e))?;
    request.result().map_err(|e| message(&e))
}

/// The database, its object store made on first use.
async fn open() -> Result<IdbDatabase, String> {
    let factory: IdbFactory = js_sys::Reflect::get(&js_sys::global(), &"indexedDB".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("IndexedDB is not available here")?;
    let request = factory
        .open_with_u32(DATABASE, 1)
        .map_err(|e| message(&e))?;
    let opening = request.clone();
    let upgrade = Closure::<dyn FnMut()>::new(move || {
        if let Ok(db) = opening.result().and_then(|db| db.dyn_into::<IdbDatabase>()) {
            let _ = db.create_object_store(STORE);
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db = done(&request).await;
    request.set_onupgradeneeded(None);
    drop(upgrade);
    db?.dyn_into()
        .map_err(|_| "IndexedDB gave no database".to_owned())
}

async fn read(id: &str) -> Result<Option<ProofKey>, String> {
    let db = open().await?;
    let store = db
        .transaction_with_str(STORE)
        .and_then(|t| t.object_store(STORE))
        .map_err(|e| message(&e))?;
    let record = done(&store.get(&id.into()).map_err(|e| message(&e))?).await?;
    db.close();
    if record.is_undefined() || record.is_null() {
        return Ok(None);
    }
    let jwk = get(&record, "jwk");
    let text = |k: &str| get(&jwk, k).as_string().unwrap_or_default();
    Ok(Some(ProofKey {
        private: get(&record, "privateKey"),
        jwk: PublicJwk::p256(text("x"), text("y")),
    }))
}

async fn write(id: &str, key: &ProofKey) -> Result<(), String> {
    let db = open().await?;
    let store = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .and_then(|t| t.object_store(STORE))
        .map_err(|e| message(&e))?;
    let jwk = object(&[
        ("x", JsValue::from_str(&key.jwk.x)),
        ("y", JsValue::from_str(&key.jwk.y)),
    ]);
    let record = object(&[("privateKey", key.private.clone()), ("jwk", jwk)]);
    let put = store
        .put_with_key(&record, &id.into())
        .map_err(|e| message(&e))?;
    done(&put).await?;
    db.close();
    Ok(())
}

/// A new ECDSA P-256 key pair whose private half cannot be exported.
async fn generate() -> Result<ProofKey, String> {
    let algorithm = object(&[("name", "ECDSA".into()), ("namedCurve", "P-256".into())]);
    let usages = js_sys::Array::of2(&"sign".into(), &"verify".into());
    let promise = generate_key(&algorithm, false, &usages).map_err(|e| message(&e))?;
    let pair = JsFuture::from(promise).await.map_err(|e| message(&e))?;
    let public = get(&pair, "publicKey");
    let promise = export_key("jwk", &public).map_err(|e| message(&e))?;
    let jwk = JsFuture::from(promise).await.map_err(|e| message(&e))?;
    let text = |k: &str| get(&jwk, k).as_string().unwrap_or_default();
    Ok(ProofKey {
        private: get(&pair, "privateKey"),
        jwk: PublicJwk::p256(text("x"), text("y")),
    })
}

impl DpopKeys {
    /// Server `id`'s key, if it has one.
    pub async fn get(&self, id: &str) -> Result<Option<ProofKey>, String> {
        if let Some(key) = self.cache.borrow().get(id) {
            return Ok(Some(key.clone()));
        }
        let key = read(id).await?;
        if let Some(key) = &key {
            self.cache.borrow_mut().insert(id.to_owned(), key.clone());
        }
        Ok(key)
    }

    /// Server `id`'s key, made (and stored) if it has none yet.
    pub async fn get_or_create(&self, id: &str) -> Result<ProofKey, String> {
        if let Some(key) = self.get(id).await? {
            return Ok(key);
        }
        let key = generate().await?;
        write(id, &key).await?;
        self.cache.borrow_mut().insert(id.to_owned(), key.clone());
        Ok(key)
    }
}

impl ProofKey {
    /// The base64url ES256 signature (raw `r‖s`, the JWS form) of `input`.
    pub async fn sign(&self, input: &str) -> Result<String, String> {
        let algorithm = object(&[("name", "ECDSA".into()), ("hash", "SHA-256".into())]);
        let promise =
            subtle_sign(&algorithm, &self.private, input.as_bytes()).map_err(|e| message(&e))?;
        let signature = JsFuture::from(promise).await.map_err(|e| message(&e))?;
        Ok(base64url(&js_sys::Uint8Array::new(&signature).to_vec()))
    }
}
