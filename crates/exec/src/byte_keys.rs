//! A hash map from encoded keys (`valops::hash_key` bytes) to a small value, for hash joins and
//! hash aggregates: every distinct key is stored once in one growing arena and the table holds
//! only where it lies. A boxed key per distinct key made malloc and free about a third of a
//! 2M-row string-key hash join build (W2), and freeing them all again at the end.
//!
//! Each slot keeps its key's full hash: growing the table re-places slots by that hash instead
//! of re-hashing every key from the arena (a random read per key), and a probe compares the
//! hash before it reads the arena, so a 7-bit tag collision costs no cache miss.

use std::hash::BuildHasher;

#[derive(Clone, Copy)]
struct Slot<V> {
    hash: u64,
    start: usize,
    len: u32,
    value: V,
}

/// Encoded key → `V`.
pub(crate) struct ByteKeyMap<V: Copy> {
    arena: Vec<u8>,
    slots: hashbrown::HashTable<Slot<V>>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl<V: Copy> Default for ByteKeyMap<V> {
    fn default() -> Self {
        ByteKeyMap {
            arena: Vec::new(),
            slots: hashbrown::HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }
}

impl<V: Copy> ByteKeyMap<V> {
    /// An empty map with room for `n` keys (a build whose row count is known grows no table).
    pub(crate) fn with_capacity(n: usize) -> Self {
        ByteKeyMap {
            arena: Vec::new(),
            slots: hashbrown::HashTable::with_capacity(n),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }

    /// The value of `key`, if present.
    #[inline]
    pub(crate) fn get(&self, key: &[u8]) -> Option<V> {
        self.get_hashed(key, self.hasher.hash_one(key))
    }

    /// [`Self::get`] for a key whose hash the caller computed (the hasher of a
    /// [`PartitionedKeys`] shared by its partitions).
    #[inline]
    fn get_hashed(&self, key: &[u8], h: u64) -> Option<V> {
        let arena = &self.arena;
        self.slots
            .find(h, |s| {
                s.hash == h && &arena[s.start..s.start + s.len as usize] == key
            })
            .map(|s| s.value)
    }

    /// The value of `key`, inserting `new` when absent: (the value, or None when it was just
    /// inserted; the bytes the insertion took).
    #[inline]
    pub(crate) fn get_or_insert(&mut self, key: &[u8], new: V) -> (Option<&mut V>, usize) {
        let h = self.hasher.hash_one(key);
        self.get_or_insert_hashed(key, h, new)
    }

    /// [`Self::get_or_insert`] for a key whose hash the caller computed.
    #[inline]
    fn get_or_insert_hashed(&mut self, key: &[u8], h: u64, new: V) -> (Option<&mut V>, usize) {
        let ByteKeyMap { arena, slots, .. } = self;
        let entry = slots.entry(
            h,
            |s| s.hash == h && &arena[s.start..s.start + s.len as usize] == key,
            |s| s.hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(o) => (Some(&mut o.into_mut().value), 0),
            hashbrown::hash_table::Entry::Vacant(v) => {
                let slot = Slot {
                    hash: h,
                    start: arena.len(),
                    len: u32::try_from(key.len()).unwrap_or(u32::MAX),
                    value: new,
                };
                arena.extend_from_slice(key);
                v.insert(slot);
                (None, key.len() + std::mem::size_of::<Slot<V>>())
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.arena.clear();
        self.slots.clear();
    }
}

/// Encoded keys of build rows, gathered before they are indexed: one arena, each row's
/// key range (`None`: a NULL key, which never matches) and its hash under one hasher.
pub(crate) struct PendingKeys {
    arena: Vec<u8>,
    rows: Vec<Option<(usize, u32)>>,
    hashes: Vec<u64>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl PendingKeys {
    pub(crate) fn with_capacity(rows: usize) -> Self {
        PendingKeys {
            arena: Vec::new(),
            rows: Vec::with_capacity(rows),
            hashes: Vec::with_capacity(rows),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }

    /// Appends the next row's key (None: NULL); the bytes it took.
    #[inline]
    pub(crate) fn push(&mut self, key: Option<&[u8]>) -> usize {
        match key {
            Some(k) => {
                self.rows.push(Some((
                    self.arena.len(),
                    u32::try_from(k.len()).unwrap_or(u32::MAX),
                )));
                self.hashes.push(self.hasher.hash_one(k));
                self.arena.extend_from_slice(k);
                k.len() + 24
            }
            None => {
                self.rows.push(None);
                self.hashes.push(0);
                24
            }
        }
    }
}

/// Rows at least this many are indexed by several threads (fewer: one, no thread started).
pub(crate) const PARALLEL_BUILD_ROWS: usize = 1 << 16;

/// An encoded key → its chain head (the newest build row with that key), split into
/// partitions by hash so that several threads build it at once, each inserting only the rows
/// of its partitions: a 2M-row join build was one thread inserting every row while the
/// zone's workers waited. The partition is taken from hash bits 40.. (hashbrown places by the
/// low bits and tags by the top 7: every partition keeps them all).
pub(crate) struct PartitionedKeys {
    parts: Vec<ByteKeyMap<u32>>,
    mask: u64,
    hasher: hashbrown::DefaultHashBuilder,
}

const PART_SHIFT: u32 = 40;

impl PartitionedKeys {
    /// Indexes `keys` with `threads` threads (1: on this one): fills `next` (one link per
    /// row, `u32::MAX` at a chain's end) so that rows sharing a key are chained newest first.
    /// Returns the index and the bytes its tables took.
    pub(crate) fn build(keys: PendingKeys, next: &mut [u32], threads: usize) -> (Self, usize) {
        let n = keys.rows.len();
        let threads = if n < PARALLEL_BUILD_ROWS {
            1
        } else {
            threads.clamp(1, 64)
        };
        // a power of two, at least one partition per thread
        let parts_n = threads.next_power_of_two();
        let mask = parts_n as u64 - 1;
        let part_of = |h: u64| ((h >> PART_SHIFT) & mask) as usize;
        // each task: a set of partitions; its result: the tables and, per row of its
        // partitions in row order, the row's link
        let build_part = |p: usize| -> (ByteKeyMap<u32>, Vec<u32>, usize) {
            let mut m = ByteKeyMap::with_capacity(n / parts_n + 16);
            let mut links = Vec::with_capacity(n / parts_n + 16);
            let mut bytes = 0;
            for (i, (r, &h)) in keys.rows.iter().zip(&keys.hashes).enumerate() {
                let Some((start, len)) = *r else { continue };
                if part_of(h) != p {
                    continue;
                }
                let key = &keys.arena[start..start + len as usize];
                let (head, added) = m.get_or_insert_hashed(key, h, i as u32);
                links.push(match head {
                    Some(head) => std::mem::replace(head, i as u32),
                    None => u32::MAX,
                });
                bytes += added;
            }
            (m, links, bytes)
        };
        let built: Vec<(ByteKeyMap<u32>, Vec<u32>, usize)> = if parts_n == 1 {
            vec![build_part(0)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..parts_n)
                    .map(|p| s.spawn(move || build_part(p)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            })
        };
        // the links, back in row order
        let mut cursors = vec![0usize; parts_n];
        for (i, (r, &h)) in keys.rows.iter().zip(&keys.hashes).enumerate() {
            if r.is_none() {
                next[i] = u32::MAX;
                continue;
            }
            let p = part_of(h);
            next[i] = built[p].1[cursors[p]];
            cursors[p] += 1;
        }
        let bytes = built.iter().map(|b| b.2).sum();
        let parts = built.into_iter().map(|b| b.0).collect();
        (
            PartitionedKeys {
                parts,
                mask,
                hasher: keys.hasher,
            },
            bytes,
        )
    }

    /// The chain head of `key`, if any row has it.
    #[inline]
    pub(crate) fn get(&self, key: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one(key);
        self.parts[((h >> PART_SHIFT) & self.mask) as usize].get_hashed(key, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_their_values_and_stay_distinct() {
        let mut m: ByteKeyMap<u32> = ByteKeyMap::default();
        for i in 0..10_000u32 {
            let key = format!("k{}", i % 5_000).into_bytes();
            match m.get_or_insert(&key, i) {
                (None, added) => assert!(i < 5_000 && added >= key.len()),
                (Some(v), added) => {
                    assert_eq!(*v, i - 5_000);
                    assert_eq!(added, 0);
                    *v = i;
                }
            }
        }
        assert_eq!(m.get(b"k42"), Some(5_042));
        assert_eq!(m.get(b"k5000"), None);
        assert_eq!(m.get(b""), None);
        m.clear();
        assert_eq!(m.get(b"k42"), None);
    }

    /// The keys of `rows` (None: NULL) encoded as hash joins encode them.
    fn pending(rows: &[Option<types::Value>]) -> PendingKeys {
        let mut p = PendingKeys::with_capacity(rows.len());
        let mut buf = Vec::new();
        for r in rows {
            match r {
                Some(v) => {
                    buf.clear();
                    crate::valops::hash_key(v, &mut buf);
                    p.push(Some(&buf));
                }
                None => {
                    p.push(None);
                }
            }
        }
        p
    }

    fn key_of(v: &types::Value) -> Vec<u8> {
        let mut buf = Vec::new();
        crate::valops::hash_key(v, &mut buf);
        buf
    }

    /// The rows of the chain starting at `head`.
    fn chain(next: &[u32], head: Option<u32>) -> Vec<u32> {
        let mut out = Vec::new();
        let mut c = head.unwrap_or(u32::MAX);
        while c != u32::MAX {
            out.push(c);
            c = next[c as usize];
        }
        out
    }

    #[test]
    fn partitioned_builds_chain_equal_keys_newest_first_whatever_the_threads() {
        use types::Value;
        // enough rows for the threads to start; strings equal under the default collation
        // (case, trailing blanks), negative and extreme integers, NULL keys
        let n = PARALLEL_BUILD_ROWS + 1000;
        let rows: Vec<Option<Value>> = (0..n)
            .map(|i| match i % 7 {
                0 => None,
                1 => Some(Value::VarChar(format!("k{}", i % 500))),
                2 => Some(Value::VarChar(format!("K{}  ", i % 500))),
                3 => Some(Value::BigInt(i64::MIN + (i % 3) as i64)),
                4 => Some(Value::Int(-((i % 100) as i32))),
                _ => Some(Value::BigInt(i64::MAX - (i % 5) as i64)),
            })
            .collect();
        let mut reference: Option<(Vec<u32>, PartitionedKeys)> = None;
        for threads in [1, 2, 3, 4] {
            let mut next = vec![0u32; n];
            let (m, bytes) = PartitionedKeys::build(pending(&rows), &mut next, threads);
            assert!(bytes > 0);
            // 'k7' and 'K7  ' are one key: rows i % 7 in {1, 2} with i % 500 == 7
            let c = chain(&next, m.get(&key_of(&Value::VarChar("k7".into()))));
            let want: Vec<u32> = (0..n as u32)
                .rev()
                .filter(|i| matches!(i % 7, 1 | 2) && i % 500 == 7)
                .collect();
            assert_eq!(c, want, "threads {threads}");
            let c = chain(&next, m.get(&key_of(&Value::Int(-5))));
            assert!(c.iter().all(|&i| i % 7 == 4 && i % 100 == 5) && !c.is_empty());
            assert!(c.windows(2).all(|w| w[0] > w[1]));
            assert!(m.get(&key_of(&Value::BigInt(i64::MIN))).is_some());
            assert!(m.get(&key_of(&Value::BigInt(i64::MAX - 4))).is_some());
            assert_eq!(m.get(&key_of(&Value::BigInt(i64::MAX - 5))), None);
            assert_eq!(m.get(&key_of(&Value::VarChar("k500".into()))), None);
            // a NULL key row is in no chain
            assert_eq!(next[0], u32::MAX);
            match &reference {
                None => reference = Some((next, m)),
                Some((rnext, _)) => assert_eq!(&next, rnext, "threads {threads}"),
            }
        }
        // an empty build
        let mut next = Vec::new();
        let (m, _) = PartitionedKeys::build(PendingKeys::with_capacity(0), &mut next, 4);
        assert_eq!(m.get(&key_of(&Value::Int(1))), None);
    }
}
