CREATE TABLE dbo.all_types (
  id int NOT NULL PRIMARY KEY, ti tinyint, si smallint, bi bigint, de decimal(38,10), nu numeric(5,2),
  mo money, sm smallmoney, fl float, re real, b bit, d date, t time(7), dt datetime, dt2 datetime2(7),
  sdt smalldatetime, dto datetimeoffset(7), c char(5), vc varchar(50), nc nchar(4), nvc nvarchar(100),
  bin binary(3), vb varbinary(20), u uniqueidentifier);
INSERT INTO all_types VALUES
 (1, 0, -32768, -9223372036854775808, 1234567890123456789012345678.0123456789, -999.99,
  -922337203685477.5808, -214748.3648, 0.1, 0.1, 1, '0001-01-01', '23:59:59.9999999', '1753-01-01 00:00:00.003',
  '9999-12-31 23:59:59.9999999', '1900-01-01 00:00', '2024-02-29 12:34:56.1234567 +05:30', 'ab', 'x,y "q" ''s''', N'ßü', N'Zoë ☃ 日本 "quoted", comma',
  0x000102, 0xDEADBEEF, '6F9619FF-8B86-D011-B42D-00C04FD430C8'),
 (2, 255, 32767, 9223372036854775807, -0.0000000001, 0, 922337203685477.5807, 214748.3647, 1.7976931348623157e308, -3.4e38, 0,
  '9999-12-31', '00:00:00', '9999-12-31 23:59:59.997', '0001-01-01', '2079-06-06 23:59', '0001-01-01 00:00:00 -14:00', '', '', N'', N'',
  0x, 0x, '00000000-0000-0000-0000-000000000000'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 1, 2, 3, 4.5, 6.7, 8.9, 1.2345, 2.2250738585072014e-308, 1.17549435e-38, 1, '2000-02-29', '12:00:00.5', '2000-01-01 12:00', '2000-01-01 12:00:00.1', '2000-01-01', '2000-01-01 00:00:00 +00:00', 'abcde', 'tab-free', N'a', N'emoji 😀', 0xFFFFFF, 0x00, NEWID());
SELECT * INTO copy1 FROM all_types WHERE 1 = 0;
SELECT * INTO copy2 FROM all_types WHERE 1 = 0;
SELECT * INTO copy3 FROM all_types WHERE 1 = 0;
