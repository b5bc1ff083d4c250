//! Renaming an identifier inside stored expression text (`sp_rename` of a column that a
//! CHECK constraint, DEFAULT or computed column names): every identifier token equal to the
//! old name (case-insensitive, quoted or not) becomes the new name in brackets; string
//! literals, comments and keywords are left alone.

use common::SqlResult;

use crate::lexer::{tokenize, Tok};

/// `src` with identifier `old` replaced by `[new]`.
pub fn replace_identifier(src: &str, old: &str, new: &str) -> SqlResult<String> {
    let tokens = tokenize(src)?;
    let mut out = String::with_capacity(src.len() + new.len());
    let mut pos = 0usize;
    for t in &tokens {
        let (start, end) = (t.start as usize, t.end as usize);
        let Some(text) = src.get(start..end) else {
            continue;
        };
        let name = match t.kind {
            Tok::Word if !t.reserved => text.to_string(),
            Tok::QuotedIdent if text.len() >= 2 => {
                let inner = &text[1..text.len() - 1];
                if text.starts_with('[') {
                    inner.replace("]]", "]")
                } else {
                    inner.replace("\"\"", "\"")
                }
            }
            _ => continue,
        };
        if name.to_lowercase() == old.to_lowercase() {
            out.push_str(&src[pos..start]);
            out.push('[');
            out.push_str(&new.replace(']', "]]"));
            out.push(']');
            pos = end;
        }
    }
    out.push_str(&src[pos..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::replace_identifier;

    #[test]
    fn replaces_identifiers_not_strings() {
        let r = replace_identifier("([a]>(0) AND a<>'a' AND [ab]=1)", "a", "b").unwrap();
        assert_eq!(r, "([b]>(0) AND [b]<>'a' AND [ab]=1)");
    }
}
