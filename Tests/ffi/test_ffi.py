#!/usr/bin/env python3
"""Larder through a foreign-function interface: Python's ctypes, standard library only.

Usage: python3 Tests/ffi/test_ffi.py <liblarder.so> <shared.larder> [unittest options]

<shared.larder> is the file written by the C tests (make test-c): schema
version 1, class "Person" (id INT primary key, name STRING, age INT optional,
score DOUBLE) holding (1, "Ada", 36, 9.5), (2, "Grace", 45, 8.25) and
(3, "Linus", null, 7.0). It is copied to a temporary directory before it is
opened, so this test never alters it.
"""
import ctypes
import math
import os
import random
import shutil
import sys
import tempfile
import unittest
from fractions import Fraction
from ctypes import (POINTER, Structure, Union, byref, c_char_p, c_double, c_float, c_int,
                    c_int32, c_int64, c_size_t, c_uint, c_uint8, c_uint32, c_uint64, c_void_p)

LIB_PATH = None
SHARED_PATH = None
lib = None

# ---- constants of larder.h ----

LAR_OK = 0
LAR_EINVAL = -1
LAR_EMISUSE = -2
LAR_ENOTFOUND = -3
LAR_EEXISTS = -4
LAR_ETYPE = -5
LAR_EREADONLY = -12
LAR_EDELETED = -13
ALL_CODES = range(0, -17, -1)  # LAR_OK ... LAR_EBUSY (-16)

LAR_TYPE_NULL, LAR_TYPE_INT, LAR_TYPE_BOOL, LAR_TYPE_FLOAT, LAR_TYPE_DOUBLE = 0, 1, 2, 3, 4
LAR_TYPE_STRING, LAR_TYPE_BINARY, LAR_TYPE_TIMESTAMP = 5, 6, 7
LAR_TYPE_DECIMAL128, LAR_TYPE_LINK, LAR_TYPE_MIXED = 10, 11, 12
LAR_COLLECTION_NONE, LAR_COLLECTION_LIST, LAR_COLLECTION_SET, LAR_COLLECTION_MAP = 0, 1, 2, 3
LAR_PROP_OPTIONAL, LAR_PROP_PRIMARY_KEY, LAR_PROP_INDEXED = 0x1, 0x2, 0x4
LAR_CLASS_EMBEDDED = 0x1
LAR_ENV_READONLY, LAR_ENV_NOSYNC = 0x1, 0x2
LAR_ENV_OPTIONS_VERSION = 1
LAR_TXN_READ, LAR_TXN_WRITE = 0x0, 0x1

# ---- structures of larder.h (C enums are int-sized) ----


class LarTimestamp(Structure):
    _fields_ = [("seconds", c_int64), ("nanoseconds", c_int32)]


class LarObjectId(Structure):
    _fields_ = [("bytes", c_uint8 * 12)]


class LarUuid(Structure):
    _fields_ = [("bytes", c_uint8 * 16)]


class LarDecimal128(Structure):
    _fields_ = [("low", c_uint64), ("high", c_uint64)]


class LarString(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]  # c_void_p: strings may hold NULs


class LarBinary(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class LarObj(Structure):
    _fields_ = [("cls", c_uint32), ("key", c_uint64)]


class LarValueUnion(Union):
    _fields_ = [("integer", c_int64), ("boolean", c_int), ("float32", c_float), ("float64", c_double),
                ("string", LarString), ("binary", LarBinary), ("timestamp", LarTimestamp),
                ("object_id", LarObjectId), ("uuid", LarUuid), ("decimal128", LarDecimal128),
                ("link", LarObj)]


class LarValue(Structure):
    _fields_ = [("type", c_int), ("as_", LarValueUnion)]  # "as" in C; a keyword in Python


class LarEmbeddedInit(Structure):
    _fields_ = [("prop", c_uint32), ("values", POINTER(LarValue)), ("value_count", c_size_t)]


class LarQueryArg(Structure):
    _fields_ = [("kind", c_int), ("value", LarValue), ("list", POINTER(LarValue)), ("list_count", c_size_t),
                ("keypath", c_char_p)]


LAR_QUERY_ARG_VALUE = 1


class LarError(Structure):
    _fields_ = [("code", c_int), ("message", c_char_p)]


class LarEnvOptions(Structure):
    _fields_ = [("version", c_uint), ("initial_map_size", c_size_t), ("flags", c_uint)]


class LarEnvInfo(Structure):
    _fields_ = [("map_size", c_size_t), ("used_size", c_size_t), ("schema_version", c_uint64),
                ("format_version", c_uint32), ("class_count", c_uint32)]


class LarPropertyDef(Structure):
    _fields_ = [("name", c_char_p), ("type", c_int), ("collection", c_int), ("flags", c_uint),
                ("target_class", c_char_p), ("origin_property", c_char_p)]


class LarClassDef(Structure):
    _fields_ = [("name", c_char_p), ("properties", POINTER(LarPropertyDef)),
                ("property_count", c_size_t), ("flags", c_uint)]


class LarClassInfo(Structure):
    _fields_ = [("name", c_char_p), ("property_count", c_uint32), ("primary_key", c_int32),
                ("flags", c_uint)]


class LarSortDescriptor(Structure):
    _fields_ = [("keypath", c_char_p), ("ascending", c_int)]


LAR_AGGREGATE_COUNT, LAR_AGGREGATE_MIN, LAR_AGGREGATE_MAX, LAR_AGGREGATE_SUM, LAR_AGGREGATE_AVERAGE = range(1, 6)

Env = c_void_p  # opaque handles
Txn = c_void_p
Iter = c_void_p
Query = c_void_p
Results = c_void_p


def load_library(path):
    """Loads liblarder and declares the signatures of the functions used here."""
    so = ctypes.CDLL(os.path.abspath(path))
    sigs = {
        "lar_version": (c_char_p, [POINTER(c_int), POINTER(c_int), POINTER(c_int)]),
        "lar_error_last": (POINTER(LarError), []),
        "lar_error_clear": (None, []),
        "lar_strerror": (c_char_p, [c_int]),
        "lar_env_options_init": (c_int, [POINTER(LarEnvOptions)]),
        "lar_env_open": (c_int, [c_char_p, POINTER(LarEnvOptions), POINTER(Env)]),
        "lar_env_close": (c_int, [Env]),
        "lar_env_info_get": (c_int, [Env, POINTER(LarEnvInfo)]),
        "lar_schema_apply": (c_int, [Env, POINTER(LarClassDef), c_size_t, c_uint64]),
        "lar_class_find": (c_int, [Env, c_char_p, POINTER(c_uint32)]),
        "lar_class_info_get": (c_int, [Env, c_uint32, POINTER(LarClassInfo)]),
        "lar_property_find": (c_int, [Env, c_uint32, c_char_p, POINTER(c_uint32)]),
        "lar_property_info_get": (c_int, [Env, c_uint32, c_uint32, POINTER(LarPropertyDef)]),
        "lar_txn_begin": (c_int, [Env, c_uint, POINTER(Txn)]),
        "lar_txn_commit": (c_int, [Txn]),
        "lar_txn_abort": (c_int, [Txn]),
        "lar_txn_free": (None, [Txn]),
        "lar_txn_state": (c_int, [Txn, POINTER(c_int), POINTER(c_int)]),
        "lar_obj_create": (c_int, [Txn, c_uint32, POINTER(LarValue), c_size_t, POINTER(LarObj)]),
        "lar_obj_get": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue)]),
        "lar_obj_get_all": (c_int, [Txn, LarObj, POINTER(LarValue), c_size_t]),
        "lar_obj_set": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue)]),
        "lar_obj_delete": (c_int, [Txn, LarObj]),
        "lar_obj_exists": (c_int, [Txn, LarObj, POINTER(c_int)]),
        "lar_obj_find": (c_int, [Txn, c_uint32, POINTER(LarValue), POINTER(LarObj)]),
        "lar_objects_count": (c_int, [Txn, c_uint32, POINTER(c_uint64)]),
        "lar_iter_open": (c_int, [Txn, c_uint32, POINTER(Iter)]),
        "lar_iter_next": (c_int, [Iter, POINTER(LarObj)]),
        "lar_iter_next_all": (c_int, [Iter, POINTER(LarObj), POINTER(LarValue), c_size_t]),
        "lar_iter_seek": (c_int, [Iter, c_uint64]),
        "lar_iter_bind_int": (c_int, [Iter, c_uint32, POINTER(c_int64)]),
        "lar_iter_bind_double": (c_int, [Iter, c_uint32, POINTER(c_double)]),
        "lar_iter_bind_value": (c_int, [Iter, c_uint32, POINTER(LarValue)]),
        "lar_iter_next_batch": (c_int, [Iter, POINTER(LarObj), c_size_t, c_size_t, POINTER(c_size_t)]),
        "lar_iter_close": (None, [Iter]),
        "lar_backlinks_count": (c_int, [Txn, LarObj, c_uint32, c_uint32, POINTER(c_uint64)]),
        "lar_backlinks_list": (c_int, [Txn, LarObj, c_uint32, c_uint32, c_uint64, POINTER(LarObj), c_size_t,
                                       POINTER(c_size_t)]),
        "lar_list_count": (c_int, [Txn, LarObj, c_uint32, POINTER(c_size_t)]),
        "lar_list_get": (c_int, [Txn, LarObj, c_uint32, c_size_t, POINTER(LarValue)]),
        "lar_list_get_batch": (c_int, [Txn, LarObj, c_uint32, c_size_t, POINTER(LarValue), c_size_t,
                                       POINTER(c_size_t)]),
        "lar_list_insert": (c_int, [Txn, LarObj, c_uint32, c_size_t, POINTER(LarValue)]),
        "lar_list_append": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue)]),
        "lar_list_set": (c_int, [Txn, LarObj, c_uint32, c_size_t, POINTER(LarValue)]),
        "lar_list_remove": (c_int, [Txn, LarObj, c_uint32, c_size_t]),
        "lar_list_move": (c_int, [Txn, LarObj, c_uint32, c_size_t, c_size_t]),
        "lar_list_swap": (c_int, [Txn, LarObj, c_uint32, c_size_t, c_size_t]),
        "lar_list_clear": (c_int, [Txn, LarObj, c_uint32]),
        "lar_set_count": (c_int, [Txn, LarObj, c_uint32, POINTER(c_size_t)]),
        "lar_set_contains": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue), POINTER(c_int)]),
        "lar_set_insert": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue), POINTER(c_int)]),
        "lar_set_remove": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue), POINTER(c_int)]),
        "lar_set_list": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue), POINTER(LarValue), c_size_t,
                                 POINTER(c_size_t)]),
        "lar_set_union": (c_int, [Txn, LarObj, c_uint32, LarObj, c_uint32]),
        "lar_set_intersect": (c_int, [Txn, LarObj, c_uint32, LarObj, c_uint32]),
        "lar_set_is_subset": (c_int, [Txn, LarObj, c_uint32, LarObj, c_uint32, POINTER(c_int)]),
        "lar_map_count": (c_int, [Txn, LarObj, c_uint32, POINTER(c_size_t)]),
        "lar_obj_create_embedded": (c_int, [Txn, LarObj, c_uint32, POINTER(LarValue), c_size_t, POINTER(LarObj)]),
        "lar_obj_create_with_embedded": (c_int, [Txn, c_uint32, POINTER(LarValue), c_size_t, POINTER(LarEmbeddedInit),
                                                 c_size_t, POINTER(LarObj), POINTER(LarObj)]),
        "lar_list_insert_embedded": (c_int, [Txn, LarObj, c_uint32, c_size_t, POINTER(LarValue), c_size_t,
                                             POINTER(LarObj)]),
        "lar_map_put_embedded": (c_int, [Txn, LarObj, c_uint32, POINTER(LarString), POINTER(LarValue), c_size_t,
                                         POINTER(LarObj)]),
        "lar_map_get": (c_int, [Txn, LarObj, c_uint32, POINTER(LarString), POINTER(LarValue)]),
        "lar_map_put": (c_int, [Txn, LarObj, c_uint32, POINTER(LarString), POINTER(LarValue)]),
        "lar_map_remove": (c_int, [Txn, LarObj, c_uint32, POINTER(LarString), POINTER(c_int)]),
        "lar_map_list": (c_int, [Txn, LarObj, c_uint32, POINTER(LarString), POINTER(LarString), POINTER(LarValue),
                                 c_size_t, POINTER(c_size_t)]),
        "lar_results_sort": (c_int, [Txn, Results, POINTER(LarSortDescriptor), c_size_t]),
        "lar_results_distinct": (c_int, [Txn, Results, POINTER(c_char_p), c_size_t]),
        "lar_results_limit": (c_int, [Results, c_size_t]),
        "lar_results_aggregate": (c_int, [Txn, Results, c_char_p, c_int, POINTER(LarValue)]),
    }
    sigs.update({
        "lar_query_parse": (c_int, [Env, c_uint32, c_char_p, POINTER(Query)]),
        "lar_query_parse_values": (c_int, [Env, c_int, c_int, c_char_p, POINTER(Query)]),
        "lar_query_match_values": (c_int, [Txn, Query, POINTER(LarValue), c_size_t, POINTER(ctypes.c_ubyte)]),
        "lar_query_argument_count": (c_int, [Query, POINTER(c_size_t)]),
        "lar_query_bind": (c_int, [Query, POINTER(LarQueryArg), c_size_t]),
        "lar_query_free": (None, [Query]),
        "lar_query_run": (c_int, [Txn, Query, POINTER(Results)]),
        "lar_query_run_keys": (c_int, [Txn, Query, POINTER(c_uint64), c_size_t, POINTER(Results)]),
        "lar_env_copy": (c_int, [Env, c_char_p]),
        "lar_results_count": (c_int, [Results, POINTER(c_size_t)]),
        "lar_results_get": (c_int, [Results, c_size_t, POINTER(LarObj)]),
        "lar_results_keys": (c_int, [Results, c_size_t, POINTER(c_uint64), c_size_t, POINTER(c_size_t)]),
        "lar_results_is_current": (c_int, [Results, Txn, POINTER(c_int)]),
        "lar_iter_open_results": (c_int, [Txn, Results, POINTER(Iter)]),
        "lar_results_free": (None, [Results]),
    })
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(so, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return so


# ---- helpers ----


class LarderError(Exception):
    def __init__(self, what, code, message):
        super().__init__(f"{what}: {code} ({message})")
        self.code = code
        self.message = message


def last_error():
    err = lib.lar_error_last().contents
    return err.code, err.message.decode("utf-8", "replace")


def check(rc, what):
    if rc != LAR_OK:
        code, message = last_error()
        raise LarderError(what, rc, message)


class Values:
    """Builds lar_value arrays from Python values, keeping the input bytes alive."""

    def __init__(self):
        self.keep = []

    def one(self, ltype, py):
        v = LarValue()
        if py is None:
            v.type = LAR_TYPE_NULL
            return v
        v.type = ltype
        if ltype == LAR_TYPE_INT:
            v.as_.integer = py
        elif ltype == LAR_TYPE_BOOL:
            v.as_.boolean = 1 if py else 0
        elif ltype == LAR_TYPE_DOUBLE:
            v.as_.float64 = py
        elif ltype == LAR_TYPE_FLOAT:
            v.as_.float32 = py
        elif ltype in (LAR_TYPE_STRING, LAR_TYPE_BINARY):
            data = py.encode("utf-8") if ltype == LAR_TYPE_STRING else bytes(py)
            buf = ctypes.create_string_buffer(data, len(data) + 1)
            self.keep.append(buf)
            member = v.as_.string if ltype == LAR_TYPE_STRING else v.as_.binary
            member.data = ctypes.cast(buf, c_void_p)
            member.size = len(data)
        elif ltype == LAR_TYPE_TIMESTAMP:
            v.as_.timestamp.seconds, v.as_.timestamp.nanoseconds = py
        else:
            raise ValueError(f"type {ltype} not handled by this test")
        return v

    def array(self, types, row):
        arr = (LarValue * len(types))()
        for i, (t, py) in enumerate(zip(types, row)):
            arr[i] = self.one(t, py)
        return arr


def to_python(v):
    """Converts a lar_value read from the database; checks the NUL after strings."""
    t = v.type
    if t == LAR_TYPE_NULL:
        return None
    if t == LAR_TYPE_INT:
        return v.as_.integer
    if t == LAR_TYPE_BOOL:
        assert v.as_.boolean in (0, 1), v.as_.boolean
        return bool(v.as_.boolean)
    if t == LAR_TYPE_DOUBLE:
        return v.as_.float64
    if t == LAR_TYPE_FLOAT:
        return v.as_.float32
    if t == LAR_TYPE_STRING:
        s = v.as_.string
        raw = ctypes.string_at(s.data, s.size + 1)
        assert raw[-1:] == b"\0", "a string read from the database is not NUL-terminated"
        return raw[:-1].decode("utf-8")
    if t == LAR_TYPE_BINARY:
        b = v.as_.binary
        return ctypes.string_at(b.data, b.size) if b.size else b""
    if t == LAR_TYPE_TIMESTAMP:
        return (v.as_.timestamp.seconds, v.as_.timestamp.nanoseconds)
    raise AssertionError(f"unexpected value type {t}")


def make_class(name, props):
    """props: (name, type, flags) tuples. Returns (lar_class_def, keepalive)."""
    arr = (LarPropertyDef * len(props))()
    for i, (pname, ptype, flags) in enumerate(props):
        arr[i] = LarPropertyDef(pname.encode(), ptype, LAR_COLLECTION_NONE, flags, None, None)
    return LarClassDef(name.encode(), arr, len(props), 0), arr


class Database:
    """An open environment plus small wrappers that check return codes."""

    def __init__(self, path, flags=0):
        options = LarEnvOptions()
        check(lib.lar_env_options_init(byref(options)), "lar_env_options_init")
        options.flags = flags
        self.env = Env()
        check(lib.lar_env_open(path.encode(), byref(options), byref(self.env)), "lar_env_open")

    def close(self):
        if self.env:
            check(lib.lar_env_close(self.env), "lar_env_close")
            self.env = None

    def begin(self, flags=LAR_TXN_READ):
        txn = Txn()
        check(lib.lar_txn_begin(self.env, flags, byref(txn)), "lar_txn_begin")
        return txn

    def class_id(self, name):
        cls = c_uint32()
        check(lib.lar_class_find(self.env, name.encode(), byref(cls)), f"lar_class_find {name}")
        return cls.value

    def prop(self, cls, name):
        index = c_uint32()
        check(lib.lar_property_find(self.env, cls, name.encode(), byref(index)), f"lar_property_find {name}")
        return index.value


def find(txn, cls, key_type, key):
    obj = LarObj()
    vals = Values()
    check(lib.lar_obj_find(txn, cls, byref(vals.one(key_type, key)), byref(obj)), f"lar_obj_find {key!r}")
    return obj


def get(txn, obj, prop):
    v = LarValue()
    check(lib.lar_obj_get(txn, obj, prop, byref(v)), "lar_obj_get")
    return to_python(v)


def result_values(txn, results, prop):
    """Property prop of each object of a query result, in result order."""
    n = c_size_t()
    check(lib.lar_results_count(results, byref(n)), "lar_results_count")
    values = []
    for i in range(n.value):
        obj = LarObj()
        check(lib.lar_results_get(results, i, byref(obj)), "lar_results_get")
        values.append(get(txn, obj, prop))
    return values


def get_all(txn, obj, count):
    arr = (LarValue * count)()
    check(lib.lar_obj_get_all(txn, obj, arr, count), "lar_obj_get_all")
    return tuple(to_python(v) for v in arr)


def count(txn, cls):
    n = c_uint64()
    check(lib.lar_objects_count(txn, cls, byref(n)), "lar_objects_count")
    return n.value


def iterate(txn, cls):
    it = Iter()
    check(lib.lar_iter_open(txn, cls, byref(it)), "lar_iter_open")
    objs = []
    try:
        while True:
            obj = LarObj()
            rc = lib.lar_iter_next(it, byref(obj))
            if rc == LAR_ENOTFOUND:
                return objs
            check(rc, "lar_iter_next")
            objs.append(obj)
    finally:
        lib.lar_iter_close(it)


def end(txn, commit=True):
    try:
        if commit:
            check(lib.lar_txn_commit(txn), "lar_txn_commit")
    finally:
        lib.lar_txn_free(txn)


# ---- tests ----


class LayoutTests(unittest.TestCase):
    """The ctypes declarations match the C ABI of a 64-bit Linux."""

    @unittest.skipUnless(ctypes.sizeof(c_void_p) == 8, "sizes below are for LP64")
    def test_struct_sizes(self):
        self.assertEqual(ctypes.sizeof(LarValue), 24)
        self.assertEqual(LarValue.as_.offset, 8)
        self.assertEqual(ctypes.sizeof(LarTimestamp), 16)
        self.assertEqual(ctypes.sizeof(LarObj), 16)
        self.assertEqual(ctypes.sizeof(LarPropertyDef), 40)
        self.assertEqual(ctypes.sizeof(LarClassDef), 32)
        self.assertEqual(ctypes.sizeof(LarEnvOptions), 24)
        self.assertEqual(ctypes.sizeof(LarEnvInfo), 32)
        self.assertEqual(ctypes.sizeof(LarClassInfo), 24)
        self.assertEqual(ctypes.sizeof(LarError), 16)


class VersionAndErrorTests(unittest.TestCase):
    def test_version(self):
        major, minor, patch = c_int(-1), c_int(-1), c_int(-1)
        text = lib.lar_version(byref(major), byref(minor), byref(patch))
        self.assertEqual(text, b"%d.%d.%d" % (major.value, minor.value, patch.value))
        self.assertEqual((major.value, minor.value, patch.value), (0, 1, 0))
        self.assertEqual(lib.lar_version(None, None, None), text)

    def test_strerror(self):
        texts = {}
        for code in ALL_CODES:
            text = lib.lar_strerror(code)
            self.assertTrue(text, f"lar_strerror({code}) is empty")
            self.assertNotEqual(text, b"unknown error", f"lar_strerror({code})")
            texts[code] = text
        self.assertEqual(len(set(texts.values())), len(texts), "two codes share a description")
        self.assertEqual(lib.lar_strerror(12345), b"unknown error")
        self.assertEqual(lib.lar_strerror(-17), b"unknown error")

    def test_error_last_and_clear(self):
        lib.lar_error_clear()
        self.assertEqual(last_error()[0], LAR_OK)
        env = Env()
        missing = os.path.join(tempfile.gettempdir(), "larder-ffi-missing-dir", "x", "db.larder")
        rc = lib.lar_env_open(missing.encode(), None, byref(env))
        self.assertNotEqual(rc, LAR_OK)
        code, message = last_error()
        self.assertEqual(code, rc)
        self.assertTrue(message)
        lib.lar_error_clear()
        self.assertEqual(last_error()[0], LAR_OK)
        self.assertEqual(lib.lar_env_open(None, None, byref(env)), LAR_EINVAL)


GADGET_PROPS = [
    ("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
    ("label", LAR_TYPE_STRING, 0),
    ("weight", LAR_TYPE_DOUBLE, 0),
    ("rating", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
    ("active", LAR_TYPE_BOOL, 0),
    ("blob", LAR_TYPE_BINARY, 0),
    ("made", LAR_TYPE_TIMESTAMP, 0),
]
GADGET_TYPES = [t for _, t, _ in GADGET_PROPS]
GADGETS = [
    (1, "alpha", 1.5, 10, True, b"\x00\x01\xff", (1700000000, 123456789)),
    (2, "b\u00e9ta \u2713", -0.25, None, False, b"", (-1, -500000000)),
    (3, "", 1e300, -(2 ** 63), True, bytes(range(256)), (0, 0)),
    (-7, "x" * 1000, 0.0, 2 ** 63 - 1, False, b"\0" * 3, (253402300799, 999999999)),
]
# Iteration order: Gadget's primary key is an int, so its objects are keyed, and walked, by it.
GADGETS_BY_KEY = sorted(GADGETS, key=lambda g: g[0])


class NewDatabaseTests(unittest.TestCase):
    """A database created and filled from Python."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="larder-ffi-")
        self.db = Database(os.path.join(self.dir, "new.larder"))
        cdef, self._keep = make_class("Gadget", GADGET_PROPS)
        check(lib.lar_schema_apply(self.db.env, byref(cdef), 1, 3), "lar_schema_apply")
        self.cls = self.db.class_id("Gadget")
        # Property indexes follow the stored order: look each one up.
        self.props = [self.db.prop(self.cls, name) for name, _, _ in GADGET_PROPS]
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            for row in GADGETS:
                self.create(txn, row)
        finally:
            end(txn)

    def tearDown(self):
        try:
            self.db.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def create(self, txn, row):
        vals = Values()
        arr = (LarValue * len(GADGET_PROPS))()
        for spec_index, prop in enumerate(self.props):
            arr[prop] = vals.one(GADGET_TYPES[spec_index], row[spec_index])
        obj = LarObj()
        rc = lib.lar_obj_create(txn, self.cls, arr, len(GADGET_PROPS), byref(obj))
        return rc, obj

    def read(self, txn, obj):
        values = get_all(txn, obj, len(GADGET_PROPS))
        return tuple(values[prop] for prop in self.props)

    def test_schema_as_stored(self):
        info = LarEnvInfo()
        check(lib.lar_env_info_get(self.db.env, byref(info)), "lar_env_info_get")
        self.assertEqual(info.schema_version, 3)
        self.assertEqual(info.class_count, 1)
        self.assertEqual(info.format_version, 3)
        cinfo = LarClassInfo()
        check(lib.lar_class_info_get(self.db.env, self.cls, byref(cinfo)), "lar_class_info_get")
        self.assertEqual(cinfo.name, b"Gadget")
        self.assertEqual(cinfo.property_count, len(GADGET_PROPS))
        self.assertEqual(cinfo.primary_key, self.props[0])
        for (name, ptype, flags), prop in zip(GADGET_PROPS, self.props):
            pdef = LarPropertyDef()
            check(lib.lar_property_info_get(self.db.env, self.cls, prop, byref(pdef)), "lar_property_info_get")
            self.assertEqual((pdef.name, pdef.type, pdef.collection, pdef.flags),
                             (name.encode(), ptype, LAR_COLLECTION_NONE, flags))

    def test_read_back_find_count_iterate(self):
        txn = self.db.begin()
        try:
            self.assertEqual(count(txn, self.cls), len(GADGETS))
            for row in GADGETS:
                obj = find(txn, self.cls, LAR_TYPE_INT, row[0])
                self.assertEqual(obj.cls, self.cls)
                self.assertEqual(self.read(txn, obj), row)
                # One property at a time gives the same values.
                self.assertEqual(tuple(get(txn, obj, p) for p in self.props), row)
            rows = [self.read(txn, obj) for obj in iterate(txn, self.cls)]
            self.assertEqual(rows, GADGETS_BY_KEY)  # key order: Gadget is keyed by its int primary key
        finally:
            end(txn)

    def test_iter_next_all_and_seek(self):
        txn = self.db.begin()
        it = Iter()
        check(lib.lar_iter_open(txn, self.cls, byref(it)), "lar_iter_open")
        try:
            n = len(GADGET_PROPS)
            objs, rows = [], []
            while True:
                obj, arr = LarObj(), (LarValue * n)()
                rc = lib.lar_iter_next_all(it, byref(obj), arr, n)
                if rc == LAR_ENOTFOUND:
                    break
                check(rc, "lar_iter_next_all")
                objs.append(obj)
                rows.append(tuple(to_python(arr[p]) for p in self.props))
            self.assertEqual(rows, GADGETS_BY_KEY)
            self.assertEqual(lib.lar_iter_next_all(it, byref(LarObj()), (LarValue * n)(), n - 1), LAR_EINVAL)
            # Resume at the third object, as a caller would in a new transaction.
            check(lib.lar_iter_seek(it, objs[2].key), "lar_iter_seek")
            obj = LarObj()
            check(lib.lar_iter_next(it, byref(obj)), "lar_iter_next after seek")
            self.assertEqual(obj.key, objs[2].key)
            check(lib.lar_iter_seek(it, 0), "lar_iter_seek 0")
            check(lib.lar_iter_next(it, byref(obj)), "lar_iter_next after seek 0")
            self.assertEqual(obj.key, objs[0].key)
            check(lib.lar_iter_seek(it, objs[-1].key + 1), "lar_iter_seek past the end")
            self.assertEqual(lib.lar_iter_next(it, byref(obj)), LAR_ENOTFOUND)
        finally:
            lib.lar_iter_close(it)
            end(txn)

    def test_iter_next_batch_fills_bound_rows(self):
        """Row-wise binding from ctypes: a Structure per row, bound at row 0."""
        class Row(Structure):
            _fields_ = [("id", c_int64), ("weight", c_double), ("label", LarValue)]
        capacity = 3  # so the four gadgets take two batches
        rows, objs = (Row * capacity)(), (LarObj * capacity)()
        txn = self.db.begin()
        it = Iter()
        check(lib.lar_iter_open(txn, self.cls, byref(it)), "lar_iter_open")
        try:
            id_prop, label_prop, weight_prop = self.props[0], self.props[1], self.props[2]

            def field(name, ctype):  # a pointer to row 0's field
                return ctypes.cast(ctypes.addressof(rows) + getattr(Row, name).offset, POINTER(ctype))
            check(lib.lar_iter_bind_int(it, id_prop, field("id", c_int64)), "lar_iter_bind_int")
            check(lib.lar_iter_bind_double(it, weight_prop, field("weight", c_double)), "lar_iter_bind_double")
            check(lib.lar_iter_bind_value(it, label_prop, field("label", LarValue)), "lar_iter_bind_value")
            self.assertEqual(lib.lar_iter_bind_int(it, label_prop, field("id", c_int64)), LAR_ETYPE)
            seen, batches, got = [], [], c_size_t()
            while True:
                rc = lib.lar_iter_next_batch(it, objs, capacity, ctypes.sizeof(Row), byref(got))
                if rc == LAR_ENOTFOUND:
                    break
                check(rc, "lar_iter_next_batch")
                batches.append(got.value)
                for i in range(got.value):
                    seen.append((rows[i].id, to_python(rows[i].label), rows[i].weight))
                    self.assertEqual(get(txn, objs[i], id_prop), rows[i].id)
            self.assertEqual(got.value, 0)
            self.assertEqual(batches, [3, 1])
            self.assertEqual(seen, [(g[0], g[1], g[2]) for g in GADGETS_BY_KEY])
            self.assertEqual(lib.lar_iter_next_batch(it, objs, 0, ctypes.sizeof(Row), byref(got)), LAR_EINVAL)
        finally:
            lib.lar_iter_close(it)
            end(txn)

    def result_ids(self, txn, results):
        """The ids of a result's gadgets, in result order."""
        return result_values(txn, results, self.props[0])

    def run_query(self, txn, text, args=()):
        """The ids of the gadgets a query selects, in result order."""
        q = Query()
        check(lib.lar_query_parse(self.db.env, self.cls, text.encode(), byref(q)), "lar_query_parse")
        try:
            if args:
                vals = Values()
                arr = (LarQueryArg * len(args))()
                for i, (ltype, py) in enumerate(args):
                    arr[i].kind = LAR_QUERY_ARG_VALUE
                    arr[i].value = vals.one(ltype, py)
                check(lib.lar_query_bind(q, arr, len(args)), "lar_query_bind")
            results = Results()
            check(lib.lar_query_run(txn, q, byref(results)), "lar_query_run")
        finally:
            lib.lar_query_free(q)
        try:
            ids = self.result_ids(txn, results)
            keys, got = (c_uint64 * 8)(), c_size_t()
            rc = lib.lar_results_keys(results, 0, keys, 8, byref(got))
            self.assertEqual(got.value, len(ids))
            self.assertEqual(rc, LAR_OK if ids else LAR_ENOTFOUND)
            current = c_int()
            check(lib.lar_results_is_current(results, txn, byref(current)), "lar_results_is_current")
            self.assertEqual(current.value, 1)
            it = Iter()
            check(lib.lar_iter_open_results(txn, results, byref(it)), "lar_iter_open_results")
            try:
                ident = c_int64()
                check(lib.lar_iter_bind_int(it, self.props[0], byref(ident)), "lar_iter_bind_int")
                walked = []
                while lib.lar_iter_next(it, byref(LarObj())) == LAR_OK:
                    walked.append(ident.value)
                self.assertEqual(walked, ids)
            finally:
                lib.lar_iter_close(it)
            return ids
        finally:
            lib.lar_results_free(results)

    def test_queries(self):
        txn = self.db.begin()
        try:
            self.assertEqual(self.run_query(txn, "weight > 0 AND active == true"), [1, 3])
            self.assertEqual(self.run_query(txn, "label BEGINSWITH[c] 'B\u00c9'"), [2])
            self.assertEqual(self.run_query(txn, "id IN {-7, 1, 99}"), [-7, 1])  # key order: by the int primary key
            self.assertEqual(self.run_query(txn, "rating == nil OR label.@count > 100"), [-7, 2])
            self.assertEqual(self.run_query(txn, "rating == $0", [(LAR_TYPE_INT, 10)]), [1])
            self.assertEqual(self.run_query(txn, "made < %@", [(LAR_TYPE_TIMESTAMP, (0, 0))]), [2])
            self.assertEqual(self.run_query(txn, "FALSEPREDICATE"), [])
            q, results = Query(), Results()
            check(lib.lar_query_parse(self.db.env, self.cls, b"id > $0", byref(q)), "lar_query_parse")
            self.assertEqual(lib.lar_query_run(txn, q, byref(results)), LAR_EINVAL)  # unbound
            self.assertIn("not bound", last_error()[1])
            lib.lar_query_free(q)
        finally:
            end(txn)

    def test_query_over_values(self):
        """A query over plain values tests values held in Python: `self` names each one."""
        q = Query()
        check(lib.lar_query_parse_values(self.db.env, LAR_TYPE_STRING, 1, b"self BEGINSWITH[c] 'b' OR self == nil",
                                         byref(q)), "lar_query_parse_values")
        txn = self.db.begin()
        try:
            vals = Values()
            words = ["Bee", "ant", None, "bat"]
            arr = (LarValue * len(words))()
            for i, word in enumerate(words):
                arr[i] = vals.one(LAR_TYPE_NULL, None) if word is None else vals.one(LAR_TYPE_STRING, word)
            hits = (ctypes.c_ubyte * len(words))()
            check(lib.lar_query_match_values(txn, q, arr, len(words), hits), "lar_query_match_values")
            self.assertEqual(list(hits), [1, 0, 1, 1])
            arr[1] = vals.one(LAR_TYPE_INT, 3)
            self.assertEqual(lib.lar_query_match_values(txn, q, arr, len(words), hits), LAR_ETYPE)
            self.assertIn("value 1", last_error()[1])
        finally:
            end(txn)
            lib.lar_query_free(q)

    def test_query_on_given_objects_and_a_compacted_copy(self):
        """lar_query_run_keys keeps the given order; lar_env_copy writes a file that opens."""
        txn = self.db.begin()
        try:
            q, every, kept = Query(), Results(), Results()
            check(lib.lar_query_parse(self.db.env, self.cls, b"TRUEPREDICATE", byref(q)), "lar_query_parse")
            check(lib.lar_query_run(txn, q, byref(every)), "lar_query_run")
            lib.lar_query_free(q)
            keys, got = (c_uint64 * 8)(), c_size_t()
            check(lib.lar_results_keys(every, 0, keys, 8, byref(got)), "lar_results_keys")
            lib.lar_results_free(every)
            given = (c_uint64 * got.value)(*reversed(keys[:got.value]))
            check(lib.lar_query_parse(self.db.env, self.cls, b"weight > 0 AND active == true", byref(q)),
                  "lar_query_parse")
            try:
                check(lib.lar_query_run_keys(txn, q, given, got.value, byref(kept)), "lar_query_run_keys")
                self.assertEqual(self.result_ids(txn, kept), [3, 1])  # the given (reversed) order
                lib.lar_results_free(kept)
                self.assertEqual(lib.lar_query_run_keys(txn, q, None, 1, byref(kept)), LAR_EINVAL)
            finally:
                lib.lar_query_free(q)
        finally:
            end(txn)
        copy = os.path.join(self.dir, "copy.larder")
        check(lib.lar_env_copy(self.db.env, copy.encode()), "lar_env_copy")
        self.assertEqual(lib.lar_env_copy(self.db.env, copy.encode()), LAR_EEXISTS)
        copied = Database(copy)
        try:
            txn = copied.begin()
            try:
                count = c_uint64()
                check(lib.lar_objects_count(txn, copied.class_id("Gadget"), byref(count)), "lar_objects_count")
                self.assertEqual(count.value, len(GADGETS))
            finally:
                end(txn)
        finally:
            copied.close()

    def test_missing_and_wrong_keys(self):
        txn = self.db.begin()
        try:
            obj, vals = LarObj(), Values()
            self.assertEqual(lib.lar_obj_find(txn, self.cls, byref(vals.one(LAR_TYPE_INT, 99)), byref(obj)),
                             LAR_ENOTFOUND)
            self.assertEqual(last_error()[0], LAR_ENOTFOUND)
            self.assertEqual(lib.lar_obj_find(txn, self.cls, byref(vals.one(LAR_TYPE_STRING, "1")), byref(obj)),
                             LAR_ETYPE)
            code, message = last_error()
            self.assertEqual(code, LAR_ETYPE)
            self.assertTrue(message)
            v = LarValue()
            obj = find(txn, self.cls, LAR_TYPE_INT, 1)
            self.assertEqual(lib.lar_obj_get(txn, obj, 99, byref(v)), LAR_EINVAL)
            arr = vals.array(GADGET_TYPES, GADGETS[0])
            self.assertEqual(lib.lar_obj_create(txn, self.cls, arr, len(GADGET_PROPS), None), LAR_EMISUSE)
        finally:
            end(txn)

    def test_duplicate_primary_key_keeps_txn_usable(self):
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            lib.lar_error_clear()
            rc, _ = self.create(txn, (2, "dup", 0.0, None, False, b"", (0, 0)))
            self.assertEqual(rc, LAR_EEXISTS)
            code, message = last_error()
            self.assertEqual(code, LAR_EEXISTS)
            self.assertTrue(message and message != "no error", message)
            active, write = c_int(), c_int()
            check(lib.lar_txn_state(txn, byref(active), byref(write)), "lar_txn_state")
            self.assertEqual((active.value, write.value), (1, 1))
            rc, obj = self.create(txn, (4, "four", 4.0, 4, True, b"4", (4, 4)))
            check(rc, "lar_obj_create after LAR_EEXISTS")
            self.assertEqual(get(txn, obj, self.props[1]), "four")
        finally:
            end(txn)
        txn = self.db.begin()
        try:
            self.assertEqual(count(txn, self.cls), len(GADGETS) + 1)
            self.assertEqual(self.read(txn, find(txn, self.cls, LAR_TYPE_INT, 2)), GADGETS[1])
        finally:
            end(txn)

    def test_type_errors(self):
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            row = list(GADGETS[0])
            row[0] = 50
            types = list(GADGET_TYPES)
            arr = (LarValue * len(GADGET_PROPS))()
            vals = Values()
            for i, prop in enumerate(self.props):
                arr[prop] = vals.one(types[i], row[i])
            arr[self.props[1]] = vals.one(LAR_TYPE_INT, 5)  # label must be a string
            self.assertEqual(lib.lar_obj_create(txn, self.cls, arr, len(GADGET_PROPS), None), LAR_ETYPE)
            arr[self.props[1]] = vals.one(LAR_TYPE_STRING, None)  # and is required
            self.assertEqual(lib.lar_obj_create(txn, self.cls, arr, len(GADGET_PROPS), None), LAR_ETYPE)
            self.assertEqual(lib.lar_obj_create(txn, self.cls, arr, 2, None), LAR_EINVAL)
            self.assertTrue(last_error()[1])
        finally:
            end(txn, commit=False)

    def test_update_and_delete(self):
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            obj = find(txn, self.cls, LAR_TYPE_INT, 2)
            vals = Values()
            check(lib.lar_obj_set(txn, obj, self.props[3], byref(vals.one(LAR_TYPE_INT, 77))), "lar_obj_set")
            check(lib.lar_obj_set(txn, obj, self.props[1], byref(vals.one(LAR_TYPE_STRING, "gamma"))),
                  "lar_obj_set")
            self.assertEqual(lib.lar_obj_set(txn, obj, self.props[0], byref(vals.one(LAR_TYPE_INT, 9))),
                             LAR_EINVAL)  # a primary key cannot change
            gone = find(txn, self.cls, LAR_TYPE_INT, 3)
            check(lib.lar_obj_delete(txn, gone), "lar_obj_delete")
            self.assertEqual(lib.lar_obj_delete(txn, gone), LAR_EDELETED)
        finally:
            end(txn)
        txn = self.db.begin()
        try:
            obj = find(txn, self.cls, LAR_TYPE_INT, 2)
            self.assertEqual(get(txn, obj, self.props[3]), 77)
            self.assertEqual(get(txn, obj, self.props[1]), "gamma")
            exists = c_int(-1)
            check(lib.lar_obj_exists(txn, gone, byref(exists)), "lar_obj_exists")
            self.assertEqual(exists.value, 0)
            v = LarValue()
            self.assertEqual(lib.lar_obj_get(txn, gone, self.props[1], byref(v)), LAR_EDELETED)
            self.assertEqual(count(txn, self.cls), len(GADGETS) - 1)
            self.assertEqual(lib.lar_obj_find(txn, self.cls, byref(vals.one(LAR_TYPE_INT, 3)), byref(LarObj())),
                             LAR_ENOTFOUND)
        finally:
            end(txn)

    def test_reopen(self):
        self.db.close()
        self.db = Database(os.path.join(self.dir, "new.larder"), LAR_ENV_READONLY)
        cls = self.db.class_id("Gadget")
        props = [self.db.prop(cls, name) for name, _, _ in GADGET_PROPS]
        self.assertEqual(props, self.props)
        txn = Txn()
        self.assertEqual(lib.lar_txn_begin(self.db.env, LAR_TXN_WRITE, byref(txn)), LAR_EREADONLY)
        txn = self.db.begin()
        try:
            rows = [self.read(txn, obj) for obj in iterate(txn, cls)]
            self.assertEqual(rows, GADGETS_BY_KEY)
        finally:
            end(txn)


class LinkAndListTests(unittest.TestCase):
    """Links, backlinks and lists built and read from Python."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="larder-ffi-lists-")
        self.db = Database(os.path.join(self.dir, "lists.larder"))
        dog_props = (LarPropertyDef * 1)(LarPropertyDef(b"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, None, None))
        owner_props = (LarPropertyDef * 6)(
            LarPropertyDef(b"best", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, b"Dog", None),
            LarPropertyDef(b"dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, b"Dog", None),
            LarPropertyDef(b"words", LAR_TYPE_STRING, LAR_COLLECTION_LIST, LAR_PROP_OPTIONAL, None, None),
            LarPropertyDef(b"lucky", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, None, None),
            LarPropertyDef(b"primes", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, None, None),
            LarPropertyDef(b"ages", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, None, None))
        classes = (LarClassDef * 2)(LarClassDef(b"Owner", owner_props, 6, 0), LarClassDef(b"Dog", dog_props, 1, 0))
        check(lib.lar_schema_apply(self.db.env, classes, 2, 1), "lar_schema_apply")
        self.owner, self.dog = self.db.class_id("Owner"), self.db.class_id("Dog")
        self.best, self.dogs, self.words, self.lucky, self.primes, self.ages = (
            self.db.prop(self.owner, n) for n in ("best", "dogs", "words", "lucky", "primes", "ages"))

    def tearDown(self):
        try:
            self.db.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def create(self, txn, cls, values=None, count=0):
        obj = LarObj()
        check(lib.lar_obj_create(txn, cls, values, count, byref(obj)), "lar_obj_create")
        return obj

    @staticmethod
    def link(obj):
        v = LarValue()
        v.type = LAR_TYPE_LINK
        v.as_.link = obj
        return v

    def words_of(self, txn, owner):
        n = c_size_t()
        check(lib.lar_list_count(txn, owner, self.words, byref(n)), "lar_list_count")
        out, batch, got = [], (LarValue * 4)(), c_size_t()
        while True:
            rc = lib.lar_list_get_batch(txn, owner, self.words, len(out), batch, 4, byref(got))
            if rc == LAR_ENOTFOUND:
                self.assertEqual(got.value, 0)
                break
            check(rc, "lar_list_get_batch")
            out.extend(to_python(batch[i]) for i in range(got.value))
        self.assertEqual(len(out), n.value)
        return out

    def test_list_of_strings(self):
        vals = Values()
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            owner = self.create(txn, self.owner)
            for i, word in enumerate(["b", "d", None, "h\u00e9"] + [f"w{i}" for i in range(100)]):
                check(lib.lar_list_append(txn, owner, self.words, byref(vals.one(LAR_TYPE_STRING, word))), "append")
            check(lib.lar_list_insert(txn, owner, self.words, 0, byref(vals.one(LAR_TYPE_STRING, "a"))), "insert")
            check(lib.lar_list_set(txn, owner, self.words, 3, byref(vals.one(LAR_TYPE_STRING, "c"))), "set")
            check(lib.lar_list_move(txn, owner, self.words, 4, 1), "move")
            check(lib.lar_list_swap(txn, owner, self.words, 0, 1), "swap")
            check(lib.lar_list_remove(txn, owner, self.words, 104), "remove")
            self.assertEqual(lib.lar_list_remove(txn, owner, self.words, 104), LAR_EINVAL)
            self.assertIn("out of bounds", last_error()[1])
            self.assertEqual(lib.lar_list_append(txn, owner, self.words, byref(vals.one(LAR_TYPE_INT, 1))), LAR_ETYPE)
        finally:
            end(txn)
        txn = self.db.begin()
        try:
            self.assertEqual(self.words_of(txn, owner), ["h\u00e9", "a", "b", "d", "c"] + [f"w{i}" for i in range(99)])
            v = LarValue()
            check(lib.lar_list_get(txn, owner, self.words, 3, byref(v)), "lar_list_get")
            self.assertEqual(to_python(v), "d")
            self.assertEqual(lib.lar_list_append(txn, owner, self.words, byref(Values().one(LAR_TYPE_STRING, "x"))),
                             LAR_EMISUSE)
        finally:
            end(txn)

    def set_of(self, txn, owner, prop):
        page, got, out = (LarValue * 3)(), c_size_t(), []
        while True:
            rc = lib.lar_set_list(txn, owner, prop, byref(page[got.value - 1]) if out else None, page, 3, byref(got))
            if rc == LAR_ENOTFOUND:
                return out
            check(rc, "lar_set_list")
            out.extend(to_python(page[i]) for i in range(got.value))

    def test_sets(self):
        vals = Values()
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            owner = self.create(txn, self.owner)
            inserted = c_int()
            for n in (7, 3, 13, 7, -1, 21):
                check(lib.lar_set_insert(txn, owner, self.lucky, byref(vals.one(LAR_TYPE_INT, n)), byref(inserted)),
                      "lar_set_insert")
            self.assertEqual(inserted.value, 1)
            for n in (2, 3, 5, 7, 11, 13):
                check(lib.lar_set_insert(txn, owner, self.primes, byref(vals.one(LAR_TYPE_INT, n)), None), "insert")
            self.assertEqual(self.set_of(txn, owner, self.lucky), [-1, 3, 7, 13, 21])
            found = c_int()
            check(lib.lar_set_contains(txn, owner, self.lucky, byref(vals.one(LAR_TYPE_INT, 13)), byref(found)), "has")
            self.assertEqual(found.value, 1)
            check(lib.lar_set_intersect(txn, owner, self.lucky, owner, self.primes), "lar_set_intersect")
            self.assertEqual(self.set_of(txn, owner, self.lucky), [3, 7, 13])
            check(lib.lar_set_is_subset(txn, owner, self.lucky, owner, self.primes, byref(found)), "subset")
            self.assertEqual(found.value, 1)
            check(lib.lar_set_union(txn, owner, self.lucky, owner, self.primes), "lar_set_union")
            size = c_size_t()
            check(lib.lar_set_count(txn, owner, self.lucky, byref(size)), "lar_set_count")
            self.assertEqual(size.value, 6)
            self.assertEqual(lib.lar_set_union(txn, owner, self.lucky, owner, self.ages), LAR_EINVAL)
        finally:
            end(txn)

    def test_maps(self):
        vals = Values()

        def key(text):
            data = text.encode()
            buf = ctypes.create_string_buffer(data, len(data) + 1)
            vals.keep.append(buf)
            return LarString(ctypes.cast(buf, c_void_p), len(data))

        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            owner = self.create(txn, self.owner)
            for name, age in (("rex", 3), ("fido", 7), ("luna", 1), ("rex", 4)):
                check(lib.lar_map_put(txn, owner, self.ages, byref(key(name)), byref(vals.one(LAR_TYPE_INT, age))),
                      "lar_map_put")
            self.assertEqual(lib.lar_map_put(txn, owner, self.ages, byref(key("a.b")), byref(vals.one(LAR_TYPE_INT, 1))),
                             LAR_EINVAL)
            self.assertIn("'.'", last_error()[1])
            removed = c_int()
            check(lib.lar_map_remove(txn, owner, self.ages, byref(key("luna")), byref(removed)), "lar_map_remove")
            self.assertEqual(removed.value, 1)
        finally:
            end(txn)
        txn = self.db.begin()
        try:
            v = LarValue()
            check(lib.lar_map_get(txn, owner, self.ages, byref(key("rex")), byref(v)), "lar_map_get")
            self.assertEqual(to_python(v), 4)
            self.assertEqual(lib.lar_map_get(txn, owner, self.ages, byref(key("luna")), byref(v)), LAR_ENOTFOUND)
            keys, values, got = (LarString * 4)(), (LarValue * 4)(), c_size_t()
            check(lib.lar_map_list(txn, owner, self.ages, None, keys, values, 4, byref(got)), "lar_map_list")
            self.assertEqual([(ctypes.string_at(keys[i].data, keys[i].size).decode(), to_python(values[i]))
                              for i in range(got.value)], [("fido", 7), ("rex", 4)])
        finally:
            end(txn)

    def test_links_backlinks_and_deleted_targets(self):
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            rex, fido = self.create(txn, self.dog), self.create(txn, self.dog)
            ann, bob = self.create(txn, self.owner), self.create(txn, self.owner)
            check(lib.lar_obj_set(txn, ann, self.best, byref(self.link(rex))), "lar_obj_set")
            for owner, dog in ((ann, rex), (ann, fido), (ann, rex), (bob, rex)):
                check(lib.lar_list_append(txn, owner, self.dogs, byref(self.link(dog))), "lar_list_append")
            self.assertEqual(lib.lar_list_append(txn, ann, self.dogs, byref(self.link(ann))), LAR_ETYPE)
            n = c_uint64()
            check(lib.lar_backlinks_count(txn, rex, self.owner, self.dogs, byref(n)), "lar_backlinks_count")
            self.assertEqual(n.value, 2)
            origins, got = (LarObj * 4)(), c_size_t()
            check(lib.lar_backlinks_list(txn, rex, self.owner, self.best, 0, origins, 4, byref(got)), "list")
            self.assertEqual((got.value, origins[0].key), (1, ann.key))
            check(lib.lar_obj_delete(txn, rex), "lar_obj_delete")
            v = LarValue()
            check(lib.lar_obj_get(txn, ann, self.best, byref(v)), "lar_obj_get")
            self.assertEqual(v.type, LAR_TYPE_NULL)
            size = c_size_t()
            check(lib.lar_list_count(txn, ann, self.dogs, byref(size)), "lar_list_count")
            self.assertEqual(size.value, 1)
            check(lib.lar_list_get(txn, ann, self.dogs, 0, byref(v)), "lar_list_get")
            self.assertEqual((v.type, v.as_.link.cls, v.as_.link.key), (LAR_TYPE_LINK, self.dog, fido.key))
            self.assertEqual(lib.lar_list_append(txn, bob, self.dogs, byref(self.link(rex))), LAR_EINVAL)
        finally:
            end(txn)


PERSONS = {1: ("Ada", 36, 9.5), 2: ("Grace", 45, 8.25), 3: ("Linus", None, 7.0)}


class SharedFileCopy(unittest.TestCase):
    """Opens a copy of the file the C tests wrote, read-only, as self.db."""

    def setUp(self):
        if not os.path.isfile(SHARED_PATH):
            self.fail(f"{SHARED_PATH} is missing: run `make test-c` first")
        self.dir = tempfile.mkdtemp(prefix="larder-ffi-shared-")
        path = os.path.join(self.dir, "shared.larder")
        shutil.copyfile(SHARED_PATH, path)  # not the lock file: LMDB makes a fresh one
        self.db = Database(path, LAR_ENV_READONLY)

    def tearDown(self):
        try:
            self.db.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


class SharedFileTests(SharedFileCopy):
    """The file the C tests wrote, read from Python."""

    def test_schema(self):
        info = LarEnvInfo()
        check(lib.lar_env_info_get(self.db.env, byref(info)), "lar_env_info_get")
        self.assertEqual(info.schema_version, 1)
        cls = self.db.class_id("Person")
        cinfo = LarClassInfo()
        check(lib.lar_class_info_get(self.db.env, cls, byref(cinfo)), "lar_class_info_get")
        self.assertEqual((cinfo.name, cinfo.property_count, cinfo.primary_key), (b"Person", 4, 0))
        expected = [("id", LAR_TYPE_INT, True, False), ("name", LAR_TYPE_STRING, False, False),
                    ("age", LAR_TYPE_INT, False, True), ("score", LAR_TYPE_DOUBLE, False, False)]
        for index, (name, ptype, primary, optional) in enumerate(expected):
            self.assertEqual(self.db.prop(cls, name), index, f"position of {name}")
            pdef = LarPropertyDef()
            check(lib.lar_property_info_get(self.db.env, cls, index, byref(pdef)), "lar_property_info_get")
            self.assertEqual(pdef.name, name.encode())
            self.assertEqual(pdef.type, ptype, name)
            self.assertEqual(pdef.collection, LAR_COLLECTION_NONE, name)
            self.assertEqual(bool(pdef.flags & LAR_PROP_PRIMARY_KEY), primary, name)
            self.assertEqual(bool(pdef.flags & LAR_PROP_OPTIONAL), optional, name)
        unknown = c_uint32()
        self.assertEqual(lib.lar_property_find(self.db.env, cls, b"email", byref(unknown)), LAR_ENOTFOUND)
        self.assertEqual(lib.lar_class_find(self.db.env, b"Nobody", byref(unknown)), LAR_ENOTFOUND)

    def test_objects(self):
        cls = self.db.class_id("Person")
        p = {name: self.db.prop(cls, name) for name in ("id", "name", "age", "score")}
        txn = self.db.begin()
        try:
            self.assertEqual(count(txn, cls), 3)
            seen = {}
            for obj in iterate(txn, cls):
                values = get_all(txn, obj, 4)
                ident = values[p["id"]]
                self.assertNotIn(ident, seen)
                seen[ident] = (values[p["name"]], values[p["age"]], values[p["score"]])
                v = LarValue()
                check(lib.lar_obj_get(txn, obj, p["age"], byref(v)), "lar_obj_get age")
                self.assertEqual(v.type, LAR_TYPE_NULL if ident == 3 else LAR_TYPE_INT)
                check(lib.lar_obj_get(txn, obj, p["score"], byref(v)), "lar_obj_get score")
                self.assertEqual(v.type, LAR_TYPE_DOUBLE)
            self.assertEqual(seen, PERSONS)
            for ident, (name, age, score) in PERSONS.items():
                obj = find(txn, cls, LAR_TYPE_INT, ident)
                self.assertEqual((get(txn, obj, p["id"]), get(txn, obj, p["name"]), get(txn, obj, p["age"]),
                                  get(txn, obj, p["score"])), (ident, name, age, score))
            missing = LarObj()
            self.assertEqual(lib.lar_obj_find(txn, cls, byref(Values().one(LAR_TYPE_INT, 4)), byref(missing)),
                             LAR_ENOTFOUND)
        finally:
            end(txn)
        txn = Txn()
        self.assertEqual(lib.lar_txn_begin(self.db.env, LAR_TXN_WRITE, byref(txn)), LAR_EREADONLY)


class ResultsTests(SharedFileCopy):
    """Sort, distinct, limit and aggregates over the shared file's three persons."""

    def setUp(self):
        super().setUp()
        self.cls = self.db.class_id("Person")
        self.name = self.db.prop(self.cls, "name")
        self.txn = self.db.begin()

    def tearDown(self):
        try:
            end(self.txn, commit=False)
        finally:
            super().tearDown()

    def results(self):
        """Every person, from lar_query_run(); freed at tearDown."""
        q, r = Query(), Results()
        check(lib.lar_query_parse(self.db.env, self.cls, b"TRUEPREDICATE", byref(q)), "lar_query_parse")
        try:
            check(lib.lar_query_run(self.txn, q, byref(r)), "lar_query_run")
        finally:
            lib.lar_query_free(q)
        self.addCleanup(lib.lar_results_free, r)
        return r

    def names(self, r):
        return result_values(self.txn, r, self.name)

    def sort(self, r, *descriptors):
        ds = (LarSortDescriptor * len(descriptors))(*[LarSortDescriptor(k.encode(), asc) for k, asc in descriptors])
        return lib.lar_results_sort(self.txn, r, ds, len(descriptors))

    def aggregate(self, r, keypath, op):
        v = LarValue()
        check(lib.lar_results_aggregate(self.txn, r, keypath and keypath.encode(), op, byref(v)),
              "lar_results_aggregate")
        return to_python(v)

    def test_sort_distinct_limit(self):
        r = self.results()
        check(self.sort(r, ("name", 0)), "lar_results_sort")
        self.assertEqual(self.names(r), ["Linus", "Grace", "Ada"])
        check(self.sort(r, ("age", 1)), "lar_results_sort")  # nil first
        self.assertEqual(self.names(r), ["Linus", "Ada", "Grace"])
        paths = (c_char_p * 1)(b"name")
        check(lib.lar_results_distinct(self.txn, r, paths, 1), "lar_results_distinct")
        self.assertEqual(len(self.names(r)), 3)
        check(lib.lar_results_limit(r, 2), "lar_results_limit")
        self.assertEqual(self.names(r), ["Linus", "Ada"])
        self.assertEqual(self.sort(r, ("agee", 1)), LAR_EINVAL)
        self.assertEqual(last_error(), (LAR_EINVAL, "unknown property 'agee' on class 'Person' at column 1"))
        self.assertEqual(self.names(r), ["Linus", "Ada"])

    def test_aggregates(self):
        r = self.results()
        self.assertEqual(self.aggregate(r, None, LAR_AGGREGATE_COUNT), 3)
        self.assertEqual(self.aggregate(r, "age", LAR_AGGREGATE_COUNT), 2)
        self.assertEqual(self.aggregate(r, "age", LAR_AGGREGATE_SUM), 81)
        self.assertEqual(self.aggregate(r, "age", LAR_AGGREGATE_AVERAGE), 40.5)
        self.assertEqual(self.aggregate(r, "score", LAR_AGGREGATE_MIN), 7.0)
        self.assertEqual(self.aggregate(r, "score", LAR_AGGREGATE_MAX), 9.5)
        v = LarValue()
        self.assertEqual(lib.lar_results_aggregate(self.txn, r, b"name", LAR_AGGREGATE_SUM, byref(v)), LAR_EINVAL)
        self.assertEqual(last_error(), (LAR_EINVAL, "operation 'sum' not supported for string property 'Person.name'"))


class MixedTests(unittest.TestCase):
    """Mixed values (AnyRealmValue) written and read from Python: a string, a typed link."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="larder-ffi-mixed-")
        self.path = os.path.join(self.dir, "mixed.larder")
        self.db = Database(self.path)
        dog_props = (LarPropertyDef * 1)(LarPropertyDef(b"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, None, None))
        thing_props = (LarPropertyDef * 3)(
            LarPropertyDef(b"any", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, None, None),
            LarPropertyDef(b"anys", LAR_TYPE_MIXED, LAR_COLLECTION_LIST, 0, None, None),
            LarPropertyDef(b"anyset", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, None, None))
        classes = (LarClassDef * 2)(LarClassDef(b"Thing", thing_props, 3, 0), LarClassDef(b"Dog", dog_props, 1, 0))
        check(lib.lar_schema_apply(self.db.env, classes, 2, 1), "lar_schema_apply")

    def tearDown(self):
        try:
            self.db.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def test_mixed_string_and_link(self):
        thing, dog = self.db.class_id("Thing"), self.db.class_id("Dog")
        any_, anys = self.db.prop(thing, "any"), self.db.prop(thing, "anys")
        vals = Values()
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            rex, a, b = LarObj(), LarObj(), LarObj()
            check(lib.lar_obj_create(txn, dog, byref(vals.one(LAR_TYPE_STRING, "rex")), 1, byref(rex)), "create dog")
            check(lib.lar_obj_create(txn, thing, None, 0, byref(a)), "create thing")
            check(lib.lar_obj_create(txn, thing, None, 0, byref(b)), "create thing")
            self.assertIsNone(get(txn, a, any_))  # a mixed value starts as null
            check(lib.lar_obj_set(txn, a, any_, byref(vals.one(LAR_TYPE_STRING, "h\u00e9llo"))), "set string")
            link = LarValue()
            link.type = LAR_TYPE_LINK
            link.as_.link = rex
            check(lib.lar_obj_set(txn, b, any_, byref(link)), "set link")
            check(lib.lar_list_append(txn, a, anys, byref(vals.one(LAR_TYPE_INT, 7))), "append int")
            check(lib.lar_list_append(txn, a, anys, byref(link)), "append link")
            bad = LarValue()
            bad.type = LAR_TYPE_LINK
            bad.as_.link = LarObj(77, rex.key)  # no such class
            self.assertEqual(lib.lar_obj_set(txn, a, any_, byref(bad)), LAR_EINVAL)
            self.assertIn("no such class", last_error()[1])
        finally:
            end(txn)
        self.db.close()
        self.db = Database(self.path)
        txn = self.db.begin()
        try:
            self.assertEqual(get(txn, a, any_), "h\u00e9llo")
            v = LarValue()
            check(lib.lar_obj_get(txn, b, any_, byref(v)), "lar_obj_get")
            self.assertEqual(v.type, LAR_TYPE_LINK)
            self.assertEqual((v.as_.link.cls, v.as_.link.key), (dog, rex.key))
            check(lib.lar_list_get(txn, a, anys, 0, byref(v)), "lar_list_get")
            self.assertEqual(to_python(v), 7)
            check(lib.lar_list_get(txn, a, anys, 1, byref(v)), "lar_list_get")
            self.assertEqual((v.type, v.as_.link.cls, v.as_.link.key), (LAR_TYPE_LINK, dog, rex.key))
        finally:
            end(txn)
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            check(lib.lar_obj_delete(txn, rex), "lar_obj_delete")
            self.assertIsNone(get(txn, b, any_))  # deleting the target nulls the mixed link
            n = c_size_t()
            check(lib.lar_list_count(txn, a, anys, byref(n)), "lar_list_count")
            self.assertEqual(n.value, 1)
        finally:
            end(txn)


    @staticmethod
    def decimal(negative, coefficient, exponent):
        v = LarValue()
        v.type = LAR_TYPE_DECIMAL128
        v.as_.decimal128.low = coefficient & (2**64 - 1)
        v.as_.decimal128.high = (negative << 63) | ((exponent + 6176) << 49) | (coefficient >> 64)
        return v

    @staticmethod
    def exact(v):
        """The exact value of a number read back, as a Fraction."""
        if v.type == LAR_TYPE_INT:
            return Fraction(v.as_.integer)
        if v.type == LAR_TYPE_DOUBLE:
            return Fraction(v.as_.float64)
        assert v.type == LAR_TYPE_DECIMAL128, v.type
        high, low = v.as_.decimal128.high, v.as_.decimal128.low
        coefficient = ((high & (2**49 - 1)) << 64) | low
        value = Fraction(coefficient) * Fraction(10) ** (((high >> 49) & 0x3FFF) - 6176)
        return -value if high >> 63 else value

    def test_set_of_numbers_is_unique_and_ordered_by_exact_value(self):
        """Ints, doubles and decimals near each other (ties at 2^53 and 2^63, decimals
        just off a double, beyond a double's range), checked against exact fractions."""
        rng = random.Random(12)
        thing = self.db.class_id("Thing")
        anyset = self.db.prop(thing, "anyset")
        values = []
        for _ in range(400):
            kind = rng.randrange(3)
            base = rng.choice([0, 1, 2**53, 2**63 - 1, -2**53, 10**15, 3]) + rng.randrange(-3, 4)
            if kind == 0 and -2**63 <= base < 2**63:
                values.append(Values().one(LAR_TYPE_INT, base))
            elif kind == 1:
                d = rng.choice([float(base), rng.uniform(-4, 4), 0.1, math.ldexp(1.0, rng.randrange(-1080, 1024))])
                d = math.nextafter(d, math.inf) if rng.randrange(2) else d
                values.append(Values().one(LAR_TYPE_DOUBLE, d))
            else:
                exponent = rng.choice([0, -1, -2, -17, -20, -33, rng.randrange(-420, 420), rng.randrange(-6176, 6111)])
                coefficient = rng.choice([abs(base) * 10**(-exponent) if -34 < exponent <= 0 else 0,
                                          rng.randrange(10**34), 1, 5, 25, 10**33 + rng.randrange(-2, 3)])
                coefficient = min(abs(coefficient) + rng.randrange(0, 2), 10**34 - 1)
                values.append(self.decimal(int(base < 0 and rng.randrange(2)), coefficient, exponent))
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            owner = LarObj()
            check(lib.lar_obj_create(txn, thing, None, 0, byref(owner)), "create thing")
            for v in values:
                check(lib.lar_set_insert(txn, owner, anyset, byref(v), None), "lar_set_insert")
            expected = sorted({self.exact(v) for v in values})
            got, page, n = [], (LarValue * 8)(), c_size_t()
            while True:
                rc = lib.lar_set_list(txn, owner, anyset, byref(page[n.value - 1]) if got else None, page, 8, byref(n))
                if rc == LAR_ENOTFOUND:
                    break
                check(rc, "lar_set_list")
                got.extend(self.exact(page[i]) for i in range(n.value))
            self.assertEqual(got, expected)
            found = c_int()
            for v in values:  # every value finds its element
                check(lib.lar_set_contains(txn, owner, anyset, byref(v), byref(found)), "lar_set_contains")
                self.assertEqual(found.value, 1)
        finally:
            end(txn, commit=False)


class EmbeddedObjectTests(unittest.TestCase):
    """An embedded object created in place and read back from Python."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="larder-ffi-embedded-")
        self.path = os.path.join(self.dir, "embedded.larder")
        self.db = Database(self.path)
        address_props = (LarPropertyDef * 2)(
            LarPropertyDef(b"street", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, None, None),
            LarPropertyDef(b"city", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, None, None))
        person_props = (LarPropertyDef * 3)(
            LarPropertyDef(b"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, None, None),
            LarPropertyDef(b"address", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, b"Address", None),
            LarPropertyDef(b"past", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, b"Address", None))
        classes = (LarClassDef * 2)(LarClassDef(b"Person", person_props, 3, 0),
                                    LarClassDef(b"Address", address_props, 2, LAR_CLASS_EMBEDDED))
        check(lib.lar_schema_apply(self.db.env, classes, 2, 1), "lar_schema_apply")
        self.person, self.address = self.db.class_id("Person"), self.db.class_id("Address")
        self.address_prop, self.past = self.db.prop(self.person, "address"), self.db.prop(self.person, "past")

    def tearDown(self):
        try:
            self.db.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def address_values(self, vals, street, city):
        arr = (LarValue * 2)()
        arr[0], arr[1] = vals.one(LAR_TYPE_STRING, street), vals.one(LAR_TYPE_STRING, city)
        return arr

    def test_create_in_place_read_back_and_replace(self):
        vals = Values()
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            ann = LarObj()
            check(lib.lar_obj_create(txn, self.person, None, 0, byref(ann)), "create person")
            self.assertEqual(lib.lar_obj_create(txn, self.address, None, 0, None), LAR_EINVAL)
            self.assertIn(b"Embedded objects cannot be created directly", lib.lar_error_last().contents.message)
            home = LarObj()
            check(lib.lar_obj_create_embedded(txn, ann, self.address_prop,
                                              self.address_values(vals, "1 Main St", "Springfield"), 2,
                                              byref(home)), "lar_obj_create_embedded")
            old = LarObj()
            check(lib.lar_list_insert_embedded(txn, ann, self.past, 0, self.address_values(vals, "0 Old Rd", "X"), 2,
                                               byref(old)), "lar_list_insert_embedded")
            self.assertEqual(lib.lar_list_append(txn, ann, self.past, byref(LinkAndListTests.link(home))), LAR_EINVAL)
            self.assertIn(b"Cannot add an existing managed embedded object to a List.",
                          lib.lar_error_last().contents.message)
            check(lib.lar_txn_commit(txn), "commit")
        finally:
            lib.lar_txn_free(txn)
        self.db.close()
        self.db = Database(self.path)
        txn = self.db.begin()
        try:
            v = LarValue()
            check(lib.lar_obj_get(txn, ann, self.address_prop, byref(v)), "lar_obj_get")
            self.assertEqual((v.type, v.as_.link.cls), (LAR_TYPE_LINK, self.address))
            link = LarObj(v.as_.link.cls, v.as_.link.key)
            check(lib.lar_obj_get(txn, link, 0, byref(v)), "lar_obj_get street")
            self.assertEqual(to_python(v), "1 Main St")
            check(lib.lar_obj_get(txn, link, 1, byref(v)), "lar_obj_get city")
            self.assertEqual(to_python(v), "Springfield")
            cinfo = LarClassInfo()
            check(lib.lar_class_info_get(self.db.env, self.address, byref(cinfo)), "lar_class_info_get")
            self.assertEqual(cinfo.flags, LAR_CLASS_EMBEDDED)
        finally:
            end(txn)
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            check(lib.lar_obj_create_embedded(txn, ann, self.address_prop, None, 0, None), "replace")
            exists = c_int()
            check(lib.lar_obj_exists(txn, link, byref(exists)), "lar_obj_exists")
            self.assertEqual(exists.value, 0)  # the replaced address was deleted
            check(lib.lar_obj_delete(txn, ann), "lar_obj_delete")
            n = c_uint64()
            check(lib.lar_objects_count(txn, self.address, byref(n)), "lar_objects_count")
            self.assertEqual(n.value, 0)  # deleting the owner deleted its embedded objects
        finally:
            end(txn)

    def test_create_an_owner_with_its_embedded_object_in_one_call(self):
        vals = Values()
        txn = self.db.begin(LAR_TXN_WRITE)
        try:
            person = (LarValue * 3)(vals.one(LAR_TYPE_STRING, "Bo"), LarValue(), LarValue())
            init = LarEmbeddedInit(self.address_prop, self.address_values(vals, "2 Elm St", "Shelbyville"), 2)
            bo, home = LarObj(), LarObj()
            check(lib.lar_obj_create_with_embedded(txn, self.person, person, 3, byref(init), 1, byref(bo), byref(home)),
                  "lar_obj_create_with_embedded")
            twice = (LarEmbeddedInit * 2)(init, init)
            self.assertEqual(lib.lar_obj_create_with_embedded(txn, self.person, person, 3, twice, 2, None, None),
                             LAR_EINVAL)
            self.assertIn(b"is named twice", lib.lar_error_last().contents.message)
            check(lib.lar_txn_commit(txn), "commit")
        finally:
            lib.lar_txn_free(txn)
        txn = self.db.begin()
        try:
            v = LarValue()
            check(lib.lar_obj_get(txn, bo, self.address_prop, byref(v)), "lar_obj_get")
            self.assertEqual((v.type, v.as_.link.cls, v.as_.link.key), (LAR_TYPE_LINK, self.address, home.key))
            check(lib.lar_obj_get(txn, home, 1, byref(v)), "lar_obj_get city")
            self.assertEqual(to_python(v), "Shelbyville")
            n = c_uint64()
            check(lib.lar_objects_count(txn, self.person, byref(n)), "lar_objects_count")
            self.assertEqual(n.value, 1)  # the refused call created nothing
        finally:
            end(txn)


def main():
    global LIB_PATH, SHARED_PATH, lib
    if len(sys.argv) < 3 or sys.argv[1].startswith("-") or sys.argv[2].startswith("-"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    LIB_PATH, SHARED_PATH = sys.argv[1], sys.argv[2]
    try:
        lib = load_library(LIB_PATH)
    except (OSError, AttributeError) as e:
        print(f"test_ffi: cannot load {LIB_PATH}: {e}", file=sys.stderr)
        return 1
    print(f"test_ffi: {LIB_PATH} (Larder {lib.lar_version(None, None, None).decode()}), "
          f"shared file {SHARED_PATH}")
    program = unittest.main(argv=[sys.argv[0]] + sys.argv[3:], exit=False, verbosity=2)
    result = program.result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    print(f"test_ffi: {passed} passed, {len(result.failures)} failed, {len(result.errors)} errors, "
          f"{len(result.skipped)} skipped")
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
