//! Security statements: CREATE/ALTER/DROP LOGIN, USER, ROLE; ALTER SERVER ROLE; GRANT, DENY,
//! REVOKE. The statement keeps its source text (the printer writes it back unchanged).

use super::Parser;
use crate::ast::*;
use crate::lexer::Tok;
use common::SqlResult;

impl Parser<'_> {
    /// At `CREATE`/`ALTER`/`DROP` (followed by LOGIN, USER, ROLE or SERVER ROLE) or at
    /// `GRANT`/`DENY`/`REVOKE`.
    pub(crate) fn parse_security_statement(&mut self) -> SqlResult<StatementKind> {
        let first = self.peek();
        let verb = self.word_upper().to_string();
        self.pos += 1;
        let stmt = match verb.as_str() {
            "GRANT" | "DENY" | "REVOKE" => {
                SecurityStatement::Permission(Box::new(self.parse_permission(&verb)?))
            }
            "CREATE" | "ALTER" | "DROP" => {
                let what = self.word_upper().to_string();
                self.pos += 1;
                match (verb.as_str(), what.as_str()) {
                    ("CREATE", "LOGIN") => {
                        let name = self.parse_ident()?;
                        let source = if self.eat_kw("FROM") {
                            Some(self.parse_any_word()?.value.to_ascii_uppercase())
                        } else {
                            None
                        };
                        let options = self.parse_principal_options()?;
                        SecurityStatement::CreateLogin {
                            name,
                            source,
                            options,
                        }
                    }
                    ("ALTER", "LOGIN") => {
                        let name = self.parse_ident()?;
                        let action = if self.eat_kw("ENABLE") {
                            AlterLoginAction::Enable
                        } else if self.eat_kw("DISABLE") {
                            AlterLoginAction::Disable
                        } else if self.kw("WITH") {
                            AlterLoginAction::Options(self.parse_principal_options()?)
                        } else {
                            return Err(self.error_here());
                        };
                        SecurityStatement::AlterLogin { name, action }
                    }
                    ("DROP", "LOGIN") => SecurityStatement::DropLogin {
                        name: self.parse_ident()?,
                    },
                    ("CREATE", "USER") => {
                        let name = self.parse_ident()?;
                        let mut login = None;
                        let mut without_login = false;
                        if self.eat_kw("FOR") || self.eat_kw("FROM") {
                            self.expect_kw("LOGIN")?;
                            login = Some(self.parse_ident()?);
                        } else if self.kw("WITHOUT") && self.kw_at(1, "LOGIN") {
                            self.pos += 2;
                            without_login = true;
                        }
                        let options = self.parse_principal_options()?;
                        SecurityStatement::CreateUser {
                            name,
                            login,
                            without_login,
                            options,
                        }
                    }
                    ("ALTER", "USER") => {
                        let name = self.parse_ident()?;
                        if !self.kw("WITH") {
                            return Err(self.error_here());
                        }
                        let options = self.parse_principal_options()?;
                        SecurityStatement::AlterUser { name, options }
                    }
                    ("DROP", "USER") => {
                        let if_exists = self.eat_if_exists();
                        SecurityStatement::DropUser {
                            name: self.parse_ident()?,
                            if_exists,
                        }
                    }
                    ("CREATE", "ROLE") => {
                        let name = self.parse_ident()?;
                        let authorization = if self.eat_kw("AUTHORIZATION") {
                            Some(self.parse_ident()?)
                        } else {
                            None
                        };
                        SecurityStatement::CreateRole {
                            name,
                            authorization,
                        }
                    }
                    ("ALTER", "ROLE") => {
                        let name = self.parse_ident()?;
                        let action = self.parse_role_action()?;
                        SecurityStatement::AlterRole {
                            name,
                            action,
                            server: false,
                        }
                    }
                    ("ALTER", "SERVER") => {
                        self.expect_kw("ROLE")?;
                        let name = self.parse_ident()?;
                        let action = self.parse_role_action()?;
                        SecurityStatement::AlterRole {
                            name,
                            action,
                            server: true,
                        }
                    }
                    ("DROP", "ROLE") => {
                        let if_exists = self.eat_if_exists();
                        SecurityStatement::DropRole {
                            name: self.parse_ident()?,
                            if_exists,
                        }
                    }
                    _ => {
                        self.pos -= 1;
                        return Err(self.error_here());
                    }
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error_here());
            }
        };
        if !(self.at(Tok::Eof) || self.at(Tok::Semicolon) || self.at_statement_keyword()) {
            return Err(self.error_here());
        }
        let text = self.src[first.start as usize..self.prev_end() as usize].to_string();
        Ok(StatementKind::Security {
            stmt: Box::new(stmt),
            text,
        })
    }

    /// Does the current word start another statement (a batch without semicolons)?
    fn at_statement_keyword(&self) -> bool {
        matches!(
            self.word_upper().as_str(),
            "SELECT"
                | "INSERT"
                | "UPDATE"
                | "DELETE"
                | "CREATE"
                | "ALTER"
                | "DROP"
                | "EXEC"
                | "EXECUTE"
                | "GRANT"
                | "DENY"
                | "REVOKE"
                | "SET"
                | "DECLARE"
                | "IF"
                | "WHILE"
                | "BEGIN"
                | "END"
                | "PRINT"
                | "USE"
                | "RETURN"
                | "COMMIT"
                | "ROLLBACK"
                | "MERGE"
                | "WITH"
                | "RAISERROR"
                | "THROW"
        )
    }

    fn eat_if_exists(&mut self) -> bool {
        if self.kw("IF") && self.kw_at(1, "EXISTS") {
            self.pos += 2;
            true
        } else {
            false
        }
    }

    /// `ADD MEMBER x | DROP MEMBER x | WITH NAME = x`.
    fn parse_role_action(&mut self) -> SqlResult<RoleAction> {
        if self.eat_kw("ADD") {
            self.expect_kw("MEMBER")?;
            Ok(RoleAction::AddMember(self.parse_ident()?))
        } else if self.eat_kw("DROP") {
            self.expect_kw("MEMBER")?;
            Ok(RoleAction::DropMember(self.parse_ident()?))
        } else if self.eat_kw("WITH") {
            self.expect_kw("NAME")?;
            self.expect(Tok::Eq)?;
            Ok(RoleAction::Rename(self.parse_ident()?))
        } else {
            Err(self.error_here())
        }
    }

    /// `[WITH] NAME = value [HASHED] [MUST_CHANGE], ...` (nothing when no WITH follows).
    fn parse_principal_options(&mut self) -> SqlResult<Vec<PrincipalOption>> {
        let mut out = Vec::new();
        if !self.eat_kw("WITH") {
            return Ok(out);
        }
        loop {
            let name = self.parse_any_word()?.value.to_ascii_uppercase();
            self.expect(Tok::Eq)?;
            let t = self.peek();
            let value = match t.kind {
                Tok::String | Tok::NString => PrincipalValue::Text(self.parse_string_lit()?),
                Tok::Binary => {
                    self.pos += 1;
                    PrincipalValue::Binary(self.text(t).to_string())
                }
                Tok::Word if self.kw("ON") => {
                    self.pos += 1;
                    PrincipalValue::On
                }
                Tok::Word if self.kw("OFF") => {
                    self.pos += 1;
                    PrincipalValue::Off
                }
                Tok::Word | Tok::QuotedIdent => PrincipalValue::Name(self.parse_any_word()?.value),
                _ => return Err(self.error_here()),
            };
            let mut flags = Vec::new();
            while self.kw("HASHED") || self.kw("MUST_CHANGE") || self.kw("UNLOCK") {
                flags.push(self.word_upper().to_string());
                self.pos += 1;
            }
            out.push(PrincipalOption { name, value, flags });
            // `PASSWORD = 'new' OLD_PASSWORD = 'old'` takes no comma
            if !self.eat(Tok::Comma) && !self.kw("OLD_PASSWORD") {
                break;
            }
        }
        Ok(out)
    }

    /// After GRANT/DENY/REVOKE: `[GRANT OPTION FOR] perm [(cols)], ... [ON [class::]name]
    /// {TO|FROM} principal, ... [WITH GRANT OPTION] [CASCADE] [AS principal]`.
    fn parse_permission(&mut self, verb: &str) -> SqlResult<PermissionStatement> {
        let action = match verb {
            "GRANT" => PermissionAction::Grant,
            "DENY" => PermissionAction::Deny,
            _ => PermissionAction::Revoke,
        };
        let grant_option_for = action == PermissionAction::Revoke
            && self.kw("GRANT")
            && self.kw_at(1, "OPTION")
            && self.kw_at(2, "FOR");
        if grant_option_for {
            self.pos += 3;
        }
        let mut permissions = Vec::new();
        let mut has_columns = false;
        loop {
            let mut words = Vec::new();
            while self.at(Tok::Word) && !self.kw("ON") && !self.kw("TO") && !self.kw("FROM") {
                words.push(self.word_upper().to_string());
                self.pos += 1;
            }
            if words.is_empty() {
                return Err(self.error_here());
            }
            if self.at(Tok::LParen) {
                // column permissions: recorded as a flag; the engine refuses them
                has_columns = true;
                self.pos += 1;
                loop {
                    self.parse_ident()?;
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen)?;
            }
            permissions.push(words.join(" "));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        let mut class = None;
        let mut securable = None;
        if self.eat_kw("ON") {
            if self.at(Tok::Word) && self.at_n(1, Tok::DoubleColon) {
                class = Some(self.word_upper().to_string());
                self.pos += 2;
            }
            securable = Some(self.parse_object_name()?);
            if self.at(Tok::LParen) {
                has_columns = true;
                self.pos += 1;
                loop {
                    self.parse_ident()?;
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen)?;
            }
        }
        if !(self.eat_kw("TO") || self.eat_kw("FROM")) {
            return Err(self.error_here());
        }
        let mut principals = vec![self.parse_ident()?];
        while self.eat(Tok::Comma) {
            principals.push(self.parse_ident()?);
        }
        let mut with_grant_option = false;
        if self.kw("WITH") && self.kw_at(1, "GRANT") && self.kw_at(2, "OPTION") {
            self.pos += 3;
            with_grant_option = true;
        }
        let cascade = self.eat_kw("CASCADE");
        let as_principal = if self.eat_kw("AS") {
            Some(self.parse_ident()?)
        } else {
            None
        };
        Ok(PermissionStatement {
            action,
            permissions,
            has_columns,
            class,
            securable,
            principals,
            with_grant_option,
            grant_option_for,
            cascade,
            as_principal,
        })
    }
}
