//! Consistency checker (DBCC CHECKDB-like): allocation maps, IAM chains, B-tree order and
//! sibling links, heap pages, LOB chains; every page read is checksum-verified on load.
//!
//! [`check_report`] returns structured [`Finding`]s (the engine's DBCC turns them into SQL
//! Server's messages with the database id); [`check`] renders them as text.

use std::collections::{HashMap, HashSet};
use std::fmt;

use common::{PageId, SqlResult};

use crate::db::{
    Inner, ObjMeta, DIR_IAM, DIR_OBJ, DIR_PAGE, GAM_CAP, GAM_PAGE, KIND_BTREE, KIND_HEAP,
    STATE_LIVE, STATE_ZOMBIE, SYSTEM_PAGES,
};
use crate::page::{self, PageType, HEADER};

/// One problem found by [`check_report`]. Extents are named by their first page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// An extent in the IAM chains of two objects (SQL Server Msg 8904).
    ExtentSharedBy {
        file: u16,
        page: u32,
        first: u64,
        second: u64,
    },
    /// An extent allocated in the GAM that no object owns (Msg 8905).
    ExtentUnowned { file: u16, page: u32 },
    /// An extent an object owns that the GAM marks free.
    ExtentFree { file: u16, page: u32, owner: u64 },
    /// Any other problem: the storage object it concerns (None for file-level structures),
    /// whether it is an allocation error (else a consistency error), and its text.
    Other {
        object: Option<u64>,
        allocation: bool,
        text: String,
    },
}

impl Finding {
    /// Allocation error (as opposed to a consistency error inside an object).
    pub fn is_allocation(&self) -> bool {
        match self {
            Finding::Other { allocation, .. } => *allocation,
            _ => true,
        }
    }

    /// The storage objects the finding concerns.
    pub fn objects(&self) -> Vec<u64> {
        match self {
            Finding::ExtentSharedBy { first, second, .. } => vec![*first, *second],
            Finding::ExtentUnowned { .. } => Vec::new(),
            Finding::ExtentFree { owner, .. } => vec![*owner],
            Finding::Other { object, .. } => object.iter().copied().collect(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::ExtentSharedBy {
                file,
                page,
                first,
                second,
            } => write!(
                f,
                "extent ({file}:{page}) owned by objects {first} and {second}"
            ),
            Finding::ExtentUnowned { file, page } => write!(
                f,
                "extent ({file}:{page}) allocated in GAM but owned by no object"
            ),
            Finding::ExtentFree { file, page, .. } => {
                write!(f, "extent ({file}:{page}) owned but free in GAM")
            }
            Finding::Other { text, .. } => f.write_str(text),
        }
    }
}

/// Every problem as text; an empty list means no errors.
pub fn check(db: &Inner) -> SqlResult<Vec<String>> {
    Ok(check_report(db)?.iter().map(|f| f.to_string()).collect())
}

/// Every problem found: extent ownership against the IAM chains and the GAM, the directory
/// chain, file header / GAM pages, and each object's pages (B-tree order and links, heap
/// pages, LOB chains).
pub fn check_report(db: &Inner) -> SqlResult<Vec<Finding>> {
    let mut out = Vec::new();
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
                out.push(Finding::Other {
                    object: Some(m.obj),
                    allocation: true,
                    text: format!("object {}: IAM chain: {}", m.obj, e.message),
                });
                continue;
            }
        };
        let set = owned.entry(m.obj).or_default();
        // every extent of an object comes from its filegroup (README "Filegroups")
        let space = db.data_space_of(m.iam);
        if let Some(&(f, e, _)) = ext
            .iter()
            .find(|&&(f, _, _)| db.pool.files.get(f).map(|x| x.data_space()) != Some(space))
        {
            out.push(Finding::Other {
                object: Some(m.obj),
                allocation: true,
                text: format!(
                    "object {}: extent {f}:{} lies outside its filegroup (data space {space})",
                    m.obj,
                    e * 8
                ),
            });
        }
        for (f, e, mask) in ext {
            if let Some(o) = owner.insert((f, e), m.obj) {
                out.push(Finding::ExtentSharedBy {
                    file: f,
                    page: e * 8,
                    first: o,
                    second: m.obj,
                });
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
            let own = owner.get(&(f.id, e)).copied();
            match (set, own) {
                (true, None) => out.push(Finding::ExtentUnowned {
                    file: f.id,
                    page: e * 8,
                }),
                (false, Some(o)) => out.push(Finding::ExtentFree {
                    file: f.id,
                    page: e * 8,
                    owner: o,
                }),
                _ => {}
            }
        }
    }
    out.extend(errs.drain(..).map(|text| Finding::Other {
        object: None,
        allocation: true,
        text,
    }));
    let empty = HashSet::new();
    for m in &objs {
        let set = owned.get(&m.obj).unwrap_or(&empty);
        let m = &as_page_owner(db, m);
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
        out.extend(errs.drain(..).map(|text| Finding::Other {
            object: Some(m.obj),
            allocation: false,
            text,
        }));
    }
    Ok(out)
}

/// The entry whose id the object's pages carry. A zombie (the old storage of a truncate, freed
/// when the truncating txn commits: storage README A5) keeps the pages of the object it was
/// truncated from, which name that object; its IAM page says which.
fn as_page_owner(db: &Inner, m: &ObjMeta) -> ObjMeta {
    if m.state != STATE_ZOMBIE {
        return *m;
    }
    match db.pool.read(m.iam) {
        Ok(g) => ObjMeta {
            obj: page::obj(&g),
            ..*m
        },
        Err(_) => *m,
    }
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
