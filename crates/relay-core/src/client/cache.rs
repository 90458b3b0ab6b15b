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
    entry: Option<(Vec<Tool>, u64)>,
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
            Some((tools, at)) if now_ms < at.saturating_add(self.ttl_ms) => Some(tools),
            _ => None,
        }
    }

    /// The generation to pass to [`ToolCache::store`] when a fetch starts.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Stores a fetched list unless the cache was invalidated since the fetch started.
    pub fn store(&mut self, tools: Vec<Tool>, fetched_at_ms: u64, generation: u64) -> bool {
        if generation != self.generation {
            return false;
        }
        self.entry = Some((tools, fetched_at_ms));
        true
    }

    /// Forgets the list (the server changed it, or the session was reset).
    pub fn invalidate(&mut self) {
        self.entry = None;
        self.generation += 1;
    }
}
