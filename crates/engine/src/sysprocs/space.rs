//! `sp_spaceused` from storage's real page counts and the files' sizes on disk.

use std::sync::Arc;

use catalog::{SchemaObject, TableDef, TableStorage};
use common::{SqlError, SqlResult};
use types::Value;

use super::{nv, vc, Args};
use crate::events::EventSink;
use crate::server::DbHandle;
use crate::session::Session;

const PAGE_KB: u64 = 8;

/// One file of a database as found in its directory.
pub(super) struct FileSize {
    pub logical: String,
    pub file_id: i16,
    pub path: String,
    pub log: bool,
    pub bytes: u64,
}

pub(super) struct FileBytes {
    pub files: Vec<FileSize>,
}

impl FileBytes {
    pub fn total(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
    pub fn data(&self) -> u64 {
        self.files.iter().filter(|f| !f.log).map(|f| f.bytes).sum()
    }
}

/// The data (`*.mdf`, `*.ndf`) and log (`*.ldf`) files of a database with their sizes.
pub(super) fn file_bytes(h: &DbHandle) -> FileBytes {
    let dir = h.store.path();
    let mut names: Vec<(String, u64)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().to_string();
                    Some((name, e.metadata().ok()?.len()))
                })
                .filter(|(n, _)| n.ends_with(".mdf") || n.ends_with(".ndf") || n.ends_with(".ldf"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let db = &h.def.name;
    let mut next_data = 3i16;
    let files = names
        .into_iter()
        .map(|(n, bytes)| {
            let log = n.ends_with(".ldf");
            let (file_id, logical) = if log {
                (2, format!("{db}_log"))
            } else if n.ends_with(".mdf") {
                (1, db.clone())
            } else {
                next_data += 1;
                (next_data - 1, format!("{db}_{}", next_data - 1))
            };
            FileSize {
                logical,
                file_id,
                path: dir.join(&n).to_string_lossy().to_string(),
                log,
                bytes,
            }
        })
        .collect();
    FileBytes { files }
}

/// Pages of a table: (data: heap or clustered index, other indexes).
fn table_pages(h: &DbHandle, t: &TableDef) -> SqlResult<(u64, u64)> {
    let pages = |id: u64| h.store.page_count(storage::ObjId(id));
    let mut data = 0;
    let mut index = 0;
    if let TableStorage::Heap(id) = t.storage {
        data += pages(id)?;
    }
    for (i, ix) in t.indexes.iter().enumerate() {
        let n = pages(ix.storage_id)?;
        if matches!(t.storage, TableStorage::Clustered { index } if index == i) {
            data += n;
        } else {
            index += n;
        }
    }
    Ok((data, index))
}

fn kb(pages: u64) -> Value {
    vc(&format!("{} KB", pages * PAGE_KB))
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1_048_576.0)
}

impl Session {
    /// `sp_spaceused [@objname]`: a table's rows and pages, or the database's size and the
    /// pages of all its tables. Storage counts pages, not extents: reserved = used, unused 0.
    pub(super) fn sp_spaceused(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        for unsupported in ["@mode", "@oneresultset", "@include_total_xtp_storage"] {
            if args.get(unsupported).is_some() {
                return Err(SqlError::unsupported(format!("sp_spaceused {unsupported}")));
            }
        }
        let h = self.current_db()?;
        if let Some(name) = args.text("@objname") {
            let q = crate::ddl::qualified_from_text(&name);
            let t = match self.find_object(&q)? {
                Some((_, SchemaObject::Table(t))) => t,
                _ => return Err(SqlError::new(15009, &[&name, &h.def.name])),
            };
            let th = self.db(&t.database)?;
            let (data, index) = table_pages(&th, &t)?;
            let rows = crate::sysviews_more::count_rows(self, &t);
            self.send_result(
                sink,
                &[
                    "name:nvarchar(128)",
                    "rows:char(20)",
                    "reserved:varchar(18)",
                    "data:varchar(18)",
                    "index_size:varchar(18)",
                    "unused:varchar(18)",
                ],
                vec![vec![
                    nv(&t.name),
                    vc(&rows.to_string()),
                    kb(data + index),
                    kb(data),
                    kb(index),
                    kb(0),
                ]],
            )?;
            return Ok(0);
        }
        let tables: Vec<Arc<TableDef>> = h.cat.read().tables().cloned().collect();
        let (mut data, mut index) = (0, 0);
        for t in &tables {
            let (d, i) = table_pages(&h, t)?;
            data += d;
            index += i;
        }
        let files = file_bytes(&h);
        let reserved_bytes = (data + index) * PAGE_KB * 1024;
        self.send_result(
            sink,
            &[
                "database_name:nvarchar(128)",
                "database_size:varchar(18)",
                "unallocated space:varchar(18)",
            ],
            vec![vec![
                nv(&h.def.name),
                vc(&mb(files.total())),
                vc(&mb(files.data().saturating_sub(reserved_bytes))),
            ]],
        )?;
        self.send_result(
            sink,
            &[
                "reserved:varchar(18)",
                "data:varchar(18)",
                "index_size:varchar(18)",
                "unused:varchar(18)",
            ],
            vec![vec![kb(data + index), kb(data), kb(index), kb(0)]],
        )?;
        Ok(0)
    }
}
