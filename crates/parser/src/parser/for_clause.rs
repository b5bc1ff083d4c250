//! The FOR clause of a query: `FOR JSON ...`, `FOR XML ...`, `FOR BROWSE`.

use super::Parser;
use crate::ast::*;
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    /// Parses a FOR clause when one starts here. `FOR` followed by anything else (a cursor's
    /// `FOR UPDATE`, `FOR READ ONLY`) is left for the caller.
    pub(crate) fn parse_for_clause(&mut self) -> SqlResult<Option<Box<ForClause>>> {
        if !self.kw("FOR") {
            return Ok(None);
        }
        if self.kw_at(1, "BROWSE") {
            self.pos += 2;
            return Ok(Some(Box::new(ForClause::Browse)));
        }
        if self.kw_at(1, "JSON") {
            self.pos += 2;
            return Ok(Some(Box::new(ForClause::Json(self.parse_for_json()?))));
        }
        if self.kw_at(1, "XML") {
            self.pos += 2;
            return Ok(Some(Box::new(ForClause::Xml(self.parse_for_xml()?))));
        }
        Ok(None)
    }

    fn parse_for_json(&mut self) -> SqlResult<ForJson> {
        let mode = if self.eat_kw("AUTO") {
            ForJsonMode::Auto
        } else if self.eat_kw("PATH") {
            ForJsonMode::Path
        } else {
            return Err(self.error_here());
        };
        let mut spec = ForJson {
            mode,
            root: None,
            include_null_values: false,
            without_array_wrapper: false,
        };
        while self.eat(Tok::Comma) {
            if self.eat_kw("ROOT") {
                spec.root = Some(
                    self.parse_opt_paren_name()?
                        .unwrap_or_else(|| "root".into()),
                );
            } else if self.eat_kw("INCLUDE_NULL_VALUES") {
                spec.include_null_values = true;
            } else if self.eat_kw("WITHOUT_ARRAY_WRAPPER") {
                spec.without_array_wrapper = true;
            } else {
                return Err(self.error_here());
            }
        }
        Ok(spec)
    }

    fn parse_for_xml(&mut self) -> SqlResult<ForXml> {
        let mode = if self.eat_kw("RAW") {
            ForXmlMode::Raw(self.parse_opt_paren_name()?)
        } else if self.eat_kw("AUTO") {
            ForXmlMode::Auto
        } else if self.eat_kw("PATH") {
            ForXmlMode::Path(self.parse_opt_paren_name()?)
        } else if self.eat_kw("EXPLICIT") {
            ForXmlMode::Explicit
        } else {
            return Err(self.error_here());
        };
        let mut spec = ForXml {
            mode,
            root: None,
            elements: None,
            type_directive: false,
            binary_base64: false,
            unsupported: Vec::new(),
        };
        while self.eat(Tok::Comma) {
            if self.eat_kw("ROOT") {
                spec.root = Some(
                    self.parse_opt_paren_name()?
                        .unwrap_or_else(|| "root".into()),
                );
            } else if self.eat_kw("TYPE") {
                spec.type_directive = true;
            } else if self.eat_kw("ELEMENTS") {
                spec.elements = Some(if self.eat_kw("XSINIL") {
                    XmlElements::XsiNil
                } else {
                    self.eat_kw("ABSENT");
                    XmlElements::Absent
                });
            } else if self.kw("BINARY") && self.kw_at(1, "BASE64") {
                self.pos += 2;
                spec.binary_base64 = true;
            } else if self.eat_kw("XMLDATA") {
                spec.unsupported.push("XMLDATA".into());
            } else if self.eat_kw("XMLSCHEMA") {
                self.parse_opt_paren_name()?;
                spec.unsupported.push("XMLSCHEMA".into());
            } else {
                return Err(self.error_here());
            }
        }
        Ok(spec)
    }

    /// `('name')` after RAW, PATH or ROOT, when present.
    fn parse_opt_paren_name(&mut self) -> SqlResult<Option<String>> {
        if !self.eat(Tok::LParen) {
            return Ok(None);
        }
        let name = self.parse_string_lit()?;
        self.expect(Tok::RParen)?;
        Ok(Some(name))
    }
}
