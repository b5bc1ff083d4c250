//! Any bytes into the decoders: an error or a value, never a panic, and never an allocation
//! beyond what the input justifies (proptest; the whole-message fuzzing of the server lives
//! with the framing code).

use proptest::prelude::*;
use tds::rows::{read_colmetadata, read_nbcrow, read_returnvalue, read_row, ColumnMeta};
use tds::rpc::parse_rpc_batch;
use tds::types::TypeInfo;
use tds::value_codec::read_value;
use types::DataType;

/// TYPE_INFO bytes of every type latchkey announces plus the legacy ones clients send, so the
/// fuzzer spends its time in value decoding rather than rejecting unknown type bytes.
fn type_infos() -> Vec<TypeInfo> {
    let mut dts = vec![
        DataType::Bit,
        DataType::TinyInt,
        DataType::SmallInt,
        DataType::Int,
        DataType::BigInt,
        DataType::Decimal {
            precision: 38,
            scale: 10,
        },
        DataType::Numeric {
            precision: 5,
            scale: 0,
        },
        DataType::Float,
        DataType::Real,
        DataType::Money,
        DataType::SmallMoney,
        DataType::DateTime,
        DataType::SmallDateTime,
        DataType::Date,
        DataType::UniqueIdentifier,
        DataType::Char(5),
        DataType::VarChar(Some(100)),
        DataType::VarChar(None),
        DataType::NChar(3),
        DataType::NVarChar(Some(100)),
        DataType::NVarChar(None),
        DataType::Binary(4),
        DataType::VarBinary(Some(50)),
        DataType::VarBinary(None),
    ];
    for s in [0, 3, 7] {
        dts.push(DataType::Time(s));
        dts.push(DataType::DateTime2(s));
        dts.push(DataType::DateTimeOffset(s));
    }
    let mut tis: Vec<TypeInfo> = dts
        .iter()
        .flat_map(|d| [TypeInfo::for_data_type(d), TypeInfo::for_column(d, false)])
        .collect();
    for raw in [
        &[0x23u8, 0xFF, 0xFF, 0xFF, 0x7F, 9, 4, 0xD0, 0, 0x34][..], // TEXT
        &[0x63, 0xFF, 0xFF, 0xFF, 0x7F, 9, 4, 0xD0, 0, 0x34],       // NTEXT
        &[0x22, 0xFF, 0xFF, 0xFF, 0x7F],                            // IMAGE
        &[0x62, 0x49, 0x1F, 0, 0],                                  // SSVARIANT
        &[0xF1, 0],                                                 // XML
        &[0x27, 20],                                                // legacy VARCHAR
    ] {
        tis.push(TypeInfo::read(&mut &raw[..]).unwrap());
    }
    tis
}

/// Cases per property: 2000 by default, `TDS_FUZZ_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("TDS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn type_info_read_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut input = &bytes[..];
        if let Ok(ti) = TypeInfo::read(&mut input) {
            // Whatever was accepted writes back to the same bytes it was read from, except
            // for XML schema info (dropped) and legacy types' unused bits.
            let _ = ti.to_data_type();
            let _ = ti.framing();
        }
    }

    #[test]
    fn read_value_never_panics(which in any::<prop::sample::Index>(), bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        let tis = type_infos();
        let ti = &tis[which.index(tis.len())];
        let mut input = &bytes[..];
        let before = input.len();
        let _ = read_value(&mut input, ti);
        prop_assert!(input.len() <= before);
    }

    #[test]
    fn rows_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256), ncols in 0usize..12, seed in any::<u64>()) {
        let tis = type_infos();
        let cols: Vec<ColumnMeta> = (0..ncols)
            .map(|i| ColumnMeta {
                name: format!("c{i}"),
                type_info: tis[(seed as usize).wrapping_add(i * 7) % tis.len()].clone(),
                nullable: true,
                flags: 0,
                user_type: 0,
            })
            .collect();
        let _ = read_row(&mut &bytes[..], &cols);
        let _ = read_nbcrow(&mut &bytes[..], &cols);
        let _ = read_colmetadata(&mut &bytes[..]);
        let _ = read_returnvalue(&mut &bytes[..]);
    }

    #[test]
    fn rpc_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_rpc_batch(&bytes);
    }

    #[test]
    fn rpc_mutations_never_panic(pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        // A valid sp_executesql request with several parameter types, one byte changed and
        // cut short: exercises the deep paths random bytes rarely reach.
        let mut b = valid_rpc();
        let i = pos.index(b.len());
        b[i] = byte;
        let n = cut.index(b.len() + 1);
        let _ = parse_rpc_batch(&b[..n.max(i)]);
        let _ = parse_rpc_batch(&b);
    }
}

fn valid_rpc() -> Vec<u8> {
    use tds::rpc::{write_rpc, RpcParam, RpcProc, RpcRequest};
    use types::Value;
    let p = |dt: DataType, v: Value| RpcParam {
        name: "@p".into(),
        output: false,
        by_default: false,
        type_info: TypeInfo::for_data_type(&dt),
        value: v,
    };
    let req = RpcRequest {
        proc: RpcProc::Id(10),
        option_flags: 0,
        params: vec![
            p(DataType::NVarChar(None), Value::NVarChar("SELECT 1".into())),
            p(
                DataType::Decimal {
                    precision: 20,
                    scale: 4,
                },
                Value::Decimal {
                    mantissa: -123456,
                    scale: 4,
                },
            ),
            p(
                DataType::DateTimeOffset(7),
                Value::DateTimeOffset {
                    days: 700_000,
                    ticks: 5,
                    offset_minutes: -60,
                },
            ),
            p(DataType::Money, Value::Money(5)),
            p(DataType::VarBinary(None), Value::VarBinary(vec![1, 2, 3])),
            p(DataType::UniqueIdentifier, Value::UniqueIdentifier([7; 16])),
        ],
    };
    let mut out = Vec::new();
    write_rpc(&mut out, &req).unwrap();
    out
}
