/* The kill -9 harness: crash <database path> <cycles> [seed]
 *
 * Each cycle forks a writer that opens the database and commits as fast as it can,
 * creating, updating and deleting Items (an int primary key, strings, an indexed
 * string, an int, a double, a bool, an optional string, a timestamp, a mixed value
 * whose type changes from one commit to the next (null, int, string, double, bool,
 * timestamp, and a nested list [version, {"v": string}] whose predecessor is freed),
 * and a list to
 * which every commit that writes the Item appends its number, so lists outgrow a node
 * and their cached nodes are written at commits, and a set of ints into which every such
 * write inserts SEEN_BATCH numbers and from which it removes half of those of the third
 * write before it, so sets split and rewrite blocks, and an embedded Home holding the
 * commit's number, created in place by each such write (with the Item, by
 * lar_obj_create_with_embedded, when it creates it), which deletes the one before), and sends the
 * number of each commit to this process once lar_txn_commit() has returned LAR_OK
 * (a third of the writers start from a 64 KiB map, which their writes fill and grow;
 * a third commit in groups with LAR_COMMIT_NOSYNC and acknowledge a group once
 * lar_env_sync() has returned).
 * After a random delay (some very short, to land inside the file's first open; some
 * cycles start from no file at all) this process kills it with SIGKILL, reopens the
 * file and checks that it opens, that the last commit stored is at least the last one
 * acknowledged, that every Item is exactly what the deterministic sequence of
 * commits up to the stored one makes, and that the change log holds the entry of the
 * last commit stored (readable, naming what it wrote, listing the elements it put
 * into and took out of the sets of the Items it updated). Prints a summary line; exits 1 on any failure.
 *
 * Built without sanitizers, against liblarder.a: the C tests run the library under
 * ASan and UBSan; here speed means more commits per cycle, so kills land in more
 * places (inside opens, writes, commits and their fsyncs). */
#define _GNU_SOURCE
#include "larder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ITEM_IDS 48
#define LONG_NAME 3000 /* longer than a page: an overflow page */
#define SMALL_MAP ((size_t)64 << 10)
#define SEEN_BATCH 8 /* numbers each write of an Item inserts into its set */
#define SEEN_LAG 3   /* ... and the write this many after it removes the odd ones */
#define MAX_GROUP 4  /* commits a grouped writer makes before it syncs and acknowledges them */

/* ---- the deterministic sequence of commits ---- */

/* version[id]: the commit that last wrote Item id, 0 when it does not exist. */
typedef struct model {
    uint64_t version[ITEM_IDS];
} model;

typedef enum op_kind { OP_CREATE, OP_UPDATE, OP_DELETE } op_kind;

typedef struct op {
    op_kind kind;
    int id;
} op;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static int op_count(uint64_t commit)
{
    return 1 + (int)(commit % 4);
}

/* The j-th operation of a commit, applied to the model. */
static op next_op(model *m, uint64_t commit, int j)
{
    uint64_t h = mix(commit * 16 + (uint64_t)j);
    op o = {OP_CREATE, (int)(h % ITEM_IDS)};
    if (m->version[o.id] != 0) o.kind = (h >> 20) % 3 == 0 ? OP_DELETE : OP_UPDATE;
    m->version[o.id] = o.kind == OP_DELETE ? 0 : commit;
    return o;
}

/* The commits that wrote each Item since it was last created: its expected log. */
typedef struct logs {
    uint64_t *entries[ITEM_IDS];
    size_t count[ITEM_IDS], capacity[ITEM_IDS];
} logs;

static void logs_free(logs *l)
{
    for (int id = 0; id < ITEM_IDS; id++) free(l->entries[id]);
}

static void logs_note(logs *l, op o, uint64_t commit)
{
    if (o.kind == OP_DELETE) {
        l->count[o.id] = 0;
        return;
    }
    if (o.kind == OP_CREATE) l->count[o.id] = 0;
    if (l->count[o.id] == l->capacity[o.id]) {
        l->capacity[o.id] = l->capacity[o.id] ? l->capacity[o.id] * 2 : 16;
        l->entries[o.id] = realloc(l->entries[o.id], l->capacity[o.id] * sizeof *l->entries[o.id]);
        if (!l->entries[o.id]) abort();
    }
    l->entries[o.id][l->count[o.id]++] = commit;
}

/* The model after commit, and (when l is not NULL) every Item's expected log. */
static model model_with_logs(uint64_t commit, logs *l)
{
    model m;
    memset(&m, 0, sizeof m);
    for (uint64_t c = 1; c <= commit; c++)
        for (int j = 0; j < op_count(c); j++) {
            op o = next_op(&m, c, j);
            if (l) logs_note(l, o, c);
        }
    return m;
}

static model model_at(uint64_t commit)
{
    return model_with_logs(commit, NULL);
}

/* ---- Item contents, derived from (id, version) ---- */

enum { P_ID, P_NAME, P_TAG, P_COUNT, P_RATIO, P_FLAG, P_NOTE, P_WHEN, P_ANY, P_LOG, P_SEEN, P_HOME, PROP_COUNT };

static const lar_property_def item_props[PROP_COUNT] = {
    {"id", LAR_TYPE_INT, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL},
    {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"tag", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_INDEXED, NULL, NULL},
    {"count", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"ratio", LAR_TYPE_DOUBLE, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"flag", LAR_TYPE_BOOL, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"note", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
    {"when", LAR_TYPE_TIMESTAMP, LAR_COLLECTION_NONE, 0, NULL, NULL},
    /* Realm's AnyRealmValue: its type changes with the commit that writes it. */
    {"any", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL, NULL},
    /* Every commit that writes an Item appends its number: lists grow past a node. */
    {"log", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL},
    /* j * SEEN_BATCH + k for its j-th write (as its log counts them); odd k leave SEEN_LAG writes later. */
    {"seen", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
    /* An embedded object that every write replaces (the old one is deleted in the same write). */
    {"home", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Home", NULL},
};
static const lar_property_def home_props[] = {
    {"commit", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
};
static const lar_property_def progress_props[] = {
    {"id", LAR_TYPE_INT, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL},
    {"commit", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
};
static const lar_class_def classes[] = {
    {"Item", item_props, PROP_COUNT, 0},
    {"Progress", progress_props, 2, 0},
    {"Home", home_props, 1, LAR_CLASS_EMBEDDED},
};
#define CLASS_COUNT (sizeof classes / sizeof *classes)

/* Room for one Item's strings. */
typedef struct item_text {
    char name[LONG_NAME + 64], tag[16], note[32], any[40];
} item_text;

static size_t name_length(int id, uint64_t version)
{
    return version % 16 == 0 ? LONG_NAME : 10 + mix(version * 64 + (uint64_t)id) % 200;
}

/* The values of Item id as commit `version` wrote them, indexed by P_*. */
static void item_values(int id, uint64_t version, item_text *text, lar_value v[PROP_COUNT])
{
    size_t length = name_length(id, version);
    int prefix = snprintf(text->name, sizeof text->name, "item %d v%llu ", id, (unsigned long long)version);
    for (size_t i = (size_t)prefix; i < length; i++) text->name[i] = (char)('a' + (version + i) % 26);
    text->name[length] = 0;
    snprintf(text->tag, sizeof text->tag, "t%llu", (unsigned long long)(version % 7));
    snprintf(text->note, sizeof text->note, "note %llu", (unsigned long long)version);
    v[P_ID] = (lar_value){.type = LAR_TYPE_INT, .as.integer = id};
    v[P_NAME] = (lar_value){.type = LAR_TYPE_STRING, .as.string = {text->name, length}};
    v[P_TAG] = (lar_value){.type = LAR_TYPE_STRING, .as.string = {text->tag, strlen(text->tag)}};
    v[P_COUNT] = (lar_value){.type = LAR_TYPE_INT, .as.integer = (int64_t)version * 1000 + id};
    v[P_RATIO] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = (double)version / 8 + id};
    v[P_FLAG] = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = (int)((version + (uint64_t)id) & 1)};
    v[P_NOTE] = version % 5 == 0 ? (lar_value){.type = LAR_TYPE_NULL}
                                 : (lar_value){.type = LAR_TYPE_STRING, .as.string = {text->note, strlen(text->note)}};
    v[P_WHEN] = (lar_value){.type = LAR_TYPE_TIMESTAMP,
                            .as.timestamp = {1700000000 + (int64_t)version, id * 1000}};
    switch (version % 7) {
    case 0: v[P_ANY] = (lar_value){.type = LAR_TYPE_NULL}; break;
    case 1: v[P_ANY] = (lar_value){.type = LAR_TYPE_INT, .as.integer = -(int64_t)version}; break;
    case 2:
        snprintf(text->any, sizeof text->any, "any %d of %llu", id, (unsigned long long)version);
        v[P_ANY] = (lar_value){.type = LAR_TYPE_STRING, .as.string = {text->any, strlen(text->any)}};
        break;
    case 3: v[P_ANY] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = (double)version / 3}; break;
    case 4: v[P_ANY] = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = 1}; break;
    case 5: v[P_ANY] = (lar_value){.type = LAR_TYPE_TIMESTAMP, .as.timestamp = {-(int64_t)version, -id}}; break;
    default: /* a nested list, filled by fill_nested() */
        snprintf(text->any, sizeof text->any, "nested %d of %llu", id, (unsigned long long)version);
        v[P_ANY] = (lar_value){.type = LAR_TYPE_LIST};
        break;
    }
    v[P_LOG] = (lar_value){.type = LAR_TYPE_NULL}; /* its elements are appended */
    v[P_SEEN] = (lar_value){.type = LAR_TYPE_NULL}; /* and inserted */
    v[P_HOME] = (lar_value){.type = LAR_TYPE_NULL}; /* created in place */
}

/* ---- the database's side ---- */

typedef struct db {
    lar_env *env;
    lar_class item, progress, home;
    uint32_t prop[PROP_COUNT]; /* P_* -> stored property index */
    uint32_t progress_commit;
} db;

/* Looks the classes up; LAR_ENOTFOUND when the schema was never stored. */
static int db_lookup(db *d)
{
    int err = lar_class_find(d->env, "Item", &d->item);
    if (!err) err = lar_class_find(d->env, "Progress", &d->progress);
    if (!err) err = lar_class_find(d->env, "Home", &d->home);
    for (int p = 0; !err && p < PROP_COUNT; p++) err = lar_property_find(d->env, d->item, item_props[p].name, &d->prop[p]);
    if (!err) err = lar_property_find(d->env, d->progress, "commit", &d->progress_commit);
    return err;
}

static int find_by_id(lar_txn *txn, lar_class cls, int64_t id, lar_obj *out)
{
    lar_value key = {.type = LAR_TYPE_INT, .as.integer = id};
    return lar_obj_find(txn, cls, &key, out);
}

/* The last commit stored: 0 before the first. */
static int stored_commit(db *d, lar_txn *txn, uint64_t *out)
{
    lar_obj progress;
    *out = 0;
    int err = find_by_id(txn, d->progress, 1, &progress);
    if (err == LAR_ENOTFOUND) return LAR_OK;
    lar_value value;
    if (!err) err = lar_obj_get(txn, progress, d->progress_commit, &value);
    if (!err) *out = (uint64_t)value.as.integer;
    return err;
}

/* ---- the writer ---- */

static _Noreturn void writer_fail(const char *what)
{
    fprintf(stderr, "crash: writer: %s: %s\n", what, lar_error_last()->message);
    _exit(2);
}

/* Fills a new nested list in `any`: [version, {"v": text}]. */
static int fill_nested(db *d, lar_txn *txn, lar_obj obj, uint64_t version, const item_text *text)
{
    lar_coll list, dict;
    lar_value number = {.type = LAR_TYPE_INT, .as.integer = (int64_t)version}, inner = {.type = LAR_TYPE_DICTIONARY};
    lar_value string = {.type = LAR_TYPE_STRING, .as.string = {text->any, strlen(text->any)}}, read;
    lar_string key = {"v", 1};
    int err = lar_coll_open(txn, obj, d->prop[P_ANY], &list);
    if (!err) err = lar_list_append_at(txn, &list, &number);
    if (!err) err = lar_list_append_at(txn, &list, &inner);
    if (!err) err = lar_list_get_at(txn, &list, 1, &read);
    if (!err) err = lar_coll_child(&list, &read, &dict);
    return err ? err : lar_map_put_at(txn, &dict, &key, &string);
}

static int write_item(db *d, lar_txn *txn, op o, uint64_t commit)
{
    item_text text;
    lar_value by_prop[PROP_COUNT], stored[PROP_COUNT];
    item_values(o.id, commit, &text, by_prop);
    for (int p = 0; p < PROP_COUNT; p++) stored[d->prop[p]] = by_prop[p];
    lar_obj obj;
    lar_value entry = {.type = LAR_TYPE_INT, .as.integer = (int64_t)commit};
    lar_embedded_init home = {d->prop[P_HOME], &entry, 1}; /* a new Item's Home comes with it */
    int err = o.kind == OP_CREATE ? lar_obj_create_with_embedded(txn, d->item, stored, PROP_COUNT, &home, 1, &obj, NULL)
                                  : find_by_id(txn, d->item, o.id, &obj);
    if (!err && o.kind == OP_DELETE) return lar_obj_delete(txn, obj);
    for (int p = 1; !err && o.kind == OP_UPDATE && p < P_LOG; p++) err = lar_obj_set(txn, obj, d->prop[p], &by_prop[p]);
    if (!err && by_prop[P_ANY].type == LAR_TYPE_LIST) err = fill_nested(d, txn, obj, commit, &text);
    if (!err && o.kind == OP_UPDATE) err = lar_obj_create_embedded(txn, obj, d->prop[P_HOME], &entry, 1, NULL);
    if (!err) err = lar_list_append(txn, obj, d->prop[P_LOG], &entry);
    size_t writes = 0; /* this write is the log's last entry (a commit may write an Item twice) */
    if (!err) err = lar_list_count(txn, obj, d->prop[P_LOG], &writes);
    int64_t write_index = (int64_t)writes - 1;
    for (int k = 0; !err && k < SEEN_BATCH; k++) {
        lar_value number = {.type = LAR_TYPE_INT, .as.integer = write_index * SEEN_BATCH + k};
        err = lar_set_insert(txn, obj, d->prop[P_SEEN], &number, NULL);
    }
    if (err || writes <= SEEN_LAG) return err;
    for (int k = 1; !err && k < SEEN_BATCH; k += 2) {
        lar_value number = {.type = LAR_TYPE_INT, .as.integer = (write_index - SEEN_LAG) * SEEN_BATCH + k};
        int removed = 0;
        err = lar_set_remove(txn, obj, d->prop[P_SEEN], &number, &removed);
        if (!err && !removed) {
            fprintf(stderr, "crash: writer: Item %d's set lacks %lld\n", o.id, (long long)number.as.integer);
            _exit(2);
        }
    }
    return err;
}

static int write_progress(db *d, lar_txn *txn, uint64_t commit)
{
    lar_value number = {.type = LAR_TYPE_INT, .as.integer = (int64_t)commit};
    lar_obj progress;
    int err = find_by_id(txn, d->progress, 1, &progress);
    if (!err) return lar_obj_set(txn, progress, d->progress_commit, &number);
    if (err != LAR_ENOTFOUND) return err;
    lar_value values[2];
    uint32_t id_prop = d->progress_commit == 0 ? 1 : 0;
    values[id_prop] = (lar_value){.type = LAR_TYPE_INT, .as.integer = 1};
    values[d->progress_commit] = number;
    return lar_obj_create(txn, d->progress, values, 2, NULL);
}

static int write_commit(db *d, model *m, uint64_t commit, unsigned int commit_flags)
{
    lar_txn *txn;
    int err = lar_txn_begin(d->env, LAR_TXN_WRITE, &txn);
    if (err) return err;
    for (int j = 0; !err && j < op_count(commit); j++) err = write_item(d, txn, next_op(m, commit, j), commit);
    if (!err) err = write_progress(d, txn, commit);
    if (!err) err = lar_txn_commit_flags(txn, commit_flags);
    lar_txn_free(txn);
    return err;
}

/* A write that fills a small map fails with LAR_EMAPFULL; once it is aborted the map
 * grows, and the same commit runs again. */
static int write_commit_retrying(db *d, model *m, uint64_t commit, unsigned int commit_flags)
{
    for (;;) {
        model before = *m;
        int err = write_commit(d, m, commit, commit_flags);
        if (err != LAR_EMAPFULL) return err;
        *m = before;
    }
}

/* map_size 0: the default reservation. grouped: commits go in groups of one to four
 * made with LAR_COMMIT_NOSYNC, acknowledged together once lar_env_sync() returns (as
 * Swift's commitAsyncWrite(allowGrouping: true) calls its completions). */
static _Noreturn void writer(const char *path, size_t map_size, int acks, bool grouped)
{
    db d;
    lar_env_options options;
    lar_env_options_init(&options);
    if (map_size) options.initial_map_size = map_size;
    if (lar_env_open(path, &options, &d.env)) writer_fail("open");
    if (lar_schema_apply(d.env, classes, CLASS_COUNT, 1)) writer_fail("schema");
    if (db_lookup(&d)) writer_fail("lookup");
    lar_txn *txn;
    uint64_t commit;
    if (lar_txn_begin(d.env, LAR_TXN_READ, &txn) || stored_commit(&d, txn, &commit)) writer_fail("read");
    lar_txn_free(txn);
    model m = model_at(commit);
    for (;;) {
        int group = grouped ? 1 + (int)(mix(commit) % MAX_GROUP) : 1;
        for (int i = 0; i < group; i++)
            if (write_commit_retrying(&d, &m, ++commit, grouped ? LAR_COMMIT_NOSYNC : 0)) writer_fail("commit");
        if (grouped && lar_env_sync(d.env)) writer_fail("sync");
        if (write(acks, &commit, sizeof commit) != sizeof commit) writer_fail("ack");
    }
}

/* ---- checking ---- */

static bool values_equal(const lar_value *a, const lar_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case LAR_TYPE_NULL: case LAR_TYPE_LIST: return true; /* a nested list: check_nested() */
    case LAR_TYPE_INT: return a->as.integer == b->as.integer;
    case LAR_TYPE_BOOL: return a->as.boolean == b->as.boolean;
    case LAR_TYPE_DOUBLE: return memcmp(&a->as.float64, &b->as.float64, sizeof(double)) == 0;
    case LAR_TYPE_STRING:
        return a->as.string.size == b->as.string.size &&
               memcmp(a->as.string.data, b->as.string.data, a->as.string.size) == 0;
    case LAR_TYPE_TIMESTAMP:
        return a->as.timestamp.seconds == b->as.timestamp.seconds &&
               a->as.timestamp.nanoseconds == b->as.timestamp.nanoseconds;
    default: return false;
    }
}

static char failure[512]; /* what the last check found wrong */

static bool fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
static bool fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(failure, sizeof failure, format, args);
    va_end(args);
    return false;
}

static bool check_log(db *d, lar_txn *txn, lar_obj obj, int id, const logs *l)
{
    size_t count;
    if (lar_list_count(txn, obj, d->prop[P_LOG], &count)) return fail("Item %d's log: %s", id, lar_error_last()->message);
    if (count != l->count[id])
        return fail("Item %d's log holds %zu commits, %zu expected", id, count, l->count[id]);
    for (size_t i = 0; i < count; i++) {
        lar_value got;
        if (lar_list_get(txn, obj, d->prop[P_LOG], i, &got) || got.type != LAR_TYPE_INT ||
            (uint64_t)got.as.integer != l->entries[id][i])
            return fail("Item %d's log differs at %zu from the commits that wrote it", id, i);
    }
    return true;
}

/* The set holds, for the j-th write of the log, j * SEEN_BATCH + k for k below SEEN_BATCH,
 * only the even k for a write SEEN_LAG or more before the last. */
static bool check_seen(db *d, lar_txn *txn, lar_obj obj, int id, const logs *l)
{
    size_t n = l->count[id], expected = 0, count;
    for (size_t j = 0; j < n; j++) expected += j + SEEN_LAG >= n ? SEEN_BATCH : SEEN_BATCH / 2;
    if (lar_set_count(txn, obj, d->prop[P_SEEN], &count)) return fail("Item %d's set: %s", id, lar_error_last()->message);
    if (count != expected) return fail("Item %d's set holds %zu numbers, %zu expected", id, count, expected);
    lar_value page[64], last;
    size_t got, seen = 0, j = 0;
    int k = 0, rc;
    while ((rc = lar_set_list(txn, obj, d->prop[P_SEEN], seen ? &last : NULL, page, 64, &got)) == LAR_OK) {
        for (size_t i = 0; i < got; i++, seen++) {
            if (j >= n) return fail("Item %d's set holds more than its commits inserted", id);
            int64_t want = (int64_t)j * SEEN_BATCH + k;
            if (page[i].type != LAR_TYPE_INT || page[i].as.integer != want)
                return fail("Item %d's set differs at %zu from the commits that wrote it", id, seen);
            k += j + SEEN_LAG >= n ? 1 : 2;
            if (k >= SEEN_BATCH) k = 0, j++;
        }
        last = page[got - 1];
    }
    if (rc != LAR_ENOTFOUND) return fail("Item %d's set: %s", id, lar_error_last()->message);
    return seen == expected || fail("Item %d's set lists %zu numbers, %zu expected", id, seen, expected);
}

static bool check_nested(db *d, lar_txn *txn, lar_obj obj, int id, uint64_t version, const item_text *text)
{
    lar_coll list, dict;
    lar_value first, second, string;
    lar_string key = {"v", 1};
    size_t count = 0;
    if (lar_coll_open(txn, obj, d->prop[P_ANY], &list) || lar_list_count_at(txn, &list, &count) || count != 2 ||
        lar_list_get_at(txn, &list, 0, &first) || first.type != LAR_TYPE_INT || (uint64_t)first.as.integer != version ||
        lar_list_get_at(txn, &list, 1, &second) || lar_coll_child(&list, &second, &dict) ||
        lar_map_get_at(txn, &dict, &key, &string) || string.type != LAR_TYPE_STRING ||
        string.as.string.size != strlen(text->any) || memcmp(string.as.string.data, text->any, string.as.string.size))
        return fail("Item %d's nested value differs from what commit %llu wrote", id, (unsigned long long)version);
    return true;
}

static bool check_item(db *d, lar_txn *txn, int id, uint64_t version, const logs *l)
{
    lar_obj obj;
    int err = find_by_id(txn, d->item, id, &obj);
    if (version == 0) return err == LAR_ENOTFOUND || fail("Item %d exists, but the commits delete it", id);
    if (err) return fail("Item %d (of commit %llu) is missing: %s", id, (unsigned long long)version,
                         lar_error_last()->message);
    item_text text;
    lar_value expected[PROP_COUNT];
    item_values(id, version, &text, expected);
    for (int p = 0; p < P_LOG; p++) {
        lar_value got;
        if (lar_obj_get(txn, obj, d->prop[p], &got) || !values_equal(&got, &expected[p]))
            return fail("Item %d's %s differs from what commit %llu wrote", id, item_props[p].name,
                        (unsigned long long)version);
    }
    lar_value home, commit;
    if (lar_obj_get(txn, obj, d->prop[P_HOME], &home) || home.type != LAR_TYPE_LINK ||
        lar_obj_get(txn, home.as.link, 0, &commit) || commit.as.integer != (int64_t)version)
        return fail("Item %d's embedded Home is not the one commit %llu made", id, (unsigned long long)version);
    if (expected[P_ANY].type == LAR_TYPE_LIST && !check_nested(d, txn, obj, id, version, &text)) return false;
    return check_log(d, txn, obj, id, l) && check_seen(d, txn, obj, id, l);
}

static bool check_items(db *d, lar_txn *txn, const model *m, const logs *l)
{
    uint64_t count = 0, expected = 0;
    for (int id = 0; id < ITEM_IDS; id++) {
        if (!check_item(d, txn, id, m->version[id], l)) return false;
        expected += m->version[id] != 0;
    }
    if (lar_objects_count(txn, d->item, &count) || count != expected)
        return fail("%llu Items expected, %llu found", (unsigned long long)expected, (unsigned long long)count);
    /* One embedded Home per Item: none orphaned by a replace or a delete, none lost. */
    if (lar_objects_count(txn, d->home, &count) || count != expected)
        return fail("%llu Homes expected (one per Item), %llu found", (unsigned long long)expected,
                    (unsigned long long)count);
    return true;
}

/* Whether part of a set's changes holds, ascending, the numbers k of the batches j in
 * [from, to) that want(j, k) picks. */
static bool same_numbers(const lar_set_changes *sc, lar_changeset_part part, size_t from, size_t to,
                         bool (*want)(size_t j, int k, size_t writes), size_t writes)
{
    const lar_value *values;
    size_t count, at = 0;
    if (lar_set_changes_get(sc, part, &values, &count)) return false;
    for (size_t j = from; j < to; j++)
        for (int k = 0; k < SEEN_BATCH; k++) {
            if (!want(j, k, writes)) continue;
            if (at >= count || values[at].type != LAR_TYPE_INT || values[at].as.integer != (int64_t)j * SEEN_BATCH + k)
                return false;
            at++;
        }
    return at == count;
}

/* A batch the commit inserted that stays (a later write of the same commit may remove its odd ones). */
static bool inserted_number(size_t j, int k, size_t writes)
{
    return k % 2 == 0 || j + SEEN_LAG >= writes;
}

static bool odd_number(size_t j, int k, size_t writes)
{
    (void)j;
    (void)writes;
    return k % 2 == 1;
}

/* The log lists the elements the last commit's writes of an Item (which existed before
 * it) put into and took out of its set: each write's batch in, the odd ones of the
 * write SEEN_LAG before it out (unless that write was of the same commit). */
static bool check_seen_changes(db *d, lar_txn *txn, const lar_changes *changes, lar_obj item, int id,
                               const logs *l, uint64_t stored)
{
    lar_set_changes *sc;
    if (lar_changes_set_elements(txn, changes, item, d->prop[P_SEEN], &sc))
        return fail("change log: Item %d's set: %s", id, lar_error_last()->message);
    size_t writes = l->count[id], first = writes;
    while (first > 0 && l->entries[id][first - 1] == stored) first--;
    size_t removed_from = first > SEEN_LAG ? first - SEEN_LAG : 0, removed_to = writes > SEEN_LAG ? writes - SEEN_LAG : 0;
    if (removed_to > first) removed_to = first;
    if (removed_from > removed_to) removed_from = removed_to;
    bool ok = same_numbers(sc, LAR_CHANGESET_INSERTIONS, first, writes, inserted_number, writes) &&
              same_numbers(sc, LAR_CHANGESET_DELETIONS, removed_from, removed_to, odd_number, writes);
    lar_set_changes_free(sc);
    return ok || fail("change log: Item %d's set changes are not what commit %llu did to it", id,
                      (unsigned long long)stored);
}

/* The change log holds the entry of the last commit (every commit writes Progress):
 * the changes since the version before it name Progress and every Item that commit
 * wrote and that still exists, as inserted or modified. */
static bool check_change_log(db *d, lar_txn *txn, const model *m, const logs *l, uint64_t stored)
{
    uint64_t version;
    lar_changes *changes;
    if (lar_txn_version(txn, &version) || lar_changes_read(txn, version - 1, &changes))
        return fail("change log: %s", lar_error_last()->message);
    lar_obj progress;
    int state;
    size_t count;
    bool ok = find_by_id(txn, d->progress, 1, &progress) == LAR_OK &&
              lar_changes_object(changes, progress, &state, NULL, 0, &count) == LAR_OK;
    if (!ok) fail("change log: %s", lar_error_last()->message);
    else if (state != LAR_OBJECT_MODIFIED && state != LAR_OBJECT_INSERTED)
        ok = fail("change log: the last commit's entry does not name Progress (state %d)", state);
    for (int id = 0; ok && id < ITEM_IDS; id++) {
        lar_obj item;
        if (m->version[id] != stored || find_by_id(txn, d->item, id, &item)) continue;
        if (lar_changes_object(changes, item, &state, NULL, 0, &count) == LAR_OK && state == LAR_OBJECT_UNCHANGED)
            ok = fail("change log: Item %d, written by commit %llu, is not in its entry", id,
                      (unsigned long long)stored);
        else if (state == LAR_OBJECT_MODIFIED)
            ok = check_seen_changes(d, txn, changes, item, id, l, stored);
    }
    lar_changes_free(changes);
    return ok;
}

/* Opens the file and checks everything against the commits up to the stored one:
 * at least the last acknowledged, and at most the unacknowledged ones a writer may make
 * (one, or a group of up to MAX_GROUP). */
static bool check_file(const char *path, uint64_t acked, uint64_t unacked, uint64_t *stored)
{
    db d;
    *stored = 0;
    if (lar_env_open(path, NULL, &d.env)) return fail("open: %s", lar_error_last()->message);
    bool ok = true;
    int err = db_lookup(&d);
    lar_txn *txn = NULL;
    if (err == LAR_OK) {
        ok = lar_txn_begin(d.env, LAR_TXN_READ, &txn) == LAR_OK && stored_commit(&d, txn, stored) == LAR_OK;
        if (!ok) fail("read: %s", lar_error_last()->message);
    } else if (err != LAR_ENOTFOUND) { /* no schema yet: the writer died before storing it */
        ok = fail("schema lookup: %s", lar_error_last()->message);
    }
    if (ok && (*stored < acked || *stored > acked + unacked))
        ok = fail("commit %llu was the last acknowledged, the file holds %llu", (unsigned long long)acked,
                  (unsigned long long)*stored);
    if (ok && txn) {
        logs l;
        memset(&l, 0, sizeof l);
        model m = model_with_logs(*stored, &l);
        ok = check_items(&d, txn, &m, &l);
        if (ok && *stored) ok = check_change_log(&d, txn, &m, &l, *stored);
        logs_free(&l);
    }
    lar_txn_free(txn);
    lar_env_close(d.env);
    return ok;
}

/* ---- what a kill left ---- */

typedef enum file_state { NO_FILE, EMPTY_FILE, HEADER_ONLY, SET_UP, FILE_STATES } file_state;
static const char *const file_state_names[FILE_STATES] = {"no file", "empty file", "LMDB header only",
                                                          "set up"};

/* White-box, by pread: LMDB 0.9's meta pages (64-bit layout) hold the main database's
 * entry count at byte 120 and the transaction id at 144; the newer meta is current. */
static file_state state_of(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NO_FILE;
    uint8_t metas[2][152];
    uint32_t page_size = 0;
    bool read_ok = pread(fd, metas[0], sizeof metas[0], 0) == sizeof metas[0];
    if (read_ok) memcpy(&page_size, metas[0] + 40, sizeof page_size);
    read_ok = read_ok && pread(fd, metas[1], sizeof metas[1], page_size) == sizeof metas[1];
    close(fd);
    if (!read_ok) return EMPTY_FILE;
    uint64_t txnid[2], entries[2];
    for (int i = 0; i < 2; i++) {
        memcpy(&txnid[i], metas[i] + 144, sizeof txnid[i]);
        memcpy(&entries[i], metas[i] + 120, sizeof entries[i]);
    }
    return entries[txnid[1] > txnid[0]] == 0 ? HEADER_ONLY : SET_UP;
}

/* ---- cycles ---- */

static void remove_database(const char *path)
{
    char lock[4200];
    snprintf(lock, sizeof lock, "%s-lock", path);
    unlink(path);
    unlink(lock);
}

/* Microseconds before the kill: some inside the first open, most across many commits. */
static useconds_t kill_delay(unsigned int *seed)
{
    int r = rand_r(seed) % 100;
    if (r < 15) return (useconds_t)(rand_r(seed) % 500);
    if (r < 30) return (useconds_t)(rand_r(seed) % 3000);
    if (r < 65) return (useconds_t)(rand_r(seed) % 40000);
    return (useconds_t)(rand_r(seed) % 100000);
}

/* The highest commit number the writer acknowledged, or `acked` when it sent none. */
static uint64_t read_acks(int fd, uint64_t acked)
{
    uint64_t commit;
    while (read(fd, &commit, sizeof commit) == sizeof commit)
        if (commit > acked) acked = commit;
    return acked;
}

/* Runs a writer, kills it after delay, and returns the last commit it acknowledged;
 * false when the writer died of something else. */
static bool run_writer(const char *path, size_t map_size, bool grouped, useconds_t delay, uint64_t *acked)
{
    int acks[2];
    if (pipe(acks) != 0) return fail("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(acks[0]);
        writer(path, map_size, acks[1], grouped);
    }
    close(acks[1]);
    if (pid < 0) { /* never kill(-1, ...) */
        fail("fork: %s", strerror(errno));
        close(acks[0]);
        return false;
    }
    usleep(delay);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    *acked = read_acks(acks[0], *acked);
    close(acks[0]);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return true;
    return fail("the writer ended by itself (status 0x%x)", status);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <database path> <cycles> [seed]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    long cycles = atol(argv[2]);
    unsigned int seed = argc > 3 ? (unsigned int)atol(argv[3]) : (unsigned int)time(NULL);
    printf("crash: %ld cycles on %s, seed %u\n", cycles, path, seed);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long failures = 0, fresh = 0, states[FILE_STATES] = {0};
    uint64_t acked = 0, commits = 0;
    for (long cycle = 0; cycle < cycles; cycle++) {
        if (cycle % 10 == 0 || rand_r(&seed) % 20 == 0) {
            remove_database(path);
            acked = 0;
            fresh++;
        }
        uint64_t before = acked, stored = 0;
        /* A third of the writers start from a small map: their writes fill it and it grows. */
        size_t map_size = rand_r(&seed) % 3 == 0 ? SMALL_MAP : 0;
        bool grouped = rand_r(&seed) % 3 == 0; /* a third group commits: no fsync until the group's sync */
        bool ok = run_writer(path, map_size, grouped, kill_delay(&seed), &acked);
        states[state_of(path)]++;
        ok = ok && check_file(path, acked, grouped ? MAX_GROUP : 1, &stored);
        commits += acked - before;
        if (!ok) {
            failures++;
            printf("crash: cycle %ld FAILED: %s\n", cycle, failure);
            remove_database(path); /* start afresh: the sequence no longer holds */
            acked = 0;
        } else {
            acked = stored; /* a commit may be stored whose acknowledgement the kill prevented */
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("crash: kills left");
    for (int i = 0; i < FILE_STATES; i++) printf("%s %s: %ld", i ? "," : "", file_state_names[i], states[i]);
    printf("\ncrash: %ld cycles, %ld failures, %llu commits acknowledged, %ld fresh files, %.1f s\n", cycles,
           failures, (unsigned long long)commits, fresh, seconds);
    return failures ? 1 : 0;
}
