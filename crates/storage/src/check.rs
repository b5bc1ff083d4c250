//! Consistency checker (DBCC CHECKDB-like): allocation maps, IAM chains, B-tree order and
//! sibling links, heap pages, LOB chains; every page read is checksum-verified on load.

use std::collections::{HashMap, HashSet};

use common::{PageId, SqlResult};

use crate::db::{
    Inner, ObjMeta, DIR_IAM, DIR_OBJ, DIR_PAGE, GAM_CAP, GAM_PAGE, KIND_BTREE, KIND_HEAP,
    STATE_LIVE, SYSTEM_PAGES,
};
use crate::page::{self, PageType, HEADER};

pub fn check(db: &Inner) -> SqlResult<Vec<String>> {
    let mut errs = Vec::new();
    let mut objs: Vec<ObjMeta> = db.objects.read().values().copied().collect();
    objs.sort_by_key(|m| m.obj);
    let dir = ObjMeta {
        obj: DIR_OBJ,
        kind: 0,
        state: STATE_LIVE,
        iam: DIR_IAM,
        root: PageId::INVALID,
    };
    let mut owner: HashMap<(u16, u32), u64> = HashMap::new();
    let mut owned: HashMap<u64, HashSet<PageId>> = HashMap::new();
    for m in std::iter::once(&dir).chain(objs.iter()) {
        let ext = match db.object_extents(m) {
            Ok(e) => e,
            Err(e) => {
                errs.push(format!("object {}: IAM chain: {}", m.obj, e.message));
                continue;
            }
        };
        let set = owned.entry(m.obj).or_default();
        for (f, e, mask) in ext {
            if let Some(o) = owner.insert((f, e), m.obj) {
                errs.push(format!(
                    "extent ({f}:{}) owned by objects {o} and {}",
                    e * 8,
                    m.obj
                ));
            }
            for b in 0..8 {
                if mask & (1 << b) != 0 {
                    set.insert(PageId::new(f, e * 8 + b));
                }
            }
        }
    }
    check_directory(db, owned.get(&DIR_OBJ), &mut errs)?;
    for f in &db.pool.files {
        let h = db.pool.read(PageId::new(f.id, 0))?;
        if page::page_type(&h) != Some(PageType::FileHeader) {
            errs.push(format!("file {}: page 0 is not a file header page", f.id));
        }
        drop(h);
        let g = db.pool.read(PageId::new(f.id, GAM_PAGE))?;
        if page::page_type(&g) != Some(PageType::Gam) {
            errs.push(format!("file {}: page 1 is not a GAM page", f.id));
            continue;
        }
        for e in 1..GAM_CAP {
            let set = g[HEADER + (e / 8) as usize] & (1 << (e % 8)) != 0;
            let own = owner.contains_key(&(f.id, e));
            if set && !own {
                errs.push(format!(
                    "extent ({}:{}) allocated in GAM but owned by no object",
                    f.id,
                    e * 8
                ));
            }
            if !set && own {
                errs.push(format!("extent ({}:{}) owned but free in GAM", f.id, e * 8));
            }
        }
    }
    let empty = HashSet::new();
    for m in &objs {
        let set = owned.get(&m.obj).unwrap_or(&empty);
        let res = match m.kind {
            KIND_BTREE => crate::btree::check_tree(db, m, set, &mut errs),
            KIND_HEAP => crate::heap::check_heap(db, m, &mut errs),
            k => {
                errs.push(format!("object {}: unknown kind {k}", m.obj));
                Ok(())
            }
        };
        if let Err(e) = res {
            errs.push(format!("object {}: {}", m.obj, e.message));
        }
    }
    Ok(errs)
}

/// The directory chain: every page is a directory page owned by the directory's IAM and is
/// not one of the system pages (file header, GAM) of extent 0.
fn check_directory(
    db: &Inner,
    owned: Option<&HashSet<PageId>>,
    errs: &mut Vec<String>,
) -> SqlResult<()> {
    let mut pid = DIR_PAGE;
    let mut seen = HashSet::new();
    while pid.is_valid() {
        if !seen.insert(pid) {
            errs.push(format!(
                "directory chain loops at ({}:{})",
                pid.file, pid.page
            ));
            break;
        }
        if pid.page / 8 == 0 && (SYSTEM_PAGES >> (pid.page % 8)) & 1 != 0 {
            errs.push(format!(
                "directory page ({}:{}) is a system page",
                pid.file, pid.page
            ));
            break;
        }
        if !owned.is_some_and(|o| o.contains(&pid)) {
            errs.push(format!(
                "directory page ({}:{}) not owned by the directory",
                pid.file, pid.page
            ));
        }
        let g = db.pool.read(pid)?;
        if page::page_type(&g) != Some(PageType::Directory) {
            errs.push(format!(
                "page ({}:{}) in the directory chain is not a directory page",
                pid.file, pid.page
            ));
            break;
        }
        pid = page::next(&g);
    }
    Ok(())
}
