//! The storage schema: every `chrome.storage` key the extension uses, its area and what it holds.
//! The core's application (`crate::app`) and the service worker (`extension/background.js`, via
//! the generated `extension/contract.js`) read these names from here.

/// A `chrome.storage` area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// `chrome.storage.local`: survives browser restarts.
    Local,
    /// `chrome.storage.session`: cleared when the browser closes, kept across worker restarts.
    Session,
}

impl Area {
    /// The area's name in `chrome.storage`.
    pub fn as_str(self) -> &'static str {
        match self {
            Area::Local => "local",
            Area::Session => "session",
        }
    }
}

/// One storage key.
pub struct StorageKey {
    /// The key.
    pub key: &'static str,
    /// Its area.
    pub area: Area,
    /// JavaScript (JSDoc) type of the stored value.
    pub js_type: &'static str,
    /// What it holds.
    pub doc: &'static str,
}

/// The key of the configuration (servers, tool settings, chats, settings) in local storage.
pub const CONFIG_KEY: &str = "config";
/// The key of the last known tools per server in local storage.
pub const TOOLS_KEY: &str = "tools";
/// The key of the last skills listing of each server (SEP-2640: names, descriptions, files with
/// their digests; never a file's content) in local storage.
pub const SKILLS_KEY: &str = "skills";
/// The key of the exactly-once call ledger's index in session storage (`app::LedgerIndex`: the
/// calls' keys, the turn counters, quoted calls); each call's record is a key of its own
/// ([`CALL_PREFIX`]).
pub const LEDGER_KEY: &str = "ledger";
/// The prefix of one call's ledger record in session storage: `call:` + the call's key. Records
/// hold bounded previews only, so session storage stays small whatever the tools return.
pub const CALL_PREFIX: &str = "call:";
/// The prefix of one call's full result in local storage (`unlimitedStorage`): `result:` + the
/// call's key. Written once per result, pruned per chat by age and size.
pub const RESULT_PREFIX: &str = "result:";
/// The key of each server's sign-in (MCP authorization: metadata, client registration, tokens)
/// in local storage.
pub const AUTH_KEY: &str = "auth";
/// The key of the servers' questions waiting for the user (elicitation) in session storage.
pub const ELICITATIONS_KEY: &str = "elicitations";
/// The key of the chat pages as the core sees them (`crate::page`: each tab's replies, their
/// identity and whether they are old) in session storage.
pub const PAGES_KEY: &str = "pages";
/// The key of the user's custom chat sites (`[{origin, adapter}]`) in local storage.
pub const SITES_KEY: &str = "sites";

/// One family of storage keys: a prefix followed by a call's key.
pub struct StoragePrefix {
    /// The name the generated JavaScript gives it.
    pub name: &'static str,
    /// The prefix.
    pub prefix: &'static str,
    /// Its area.
    pub area: Area,
    /// What each key holds.
    pub doc: &'static str,
}

/// Every family of keys, with its area.
pub const STORAGE_PREFIXES: &[StoragePrefix] = &[
    StoragePrefix {
        name: "call",
        prefix: CALL_PREFIX,
        area: Area::Session,
        doc: "one call's ledger record (bounded previews), by call key",
    },
    StoragePrefix {
        name: "result",
        prefix: RESULT_PREFIX,
        area: Area::Local,
        doc: "one call's full result, by call key; pruned per chat by age and size",
    },
];

/// Every key, with its area and shape.
pub const STORAGE: &[StorageKey] = &[
    StorageKey {
        key: CONFIG_KEY,
        area: Area::Local,
        js_type: "Record<string, unknown>",
        doc: "servers (with secrets), tool settings, chat settings and settings; read by the core only",
    },
    StorageKey {
        key: TOOLS_KEY,
        area: Area::Local,
        js_type: "Record<string, unknown[]>",
        doc: "the last tools/list of each server, by server id",
    },
    StorageKey {
        key: SKILLS_KEY,
        area: Area::Local,
        js_type: "Record<string, unknown[]>",
        doc: "the last skills/list of each server, by server id (no file content)",
    },
    StorageKey {
        key: LEDGER_KEY,
        area: Area::Session,
        js_type: "unknown",
        doc: "the exactly-once call ledger's index (keys, turn counters); records under `call:`",
    },
    StorageKey {
        key: PAGES_KEY,
        area: Area::Session,
        js_type: "unknown",
        doc: "each chat tab's page model: which reply is which and whether it is old",
    },
    StorageKey {
        key: AUTH_KEY,
        area: Area::Local,
        js_type: "Record<string, unknown>",
        doc: "each server's sign-in (tokens included), by server id; read by the core only",
    },
    StorageKey {
        key: ELICITATIONS_KEY,
        area: Area::Session,
        js_type: "ElicitationView[]",
        doc: "servers' questions waiting for the user; the side panel shows them",
    },
    StorageKey {
        key: SITES_KEY,
        area: Area::Local,
        js_type: "Site[]",
        doc: "custom chat sites; background.js registers their content scripts",
    },
];
