//! INSERT ... SELECT: streamed when the source cannot see the target, materialized
//! (Halloween protection) when it can; atomic either way.

mod common;

use common::Env;
use types::DataType;

fn tables(env: &mut Env) {
    for t in ["a", "b"] {
        env.create(t, &[("x", DataType::Int, true)], None)
            .expect("create");
    }
    env.run("INSERT INTO a VALUES (1), (2), (3)")
        .expect("insert a");
}

#[test]
fn self_insert_reads_the_table_before_writing() {
    let mut env = Env::new();
    tables(&mut env);
    env.run("INSERT INTO a SELECT x + 10 FROM a")
        .expect("self insert");
    assert_eq!(env.q("SELECT COUNT(*), SUM(x) FROM a"), vec!["6|42"]);
    // through a join with another table too
    env.run("INSERT INTO b SELECT x FROM a WHERE x < 3")
        .expect("b");
    env.run("INSERT INTO b SELECT a.x FROM a JOIN b ON a.x = b.x")
        .expect("join insert");
    assert_eq!(env.q("SELECT COUNT(*) FROM b"), vec!["4"]);
}

#[test]
fn self_insert_spanning_many_pages() {
    let mut env = Env::new();
    env.create(
        "wide",
        &[
            ("x", DataType::Int, true),
            ("pad", DataType::Char(1000), true),
        ],
        None,
    )
    .expect("create");
    env.run(
        "INSERT INTO wide SELECT v.n * 10 + w.n, 'p' FROM \
         (VALUES (0),(1),(2),(3),(4)) v(n) CROSS JOIN (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) w(n)",
    )
    .expect("fill");
    env.run("INSERT INTO wide SELECT x + 100, pad FROM wide")
        .expect("self insert");
    assert_eq!(env.q("SELECT COUNT(*), MAX(x) FROM wide"), vec!["100|149"]);
}

#[test]
fn streamed_insert_copies_and_stays_atomic() {
    let mut env = Env::new();
    tables(&mut env);
    env.run("INSERT INTO b SELECT x * 2 FROM a").expect("copy");
    assert_eq!(env.q("SELECT SUM(x) FROM b"), vec!["12"]);
    // the third source row fails after two rows went in: none of them stays
    assert_eq!(
        env.err("INSERT INTO b SELECT 6 / (3 - x) FROM a").number,
        8134
    );
    assert_eq!(env.q("SELECT COUNT(*), SUM(x) FROM b"), vec!["3|12"]);
    // subqueries in the source keep the materializing path and still work
    env.run("INSERT INTO b SELECT (SELECT MAX(x) FROM b) FROM a WHERE x = 1")
        .expect("subquery");
    assert_eq!(env.q("SELECT MAX(x), COUNT(*) FROM b"), vec!["6|4"]);
}

#[test]
fn nvarchar_lengths_and_2628_through_a_streamed_insert() {
    let mut env = Env::new();
    env.create("n", &[("s", DataType::NVarChar(Some(3)), true)], None)
        .expect("create");
    // 3 characters, 6 UTF-8 bytes: fits an nvarchar(3)
    env.run("INSERT INTO n SELECT v FROM (VALUES (N'ééé'), (N'ab'), (NULL)) t(v)")
        .expect("fits");
    assert_eq!(env.q("SELECT COUNT(*), MAX(LEN(s)) FROM n"), vec!["3|3"]);
    let e = env.err("INSERT INTO n SELECT v FROM (VALUES (N'ok'), (N'abcdef')) t(v)");
    assert_eq!(e.number, 2628);
    assert_eq!(
        e.message,
        "String or binary data would be truncated in table 'testdb.dbo.n', column 's'. Truncated value: 'abc'."
    );
    assert_eq!(env.q("SELECT COUNT(*) FROM n"), vec!["3"]);
}
