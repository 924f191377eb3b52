/* libFuzzer harness for Larder's public C API.
 *
 * Each input is a little program: every operation is one byte (its opcode)
 * followed by the bytes it takes as arguments; bytes past the end read as 0.
 * The program runs against a fresh database file and may declare schemas
 * (random names, types, flags and counts, invalid UTF-8 included; mixed
 * properties and collections of mixed values among them), begin, end
 * and free transactions, create, read, change, find (and read stamps of) and delete objects with
 * values of every type and of wrong types (links to objects of any class, live
 * or deleted, among them; in a mixed property, list, set or map any of them
 * fits or is refused by its own rule; nested lists and dictionaries in mixed values, read
 * and changed through collection handles, forged ones among them), count and list backlinks, read and change lists at
 * any position, sets and maps with elements of any type and keys of any bytes,
 * fill sets with thousands of elements, combine two sets, create embedded objects
 * in place (in links, lists and maps, of embedded classes or not, or with a new owner in one
 * call) and replace or remove them, run queries
 * and read, iterate and free their results, walk iterators with bindings and
 * batches of odd capacities and strides, sort, make distinct, limit and aggregate
 * results (of a class, or of keys picked live, deleted or never made) by key paths likely
 * and raw, read the change log since versions near a transaction's (a class's, an
 * object's and a list's changes), bring kept results to newer versions with their
 * change sets, compare sets and maps between two transactions, watch for commits,
 * commit without syncing and sync the file, close and reopen the file, and damage
 * rows with raw LMDB writes. It uses the API only as the header allows (no
 * handle is used after it is freed, every buffer has the room the header asks
 * for), so any sanitizer report or crash is a bug in the library.
 *
 * Every string or binary read is checked byte by byte (and a string for its
 * NUL), so a borrowed pointer into freed or unmapped memory is caught at once.
 *
 * fuzz_file.c fuzzes whole database files instead. */
#include "fuzz_support.h"
#include "query/results.h"

#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- reading the program ---- */

typedef struct program {
    const uint8_t *at, *end;
} program;

static bool more(const program *p) { return p->at < p->end; }

static uint8_t u8(program *p) { return p->at < p->end ? *p->at++ : 0; }

static uint32_t u32(program *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | u8(p);
    return v;
}

static uint64_t u64(program *p)
{
    uint64_t high = u32(p);
    return high << 32 | u32(p);
}

/* Up to max bytes of the program itself, as raw text (often invalid UTF-8). */
static size_t take_bytes(program *p, size_t max, const uint8_t **out)
{
    size_t want = u8(p) % (max + 1), left = (size_t)(p->end - p->at);
    if (want > left) want = left;
    *out = p->at;
    p->at += want;
    return want;
}

/* ---- strings the program refers to: kept until the input ends ---- */

#define ARENA_SIZE 65536
static char string_arena[ARENA_SIZE];
static size_t arena_used;

static char *arena_copy(const void *bytes, size_t size)
{
    if (arena_used + size + 1 > ARENA_SIZE) arena_used = 0; /* old strings are copied by then */
    char *s = string_arena + arena_used;
    if (size) memcpy(s, bytes, size);
    s[size] = 0;
    arena_used += size + 1;
    return s;
}

static const char *const NAMES[] = {"Person", "Dog", "id", "name", "age", "score", "tag", "owner",
                                    "x", "y", "h\xc3\xa9", "\xf0\x9d\x84\x9e"};
#define NAME_COUNT (sizeof NAMES / sizeof *NAMES)

/* Up to max raw bytes of the program as a C string (it ends at its first NUL). */
static const char *take_text(program *p, size_t max)
{
    const uint8_t *bytes;
    size_t size = take_bytes(p, max, &bytes);
    char *s = arena_copy(bytes, size);
    s[strnlen(s, size)] = 0;
    return s;
}

/* A name: a common one (so classes and properties collide and match), a raw one, or NULL/empty. */
static const char *take_name(program *p)
{
    uint8_t choice = u8(p);
    if (choice < 200) return NAMES[choice % NAME_COUNT];
    if (choice < 250) return take_text(p, 24);
    return choice < 253 ? "" : NULL;
}

/* ---- state ---- */

#define TXNS 3
#define ITERS 3
#define OBJS 32
#define MAX_CAPACITY 8
#define RESULTS 4
#define COLLS 6
#define MAX_STRIDE 256
/* Room for MAX_CAPACITY rows of bound variables at up to MAX_STRIDE bytes apart, plus a lar_value. */
#define BIND_AREA (MAX_CAPACITY * MAX_STRIDE + 2 * sizeof(lar_value))

typedef struct fuzz_iter {
    lar_iter *iter;
    _Alignas(16) uint8_t area[BIND_AREA];
    lar_objkey followed; /* lar_iter_follow()'s key */
} fuzz_iter;

typedef struct state {
    const char *path;
    lar_env *env;
    lar_txn *txns[TXNS];
    fuzz_iter iters[ITERS];
    lar_obj objs[OBJS];
    size_t obj_count;
    lar_coll colls[COLLS];    /* collection handles: opened, derived from values read, or forged */
    lar_results *results[RESULTS]; /* query results, kept across transactions */
    bool damaged;             /* op_damage wrote raw bytes: indexes may name missing objects */
} state;

static lar_txn *pick_txn(state *s, program *p) { return s->txns[u8(p) % TXNS]; }

static lar_class pick_class(program *p)
{
    uint8_t c = u8(p);
    return c < 240 ? c % 4 : (c < 250 ? c : UINT32_MAX - (c % 3));
}

static uint32_t pick_prop(program *p)
{
    uint8_t c = u8(p);
    return c < 240 ? c % 8 : UINT32_MAX - (c % 5);
}

static lar_obj pick_obj(state *s, program *p)
{
    uint8_t c = u8(p);
    if (s->obj_count && c < 200) return s->objs[c % (s->obj_count < OBJS ? s->obj_count : OBJS)];
    lar_class cls = pick_class(p);
    return (lar_obj){cls, c < 230 ? c % 8 : u64(p)};
}

static void remember(state *s, lar_obj obj) { s->objs[s->obj_count++ % OBJS] = obj; }

static const char LONG_TEXT[600] = {[0 ... 598] = 'k'};

/* A value of any type, well formed or not. */
static lar_value take_value(state *s, program *p)
{
    lar_value v;
    memset(&v, 0, sizeof v);
    uint8_t t = u8(p);
    /* 224...239: a new nested list or dictionary (refused outside mixed values). */
    v.type = (lar_type)(t < 224 ? t % 15 : t < 240 ? LAR_TYPE_LIST + t % 2 : t);
    switch (v.type) {
    case LAR_TYPE_INT: v.as.integer = (int64_t)u64(p); break;
    case LAR_TYPE_BOOL: v.as.boolean = (int)u32(p); break;
    case LAR_TYPE_FLOAT: { uint32_t bits = u32(p); memcpy(&v.as.float32, &bits, 4); break; }
    case LAR_TYPE_DOUBLE: { uint64_t bits = u64(p); memcpy(&v.as.float64, &bits, 8); break; }
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: {
        uint8_t form = u8(p);
        const uint8_t *bytes;
        size_t size = take_bytes(p, 48, &bytes);
        const void *data = arena_copy(bytes, size);
        if (form % 8 == 1) { data = NULL; size = 0; }
        else if (form % 8 == 2) data = NULL; /* NULL data with a size: refused */
        else if (form % 8 == 3) { data = LONG_TEXT; size = 400 + form % 199; } /* past a primary key's limit */
        else if (form % 8 == 4) size = form & 0x80 ? SIZE_MAX : UINT32_MAX; /* refused before it is read */
        if (v.type == LAR_TYPE_STRING) v.as.string = (lar_string){data, size};
        else v.as.binary = (lar_binary){data, size};
        break;
    }
    case LAR_TYPE_TIMESTAMP:
        v.as.timestamp.seconds = (int64_t)u64(p);
        v.as.timestamp.nanoseconds = (int32_t)u32(p);
        break;
    case LAR_TYPE_LINK: v.as.link = pick_obj(s, p); break;
    default:
        for (int i = 0; i < 16; i++) v.as.uuid.bytes[i] = u8(p);
        break;
    }
    return v;
}

/* ---- operations ---- */

static void op_schema(state *s, program *p)
{
    lar_class_def classes[4];
    lar_property_def props[4][8];
    size_t class_count = u8(p) % 5;
    for (size_t c = 0; c < class_count; c++) {
        uint8_t shape = u8(p);
        size_t count = shape % 9;
        for (size_t i = 0; i < count; i++) {
            uint8_t type = u8(p), collection = u8(p), flags = u8(p);
            lar_property_def *def = &props[c][i];
            def->name = take_name(p);
            def->type = (lar_type)(type < 200 ? type % 15 : type);
            def->collection = (lar_collection)(collection % 5);
            def->flags = flags < 200 ? flags % 16 : flags; /* 8: LAR_PROP_CASCADE */
            def->target_class = (flags & 0x40) ? take_name(p) : NULL;
            def->origin_property = (flags & 0x80) ? take_name(p) : NULL;
        }
        classes[c] = (lar_class_def){take_name(p), count ? props[c] : NULL, count, shape >= 250 ? shape % 3 : 0};
        /* Counts past the limits are refused before the array is read. */
        if (shape == 249) classes[c].property_count = shape & 1 ? SIZE_MAX : 65536;
    }
    uint8_t how = u8(p);
    size_t given = how == 255 ? 1001 : class_count; /* too many classes: refused before reading */
    int rc = lar_schema_apply(how == 254 ? NULL : s->env, class_count || how == 255 ? classes : NULL, given,
                              u8(p) % 4);
    if (rc) fuzz_consume_error(rc);
}

static void op_begin(state *s, program *p)
{
    uint8_t slot = u8(p) % TXNS, flags = u8(p);
    if (s->txns[slot]) return;
    int rc = lar_txn_begin(s->env, flags < 250 ? flags % 2 : flags, &s->txns[slot]);
    if (rc) {
        fuzz_consume_error(rc);
        s->txns[slot] = NULL;
    }
}

static void op_end(state *s, program *p)
{
    uint8_t slot = u8(p) % TXNS, how = u8(p) % 5;
    lar_txn *txn = s->txns[slot];
    int rc = LAR_OK;
    if (how == 0) rc = lar_txn_commit(txn);
    else if (how == 1) rc = lar_txn_abort(txn);
    else if (how == 2) rc = lar_txn_renew(txn);
    else if (how == 3) {
        int active, write;
        rc = lar_txn_state(txn, &active, &write);
        uint64_t version;
        if (rc == LAR_OK) rc = lar_txn_version(txn, &version);
    } else {
        lar_txn_free(txn); /* never used again */
        s->txns[slot] = NULL;
    }
    if (rc) fuzz_consume_error(rc);
}

static void op_create(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t count = u8(p) % 10;
    lar_value values[9];
    for (uint8_t i = 0; i < count; i++) values[i] = take_value(s, p);
    lar_obj obj;
    int rc = lar_obj_create(txn, cls, count == 9 ? NULL : values, count == 9 ? 0 : count, &obj);
    if (rc) fuzz_consume_error(rc);
    else remember(s, obj);
}

static void op_get(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint8_t how = u8(p);
    lar_value values[9];
    int rc;
    if (how % 2) {
        rc = lar_obj_get(txn, obj, pick_prop(p), &values[0]);
        if (!rc) fuzz_consume_value(&values[0]);
    } else {
        size_t count = (how / 2) % 10;
        rc = lar_obj_get_all(txn, obj, values, count);
        for (size_t i = 0; !rc && i < count; i++) fuzz_consume_value(&values[i]);
    }
    if (rc) fuzz_consume_error(rc);
}

static void op_set(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    lar_value v = take_value(s, p);
    int rc = lar_obj_set(txn, obj, prop, &v);
    if (rc) fuzz_consume_error(rc);
}

static void op_delete(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    uint8_t how = u8(p) % 3;
    int rc, exists = 0;
    uint64_t count = 0;
    if (how == 0) rc = lar_obj_delete(txn, pick_obj(s, p));
    else if (how == 1) rc = lar_objects_delete_all(txn, pick_class(p));
    else {
        rc = lar_obj_exists(txn, pick_obj(s, p), &exists);
        if (!rc) rc = lar_objects_count(txn, pick_class(p), &count);
    }
    fuzz_sink += (uint64_t)exists + count;
    if (rc) fuzz_consume_error(rc);
}

static void op_find(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    lar_value key = take_value(s, p);
    lar_obj obj, stamped;
    int rc = lar_obj_find(txn, cls, &key, &obj);
    if (rc) fuzz_consume_error(rc);
    else remember(s, obj);
    /* The same find with the stamp (no input of its own): what it finds, the find found,
     * with lar_obj_stamp()'s stamp (it may fail alone: a displaced object's damaged row). */
    uint64_t found_stamp = 0, stamp = 0;
    int rc_stamped = lar_obj_find_stamped(txn, cls, &key, &stamped, &found_stamp);
    if (rc_stamped) fuzz_consume_error(rc_stamped);
    else if (rc || stamped.cls != obj.cls || stamped.key != obj.key) abort();
    /* The stamp of what was found, or of a key forged from the key value (no input of its own). */
    if (rc) obj = (lar_obj){cls, key.type == LAR_TYPE_INT ? (lar_objkey)key.as.integer : 0};
    rc = lar_obj_stamp(txn, obj, &stamp);
    fuzz_sink += stamp + found_stamp;
    if (rc) fuzz_consume_error(rc);
    if (!rc_stamped && (rc || stamp != found_stamp)) abort();
}

static void op_backlinks(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj target = pick_obj(s, p);
    lar_class origin = pick_class(p);
    uint32_t prop = pick_prop(p);
    uint8_t how = u8(p);
    lar_obj out[MAX_CAPACITY];
    int rc;
    if (how % 2) {
        uint64_t count = 0;
        rc = lar_backlinks_count(txn, target, origin, prop, how & 0x80 ? NULL : &count);
        fuzz_sink += count;
    } else {
        size_t capacity = (how / 2) % (MAX_CAPACITY + 1), count = 0; /* 0 is refused */
        rc = lar_backlinks_list(txn, target, origin, prop, how & 0x40 ? u64(p) : 0, how & 0x80 ? NULL : out,
                                capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) fuzz_sink += out[i].key;
    }
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

/* A list position: small ones mostly (the lists are short), the ends, or anything. */
static size_t pick_index(program *p)
{
    uint8_t c = u8(p);
    return c < 240 ? c % 80 : c < 250 ? SIZE_MAX - (c % 3) : (size_t)u64(p);
}

static void op_list(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    uint8_t how = u8(p);
    size_t index = pick_index(p), other = pick_index(p), count = 0;
    lar_value value = take_value(s, p), out[MAX_CAPACITY];
    const lar_value *given = how & 0x80 ? NULL : &value;
    int rc;
    switch (how % 11) {
    case 0: rc = lar_list_count(txn, obj, prop, how & 0x40 ? NULL : &count); break;
    case 1:
        rc = lar_list_get(txn, obj, prop, index, how & 0x40 ? NULL : &out[0]);
        if (!rc) fuzz_consume_value(&out[0]);
        break;
    case 2: {
        size_t capacity = other % (MAX_CAPACITY + 1); /* 0 is refused */
        rc = lar_list_get_batch(txn, obj, prop, index, how & 0x40 ? NULL : out, capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) fuzz_consume_value(&out[i]);
        break;
    }
    case 3: rc = lar_list_insert(txn, obj, prop, index, given); break;
    case 4: case 5: rc = lar_list_append(txn, obj, prop, given); break; /* twice as often: lists grow */
    case 6: rc = lar_list_set(txn, obj, prop, index, given); break;
    case 7: rc = lar_list_remove(txn, obj, prop, index); break;
    case 8: rc = lar_list_move(txn, obj, prop, index, other); break;
    case 9: rc = lar_list_swap(txn, obj, prop, index, other); break;
    default: rc = lar_list_clear(txn, obj, prop); break;
    }
    fuzz_sink += count;
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

/* Appends n copies of one element: enough for lists of several levels. */
static void op_list_fill(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    size_t n = (size_t)u8(p) * 8;
    lar_value value = take_value(s, p);
    for (size_t i = 0; i < n; i++) {
        int rc = lar_list_insert(txn, obj, prop, i % 2 ? 0 : i / 2, &value);
        if (rc) {
            fuzz_consume_error(rc);
            break;
        }
    }
}

static void op_set_elements(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p), other = pick_obj(s, p);
    uint32_t prop = pick_prop(p), other_prop = pick_prop(p);
    uint8_t how = u8(p);
    lar_value value = take_value(s, p), out[MAX_CAPACITY];
    const lar_value *given = how & 0x80 ? NULL : &value;
    int *flag = how & 0x40 ? NULL : &(int){0};
    size_t count = 0;
    int rc;
    switch (how % 12) {
    case 0: rc = lar_set_count(txn, obj, prop, how & 0x40 ? NULL : &count); break;
    case 1: rc = lar_set_contains(txn, obj, prop, given, flag); break;
    case 2: case 3: rc = lar_set_insert(txn, obj, prop, given, flag); break;
    case 4: rc = lar_set_remove(txn, obj, prop, given, flag); break;
    case 5: rc = lar_set_clear(txn, obj, prop); break;
    case 6: {
        size_t capacity = (how / 2) % (MAX_CAPACITY + 1); /* 0 is refused */
        rc = lar_set_list(txn, obj, prop, how & 0x20 ? given : NULL, out, capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) fuzz_consume_value(&out[i]);
        break;
    }
    case 7: rc = lar_set_union(txn, obj, prop, other, other_prop); break;
    case 8: rc = lar_set_intersect(txn, obj, prop, other, other_prop); break;
    case 9: rc = lar_set_subtract(txn, obj, prop, other, other_prop); break;
    case 10: rc = lar_set_is_subset(txn, obj, prop, other, other_prop, flag); break;
    default: rc = lar_set_intersects(txn, obj, prop, other, other_prop, flag); break;
    }
    fuzz_sink += count + (flag ? (uint64_t)*flag : 0);
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

/* Inserts (or, one time in four, removes) up to 2,040 elements derived from one value, so
 * that sets span many blocks, split, merge and meet the algebra on both sides. */
static void op_set_fill(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    uint8_t how = u8(p);
    size_t n = (size_t)u8(p) * 8;
    int64_t step = 1 + how % 7;
    lar_value value = take_value(s, p);
    char text[LAR_SET_ELEMENT_MAX + 1];
    for (size_t i = 0; i < n; i++) {
        lar_value v = value;
        int64_t offset = (int64_t)i * step;
        switch (v.type) {
        case LAR_TYPE_INT: v.as.integer = (int64_t)((uint64_t)v.as.integer + (uint64_t)offset); break;
        case LAR_TYPE_DOUBLE: v.as.float64 += (double)offset; break;
        case LAR_TYPE_FLOAT: v.as.float32 += (float)offset; break;
        case LAR_TYPE_TIMESTAMP: v.as.timestamp.seconds = (int64_t)((uint64_t)v.as.timestamp.seconds + (uint64_t)offset); break;
        case LAR_TYPE_STRING: case LAR_TYPE_BINARY: { /* a number, padded to a length of its own */
            size_t length = how & 0x10 ? (i * 131) % (LAR_SET_ELEMENT_MAX + 1) : (size_t)snprintf(text, sizeof text, "%zu", i);
            int head = snprintf(text, sizeof text, "%06lld", (long long)offset);
            for (size_t j = (size_t)head; j < length; j++) text[j] = (char)('a' + (i + j) % 26);
            if (length < (size_t)head) length = (size_t)head;
            text[length] = 0;
            if (v.type == LAR_TYPE_STRING) v.as.string = (lar_string){text, length};
            else v.as.binary = (lar_binary){text, length};
            break;
        }
        case LAR_TYPE_LINK: v.as.link.key += (uint64_t)i % 64; break; /* live, deleted or never made */
        default: break;
        }
        int rc = how % 4 == 3 ? lar_set_remove(txn, obj, prop, &v, NULL) : lar_set_insert(txn, obj, prop, &v, NULL);
        if (rc) {
            fuzz_consume_error(rc);
            if (rc != LAR_EINVAL && rc != LAR_ETYPE) break; /* a bad element: the next may do */
            if (i > 8 && v.type != LAR_TYPE_LINK) break;
        }
    }
}

/* A map key: a common one, one breaking a rule, raw bytes, or none. */
static const lar_string *take_key(program *p, lar_string *out);

/* Nested collections through handles: opening one from a property, deriving one from a
 * value read through another, forging one (a random id, kind, owner or property: a
 * stale or foreign handle must report an error and read nothing), and every `_at`
 * function on any of them (NULL handles too). */
static void op_nested(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    uint8_t how = u8(p);
    lar_coll *c = &s->colls[u8(p) % COLLS], *other = &s->colls[u8(p) % COLLS];
    const lar_coll *h = how & 0x80 ? NULL : c;
    size_t index = pick_index(p), to = pick_index(p), count = 0;
    lar_string key_space, keys[MAX_CAPACITY];
    const lar_string *key = take_key(p, &key_space);
    lar_value value = take_value(s, p), out[MAX_CAPACITY];
    const lar_value *given = how & 0x40 ? NULL : &value;
    int removed = 0, rc;
    switch (how % 20) {
    case 0: case 1: {
        lar_obj obj = pick_obj(s, p);
        rc = lar_coll_open(txn, obj, pick_prop(p), how & 0x40 ? NULL : c);
        break;
    }
    case 2: case 3: /* the nested collection at an index or key of c */
        rc = c->kind == LAR_COLLECTION_MAP ? lar_map_get_at(txn, c, key, &out[0]) : lar_list_get_at(txn, c, index, &out[0]);
        if (!rc) fuzz_consume_value(&out[0]);
        if (!rc) rc = lar_coll_child(c, &out[0], other);
        break;
    case 4: /* forged */
        if (how & 0x20) c->id = u8(p) < 128 ? u8(p) : u64(p);
        else if (how & 0x10) c->obj = pick_obj(s, p);
        else if (how & 0x08) c->prop = pick_prop(p);
        else c->kind = (lar_collection)(u8(p) % 5);
        rc = lar_coll_child(h, given, other);
        break;
    case 5: rc = lar_list_count_at(txn, h, how & 0x40 ? NULL : &count); break;
    case 6:
        rc = lar_list_get_at(txn, h, index, &out[0]);
        if (!rc) fuzz_consume_value(&out[0]);
        break;
    case 7: {
        size_t capacity = to % (MAX_CAPACITY + 1); /* 0 is refused */
        rc = lar_list_get_batch_at(txn, h, index, how & 0x40 ? NULL : out, capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) fuzz_consume_value(&out[i]);
        break;
    }
    case 8: rc = lar_list_insert_at(txn, h, index, given); break;
    case 9: case 10: rc = lar_list_append_at(txn, h, given); break;
    case 11: rc = lar_list_set_at(txn, h, index, given); break;
    case 12: rc = lar_list_remove_at(txn, h, index); break;
    case 13: rc = lar_list_move_at(txn, h, index, to); break;
    case 14: rc = how & 0x40 ? lar_list_clear_at(txn, h) : lar_map_clear_at(txn, h); break;
    case 15: rc = lar_map_count_at(txn, h, how & 0x40 ? NULL : &count); break;
    case 16:
        rc = lar_map_get_at(txn, h, key, &out[0]);
        if (!rc) fuzz_consume_value(&out[0]);
        break;
    case 17: rc = lar_map_put_at(txn, h, key, given); break;
    case 18: rc = lar_map_remove_at(txn, h, key, how & 0x40 ? NULL : &removed); break;
    default: {
        size_t capacity = to % (MAX_CAPACITY + 1);
        rc = lar_map_list_at(txn, h, how & 0x20 ? key : NULL, how & 0x40 ? NULL : keys, out, capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) {
            lar_value as_value = {.type = LAR_TYPE_STRING};
            as_value.as.string = keys[i];
            fuzz_consume_value(&as_value);
            fuzz_consume_value(&out[i]);
        }
        break;
    }
    }
    fuzz_sink += count + (uint64_t)removed;
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

static const lar_string *take_key(program *p, lar_string *out)
{
    static const char *const KEYS[] = {"a", "b", "", "h\xc3\xa9", "$x", "a.b", "\xff", "key"};
    uint8_t c = u8(p);
    if (c < 200) {
        *out = (lar_string){KEYS[c % 8], strlen(KEYS[c % 8])};
    } else if (c < 250) {
        const uint8_t *bytes;
        size_t size = take_bytes(p, 60, &bytes);
        *out = (lar_string){arena_copy(bytes, size), size};
    } else if (c < 253) {
        *out = (lar_string){LONG_TEXT, 400 + c % 100}; /* past the longest key */
    } else {
        return c == 255 ? NULL : (*out = (lar_string){NULL, 3}, out);
    }
    return out;
}

static void op_map(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    uint8_t how = u8(p);
    lar_string key_space, keys[MAX_CAPACITY];
    const lar_string *key = take_key(p, &key_space);
    lar_value value = take_value(s, p), out[MAX_CAPACITY];
    const lar_value *given = how & 0x80 ? NULL : &value;
    size_t count = 0;
    int removed = 0, rc;
    switch (how % 7) {
    case 0: rc = lar_map_count(txn, obj, prop, how & 0x40 ? NULL : &count); break;
    case 1:
        rc = lar_map_get(txn, obj, prop, key, how & 0x40 ? NULL : &out[0]);
        if (!rc) fuzz_consume_value(&out[0]);
        break;
    case 2: case 3: rc = lar_map_put(txn, obj, prop, key, given); break;
    case 4: rc = lar_map_remove(txn, obj, prop, key, how & 0x40 ? NULL : &removed); break;
    case 5: rc = lar_map_clear(txn, obj, prop); break;
    default: {
        size_t capacity = (how / 8) % (MAX_CAPACITY + 1); /* 0 is refused */
        rc = lar_map_list(txn, obj, prop, how & 0x20 ? key : NULL, how & 0x40 ? NULL : keys,
                          how & 0x80 ? NULL : out, capacity, &count);
        if (count > capacity) abort();
        for (size_t i = 0; i < count; i++) {
            lar_value as_value = {.type = LAR_TYPE_STRING};
            as_value.as.string = keys[i];
            fuzz_consume_value(&as_value);
            if (!(how & 0x80)) fuzz_consume_value(&out[i]);
        }
        break;
    }
    }
    fuzz_sink += count + (uint64_t)removed;
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

static void op_iter_open(state *s, program *p)
{
    fuzz_iter *fi = &s->iters[u8(p) % ITERS];
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    if (fi->iter) return;
    int rc = lar_iter_open(txn, cls, &fi->iter);
    if (rc) {
        fuzz_consume_error(rc);
        fi->iter = NULL;
    }
}

/* A binding destination in the iterator's area, 8-byte aligned, leaving room for
 * MAX_CAPACITY rows at MAX_STRIDE bytes. */
static void *bind_dest(fuzz_iter *fi, program *p)
{
    uint8_t at = u8(p);
    return at >= 250 ? NULL : fi->area + (at % 16) * 8;
}

static void op_iter_bind(state *s, program *p)
{
    fuzz_iter *fi = &s->iters[u8(p) % ITERS];
    uint8_t kind = u8(p), how = kind % 3;
    uint32_t prop = pick_prop(p);
    void *dest = bind_dest(fi, p);
    if (!fi->iter) return;
    int rc = kind >= 252 ? lar_iter_bind_stamp(fi->iter, dest) /* the prop byte unused */
           : how == 0    ? lar_iter_bind_int(fi->iter, prop, dest)
           : how == 1    ? lar_iter_bind_double(fi->iter, prop, dest)
                         : lar_iter_bind_value(fi->iter, prop, dest);
    if (rc) fuzz_consume_error(rc);
}

/* Reads what the bindings wrote: values bound with bind_value are checked when they are strings. */
static void consume_area(const fuzz_iter *fi)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof fi->area; i += 64) sum += fi->area[i];
    fuzz_sink += sum;
}

static void op_iter_step(state *s, program *p)
{
    fuzz_iter *fi = &s->iters[u8(p) % ITERS];
    uint8_t how = u8(p);
    uint8_t capacity_byte = u8(p), stride_byte = u8(p);
    if (!fi->iter) return;
    lar_obj objs[MAX_CAPACITY];
    lar_value values[9];
    int rc;
    if (how % 4 == 0) {
        rc = lar_iter_next(fi->iter, &objs[0]);
    } else if (how % 4 == 1) {
        size_t count = (how / 4) % 10;
        rc = lar_iter_next_all(fi->iter, &objs[0], values, count);
        for (size_t i = 0; !rc && i < count; i++) fuzz_consume_value(&values[i]);
    } else if (how % 4 == 2) {
        size_t capacity = capacity_byte % (MAX_CAPACITY + 1); /* 0 is refused */
        size_t stride = (size_t)(stride_byte % (MAX_STRIDE / 8 + 1)) * 8, count = 0;
        if (capacity == 1 && stride_byte >= 250) stride = SIZE_MAX; /* "unused when capacity is 1" */
        rc = lar_iter_next_batch(fi->iter, how & 0x80 ? NULL : objs, capacity, stride, &count);
        if (count > capacity) abort();
    } else {
        rc = lar_iter_seek(fi->iter, how & 0x80 ? 0 : capacity_byte % 8);
    }
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
    consume_area(fi);
}

static void close_iter(fuzz_iter *fi)
{
    lar_iter_close(fi->iter);
    fi->iter = NULL;
    memset(fi->area, 0, sizeof fi->area);
}

static void op_iter_close(state *s, program *p) { close_iter(&s->iters[u8(p) % ITERS]); }

/* lar_iter_follow(): the embedded object's values go to the start of the iterator's area
 * (which bindings may share: both only write there), its key beside it; how 250 and up
 * stops following, bit 0x40 passes no key. */
static void op_iter_follow(state *s, program *p)
{
    fuzz_iter *fi = &s->iters[u8(p) % ITERS];
    uint8_t how = u8(p);
    uint32_t prop = pick_prop(p);
    if (!fi->iter) return;
    lar_value *out = how >= 250 ? NULL : (lar_value *)(void *)fi->area;
    int rc = lar_iter_follow(fi->iter, prop, out, how % 10, how & 0x40 ? NULL : &fi->followed);
    if (rc) fuzz_consume_error(rc);
    fuzz_sink += fi->followed;
}

static void op_lookup(state *s, program *p)
{
    uint8_t how = u8(p) % 5;
    lar_class cls = pick_class(p);
    const char *name = take_name(p);
    int rc;
    if (how == 0) {
        lar_class found;
        rc = lar_class_find(s->env, name, &found);
    } else if (how == 1) {
        lar_class_info info;
        rc = lar_class_info_get(s->env, cls, &info);
        if (!rc) fuzz_sink += strlen(info.name) + info.property_count;
    } else if (how == 2) {
        uint32_t prop;
        rc = lar_property_find(s->env, cls, name, &prop);
    } else if (how == 3) {
        lar_property_def def;
        rc = lar_property_info_get(s->env, cls, pick_prop(p), &def);
        if (!rc) fuzz_sink += strlen(def.name) + (def.target_class ? strlen(def.target_class) : 0);
    } else {
        lar_env_info info;
        rc = lar_env_info_get(s->env, &info);
        uint64_t versions;
        if (!rc) rc = lar_env_version_count(s->env, &versions);
    }
    if (rc) fuzz_consume_error(rc);
}

/* Queries over the seed schemas' names (or text of the program's bytes), run in any
 * transaction; their results read, checked for currency, iterated and freed, also
 * after the transaction that made them ended. */
static const char *const QUERY_TEXTS[] = {
    "TRUEPREDICATE", "age > 3", "name == 'ann'", "name BEGINSWITH[c] 'R' OR age < 0", "owner.name == nil",
    "tag.@count > 0", "ANY tag > 1", "id IN {1, 2, 3}", "score BETWEEN {0, 1}", "x['k'] == 1",
    "@links.Person.owner.@count == 0", "NOT age == $0", "name CONTAINS[cd] $0", "x.@type == 'int'",
    "SUBQUERY(tag, $t, $t > 0).@count == 1", "owner == $0", "y.@max > 2 AND name LIKE '*a?'",
};

static void read_results(state *s, lar_results *r, uint8_t how)
{
    size_t count = 0, n = 0;
    int rc = lar_results_count(how & 0x40 ? NULL : r, &count);
    lar_objkey keys[8];
    lar_obj obj;
    for (size_t i = 0; !rc && i < count; i++) {
        rc = lar_results_get(r, i, &obj);
        if (!rc) remember(s, obj);
    }
    if (!rc && lar_results_get(r, count, &obj) != LAR_EINVAL) abort(); /* past the end */
    for (size_t start = 0; !rc;) {
        rc = lar_results_keys(r, start, keys, (how % 8) + (how & 0x80 ? 0 : 1), &n);
        if (n > 8) abort();
        start += n;
    }
    fuzz_sink += count + n;
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
}

static const char *take_key_path(program *p);

static void op_query(state *s, program *p)
{
    lar_results **r = &s->results[u8(p) % RESULTS];
    uint8_t how = u8(p);
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t which = u8(p);
    const uint8_t *bytes;
    size_t size = take_bytes(p, 80, &bytes);
    lar_value arg = take_value(s, p);
    int rc = LAR_OK, current;
    switch (how % 5) {
    case 0: {
        const char *text = which < 200 ? QUERY_TEXTS[which % (sizeof QUERY_TEXTS / sizeof *QUERY_TEXTS)]
                                       : arena_copy(bytes, size);
        lar_query *q = NULL;
        lar_results *fresh = NULL;
        size_t args = 0;
        rc = lar_query_parse(s->env, cls, text, &q);
        if (!rc) rc = lar_query_argument_count(q, &args);
        lar_query_arg bound = {.kind = LAR_QUERY_ARG_VALUE, .value = arg};
        if (!rc && args == 1 && !(how & 0x80)) rc = lar_query_bind(q, &bound, 1);
        if (!rc) rc = lar_query_run(txn, q, &fresh);
        if (!rc) {
            lar_results_free(*r);
            *r = fresh;
            /* Folded while scanning, or run then folded: the same error or value as the result's fold. */
            const char *path = take_key_path(p);
            lar_aggregate_op op = (lar_aggregate_op)(u8(p) % 7);
            lar_value folded, direct;
            int rc_results = lar_results_aggregate(txn, fresh, path, op, &folded);
            int rc_query = lar_query_run_aggregate(how & 0x40 ? NULL : txn, how & 0x20 ? NULL : q, path, op,
                                                   how & 0x10 ? NULL : &direct);
            if (!(how & 0x70) && rc_results != rc_query) abort();
            if (rc_query) fuzz_consume_error(rc_query);
            else fuzz_consume_value(&direct);
            if (rc_results) fuzz_consume_error(rc_results);
            else fuzz_consume_value(&folded);
        }
        lar_query_free(q);
        break;
    }
    case 1: if (*r) read_results(s, *r, how); break;
    case 2:
        rc = lar_results_is_current(*r, txn, &current);
        if (!rc) fuzz_sink += (uint64_t)current;
        break;
    case 3: {
        fuzz_iter *fi = &s->iters[which % ITERS];
        if (fi->iter) break;
        rc = lar_iter_open_results(txn, *r, &fi->iter);
        if (rc) fi->iter = NULL;
        break;
    }
    default:
        lar_results_free(*r);
        *r = NULL;
    }
    if (rc) fuzz_consume_error(rc);
}

/* Ends every transaction and iterator, then closes the file. */
static void close_all(state *s)
{
    for (int i = 0; i < RESULTS; i++) {
        lar_results_free(s->results[i]);
        s->results[i] = NULL;
    }
    for (int i = 0; i < ITERS; i++) close_iter(&s->iters[i]);
    for (int i = 0; i < TXNS; i++) {
        lar_txn_free(s->txns[i]);
        s->txns[i] = NULL;
    }
    if (s->env && lar_env_close(s->env) != LAR_OK) abort();
    s->env = NULL;
}

/* A map small enough that writes grow it. Growth waits (up to 30 s, then LAR_EMAPFULL) while
 * this thread holds a read transaction: until that is fixed in env.c, only builds with
 * FUZZ_SMALL_MAP exercise it, and the others keep the default map. */
#ifdef FUZZ_SMALL_MAP
#define SMALL_MAP 65536
#else
#define SMALL_MAP 0
#endif

static int open_file(state *s, size_t map_size)
{
    lar_env_options options;
    lar_env_options_init(&options);
    options.flags = LAR_ENV_NOSYNC;
    if (map_size) options.initial_map_size = map_size;
    int rc = lar_env_open(s->path, &options, &s->env);
    if (rc) {
        fuzz_consume_error(rc);
        s->env = NULL;
    }
    return rc;
}

/* Closes the file (after trying to close it with transactions live) and opens it again. */
static void op_reopen(state *s, program *p)
{
    uint8_t how = u8(p);
    lar_env *again;
    if (how % 2 && lar_env_open(s->path, NULL, &again) == LAR_OK && lar_env_close(again) != LAR_OK) abort();
    int rc = lar_env_close(s->env);
    if (rc == LAR_OK) s->env = NULL; /* ended handles stay: "lar_txn_free() still works" */
    else fuzz_consume_error(rc);
    if (how & 0x80) close_all(s);
    if (!s->env) open_file(s, how & 0x40 ? SMALL_MAP : 0);
}

/* One raw LMDB change to the file, as damage would leave it. */
typedef struct raw_change {
    const char *table;          /* NULL for the main database */
    unsigned int flags;         /* the table's flags, as Larder opens it */
    uint8_t key[80];
    size_t key_size;
    const uint8_t *data;        /* NULL deletes the key */
    size_t data_size;
} raw_change;

/* Applies a change through LMDB itself, after closing the file (LMDB forbids
 * opening a file twice in a process), then opens it again. */
static void apply_raw(state *s, const raw_change *change)
{
    close_all(s);
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    if (mdb_env_create(&mdb) == 0) {
        mdb_env_set_maxdbs(mdb, 2048);
        if (mdb_env_open(mdb, s->path, MDB_NOSUBDIR | MDB_NOSYNC, 0644) == 0 &&
            mdb_txn_begin(mdb, NULL, 0, &txn) == 0) {
            MDB_val k = {change->key_size, (void *)change->key}, v = {change->data_size, (void *)change->data};
            int rc = mdb_dbi_open(txn, change->table, change->flags, &dbi);
            if (!rc) rc = change->data ? mdb_put(txn, dbi, &k, &v, 0) : mdb_del(txn, dbi, &k, NULL);
            if (rc) mdb_txn_abort(txn);
            else mdb_txn_commit(txn);
        }
        mdb_env_close(mdb);
    }
    open_file(s, 0);
}

static size_t put_be32(uint8_t *out, uint32_t v)
{
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(v >> (24 - 8 * i));
    return 4;
}

static const char *const META_KEYS[] = {"schema", "generation", "schema_version", "format"};

/* Damages the file: a class row, a metadata record (the stored schema among them),
 * a primary-key, index or backlink entry, overwritten with bytes of the program or deleted. */
static void op_damage(state *s, program *p)
{
    uint8_t where = u8(p) % 9;
    lar_obj obj = pick_obj(s, p);
    s->damaged = true;
    raw_change change = {.flags = 0};
    char table[16];
    change.data_size = take_bytes(p, 255, &change.data);
    if (where == 0 || where == 5) { /* a row, replaced or gone */
        snprintf(table, sizeof table, "c%u", obj.cls);
        change.table = table;
        change.flags = MDB_INTEGERKEY;
        memcpy(change.key, &obj.key, 8);
        change.key_size = u8(p) == 255 ? 4 : 8; /* LMDB takes 4-byte keys in an integer-keyed table */
        if (where == 5) change.data = NULL;
    } else if (where == 1 || where == 2) { /* metadata: the schema, versions, a class's next key */
        change.table = "larder";
        uint8_t which = u8(p) % 5;
        if (which < 4) {
            change.key_size = strlen(META_KEYS[which]);
            memcpy(change.key, META_KEYS[which], change.key_size);
        } else {
            change.key[0] = 'n';
            change.key_size = 1 + put_be32(change.key + 1, obj.cls);
        }
        if (where == 2) change.data = NULL;
    } else if (where == 8) { /* a set's count or block: [id BE][first element] */
        change.table = "keyed";
        change.key_size = put_be32(change.key, 0);
        change.key_size += put_be32(change.key + 4, u8(p) % 64 + 1);
        const uint8_t *tail;
        size_t tail_size = take_bytes(p, 20, &tail);
        memcpy(change.key + change.key_size, tail, tail_size);
        change.key_size += tail_size;
        if (u8(p) % 4 == 0) change.data = NULL;
    } else if (where == 7) { /* a list node: ids are small numbers */
        change.table = "collections";
        change.flags = MDB_INTEGERKEY;
        uint64_t id = u8(p) % 64 + 1;
        memcpy(change.key, &id, 8);
        change.key_size = 8;
        if (u8(p) % 4 == 0) change.data = NULL;
    } else if (where == 6) { /* a backlink into obj: [class][key][origin class][property][origin key] */
        change.table = "backlinks";
        change.key_size = put_be32(change.key, obj.cls);
        change.key_size += put_be32(change.key + 4, (uint32_t)(obj.key >> 32));
        change.key_size += put_be32(change.key + 8, (uint32_t)obj.key);
        const uint8_t *tail;
        size_t tail_size = take_bytes(p, 20, &tail);
        memcpy(change.key + change.key_size, tail, tail_size);
        change.key_size += tail_size;
        if (u8(p) % 4 == 0) change.data = NULL;
    } else { /* a primary-key or index entry of obj's class */
        bool index = where == 4;
        change.table = index ? "index" : "pk";
        change.flags = index ? MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP : 0;
        change.key_size = put_be32(change.key, obj.cls);
        if (index) {
            change.key[change.key_size++] = 0;
            change.key[change.key_size++] = u8(p) % 8;
        }
        const uint8_t *tail;
        size_t tail_size = take_bytes(p, 40, &tail);
        memcpy(change.key + change.key_size, tail, tail_size);
        change.key_size += tail_size;
    }
    if (change.key_size && (!change.data || change.data_size)) apply_raw(s, &change);
}

/* Embedded objects created in place: in a to-one link, at a list position, at a map key. */
static void op_embedded(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_obj owner = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    uint8_t how = u8(p);
    size_t index = pick_index(p);
    lar_string key_space;
    const lar_string *key = take_key(p, &key_space);
    uint8_t count = u8(p) % 10;
    lar_value values[9];
    for (uint8_t i = 0; i < count; i++) values[i] = take_value(s, p);
    const lar_value *given = count == 9 ? NULL : values;
    size_t given_count = count == 9 ? 0 : count;
    lar_obj obj, *out = how & 0x80 ? NULL : &obj;
    int rc;
    switch (how % 4) {
    case 0: rc = lar_obj_create_embedded(txn, owner, prop, given, given_count, out); break;
    case 1: rc = lar_list_insert_embedded(txn, owner, prop, index, given, given_count, out); break;
    case 2: rc = lar_list_set_embedded(txn, owner, prop, index, given, given_count, out); break;
    default: rc = lar_map_put_embedded(txn, owner, prop, key, given, given_count, out); break;
    }
    if (rc) fuzz_consume_error(rc);
    else if (out) remember(s, obj);
}

/* An object created with embedded objects in its to-one links: up to 3 inits, each with
 * a property (likely or not), values or none; a NULL array with a count, NULL outs. */
static void op_create_with_embedded(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t count = u8(p) % 10;
    lar_value values[9];
    for (uint8_t i = 0; i < count; i++) values[i] = take_value(s, p);
    uint8_t how = u8(p);
    size_t init_count = how % 4;
    lar_embedded_init inits[3];
    lar_value init_values[3][4];
    for (size_t i = 0; i < init_count && i < 3; i++) {
        uint8_t n = u8(p) % 6;
        for (uint8_t j = 0; j < n && j < 4; j++) init_values[i][j] = take_value(s, p);
        inits[i] = (lar_embedded_init){pick_prop(p), n == 5 ? NULL : init_values[i], n == 5 ? 0 : n};
    }
    if (init_count == 3 && (how & 0x10)) init_count = 300; /* more than any class has properties */
    lar_obj obj, made[3];
    int rc = lar_obj_create_with_embedded(txn, cls, count == 9 ? NULL : values, count == 9 ? 0 : count,
                                          how & 0x20 ? NULL : inits, init_count, how & 0x40 ? NULL : &obj,
                                          how & 0x80 ? NULL : made);
    if (rc) return fuzz_consume_error(rc);
    if (!(how & 0x40)) remember(s, obj);
    for (size_t i = 0; !(how & 0x80) && i < init_count; i++) remember(s, made[i]);
}

/* ---- results: sort, distinct, limit, aggregates ---- */

static const char *const KEY_PATHS[] = {"name", "age", "score", "owner", "owner.name", "owner.age", "owner.owner.name",
                                        "tag", "x", "y", "id", "x.name", "y.age", "owner.x.score", "@links.Person.owner",
                                        "name.@count", "tag.@max", "x['k']", "x.@type", "name ASC", "", "h\xc3\xa9",
                                        "owner.tag"};
#define KEY_PATH_COUNT (sizeof KEY_PATHS / sizeof *KEY_PATHS)

/* A key path: a likely one, raw bytes (invalid UTF-8 among them), or NULL. */
static const char *take_key_path(program *p)
{
    uint8_t choice = u8(p);
    if (choice < 200) return KEY_PATHS[choice % KEY_PATH_COUNT];
    return choice < 250 ? take_text(p, 40) : NULL;
}

/* Results built by hand (lar_query_run is not needed for these): every object of a class
 * (up to 2048), or keys picked from the program, live, deleted or never made. */
static void fill_results(state *s, program *p, lar_txn *txn, lar_results *r)
{
    static lar_objkey keys[2048];
    r->env = s->env;
    r->cls = pick_class(p);
    r->keys = keys;
    r->capacity = sizeof keys / sizeof *keys;
    uint8_t how = u8(p);
    if (how % 2) {
        size_t count = how / 2 % 17;
        for (size_t i = 0; i < count; i++) keys[r->count++] = pick_obj(s, p).key;
        return;
    }
    lar_iter *it;
    int rc = lar_iter_open(txn, r->cls, &it);
    if (rc) return fuzz_consume_error(rc);
    lar_obj obj;
    while (r->count < r->capacity && (rc = lar_iter_next(it, &obj)) == LAR_OK) keys[r->count++] = obj.key;
    if (rc != LAR_OK && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
    lar_iter_close(it);
}

static void op_results(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_results results = {0};
    fill_results(s, p, txn, &results);
    uint8_t flags = u8(p);
    lar_results *r = flags == 255 ? NULL : &results;
    size_t actions = u8(p) % 6;
    for (size_t a = 0; a < actions; a++) {
        uint8_t kind = u8(p);
        size_t before = results.count, count = u8(p) % 5;
        lar_sort_descriptor descriptors[4];
        const char *paths[4];
        for (size_t i = 0; i < count && i < 4; i++) {
            descriptors[i] = (lar_sort_descriptor){take_key_path(p), u8(p) % 2};
            paths[i] = descriptors[i].keypath;
        }
        if (count == 4) count = kind & 0x80 ? 300 : 0; /* too many: refused before reading */
        int rc;
        lar_value out;
        switch (kind % 4) {
        case 0: rc = lar_results_sort(txn, r, kind & 0x40 ? NULL : descriptors, count); break;
        case 1: rc = lar_results_distinct(txn, r, kind & 0x40 ? NULL : paths, count); break;
        case 2: rc = lar_results_limit(r, u8(p)); break;
        default:
            rc = lar_results_aggregate(txn, r, take_key_path(p), (lar_aggregate_op)(u8(p) % 7), kind & 0x40 ? NULL : &out);
            if (rc == LAR_OK && !(kind & 0x40)) fuzz_consume_value(&out);
            break;
        }
        if (rc) fuzz_consume_error(rc);
        if (results.count > before) abort(); /* sort, distinct and limit never add objects */
    }
}

/* lar_results_from_keys: keys picked from the program (live, deleted or never made),
 * none with a NULL array, or a NULL out; then sorted, aggregated and iterated. */
static void op_results_from_keys(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t how = u8(p);
    lar_objkey keys[16];
    size_t count = how % 17;
    for (size_t i = 0; i < count && i < 16; i++) keys[i] = pick_obj(s, p).key;
    if (count == 16 && how & 0x80) count = SIZE_MAX; /* too many: refused before copying */
    lar_results *r = NULL;
    int rc = lar_results_from_keys(txn, cls, how & 0x40 ? NULL : keys, count, how & 0x20 ? NULL : &r);
    if (rc) {
        if (r) abort(); /* no result on failure */
        fuzz_consume_error(rc);
        return;
    }
    lar_sort_descriptor by = {take_key_path(p), u8(p) % 2};
    if ((rc = lar_results_sort(txn, r, &by, 1))) fuzz_consume_error(rc);
    lar_value out;
    rc = lar_results_aggregate(txn, r, take_key_path(p), (lar_aggregate_op)(u8(p) % 7), &out);
    if (rc) fuzz_consume_error(rc);
    else fuzz_consume_value(&out);
    lar_iter *it;
    if ((rc = lar_iter_open_results(txn, r, &it))) fuzz_consume_error(rc);
    else {
        lar_obj obj;
        while ((rc = lar_iter_next(it, &obj)) == LAR_OK) {}
        if (rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
        lar_iter_close(it);
    }
    lar_results_free(r);
}

/* Reads every part of a change set, checking each index is in range of nothing smaller than 0. */
static void read_changeset(const lar_changeset *cs)
{
    for (int part = 0; part < 5; part++) {
        const size_t *indices;
        size_t count;
        int rc = lar_changeset_get(cs, (lar_changeset_part)part, &indices, &count);
        if (rc) {
            fuzz_consume_error(rc);
            continue;
        }
        volatile size_t sum = 0;
        for (size_t i = 0; i < count; i++) sum += indices[i];
        (void)sum;
    }
    int empty;
    int rc = lar_changeset_is_empty(cs, &empty);
    if (rc) fuzz_consume_error(rc);
}

/* What a call that makes a change set returned: its error, or the change set, read and freed. */
static void consume_changeset(int rc, lar_changeset *cs)
{
    if (rc) {
        if (cs) abort(); /* no change set on failure */
        fuzz_consume_error(rc);
        return;
    }
    read_changeset(cs);
    lar_changeset_free(cs);
}

/* The change log: changes since a version near the transaction's, what they say about a
 * class, an object and a list (of objects). */
static void op_changes(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    uint8_t how = u8(p);
    uint64_t version = 0;
    int rc = lar_txn_version(txn, how & 0x80 ? NULL : &version);
    if (rc) fuzz_consume_error(rc);
    uint64_t from = how & 0x40 ? u64(p) : version - (version ? how % 4 % (version + 1) : 0);
    lar_changes *c = NULL;
    rc = lar_changes_read(txn, from, how & 0x20 ? NULL : &c);
    if (rc) {
        if (c) abort(); /* no changes on failure */
        fuzz_consume_error(rc);
        return;
    }
    lar_class classes[4];
    size_t count;
    if ((rc = lar_changes_classes(c, classes, u8(p) % 5, &count))) fuzz_consume_error(rc);
    lar_class_changes cc;
    if ((rc = lar_changes_class(c, pick_class(p), &cc))) fuzz_consume_error(rc);
    else {
        volatile lar_objkey sum = 0;
        for (size_t i = 0; i < cc.inserted_count; i++) sum += cc.inserted[i];
        for (size_t i = 0; i < cc.deleted_count; i++) sum += cc.deleted[i];
        for (size_t i = 0; i < cc.modified_count; i++) sum += cc.modified[i];
        (void)sum;
    }
    lar_obj obj = pick_obj(s, p);
    uint32_t props[4];
    int object_state;
    if ((rc = lar_changes_object(c, obj, &object_state, props, u8(p) % 5, &count))) fuzz_consume_error(rc);
    lar_changeset *cs = NULL;
    uint32_t list_prop = pick_prop(p);
    size_t old_count = u8(p) % 16;
    rc = lar_list_changeset(c, obj, list_prop, old_count, &cs);
    consume_changeset(rc, cs);
    cs = NULL;
    rc = lar_list_changeset_objects(txn, c, obj, list_prop, old_count, &cs);
    consume_changeset(rc, cs);
    uint64_t first, last;
    if ((rc = lar_changes_range(c, &first, &last))) fuzz_consume_error(rc);
    lar_changes_free(c);
}

/* A kept result brought to a transaction's version by a query (of its class or not) and
 * a sort, from another transaction's version or without one. */
static void op_results_update(state *s, program *p)
{
    lar_results *r = s->results[u8(p) % RESULTS];
    uint8_t how = u8(p);
    lar_txn *old_txn = how & 0x80 ? NULL : pick_txn(s, p);
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    const char *text = QUERY_TEXTS[u8(p) % (sizeof QUERY_TEXTS / sizeof *QUERY_TEXTS)];
    lar_value arg = take_value(s, p);
    lar_sort_descriptor by = {take_key_path(p), how & 1};
    lar_query *q = NULL;
    size_t args = 0;
    int rc = lar_query_parse(s->env, cls, text, &q);
    if (!rc) rc = lar_query_argument_count(q, &args);
    lar_query_arg bound = {.kind = LAR_QUERY_ARG_VALUE, .value = arg};
    if (!rc && args == 1) rc = lar_query_bind(q, &bound, 1);
    lar_changeset *cs = NULL;
    if (!rc) rc = lar_results_update(old_txn, txn, q, how & 0x40 ? NULL : &by, how & 0x20 ? 1 : 0, r, &cs);
    consume_changeset(rc, cs);
    lar_query_free(q);
}

/* The changes from old_txn's version (0 without it) to txn's, or NULL (the error consumed). */
static lar_changes *changes_between(lar_txn *old_txn, lar_txn *txn)
{
    uint64_t version = 0;
    lar_changes *c = NULL;
    int rc = old_txn ? lar_txn_version(old_txn, &version) : LAR_OK;
    if (!rc) rc = lar_changes_read(txn, version, &c);
    if (rc) fuzz_consume_error(rc);
    return c;
}

/* A map's changes (or the error that gave none): each part's keys read, then freed. */
static void consume_map_changes(int rc, lar_map_changes *mc)
{
    if (rc) {
        if (mc) abort(); /* nothing on failure */
        fuzz_consume_error(rc);
        return;
    }
    for (int part = 0; part < 4; part++) {
        const lar_string *keys;
        size_t count;
        if ((rc = lar_map_changes_get(mc, (lar_changeset_part)part, &keys, &count))) {
            fuzz_consume_error(rc);
            continue;
        }
        for (size_t i = 0; i < count; i++) {
            lar_value key = {.type = LAR_TYPE_STRING, .as.string = keys[i]};
            fuzz_consume_value(&key); /* every byte and the NUL after them */
        }
    }
    lar_map_changes_free(mc);
}

/* A set's and a map's changes between two transactions, with the log's changes or without. */
static void op_keyed_changes(state *s, program *p)
{
    lar_txn *old_txn = pick_txn(s, p), *txn = pick_txn(s, p);
    uint8_t how = u8(p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    lar_changes *c = how & 0x80 ? changes_between(old_txn, txn) : NULL;
    int rc;
    lar_changeset *cs = NULL;
    rc = lar_set_changeset(old_txn, txn, c, obj, prop, how & 0x40 ? NULL : &cs);
    consume_changeset(rc, cs);
    lar_map_changes *mc = NULL;
    rc = lar_map_changeset(old_txn, txn, c, obj, prop, how & 0x20 ? NULL : &mc);
    consume_map_changes(rc, mc);
    lar_changes_free(c);
}

/* The file's version, and a watch for commits: opened, its descriptor read, waited on
 * briefly, closed. */
static void op_watch(state *s, program *p)
{
    uint8_t how = u8(p);
    uint64_t file_version;
    int rc = lar_env_version(how & 0x08 ? NULL : s->env, how & 0x04 ? NULL : &file_version);
    if (rc) fuzz_consume_error(rc);
    lar_watch *w = NULL;
    rc = lar_watch_open(how & 0x80 ? NULL : s->env, how & 0x40 ? NULL : &w);
    if (rc) {
        if (w) abort(); /* no watch on failure */
        fuzz_consume_error(rc);
        return;
    }
    int fd;
    if ((rc = lar_watch_fd(w, how & 0x20 ? NULL : &fd))) fuzz_consume_error(rc);
    uint64_t version;
    rc = lar_watch_wait(w, how & 1, how & 0x10 ? NULL : &version);
    if (rc && rc != LAR_ENOTFOUND) fuzz_consume_error(rc);
    lar_watch_close(w);
}

/* A commit with flags (a group commit's, unknown ones, of a NULL or ended transaction),
 * then perhaps a sync of the file. */
static void op_commit_sync(state *s, program *p)
{
    lar_txn *txn = s->txns[u8(p) % TXNS];
    uint8_t how = u8(p);
    unsigned int flags = how & 0x40 ? (unsigned int)(how & 0x3e) : LAR_COMMIT_NOSYNC;
    int rc = lar_txn_commit_flags(how & 0x80 ? NULL : txn, flags);
    if (rc) fuzz_consume_error(rc);
    if (how & 1 && (rc = lar_env_sync(how & 0x02 ? NULL : s->env))) fuzz_consume_error(rc);
}

/* The element changes the log lists for a set and a map: read, each part walked, freed. */
static void op_element_changes(state *s, program *p)
{
    lar_txn *old_txn = pick_txn(s, p), *txn = pick_txn(s, p);
    uint8_t how = u8(p);
    lar_obj obj = pick_obj(s, p);
    uint32_t prop = pick_prop(p);
    lar_changes *c = how & 0x80 ? NULL : changes_between(old_txn, txn);
    lar_set_changes *sc = NULL;
    int rc = lar_changes_set_elements(how & 0x08 ? old_txn : txn, c, obj, prop, how & 0x40 ? NULL : &sc);
    if (rc) {
        if (sc) abort(); /* nothing on failure */
        fuzz_consume_error(rc);
    }
    for (int part = 0; sc && part < 4; part++) {
        const lar_value *values;
        size_t count;
        if ((rc = lar_set_changes_get(sc, (lar_changeset_part)part, how & 0x04 ? NULL : &values, &count))) {
            fuzz_consume_error(rc);
            continue;
        }
        for (size_t i = 0; i < count; i++) fuzz_consume_value(&values[i]);
    }
    lar_set_changes_free(sc);
    lar_map_changes *mc = NULL;
    rc = lar_changes_map_keys(how & 0x08 ? old_txn : txn, c, obj, prop, how & 0x20 ? NULL : &mc);
    consume_map_changes(rc, mc);
    lar_changes_free(c);
}

/* Several aggregates of one key path in one pass, over a query's scan and over its result:
 * the same error, every value null on error, and each value of the type its op alone gives. */
static void op_aggregates(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t which = u8(p), how = u8(p);
    const char *path = take_key_path(p);
    lar_aggregate_op ops[6];
    size_t count = how % 7;
    for (size_t i = 0; i < count; i++) ops[i] = (lar_aggregate_op)(u8(p) % 7);
    lar_query *q = NULL;
    lar_results *r = NULL;
    int rc = lar_query_parse(s->env, cls, QUERY_TEXTS[which % (sizeof QUERY_TEXTS / sizeof *QUERY_TEXTS)], &q);
    if (!rc) rc = lar_query_run(txn, q, &r);
    if (rc) fuzz_consume_error(rc);
    lar_value scanned[6], passed[6];
    int rc_query = lar_query_run_aggregates(how & 0x80 ? NULL : txn, q, path, how & 0x40 ? NULL : ops, count,
                                            how & 0x20 ? NULL : scanned);
    int rc_results = lar_results_aggregates(txn, r, path, ops, count, passed);
    if (!(how & 0xE0) && r && rc_query != rc_results) abort();
    for (size_t i = 0; i < count && !(how & 0x60); i++) {
        if (rc_query && scanned[i].type != LAR_TYPE_NULL) abort();
        if (!rc_query) fuzz_consume_value(&scanned[i]);
    }
    for (size_t i = 0; i < count; i++) {
        lar_value alone;
        if (rc_results) {
            if (passed[i].type != LAR_TYPE_NULL) abort();
        } else if (!lar_results_aggregate(txn, r, path, ops[i], &alone)) {
            if (alone.type != passed[i].type) abort();
            fuzz_consume_value(&passed[i]);
        }
    }
    if (rc_query) fuzz_consume_error(rc_query);
    if (rc_results) fuzz_consume_error(rc_results);
    lar_results_free(r);
    lar_query_free(q);
}

/* lar_query_run_keys: a query on keys picked from the program (live, deleted or never
 * made, repeated), in their order; on a sound file it keeps exactly the given keys that
 * lar_query_run's result holds, in the given order. */
static void op_run_keys(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    lar_class cls = pick_class(p);
    uint8_t which = u8(p), how = u8(p);
    lar_objkey keys[16];
    size_t count = how % 17;
    for (size_t i = 0; i < count && i < 16; i++) keys[i] = pick_obj(s, p).key;
    if (count == 16 && how & 0x80) count = SIZE_MAX; /* too many: refused before reading */
    lar_query *q = NULL;
    int rc = lar_query_parse(s->env, cls, QUERY_TEXTS[which % (sizeof QUERY_TEXTS / sizeof *QUERY_TEXTS)], &q);
    if (rc) fuzz_consume_error(rc);
    lar_results *kept = NULL, *all = NULL;
    rc = lar_query_run_keys(txn, q, how & 0x40 ? NULL : keys, count, how & 0x20 ? NULL : &kept);
    if (rc) {
        if (kept) abort(); /* no result on failure */
        fuzz_consume_error(rc);
    } else if (!s->damaged && lar_query_run(txn, q, &all) == LAR_OK) {
        size_t kept_count = 0, all_count = 0, at = 0;
        lar_results_count(kept, &kept_count);
        lar_results_count(all, &all_count);
        for (size_t i = 0; i < count; i++) {
            bool in_all = false;
            for (size_t j = 0; j < all_count && !in_all; j++) {
                lar_obj obj;
                in_all = lar_results_get(all, j, &obj) == LAR_OK && obj.key == keys[i];
            }
            if (!in_all) continue;
            lar_obj obj;
            if (at >= kept_count || lar_results_get(kept, at++, &obj) != LAR_OK || obj.key != keys[i]) abort();
        }
        if (at != kept_count) abort();
    }
    lar_error_clear();
    lar_results_free(all);
    lar_results_free(kept);
    lar_query_free(q);
}

/* lar_env_copy: to a fresh path (then opened and closed), over the file itself or an
 * existing copy (refused), to NULL or an empty path. */
static void op_copy(state *s, program *p)
{
    char copy[300];
    snprintf(copy, sizeof copy, "%s-copy", fuzz_db_path);
    uint8_t how = u8(p);
    if (!(how & 0x10)) unlink(copy);
    const char *path = how & 0x80 ? NULL : how & 0x40 ? "" : how & 0x20 ? fuzz_db_path : copy;
    int rc = lar_env_copy(how & 0x08 ? NULL : s->env, path);
    if (rc) {
        fuzz_consume_error(rc);
        return;
    }
    lar_env *copied = NULL;
    if ((rc = lar_env_open(copy, NULL, &copied))) fuzz_consume_error(rc);
    if (copied && (rc = lar_env_close(copied))) fuzz_consume_error(rc);
    unlink(copy);
    char lock[320];
    snprintf(lock, sizeof lock, "%s-lock", copy);
    unlink(lock);
}

static const char *const VALUE_QUERY_TEXTS[] = {
    "self > 3", "self == nil", "self BEGINSWITH[c] 'a'", "self.@type == 'string' OR self == 2",
    "self.@count > 1", "self IN {1, 'a', nil}", "NOT self != $0", "self ==[cd] %@", "age > 3",
};

/* lar_query_match_values: a query over values of a picked type (any lar_type, valid or
 * not), run on values taken from the program (of any type, well formed or not). Each value
 * of a good batch matches alone as it did in the batch. */
static void op_match_values(state *s, program *p)
{
    lar_txn *txn = pick_txn(s, p);
    uint8_t which = u8(p), how = u8(p);
    lar_type type = (lar_type)(u8(p) % 17);
    lar_query *q = NULL;
    const char *text = VALUE_QUERY_TEXTS[which % (sizeof VALUE_QUERY_TEXTS / sizeof *VALUE_QUERY_TEXTS)];
    int rc = lar_query_parse_values(how & 0x80 ? NULL : s->env, type, how & 1, how & 0x40 ? NULL : text, &q);
    if (rc) fuzz_consume_error(rc);
    size_t arg_count = 0;
    if (q && !lar_query_argument_count(q, &arg_count) && arg_count) {
        lar_query_arg arg = {.kind = LAR_QUERY_ARG_VALUE, .value = take_value(s, p)};
        if ((rc = lar_query_bind(q, &arg, 1))) fuzz_consume_error(rc);
    }
    lar_value values[8];
    unsigned char hits[8], alone;
    size_t count = how / 2 % 9;
    for (size_t i = 0; i < count; i++) values[i] = take_value(s, p);
    rc = lar_query_match_values(txn, q, how & 0x20 ? NULL : values, count, hits);
    if (rc) {
        fuzz_consume_error(rc);
        lar_query_free(q);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        if (hits[i] > 1) abort();
        if (lar_query_match_values(txn, q, &values[i], 1, &alone) != LAR_OK || alone != hits[i]) abort();
    }
    lar_query_free(q);
}

typedef void (*operation)(state *, program *);
static const operation OPERATIONS[] = {
    op_schema, op_begin, op_end, op_create, op_get, op_set, op_delete, op_find,
    op_iter_open, op_iter_bind, op_iter_step, op_iter_close, op_lookup, op_reopen, op_damage,
    op_backlinks, op_list, op_list_fill, op_set_elements, op_map, op_set_fill, op_nested, op_embedded,
    op_query, op_results, op_results_from_keys, op_changes, op_results_update, op_watch, op_keyed_changes,
    op_commit_sync,
    op_element_changes,
    op_aggregates,
    op_run_keys,
    op_copy,
    op_iter_follow,
    op_create_with_embedded,
    op_match_values,
};
static const char *const OPERATION_NAMES[] = {
    "schema", "begin", "end", "create", "get", "set", "delete", "find",
    "iter_open", "iter_bind", "iter_step", "iter_close", "lookup", "reopen", "damage",
    "backlinks", "list", "list_fill", "set", "map", "set_fill", "nested", "embedded",
    "query", "results", "results_from_keys", "changes", "results_update", "watch", "keyed_changes",
    "commit_sync",
    "element_changes",
    "aggregates",
    "run_keys",
    "copy",
    "iter_follow",
    "create_with_embedded",
    "match_values",
};
#define OPERATION_COUNT (sizeof OPERATIONS / sizeof *OPERATIONS)

/* ---- the entry point ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static state s;
    memset(&s, 0, sizeof s);
    s.path = fuzz_db_path;
    arena_used = 0;
    fuzz_remove_db();
    program p = {data, data + size};
    if (open_file(&s, u8(&p) % 2 ? SMALL_MAP : 0) != LAR_OK) abort();
    for (int steps = 0; more(&p) && steps < 200; steps++) {
        if (!s.env) break; /* reopening failed: nothing left to do */
        uint8_t op = u8(&p) % OPERATION_COUNT;
        if (fuzz_tracing) fprintf(stderr, "%s\n", OPERATION_NAMES[op]);
        OPERATIONS[op](&s, &p);
    }
    close_all(&s);
    lar_error_clear();
    return 0;
}

