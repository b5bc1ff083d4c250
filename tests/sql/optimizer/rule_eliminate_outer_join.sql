-- EliminateOuterJoin: a LEFT JOIN to a table joined on all key columns of a unique index
-- (here its primary key) whose columns nothing above reads must disappear from the plan
-- unless QUERYRULEOFF EliminateOuterJoin; it stays when a column of the right side is read,
-- when the join key is not unique, or when it is only part of a composite key. Same rows
-- either way (duplicates included).
CREATE TABLE emp (id int NOT NULL PRIMARY KEY, dept int NULL, name varchar(10) NOT NULL)
CREATE TABLE dept (d_id int NOT NULL PRIMARY KEY, d_name varchar(10) NOT NULL)
CREATE TABLE dept_loc (d_id int NOT NULL, loc int NOT NULL, PRIMARY KEY (d_id, loc))
CREATE TABLE tag (d_id int NOT NULL, t varchar(10) NOT NULL)
INSERT INTO emp VALUES (1, 10, 'ann'), (2, 20, 'bob'), (3, NULL, 'cy'), (4, 99, 'dee')
INSERT INTO dept VALUES (10, 'sales'), (20, 'ops')
INSERT INTO dept_loc VALUES (10, 1), (10, 2), (20, 1)
INSERT INTO tag VALUES (10, 'a'), (10, 'b')
GO
SET SHOWPLAN_TEXT ON
GO
SELECT e.name FROM emp e LEFT JOIN dept d ON d.d_id = e.dept
GO
SELECT e.name FROM emp e LEFT JOIN dept d ON d.d_id = e.dept OPTION (QUERYRULEOFF EliminateOuterJoin)
GO
SELECT e.name, d.d_name FROM emp e LEFT JOIN dept d ON d.d_id = e.dept
GO
SELECT e.name FROM emp e LEFT JOIN dept_loc l ON l.d_id = e.dept
GO
SELECT e.name FROM emp e LEFT JOIN dept_loc l ON l.d_id = e.dept AND l.loc = 1
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT e.name FROM emp e LEFT JOIN dept d ON d.d_id = e.dept WHERE e.id > 1 ORDER BY e.name
SELECT e.name FROM emp e LEFT JOIN dept d ON d.d_id = e.dept WHERE e.id > 1 ORDER BY e.name OPTION (QUERYRULEOFF EliminateOuterJoin)
GO
SELECT e.name FROM emp e LEFT JOIN dept_loc l ON l.d_id = e.dept AND l.loc = 1 ORDER BY e.name
SELECT e.name FROM emp e LEFT JOIN dept_loc l ON l.d_id = e.dept AND l.loc = 1 ORDER BY e.name OPTION (QUERYRULEOFF EliminateOuterJoin)
GO
-- not unique: the duplicates stay
SELECT e.name FROM emp e LEFT JOIN tag t ON t.d_id = e.dept ORDER BY e.name
GO
