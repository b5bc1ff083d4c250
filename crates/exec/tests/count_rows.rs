//! `exec::table_io::count_rows` (the optimizer's row count of a table without statistics)
//! counts slot arrays instead of decoding rows: the count is the one a full decoding scan
//! sees, for heaps and clustered tables, after deletes.

mod common;

use common::Env;
use exec::ExecEnv;
use types::DataType;

#[test]
fn count_rows_matches_a_decoding_scan() {
    let mut env = Env::new();
    let cols = [
        ("a", DataType::Int, false),
        ("v", DataType::VarChar(Some(20)), true),
    ];
    env.create("h", &cols, None).expect("heap");
    env.create("c", &cols, Some(&[0])).expect("clustered");
    let mut values = Vec::new();
    for i in 0..1500 {
        values.push(format!("({i}, 'row {i}')"));
    }
    for t in ["h", "c"] {
        for chunk in values.chunks(500) {
            env.run(&format!("INSERT INTO {t} VALUES {}", chunk.join(", ")))
                .expect("insert");
        }
        env.run(&format!("DELETE FROM {t} WHERE a % 3 = 0"))
            .expect("delete");
        env.commit().expect("commit");
        let db = env.storage("testdb").expect("db");
        let def = env.tables[t].clone();
        let counted = exec::table_io::count_rows(&db, &def).expect("count");
        let store = exec::table_io::TableStore::open(db, def).expect("store");
        let mut decoded = 0u64;
        store
            .for_each_row(&mut |_, _| {
                decoded += 1;
                Ok(())
            })
            .expect("scan");
        assert_eq!(counted, 1000, "{t}");
        assert_eq!(counted, decoded, "{t}");
    }
}
