//! CREATE TYPE / DROP TYPE: alias types (`CREATE TYPE s.t FROM varchar(10) NOT NULL`) and table
//! types (`CREATE TYPE s.t AS TABLE (...)`), kept in the database catalog as [`TypeDef`]s.
//!
//! Alias types are resolved where a data type is named (columns, variables, parameters) by
//! `Session::resolve_type_name`; this module only creates and drops them.

use catalog::{name_eq, QualifiedName, SchemaObject, TypeDef};
use common::{SqlError, SqlResult};
use parser::ast;
use types::DataType;

use crate::ddl::qualified;
use crate::session::Session;

impl Session {
    /// `CREATE TYPE name FROM base [NULL | NOT NULL]` / `CREATE TYPE name AS TABLE (...)`.
    pub(crate) fn create_type(&mut self, ct: &ast::CreateType) -> SqlResult<()> {
        let q = qualified(&ct.name);
        let (h, schema) = self.target_of(&q)?;
        if self.user_type_committed(&h, &schema, &q.name)?.is_some() || is_system_type(&q.name) {
            return Err(SqlError::new(219, &[&q.name]));
        }
        let base = match &ct.base {
            Some(b) => {
                let params: Vec<types::TypeParam> = b
                    .params
                    .iter()
                    .map(|p| match p {
                        ast::TypeParam::Number(n) => types::TypeParam::Num(*n as i64),
                        ast::TypeParam::Max => types::TypeParam::Max,
                    })
                    .collect();
                // the base of an alias type must be a system type
                Some(DataType::from_name(&b.name, &params)?)
            }
            None => None,
        };
        let mut table_columns = Vec::new();
        if let Some(def) = &ct.table {
            for c in &def.columns {
                table_columns.push(self.column_def(c, &q.name)?);
            }
        }
        let def = TypeDef {
            user_type_id: 0,
            schema,
            name: q.name.clone(),
            base,
            nullable: ct.nullable.unwrap_or(true),
            table_columns,
        };
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat.write().put_type(&tree, txn, def)?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    /// `DROP TYPE [IF EXISTS] name`: Msg 218 when missing, 3732 while a table column uses it.
    pub(crate) fn drop_type(&mut self, if_exists: bool, n: &ast::ObjectName) -> SqlResult<()> {
        let q: QualifiedName = qualified(n);
        let (db, schema) = self.resolve_parts(&q);
        let h = self.db(&db)?;
        let Some(t) = h.cat.read().user_type(&schema, &q.name) else {
            if if_exists {
                return Ok(());
            }
            return Err(SqlError::new(218, &[&q.name]));
        };
        let user = h.cat.read().objects.values().find_map(|o| match o {
            SchemaObject::Table(tb)
                if tb
                    .columns
                    .iter()
                    .any(|c| c.user_type.as_deref().is_some_and(|u| name_eq(u, &t.name))) =>
            {
                Some(tb.name.clone())
            }
            _ => None,
        });
        if let Some(user) = user {
            return Err(SqlError::new(3732, &[&t.name, &user]));
        }
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat.write().remove_type(&tree, txn, t.user_type_id)?;
        self.touch_catalog(&db)?;
        Ok(())
    }
}

fn is_system_type(name: &str) -> bool {
    DataType::from_name(name, &[]).is_ok()
}
