//! `sp_datatype_info` / `sp_datatype_info_100`: ODBC `SQLGetTypeInfo` rows.
//!
//! ODBC drivers (FreeTDS, msodbcsql, mssql-jdbc's `getTypeInfo`) run these to learn each
//! type's maximum size: pyodbc, for instance, takes the `PRECISION` of the first `SQL_WVARCHAR`
//! row as the longest string it binds as nvarchar(n) (longer ones go as nvarchar(max)) and the
//! first `SQL_TYPE_TIMESTAMP` row's `PRECISION` as the datetime fraction digits it sends. Rows
//! follow SQL Server's: one per type latchkey has plus the "identity" variants of the integer
//! and exact numeric types, ordered by DATA_TYPE and then by how closely the type maps to the
//! ODBC type. Types latchkey lacks (text, ntext, image, timestamp, xml, sql_variant) are left
//! out so that no driver is told it may use them.
//!
//! `@ODBCVer` 3 gives ODBC 3 codes for date and datetime (91 / 93, SQL_DATA_TYPE 9 with a
//! subcode); the default 2 (and any value other than 3, as in SQL Server) gives ODBC 2 codes (9 / 11). `sp_datatype_info` (the pre-2008
//! procedure, for down-level drivers) reports date, time, datetime2 and datetimeoffset as
//! nvarchar (-9), as SQL Server does; `sp_datatype_info_100` reports them as themselves.

use common::SqlResult;
use types::Value;

use super::{nv, vc, Args};
use crate::events::EventSink;
use crate::session::Session;

/// One SQLGetTypeInfo row (ODBC 3 codes; see `row_values` for ODBC 2 and down-level).
struct TypeRow {
    name: &'static str,
    data_type: i16,
    precision: i32,
    prefix: Option<&'static str>,
    suffix: Option<&'static str>,
    create_params: Option<&'static str>,
    nullable: i16,
    case_sensitive: i16,
    searchable: i16,
    unsigned: Option<i16>,
    money: i16,
    auto_increment: Option<i16>,
    min_scale: Option<i16>,
    max_scale: Option<i16>,
    sql_data_type: i16,
    datetime_sub: Option<i16>,
    radix: Option<i32>,
    usertype: i16,
    /// date / time / datetime2 / datetimeoffset: nvarchar to `sp_datatype_info`
    new_date_type: bool,
}

const fn exact(
    name: &'static str,
    data_type: i16,
    precision: i32,
    identity: bool,
    unsigned: i16,
    usertype: i16,
) -> TypeRow {
    TypeRow {
        name,
        data_type,
        precision,
        prefix: None,
        suffix: None,
        create_params: None,
        nullable: if identity { 0 } else { 1 },
        case_sensitive: 0,
        searchable: 2,
        unsigned: Some(unsigned),
        money: 0,
        auto_increment: Some(if identity { 1 } else { 0 }),
        min_scale: Some(0),
        max_scale: Some(0),
        sql_data_type: data_type,
        datetime_sub: None,
        radix: Some(10),
        usertype,
        new_date_type: false,
    }
}

const fn chars(
    name: &'static str,
    data_type: i16,
    precision: i32,
    unicode: bool,
    create_params: Option<&'static str>,
    nullable: i16,
    usertype: i16,
) -> TypeRow {
    TypeRow {
        name,
        data_type,
        precision,
        prefix: Some(if unicode { "N'" } else { "'" }),
        suffix: Some("'"),
        create_params,
        nullable,
        case_sensitive: 1,
        searchable: 3,
        unsigned: None,
        money: 0,
        auto_increment: None,
        min_scale: None,
        max_scale: None,
        sql_data_type: data_type,
        datetime_sub: None,
        radix: None,
        usertype,
        new_date_type: false,
    }
}

const fn binary(
    name: &'static str,
    data_type: i16,
    create_params: &'static str,
    usertype: i16,
) -> TypeRow {
    TypeRow {
        name,
        data_type,
        precision: 8000,
        prefix: Some("0x"),
        suffix: None,
        create_params: Some(create_params),
        nullable: 1,
        case_sensitive: 0,
        searchable: 2,
        unsigned: None,
        money: 0,
        auto_increment: None,
        min_scale: None,
        max_scale: None,
        sql_data_type: data_type,
        datetime_sub: None,
        radix: None,
        usertype,
        new_date_type: false,
    }
}

#[allow(clippy::too_many_arguments)]
const fn temporal(
    name: &'static str,
    data_type: i16,
    precision: i32,
    create_params: Option<&'static str>,
    min_scale: Option<i16>,
    max_scale: i16,
    sql_data_type: i16,
    datetime_sub: i16,
    usertype: i16,
    new_date_type: bool,
) -> TypeRow {
    TypeRow {
        name,
        data_type,
        precision,
        prefix: Some("'"),
        suffix: Some("'"),
        create_params,
        nullable: 1,
        case_sensitive: 0,
        searchable: 3,
        unsigned: None,
        money: 0,
        auto_increment: None,
        min_scale,
        max_scale: Some(max_scale),
        sql_data_type,
        datetime_sub: Some(datetime_sub),
        radix: None,
        usertype,
        new_date_type,
    }
}

const fn approx(name: &'static str, data_type: i16, precision: i32, usertype: i16) -> TypeRow {
    TypeRow {
        min_scale: None,
        max_scale: None,
        radix: Some(2),
        ..exact(name, data_type, precision, false, 0, usertype)
    }
}

const fn money(name: &'static str, precision: i32, usertype: i16) -> TypeRow {
    TypeRow {
        prefix: Some("$"),
        money: 1,
        min_scale: Some(4),
        max_scale: Some(4),
        ..exact(name, 3, precision, false, 0, usertype)
    }
}

const fn exact_scaled(name: &'static str, data_type: i16, usertype: i16) -> TypeRow {
    TypeRow {
        create_params: Some("precision,scale"),
        max_scale: Some(38),
        ..exact(name, data_type, 38, false, 0, usertype)
    }
}

const fn exact_identity(name: &'static str, data_type: i16, usertype: i16) -> TypeRow {
    TypeRow {
        create_params: Some("precision"),
        ..exact(name, data_type, 38, true, 0, usertype)
    }
}

/// SQL Server's rows for the types latchkey has, in SQL Server's order.
const TYPES: &[TypeRow] = &[
    temporal(
        "datetimeoffset",
        -155,
        34,
        Some("scale"),
        Some(0),
        7,
        -155,
        0,
        0,
        true,
    ),
    temporal(
        "time",
        -154,
        16,
        Some("scale"),
        Some(0),
        7,
        -154,
        0,
        0,
        true,
    ),
    TypeRow {
        searchable: 2,
        case_sensitive: 0,
        create_params: None,
        ..chars("uniqueidentifier", -11, 36, false, None, 1, 0)
    },
    chars("nvarchar", -9, 4000, true, Some("max length"), 1, 0),
    chars("sysname", -9, 128, true, None, 0, 18),
    chars("nchar", -8, 4000, true, Some("length"), 1, 0),
    TypeRow {
        unsigned: None,
        auto_increment: None,
        radix: None,
        ..exact("bit", -7, 1, false, 0, 16)
    },
    exact("tinyint", -6, 3, false, 1, 5),
    exact("tinyint identity", -6, 3, true, 1, 5),
    exact("bigint", -5, 19, false, 0, 0),
    exact("bigint identity", -5, 19, true, 0, 0),
    binary("varbinary", -3, "max length", 4),
    binary("binary", -2, "length", 3),
    chars("char", 1, 8000, false, Some("length"), 1, 1),
    exact_scaled("numeric", 2, 10),
    exact_identity("numeric() identity", 2, 10),
    exact_scaled("decimal", 3, 24),
    money("money", 19, 11),
    money("smallmoney", 10, 21),
    exact_identity("decimal() identity", 3, 24),
    exact("int", 4, 10, false, 0, 7),
    exact("int identity", 4, 10, true, 0, 7),
    exact("smallint", 5, 5, false, 0, 6),
    exact("smallint identity", 5, 5, true, 0, 6),
    approx("float", 6, 53, 8),
    approx("real", 7, 24, 23),
    chars("varchar", 12, 8000, false, Some("max length"), 1, 2),
    temporal("date", 91, 10, None, None, 0, 9, 1, 0, true),
    temporal(
        "datetime2",
        93,
        27,
        Some("scale"),
        Some(0),
        7,
        9,
        3,
        0,
        true,
    ),
    temporal("datetime", 93, 23, None, Some(3), 3, 9, 3, 12, false),
    temporal("smalldatetime", 93, 16, None, Some(0), 0, 9, 3, 22, false),
];

/// ODBC 2 codes of the ODBC 3 date/time types (SQL_DATE 9, SQL_TIMESTAMP 11).
fn odbc2_code(code: i16) -> i16 {
    match code {
        91 => 9,
        93 => 11,
        c => c,
    }
}

impl Session {
    /// `sp_datatype_info[_100] [@data_type = n] [, @ODBCVer = 2 | 3]`; `down_level` is the
    /// pre-2008 `sp_datatype_info` (the new date/time types as nvarchar).
    pub(super) fn sp_datatype_info(
        &mut self,
        args: &Args,
        sink: &mut dyn EventSink,
        down_level: bool,
    ) -> SqlResult<i32> {
        let filter = match args.get("@data_type") {
            Some(v) => crate::interp::value_to_i64(v)?,
            None => 0,
        };
        // SQL Server's procedure treats every @ODBCVer other than 3 as 2
        let odbc3 = match args.get("@ODBCVer") {
            Some(v) => crate::interp::value_to_i64(v)? == 3,
            None => false,
        };
        let mut rows: Vec<(i16, bool, usize, Vec<Value>)> = Vec::new();
        for (i, t) in TYPES.iter().enumerate() {
            let as_nvarchar = down_level && t.new_date_type;
            let (data_type, sql_data_type, sub) = if as_nvarchar {
                (-9, -9, None)
            } else if odbc3 {
                (t.data_type, t.sql_data_type, t.datetime_sub)
            } else {
                // ODBC 2 has no SQL_DATETIME descriptor type: SQL_DATA_TYPE is DATA_TYPE
                let c = odbc2_code(t.data_type);
                let sdt = if t.sql_data_type == 9 {
                    c
                } else {
                    t.sql_data_type
                };
                (
                    c,
                    sdt,
                    if t.sql_data_type == 9 {
                        None
                    } else {
                        t.datetime_sub
                    },
                )
            };
            if filter != 0 && i64::from(data_type) != filter {
                continue;
            }
            let (prefix, suffix, min_scale, max_scale) = if as_nvarchar {
                (Some("N'"), Some("'"), None, None)
            } else {
                (t.prefix, t.suffix, t.min_scale, t.max_scale)
            };
            let opt_i16 = |v: Option<i16>| v.map_or(Value::Null, Value::SmallInt);
            let opt_vc = |v: Option<&str>| v.map_or(Value::Null, vc);
            rows.push((
                data_type,
                as_nvarchar,
                i,
                vec![
                    nv(t.name),
                    Value::SmallInt(data_type),
                    Value::Int(t.precision),
                    opt_vc(prefix),
                    opt_vc(suffix),
                    opt_vc(t.create_params),
                    Value::SmallInt(t.nullable),
                    Value::SmallInt(t.case_sensitive),
                    Value::SmallInt(t.searchable),
                    opt_i16(t.unsigned),
                    Value::SmallInt(t.money),
                    opt_i16(t.auto_increment),
                    nv(t.name),
                    opt_i16(min_scale),
                    opt_i16(max_scale),
                    Value::SmallInt(sql_data_type),
                    opt_i16(sub),
                    t.radix.map_or(Value::Null, Value::Int),
                    Value::Null,
                    Value::SmallInt(t.usertype),
                ],
            ));
        }
        // by DATA_TYPE, then the table's closeness order; down-level date/time rows come
        // after the real nvarchar rows, so a driver reading the first -9 row gets nvarchar
        rows.sort_by_key(|(dt, down, i, _)| (*dt, *down, *i));
        self.send_result(
            sink,
            &[
                "TYPE_NAME:nvarchar(128)",
                "DATA_TYPE:smallint",
                "PRECISION:int",
                "LITERAL_PREFIX:varchar(32)",
                "LITERAL_SUFFIX:varchar(32)",
                "CREATE_PARAMS:varchar(32)",
                "NULLABLE:smallint",
                "CASE_SENSITIVE:smallint",
                "SEARCHABLE:smallint",
                "UNSIGNED_ATTRIBUTE:smallint",
                "MONEY:smallint",
                "AUTO_INCREMENT:smallint",
                "LOCAL_TYPE_NAME:nvarchar(128)",
                "MINIMUM_SCALE:smallint",
                "MAXIMUM_SCALE:smallint",
                "SQL_DATA_TYPE:smallint",
                "SQL_DATETIME_SUB:smallint",
                "NUM_PREC_RADIX:int",
                "INTERVAL_PRECISION:smallint",
                "USERTYPE:smallint",
            ],
            rows.into_iter().map(|(_, _, _, r)| r).collect(),
        )?;
        Ok(0)
    }
}
