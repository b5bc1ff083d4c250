//! `sys.key_constraints`: the PRIMARY KEY and UNIQUE constraints (sys.objects columns plus
//! `unique_index_id`, `is_system_named`, `is_enforced`), with the object ids sys.objects
//! gives them.

use catalog::{ColumnDef, SchemaObject};
use common::SqlResult;
use types::{DataType, Value};

use crate::sysviews::{b, constraint_objects, objects_columns};
use crate::sysviews_more::constraint_row;

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

pub(crate) fn key_constraints(
    objs: &[&SchemaObject],
    schema_id: &dyn Fn(&str) -> i32,
) -> SqlResult<Rows> {
    let mut columns = objects_columns();
    columns.push(ColumnDef::new("unique_index_id", DataType::Int, true));
    columns.push(ColumnDef::new("is_system_named", DataType::Bit, false));
    columns.push(ColumnDef::new("is_enforced", DataType::Bit, true));
    let mut rows = Vec::new();
    for o in objs {
        let SchemaObject::Table(t) = o else {
            continue;
        };
        for (oid, name, ty, desc) in constraint_objects(t) {
            if ty != "PK" && ty != "UQ" {
                continue;
            }
            let Some(ix) = t.indexes.iter().find(|ix| {
                (ix.primary_key || ix.unique_constraint) && catalog::name_eq(&ix.name, &name)
            }) else {
                continue;
            };
            let mut r = constraint_row(t, oid, &name, ty, desc, schema_id);
            r.push(Value::Int(ix.index_id));
            r.push(b(name.starts_with("PK__") || name.starts_with("UQ__")));
            r.push(b(true));
            rows.push(r);
        }
    }
    Ok((columns, rows))
}
