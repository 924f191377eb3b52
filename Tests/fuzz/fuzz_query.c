/* libFuzzer harness for the query parser (CCore/query).
 *
 * Each input is query text, run against a small fixed schema (Dog, Person, Address:
 * links, a backlink, lists, a set, a map, mixed values, every scalar type). The first
 * byte picks the class the query is on; the rest, up to a NUL, is the text; bytes after
 * the NUL choose the arguments bound to it (values of every type, lists, key paths).
 *
 * Beyond "no crash, no leak, no sanitizer report", every accepted query must describe
 * to a canonical text that parses again and describes to the same text, and every
 * failure must record LAR_EINVAL (or LAR_ENOMEM) with a message. Every accepted query
 * also runs against a small populated database (objects with links, lists, sets, maps,
 * mixed and nested values): in a read and in a write transaction, which must agree,
 * and an unbound one must be refused. The SORT, DISTINCT and LIMIT suffixes of a
 * resolved query are applied to every object of its class, and must keep or drop
 * keys, never add one. */
#include "fuzz_support.h"
#include "query/order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lar_env *env;
static lar_class classes[3];

#define COLL(name, type, coll, flags, target) \
    ((lar_property_def){(name), (type), (coll), (flags), (target), NULL})
#define PROP(name, type, flags) COLL(name, type, LAR_COLLECTION_NONE, flags, NULL)

#define OK(call)                                                                         \
    do {                                                                                 \
        if ((call) != LAR_OK) {                                                          \
            fprintf(stderr, "%s failed: %s\n", #call, lar_error_last()->message);        \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* A few objects of each class, their collections filled, so that queries find something. */
static void populate(void)
{
    lar_txn *txn;
    OK(lar_txn_begin(env, LAR_TXN_WRITE, &txn));
    lar_obj addresses[2], people[3], dogs[6];
    const char *cities[] = {"London", "Z\xc3\xbcrich"};
    for (int i = 0; i < 2; i++) {
        lar_value v[] = {{.type = LAR_TYPE_STRING, .as.string = {cities[i], strlen(cities[i])}}};
        OK(lar_obj_create(txn, classes[0], v, 1, &addresses[i]));
    }
    const char *names[] = {"Ann", "bob", "\xc3\x89mile"};
    for (int i = 0; i < 3; i++) {
        lar_value v[] = {{.type = LAR_TYPE_STRING, .as.string = {names[i], strlen(names[i])}}, {.type = LAR_TYPE_NULL},
                         i < 2 ? (lar_value){.type = LAR_TYPE_LINK, .as.link = addresses[i]} : (lar_value){.type = LAR_TYPE_NULL}};
        OK(lar_obj_create(txn, classes[1], v, 3, &people[i]));
    }
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "%s%d", i % 2 ? "Rex" : "r\xc3\xa9x", i);
        lar_value extra = i % 3 == 0 ? (lar_value){.type = LAR_TYPE_INT, .as.integer = i}
                        : i % 3 == 1 ? (lar_value){.type = LAR_TYPE_STRING, .as.string = {"x", 1}}
                                     : (lar_value){.type = LAR_TYPE_LIST};
        lar_value v[17] = {
            {.type = LAR_TYPE_STRING, .as.string = {name, strlen(name)}},
            {.type = LAR_TYPE_INT, .as.integer = i * 3 - 5},
            i == 2 ? (lar_value){.type = LAR_TYPE_NULL} : (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = i / 3.0},
            {.type = LAR_TYPE_FLOAT, .as.float32 = (float)i},
            {.type = LAR_TYPE_BOOL, .as.boolean = i & 1},
            {.type = LAR_TYPE_TIMESTAMP, .as.timestamp = {i * 100 - 200, 0}},
            {.type = LAR_TYPE_OBJECT_ID, .as.object_id = {{(uint8_t)i}}},
            {.type = LAR_TYPE_UUID, .as.uuid = {{(uint8_t)(6 - i)}}},
            {.type = LAR_TYPE_DECIMAL128, .as.decimal128 = {(uint64_t)i, 0x3040000000000000ull}},
            {.type = LAR_TYPE_BINARY, .as.binary = {name, 2}},
            extra,
            i < 4 ? (lar_value){.type = LAR_TYPE_LINK, .as.link = people[i % 3]} : (lar_value){.type = LAR_TYPE_NULL},
        };
        OK(lar_obj_create(txn, classes[2], v, 17, &dogs[i]));
        lar_value tag = {.type = LAR_TYPE_STRING, .as.string = {"abc", 1 + (size_t)i % 3}};
        for (int j = 0; j < i % 3; j++) OK(lar_list_append(txn, dogs[i], 12, &tag));
        lar_value score = {.type = LAR_TYPE_INT, .as.integer = i};
        OK(lar_set_insert(txn, dogs[i], 13, &score, NULL));
        lar_string key = {"k", 1};
        if (i % 2) OK(lar_map_put(txn, dogs[i], 14, &key, &tag));
        lar_value friend = {.type = LAR_TYPE_LINK, .as.link = dogs[i / 2]};
        OK(lar_list_append(txn, dogs[i], 15, &friend));
        OK(lar_list_append(txn, dogs[i], 16, i % 2 ? &score : &tag));
        lar_value dog = {.type = LAR_TYPE_LINK, .as.link = dogs[i]};
        OK(lar_list_append(txn, people[i % 3], 1, &dog));
    }
    OK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

/* lar_query_run_aggregate folds what lar_results_aggregate folds over r, the query's result
 * of count objects: the same count, and the same error or value for a key path. */
static void check_fold(lar_txn *txn, lar_query *q, const lar_results *r, size_t count)
{
    lar_value direct, folded;
    OK(lar_query_run_aggregate(txn, q, NULL, LAR_AGGREGATE_COUNT, &direct));
    if (direct.type != LAR_TYPE_INT || direct.as.integer != (int64_t)count) abort();
    static const char *const paths[] = {"age", "owner.age", "extra"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        for (int op = LAR_AGGREGATE_COUNT; op <= LAR_AGGREGATE_AVERAGE; op++) {
            int rc_direct = lar_query_run_aggregate(txn, q, paths[i], (lar_aggregate_op)op, &direct);
            int rc_folded = lar_results_aggregate(txn, r, paths[i], (lar_aggregate_op)op, &folded);
            if (rc_direct != rc_folded) abort();
            if (rc_direct == LAR_OK && (direct.type != folded.type ||
                                        (direct.type == LAR_TYPE_INT && direct.as.integer != folded.as.integer)))
                abort();
        }
    }
}

/* Runs q in txn into a malloc'd list of keys (NULL when the run failed, as it may). */
static lar_objkey *run(lar_query *q, lar_class cls, bool write, size_t *count)
{
    lar_txn *txn;
    OK(lar_txn_begin(env, write ? LAR_TXN_WRITE : LAR_TXN_READ, &txn));
    lar_results *r = NULL;
    int rc = lar_query_run(txn, q, &r);
    lar_objkey *keys = NULL;
    *count = 0;
    if (rc == LAR_OK) {
        OK(lar_results_count(r, count));
        keys = malloc(*count * sizeof *keys + 1);
        if (!keys) abort();
        for (size_t i = 0; i < *count; i++) {
            lar_obj obj;
            OK(lar_results_get(r, i, &obj));
            if (obj.cls != cls) abort();
            /* In key order without suffixes; never twice (SORT reorders, DISTINCT and LIMIT drop). */
            for (size_t j = 0; j < i; j++)
                if (obj.key == keys[j] || (!q->order_count && j == i - 1 && obj.key < keys[j])) abort();
            keys[i] = obj.key;
            int exists;
            OK(lar_obj_exists(txn, obj, &exists));
            if (!exists) abort();
        }
        lar_iter *iter;
        OK(lar_iter_open_results(txn, r, &iter));
        lar_obj obj;
        size_t seen = 0;
        while (lar_iter_next(iter, &obj) == LAR_OK) seen++;
        if (seen != *count) abort();
        lar_iter_close(iter);
        if (!write) check_fold(txn, q, r, *count);
        lar_results_free(r);
    } else {
        fuzz_consume_error(rc);
        if (rc != LAR_EINVAL && rc != LAR_ENOMEM) abort();
    }
    lar_txn_free(txn);
    return keys;
}

/* A read and a write transaction see the same data: they must select the same objects. */
static void check_run(lar_query *q, lar_class cls)
{
    size_t read_count, write_count;
    lar_objkey *read = run(q, cls, false, &read_count), *written = run(q, cls, true, &write_count);
    if (!read != !written || read_count != write_count ||
        (read_count && memcmp(read, written, read_count * sizeof *read) != 0)) {
        fprintf(stderr, "a read and a write transaction disagree on %s\n", lar_error_last()->message);
        abort();
    }
    free(read);
    free(written);
}

static void setup(void)
{
    if (env) return;
    fuzz_remove_db();
    if (lar_env_open(fuzz_db_path, NULL, &env) != LAR_OK) abort();
    lar_property_def address[] = {PROP("city", LAR_TYPE_STRING, 0)};
    lar_property_def person[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        COLL("dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
        COLL("address", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address"),
    };
    lar_property_def dog[] = {
        PROP("name", LAR_TYPE_STRING, 0), PROP("age", LAR_TYPE_INT, 0),
        PROP("weight", LAR_TYPE_DOUBLE, LAR_PROP_OPTIONAL), PROP("ratio", LAR_TYPE_FLOAT, 0),
        PROP("alive", LAR_TYPE_BOOL, 0), PROP("born", LAR_TYPE_TIMESTAMP, LAR_PROP_OPTIONAL),
        PROP("oid", LAR_TYPE_OBJECT_ID, 0), PROP("uid", LAR_TYPE_UUID, 0),
        PROP("price", LAR_TYPE_DECIMAL128, 0), PROP("data", LAR_TYPE_BINARY, 0),
        PROP("extra", LAR_TYPE_MIXED, 0),
        COLL("owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person"),
        COLL("tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL),
        COLL("scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL),
        COLL("attrs", LAR_TYPE_STRING, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, NULL),
        COLL("friends", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
        COLL("anys", LAR_TYPE_MIXED, LAR_COLLECTION_LIST, 0, NULL),
    };
    lar_class_def defs[] = {
        {"Address", address, sizeof address / sizeof *address, 0},
        {"Person", person, sizeof person / sizeof *person, 0},
        {"Dog", dog, sizeof dog / sizeof *dog, 0},
    };
    if (lar_schema_apply(env, defs, 3, 1) != LAR_OK) abort();
    for (int i = 0; i < 3; i++)
        if (lar_class_find(env, defs[i].name, &classes[i]) != LAR_OK) abort();
    populate();
}

static void check_error(int rc)
{
    fuzz_consume_error(rc);
    if (rc != LAR_EINVAL && rc != LAR_ENOMEM) {
        fprintf(stderr, "unexpected code %d: %s\n", rc, lar_error_last()->message);
        abort();
    }
}

/* The query's description; the caller frees it. */
static char *describe(const lar_query *q, unsigned flags)
{
    size_t length;
    int rc = lar_query_describe(q, NULL, 0, &length, flags);
    if (rc != LAR_EINVAL) abort(); /* a description is never empty */
    char *text = malloc(length + 1);
    if (!text) abort();
    size_t again;
    if (lar_query_describe(q, text, length + 1, &again, flags) != LAR_OK || again != length ||
        strlen(text) != length)
        abort();
    return text;
}

/* The canonical text parses again, to itself. */
static void check_round_trip(lar_class cls, const char *canonical)
{
    lar_query *again = NULL;
    int rc = lar_query_parse(env, cls, canonical, &again);
    if (rc != LAR_OK) {
        fprintf(stderr, "canonical text %s does not parse: %s\n", canonical, lar_error_last()->message);
        abort();
    }
    char *text = describe(again, 0);
    if (strcmp(text, canonical) != 0) {
        fprintf(stderr, "round trip: %s became %s\n", canonical, text);
        abort();
    }
    free(text);
    lar_query_free(again);
}

static const char *const keypaths[] = {"name", "age", "owner.name", "tags", "attrs['k']", "extra",
                                       "friends.age", "nosuch", "owner..x", "price", "born", "\xff"};

/* Argument i from the bytes after the text. */
static void make_arg(const uint8_t **at, const uint8_t *end, lar_query_arg *arg, lar_value *list, size_t list_room)
{
    uint8_t kind = *at < end ? *(*at)++ : 0;
    uint8_t pick = *at < end ? *(*at)++ : 0;
    memset(arg, 0, sizeof *arg);
    lar_value v = {.type = (lar_type)(pick % 13)};
    switch (v.type) {
    case LAR_TYPE_INT: v.as.integer = (int64_t)pick * 1000 - 64000; break;
    case LAR_TYPE_BOOL: v.as.boolean = pick & 1; break;
    case LAR_TYPE_FLOAT: v.as.float32 = (float)pick / 3; break;
    case LAR_TYPE_DOUBLE: v.as.float64 = (double)pick / 7; break;
    case LAR_TYPE_STRING: v.as.string.data = (const char *)*at; v.as.string.size = (size_t)(end - *at) < 4 ? (size_t)(end - *at) : 4; break;
    case LAR_TYPE_BINARY: v.as.binary.data = *at; v.as.binary.size = (size_t)(end - *at) < 3 ? (size_t)(end - *at) : 3; break;
    case LAR_TYPE_TIMESTAMP: v.as.timestamp.seconds = pick; break;
    case LAR_TYPE_LINK: v.as.link.cls = classes[pick % 3]; v.as.link.key = pick; break;
    case LAR_TYPE_MIXED: v.type = LAR_TYPE_DECIMAL128; v.as.decimal128.high = 0x3040000000000000ull; v.as.decimal128.low = pick; break;
    default: break;
    }
    switch (kind % 3) {
    case 0:
        arg->kind = LAR_QUERY_ARG_VALUE;
        arg->value = v;
        break;
    case 1:
        arg->kind = LAR_QUERY_ARG_LIST;
        arg->list_count = (size_t)(kind / 3) % (list_room + 1);
        for (size_t i = 0; i < arg->list_count; i++) {
            list[i] = v;
            if (v.type == LAR_TYPE_INT) list[i].as.integer += (int64_t)i;
        }
        arg->list = list;
        break;
    default:
        arg->kind = LAR_QUERY_ARG_KEYPATH;
        arg->keypath = keypaths[pick % (sizeof keypaths / sizeof *keypaths)];
    }
}

/* Applies q's suffixes in order to every object of cls. */
static void apply_orders(const lar_query *q, lar_class cls)
{
    if (!q->resolved || !q->order_count) return;
    lar_txn *txn;
    if (lar_txn_begin(env, LAR_TXN_READ, &txn) != LAR_OK) abort();
    lar_results r = {.env = env, .cls = cls};
    lar_objkey keys[16];
    r.keys = keys;
    r.capacity = 16;
    lar_iter *it;
    lar_obj obj;
    if (lar_iter_open(txn, cls, &it) != LAR_OK) abort();
    while (r.count < r.capacity && lar_iter_next(it, &obj) == LAR_OK) keys[r.count++] = obj.key;
    lar_iter_close(it);
    for (size_t i = 0; i < q->order_count; i++) {
        size_t before = r.count;
        int rc = results_apply_order(txn, &r, &q->orders[i]);
        if (rc != LAR_OK) check_error(rc);
        if (r.count > before) abort();
    }
    lar_txn_abort(txn);
    lar_txn_free(txn);
}

/* The text as a query over values of a type the first byte picks: an accepted one
 * describes to a text that parses again to itself, and matches each sample value alone
 * as in a batch of them, or refuses a value of another type. */
static void check_values(uint8_t pick, const char *text)
{
    static const lar_type types[] = {LAR_TYPE_INT, LAR_TYPE_STRING, LAR_TYPE_DOUBLE, LAR_TYPE_MIXED,
                                     LAR_TYPE_BOOL, LAR_TYPE_TIMESTAMP, LAR_TYPE_BINARY, LAR_TYPE_DECIMAL128};
    lar_type type = types[pick / 3 % 8];
    int optional = pick & 0x80;
    lar_query *q = NULL;
    int rc = lar_query_parse_values(env, type, optional, text, &q);
    if (rc != LAR_OK) {
        check_error(rc);
        if (q) abort();
        return;
    }
    char *canonical = describe(q, 0);
    lar_query *again = NULL;
    if (lar_query_parse_values(env, type, optional, canonical, &again) != LAR_OK) abort();
    char *text_again = describe(again, 0);
    if (strcmp(text_again, canonical) != 0) abort();
    free(text_again);
    free(canonical);
    lar_query_free(again);
    size_t count;
    OK(lar_query_argument_count(q, &count));
    lar_txn *txn;
    OK(lar_txn_begin(env, LAR_TXN_READ, &txn));
    const lar_value samples[] = {
        {.type = LAR_TYPE_INT, .as.integer = 3}, {.type = LAR_TYPE_STRING, .as.string = {"Rex", 3}},
        {.type = LAR_TYPE_DOUBLE, .as.float64 = -0.5}, {.type = LAR_TYPE_NULL},
        {.type = LAR_TYPE_BOOL, .as.boolean = 1}, {.type = LAR_TYPE_TIMESTAMP, .as.timestamp = {-100, 0}},
        {.type = LAR_TYPE_BINARY, .as.binary = {"ab", 2}}, {.type = LAR_TYPE_LIST},
        {.type = LAR_TYPE_LINK, .as.link = {1, classes[2]}}, {.type = LAR_TYPE_LINK, .as.link = {999, classes[1]}},
        {.type = LAR_TYPE_DECIMAL128, .as.decimal128 = {7, 0x3040000000000000ull}},
    };
    unsigned char hits[sizeof samples / sizeof *samples];
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        rc = lar_query_match_values(txn, q, &samples[i], 1, &hits[i]);
        if (count) { /* unbound: refused */
            if (rc != LAR_EINVAL) abort();
            fuzz_consume_error(rc);
            continue;
        }
        if (rc == LAR_OK && hits[i] > 1) abort();
        if (rc != LAR_OK) {
            fuzz_consume_error(rc);
            if (rc != LAR_ETYPE && rc != LAR_EINVAL) abort();
        }
    }
    lar_txn_free(txn);
    lar_query_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size == 0) return 0;
    lar_class cls = classes[data[0] % 3 == 0 ? 2 : data[0] % 3 - 1];
    const uint8_t *text_start = data + 1, *end = data + size;
    const uint8_t *nul = memchr(text_start, 0, (size_t)(end - text_start));
    size_t text_size = (size_t)((nul ? nul : end) - text_start);
    char *text = malloc(text_size + 1);
    if (!text) abort();
    memcpy(text, text_start, text_size);
    text[text_size] = 0;
    const uint8_t *rest = nul ? nul + 1 : end;

    check_values(data[0], text);
    lar_query *q = NULL;
    int rc = lar_query_parse(env, cls, text, &q);
    if (rc != LAR_OK) {
        check_error(rc);
        if (q) abort();
        free(text);
        return 0;
    }
    char *canonical = describe(q, 0);
    check_round_trip(cls, canonical);
    free(canonical);
    apply_orders(q, cls);

    size_t count;
    if (lar_query_argument_count(q, &count) != LAR_OK) abort();
    if (count == 0 || rest >= end) {
        if (count) { /* unbound: refused */
            lar_txn *txn;
            lar_results *r = NULL;
            OK(lar_txn_begin(env, LAR_TXN_READ, &txn));
            if (lar_query_run(txn, q, &r) != LAR_EINVAL || r) abort();
            lar_txn_free(txn);
        } else {
            check_run(q, cls);
        }
    }
    if (count && rest < end) {
        lar_query_arg args[8];
        lar_value lists[8][4];
        size_t n = count < 8 ? count : 8;
        for (size_t i = 0; i < n; i++) make_arg(&rest, end, &args[i], lists[i], 4);
        rc = lar_query_bind(q, args, n);
        if (rc == LAR_OK) {
            if (n != count) abort();
            canonical = describe(q, 0);
            check_round_trip(cls, canonical);
            free(canonical);
            free(describe(q, LAR_QUERY_DESCRIBE_VALUES));
            check_run(q, cls);
            apply_orders(q, cls);
            /* Bound again: values of the types bound before skip resolution (rebind_values). */
            for (size_t i = 0; i < n && rest < end; i++) make_arg(&rest, end, &args[i], lists[i], 4);
            rc = lar_query_bind(q, args, n);
            if (rc == LAR_OK) check_run(q, cls);
            else check_error(rc);
        } else {
            check_error(rc);
            free(describe(q, 0));
        }
    }
    lar_query_free(q);
    free(text);
    return 0;
}
