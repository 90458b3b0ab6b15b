//! The tool-list cache of one server: fresh for a TTL (seed 003: 5 minutes), refreshed on
//! demand, dropped when the server says `notifications/tools/list_changed`.
//!
//! A generation counter makes invalidation win races: a list fetched while a `list_changed`
//! arrived is stale and is not stored.

use crate::model::Tool;

/// Default freshness of a cached tool list.
pub const DEFAULT_TOOLS_TTL_MS: u64 = 5 * 60 * 1000;

/// The cached tools of one server.
#[derive(Debug, Clone)]
pub struct ToolCache {
    ttl_ms: u64,
    /// The tools, when they were fetched, and how long they stay fresh.
    entry: Option<(Vec<Tool>, u64, u64)>,
    generation: u64,
}

impl ToolCache {
    /// An empty cache whose entries stay fresh for `ttl_ms`.
    pub fn new(ttl_ms: u64) -> Self {
        ToolCache {
            ttl_ms,
            entry: None,
            generation: 0,
        }
    }

    /// The tools, if fetched less than a TTL ago.
    pub fn get(&self, now_ms: u64) -> Option<&[Tool]> {
        match &self.entry {
            Some((tools, at, ttl)) if now_ms < at.saturating_add(*ttl) => Some(tools),
            _ => None,
        }
    }

    /// A tool of the last list fetched, fresh or not (its definition says which parameters
    /// a call mirrors into headers).
    pub fn find(&self, name: &str) -> Option<&Tool> {
        self.entry
            .as_ref()
            .and_then(|(tools, _, _)| tools.iter().find(|t| t.name == name))
    }

    /// The generation to pass to [`ToolCache::store`] when a fetch starts.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Stores a fetched list unless the cache was invalidated since the fetch started.
    pub fn store(&mut self, tools: Vec<Tool>, fetched_at_ms: u64, generation: u64) -> bool {
        self.store_for(tools, fetched_at_ms, generation, None)
    }

    /// Like [`ToolCache::store`], fresh for the server's `ttlMs` (protocol 2026-07-28's
    /// caching directive) when it gave one, else for the cache's TTL. `ttlMs: 0` keeps the
    /// list for its definitions only: the next listing asks the server again.
    pub fn store_for(
        &mut self,
        tools: Vec<Tool>,
        fetched_at_ms: u64,
        generation: u64,
        server_ttl_ms: Option<u64>,
    ) -> bool {
        if generation != self.generation {
            return false;
        }
        let ttl = server_ttl_ms.unwrap_or(self.ttl_ms);
        self.entry = Some((tools, fetched_at_ms, ttl));
        true
    }

    /// Knows `tools` for their definitions only (never fresh: a listing still asks the
    /// server), when nothing was fetched yet: what the caller kept from an earlier run.
    pub fn remember(&mut self, tools: Vec<Tool>) {
        if self.entry.is_none() {
            self.entry = Some((tools, 0, 0));
        }
    }

    /// Forgets the list (the server changed it, or the session was reset).
    pub fn invalidate(&mut self) {
        self.entry = None;
        self.generation += 1;
    }
}
