// The scripted session of tests/clients/README.md through Microsoft's mssql-jdbc: plain and TLS
// connections, several result sets, typed parameters round-tripping (prepared statements become
// sp_prepexec/sp_executesql RPCs), errors with their numbers, a transaction, OUTPUT parameters
// with the return status through CallableStatement, and Statement.cancel() (an attention).
//
// Environment: LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CLIENT.

import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class Session {
    static int passed = 0;
    static List<String> failed = new ArrayList<>();

    static String env(String k, String d) {
        String v = System.getenv(k);
        return v == null || v.isEmpty() ? d : v;
    }

    static String obj(String n) { return "dbo.c_" + env("LK_CLIENT", "jdbc") + "_" + n; }

    static void check(String name, boolean ok, String detail) {
        if (ok) { passed++; System.out.println("  ok   " + name); }
        else { failed.add(name); System.out.println("  FAIL " + name + ": " + detail); }
    }

    static void equal(String name, Object got, Object want) {
        check(name, Objects.deepEquals(got, want), "got " + got + ", want " + want);
    }

    static Connection connect(boolean tls) throws SQLException {
        String url = "jdbc:sqlserver://" + env("LK_HOST", "127.0.0.1") + ":" + env("LK_PORT", "1433")
            + ";databaseName=master;loginTimeout=10;sendTimeAsDatetime=false;encrypt=" + (tls ? "true" : "false")
            + ";trustServerCertificate=true";
        return DriverManager.getConnection(url, env("LK_USER", "sa"), env("LK_PASSWORD", ""));
    }

    static Object scalar(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        }
    }

    interface Step { void run() throws Exception; }

    static void step(String name, Step s) {
        try { s.run(); } catch (Exception e) { check(name, false, e.toString()); }
    }

    public static void main(String[] args) throws Exception {
        System.out.println("mssql-jdbc: " + env("LK_HOST", "127.0.0.1") + ":" + env("LK_PORT", "1433"));
        Connection conn;
        try {
            conn = connect(false);
            equal("plain connection: SELECT 1", scalar(conn, "SELECT 1"), 1);
        } catch (Exception e) {
            check("connect without TLS", false, e.toString());
            finish();
            return;
        }
        step("connect with TLS", () -> {
            try (Connection t = connect(true)) { equal("TLS connection: SELECT 2", scalar(t, "SELECT 2"), 2); }
        });
        step("several result sets", () -> {
            try (Statement st = conn.createStatement()) {
                boolean isRs = st.execute("SELECT 1 AS a, N'x' AS b; SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; "
                    + "SELECT name FROM sys.databases WHERE 1 = 0; SELECT N'last' AS z");
                List<List<String>> sets = new ArrayList<>();
                while (true) {
                    if (isRs) {
                        List<String> rows = new ArrayList<>();
                        try (ResultSet rs = st.getResultSet()) {
                            int n = rs.getMetaData().getColumnCount();
                            while (rs.next()) {
                                StringBuilder sb = new StringBuilder();
                                for (int i = 1; i <= n; i++) sb.append(i > 1 ? "," : "").append(rs.getString(i));
                                rows.add(sb.toString());
                            }
                        }
                        sets.add(rows);
                    } else if (st.getUpdateCount() == -1) break;
                    isRs = st.getMoreResults();
                }
                equal("several result sets", sets.toString(), "[[1,x], [2, 3], [], [last]]");
            }
        });
        step("parameters round trip", () -> {
            Object[][] cases = {
                {"int", Integer.MIN_VALUE}, {"bigint", (1L << 40) + 7}, {"short", (short) -32768},
                {"boolean", Boolean.TRUE}, {"double", 1.0e300 / 3}, {"float", 0.5f},
                {"decimal", new BigDecimal("12345.6789")}, {"negative decimal", new BigDecimal("-0.0001")},
                {"string", "h\u00e9llo \u2713 \u4e16\u754c"}, {"long string", "long \u00e9 ".repeat(2000)},
                {"bytes", new byte[] {0, 1, (byte) 0xfe, (byte) 0xff}}, {"long bytes", new byte[12000]},
                {"date", java.sql.Date.valueOf("2024-02-29")},
                {"timestamp", Timestamp.valueOf("2024-02-29 13:45:10.1234567")},
                {"time", java.sql.Time.valueOf("13:45:10")},
                {"uuid string", "6F9619FF-8B86-D011-B42D-00C04FC964FF"},
            };
            for (Object[] c : cases) {
                try {
                    Object got = scalar(conn, "SELECT ?", c[1]);
                    Object want = c[1];
                    // the driver picks the Java type of a result column (smallint comes back
                    // as Short or Integer, real as Float or Double): numbers compare by value
                    if (want instanceof Number && got instanceof Number) {
                        got = ((Number) got).doubleValue();
                        want = ((Number) want).doubleValue();
                    }
                    equal("param " + c[0], got, want);
                } catch (Exception e) { check("param " + c[0], false, e.toString()); }
            }
            equal("type money", scalar(conn, "SELECT CAST(-922337203685477.5808 AS money)"), new BigDecimal("-922337203685477.5808"));
            equal("type datetime", scalar(conn, "SELECT CAST('2024-02-29T13:45:10.997' AS datetime)"), Timestamp.valueOf("2024-02-29 13:45:10.997"));
            equal("type tinyint", scalar(conn, "SELECT CAST(255 AS tinyint)"), (short) 255);
            equal("type uniqueidentifier", scalar(conn, "SELECT CAST('6F9619FF-8B86-D011-B42D-00C04FC964FF' AS uniqueidentifier)"), "6F9619FF-8B86-D011-B42D-00C04FC964FF");
            equal("type datetimeoffset", String.valueOf(scalar(conn, "SELECT CAST('2024-02-29 13:45:10.1234567 +05:30' AS datetimeoffset(7))")), "2024-02-29 13:45:10.1234567 +05:30");
            equal("type null", scalar(conn, "SELECT CAST(NULL AS int)"), null);
        });
        step("errors", () -> {
            Object[][] cases = {
                {"SELECT * FROM " + obj("no_such_table"), 208, "Invalid object name '" + obj("no_such_table") + "'."},
                {"SELECT 1/0", 8134, "Divide by zero error encountered."},
                {"RAISERROR('custom %d', 16, 1, 42)", 50000, "custom 42"},
            };
            for (Object[] c : cases) {
                try (Statement st = conn.createStatement()) {
                    st.execute((String) c[0]);
                    check("error " + c[1], false, "no error raised");
                } catch (SQLException e) {
                    equal("error " + c[1] + ": number", e.getErrorCode(), c[1]);
                    equal("error " + c[1] + ": message", e.getMessage(), c[2]);
                }
            }
        });
        step("create objects", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute("IF OBJECT_ID('" + obj("t") + "') IS NOT NULL DROP TABLE " + obj("t"));
                st.execute("CREATE TABLE " + obj("t") + " (id int PRIMARY KEY, v nvarchar(50))");
                st.execute("IF OBJECT_ID('" + obj("out") + "') IS NOT NULL DROP PROCEDURE " + obj("out"));
                st.execute("CREATE PROCEDURE " + obj("out") + " @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS "
                    + "BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END");
            }
        });
        step("transaction", () -> {
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + obj("t") + " (id, v) VALUES (?, ?)")) {
                ps.setInt(1, 1); ps.setString(2, "rolled back"); ps.executeUpdate();
                conn.rollback();
                ps.setInt(1, 2); ps.setString(2, "committed"); ps.executeUpdate();
                conn.commit();
            }
            conn.setAutoCommit(true);
            equal("only the committed row", scalar(conn, "SELECT COUNT(*) FROM " + obj("t")), 1);
            equal("commit keeps the insert", scalar(conn, "SELECT v FROM " + obj("t") + " WHERE id = 2"), "committed");
        });
        step("OUTPUT parameters", () -> {
            try (CallableStatement cs = conn.prepareCall("{? = call " + obj("out") + "(?, ?, ?)}")) {
                cs.registerOutParameter(1, Types.INTEGER);
                cs.setInt(2, 21);
                cs.registerOutParameter(3, Types.INTEGER);
                cs.registerOutParameter(4, Types.NVARCHAR);
                cs.execute();
                equal("OUTPUT int", cs.getInt(3), 42);
                equal("OUTPUT nvarchar", cs.getString(4), "out:21");
                equal("return status", cs.getInt(1), 7);
            }
        });
        step("cancel", () -> {
            try (Statement st = conn.createStatement()) {
                long start = System.nanoTime();
                Thread t = new Thread(() -> {
                    try { Thread.sleep(1000); st.cancel(); } catch (Exception e) { /* reported below */ }
                });
                t.start();
                try {
                    st.execute("WAITFOR DELAY '00:00:20'");
                    check("cancel: WAITFOR interrupted", false, "no exception");
                } catch (SQLException e) {
                    check("cancel: WAITFOR interrupted", e.getMessage().contains("cancel"), e.toString());
                }
                t.join();
                long ms = (System.nanoTime() - start) / 1_000_000;
                check("cancel stops WAITFOR within 10 s", ms < 10000, ms + " ms");
            }
            equal("connection usable after cancel", scalar(conn, "SELECT 4"), 4);
        });
        conn.close();
        finish();
    }

    static void finish() {
        System.out.println("mssql-jdbc: " + passed + " passed, " + failed.size() + " failed");
        if (!failed.isEmpty()) System.out.println("mssql-jdbc: failed: " + String.join(", ", failed));
        System.exit(failed.isEmpty() ? 0 : 1);
    }
}
