//! COLMETADATA / ROW / NBCROW / RETURNVALUE tokens and RPC requests.

use tds::rows::{
    flags, read_colmetadata, read_nbcrow, read_returnvalue, read_row, write_colmetadata,
    write_returnvalue, write_row, ColumnMeta, TOKEN_NBCROW, TOKEN_RETURNVALUE, TOKEN_ROW,
};
use tds::rpc::{
    parse_rpc_batch, proc_id, write_rpc, write_rpc_batch, RpcParam, RpcProc, RpcRequest,
};
use tds::types::{type_byte as tb, TypeInfo, DEFAULT_COLLATION};
use tds::TdsError;
use types::{DataType, Value};

fn ints(n: usize, nullable: bool) -> Vec<ColumnMeta> {
    (0..n)
        .map(|i| ColumnMeta::new(format!("c{i}"), &DataType::Int, nullable))
        .collect()
}

#[test]
fn colmetadata_bytes() {
    let mut c = ColumnMeta::new("id", &DataType::Int, false);
    c.flags = flags::IDENTITY | flags::UPDATEABLE_UNKNOWN;
    let cols = vec![
        c,
        ColumnMeta::new("name", &DataType::NVarChar(Some(10)), true),
    ];
    let mut out = Vec::new();
    write_colmetadata(&mut out, &cols);
    let mut want = vec![0x81, 2, 0];
    want.extend_from_slice(&[0, 0, 0, 0, 0x18, 0x00, 0x38, 2, b'i', 0, b'd', 0]);
    want.extend_from_slice(&[0, 0, 0, 0, 0x01, 0x00, 0xE7, 20, 0]);
    want.extend_from_slice(&DEFAULT_COLLATION);
    want.extend_from_slice(&[4, b'n', 0, b'a', 0, b'm', 0, b'e', 0]);
    assert_eq!(out, want);
    assert_eq!(read_colmetadata(&mut &out[1..]).unwrap(), cols);
    // No columns: NoMetaData.
    let mut out = Vec::new();
    write_colmetadata(&mut out, &[]);
    assert_eq!(out, [0x81, 0xFF, 0xFF]);
    assert!(read_colmetadata(&mut &out[1..]).unwrap().is_empty());
}

#[test]
fn nbcrow_when_smaller() {
    // 10 nullable ints, all NULL: ROW would take 10 bytes of markers, NBCROW a 2-byte bitmap.
    let cols = ints(10, true);
    let mut out = Vec::new();
    write_row(&mut out, &cols, &vec![Value::Null; 10]).unwrap();
    assert_eq!(out, [TOKEN_NBCROW, 0xFF, 0x03]);
    assert_eq!(
        read_nbcrow(&mut &out[1..], &cols).unwrap(),
        vec![Value::Null; 10]
    );
    // One NULL among 10: 1 byte in ROW vs a 2-byte bitmap -> ROW.
    let mut row: Vec<Value> = (0..10).map(Value::Int).collect();
    row[3] = Value::Null;
    let mut out = Vec::new();
    write_row(&mut out, &cols, &row).unwrap();
    assert_eq!(out[0], TOKEN_ROW);
    assert_eq!(out.len(), 1 + 9 * 5 + 1);
    assert_eq!(read_row(&mut &out[1..], &cols).unwrap(), row);
    // Two NULLs among 9 (bitmap 2 bytes, markers 2 bytes): equal -> NBCROW, as SQL Server
    // sends `SELECT CAST(NULL AS int), <varbinary(max)>` (1 byte each way) as NBCROW.
    let cols9 = ints(9, true);
    let mut row: Vec<Value> = (0..9).map(Value::Int).collect();
    row[0] = Value::Null;
    row[8] = Value::Null;
    let mut out = Vec::new();
    write_row(&mut out, &cols9, &row).unwrap();
    assert_eq!(&out[..3], [TOKEN_NBCROW, 0x01, 0x01]);
    assert_eq!(read_nbcrow(&mut &out[1..], &cols9).unwrap(), row);
    // No NULL at all: always ROW.
    let mut out = Vec::new();
    write_row(&mut out, &cols9, &vec![Value::Int(1); 9]).unwrap();
    assert_eq!(out[0], TOKEN_ROW);
    // A max-typed NULL costs 8 bytes in ROW: NBCROW.
    let cols = vec![
        ColumnMeta::new("a", &DataType::NVarChar(None), true),
        ColumnMeta::new("b", &DataType::Int, true),
    ];
    let row = vec![Value::Null, Value::Int(1)];
    let mut out = Vec::new();
    write_row(&mut out, &cols, &row).unwrap();
    assert_eq!(out, [TOKEN_NBCROW, 0x01, 4, 1, 0, 0, 0]);
    assert_eq!(read_nbcrow(&mut &out[1..], &cols).unwrap(), row);
}

#[test]
fn null_in_a_fixed_length_column_goes_as_nbcrow() {
    let cols = ints(2, false);
    let mut out = Vec::new();
    write_row(&mut out, &cols, &[Value::Int(5), Value::Null]).unwrap();
    assert_eq!(out, [TOKEN_NBCROW, 0x02, 5, 0, 0, 0]);
    // Without NULLs: a plain ROW of fixed-length values (no length bytes).
    let mut out = Vec::new();
    write_row(&mut out, &cols, &[Value::Int(5), Value::Int(-1)]).unwrap();
    assert_eq!(out, [TOKEN_ROW, 5, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
}

#[test]
fn bad_rows_leave_nothing_behind() {
    let cols = vec![
        ColumnMeta::new("a", &DataType::Int, true),
        ColumnMeta::new("b", &DataType::VarChar(Some(2)), true),
    ];
    let mut out = vec![0xAA];
    let r = write_row(
        &mut out,
        &cols,
        &[Value::Int(1), Value::VarChar("abc".into())],
    );
    assert!(matches!(r, Err(TdsError::Value(_))));
    assert_eq!(out, [0xAA]);
    assert!(matches!(
        write_row(&mut out, &cols, &[Value::Int(1)]),
        Err(TdsError::Value(_))
    ));
    assert_eq!(out, [0xAA]);
}

#[test]
fn text_columns_carry_a_text_pointer_in_rows() {
    // A server may announce legacy ntext: COLMETADATA has a TableName, the row a text pointer
    // and timestamp before the value.
    let ti = TypeInfo {
        ty: tb::NTEXT,
        max_len: 0x7FFF_FFFF,
        precision: 0,
        scale: 0,
        collation: Some(DEFAULT_COLLATION),
    };
    let cols = vec![ColumnMeta {
        name: "t".into(),
        type_info: ti,
        nullable: true,
        flags: 0,
        user_type: 0,
    }];
    let mut out = Vec::new();
    write_colmetadata(&mut out, &cols);
    let mut input = &out[1..];
    assert_eq!(read_colmetadata(&mut input).unwrap(), cols);
    assert!(input.is_empty());
    for v in [Value::NVarChar("hé".into()), Value::Null] {
        let mut out = Vec::new();
        write_row(&mut out, &cols, std::slice::from_ref(&v)).unwrap();
        let mut input = &out[1..];
        let back = if out[0] == TOKEN_ROW {
            read_row(&mut input, &cols)
        } else {
            read_nbcrow(&mut input, &cols)
        };
        assert_eq!(back.unwrap(), vec![v]);
        assert!(input.is_empty());
    }
}

#[test]
fn returnvalue_token() {
    let mut out = Vec::new();
    // A fixed-length TYPE_INFO is sent in its nullable form, so NULL is representable.
    let ti = TypeInfo::for_column(&DataType::Int, false);
    write_returnvalue(&mut out, 1, "@out", true, &ti, &Value::Null).unwrap();
    let mut want = vec![
        TOKEN_RETURNVALUE,
        1,
        0,
        4,
        b'@',
        0,
        b'o',
        0,
        b'u',
        0,
        b't',
        0,
        0x01,
    ];
    want.extend_from_slice(&[0, 0, 0, 0, 0x01, 0x00, 0x26, 4, 0]);
    assert_eq!(out, want);
    let rv = read_returnvalue(&mut &out[1..]).unwrap();
    assert_eq!((rv.ordinal, rv.name.as_str(), rv.status), (1, "@out", 1));
    assert_eq!(rv.value, Value::Null);
    let mut out = Vec::new();
    let ti = TypeInfo::for_data_type(&DataType::Decimal {
        precision: 10,
        scale: 3,
    });
    write_returnvalue(&mut out, 2, "", false, &ti, &Value::Int(42)).unwrap();
    let rv = read_returnvalue(&mut &out[1..]).unwrap();
    assert_eq!(rv.status, 2);
    assert_eq!(
        rv.value,
        Value::Decimal {
            mantissa: 42_000,
            scale: 3
        }
    );
}

fn param(name: &str, dt: DataType, v: Value) -> RpcParam {
    RpcParam {
        name: name.into(),
        output: false,
        by_default: false,
        type_info: TypeInfo::for_data_type(&dt),
        value: v,
    }
}

#[test]
fn rpc_by_id_and_by_name_in_one_batch() {
    let mut out_param = param("@o", DataType::BigInt, Value::Null);
    out_param.output = true;
    let mut def = param("@d", DataType::Int, Value::Null);
    def.by_default = true;
    let reqs = vec![
        RpcRequest {
            proc: RpcProc::Id(proc_id::SP_EXECUTESQL),
            option_flags: 0,
            params: vec![
                param(
                    "",
                    DataType::NVarChar(Some(4000)),
                    Value::NVarChar("SELECT @p1".into()),
                ),
                param(
                    "",
                    DataType::NVarChar(Some(4000)),
                    Value::NVarChar("@p1 int".into()),
                ),
                param("@p1", DataType::Int, Value::Int(7)),
            ],
        },
        RpcRequest {
            proc: RpcProc::Name("dbo.my_proc".into()),
            option_flags: 0x0001,
            params: vec![out_param, def],
        },
        RpcRequest {
            proc: RpcProc::Id(proc_id::SP_UNPREPARE),
            option_flags: 0,
            params: vec![],
        },
    ];
    let mut out = Vec::new();
    write_rpc_batch(&mut out, &reqs).unwrap();
    let got = parse_rpc_batch(&out).unwrap();
    assert_eq!(got, reqs);
    assert_eq!(got[0].proc.name(), Some("sp_executesql"));
    assert_eq!(got[1].proc.name(), Some("dbo.my_proc"));
    // NoExecFlag separates too, and a trailing separator is accepted.
    let mut out = Vec::new();
    write_rpc(&mut out, &reqs[2]).unwrap();
    out.push(0xFF);
    write_rpc(&mut out, &reqs[2]).unwrap();
    out.push(0x80);
    assert_eq!(parse_rpc_batch(&out).unwrap().len(), 2);
}

#[test]
fn rpc_bytes_of_sp_executesql() {
    // sp_executesql by id, one positional nvarchar(4000) parameter 'x' (the layout in
    // [MS-TDS] 2.2.6.6 / 4.8).
    let req = RpcRequest {
        proc: RpcProc::Id(10),
        option_flags: 0,
        params: vec![param(
            "",
            DataType::NVarChar(Some(4000)),
            Value::NVarChar("x".into()),
        )],
    };
    let mut out = Vec::new();
    write_rpc(&mut out, &req).unwrap();
    let mut want = vec![0xFF, 0xFF, 10, 0, 0, 0, 0, 0, 0xE7, 0x40, 0x1F];
    want.extend_from_slice(&DEFAULT_COLLATION);
    want.extend_from_slice(&[2, 0, b'x', 0]);
    assert_eq!(out, want);
}

#[test]
fn rpc_errors_name_the_parameter() {
    let req = RpcRequest {
        proc: RpcProc::Name("p".into()),
        option_flags: 0,
        params: vec![param("@a", DataType::Int, Value::Int(1))],
    };
    let mut ok = Vec::new();
    write_rpc(&mut ok, &req).unwrap();
    // A TVP parameter.
    let mut b = ok.clone();
    b.extend_from_slice(&[2, b'@', 0, b't', 0, 0, tb::TVP]);
    match parse_rpc_batch(&b) {
        Err(TdsError::Unsupported(m)) => assert!(m.contains("parameter 2"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Garbage after the parameters.
    let mut b = ok.clone();
    b.extend_from_slice(&[1, b'@', 0, 0, 0x01]);
    assert!(matches!(parse_rpc_batch(&b), Err(TdsError::Malformed(_))));
    // Truncated anywhere: an error, never a panic.
    // (The 6-byte prefix is a complete request without parameters.)
    for n in (0..ok.len()).filter(|n| *n != 6) {
        assert!(parse_rpc_batch(&ok[..n]).is_err(), "prefix {n}");
    }
    assert_eq!(parse_rpc_batch(&ok[..6]).unwrap()[0].params.len(), 0);
    // Encrypted parameters are not supported.
    let mut b = ok.clone();
    let status_at = 2 + 2 + 2 + 1 + 4; // name len, "p", flags, @a len, "@a"
    b[status_at] = 0x08;
    assert!(matches!(parse_rpc_batch(&b), Err(TdsError::Unsupported(_))));
}

/// One parameter `@p1` with the given TYPE_INFO + value bytes in an sp_executesql request.
fn rpc_with_param(status: u8, param: &[u8]) -> Vec<u8> {
    let mut b = vec![
        0xFF, 0xFF, 10, 0, 0, 0, 3, b'@', 0, b'p', 0, b'1', 0, status,
    ];
    b.extend_from_slice(param);
    b
}

fn sql_error_of(b: &[u8]) -> Option<(i32, String)> {
    let e = tds::rpc::parse_rpc_batch_checked(b).unwrap_err();
    e.sql_error.map(|s| (s.number, s.message))
}

#[test]
fn rpc_errors_are_sql_servers_messages() {
    let prefix = "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. ";
    // nvarchar declared with 8002 bytes (nvarchar(4001)): the KB 970519 message, verbatim.
    let mut p = vec![0xE7, 0x42, 0x1F];
    p.extend_from_slice(&DEFAULT_COLLATION);
    p.extend_from_slice(&[2, 0, b'x', 0]);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)),
        Some((8016, format!("{prefix}Parameter 1 (\"@p1\"): Data type 0xE7 has an invalid data length or metadata length.")))
    );
    // A value longer than its declared length.
    let mut p = vec![0xE7, 2, 0];
    p.extend_from_slice(&DEFAULT_COLLATION);
    p.extend_from_slice(&[4, 0, b'x', 0, b'y', 0]);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)).map(|e| e.0),
        Some(8016)
    );
    // Unknown type byte.
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &[0x01, 0])),
        Some((
            8009,
            format!("{prefix}Parameter 1 (\"@p1\"): Data type 0x01 is unknown.")
        ))
    );
    // Decimal precision 39.
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &[0x6A, 17, 39, 0, 0])).map(|e| e.0),
        Some(8017)
    );
    // A datetime before 1753.
    let mut p = vec![0x6F, 8, 8];
    p.extend_from_slice(&(-60_000i32).to_le_bytes());
    p.extend_from_slice(&[0; 4]);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)),
        Some((8023, format!("{prefix}Parameter 1 (\"@p1\"): The supplied value is not a valid instance of data type datetime. Check the source data for invalid values. An example of an invalid value is data of numeric type with scale greater than precision.")))
    );
    // nvarchar of an odd byte count.
    let mut p = vec![0xE7, 10, 0];
    p.extend_from_slice(&DEFAULT_COLLATION);
    p.extend_from_slice(&[3, 0, b'x', 0, b'y']);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)).map(|e| e.0),
        Some(8028)
    );
    // PLP chunks that disagree with the announced total.
    let mut p = vec![0xA5, 0xFF, 0xFF];
    p.extend_from_slice(&5u64.to_le_bytes());
    p.extend_from_slice(&[1, 0, 0, 0, 9, 0, 0, 0, 0]);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)).map(|e| e.0),
        Some(8007)
    );
    // Untyped NULL as OUTPUT; ntext as OUTPUT.
    assert_eq!(
        sql_error_of(&rpc_with_param(1, &[0x1F])).map(|e| e.0),
        Some(8015)
    );
    let mut p = vec![0x63];
    p.extend_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    p.extend_from_slice(&DEFAULT_COLLATION);
    p.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        sql_error_of(&rpc_with_param(1, &p)).map(|e| e.0),
        Some(8018)
    );
    // A sql_variant whose body is shorter than its properties.
    let mut p = vec![0x62, 0x49, 0x1F, 0, 0];
    p.extend_from_slice(&3u32.to_le_bytes());
    p.extend_from_slice(&[0x6A, 2, 10]);
    assert_eq!(
        sql_error_of(&rpc_with_param(0, &p)).map(|e| e.0),
        Some(8011)
    );
    // Truncated input and unsupported kinds have no SQL Server message of this family.
    assert_eq!(sql_error_of(&rpc_with_param(0, &[0x26, 4, 4, 1])), None);
    assert_eq!(sql_error_of(&rpc_with_param(0, &[0xF3])), None);
    // An invalid procedure name.
    assert_eq!(
        sql_error_of(&[1, 0, 0x00, 0xD8, 0, 0]).map(|e| e.0),
        Some(8004)
    );
}

#[test]
fn ms_tds_rpc_client_request_example() {
    // [MS-TDS] 4.8 "RPC Client Request": after the packet header and ALL_HEADERS, procedure
    // "foo3", no option flags, one unnamed parameter with fDefaultValue, INTN(2), NULL.
    let payload = [
        0x04, 0x00, 0x66, 0x00, 0x6F, 0x00, 0x6F, 0x00, 0x33, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26,
        0x02, 0x00,
    ];
    let reqs = parse_rpc_batch(&payload).unwrap();
    assert_eq!(
        reqs,
        vec![RpcRequest {
            proc: RpcProc::Name("foo3".into()),
            option_flags: 0,
            params: vec![RpcParam {
                name: String::new(),
                output: false,
                by_default: true,
                type_info: TypeInfo::for_data_type(&DataType::SmallInt),
                value: Value::Null,
            }],
        }]
    );
    // And our writer produces exactly those bytes.
    let mut out = Vec::new();
    write_rpc(&mut out, &reqs[0]).unwrap();
    assert_eq!(out, payload);
}
