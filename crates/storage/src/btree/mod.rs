//! B-tree over memcmp-ordered byte keys (see btree/README.md for format and latch rules).

pub mod flow;

use std::ops::Bound;

use common::{PageId, SqlError, SqlResult};

use crate::buffer::PageRead;
use crate::db::{Ctx, Inner, ObjMeta};
use crate::mtr::Mtr;
use crate::page::{self, rd16, rd64, PageBuf, PageType, HEADER, PAGE_SIZE, SLOT};
use crate::wal::UndoOp;
use crate::{RowBatch, ScanDirection};

/// Leaf entry header: flags u8, klen u16, vlen u16.
pub const LEAF_HDR: usize = 5;
/// Inner entry header: klen u16, child u64.
pub const INNER_HDR: usize = 10;
/// Largest key in bytes.
pub const MAX_KEY: usize = 1700;
/// Largest leaf entry kept in-row; larger values go to LOB pages.
pub const MAX_INLINE_ENTRY: usize = 4000;
/// Free space that makes an inner page "safe" (can absorb one separator without splitting).
const SAFE_FREE: usize = INNER_HDR + MAX_KEY + SLOT;
const FLAG_LOB: u8 = 1;
const LOB_REF: usize = 16;

fn bad(pid: PageId, what: &str) -> SqlError {
    page::corrupt(pid, what)
}

/// Key of a leaf entry (bounds-checked).
pub fn leaf_key(rec: &[u8]) -> Option<&[u8]> {
    if rec.len() < LEAF_HDR {
        return None;
    }
    let kl = rd16(rec, 1) as usize;
    rec.get(LEAF_HDR..LEAF_HDR + kl)
}

/// Key of an inner entry.
pub fn inner_key(rec: &[u8]) -> Option<&[u8]> {
    if rec.len() < INNER_HDR {
        return None;
    }
    let kl = rd16(rec, 0) as usize;
    rec.get(INNER_HDR..INNER_HDR + kl)
}

pub fn inner_child(rec: &[u8]) -> PageId {
    if rec.len() < INNER_HDR {
        return PageId::INVALID;
    }
    PageId::from_u64(rd64(rec, 2))
}

fn inner_entry(key: &[u8], child: PageId) -> Vec<u8> {
    let mut e = Vec::with_capacity(INNER_HDR + key.len());
    e.extend_from_slice(&(key.len() as u16).to_le_bytes());
    e.extend_from_slice(&child.to_u64().to_le_bytes());
    e.extend_from_slice(key);
    e
}

fn key_at(p: &PageBuf, pid: PageId, i: usize, leaf: bool) -> SqlResult<&[u8]> {
    let r = page::rec_checked(p, pid, i)?;
    let k = if leaf { leaf_key(r) } else { inner_key(r) };
    k.ok_or_else(|| bad(pid, "malformed B-tree entry"))
}

/// Binary search in a leaf: Ok(found index) / Err(insert position).
pub fn search_leaf(p: &PageBuf, pid: PageId, key: &[u8]) -> SqlResult<Result<usize, usize>> {
    let (mut lo, mut hi) = (0usize, page::slot_count(p));
    while lo < hi {
        let mid = (lo + hi) / 2;
        match key_at(p, pid, mid, true)?.cmp(key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Ok(mid)),
        }
    }
    Ok(Err(lo))
}

/// Child index in an inner page: the last entry whose key <= `key` (0 if none).
/// With `strict`, the last entry whose key < `key`.
pub fn search_inner(p: &PageBuf, pid: PageId, key: &[u8], strict: bool) -> SqlResult<usize> {
    let n = page::slot_count(p);
    if n == 0 {
        return Err(bad(pid, "empty inner page"));
    }
    let (mut lo, mut hi) = (0usize, n);
    // find first index with entry key > key (or >= key when strict)
    while lo < hi {
        let mid = (lo + hi) / 2;
        let k = key_at(p, pid, mid, false)?;
        let go_right = if strict { k < key } else { k <= key };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo.saturating_sub(1))
}

fn check_node(p: &PageBuf, pid: PageId, m: &ObjMeta) -> SqlResult<bool> {
    if page::obj(p) != m.obj {
        return Err(bad(pid, "B-tree page belongs to another object"));
    }
    match page::page_type(p) {
        Some(PageType::Leaf) => Ok(true),
        Some(PageType::Inner) => Ok(false),
        _ => Err(bad(pid, "expected a B-tree page")),
    }
}

/// Decodes the value of a leaf entry (reads LOB chains). Called with the leaf latched.
fn entry_value(
    db: &Inner,
    m: &ObjMeta,
    pid: PageId,
    rec: &[u8],
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    if rec.len() < LEAF_HDR {
        return Err(bad(pid, "malformed leaf entry"));
    }
    let kl = rd16(rec, 1) as usize;
    let vl = rd16(rec, 3) as usize;
    let v = rec
        .get(LEAF_HDR + kl..LEAF_HDR + kl + vl)
        .ok_or_else(|| bad(pid, "leaf entry value out of bounds"))?;
    if rec[0] & FLAG_LOB != 0 {
        if v.len() != LOB_REF {
            return Err(bad(pid, "bad LOB reference"));
        }
        db.lob_read(m.obj, PageId::from_u64(rd64(v, 0)), rd64(v, 8), out)
    } else {
        out.extend_from_slice(v);
        Ok(())
    }
}

fn entry_lob(rec: &[u8]) -> Option<(PageId, u64)> {
    if rec.len() < LEAF_HDR || rec[0] & FLAG_LOB == 0 {
        return None;
    }
    let kl = rd16(rec, 1) as usize;
    let v = rec.get(LEAF_HDR + kl..LEAF_HDR + kl + LOB_REF)?;
    Some((PageId::from_u64(rd64(v, 0)), rd64(v, 8)))
}

fn entry_size(key: &[u8], value: &[u8]) -> (usize, bool) {
    let inline = LEAF_HDR + key.len() + value.len();
    if inline <= MAX_INLINE_ENTRY {
        (inline, false)
    } else {
        (LEAF_HDR + key.len() + LOB_REF, true)
    }
}

/// Writes an inline leaf entry into `b` (`b.len() == entry_size(key, value).0`).
fn inline_entry(b: &mut [u8], key: &[u8], value: &[u8]) {
    b[0] = 0;
    b[1..3].copy_from_slice(&(key.len() as u16).to_le_bytes());
    b[3..5].copy_from_slice(&(value.len() as u16).to_le_bytes());
    b[LEAF_HDR..LEAF_HDR + key.len()].copy_from_slice(key);
    b[LEAF_HDR + key.len()..].copy_from_slice(value);
}

fn build_entry(
    db: &Inner,
    mtr: &mut Mtr<'_>,
    m: &ObjMeta,
    key: &[u8],
    value: &[u8],
) -> SqlResult<Vec<u8>> {
    let (size, lob) = entry_size(key, value);
    let mut e = Vec::with_capacity(size);
    e.push(if lob { FLAG_LOB } else { 0 });
    e.extend_from_slice(&(key.len() as u16).to_le_bytes());
    if lob {
        let first = db.lob_write(mtr, m, value)?;
        e.extend_from_slice(&(LOB_REF as u16).to_le_bytes());
        e.extend_from_slice(key);
        e.extend_from_slice(&first.to_u64().to_le_bytes());
        e.extend_from_slice(&(value.len() as u64).to_le_bytes());
    } else {
        e.extend_from_slice(&(value.len() as u16).to_le_bytes());
        e.extend_from_slice(key);
        e.extend_from_slice(value);
    }
    Ok(e)
}

fn key_too_long(key: &[u8]) -> SqlError {
    SqlError::custom(
        1946,
        16,
        1,
        format!(
            "Operation failed. The index entry of length {} bytes exceeds the maximum length of {MAX_KEY} bytes.",
            key.len()
        ),
    )
}

// ------------------------------------------------------------------ point lookup

/// Point lookup.
///
/// # Locking
/// SH latches coupled root to leaf (btree/README L1); LOB pages read under the leaf latch (L4).
pub fn get(db: &Inner, m: &ObjMeta, key: &[u8]) -> SqlResult<Option<Vec<u8>>> {
    let mut g = db.pool.read(m.root)?;
    loop {
        if check_node(&g, g.pid, m)? {
            return match search_leaf(&g, g.pid, key)? {
                Ok(i) => {
                    let mut out = Vec::new();
                    entry_value(db, m, g.pid, page::rec_checked(&g, g.pid, i)?, &mut out)?;
                    Ok(Some(out))
                }
                Err(_) => Ok(None),
            };
        }
        let i = search_inner(&g, g.pid, key, false)?;
        let child = inner_child(page::rec_checked(&g, g.pid, i)?);
        let c = db.pool.read(child)?;
        g = c;
    }
}

// ------------------------------------------------------------------ modifications

/// Optimistic descent: SH latches down to the leaf's parent, EX on the leaf (in `mtr`). The
/// leaf's latch is only tried while the parent is held unless `coupled` (btree/README L3);
/// None: descend again (a root split, or the busy leaf no longer shows the key's range).
fn latch_leaf(
    db: &Inner,
    m: &ObjMeta,
    mtr: &mut Mtr<'_>,
    key: &[u8],
    coupled: bool,
) -> SqlResult<Option<usize>> {
    let root = db.pool.read(m.root)?;
    if check_node(&root, root.pid, m)? {
        drop(root);
        let i = mtr.latch(m.root)?;
        if !check_node(mtr.page(i), m.root, m)? {
            return Ok(None); // root split meanwhile: caller retries
        }
        return Ok(Some(i));
    }
    let mut g = root;
    loop {
        let i = search_inner(&g, g.pid, key, false)?;
        let child = inner_child(page::rec_checked(&g, g.pid, i)?);
        if page::level(&g) == 1 {
            let held = if coupled {
                Some(mtr.latch(child)?)
            } else {
                mtr.try_latch(child)?
            };
            if let Some(li) = held {
                drop(g);
                if !check_node(mtr.page(li), child, m)? {
                    return Err(bad(child, "level-1 child is not a leaf"));
                }
                return Ok(Some(li));
            }
            // busy (the last leaf under a convoy): wait for it holding nothing, then check the
            // key still belongs there (a split may have moved its range right meanwhile)
            drop(g);
            let li = mtr.latch(child)?;
            if check_node(mtr.page(li), child, m)? && leaf_covers(mtr.page(li), child, key)? {
                return Ok(Some(li));
            }
            return Ok(None); // caller descends again
        }
        let c = db.pool.read(child)?;
        if check_node(&c, child, m)? {
            return Err(bad(child, "leaf found above level 0"));
        }
        g = c;
    }
}

/// Whether `key` belongs to leaf `p` by what the leaf itself shows (no parent latched): at or
/// above its first key (or the leaf is leftmost) and at or below its last key (or the leaf is
/// rightmost). An empty leaf shows nothing: false.
fn leaf_covers(p: &PageBuf, pid: PageId, key: &[u8]) -> SqlResult<bool> {
    let n = page::slot_count(p);
    if n == 0 {
        return Ok(false);
    }
    let low = !page::prev(p).is_valid() || key_at(p, pid, 0, true)? <= key;
    let high = !page::next(p).is_valid() || key <= key_at(p, pid, n - 1, true)?;
    Ok(low && high)
}

/// How often one insert starts over after finding a latch busy while it held another
/// (btree/README L3) before it waits with its latches held, as plain coupling does: a bound
/// that keeps the insert making progress under any contention.
const MAX_RESTARTS: u32 = 8;

/// What one attempt of [`put`] did.
enum Attempt {
    Done(bool),
    /// The pessimistic descent found this page's latch busy and released everything.
    Busy(PageId),
}

/// Insert (`upsert` false: only if absent) or upsert. Returns true if a new key was inserted.
///
/// # Locking
/// btree/README L1-L5: no latch is waited for while another is held, but for the
/// sibling of a split (L1) and after [`MAX_RESTARTS`] restarts.
pub fn put(
    db: &Inner,
    ctx: &mut Ctx<'_>,
    m: &ObjMeta,
    key: &[u8],
    value: &[u8],
    upsert: bool,
) -> SqlResult<bool> {
    if key.len() > MAX_KEY {
        return Err(key_too_long(key));
    }
    let mut restarts = 0;
    loop {
        match put_attempt(db, ctx, m, key, value, upsert, restarts < MAX_RESTARTS)? {
            Attempt::Done(inserted) => return Ok(inserted),
            Attempt::Busy(pid) => {
                restarts += 1;
                // wait for the busy page holding no latch (its holder, often the split of the
                // last leaf, finishes), then start over: the append path usually takes it
                drop(db.pool.write(pid)?);
            }
        }
    }
}

/// One attempt of [`put`]: the append path, the optimistic descent, then the pessimistic one,
/// which with `try_only` only tries latches below the root ([`Attempt::Busy`] when one is
/// taken).
fn put_attempt(
    db: &Inner,
    ctx: &mut Ctx<'_>,
    m: &ObjMeta,
    key: &[u8],
    value: &[u8],
    upsert: bool,
    try_only: bool,
) -> SqlResult<Attempt> {
    let (size, _) = entry_size(key, value);
    // rightmost-leaf append (btree/README S3): EX-latch the remembered last leaf directly,
    // holding nothing else; S3c: hop along the leaf chain to the leaf that covers the key
    let hint = db.btree_hint.lock().get(&m.obj).copied();
    let hinted = matches!(hint, Some((root, _)) if root == m.root);
    // S3d: the last leaf was found full and its split is pending: no visit of it (or an
    // optimistic descent to it) can insert, so go straight to the pessimistic path
    let split_pending = hinted && hint.is_some_and(|(_, leaf)| !leaf.is_valid());
    if let Some((_, first_leaf)) = hint.filter(|_| hinted && !split_pending) {
        let mut leaf = first_leaf;
        for _hop in 0..4 {
            let mut mtr = Mtr::new(&db.pool);
            let Ok(li) = mtr.latch(leaf) else {
                break;
            };
            let p = mtr.page(li);
            let n = page::slot_count(p);
            if page::obj(p) != m.obj || page::page_type(p) != Some(PageType::Leaf) || n == 0 {
                break;
            }
            let (prev, next) = (page::prev(p), page::next(p));
            if next.is_valid() && key_at(p, leaf, n - 1, true).is_ok_and(|last| last < key) {
                // split at its right edge since the hint was taken: the key is further right
                leaf = next;
                continue;
            }
            if !leaf_covers(p, leaf, key)? {
                if prev.is_valid() && key_at(p, leaf, 0, true).is_ok_and(|first| key < first) {
                    // a late ascending key below the last leaf (S3b) after a split
                    leaf = prev;
                    continue;
                }
                break;
            }
            if !page::fits(p, size) {
                if !next.is_valid() {
                    // S3d: mark the split pending until a split sets the new last leaf
                    db.btree_hint
                        .lock()
                        .insert(m.obj, (m.root, PageId::INVALID));
                    drop(mtr);
                    return pessimistic(db, ctx, m, key, value, upsert, try_only, size);
                }
                break;
            }
            // the leaf shows the key's range (S3, S3b): insert in place
            let rightmost = !next.is_valid();
            match search_leaf(p, leaf, key)? {
                Err(pos) => {
                    insert_new(db, ctx, m, mtr, li, pos, key, value, size)?;
                    if rightmost && leaf != first_leaf {
                        db.btree_hint.lock().insert(m.obj, (m.root, leaf));
                    }
                    return Ok(Attempt::Done(true));
                }
                Ok(_) if !upsert => return Ok(Attempt::Done(false)),
                Ok(_) => break,
            }
        }
    }
    if split_pending {
        return pessimistic(db, ctx, m, key, value, upsert, try_only, size);
    }
    // optimistic attempt (btree/README L2)
    for _ in 0..3 {
        let mut mtr = Mtr::new(&db.pool);
        let Some(li) = latch_leaf(db, m, &mut mtr, key, false)? else {
            continue;
        };
        let pid = mtr.pid(li);
        match search_leaf(mtr.page(li), pid, key)? {
            Ok(i) => {
                if !upsert {
                    return Ok(Attempt::Done(false));
                }
                let old_rec = page::rec_checked(mtr.page(li), pid, i)?.to_vec();
                if page::free_bytes(mtr.page(li)) + old_rec.len() < size {
                    break;
                }
                let mut old = Vec::new();
                entry_value(db, m, pid, &old_rec, &mut old)?;
                let lob_pages = match entry_lob(&old_rec) {
                    Some((f, l)) => db.lob_pages(m.obj, f, l)?,
                    None => Vec::new(),
                };
                mtr.with_t(li, |p, t| page::remove_at_t(p, i, t));
                let e = build_entry(db, &mut mtr, m, key, value)?;
                if !mtr.with_t(li, |p, t| page::insert_at_t(p, i, &e, t)) {
                    return Err(bad(pid, "entry did not fit after space check"));
                }
                for p in lob_pages {
                    db.free_page(&mut mtr, m.iam, p)?;
                }
                let undo = UndoOp::BTreePut {
                    obj: m.obj,
                    key: key.to_vec(),
                    value: old,
                };
                db.commit_mtr(mtr, ctx, Some(undo))?;
                return Ok(Attempt::Done(false));
            }
            Err(pos) => {
                if !page::fits(mtr.page(li), size) {
                    break;
                }
                let rightmost = !page::next(mtr.page(li)).is_valid();
                insert_new(db, ctx, m, mtr, li, pos, key, value, size)?;
                if rightmost && hint != Some((m.root, pid)) {
                    db.btree_hint.lock().insert(m.obj, (m.root, pid));
                }
                return Ok(Attempt::Done(true));
            }
        }
    }
    pessimistic(db, ctx, m, key, value, upsert, try_only, size)
}

/// The pessimistic descent of [`put_attempt`] (btree/README L3, L3a).
#[allow(clippy::too_many_arguments)]
fn pessimistic(
    db: &Inner,
    ctx: &mut Ctx<'_>,
    m: &ObjMeta,
    key: &[u8],
    value: &[u8],
    upsert: bool,
    try_only: bool,
    size: usize,
) -> SqlResult<Attempt> {
    // pessimistic: EX latches from the root, releasing safe ancestors (btree/README L3); the
    // root is waited for holding nothing, a child's latch only tried while its parent is held
    let mut mtr = Mtr::new(&db.pool);
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut cur = mtr.latch(m.root)?;
    loop {
        let pid = mtr.pid(cur);
        if check_node(mtr.page(cur), pid, m)? {
            break;
        }
        let i = search_inner(mtr.page(cur), pid, key, false)?;
        let child = inner_child(page::rec_checked(mtr.page(cur), pid, i)?);
        let ci = if try_only {
            match mtr.try_latch(child)? {
                Some(ci) => ci,
                // nothing changed yet: dropping the mtr releases every latch
                None => return Ok(Attempt::Busy(child)),
            }
        } else {
            mtr.latch(child)?
        };
        let cp = mtr.page(ci);
        let safe = match check_node(cp, child, m)? {
            true => page::free_bytes(cp) >= size + SLOT + LEAF_HDR + MAX_KEY,
            false => page::free_bytes(cp) >= SAFE_FREE,
        };
        path.push((cur, i));
        if safe {
            for (pi, _) in path.drain(..) {
                mtr.release_unchanged(pi);
            }
        }
        cur = ci;
    }
    let pid = mtr.pid(cur);
    let (pos, old) = match search_leaf(mtr.page(cur), pid, key)? {
        Ok(i) => {
            if !upsert {
                return Ok(Attempt::Done(false));
            }
            let old_rec = page::rec_checked(mtr.page(cur), pid, i)?.to_vec();
            let mut old = Vec::new();
            entry_value(db, m, pid, &old_rec, &mut old)?;
            if let Some((f, l)) = entry_lob(&old_rec) {
                for p in db.lob_pages(m.obj, f, l)? {
                    db.free_page(&mut mtr, m.iam, p)?;
                }
            }
            mtr.with_t(cur, |p, t| page::remove_at_t(p, i, t));
            (i, Some(old))
        }
        Err(pos) => (pos, None),
    };
    let e = build_entry(db, &mut mtr, m, key, value)?;
    let landed = (pid, !page::next(mtr.page(cur)).is_valid());
    insert_split(db, &mut mtr, m, &mut path, cur, pos, e)?;
    if landed.1 {
        // S3d: no split was needed after all (another insert split first): this last leaf
        // ends a pending mark (a split set the new last leaf itself, S3c)
        let mut h = db.btree_hint.lock();
        if h.get(&m.obj)
            .is_some_and(|(r, l)| *r == m.root && !l.is_valid())
        {
            h.insert(m.obj, (m.root, landed.0));
        }
    }
    let inserted = old.is_none();
    let undo = match old {
        Some(v) => UndoOp::BTreePut {
            obj: m.obj,
            key: key.to_vec(),
            value: v,
        },
        None => UndoOp::BTreeRemove {
            obj: m.obj,
            key: key.to_vec(),
        },
    };
    db.commit_mtr(mtr, ctx, Some(undo))?;
    Ok(Attempt::Done(inserted))
}

/// Inserts a new entry at `pos` of the EX-latched leaf `li` (room checked) and commits.
#[allow(clippy::too_many_arguments)]
fn insert_new(
    db: &Inner,
    ctx: &mut Ctx<'_>,
    m: &ObjMeta,
    mut mtr: Mtr<'_>,
    li: usize,
    pos: usize,
    key: &[u8],
    value: &[u8],
    size: usize,
) -> SqlResult<()> {
    let pid = mtr.pid(li);
    let ok = if entry_size(key, value).1 {
        let e = build_entry(db, &mut mtr, m, key, value)?;
        mtr.with_t(li, |p, t| page::insert_at_t(p, pos, &e, t))
    } else {
        // inline entry: written straight into the page
        mtr.with_t(li, |p, t| {
            page::insert_at_with_t(p, pos, size, |b| inline_entry(b, key, value), t)
        })
    };
    if !ok {
        return Err(bad(pid, "entry did not fit after space check"));
    }
    let undo = UndoOp::BTreeRemove {
        obj: m.obj,
        key: key.to_vec(),
    };
    db.commit_mtr(mtr, ctx, Some(undo))
}

/// Shortest prefix of `right` that is > `left` (prefix truncation of separators).
fn separator(left: &[u8], right: &[u8]) -> Vec<u8> {
    let common = left.iter().zip(right).take_while(|(a, b)| a == b).count();
    right[..(common + 1).min(right.len())].to_vec()
}

fn rebuild(p: &mut PageBuf, pid: PageId, entries: &[Vec<u8>]) -> SqlResult<()> {
    let ty = page::page_type(p).unwrap_or(PageType::Leaf);
    let (obj, level, prev, next) = (page::obj(p), page::level(p), page::prev(p), page::next(p));
    let lsn = page::lsn(p);
    page::init(p, pid, ty, obj, level);
    page::set_prev(p, prev);
    page::set_next(p, next);
    page::set_lsn(p, lsn);
    for (k, e) in entries.iter().enumerate() {
        if !page::insert_at(p, k, e) {
            return Err(bad(pid, "split half does not fit"));
        }
    }
    Ok(())
}

fn fill_new(
    p: &mut PageBuf,
    pid: PageId,
    ty: PageType,
    obj: u64,
    level: u8,
    entries: &[Vec<u8>],
) -> SqlResult<()> {
    page::init(p, pid, ty, obj, level);
    for (k, e) in entries.iter().enumerate() {
        if !page::insert_at(p, k, e) {
            return Err(bad(pid, "split half does not fit"));
        }
    }
    Ok(())
}

fn split_point(entries: &[Vec<u8>]) -> usize {
    let cap = PAGE_SIZE - HEADER;
    let total: usize = entries.iter().map(|e| e.len() + SLOT).sum();
    let mut best = 1;
    let mut best_diff = usize::MAX;
    let mut left = 0;
    for k in 1..entries.len() {
        left += entries[k - 1].len() + SLOT;
        let right = total - left;
        if left <= cap && right <= cap {
            let d = left.abs_diff(right);
            if d < best_diff {
                best_diff = d;
                best = k;
            }
        }
    }
    best
}

/// Inserts `entry` at `pos` of node `node`, splitting up the latched `path` as needed.
/// Splits are structure modifications: redo-only, never undone (btree/README "Splits").
fn insert_split(
    db: &Inner,
    mtr: &mut Mtr<'_>,
    m: &ObjMeta,
    path: &mut Vec<(usize, usize)>,
    node: usize,
    pos: usize,
    entry: Vec<u8>,
) -> SqlResult<()> {
    if mtr.with_t(node, |p, t| page::insert_at_t(p, pos, &entry, t)) {
        return Ok(());
    }
    let pid = mtr.pid(node);
    let leaf = check_node(mtr.page(node), pid, m)?;
    let ty = if leaf {
        PageType::Leaf
    } else {
        PageType::Inner
    };
    let level = page::level(mtr.page(node));
    let n_old = page::slot_count(mtr.page(node));
    let rightmost = !page::next(mtr.page(node)).is_valid();
    let key_of = |e: &[u8]| -> SqlResult<Vec<u8>> {
        let k = if leaf { leaf_key(e) } else { inner_key(e) };
        k.map(|k| k.to_vec())
            .ok_or_else(|| bad(pid, "malformed entry in split"))
    };
    // ascending-key append: a split at the right edge moves nothing (btree/README S2); the
    // old page only gets its `next` pointer (a tracked 8-byte change, no rebuild)
    if pos == n_old && (rightmost || !leaf) && n_old > 0 && pid != m.root {
        let last = page::rec_checked(mtr.page(node), pid, n_old - 1)?;
        let sep = if leaf {
            separator(&key_of(last)?, &key_of(&entry)?)
        } else {
            key_of(&entry)?
        };
        let rp = db.alloc_page(mtr, m.iam, m.obj)?;
        let ri = mtr.latch_new(rp)?;
        fill_new(
            mtr.page_mut(ri),
            rp,
            ty,
            m.obj,
            level,
            std::slice::from_ref(&entry),
        )?;
        if leaf {
            let old_next = page::next(mtr.page(node));
            page::set_prev(mtr.page_mut(ri), pid);
            page::set_next(mtr.page_mut(ri), old_next);
            mtr.with_t(node, |p, t| page::set_next_t(p, rp, t));
            if old_next.is_valid() {
                // latch right while holding left (btree/README L1)
                let ni = mtr.latch(old_next)?;
                mtr.with_t(ni, |p, t| page::set_prev_t(p, rp, t));
            } else {
                // the new last leaf is the append target from now on (S3c): inserts arriving
                // during the split wait on its latch, not on the old leaf's and a descent
                db.btree_hint.lock().insert(m.obj, (m.root, rp));
            }
        }
        let Some((parent, cidx)) = path.pop() else {
            return Err(SqlError::internal("B-tree split without a latched parent"));
        };
        return insert_split(db, mtr, m, path, parent, cidx + 1, inner_entry(&sep, rp));
    }
    let mut entries: Vec<Vec<u8>> = (0..n_old)
        .map(|i| page::rec_checked(mtr.page(node), pid, i).map(|r| r.to_vec()))
        .collect::<SqlResult<_>>()?;
    entries.insert(pos, entry);
    let k = if pos == n_old && (rightmost || !leaf) && n_old > 0 {
        n_old
    } else {
        split_point(&entries)
    };
    let (left, right) = entries.split_at(k);
    let sep = if leaf {
        separator(&key_of(&left[left.len() - 1])?, &key_of(&right[0])?)
    } else {
        key_of(&right[0])?
    };
    if pid == m.root {
        // root split: the root keeps its page id and becomes the parent of two new pages
        let lp = db.alloc_page(mtr, m.iam, m.obj)?;
        let rp = db.alloc_page(mtr, m.iam, m.obj)?;
        let li = mtr.latch_new(lp)?;
        let ri = mtr.latch_new(rp)?;
        fill_new(mtr.page_mut(li), lp, ty, m.obj, level, left)?;
        fill_new(mtr.page_mut(ri), rp, ty, m.obj, level, right)?;
        if leaf {
            page::set_next(mtr.page_mut(li), rp);
            page::set_prev(mtr.page_mut(ri), lp);
            // the root was the only leaf: its right half is the last leaf now (S3c)
            db.btree_hint.lock().insert(m.obj, (m.root, rp));
        }
        let lsn = page::lsn(mtr.page(node));
        let rootp = mtr.page_mut(node);
        page::init(rootp, pid, PageType::Inner, m.obj, level + 1);
        page::set_lsn(rootp, lsn);
        let ok = page::insert_at(rootp, 0, &inner_entry(&[], lp))
            && page::insert_at(rootp, 1, &inner_entry(&sep, rp));
        if !ok {
            return Err(bad(pid, "new root does not fit"));
        }
        return Ok(());
    }
    // The right sibling is latched before the allocation (btree/README L4): `alloc_page` keeps
    // the IAM page latched until the mtr commits, and other writers latch a leaf and then the
    // IAM (freeing or allocating LOB pages under the leaf's latch). Latching the sibling after
    // the allocation deadlocked against such a writer holding that sibling.
    let old_next = if leaf {
        page::next(mtr.page(node))
    } else {
        PageId::INVALID
    };
    let next_idx = if old_next.is_valid() {
        // latch right while holding left (btree/README L1)
        Some(mtr.latch(old_next)?)
    } else {
        None
    };
    let rp = db.alloc_page(mtr, m.iam, m.obj)?;
    let ri = mtr.latch_new(rp)?;
    fill_new(mtr.page_mut(ri), rp, ty, m.obj, level, right)?;
    rebuild(mtr.page_mut(node), pid, left)?;
    if leaf {
        page::set_prev(mtr.page_mut(ri), pid);
        page::set_next(mtr.page_mut(ri), old_next);
        page::set_next(mtr.page_mut(node), rp);
        if let Some(ni) = next_idx {
            page::set_prev(mtr.page_mut(ni), rp);
        }
    }
    let Some((parent, cidx)) = path.pop() else {
        return Err(SqlError::internal("B-tree split without a latched parent"));
    };
    insert_split(db, mtr, m, path, parent, cidx + 1, inner_entry(&sep, rp))
}

/// Deletes `key`. Pages are not merged (empty leaves stay in the chain).
pub fn delete(db: &Inner, ctx: &mut Ctx<'_>, m: &ObjMeta, key: &[u8]) -> SqlResult<bool> {
    for attempt in 0..5 {
        let mut mtr = Mtr::new(&db.pool);
        let Some(li) = latch_leaf(db, m, &mut mtr, key, attempt == 4)? else {
            continue;
        };
        let pid = mtr.pid(li);
        let Ok(i) = search_leaf(mtr.page(li), pid, key)? else {
            return Ok(false);
        };
        let rec = page::rec_checked(mtr.page(li), pid, i)?.to_vec();
        let mut old = Vec::new();
        entry_value(db, m, pid, &rec, &mut old)?;
        if let Some((f, l)) = entry_lob(&rec) {
            for p in db.lob_pages(m.obj, f, l)? {
                db.free_page(&mut mtr, m.iam, p)?;
            }
        }
        mtr.with_t(li, |p, t| page::remove_at_t(p, i, t));
        db.commit_mtr(
            mtr,
            ctx,
            Some(UndoOp::BTreePut {
                obj: m.obj,
                key: key.to_vec(),
                value: old,
            }),
        )?;
        return Ok(true);
    }
    Err(SqlError::internal("B-tree delete: root kept changing"))
}

// ------------------------------------------------------------------ scans

/// Visitor of `Scan::visit_next`: (key, value). Runs under the leaf's shared latch for in-row
/// values, so it must not read pages or block.
pub type Visitor<'a> = dyn FnMut(&[u8], &[u8]) -> SqlResult<()> + 'a;

/// Where a forward scan delivers its rows.
enum Sink<'a, 'b> {
    /// Copies into a batch (one leaf per call).
    Batch(&'a mut RowBatch),
    /// Calls the visitor on the latched leaf (one leaf per call; a LOB value ends the call).
    Visit(&'a mut Visitor<'b>),
    /// Counts to the end of the range, polling the cancel token (if any) at each leaf.
    Count(u64, Option<&'a common::CancelToken>),
}

/// The in-row value of a leaf entry; None for a LOB reference.
fn inline_value(pid: PageId, rec: &[u8]) -> SqlResult<Option<&[u8]>> {
    if rec.len() < LEAF_HDR {
        return Err(bad(pid, "malformed leaf entry"));
    }
    if rec[0] & FLAG_LOB != 0 {
        return Ok(None);
    }
    let kl = rd16(rec, 1) as usize;
    let vl = rd16(rec, 3) as usize;
    rec.get(LEAF_HDR + kl..LEAF_HDR + kl + vl)
        .map(Some)
        .ok_or_else(|| bad(pid, "leaf entry value out of bounds"))
}

/// Whether `pid` of the B-tree's page list is a leaf a morsel scan visits: Ok(false) for
/// inner nodes and the tree's own IAM / LOB pages; another object's page or an unknown type
/// is damage.
fn morsel_leaf(p: &PageBuf, pid: PageId, m: &ObjMeta) -> SqlResult<bool> {
    if page::obj(p) != m.obj {
        return Err(bad(pid, "B-tree page belongs to another object"));
    }
    match page::page_type(p) {
        Some(PageType::Leaf) => Ok(true),
        Some(PageType::Inner) | Some(PageType::Iam) | Some(PageType::Lob) => Ok(false),
        _ => Err(bad(pid, "unexpected page type in a B-tree")),
    }
}

/// Visits the entries of one page of the tree's page list for a morsel scan
/// (`crate::morsel`, allocation order, no key order): inline values under the leaf's shared
/// latch, LOB values after it is released; non-leaf pages are skipped.
pub(crate) fn visit_page(
    db: &Inner,
    m: &ObjMeta,
    pid: PageId,
    f: &mut Visitor<'_>,
) -> SqlResult<()> {
    let g = db.pool.read(pid)?;
    if !morsel_leaf(&g, pid, m)? {
        return Ok(());
    }
    let mut lobs: Vec<Vec<u8>> = Vec::new();
    for i in 0..page::slot_count(&g) {
        let rec = page::rec_checked(&g, pid, i)?;
        let k = leaf_key(rec).ok_or_else(|| bad(pid, "malformed leaf entry"))?;
        match inline_value(pid, rec)? {
            Some(v) => f(k, v)?,
            None => lobs.push(rec.to_vec()),
        }
    }
    drop(g);
    let mut val = Vec::new();
    for rec in lobs {
        val.clear();
        entry_value(db, m, pid, &rec, &mut val)?;
        let k = leaf_key(&rec).ok_or_else(|| bad(pid, "malformed leaf entry"))?;
        f(k, &val)?;
    }
    Ok(())
}

/// Entries on one page of the tree's page list (0 for non-leaf pages), slot count only.
pub(crate) fn count_page(db: &Inner, m: &ObjMeta, pid: PageId) -> SqlResult<u64> {
    let g = db.pool.read(pid)?;
    if !morsel_leaf(&g, pid, m)? {
        return Ok(0);
    }
    Ok(page::slot_count(&g) as u64)
}

/// Range scan state: no latch is held between batches.
pub struct Scan {
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    dir: ScanDirection,
    cur: Option<PageId>,
    last: Option<Vec<u8>>,
    done: bool,
    pages: Option<Vec<PageId>>,
    ra_tried: Option<PageId>,
    ra: crate::buffer::ReadAhead,
}

fn own(b: Bound<&[u8]>) -> Bound<Vec<u8>> {
    match b {
        Bound::Included(k) => Bound::Included(k.to_vec()),
        Bound::Excluded(k) => Bound::Excluded(k.to_vec()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

fn above_upper(k: &[u8], upper: &Bound<Vec<u8>>) -> bool {
    match upper {
        Bound::Included(u) => k > u.as_slice(),
        Bound::Excluded(u) => k >= u.as_slice(),
        Bound::Unbounded => false,
    }
}

fn below_lower(k: &[u8], lower: &Bound<Vec<u8>>) -> bool {
    match lower {
        Bound::Included(l) => k < l.as_slice(),
        Bound::Excluded(l) => k <= l.as_slice(),
        Bound::Unbounded => false,
    }
}

impl Scan {
    pub fn new(lower: Bound<&[u8]>, upper: Bound<&[u8]>, dir: ScanDirection) -> Scan {
        Scan {
            lower: own(lower),
            upper: own(upper),
            dir,
            cur: None,
            last: None,
            done: false,
            pages: None,
            ra_tried: None,
            ra: Default::default(),
        }
    }

    pub fn next_batch(&mut self, db: &Inner, m: &ObjMeta, out: &mut RowBatch) -> SqlResult<bool> {
        out.clear();
        if self.done {
            return Ok(false);
        }
        match self.dir {
            ScanDirection::Forward => self.forward(db, m, &mut Sink::Batch(out)),
            ScanDirection::Backward => self.backward(db, m, out),
        }
    }

    /// Calls `f` for the entries of the next leaf straight from the latched page (no copy);
    /// a LOB value ends the call (read after the latch is released). Backward scans go
    /// through a batch. False = end of the range (nothing visited).
    pub fn visit_next(&mut self, db: &Inner, m: &ObjMeta, f: &mut Visitor<'_>) -> SqlResult<bool> {
        if self.done {
            return Ok(false);
        }
        match self.dir {
            ScanDirection::Forward => self.forward(db, m, &mut Sink::Visit(f)),
            ScanDirection::Backward => {
                let mut out = RowBatch::new();
                let more = self.backward(db, m, &mut out)?;
                for i in 0..out.len() {
                    f(out.key(i), out.record(i))?;
                }
                Ok(more)
            }
        }
    }

    /// Counts the entries left in the range without reading values, and ends the scan; stops
    /// with the attention error once `cancel` is set (polled per leaf).
    pub fn count(
        &mut self,
        db: &Inner,
        m: &ObjMeta,
        cancel: Option<&common::CancelToken>,
    ) -> SqlResult<u64> {
        if self.done {
            return Ok(0);
        }
        match self.dir {
            ScanDirection::Forward => {
                let mut sink = Sink::Count(0, cancel);
                self.forward(db, m, &mut sink)?;
                Ok(match sink {
                    Sink::Count(n, _) => n,
                    _ => 0,
                })
            }
            ScanDirection::Backward => {
                let mut out = RowBatch::new();
                let mut n = 0u64;
                loop {
                    if let Some(c) = cancel {
                        c.check()?;
                    }
                    out.clear();
                    let more = self.backward(db, m, &mut out)?;
                    n += out.len() as u64;
                    if !more {
                        return Ok(n);
                    }
                }
            }
        }
    }

    /// Descends with SH latches to the leaf for `key` (None = leftmost).
    fn descend<'a>(db: &'a Inner, m: &ObjMeta, key: Option<&[u8]>) -> SqlResult<PageRead<'a>> {
        let mut g = db.pool.read(m.root)?;
        loop {
            if check_node(&g, g.pid, m)? {
                return Ok(g);
            }
            let i = match key {
                Some(k) => search_inner(&g, g.pid, k, false)?,
                None => 0,
            };
            let child = inner_child(page::rec_checked(&g, g.pid, i)?);
            let c = db.pool.read(child)?;
            g = c;
        }
    }

    fn page_list(&mut self, db: &Inner, m: &ObjMeta) -> SqlResult<&[PageId]> {
        if self.pages.is_none() {
            let mut v = Vec::new();
            for (f, e, mask) in db.object_extents(m)? {
                for b in 0..8 {
                    if mask & (1 << b) != 0 {
                        v.push(PageId::new(f, e * 8 + b));
                    }
                }
            }
            v.sort();
            self.pages = Some(v);
        }
        Ok(self.pages.as_deref().unwrap_or(&[]))
    }

    /// Synchronous read-ahead of the run at `next` (no latch held) + the next window async.
    fn maybe_read_ahead(&mut self, db: &Inner, m: &ObjMeta, next: PageId) -> SqlResult<()> {
        let mut ra = std::mem::take(&mut self.ra);
        let pages = self.page_list(db, m)?;
        let k = pages.partition_point(|p| *p < next);
        let res = ra.advance(&db.pool, pages, k);
        self.ra = ra;
        res
    }

    fn forward(&mut self, db: &Inner, m: &ObjMeta, sink: &mut Sink<'_, '_>) -> SqlResult<bool> {
        let mut g = match self.cur {
            Some(p) => {
                let g = db.pool.read(p)?;
                if check_node(&g, p, m)? {
                    g
                } else {
                    drop(g);
                    Self::descend(db, m, self.last.as_deref())?
                }
            }
            None => {
                let k = match &self.lower {
                    Bound::Included(k) | Bound::Excluded(k) => Some(k.as_slice()),
                    Bound::Unbounded => None,
                };
                Self::descend(db, m, k)?
            }
        };
        let mut val = Vec::new();
        // true right after stepping, under latch coupling, from a leaf this call read to its
        // end: every key of the right sibling is above `last`, so no search is needed
        let mut stepped = false;
        loop {
            let pid = g.pid;
            let n = page::slot_count(&g);
            let start = match &self.last {
                _ if std::mem::take(&mut stepped) => 0,
                Some(l) => match search_leaf(&g, pid, l)? {
                    Ok(i) => i + 1,
                    Err(i) => i,
                },
                None => match &self.lower {
                    Bound::Included(k) => search_leaf(&g, pid, k)?.unwrap_or_else(|i| i),
                    Bound::Excluded(k) => match search_leaf(&g, pid, k)? {
                        Ok(i) => i + 1,
                        Err(i) => i,
                    },
                    Bound::Unbounded => 0,
                },
            };
            let mut got: Option<usize> = None;
            let mut lob: Option<(Vec<u8>, Vec<u8>)> = None;
            let mut from = start;
            if let Sink::Count(c, cancel) = sink {
                if let Some(t) = cancel {
                    t.check()?;
                }
                // whole leaf inside the range: count slots without reading entries
                if n > start {
                    let lastk = leaf_key(page::rec_checked(&g, pid, n - 1)?)
                        .ok_or_else(|| bad(pid, "malformed leaf entry"))?;
                    if !above_upper(lastk, &self.upper) {
                        *c += (n - start) as u64;
                        got = Some(n - 1);
                        from = n;
                    }
                }
            }
            for i in from..n {
                let rec = page::rec_checked(&g, pid, i)?;
                let k = leaf_key(rec).ok_or_else(|| bad(pid, "malformed leaf entry"))?;
                if above_upper(k, &self.upper) {
                    self.done = true;
                    break;
                }
                match sink {
                    Sink::Batch(out) => {
                        val.clear();
                        entry_value(db, m, pid, rec, &mut val)?;
                        out.push(k, &val, None);
                    }
                    Sink::Visit(f) => match inline_value(pid, rec)? {
                        Some(v) => f(k, v)?,
                        None => {
                            lob = Some((k.to_vec(), rec.to_vec()));
                            got = Some(i);
                            break;
                        }
                    },
                    Sink::Count(c, _) => *c += 1,
                }
                got = Some(i);
            }
            if let Some(i) = got {
                let k = leaf_key(page::rec_checked(&g, pid, i)?)
                    .ok_or_else(|| bad(pid, "malformed leaf entry"))?;
                match &mut self.last {
                    Some(l) => {
                        l.clear();
                        l.extend_from_slice(k);
                    }
                    None => self.last = Some(k.to_vec()),
                }
                self.cur = Some(pid);
                if let Some((k, rec)) = lob {
                    // no latch held across the LOB reads
                    drop(g);
                    val.clear();
                    entry_value(db, m, pid, &rec, &mut val)?;
                    if let Sink::Visit(f) = sink {
                        f(&k, &val)?;
                    }
                    return Ok(true);
                }
                if !matches!(sink, Sink::Count(..)) {
                    return Ok(true);
                }
            }
            if self.done {
                return Ok(false);
            }
            let next = page::next(&g);
            if !next.is_valid() {
                self.done = true;
                return Ok(false);
            }
            if self.ra_tried != Some(next) && !db.pool.contains(next) {
                // buffer/README B5: no latch held during read-ahead I/O; then revisit this page
                self.ra_tried = Some(next);
                drop(g);
                self.maybe_read_ahead(db, m, next)?;
                g = db.pool.read(pid)?;
                if !check_node(&g, pid, m)? {
                    return Err(bad(pid, "leaf changed type during scan"));
                }
                continue;
            }
            if let Some(pages) = &self.pages {
                // keep the asynchronous read-ahead one window ahead (buffer/README B9)
                let k = pages.partition_point(|p| *p < next);
                self.ra.ahead(&db.pool, pages, k);
            }
            // latch right while holding left (btree/README L1)
            let c = db.pool.read(next)?;
            g = c;
            // only when this call read the left leaf up to its end: after a concurrent split
            // of a leaf re-read from `cur`, its right sibling may hold keys <= `last`
            stepped = got.is_some();
            if !check_node(&g, next, m)? {
                return Err(bad(next, "leaf chain leads to a non-leaf"));
            }
        }
    }

    fn backward(&mut self, db: &Inner, m: &ObjMeta, out: &mut RowBatch) -> SqlResult<bool> {
        // target: keys < last (or within the upper bound on the first call)
        let mut target: Bound<Vec<u8>> = match &self.last {
            Some(l) => Bound::Excluded(l.clone()),
            None => self.upper.clone(),
        };
        let mut val = Vec::new();
        for _ in 0..1_000_000 {
            // descend towards the largest keys within target, remembering the low fence
            let mut g = db.pool.read(m.root)?;
            let mut low: Option<Vec<u8>> = None;
            loop {
                if check_node(&g, g.pid, m)? {
                    break;
                }
                let n = page::slot_count(&g);
                let i = match &target {
                    Bound::Unbounded => n.saturating_sub(1),
                    Bound::Included(k) => search_inner(&g, g.pid, k, false)?,
                    Bound::Excluded(k) => search_inner(&g, g.pid, k, true)?,
                };
                let rec = page::rec_checked(&g, g.pid, i)?;
                if i > 0 {
                    low = Some(
                        inner_key(rec)
                            .ok_or_else(|| bad(g.pid, "bad inner entry"))?
                            .to_vec(),
                    );
                }
                let child = inner_child(rec);
                let c = db.pool.read(child)?;
                g = c;
            }
            let pid = g.pid;
            let n = page::slot_count(&g);
            for i in (0..n).rev() {
                let rec = page::rec_checked(&g, pid, i)?;
                let k = leaf_key(rec).ok_or_else(|| bad(pid, "malformed leaf entry"))?;
                let within = match &target {
                    Bound::Unbounded => true,
                    Bound::Included(t) => k <= t.as_slice(),
                    Bound::Excluded(t) => k < t.as_slice(),
                };
                if !within {
                    continue;
                }
                if below_lower(k, &self.lower) {
                    self.done = true;
                    break;
                }
                val.clear();
                entry_value(db, m, pid, rec, &mut val)?;
                out.push(k, &val, None);
            }
            if !out.is_empty() {
                self.last = Some(out.key(out.len() - 1).to_vec());
                return Ok(true);
            }
            if self.done {
                return Ok(false);
            }
            match low {
                None => {
                    self.done = true;
                    return Ok(false);
                }
                Some(l) => {
                    if let Bound::Included(lb) | Bound::Excluded(lb) = &self.lower {
                        if l.as_slice() <= lb.as_slice() {
                            self.done = true;
                            return Ok(false);
                        }
                    }
                    target = Bound::Excluded(l);
                }
            }
        }
        Err(SqlError::internal("backward scan did not converge"))
    }
}

/// Every page reachable from the root, checked (used by `Database::check`).
pub fn check_tree(
    db: &Inner,
    m: &ObjMeta,
    owned: &std::collections::HashSet<PageId>,
    errs: &mut Vec<String>,
) -> SqlResult<()> {
    let mut leaves = Vec::new();
    check_node_rec(db, m, m.root, None, None, None, owned, errs, &mut leaves, 0)?;
    for (k, w) in leaves.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let ga = db.pool.read(a)?;
        if page::next(&ga) != b {
            errs.push(format!(
                "object {}: leaf {a} next is {} expected {b} (#{k})",
                m.obj,
                page::next(&ga)
            ));
        }
        drop(ga);
        let gb = db.pool.read(b)?;
        if page::prev(&gb) != a {
            errs.push(format!(
                "object {}: leaf {b} prev is {} expected {a}",
                m.obj,
                page::prev(&gb)
            ));
        }
    }
    if let (Some(f), Some(l)) = (leaves.first(), leaves.last()) {
        if leaves.len() > 1 || *f != m.root {
            if page::prev(&*db.pool.read(*f)?).is_valid() {
                errs.push(format!("object {}: first leaf {f} has a prev link", m.obj));
            }
            if page::next(&*db.pool.read(*l)?).is_valid() {
                errs.push(format!("object {}: last leaf {l} has a next link", m.obj));
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn check_node_rec(
    db: &Inner,
    m: &ObjMeta,
    pid: PageId,
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
    expect_level: Option<u8>,
    owned: &std::collections::HashSet<PageId>,
    errs: &mut Vec<String>,
    leaves: &mut Vec<PageId>,
    depth: usize,
) -> SqlResult<()> {
    if depth > 64 {
        errs.push(format!("object {}: tree deeper than 64 at {pid}", m.obj));
        return Ok(());
    }
    if !owned.contains(&pid) {
        errs.push(format!(
            "object {}: page {pid} in tree but not allocated to it",
            m.obj
        ));
    }
    let g = db.pool.read(pid)?;
    let leaf = match check_node(&g, pid, m) {
        Ok(l) => l,
        Err(e) => {
            errs.push(format!("object {}: {}", m.obj, e.message));
            return Ok(());
        }
    };
    if let Err(e) = page::validate_slots(&g) {
        errs.push(format!("object {}: page {pid}: {e}", m.obj));
        return Ok(());
    }
    let level = page::level(&g);
    if let Some(l) = expect_level {
        if l != level || (leaf != (level == 0)) {
            errs.push(format!(
                "object {}: page {pid} level {level} expected {l}",
                m.obj
            ));
        }
    }
    let n = page::slot_count(&g);
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(n);
    let mut children = Vec::new();
    for i in 0..n {
        let rec = page::rec_checked(&g, pid, i)?;
        let k = if leaf { leaf_key(rec) } else { inner_key(rec) };
        let Some(k) = k else {
            errs.push(format!("object {}: page {pid} slot {i} malformed", m.obj));
            continue;
        };
        if let Some(prev) = keys.last() {
            if prev.as_slice() >= k {
                errs.push(format!(
                    "object {}: page {pid} keys out of order at slot {i}",
                    m.obj
                ));
            }
        }
        let first_inner = !leaf && i == 0;
        if !first_inner {
            if let Some(lo) = lo {
                if k < lo {
                    errs.push(format!(
                        "object {}: page {pid} slot {i} below its separator",
                        m.obj
                    ));
                }
            }
        }
        if let Some(hi) = hi {
            if k >= hi {
                errs.push(format!(
                    "object {}: page {pid} slot {i} not below the next separator",
                    m.obj
                ));
            }
        }
        if leaf {
            if let Some((f, l)) = entry_lob(rec) {
                let mut v = Vec::new();
                if let Err(e) = db.lob_read(m.obj, f, l, &mut v) {
                    errs.push(format!(
                        "object {}: LOB of page {pid} slot {i}: {}",
                        m.obj, e.message
                    ));
                }
                for p in db.lob_pages(m.obj, f, l)? {
                    if !owned.contains(&p) {
                        errs.push(format!(
                            "object {}: LOB page {p} not allocated to it",
                            m.obj
                        ));
                    }
                }
            }
        } else {
            children.push(inner_child(rec));
        }
        keys.push(k.to_vec());
    }
    drop(g);
    if leaf {
        leaves.push(pid);
        return Ok(());
    }
    if level == 0 {
        errs.push(format!("object {}: inner page {pid} at level 0", m.obj));
        return Ok(());
    }
    for (i, c) in children.iter().enumerate() {
        let clo = if i == 0 { lo } else { Some(keys[i].as_slice()) };
        let chi = keys.get(i + 1).map(|k| k.as_slice()).or(hi);
        check_node_rec(
            db,
            m,
            *c,
            clo,
            chi,
            Some(level - 1),
            owned,
            errs,
            leaves,
            depth + 1,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
