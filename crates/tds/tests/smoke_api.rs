//! The API the server helper builds on: int/bigint/varchar/nvarchar/NULL through
//! COLMETADATA + ROW/NBCROW and an RPC request.
use tds::rows::{
    read_colmetadata, read_nbcrow, read_row, write_colmetadata, write_row, ColumnMeta,
};
use tds::rpc::{parse_rpc_batch, write_rpc, RpcParam, RpcProc, RpcRequest};
use tds::types::TypeInfo;
use types::{DataType, Value};

#[test]
fn result_set_round_trips() {
    let cols = vec![
        ColumnMeta::new("i", &DataType::Int, true),
        ColumnMeta::new("b", &DataType::BigInt, false),
        ColumnMeta::new("v", &DataType::VarChar(Some(10)), true),
        ColumnMeta::new("n", &DataType::NVarChar(None), true),
    ];
    let mut out = Vec::new();
    write_colmetadata(&mut out, &cols);
    let rows = [
        vec![
            Value::Int(-5),
            Value::BigInt(1 << 40),
            Value::VarChar("héllo".into()),
            Value::NVarChar("日本".into()),
        ],
        vec![Value::Null, Value::BigInt(0), Value::Null, Value::Null],
    ];
    for r in &rows {
        write_row(&mut out, &cols, r).unwrap();
    }
    let mut input = &out[..];
    assert_eq!(input[0], 0x81);
    input = &input[1..];
    let got = read_colmetadata(&mut input).unwrap();
    assert_eq!(got, cols);
    for r in &rows {
        let tok = input[0];
        input = &input[1..];
        let back = if tok == 0xD1 {
            read_row(&mut input, &got)
        } else {
            read_nbcrow(&mut input, &got)
        }
        .unwrap();
        assert_eq!(&back, r);
    }
    assert!(input.is_empty());
}

#[test]
fn rpc_round_trips() {
    let req = RpcRequest {
        proc: RpcProc::Id(10),
        option_flags: 0,
        params: vec![
            RpcParam {
                name: String::new(),
                output: false,
                by_default: false,
                type_info: TypeInfo::for_data_type(&DataType::NVarChar(Some(4000))),
                value: Value::NVarChar("select @a".into()),
            },
            RpcParam {
                name: "@a".into(),
                output: true,
                by_default: false,
                type_info: TypeInfo::for_data_type(&DataType::Int),
                value: Value::Null,
            },
        ],
    };
    let mut out = Vec::new();
    write_rpc(&mut out, &req).unwrap();
    assert_eq!(parse_rpc_batch(&out).unwrap(), vec![req]);
}
