// The scripted session of tests/clients/README.md through go-mssqldb (database/sql): plain and
// TLS connections, several result sets, typed parameters round-tripping, errors with their
// numbers, a transaction, OUTPUT parameters over RPC with the return status, and a cancel
// through a context deadline (the driver sends an attention).
//
// Environment: LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CLIENT.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
)

type checks struct {
	passed int
	failed []string
}

func (c *checks) check(name string, ok bool, detail string) {
	if ok {
		c.passed++
		fmt.Printf("  ok   %s\n", name)
	} else {
		c.failed = append(c.failed, name)
		fmt.Printf("  FAIL %s: %s\n", name, detail)
	}
}

func (c *checks) equal(name string, got, want any) {
	c.check(name, reflect.DeepEqual(got, want), fmt.Sprintf("got %#v, want %#v", got, want))
}

func (c *checks) noErr(name string, err error) bool {
	if err != nil {
		c.check(name, false, err.Error())
		return false
	}
	return true
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func dsn(tls bool) string {
	if tls {
		return dsnEncrypt("true")
	}
	return dsnEncrypt("disable")
}

// dsnEncrypt: go-mssqldb's encrypt modes: disable, false (login only), true, strict (TDS 8.0).
func dsnEncrypt(mode string) string {
	u := &url.URL{
		Scheme: "sqlserver",
		User:   url.UserPassword(env("LK_USER", "sa"), env("LK_PASSWORD", "")),
		Host:   env("LK_HOST", "127.0.0.1") + ":" + env("LK_PORT", "1433"),
	}
	q := url.Values{}
	q.Set("database", "master")
	q.Set("dial timeout", "10")
	q.Set("encrypt", mode)
	if mode == "strict" {
		// TDS 8.0 checks the certificate whatever TrustServerCertificate says: trust the one
		// run.sh made
		q.Set("certificate", env("LK_CAFILE", ""))
	} else if mode != "disable" {
		q.Set("TrustServerCertificate", "true")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func obj(name string) string { return "dbo.c_" + env("LK_CLIENT", "go") + "_" + name }

func main() {
	c := &checks{}
	ctx := context.Background()
	fmt.Printf("go-mssqldb: %s:%s\n", env("LK_HOST", "127.0.0.1"), env("LK_PORT", "1433"))

	db, err := sql.Open("sqlserver", dsn(false))
	if !c.noErr("open", err) {
		finish(c)
	}
	db.SetMaxOpenConns(4)
	var one int
	if !c.noErr("connect without TLS", db.QueryRowContext(ctx, "SELECT 1").Scan(&one)) {
		finish(c)
	}
	c.equal("plain connection: SELECT 1", one, 1)

	tdb, err := sql.Open("sqlserver", dsn(true))
	if c.noErr("open TLS", err) {
		var two int
		if c.noErr("connect with TLS", tdb.QueryRowContext(ctx, "SELECT 2").Scan(&two)) {
			c.equal("TLS connection: SELECT 2", two, 2)
		}
		tdb.Close()
	}

	// TDS 8.0 strict encryption: TLS (ALPN tds/8.0) before PRELOGIN, LOGIN7 as TDS 8.0; the
	// date comes back as a time.Time only if LOGINACK said 7.3 or later
	sdb, err := sql.Open("sqlserver", dsnEncrypt("strict"))
	if c.noErr("open strict", err) {
		var d time.Time
		if c.noErr("connect with TDS 8.0 strict encryption", sdb.QueryRowContext(ctx, "SELECT CAST('2024-02-29' AS date)").Scan(&d)) {
			c.equal("strict connection: a date", d.Format("2006-01-02"), "2024-02-29")
		}
		sdb.Close()
	}

	resultSets(ctx, c, db)
	roundTrip(ctx, c, db)
	errorsCheck(ctx, c, db)
	setup(ctx, c, db)
	transaction(ctx, c, db)
	outputParams(ctx, c, db)
	cancel(ctx, c, db)
	db.Close()
	finish(c)
}

func resultSets(ctx context.Context, c *checks, db *sql.DB) {
	rows, err := db.QueryContext(ctx, "SELECT 1 AS a, N'x' AS b; "+
		"SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; "+
		"SELECT name FROM sys.databases WHERE 1 = 0; SELECT N'last' AS z")
	if !c.noErr("several result sets", err) {
		return
	}
	defer rows.Close()
	var sets [][]string
	for {
		var set []string
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				c.check("several result sets: scan", false, err.Error())
				return
			}
			set = append(set, strings.TrimSpace(fmt.Sprintln(vals...)))
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	c.noErr("several result sets: rows", rows.Err())
	c.equal("several result sets", fmt.Sprint(sets), "[[1 x] [2 3] [] [last]]")
}

func roundTrip(ctx context.Context, c *checks, db *sql.DB) {
	ts := time.Date(2024, 2, 29, 13, 45, 10, 123456700, time.UTC)
	dto := time.Date(2024, 2, 29, 13, 45, 10, 123456700, time.FixedZone("", 5*3600+30*60))
	guid := mssql.UniqueIdentifier{0x6f, 0x96, 0x19, 0xff, 0x8b, 0x86, 0xd0, 0x11, 0xb4, 0x2d, 0x00, 0xc0, 0x4f, 0xc9, 0x64, 0xff}
	cases := []struct {
		name string
		in   any
	}{
		{"int64", int64(1) << 40},
		{"int32", int32(-2147483648)},
		{"bool", true},
		{"float64", 1.0e300 / 3},
		{"string", "h\u00e9llo \u2713 \u4e16\u754c"},
		{"long string", strings.Repeat("long \u00e9 ", 2000)},
		{"varchar", mssql.VarChar("abc")},
		{"bytes", []byte{0, 1, 0xfe, 0xff}},
		{"long bytes", bytes.Repeat([]byte{1, 2, 3, 4}, 3000)},
		{"time.Time", ts},
		{"datetime", mssql.DateTime1(time.Date(2024, 2, 29, 13, 45, 10, 0, time.UTC))},
		{"datetimeoffset", dto},
		{"uniqueidentifier", guid},
	}
	for _, tc := range cases {
		var got any
		err := db.QueryRowContext(ctx, "SELECT @p1", tc.in).Scan(&got)
		if !c.noErr("param "+tc.name, err) {
			continue
		}
		want := tc.in
		switch v := tc.in.(type) {
		case int32:
			want = int64(v)
		case mssql.VarChar:
			want = string(v)
		case mssql.DateTime1:
			want = time.Time(v)
		case mssql.UniqueIdentifier:
			var g mssql.UniqueIdentifier
			if b, ok := got.([]byte); ok && g.Scan(b) == nil {
				got = g
			}
		}
		if t, ok := got.(time.Time); ok {
			if w, ok := want.(time.Time); ok {
				c.check("param "+tc.name, t.Equal(w), fmt.Sprintf("got %v, want %v", t, w))
				continue
			}
		}
		c.equal("param "+tc.name, got, want)
	}
	var dec string
	if c.noErr("decimal", db.QueryRowContext(ctx, "SELECT CAST(@p1 AS decimal(10,4))", "12345.6789").Scan(&dec)) {
		c.equal("decimal(10,4)", dec, "12345.6789")
	}
	var money string
	if c.noErr("money", db.QueryRowContext(ctx, "SELECT CAST(-922337203685477.5808 AS money)").Scan(&money)) {
		c.equal("money", money, "-922337203685477.5808")
	}
	var d time.Time
	if c.noErr("date", db.QueryRowContext(ctx, "SELECT CAST('0001-01-01' AS date)").Scan(&d)) {
		c.equal("date", d.Format("2006-01-02"), "0001-01-01")
	}
	var null sql.NullInt64
	if c.noErr("null", db.QueryRowContext(ctx, "SELECT CAST(NULL AS int)").Scan(&null)) {
		c.equal("null int", null.Valid, false)
	}
}

func errorsCheck(ctx context.Context, c *checks, db *sql.DB) {
	for _, tc := range []struct {
		sql    string
		number int32
		text   string
	}{
		{"SELECT * FROM " + obj("no_such_table"), 208, "Invalid object name '" + obj("no_such_table") + "'."},
		{"SELECT 1/0", 8134, "Divide by zero error encountered."},
		{"RAISERROR('custom %d', 16, 1, 42)", 50000, "custom 42"},
	} {
		var x any
		err := db.QueryRowContext(ctx, tc.sql).Scan(&x)
		var me mssql.Error
		if !errors.As(err, &me) {
			c.check(fmt.Sprintf("error %d", tc.number), false, fmt.Sprintf("got %v", err))
			continue
		}
		c.equal(fmt.Sprintf("error %d: number", tc.number), me.Number, tc.number)
		c.equal(fmt.Sprintf("error %d: message", tc.number), me.Message, tc.text)
		c.check(fmt.Sprintf("error %d: severity", tc.number), me.Class == 16, fmt.Sprintf("class %d", me.Class))
	}
}

func setup(ctx context.Context, c *checks, db *sql.DB) {
	for _, s := range []string{
		"IF OBJECT_ID('" + obj("t") + "') IS NOT NULL DROP TABLE " + obj("t"),
		"CREATE TABLE " + obj("t") + " (id int PRIMARY KEY, v nvarchar(50))",
		"IF OBJECT_ID('" + obj("out") + "') IS NOT NULL DROP PROCEDURE " + obj("out"),
		"CREATE PROCEDURE " + obj("out") + " @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS " +
			"BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END",
	} {
		_, err := db.ExecContext(ctx, s)
		c.noErr("setup: "+s[:20], err)
	}
}

func transaction(ctx context.Context, c *checks, db *sql.DB) {
	tx, err := db.BeginTx(ctx, nil)
	if !c.noErr("begin", err) {
		return
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO "+obj("t")+" (id, v) VALUES (1, N'rolled back')")
	c.noErr("insert in transaction", err)
	c.noErr("rollback", tx.Rollback())
	var n int
	if c.noErr("count", db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+obj("t")).Scan(&n)) {
		c.equal("rollback undoes the insert", n, 0)
	}
	tx, err = db.BeginTx(ctx, nil)
	if !c.noErr("begin", err) {
		return
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO "+obj("t")+" (id, v) VALUES (@p1, @p2)", 2, "committed")
	c.noErr("insert with parameters", err)
	c.noErr("commit", tx.Commit())
	var v string
	if c.noErr("read back", db.QueryRowContext(ctx, "SELECT v FROM "+obj("t")+" WHERE id = 2").Scan(&v)) {
		c.equal("commit keeps the insert", v, "committed")
	}
}

func outputParams(ctx context.Context, c *checks, db *sql.DB) {
	var b int64
	var s string
	var rs mssql.ReturnStatus
	_, err := db.ExecContext(ctx, obj("out"), sql.Named("a", 21), sql.Named("b", sql.Out{Dest: &b}),
		sql.Named("s", sql.Out{Dest: &s}), &rs)
	if !c.noErr("OUTPUT parameters", err) {
		return
	}
	c.equal("OUTPUT int", b, int64(42))
	c.equal("OUTPUT nvarchar", s, "out:21")
	c.equal("return status", int(rs), 7)
}

func cancel(ctx context.Context, c *checks, db *sql.DB) {
	conn, err := db.Conn(ctx)
	if !c.noErr("cancel: connection", err) {
		return
	}
	defer conn.Close()
	// A cancel, not a deadline: go-mssqldb marks a connection bad after any
	// context.DeadlineExceeded (it satisfies net.Error, see checkBadConn), whatever the server
	// answers; after a plain cancel the connection stays usable once the server acknowledges
	// the attention, which is what this checks.
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	time.AfterFunc(time.Second, stop)
	start := time.Now()
	_, err = conn.ExecContext(cctx, "WAITFOR DELAY '00:00:20'")
	elapsed := time.Since(start)
	c.check("cancel: WAITFOR interrupted", err != nil, "no error")
	c.check("cancel stops WAITFOR within 10 s", elapsed < 10*time.Second, elapsed.String())
	var n int
	if c.noErr("after cancel", conn.QueryRowContext(ctx, "SELECT 4").Scan(&n)) {
		c.equal("connection usable after cancel", n, 4)
	}
}

func finish(c *checks) {
	fmt.Printf("go-mssqldb: %d passed, %d failed\n", c.passed, len(c.failed))
	if len(c.failed) > 0 {
		fmt.Printf("go-mssqldb: failed: %s\n", strings.Join(c.failed, ", "))
		os.Exit(1)
	}
	os.Exit(0)
}
