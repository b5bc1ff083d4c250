//! The serializer behind FOR JSON and FOR XML (`plan::for_clause`): the rows of a query, in
//! its ORDER BY order, become one nvarchar(max) value (NULL when there are no rows).

use common::{SqlError, SqlResult};
use plan::for_clause::*;
use types::json::{
    base64, iso_datetime_typed, json_string, number_text, push_typed_value, scientific,
};
use types::Value;

use crate::valops;

const XSI_NAMESPACE: &str = r#" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;

/// Serializes the collected rows.
pub fn serialize(spec: &ForSpec, rows: &[Vec<Value>]) -> SqlResult<Value> {
    if rows.is_empty() {
        return Ok(Value::Null);
    }
    let text = match &spec.format {
        ForFormat::Json {
            mode,
            root,
            include_null_values,
            without_array_wrapper,
        } => {
            let objects = match mode {
                JsonMode::Path => {
                    let tree = path_tree(&spec.columns);
                    rows.iter()
                        .map(|r| {
                            let mut o = String::new();
                            json_object(&tree, spec, r, *include_null_values, true, &mut o);
                            o
                        })
                        .collect::<Vec<_>>()
                }
                JsonMode::Auto => {
                    let levels = auto_levels(&spec.columns);
                    let refs: Vec<&Vec<Value>> = rows.iter().collect();
                    json_auto(&levels, 0, &refs, spec, *include_null_values)
                }
            };
            let body = objects.join(",");
            let mut s = if *without_array_wrapper {
                body
            } else {
                format!("[{body}]")
            };
            if let Some(r) = root {
                s = format!("{{{}:{s}}}", json_string(r));
            }
            s
        }
        ForFormat::Xml {
            mode,
            root,
            elements,
            ..
        } => {
            let mut w = XmlWriter::default();
            let xsi_nil = elements.is_some_and(|e| e.xsi_nil);
            if let Some(r) = root {
                w.start(&xml_name(r));
                if xsi_nil {
                    w.out.push_str(XSI_NAMESPACE);
                }
            }
            let ns_per_row = xsi_nil && root.is_none();
            match mode {
                XmlMode::Raw(name) => {
                    for r in rows {
                        xml_row_flat(&mut w, &xml_name(name), spec, r, *elements, ns_per_row)?;
                    }
                }
                XmlMode::Auto => {
                    let levels = auto_levels(&spec.columns);
                    let refs: Vec<&Vec<Value>> = rows.iter().collect();
                    xml_auto(&mut w, &levels, 0, &refs, spec, *elements, ns_per_row)?;
                }
                XmlMode::Path(name) => {
                    for r in rows {
                        xml_path_row(&mut w, name, spec, r, xsi_nil, ns_per_row)?;
                    }
                }
            }
            if root.is_some() {
                w.end();
            }
            w.out
        }
    };
    types::lob::check_bytes(types::lob::str_bytes(&text, true))?;
    Ok(Value::NVarChar(text))
}

/// A statement's FOR JSON / FOR XML text as rows of [`CLIENT_ROW_CHARS`] UTF-16 units (the
/// last one shorter), as SQL Server sends it; NULL (no input rows) is no row at all.
pub fn client_rows(doc: Option<&Value>) -> Vec<Vec<Value>> {
    let Some(text) = doc.and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    let mut chunk = String::new();
    let mut units = 0;
    for c in text.chars() {
        let n = c.len_utf16();
        if units + n > CLIENT_ROW_CHARS {
            rows.push(vec![Value::NVarChar(std::mem::take(&mut chunk))]);
            units = 0;
        }
        chunk.push(c);
        units += n;
    }
    if !chunk.is_empty() || rows.is_empty() {
        rows.push(vec![Value::NVarChar(chunk)]);
    }
    rows
}

// ------------------------------------------------------------------ JSON

/// PATH mode's object shape: dotted names nest (the binder checked they are contiguous).
enum Tree {
    Leaf(usize),
    Object(Vec<(String, Tree)>),
}

fn path_tree(columns: &[ForColumn]) -> Vec<(String, Tree)> {
    let mut root: Vec<(String, Tree)> = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        let parts: Vec<&str> = c.name.split('.').collect();
        let mut level = &mut root;
        for (k, p) in parts.iter().enumerate() {
            if k + 1 == parts.len() {
                level.push((p.to_string(), Tree::Leaf(i)));
                break;
            }
            let reuse = matches!(level.last(), Some((n, Tree::Object(_))) if n == p);
            if !reuse {
                level.push((p.to_string(), Tree::Object(Vec::new())));
            }
            level = match level.last_mut() {
                Some((_, Tree::Object(children))) => children,
                _ => break,
            };
        }
    }
    root
}

/// Writes one object; a nested object with nothing in it is left out (returns false).
fn json_object(
    entries: &[(String, Tree)],
    spec: &ForSpec,
    row: &[Value],
    include_nulls: bool,
    top: bool,
    out: &mut String,
) -> bool {
    let mut body = String::new();
    for (name, t) in entries {
        let start = body.len();
        if !body.is_empty() {
            body.push(',');
        }
        body.push_str(&json_string(name));
        body.push(':');
        let wrote = match t {
            Tree::Leaf(i) => json_value(spec, *i, row, include_nulls, &mut body),
            Tree::Object(children) => {
                json_object(children, spec, row, include_nulls, false, &mut body)
            }
        };
        if !wrote {
            body.truncate(start);
        }
    }
    if body.is_empty() && !top {
        return false;
    }
    out.push('{');
    out.push_str(&body);
    out.push('}');
    true
}

/// Writes column `i`'s value; false when it is NULL and NULLs are left out.
fn json_value(
    spec: &ForSpec,
    i: usize,
    row: &[Value],
    include_nulls: bool,
    out: &mut String,
) -> bool {
    let v = row.get(i).unwrap_or(&Value::Null);
    if v.is_null() {
        if include_nulls {
            out.push_str("null");
        }
        return include_nulls;
    }
    match (spec.columns.get(i), v.as_str()) {
        (Some(c), Some(s)) if c.embedded == Embedded::Json => out.push_str(s),
        (Some(c), _) => push_typed_value(v, &c.data_type, out),
        (None, _) => push_typed_value(v, &types::DataType::NVarChar(None), out),
    }
    true
}

/// AUTO mode's levels: one per table in order of first appearance in the select list, with the
/// columns it holds (an expression joins the level of the column before it).
fn auto_levels(columns: &[ForColumn]) -> Vec<(String, Vec<usize>)> {
    let mut levels: Vec<(String, Vec<usize>)> = Vec::new();
    let mut current = 0usize;
    for (i, c) in columns.iter().enumerate() {
        match &c.table {
            Some(t) => match levels.iter().position(|(n, _)| n == t) {
                Some(k) => {
                    current = k;
                    levels[k].1.push(i);
                }
                None => {
                    levels.push((t.clone(), vec![i]));
                    current = levels.len() - 1;
                }
            },
            None => {
                if levels.is_empty() {
                    levels.push((String::new(), Vec::new()));
                }
                levels[current].1.push(i);
            }
        }
    }
    levels
}

/// Consecutive rows with equal values in `cols` (the last level never merges).
fn group_rows<'r>(
    rows: &[&'r Vec<Value>],
    cols: &[usize],
    merge: bool,
) -> Vec<Vec<&'r Vec<Value>>> {
    let mut groups: Vec<Vec<&Vec<Value>>> = Vec::new();
    for r in rows {
        let same = merge
            && groups.last().and_then(|g| g.first()).is_some_and(|first| {
                cols.iter().all(|&c| {
                    valops::sort_cmp(
                        first.get(c).unwrap_or(&Value::Null),
                        r.get(c).unwrap_or(&Value::Null),
                    ) == std::cmp::Ordering::Equal
                })
            });
        match groups.last_mut() {
            Some(g) if same => g.push(r),
            _ => groups.push(vec![r]),
        }
    }
    groups
}

fn json_auto(
    levels: &[(String, Vec<usize>)],
    level: usize,
    rows: &[&Vec<Value>],
    spec: &ForSpec,
    include_nulls: bool,
) -> Vec<String> {
    let Some((_, cols)) = levels.get(level) else {
        return Vec::new();
    };
    let last = level + 1 == levels.len();
    group_rows(rows, cols, !last)
        .into_iter()
        .map(|g| {
            let mut body = String::new();
            for &c in cols {
                let start = body.len();
                if !body.is_empty() {
                    body.push(',');
                }
                let name = spec.columns.get(c).map_or("", |c| c.name.as_str());
                body.push_str(&json_string(name));
                body.push(':');
                if !json_value(spec, c, g[0], include_nulls, &mut body) {
                    body.truncate(start);
                }
            }
            if let Some((child, _)) = levels.get(level + 1) {
                if !body.is_empty() {
                    body.push(',');
                }
                let items = json_auto(levels, level + 1, &g, spec, include_nulls);
                body.push_str(&format!("{}:[{}]", json_string(child), items.join(",")));
            }
            format!("{{{body}}}")
        })
        .collect()
}

// ------------------------------------------------------------------ XML

#[derive(Default)]
struct XmlWriter {
    out: String,
    open: Vec<String>,
    /// The last start tag is not closed yet (attributes may still be added).
    tag_open: bool,
    /// The last thing written was a `data()` value: the next one is separated by a space.
    after_data: bool,
}

impl XmlWriter {
    fn start(&mut self, name: &str) {
        self.after_data = false;
        self.close_tag();
        self.out.push('<');
        self.out.push_str(name);
        self.open.push(name.to_string());
        self.tag_open = true;
    }
    fn attr(&mut self, name: &str, value: &str) -> SqlResult<()> {
        if !self.tag_open {
            return Err(SqlError::new(6852, &[&name]));
        }
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        self.out.push_str(&escape_attr(value));
        self.out.push('"');
        Ok(())
    }
    fn content(&mut self, s: &str) {
        self.close_tag();
        self.out.push_str(s);
    }
    fn close_tag(&mut self) {
        if self.tag_open {
            self.out.push('>');
            self.tag_open = false;
        }
    }
    fn end(&mut self) {
        self.after_data = false;
        let Some(name) = self.open.pop() else {
            return;
        };
        if self.tag_open {
            self.out.push_str("/>");
            self.tag_open = false;
        } else {
            self.out.push_str("</");
            self.out.push_str(&name);
            self.out.push('>');
        }
    }
    /// Closes elements until `depth` remain open.
    fn end_to(&mut self, depth: usize) {
        while self.open.len() > depth {
            self.end();
        }
    }
}

fn escape_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '\r' => o.push_str("&#x0D;"),
            c => o.push(c),
        }
    }
    o
}

fn escape_attr(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\t' => o.push_str("&#x09;"),
            '\n' => o.push_str("&#x0A;"),
            '\r' => o.push_str("&#x0D;"),
            c => o.push(c),
        }
    }
    o
}

/// An XML name for a column or table name: characters XML names cannot hold become `_xHHHH_`.
fn xml_name(name: &str) -> String {
    let mut o = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        let ok =
            c.is_alphabetic() || c == '_' || (i > 0 && (c.is_numeric() || matches!(c, '-' | '.')));
        if ok {
            o.push(c);
        } else {
            o.push_str(&format!("_x{:04X}_", c as u32));
        }
    }
    o
}

/// A value as XML text (before escaping): ISO dates at the column's precision, base64 binary,
/// bit as 0/1.
fn xml_text(v: &Value, t: &types::DataType) -> String {
    match v {
        Value::Bit(b) => if *b { "1" } else { "0" }.into(),
        Value::Float(f) => scientific(*f, 15),
        Value::Real(f) => scientific(f64::from(*f), 7),
        Value::Binary(b) | Value::VarBinary(b) => base64(b),
        Value::Money(_) | Value::SmallMoney(_) => number_text(v),
        Value::Date(_)
        | Value::Time(_)
        | Value::DateTime { .. }
        | Value::DateTime2 { .. }
        | Value::SmallDateTime { .. }
        | Value::DateTimeOffset { .. } => iso_datetime_typed(v, t),
        v => valops::to_text(v),
    }
}

/// Element content for column `i`: markup for an xml value, escaped text otherwise.
fn xml_content(spec: &ForSpec, i: usize, v: &Value) -> String {
    match (spec.columns.get(i).map(|c| c.embedded), v.as_str()) {
        (Some(Embedded::Xml), Some(s)) => s.to_string(),
        _ => escape_text(&xml_text(v, &column_type(spec, i))),
    }
}

fn column_type(spec: &ForSpec, i: usize) -> types::DataType {
    spec.columns
        .get(i)
        .map_or(types::DataType::NVarChar(None), |c| c.data_type.clone())
}

/// Column `c` of a RAW or AUTO row element: an attribute, or a child element with ELEMENTS.
fn xml_column(
    w: &mut XmlWriter,
    spec: &ForSpec,
    c: usize,
    row: &[Value],
    elements: Option<XmlElements>,
) -> SqlResult<()> {
    let v = row.get(c).unwrap_or(&Value::Null);
    let name = spec.columns.get(c).map_or("", |c| c.name.as_str());
    if name.is_empty() {
        return Err(SqlError::new(6809, &[]));
    }
    let name = xml_name(name);
    match elements {
        None => {
            if !v.is_null() {
                w.attr(&name, &xml_text(v, &column_type(spec, c)))?;
            }
        }
        Some(e) => {
            if v.is_null() {
                if e.xsi_nil {
                    w.start(&name);
                    w.out.push_str(r#" xsi:nil="true""#);
                    w.end();
                }
            } else {
                w.start(&name);
                w.content(&xml_content(spec, c, v));
                w.end();
            }
        }
    }
    Ok(())
}

fn xml_row_flat(
    w: &mut XmlWriter,
    element: &str,
    spec: &ForSpec,
    row: &[Value],
    elements: Option<XmlElements>,
    ns: bool,
) -> SqlResult<()> {
    w.start(element);
    if ns {
        w.out.push_str(XSI_NAMESPACE);
    }
    for c in 0..spec.columns.len() {
        xml_column(w, spec, c, row, elements)?;
    }
    w.end();
    Ok(())
}

fn xml_auto(
    w: &mut XmlWriter,
    levels: &[(String, Vec<usize>)],
    level: usize,
    rows: &[&Vec<Value>],
    spec: &ForSpec,
    elements: Option<XmlElements>,
    ns: bool,
) -> SqlResult<()> {
    let Some((table, cols)) = levels.get(level) else {
        return Ok(());
    };
    if table.is_empty() {
        return Err(SqlError::new(6800, &[]));
    }
    let last = level + 1 == levels.len();
    for g in group_rows(rows, cols, !last) {
        w.start(&xml_name(table));
        if ns && level == 0 {
            w.out.push_str(XSI_NAMESPACE);
        }
        for &c in cols {
            xml_column(w, spec, c, g[0], elements)?;
        }
        xml_auto(w, levels, level + 1, &g, spec, elements, false)?;
        w.end();
    }
    Ok(())
}

/// One row of FOR XML PATH: column names are XPath-like (`@a`, `a/b`, `text()`, `data()`,
/// `*`, `node()`, `comment()`; no name: inline content).
fn xml_path_row(
    w: &mut XmlWriter,
    element: &str,
    spec: &ForSpec,
    row: &[Value],
    xsi_nil: bool,
    ns: bool,
) -> SqlResult<()> {
    let base = w.open.len();
    if !element.is_empty() {
        w.start(&xml_name(element));
        if ns {
            w.out.push_str(XSI_NAMESPACE);
        }
    }
    let row_depth = w.open.len();
    // element path currently open below the row element
    let mut open_path: Vec<String> = Vec::new();
    for (i, col) in spec.columns.iter().enumerate() {
        let v = row.get(i).unwrap_or(&Value::Null);
        let steps: Vec<&str> = if col.name.is_empty() {
            vec![]
        } else {
            col.name.split('/').collect()
        };
        let (parents, leaf) = match steps.split_last() {
            Some((leaf, parents)) => (parents.to_vec(), *leaf),
            None => (vec![], ""),
        };
        let leaf_is_element = !leaf.is_empty()
            && !leaf.starts_with('@')
            && !matches!(leaf, "*" | "text()" | "data()" | "node()" | "comment()")
            && !leaf.starts_with("processing-instruction(");
        if v.is_null() && !(xsi_nil && leaf_is_element) {
            continue;
        }
        // align the open elements with this column's parents
        let common = open_path
            .iter()
            .zip(&parents)
            .take_while(|(a, b)| a.as_str() == **b)
            .count();
        let keep_open = if leaf.starts_with('@') && common == parents.len() {
            common
        } else {
            common.min(parents.len())
        };
        if keep_open < open_path.len() {
            w.end_to(row_depth + keep_open);
            open_path.truncate(keep_open);
        }
        for p in &parents[open_path.len()..] {
            w.start(&xml_name(p));
            open_path.push(p.to_string());
        }
        let is_data = leaf == "data()";
        match leaf {
            l if l.starts_with('@') => {
                if element.is_empty() && open_path.is_empty() {
                    return Err(SqlError::new(6864, &[]));
                }
                w.attr(&xml_name(&l[1..]), &xml_text(v, &column_type(spec, i)))?;
            }
            "" | "*" | "node()" | "text()" => w.content(&xml_content(spec, i, v)),
            "data()" => {
                if w.after_data {
                    w.content(" ");
                }
                w.content(&escape_text(&xml_text(v, &column_type(spec, i))));
            }
            "comment()" => w.content(&format!("<!--{}-->", xml_text(v, &column_type(spec, i)))),
            l if l.starts_with("processing-instruction(") && l.ends_with(')') => {
                let target = &l["processing-instruction(".len()..l.len() - 1];
                let text = xml_text(v, &column_type(spec, i));
                w.content(&format!("<?{} {}?>", xml_name(target), text));
            }
            name => {
                w.start(&xml_name(name));
                if v.is_null() {
                    w.out.push_str(r#" xsi:nil="true""#);
                } else {
                    w.content(&xml_content(spec, i, v));
                }
                w.end();
            }
        }
        w.after_data = is_data;
    }
    w.end_to(base);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: Vec<Vec<Value>>) -> Vec<String> {
        rows.into_iter()
            .map(|r| r[0].as_str().unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn client_rows_count_utf16_units() {
        assert!(client_rows(Some(&Value::Null)).is_empty());
        assert_eq!(
            texts(client_rows(Some(&Value::NVarChar(String::new())))),
            vec![""]
        );
        // a character outside the BMP is two units: it never straddles two rows
        let text = format!("{}😀x", "a".repeat(CLIENT_ROW_CHARS - 1));
        let rows = texts(client_rows(Some(&Value::NVarChar(text))));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].chars().count(), CLIENT_ROW_CHARS - 1);
        assert_eq!(rows[1], "😀x");
    }

    #[test]
    fn xml_names_and_escaping() {
        assert_eq!(xml_name("order id"), "order_x0020_id");
        assert_eq!(xml_name("1st"), "_x0031_st");
        assert_eq!(escape_text("a<b>&\r"), "a&lt;b&gt;&amp;&#x0D;");
        assert_eq!(escape_attr("\"\t\n"), "&quot;&#x09;&#x0A;");
    }
}
