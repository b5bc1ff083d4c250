//! Inputs found by the cargo-fuzz targets (`fuzz/`, see `fuzz/README.md`), each kept as a test
//! before its fix.

use tds::rpc::{parse_rpc_batch_checked, proc_id, write_rpc_batch};
use tds::types::TypeInfo;

/// sp_executesql by id with one unnamed parameter of the given TYPE_INFO and value bytes.
fn rpc_with_param(type_info: &[u8], value: &[u8]) -> Vec<u8> {
    let mut b = vec![0xFF, 0xFF];
    b.extend_from_slice(&proc_id::SP_EXECUTESQL.to_le_bytes());
    b.extend_from_slice(&[0, 0]); // option flags
    b.extend_from_slice(&[0, 0]); // empty B_VARCHAR name, status
    b.extend_from_slice(type_info);
    b.extend_from_slice(value);
    b
}

/// tds_packets, crash-63154a25 (python-tds's sp_executesql, mutated): DECIMALN declared with
/// length 5 but precision 12, whose values take 9 bytes. It decoded (the 5-byte value fit),
/// and the request re-encoded into bytes the decoder refused. Now the TYPE_INFO is refused:
/// Msg 8017 (invalid precision or scale for the declared length).
#[test]
fn decimal_type_info_shorter_than_its_precision_needs_is_8017() {
    let b = rpc_with_param(&[0x6A, 5, 12, 3], &[5, 1, 0x39, 0x30, 0, 0]);
    let e = parse_rpc_batch_checked(&b).expect_err("inconsistent TYPE_INFO");
    assert_eq!(e.sql_error.as_ref().map(|s| s.number), Some(8017), "{e:?}");
    assert!(TypeInfo::read(&mut &[0x6A, 5, 12, 3][..]).is_err());
    assert!(TypeInfo::read(&mut &[0x6Cu8, 9, 20, 0][..]).is_err());
    // every length that holds the precision still decodes, and round-trips
    for (len, precision) in [(5u8, 9u8), (9, 12), (17, 12), (13, 28), (17, 38)] {
        let b = rpc_with_param(&[0x6A, len, precision, 3], &[5, 1, 0x39, 0x30, 0, 0]);
        let reqs = parse_rpc_batch_checked(&b).expect("consistent TYPE_INFO");
        let mut out = Vec::new();
        write_rpc_batch(&mut out, &reqs).expect("re-encode");
        assert_eq!(
            parse_rpc_batch_checked(&out).ok(),
            Some(reqs),
            "len {len} p {precision}"
        );
    }
}
