"""python-tds (pytds): pure-Python TDS. TLS needs pyOpenSSL and the server's certificate
(`cafile`); OUTPUT parameters go through a real RPC (`callproc`); cancel is pytds' own: a query
timeout makes it send an attention and wait for the DONE that acknowledges it."""

import sys

import pytds

import harness
from harness import CAFILE, HOST, PASSWORD, PORT, USER, obj


class PytdsDriver(harness.Driver):
    name = "pytds"
    marker = "%s"

    def connect(self, tls=False, autocommit=True, timeout=None):
        kw = {}
        if tls:
            kw = {"cafile": CAFILE, "validate_host": False}
        return pytds.connect(
            server=HOST, port=PORT, user=USER, password=PASSWORD, database="master",
            autocommit=autocommit, login_timeout=10, timeout=timeout,
            disable_connect_retry=True, **kw,
        )

    def binary(self, value):
        # pytds binds plain bytes as text; DB-API's Binary() makes them varbinary
        return pytds.Binary(value)

    def error_number(self, exc):
        return getattr(exc, "number", None)

    def call_out_proc(self, conn, a):
        cur = conn.cursor()
        result = cur.callproc(
            obj("out"),
            (a, pytds.output(param_type="int"), pytds.output(param_type="nvarchar(20)")),
        )
        status = cur.return_value
        cur.close()
        return result[1], result[2], status

    def cancel_long_query(self, conn):
        # a second connection with a 1 s query timeout: pytds cancels on the timeout
        tconn = self.connect(timeout=1)
        cur = tconn.cursor()
        try:
            cur.execute("WAITFOR DELAY '00:00:20'")
            raise AssertionError("WAITFOR was not cancelled")
        except pytds.TimeoutError:
            pass
        cur.execute("SELECT 5")
        if cur.fetchone()[0] != 5:
            raise AssertionError("cancelled connection did not answer SELECT 5")
        tconn.close()


if __name__ == "__main__":
    sys.exit(harness.run_session(PytdsDriver()))
