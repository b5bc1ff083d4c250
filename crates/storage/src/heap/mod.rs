//! Heap: unordered rows addressed by RID (file:page:slot). See heap/README.md.

use common::{PageId, SqlError, SqlResult};

use crate::db::{Ctx, Inner, ObjMeta};
use crate::mtr::Mtr;
use crate::page::{self, rd64, PageType};
use crate::wal::UndoOp;
use crate::{Rid, RowBatch};

/// Largest record kept in-row (SQL Server's 8,060 bytes); longer ones go to LOB pages.
pub const MAX_IN_ROW: usize = 8060;
const FLAG_LOB: u8 = 1;

fn bad(pid: PageId, what: &str) -> SqlError {
    page::corrupt(pid, what)
}

fn on_page_form(db: &Inner, mtr: &mut Mtr<'_>, m: &ObjMeta, data: &[u8]) -> SqlResult<Vec<u8>> {
    let mut r = Vec::with_capacity(data.len().min(MAX_IN_ROW) + 17);
    if data.len() <= MAX_IN_ROW {
        r.push(0);
        r.extend_from_slice(data);
    } else {
        let first = db.lob_write(mtr, m, data)?;
        r.push(FLAG_LOB);
        r.extend_from_slice(&first.to_u64().to_le_bytes());
        r.extend_from_slice(&(data.len() as u64).to_le_bytes());
    }
    Ok(r)
}

fn stored_size(data: &[u8]) -> usize {
    if data.len() <= MAX_IN_ROW {
        data.len() + 1
    } else {
        17
    }
}

fn lob_ref(rec: &[u8]) -> Option<(PageId, u64)> {
    if rec.len() == 17 && rec[0] & FLAG_LOB != 0 {
        Some((PageId::from_u64(rd64(rec, 1)), rd64(rec, 9)))
    } else {
        None
    }
}

/// Logical bytes of an on-page record (LOB read under the page latch).
fn decode(db: &Inner, m: &ObjMeta, pid: PageId, rec: &[u8], out: &mut Vec<u8>) -> SqlResult<()> {
    if rec.is_empty() {
        return Err(bad(pid, "empty heap record"));
    }
    if rec[0] & FLAG_LOB != 0 {
        let (f, l) = lob_ref(rec).ok_or_else(|| bad(pid, "bad LOB reference"))?;
        db.lob_read(m.obj, f, l, out)
    } else {
        out.extend_from_slice(&rec[1..]);
        Ok(())
    }
}

fn check_heap_page(p: &page::PageBuf, pid: PageId, m: &ObjMeta) -> SqlResult<()> {
    if page::page_type(p) != Some(PageType::Heap) || page::obj(p) != m.obj {
        return Err(bad(pid, "RID does not point into this heap"));
    }
    Ok(())
}

/// A page of the heap's page list (IAM order) seen by a scan: Ok(true) for a data page,
/// Ok(false) for the heap's own IAM and LOB pages, which hold no rows. Anything else (another
/// object's page, a B-tree page, a page of unknown type) is damage, never an empty page
/// (page/README invariant 9).
fn scanned_page_has_rows(p: &page::PageBuf, pid: PageId, m: &ObjMeta) -> SqlResult<bool> {
    if page::obj(p) != m.obj {
        return Err(bad(pid, "heap page belongs to another object"));
    }
    match page::page_type(p) {
        Some(PageType::Heap) => Ok(true),
        Some(PageType::Iam) | Some(PageType::Lob) => Ok(false),
        _ => Err(bad(pid, "unexpected page type in a heap")),
    }
}

/// Inserts a row; returns its RID.
///
/// # Locking
/// EX on the insert-target page, then IAM/GAM if a page is allocated (storage README A1).
pub fn insert(db: &Inner, ctx: &mut Ctx<'_>, m: &ObjMeta, data: &[u8]) -> SqlResult<Rid> {
    let size = stored_size(data);
    let hint = db.heap_hint.lock().get(&m.obj).copied();
    let mut mtr = Mtr::new(&db.pool);
    let mut target = None;
    if let Some(h) = hint {
        let i = mtr.latch(h)?;
        if check_heap_page(mtr.page(i), h, m).is_ok() && page::fits(mtr.page(i), size) {
            target = Some(i);
        }
    }
    let (i, pid) = match target {
        Some(i) => (i, mtr.pid(i)),
        None => {
            let pid = db.alloc_page(&mut mtr, m.iam, m.obj)?;
            let i = mtr.latch_new(pid)?;
            page::init(mtr.page_mut(i), pid, PageType::Heap, m.obj, 0);
            db.heap_hint.lock().insert(m.obj, pid);
            (i, pid)
        }
    };
    let rec = on_page_form(db, &mut mtr, m, data)?;
    let slot = mtr
        .with_t(i, |p, t| page::heap_insert_t(p, &rec, t))
        .ok_or_else(|| bad(pid, "heap insert did not fit"))?;
    let rid = Rid {
        page: pid,
        slot: slot as u16,
    };
    db.commit_mtr(
        mtr,
        ctx,
        Some(UndoOp::HeapRemove {
            obj: m.obj,
            rid: rid.to_bytes(),
        }),
    )?;
    Ok(rid)
}

pub fn get(db: &Inner, m: &ObjMeta, rid: Rid) -> SqlResult<Option<Vec<u8>>> {
    let g = db.pool.read(rid.page)?;
    // a RID (from an index) into a page that is not this heap's: damage, not a missing row
    check_heap_page(&g, rid.page, m)?;
    if rid.slot as usize >= page::slot_count(&g) {
        return Ok(None);
    }
    let rec = page::rec_checked(&g, rid.page, rid.slot as usize)?;
    if rec.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    decode(db, m, rid.page, rec, &mut out)?;
    Ok(Some(out))
}

fn free_lob(db: &Inner, mtr: &mut Mtr<'_>, m: &ObjMeta, rec: &[u8]) -> SqlResult<()> {
    if let Some((f, l)) = lob_ref(rec) {
        for p in db.lob_pages(m.obj, f, l)? {
            db.free_page(mtr, m.iam, p)?;
        }
    }
    Ok(())
}

pub fn delete(db: &Inner, ctx: &mut Ctx<'_>, m: &ObjMeta, rid: Rid) -> SqlResult<bool> {
    let mut mtr = Mtr::new(&db.pool);
    let i = mtr.latch(rid.page)?;
    check_heap_page(mtr.page(i), rid.page, m)?;
    if rid.slot as usize >= page::slot_count(mtr.page(i)) {
        return Ok(false);
    }
    let rec = page::rec_checked(mtr.page(i), rid.page, rid.slot as usize)?.to_vec();
    if rec.is_empty() {
        return Ok(false);
    }
    let mut old = Vec::new();
    decode(db, m, rid.page, &rec, &mut old)?;
    free_lob(db, &mut mtr, m, &rec)?;
    mtr.with_t(i, |p, t| page::heap_delete_t(p, rid.slot as usize, t));
    db.commit_mtr(
        mtr,
        ctx,
        Some(UndoOp::HeapRestore {
            obj: m.obj,
            rid: rid.to_bytes(),
            rec: old,
        }),
    )?;
    Ok(true)
}

/// Updates a row in place if it fits on its page; otherwise the row moves: it is deleted and
/// re-inserted and the NEW rid is returned (no forwarding stubs; callers update their indexes).
pub fn update(db: &Inner, ctx: &mut Ctx<'_>, m: &ObjMeta, rid: Rid, data: &[u8]) -> SqlResult<Rid> {
    {
        let mut mtr = Mtr::new(&db.pool);
        let i = mtr.latch(rid.page)?;
        check_heap_page(mtr.page(i), rid.page, m)?;
        if rid.slot as usize >= page::slot_count(mtr.page(i)) {
            return Err(bad(rid.page, "update of a missing row"));
        }
        let rec = page::rec_checked(mtr.page(i), rid.page, rid.slot as usize)?.to_vec();
        if rec.is_empty() {
            return Err(bad(rid.page, "update of a deleted row"));
        }
        if page::free_bytes(mtr.page(i)) + rec.len() >= stored_size(data) {
            let mut old = Vec::new();
            decode(db, m, rid.page, &rec, &mut old)?;
            free_lob(db, &mut mtr, m, &rec)?;
            let newrec = on_page_form(db, &mut mtr, m, data)?;
            if !mtr.with_t(i, |p, t| page::replace_t(p, rid.slot as usize, &newrec, t)) {
                return Err(bad(rid.page, "in-place update did not fit"));
            }
            db.commit_mtr(
                mtr,
                ctx,
                Some(UndoOp::HeapReplace {
                    obj: m.obj,
                    rid: rid.to_bytes(),
                    rec: old,
                }),
            )?;
            return Ok(rid);
        }
    }
    delete(db, ctx, m, rid)?;
    insert(db, ctx, m, data)
}

/// Undo of an insert: remove the row.
pub fn undo_remove(db: &Inner, ctx: &mut Ctx<'_>, m: &ObjMeta, rid: &[u8; 8]) -> SqlResult<()> {
    let Some(rid) = Rid::from_bytes(rid) else {
        return Ok(());
    };
    let mut mtr = Mtr::new(&db.pool);
    let i = mtr.latch(rid.page)?;
    check_heap_page(mtr.page(i), rid.page, m)?;
    if (rid.slot as usize) < page::slot_count(mtr.page(i)) {
        let rec = page::rec_checked(mtr.page(i), rid.page, rid.slot as usize)?.to_vec();
        if !rec.is_empty() {
            free_lob(db, &mut mtr, m, &rec)?;
            mtr.with_t(i, |p, t| page::heap_delete_t(p, rid.slot as usize, t));
        }
    }
    db.commit_mtr(mtr, ctx, None)
}

/// Undo of a delete (`replace` false) or in-place update (`replace` true).
pub fn undo_restore(
    db: &Inner,
    ctx: &mut Ctx<'_>,
    m: &ObjMeta,
    rid: &[u8; 8],
    data: &[u8],
    replace: bool,
) -> SqlResult<()> {
    let Some(rid) = Rid::from_bytes(rid) else {
        return Ok(());
    };
    let mut mtr = Mtr::new(&db.pool);
    let i = mtr.latch(rid.page)?;
    check_heap_page(mtr.page(i), rid.page, m)?;
    let slot = rid.slot as usize;
    if replace && slot < page::slot_count(mtr.page(i)) {
        let cur = page::rec_checked(mtr.page(i), rid.page, slot)?.to_vec();
        free_lob(db, &mut mtr, m, &cur)?;
        mtr.with_t(i, |p, t| page::heap_delete_t(p, slot, t));
    }
    let rec = on_page_form(db, &mut mtr, m, data)?;
    if !mtr.with_t(i, |p, t| page::heap_insert_at_t(p, slot, &rec, t)) {
        return Err(SqlError::internal(format!(
            "undo could not restore row {}:{}:{} (page full)",
            rid.page.file, rid.page.page, rid.slot
        )));
    }
    db.commit_mtr(mtr, ctx, None)
}

/// All pages of an object in allocation order (IAM order, then page order in the extent).
pub fn object_pages(db: &Inner, m: &ObjMeta) -> SqlResult<Vec<PageId>> {
    let mut v = Vec::new();
    for (f, e, mask) in db.object_extents(m)? {
        for b in 0..8 {
            if mask & (1 << b) != 0 {
                v.push(PageId::new(f, e * 8 + b));
            }
        }
    }
    Ok(v)
}

/// Heap scan state: a page list snapshot; one page per batch; read-ahead of up to 64 pages.
pub struct Scan {
    pages: Vec<PageId>,
    next: usize,
    ra: crate::buffer::ReadAhead,
    /// `visit_next` stopped at a LOB row: (page index, next slot) to continue from.
    resume: Option<(usize, usize)>,
}

/// Visitor of `Scan::visit_next`: (record bytes, rid). Runs under the page's shared latch for
/// in-row records, so it must not read pages or block.
pub type Visitor<'a> = dyn FnMut(&[u8], Rid) -> SqlResult<()> + 'a;

impl Scan {
    pub fn new(db: &Inner, m: &ObjMeta) -> SqlResult<Scan> {
        Ok(Scan {
            pages: object_pages(db, m)?,
            next: 0,
            ra: Default::default(),
            resume: None,
        })
    }

    /// Next page to visit (index into `pages`, first slot); read-ahead is advanced first.
    fn next_page(&mut self, db: &Inner) -> SqlResult<Option<(usize, usize)>> {
        if let Some(r) = self.resume.take() {
            return Ok(Some(r));
        }
        if self.next >= self.pages.len() {
            return Ok(None);
        }
        let k = self.next;
        self.next += 1;
        // buffer/README B5/B9: no latch held while read-ahead runs
        self.ra.advance(&db.pool, &self.pages, k)?;
        Ok(Some((k, 0)))
    }

    /// Calls `f` for the rows of the next page that has any, straight from the latched page
    /// (no copy). A LOB row ends the call: the latch is released, the LOB is read, `f` sees
    /// it, and the next call continues after it (no latch is held across LOB I/O).
    /// Returns false at the end of the heap (nothing visited).
    pub fn visit_next(&mut self, db: &Inner, m: &ObjMeta, f: &mut Visitor<'_>) -> SqlResult<bool> {
        while let Some((k, start)) = self.next_page(db)? {
            let pid = self.pages[k];
            let g = db.pool.read(pid)?;
            if !scanned_page_has_rows(&g, pid, m)? {
                continue;
            }
            let mut seen = 0usize;
            let mut lob = None;
            for s in start..page::slot_count(&g) {
                let rec = page::rec_checked(&g, pid, s)?;
                if rec.is_empty() {
                    continue;
                }
                let rid = Rid {
                    page: pid,
                    slot: s as u16,
                };
                if rec[0] & FLAG_LOB != 0 {
                    let r = lob_ref(rec).ok_or_else(|| bad(pid, "bad LOB reference"))?;
                    lob = Some((rid, r));
                    self.resume = Some((k, s + 1));
                    break;
                }
                f(&rec[1..], rid)?;
                seen += 1;
            }
            drop(g);
            if let Some((rid, (first, len))) = lob {
                let mut v = Vec::new();
                db.lob_read(m.obj, first, len, &mut v)?;
                f(&v, rid)?;
                return Ok(true);
            }
            if seen > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Counts the rows not visited yet (slot array only: records are neither read nor
    /// copied) and ends the scan; stops with the attention error once `cancel` is set (polled
    /// per page).
    pub fn count(
        &mut self,
        db: &Inner,
        m: &ObjMeta,
        cancel: Option<&common::CancelToken>,
    ) -> SqlResult<u64> {
        let mut n = 0u64;
        while let Some((k, start)) = self.next_page(db)? {
            if let Some(c) = cancel {
                c.check()?;
            }
            let pid = self.pages[k];
            let g = db.pool.read(pid)?;
            if !scanned_page_has_rows(&g, pid, m)? {
                continue;
            }
            let slots = page::slot_count(&g);
            if slots > (page::PAGE_SIZE - page::HEADER) / page::SLOT {
                return Err(bad(pid, "slot count out of range"));
            }
            n += (start..slots).filter(|&s| page::slot(&g, s).0 != 0).count() as u64;
        }
        Ok(n)
    }

    pub fn next_batch(&mut self, db: &Inner, m: &ObjMeta, out: &mut RowBatch) -> SqlResult<bool> {
        out.clear();
        if self.resume.is_some() {
            // continue a page that `visit_next` left at a LOB row
            return self.visit_next(db, m, &mut |rec, rid| {
                out.push(&[], rec, Some(rid));
                Ok(())
            });
        }
        let mut val = Vec::new();
        while self.next < self.pages.len() {
            let pid = self.pages[self.next];
            self.next += 1;
            // buffer/README B5/B9: no latch held while read-ahead runs
            self.ra.advance(&db.pool, &self.pages, self.next - 1)?;
            let g = db.pool.read(pid)?;
            if !scanned_page_has_rows(&g, pid, m)? {
                continue;
            }
            for s in 0..page::slot_count(&g) {
                let rec = page::rec_checked(&g, pid, s)?;
                if rec.is_empty() {
                    continue;
                }
                val.clear();
                decode(db, m, pid, rec, &mut val)?;
                out.push(
                    &[],
                    &val,
                    Some(Rid {
                        page: pid,
                        slot: s as u16,
                    }),
                );
            }
            if !out.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Visits the rows of one heap page for a morsel scan (`crate::morsel`): in-row records
/// straight from the page under its shared latch, LOB rows after the latch is released (no
/// latch is held across LOB I/O). The heap's IAM and LOB pages hold no rows and are skipped.
pub(crate) fn visit_page(
    db: &Inner,
    m: &ObjMeta,
    pid: PageId,
    f: &mut Visitor<'_>,
) -> SqlResult<()> {
    let g = db.pool.read(pid)?;
    if !scanned_page_has_rows(&g, pid, m)? {
        return Ok(());
    }
    let mut lobs = Vec::new();
    for s in 0..page::slot_count(&g) {
        let rec = page::rec_checked(&g, pid, s)?;
        if rec.is_empty() {
            continue;
        }
        let rid = Rid {
            page: pid,
            slot: s as u16,
        };
        if rec[0] & FLAG_LOB != 0 {
            lobs.push((
                rid,
                lob_ref(rec).ok_or_else(|| bad(pid, "bad LOB reference"))?,
            ));
            continue;
        }
        f(&rec[1..], rid)?;
    }
    drop(g);
    let mut v = Vec::new();
    for (rid, (first, len)) in lobs {
        v.clear();
        db.lob_read(m.obj, first, len, &mut v)?;
        f(&v, rid)?;
    }
    Ok(())
}

/// Rows on one heap page (slot array only) for a morsel scan's `COUNT(*)`.
pub(crate) fn count_page(db: &Inner, m: &ObjMeta, pid: PageId) -> SqlResult<u64> {
    let g = db.pool.read(pid)?;
    if !scanned_page_has_rows(&g, pid, m)? {
        return Ok(0);
    }
    let slots = page::slot_count(&g);
    if slots > (page::PAGE_SIZE - page::HEADER) / page::SLOT {
        return Err(bad(pid, "slot count out of range"));
    }
    Ok((0..slots).filter(|&s| page::slot(&g, s).0 != 0).count() as u64)
}

/// Structural check of every heap page (used by `Database::check`).
pub fn check_heap(db: &Inner, m: &ObjMeta, errs: &mut Vec<String>) -> SqlResult<()> {
    for pid in object_pages(db, m)? {
        let g = db.pool.read(pid)?;
        match page::page_type(&g) {
            Some(PageType::Heap) => {
                if page::obj(&g) != m.obj {
                    errs.push(format!(
                        "heap {}: page {pid} owned by object {}",
                        m.obj,
                        page::obj(&g)
                    ));
                    continue;
                }
                if let Err(e) = page::validate_slots(&g) {
                    errs.push(format!("heap {}: page {pid}: {e}", m.obj));
                    continue;
                }
                for s in 0..page::slot_count(&g) {
                    let rec = page::rec_checked(&g, pid, s)?;
                    if rec.is_empty() {
                        continue;
                    }
                    let mut v = Vec::new();
                    if let Err(e) = decode(db, m, pid, rec, &mut v) {
                        errs.push(format!("heap {}: row {pid}:{s}: {}", m.obj, e.message));
                    }
                }
            }
            Some(PageType::Iam) | Some(PageType::Lob) if page::obj(&g) == m.obj => {}
            other => errs.push(format!(
                "heap {}: page {pid} has type {other:?} (owner {})",
                m.obj,
                page::obj(&g)
            )),
        }
    }
    Ok(())
}
