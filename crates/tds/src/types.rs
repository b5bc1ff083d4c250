//! TYPE_INFO ([MS-TDS] 2.2.5.4–2.2.5.6): the type byte, its length rule and the extra
//! metadata (precision/scale, collation, scale of the time types) that precede a value in
//! COLMETADATA, RETURNVALUE and RPC parameters.
//!
//! The server announces every latchkey [`DataType`] in the form SQL Server uses
//! ([`TypeInfo::for_data_type`]: nullable forms; [`TypeInfo::for_column`] also the fixed-length
//! forms SQL Server uses for NOT NULL columns). [`TypeInfo::read`] accepts everything a client
//! may send in an RPC request, legacy types included, and maps it back with
//! [`TypeInfo::to_data_type`]. The type table is in the crate README.

use crate::error::{TdsError, TdsResult};
use ::types::datatype::decimal_storage_bytes;
use ::types::DataType;

/// TDS type bytes ([MS-TDS] 2.2.5.4.1–2.2.5.4.3).
pub mod type_byte {
    // Fixed-length types (no length in TYPE_INFO, none before the value).
    pub const NULL: u8 = 0x1F;
    pub const INT1: u8 = 0x30;
    pub const BIT: u8 = 0x32;
    pub const INT2: u8 = 0x34;
    pub const INT4: u8 = 0x38;
    pub const DATETIM4: u8 = 0x3A;
    pub const FLT4: u8 = 0x3B;
    pub const MONEY: u8 = 0x3C;
    pub const DATETIME: u8 = 0x3D;
    pub const FLT8: u8 = 0x3E;
    pub const MONEY4: u8 = 0x7A;
    pub const INT8: u8 = 0x7F;
    // BYTELEN types.
    pub const GUID: u8 = 0x24;
    pub const INTN: u8 = 0x26;
    pub const DECIMAL: u8 = 0x37;
    pub const NUMERIC: u8 = 0x3F;
    pub const BITN: u8 = 0x68;
    pub const DECIMALN: u8 = 0x6A;
    pub const NUMERICN: u8 = 0x6C;
    pub const FLTN: u8 = 0x6D;
    pub const MONEYN: u8 = 0x6E;
    pub const DATETIMN: u8 = 0x6F;
    pub const DATEN: u8 = 0x28;
    pub const TIMEN: u8 = 0x29;
    pub const DATETIME2N: u8 = 0x2A;
    pub const DATETIMEOFFSETN: u8 = 0x2B;
    /// Legacy (TDS 4.2) short string/binary types, still accepted in RPC.
    pub const CHAR: u8 = 0x2F;
    pub const VARCHAR: u8 = 0x27;
    pub const BINARY: u8 = 0x2D;
    pub const VARBINARY: u8 = 0x25;
    // USHORTLEN types (0xFFFF length = PLP, the `max` types).
    pub const BIGVARBINARY: u8 = 0xA5;
    pub const BIGVARCHAR: u8 = 0xA7;
    pub const BIGBINARY: u8 = 0xAD;
    pub const BIGCHAR: u8 = 0xAF;
    pub const NVARCHAR: u8 = 0xE7;
    pub const NCHAR: u8 = 0xEF;
    /// Always PLP.
    pub const XML: u8 = 0xF1;
    pub const UDT: u8 = 0xF0;
    // LONGLEN types.
    pub const TEXT: u8 = 0x23;
    pub const IMAGE: u8 = 0x22;
    pub const NTEXT: u8 = 0x63;
    pub const SSVARIANT: u8 = 0x62;
    /// Table-valued parameter (RPC only).
    pub const TVP: u8 = 0xF3;
}

use type_byte as tb;

/// `SQL_Latin1_General_CP1_CI_AS` as SQL Server sends it: LCID 0x0409, flags
/// IgnoreCase|IgnoreKana|IgnoreWidth, version 0, sort id 52.
pub const DEFAULT_COLLATION: [u8; 5] = [0x09, 0x04, 0xD0, 0x00, 0x34];

/// The five collation bytes of a latchkey collation ([MS-TDS] 2.2.5.1.2): LCID 0x0409 (every
/// supported collation is Latin1_General), the comparison flags from the collation's
/// sensitivities (fIgnoreCase 0x10, fIgnoreAccent 0x20, fIgnoreWidth 0x40, fIgnoreKana 0x80 in
/// byte 2; fBinary 0x01, fBinary2 0x02, fUTF8 0x04 and the version nibble in byte 3: `_100_`
/// collations are version 2) and, for SQL collations, SQL Server's sort id (51 CP1_CS_AS,
/// 52 CP1_CI_AS, 54 CP1_CI_AI, 30 CP437_BIN, 40 CP850_BIN). Clients use the LCID, sort id and
/// fUTF8 to pick the code page of varchar data.
pub fn collation_bytes(c: ::types::Collation) -> [u8; 5] {
    let name = c.name().to_ascii_uppercase();
    let sort_id = match name.as_str() {
        "SQL_LATIN1_GENERAL_CP1_CS_AS" => 51,
        "SQL_LATIN1_GENERAL_CP1_CI_AS" => 52,
        "SQL_LATIN1_GENERAL_CP1_CI_AI" => 54,
        "SQL_LATIN1_GENERAL_CP437_BIN" => 30,
        "SQL_LATIN1_GENERAL_CP850_BIN" => 40,
        _ => 0,
    };
    let bin2 = name.contains("_BIN2");
    let binary = c.is_binary();
    let mut flags2 = 0u8;
    if !binary {
        if !c.case_sensitive() {
            flags2 |= 0x10;
        }
        if !c.accent_sensitive() {
            flags2 |= 0x20;
        }
        if !name.contains("_WS") {
            flags2 |= 0x40;
        }
        if !name.contains("_KS") {
            flags2 |= 0x80;
        }
    }
    let mut flags3 = 0u8;
    if binary {
        flags3 |= if bin2 { 0x02 } else { 0x01 };
    }
    if name.ends_with("_UTF8") {
        flags3 |= 0x04;
    }
    if name.contains("_100_") {
        flags3 |= 0x20;
    }
    [0x09, 0x04, flags2, flags3, sort_id]
}

/// The USHORTLEN max length that marks a PLP (`max`) type.
pub const PLP_MAX_LEN: u32 = 0xFFFF;

/// Largest value SQL Server accepts for a LONGLEN/PLP value (2^31 − 1 bytes).
pub const MAX_LOB_LEN: u64 = i32::MAX as u64;

/// How a value of a type is framed on the wire ([MS-TDS] 2.2.5.2.3 TYPE_VARBYTE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// NULLTYPE: no bytes at all.
    Zero,
    /// Fixed-length type: exactly n bytes, no NULL representation.
    Fixed(usize),
    /// 1-byte length (0 = NULL).
    ByteLen,
    /// 2-byte length (0xFFFF = NULL).
    UShortLen,
    /// Partially length-prefixed (8-byte total length, chunks, 0 terminator).
    Plp,
    /// TEXT/NTEXT/IMAGE: in RPC a 4-byte length (0xFFFFFFFF = NULL); in a row a text pointer
    /// and timestamp first.
    LongLen,
    /// SQL_VARIANT: 4-byte length (0 = NULL), then base type, properties, data.
    Variant,
}

/// One TYPE_INFO. `max_len` is the length field of TYPE_INFO (for fixed-length types the
/// value's size, for PLP types [`PLP_MAX_LEN`], 0 where the type has none: DATEN, the time
/// types, NULLTYPE).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeInfo {
    pub ty: u8,
    pub max_len: u32,
    pub precision: u8,
    pub scale: u8,
    /// Present for BIGCHAR, BIGVARCHAR, NCHAR, NVARCHAR, TEXT and NTEXT.
    pub collation: Option<[u8; 5]>,
}

fn malformed(what: impl Into<String>) -> TdsError {
    TdsError::Malformed(what.into())
}

/// Takes `n` bytes off the front of `input`.
pub fn take<'a>(input: &mut &'a [u8], n: usize, what: &'static str) -> TdsResult<&'a [u8]> {
    if input.len() < n {
        return Err(TdsError::Truncated(what));
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

pub fn read_u8(input: &mut &[u8], what: &'static str) -> TdsResult<u8> {
    Ok(take(input, 1, what)?[0])
}

pub fn read_u16(input: &mut &[u8], what: &'static str) -> TdsResult<u16> {
    let b = take(input, 2, what)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

pub fn read_u32(input: &mut &[u8], what: &'static str) -> TdsResult<u32> {
    let b = take(input, 4, what)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub fn read_u64(input: &mut &[u8], what: &'static str) -> TdsResult<u64> {
    let b = take(input, 8, what)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

/// Reads `chars` UTF-16LE code units as a string (names in B_VARCHAR / US_VARCHAR).
pub fn read_utf16(input: &mut &[u8], chars: usize, what: &'static str) -> TdsResult<String> {
    let b = take(input, chars * 2, what)?;
    let units = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| malformed(format!("{what}: invalid UTF-16")))
}

/// B_VARCHAR: 1-byte character count, UTF-16LE.
pub fn read_b_varchar(input: &mut &[u8], what: &'static str) -> TdsResult<String> {
    let n = read_u8(input, what)? as usize;
    read_utf16(input, n, what)
}

/// US_VARCHAR: 2-byte character count, UTF-16LE.
pub fn read_us_varchar(input: &mut &[u8], what: &'static str) -> TdsResult<String> {
    let n = read_u16(input, what)? as usize;
    read_utf16(input, n, what)
}

/// Writes a B_VARCHAR. Names longer than 255 UTF-16 units are cut at 255 (SQL Server's
/// identifiers are at most 128).
pub fn write_b_varchar(out: &mut Vec<u8>, s: &str) {
    let units: Vec<u16> = s.encode_utf16().take(255).collect();
    out.push(units.len() as u8);
    for u in units {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

/// Writes a US_VARCHAR (cut at 65535 units).
pub fn write_us_varchar(out: &mut Vec<u8>, s: &str) {
    let units: Vec<u16> = s.encode_utf16().take(65535).collect();
    out.extend_from_slice(&(units.len() as u16).to_le_bytes());
    for u in units {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

impl TypeInfo {
    fn new(ty: u8, max_len: u32) -> TypeInfo {
        TypeInfo {
            ty,
            max_len,
            precision: 0,
            scale: 0,
            collation: None,
        }
    }

    fn with_collation(ty: u8, max_len: u32) -> TypeInfo {
        TypeInfo {
            collation: Some(DEFAULT_COLLATION),
            ..TypeInfo::new(ty, max_len)
        }
    }

    fn scaled(ty: u8, scale: u8) -> TypeInfo {
        TypeInfo {
            scale,
            ..TypeInfo::new(ty, 0)
        }
    }

    /// The TYPE_INFO SQL Server announces for a nullable column (or parameter, or expression)
    /// of type `dt`: the nullable (`N`) forms, collation `SQL_Latin1_General_CP1_CI_AS` for
    /// character types, PLP for the `max` types.
    pub fn for_data_type(dt: &DataType) -> TypeInfo {
        let var_len = |n: Option<u32>, unit: u32| match n {
            Some(n) => (n.saturating_mul(unit)).min(8000),
            None => PLP_MAX_LEN,
        };
        match dt {
            DataType::Bit => TypeInfo::new(tb::BITN, 1),
            DataType::TinyInt => TypeInfo::new(tb::INTN, 1),
            DataType::SmallInt => TypeInfo::new(tb::INTN, 2),
            DataType::Int | DataType::Null => TypeInfo::new(tb::INTN, 4),
            DataType::BigInt => TypeInfo::new(tb::INTN, 8),
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
                let p = (*precision).clamp(1, 38);
                TypeInfo {
                    precision: p,
                    scale: (*scale).min(p),
                    ..TypeInfo::new(
                        if matches!(dt, DataType::Numeric { .. }) {
                            tb::NUMERICN
                        } else {
                            tb::DECIMALN
                        },
                        decimal_storage_bytes(p) as u32,
                    )
                }
            }
            DataType::Float => TypeInfo::new(tb::FLTN, 8),
            DataType::Real => TypeInfo::new(tb::FLTN, 4),
            DataType::Money => TypeInfo::new(tb::MONEYN, 8),
            DataType::SmallMoney => TypeInfo::new(tb::MONEYN, 4),
            DataType::DateTime => TypeInfo::new(tb::DATETIMN, 8),
            DataType::SmallDateTime => TypeInfo::new(tb::DATETIMN, 4),
            DataType::Date => TypeInfo::new(tb::DATEN, 0),
            DataType::Time(s) => TypeInfo::scaled(tb::TIMEN, (*s).min(7)),
            DataType::DateTime2(s) => TypeInfo::scaled(tb::DATETIME2N, (*s).min(7)),
            DataType::DateTimeOffset(s) => TypeInfo::scaled(tb::DATETIMEOFFSETN, (*s).min(7)),
            DataType::UniqueIdentifier => TypeInfo::new(tb::GUID, 16),
            DataType::Char(n) => TypeInfo::with_collation(tb::BIGCHAR, var_len(Some(*n), 1)),
            DataType::VarChar(n) => TypeInfo::with_collation(tb::BIGVARCHAR, var_len(*n, 1)),
            DataType::NChar(n) => TypeInfo::with_collation(tb::NCHAR, var_len(Some(*n), 2)),
            DataType::NVarChar(n) => TypeInfo::with_collation(tb::NVARCHAR, var_len(*n, 2)),
            DataType::Binary(n) => TypeInfo::new(tb::BIGBINARY, var_len(Some(*n), 1)),
            DataType::VarBinary(n) => TypeInfo::new(tb::BIGVARBINARY, var_len(*n, 1)),
        }
    }

    /// The TYPE_INFO SQL Server announces for a result column: like
    /// [`TypeInfo::for_data_type`], but a NOT NULL column of a type that has a fixed-length
    /// form (bit, the integers, float/real, money/smallmoney, datetime/smalldatetime) is sent
    /// in that form (e.g. `SELECT 1` is INT4, 0x38), as SQL Server does.
    pub fn for_column(dt: &DataType, nullable: bool) -> TypeInfo {
        if nullable {
            return TypeInfo::for_data_type(dt);
        }
        let fixed = |ty, n| TypeInfo::new(ty, n);
        match dt {
            DataType::Bit => fixed(tb::BIT, 1),
            DataType::TinyInt => fixed(tb::INT1, 1),
            DataType::SmallInt => fixed(tb::INT2, 2),
            DataType::Int => fixed(tb::INT4, 4),
            DataType::BigInt => fixed(tb::INT8, 8),
            DataType::Float => fixed(tb::FLT8, 8),
            DataType::Real => fixed(tb::FLT4, 4),
            DataType::Money => fixed(tb::MONEY, 8),
            DataType::SmallMoney => fixed(tb::MONEY4, 4),
            DataType::DateTime => fixed(tb::DATETIME, 8),
            DataType::SmallDateTime => fixed(tb::DATETIM4, 4),
            _ => TypeInfo::for_data_type(dt),
        }
    }

    /// The nullable equivalent of a fixed-length TYPE_INFO (INT4 → INTN(4) ...); other
    /// TYPE_INFOs unchanged. Used where a NULL must be representable (RETURNVALUE).
    pub fn nullable_form(&self) -> TypeInfo {
        let n = |ty, len| TypeInfo::new(ty, len);
        match self.ty {
            tb::INT1 => n(tb::INTN, 1),
            tb::INT2 => n(tb::INTN, 2),
            tb::INT4 => n(tb::INTN, 4),
            tb::INT8 => n(tb::INTN, 8),
            tb::BIT => n(tb::BITN, 1),
            tb::FLT4 => n(tb::FLTN, 4),
            tb::FLT8 => n(tb::FLTN, 8),
            tb::MONEY => n(tb::MONEYN, 8),
            tb::MONEY4 => n(tb::MONEYN, 4),
            tb::DATETIME => n(tb::DATETIMN, 8),
            tb::DATETIM4 => n(tb::DATETIMN, 4),
            _ => self.clone(),
        }
    }

    /// How values of this type are framed.
    pub fn framing(&self) -> Framing {
        match self.ty {
            tb::NULL => Framing::Zero,
            tb::INT1 | tb::BIT => Framing::Fixed(1),
            tb::INT2 => Framing::Fixed(2),
            tb::INT4 | tb::DATETIM4 | tb::FLT4 | tb::MONEY4 => Framing::Fixed(4),
            tb::MONEY | tb::DATETIME | tb::FLT8 | tb::INT8 => Framing::Fixed(8),
            tb::BIGVARBINARY | tb::BIGVARCHAR | tb::NVARCHAR if self.max_len == PLP_MAX_LEN => {
                Framing::Plp
            }
            tb::XML => Framing::Plp,
            tb::BIGVARBINARY
            | tb::BIGVARCHAR
            | tb::BIGBINARY
            | tb::BIGCHAR
            | tb::NVARCHAR
            | tb::NCHAR => Framing::UShortLen,
            tb::TEXT | tb::NTEXT | tb::IMAGE => Framing::LongLen,
            tb::SSVARIANT => Framing::Variant,
            _ => Framing::ByteLen,
        }
    }

    /// Is this one of the PLP (`max`, xml) types?
    pub fn is_plp(&self) -> bool {
        self.framing() == Framing::Plp
    }

    /// Appends the TYPE_INFO bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.ty);
        match self.ty {
            tb::NULL
            | tb::INT1
            | tb::BIT
            | tb::INT2
            | tb::INT4
            | tb::DATETIM4
            | tb::FLT4
            | tb::MONEY
            | tb::DATETIME
            | tb::FLT8
            | tb::MONEY4
            | tb::INT8
            | tb::DATEN => {}
            tb::TIMEN | tb::DATETIME2N | tb::DATETIMEOFFSETN => out.push(self.scale),
            tb::DECIMALN | tb::NUMERICN | tb::DECIMAL | tb::NUMERIC => {
                out.push(self.max_len as u8);
                out.push(self.precision);
                out.push(self.scale);
            }
            tb::BIGVARBINARY
            | tb::BIGVARCHAR
            | tb::BIGBINARY
            | tb::BIGCHAR
            | tb::NVARCHAR
            | tb::NCHAR => {
                out.extend_from_slice(&(self.max_len.min(0xFFFF) as u16).to_le_bytes());
                if let Some(c) = self.collation {
                    out.extend_from_slice(&c);
                }
            }
            // XML_INFO: no schema collection.
            tb::XML => out.push(0),
            tb::TEXT | tb::NTEXT | tb::IMAGE | tb::SSVARIANT => {
                out.extend_from_slice(&self.max_len.to_le_bytes());
                if let Some(c) = self.collation {
                    out.extend_from_slice(&c);
                }
            }
            // The remaining BYTELEN types: GUID, INTN, BITN, FLTN, MONEYN, DATETIMN and the
            // legacy short string/binary types.
            _ => out.push(self.max_len.min(0xFF) as u8),
        }
    }

    /// Reads one TYPE_INFO (from an RPC parameter, COLMETADATA or RETURNVALUE). Every length
    /// is checked against the type's rules; types latchkey cannot take (UDT, TVP) are
    /// [`TdsError::Unsupported`].
    pub fn read(input: &mut &[u8]) -> TdsResult<TypeInfo> {
        let ty = read_u8(input, "TYPE_INFO")?;
        let fixed = |n| Ok(TypeInfo::new(ty, n));
        match ty {
            tb::NULL => fixed(0),
            tb::INT1 | tb::BIT => fixed(1),
            tb::INT2 => fixed(2),
            tb::INT4 | tb::DATETIM4 | tb::FLT4 | tb::MONEY4 => fixed(4),
            tb::MONEY | tb::DATETIME | tb::FLT8 | tb::INT8 => fixed(8),
            tb::DATEN => fixed(0),
            tb::TIMEN | tb::DATETIME2N | tb::DATETIMEOFFSETN => {
                let scale = read_u8(input, "TYPE_INFO scale")?;
                if scale > 7 {
                    return Err(malformed(format!(
                        "TYPE_INFO: scale {scale} of type 0x{ty:02X} exceeds 7"
                    )));
                }
                Ok(TypeInfo::scaled(ty, scale))
            }
            tb::GUID | tb::INTN | tb::BITN | tb::FLTN | tb::MONEYN | tb::DATETIMN => {
                let len = read_u8(input, "TYPE_INFO length")?;
                let ok = match ty {
                    tb::GUID => len == 16,
                    tb::INTN => matches!(len, 1 | 2 | 4 | 8),
                    tb::BITN => len == 1,
                    tb::FLTN | tb::MONEYN | tb::DATETIMN => matches!(len, 4 | 8),
                    _ => false,
                };
                if !ok {
                    return Err(malformed(format!(
                        "TYPE_INFO: length {len} invalid for type 0x{ty:02X}"
                    )));
                }
                fixed(len as u32)
            }
            tb::DECIMALN | tb::NUMERICN | tb::DECIMAL | tb::NUMERIC => {
                let len = read_u8(input, "TYPE_INFO length")?;
                let precision = read_u8(input, "TYPE_INFO precision")?;
                let scale = read_u8(input, "TYPE_INFO scale")?;
                if !(1..=38).contains(&precision) || scale > precision {
                    return Err(malformed(format!(
                        "TYPE_INFO: decimal precision {precision} / scale {scale}"
                    )));
                }
                if !(2..=17).contains(&len) {
                    return Err(malformed(format!("TYPE_INFO: decimal length {len}")));
                }
                // A declared length shorter than the precision needs is taken as the length
                // the precision needs (5/9/13/17 bytes): FreeTDS declares e.g. DECIMALN length
                // 9 with precision 20 for a parameter, and SQL Server accepts it; each value
                // carries its own length. Writers size values by precision, so the TYPE_INFO
                // re-encodes consistently (found by cargo-fuzz: length 5 with precision 12
                // decoded, then re-encoded into bytes the decoder refused).
                let len = len.max(decimal_storage_bytes(precision));
                Ok(TypeInfo {
                    precision,
                    scale,
                    ..TypeInfo::new(ty, len as u32)
                })
            }
            tb::CHAR | tb::VARCHAR | tb::BINARY | tb::VARBINARY => {
                let len = read_u8(input, "TYPE_INFO length")?;
                fixed(len as u32)
            }
            tb::BIGVARBINARY
            | tb::BIGVARCHAR
            | tb::BIGBINARY
            | tb::BIGCHAR
            | tb::NVARCHAR
            | tb::NCHAR => {
                let len = read_u16(input, "TYPE_INFO length")? as u32;
                let var = matches!(ty, tb::BIGVARBINARY | tb::BIGVARCHAR | tb::NVARCHAR);
                if len == PLP_MAX_LEN && !var {
                    return Err(malformed(format!(
                        "TYPE_INFO: type 0x{ty:02X} cannot be a max (PLP) type"
                    )));
                }
                if len > 8000 && len != PLP_MAX_LEN {
                    // SQL Server refuses e.g. nvarchar(4001..) sent as 8002..16000 bytes (Msg 8016).
                    return Err(malformed(format!(
                        "TYPE_INFO: length {len} of type 0x{ty:02X} exceeds 8000"
                    )));
                }
                let collation =
                    if matches!(ty, tb::BIGVARCHAR | tb::BIGCHAR | tb::NVARCHAR | tb::NCHAR) {
                        Some(read_collation(input)?)
                    } else {
                        None
                    };
                Ok(TypeInfo {
                    collation,
                    ..TypeInfo::new(ty, len)
                })
            }
            tb::XML => {
                let schema_present = read_u8(input, "XML_INFO")?;
                if schema_present != 0 {
                    // DbName, OwningSchema (B_VARCHAR), XmlSchemaCollection (US_VARCHAR):
                    // typed XML is taken as untyped (latchkey has no schema collections).
                    read_b_varchar(input, "XML_INFO database")?;
                    read_b_varchar(input, "XML_INFO schema")?;
                    read_us_varchar(input, "XML_INFO collection")?;
                }
                fixed(PLP_MAX_LEN)
            }
            tb::TEXT | tb::NTEXT | tb::IMAGE | tb::SSVARIANT => {
                let len = read_u32(input, "TYPE_INFO length")?;
                let collation = if matches!(ty, tb::TEXT | tb::NTEXT) {
                    Some(read_collation(input)?)
                } else {
                    None
                };
                Ok(TypeInfo {
                    collation,
                    ..TypeInfo::new(ty, len)
                })
            }
            tb::UDT => Err(TdsError::Unsupported(
                "CLR user-defined type (UDT) parameters".into(),
            )),
            tb::TVP => Err(TdsError::Unsupported(
                "table-valued parameters (TVP)".into(),
            )),
            _ => Err(malformed(format!("TYPE_INFO: unknown type 0x{ty:02X}"))),
        }
    }

    /// The latchkey type of a TYPE_INFO: fixed and nullable forms map to the same type;
    /// legacy TEXT/NTEXT/IMAGE and XML map to varchar(max)/nvarchar(max)/varbinary(max)/
    /// nvarchar(max); legacy short strings to their (var)char/(var)binary length.
    /// SQL_VARIANT has no latchkey type ([`TdsError::Unsupported`]): its values decode to
    /// their base type, which `Value::data_type` gives.
    pub fn to_data_type(&self) -> TdsResult<DataType> {
        let len = |n: u32| n.clamp(1, 8000);
        let var = |unit: u32| {
            if self.max_len == PLP_MAX_LEN {
                None
            } else {
                Some((self.max_len / unit).clamp(1, 8000 / unit))
            }
        };
        Ok(match (self.ty, self.max_len) {
            (tb::NULL, _) => DataType::Null,
            (tb::INT1, _) | (tb::INTN, 1) => DataType::TinyInt,
            (tb::INT2, _) | (tb::INTN, 2) => DataType::SmallInt,
            (tb::INT4, _) | (tb::INTN, 4) => DataType::Int,
            (tb::INT8, _) | (tb::INTN, 8) => DataType::BigInt,
            (tb::BIT | tb::BITN, _) => DataType::Bit,
            (tb::FLT4, _) | (tb::FLTN, 4) => DataType::Real,
            (tb::FLT8, _) | (tb::FLTN, 8) => DataType::Float,
            (tb::MONEY, _) | (tb::MONEYN, 8) => DataType::Money,
            (tb::MONEY4, _) | (tb::MONEYN, 4) => DataType::SmallMoney,
            (tb::DATETIME, _) | (tb::DATETIMN, 8) => DataType::DateTime,
            (tb::DATETIM4, _) | (tb::DATETIMN, 4) => DataType::SmallDateTime,
            (tb::GUID, _) => DataType::UniqueIdentifier,
            (tb::DECIMALN | tb::DECIMAL, _) => DataType::Decimal {
                precision: self.precision,
                scale: self.scale,
            },
            (tb::NUMERICN | tb::NUMERIC, _) => DataType::Numeric {
                precision: self.precision,
                scale: self.scale,
            },
            (tb::DATEN, _) => DataType::Date,
            (tb::TIMEN, _) => DataType::Time(self.scale),
            (tb::DATETIME2N, _) => DataType::DateTime2(self.scale),
            (tb::DATETIMEOFFSETN, _) => DataType::DateTimeOffset(self.scale),
            (tb::CHAR, n) | (tb::BIGCHAR, n) => DataType::Char(len(n)),
            (tb::VARCHAR, n) => DataType::VarChar(Some(len(n))),
            (tb::BINARY, n) | (tb::BIGBINARY, n) => DataType::Binary(len(n)),
            (tb::VARBINARY, n) => DataType::VarBinary(Some(len(n))),
            (tb::BIGVARCHAR, _) => DataType::VarChar(var(1)),
            (tb::BIGVARBINARY, _) => DataType::VarBinary(var(1)),
            (tb::NCHAR, n) => DataType::NChar((n / 2).clamp(1, 4000)),
            (tb::NVARCHAR, _) => DataType::NVarChar(var(2)),
            (tb::TEXT, _) => DataType::VarChar(None),
            (tb::NTEXT | tb::XML, _) => DataType::NVarChar(None),
            (tb::IMAGE, _) => DataType::VarBinary(None),
            (tb::SSVARIANT, _) => {
                return Err(TdsError::Unsupported(
                    "sql_variant as a declared type (its values decode to their base type)".into(),
                ))
            }
            (ty, n) => {
                return Err(malformed(format!(
                    "TYPE_INFO: type 0x{ty:02X} with length {n}"
                )))
            }
        })
    }

    /// Is the collation a UTF-8 one (SQL Server 2019 `_UTF8` collations, fUTF8 bit)?
    pub(crate) fn is_utf8(&self) -> bool {
        self.collation.is_some_and(|c| c[3] & 0x04 != 0)
    }
}

fn read_collation(input: &mut &[u8]) -> TdsResult<[u8; 5]> {
    let b = take(input, 5, "collation")?;
    let mut c = [0u8; 5];
    c.copy_from_slice(b);
    Ok(c)
}
