//! CREATE EXTERNAL TABLE over existing files: declared nullability is kept (sys.columns shows
//! it) and survives the printer round trip.

use parser::ast::*;
use parser::{parse_batch, roundtrip};

#[test]
fn external_table_columns_keep_not_null() {
    let sql = "CREATE EXTERNAL TABLE dbo.t (a int NOT NULL, b nvarchar(20) NULL, c bigint) \
               WITH (LOCATION = 'x/', DATA_SOURCE = ds, FILE_FORMAT = ff)";
    let mut v = parse_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let StatementKind::CreateExternal(c) = v.remove(0).kind else {
        panic!("not CREATE EXTERNAL");
    };
    let nullable: Vec<bool> = c.columns.iter().map(|(_, _, n)| *n).collect();
    assert_eq!(nullable, vec![false, true, true]);
    assert_eq!(roundtrip::check(sql), Ok(true));
}
