//! SQL Server's size limits on table definitions (Msg 1701, Msg 1702).

use catalog::ColumnDef;
use common::{SqlError, SqlResult};

/// Columns per (non-wide) table.
pub(crate) const MAX_COLUMNS: usize = 1024;

/// Largest row a data page holds.
pub(crate) const MAX_ROW_BYTES: usize = 8060;

/// Checks a new table's columns against SQL Server's limits: at most 1,024 columns (Msg 1702,
/// naming the first column past the limit) and a minimum row size (fixed-width columns plus
/// the row header, column count and NULL bitmap) of at most 8,060 bytes (Msg 1701).
pub(crate) fn check_table_shape(table: &str, columns: &[ColumnDef]) -> SqlResult<()> {
    if let Some(extra) = columns.get(MAX_COLUMNS) {
        return Err(SqlError::new(1702, &[&extra.name, &table, &MAX_COLUMNS]));
    }
    let stored: Vec<&ColumnDef> = columns
        .iter()
        .filter(|c| c.computed.is_none() || c.persisted)
        .collect();
    let mut bits = 0usize;
    let mut fixed = 0usize;
    for c in &stored {
        match c.data_type {
            types::DataType::Bit => bits += 1,
            ref t => fixed += types::codec::fixed_width(t).map_or(0, usize::from),
        }
    }
    fixed += bits.div_ceil(8);
    // status bytes and fixed-length offset (4), column count (2), NULL bitmap
    let overhead = 4 + 2 + stored.len().div_ceil(8);
    let total = fixed + overhead;
    if total > MAX_ROW_BYTES {
        return Err(SqlError::new(
            1701,
            &[&table, &total, &overhead, &MAX_ROW_BYTES],
        ));
    }
    Ok(())
}
