//! Result-set tokens ([MS-TDS] 2.2.7.4 COLMETADATA, 2.2.7.19 ROW, 2.2.7.15 NBCROW,
//! 2.2.7.18 RETURNVALUE): writing them for the server, reading them for the client.
//!
//! `write_row` picks ROW or NBCROW per row as the smaller encoding (NBCROW whenever a NULL
//! must be carried in a fixed-length column, which ROW cannot represent).

use crate::error::{TdsError, TdsResult};
use crate::types::{
    read_b_varchar, read_u16, read_u32, read_u8, take, type_byte as tb, write_b_varchar, TypeInfo,
};
use crate::value_codec::{
    null_cost_in_row, read_value, read_value_in_row, write_null, write_value,
};
use ::types::Value;

/// Token bytes of this module.
pub const TOKEN_COLMETADATA: u8 = 0x81;
pub const TOKEN_ROW: u8 = 0xD1;
pub const TOKEN_NBCROW: u8 = 0xD2;
pub const TOKEN_RETURNVALUE: u8 = 0xAC;

/// COLMETADATA column flags ([MS-TDS] 2.2.7.4). `nullable` is its own field of
/// [`ColumnMeta`]; these are the other bits.
pub mod flags {
    pub const NULLABLE: u16 = 0x0001;
    pub const CASE_SENSITIVE: u16 = 0x0002;
    /// usUpdateable = 1 (read/write).
    pub const UPDATEABLE: u16 = 0x0004;
    /// usUpdateable = 2 (unknown).
    pub const UPDATEABLE_UNKNOWN: u16 = 0x0008;
    pub const IDENTITY: u16 = 0x0010;
    pub const COMPUTED: u16 = 0x0020;
    pub const FIXED_LEN_CLR_TYPE: u16 = 0x0100;
    pub const SPARSE_COLUMN_SET: u16 = 0x0400;
    pub const ENCRYPTED: u16 = 0x0800;
    pub const HIDDEN: u16 = 0x2000;
    pub const KEY: u16 = 0x4000;
    pub const NULLABLE_UNKNOWN: u16 = 0x8000;
}

/// One column of a COLMETADATA token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMeta {
    pub name: String,
    pub type_info: TypeInfo,
    pub nullable: bool,
    /// The flag bits other than NULLABLE ([`flags`]).
    pub flags: u16,
    /// UserType (0 for every type latchkey announces; 0x50 would mark timestamp).
    pub user_type: u32,
}

impl ColumnMeta {
    /// A column as SQL Server describes a result column of type `dt`: NOT NULL columns in
    /// the fixed-length forms ([`TypeInfo::for_column`]), no other flags.
    pub fn new(name: impl Into<String>, dt: &::types::DataType, nullable: bool) -> ColumnMeta {
        ColumnMeta {
            name: name.into(),
            type_info: TypeInfo::for_column(dt, nullable),
            nullable,
            flags: 0,
            user_type: 0,
        }
    }
}

fn is_text_type(ti: &TypeInfo) -> bool {
    matches!(ti.ty, tb::TEXT | tb::NTEXT | tb::IMAGE)
}

/// Appends a COLMETADATA token (0x81 included). An empty column list is written as
/// NoMetaData (count 0xFFFF).
pub fn write_colmetadata(out: &mut Vec<u8>, cols: &[ColumnMeta]) {
    out.push(TOKEN_COLMETADATA);
    if cols.is_empty() {
        out.extend_from_slice(&0xFFFFu16.to_le_bytes());
        return;
    }
    // SQL Server's limit is 4096 columns; 0xFFFF would mean "no metadata".
    let n = cols.len().min(0xFFFE);
    out.extend_from_slice(&(n as u16).to_le_bytes());
    for c in &cols[..n] {
        out.extend_from_slice(&c.user_type.to_le_bytes());
        let f = (c.flags & !flags::NULLABLE) | if c.nullable { flags::NULLABLE } else { 0 };
        out.extend_from_slice(&f.to_le_bytes());
        c.type_info.write(out);
        if is_text_type(&c.type_info) {
            // TableName: no parts (latchkey never announces the legacy LOB types).
            out.push(0);
        }
        write_b_varchar(out, &c.name);
    }
}

/// Appends one row: a ROW token, or an NBCROW token when that is smaller (or when a NULL sits
/// in a fixed-length column). `row` must have one value per column.
pub fn write_row(out: &mut Vec<u8>, cols: &[ColumnMeta], row: &[Value]) -> TdsResult<()> {
    if row.len() != cols.len() {
        return Err(TdsError::Value(format!(
            "row of {} values for {} columns",
            row.len(),
            cols.len()
        )));
    }
    let bitmap_len = cols.len().div_ceil(8);
    let mut null_cost = Some(0usize);
    let mut any_null = false;
    for (c, v) in cols.iter().zip(row) {
        if v.is_null() {
            any_null = true;
            null_cost = null_cost.and_then(|sum| Some(sum + null_cost_in_row(&c.type_info)?));
        }
    }
    let at = out.len();
    let result = if any_null && null_cost.is_none_or(|cost| bitmap_len < cost) {
        out.push(TOKEN_NBCROW);
        let bitmap_at = out.len();
        out.resize(bitmap_at + bitmap_len, 0);
        let mut r = Ok(());
        for (i, (c, v)) in cols.iter().zip(row).enumerate() {
            if v.is_null() {
                out[bitmap_at + i / 8] |= 1 << (i % 8);
            } else if let Err(e) = write_row_value(out, &c.type_info, v) {
                r = Err(e);
                break;
            }
        }
        r
    } else {
        out.push(TOKEN_ROW);
        cols.iter()
            .zip(row)
            .try_for_each(|(c, v)| write_row_value(out, &c.type_info, v))
    };
    if result.is_err() {
        out.truncate(at);
    }
    result
}

/// A value as it stands in a row. TEXT/NTEXT/IMAGE need a text pointer there (latchkey
/// never announces them, but the client side of tests may).
fn write_row_value(out: &mut Vec<u8>, ti: &TypeInfo, v: &Value) -> TdsResult<()> {
    if is_text_type(ti) {
        if v.is_null() {
            out.push(0);
            return Ok(());
        }
        // A dummy 16-byte text pointer and 8-byte timestamp, as SQL Server sends them.
        out.push(16);
        out.extend_from_slice(&[0u8; 16]);
        out.extend_from_slice(&[0u8; 8]);
    }
    write_value(out, ti, v)
}

/// Appends a RETURNVALUE token for an OUTPUT parameter (`output` = true: status 0x01) or a
/// user-defined function's return value (`output` = false: status 0x02). A fixed-length
/// TYPE_INFO is sent in its nullable form so a NULL can be carried.
pub fn write_returnvalue(
    out: &mut Vec<u8>,
    ordinal: u16,
    name: &str,
    output: bool,
    ti: &TypeInfo,
    v: &Value,
) -> TdsResult<()> {
    let ti = ti.nullable_form();
    let at = out.len();
    out.push(TOKEN_RETURNVALUE);
    out.extend_from_slice(&ordinal.to_le_bytes());
    write_b_varchar(out, name);
    out.push(if output { 0x01 } else { 0x02 });
    out.extend_from_slice(&0u32.to_le_bytes()); // UserType
    out.extend_from_slice(&flags::NULLABLE.to_le_bytes());
    ti.write(out);
    let r = if v.is_null() {
        write_null(out, &ti)
    } else {
        write_value(out, &ti, v)
    };
    if r.is_err() {
        out.truncate(at);
    }
    r
}

/// A RETURNVALUE token as read by a client.
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnValue {
    pub ordinal: u16,
    pub name: String,
    /// 0x01 output parameter, 0x02 user-defined function result.
    pub status: u8,
    pub type_info: TypeInfo,
    pub value: Value,
}

/// Reads a RETURNVALUE token (after its 0xAC byte).
pub fn read_returnvalue(input: &mut &[u8]) -> TdsResult<ReturnValue> {
    let ordinal = read_u16(input, "RETURNVALUE ordinal")?;
    let name = read_b_varchar(input, "RETURNVALUE name")?;
    let status = read_u8(input, "RETURNVALUE status")?;
    read_u32(input, "RETURNVALUE user type")?;
    let f = read_u16(input, "RETURNVALUE flags")?;
    if f & flags::ENCRYPTED != 0 {
        return Err(TdsError::Unsupported(
            "Always Encrypted return values".into(),
        ));
    }
    let type_info = TypeInfo::read(input)?;
    let value = read_value(input, &type_info)?;
    Ok(ReturnValue {
        ordinal,
        name,
        status,
        type_info,
        value,
    })
}

/// Reads a COLMETADATA token (after its 0x81 byte). NoMetaData (0xFFFF) gives no columns.
pub fn read_colmetadata(input: &mut &[u8]) -> TdsResult<Vec<ColumnMeta>> {
    let count = read_u16(input, "COLMETADATA count")?;
    if count == 0xFFFF {
        return Ok(Vec::new());
    }
    // Each column takes at least 8 bytes: never reserve more than the input can hold.
    let mut cols = Vec::with_capacity((count as usize).min(input.len() / 8));
    for _ in 0..count {
        let user_type = read_u32(input, "COLMETADATA user type")?;
        let f = read_u16(input, "COLMETADATA flags")?;
        if f & flags::ENCRYPTED != 0 {
            return Err(TdsError::Unsupported("Always Encrypted columns".into()));
        }
        let type_info = TypeInfo::read(input)?;
        if is_text_type(&type_info) {
            // TableName: NumParts, then that many US_VARCHAR parts.
            let parts = read_u8(input, "COLMETADATA table name")?;
            for _ in 0..parts {
                let n = read_u16(input, "COLMETADATA table name part")? as usize;
                take(input, n * 2, "COLMETADATA table name part")?;
            }
        }
        let name = read_b_varchar(input, "COLMETADATA column name")?;
        cols.push(ColumnMeta {
            name,
            type_info,
            nullable: f & flags::NULLABLE != 0,
            flags: f & !flags::NULLABLE,
            user_type,
        });
    }
    Ok(cols)
}

/// Reads a ROW token's values (after its 0xD1 byte).
pub fn read_row(input: &mut &[u8], cols: &[ColumnMeta]) -> TdsResult<Vec<Value>> {
    let mut row = Vec::with_capacity(cols.len());
    for c in cols {
        row.push(read_value_in_row(input, &c.type_info)?);
    }
    Ok(row)
}

/// Reads an NBCROW token's values (after its 0xD2 byte): the null bitmap, then the non-NULL
/// values.
pub fn read_nbcrow(input: &mut &[u8], cols: &[ColumnMeta]) -> TdsResult<Vec<Value>> {
    let bitmap = take(input, cols.len().div_ceil(8), "NBCROW null bitmap")?;
    let mut row = Vec::with_capacity(cols.len());
    for (i, c) in cols.iter().enumerate() {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            row.push(Value::Null);
        } else {
            row.push(read_value_in_row(input, &c.type_info)?);
        }
    }
    Ok(row)
}
