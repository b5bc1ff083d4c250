//! Zero-copy T-SQL lexer: tokens are byte ranges into the input; string/identifier unescaping
//! happens only when the parser asks for a token's value.

use common::{SqlError, SqlResult};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Unquoted word: identifier or keyword (`select`, `#tmp`, `$action`).
    Word,
    /// `[x]` or `"x"`.
    QuotedIdent,
    /// `@name`
    Variable,
    /// `@@name`
    SysVariable,
    /// `'text'`
    String,
    /// `N'text'`
    NString,
    Integer,
    Decimal,
    Float,
    Money,
    Binary,
    LParen,
    RParen,
    Comma,
    Dot,
    Semicolon,
    Colon,
    DoubleColon,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Eq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    NotLt,
    NotGt,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Tok,
    /// A `Word` that is a reserved keyword (looked up once, here).
    pub reserved: bool,
    pub start: u32,
    pub end: u32,
    pub line: u32,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '#' || c == '@'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '#' || c == '@' || c == '$'
}

/// Tokenises `src`. Errors: Msg 105 (unclosed quote / bracket), Msg 113 (unclosed comment),
/// Msg 102 for a character that starts no token.
pub fn tokenize(src: &str) -> SqlResult<Vec<Token>> {
    if src.len() > u32::MAX as usize - 1 {
        return Err(SqlError::custom(
            40000,
            16,
            1,
            "The batch is too large to parse.",
        ));
    }
    let b = src.as_bytes();
    let mut toks = Vec::with_capacity(src.len() / 4 + 1);
    let mut i = 0usize;
    let mut line = 1u32;
    let n = b.len();
    while i < n {
        let c = b[i];
        // whitespace
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0b || c == 0x0c {
            i += 1;
            continue;
        }
        let start = i;
        let tline = line;
        let mut push = |kind: Tok, end: usize| {
            toks.push(Token {
                kind,
                reserved: kind == Tok::Word && crate::keywords::is_reserved(&src[start..end]),
                start: start as u32,
                end: end as u32,
                line: tline,
            })
        };
        match c {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 1u32;
                i += 2;
                loop {
                    if i >= n {
                        return Err(SqlError::new(113, &[]).at_line(line));
                    }
                    if b[i] == b'\n' {
                        line += 1;
                        i += 1;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
            b'\'' => {
                let end = scan_quoted(b, i + 1, b'\'', &mut line)
                    .ok_or_else(|| unclosed(src, i + 1, tline))?;
                push(Tok::String, end);
                i = end;
            }
            b'N' | b'n' if b.get(i + 1) == Some(&b'\'') => {
                let end = scan_quoted(b, i + 2, b'\'', &mut line)
                    .ok_or_else(|| unclosed(src, i + 2, tline))?;
                push(Tok::NString, end);
                i = end;
            }
            b'[' => {
                let end = scan_quoted(b, i + 1, b']', &mut line)
                    .ok_or_else(|| unclosed(src, i + 1, tline))?;
                push(Tok::QuotedIdent, end);
                i = end;
            }
            b'"' => {
                let end = scan_quoted(b, i + 1, b'"', &mut line)
                    .ok_or_else(|| unclosed(src, i + 1, tline))?;
                push(Tok::QuotedIdent, end);
                i = end;
            }
            b'0' if matches!(b.get(i + 1), Some(b'x') | Some(b'X')) => {
                i += 2;
                while i < n && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                push(Tok::Binary, i);
            }
            b'0'..=b'9' => {
                let (kind, end) = scan_number(b, i);
                push(kind, end);
                i = end;
            }
            b'.' if b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) => {
                let (kind, end) = scan_number(b, i);
                push(kind, end);
                i = end;
            }
            b'$' if b
                .get(i + 1)
                .is_some_and(|d| d.is_ascii_digit() || *d == b'.' || *d == b'-' || *d == b'+') =>
            {
                let mut j = i + 1;
                if b[j] == b'-' || b[j] == b'+' {
                    j += 1;
                }
                while j < n && (b[j].is_ascii_digit() || b[j] == b'.') {
                    j += 1;
                }
                push(Tok::Money, j);
                i = j;
            }
            b'@' if b.get(i + 1) == Some(&b'@') => {
                let end = scan_word(src, i + 2);
                push(Tok::SysVariable, end);
                i = end;
            }
            b'@' => {
                let end = scan_word(src, i + 1);
                push(Tok::Variable, end);
                i = end;
            }
            b'(' => {
                push(Tok::LParen, i + 1);
                i += 1;
            }
            b')' => {
                push(Tok::RParen, i + 1);
                i += 1;
            }
            b',' => {
                push(Tok::Comma, i + 1);
                i += 1;
            }
            b'.' => {
                push(Tok::Dot, i + 1);
                i += 1;
            }
            b';' => {
                push(Tok::Semicolon, i + 1);
                i += 1;
            }
            b':' => {
                if b.get(i + 1) == Some(&b':') {
                    push(Tok::DoubleColon, i + 2);
                    i += 2;
                } else {
                    push(Tok::Colon, i + 1);
                    i += 1;
                }
            }
            b'~' => {
                push(Tok::Tilde, i + 1);
                i += 1;
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'=' | b'<' | b'>' | b'!' => {
                let next = b.get(i + 1).copied();
                let (kind, len) = match (c, next) {
                    (b'+', Some(b'=')) => (Tok::PlusEq, 2),
                    (b'-', Some(b'=')) => (Tok::MinusEq, 2),
                    (b'*', Some(b'=')) => (Tok::StarEq, 2),
                    (b'/', Some(b'=')) => (Tok::SlashEq, 2),
                    (b'%', Some(b'=')) => (Tok::PercentEq, 2),
                    (b'&', Some(b'=')) => (Tok::AmpEq, 2),
                    (b'|', Some(b'=')) => (Tok::PipeEq, 2),
                    (b'^', Some(b'=')) => (Tok::CaretEq, 2),
                    (b'<', Some(b'=')) => (Tok::Le, 2),
                    (b'<', Some(b'>')) => (Tok::NotEq, 2),
                    (b'>', Some(b'=')) => (Tok::Ge, 2),
                    (b'!', Some(b'=')) => (Tok::NotEq, 2),
                    (b'!', Some(b'<')) => (Tok::NotLt, 2),
                    (b'!', Some(b'>')) => (Tok::NotGt, 2),
                    // `! =`: SQL Server also reads `!` and `=`/`<`/`>` apart (spaces, tabs)
                    (b'!', Some(b' ' | b'\t')) => {
                        let mut j = i + 1;
                        while matches!(b.get(j), Some(b' ' | b'\t')) {
                            j += 1;
                        }
                        match b.get(j) {
                            Some(b'=') => (Tok::NotEq, j + 1 - i),
                            Some(b'<') => (Tok::NotLt, j + 1 - i),
                            Some(b'>') => (Tok::NotGt, j + 1 - i),
                            _ => return Err(SqlError::syntax_near("!").at_line(line)),
                        }
                    }
                    (b'+', _) => (Tok::Plus, 1),
                    (b'-', _) => (Tok::Minus, 1),
                    (b'*', _) => (Tok::Star, 1),
                    (b'/', _) => (Tok::Slash, 1),
                    (b'%', _) => (Tok::Percent, 1),
                    (b'&', _) => (Tok::Amp, 1),
                    (b'|', _) => (Tok::Pipe, 1),
                    (b'^', _) => (Tok::Caret, 1),
                    (b'=', _) => (Tok::Eq, 1),
                    (b'<', _) => (Tok::Lt, 1),
                    (b'>', _) => (Tok::Gt, 1),
                    _ => return Err(SqlError::syntax_near("!").at_line(line)),
                };
                push(kind, i + len);
                i += len;
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                if is_ident_start(ch)
                    || (ch == '$' && src[i + 1..].starts_with(|c: char| c.is_alphabetic()))
                {
                    let end = scan_word(src, i + ch.len_utf8());
                    push(Tok::Word, end);
                    i = end;
                } else if ch.is_whitespace() {
                    i += ch.len_utf8();
                } else {
                    let mut s = [0u8; 4];
                    return Err(SqlError::syntax_near(ch.encode_utf8(&mut s)).at_line(line));
                }
            }
        }
    }
    toks.push(Token {
        kind: Tok::Eof,
        reserved: false,
        start: n as u32,
        end: n as u32,
        line,
    });
    Ok(toks)
}

fn unclosed(src: &str, from: usize, line: u32) -> SqlError {
    SqlError::new(105, &[&&src[from.min(src.len())..]]).at_line(line)
}

/// Scans a quoted token body from `i` (after the opening quote); returns the end offset (after
/// the closing quote). Doubled quote characters are escapes.
fn scan_quoted(b: &[u8], mut i: usize, q: u8, line: &mut u32) -> Option<usize> {
    let n = b.len();
    while i < n {
        let c = b[i];
        if c == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        if c == b'\n' {
            *line += 1;
        }
        i += 1;
    }
    None
}

fn scan_word(src: &str, mut i: usize) -> usize {
    let b = src.as_bytes();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'#' || c == b'@' || c == b'$' {
                i += 1;
            } else {
                break;
            }
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            if is_ident_char(ch) {
                i += ch.len_utf8();
            } else {
                break;
            }
        }
    }
    i
}

fn scan_number(b: &[u8], mut i: usize) -> (Tok, usize) {
    let n = b.len();
    let mut kind = Tok::Integer;
    while i < n && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < n && b[i] == b'.' {
        kind = Tok::Decimal;
        i += 1;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < n && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < n && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        // SQL Server accepts `1e`, `1e+` and `1e-` as 1e0
        while j < n && b[j].is_ascii_digit() {
            j += 1;
        }
        kind = Tok::Float;
        i = j;
    }
    (kind, i)
}

/// Value of a `'...'` / `N'...'` token (quotes removed, `''` unescaped), or of a `"..."`
/// string under `QUOTED_IDENTIFIER OFF` (`""` unescaped).
pub fn string_value(src: &str, t: &Token) -> String {
    let s = &src[t.start as usize..t.end as usize];
    let body = match t.kind {
        Tok::NString => &s[2..s.len() - 1],
        _ => &s[1..s.len() - 1],
    };
    if s.starts_with('"') {
        body.replace("\"\"", "\"")
    } else if body.contains('\'') {
        body.replace("''", "'")
    } else {
        body.to_string()
    }
}

/// Tokenises `src` under a `QUOTED_IDENTIFIER` setting: with it OFF, a `"..."` token is a
/// (varchar) string literal instead of an identifier. The setting is a parse-time one, so a
/// `SET QUOTED_IDENTIFIER ON|OFF` (or `SET ANSI_DEFAULTS ON|OFF`) in the text switches it for
/// the tokens after it, whether or not execution ever reaches that statement.
pub fn tokenize_with(src: &str, quoted_identifier: bool) -> SqlResult<Vec<Token>> {
    let mut toks = tokenize(src)?;
    // Token boundaries do not depend on the setting (`"` strings and identifiers both end at an
    // undoubled `"`), so only the kinds of the double-quoted tokens change.
    let mut on = quoted_identifier;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if !on && t.kind == Tok::QuotedIdent && src.as_bytes()[t.start as usize] == b'"' {
            toks[i].kind = Tok::String;
        }
        if t.kind == Tok::Word && word_is(src, &t, "SET") {
            if let Some((setting, next)) = set_quoted_identifier(src, &toks, i + 1) {
                on = setting;
                i = next;
                continue;
            }
        }
        i += 1;
    }
    Ok(toks)
}

fn word_is(src: &str, t: &Token, word: &str) -> bool {
    src[t.start as usize..t.end as usize].eq_ignore_ascii_case(word)
}

/// After a `SET` at `from`: `Some((on, index after ON/OFF))` when the statement is
/// `SET opt [, opt]... ON|OFF` naming `QUOTED_IDENTIFIER` or `ANSI_DEFAULTS`.
fn set_quoted_identifier(src: &str, toks: &[Token], from: usize) -> Option<(bool, usize)> {
    let mut j = from;
    let mut names_it = false;
    loop {
        let t = toks.get(j)?;
        if t.kind != Tok::Word {
            return None;
        }
        names_it |= word_is(src, t, "QUOTED_IDENTIFIER") || word_is(src, t, "ANSI_DEFAULTS");
        j += 1;
        if toks.get(j)?.kind == Tok::Comma {
            j += 1;
        } else {
            break;
        }
    }
    let t = toks.get(j)?;
    if !names_it || t.kind != Tok::Word {
        return None;
    }
    if word_is(src, t, "ON") {
        Some((true, j + 1))
    } else if word_is(src, t, "OFF") {
        Some((false, j + 1))
    } else {
        None
    }
}

/// Value of a quoted identifier token.
pub fn quoted_ident_value(src: &str, t: &Token) -> String {
    let s = &src[t.start as usize..t.end as usize];
    let body = &s[1..s.len() - 1];
    if s.starts_with('[') {
        body.replace("]]", "]")
    } else {
        body.replace("\"\"", "\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        tokenize(s).unwrap().iter().map(|t| t.kind).collect()
    }

    #[test]
    fn quoted_identifier_off_makes_double_quotes_strings_until_set_on() {
        let src = r#"SELECT "a""b" SET QUOTED_IDENTIFIER ON SELECT "c" SET ANSI_DEFAULTS OFF "d""#;
        let toks = tokenize_with(src, false).unwrap();
        let quoted: Vec<Tok> = toks
            .iter()
            .filter(|t| src.as_bytes().get(t.start as usize) == Some(&b'"'))
            .map(|t| t.kind)
            .collect();
        assert_eq!(quoted, [Tok::String, Tok::QuotedIdent, Tok::String]);
        assert_eq!(string_value(src, &toks[1]), "a\"b");
        assert!(tokenize_with(src, true).unwrap()[1].kind == Tok::QuotedIdent);
    }

    #[test]
    fn basic_tokens() {
        use Tok::*;
        assert_eq!(
            kinds("select [a b], N'x''y', 1.5e3, $2, 0xFF, @v, @@spid -- c\n /* a /* b */ c */ !< <> +="),
            vec![
                Word, QuotedIdent, Comma, NString, Comma, Float, Comma, Money, Comma, Binary, Comma,
                Variable, Comma, SysVariable, NotLt, NotEq, PlusEq, Eof
            ]
        );
    }

    #[test]
    fn errors() {
        let e = tokenize("select 'abc").unwrap_err();
        assert_eq!(e.number, 105);
        assert_eq!(
            e.message,
            "Unclosed quotation mark after the character string 'abc'."
        );
        let e = tokenize("select 1\n/* x").unwrap_err();
        assert_eq!(e.number, 113);
        assert_eq!(e.line, 2);
    }

    #[test]
    fn string_values() {
        let src = "'it''s'";
        let t = tokenize(src).unwrap();
        assert_eq!(string_value(src, &t[0]), "it's");
    }
}

/// The statement's shape for `query_hash`: tokens in order, words lower-cased, comments and
/// white space gone, and every literal (string, number, money, binary) replaced by `?`, so two
/// statements that differ only in their constants share a shape — as SQL Server's
/// `query_hash` does. Text that does not tokenize is its own shape (lower-cased).
pub fn query_shape(src: &str) -> String {
    let Ok(tokens) = tokenize(src) else {
        return src.to_lowercase();
    };
    let mut out = String::with_capacity(src.len());
    for t in tokens.iter().filter(|t| t.kind != Tok::Eof) {
        if !out.is_empty() {
            out.push(' ');
        }
        match t.kind {
            Tok::String
            | Tok::NString
            | Tok::Integer
            | Tok::Decimal
            | Tok::Float
            | Tok::Money
            | Tok::Binary => out.push('?'),
            _ => out.push_str(&src[t.start as usize..t.end as usize].to_lowercase()),
        }
    }
    out
}

#[cfg(test)]
mod query_shape_tests {
    use super::query_shape;

    #[test]
    fn literals_and_layout_do_not_change_the_shape() {
        let a = query_shape("SELECT * FROM t WHERE a = 5 AND b = N'x' -- note");
        let b = query_shape("select *\n  from T where A = 17 and B = 'yy'");
        assert_eq!(a, b);
        assert_eq!(a, "select * from t where a = ? and b = ?");
        assert_ne!(a, query_shape("SELECT * FROM t WHERE a = @p AND b = 'x'"));
        assert_ne!(a, query_shape("SELECT * FROM u WHERE a = 5 AND b = N'x'"));
        assert_eq!(query_shape("SELECT 0x0A, 1.5e3, $2"), "select ? , ? , ?");
    }
}
