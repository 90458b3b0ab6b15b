//! [`SortedMap`] and [`SortedSet`]: the app's ordered map and set, vectors kept sorted by key.
//!
//! Why not `BTreeMap`: every key and value type of a `BTreeMap` gets its own copy of the tree's
//! node code (splits, merges, steals, removal), about 6 KB each in the wasm module; with some
//! thirty kinds of map in the app (servers, chats, calls, pages, sign-ins …) that was 216 KB of
//! code, the largest item after the app itself (BENCHMARKS.md, "Module size"). This map's
//! operations are a binary search and a `Vec` insert or remove, a few hundred bytes per type,
//! and it keeps `BTreeMap`'s contract where the app relies on it: iteration in key order, one
//! entry per key (the last insert wins), and a JSON form that is an object (or any map).
//!
//! The app's maps hold what a person configured or has open (servers, chats, calls, tabs): tens
//! to a few thousands of entries, where a sorted vector is as fast as a tree. The parser keeps
//! `BTreeMap` where inserts land anywhere in inputs of any size (its work stays linear).
//!
//! [`sort_by`] sorts the app's lists (origins, calls by arrival, ranked tools) for the same
//! reason: the standard library's sorts are ~4 KB of wasm per element type and comparison, a
//! heap sort a few hundred bytes.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Sorts `v` by `cmp` in O(n log n) comparisons with no allocation (a heap sort). Not stable:
/// for the app's lists, where elements that compare equal are equal (strings, or keys made
/// total by a position or a sequence number), which order equal elements take cannot be seen.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    sort_dyn(v, &mut cmp);
}

/// [`sort_by`] on `Ord` elements.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_dyn(v, &mut T::cmp);
}

fn sort_dyn<T>(v: &mut [T], cmp: &mut dyn FnMut(&T, &T) -> std::cmp::Ordering) {
    // Moves `v[root]` down the max-heap `v[..end]` until both children are not greater.
    fn sift<T>(
        v: &mut [T],
        mut root: usize,
        end: usize,
        cmp: &mut dyn FnMut(&T, &T) -> std::cmp::Ordering,
    ) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && cmp(&v[child], &v[child + 1]).is_lt() {
                child += 1;
            }
            if !cmp(&v[root], &v[child]).is_lt() {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift(v, root, n, cmp);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end, cmp);
    }
}

/// An ordered map: entries sorted by key, one per key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, values mutable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        self.entries.into_iter().map(|(k, _)| k)
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> + ExactSizeIterator {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// The entry with the least key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    /// The entry with the greatest key.
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    /// Keeps the entries for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// Where `key` is (`Ok`) or would go (`Err`).
    fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).is_ok()
    }

    /// Sets `key`'s value; returns the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    pub fn remove_entry<Q>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i))
    }

    /// Removes and returns the entry with the least key.
    pub fn pop_first(&mut self) -> Option<(K, V)> {
        (!self.entries.is_empty()).then(|| self.entries.remove(0))
    }

    /// Removes and returns the entry with the greatest key.
    pub fn pop_last(&mut self) -> Option<(K, V)> {
        self.entries.pop()
    }

    /// Moves every entry of `other` into this map (its values win), leaving it empty.
    pub fn append(&mut self, other: &mut Self) {
        for (k, v) in other.entries.drain(..) {
            self.insert(k, v);
        }
    }

    /// The place of `key`, to read, fill or change in one lookup.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match self.find(&key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            Err(index) => Entry::Vacant(VacantEntry {
                map: self,
                index,
                key,
            }),
        }
    }
}

/// A key's place in a [`SortedMap`], as [`SortedMap::entry`] found it.
pub enum Entry<'a, K, V> {
    Occupied(OccupiedEntry<'a, K, V>),
    Vacant(VacantEntry<'a, K, V>),
}

/// An entry that exists.
pub struct OccupiedEntry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    index: usize,
}

/// A key without an entry, and where its entry would go.
pub struct VacantEntry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    index: usize,
    key: K,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert(self, default: V) -> &'a mut V {
        self.or_insert_with(|| default)
    }

    pub fn or_insert_with(self, default: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(default()),
        }
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    pub fn and_modify(mut self, f: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(e) = &mut self {
            f(e.get_mut());
        }
        self
    }

    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(e) => e.key(),
            Entry::Vacant(e) => &e.key,
        }
    }
}

impl<'a, K, V> OccupiedEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.map.entries[self.index].0
    }

    pub fn get(&self) -> &V {
        &self.map.entries[self.index].1
    }

    pub fn get_mut(&mut self) -> &mut V {
        &mut self.map.entries[self.index].1
    }

    pub fn into_mut(self) -> &'a mut V {
        &mut self.map.entries[self.index].1
    }

    pub fn insert(&mut self, value: V) -> V {
        std::mem::replace(self.get_mut(), value)
    }

    pub fn remove(self) -> V {
        self.map.entries.remove(self.index).1
    }
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.key
    }

    pub fn insert(self, value: V) -> &'a mut V {
        self.map.entries.insert(self.index, (self.key, value));
        &mut self.map.entries[self.index].1
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// Inserted one by one (of equal keys the last one wins). No sort: a sort is several KB of
    /// code per entry type in the wasm module. What the app collects comes in key order (storage
    /// was written from a map, views from a map), where each entry goes at the end.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = SortedMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            match self.entries.last() {
                // In key order: at the end, without a search.
                Some((last, _)) if *last < k => self.entries.push((k, v)),
                None => self.entries.push((k, v)),
                Some(_) => {
                    self.insert(k, v);
                }
            }
        }
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SortedMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// The entries of a borrowed [`SortedMap`], as pairs of references.
pub type Iter<'a, K, V> =
    std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

/// The entries of a mutably borrowed [`SortedMap`], values mutable.
pub type IterMut<'a, K, V> =
    std::iter::Map<std::slice::IterMut<'a, (K, V)>, fn(&'a mut (K, V)) -> (&'a K, &'a mut V)>;

impl<'a, K, V> IntoIterator for &'a mut SortedMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
}

impl<K: Ord + Borrow<Q>, Q: Ord + ?Sized, V> std::ops::Index<&Q> for SortedMap<K, V> {
    type Output = V;
    fn index(&self, key: &Q) -> &V {
        self.get(key)
            .expect("no entry for this key in the SortedMap")
    }
}

impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = SortedMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(4096));
                while let Some(entry) = access.next_entry()? {
                    entries.push(entry);
                }
                Ok(entries.into_iter().collect())
            }
        }
        d.deserialize_map(Entries(PhantomData))
    }
}

/// An ordered set: a [`SortedMap`] without values (as `BTreeSet` is a `BTreeMap`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SortedSet<T> {
    map: SortedMap<T, ()>,
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet {
            map: SortedMap::new(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T> SortedSet<T> {
    pub const fn new() -> Self {
        SortedSet {
            map: SortedMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// The members in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + Clone {
        self.map.keys()
    }

    pub fn first(&self) -> Option<&T> {
        self.map.first_key_value().map(|(k, _)| k)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.map.retain(|k, _| keep(k));
    }
}

impl<T: Ord> SortedSet<T> {
    pub fn contains<Q>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.map.contains_key(value)
    }

    /// Adds `value`; false when it was there already.
    pub fn insert(&mut self, value: T) -> bool {
        self.map.insert(value, ()).is_none()
    }

    /// Takes `value` out; false when it was not there.
    pub fn remove<Q>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.map.remove(value).is_some()
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        SortedSet {
            map: iter.into_iter().map(|v| (v, ())).collect(),
        }
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.map.extend(iter.into_iter().map(|v| (v, ())));
    }
}

impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(T, ())>, fn((T, ())) -> T>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.into_iter().map(|(v, ())| v)
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (T, ())>, fn(&'a (T, ())) -> &'a T>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.iter().map(|(v, ())| v)
    }
}

impl<T: Serialize> Serialize for SortedSet<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, T: Ord + Deserialize<'de>> Deserialize<'de> for SortedSet<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}

/// Its TypeScript is a map's (`{ [key in K]?: V }`), as its JSON is.
#[cfg(feature = "ts")]
impl<K: ts_rs::TS, V: ts_rs::TS> ts_rs::TS for SortedMap<K, V> {
    type WithoutGenerics = <std::collections::HashMap<K, V> as ts_rs::TS>::WithoutGenerics;
    type OptionInnerType = Self;
    fn ident(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::ident(cfg)
    }
    fn name(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::name(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::inline(cfg)
    }
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::inline_flattened(cfg)
    }
    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        <std::collections::HashMap<K, V> as ts_rs::TS>::visit_dependencies(v);
    }
    fn visit_generics(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        <std::collections::HashMap<K, V> as ts_rs::TS>::visit_generics(v);
    }
    fn decl(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::decl(cfg)
    }
    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        <std::collections::HashMap<K, V> as ts_rs::TS>::decl_concrete(cfg)
    }
    fn output_path() -> Option<std::path::PathBuf> {
        <std::collections::HashMap<K, V> as ts_rs::TS>::output_path()
    }
}

#[cfg(test)]
mod sort_tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_library_does() {
        let mut x: u64 = 7;
        for n in [0usize, 1, 2, 3, 5, 8, 31, 100, 1000] {
            let mut v: Vec<(u8, u32)> = (0..n as u32)
                .map(|i| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 60) as u8, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort();
            sort(&mut v);
            assert_eq!(v, want, "{n} elements");
            sort_by(&mut v, |a, b| b.cmp(a));
            want.reverse();
            assert_eq!(v, want, "{n} elements, reversed");
        }
        let mut words = vec!["b", "a", "c", "a"];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// Every operation, applied to a `SortedMap` and a `BTreeMap` side by side from a seeded
    /// sequence: after each, both hold the same entries in the same order.
    #[test]
    fn behaves_as_btreemap_on_a_long_random_sequence() {
        let mut ours: SortedMap<u8, u32> = SortedMap::new();
        let mut theirs: BTreeMap<u8, u32> = BTreeMap::new();
        let mut seed = 0x2545_f491_u64;
        for step in 0..20_000u32 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let key = (seed % 64) as u8;
            match (seed >> 8) % 8 {
                0 | 1 => assert_eq!(ours.insert(key, step), theirs.insert(key, step)),
                2 => assert_eq!(ours.remove(&key), theirs.remove(&key)),
                3 => {
                    *ours.entry(key).or_default() += 1;
                    *theirs.entry(key).or_default() += 1;
                }
                4 => {
                    ours.entry(key).and_modify(|v| *v *= 3).or_insert(7);
                    theirs.entry(key).and_modify(|v| *v *= 3).or_insert(7);
                }
                5 => {
                    ours.retain(|k, v| (*k as u32 + *v) % 5 != 0);
                    theirs.retain(|k, v| (*k as u32 + *v) % 5 != 0);
                }
                6 => assert_eq!(ours.pop_first(), theirs.pop_first()),
                _ => assert_eq!(ours.get(&key), theirs.get(&key)),
            }
            assert!(ours.iter().eq(theirs.iter()), "step {step}");
        }
    }

    #[test]
    fn a_set_holds_each_member_once_in_order() {
        let mut set: SortedSet<String> = ["b", "a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), ["a", "b"]);
        assert!(!set.insert("a".into()));
        assert!(set.insert("c".into()));
        assert!(set.remove("b") && !set.remove("b"));
        assert!(set.contains("c") && !set.contains("b"));
        assert_eq!(serde_json::to_value(&set).unwrap(), json!(["a", "c"]));
    }

    #[test]
    fn collects_sorted_and_the_last_of_equal_keys_wins() {
        let map: SortedMap<&str, i32> = [("b", 1), ("a", 2), ("b", 3)].into_iter().collect();
        assert_eq!(map.iter().collect::<Vec<_>>(), [(&"a", &2), (&"b", &3)]);
    }

    #[test]
    fn json_is_an_object_in_key_order_and_reads_back() {
        let map: SortedMap<String, i32> = [("z".to_owned(), 1), ("a".to_owned(), 2)].into();
        let text = serde_json::to_string(&map).unwrap();
        assert_eq!(text, r#"{"a":2,"z":1}"#);
        let back: SortedMap<String, i32> =
            crate::json_value::from_value(json!({"z": 1, "a": 2})).unwrap();
        assert_eq!(back, map);
        assert!(crate::json_value::from_value::<SortedMap<String, i32>>(json!([1])).is_err());
    }

    #[test]
    fn entries_are_found_changed_and_removed_in_one_lookup() {
        let mut map: SortedMap<String, Vec<u8>> = SortedMap::new();
        map.entry("k".into()).or_default().push(1);
        map.entry("k".into()).and_modify(|v| v.push(2)).or_default();
        assert_eq!(map.get("k"), Some(&vec![1, 2]));
        match map.entry("k".into()) {
            Entry::Occupied(e) => assert_eq!(e.remove(), vec![1, 2]),
            Entry::Vacant(_) => panic!("the entry exists"),
        }
        assert!(map.is_empty());
    }
}
