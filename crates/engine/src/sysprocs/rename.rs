//! `sp_rename @objname, @newname [, @objtype]`: tables, views, modules, sequences,
//! constraints (OBJECT), columns (`'t.c'`, COLUMN) and indexes (`'t.ix'`, INDEX), in the
//! statement's transaction (a rollback undoes it like any DDL).
//!
//! As in SQL Server, module texts keep the old names (the caution message says so); what the
//! engine resolves by name is kept consistent: foreign keys naming a renamed table or
//! referenced column, triggers naming their table, and CHECK / DEFAULT / computed-column
//! expressions naming a renamed column.

use std::sync::Arc;

use catalog::{name_eq, QualifiedName, SchemaObject, TableDef};
use common::{SqlError, SqlResult};

use super::{info, Args};
use crate::events::EventSink;
use crate::server::DbHandle;
use crate::session::Session;

const CAUTION: &str =
    "Caution: Changing any part of an object name could break scripts and stored procedures.";

fn ambiguous(kind: &str) -> SqlError {
    SqlError::new(15248, &[&kind])
}

fn duplicate(new: &str, kind: &str) -> SqlError {
    SqlError::new(15335, &[&new, &kind])
}

impl Session {
    pub(super) fn sp_rename(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let objname = args.required("@objname")?;
        let newname = args.required("@newname")?;
        let objtype = args.text("@objtype").map(|t| t.trim().to_ascii_uppercase());
        let kind_text = objtype.clone().unwrap_or_else(|| "(null)".into());
        let q = crate::ddl::qualified_from_text(&objname);
        let here = self.database().to_string();
        // `a.b.c` is schema.table.column for a column or index, database.schema.object else
        let other_db = q.database.as_ref().is_some_and(|d| !name_eq(d, &here));
        if other_db && objtype.as_deref() == Some("OBJECT") {
            return Err(SqlError::new(15333, &[]));
        }
        match objtype.as_deref() {
            None | Some("OBJECT") => {
                if !other_db && self.rename_object(&q, &newname)? {
                    info(sink, 15477, CAUTION.into());
                    return Ok(0);
                }
                if objtype.is_none() {
                    // `t.c` / `s.t.c` / `t.ix`: a column, then an index
                    if let Some(parent) = parent_of(&q) {
                        if self.rename_column(&parent, &q.name, &newname)? {
                            info(sink, 15477, CAUTION.into());
                            return Ok(0);
                        }
                        if self.rename_index(&parent, &q.name, &newname)? {
                            info(sink, 15477, CAUTION.into());
                            return Ok(0);
                        }
                    }
                }
                Err(SqlError::new(15225, &[&objname, &here, &kind_text]))
            }
            Some("COLUMN") => {
                let parent = parent_of(&q).ok_or_else(|| ambiguous("COLUMN"))?;
                if !self.rename_column(&parent, &q.name, &newname)? {
                    return Err(ambiguous("COLUMN"));
                }
                info(sink, 15477, CAUTION.into());
                Ok(0)
            }
            Some("INDEX") => {
                let parent = parent_of(&q).ok_or_else(|| ambiguous("INDEX"))?;
                if !self.rename_index(&parent, &q.name, &newname)? {
                    return Err(ambiguous("INDEX"));
                }
                info(sink, 15477, CAUTION.into());
                Ok(0)
            }
            Some(t @ ("DATABASE" | "USERDATATYPE" | "STATISTICS")) => {
                Err(SqlError::unsupported(format!("sp_rename @objtype = '{t}'")))
            }
            Some(t) => Err(SqlError::new(15249, &[&t])),
        }
    }

    /// Saves changed table definitions in the current statement's transaction.
    fn put_objects(&mut self, h: &Arc<DbHandle>, objs: Vec<SchemaObject>) -> SqlResult<()> {
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        for o in objs {
            let txn = self.txn_for(&db)?;
            h.cat.write().put(&tree, txn, o)?;
        }
        self.touch_catalog(&db)?;
        Ok(())
    }

    /// Renames a schema-scoped object or a constraint; false when `q` names neither.
    fn rename_object(&mut self, q: &QualifiedName, new: &str) -> SqlResult<bool> {
        let found = if q.is_temp() {
            None
        } else {
            self.find_object(q)?
        };
        let Some((h, obj)) = found else {
            return self.rename_constraint(q, new);
        };
        let schema = obj.schema().to_string();
        if let Some(other) = h.cat.read().lookup(&schema, new) {
            if other.object_id() != obj.object_id() {
                return Err(duplicate(new, "OBJECT"));
            }
        }
        let renamed = match &obj {
            SchemaObject::Table(t) => SchemaObject::Table(Arc::new(TableDef {
                name: new.to_string(),
                ..(**t).clone()
            })),
            SchemaObject::View(v) => {
                let mut v = (**v).clone();
                v.name = new.to_string();
                SchemaObject::View(Arc::new(v))
            }
            SchemaObject::Module(m) => {
                let mut m = (**m).clone();
                m.name = new.to_string();
                SchemaObject::Module(Arc::new(m))
            }
            SchemaObject::Sequence(s) => {
                let mut s = (**s).clone();
                s.name = new.to_string();
                SchemaObject::Sequence(Arc::new(s))
            }
        };
        let mut changed = vec![renamed];
        if let SchemaObject::Table(t) = &obj {
            // foreign keys and triggers that name the table
            let cat = h.cat.read();
            for o in cat.objects.values() {
                match o {
                    SchemaObject::Table(other)
                        if other.object_id != t.object_id
                            && other
                                .foreign_keys
                                .iter()
                                .any(|f| f.ref_object_id == t.object_id) =>
                    {
                        let mut o2 = (**other).clone();
                        for f in &mut o2.foreign_keys {
                            if f.ref_object_id == t.object_id {
                                f.ref_table = new.to_string();
                            }
                        }
                        changed.push(SchemaObject::Table(Arc::new(o2)));
                    }
                    SchemaObject::Module(m) => {
                        if let Some(tr) = m
                            .trigger
                            .as_ref()
                            .filter(|tr| tr.table_object_id == t.object_id)
                        {
                            let mut m2 = (**m).clone();
                            let mut tr2 = tr.clone();
                            tr2.table_name = new.to_string();
                            m2.trigger = Some(tr2);
                            changed.push(SchemaObject::Module(Arc::new(m2)));
                        }
                    }
                    _ => {}
                }
            }
            // a self-reference is in the renamed table itself
            if let Some(SchemaObject::Table(nt)) = changed.first_mut() {
                let mut t2 = (**nt).clone();
                for f in &mut t2.foreign_keys {
                    if f.ref_object_id == t.object_id {
                        f.ref_table = new.to_string();
                    }
                }
                *nt = Arc::new(t2);
            }
        }
        self.put_objects(&h, changed)?;
        Ok(true)
    }

    /// Renames a PRIMARY KEY / UNIQUE (and its index), CHECK, FOREIGN KEY or DEFAULT
    /// constraint of the current database; false when there is none by that name.
    fn rename_constraint(&mut self, q: &QualifiedName, new: &str) -> SqlResult<bool> {
        let h = self.current_db()?;
        let schema = q.schema.clone().unwrap_or_else(|| "dbo".into());
        let tables: Vec<Arc<TableDef>> = h
            .cat
            .read()
            .tables()
            .filter(|t| !t.is_temp && name_eq(&t.schema, &schema))
            .cloned()
            .collect();
        let taken = |t: &TableDef| {
            crate::sysviews::constraint_objects(t)
                .iter()
                .any(|(_, n, _, _)| name_eq(n, new))
        };
        for t in &tables {
            let old = &q.name;
            let mut t2 = (**t).clone();
            let mut hit = false;
            for ix in &mut t2.indexes {
                if (ix.primary_key || ix.unique_constraint) && name_eq(&ix.name, old) {
                    ix.name = new.to_string();
                    hit = true;
                }
            }
            for c in &mut t2.checks {
                if name_eq(&c.name, old) {
                    c.name = new.to_string();
                    hit = true;
                }
            }
            for f in &mut t2.foreign_keys {
                if name_eq(&f.name, old) {
                    f.name = new.to_string();
                    hit = true;
                }
            }
            for c in &mut t2.columns {
                if c.default.is_some() && c.default_name.as_deref().is_some_and(|n| name_eq(n, old))
                {
                    c.default_name = Some(new.to_string());
                    hit = true;
                }
            }
            if hit {
                if tables.iter().any(|o| taken(o)) || h.cat.read().lookup(&schema, new).is_some() {
                    return Err(duplicate(new, "OBJECT"));
                }
                self.put_objects(&h, vec![SchemaObject::Table(Arc::new(t2))])?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Renames column `old` of table `parent`; false when there is no such table or column.
    fn rename_column(&mut self, parent: &QualifiedName, old: &str, new: &str) -> SqlResult<bool> {
        let Some((h, SchemaObject::Table(t))) = self.find_object(parent)? else {
            return Ok(false);
        };
        let Some(i) = t.column_index(old) else {
            return Ok(false);
        };
        if t.column_index(new).is_some_and(|j| j != i) {
            return Err(duplicate(new, "COLUMN"));
        }
        let old_name = t.columns[i].name.clone();
        let mut t2 = (*t).clone();
        t2.columns[i].name = new.to_string();
        // expressions stored as text that name the column
        for c in &mut t2.columns {
            if let Some(d) = &c.default {
                c.default = Some(parser::replace_identifier(d, &old_name, new)?);
            }
            if let Some(e) = &c.computed {
                c.computed = Some(parser::replace_identifier(e, &old_name, new)?);
            }
        }
        for ck in &mut t2.checks {
            ck.text = parser::replace_identifier(&ck.text, &old_name, new)?;
        }
        for ix in &mut t2.indexes {
            if let Some(f) = &ix.filter {
                ix.filter = Some(parser::replace_identifier(f, &old_name, new)?);
            }
        }
        // foreign keys that reference the column (this table's own included)
        let fix_refs = |o: &mut TableDef| {
            let mut hit = false;
            for f in &mut o.foreign_keys {
                if f.ref_object_id == t.object_id {
                    for rc in &mut f.ref_columns {
                        if name_eq(rc, &old_name) {
                            *rc = new.to_string();
                            hit = true;
                        }
                    }
                }
            }
            hit
        };
        fix_refs(&mut t2);
        let mut changed = vec![SchemaObject::Table(Arc::new(t2))];
        for o in h.cat.read().tables() {
            if o.object_id != t.object_id {
                let mut o2 = (**o).clone();
                if fix_refs(&mut o2) {
                    changed.push(SchemaObject::Table(Arc::new(o2)));
                }
            }
        }
        self.put_objects(&h, changed)?;
        Ok(true)
    }

    /// Renames index `old` of table `parent` (a PRIMARY KEY / UNIQUE constraint follows its
    /// index); false when there is no such table or index.
    fn rename_index(&mut self, parent: &QualifiedName, old: &str, new: &str) -> SqlResult<bool> {
        let Some((h, SchemaObject::Table(t))) = self.find_object(parent)? else {
            return Ok(false);
        };
        let Some(i) = t.indexes.iter().position(|ix| name_eq(&ix.name, old)) else {
            return Ok(false);
        };
        if t.indexes
            .iter()
            .enumerate()
            .any(|(j, ix)| j != i && name_eq(&ix.name, new))
        {
            return Err(duplicate(new, "INDEX"));
        }
        let mut t2 = (*t).clone();
        t2.indexes[i].name = new.to_string();
        self.put_objects(&h, vec![SchemaObject::Table(Arc::new(t2))])?;
        Ok(true)
    }
}

/// `s.t.c` → `s.t` (the table part of a column or index name).
fn parent_of(q: &QualifiedName) -> Option<QualifiedName> {
    let table = q.schema.clone()?;
    // `s.t.c` parses as database=s, schema=t, name=c
    Some(QualifiedName {
        database: None,
        schema: q.database.clone(),
        name: table,
    })
}
