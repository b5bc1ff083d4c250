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

impl<'a> Parser<'a> {
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
