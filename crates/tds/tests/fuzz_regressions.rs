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
/// and the request re-encoded into bytes the decoder refused. Refusing it broke FreeTDS
/// (pyodbc's negative decimal parameter: length 9, precision 20), which SQL Server accepts;
/// now a short length is read as the length the precision needs, and re-encodes consistently.
#[test]
fn decimal_type_info_shorter_than_its_precision_needs_takes_the_precisions_length() {
    let t = TypeInfo::read(&mut &[0x6A, 5, 12, 3][..]).expect("short length accepted");
    assert_eq!((t.precision, t.scale), (12, 3));
    assert!(TypeInfo::read(&mut &[0x6Cu8, 9, 20, 0][..]).is_ok());
    assert!(TypeInfo::read(&mut &[0x6Cu8, 1, 20, 0][..]).is_err());
    assert!(TypeInfo::read(&mut &[0x6Cu8, 9, 39, 0][..]).is_err());
    // every declared length decodes, and the request round-trips
    for (len, precision) in [
        (5u8, 12u8),
        (9, 20),
        (5, 9u8),
        (9, 12),
        (17, 12),
        (13, 28),
        (17, 38),
    ] {
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
