"""pymssql: DB-Library over the FreeTDS it bundles (built with OpenSSL). `encryption='require'`
asks for TLS; FreeTDS does not check the certificate unless given a CA file, as
TrustServerCertificate does. OUTPUT parameters go through dbrpcparam (a real RPC); a query
timeout makes FreeTDS send an attention."""

import sys

import pymssql

import harness
from harness import HOST, PASSWORD, PORT, USER, obj


class PymssqlDriver(harness.Driver):
    name = "pymssql"
    marker = "%s"
    # DB-Library has no uniqueidentifier parameter binding: pymssql sends str(uuid)
    skip_round_trip = {"uniqueidentifier": "pymssql binds uuid.UUID as a string"}

    def connect(self, tls=False, autocommit=True, timeout=0):
        return pymssql.connect(
            server=HOST, port=str(PORT), user=USER, password=PASSWORD, database="master",
            autocommit=autocommit, tds_version="7.4", login_timeout=10, timeout=timeout,
            encryption="require" if tls else "off", use_datetime2=True,
        )

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
