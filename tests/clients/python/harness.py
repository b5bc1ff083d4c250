"""The scripted session every Python client runs against `latchkey serve` (tests/clients/README.md).

Each client module (pytds_session.py, pymssql_session.py, ...) gives a `Driver`: how to connect
(plain or TLS), its parameter marker, how it calls a procedure with OUTPUT parameters, how it
cancels a running request and how its errors carry the SQL Server message number. The checks are
the same for all of them, so a difference between clients is a difference between drivers.

Environment (set by tests/clients/run.sh): LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CAFILE (the
server's certificate, PEM), LK_CLIENT (a short name used to keep each client's objects apart).
"""

import datetime
import decimal
import os
import sys
import time
import traceback
import uuid

HOST = os.environ.get("LK_HOST", "127.0.0.1")
PORT = int(os.environ.get("LK_PORT", "1433"))
USER = os.environ.get("LK_USER", "sa")
PASSWORD = os.environ.get("LK_PASSWORD", "")
CAFILE = os.environ.get("LK_CAFILE", "")
CLIENT = os.environ.get("LK_CLIENT", "py")


class Checks:
    """Counts checks; a failed one is printed with what was expected and what came back."""

    def __init__(self, client):
        self.client = client
        self.passed = 0
        self.failed = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok   {name}")
        else:
            self.failed.append(name)
            print(f"  FAIL {name}: {detail}")

    def equal(self, name, got, want):
        self.check(name, got == want, f"got {got!r}, want {want!r}")

    def run(self, name, fn):
        """Runs one step; an exception is a failed check (with its traceback), not an abort."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the rest
            self.failed.append(name)
            print(f"  FAIL {name}: {type(e).__name__}: {e}")
            traceback.print_exc(limit=3, file=sys.stdout)

    def finish(self):
        print(f"{self.client}: {self.passed} passed, {len(self.failed)} failed")
        if self.failed:
            print(f"{self.client}: failed: {', '.join(self.failed)}")
        return 1 if self.failed else 0


def obj(name):
    """A schema-qualified object name private to this client (clients share one server)."""
    return f"dbo.c_{CLIENT}_{name}"


# Values that go through a parameter and come back through `SELECT <marker>`: every type a
# Python driver maps on its own. (name, value, optional normaliser applied to what came back)
ROUND_TRIP = [
    ("int", 123456, None),
    ("negative int", -2147483648, None),
    ("bigint", 2**40 + 7, None),
    ("bit", True, bool),
    ("float", 1.0e300 / 3, None),
    ("decimal", decimal.Decimal("12345.6789"), None),
    ("negative decimal", decimal.Decimal("-0.0001"), None),
    ("nvarchar", "h\u00e9llo \u2713 \u4e16\u754c", None),
    ("empty string", "", None),
    ("nvarchar(max)", "long \u00e9 " * 2000, None),
    ("varbinary", b"\x00\x01\xfe\xff", bytes),
    ("varbinary(max)", bytes(range(256)) * 40, bytes),
    ("date", datetime.date(2024, 2, 29), None),
    ("datetime2", datetime.datetime(2024, 2, 29, 13, 45, 10, 123456), None),
    ("time", datetime.time(13, 45, 10, 500000), None),
    ("uniqueidentifier", uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff"), None),
    ("null", None, None),
]

# Values typed by the server (SQL literals), decoded by the driver: (name, select list item,
# expected Python value).
SERVER_TYPED = [
    ("tinyint", "CAST(255 AS tinyint)", 255),
    ("smallint", "CAST(-32768 AS smallint)", -32768),
    ("bigint", "CAST(-9223372036854775808 AS bigint)", -9223372036854775808),
    ("real", "CAST(0.5 AS real)", 0.5),
    ("decimal(38,10)", "CAST('-1234567890123456789012345678.1234567890' AS decimal(38,10))",
     decimal.Decimal("-1234567890123456789012345678.1234567890")),
    ("numeric(5,0)", "CAST(99999 AS numeric(5,0))", decimal.Decimal("99999")),
    ("money", "CAST(-922337203685477.5808 AS money)", decimal.Decimal("-922337203685477.5808")),
    ("smallmoney", "CAST(214748.3647 AS smallmoney)", decimal.Decimal("214748.3647")),
    ("datetime", "CAST('2024-02-29T13:45:10.997' AS datetime)",
     datetime.datetime(2024, 2, 29, 13, 45, 10, 997000)),
    ("smalldatetime", "CAST('2024-02-29T13:45:00' AS smalldatetime)",
     datetime.datetime(2024, 2, 29, 13, 45)),
    ("date", "CAST('0001-01-01' AS date)", datetime.date(1, 1, 1)),
    ("datetime2(7)", "CAST('9999-12-31T23:59:59.9999999' AS datetime2(7))",
     datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)),
    ("time(0)", "CAST('23:59:59' AS time(0))", datetime.time(23, 59, 59)),
    ("varchar", "CAST('abc' AS varchar(10))", "abc"),
    ("char", "CAST('ab' AS char(4))", "ab  "),
    ("nchar", "CAST(N'\u00e9' AS nchar(2))", "\u00e9 "),
    ("varchar(max)", "REPLICATE(CAST('x' AS varchar(max)), 9000)", "x" * 9000),
    ("binary", "CAST(0x0102 AS binary(4))", b"\x01\x02\x00\x00"),
    ("uniqueidentifier", "CAST('6F9619FF-8B86-D011-B42D-00C04FC964FF' AS uniqueidentifier)",
     uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")),
    ("bit", "CAST(1 AS bit)", True),
    ("null int", "CAST(NULL AS int)", None),
]


class Driver:
    """What a client module implements. `marker` is the driver's parameter placeholder."""

    name = "driver"
    marker = "?"
    tls = True
    # whether the driver can do TDS 8.0 strict encryption (connect(tls="strict"))
    strict = False
    # whether the driver's exceptions carry the SQL Server message number (mssql-python's
    # carry the SQLSTATE and the text only)
    error_numbers = True
    # some drivers cannot bind every Python type: names in ROUND_TRIP to leave out, with why
    skip_round_trip = {}
    # and some decode a server type into another Python type: name -> converter
    server_typed_convert = {}
    # drivers that interpolate parameters into the SQL text as literals get back what SQL
    # Server returns for that literal: name in ROUND_TRIP -> function(value) giving it
    round_trip_expect = {}

    def connect(self, tls=False, autocommit=True):
        raise NotImplementedError

    def binary(self, value):
        """DB-API's Binary(): how the driver wants bytes bound as varbinary."""
        return value

    def error_number(self, exc):
        raise NotImplementedError

    def call_out_proc(self, conn, a):
        """Calls obj('out') with @a = a: returns (b, s, return status)."""
        raise NotImplementedError

    def extra_checks(self, c):
        """Checks only this driver can make (run last, before the connection closes)."""

    def cancel_long_query(self, conn):
        """Starts `WAITFOR DELAY '00:00:20'` and cancels it after about a second; returns
        normally once cancelled (raising only if the cancel did not happen)."""
        raise NotImplementedError


def scalar(conn, sql, params=None):
    cur = conn.cursor()
    if params is None:
        cur.execute(sql)
    else:
        cur.execute(sql, params)
    row = cur.fetchone()
    cur.close()
    return None if row is None else row[0]


def run_session(driver):
    c = Checks(driver.name)
    print(f"{driver.name}: {HOST}:{PORT} as {USER}")
    state = {}

    def connect_plain():
        conn = driver.connect(tls=False)
        state["conn"] = conn
        c.equal("plain connection: SELECT 1", scalar(conn, "SELECT 1"), 1)
        c.equal("plain connection: DB_NAME()", scalar(conn, "SELECT DB_NAME()"), "master")

    c.run("connect without TLS", connect_plain)
    conn = state.get("conn")
    if conn is None:
        return c.finish()

    if driver.tls:
        def connect_tls():
            tconn = driver.connect(tls=True)
            c.equal("TLS connection: SELECT 2", scalar(tconn, "SELECT 2"), 2)
            tconn.close()
        c.run("connect with TLS", connect_tls)

    if driver.strict:
        def connect_strict():
            sconn = driver.connect(tls="strict")
            c.equal("TDS 8.0 strict connection: SELECT 3", scalar(sconn, "SELECT 3"), 3)
            sconn.close()
        c.run("connect with TDS 8.0 strict encryption", connect_strict)

    def multiple_result_sets():
        cur = conn.cursor()
        cur.execute(
            "SELECT 1 AS a, N'x' AS b; "
            "SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; "
            "SELECT name FROM sys.databases WHERE 1 = 0; "
            "SELECT N'last' AS z"
        )
        sets = [[tuple(r) for r in cur.fetchall()]]
        while cur.nextset():
            sets.append([tuple(r) for r in cur.fetchall()])
        cur.close()
        c.equal("several result sets", sets, [[(1, "x")], [(2,), (3,)], [], [("last",)]])

    c.run("several result sets", multiple_result_sets)

    def round_trip():
        for name, value, norm in ROUND_TRIP:
            if name in driver.skip_round_trip:
                print(f"  skip param {name}: {driver.skip_round_trip[name]}")
                continue
            bound = driver.binary(value) if isinstance(value, bytes) else value
            try:
                got = scalar(conn, f"SELECT {driver.marker}", (bound,))
            except Exception as e:  # noqa: BLE001
                c.check(f"param {name}", False, f"{type(e).__name__}: {e}")
                continue
            if norm is not None and got is not None:
                got = norm(got)
            want = driver.round_trip_expect.get(name, lambda v: v)(value)
            c.equal(f"param {name}", got, want)

    c.run("parameters round trip", round_trip)

    def server_typed():
        for name, expr, want in SERVER_TYPED:
            try:
                got = scalar(conn, f"SELECT {expr}")
            except Exception as e:  # noqa: BLE001
                c.check(f"type {name}", False, f"{type(e).__name__}: {e}")
                continue
            conv = driver.server_typed_convert.get(name)
            if conv is not None and got is not None:
                got = conv(got)
            c.equal(f"type {name}", got, want)

    c.run("server-typed values", server_typed)

    def errors():
        for sql, number, text in [
            (f"SELECT * FROM {obj('no_such_table')}", 208,
             f"Invalid object name '{obj('no_such_table')}'."),
            ("SELECT 1/0", 8134, "Divide by zero error encountered."),
            ("RAISERROR('custom %d', 16, 1, 42)", 50000, "custom 42"),
        ]:
            try:
                scalar(conn, sql)
                c.check(f"error {number}", False, "no error raised")
            except Exception as e:  # noqa: BLE001
                if driver.error_numbers:
                    c.equal(f"error {number}: number", driver.error_number(e), number)
                c.check(f"error {number}: message", text in str(e), f"{text!r} not in {str(e)!r}")
        c.equal("connection usable after errors", scalar(conn, "SELECT 3"), 3)

    c.run("errors", errors)

    def setup_objects():
        cur = conn.cursor()
        cur.execute(f"IF OBJECT_ID('{obj('t')}') IS NOT NULL DROP TABLE {obj('t')}")
        cur.execute(f"CREATE TABLE {obj('t')} (id int PRIMARY KEY, v nvarchar(50))")
        cur.execute(f"IF OBJECT_ID('{obj('out')}') IS NOT NULL DROP PROCEDURE {obj('out')}")
        cur.execute(
            f"CREATE PROCEDURE {obj('out')} @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS "
            "BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END"
        )
        cur.close()

    c.run("create objects", setup_objects)

    def transaction():
        tconn = driver.connect(tls=False, autocommit=False)
        cur = tconn.cursor()
        cur.execute(f"INSERT INTO {obj('t')} (id, v) VALUES (1, N'rolled back')")
        tconn.rollback()
        c.equal("rollback undoes the insert",
                scalar(tconn, f"SELECT COUNT(*) FROM {obj('t')}"), 0)
        cur = tconn.cursor()
        cur.execute(f"INSERT INTO {obj('t')} (id, v) VALUES (2, N'committed')")
        tconn.commit()
        tconn.close()
        c.equal("commit keeps the insert (seen from another connection)",
                scalar(conn, f"SELECT v FROM {obj('t')} WHERE id = 2"), "committed")
        c.equal("only the committed row", scalar(conn, f"SELECT COUNT(*) FROM {obj('t')}"), 1)

    c.run("transaction", transaction)

    def output_params():
        b, s, status = driver.call_out_proc(conn, 21)
        c.equal("OUTPUT int", b, 42)
        c.equal("OUTPUT nvarchar", s, "out:21")
        if status is not None:
            c.equal("return status", status, 7)

    c.run("OUTPUT parameters", output_params)

    def cancel():
        started = time.monotonic()
        driver.cancel_long_query(conn)
        elapsed = time.monotonic() - started
        c.check("cancel stops WAITFOR within 10 s", elapsed < 10, f"took {elapsed:.1f} s")
        c.equal("connection usable after cancel", scalar(conn, "SELECT 4"), 4)

    c.run("cancel", cancel)

    driver.extra_checks(c)

    try:
        conn.close()
    except Exception:  # noqa: BLE001 - closing is not under test
        pass
    return c.finish()
