//! The last `servers` array the free functions (`promptForServers`, `parseToolCalls`,
//! `StreamParser`) converted, and what of its conversion a new array can reuse.
//!
//! Converting 1,000 tools from JavaScript (`JSON.stringify`, then serde_json's `Value` trees)
//! costs more than rendering their prompt (BENCHMARKS.md, "Issue 22, item 5"), and callers pass
//! the same tools again and again: the same array, a new array of the same server objects, a
//! `tools/list` answer parsed anew that did not change, or one server's new tools beside the
//! others'. So:
//! - the same array, or a new array of the same server objects in the same order, each with
//!   the same `id`, `name` and `tools` array (`===`) of the same length ([`same_members`]):
//!   the last conversion as it is, with its rendered tool list;
//! - otherwise each server's JSON text is made (`JSON.stringify` per server) and compared with
//!   those of the last array's servers: a server whose text is there is taken from the last
//!   conversion (moved out of it when nothing else holds it, as a `StreamParser` may), the
//!   others are read; all of them the same, in the same order: the last conversion as it is.
//!
//! What a server converts to depends only on its JSON text, so reusing on equal text is exact;
//! the identity check cannot see an edit inside a tools array passed before (the API's docs
//! say to treat what was passed as immutable). The texts are kept beside the conversion, as
//! much memory again as the tools' JSON (852 KB for 1,000 tools), until the next array.

use std::cell::RefCell;
use std::rc::Rc;

use relay_core::model::ServerTools;
use wasm_bindgen::{JsCast, JsValue};

use crate::api::Converted;
use crate::text::{from_js_text, read_json, with_json_text};

/// The last `servers` array converted, and its conversion.
struct Last {
    array: JsValue,
    /// What each member of the array was when converted ([`members`]); `None` when the array
    /// is not an `Array` of objects (then read whole, and nothing is reused).
    members: Option<Vec<Member>>,
    /// Each server's JSON text, in the array's order (empty when `members` is `None`).
    texts: Vec<String>,
    converted: Rc<Converted>,
}

/// One server object of a converted array: the object, its `id`, `name` and `tools` values,
/// and the length of `tools`.
#[derive(PartialEq)]
struct Member {
    object: JsValue,
    id: JsValue,
    name: JsValue,
    tools: JsValue,
    tool_count: u32,
}

thread_local! {
    static LAST: RefCell<Option<Last>> = const { RefCell::new(None) };
    /// The property names [`members`] reads, made once.
    static KEYS: [JsValue; 3] = ["id", "name", "tools"].map(JsValue::from_str);
}

/// The conversion of `servers` (`undefined` and `null` read as no servers), reusing what it
/// can of the last one (see the module docs).
pub(crate) fn converted(servers: &JsValue) -> Result<Rc<Converted>, JsValue> {
    if servers.is_undefined() || servers.is_null() {
        return Ok(Rc::new(Converted::new(Vec::new())));
    }
    let hit = LAST.with_borrow_mut(|last| {
        let last = last.as_mut()?;
        if &last.array != servers {
            if !same_members(last, servers) {
                return None;
            }
            // The next call with this very array is then a hit at the first comparison.
            last.array = servers.clone();
        }
        Some(Rc::clone(&last.converted))
    });
    if let Some(c) = hit {
        return Ok(c);
    }
    let Some(members) = members(servers) else {
        let c = Rc::new(Converted::new(from_js_text(servers, "servers")?));
        LAST.set(Some(Last {
            array: servers.clone(),
            members: None,
            texts: Vec::new(),
            converted: Rc::clone(&c),
        }));
        return Ok(c);
    };
    // Each server's text, matched against the last array's (each of those used once); read
    // only where there is no match. Nothing changes until every server has been read.
    let mut taken =
        LAST.with_borrow(|last| vec![false; last.as_ref().map_or(0, |l| l.texts.len())]);
    let mut sources = Vec::with_capacity(members.len());
    for member in &members {
        let source = with_json_text(&member.object, "servers", |text| {
            let old = LAST.with_borrow(|last| {
                let texts = last.as_ref().map_or(&[][..], |l| &l.texts[..]);
                (0..texts.len()).find(|&j| !taken[j] && texts[j] == text)
            });
            match old {
                Some(j) => {
                    taken[j] = true;
                    Ok(Source::Last(j))
                }
                None => Ok(Source::Read(read_json(text, "servers")?, text.to_owned())),
            }
        })?;
        sources.push(source);
    }
    let unchanged = LAST.with_borrow(|last| {
        last.as_ref().is_some_and(|l| {
            l.members.is_some()
                && l.texts.len() == sources.len()
                && sources
                    .iter()
                    .enumerate()
                    .all(|(i, s)| matches!(s, Source::Last(j) if *j == i))
        })
    });
    let array = servers.clone();
    let converted = LAST.with_borrow_mut(|slot| match slot.as_mut() {
        // The same servers in the same order: the conversion and its rendered tool list stay.
        Some(last) if unchanged => {
            last.array = array;
            last.members = Some(members);
            Rc::clone(&last.converted)
        }
        _ => {
            let (servers, texts) = assemble(slot.take(), sources);
            let converted = Rc::new(Converted::new(servers));
            *slot = Some(Last {
                array,
                members: Some(members),
                texts,
                converted: Rc::clone(&converted),
            });
            converted
        }
    });
    Ok(converted)
}

/// What the members of `servers` are now (see [`Member`]), when it is an `Array` of objects
/// whose properties read without throwing.
fn members(servers: &JsValue) -> Option<Vec<Member>> {
    let array = servers.dyn_ref::<js_sys::Array>()?;
    KEYS.with(|[id, name, tools]| {
        let get = |object: &JsValue, key: &JsValue| js_sys::Reflect::get(object, key).ok();
        (0..array.length())
            .map(|i| {
                let object = array.get(i);
                if !object.is_object() {
                    return None;
                }
                let tools = get(&object, tools)?;
                let tool_count = tools.dyn_ref::<js_sys::Array>().map_or(0, |a| a.length());
                Some(Member {
                    id: get(&object, id)?,
                    name: get(&object, name)?,
                    tools,
                    tool_count,
                    object,
                })
            })
            .collect()
    })
}

/// Whether `servers` holds the same server objects as `last`, in the same order, each with
/// the same `id`, `name` and `tools` (`===`) and as many tools: then it converts to the same
/// tools, and its prompt renders to the same text.
fn same_members(last: &Last, servers: &JsValue) -> bool {
    let Some(before) = &last.members else {
        return false;
    };
    let same_length = servers
        .dyn_ref::<js_sys::Array>()
        .is_some_and(|a| a.length() as usize == before.len());
    same_length && members(servers).is_some_and(|now| &now == before)
}

/// Where a server of the new array comes from.
enum Source {
    /// The server at this index of the last conversion (the same JSON text).
    Last(usize),
    /// Read from its JSON text.
    Read(ServerTools, String),
}

/// The servers of the new array and their texts: those of the last conversion moved out of it
/// when nothing else holds it (a `StreamParser` made from it may), cloned otherwise.
fn assemble(last: Option<Last>, sources: Vec<Source>) -> (Vec<ServerTools>, Vec<String>) {
    let (mut old, mut old_texts): (Rc<[ServerTools]>, Vec<String>) = match last {
        Some(last) => {
            let servers = match Rc::try_unwrap(last.converted) {
                Ok(converted) => converted.selection.into_servers(),
                Err(shared) => Rc::clone(shared.selection.servers()),
            };
            (servers, last.texts)
        }
        None => (Rc::from(Vec::new()), Vec::new()),
    };
    let mut servers = Vec::with_capacity(sources.len());
    let mut texts = Vec::with_capacity(sources.len());
    for source in sources {
        let (server, text) = match source {
            Source::Last(j) => {
                let server = match Rc::get_mut(&mut old) {
                    Some(owned) => std::mem::replace(
                        &mut owned[j],
                        ServerTools::new(String::new(), String::new(), Vec::new()),
                    ),
                    None => old[j].clone(),
                };
                (server, std::mem::take(&mut old_texts[j]))
            }
            Source::Read(server, text) => (server, text),
        };
        servers.push(server);
        texts.push(text);
    }
    (servers, texts)
}
