#!/usr/bin/env python3
"""Writes the seed programs of fuzz_api (Tests/fuzz/corpus/fuzz_api) in the byte
language of Tests/fuzz/fuzz_api.c, so the fuzzer starts from programs that get
past the schema and reach objects, iterators, finds and damaged rows.

Run from the repository root: python3 Tests/fuzz/make_seeds.py"""
import os
import struct

# Opcodes: positions in fuzz_api.c's OPERATIONS.
SCHEMA, BEGIN, END, CREATE, GET, SET, DELETE, FIND, ITER_OPEN, ITER_BIND, ITER_STEP, ITER_CLOSE, \
    LOOKUP, REOPEN, DAMAGE, BACKLINKS, LIST_OP, LIST_FILL, SET_ELEMENTS, MAP_OP, SET_FILL, NESTED_OP, \
    EMBEDDED, QUERY, RESULTS, RESULTS_FROM_KEYS, CHANGES, RESULTS_UPDATE, WATCH, KEYED_CHANGES, \
    COMMIT_SYNC, ELEMENT_CHANGES, AGGREGATES, RUN_KEYS, COPY, ITER_FOLLOW = range(36)
LIST, SET_OF, MAP = 1, 2, 3
HAS_TARGET = 0x40
NAMES = ["Person", "Dog", "id", "name", "age", "score", "tag", "owner", "x", "y", "hé", "𝄞"]
INT, BOOL, FLOAT, DOUBLE, STRING, BINARY, TIMESTAMP, OBJECT_ID, UUID, DECIMAL, LINK, MIXED = range(1, 13)
OPTIONAL, PRIMARY, INDEXED, CASCADE = 1, 2, 4, 8
COMMIT, ABORT, RENEW, STATE, FREE = range(5)


def name(n):
    return bytes([NAMES.index(n)])


def raw_name(data):
    return bytes([200, len(data)]) + data


def prop(pname, ptype, flags=0):
    return bytes([ptype, 0, flags]) + (name(pname) if isinstance(pname, str) else raw_name(pname))


def link_prop(pname, target, collection=0, flags=OPTIONAL):
    return bytes([LINK, collection, flags | HAS_TARGET]) + name(pname) + name(target)


def collection_prop(pname, ptype, collection, flags=0):
    return bytes([ptype, collection, flags]) + name(pname)


def val_link(obj):
    return bytes([LINK, obj])


def backlinks_count(slot, obj, cls, prop_index):
    return bytes([BACKLINKS, slot, obj, cls, prop_index, 1])


def backlinks_list(slot, obj, cls, prop_index, capacity):
    return bytes([BACKLINKS, slot, obj, cls, prop_index, capacity * 2])


def list_op(slot, obj, prop_index, how, index=0, other=0, value=b"\x00" + bytes(16)):
    return bytes([LIST_OP, slot, obj, prop_index, how, index, other]) + value


def list_fill(slot, obj, prop_index, eighths, value):
    return bytes([LIST_FILL, slot, obj, prop_index, eighths]) + value


def set_op(slot, obj, other, prop_index, other_prop, how, value=b"\x00" + bytes(16)):
    return bytes([SET_ELEMENTS, slot, obj, other, prop_index, other_prop, how]) + value


def set_fill(slot, obj, prop_index, how, eighths, value):
    return bytes([SET_FILL, slot, obj, prop_index, how, eighths]) + value


def map_op(slot, obj, prop_index, how, key=0, value=b"\x00" + bytes(16)):
    return bytes([MAP_OP, slot, obj, prop_index, how, key]) + value


# Values asking for a new nested list or dictionary (type bytes 224 and 225 in take_value).
NEW_LIST, NEW_DICT = bytes([224]) + bytes(16), bytes([225]) + bytes(16)
N_OPEN, N_CHILD, N_FORGE, N_LCOUNT, N_LGET, N_LBATCH, N_LINSERT, N_LAPPEND, N_LSET, N_LREMOVE, N_LMOVE, \
    N_CLEAR, N_MCOUNT, N_MGET, N_MPUT, N_MREMOVE, N_MLIST = 0, 2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19


def nested(slot, how, coll, other=0, index=0, to=0, key=0, value=b"\x00" + bytes(16), tail=b""):
    """One op_nested on handle coll (other: where a derived handle goes); tail: the bytes a case
    reads last (N_OPEN: object and property)."""
    return bytes([NESTED_OP, slot, how, coll, other, index, to, key]) + value + tail


def embedded(slot, owner, prop_index, how, index=0, key=0, values=None):
    """how: 0 to-one link, 1 list insert, 2 list set, 3 map put; values None: the defaults."""
    # A count of 9 passes NULL, after reading (and ignoring) 9 values, as create does.
    vals = bytes([9]) + val_null() * 9 if values is None else bytes([len(values)]) + b"".join(values)
    return bytes([EMBEDDED, slot, owner, prop_index, how, index, key]) + vals


def schema(classes, version=1):
    out = bytes([SCHEMA, len(classes)])
    for cname, props in classes:
        out += bytes([len(props)]) + b"".join(props) + name(cname)
    return out + bytes([0, version])


def begin(slot, write):
    return bytes([BEGIN, slot, 1 if write else 0])


def end(slot, how):
    return bytes([END, slot, how])


def val_int(i):
    return bytes([INT]) + struct.pack(">q", i)


def val_double_bits(bits):
    return bytes([DOUBLE]) + struct.pack(">Q", bits)


def val_str(data, form=0):
    return bytes([STRING, form, len(data)]) + data


def val_bin(data, form=0):
    return bytes([BINARY, form, len(data)]) + data


def val_null():
    return bytes([0]) + bytes(16)  # null takes the 16 bytes of the fixed-width types


def val_fixed(vtype, fill):
    return bytes([vtype]) + bytes([fill]) * 16


def val_ts(seconds, nanos):
    return bytes([TIMESTAMP]) + struct.pack(">qi", seconds, nanos)


def create(slot, cls, values):
    return bytes([CREATE, slot, cls, len(values)]) + b"".join(values)


def get(slot, obj, prop_index):
    return bytes([GET, slot, obj, 1, prop_index])


def get_all(slot, obj, count):
    return bytes([GET, slot, obj, count * 2])


def set_value(slot, obj, prop_index, value):
    return bytes([SET, slot, obj, prop_index]) + value


def find(slot, cls, key):
    return bytes([FIND, slot, cls]) + key


def damage(obj, row):
    return bytes([DAMAGE, 0, obj, len(row)]) + row + bytes([0])  # 0: an 8-byte key


META_SCHEMA, META_GENERATION, META_VERSION, META_FORMAT, META_NEXT_KEY = range(5)


def damage_meta(which, data, obj=0):
    return bytes([DAMAGE, 1, obj, len(data)]) + data + bytes([which])


def stored_string(text):
    return struct.pack("<I", len(text)) + text if text is not None else struct.pack("<I", 0xFFFFFFFF)


def stored_schema(classes):
    """The stored schema's form (see CCore/schema.c): classes of (name, flags, properties),
    properties of (name, type, collection, flags, target, origin)."""
    out = struct.pack("<I", len(classes))
    for cname, flags, props in classes:
        out += stored_string(cname) + struct.pack("<II", flags, len(props))
        for pname, ptype, collection, pflags, target, origin in props:
            out += stored_string(pname) + struct.pack("<BBI", ptype, collection, pflags)
            out += stored_string(target) + stored_string(origin)
    return out


def iter_open(it, slot, cls):
    return bytes([ITER_OPEN, it, slot, cls])


def bind(it, kind, prop_index, at):
    return bytes([ITER_BIND, it, kind, prop_index, at])


def step(it, how, capacity=0, stride=0):
    return bytes([ITER_STEP, it, how, capacity, stride])


PERSON = ("Person", [prop("id", INT, PRIMARY), prop("name", STRING), prop("age", INT, OPTIONAL),
                     prop("score", DOUBLE)])
DOG = ("Dog", [prop("name", STRING, PRIMARY), prop("tag", UUID, INDEXED), prop("x", TIMESTAMP, OPTIONAL),
               prop("y", BINARY), prop("owner", DECIMAL)])
ALL = ("x", [prop(n, t, f) for n, t, f in [("id", BOOL, INDEXED), ("name", FLOAT, OPTIONAL),
                                           ("age", OBJECT_ID, 0), ("score", STRING, INDEXED | OPTIONAL),
                                           ("tag", TIMESTAMP, INDEXED)]])


def person(i, text):
    return [val_int(i), val_str(text), val_int(30 + i) if i % 2 else val_null(), val_double_bits(0x3FF8000000000000)]


def dog(i):
    return [val_str(b"rex%d" % i), val_fixed(UUID, i), val_ts(-i, -5), val_bin(b"\x00\xff"), val_fixed(DECIMAL, 7)]


# Dog is class 0 and Person class 1: a Person links to a Dog, a Dog to a Person.
PET = ("Dog", [prop("name", STRING), link_prop("owner", "Person"), collection_prop("tag", INT, LIST, OPTIONAL)])
OWNER = ("Person", [prop("name", STRING), link_prop("x", "Dog"), link_prop("y", "Dog"),
                    link_prop("age", "Dog", SET_OF, 0), link_prop("score", "Dog", MAP)])

# Lists: Owner (class 0) {name, ints: [int], names: [string?], dogs: [Dog]}; Dog (class 1) {name}.
LISTER = ("Person", [prop("name", STRING), collection_prop("x", INT, LIST), collection_prop("y", STRING, LIST, OPTIONAL),
                     link_prop("owner", "Dog", LIST, 0)])
LISTED = ("Dog", [prop("name", STRING)])
COUNT_OP, GET_OP, BATCH_OP, INSERT_OP, APPEND_OP, SET_OP, REMOVE_OP, MOVE_OP, SWAP_OP, CLEAR_OP = 0, 1, 2, 3, 4, 6, 7, 8, 9, 10

# Sets: Person (class 0) {x: set<int>, y: set<int>, name: set<string?>, owner: set<Dog>}; Dog (class 1).
SETTER = ("Person", [collection_prop("x", INT, SET_OF), collection_prop("y", INT, SET_OF),
                     collection_prop("name", STRING, SET_OF, OPTIONAL), link_prop("owner", "Dog", SET_OF, 0)])
S_COUNT, S_CONTAINS, S_INSERT, S_REMOVE, S_CLEAR, S_LIST = 0, 1, 2, 4, 5, 6
S_UNION, S_INTERSECT, S_SUBTRACT, S_SUBSET, S_INTERSECTS = 7, 8, 9, 10, 11

# Maps: Person (class 0) {x: map<int>, name: map<string?>, owner: map<Dog?>}; Dog (class 1).
MAPPER = ("Person", [collection_prop("x", INT, MAP), collection_prop("name", STRING, MAP, OPTIONAL),
                     link_prop("owner", "Dog", MAP, OPTIONAL)])
M_COUNT, M_GET, M_PUT, M_REMOVE, M_CLEAR, M_LIST = 0, 1, 2, 4, 5, 6

# Mixed values: Person (class 0) {x: mixed, y: [mixed], name: set<mixed>, owner: map<mixed>, tag: string};
# Dog (class 1) {name}.
MIXER = ("Person", [prop("x", MIXED), collection_prop("y", MIXED, LIST), collection_prop("name", MIXED, SET_OF),
                    collection_prop("owner", MIXED, MAP), prop("tag", STRING)])
MIXED_VALUES = [val_int(1), val_double_bits(0x3FF0000000000000), val_str(b"s"), val_bin(b"\x00\x01"), val_null(),
                bytes([BOOL]) + struct.pack(">I", 1), bytes([FLOAT]) + struct.pack(">I", 0x3F800000), val_ts(3, 4), val_fixed(OBJECT_ID, 2), val_fixed(UUID, 3),
                val_fixed(DECIMAL, 5), val_link(1), val_link(2), val_fixed(MIXED, 0), val_str(b"\xff")]

# Cascading deletes: Dog (class 0) {name, owner -> Person (cascading)}; Person (class 1)
# {name, x -> Dog (cascading), y -> Dog, age: set<Dog>, score: map<Dog?>, tag: [Dog]}, the
# collections cascading: a cycle (a person's dog owns the person), shared and plain links.
CASCADER_DOG = ("Dog", [prop("name", STRING), link_prop("owner", "Person", 0, OPTIONAL | CASCADE)])
CASCADER = ("Person", [prop("name", STRING), link_prop("x", "Dog", 0, OPTIONAL | CASCADE), link_prop("y", "Dog"),
                       link_prop("age", "Dog", SET_OF, CASCADE), link_prop("score", "Dog", MAP, OPTIONAL | CASCADE),
                       link_prop("tag", "Dog", LIST, CASCADE)])

SEEDS = {
    # Mixed values of every kind in a property, a list, a set (int 1 and double 1.0: one
    # element) and a map; links to objects whose deletion nulls or removes them; a reopen.
    "mixed": bytes([0]) + schema([MIXER, LISTED]) + begin(0, True)
    + create(0, 0, [val_int(7), val_null(), val_null(), val_null(), val_str(b"t")])
    + create(0, 1, [val_str(b"rex")]) + create(0, 1, [val_str(b"fido")])
    + b"".join(set_value(0, 0, 0, v) + get(0, 0, 0) for v in MIXED_VALUES)
    + b"".join(list_op(0, 0, 1, APPEND_OP, 0, 0, v) for v in MIXED_VALUES)
    + b"".join(set_op(0, 0, 0, 2, 0, S_INSERT, v) for v in MIXED_VALUES)
    + b"".join(map_op(0, 0, 3, M_PUT, k, v) for k, v in enumerate(MIXED_VALUES))
    + set_value(0, 0, 0, val_link(1)) + list_op(0, 0, 1, BATCH_OP, 0, 8) + set_op(0, 0, 0, 2, 0, S_LIST + 12 * 5)
    + map_op(0, 0, 3, M_LIST + 7 * 4) + backlinks_count(0, 1, 0, 0) + end(0, COMMIT)
    + begin(1, True) + bytes([DELETE, 1, 0, 1]) + get(1, 0, 0) + list_op(1, 0, 1, COUNT_OP)
    + set_op(1, 0, 0, 2, 0, S_COUNT) + map_op(1, 0, 3, M_GET, 11) + end(1, COMMIT) + bytes([REOPEN, 0])
    + begin(2, False) + get_all(2, 0, 5) + list_op(2, 0, 1, BATCH_OP, 0, 8) + end(2, COMMIT) + end(2, FREE)
    + begin(2, True) + bytes([DELETE, 2, 0, 0]) + end(2, COMMIT),

    # Deletes that cascade through links, lists, sets and maps, around a cycle, to targets
    # held by another owner or by a plain link; then every person deleted at once.
    "cascades": bytes([0]) + schema([CASCADER_DOG, CASCADER]) + begin(0, True)
    + b"".join(create(0, 0, [val_str(b"d%d" % i), val_null()]) for i in range(4))
    + create(0, 1, [val_str(b"ann"), val_link(0), val_link(1), val_null(), val_null(), val_null()])
    + create(0, 1, [val_str(b"bob"), val_link(1), val_link(2), val_null(), val_null(), val_null()])
    + set_value(0, 0, 1, val_link(4)) + list_op(0, 4, 5, APPEND_OP, 0, 0, val_link(2))
    + list_op(0, 4, 5, APPEND_OP, 0, 0, val_link(2)) + set_op(0, 4, 0, 3, 0, S_INSERT, val_link(3))
    + map_op(0, 5, 4, M_PUT, 0, val_link(3)) + map_op(0, 5, 4, M_PUT, 1, val_null()) + end(0, COMMIT)
    + begin(1, True) + bytes([DELETE, 1, 0, 4]) + backlinks_count(1, 3, 1, 4) + get(1, 5, 2)
    + bytes([DELETE, 1, 0, 0]) + bytes([DELETE, 1, 1, 1]) + end(1, COMMIT)
    + begin(0, True) + bytes([DELETE, 0, 0, 5]) + bytes([DELETE, 0, 2, 3, 0]) + end(0, COMMIT),

    # Sets of mixed values over many blocks: ints, then doubles equal to some of them (one
    # element each, the int kept), strings long and short, links; the algebra between two
    # such sets, a listing, a linked Dog deleted, a block damaged.
    "mixed_blocks": bytes([0]) + schema([MIXER, LISTED]) + begin(0, True)
    + create(0, 0, [val_null(), val_null(), val_null(), val_null(), val_str(b"a")])
    + create(0, 0, [val_null(), val_null(), val_null(), val_null(), val_str(b"b")])
    + create(0, 1, [val_str(b"rex")]) + create(0, 1, [val_str(b"fido")])
    + set_fill(0, 0, 2, 1, 200, val_int(-100)) + set_fill(0, 1, 2, 2, 150, val_double_bits(0x4059000000000000))
    + set_fill(0, 0, 2, 0x10, 30, val_str(b"w")) + set_fill(0, 1, 2, 0, 20, val_str(b"w"))
    + set_op(0, 0, 0, 2, 0, S_INSERT, val_link(2)) + set_op(0, 1, 0, 2, 0, S_INSERT, val_link(3))
    + set_op(0, 0, 1, 2, 2, S_UNION) + set_op(0, 0, 0, 2, 0, S_LIST + 12 * 5) + end(0, COMMIT)
    + begin(1, True) + set_op(1, 1, 0, 2, 2, S_INTERSECT) + set_op(1, 0, 1, 2, 2, S_SUBSET)
    + set_fill(1, 0, 2, 3, 60, val_int(-100)) + set_op(1, 0, 1, 2, 2, S_SUBTRACT)
    + bytes([DELETE, 1, 0, 2]) + set_op(1, 0, 0, 2, 0, S_COUNT) + end(1, COMMIT)
    + bytes([DAMAGE, 8, 0, 3, 1, 2, 3, 0, 1, 2, 1]) + begin(2, False) + set_op(2, 0, 0, 2, 0, S_LIST + 12 * 3)
    + end(2, COMMIT) + end(2, FREE),

    # Maps: keys of every kind (rule-breaking ones among them), values, objects whose
    # deletion leaves null, listing after a key; a map entry damaged.
    "maps": bytes([0]) + schema([MAPPER, LISTED]) + begin(0, True)
    + create(0, 0, []) + create(0, 1, [val_str(b"rex")])
    + b"".join(map_op(0, 0, 0, M_PUT, k, val_int(k)) for k in range(8))
    + map_op(0, 0, 1, M_PUT, 0, val_str(b"v")) + map_op(0, 0, 1, M_PUT, 1, val_null())
    + map_op(0, 0, 2, M_PUT, 0, val_link(1)) + map_op(0, 0, 2, M_PUT, 7, val_link(1))
    + map_op(0, 0, 0, M_GET, 3) + map_op(0, 0, 0, M_LIST + 7 * 4) + map_op(0, 0, 0, M_LIST + 7 * 4 + 0x20, 1)
    + map_op(0, 0, 0, M_REMOVE, 0) + map_op(0, 0, 0, M_COUNT) + end(0, COMMIT) + begin(1, True)
    + bytes([DELETE, 1, 0, 1]) + map_op(1, 0, 2, M_LIST + 7 * 3) + map_op(1, 0, 1, M_CLEAR) + end(1, COMMIT)
    + bytes([DAMAGE, 8, 0, 3, 1, 2, 3, 1, 4, 1]) + begin(0, False) + map_op(0, 0, 0, M_LIST + 7 * 5)
    + end(0, COMMIT),

    # Sets filled, listed, combined with another object's set, of objects whose deletion
    # takes them out; a set entry damaged.
    "sets": bytes([0]) + schema([SETTER, LISTED]) + begin(0, True)
    + create(0, 0, []) + create(0, 0, []) + create(0, 1, [val_str(b"rex")])
    + b"".join(set_op(0, 0, 0, 0, 0, S_INSERT, val_int(i)) for i in range(12))
    + b"".join(set_op(0, 1, 0, 1, 0, S_INSERT, val_int(i * 2)) for i in range(8))
    + set_op(0, 0, 0, 2, 0, S_INSERT, val_str(b"w")) + set_op(0, 0, 0, 2, 0, S_INSERT, val_null())
    + set_op(0, 0, 0, 3, 0, S_INSERT, val_link(2)) + set_op(0, 0, 1, 0, 1, S_UNION)
    + set_op(0, 0, 1, 0, 1, S_SUBSET) + set_op(0, 0, 1, 0, 1, S_INTERSECT) + set_op(0, 0, 1, 0, 1, S_SUBTRACT)
    + set_op(0, 0, 1, 0, 1, S_INTERSECTS) + set_op(0, 0, 0, 0, 0, S_LIST + 12 * 5) + set_op(0, 0, 0, 0, 0, S_CONTAINS, val_int(3))
    + set_op(0, 0, 0, 0, 0, S_REMOVE, val_int(4)) + end(0, COMMIT) + begin(1, True) + bytes([DELETE, 1, 0, 2])
    + set_op(1, 0, 0, 3, 0, S_COUNT) + set_op(1, 1, 0, 1, 0, S_CLEAR) + end(1, COMMIT)
    + bytes([DAMAGE, 8, 0, 3, 1, 2, 3, 1, 5, 1]) + begin(0, False) + set_op(0, 0, 0, 0, 0, S_LIST + 12 * 3)
    + end(0, COMMIT),

    # Sets of hundreds of blocks: ints by steps of 2 and 3, combined; long strings (two to a
    # block) inserted, then every other removed; a block damaged.
    "set_blocks": bytes([0]) + schema([SETTER, LISTED]) + begin(0, True)
    + create(0, 0, []) + create(0, 0, []) + set_fill(0, 0, 0, 1, 250, val_int(-100))
    + set_fill(0, 1, 0, 2, 250, val_int(0)) + set_op(0, 0, 1, 0, 0, S_UNION) + set_op(0, 0, 1, 0, 0, S_SUBSET)
    + set_op(0, 1, 0, 0, 0, S_INTERSECT) + set_op(0, 1, 0, 0, 0, S_LIST + 12 * 5) + end(0, COMMIT)
    + begin(1, True) + set_fill(1, 0, 2, 0x10, 40, val_str(b"w")) + set_fill(1, 0, 2, 0x13, 20, val_str(b"w"))
    + set_fill(1, 0, 0, 3, 100, val_int(-100)) + set_op(1, 0, 1, 0, 0, S_SUBTRACT) + set_op(1, 0, 1, 0, 0, S_INTERSECTS)
    + end(1, COMMIT) + bytes([DAMAGE, 8, 0, 3, 1, 2, 3, 0, 1, 0x80, 1]) + begin(2, True)
    + set_op(2, 0, 0, 0, 0, S_LIST + 12 * 3) + set_fill(2, 0, 0, 1, 30, val_int(0)) + set_op(2, 0, 0, 0, 0, S_CLEAR)
    + end(2, COMMIT),

    # Lists grown past one leaf, read in batches, changed at every position, of objects
    # whose deletion takes them out; a list node damaged.
    "lists": bytes([0]) + schema([LISTER, LISTED]) + begin(0, True)
    + create(0, 0, [val_str(b"ann"), val_null(), val_null(), val_null()]) + create(0, 1, [val_str(b"rex")])
    + list_fill(0, 0, 1, 40, val_int(5)) + list_op(0, 0, 1, GET_OP, 7) + list_op(0, 0, 1, BATCH_OP, 60, 8)
    + list_op(0, 0, 1, INSERT_OP, 3, 0, val_int(9)) + list_op(0, 0, 1, SET_OP, 70, 0, val_int(1))
    + list_op(0, 0, 1, MOVE_OP, 1, 50) + list_op(0, 0, 1, SWAP_OP, 2, 60) + list_op(0, 0, 1, REMOVE_OP, 4)
    + list_op(0, 0, 2, APPEND_OP, 0, 0, val_str(b"hi")) + list_op(0, 0, 2, APPEND_OP, 0, 0, val_null())
    + list_op(0, 0, 3, APPEND_OP, 0, 0, val_link(1)) + list_op(0, 0, 3, APPEND_OP, 0, 0, val_link(1))
    + list_op(0, 0, 3, APPEND_OP, 0, 0, val_link(0)) + list_op(0, 0, 1, COUNT_OP) + end(0, COMMIT)
    + begin(1, True) + bytes([DELETE, 1, 0, 1]) + list_op(1, 0, 3, COUNT_OP) + list_op(1, 0, 1, CLEAR_OP)
    + end(1, COMMIT) + bytes([DAMAGE, 7, 0, 3, 1, 0, 0, 1, 1]) + begin(0, False) + list_op(0, 0, 2, BATCH_OP, 0, 4)
    + end(0, COMMIT),

    # Links written, read, changed to the wrong class and to deleted objects; backlinks
    # counted and listed; targets deleted one by one and all at once; a backlink damaged.
    "links": bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, [val_str(b"rex"), val_null(), val_null()]) + create(0, 0, [val_str(b"fido"), val_null(), val_null()])
    + create(0, 1, [val_str(b"ann"), val_link(0), val_link(1), val_null(), val_null()])
    + create(0, 1, [val_str(b"bob"), val_link(0), val_null(), val_null(), val_null()])
    + set_value(0, 0, 1, val_link(2)) + set_value(0, 2, 2, val_link(0)) + set_value(0, 2, 1, val_link(3))
    + get(0, 2, 1) + get_all(0, 3, 5) + backlinks_count(0, 0, 1, 1) + backlinks_list(0, 0, 1, 1, 1)
    + backlinks_list(0, 1, 1, 2, 4) + end(0, COMMIT) + begin(1, True) + bytes([DELETE, 1, 0, 0])
    + get(1, 2, 1) + set_value(1, 3, 1, val_link(0)) + backlinks_count(1, 2, 0, 1)
    + bytes([DELETE, 1, 1, 0]) + end(1, COMMIT) + bytes([DAMAGE, 6, 2, 2, 0, 1, 12]) + bytes(12) + bytes([1])
    + begin(0, True) + bytes([DELETE, 0, 2, 0]) + backlinks_list(0, 1, 1, 2, 2) + end(0, COMMIT),

    # Objects of every type written, read back, changed, found and deleted.
    "objects": bytes([0]) + schema([PERSON, DOG, ALL]) + begin(0, True)
    + create(0, 0, person(1, b"ada")) + create(0, 0, person(2, "h\u00e9".encode()))
    + create(0, 1, dog(1)) + create(0, 1, dog(2)) + create(0, 2, []) + create(0, 0, [])
    + get(0, 0, 1) + get_all(0, 1, 4) + set_value(0, 0, 2, val_int(5)) + set_value(0, 2, 1, val_fixed(UUID, 9))
    + find(0, 0, val_int(2)) + find(0, 1, val_str(b"rex1")) + end(0, COMMIT)
    + begin(1, False) + get_all(1, 0, 4) + get(1, 2, 4) + find(1, 1, val_str(b"rex2"))
    + bytes([DELETE, 1, 0, 0]) + end(1, COMMIT) + end(1, RENEW) + get(1, 1, 3) + end(1, FREE)
    + begin(0, True) + bytes([DELETE, 0, 0, 0]) + bytes([DELETE, 0, 1, 1]) + end(0, COMMIT),
    # Wrong types, invalid UTF-8, NULL data, too-long keys, bad timestamps, out-of-range indices.
    "bad_values": bytes([0]) + schema([PERSON, DOG]) + begin(0, True)
    + create(0, 0, [val_int(1), val_int(2), val_null(), val_int(3)])
    + create(0, 0, [val_int(1), val_str(b"\xff\xfe"), val_null(), val_int(3)])
    + create(0, 0, [val_int(1), val_str(b"abc", 2), val_null(), val_int(3)])
    + create(0, 1, [val_str(b"", 3), val_fixed(UUID, 1), val_ts(5, -1), val_bin(b"", 2), val_fixed(DECIMAL, 0)])
    + create(0, 0, person(3, b"ok")) + create(0, 0, person(3, b"again"))
    + get(0, 0, 9) + get_all(0, 0, 3) + set_value(0, 0, 0, val_int(4)) + set_value(0, 0, 1, val_str(b"x", 4))
    + find(0, 0, val_str(b"x", 2)) + find(0, 1, val_str(b"\xc0\xaf")) + find(0, 5, val_int(1))
    + create(0, 250, []) + end(0, COMMIT) + create(0, 0, person(4, b"ended")) + get(0, 0, 1) + end(0, FREE),
    # Iterators: bindings of each kind, batches of odd capacities and strides, seeks, ended transactions.
    "iterators": bytes([1]) + schema([PERSON]) + begin(0, True)
    + b"".join(create(0, 0, person(i, b"p%d" % i)) for i in range(6)) + end(0, COMMIT) + begin(1, False)
    + iter_open(0, 1, 0) + bind(0, 0, 0, 0) + bind(0, 1, 3, 1) + bind(0, 2, 1, 4) + step(0, 0)
    + step(0, 2, 3, 3) + step(0, 2, 8, 0) + step(0, 3, 2) + step(0, 1 + 4 * 4) + step(0, 2, 1, 255)
    + iter_open(1, 1, 0) + bind(1, 2, 2, 2) + bind(1, 252, 0, 3) + step(1, 2, 7, 32) + end(1, COMMIT) + step(1, 0)
    + bind(1, 0, 0, 0) + bind(1, 252, 0, 0)
    + bytes([ITER_CLOSE, 1]) + begin(2, True) + iter_open(2, 2, 0) + step(2, 1 + 16)
    + create(2, 0, person(9, b"during")) + step(2, 2, 4, 24) + end(2, ABORT) + step(2, 0),
    # Schemas refused: invalid UTF-8 names, unknown types and flags, collections, links, two keys, huge counts.
    "schemas": bytes([0]) + schema([("Person", [prop(b"\xff", INT)]), ("Dog", [prop("x", 14)])])
    + schema([("Dog", [prop("x", LINK)])]) + schema([("Dog", [prop("x", INT, PRIMARY), prop("y", INT, PRIMARY)])])
    + schema([("Dog", [prop("x", DOUBLE, PRIMARY)])]) + schema([("Dog", [prop("x", FLOAT, INDEXED)])])
    + bytes([SCHEMA, 1, 249]) + b"".join(prop(n, INT) for n in ["x", "y", "id", "name", "age", "score"])
    + name("Dog") + bytes([0, 0]) + bytes([SCHEMA, 0, 255, 1]) + schema([PERSON], 2) + schema([PERSON], 1)
    + schema([("Person", [prop("id", INT, PRIMARY)])], 3) + bytes([LOOKUP, 0, 0, 0, LOOKUP, 3, 0, 0, 200])
    + bytes([LOOKUP, 1, 241, 0, LOOKUP, 2, 0, 3, LOOKUP, 4, 0, 0]),
    # Damaged rows read through every path, a reopen, and a second reference to the file.
    "damaged": bytes([0]) + schema([PERSON]) + begin(0, True) + create(0, 0, person(1, b"someone"))
    + create(0, 0, person(2, b"other")) + end(0, COMMIT) + end(0, FREE)
    + damage(0, struct.pack("<qII", 1, 33, 7) + bytes(17) + b"someoneX")
    + begin(0, False) + get(0, 0, 1) + get_all(0, 0, 4) + iter_open(0, 0, 0) + bind(0, 2, 1, 0)
    + step(0, 2, 2, 24) + end(0, COMMIT) + bytes([REOPEN, 1]) + begin(1, True) + set_value(1, 0, 2, val_int(3))
    + bytes([DELETE, 1, 0, 0]) + end(1, COMMIT) + damage(1, b"bad") + begin(0, False)
    + get_all(0, 1, 4) + end(0, FREE),
    # A stored schema no program could declare: collections, mixed, links, unknown types and flags,
    # a double primary key, duplicate names; then objects written and read under it.
    "stored_schema": bytes([0]) + schema([PERSON, DOG]) + begin(0, True) + create(0, 0, person(1, b"a"))
    + create(0, 1, dog(1)) + end(0, COMMIT) + end(0, FREE)
    + damage_meta(META_SCHEMA, stored_schema([
        (b"Person", 0, [(b"id", DOUBLE, 0, PRIMARY, None, None), (b"name", STRING, 1, 0, None, None),
                        (b"age", 12, 0, OPTIONAL, None, None), (b"x", 200, 3, 0xFF, b"Dog", b"y")]),
        (b"Dog", 1, [(b"name", STRING, 0, INDEXED, None, None), (b"name", LINK, 0, 0, b"Person", None)])]))
    + begin(0, True) + get_all(0, 0, 4) + get(0, 0, 1) + get(0, 1, 1) + create(0, 0, [])
    + create(0, 1, []) + set_value(0, 0, 1, val_str(b"q")) + find(0, 0, val_double_bits(0))
    + iter_open(0, 0, 1) + step(0, 1 + 4 * 2) + bytes([DELETE, 0, 0, 0]) + end(0, COMMIT)
    + damage_meta(META_NEXT_KEY, b"\x01\x02\x03") + begin(0, True) + create(0, 0, person(7, b"b")) + end(0, COMMIT),
    # Nested collections in mixed values: a list in the property, a dictionary in it, a list
    # in that with links and strings; a dictionary in a list property; handles derived from
    # values read; links whose target is deleted; the property replaced (handles go stale);
    # a reopen and reads through the stale and the live handles; a forged handle.
    "nested": bytes([0]) + schema([MIXER, LISTED]) + begin(0, True)
    + create(0, 0, [NEW_LIST, val_null(), val_null(), val_null(), val_str(b"t")])
    + create(0, 1, [val_str(b"rex")]) + create(0, 1, [val_str(b"fido")])
    + nested(0, N_OPEN, 0, tail=bytes([0, 0]))                        # colls[0]: Person.x's list
    + nested(0, N_LAPPEND, 0, value=val_int(5)) + nested(0, N_LAPPEND, 0, value=NEW_DICT)
    + nested(0, N_CHILD, 0, other=1, index=1)                          # colls[1]: the dictionary
    + nested(0, N_MPUT, 1, key=0, value=NEW_LIST) + nested(0, N_MPUT, 1, key=1, value=val_link(1))
    + nested(0, N_CHILD, 1, other=2, key=0)                            # colls[2]: its list at "a"
    + b"".join(nested(0, N_LAPPEND, 2, value=v) for v in [val_link(1), val_str(b"s"), val_link(2), NEW_DICT])
    + nested(0, N_LINSERT, 2, index=0, value=NEW_LIST) + nested(0, N_LMOVE, 2, index=0, to=3)
    + nested(0, N_OPEN, 3, tail=bytes([0, 1]))                         # colls[3]: Person.y, a list property
    + nested(0, N_LAPPEND, 3, value=NEW_DICT) + nested(0, N_CHILD, 3, other=4, index=0)
    + nested(0, N_MPUT, 4, key=7, value=val_link(2)) + nested(0, N_MPUT, 4, key=1, value=NEW_LIST)
    + nested(0, N_OPEN, 5, tail=bytes([0, 3])) + nested(0, N_MPUT, 5, key=2, value=NEW_DICT)
    + set_op(0, 0, 0, 2, 0, S_INSERT, NEW_LIST)                        # refused: a set
    + nested(0, N_LBATCH, 2, to=8) + nested(0, N_MLIST, 1, to=8) + end(0, COMMIT)
    + begin(1, True) + bytes([DELETE, 1, 0, 1]) + nested(1, N_LCOUNT, 2) + nested(1, N_MGET, 1, key=1)
    + nested(1, N_MGET, 4, key=7) + nested(1, N_LREMOVE, 2, index=0) + nested(1, N_LSET, 0, index=0, value=NEW_LIST)
    + set_value(1, 0, 0, val_int(3)) + nested(1, N_LCOUNT, 0) + nested(1, N_MCOUNT, 1)
    + nested(1, N_MREMOVE, 4, key=1) + nested(1, N_CLEAR + 60, 3)      # with 0x40: the list clear
    + end(1, COMMIT) + bytes([REOPEN, 0])
    + begin(2, False) + nested(2, N_LCOUNT, 2) + nested(2, N_MLIST, 5, to=8)
    + nested(2, N_FORGE + 40, 5, value=NEW_LIST) + bytes([3, 3])          # with 0x20: forges id 3
    + nested(2, N_LCOUNT, 5) + nested(2, N_MCOUNT, 5) + end(2, COMMIT) + end(2, FREE)
    + end(0, FREE) + begin(0, True) + bytes([DELETE, 0, 0, 0]) + nested(0, N_MCOUNT, 5) + end(0, COMMIT),
}


# Embedded objects: Person {name, owner -> Dog?, tag: [Dog], x: [String: Dog?]}, Dog embedded
# {age} (a class shape of 253: one property, the embedded flag). Created in place in each
# owner kind, replaced, removed, linked a second time (refused), the owner deleted.
EMBEDDED_SCHEMA = (bytes([SCHEMA, 2, 4]) + prop("name", STRING) + link_prop("owner", "Dog")
                   + link_prop("tag", "Dog", LIST, 0) + link_prop("x", "Dog", MAP) + name("Person")
                   + bytes([253]) + prop("age", INT) + name("Dog") + bytes([0, 1]))
SEEDS["embedded"] = (bytes([0]) + EMBEDDED_SCHEMA + begin(0, True)
    + create(0, 0, [val_str(b"ann"), val_null(), val_null(), val_null()])
    + embedded(0, 0, 1, 0, values=[val_int(3)]) + embedded(0, 0, 1, 0)
    + embedded(0, 0, 2, 1, 0) + embedded(0, 0, 2, 1, 1, values=[val_int(5)]) + embedded(0, 0, 2, 2, 0)
    + embedded(0, 0, 3, 3, 0, 0) + embedded(0, 0, 3, 3, 0, 0) + embedded(0, 0, 3, 3, 0, 1)
    + set_value(0, 0, 1, val_link(1)) + list_op(0, 0, 2, 7, 0) + map_op(0, 0, 3, 4, 1)
    + create(0, 1, []) + end(0, COMMIT)
    + begin(1, True) + get(1, 1, 0) + bytes([DELETE, 1, 0, 0]) + bytes([DELETE, 1, 2, 0, 1]) + end(1, COMMIT))

# Walking owners with their embedded objects (lar_iter_follow): Person's "owner" (1 value)
# followed by each next_all (how 17: 4 values), a second owner without one, a bad count,
# following stopped (250), then the same in a write.
SEEDS["iter_follow"] = (bytes([0]) + EMBEDDED_SCHEMA + begin(0, True)
    + create(0, 0, [val_str(b"ann"), val_null(), val_null(), val_null()])
    + embedded(0, 0, 1, 0, values=[val_int(3)])
    + create(0, 0, [val_str(b"bob"), val_null(), val_null(), val_null()]) + end(0, COMMIT)
    + begin(1, False) + iter_open(0, 1, 0) + bytes([ITER_FOLLOW, 0, 1, 1]) + step(0, 17) + step(0, 17)
    + bytes([ITER_FOLLOW, 0, 2, 1]) + bytes([ITER_FOLLOW, 0, 250, 1]) + step(0, 17) + bytes([ITER_CLOSE, 0])
    + begin(2, True) + iter_open(1, 2, 0) + bytes([ITER_FOLLOW, 1, 1, 1]) + step(1, 17) + step(1, 17)
    + end(2, ABORT))


# Queries (fuzz_api.c's op_query): run (how 0; which picks QUERY_TEXTS, 200 and up the
# text given), read (1), is_current (2), iterate into an iterator slot (3), free (4).
# A run that succeeds then folds a key path (fold: KEY_PATHS index, operation) both by
# lar_results_aggregate and by lar_query_run_aggregate.
Q_RUN, Q_READ, Q_CURRENT, Q_ITER, Q_FREE = range(5)


def query(slot, how, txn, cls, which=0, text=b"", value=val_int(0), fold=(1, 4)):
    tail = bytes(fold) if how % 5 == Q_RUN else b""
    return bytes([QUERY, slot, how, txn, cls, which, len(text)]) + text + value + tail


SEEDS["query"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, [val_str(b"Rex"), val_null(), val_null()]) + create(0, 0, [val_str(b"r\xc3\xa9x"), val_null(), val_null()])
    + create(0, 1, [val_str(b"ann"), val_link(0), val_link(1), val_null(), val_null()])
    + set_value(0, 0, 1, val_link(2)) + list_op(0, 0, 2, APPEND_OP, 0, 0, val_int(3))
    + query(0, Q_RUN, 0, 0, 0) + query(0, Q_READ, 0, 0) + query(0, Q_CURRENT, 0, 0)
    + query(1, Q_RUN, 0, 0, 4) + query(2, Q_RUN, 0, 0, 6) + query(3, Q_RUN, 0, 0, 14)
    + query(1, Q_RUN, 0, 0, 12, value=val_str(b"E")) + query(2, Q_RUN, 0, 1, 200, b"x.name BEGINSWITH[c] 'r' AND name != nil")
    + query(2, Q_ITER, 0, 0, 0) + step(0, 2, 4, 1) + query(3, Q_READ, 0, 0)
    + set_value(0, 1, 0, val_str(b"fido")) + query(0, Q_CURRENT, 0, 0) + end(0, COMMIT)
    + query(0, Q_CURRENT, 0, 0) + begin(1, False) + query(0, Q_CURRENT, 1, 0) + query(0, Q_RUN, 1, 0, 3)
    + query(0, Q_ITER, 1, 0, 1) + step(1, 0) + step(1, 2, 8, 2) + end(1, FREE) + query(0, Q_READ, 0, 0)
    + query(0, Q_FREE, 0, 0) + query(1, Q_FREE, 0, 0))


# Results (op_results): key paths by their index in fuzz_api.c's KEY_PATHS.
KP = {k: i for i, k in enumerate(["name", "age", "score", "owner", "owner.name", "owner.age", "owner.owner.name",
                                  "tag", "x", "y", "id", "x.name", "y.age", "owner.x.score", "@links.Person.owner",
                                  "name.@count", "tag.@max", "x['k']", "x.@type", "name ASC", "", "hé", "owner.tag"])}
A_COUNT, A_MIN, A_MAX, A_SUM, A_AVERAGE = range(1, 6)


def r_sort(*descriptors):
    return bytes([0, len(descriptors)]) + b"".join(bytes([KP[k], asc]) for k, asc in descriptors)


def r_distinct(*paths):
    return bytes([1, len(paths)]) + b"".join(bytes([KP[k], 0]) for k in paths)


def r_limit(n):
    return bytes([2, 0, n])


def r_aggregate(path, op):
    return bytes([3, 0, KP[path], op])


def results(slot, cls, *actions, keys=None):
    """Results of every object of cls (keys None) or of objects picked from the program."""
    source = bytes([0]) if keys is None else bytes([len(keys) * 2 + 1]) + bytes(keys)
    return bytes([RESULTS, slot, cls]) + source + bytes([0, len(actions)]) + b"".join(actions)


# Sorted, made distinct, limited and aggregated: through links, a nil link on the way, errors
# (a list, a link, an unknown property), a deleted object among forged keys, mixed values.
SEEDS["results"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, [val_str(b"rex"), val_null(), val_null()]) + create(0, 0, [val_str(b"Fido"), val_null(), val_null()])
    + create(0, 0, [val_str(b"\xc3\xa9mile"), val_null(), val_null()])
    + create(0, 1, [val_str(b"ann"), val_link(0), val_link(1), val_null(), val_null()])
    + create(0, 1, [val_str(b"bob"), val_link(0), val_null(), val_null(), val_null()])
    + set_value(0, 0, 1, val_link(3)) + set_value(0, 1, 1, val_link(4))
    + results(0, 0, r_sort(("name", 1)), r_sort(("owner.name", 0), ("name", 1)), r_distinct("owner.name"), r_limit(1))
    + results(0, 0, r_sort(("tag", 1)), r_sort(("owner", 1)), r_sort(("owner.x.score", 1)), r_distinct("id"))
    + results(0, 1, r_sort(("x.name", 0)), r_aggregate("name", A_COUNT), r_aggregate("name", A_MAX), r_aggregate("age", A_SUM))
    + bytes([DELETE, 0, 0, 0]) + results(0, 0, r_sort(("name", 1)), keys=[1, 0, 2]) + end(0, COMMIT))
SEEDS["results_mixed"] = (bytes([0]) + schema([MIXER, LISTED]) + begin(0, True)
    + b"".join(create(0, 0, [v, val_null(), val_null(), val_null(), val_str(b"t")]) for v in MIXED_VALUES[:11])
    + results(0, 0, r_sort(("x", 1)), r_aggregate("x", A_SUM), r_aggregate("x", A_AVERAGE), r_aggregate("x", A_MIN),
              r_aggregate("x", A_MAX))
    + results(0, 0, r_distinct("x"), r_aggregate("x", A_COUNT), r_sort(("tag", 0), ("x", 0))) + end(0, COMMIT))



def results_from_keys(slot, cls, keys, sort_path, aggregate_path, op, how=0):
    """A result of objects picked from the program, sorted by sort_path ascending, then aggregated."""
    return (bytes([RESULTS_FROM_KEYS, slot, cls, how | len(keys)]) + bytes(keys)
            + bytes([KP[sort_path], 1, KP[aggregate_path], op]))


# Results of given keys (a list's objects): sorted through a link, aggregated, with a deleted
# object among them; none, NULL keys and NULL out.
SEEDS["results_from_keys"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, [val_str(b"rex"), val_null(), val_null()]) + create(0, 0, [val_str(b"Fido"), val_null(), val_null()])
    + create(0, 1, [val_str(b"ann"), val_link(0), val_link(1), val_null(), val_null()])
    + set_value(0, 0, 1, val_link(2))
    + results_from_keys(0, 0, [1, 0, 1], "owner.name", "name", A_MAX)
    + results_from_keys(0, 1, [2], "name", "age", A_SUM)
    + results_from_keys(0, 0, [], "name", "name", A_COUNT, how=0x40)
    + results_from_keys(0, 0, [0], "name", "name", A_COUNT, how=0x20)
    + bytes([DELETE, 0, 0, 0]) + results_from_keys(0, 0, [1, 0], "name", "name", A_COUNT) + end(0, COMMIT))

def changes(slot, back, cls, obj, prop_index, old_count, how=0):
    """Changes since the slot's version minus back: then a class's, an object's and a list's."""
    return bytes([CHANGES, slot, how | back, 4, cls, obj, 4, prop_index, old_count])


# Commits that insert, modify, delete and change a list, then the changes since each version.
SEEDS["changes"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, []) + create(0, 1, []) + end(0, COMMIT) + begin(1, False) + begin(0, True)
    + set_value(0, 0, 0, val_str(b"max")) + list_op(0, 0, 2, 4, value=val_int(7))
    + list_op(0, 0, 2, 4, value=val_int(8)) + list_op(0, 0, 2, 8, 0, 1) + list_op(0, 0, 2, 6, 1, value=val_int(9))
    + end(0, COMMIT) + begin(2, False) + changes(2, 1, 0, 0, 2, 0) + changes(2, 1, 1, 1, 2, 0)
    + begin(0, True) + bytes([DELETE, 0, 0, 1]) + end(0, COMMIT) + end(2, RENEW)
    + changes(2, 2, 1, 1, 2, 2) + changes(2, 3, 0, 0, 2, 0) + changes(1, 0, 0, 0, 0, 0, how=0x40) + bytes(8)
    + end(1, COMMIT) + end(2, COMMIT))


def results_update(result, old_slot, slot, cls, text, path, how=0):
    """Result slot brought to slot's version by QUERY_TEXTS[text] on class cls, sorted by KEY_PATHS[path]."""
    old = b"" if how & 0x80 else bytes([old_slot])
    return bytes([RESULTS_UPDATE, result, how]) + old + bytes([slot, cls, text]) + val_int(3) + bytes([path])


# A result of Dogs older than 3 at one version, brought to the next after inserts,
# changes and a delete: in place (sorted, from the old snapshot or not), and by a re-run.
SEEDS["results_update"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, []) + create(0, 0, []) + end(0, COMMIT) + begin(1, False)
    + query(1, 0, 1, 0, which=0) + query(2, 0, 1, 0, which=1)
    + begin(0, True) + set_value(0, 0, 0, val_str(b"zed")) + create(0, 0, []) + bytes([DELETE, 0, 0, 1])
    + end(0, COMMIT) + begin(2, False)
    + results_update(1, 1, 2, 0, 0, 0, how=0x20) + results_update(2, 1, 2, 0, 1, 0, how=0x80)
    + results_update(1, 2, 2, 0, 4, 0) + results_update(0, 1, 2, 1, 0, 0)
    + end(1, COMMIT) + end(2, COMMIT))


# A Person's set and map of Dogs changed between two snapshots, compared with and without the log.
SEEDS["keyed_changes"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, []) + create(0, 1, []) + end(0, COMMIT) + begin(1, False) + begin(0, True)
    + set_op(0, 1, 1, 3, 3, 2, value=val_link(0)) + map_op(0, 1, 4, 2, value=val_link(0)) + end(0, COMMIT)
    + begin(2, False) + bytes([KEYED_CHANGES, 1, 2, 0x80, 1, 3, KEYED_CHANGES, 1, 2, 0, 1, 4])
    + bytes([KEYED_CHANGES, 1, 2, 0x80, 1, 4]) + end(1, COMMIT) + end(2, COMMIT))


# A Person's set and map of Dogs changed over two commits (a Dog deleted in the second:
# out of the set, its key nulled), their element changes read from the log; a clear.
SEEDS["element_changes"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True)
    + create(0, 0, []) + create(0, 1, []) + create(0, 0, []) + end(0, COMMIT) + end(0, FREE)
    + begin(1, False) + begin(0, True)
    + set_op(0, 1, 1, 3, 3, 2, value=val_link(0)) + set_op(0, 1, 1, 3, 3, 2, value=val_link(2))
    + map_op(0, 1, 4, 2, value=val_link(0)) + map_op(0, 1, 4, 2, key=1, value=val_link(2))
    + end(0, COMMIT) + end(0, FREE)
    + begin(0, True) + bytes([DELETE, 0, 0, 0]) + end(0, COMMIT) + end(0, FREE) + begin(2, False)
    + bytes([ELEMENT_CHANGES, 1, 2, 0, 1, 3, ELEMENT_CHANGES, 1, 2, 0, 1, 4, ELEMENT_CHANGES, 1, 2, 0x6C, 1, 3])
    + bytes([KEYED_CHANGES, 1, 2, 0x80, 1, 3, KEYED_CHANGES, 1, 2, 0x80, 1, 4]) + end(2, COMMIT) + end(2, FREE)
    + begin(0, True) + map_op(0, 1, 4, 5) + end(0, COMMIT) + end(0, FREE) + begin(2, False)
    + bytes([ELEMENT_CHANGES, 1, 2, 0, 1, 4, ELEMENT_CHANGES, 1, 2, 0x88, 1, 4])
    + end(1, COMMIT) + end(2, COMMIT))


# Watches opened before and after a commit, waited on for a millisecond or not at all.
SEEDS["watch"] = (bytes([0]) + schema([PET, OWNER]) + bytes([WATCH, 1]) + begin(0, True) + create(0, 0, [])
    + end(0, COMMIT) + bytes([WATCH, 0, WATCH, 0x21, WATCH, 0x90, WATCH, 0xC0]))


# A group commit: two commits without their fsyncs, then one sync; an unknown flag and a NULL sync.
SEEDS["commit_sync"] = (bytes([0]) + schema([PET, OWNER]) + begin(0, True) + create(0, 0, [])
    + bytes([COMMIT_SYNC, 0, 0x00]) + begin(0, True) + create(0, 0, []) + bytes([COMMIT_SYNC, 0, 0x01])
    + begin(1, True) + bytes([COMMIT_SYNC, 1, 0x48, COMMIT_SYNC, 1, 0x03]) + end(1, ABORT)
    + begin(2, False) + bytes([COMMIT_SYNC, 2, 0x81]) + end(2, COMMIT))


def aggregates(txn, cls, which, path, *ops, flags=0):
    """Several aggregates of path in one pass over QUERY_TEXTS[which]; flags 0x80 NULL txn,
    0x40 NULL ops, 0x20 NULL out (the byte's remainder by 7 is the number of ops)."""
    how = flags + (len(ops) - flags) % 7
    return bytes([AGGREGATES, txn, cls, which, how, KP[path]]) + bytes(ops)


# Several aggregates in one pass: in a write and a read, a nullable int, a double, a link path,
# a type one op refuses, repeated ops, none, NULL txn, ops and out.
SEEDS["aggregates"] = (bytes([0]) + schema([PERSON, DOG]) + begin(0, True)
    + b"".join(create(0, 0, person(i, b"p%d" % i)) for i in range(5)) + create(0, 1, dog(1))
    + aggregates(0, 0, 0, "age", A_SUM, A_AVERAGE, A_MIN, A_MAX) + aggregates(0, 0, 0, "name", A_COUNT, A_SUM)
    + end(0, COMMIT) + begin(1, False)
    + aggregates(1, 0, 0, "age", A_AVERAGE, A_SUM, A_SUM, A_COUNT) + aggregates(1, 0, 0, "score", A_MIN, A_MAX, A_AVERAGE)
    + aggregates(1, 1, 0, "x", A_MIN, A_MAX) + aggregates(1, 0, 0, "owner.age", A_SUM) + aggregates(1, 0, 0, "name")
    + aggregates(1, 0, 0, "age", A_SUM, A_MAX, flags=0xE0) + aggregates(1, 0, 0, "age", A_SUM, flags=0x40)
    + end(1, COMMIT))

def run_keys(txn, cls, which, keys, flags=0):
    """QUERY_TEXTS[which] run on remembered objects keys, in their order; flags 0x80 too
    many keys (with 16), 0x40 NULL keys, 0x20 NULL out."""
    return bytes([RUN_KEYS, txn, cls, which, flags | len(keys)]) + bytes(keys)


# A query on given objects, in a write and a read: repeats and a deleted object among them,
# the whole class, a link path, none, NULL keys and NULL out.
SEEDS["run_keys"] = (bytes([0]) + schema([PERSON, DOG]) + begin(0, True)
    + b"".join(create(0, 0, person(i, b"p%d" % i)) for i in range(5)) + create(0, 1, dog(1))
    + run_keys(0, 0, 1, [4, 0, 4, 2]) + bytes([DELETE, 0, 0, 1]) + run_keys(0, 0, 0, [1, 3, 1])
    + end(0, COMMIT) + begin(1, False)
    + run_keys(1, 0, 4, [0, 1, 2, 3, 4]) + run_keys(1, 0, 1, []) + run_keys(1, 0, 1, [2], flags=0x40)
    + run_keys(1, 0, 1, [2], flags=0x20) + end(1, COMMIT))


# Compacted copies: to a fresh path (opened), over the file itself, a second time over the
# first copy, to NULL and to an empty path, with a NULL environment; inside a write.
SEEDS["copy"] = (bytes([0]) + schema([PERSON, DOG]) + begin(0, True)
    + b"".join(create(0, 0, person(i, b"p%d" % i)) for i in range(5)) + bytes([COPY, 0x00])
    + end(0, COMMIT) + bytes([COPY, 0x00, COPY, 0x20, COPY, 0x10, COPY, 0x80, COPY, 0x40, COPY, 0x08]))


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_api")
    os.makedirs(out_dir, exist_ok=True)
    for seed_name, data in SEEDS.items():
        with open(os.path.join(out_dir, seed_name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
