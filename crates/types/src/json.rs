//! JSON as SQL Server handles it: the reader (which keeps each value's span, so results are the
//! source text as written), SQL/JSON paths (`[append] [lax|strict] $.a[0]."b c"`), the scalar
//! functions ISJSON, JSON_VALUE, JSON_QUERY and JSON_MODIFY, and the rendering of one SQL value
//! as FOR JSON and JSON_MODIFY write it.
//!
//! Positions in error messages are zero-based character indexes, as SQL Server reports them;
//! running off the end names the character `.` at the text's length.

use common::{SqlError, SqlResult};

use crate::{DataType, Value};

/// Containers nested deeper than this are refused (SQL Server's limit is 128 levels).
const MAX_DEPTH: usize = 128;

/// Internal name of JSON_MODIFY whose new value is JSON text (JSON_QUERY, FOR JSON, a nested
/// JSON_MODIFY): the binder renames the call so the value is embedded as written, not quoted.
pub const JSON_MODIFY_RAW: &str = "JSON_MODIFY$JSON";

/// One parsed JSON value and its span `[start, end)` in characters of the source.
#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    start: usize,
    end: usize,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Members: (name as written, decoded name, value).
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    String(String),
    Number,
    True,
    False,
    Null,
}

struct Reader<'a> {
    s: &'a [char],
    pos: usize,
}

/// A parse failure at a character position.
struct Unexpected(usize);

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.s.get(self.pos) {
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, Unexpected> {
        self.skip_ws();
        let start = self.pos;
        let Some(&c) = self.s.get(self.pos) else {
            return Err(Unexpected(self.pos));
        };
        let kind = match c {
            '{' => {
                if depth >= MAX_DEPTH {
                    return Err(Unexpected(self.pos));
                }
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_ws();
                if self.s.get(self.pos) == Some(&'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.skip_ws();
                        if self.s.get(self.pos) != Some(&'"') {
                            return Err(Unexpected(self.pos));
                        }
                        let name = self.string()?;
                        self.skip_ws();
                        if self.s.get(self.pos) != Some(&':') {
                            return Err(Unexpected(self.pos));
                        }
                        self.pos += 1;
                        let v = self.value(depth + 1)?;
                        members.push((name, v));
                        self.skip_ws();
                        match self.s.get(self.pos) {
                            Some(',') => self.pos += 1,
                            Some('}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Unexpected(self.pos)),
                        }
                    }
                }
                Kind::Object(members)
            }
            '[' => {
                if depth >= MAX_DEPTH {
                    return Err(Unexpected(self.pos));
                }
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.s.get(self.pos) == Some(&']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.skip_ws();
                        match self.s.get(self.pos) {
                            Some(',') => self.pos += 1,
                            Some(']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Unexpected(self.pos)),
                        }
                    }
                }
                Kind::Array(items)
            }
            '"' => Kind::String(self.string()?),
            't' => self.word("true", Kind::True)?,
            'f' => self.word("false", Kind::False)?,
            'n' => self.word("null", Kind::Null)?,
            '-' | '0'..='9' => {
                self.number()?;
                Kind::Number
            }
            _ => return Err(Unexpected(self.pos)),
        };
        Ok(Node {
            kind,
            start,
            end: self.pos,
        })
    }

    fn word(&mut self, w: &str, kind: Kind) -> Result<Kind, Unexpected> {
        let start = self.pos;
        for expected in w.chars() {
            if self.s.get(self.pos) != Some(&expected) {
                return Err(Unexpected(start));
            }
            self.pos += 1;
        }
        Ok(kind)
    }

    /// A number token; a malformed one is reported at its first character.
    fn number(&mut self) -> Result<(), Unexpected> {
        let start = self.pos;
        let digits = |r: &mut Self| {
            let from = r.pos;
            while r.s.get(r.pos).is_some_and(|c| c.is_ascii_digit()) {
                r.pos += 1;
            }
            r.pos - from
        };
        if self.s.get(self.pos) == Some(&'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = digits(self);
        if n == 0 || (n > 1 && self.s.get(int_start) == Some(&'0')) {
            return Err(Unexpected(start));
        }
        if self.s.get(self.pos) == Some(&'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(Unexpected(start));
            }
        }
        if matches!(self.s.get(self.pos), Some('e' | 'E')) {
            self.pos += 1;
            if matches!(self.s.get(self.pos), Some('+' | '-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(Unexpected(start));
            }
        }
        if self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_alphanumeric() || *c == '.')
        {
            return Err(Unexpected(start));
        }
        Ok(())
    }

    /// A string literal (current character is the opening quote): its decoded value.
    fn string(&mut self) -> Result<String, Unexpected> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(&c) = self.s.get(self.pos) else {
                return Err(Unexpected(open));
            };
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(&e) = self.s.get(self.pos) else {
                        return Err(Unexpected(open));
                    };
                    self.pos += 1;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let hex: String =
                                self.s.iter().skip(self.pos).take(4).collect::<String>();
                            let code = (hex.len() == 4)
                                .then(|| u32::from_str_radix(&hex, 16).ok())
                                .flatten()
                                .ok_or(Unexpected(self.pos - 1))?;
                            self.pos += 4;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(Unexpected(self.pos - 1)),
                    }
                }
                c if (c as u32) < 0x20 => return Err(Unexpected(self.pos - 1)),
                c => out.push(c),
            }
        }
    }
}

/// Parses a whole document (any JSON value, whitespace around it allowed).
fn parse_any(s: &[char]) -> Result<Node, Unexpected> {
    let mut r = Reader { s, pos: 0 };
    let v = r.value(0)?;
    r.skip_ws();
    if r.pos < s.len() {
        return Err(Unexpected(r.pos));
    }
    Ok(v)
}

/// Msg 13609 for text that is not JSON: only an object or an array is a document.
fn parse_document(s: &[char], state: u8) -> SqlResult<Node> {
    let node = parse_any(s).map_err(|Unexpected(p)| not_json(s, p, state))?;
    if !matches!(node.kind, Kind::Object(_) | Kind::Array(_)) {
        return Err(not_json(s, node.start, state));
    }
    Ok(node)
}

fn not_json(s: &[char], pos: usize, state: u8) -> SqlError {
    let c = s.get(pos).copied().unwrap_or('.');
    let mut e = SqlError::new(13609, &[&c, &pos]);
    e.state = state;
    e
}

/// A parsed JSON value for callers that walk the tree themselves (OPENJSON): spans are byte
/// ranges `[start, end)` of the source text, so nested objects and arrays can be returned as
/// written.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonTree {
    Null,
    Bool(bool),
    /// The number as written.
    Number(String),
    Str(String),
    Array(Vec<(JsonTree, (usize, usize))>),
    Object(Vec<(String, JsonTree, (usize, usize))>),
}

/// Reads a whole JSON text (any value, whitespace around it allowed) with the reader the JSON
/// functions use; not JSON text is Msg 13609 with the given state.
pub fn parse_tree(text: &str, state: u8) -> SqlResult<JsonTree> {
    let chars: Vec<char> = text.chars().collect();
    let node = parse_any(&chars).map_err(|Unexpected(p)| not_json(&chars, p, state))?;
    // byte offset of every character index (and of the end)
    let mut offsets = Vec::with_capacity(chars.len() + 1);
    let mut b = 0;
    for c in &chars {
        offsets.push(b);
        b += c.len_utf8();
    }
    offsets.push(b);
    Ok(to_tree(&node, &chars, &offsets))
}

fn to_tree(n: &Node, chars: &[char], offsets: &[usize]) -> JsonTree {
    let span = |n: &Node| (offsets[n.start], offsets[n.end]);
    match &n.kind {
        Kind::Null => JsonTree::Null,
        Kind::True => JsonTree::Bool(true),
        Kind::False => JsonTree::Bool(false),
        Kind::Number => JsonTree::Number(chars[n.start..n.end].iter().collect()),
        Kind::String(s) => JsonTree::Str(s.clone()),
        Kind::Array(items) => JsonTree::Array(
            items
                .iter()
                .map(|i| (to_tree(i, chars, offsets), span(i)))
                .collect(),
        ),
        Kind::Object(members) => JsonTree::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), to_tree(v, chars, offsets), span(v)))
                .collect(),
        ),
    }
}

// ------------------------------------------------------------------ paths

/// One step of a SQL/JSON path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Member(String),
    Index(usize),
}

#[derive(Clone, Debug)]
struct JsonPath {
    append: bool,
    strict: bool,
    steps: Vec<Step>,
}

fn bad_path(p: &[char], pos: usize, state: u8) -> SqlError {
    let c = p.get(pos).copied().unwrap_or('.');
    let mut e = SqlError::new(13607, &[&c, &pos]);
    e.state = state;
    e
}

/// A path as OPENJSON reads it: whether it is `strict`, and its steps (Msg 13607 when
/// malformed; `append` is JSON_MODIFY's alone).
pub fn parse_path_steps(text: &str) -> SqlResult<(bool, Vec<Step>)> {
    let p = parse_path(text, false)?;
    Ok((p.strict, p.steps))
}

fn parse_path(text: &str, allow_append: bool) -> SqlResult<JsonPath> {
    let p: Vec<char> = text.chars().collect();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while p
            .get(*i)
            .is_some_and(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}'))
        {
            *i += 1;
        }
    };
    let keyword = |i: usize, w: &str| {
        let n = w.chars().count();
        p.iter().skip(i).take(n).copied().eq(w.chars())
            && !p
                .get(i + n)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    };
    let mut path = JsonPath {
        append: false,
        strict: false,
        steps: Vec::new(),
    };
    ws(&mut i);
    if keyword(i, "append") {
        if !allow_append {
            return Err(bad_path(&p, i, 14));
        }
        path.append = true;
        i += 6;
        ws(&mut i);
    }
    if keyword(i, "lax") {
        i += 3;
        ws(&mut i);
    } else if keyword(i, "strict") {
        path.strict = true;
        i += 6;
        ws(&mut i);
    }
    if keyword(i, "append") {
        return Err(bad_path(&p, i, 14));
    }
    if p.get(i) != Some(&'$') {
        return Err(bad_path(&p, i, 22));
    }
    i += 1;
    loop {
        ws(&mut i);
        match p.get(i) {
            None => break,
            Some('.') => {
                i += 1;
                ws(&mut i);
                match p.get(i) {
                    Some('"') => {
                        let mut r = Reader { s: &p, pos: i };
                        let name = r.string().map_err(|_| bad_path(&p, p.len(), 20))?;
                        i = r.pos;
                        path.steps.push(Step::Member(name));
                        if let Some(c) = p.get(i) {
                            if !matches!(c, '.' | '[' | ' ' | '\t' | '\n' | '\r' | '\u{c}') {
                                return Err(bad_path(&p, i, 14));
                            }
                        }
                    }
                    Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                        let start = i;
                        while p
                            .get(i)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                        {
                            i += 1;
                        }
                        path.steps.push(Step::Member(p[start..i].iter().collect()));
                    }
                    None => return Err(bad_path(&p, i, 14)),
                    Some(c) if matches!(c, '$' | '"' | '[' | ']' | '.') || c.is_ascii_digit() => {
                        return Err(bad_path(&p, i, 14))
                    }
                    Some(_) => return Err(bad_path(&p, i, 22)),
                }
            }
            Some('[') => {
                i += 1;
                ws(&mut i);
                let start = i;
                while p.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
                if i == start {
                    return Err(bad_path(&p, i, 21));
                }
                let digits: String = p[start..i].iter().collect();
                let index: u32 = digits.parse().map_err(|_| bad_path(&p, i - 1, 16))?;
                ws(&mut i);
                if p.get(i) != Some(&']') {
                    return Err(bad_path(&p, i, 15));
                }
                i += 1;
                path.steps.push(Step::Index(index as usize));
            }
            Some(c) if matches!(c, '$' | '"' | ']') || c.is_ascii_digit() => {
                return Err(bad_path(&p, i, 14))
            }
            Some(_) => return Err(bad_path(&p, i, 22)),
        }
    }
    Ok(path)
}

/// The value a path names (the first member of a repeated name, as SQL Server's reader).
fn walk<'n>(root: &'n Node, steps: &[Step]) -> Option<&'n Node> {
    let mut cur = root;
    for s in steps {
        cur = match (s, &cur.kind) {
            (Step::Member(name), Kind::Object(members)) => {
                &members.iter().find(|(n, _)| n == name)?.1
            }
            (Step::Index(i), Kind::Array(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn not_found(state: u8) -> SqlError {
    let mut e = SqlError::new(13608, &[]);
    e.state = state;
    e
}

// ------------------------------------------------------------------ functions

/// Result type of a JSON function, or None when `name` is not one.
pub fn result_type(name: &str, args: &[DataType]) -> Option<SqlResult<DataType>> {
    let (lo, hi) = match name {
        "ISJSON" => (1, 2),
        "JSON_VALUE" => (2, 2),
        "JSON_QUERY" => (1, 2),
        "JSON_PATH_EXISTS" => (2, 2),
        "JSON_MODIFY" | JSON_MODIFY_RAW => (3, 3),
        _ => return None,
    };
    let n = args.len();
    if n < lo || n > hi {
        let lname = name.to_ascii_lowercase();
        return Some(Err(if lo == hi {
            SqlError::new(174, &[&lname, &lo])
        } else {
            SqlError::new(189, &[&lname, &lo, &hi])
        }));
    }
    // the document and the path are text (or NULL); text/ntext are refused as SQL Server does
    for (i, t) in args
        .iter()
        .enumerate()
        .take(if name == "ISJSON" { 1 } else { 2 })
    {
        if !(t.is_string() || *t == DataType::Null) || t.sql_name().ends_with("text") {
            return Some(Err(SqlError::new(
                8116,
                &[&t.sql_name(), &(i + 1), &name.to_ascii_lowercase()],
            )));
        }
    }
    // JSON_MODIFY writes strings, numbers and bit; money, date/time, binary and GUID values
    // are refused while compiling, as SQL Server does
    if let Some(t) = args.get(2).filter(|_| name != "ISJSON" && n == 3) {
        let writable = t.is_string()
            || t.is_integer()
            || t.is_decimal()
            || matches!(
                t,
                DataType::Float | DataType::Real | DataType::Bit | DataType::Null
            );
        if !writable {
            return Some(Err(SqlError::new(
                8116,
                &[&t.sql_name(), &3, &"json_modify"],
            )));
        }
    }
    Some(Ok(match name {
        "ISJSON" | "JSON_PATH_EXISTS" => DataType::Int,
        "JSON_VALUE" => DataType::NVarChar(Some(4000)),
        _ => DataType::NVarChar(None),
    }))
}

/// Evaluates a JSON function, or None when `name` is not one.
pub fn call(name: &str, args: &[Value]) -> Option<SqlResult<Value>> {
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    Some(match name {
        "ISJSON" => isjson(arg(0), args.get(1)),
        "JSON_VALUE" => json_value(arg(0), arg(1)),
        "JSON_QUERY" => json_query(arg(0), args.get(1)),
        "JSON_PATH_EXISTS" => json_path_exists(arg(0), arg(1)),
        "JSON_MODIFY" => json_modify(arg(0), arg(1), arg(2), false),
        JSON_MODIFY_RAW => json_modify(arg(0), arg(1), arg(2), true),
        _ => return None,
    })
}

fn text_arg(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        v => Some(v.as_str().map(str::to_string).unwrap_or_else(|| {
            v.cast(&DataType::NVarChar(None))
                .ok()
                .and_then(|t| t.as_str().map(str::to_string))
                .unwrap_or_default()
        })),
    }
}

/// A path that evaluates to NULL: Msg 8116 state 8, the function named in capitals.
fn null_path(func: &str) -> SqlError {
    let mut e = SqlError::new(8116, &[&"NULL", &2, &func]);
    e.state = 8;
    e
}

fn isjson(doc: &Value, constraint: Option<&Value>) -> SqlResult<Value> {
    let kind = match constraint {
        None => None,
        Some(c) => {
            let w = text_arg(c).unwrap_or_default().to_ascii_uppercase();
            match w.as_str() {
                "VALUE" | "SCALAR" | "ARRAY" | "OBJECT" => Some(w),
                _ => {
                    return Err(SqlError::new(
                        155,
                        &[&text_arg(c).unwrap_or_default(), &"ISJSON"],
                    ))
                }
            }
        }
    };
    let Some(text) = text_arg(doc) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = text.chars().collect();
    let ok = match parse_any(&chars) {
        Err(_) => false,
        Ok(node) => match (kind.as_deref(), &node.kind) {
            (None, Kind::Object(_) | Kind::Array(_)) => true,
            (None, _) => false,
            (Some("VALUE"), _) => true,
            (Some("SCALAR"), k) => matches!(k, Kind::String(_) | Kind::Number),
            (Some("ARRAY"), k) => matches!(k, Kind::Array(_)),
            (Some("OBJECT"), k) => matches!(k, Kind::Object(_)),
            _ => false,
        },
    };
    Ok(Value::Int(ok as i32))
}

/// JSON_PATH_EXISTS: 1 when the path names a value, 0 otherwise (a document that is not JSON
/// included); only a malformed or NULL path raises.
fn json_path_exists(doc: &Value, path: &Value) -> SqlResult<Value> {
    let Some(p) = text_arg(path) else {
        return Err(null_path("JSON_PATH_EXISTS"));
    };
    let path = parse_path(&p, false)?;
    let Some(text) = text_arg(doc) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = text.chars().collect();
    let found = parse_document(&chars, 1)
        .ok()
        .is_some_and(|root| walk(&root, &path.steps).is_some());
    Ok(Value::Int(found as i32))
}

fn json_value(doc: &Value, path: &Value) -> SqlResult<Value> {
    let Some(p) = text_arg(path) else {
        return Err(null_path("JSON_VALUE"));
    };
    let path = parse_path(&p, false)?;
    let Some(text) = text_arg(doc) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = text.chars().collect();
    let root = parse_document(&chars, 1)?;
    let Some(node) = walk(&root, &path.steps) else {
        return if path.strict {
            Err(not_found(1))
        } else {
            Ok(Value::Null)
        };
    };
    let scalar = match &node.kind {
        Kind::Object(_) | Kind::Array(_) => {
            if path.strict {
                let mut e = SqlError::new(13623, &[]);
                e.state = 2;
                return Err(e);
            }
            return Ok(Value::Null);
        }
        Kind::Null => return Ok(Value::Null),
        Kind::String(s) => s.clone(),
        Kind::Number | Kind::True | Kind::False => chars[node.start..node.end].iter().collect(),
    };
    if scalar.chars().count() > 4000 {
        if path.strict {
            return Err(SqlError::new(13625, &[]));
        }
        return Ok(Value::Null);
    }
    Ok(Value::NVarChar(scalar))
}

fn json_query(doc: &Value, path: Option<&Value>) -> SqlResult<Value> {
    let p = match path {
        None => "$".to_string(),
        Some(v) => text_arg(v).ok_or_else(|| null_path("JSON_QUERY"))?,
    };
    let path = parse_path(&p, false)?;
    let Some(text) = text_arg(doc) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = text.chars().collect();
    let root = parse_document(&chars, 1)?;
    let Some(node) = walk(&root, &path.steps) else {
        return if path.strict {
            Err(not_found(1))
        } else {
            Ok(Value::Null)
        };
    };
    match node.kind {
        Kind::Object(_) | Kind::Array(_) => Ok(Value::NVarChar(
            chars[node.start..node.end].iter().collect(),
        )),
        Kind::Null => Ok(Value::Null),
        _ if path.strict => {
            let mut e = SqlError::new(13624, &[]);
            e.state = 2;
            Err(e)
        }
        _ => Ok(Value::Null),
    }
}

/// JSON_MODIFY: the document as written with one span replaced (insert, replace, delete or
/// append), so everything the edit does not touch survives character for character.
fn json_modify(doc: &Value, path: &Value, new: &Value, raw: bool) -> SqlResult<Value> {
    let Some(p) = text_arg(path) else {
        return Err(null_path("JSON_MODIFY"));
    };
    let path = parse_path(&p, true)?;
    if path.steps.is_empty() && !path.append {
        return Err(SqlError::new(13619, &[]));
    }
    let Some(text) = text_arg(doc) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = text.chars().collect();
    let root = parse_document(&chars, 7)?;
    let value_text = if new.is_null() {
        "null".to_string()
    } else if raw {
        text_arg(new).unwrap_or_default()
    } else {
        let mut s = String::new();
        push_value(new, &mut s);
        s
    };
    let splice = |start: usize, end: usize, with: &str| -> Value {
        let mut out: String = chars[..start].iter().collect();
        out.push_str(with);
        out.extend(chars[end..].iter());
        Value::NVarChar(out)
    };
    let unchanged = || Value::NVarChar(text.clone());
    let miss = |strict: bool| -> SqlResult<Value> {
        if strict {
            Err(not_found(2))
        } else {
            Ok(unchanged())
        }
    };
    let (parent_steps, leaf) = match path.steps.split_last() {
        Some((leaf, parent)) => (parent, Some(leaf)),
        None => (&path.steps[..], None),
    };
    if path.append {
        let Some(target) = walk(&root, &path.steps) else {
            // lax append onto a missing key of an object creates `[value]`
            if let (Some(Step::Member(name)), Some(parent)) = (leaf, walk(&root, parent_steps)) {
                if let Kind::Object(members) = &parent.kind {
                    if path.strict {
                        return Err(not_found(2));
                    }
                    let sep = if members.is_empty() { "" } else { "," };
                    let ins = format!("{sep}{}:[{value_text}]", json_string(name));
                    return Ok(splice(parent.end - 1, parent.end - 1, &ins));
                }
            }
            return miss(path.strict);
        };
        let Kind::Array(items) = &target.kind else {
            if path.strict {
                return Err(SqlError::new(13621, &[]));
            }
            return Ok(unchanged());
        };
        let sep = if items.is_empty() { "" } else { "," };
        return Ok(splice(
            target.end - 1,
            target.end - 1,
            &format!("{sep}{value_text}"),
        ));
    }
    let Some(parent) = walk(&root, parent_steps) else {
        return miss(path.strict);
    };
    match (leaf, &parent.kind) {
        (Some(Step::Member(name)), Kind::Object(members)) => {
            match members.iter().position(|(n, _)| n == name) {
                Some(i) => {
                    let node = &members[i].1;
                    if new.is_null() && !path.strict {
                        // delete the member with the comma before it (after it for the first)
                        let member_start = name_start(&chars, node.start);
                        let (from, to) = if i > 0 {
                            (members[i - 1].1.end, node.end)
                        } else if members.len() > 1 {
                            (member_start, name_start(&chars, members[1].1.start))
                        } else {
                            (member_start, node.end)
                        };
                        let from = if i > 0 {
                            comma_before(&chars, from)
                        } else {
                            from
                        };
                        Ok(splice(from, to, ""))
                    } else {
                        Ok(splice(node.start, node.end, &value_text))
                    }
                }
                None => {
                    if path.strict {
                        return Err(not_found(2));
                    }
                    if new.is_null() {
                        return Ok(unchanged());
                    }
                    let sep = if members.is_empty() { "" } else { "," };
                    let ins = format!("{sep}{}:{value_text}", json_string(name));
                    Ok(splice(parent.end - 1, parent.end - 1, &ins))
                }
            }
        }
        (Some(Step::Index(i)), Kind::Array(items)) => match items.get(*i) {
            Some(node) => Ok(splice(node.start, node.end, &value_text)),
            None => miss(path.strict),
        },
        _ => miss(path.strict),
    }
}

/// Start of the member whose value starts at `value_start` (its name's opening quote).
fn name_start(chars: &[char], value_start: usize) -> usize {
    // walk back over whitespace, the colon, whitespace and the quoted name
    let mut i = value_start;
    while i > 0 && chars[i - 1] != ':' {
        i -= 1;
    }
    i = i.saturating_sub(1);
    while i > 0 && chars[i - 1].is_whitespace() {
        i -= 1;
    }
    // the name's closing quote is at i-1; find its opening quote (skipping escaped quotes)
    if i > 0 {
        let mut j = i - 1;
        while j > 0 {
            j -= 1;
            if chars[j] == '"' && (j == 0 || chars[j - 1] != '\\') {
                return j;
            }
        }
    }
    i
}

/// Position of the comma that follows the previous member ending at `prev_end`.
fn comma_before(chars: &[char], prev_end: usize) -> usize {
    let mut i = prev_end;
    while i < chars.len() && chars[i] != ',' {
        i += 1;
    }
    i.min(chars.len())
}

// ------------------------------------------------------------------ rendering

/// A JSON string literal as SQL Server writes one: `"`, `\`, `/` and control characters
/// escaped, everything else literal.
pub fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '/' => o.push_str("\\/"),
            '\u{8}' => o.push_str("\\b"),
            '\u{c}' => o.push_str("\\f"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Standard base64 (RFC 4648, with padding), as FOR JSON writes binary values.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Scientific notation as SQL Server writes a float in JSON: `1.500000000000000e+000`.
pub fn scientific(f: f64, digits: usize) -> String {
    let s = format!("{:.*e}", digits, f);
    match s.split_once('e') {
        Some((mant, exp)) => {
            let (sign, num) = match exp.strip_prefix('-') {
                Some(n) => ('-', n),
                None => ('+', exp),
            };
            format!("{mant}e{sign}{num:0>3}")
        }
        None => s,
    }
}

/// Date/time text in ISO 8601 with a `T`, an all-zero fraction dropped.
pub fn iso_datetime(v: &Value) -> String {
    let style = if matches!(v, Value::DateTimeOffset { .. }) {
        127
    } else {
        126
    };
    let text = crate::convert_with_style(v, &DataType::NVarChar(None), style)
        .ok()
        .and_then(|t| t.as_str().map(str::to_string))
        .unwrap_or_default();
    drop_zero_fraction(&text)
}

fn drop_zero_fraction(t: &str) -> String {
    let Some(dot) = t.find('.') else {
        return t.to_string();
    };
    let frac_end = t[dot + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(t.len(), |i| dot + 1 + i);
    if t[dot + 1..frac_end].chars().all(|c| c == '0') {
        format!("{}{}", &t[..dot], &t[frac_end..])
    } else {
        t.to_string()
    }
}

/// An exact number's text: decimals keep their declared scale, money its four decimals.
pub fn number_text(v: &Value) -> String {
    let style = if matches!(v, Value::Money(_) | Value::SmallMoney(_)) {
        2
    } else {
        0
    };
    crate::convert_with_style(v, &DataType::VarChar(Some(100)), style)
        .ok()
        .and_then(|t| t.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A date/time value's ISO text at its column's declared fractional precision (values do not
/// carry it: a datetime2(3) value reads `.500`, not `.5000000`).
pub fn iso_datetime_typed(v: &Value, t: &DataType) -> String {
    let text = iso_datetime(v);
    let precision = match t {
        DataType::DateTime2(p) | DataType::Time(p) | DataType::DateTimeOffset(p) => *p as usize,
        _ => return text,
    };
    let Some(dot) = text.find('.') else {
        return text;
    };
    let frac_end = text[dot + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |i| dot + 1 + i);
    let keep = if precision == 0 {
        dot
    } else {
        (dot + 1 + precision).min(frac_end)
    };
    format!("{}{}", &text[..keep], &text[frac_end..])
}

/// [`push_value`] knowing the column's type (date/time precision).
pub fn push_typed_value(v: &Value, t: &DataType, out: &mut String) {
    match v {
        Value::Time(_) | Value::DateTime2 { .. } | Value::DateTimeOffset { .. } => {
            out.push_str(&json_string(&iso_datetime_typed(v, t)))
        }
        _ => push_value(v, out),
    }
}

/// Appends one SQL value as a JSON value (NULL as `null`).
pub fn push_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bit(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::TinyInt(_)
        | Value::SmallInt(_)
        | Value::Int(_)
        | Value::BigInt(_)
        | Value::Decimal { .. }
        | Value::Money(_)
        | Value::SmallMoney(_) => out.push_str(&number_text(v)),
        Value::Float(f) => out.push_str(&scientific(*f, 15)),
        Value::Real(f) => out.push_str(&scientific(f64::from(*f), 7)),
        Value::Binary(b) | Value::VarBinary(b) => {
            out.push('"');
            out.push_str(&base64(b));
            out.push('"');
        }
        Value::Date(_)
        | Value::Time(_)
        | Value::DateTime { .. }
        | Value::DateTime2 { .. }
        | Value::SmallDateTime { .. }
        | Value::DateTimeOffset { .. } => out.push_str(&json_string(&iso_datetime(v))),
        v => {
            let text = match v.as_str() {
                Some(s) => s.to_string(),
                None => v
                    .cast(&DataType::NVarChar(None))
                    .ok()
                    .and_then(|t| t.as_str().map(str::to_string))
                    .unwrap_or_default(),
            };
            out.push_str(&json_string(&text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::NVarChar(v.into())
    }

    fn text(r: SqlResult<Value>) -> String {
        match r {
            Ok(Value::NVarChar(t)) => t,
            Ok(Value::Null) => "NULL".into(),
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("Msg {}: {}", e.number, e.message),
        }
    }

    #[test]
    fn value_and_query() {
        let doc = s(r#"{"a": {"b": [1, "x\/y", true]}, "c": null}"#);
        assert_eq!(text(json_value(&doc, &s("$.a.b[1]"))), "x/y");
        assert_eq!(text(json_value(&doc, &s("$.a.b[2]"))), "true");
        assert_eq!(text(json_value(&doc, &s("$.a"))), "NULL");
        assert_eq!(text(json_value(&doc, &s("$.c"))), "NULL");
        assert_eq!(
            text(json_query(&doc, Some(&s("$.a.b")))),
            "[1, \"x\\/y\", true]"
        );
        assert!(text(json_value(&doc, &s("strict $.zz"))).starts_with("Msg 13608"));
        assert!(text(json_value(&doc, &s("strict $.a"))).starts_with("Msg 13623"));
        assert!(text(json_query(&doc, Some(&s("strict $.a.b[0]")))).starts_with("Msg 13624"));
        assert_eq!(
            text(json_value(&s("{\"a\":1x}"), &s("$.a"))),
            "Msg 13609: JSON text is not properly formatted. Unexpected character '1' is found at position 5."
        );
        assert_eq!(
            text(json_value(&doc, &s("$.a b"))),
            "Msg 13607: JSON path is not properly formatted. Unexpected character 'b' is found at position 4."
        );
    }

    #[test]
    fn modify() {
        let doc = s(r#"{"name":"John","skills":["C#","SQL"]}"#);
        let m = |p: &str, v: Value| text(json_modify(&doc, &s(p), &v, false));
        assert_eq!(
            m("$.name", s("Mike")),
            r#"{"name":"Mike","skills":["C#","SQL"]}"#
        );
        assert_eq!(
            m("$.surname", s("Smith")),
            r#"{"name":"John","skills":["C#","SQL"],"surname":"Smith"}"#
        );
        assert_eq!(m("$.name", Value::Null), r#"{"skills":["C#","SQL"]}"#);
        assert_eq!(m("$.skills", Value::Null), r#"{"name":"John"}"#);
        assert_eq!(
            m("append $.skills", s("Azure")),
            r#"{"name":"John","skills":["C#","SQL","Azure"]}"#
        );
        assert_eq!(
            m("strict $.name", Value::Null),
            r#"{"name":null,"skills":["C#","SQL"]}"#
        );
        assert_eq!(
            m("$.skills[1]", Value::Int(5)),
            r#"{"name":"John","skills":["C#",5]}"#
        );
        assert!(m("strict $.x", Value::Int(1)).starts_with("Msg 13608"));
        assert!(m("$", Value::Int(1)).starts_with("Msg 13619"));
        let raw = text(json_modify(&doc, &s("$.skills"), &s(r#"["a", "b"]"#), true));
        assert_eq!(raw, r#"{"name":"John","skills":["a", "b"]}"#);
    }

    #[test]
    fn isjson_kinds() {
        let is = |d: &str, k: Option<&str>| text(isjson(&s(d), k.map(s).as_ref()));
        assert_eq!(is("{}", None), "Int(1)");
        assert_eq!(is("1", None), "Int(0)");
        assert_eq!(is("1", Some("SCALAR")), "Int(1)");
        assert_eq!(is("true", Some("SCALAR")), "Int(0)");
        assert_eq!(is("true", Some("VALUE")), "Int(1)");
        assert_eq!(is("[1,]", Some("ARRAY")), "Int(0)");
        let deep = "[".repeat(100_000);
        assert_eq!(is(&deep, None), "Int(0)");
    }

    #[test]
    fn tree_spans_are_bytes() {
        let t = parse_tree(r#"{"é": [1, "x"], "n": null}"#, 4).map_err(|e| e.message);
        let Ok(JsonTree::Object(m)) = t else {
            panic!("{t:?}")
        };
        assert_eq!(m[0].0, "é");
        assert_eq!(m[0].2, (7, 15));
        assert_eq!(m[1].1, JsonTree::Null);
        let e = parse_tree("{\"é\":x}", 4)
            .err()
            .map(|e| (e.state, e.message));
        assert_eq!(
            e,
            Some((4, "JSON text is not properly formatted. Unexpected character 'x' is found at position 5.".to_string()))
        );
    }

    #[test]
    fn rendering() {
        assert_eq!(base64(&[1, 2, 255]), "AQL/");
        assert_eq!(base64(b"AB"), "QUI=");
        let mut o = String::new();
        push_value(&Value::Float(1.5), &mut o);
        assert_eq!(o, "1.500000000000000e+000");
    }
}
