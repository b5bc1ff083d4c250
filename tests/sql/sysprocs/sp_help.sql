-- format: jsonl
-- sp_help of one object starts with its creation time and sp_helpdb shows file paths and
-- sizes: see crates/engine/tests/sysprocs.rs
CREATE DATABASE helpdb;
GO
USE helpdb;
CREATE TABLE dbo.parent (id INT NOT NULL CONSTRAINT pk_parent PRIMARY KEY, name VARCHAR(20) NULL);
CREATE TABLE dbo.child (
    cid INT IDENTITY(10, 5) NOT NULL CONSTRAINT pk_child PRIMARY KEY,
    pid INT NOT NULL CONSTRAINT fk_child_parent REFERENCES dbo.parent (id),
    amount DECIMAL(10, 2) NULL CONSTRAINT df_amount DEFAULT 0,
    code NCHAR(4) NULL,
    CONSTRAINT ck_amount CHECK (amount >= 0)
);
CREATE INDEX ix_child_pid ON dbo.child (pid DESC, code);
CREATE TYPE dbo.phone FROM VARCHAR(20) NOT NULL;
GO
CREATE VIEW dbo.v_child AS SELECT cid, amount FROM dbo.child;
GO
CREATE PROCEDURE dbo.p_get @id INT, @name NVARCHAR(30) = NULL AS SELECT @id AS id;
GO
EXEC sp_help;
GO
EXEC sp_help 'int';
EXEC sp_help phone;
GO
EXEC sp_helpindex 'child';
EXEC master.dbo.sp_helpindex @objname = N'dbo.parent';
EXEC sys.sp_helpindex 'v_child';
GO
EXEC sp_help 'nosuch';
GO
EXEC sp_help @bogus = 1;
GO
EXEC sp_helpindex;
GO
EXEC sp_help 'a', 'b';
GO
EXEC sp_helpdb 'nosuchdb';
GO
