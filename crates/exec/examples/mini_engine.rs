//! A minimal jsonl engine over exec's test harness, for running the conformance runners
//! against the query pipeline before the real engine exists:
//! `LATCHKEY_BIN="target/debug/examples/mini_engine" python3 run_slt.py FILE`.
//! (Not the product: no catalog persistence, one in-memory catalog per process.)

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, Write};

fn json_str(s: &str) -> String {
    types::json_string(s)
}

fn main() {
    let mut env = common::Env::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut batch = String::new();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let l = line.trim_end_matches('\r');
        if !l.eq_ignore_ascii_case("GO") {
            batch.push_str(l);
            batch.push('\n');
            continue;
        }
        let text = std::mem::take(&mut batch);
        let mut events = Vec::new();
        match parser::parse_batch(&text) {
            Err(e) => events.push(err_json(&e)),
            Ok(stmts) => {
                for s in &stmts {
                    match env.run_stmt(s) {
                        Ok(r) => {
                            if r.is_query {
                                let cols: Vec<String> = r
                                    .cols
                                    .iter()
                                    .map(|c| {
                                        format!(
                                            "{{\"name\":{},\"type\":\"{}\"}}",
                                            json_str(&c.name),
                                            c.data_type.sql_name()
                                        )
                                    })
                                    .collect();
                                let rows: Vec<String> = r
                                    .rows
                                    .iter()
                                    .map(|row| {
                                        let v: Vec<String> = row
                                            .iter()
                                            .zip(&r.cols)
                                            .map(|(v, c)| v.to_json(&c.data_type))
                                            .collect();
                                        format!("[{}]", v.join(","))
                                    })
                                    .collect();
                                events.push(format!(
                                    "{{\"type\":\"resultset\",\"columns\":[{}],\"rows\":[{}]}}",
                                    cols.join(","),
                                    rows.join(",")
                                ));
                            }
                            if let Some(n) = r.count {
                                events.push(format!("{{\"type\":\"rowcount\",\"count\":{n}}}"));
                            }
                        }
                        Err(e) => {
                            events.push(err_json(&e));
                            break;
                        }
                    }
                }
            }
        }
        for e in events {
            let _ = writeln!(out, "{e}");
        }
        let _ = writeln!(out, "{{\"type\":\"batch_end\"}}");
        let _ = out.flush();
    }
}

fn err_json(e: &common_err::E) -> String {
    format!(
        "{{\"type\":\"error\",\"number\":{},\"severity\":{},\"state\":{},\"message\":{}}}",
        e.number,
        e.severity,
        e.state,
        json_str(&e.message)
    )
}

mod common_err {
    pub type E = ::common::SqlError;
}
