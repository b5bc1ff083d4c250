"""Independent decoder/encoder for the tds crate's tests: python-tds (pytds)'s own type
serializers, fed the bytes latchkey writes (and producing the RPC parameter bytes pytds would
send). Only pytds' TYPE_INFO/value code runs here; the few token fields around it (column
count, flags, names, null bitmap) are read by hand.

    pytds_cross.py decode  < HEX    # COLMETADATA token, then ROW/NBCROW tokens -> one JSON list per row,
                                    # or RETURNVALUE tokens -> [ordinal, name, status, value] per token
    pytds_cross.py encode           # RPC parameters pytds builds for a fixed list of values -> hex lines
"""
import binascii
import codecs
import datetime
import decimal
import json
import sys
import types
import uuid

from pytds import tds_base, tds_types
from pytds.collate import Collation
from pytds.tz import FixedOffsetTimezone
from pytds.tds_reader import _TdsReader
from pytds.tds_writer import _TdsWriter

login = types.SimpleNamespace(bytes_to_unicode=True)
conn = types.SimpleNamespace(server_codec=codecs.lookup("cp1252"))


def bad_stream(msg, *args):
    raise RuntimeError("pytds rejected the stream: %s %r" % (msg, args))


session = types.SimpleNamespace(
    conn=conn,
    _tds=types.SimpleNamespace(_login=login, _tds=types.SimpleNamespace(_login=login)),
    tzinfo_factory=None,
    use_tz=None,
    bad_stream=bad_stream,
)


class BytesReader(_TdsReader):
    def __init__(self, data):
        self._buf = data
        self._pos = 0
        self._size = len(data)
        self._status = 1
        self._session = session

    @property
    def session(self):
        return self._session


class BytesWriter(_TdsWriter):
    def __init__(self):
        self.out = bytearray()
        self._tds = types.SimpleNamespace(_tds=types.SimpleNamespace(_login=login))
        self._buf = bytearray(1 << 20)

    @property
    def session(self):
        return session

    def write(self, data):
        self.out += data


def show(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "bit:%d" % v
    if isinstance(v, (bytes, bytearray)):
        return "0x" + binascii.hexlify(v).decode().upper()
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    return str(v)


def decode_returnvalues(r, factory):
    # RETURNVALUE tokens: ordinal, name, status, user type, flags, TYPE_INFO, value.
    while r._pos < r._size:
        assert r.get_byte() == 0xAC, "RETURNVALUE expected"
        ordinal = r.get_usmallint()
        name = r.read_ucs2(r.get_byte())
        status = r.get_byte()
        r.get_uint()  # user type
        r.get_usmallint()  # flags
        ser = factory.get_type_serializer(r.get_byte()).from_stream(r)
        print(json.dumps([ordinal, name, status, show(ser.read(r))], ensure_ascii=False))


def decode(data):
    factory = tds_types.SerializerFactory(tds_base.TDS74)
    r = BytesReader(data)
    if data[:1] == b"\xac":
        return decode_returnvalues(r, factory)
    assert r.get_byte() == 0x81, "COLMETADATA expected"
    ncols = r.get_usmallint()
    cols = []
    for _ in range(ncols):
        r.get_uint()  # user type
        r.get_usmallint()  # flags
        type_id = r.get_byte()
        ser = factory.get_type_serializer(type_id).from_stream(r)
        name = r.read_ucs2(r.get_byte())
        cols.append((name, ser))
    rows = []
    while r._pos < r._size:
        tok = r.get_byte()
        if tok == 0xD1:
            rows.append([show(s.read(r)) for _, s in cols])
        elif tok == 0xD2:
            bitmap = r.recv((ncols + 7) // 8)
            row = []
            for i, (_, s) in enumerate(cols):
                row.append(None if bitmap[i // 8] & (1 << (i % 8)) else show(s.read(r)))
            rows.append(row)
        else:
            raise RuntimeError("unexpected token 0x%02X" % tok)
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


def encode():
    factory = tds_types.SerializerFactory(tds_base.TDS74)
    # The collation latchkey announces (SQL_Latin1_General_CP1_CI_AS), as pytds would use it.
    coll = Collation.unpack(bytes([0x09, 0x04, 0xD0, 0x00, 0x34]))
    T = tds_types
    cases = [
        (T.BitType(), True),
        (T.TinyIntType(), 255),
        (T.SmallIntType(), -32768),
        (T.IntType(), -2147483648),
        (T.BigIntType(), 9223372036854775807),
        (T.RealType(), 1.5),
        (T.FloatType(), -2.25e300),
        (T.MoneyType(), decimal.Decimal("-922337203685477.5808")),
        (T.SmallMoneyType(), decimal.Decimal("214748.3647")),
        (T.DecimalType(precision=38, scale=4), decimal.Decimal("-12345678901234567890123456789012.3456")),
        (T.DecimalType(precision=5, scale=2), decimal.Decimal("123.45")),
        (T.DateTimeType(), datetime.datetime(1753, 1, 1, 0, 0, 0, 3000)),
        (T.DateTimeType(), datetime.datetime(9999, 12, 31, 23, 59, 59, 997000)),
        (T.SmallDateTimeType(), datetime.datetime(2079, 6, 6, 23, 59)),
        (T.DateType(), datetime.date(1, 1, 1)),
        (T.TimeType(precision=7), datetime.time(23, 59, 59, 999999)),
        (T.DateTime2Type(precision=3), datetime.datetime(2024, 2, 29, 12, 30, 45, 123000)),
        (T.DateTimeOffsetType(precision=7), datetime.datetime(2025, 1, 1, 0, 0, tzinfo=FixedOffsetTimezone(60))),
        (T.UniqueIdentifierType(), uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")),
        (T.VarCharType(size=10), "héllo"),
        (T.NVarCharType(size=10), "日本😀"),
        (T.NVarCharMaxType(), "x" * 5000),
        (T.VarCharMaxType(), ""),
        (T.VarBinaryType(size=4), b"\x00\x01\xfe\xff"),
        (T.VarBinaryMaxType(), b"\x07" * 9000),
        (T.IntType(), None),
        (T.NVarCharMaxType(), None),
        (T.DateTimeOffsetType(precision=0), None),
    ]
    for typ, value in cases:
        ser = factory.serializer_by_type(sql_type=typ, collation=coll)
        w = BytesWriter()
        w.put_byte(ser.type)
        ser.write_info(w)
        ser.write(w, value)
        print(binascii.hexlify(bytes(w.out)).decode())


if __name__ == "__main__":
    if sys.argv[1] == "decode":
        decode(binascii.unhexlify(sys.stdin.read().strip()))
    else:
        encode()
