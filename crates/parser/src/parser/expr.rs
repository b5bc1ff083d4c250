//! Expressions (Pratt parser with SQL Server's operator precedence) and data types.

use super::Parser;
use crate::ast::*;
use crate::lexer::{self, Tok};
use common::SqlResult;

// Binding powers (higher binds tighter).
const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_NOT: u8 = 3;
const P_CMP: u8 = 4;
const P_ADD: u8 = 5;
const P_MUL: u8 = 6;
const P_UNARY: u8 = 7;

fn cmp_op(k: Tok) -> Option<BinaryOp> {
    Some(match k {
        Tok::Eq => BinaryOp::Eq,
        Tok::NotEq => BinaryOp::NotEq,
        Tok::Lt => BinaryOp::Lt,
        Tok::Le => BinaryOp::Le,
        Tok::Gt => BinaryOp::Gt,
        Tok::Ge => BinaryOp::Ge,
        Tok::NotLt => BinaryOp::NotLt,
        Tok::NotGt => BinaryOp::NotGt,
        _ => return None,
    })
}

fn arith_op(k: Tok) -> Option<(BinaryOp, u8)> {
    Some(match k {
        Tok::Plus => (BinaryOp::Add, P_ADD),
        Tok::Minus => (BinaryOp::Sub, P_ADD),
        Tok::Amp => (BinaryOp::BitAnd, P_ADD),
        Tok::Pipe => (BinaryOp::BitOr, P_ADD),
        Tok::Caret => (BinaryOp::BitXor, P_ADD),
        Tok::Star => (BinaryOp::Mul, P_MUL),
        Tok::Slash => (BinaryOp::Div, P_MUL),
        Tok::Percent => (BinaryOp::Mod, P_MUL),
        _ => return None,
    })
}

/// Reserved words that are nevertheless function names when followed by `(`.
const RESERVED_FUNCTIONS: &[&str] = &["LEFT", "RIGHT", "COALESCE", "NULLIF", "USER", "UPDATE"];

impl<'a> Parser<'a> {
    pub(crate) fn parse_expr(&mut self) -> SqlResult<Expr> {
        self.parse_expr_bp(0)
    }

    /// A scalar expression: no top-level comparison / logical operators (select-list items,
    /// where `a = b` would be read as an alias assignment).
    pub(crate) fn parse_scalar(&mut self) -> SqlResult<Expr> {
        self.parse_expr_bp(P_ADD)
    }

    pub(crate) fn parse_expr_bp(&mut self, min: u8) -> SqlResult<Expr> {
        self.enter()?;
        let r = self.parse_expr_bp_inner(min);
        self.leave();
        r
    }

    fn parse_expr_bp_inner(&mut self, min: u8) -> SqlResult<Expr> {
        let mut lhs = self.parse_prefix(min)?;
        let mut chain = 0u32;
        loop {
            let t = self.peek();
            chain += 1;
            self.check_chain(chain)?;
            if let Some((op, p)) = arith_op(t.kind) {
                if p < min {
                    break;
                }
                self.pos += 1;
                let rhs = self.parse_expr_bp(p + 1)?;
                lhs = Expr::Binary {
                    op,
                    left: Box::new(lhs),
                    right: Box::new(rhs),
                };
                continue;
            }
            if let Some(op) = cmp_op(t.kind) {
                if P_CMP < min {
                    break;
                }
                self.pos += 1;
                let q = if self.kw("ALL") {
                    Some(Quantifier::All)
                } else if self.kw("ANY") {
                    Some(Quantifier::Any)
                } else if self.kw("SOME") {
                    Some(Quantifier::Some)
                } else {
                    None
                };
                if let Some(quantifier) = q {
                    self.pos += 1;
                    self.expect(Tok::LParen)?;
                    let query = self.parse_query(false)?;
                    self.expect(Tok::RParen)?;
                    lhs = Expr::Quantified {
                        left: Box::new(lhs),
                        op,
                        quantifier,
                        query: Box::new(query),
                    };
                } else {
                    let rhs = self.parse_expr_bp(P_CMP + 1)?;
                    lhs = Expr::Binary {
                        op,
                        left: Box::new(lhs),
                        right: Box::new(rhs),
                    };
                }
                continue;
            }
            if t.kind != Tok::Word {
                break;
            }
            let w = self.word_upper();
            match w.as_str() {
                "AND" if P_AND >= min => {
                    self.pos += 1;
                    let rhs = self.parse_expr_bp(P_AND + 1)?;
                    lhs = Expr::Binary {
                        op: BinaryOp::And,
                        left: Box::new(lhs),
                        right: Box::new(rhs),
                    };
                }
                "OR" if P_OR >= min => {
                    self.pos += 1;
                    let rhs = self.parse_expr_bp(P_OR + 1)?;
                    lhs = Expr::Binary {
                        op: BinaryOp::Or,
                        left: Box::new(lhs),
                        right: Box::new(rhs),
                    };
                }
                "COLLATE" => {
                    self.pos += 1;
                    let c = self.parse_ident()?;
                    lhs = Expr::Collate {
                        expr: Box::new(lhs),
                        collation: c.value,
                    };
                }
                "IS" if P_CMP >= min => {
                    self.pos += 1;
                    let negated = self.eat_kw("NOT");
                    self.expect_kw("NULL")?;
                    lhs = Expr::IsNull {
                        expr: Box::new(lhs),
                        negated,
                    };
                }
                "NOT" | "BETWEEN" | "IN" | "LIKE" if P_CMP >= min => {
                    let negated = w == "NOT";
                    let opw = if negated {
                        let n = self.peek_at(1);
                        if n.kind != Tok::Word {
                            break;
                        }
                        self.text(n).to_ascii_uppercase()
                    } else {
                        w.to_string()
                    };
                    if !matches!(opw.as_str(), "BETWEEN" | "IN" | "LIKE") {
                        break;
                    }
                    self.pos += if negated { 2 } else { 1 };
                    lhs = match opw.as_str() {
                        "BETWEEN" => {
                            let low = self.parse_expr_bp(P_ADD)?;
                            self.expect_kw("AND")?;
                            let high = self.parse_expr_bp(P_ADD)?;
                            Expr::Between {
                                expr: Box::new(lhs),
                                negated,
                                low: Box::new(low),
                                high: Box::new(high),
                            }
                        }
                        "IN" => {
                            self.expect(Tok::LParen)?;
                            if self.at_query_start() {
                                let q = self.parse_query(false)?;
                                self.expect(Tok::RParen)?;
                                Expr::InSubquery {
                                    expr: Box::new(lhs),
                                    negated,
                                    query: Box::new(q),
                                }
                            } else {
                                let list = self.parse_expr_list()?;
                                self.expect(Tok::RParen)?;
                                Expr::InList {
                                    expr: Box::new(lhs),
                                    negated,
                                    list,
                                }
                            }
                        }
                        _ => {
                            let pattern = self.parse_expr_bp(P_ADD)?;
                            let escape = if self.eat_kw("ESCAPE") {
                                Some(Box::new(self.parse_expr_bp(P_ADD)?))
                            } else {
                                None
                            };
                            Expr::Like {
                                expr: Box::new(lhs),
                                negated,
                                pattern: Box::new(pattern),
                                escape,
                            }
                        }
                    };
                }
                _ => break,
            }
        }
        Ok(lhs)
    }

    /// Comma-separated expressions (at least one).
    pub(crate) fn parse_expr_list(&mut self) -> SqlResult<Vec<Expr>> {
        let mut v = vec![self.parse_expr()?];
        while self.eat(Tok::Comma) {
            v.push(self.parse_expr()?);
        }
        Ok(v)
    }

    /// Is the current position the start of a query (`SELECT`, `WITH`, or `(` ... `SELECT`)?
    pub(crate) fn at_query_start(&self) -> bool {
        let mut i = 0;
        while self.at_n(i, Tok::LParen) {
            i += 1;
        }
        self.kw_at(i, "SELECT") || (self.kw_at(i, "WITH") && i == 0)
    }

    fn parse_prefix(&mut self, min: u8) -> SqlResult<Expr> {
        let t = self.peek();
        match t.kind {
            Tok::Minus | Tok::Plus | Tok::Tilde => {
                self.pos += 1;
                let op = match t.kind {
                    Tok::Minus => UnaryOp::Minus,
                    Tok::Plus => UnaryOp::Plus,
                    _ => UnaryOp::BitNot,
                };
                let e = self.parse_expr_bp(P_UNARY)?;
                Ok(Expr::Unary {
                    op,
                    expr: Box::new(e),
                })
            }
            Tok::Word if self.kw("NOT") => {
                if min > P_NOT {
                    return Err(self.error_here());
                }
                self.pos += 1;
                let e = self.parse_expr_bp(P_NOT)?;
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    expr: Box::new(e),
                })
            }
            _ => self.parse_primary(),
        }
    }

    fn parse_primary(&mut self) -> SqlResult<Expr> {
        let t = self.peek();
        let text = self.text(t);
        match t.kind {
            Tok::Integer => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Integer(text.to_string())))
            }
            Tok::Decimal => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Decimal(text.to_string())))
            }
            Tok::Float => {
                self.pos += 1;
                // `2e`, `2e+`, `5.e-`: a missing exponent is 0
                let mut f = text.to_string();
                if f.ends_with(['e', 'E', '+', '-']) {
                    f.push('0');
                }
                Ok(Expr::Literal(Literal::Float(f)))
            }
            Tok::Money => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Money(text[1..].to_string())))
            }
            Tok::String | Tok::NString => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::String {
                    value: lexer::string_value(self.src, &t),
                    national: t.kind == Tok::NString,
                }))
            }
            Tok::Binary => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Binary(decode_hex(&text[2..]))))
            }
            Tok::Variable => {
                self.pos += 1;
                Ok(Expr::Variable(text.to_string()))
            }
            Tok::SysVariable => {
                self.pos += 1;
                Ok(Expr::SystemVariable(text[2..].to_string()))
            }
            Tok::LParen => {
                self.pos += 1;
                if self.at_query_start() {
                    // `((SELECT ...) = 0 AND ...)`: a parenthesised query may also be the first
                    // operand of a larger expression; try the query first, then backtrack.
                    // Positions where that failed are remembered so that nested retries stay
                    // linear.
                    let (start, depth) = (self.pos, self.depth);
                    let nested = self.at(Tok::LParen);
                    if nested && self.not_query_at.contains(&start) {
                        let e = self.parse_expr()?;
                        self.expect(Tok::RParen)?;
                        return Ok(Expr::Nested(Box::new(e)));
                    }
                    match self.parse_query(false) {
                        Ok(q) if self.at(Tok::RParen) => {
                            self.pos += 1;
                            Ok(Expr::Subquery(Box::new(q)))
                        }
                        Ok(_) | Err(_) if nested => {
                            self.not_query_at.insert(start);
                            self.pos = start;
                            self.depth = depth;
                            let e = self.parse_expr()?;
                            self.expect(Tok::RParen)?;
                            Ok(Expr::Nested(Box::new(e)))
                        }
                        Ok(_) => Err(self.error_here()),
                        Err(e) => Err(e),
                    }
                } else {
                    let e = self.parse_expr()?;
                    self.expect(Tok::RParen)?;
                    Ok(Expr::Nested(Box::new(e)))
                }
            }
            Tok::Word => self.parse_word_primary(),
            Tok::QuotedIdent => self.parse_name_or_call(),
            _ => Err(self.error_here()),
        }
    }

    fn parse_word_primary(&mut self) -> SqlResult<Expr> {
        let w = self.word_upper();
        let next_paren = self.at_n(1, Tok::LParen);
        match w.as_str() {
            "NULL" => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Null))
            }
            "DEFAULT" => {
                self.pos += 1;
                Ok(Expr::Default)
            }
            "CASE" => self.parse_case(),
            "EXISTS" => {
                self.pos += 1;
                self.expect(Tok::LParen)?;
                let q = self.parse_query(false)?;
                self.expect(Tok::RParen)?;
                Ok(Expr::Exists(Box::new(q)))
            }
            "CAST" | "TRY_CAST" if next_paren => {
                self.pos += 2;
                let e = self.parse_expr()?;
                self.expect_kw("AS")?;
                let dt = self.parse_data_type()?;
                self.expect(Tok::RParen)?;
                Ok(Expr::Cast {
                    expr: Box::new(e),
                    data_type: dt,
                    try_cast: w == "TRY_CAST",
                })
            }
            "CONVERT" | "TRY_CONVERT" if next_paren => {
                self.pos += 2;
                let dt = self.parse_data_type()?;
                self.expect(Tok::Comma)?;
                let e = self.parse_expr()?;
                let style = if self.eat(Tok::Comma) {
                    Some(Box::new(self.parse_expr()?))
                } else {
                    None
                };
                self.expect(Tok::RParen)?;
                Ok(Expr::Convert {
                    data_type: dt,
                    expr: Box::new(e),
                    style,
                    try_convert: w == "TRY_CONVERT",
                })
            }
            "IDENTITY" if next_paren => {
                self.pos += 2;
                let dt = self.parse_data_type()?;
                let seed_increment = if self.eat(Tok::Comma) {
                    let s = self.parse_expr()?;
                    self.expect(Tok::Comma)?;
                    let i = self.parse_expr()?;
                    Some((Box::new(s), Box::new(i)))
                } else {
                    None
                };
                self.expect(Tok::RParen)?;
                Ok(Expr::IdentityFunction {
                    data_type: dt,
                    seed_increment,
                })
            }
            "NEXT" if self.kw_at(1, "VALUE") && self.kw_at(2, "FOR") => {
                self.pos += 3;
                Ok(Expr::NextValueFor(self.parse_object_name()?))
            }
            "CURRENT_TIMESTAMP" | "CURRENT_USER" | "SESSION_USER" | "SYSTEM_USER" => {
                self.pos += 1;
                Ok(Expr::Niladic(w.to_string()))
            }
            "USER" if !next_paren => {
                self.pos += 1;
                Ok(Expr::Niladic(w.to_string()))
            }
            _ => {
                let t = self.peek();
                if t.reserved {
                    if next_paren && RESERVED_FUNCTIONS.contains(&w.as_str()) {
                        self.pos += 1;
                        let name = ObjectName {
                            parts: vec![Ident::new(self.text(t))],
                        };
                        return self.parse_call(name);
                    }
                    return Err(self.error_here());
                }
                self.parse_name_or_call()
            }
        }
    }

    /// Column reference `a.b.c` or function call `dbo.f(x)`.
    fn parse_name_or_call(&mut self) -> SqlResult<Expr> {
        let name = self.parse_object_name()?;
        if self.at(Tok::LParen) {
            return self.parse_call(name);
        }
        Ok(Expr::Column(name))
    }

    /// Function call after its name; current token is `(`.
    pub(crate) fn parse_call(&mut self, name: ObjectName) -> SqlResult<Expr> {
        self.expect(Tok::LParen)?;
        let mut f = FunctionCall {
            name,
            args: Vec::new(),
            star: false,
            distinct: false,
            within_group: Vec::new(),
            over: None,
        };
        if self.eat(Tok::Star) {
            f.star = true;
        } else if !self.at(Tok::RParen) {
            if self.eat_kw("DISTINCT") {
                f.distinct = true;
            } else {
                self.eat_kw("ALL");
            }
            f.args = self.parse_expr_list()?;
        }
        self.expect(Tok::RParen)?;
        if self.kw("WITHIN") && self.kw_at(1, "GROUP") {
            self.pos += 2;
            self.expect(Tok::LParen)?;
            self.expect_kw("ORDER")?;
            self.expect_kw("BY")?;
            f.within_group = self.parse_order_by_items()?;
            self.expect(Tok::RParen)?;
        }
        if self.kw("OVER") {
            self.pos += 1;
            f.over = Some(self.parse_window_spec()?);
        }
        Ok(Expr::Function(Box::new(f)))
    }

    fn parse_window_spec(&mut self) -> SqlResult<WindowSpec> {
        self.expect(Tok::LParen)?;
        let mut w = WindowSpec {
            partition_by: Vec::new(),
            order_by: Vec::new(),
            frame: None,
        };
        if self.eat_kw("PARTITION") {
            self.expect_kw("BY")?;
            w.partition_by = self.parse_expr_list()?;
        }
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            w.order_by = self.parse_order_by_items()?;
        }
        let units = if self.eat_kw("ROWS") {
            Some(FrameUnits::Rows)
        } else if self.eat_kw("RANGE") {
            Some(FrameUnits::Range)
        } else {
            None
        };
        if let Some(units) = units {
            let (start, end) = if self.eat_kw("BETWEEN") {
                let s = self.parse_frame_bound()?;
                self.expect_kw("AND")?;
                let e = self.parse_frame_bound()?;
                (s, Some(e))
            } else {
                (self.parse_frame_bound()?, None)
            };
            w.frame = Some(WindowFrame { units, start, end });
        }
        self.expect(Tok::RParen)?;
        Ok(w)
    }

    fn parse_frame_bound(&mut self) -> SqlResult<FrameBound> {
        if self.eat_kw("UNBOUNDED") {
            if self.eat_kw("PRECEDING") {
                return Ok(FrameBound::UnboundedPreceding);
            }
            self.expect_kw("FOLLOWING")?;
            return Ok(FrameBound::UnboundedFollowing);
        }
        if self.eat_kw("CURRENT") {
            self.expect_kw("ROW")?;
            return Ok(FrameBound::CurrentRow);
        }
        let e = self.parse_expr_bp(P_ADD)?;
        if self.eat_kw("PRECEDING") {
            Ok(FrameBound::Preceding(Box::new(e)))
        } else {
            self.expect_kw("FOLLOWING")?;
            Ok(FrameBound::Following(Box::new(e)))
        }
    }

    pub(crate) fn parse_order_by_items(&mut self) -> SqlResult<Vec<OrderByItem>> {
        let mut v = Vec::new();
        loop {
            let expr = self.parse_expr()?;
            let desc = if self.eat_kw("DESC") {
                true
            } else {
                self.eat_kw("ASC");
                false
            };
            v.push(OrderByItem { expr, desc });
            if !self.eat(Tok::Comma) {
                return Ok(v);
            }
        }
    }

    fn parse_case(&mut self) -> SqlResult<Expr> {
        self.pos += 1; // CASE
        let operand = if self.kw("WHEN") {
            None
        } else {
            Some(Box::new(self.parse_expr()?))
        };
        let mut when_then = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.parse_expr()?;
            self.expect_kw("THEN")?;
            let t = self.parse_expr()?;
            when_then.push((w, t));
        }
        if when_then.is_empty() {
            return Err(self.error_here());
        }
        let else_result = if self.eat_kw("ELSE") {
            Some(Box::new(self.parse_expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr::Case {
            operand,
            when_then,
            else_result,
        })
    }

    /// `int`, `varchar(max)`, `decimal(10,2)`, `[nvarchar](50)`, `dbo.MyType`,
    /// `double precision`.
    pub(crate) fn parse_data_type(&mut self) -> SqlResult<DataTypeName> {
        let t = self.peek();
        let first = match t.kind {
            Tok::Word => {
                self.pos += 1;
                Ident::new(self.text(t))
            }
            Tok::QuotedIdent => self.parse_ident()?,
            _ => return Err(self.error_here()),
        };
        let (schema, mut name) = if self.at(Tok::Dot) {
            self.pos += 1;
            let n = self.parse_ident()?;
            (Some(first), n.value)
        } else {
            (None, first.value)
        };
        if name.eq_ignore_ascii_case("double") && self.eat_kw("PRECISION") {
            name = "float".to_string();
        }
        let mut params = Vec::new();
        if self.at(Tok::LParen) {
            self.pos += 1;
            loop {
                if self.eat_kw("MAX") {
                    params.push(TypeParam::Max);
                } else {
                    let t = self.peek();
                    if t.kind != Tok::Integer {
                        return Err(self.error_here());
                    }
                    let n = self.text(t).parse::<u64>().map_err(|_| self.error_here())?;
                    self.pos += 1;
                    params.push(TypeParam::Number(n));
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        Ok(DataTypeName {
            name,
            schema,
            params,
        })
    }
}

fn decode_hex(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 2 + 1);
    let val = |c: u8| -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 0,
        }
    };
    // SQL Server pads an odd-length literal with a leading zero: 0x123 = 0x0123.
    let mut i = 0;
    if b.len() % 2 == 1 {
        out.push(val(b[0]));
        i = 1;
    }
    while i + 1 < b.len() {
        out.push(val(b[i]) * 16 + val(b[i + 1]));
        i += 2;
    }
    out
}
