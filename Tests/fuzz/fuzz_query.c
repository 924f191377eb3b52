/* libFuzzer harness for the query parser (CCore/query).
 *
 * Each input is query text, run against a small fixed schema (Dog, Person, Address:
 * links, a backlink, lists, a set, a map, mixed values, every scalar type). The first
 * byte picks the class the query is on; the rest, up to a NUL, is the text; bytes after
 * the NUL choose the arguments bound to it (values of every type, lists, key paths).
 *
 * Beyond "no crash, no leak, no sanitizer report", every accepted query must describe
 * to a canonical text that parses again and describes to the same text, and every
 * failure must record LAR_EINVAL (or LAR_ENOMEM) with a message. The SORT, DISTINCT and
 * LIMIT suffixes of a resolved query are applied to every object of its class (a few
 * dogs, people and addresses, some links null), and must keep or drop keys, never add one. */
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

/* Dogs with names, ages, weights (nil, NaN) and mixed values of several kinds, some
 * with an owner whose address may be nil. */
static void add_objects(void)
{
    lar_txn *txn;
    if (lar_txn_begin(env, LAR_TXN_WRITE, &txn) != LAR_OK) abort();
    lar_obj address, people[2], dog;
    lar_value city = {.type = LAR_TYPE_STRING, .as.string = {"Oslo", 4}};
    if (lar_obj_create(txn, classes[0], &city, 1, &address) != LAR_OK) abort();
    for (int i = 0; i < 2; i++) {
        if (lar_obj_create(txn, classes[1], NULL, 0, &people[i]) != LAR_OK) abort();
        lar_value name = {.type = LAR_TYPE_STRING, .as.string = {i ? "Bo" : "Al", 2}};
        lar_value where = {.type = i ? LAR_TYPE_NULL : LAR_TYPE_LINK, .as.link = address};
        if (lar_obj_set(txn, people[i], 0, &name) != LAR_OK || lar_obj_set(txn, people[i], 2, &where) != LAR_OK) abort();
    }
    for (int i = 0; i < 6; i++) {
        if (lar_obj_create(txn, classes[2], NULL, 0, &dog) != LAR_OK) abort();
        static const char *const names[] = {"rex", "fido"};
        lar_value values[] = {
            {.type = LAR_TYPE_STRING, .as.string = {names[i % 2], strlen(names[i % 2])}},
            {.type = LAR_TYPE_INT, .as.integer = i % 3},
            {.type = i % 3 ? LAR_TYPE_DOUBLE : LAR_TYPE_NULL, .as.float64 = i == 1 ? 0.0 / 0.0 : i},
            i % 2 ? (lar_value){.type = LAR_TYPE_INT, .as.integer = 1} : (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = 1},
            {.type = i % 3 ? LAR_TYPE_LINK : LAR_TYPE_NULL, .as.link = people[i % 2]},
        };
        const uint32_t props[] = {0, 1, 2, 10, 11};
        for (int p = 0; p < 5; p++)
            if (lar_obj_set(txn, dog, props[p], &values[p]) != LAR_OK) abort();
    }
    if (lar_txn_commit(txn) != LAR_OK) abort();
    lar_txn_free(txn);
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
    add_objects();
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
            apply_orders(q, cls);
        } else {
            check_error(rc);
            free(describe(q, 0));
        }
    }
    lar_query_free(q);
    free(text);
    return 0;
}
