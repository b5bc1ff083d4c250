//! BULK INSERT.

use super::Parser;
use crate::ast::*;
use crate::lexer::Tok;
use common::SqlResult;

/// SQL Server's BULK INSERT options: (name, takes `= value`). Any other word is a syntax error
/// (Msg 102), as in SQL Server; the engine decides which ones it acts on.
const OPTIONS: &[(&str, bool)] = &[
    ("BATCHSIZE", true),
    ("CHECK_CONSTRAINTS", false),
    ("CODEPAGE", true),
    ("DATAFILETYPE", true),
    ("DATA_SOURCE", true),
    ("ERRORFILE", true),
    ("ERRORFILE_DATA_SOURCE", true),
    ("FIELDQUOTE", true),
    ("FIELDTERMINATOR", true),
    ("FIRE_TRIGGERS", false),
    ("FIRSTROW", true),
    ("FORMAT", true),
    ("FORMATFILE", true),
    ("FORMATFILE_DATA_SOURCE", true),
    ("KEEPIDENTITY", false),
    ("KEEPNULLS", false),
    ("KILOBYTES_PER_BATCH", true),
    ("LASTROW", true),
    ("MAXERRORS", true),
    ("ROWS_PER_BATCH", true),
    ("ROWTERMINATOR", true),
    ("TABLOCK", false),
];

/// OPENROWSET(BULK ...)'s options (SQL Server 2022 / Azure SQL): (name, kind).
const ROWSET_OPTIONS: &[(&str, OptionKind)] = &[
    ("CODEPAGE", OptionKind::Value),
    ("DATAFILETYPE", OptionKind::Value),
    ("DATA_SOURCE", OptionKind::Value),
    ("ERRORFILE", OptionKind::Value),
    ("ERRORFILE_DATA_SOURCE", OptionKind::Value),
    ("ESCAPECHAR", OptionKind::Value),
    ("FIELDQUOTE", OptionKind::Value),
    ("FIELDTERMINATOR", OptionKind::Value),
    ("FIRSTROW", OptionKind::Value),
    ("FORMAT", OptionKind::Value),
    ("FORMATFILE", OptionKind::Value),
    ("FORMATFILE_DATA_SOURCE", OptionKind::Value),
    ("HEADER_ROW", OptionKind::Bool),
    ("LASTROW", OptionKind::Value),
    ("MAXERRORS", OptionKind::Value),
    ("PARSER_VERSION", OptionKind::Value),
    ("ROWSET_OPTIONS", OptionKind::Value),
    ("ROWS_PER_BATCH", OptionKind::Value),
    ("ROWTERMINATOR", OptionKind::Value),
    ("SINGLE_BLOB", OptionKind::Flag),
    ("SINGLE_CLOB", OptionKind::Flag),
    ("SINGLE_NCLOB", OptionKind::Flag),
];

#[derive(Clone, Copy, PartialEq)]
enum OptionKind {
    Flag,
    Value,
    Bool,
}

impl<'a> Parser<'a> {
    /// `OPENROWSET(BULK 'file', option, ...) [WITH (col type [ordinal | 'name'], ...)]` or
    /// `OPENROWSET('provider', 'datasource';'user';'password' | 'provider string',
    /// object | 'query')`, then `[AS] alias [(cols)]`. The current token is OPENROWSET.
    pub(crate) fn parse_openrowset(&mut self) -> SqlResult<TableRef> {
        self.pos += 1;
        self.expect(Tok::LParen)?;
        let source = if self.eat_kw("BULK") {
            let file = self.parse_string_lit()?;
            let mut options = Vec::new();
            while self.eat(Tok::Comma) {
                options.push(self.parse_bulk_option_of(ROWSET_OPTIONS)?);
                if options.last().is_some_and(|o| o.name == "ORDER") && self.eat_kw("UNIQUE") {
                    options.push(BulkOption {
                        name: "UNIQUE".into(),
                        value: BulkOptionValue::None,
                    });
                }
            }
            self.expect(Tok::RParen)?;
            let mut schema = Vec::new();
            if self.kw("WITH") && self.at_n(1, Tok::LParen) {
                self.pos += 2;
                loop {
                    let name = self.parse_ident()?;
                    let data_type = self.parse_data_type()?;
                    let (mut ordinal, mut path) = (None, None);
                    if self.at(Tok::Integer) {
                        let n = self.parse_i64_signed()?;
                        ordinal = Some(u32::try_from(n).map_err(|_| self.error_at(self.pos - 1))?);
                    } else if matches!(self.peek().kind, Tok::String | Tok::NString) {
                        path = Some(self.parse_string_lit()?);
                    }
                    schema.push(OpenRowsetColumnDef {
                        name,
                        data_type,
                        ordinal,
                        path,
                    });
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen)?;
            }
            OpenRowsetSource::Bulk {
                file,
                options,
                schema,
            }
        } else {
            let provider = self.parse_string_lit()?;
            self.expect(Tok::Comma)?;
            // the rest is the provider's business: kept as written up to the closing paren
            let from = self.peek().start as usize;
            let mut depth = 0usize;
            loop {
                match self.peek().kind {
                    Tok::Eof => return Err(self.error_here()),
                    Tok::LParen => depth += 1,
                    Tok::RParen if depth == 0 => break,
                    Tok::RParen => depth -= 1,
                    _ => {}
                }
                self.pos += 1;
            }
            let rest = self.src[from..self.prev_end() as usize].to_string();
            self.expect(Tok::RParen)?;
            OpenRowsetSource::Provider { provider, rest }
        };
        let alias = self.parse_opt_alias(false)?;
        let columns = self.parse_opt_column_aliases()?;
        Ok(TableRef::OpenRowset(Box::new(OpenRowset {
            source,
            alias,
            columns,
        })))
    }

    fn parse_bulk_option_of(&mut self, list: &[(&str, OptionKind)]) -> SqlResult<BulkOption> {
        let name = self.word_upper().as_str().to_string();
        if name == "ORDER" {
            return self.parse_bulk_option();
        }
        let Some(&(_, kind)) = list.iter().find(|(n, _)| *n == name) else {
            return Err(self.error_here());
        };
        self.pos += 1;
        let value = match kind {
            OptionKind::Flag => BulkOptionValue::None,
            OptionKind::Bool => {
                self.expect(Tok::Eq)?;
                if self.eat_kw("TRUE") {
                    BulkOptionValue::Bool(true)
                } else if self.eat_kw("FALSE") {
                    BulkOptionValue::Bool(false)
                } else {
                    return Err(self.error_here());
                }
            }
            OptionKind::Value => {
                self.expect(Tok::Eq)?;
                match self.peek().kind {
                    Tok::String | Tok::NString => BulkOptionValue::Str(self.parse_string_lit()?),
                    _ => BulkOptionValue::Int(self.parse_i64_signed()?),
                }
            }
        };
        Ok(BulkOption { name, value })
    }

    /// `BULK INSERT name FROM 'file' [WITH (option [= value] | ORDER (col [ASC|DESC], ...), ...)]`.
    pub(crate) fn parse_bulk_insert(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("BULK")?;
        self.expect_kw("INSERT")?;
        let table = self.parse_object_name()?;
        self.expect_kw("FROM")?;
        let file = self.parse_string_lit()?;
        let mut options = Vec::new();
        if self.eat_kw("WITH") {
            self.expect(Tok::LParen)?;
            loop {
                options.push(self.parse_bulk_option()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        Ok(StatementKind::BulkInsert(Box::new(BulkInsert {
            table,
            file,
            options,
        })))
    }

    fn parse_bulk_option(&mut self) -> SqlResult<BulkOption> {
        let name = self.word_upper();
        let name = name.as_str().to_string();
        if name == "ORDER" {
            self.pos += 1;
            self.expect(Tok::LParen)?;
            let mut cols = Vec::new();
            loop {
                let c = self.parse_ident()?;
                let desc = if self.eat_kw("DESC") {
                    true
                } else {
                    self.eat_kw("ASC");
                    false
                };
                cols.push((c, desc));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
            return Ok(BulkOption {
                name,
                value: BulkOptionValue::Order(cols),
            });
        }
        let Some(&(_, valued)) = OPTIONS.iter().find(|(n, _)| *n == name) else {
            return Err(self.error_here());
        };
        self.pos += 1;
        let value = if valued {
            self.expect(Tok::Eq)?;
            match self.peek().kind {
                Tok::String | Tok::NString => BulkOptionValue::Str(self.parse_string_lit()?),
                _ => BulkOptionValue::Int(self.parse_i64_signed()?),
            }
        } else {
            BulkOptionValue::None
        };
        Ok(BulkOption { name, value })
    }
}
