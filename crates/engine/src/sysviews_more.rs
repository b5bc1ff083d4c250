//! More `sys.*` views: catalog views of features latchkey does not have (change tracking,
//! availability groups, FILESTREAM, full-text, spatial and XML indexes, plan guides...), which
//! are empty on a SQL Server instance that does not use them, plus a few with fixed contents.
//!
//! Column names and types follow SQL Server's documentation of each view; `sysname` columns
//! are `nvarchar(128)`. Views over real catalog contents live in `sysviews`.

use catalog::{ColumnDef, SchemaObject, VirtualTable};
use common::SqlResult;
use types::Value;

use crate::session::Session;
use crate::sysviews::{b, constraint_objects, dt, objects_columns, s, type_info};

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

/// (view, columns as `name type`) of the views that are empty here.
const EMPTY_VIEWS: &[(&str, &[&str])] = &[
    (
        "change_tracking_databases",
        &[
            "database_id int",
            "is_auto_cleanup_on bit",
            "retention_period int",
            "retention_period_units_desc nvarchar(60)",
            "retention_period_units tinyint",
        ],
    ),
    (
        "change_tracking_tables",
        &[
            "object_id int",
            "is_track_columns_updated_on bit",
            "begin_version bigint",
            "cleanup_version bigint",
            "min_valid_version bigint",
        ],
    ),
    (
        "database_filestream_options",
        &[
            "database_id int",
            "directory_name nvarchar(255)",
            "non_transacted_access tinyint",
            "non_transacted_access_desc nvarchar(60)",
        ],
    ),
    (
        "database_recovery_status",
        &[
            "database_id int",
            "database_guid uniqueidentifier",
            "family_guid uniqueidentifier",
            "last_log_backup_lsn numeric(25,0)",
            "recovery_fork_guid uniqueidentifier",
            "first_recovery_fork_guid uniqueidentifier",
            "fork_point_lsn numeric(25,0)",
        ],
    ),
    (
        "dm_hadr_database_replica_states",
        &[
            "database_id int",
            "group_id uniqueidentifier",
            "replica_id uniqueidentifier",
            "group_database_id uniqueidentifier",
            "is_local bit",
            "is_primary_replica bit",
            "synchronization_state tinyint",
            "synchronization_state_desc nvarchar(60)",
            "is_commit_participant bit",
            "synchronization_health tinyint",
            "synchronization_health_desc nvarchar(60)",
            "database_state tinyint",
            "database_state_desc nvarchar(60)",
            "is_suspended bit",
            "suspend_reason tinyint",
            "suspend_reason_desc nvarchar(60)",
            "truncation_lsn numeric(25,0)",
            "recovery_lsn numeric(25,0)",
            "last_sent_lsn numeric(25,0)",
            "last_sent_time datetime",
            "last_received_lsn numeric(25,0)",
            "last_received_time datetime",
            "last_hardened_lsn numeric(25,0)",
            "last_hardened_time datetime",
            "last_redone_lsn numeric(25,0)",
            "last_redone_time datetime",
            "log_send_queue_size bigint",
            "log_send_rate bigint",
            "redo_queue_size bigint",
            "redo_rate bigint",
            "filestream_send_rate bigint",
            "end_of_log_lsn numeric(25,0)",
            "last_commit_lsn numeric(25,0)",
            "last_commit_time datetime",
            "low_water_mark_for_ghosts bigint",
            "secondary_lag_seconds bigint",
        ],
    ),
    (
        // latchkey's latches and locks keep no spin statistics (parking_lot backs off on
        // its own); the view exists so monitoring scripts and DBCC SQLPERF(..., CLEAR) run.
        "dm_os_spinlock_stats",
        &[
            "name nvarchar(256)",
            "collisions bigint",
            "spins bigint",
            "spins_per_collision real",
            "sleep_time bigint",
            "backoffs int",
        ],
    ),
    (
        "filetable_system_defined_objects",
        &["object_id int", "parent_object_id int"],
    ),
    (
        "filetables",
        &[
            "object_id int",
            "is_enabled bit",
            "directory_name nvarchar(255)",
            "filename_collation_id int",
            "filename_collation_name nvarchar(128)",
        ],
    ),
    (
        "fulltext_index_columns",
        &[
            "object_id int",
            "column_id int",
            "type_column_id int",
            "language_id int",
            "statistical_semantics int",
        ],
    ),
    (
        "registered_search_property_lists",
        &[
            "property_list_id int",
            "name nvarchar(128)",
            "create_date datetime",
            "modify_date datetime",
            "principal_id int",
        ],
    ),
    (
        "xml_schema_collections",
        &[
            "xml_collection_id int",
            "schema_id int",
            "principal_id int",
            "name nvarchar(128)",
            "create_date datetime",
            "modify_date datetime",
        ],
    ),
    (
        "plan_guides",
        &[
            "plan_guide_id int",
            "name nvarchar(128)",
            "create_date datetime",
            "modify_date datetime",
            "is_disabled bit",
            "query_text nvarchar(max)",
            "scope_type tinyint",
            "scope_type_desc nvarchar(60)",
            "scope_object_id int",
            "scope_batch nvarchar(max)",
            "parameters nvarchar(max)",
            "hints nvarchar(max)",
        ],
    ),
    (
        "availability_groups",
        &[
            "group_id uniqueidentifier",
            "name nvarchar(128)",
            "resource_id nvarchar(40)",
            "resource_group_id nvarchar(40)",
            "failure_condition_level int",
            "health_check_timeout int",
            "automated_backup_preference tinyint",
            "automated_backup_preference_desc nvarchar(60)",
            "version smallint",
            "basic_features bit",
            "dtc_support bit",
            "db_failover bit",
            "is_distributed bit",
            "cluster_type tinyint",
            "cluster_type_desc nvarchar(60)",
            "required_synchronized_secondaries_to_commit int",
            "sequence_number bigint",
            "is_contained bit",
        ],
    ),
];

const INDEX_COLS: &[&str] = &[
    "object_id int",
    "name nvarchar(128)",
    "index_id int",
    "type tinyint",
    "type_desc nvarchar(60)",
    "is_unique bit",
    "data_space_id int",
    "ignore_dup_key bit",
    "is_primary_key bit",
    "is_unique_constraint bit",
    "fill_factor tinyint",
    "is_padded bit",
    "is_disabled bit",
    "is_hypothetical bit",
    "allow_row_locks bit",
    "allow_page_locks bit",
];

pub(crate) fn columns(spec: &[&str]) -> SqlResult<Vec<ColumnDef>> {
    spec.iter()
        .map(|c| {
            let (name, t) = c.split_once(' ').unwrap_or((c, "int"));
            Ok(ColumnDef::new(
                name,
                catalog::serial::type_from_text(t)?,
                true,
            ))
        })
        .collect()
}

fn table(name: &str, columns: Vec<ColumnDef>, rows: Vec<Vec<Value>>) -> VirtualTable {
    VirtualTable {
        schema: "sys".into(),
        name: name.to_string(),
        columns,
        rows,
    }
}

/// A `sys` view of this module, `Ok(None)` when `lname` (lower case) is not one.
pub fn more_sys_view(lname: &str) -> SqlResult<Option<VirtualTable>> {
    if let Some((_, spec)) = EMPTY_VIEWS.iter().find(|(n, _)| *n == lname) {
        return Ok(Some(table(lname, columns(spec)?, Vec::new())));
    }
    let v = match lname {
        "hash_indexes" => {
            let mut spec = INDEX_COLS.to_vec();
            spec.extend([
                "has_filter bit",
                "filter_definition nvarchar(max)",
                "bucket_count int",
                "auto_created bit",
            ]);
            table(lname, columns(&spec)?, Vec::new())
        }
        "spatial_indexes" => {
            let mut spec = INDEX_COLS.to_vec();
            spec.extend([
                "spatial_index_type tinyint",
                "spatial_index_type_desc nvarchar(60)",
                "tessellation_scheme nvarchar(128)",
                "has_filter bit",
                "filter_definition nvarchar(max)",
                "auto_created bit",
            ]);
            table(lname, columns(&spec)?, Vec::new())
        }
        "dm_hadr_cluster" => {
            // not part of a Windows Server failover cluster: one row, empty cluster name
            let spec = [
                "cluster_name nvarchar(128)",
                "quorum_type tinyint",
                "quorum_type_desc nvarchar(50)",
                "quorum_state tinyint",
                "quorum_state_desc nvarchar(50)",
            ];
            let row = vec![
                Value::NVarChar(String::new()),
                Value::TinyInt(0),
                Value::NVarChar("NODE_MAJORITY".into()),
                Value::TinyInt(0),
                Value::NVarChar("NORMAL_QUORUM".into()),
            ];
            table(lname, columns(&spec)?, vec![row])
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// Base `hobt_id` / `partition_id` of SQL Server's numbering (as in 72057594038910976).
const HOBT_BASE: i64 = 72_057_594_037_927_936;

pub(crate) fn count_rows(session: &Session, t: &std::sync::Arc<catalog::TableDef>) -> i64 {
    let Some(h) = session.engine().database(&t.database) else {
        return 0;
    };
    let Ok(store) = exec::table_io::TableStore::open(h.store.clone(), t.clone()) else {
        return 0;
    };
    let mut n = 0i64;
    let _ = store.for_each_row(&mut |_, _| {
        n += 1;
        Ok(())
    });
    n
}

/// Views over the catalog of this module (constraints, partitions, sessions, waits, files);
/// `Ok(None)` when `lname` is not one of them.
pub fn catalog_sys_view(
    session: &Session,
    objs: &[&SchemaObject],
    schema_id: &dyn Fn(&str) -> i32,
    lname: &str,
) -> SqlResult<Option<Rows>> {
    let tables = || {
        objs.iter().filter_map(|o| match o {
            SchemaObject::Table(t) => Some(t.clone()),
            _ => None,
        })
    };
    Ok(Some(match lname {
        "check_constraints" => {
            let mut c = objects_columns();
            c.extend(columns(&[
                "is_disabled bit",
                "is_not_for_replication bit",
                "is_not_trusted bit",
                "parent_column_id int",
                "definition nvarchar(max)",
                "uses_database_collation bit",
                "is_system_named bit",
            ])?);
            let mut rows = Vec::new();
            for t in tables() {
                let ids = constraint_objects(&t);
                let checks = ids.iter().filter(|(_, _, ty, _)| *ty == "C");
                for ((oid, name, _, _), ck) in checks.zip(&t.checks) {
                    let mut r = constraint_row(&t, *oid, name, "C", "CHECK_CONSTRAINT", schema_id);
                    r.extend([
                        b(ck.disabled),
                        b(false),
                        b(ck.not_trusted),
                        Value::Int(ck.column.map(|c| c as i32 + 1).unwrap_or(0)),
                        s(&format!("({})", ck.text)),
                        b(true),
                        b(name.starts_with("CK__")),
                    ]);
                    rows.push(r);
                }
            }
            (c, rows)
        }
        "foreign_keys" => {
            let mut c = objects_columns();
            c.extend(columns(&[
                "referenced_object_id int",
                "key_index_id int",
                "is_disabled bit",
                "is_not_for_replication bit",
                "is_not_trusted bit",
                "delete_referential_action tinyint",
                "delete_referential_action_desc nvarchar(60)",
                "update_referential_action tinyint",
                "update_referential_action_desc nvarchar(60)",
                "is_system_named bit",
            ])?);
            let all: Vec<_> = tables().collect();
            let mut rows = Vec::new();
            for t in &all {
                let ids = constraint_objects(t);
                let fks = ids.iter().filter(|(_, _, ty, _)| *ty == "F");
                for ((oid, name, _, _), fk) in fks.zip(&t.foreign_keys) {
                    // the referenced table's unique index over exactly the referenced columns
                    let key_index = all
                        .iter()
                        .find(|p| p.object_id == fk.ref_object_id)
                        .and_then(|p| {
                            p.indexes.iter().find(|ix| {
                                ix.unique
                                    && ix.key_columns.len() == fk.ref_columns.len()
                                    && ix.key_columns.iter().all(|(c, _)| {
                                        p.columns.get(*c).is_some_and(|col| {
                                            fk.ref_columns
                                                .iter()
                                                .any(|r| catalog::name_eq(r, &col.name))
                                        })
                                    })
                            })
                        })
                        .map_or(Value::Null, |ix| Value::Int(ix.index_id));
                    let action = |a: catalog::RefAction| match a {
                        catalog::RefAction::NoAction => (0u8, "NO_ACTION"),
                        catalog::RefAction::Cascade => (1, "CASCADE"),
                        catalog::RefAction::SetNull => (2, "SET_NULL"),
                        catalog::RefAction::SetDefault => (3, "SET_DEFAULT"),
                    };
                    let (del, del_desc) = action(fk.on_delete);
                    let (upd, upd_desc) = action(fk.on_update);
                    let mut r =
                        constraint_row(t, *oid, name, "F", "FOREIGN_KEY_CONSTRAINT", schema_id);
                    r.extend([
                        Value::Int(fk.ref_object_id),
                        key_index,
                        b(fk.disabled),
                        b(false),
                        b(fk.not_trusted),
                        Value::TinyInt(del),
                        s(del_desc),
                        Value::TinyInt(upd),
                        s(upd_desc),
                        b(name.starts_with("FK__")),
                    ]);
                    rows.push(r);
                }
            }
            (c, rows)
        }
        "default_constraints" => {
            let mut c = objects_columns();
            c.extend(columns(&[
                "parent_column_id int",
                "definition nvarchar(max)",
                "is_system_named bit",
            ])?);
            let mut rows = Vec::new();
            for t in tables() {
                let ids = constraint_objects(&t);
                let defaults = ids.iter().filter(|(_, _, ty, _)| *ty == "D");
                let cols = t
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.default.is_some() && c.default_name.is_some());
                for ((oid, name, _, _), (i, cd)) in defaults.zip(cols) {
                    let mut r =
                        constraint_row(&t, *oid, name, "D", "DEFAULT_CONSTRAINT", schema_id);
                    r.extend([
                        Value::Int(i as i32 + 1),
                        s(&format!("({})", cd.default.as_deref().unwrap_or(""))),
                        b(name.starts_with("DF__")),
                    ]);
                    rows.push(r);
                }
            }
            (c, rows)
        }
        "computed_columns" => {
            let c = columns(&[
                "object_id int",
                "name nvarchar(128)",
                "column_id int",
                "system_type_id tinyint",
                "user_type_id int",
                "max_length smallint",
                "precision tinyint",
                "scale tinyint",
                "collation_name nvarchar(128)",
                "is_nullable bit",
                "is_ansi_padded bit",
                "is_rowguidcol bit",
                "is_identity bit",
                "is_computed bit",
                "default_object_id int",
                "definition nvarchar(max)",
                "uses_database_collation bit",
                "is_persisted bit",
            ])?;
            let mut rows = Vec::new();
            for t in tables() {
                for (i, cd) in t.columns.iter().enumerate() {
                    let Some(def) = &cd.computed else { continue };
                    let (tid, ml, p, sc) = type_info(&cd.data_type);
                    rows.push(vec![
                        Value::Int(t.object_id),
                        s(&cd.name),
                        Value::Int(i as i32 + 1),
                        Value::TinyInt(tid as u8),
                        Value::Int(tid),
                        Value::SmallInt(ml as i16),
                        Value::TinyInt(p as u8),
                        Value::TinyInt(sc as u8),
                        if cd.data_type.is_string() {
                            s("SQL_Latin1_General_CP1_CI_AS")
                        } else {
                            Value::Null
                        },
                        b(cd.nullable),
                        b(cd.data_type.is_string() || cd.data_type.is_binary()),
                        b(false),
                        b(false),
                        b(true),
                        Value::Int(0),
                        s(&format!("({def})")),
                        b(true),
                        b(cd.persisted),
                    ]);
                }
            }
            (c, rows)
        }
        "partitions" => {
            let c = columns(&[
                "partition_id bigint",
                "object_id int",
                "index_id int",
                "partition_number int",
                "hobt_id bigint",
                "rows bigint",
                "filestream_filegroup_id smallint",
                "data_compression tinyint",
                "data_compression_desc nvarchar(60)",
            ])?;
            let mut rows = Vec::new();
            for t in tables() {
                let n = count_rows(session, &t);
                let mut part = |index_id: i32, storage: u64| {
                    let id = HOBT_BASE + (storage as i64) * 65_536;
                    rows.push(vec![
                        Value::BigInt(id),
                        Value::Int(t.object_id),
                        Value::Int(index_id),
                        Value::Int(1),
                        Value::BigInt(id),
                        Value::BigInt(n),
                        Value::SmallInt(0),
                        Value::TinyInt(0),
                        s("NONE"),
                    ]);
                };
                if let catalog::TableStorage::Heap(hid) = t.storage {
                    part(0, hid);
                }
                for ix in &t.indexes {
                    part(ix.index_id, ix.storage_id);
                }
            }
            (c, rows)
        }
        "dm_os_wait_stats" => {
            let c = columns(&[
                "wait_type nvarchar(60)",
                "waiting_tasks_count bigint",
                "wait_time_ms bigint",
                "max_wait_time_ms bigint",
                "signal_wait_time_ms bigint",
            ])?;
            let rows = common::waits::snapshot()
                .into_iter()
                .map(|w| {
                    vec![
                        s(w.wait_type),
                        Value::BigInt(w.waiting_tasks_count as i64),
                        Value::BigInt(w.wait_time_ms as i64),
                        Value::BigInt(w.max_wait_time_ms as i64),
                        Value::BigInt(w.signal_wait_time_ms as i64),
                    ]
                })
                .collect();
            (c, rows)
        }
        "dm_tran_locks" => {
            let c = columns(&[
                "resource_type nvarchar(60)",
                "resource_subtype nvarchar(60)",
                "resource_database_id int",
                "resource_description nvarchar(256)",
                "resource_associated_entity_id bigint",
                "resource_lock_partition int",
                "request_mode nvarchar(60)",
                "request_type nvarchar(60)",
                "request_status nvarchar(60)",
                "request_reference_count smallint",
                "request_lifetime int",
                "request_session_id int",
                "request_exec_context_id int",
                "request_request_id int",
                "request_owner_type nvarchar(60)",
                "request_owner_id bigint",
                "request_owner_lockspace_id nvarchar(32)",
            ])?;
            let rows = session
                .engine
                .locks
                .snapshot()
                .into_iter()
                .map(|l| {
                    vec![
                        s(l.resource.type_name()),
                        s(l.resource.subtype()),
                        Value::Int(l.resource.database()),
                        s(&l.resource.description()),
                        Value::BigInt(l.resource.entity_id()),
                        Value::Int(0),
                        s(l.mode.name()),
                        s("LOCK"),
                        s(l.status),
                        Value::SmallInt(1),
                        Value::Int(0),
                        Value::Int(l.spid),
                        Value::Int(0),
                        Value::Int(0),
                        s("TRANSACTION"),
                        Value::BigInt(l.owner as i64),
                        s(&format!("0x{:016X}:Def", l.owner)),
                    ]
                })
                .collect();
            (c, rows)
        }
        "all_views" => {
            let mut c = objects_columns();
            c.extend(columns(&[
                "is_replicated bit",
                "has_replication_filter bit",
                "has_opaque_metadata bit",
                "has_unchecked_assembly_data bit",
                "with_check_option bit",
                "is_date_correlation_view bit",
                "is_tracked_by_cdc bit",
            ])?);
            let rows = objs
                .iter()
                .filter_map(|o| match o {
                    SchemaObject::View(v) => {
                        let mut r = crate::sysviews::object_row(o, schema_id(&v.schema), 0);
                        let check = v
                            .text
                            .to_ascii_uppercase()
                            .trim_end_matches([';', ' ', '\n', '\r', '\t'])
                            .ends_with("WITH CHECK OPTION");
                        r.extend([
                            b(false),
                            b(false),
                            b(false),
                            b(false),
                            b(check),
                            b(false),
                            b(false),
                        ]);
                        Some(r)
                    }
                    _ => None,
                })
                .collect();
            (c, rows)
        }
        "system_objects" => {
            // the system views this engine answers, as sys.objects rows (schema sys = 4)
            let c = objects_columns();
            let rows = SYSTEM_VIEW_NAMES
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    vec![
                        s(n),
                        Value::Int(-100 - i as i32),
                        Value::Null,
                        Value::Int(4),
                        Value::Int(0),
                        Value::Char("V ".into()),
                        s("VIEW"),
                        dt("2024-01-01 00:00:00.000"),
                        dt("2024-01-01 00:00:00.000"),
                        b(true),
                        b(false),
                        b(false),
                    ]
                })
                .collect();
            (c, rows)
        }
        "database_mirroring" => {
            // no database is mirrored: one row per database, mirroring columns NULL
            let c = columns(&[
                "database_id int",
                "mirroring_guid uniqueidentifier",
                "mirroring_state tinyint",
                "mirroring_state_desc nvarchar(60)",
                "mirroring_role tinyint",
                "mirroring_role_desc nvarchar(60)",
                "mirroring_role_sequence int",
                "mirroring_safety_level tinyint",
                "mirroring_safety_level_desc nvarchar(60)",
                "mirroring_safety_sequence int",
                "mirroring_partner_name nvarchar(128)",
                "mirroring_partner_instance nvarchar(128)",
                "mirroring_witness_name nvarchar(128)",
                "mirroring_witness_state tinyint",
                "mirroring_witness_state_desc nvarchar(60)",
                "mirroring_failover_lsn numeric(25,0)",
                "mirroring_connection_timeout int",
                "mirroring_redo_queue int",
                "mirroring_redo_queue_type nvarchar(60)",
                "mirroring_end_of_log_lsn numeric(25,0)",
                "mirroring_replication_lsn numeric(25,0)",
            ])?;
            let n = c.len();
            let rows = session
                .engine()
                .databases()
                .iter()
                .map(|d| {
                    let mut r = vec![Value::Int(d.def.database_id)];
                    r.resize(n, Value::Null);
                    r
                })
                .collect();
            (c, rows)
        }
        _ => return Ok(None),
    }))
}

/// The `sys` views answered by `sysviews` and this module (sys.system_objects).
const SYSTEM_VIEW_NAMES: &[&str] = &[
    "all_columns",
    "all_objects",
    "all_sql_modules",
    "all_views",
    "availability_groups",
    "change_tracking_databases",
    "change_tracking_tables",
    "check_constraints",
    "columns",
    "computed_columns",
    "configurations",
    "data_spaces",
    "database_files",
    "database_filestream_options",
    "database_mirroring",
    "database_recovery_status",
    "databases",
    "default_constraints",
    "dm_exec_connections",
    "dm_exec_requests",
    "dm_exec_session_wait_stats",
    "dm_exec_sessions",
    "dm_io_virtual_file_stats",
    "dm_hadr_cluster",
    "dm_hadr_database_replica_states",
    "dm_os_spinlock_stats",
    "dm_os_wait_stats",
    "dm_os_waiting_tasks",
    "dm_tran_active_snapshot_database_transactions",
    "dm_tran_active_transactions",
    "dm_tran_locks",
    "dm_tran_session_transactions",
    "dm_tran_version_store_space_usage",
    "filegroups",
    "filetable_system_defined_objects",
    "filetables",
    "foreign_keys",
    "fulltext_index_columns",
    "hash_indexes",
    "index_columns",
    "indexes",
    "key_constraints",
    "master_files",
    "objects",
    "partitions",
    "plan_guides",
    "procedures",
    "registered_search_property_lists",
    "schemas",
    "sequences",
    "spatial_indexes",
    "sql_modules",
    "stats",
    "stats_columns",
    "system_objects",
    "tables",
    "triggers",
    "types",
    "views",
    "xml_schema_collections",
    // appended, not sorted in: the ids above stay what they were
    "dm_exec_cached_plans",
    "dm_exec_query_stats",
];

/// The sys.objects columns of a constraint object.
pub(crate) fn constraint_row(
    t: &catalog::TableDef,
    oid: i32,
    name: &str,
    ty: &str,
    desc: &str,
    schema_id: &dyn Fn(&str) -> i32,
) -> Vec<Value> {
    vec![
        s(name),
        Value::Int(oid),
        Value::Null,
        Value::Int(schema_id(&t.schema)),
        Value::Int(t.object_id),
        Value::Char(format!("{ty:<2}")),
        s(desc),
        dt(&t.create_date),
        dt(&t.create_date),
        b(false),
        b(false),
        b(false),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::DataType;

    #[test]
    fn every_view_parses() {
        for (n, _) in EMPTY_VIEWS {
            let v = more_sys_view(n).unwrap().unwrap();
            assert!(!v.columns.is_empty(), "{n}");
            assert!(v.rows.is_empty());
        }
        let c = more_sys_view("dm_hadr_cluster").unwrap().unwrap();
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.columns[0].data_type, DataType::NVarChar(Some(128)));
        assert!(more_sys_view("objects").unwrap().is_none());
        for n in crate::sysviews_sessions::VIEW_NAMES {
            assert!(SYSTEM_VIEW_NAMES.contains(n), "{n} missing");
        }
        for (n, _) in EMPTY_VIEWS {
            assert!(
                SYSTEM_VIEW_NAMES.contains(n),
                "{n} missing from SYSTEM_VIEW_NAMES"
            );
        }
    }
}
