//! The in-memory notebook behind the `notes_*` tools and the `demo://notes` resources.
//!
//! One store is shared by every session (and by every request in stateless mode, where rmcp
//! builds a fresh handler per request), so a note added through one connection is visible to
//! all. Everything is bounded: the demo must not grow without limit when a model loops.

use std::sync::{Mutex, PoisonError};

use serde::Serialize;

/// Most notes the store keeps; `notes_add` fails beyond this.
pub const MAX_NOTES: usize = 1_000;
/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest body, in characters.
pub const MAX_BODY_CHARS: usize = 10_000;
/// Most tags on one note.
pub const MAX_TAGS: usize = 10;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 32;

/// One note, as returned by the tools and the resources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Note {
    /// Assigned by the store, starting at 1, never reused.
    pub id: u64,
    /// Trimmed, non-empty.
    pub title: String,
    /// May be empty.
    pub body: String,
    /// Lower-cased, trimmed, de-duplicated, in the order given.
    pub tags: Vec<String>,
    /// RFC 3339 time the note was added.
    pub created_at: String,
}

/// A note to add, before validation.
#[derive(Debug, Clone)]
pub struct NewNote {
    /// Title as sent by the caller.
    pub title: String,
    /// Body as sent by the caller.
    pub body: String,
    /// Tags as sent by the caller.
    pub tags: Vec<String>,
}

/// Why the store refused an operation; the message goes back to the model verbatim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoteError {
    /// Title empty after trimming.
    #[error("title must not be empty")]
    EmptyTitle,
    /// Title longer than [`MAX_TITLE_CHARS`].
    #[error("title is {0} characters long; the limit is {MAX_TITLE_CHARS}")]
    TitleTooLong(usize),
    /// Body longer than [`MAX_BODY_CHARS`].
    #[error("body is {0} characters long; the limit is {MAX_BODY_CHARS}")]
    BodyTooLong(usize),
    /// More than [`MAX_TAGS`] distinct tags.
    #[error("{0} tags given; the limit is {MAX_TAGS}")]
    TooManyTags(usize),
    /// A tag empty, too long, or containing whitespace.
    #[error("invalid tag {0:?}: tags are 1 to {MAX_TAG_CHARS} characters without spaces")]
    BadTag(String),
    /// The store already holds [`MAX_NOTES`].
    #[error("the notebook is full ({MAX_NOTES} notes); delete some with notes_delete first")]
    Full,
    /// No note has this id.
    #[error("no note has id {0}; call notes_list to see the ids that exist")]
    NotFound(u64),
}

#[derive(Debug, Default)]
struct Inner {
    next_id: u64,
    notes: Vec<Note>,
}

/// Thread-safe note storage. Every method takes the lock once and never awaits while holding it.
#[derive(Debug, Default)]
pub struct NotesStore {
    inner: Mutex<Inner>,
}

impl NotesStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Every operation leaves `Inner` consistent before it can panic, so a poisoned lock
        // still guards valid data.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Validates and stores a note stamped with `created_at`.
    pub fn add(&self, new: NewNote, created_at: String) -> Result<Note, NoteError> {
        let title = new.title.trim().to_owned();
        if title.is_empty() {
            return Err(NoteError::EmptyTitle);
        }
        let title_chars = title.chars().count();
        if title_chars > MAX_TITLE_CHARS {
            return Err(NoteError::TitleTooLong(title_chars));
        }
        let body_chars = new.body.chars().count();
        if body_chars > MAX_BODY_CHARS {
            return Err(NoteError::BodyTooLong(body_chars));
        }
        let tags = normalize_tags(new.tags)?;
        let mut inner = self.lock();
        if inner.notes.len() >= MAX_NOTES {
            return Err(NoteError::Full);
        }
        inner.next_id += 1;
        let note = Note {
            id: inner.next_id,
            title,
            body: new.body,
            tags,
            created_at,
        };
        inner.notes.push(note.clone());
        Ok(note)
    }

    /// Newest first, optionally only those carrying `tag` (case-insensitive), at most `limit`.
    pub fn list(&self, tag: Option<&str>, limit: usize) -> Vec<Note> {
        let tag = tag.map(|t| t.trim().to_lowercase());
        self.lock()
            .notes
            .iter()
            .rev()
            .filter(|note| tag.as_ref().is_none_or(|t| note.tags.contains(t)))
            .take(limit)
            .cloned()
            .collect()
    }

    /// Notes in which every whitespace-separated term of `query` occurs (case-insensitive) in
    /// the title, body or tags; best matches first, at most `limit`.
    ///
    /// Substring matching rather than word matching so that Chinese text, which has no spaces,
    /// is searchable too.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Note> {
        let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if terms.is_empty() {
            return Vec::new();
        }
        let inner = self.lock();
        let mut hits: Vec<(usize, &Note)> = inner
            .notes
            .iter()
            .filter_map(|note| {
                let title = note.title.to_lowercase();
                let body = note.body.to_lowercase();
                let mut score = 0;
                for term in &terms {
                    let in_title = title.matches(term.as_str()).count();
                    let in_body = body.matches(term.as_str()).count();
                    let in_tags = note
                        .tags
                        .iter()
                        .filter(|t| t.contains(term.as_str()))
                        .count();
                    if in_title + in_body + in_tags == 0 {
                        return None;
                    }
                    // A hit in the title or a tag says more about the note than one in the body.
                    score += 3 * (in_title + in_tags) + in_body;
                }
                Some((score, note))
            })
            .collect();
        // Stable sort: equal scores keep insertion order, so results are deterministic.
        hits.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        hits.into_iter()
            .take(limit)
            .map(|(_, note)| note.clone())
            .collect()
    }

    /// The note with this id.
    pub fn get(&self, id: u64) -> Result<Note, NoteError> {
        self.lock()
            .notes
            .iter()
            .find(|note| note.id == id)
            .cloned()
            .ok_or(NoteError::NotFound(id))
    }

    /// Removes and returns the note with this id.
    pub fn delete(&self, id: u64) -> Result<Note, NoteError> {
        let mut inner = self.lock();
        let index = inner
            .notes
            .iter()
            .position(|note| note.id == id)
            .ok_or(NoteError::NotFound(id))?;
        Ok(inner.notes.remove(index))
    }

    /// Every note, oldest first.
    pub fn all(&self) -> Vec<Note> {
        self.lock().notes.clone()
    }
}

fn normalize_tags(tags: Vec<String>) -> Result<Vec<String>, NoteError> {
    let mut out: Vec<String> = Vec::with_capacity(tags.len().min(MAX_TAGS));
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        let chars = tag.chars().count();
        if chars == 0 || chars > MAX_TAG_CHARS || tag.chars().any(char::is_whitespace) {
            return Err(NoteError::BadTag(tag));
        }
        if !out.contains(&tag) {
            out.push(tag);
        }
    }
    if out.len() > MAX_TAGS {
        return Err(NoteError::TooManyTags(out.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(title: &str, body: &str, tags: &[&str]) -> NewNote {
        NewNote {
            title: title.into(),
            body: body.into(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    fn stamp() -> String {
        "2026-11-03T06:05:09Z".into()
    }

    #[test]
    fn validation_rejects_bad_input_with_actionable_messages() {
        let store = NotesStore::default();
        let long_title = "t".repeat(MAX_TITLE_CHARS + 1);
        let long_body = "b".repeat(MAX_BODY_CHARS + 1);
        let many_tags: Vec<String> = (0..=MAX_TAGS).map(|i| format!("t{i}")).collect();
        let cases = [
            (note("  ", "", &[]), NoteError::EmptyTitle),
            (
                note(&long_title, "", &[]),
                NoteError::TitleTooLong(MAX_TITLE_CHARS + 1),
            ),
            (
                note("ok", &long_body, &[]),
                NoteError::BodyTooLong(MAX_BODY_CHARS + 1),
            ),
            (
                note("ok", "", &["two words"]),
                NoteError::BadTag("two words".into()),
            ),
            (note("ok", "", &[" "]), NoteError::BadTag(String::new())),
            (
                NewNote {
                    title: "ok".into(),
                    body: String::new(),
                    tags: many_tags,
                },
                NoteError::TooManyTags(MAX_TAGS + 1),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(store.add(input, stamp()), Err(expected));
        }
        assert!(store.all().is_empty(), "rejected notes must not be stored");
    }

    #[test]
    fn tags_are_normalized_and_duplicates_do_not_count_against_the_limit() {
        let store = NotesStore::default();
        let mut tags = vec![" Work ".to_owned(); MAX_TAGS + 5];
        tags.push("WORK".into());
        let added = store
            .add(
                NewNote {
                    title: "t".into(),
                    body: String::new(),
                    tags,
                },
                stamp(),
            )
            .expect("duplicates collapse to one tag");
        assert_eq!(added.tags, ["work"]);
    }

    #[test]
    fn list_search_get_delete() {
        let store = NotesStore::default();
        let a = store
            .add(note("Groceries", "milk, eggs, 豆腐", &["home"]), stamp())
            .expect("valid");
        let b = store
            .add(
                note("Release plan", "ship the relay; milk the demo", &["work"]),
                stamp(),
            )
            .expect("valid");
        let c = store
            .add(
                note("Milk prices", "compare shops", &["home", "money"]),
                stamp(),
            )
            .expect("valid");
        assert_eq!((a.id, b.id, c.id), (1, 2, 3));

        let ids = |notes: Vec<Note>| notes.into_iter().map(|n| n.id).collect::<Vec<_>>();
        assert_eq!(ids(store.list(None, 10)), [3, 2, 1]);
        assert_eq!(ids(store.list(Some("HOME"), 10)), [3, 1]);
        assert_eq!(ids(store.list(None, 2)), [3, 2]);
        // Title hits outrank body hits; ties keep insertion order.
        assert_eq!(ids(store.search("milk", 10)), [3, 1, 2]);
        assert_eq!(ids(store.search("MILK home", 10)), [3, 1]);
        assert_eq!(ids(store.search("豆腐", 10)), [1]);
        assert_eq!(ids(store.search("   ", 10)), Vec::<u64>::new());

        assert_eq!(store.delete(2).map(|n| n.id), Ok(2));
        assert_eq!(store.delete(2), Err(NoteError::NotFound(2)));
        assert_eq!(store.get(2), Err(NoteError::NotFound(2)));
        let d = store.add(note("next", "", &[]), stamp()).expect("valid");
        assert_eq!(d.id, 4, "ids are never reused");
    }

    #[test]
    fn the_store_is_bounded() {
        let store = NotesStore::default();
        for i in 0..MAX_NOTES {
            store
                .add(note(&format!("n{i}"), "", &[]), stamp())
                .expect("below the limit");
        }
        assert_eq!(
            store.add(note("one more", "", &[]), stamp()),
            Err(NoteError::Full)
        );
    }
}
