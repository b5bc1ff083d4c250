//! BULK INSERT: the statement, every SQL Server option, round trip through the printer, and
//! syntax errors for unknown options and values of the wrong kind.

use parser::ast::*;
use parser::{parse_batch, roundtrip};

fn one(sql: &str) -> BulkInsert {
    let mut v = parse_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(v.len(), 1, "{sql}");
    match v.remove(0).kind {
        StatementKind::BulkInsert(b) => *b,
        k => panic!("not BULK INSERT: {k:?}"),
    }
}

#[test]
fn options_and_round_trip() {
    let sql = "BULK INSERT db.dbo.t FROM 'C:\\data\\it''s.tbl' WITH (FIELDTERMINATOR = '|', \
               ROWTERMINATOR = '|\\n', FIRSTROW = 2, LASTROW = 10, FORMAT = 'CSV', \
               FIELDQUOTE = '\"', CODEPAGE = 'ACP', DATAFILETYPE = 'widechar', KEEPNULLS, \
               KEEPIDENTITY, TABLOCK, CHECK_CONSTRAINTS, FIRE_TRIGGERS, BATCHSIZE = 1000, \
               MAXERRORS = 0, ERRORFILE = '/tmp/e', ORDER (a ASC, b DESC), ROWS_PER_BATCH = 5, \
               KILOBYTES_PER_BATCH = 64)";
    let b = one(sql);
    assert_eq!(b.table.parts.len(), 3);
    assert_eq!(b.file, "C:\\data\\it's.tbl");
    assert_eq!(b.options.len(), 19);
    assert_eq!(
        b.options[1],
        BulkOption {
            name: "ROWTERMINATOR".into(),
            value: BulkOptionValue::Str("|\\n".into())
        }
    );
    assert_eq!(b.options[8].value, BulkOptionValue::None);
    match &b.options[16].value {
        BulkOptionValue::Order(cols) => {
            assert_eq!(cols.len(), 2);
            assert!(!cols[0].1 && cols[1].1);
        }
        v => panic!("{v:?}"),
    }
    assert_eq!(roundtrip::check(sql), Ok(true));
    assert_eq!(roundtrip::check("bulk insert t from 'f'"), Ok(true));
    // lower-case keywords, no WITH
    assert!(one("bulk insert t from 'f'").options.is_empty());
}

#[test]
fn syntax_errors() {
    for (sql, near) in [
        ("BULK INSERT t FROM 'f' WITH (NOSUCH)", "NOSUCH"),
        ("BULK INSERT t FROM 'f' WITH (FIRSTROW)", ")"),
        ("BULK INSERT t FROM 'f' WITH (TABLOCK = 1)", "="),
        ("BULK INSERT t FROM f", "f"),
        ("BULK INSERT t 'f'", "f"),
    ] {
        let e = parse_batch(sql).expect_err(sql);
        assert!(e.number == 102 || e.number == 156, "{sql}: {e}");
        assert!(e.message.contains(near), "{sql}: {e}");
    }
}
