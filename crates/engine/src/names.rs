//! Names a client may want to complete (the shell's tab completion): read from the catalog
//! caches without running SQL, so completing never changes `@@ROWCOUNT`, `@@ERROR` or the
//! plan cache.

use crate::session::Session;

impl Session {
    /// Database names, the current database's schemas, objects and their columns (tables),
    /// and the session's `#temp` tables and their columns. Unsorted, may hold duplicates.
    pub fn completion_names(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .engine
            .databases()
            .iter()
            .map(|h| h.def.name.clone())
            .collect();
        if let Ok(h) = self.current_db() {
            let cat = h.cat.read();
            for o in cat.objects_sorted() {
                out.push(o.name().to_string());
            }
            for t in cat.tables() {
                out.push(t.schema.clone());
                out.extend(t.columns.iter().map(|c| c.name.clone()));
            }
        }
        if let Some(tempdb) = self.engine.database("tempdb") {
            let cat = tempdb.cat.read();
            let ids: std::collections::HashSet<_> = self.temp_tables.values().collect();
            for t in cat.tables().filter(|t| ids.contains(&t.object_id)) {
                out.push(t.name.clone());
                out.extend(t.columns.iter().map(|c| c.name.clone()));
            }
        }
        out
    }
}
