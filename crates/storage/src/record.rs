//! Record (row) format: SQL Server's FixedVar layout, SQL-agnostic.
//!
//! | OFFSET | SIZE | FIELD | NOTES |
//! |---|---|---|---|
//! | 0 | 1 | status A | 0x10 = has NULL bitmap (always set), 0x20 = has variable part |
//! | 1 | 1 | status B | 0x01 = wide (u32) variable offsets (record > 64 KB) |
//! | 2 | 2 | fsize | offset of the column count = 4 + total fixed bytes |
//! | 4 | F | fixed data | fixed-width columns in schema order (NULL ones zero-filled) |
//! | fsize | 2 | ncol | number of columns stored (older records may have fewer: missing = NULL) |
//! | fsize+2 | ceil(ncol/8) | NULL bitmap | bit i set = column i is NULL |
//! | .. | 2 | nvar | number of variable-length columns stored |
//! | .. | 2*nvar (4*nvar wide) | var offsets | END offset of each variable column from record start |
//! | .. | .. | var data | variable columns back to back |
//!
//! Invariants: (1) var offsets are non-decreasing and <= record length; (2) `fsize` >= 4 and the
//! fixed part matches the schema's fixed widths; (3) a view never panics on malformed bytes: every
//! access is bounds-checked and returns `SqlError` (Msg 824-style corruption).

use common::{SqlError, SqlResult};

/// How a column is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnLayout {
    /// Fixed width in bytes.
    Fixed(u16),
    /// Variable length.
    Variable,
}

/// Column layouts in schema order, with precomputed positions.
#[derive(Clone, Debug)]
pub struct RecordSchema {
    cols: Vec<ColumnLayout>,
    /// For fixed columns: byte offset within the fixed part; for variable: index among var cols.
    pos: Vec<u32>,
    /// `fixed_end[n]`: bytes of the fixed part the first `n` columns need (what a record
    /// storing `n` columns must cover; computed once, not per record read).
    fixed_end: Vec<u32>,
    fixed_len: u32,
    nvar: u32,
}

impl RecordSchema {
    pub fn new(cols: Vec<ColumnLayout>) -> Self {
        let mut pos = Vec::with_capacity(cols.len());
        let mut fixed_len = 0u32;
        let mut nvar = 0u32;
        let mut fixed_end = Vec::with_capacity(cols.len() + 1);
        fixed_end.push(0);
        for c in &cols {
            match c {
                ColumnLayout::Fixed(w) => {
                    pos.push(fixed_len);
                    fixed_len += *w as u32;
                }
                ColumnLayout::Variable => {
                    pos.push(nvar);
                    nvar += 1;
                }
            }
            fixed_end.push(fixed_len);
        }
        RecordSchema {
            cols,
            pos,
            fixed_end,
            fixed_len,
            nvar,
        }
    }
    pub fn len(&self) -> usize {
        self.cols.len()
    }
    pub fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }
    pub fn columns(&self) -> &[ColumnLayout] {
        &self.cols
    }
}

/// Reusable record builder: `reset()`, `push()` each column in schema order, `finish()`.
#[derive(Default, Debug)]
pub struct RecordBuilder {
    staged: Vec<u8>,
    vals: Vec<Option<(u32, u32)>>,
    out: Vec<u8>,
}

impl RecordBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn reset(&mut self) {
        self.staged.clear();
        self.vals.clear();
        self.out.clear();
    }
    /// Adds the next column's value (`None` = NULL).
    pub fn push(&mut self, v: Option<&[u8]>) {
        match v {
            Some(b) => {
                let s = self.staged.len() as u32;
                self.staged.extend_from_slice(b);
                self.vals.push(Some((s, self.staged.len() as u32)));
            }
            None => self.vals.push(None),
        }
    }
    /// Builds the record. Columns not pushed are NULL; fixed values of the wrong width are
    /// zero-padded / truncated (a programmer error, flagged by `debug_assert`).
    pub fn finish(&mut self, schema: &RecordSchema) -> &[u8] {
        let ncol = schema.cols.len();
        let out = &mut self.out;
        out.clear();
        let fsize = 4 + schema.fixed_len;
        // compute var data size to decide wide offsets
        let mut var_bytes = 0usize;
        for (i, c) in schema.cols.iter().enumerate() {
            if let (ColumnLayout::Variable, Some(Some((s, e)))) = (c, self.vals.get(i)) {
                var_bytes += (e - s) as usize;
            }
        }
        let bitmap = ncol.div_ceil(8);
        let base = fsize as usize + 2 + bitmap + 2;
        let wide = base + schema.nvar as usize * 2 + var_bytes > u16::MAX as usize;
        let offw = if wide { 4 } else { 2 };
        out.push(0x10 | if schema.nvar > 0 { 0x20 } else { 0 });
        out.push(if wide { 1 } else { 0 });
        out.extend_from_slice(&(fsize as u16).to_le_bytes());
        out.resize(fsize as usize, 0);
        let mut nullmap = vec![0u8; bitmap];
        for (i, c) in schema.cols.iter().enumerate() {
            let v = self.vals.get(i).copied().flatten();
            match (c, v) {
                (ColumnLayout::Fixed(w), Some((s, e))) => {
                    debug_assert_eq!((e - s) as u16, *w, "fixed column {i} width mismatch");
                    let n = ((e - s) as usize).min(*w as usize);
                    let at = 4 + schema.pos[i] as usize;
                    out[at..at + n].copy_from_slice(&self.staged[s as usize..s as usize + n]);
                }
                (_, None) => nullmap[i / 8] |= 1 << (i % 8),
                _ => {}
            }
        }
        out.extend_from_slice(&(ncol as u16).to_le_bytes());
        out.extend_from_slice(&nullmap);
        out.extend_from_slice(&(schema.nvar as u16).to_le_bytes());
        let offs_at = out.len();
        out.resize(offs_at + schema.nvar as usize * offw, 0);
        let mut k = 0usize;
        for (i, c) in schema.cols.iter().enumerate() {
            if let ColumnLayout::Variable = c {
                if let Some(Some((s, e))) = self.vals.get(i) {
                    out.extend_from_slice(&self.staged[*s as usize..*e as usize]);
                }
                let end = out.len();
                let at = offs_at + k * offw;
                if wide {
                    out[at..at + 4].copy_from_slice(&(end as u32).to_le_bytes());
                } else {
                    out[at..at + 2].copy_from_slice(&(end as u16).to_le_bytes());
                }
                k += 1;
            }
        }
        &self.out
    }
}

/// Read access to one record's columns (bounds-checked).
#[derive(Clone, Copy, Debug)]
pub struct RecordView<'a> {
    schema: &'a RecordSchema,
    bytes: &'a [u8],
    ncol: usize,
    bitmap_at: usize,
    nvar: usize,
    offs_at: usize,
    wide: bool,
}

fn bad(what: &str) -> SqlError {
    SqlError::corrupt_page(&format!("malformed record ({what})"), "(0:0)", "record")
}

impl<'a> RecordView<'a> {
    #[inline]
    pub fn new(schema: &'a RecordSchema, bytes: &'a [u8]) -> SqlResult<Self> {
        if bytes.len() < 4 {
            return Err(bad("too short"));
        }
        let wide = bytes[1] & 1 != 0;
        let fsize = u16::from_le_bytes([bytes[2], bytes[3]]) as usize;
        if fsize < 4 || fsize + 2 > bytes.len() {
            return Err(bad("fixed size"));
        }
        let ncol = u16::from_le_bytes([bytes[fsize], bytes[fsize + 1]]) as usize;
        let bitmap_at = fsize + 2;
        let nvar_at = bitmap_at + ncol.div_ceil(8);
        if nvar_at + 2 > bytes.len() {
            return Err(bad("null bitmap"));
        }
        let nvar = u16::from_le_bytes([bytes[nvar_at], bytes[nvar_at + 1]]) as usize;
        let offs_at = nvar_at + 2;
        let offw = if wide { 4 } else { 2 };
        if offs_at + nvar * offw > bytes.len() {
            return Err(bad("offset array"));
        }
        // fixed part must cover the schema's fixed columns that are stored
        let need_fixed = schema.fixed_end[ncol.min(schema.cols.len())] as usize;
        if 4 + need_fixed > fsize {
            return Err(bad("fixed part shorter than schema"));
        }
        Ok(RecordView {
            schema,
            bytes,
            ncol,
            bitmap_at,
            nvar,
            offs_at,
            wide,
        })
    }

    /// True if column `col` is NULL (or not stored in this record).
    #[inline]
    pub fn is_null(&self, col: usize) -> bool {
        if col >= self.ncol {
            return true;
        }
        self.bytes[self.bitmap_at + col / 8] & (1 << (col % 8)) != 0
    }

    #[inline]
    fn var_end(&self, k: usize) -> usize {
        if self.wide {
            let at = self.offs_at + 4 * k;
            u32::from_le_bytes([
                self.bytes[at],
                self.bytes[at + 1],
                self.bytes[at + 2],
                self.bytes[at + 3],
            ]) as usize
        } else {
            let at = self.offs_at + 2 * k;
            u16::from_le_bytes([self.bytes[at], self.bytes[at + 1]]) as usize
        }
    }

    /// Column value; `None` = NULL.
    #[inline]
    pub fn get(&self, col: usize) -> SqlResult<Option<&'a [u8]>> {
        let Some(layout) = self.schema.cols.get(col) else {
            return Err(bad("column index out of range"));
        };
        if self.is_null(col) {
            return Ok(None);
        }
        match *layout {
            ColumnLayout::Fixed(w) => {
                let at = 4 + self.schema.pos[col] as usize;
                Ok(Some(&self.bytes[at..at + w as usize]))
            }
            ColumnLayout::Variable => {
                let k = self.schema.pos[col] as usize;
                if k >= self.nvar {
                    return Ok(None);
                }
                let data_start = self.offs_at + self.nvar * if self.wide { 4 } else { 2 };
                let start = if k == 0 {
                    data_start
                } else {
                    self.var_end(k - 1)
                };
                let end = self.var_end(k);
                if start > end || end > self.bytes.len() || start < data_start {
                    return Err(bad("variable offset"));
                }
                Ok(Some(&self.bytes[start..end]))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_with_nulls() {
        let s = RecordSchema::new(vec![
            ColumnLayout::Fixed(4),
            ColumnLayout::Variable,
            ColumnLayout::Fixed(8),
            ColumnLayout::Variable,
            ColumnLayout::Variable,
        ]);
        let mut b = RecordBuilder::new();
        b.reset();
        b.push(Some(&[1, 2, 3, 4]));
        b.push(Some(b"hello"));
        b.push(None);
        b.push(None);
        b.push(Some(b""));
        let rec = b.finish(&s).to_vec();
        let v = RecordView::new(&s, &rec).unwrap();
        assert_eq!(v.get(0).unwrap(), Some(&[1u8, 2, 3, 4][..]));
        assert_eq!(v.get(1).unwrap(), Some(&b"hello"[..]));
        assert_eq!(v.get(2).unwrap(), None);
        assert!(v.is_null(3));
        assert_eq!(v.get(4).unwrap(), Some(&b""[..]));
        assert!(v.get(5).is_err());
    }

    #[test]
    fn wide_and_garbage() {
        let s = RecordSchema::new(vec![ColumnLayout::Variable, ColumnLayout::Variable]);
        let big = vec![7u8; 70_000];
        let mut b = RecordBuilder::new();
        b.push(Some(&big));
        b.push(Some(b"x"));
        let rec = b.finish(&s).to_vec();
        let v = RecordView::new(&s, &rec).unwrap();
        assert_eq!(v.get(0).unwrap().unwrap().len(), 70_000);
        assert_eq!(v.get(1).unwrap(), Some(&b"x"[..]));
        for n in 0..rec.len().min(64) {
            let _ = RecordView::new(&s, &rec[..n]).and_then(|v| v.get(1).map(|_| ()));
        }
    }
}
