//! Table row and index entry encodings (format documented in exec/README.md).
//!
//! * Table row: a `storage::record` (FixedVar) whose column i holds
//!   `types::codec::encode_value(value_i, column_type_i)`; NULL = record NULL bit.
//! * Heap table: rows in a `storage::Heap`; the row locator is the 8-byte RID.
//! * Clustered table: rows are the values of a B-tree keyed by
//!   `types::key` encoding of the clustering key columns (+ 4-byte big-endian uniquifier when
//!   the index is not unique); the locator is the B-tree key.
//! * Nonclustered index: B-tree key = `types::key` encoding of the index key columns, followed
//!   (non-unique indexes only) by the locator bytes so every entry is unique; value =
//!   `u16 LE locator length | locator | record of the INCLUDE columns`.

use catalog::{IndexDef, TableDef, TableStorage};
use common::{SqlError, SqlResult};
use storage::record::{ColumnLayout, RecordBuilder, RecordSchema, RecordView};
use types::{Collation, DataType, Value};

use plan::catalog;

/// Encoder/decoder for rows of one column list.
#[derive(Debug)]
pub struct RowFormat {
    schema: RecordSchema,
    types: Vec<DataType>,
    builder: RecordBuilder,
    scratch: Vec<u8>,
}

impl RowFormat {
    pub fn new(types: Vec<DataType>) -> Self {
        let layouts = types
            .iter()
            .map(|t| match types::codec::fixed_width(t) {
                Some(w) => ColumnLayout::Fixed(w),
                None => ColumnLayout::Variable,
            })
            .collect();
        RowFormat {
            schema: RecordSchema::new(layouts),
            types,
            builder: RecordBuilder::new(),
            scratch: Vec::new(),
        }
    }

    /// The format of a table's rows.
    pub fn for_table(t: &TableDef) -> Self {
        Self::new(t.columns.iter().map(|c| c.data_type.clone()).collect())
    }

    pub fn types(&self) -> &[DataType] {
        &self.types
    }

    /// Encodes `row` (one value per column, already of the column types).
    pub fn encode(&mut self, row: &[Value]) -> SqlResult<&[u8]> {
        self.builder.reset();
        for (i, t) in self.types.iter().enumerate() {
            let v = row.get(i).unwrap_or(&Value::Null);
            if v.is_null() {
                self.builder.push(None);
            } else {
                self.scratch.clear();
                types::codec::encode_value(v, t, &mut self.scratch)?;
                self.builder.push(Some(&self.scratch));
            }
        }
        Ok(self.builder.finish(&self.schema))
    }

    /// Decodes only the columns flagged in `needed` (others become NULL).
    pub fn decode_needed(
        &self,
        rec: &[u8],
        needed: Option<&[bool]>,
        out: &mut Vec<Value>,
    ) -> SqlResult<()> {
        let Some(needed) = needed else {
            return self.decode_into(rec, out);
        };
        if !needed.iter().any(|b| *b) {
            // nothing read above (COUNT(*)): no need to parse the record
            out.extend(std::iter::repeat_n(Value::Null, self.types.len()));
            return Ok(());
        }
        let view = RecordView::new(&self.schema, rec)?;
        for (i, t) in self.types.iter().enumerate() {
            if !needed.get(i).copied().unwrap_or(true) {
                out.push(Value::Null);
                continue;
            }
            match view.get(i)? {
                None => out.push(Value::Null),
                Some(b) => out.push(types::codec::decode_value(b, t)?),
            }
        }
        Ok(())
    }

    /// Decodes the columns listed in `cols` into the same positions of `out` (which holds at
    /// least one slot per column); other slots are left as they are. An empty list reads
    /// nothing, not even the record header (COUNT(*)).
    pub fn decode_cols(&self, rec: &[u8], cols: &[usize], out: &mut [Value]) -> SqlResult<()> {
        if cols.is_empty() {
            return Ok(());
        }
        self.decode_cols_from(&self.view(rec)?, cols, out)
    }

    /// A parsed view of `rec` (header, null bitmap, offsets checked once), for callers that
    /// read one record in several steps (`decode_cols_from`, `is_null_in`).
    pub fn view<'a>(&'a self, rec: &'a [u8]) -> SqlResult<RecordView<'a>> {
        RecordView::new(&self.schema, rec)
    }

    /// Whether column `col` of the record is NULL, from the record's null bitmap and offsets
    /// (the value is not decoded). Same answer as decoding and testing for `Value::Null`.
    pub fn is_null_in(view: &RecordView<'_>, col: usize) -> SqlResult<bool> {
        Ok(view.get(col)?.is_none())
    }

    /// `decode_cols` over an already parsed view of the record.
    pub fn decode_cols_from(
        &self,
        view: &RecordView<'_>,
        cols: &[usize],
        out: &mut [Value],
    ) -> SqlResult<()> {
        for &i in cols {
            let (Some(t), Some(slot)) = (self.types.get(i), out.get_mut(i)) else {
                return Err(SqlError::internal("decoded column out of range"));
            };
            match view.get(i)? {
                None => *slot = Value::Null,
                Some(b) => decode_into_slot(b, t, slot)?,
            }
        }
        Ok(())
    }

    /// The columnar entry point: appends column `col` of the record to `out`, a vector of
    /// the column's type, decoded straight from the record's bytes (NULL from the record's
    /// null bitmap) — the batch scan's decoder, same values as `decode_cols_from`.
    pub(crate) fn decode_col_into(
        view: &RecordView<'_>,
        col: usize,
        out: &mut crate::batch::vector::ColumnBuilder,
    ) -> SqlResult<()> {
        out.push_stored(view.get(col)?)
    }

    /// Decodes a record, appending one value per column to `out`.
    pub fn decode_into(&self, rec: &[u8], out: &mut Vec<Value>) -> SqlResult<()> {
        let view = RecordView::new(&self.schema, rec)?;
        for (i, t) in self.types.iter().enumerate() {
            match view.get(i)? {
                None => out.push(Value::Null),
                Some(b) => out.push(types::codec::decode_value(b, t)?),
            }
        }
        Ok(())
    }
}

/// `types::codec::decode_value` into `slot`, with the common integer types decoded inline and
/// written in place when the slot already holds that variant (the hot path of scans: no
/// temporary `SqlResult<Value>`, no drop). Anything else, including a wrong length, goes
/// through the general decoder.
#[inline]
fn decode_into_slot(b: &[u8], t: &DataType, slot: &mut Value) -> SqlResult<()> {
    match (t, b.len()) {
        (DataType::Int, 4) => {
            let n = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            match slot {
                Value::Int(x) => *x = n,
                _ => *slot = Value::Int(n),
            }
        }
        (DataType::BigInt, 8) => {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            let n = i64::from_le_bytes(a);
            match slot {
                Value::BigInt(x) => *x = n,
                _ => *slot = Value::BigInt(n),
            }
        }
        (DataType::SmallInt, 2) => *slot = Value::SmallInt(i16::from_le_bytes([b[0], b[1]])),
        _ => *slot = types::codec::decode_value(b, t)?,
    }
    Ok(())
}

/// Appends the key encoding of `cols` of `row` (ascending/descending per index definition).
pub fn encode_index_key(
    table: &TableDef,
    index: &IndexDef,
    row: &[Value],
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    for &(c, desc) in &index.key_columns {
        let col = table
            .columns
            .get(c)
            .ok_or_else(|| SqlError::internal("index column out of range"))?;
        encode_key_value(
            row.get(c).unwrap_or(&Value::Null),
            &col.data_type,
            desc,
            out,
        )?;
    }
    Ok(())
}

/// Appends one key column segment.
pub fn encode_key_value(v: &Value, t: &DataType, desc: bool, out: &mut Vec<u8>) -> SqlResult<()> {
    let start = out.len();
    types::key::encode_column(v, t, Collation::DEFAULT, out)?;
    if desc {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

/// The clustered index of a table (None for a heap).
pub fn clustered(table: &TableDef) -> Option<&IndexDef> {
    match table.storage {
        TableStorage::Clustered { index } => table.indexes.get(index),
        TableStorage::Heap(_) => None,
    }
}

/// `(1, abc)` — the key value text of duplicate key errors.
pub fn key_value_text(table: &TableDef, index: &IndexDef, row: &[Value]) -> String {
    let parts: Vec<String> = index
        .key_columns
        .iter()
        .map(|&(c, _)| match row.get(c) {
            None | Some(Value::Null) => "<NULL>".to_string(),
            Some(v) => {
                let t = &table.columns[c].data_type;
                v.to_sql_text_as(t).trim_end_matches(' ').to_string()
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// Nonclustered index entry value: `u16 LE locator length | locator | included record`.
pub fn nc_value(
    locator: &[u8],
    included: Option<(&mut RowFormat, &[Value])>,
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    out.clear();
    out.extend_from_slice(&(locator.len() as u16).to_le_bytes());
    out.extend_from_slice(locator);
    if let Some((fmt, vals)) = included {
        out.extend_from_slice(fmt.encode(vals)?);
    }
    Ok(())
}

/// Locator stored in a nonclustered index entry value.
pub fn nc_locator(value: &[u8]) -> SqlResult<&[u8]> {
    if value.len() < 2 {
        return Err(SqlError::corrupt_page("short index entry", "?", "?"));
    }
    let n = u16::from_le_bytes([value[0], value[1]]) as usize;
    value
        .get(2..2 + n)
        .ok_or_else(|| SqlError::corrupt_page("index entry locator out of range", "?", "?"))
}
