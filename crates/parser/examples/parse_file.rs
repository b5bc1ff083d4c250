//! Parses each batch of a script file and prints the statements' Debug form (or the error).
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    for b in parser::split_batches(&text) {
        match parser::parse_batch(&b.text) {
            Ok(stmts) => {
                for s in stmts {
                    println!("{s:?}");
                }
            }
            Err(e) => println!("ERROR (batch at line {}): {e}", b.first_line),
        }
    }
}
