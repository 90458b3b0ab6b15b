//! One HTTP exchange over the global `fetch`: the request a session asked for, the response
//! head, and the body read as a stream (`ReadableStreamDefaultReader`), chunk by chunk, so an
//! SSE answer is decoded as it arrives instead of when the server closes the stream.

use relay_core::client::{HttpRequest, ResponseHead};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Headers, ReadableStreamDefaultReader, RequestInit, Response};

use super::global;

/// How a response body is read.
pub enum BodyReader {
    /// Streamed chunk by chunk: event streams, and anything long-lived.
    Stream(ReadableStreamDefaultReader),
    /// Read whole in one step (one await instead of one per chunk): a plain answer whose
    /// declared length is small. Anything else is streamed, so the session's size limit can
    /// stop an oversized body before it is all in memory.
    Whole(Response),
    /// No body (202, 204...).
    Empty,
}

/// Sends the request; resolves with the response head and how to read its body.
pub async fn start(
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<(ResponseHead, BodyReader), String> {
    let headers = Headers::new().map_err(|e| error_message(&e))?;
    for (name, value) in &request.headers {
        headers
            .append(name, value)
            .map_err(|e| format!("header `{name}`: {}", error_message(&e)))?;
    }
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    init.set_signal(Some(signal));
    let promise = global::fetch(&request.url, &init).map_err(|e| error_message(&e))?;
    let response: Response = JsFuture::from(promise)
        .await
        .map_err(|e| error_message(&e))?
        .unchecked_into();
    let head = ResponseHead::new(response.status(), header_pairs(&response.headers()));
    let body = match response.body() {
        None => BodyReader::Empty,
        Some(_) if !request.long_lived && !head.is_event_stream() && small(&head) => {
            BodyReader::Whole(response)
        }
        // `unchecked_into`: Node's undici readers are not instances of a global class everywhere.
        Some(body) => BodyReader::Stream(
            body.get_reader()
                .unchecked_into::<ReadableStreamDefaultReader>(),
        ),
    };
    Ok((head, body))
}

/// Bodies up to this declared length are read in one step.
const WHOLE_BODY_MAX: u64 = 1024 * 1024;

fn small(head: &ResponseHead) -> bool {
    head.header("content-length")
        .and_then(|len| len.trim().parse::<u64>().ok())
        .is_some_and(|len| len <= WHOLE_BODY_MAX)
}

/// The whole body of a response.
pub async fn read_whole(response: &Response) -> Result<Vec<u8>, String> {
    let promise = response.array_buffer().map_err(|e| error_message(&e))?;
    let buffer = JsFuture::from(promise)
        .await
        .map_err(|e| error_message(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The next chunk of a body, `None` at its end.
pub async fn read(reader: &ReadableStreamDefaultReader) -> Result<Option<Vec<u8>>, String> {
    let result = JsFuture::from(reader.read())
        .await
        .map_err(|e| error_message(&e))?;
    let done =
        js_sys::Reflect::get(&result, &JsValue::from_str("done")).map_err(|e| error_message(&e))?;
    if done.as_bool().unwrap_or(false) {
        return Ok(None);
    }
    let value = js_sys::Reflect::get(&result, &JsValue::from_str("value"))
        .map_err(|e| error_message(&e))?;
    Ok(Some(js_sys::Uint8Array::new(&value).to_vec()))
}

/// Stops reading a body we no longer need (frees the connection).
pub fn cancel(reader: &ReadableStreamDefaultReader) {
    // The returned promise rejects when the stream was aborted; left unhandled, that rejection
    // kills a Node process. Awaiting it consumes it.
    let promise = reader.cancel();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = JsFuture::from(promise).await;
    });
}

fn header_pairs(headers: &Headers) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    if let Ok(Some(iter)) = js_sys::try_iter(headers) {
        for entry in iter.flatten() {
            let entry: js_sys::Array = entry.unchecked_into();
            if let (Some(name), Some(value)) = (entry.get(0).as_string(), entry.get(1).as_string())
            {
                pairs.push((name, value));
            }
        }
    }
    pairs
}

/// A readable message from a JS error: `message`, plus Node's `cause` (`ECONNREFUSED`...),
/// which says much more than "fetch failed".
pub fn error_message(error: &JsValue) -> String {
    let get =
        |value: &JsValue, key: &str| js_sys::Reflect::get(value, &JsValue::from_str(key)).ok();
    let message = get(error, "message")
        .and_then(|m| m.as_string())
        .or_else(|| error.as_string());
    let cause = get(error, "cause")
        .filter(|c| c.is_object())
        .and_then(|cause| {
            get(&cause, "code")
                .and_then(|c| c.as_string())
                .or_else(|| get(&cause, "message").and_then(|m| m.as_string()))
        });
    match (message, cause) {
        (Some(message), Some(cause)) => format!("{message} ({cause})"),
        (Some(message), None) => message,
        (None, Some(cause)) => cause,
        (None, None) => "unknown network error".to_owned(),
    }
}
