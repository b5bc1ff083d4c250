//! The round-trip oracle (parse -> print -> parse gives the same tree), shared by the tests and
//! the fuzz target.

use crate::ast::Statement;
use crate::parse_batch;
use crate::printer::print_batch;

/// Debug rendering of statements without source positions (`line`, `span`) and module `text`,
/// which legitimately differ between the original and the printed SQL.
pub fn normalized_debug(stmts: &[Statement]) -> String {
    let d = format!("{stmts:?}");
    let b = d.as_bytes();
    let mut out = String::with_capacity(d.len());
    let mut i = 0;
    let mut in_str = false;
    let mut seg_start = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let rest = &d[i..];
        let skip = if let Some(r) = rest.strip_prefix("line: ") {
            let digits = r.bytes().take_while(|x| x.is_ascii_digit()).count();
            if digits > 0 && r[digits..].starts_with(", ") {
                Some(6 + digits + 2)
            } else {
                None
            }
        } else if rest.starts_with("span: Span {") {
            rest.find('}').map(|e| {
                let mut n = e + 1;
                if rest[n..].starts_with(", ") {
                    n += 2;
                }
                n
            })
        } else if rest.starts_with("text: \"") {
            // skip the string literal
            let mut j = 7;
            let rb = rest.as_bytes();
            while j < rb.len() {
                if rb[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if rb[j] == b'"' {
                    break;
                }
                j += 1;
            }
            Some((j + 1).min(rest.len()))
        } else {
            None
        };
        if let Some(n) = skip {
            out.push_str(&d[seg_start..i]);
            i += n;
            seg_start = i;
            continue;
        }
        i += 1;
    }
    out.push_str(&d[seg_start.min(d.len())..]);
    out
}

/// Checks the round-trip property for `sql`. `Ok(false)`: the input does not parse (nothing to
/// check); `Ok(true)`: it parses and its printed form parses to the same tree; `Err`: the printed
/// form fails to parse or parses differently (a printer or parser bug).
pub fn check(sql: &str) -> Result<bool, String> {
    let Ok(first) = parse_batch(sql) else {
        return Ok(false);
    };
    let printed = print_batch(&first);
    let second = parse_batch(&printed)
        .map_err(|e| format!("printed SQL does not parse: {e}\n--- printed:\n{printed}"))?;
    let a = normalized_debug(&first);
    let b = normalized_debug(&second);
    if a != b {
        return Err(format!(
            "round trip changed the tree\n--- printed:\n{printed}\n--- first:\n{a}\n--- second:\n{b}"
        ));
    }
    // printing is a fixed point
    let printed2 = print_batch(&second);
    if printed2 != printed {
        return Err(format!(
            "printing is not stable\n--- 1:\n{printed}\n--- 2:\n{printed2}"
        ));
    }
    Ok(true)
}
