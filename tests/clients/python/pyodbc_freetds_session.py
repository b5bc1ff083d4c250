"""pyodbc with FreeTDS's ODBC driver (Debian tdsodbc, registered as "FreeTDS" in odbcinst.ini).
ODBC has no OUTPUT parameters in pyodbc, so the procedure is called from a batch that selects
them; a query timeout (SQL_ATTR_QUERY_TIMEOUT) makes the driver send an attention."""

import sys

import pyodbc

import harness

# uniqueidentifier as uuid.UUID (pyodbc's default is str)
pyodbc.native_uuid = True
from harness import HOST, PASSWORD, PORT, USER, obj


def conn_str(tls):
    return (
        f"DRIVER={{FreeTDS}};SERVER={HOST};PORT={PORT};UID={USER};PWD={PASSWORD};"
        f"DATABASE=master;TDS_Version=7.4;ClientCharset=UTF-8;"
        f"Encryption={'require' if tls else 'off'}"
    )


class PyodbcFreeTdsDriver(harness.Driver):
    name = "pyodbc-freetds"
    # pyodbc binds datetime.time as an ODBC TIME_STRUCT, which has no fraction field: the
    # microseconds are dropped in the client (pyodbc params.cpp GetTimeInfo), against SQL
    # Server as well, so the round trip cannot hold whatever the server does
    skip_round_trip = {"time": "pyodbc's TIME_STRUCT has no fraction (dropped in the client)"}
    marker = "?"

    def connect(self, tls=False, autocommit=True):
        return pyodbc.connect(conn_str(tls), autocommit=autocommit, timeout=10)

    def error_number(self, exc):
        # "[42S02] [FreeTDS][SQL Server]Invalid object name ... (208) (SQLExecDirectW)"
        import re
        m = re.search(r"\((\d+)\) \(SQL", str(exc))
        return int(m.group(1)) if m else None

    def call_out_proc(self, conn, a):
        cur = conn.cursor()
        cur.execute(
            f"SET NOCOUNT ON; DECLARE @b int, @s nvarchar(20), @r int; "
            f"EXEC @r = {obj('out')} ?, @b OUTPUT, @s OUTPUT; SELECT @b, @s, @r",
            (a,),
        )
        b, s, r = cur.fetchone()
        cur.close()
        return b, s, r

    def cancel_long_query(self, conn):
        tconn = self.connect()
        tconn.timeout = 1
        cur = tconn.cursor()
        try:
            cur.execute("WAITFOR DELAY '00:00:20'")
            raise AssertionError("WAITFOR was not cancelled")
        except pyodbc.OperationalError:
            pass
        tconn.timeout = 0
        cur.execute("SELECT 5")
        if cur.fetchone()[0] != 5:
            raise AssertionError("cancelled connection did not answer SELECT 5")
        tconn.close()


if __name__ == "__main__":
    sys.exit(harness.run_session(PyodbcFreeTdsDriver()))
