"""mssql-python: Microsoft's driver, which ships ODBC Driver 18 for SQL Server inside its wheel.
Connection strings are ODBC Driver 18's (Encrypt=yes|no, TrustServerCertificate=yes); OUTPUT
parameters are selected from a batch; a query timeout makes the driver send an attention."""

import sys

import mssql_python

import harness
from harness import CAFILE, HOST, PASSWORD, PORT, USER, obj


def conn_str(tls):
    base = f"Server=tcp:{HOST},{PORT};UID={USER};PWD={PASSWORD};Database=master;"
    if tls == "strict":
        # TDS 8.0: ODBC Driver 18 checks the certificate under Encrypt=Strict whatever
        # TrustServerCertificate says; ServerCertificate pins the one run.sh made
        return base + f"Encrypt=strict;ServerCertificate={CAFILE}"
    return base + f"Encrypt={'yes' if tls else 'no'};TrustServerCertificate=yes"


class MssqlPythonDriver(harness.Driver):
    name = "mssql-python"
    strict = True
    marker = "?"
    # its exceptions give SQLSTATE and text ("[Microsoft][SQL Server]Divide by zero error
    # encountered."), not the message number
    error_numbers = False

    def connect(self, tls=False, autocommit=True):
        return mssql_python.connect(conn_str(tls), autocommit=autocommit, timeout=10)

    def error_number(self, exc):
        return None

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
        except mssql_python.Error:
            pass
        tconn.close()


if __name__ == "__main__":
    sys.exit(harness.run_session(MssqlPythonDriver()))
