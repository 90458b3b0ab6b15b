//! One HTTP exchange over `gloo_net::http`: the request a session asked for (built with gloo's
//! `RequestBuilder`: method, headers, body, the exchange's `AbortSignal`), the response head read
//! through gloo's `Response` (status, headers), and the body read as a stream (the raw
//! response's `ReadableStream` and its web-sys reader), chunk by chunk, so an SSE answer is
//! decoded as it arrives instead of when the server closes the stream.
//!
//! gloo-net's `fetch` is the global one, so this works in a service worker and in Node alike.
//!
//! Redirects are never followed for a request that carries a server's headers, token or a
//! sign-in's secrets (`redirect: "manual"`): the session gets the redirect as a response head
//! (a browser's opaque redirect as [`ResponseHead::opaque_redirect`]) and reports it as
//! `ClientError::Redirected`, so a server cannot send a call, with its credentials, to another
//! server (issue 24). Only a sign-in's `GET`s of public metadata follow redirects.

use gloo_net::http::{Headers, Method, QueryParams, Request, RequestBuilder, Response};
use relay_core::client::{HttpMethod, HttpRequest, ResponseHead};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, ReadableStreamDefaultReader, ReadableStreamReadResult, RequestRedirect,
    ResponseType,
};

use super::global;

/// A response body not read yet: read whole, or as a stream through a reader taken on the
/// first read.
pub struct Body {
    pub(super) response: Response,
    reader: Option<ReadableStreamDefaultReader>,
}

/// Builds the `Request` a session asked for, without sending it (public for its tests): it
/// never follows a redirect (`redirect: "manual"`).
pub fn build(
    method: HttpMethod,
    url: &str,
    header_list: &[(String, String)],
    body: Option<&str>,
    signal: &AbortSignal,
) -> Result<Request, String> {
    build_with(
        method,
        url,
        header_list,
        body,
        signal,
        RequestRedirect::Manual,
    )
}

fn build_with(
    method: HttpMethod,
    url: &str,
    header_list: &[(String, String)],
    body: Option<&str>,
    signal: &AbortSignal,
    redirect: RequestRedirect,
) -> Result<Request, String> {
    // gloo's `header()` panics (`unwrap_throw`) on a value `Headers` refuses and replaces
    // repeated names; a server's configured header must fail its exchange, not the worker.
    let headers = web_sys::Headers::new().map_err(|e| error_message(&e))?;
    for (name, value) in header_list {
        headers
            .append(name, value)
            .map_err(|e| format!("header `{name}`: {}", error_message(&e)))?;
    }
    let method = match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Delete => Method::DELETE,
    };
    let builder = with_query(url)
        .method(method)
        .headers(Headers::from_raw(headers))
        .redirect(redirect)
        .abort_signal(Some(signal));
    match body {
        Some(body) => builder.body(JsValue::from_str(body)),
        None => builder.build(),
    }
    .map_err(|e| e.to_string())
}

/// A builder for `url`. gloo-net 0.6 appends `&` to a URL that already has a query (gloo issue
/// #498), which would change a legacy SSE endpoint such as `/messages/?session_id=…`; so the
/// query goes through the builder's `query()` instead, which reproduces it.
fn with_query(url: &str) -> RequestBuilder {
    let end = url.find('#').unwrap_or(url.len());
    let Some(start) = url[..end].find('?') else {
        return RequestBuilder::new(url);
    };
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&url[start + 1..end]) else {
        return RequestBuilder::new(url);
    };
    let pairs: Vec<(String, String)> = QueryParams::from_raw(params).iter().collect();
    RequestBuilder::new(&url[..start]).query(pairs.iter().map(|(k, v)| (k.as_str(), v)))
}

/// Sends the request; resolves with the response head and its body (none for 202, 204...).
pub async fn start(
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<(ResponseHead, Option<Body>), String> {
    let (method, url, body) = (request.method, &request.url, request.body.as_deref());
    let raw: web_sys::Request = build(method, url, &request.headers, body, signal)?.into();
    let response = send(&raw).await?;
    if is_opaque_redirect(&response) {
        return Ok((ResponseHead::opaque_redirect(), None));
    }
    let head = ResponseHead::new(response.status(), response.headers().entries().collect());
    let body = response.body().is_some().then_some(Body {
        response,
        reader: None,
    });
    Ok((head, body))
}

/// One request read whole, ended after `timeout_ms` (the sign-in's requests: small JSON
/// answers, no session): its status, body and `DPoP-Nonce` header (RFC 9449 §8).
pub async fn exchange(
    method: HttpMethod,
    url: &str,
    headers: &[(String, String)],
    body: Option<&str>,
    timeout_ms: u32,
) -> Result<(u16, Vec<u8>, Option<String>), String> {
    let signal = AbortSignal::timeout_with_u32(timeout_ms);
    let redirect = match method {
        HttpMethod::Get => RequestRedirect::Follow,
        HttpMethod::Post | HttpMethod::Delete => RequestRedirect::Manual,
    };
    let raw: web_sys::Request = build_with(method, url, headers, body, &signal, redirect)?.into();
    let response = send(&raw).await?;
    if is_opaque_redirect(&response) || (300..400).contains(&response.status()) {
        return Err(format!(
            "{} redirected the request; MCP Relay does not follow redirects of requests that carry a sign-in's secrets",
            relay_core::client::redact_url(url)
        ));
    }
    let nonce = response.headers().get("dpop-nonce");
    Ok((response.status(), read_whole(&response).await?, nonce))
}

/// Sends a request with the global `fetch`. Not gloo's `Request::send`: it keeps only
/// `name: message` of a rejection, and Node's `fetch failed` says why only in its `cause`
/// (`ECONNREFUSED`, `ENOTFOUND`...).
async fn send(raw: &web_sys::Request) -> Result<Response, String> {
    let promise = global::fetch(raw).map_err(|e| error_message(&e))?;
    let response = JsFuture::from(promise)
        .await
        .map_err(|e| error_message(&e))?;
    Ok(response.unchecked_into::<web_sys::Response>().into())
}

/// A browser's answer to a redirect under `redirect: "manual"`: status 0, nothing readable.
fn is_opaque_redirect(response: &Response) -> bool {
    response.type_() == ResponseType::Opaqueredirect
}

/// The whole body of a response.
pub async fn read_whole(response: &Response) -> Result<Vec<u8>, String> {
    response.binary().await.map_err(|e| e.to_string())
}

/// The next chunk of a body, `None` at its end.
pub async fn read(body: &mut Body) -> Result<Option<Vec<u8>>, String> {
    let reader = match &body.reader {
        Some(reader) => reader,
        // `unchecked_into`: Node's undici readers are not instances of a global class everywhere.
        None => body.reader.insert(match body.response.body() {
            Some(stream) => stream.get_reader().unchecked_into(),
            None => return Ok(None),
        }),
    };
    let result: ReadableStreamReadResult = JsFuture::from(reader.read())
        .await
        .map_err(|e| error_message(&e))?
        .unchecked_into();
    if result.get_done().unwrap_or(false) {
        return Ok(None);
    }
    Ok(Some(js_sys::Uint8Array::new(&result.get_value()).to_vec()))
}

/// Stops reading a body we no longer need (frees the connection).
pub fn cancel(body: Body) {
    let promise = match (body.reader, body.response.body()) {
        (Some(reader), _) => reader.cancel(),
        (None, Some(stream)) => stream.cancel(),
        (None, None) => return,
    };
    // The returned promise rejects when the stream was aborted; left unhandled, that rejection
    // kills a Node process. Awaiting it consumes it.
    wasm_bindgen_futures::spawn_local(async move {
        let _ = JsFuture::from(promise).await;
    });
}

fn error_message(error: &JsValue) -> String {
    crate::js::message(error, "unknown network error")
}
