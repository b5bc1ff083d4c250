//! What a query's FOR JSON / FOR XML clause asks for, as the binder resolved it: the output
//! shape and, per column of the query, its name, where it came from and whether its value is
//! already JSON or XML. Exec's serializer (`exec::for_clause`) turns the rows into the text.
//!
//! The clause is bound as an aggregate over the query ([`crate::AggFunc::ForClause`]) so that
//! it works wherever a query may appear: a statement (one row, or none for no input rows), a
//! scalar subquery (`STUFF((SELECT ',' + name ... FOR XML PATH('')), 1, 1, '')`), a derived
//! table. The aggregate sees the rows in the query's ORDER BY order.

/// Name of the single output column of a statement's FOR JSON.
pub const JSON_COLUMN: &str = "JSON_F52E2B61-18A1-11d1-B105-00805F49916B";
/// Name of the single output column of a statement's FOR XML.
pub const XML_COLUMN: &str = "XML_F52E2B61-18A1-11d1-B105-00805F49916B";

/// A statement's FOR JSON / FOR XML text reaches the client split into rows of this many
/// UTF-16 units (SQL Server streams it that way; a client joins them or shows the rows).
pub const CLIENT_ROW_CHARS: usize = 2033;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonMode {
    Auto,
    Path,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XmlMode {
    /// Row element name (`row` by default).
    Raw(String),
    Auto,
    /// Row element name; empty: no row element (`PATH('')`).
    Path(String),
}

/// `ELEMENTS`: element-centric output; `xsi_nil` writes NULLs as `xsi:nil="true"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmlElements {
    pub xsi_nil: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForFormat {
    Json {
        mode: JsonMode,
        root: Option<String>,
        include_null_values: bool,
        without_array_wrapper: bool,
    },
    Xml {
        mode: XmlMode,
        root: Option<String>,
        elements: Option<XmlElements>,
        /// `TYPE`: the result is an xml value (latchkey has no xml type: nvarchar(max) that an
        /// enclosing FOR XML embeds as markup, not as escaped text).
        typed: bool,
    },
}

/// What a column's value already is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedded {
    /// An ordinary value: rendered and escaped.
    Value,
    /// JSON text (JSON_QUERY, JSON_MODIFY, a nested FOR JSON): written into FOR JSON as is.
    Json,
    /// XML (a nested FOR XML ..., TYPE): written into FOR XML as markup.
    Xml,
}

/// One column of the serialized query.
#[derive(Clone, Debug, PartialEq)]
pub struct ForColumn {
    /// The column's name or alias ("" when it has none).
    pub name: String,
    /// AUTO mode: the exposed name of the table the column comes from (None: an expression).
    pub table: Option<String>,
    pub embedded: Embedded,
    /// The column's type (date/time values are written at its declared precision).
    pub data_type: types::DataType,
}

/// A bound FOR JSON / FOR XML clause.
#[derive(Clone, Debug, PartialEq)]
pub struct ForSpec {
    pub format: ForFormat,
    pub columns: Vec<ForColumn>,
}

impl ForSpec {
    /// Whether the result is JSON text that an enclosing FOR JSON embeds as is (a FOR JSON
    /// with its array wrapper; WITHOUT_ARRAY_WRAPPER output is a plain string).
    pub fn yields_json_text(&self) -> bool {
        matches!(
            self.format,
            ForFormat::Json {
                without_array_wrapper: false,
                ..
            }
        )
    }

    /// Whether the result is an xml value (`FOR XML ..., TYPE`).
    pub fn yields_xml(&self) -> bool {
        matches!(self.format, ForFormat::Xml { typed: true, .. })
    }
}
