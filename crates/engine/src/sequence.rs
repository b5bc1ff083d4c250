//! Sequence generators (`CREATE SEQUENCE`, `NEXT VALUE FOR`, `sp_sequence_get_range`).
//!
//! Values are not transactional (a rollback does not give them back), so the generator state
//! lives in the [`crate::DbHandle`], outside the session's transactions.
//!
//! Crash safety (invariant S1): before the first value of a new cache block is handed out, the
//! block's last value (the high-water mark) is written to the sequence's catalog row in its own
//! storage transaction, which commits (durably) first. After a crash the generator resumes after
//! the persisted mark, so no value is handed out twice; at most one cache block is skipped, as
//! in SQL Server. `NO CACHE` persists every value. A clean stop writes each sequence's last
//! value handed out back as its mark ([`release`], called by the IDENTITY cache's clean-stop
//! write-back, `identity_cache::release`), so the next start continues right after it, as
//! SQL Server does at a clean shutdown.

use std::sync::Arc;

use catalog::SequenceDef;
use common::{SqlError, SqlResult};
use types::Value;

use crate::server::DbHandle;

/// In-memory state of one sequence.
#[derive(Clone, Debug)]
pub struct SeqState {
    /// Last value handed out (None: none yet).
    pub last: Option<i128>,
    /// Values left in the persisted cache block after `last`.
    pub remaining: i128,
    /// The definition this state generates for. A rollback can undo the sequence's CREATE or
    /// ALTER (engine README "DDL undo"), and a later CREATE SEQUENCE can get the same object id:
    /// a state whose definition is not the catalog's is discarded (`state_for`).
    pub def: Arc<SequenceDef>,
}

/// Whether `a` and `b` generate the same values (the persisted mark `current` aside).
fn same_generator(a: &SequenceDef, b: &SequenceDef) -> bool {
    let strip = |d: &SequenceDef| SequenceDef {
        current: None,
        ..d.clone()
    };
    strip(a) == strip(b)
}

/// The generator state of `s`, (re)started from its persisted mark when missing or stale.
fn state_for<'m>(
    map: &'m mut std::collections::HashMap<common::ObjectId, SeqState>,
    s: &Arc<SequenceDef>,
) -> &'m mut SeqState {
    let fresh = || SeqState {
        last: s.current,
        remaining: 0,
        def: s.clone(),
    };
    let st = map.entry(s.object_id).or_insert_with(fresh);
    if !Arc::ptr_eq(&st.def, s) && !same_generator(&st.def, s) {
        *st = fresh();
    }
    st
}

fn exhausted(s: &SequenceDef) -> SqlError {
    SqlError::custom(
        11728,
        16,
        1,
        format!(
            "The sequence object '{}' has reached its minimum or maximum value. Restart the sequence object to allow new values to be generated.",
            s.name
        ),
    )
}

/// The value after `last` (cycling or failing at the bounds).
fn step(s: &SequenceDef, last: Option<i128>) -> SqlResult<i128> {
    let Some(last) = last else {
        return Ok(s.start);
    };
    let next = last + s.increment;
    if next > s.max || next < s.min {
        if !s.cycle {
            return Err(exhausted(s));
        }
        return Ok(if s.increment > 0 { s.min } else { s.max });
    }
    Ok(next)
}

/// Persists `hwm` as the sequence's `current` in its own committed transaction (S1).
fn persist(h: &DbHandle, s: &SequenceDef, hwm: i128) -> SqlResult<()> {
    let mut def = s.clone();
    def.current = Some(hwm);
    let tree = h.store.catalog_btree()?;
    let mut txn = h.store.begin()?;
    let r = tree.upsert(
        &mut txn,
        &catalog::serial::object_key(catalog::serial::ObjectKind::Sequence, s.object_id),
        &catalog::serial::encode_sequence(&def),
    );
    match r {
        Ok(_) => txn.commit(),
        Err(e) => {
            let _ = txn.abort();
            Err(e)
        }
    }
}

/// Hands out `count` consecutive values; returns the first and the last one.
pub fn next_values(h: &DbHandle, s: &Arc<SequenceDef>, count: i128) -> SqlResult<(i128, i128)> {
    if count < 1 {
        return Err(SqlError::custom(
            11732,
            16,
            1,
            "The requested range for sequence object '' exceeds the maximum or minimum limit. Retry with a smaller range.".replace("''", &format!("'{}'", s.name)),
        ));
    }
    let mut map = h.sequences.lock();
    let st = state_for(&mut map, s);
    let first = step(s, st.last)?;
    let mut last = first;
    for _ in 1..count {
        last = step(s, Some(last))?;
    }
    let used = count;
    if st.remaining < used {
        // New block: persist its end before handing anything out (S1).
        let cache = s.cache.unwrap_or(50).max(1) as i128;
        let mut hwm = last;
        for _ in 1..cache {
            match step(s, Some(hwm)) {
                Ok(v) if (s.increment > 0 && v > hwm) || (s.increment < 0 && v < hwm) => hwm = v,
                _ => break,
            }
        }
        persist(h, s, hwm)?;
        st.remaining = (hwm - last) / s.increment;
    } else {
        st.remaining -= used;
    }
    st.last = Some(last);
    Ok((first, last))
}

/// `NEXT VALUE FOR` as a value of the sequence's type.
pub fn next_value(h: &DbHandle, s: &Arc<SequenceDef>) -> SqlResult<Value> {
    let (v, _) = next_values(h, s, 1)?;
    to_value(v, &s.data_type)
}

/// An i128 as a value of `t`.
pub fn to_value(v: i128, t: &types::DataType) -> SqlResult<Value> {
    let big = Value::Decimal {
        mantissa: v,
        scale: 0,
    };
    crate::query::cast_value(big, t)
}

/// Clean stop: persists the last value handed out of every sequence whose cache block has
/// values left as its mark, so the restart continues right after it (no block skipped). The
/// block is given up (`remaining` 0): a value handed out after this reserves a new one first
/// (S1). Durable before it returns.
pub fn release(h: &DbHandle) -> SqlResult<()> {
    // the catalog's definitions, read before the generators' lock (the catalog lock is
    // never taken under it)
    let defs: std::collections::HashMap<common::ObjectId, Arc<SequenceDef>> = h
        .cat
        .read()
        .objects
        .values()
        .filter_map(|o| match o {
            catalog::SchemaObject::Sequence(d) => Some((d.object_id, d.clone())),
            _ => None,
        })
        .collect();
    let mut map = h.sequences.lock();
    let mut first_err = None;
    for st in map.values_mut() {
        let Some(last) = st.last else {
            continue;
        };
        if st.remaining <= 0 {
            continue;
        }
        // the catalog's definition (an ALTER SEQUENCE since the state began must not be
        // overwritten by the state's older copy)
        let def = match defs.get(&st.def.object_id) {
            Some(d) if same_generator(d, &st.def) => d.clone(),
            _ => continue,
        };
        match persist(h, &def, last) {
            Ok(()) => st.remaining = 0,
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Last value handed out (for `sys.sequences.current_value`).
pub fn current_value(h: &DbHandle, s: &SequenceDef) -> Option<i128> {
    match h.sequences.lock().get(&s.object_id) {
        Some(st) if same_generator(&st.def, s) => st.last,
        _ => s.current,
    }
}
