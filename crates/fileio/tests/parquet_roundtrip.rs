//! Parquet write → read gives the same values for every SQL type; DuckDB (when installed)
//! reads the file latchkey wrote with the Parquet types documented in parquet_io.rs.

use fileio::parquet_io::{read_rows, read_schema, write_file, FileColumn, ParquetCompression};
use types::datetime::days_from_civil;
use types::{DataType, Value};

fn columns() -> Vec<FileColumn> {
    let c = |n: &str, t: DataType| FileColumn {
        name: n.to_string(),
        data_type: t,
    };
    vec![
        c("i", DataType::Int),
        c("ti", DataType::TinyInt),
        c(
            "d",
            DataType::Decimal {
                precision: 38,
                scale: 10,
            },
        ),
        c("m", DataType::Money),
        c("f", DataType::Float),
        c("b", DataType::Bit),
        c("dt", DataType::Date),
        c("tm", DataType::Time(7)),
        c("d2", DataType::DateTime2(6)),
        c("s", DataType::NVarChar(Some(20))),
        c("bin", DataType::VarBinary(Some(8))),
        c("g", DataType::UniqueIdentifier),
    ]
}

fn rows() -> Vec<Vec<Value>> {
    vec![
        vec![
            Value::Int(-7),
            Value::TinyInt(255),
            Value::Decimal {
                mantissa: -12_345_678_901_234_567_890_123_456_789,
                scale: 10,
            },
            Value::Money(9_223_372_036_854_775_807),
            Value::Float(1.5e300),
            Value::Bit(true),
            Value::Date(days_from_civil(1, 1, 1)),
            Value::Time(863_999_999_999),
            Value::DateTime2 {
                days: days_from_civil(9999, 12, 31),
                ticks: 863_999_999_990,
            },
            Value::NVarChar("straße 日本".into()),
            Value::VarBinary(vec![0xde, 0xad]),
            Value::UniqueIdentifier([7; 16]),
        ],
        vec![Value::Null; 12],
    ]
}

#[test]
fn every_type_round_trips() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.parquet");
    let n = write_file(&path, &columns(), &rows(), ParquetCompression::Snappy).expect("write");
    assert_eq!(n, 2);
    assert_eq!(read_schema(&path).expect("schema"), columns());
    assert_eq!(read_rows(&path, &columns()).expect("read"), rows());
    // the folder form reads the same rows; an existing file is never overwritten
    assert_eq!(read_rows(dir.path(), &columns()).expect("read dir"), rows());
    assert!(write_file(&path, &columns(), &rows(), ParquetCompression::None).is_err());
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.parquet");
    std::fs::write(&path, b"PAR1 not really parquet PAR1").expect("write");
    assert!(read_schema(&path).is_err());
    assert!(read_rows(&path, &columns()).is_err());
    assert_eq!(
        read_schema(&dir.path().join("missing.parquet"))
            .unwrap_err()
            .number,
        4860
    );
}

#[test]
fn duckdb_reads_what_latchkey_writes() {
    let has_duckdb = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_duckdb {
        eprintln!("duckdb (python3) not installed: interop check skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.parquet");
    write_file(&path, &columns(), &rows(), ParquetCompression::Snappy).expect("write");
    let script = format!(
        "import duckdb\nr = duckdb.sql(\"select i, ti, d, m, f, b, dt, tm, d2, s, bin, g from '{}' where i is not null\").fetchall()[0]\nprint('|'.join(str(v) for v in r))",
        path.display()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "-7|255|-1234567890123456789.0123456789|922337203685477.5807|1.5e+300|True|0001-01-01|23:59:59.999999|9999-12-31 23:59:59.999999|straße 日本|b'\\xde\\xad'|07070707-0707-0707-0707-070707070707"
    );
}
