"""pymssql: DB-Library over the FreeTDS it bundles (built with OpenSSL). `encryption='require'`
asks for TLS; FreeTDS does not check the certificate unless given a CA file, as
TrustServerCertificate does. OUTPUT parameters go through dbrpcparam (a real RPC); a query
timeout makes FreeTDS send an attention.

`cursor.execute(sql, params)` does not send parameters: pymssql writes each one into the SQL
text as a literal (`_quote_simple_value` in pymssql's `_mssql.pyx`: str -> N'...', bytes ->
0x..., date -> '2024-02-29', datetime -> '2024-02-29 13:45:10.123456' with use_datetime2,
time -> '13:45:10.500000'). So `SELECT %s` returns what SQL Server returns for that literal: a
long N'...' is nvarchar(max), a long 0x... varbinary(max), and a date/datetime/time literal is
a varchar string, which is what the round trip expects for those three.

The session logs in with TDS 7.4; `extra_checks` also logs in with TDS 7.2 (FreeTDS's
`tds_version='7.2'`), to which SQL Server sends date, time, datetime2 and datetimeoffset as
nvarchar literals (they have no TDS 7.2 type) and everything else as for 7.4."""

import datetime
import decimal
import sys

import pymssql

import harness
from harness import HOST, PASSWORD, PORT, USER, obj


class PymssqlDriver(harness.Driver):
    name = "pymssql"
    marker = "%s"
    # DB-Library has no uniqueidentifier parameter binding: pymssql sends str(uuid)
    skip_round_trip = {"uniqueidentifier": "pymssql binds uuid.UUID as a string"}
    # the varchar literal pymssql wrote for the value (see the module's docstring)
    round_trip_expect = {
        "date": lambda v: v.strftime("%Y-%m-%d"),
        "datetime2": lambda v: v.strftime("%Y-%m-%d %H:%M:%S.%f"),
        "time": lambda v: v.strftime("%H:%M:%S.%f"),
    }

    def connect(self, tls=False, autocommit=True, timeout=0, tds_version="7.4"):
        return pymssql.connect(
            server=HOST, port=str(PORT), user=USER, password=PASSWORD, database="master",
            autocommit=autocommit, tds_version=tds_version, login_timeout=10, timeout=timeout,
            encryption="require" if tls else "off", use_datetime2=True,
        )

    def extra_checks(self, c):
        def tds72():
            conn = self.connect(tds_version="7.2")
            cur = conn.cursor()
            cur.execute(
                "SELECT CAST('2024-02-29' AS date), CAST('13:45:10.5' AS time), "
                "CAST('23:59:59' AS time(0)), CAST('2024-02-29T13:45:10.1234567' AS datetime2), "
                "CAST('2024-02-29T13:45:10.123' AS datetime2(3)), "
                "CAST('2024-02-29T13:45:10.1234567+05:30' AS datetimeoffset), "
                "CAST(NULL AS date), CAST('2024-02-29T13:45:10.997' AS datetime), "
                "CAST(-1.5 AS decimal(5,2)), REPLICATE(CAST(N'x' AS nvarchar(max)), 9000)"
            )
            row = cur.fetchone()
            c.equal("TDS 7.2: date, time, datetime2, datetimeoffset as nvarchar literals", row[:7], (
                "2024-02-29", "13:45:10.5000000", "23:59:59", "2024-02-29 13:45:10.1234567",
                "2024-02-29 13:45:10.123", "2024-02-29 13:45:10.1234567 +05:30", None))
            c.equal("TDS 7.2: datetime, decimal and nvarchar(max) as for 7.4", row[7:], (
                datetime.datetime(2024, 2, 29, 13, 45, 10, 997000), decimal.Decimal("-1.50"),
                "x" * 9000))
            # DB-API type codes: the column is a string to the driver (pymssql.STRING is 1)
            c.equal("TDS 7.2: datetime2 column described as a string", cur.description[3][1],
                    pymssql.STRING)
            conn.close()
        c.run("TDS 7.2 login", tds72)

    def error_number(self, exc):
        # pymssql's exceptions carry (number, message bytes)
        args = getattr(exc, "args", ())
        return args[0] if args and isinstance(args[0], int) else None

    def call_out_proc(self, conn, a):
        cur = conn.cursor()
        result = cur.callproc(obj("out"), (a, pymssql.output(int), pymssql.output(str)))
        cur.close()
        # DB-Library reports the return status on the connection
        status = getattr(conn._conn, "return_status", None)
        return result[1], result[2], status

    def cancel_long_query(self, conn):
        tconn = self.connect(timeout=1)
        cur = tconn.cursor()
        try:
            cur.execute("WAITFOR DELAY '00:00:20'")
            raise AssertionError("WAITFOR was not cancelled")
        except pymssql.OperationalError:
            pass
        tconn.close()


if __name__ == "__main__":
    sys.exit(harness.run_session(PymssqlDriver()))
