"""A document with a value of every BSON type, shared by the import and export tests."""

import datetime
import uuid

from bson.binary import Binary
from bson.code import Code
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.timestamp import Timestamp


def every_type_document():
    return {
        "_id": ObjectId(),
        "double": 2.5,
        "whole_double": 3.0,
        "negative_zero": -0.0,
        "big_double": 1.5e300,
        "infinity": float("inf"),
        "string": "héllo \"quoted\" \\ \n\t {not: json} \u2603",
        "document": {"a": 1, "nested": {"b": [1, 2, {"c": None}]}},
        "empty_document": {},
        "array": [1, "two", {"three": 3}, [4]],
        "empty_array": [],
        "binary": Binary(b"\x00\x01\x02\xff", 0),
        "binary_user": Binary(b"\x00\x01\xff", 0x80),
        "binary_md5": Binary(b"0123456789abcdef", 5),
        "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "object_id": ObjectId("65a1b2c3d4e5f60718293a4b"),
        "true": True,
        "false": False,
        "date": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
        "old_date": datetime.datetime(1901, 6, 7, 8, 9, 10, 11000),
        "null": None,
        "regex": Regex("^a.*b$", "im"),
        "code": Code("function() { return 1; }"),
        "code_with_scope": Code("function() { return x; }", {"x": 1}),
        "int32": 42,
        "negative_int32": -7,
        "timestamp": Timestamp(4000000000, 5),
        "int64": Int64(9007199254740993),
        "small_int64": Int64(5),
        "decimal": Decimal128("1234.5678901234567890"),
        "min_key": MinKey(),
        "max_key": MaxKey(),
    }
