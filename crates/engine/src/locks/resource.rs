//! Lockable resources: DATABASE, OBJECT, PAGE, KEY (a hash of the index key), RID, METADATA
//! (a catalog entry that is not an object: a schema, a type, the security rows, statistics).

use std::hash::{Hash, Hasher};

/// KEY resources keep 48 bits of the key's hash, SQL Server's `%%lockres%%` width.
const KEY_HASH_MASK: u64 = 0xFFFF_FFFF_FFFF;

/// A lockable resource. Database and object ids are SQL Server's (`DB_ID()`,
/// `OBJECT_ID()`); a KEY is the clustered index key (or a heap row's RID) of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resource {
    Database(i32),
    Object {
        db: i32,
        object: i32,
    },
    Page {
        db: i32,
        object: i32,
        file: u16,
        page: u32,
    },
    /// A B-tree row: 48 bits of a hash of the key bytes (SQL Server's `%%lockres%%` is a
    /// 6-byte hash too, so two keys may share a lock: a false conflict, never a missed one).
    Key {
        db: i32,
        object: i32,
        index: i32,
        hash: u64,
    },
    Rid {
        db: i32,
        object: i32,
        file: u16,
        page: u32,
        slot: u16,
    },
    /// A catalog entry other than an object that a transaction's DDL changed
    /// (`dbcat::MetaKey`): SQL Server's METADATA resource, its subtype the class.
    Metadata {
        db: i32,
        class: crate::dbcat::MetaClass,
        id: i32,
    },
}

impl Resource {
    /// The key resource of `key` (index bytes) in `index` of `object`.
    pub fn key(db: i32, object: i32, index: i32, key: &[u8]) -> Resource {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let hash = h.finish() & KEY_HASH_MASK;
        Resource::Key {
            db,
            object,
            index,
            // the all-ones hash is the end of the index's
            hash: if hash == KEY_HASH_MASK {
                hash - 1
            } else {
                hash
            },
        }
    }

    /// The end of `index` (the "infinity" key past its last row): the next key of a range
    /// that reaches the end of the index. SQL Server shows it as `(ffffffffffff)`.
    pub fn key_end(db: i32, object: i32, index: i32) -> Resource {
        Resource::Key {
            db,
            object,
            index,
            hash: KEY_HASH_MASK,
        }
    }

    pub fn database(&self) -> i32 {
        match *self {
            Resource::Database(db)
            | Resource::Object { db, .. }
            | Resource::Page { db, .. }
            | Resource::Key { db, .. }
            | Resource::Rid { db, .. }
            | Resource::Metadata { db, .. } => db,
        }
    }

    /// The object a row or page lock belongs to (its intent lock's resource).
    pub fn parent_object(&self) -> Option<Resource> {
        match *self {
            Resource::Page { db, object, .. }
            | Resource::Key { db, object, .. }
            | Resource::Rid { db, object, .. } => Some(Resource::Object { db, object }),
            _ => None,
        }
    }

    /// Row-level (counted toward lock escalation).
    pub fn is_row(&self) -> bool {
        matches!(self, Resource::Key { .. } | Resource::Rid { .. })
    }

    /// `sys.dm_tran_locks.resource_type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Resource::Database(_) => "DATABASE",
            Resource::Object { .. } => "OBJECT",
            Resource::Page { .. } => "PAGE",
            Resource::Key { .. } => "KEY",
            Resource::Rid { .. } => "RID",
            Resource::Metadata { .. } => "METADATA",
        }
    }

    /// `sys.dm_tran_locks.resource_subtype`: empty but for METADATA.
    pub fn subtype(&self) -> &'static str {
        match self {
            Resource::Metadata { class, .. } => class.subtype(),
            _ => "",
        }
    }

    /// `sys.dm_tran_locks.resource_associated_entity_id`: the object id (SQL Server shows the
    /// hobt id for rows and pages; latchkey has no hobt ids, so rows show their object's).
    pub fn entity_id(&self) -> i64 {
        match *self {
            Resource::Database(_) | Resource::Metadata { .. } => 0,
            Resource::Object { object, .. }
            | Resource::Page { object, .. }
            | Resource::Key { object, .. }
            | Resource::Rid { object, .. } => object as i64,
        }
    }

    /// `sys.dm_tran_locks.resource_description`, in SQL Server's formats: `(8194443284a0)` for
    /// a key, `1:264:0` for a RID, `1:264` for a page, empty for objects and databases.
    pub fn description(&self) -> String {
        match *self {
            Resource::Database(_) | Resource::Object { .. } => String::new(),
            Resource::Page { file, page, .. } => format!("{file}:{page}"),
            Resource::Key { hash, .. } => format!("({hash:012x})"),
            Resource::Rid {
                file, page, slot, ..
            } => format!("{file}:{page}:{slot}"),
            Resource::Metadata { class, id, .. } => class.description(id),
        }
    }
}
