/* The collection workloads of bench_c (issue #11): the Larder C API against raw LMDB.
 *
 *   list-append        append LIST_N ints to one list in one write transaction, commit included;
 *   list-iterate       read them all back and sum them (c-api: lar_list_get_batch);
 *   list-append-at-1k  one append to a list of 1,000 ints, per append: APPEND_OPS single
 *   list-append-at-1m  appends, each its own call, timed inside one write transaction that
 *                      is then aborted (commit not timed), so every pass starts at exactly
 *                      1,000 (1,000,000) elements; the ratio of the two shows the O(log n);
 *   link-insert        LINK_N objects, each with an int, a link to a random object and a
 *                      list of LINK_LIST links to random objects, in one write transaction;
 *   link-scan          one read transaction visiting every object and following all its
 *                      links (1 + LINK_LIST), summing the targets' int; n is objects visited;
 *   list-filter        for each of the first FILTER_OWNERS objects, the objects of its list
 *                      whose int is above FILTER_ABOVE, counted (Realm's
 *                      `node.friends.where { $0.value > x }.count`; c-api: lar_list_get_batch
 *                      then lar_query_run_keys); n is lists filtered. Its cost must follow
 *                      the list, not the LINK_N objects of the class;
 *   map-insert         MAP_N keys "k<i>" (not in bytewise order) into one map<string,int>;
 *   map-lookup         MAP_N lookups of those keys in a shuffled (fixed-seed) order;
 *   set-union          a = {0, 2, 4, ...} (SET_N elements) formUnion b = {0, 3, 6, ...}
 *   set-intersect      (SET_N elements), and formIntersection, each in its own write
 *                      transaction, commit included, on freshly built sets (not timed).
 *
 * The raw-LMDB baselines use the layout a careful C programmer would choose:
 *   lists  one table keyed by (list id, position), both big-endian, written with
 *          MDB_APPEND in bulk; an owners table (MDB_INTEGERKEY) keeps each list's count;
 *          a single append reads the count, puts (id, count) and writes count + 1;
 *          iteration is one cursor walk over the list id's prefix;
 *   links  a row per object (MDB_INTEGERKEY, MDB_APPEND) holding its int, the target's
 *          key and its list's count; the list of links in a table keyed by (owner, position)
 *          (MDB_APPEND); the scan walks the rows and the list table with two cursors in
 *          step and does one mdb_get per link followed. No backlink index (Larder keeps
 *          one: Realm's LinkingObjects and nulling links on delete need it); a second
 *          line, impl=raw-lmdb+backlinks, does the same and also keeps one: a table keyed
 *          by (target, origin, property), all big-endian, counting the links (an origin's
 *          list may hold a target twice), one put per link as it is written (a get and a
 *          put for a repeat). Its vs_raw is against raw-lmdb; the c-api line's too, and
 *          that line's vs_raw_backlinks against raw-lmdb+backlinks, the baseline doing the
 *          same job (LarderBench adds the same field to the swift line of link-insert);
 *   maps   one table keyed by (map id big-endian, key bytes), plain puts; one mdb_get per lookup;
 *   sets   one table keyed by (set id, value big-endian with the sign bit flipped), empty
 *          data; union and intersection merge two cursors over the sorted keys, putting
 *          or deleting through the cursor of the set that changes.
 * Each measurement is the best of its repeats; the two implementations alternate. */
#include "bench.h"

#include "larder.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_N 1000000
#define LINK_N 200000
#define LINK_LIST 5
#define FILTER_OWNERS 2000
#define FILTER_ABOVE ((int64_t)LINK_N * 3 / 2) /* about half of node_value's range */
#define MAP_N 100000
#define SET_N 100000
#define SMALL_LIST 1000
#define APPEND_OPS 200
#define WRITE_REPEATS 3
#define READ_REPEATS 5
#define APPEND_REPEATS 15
#define LINK_SEED 0x11A4Cull
#define MAP_SEED 0x3A95EEDull

/* ---- shared ---- */

static uint32_t prop_index(lar_env *env, lar_class cls, const char *name)
{
    uint32_t prop;
    LAR_CHECK(lar_property_find(env, cls, name, &prop));
    return prop;
}

static lar_value int_value(int64_t v)
{
    lar_value value;
    memset(&value, 0, sizeof value);
    value.type = LAR_TYPE_INT;
    value.as.integer = v;
    return value;
}

/* ---- lists ---- */

typedef struct list_files {
    MDB_env *raw;
    MDB_dbi owners, items;
    lar_env *env;
    lar_class cls;
    uint32_t items_prop;
    lar_obj big, small; /* the LIST_N list and the SMALL_LIST one */
} list_files;

static void list_key(uint64_t list, uint64_t pos, uint8_t key[16])
{
    be64(list, key);
    be64(pos, key + 8);
}

static void lists_open(list_files *f, const char *raw_path, const char *lar_path)
{
    remove_database(raw_path);
    f->raw = raw_env_open(raw_path);
    f->owners = raw_dbi(f->raw, "owners", MDB_INTEGERKEY);
    f->items = raw_dbi(f->raw, "items", 0);
    static const lar_property_def props[] = {{"items", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL}};
    static const lar_class_def cls = {"ListOwner", props, 1, 0};
    f->env = lar_open_fresh(lar_path, &cls, 1);
    LAR_CHECK(lar_class_find(f->env, "ListOwner", &f->cls));
    f->items_prop = prop_index(f->env, f->cls, "items");
}

static void lists_close(list_files *f)
{
    if (f->raw) mdb_env_close(f->raw);
    if (f->env) LAR_CHECK(lar_env_close(f->env));
    memset(f, 0, sizeof *f);
}

/* Raw: list id `list` gets count elements 0..count-1 (bulk, MDB_APPEND when it is the last list). */
static void raw_list_fill(list_files *f, MDB_txn *txn, uint64_t list, uint64_t count, unsigned int flags)
{
    uint8_t key[16];
    for (uint64_t i = 0; i < count; i++) {
        int64_t value = (int64_t)i;
        list_key(list, i, key);
        MDB_val k = {sizeof key, key}, d = {sizeof value, &value};
        MDB_CHECK(mdb_put(txn, f->items, &k, &d, flags));
    }
    MDB_val k = {sizeof list, &list}, d = {sizeof count, &count};
    MDB_CHECK(mdb_put(txn, f->owners, &k, &d, 0));
}

static uint64_t raw_list_append(list_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    raw_list_fill(f, txn, 1, LIST_N, MDB_APPEND);
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

static uint64_t capi_list_append(list_files *f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    LAR_CHECK(lar_obj_create(txn, f->cls, NULL, 0, &f->big));
    for (int64_t i = 0; i < LIST_N; i++) {
        lar_value v = int_value(i);
        LAR_CHECK(lar_list_append(txn, f->big, f->items_prop, &v));
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    return elapsed;
}

static const int64_t list_sum = (int64_t)LIST_N * (LIST_N - 1) / 2;

static uint64_t raw_list_iterate(list_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->items, &cursor));
    uint8_t first[16];
    list_key(1, 0, first);
    MDB_val k = {sizeof first, first}, d;
    int64_t sum = 0;
    uint64_t count = 0;
    int rc = mdb_cursor_get(cursor, &k, &d, MDB_SET_RANGE);
    for (; rc == 0; rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        if (k.mv_size != 16 || memcmp(k.mv_data, first, 8) != 0) break;
        if (d.mv_size != sizeof(int64_t)) die("raw list-iterate", "bad element");
        int64_t v;
        memcpy(&v, d.mv_data, sizeof v);
        sum += v;
        count++;
    }
    if (rc != 0 && rc != MDB_NOTFOUND) die("raw list-iterate", mdb_strerror(rc));
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw list-iterate", sum, list_sum, count, LIST_N);
    return elapsed;
}

#define LIST_BATCH 256
static uint64_t capi_list_iterate(list_files *f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    lar_value batch[LIST_BATCH];
    int64_t sum = 0;
    uint64_t count = 0;
    size_t got;
    int rc;
    while ((rc = lar_list_get_batch(txn, f->big, f->items_prop, count, batch, LIST_BATCH, &got)) == LAR_OK) {
        for (size_t i = 0; i < got; i++) sum += batch[i].as.integer;
        count += got;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_list_get_batch", rc);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api list-iterate", sum, list_sum, count, LIST_N);
    return elapsed;
}

/* Adds the SMALL_LIST list beside the big one, not timed. */
static void lists_add_small(list_files *f)
{
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    raw_list_fill(f, txn, 2, SMALL_LIST, MDB_APPEND);
    MDB_CHECK(mdb_txn_commit(txn));

    lar_txn *ltxn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &ltxn));
    LAR_CHECK(lar_obj_create(ltxn, f->cls, NULL, 0, &f->small));
    for (int64_t i = 0; i < SMALL_LIST; i++) {
        lar_value v = int_value(i);
        LAR_CHECK(lar_list_append(ltxn, f->small, f->items_prop, &v));
    }
    LAR_CHECK(lar_txn_commit(ltxn));
    lar_txn_free(ltxn);
}

/* APPEND_OPS single appends to list `list` in a write transaction that is then aborted. */
static uint64_t raw_append_at(list_files *f, uint64_t list)
{
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    uint64_t start = bench_now_ns();
    for (int i = 0; i < APPEND_OPS; i++) {
        MDB_val ok = {sizeof list, &list}, od;
        MDB_CHECK(mdb_get(txn, f->owners, &ok, &od));
        uint64_t count;
        memcpy(&count, od.mv_data, sizeof count);
        uint8_t key[16];
        list_key(list, count, key);
        int64_t value = i;
        MDB_val k = {sizeof key, key}, d = {sizeof value, &value};
        MDB_CHECK(mdb_put(txn, f->items, &k, &d, 0));
        count++;
        MDB_val nd = {sizeof count, &count};
        MDB_CHECK(mdb_put(txn, f->owners, &ok, &nd, 0));
    }
    uint64_t elapsed = bench_now_ns() - start;
    mdb_txn_abort(txn);
    return elapsed;
}

static uint64_t capi_append_at(list_files *f, lar_obj list)
{
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    uint64_t start = bench_now_ns();
    for (int i = 0; i < APPEND_OPS; i++) {
        lar_value v = int_value(i);
        LAR_CHECK(lar_list_append(txn, list, f->items_prop, &v));
    }
    uint64_t elapsed = bench_now_ns() - start;
    LAR_CHECK(lar_txn_abort(txn));
    lar_txn_free(txn);
    return elapsed;
}

static void bench_lists(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-list.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-list.larder", dir);
    list_files f = {0};
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;
    for (int rep = 0; rep < WRITE_REPEATS; rep++) {
        lists_close(&f);
        lists_open(&f, raw_path, lar_path);
        best_raw = min_u64(best_raw, raw_list_append(&f));
        best_capi = min_u64(best_capi, capi_list_append(&f));
    }
    report_n("list-append", "raw-lmdb", LIST_N, best_raw, best_raw);
    report_n("list-append", "c-api", LIST_N, best_capi, best_raw);

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_list_iterate(&f));
        best_capi = min_u64(best_capi, capi_list_iterate(&f));
    }
    report_n("list-iterate", "raw-lmdb", LIST_N, best_raw, best_raw);
    report_n("list-iterate", "c-api", LIST_N, best_capi, best_raw);

    lists_add_small(&f);
    uint64_t raw_small = UINT64_MAX, capi_small = UINT64_MAX, raw_big = UINT64_MAX, capi_big = UINT64_MAX;
    for (int rep = 0; rep < APPEND_REPEATS; rep++) {
        raw_small = min_u64(raw_small, raw_append_at(&f, 2));
        capi_small = min_u64(capi_small, capi_append_at(&f, f.small));
        raw_big = min_u64(raw_big, raw_append_at(&f, 1));
        capi_big = min_u64(capi_big, capi_append_at(&f, f.big));
    }
    report_n("list-append-at-1k", "raw-lmdb", APPEND_OPS, raw_small, raw_small);
    report_n("list-append-at-1k", "c-api", APPEND_OPS, capi_small, raw_small);
    report_n("list-append-at-1m", "raw-lmdb", APPEND_OPS, raw_big, raw_big);
    report_n("list-append-at-1m", "c-api", APPEND_OPS, capi_big, raw_big);
    lists_close(&f);
}

/* ---- links ---- */

/* Object k (1...LINK_N) holds node_value(k), links to next_of[k - 1] and lists friends_of[k - 1]. */
static uint64_t *next_of, (*friends_of)[LINK_LIST];
static int64_t link_sum;

static int64_t node_value(uint64_t key)
{
    return (int64_t)key * 3;
}

static void links_plan(void)
{
    next_of = malloc(LINK_N * sizeof *next_of);
    friends_of = malloc(LINK_N * sizeof *friends_of);
    if (!next_of || !friends_of) die("links", "out of memory");
    bench_rng rng = bench_rng_seed(LINK_SEED);
    link_sum = 0;
    for (size_t i = 0; i < LINK_N; i++) {
        next_of[i] = 1 + bench_rng_below(&rng, LINK_N);
        link_sum += node_value(next_of[i]);
        for (int j = 0; j < LINK_LIST; j++) {
            friends_of[i][j] = 1 + bench_rng_below(&rng, LINK_N);
            link_sum += node_value(friends_of[i][j]);
        }
    }
}

typedef struct node_row {
    int64_t value;
    uint64_t next;
    uint64_t friend_count;
} node_row;

typedef struct link_files {
    MDB_env *raw;
    MDB_dbi nodes, friends, backlinks;
    lar_env *env;
    lar_class cls;
    uint32_t value_prop, next_prop, friends_prop;
} link_files;

static void links_open(link_files *f, const char *raw_path, const char *lar_path)
{
    remove_database(raw_path);
    f->raw = raw_env_open(raw_path);
    f->nodes = raw_dbi(f->raw, "nodes", MDB_INTEGERKEY);
    f->friends = raw_dbi(f->raw, "friends", 0);
    f->backlinks = raw_dbi(f->raw, "backlinks", 0);
    static const lar_property_def props[] = {
        {"value", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"next", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Node", NULL},
        {"friends", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Node", NULL},
    };
    static const lar_class_def cls = {"Node", props, 3, 0};
    f->env = lar_open_fresh(lar_path, &cls, 1);
    LAR_CHECK(lar_class_find(f->env, "Node", &f->cls));
    f->value_prop = prop_index(f->env, f->cls, "value");
    f->next_prop = prop_index(f->env, f->cls, "next");
    f->friends_prop = prop_index(f->env, f->cls, "friends");
}

static void links_close(link_files *f)
{
    if (f->raw) mdb_env_close(f->raw);
    if (f->env) LAR_CHECK(lar_env_close(f->env));
    memset(f, 0, sizeof *f);
}

/* Raw knows every key in advance (they count from 1), so each row is written once. */
static uint64_t raw_link_insert(link_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    for (uint64_t key = 1; key <= LINK_N; key++) {
        node_row row = {node_value(key), next_of[key - 1], LINK_LIST};
        MDB_val k = {sizeof key, &key}, d = {sizeof row, &row};
        MDB_CHECK(mdb_put(txn, f->nodes, &k, &d, MDB_APPEND));
        for (uint64_t j = 0; j < LINK_LIST; j++) {
            uint8_t fkey[16];
            list_key(key, j, fkey);
            MDB_val fk = {sizeof fkey, fkey}, fd = {sizeof(uint64_t), &friends_of[key - 1][j]};
            MDB_CHECK(mdb_put(txn, f->friends, &fk, &fd, MDB_APPEND));
        }
    }
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

/* Raw with a backlink index: the entry (target, origin, property) of each link counts it. */
static void raw_backlink_add(link_files *f, MDB_txn *txn, uint64_t target, uint64_t origin, uint8_t prop)
{
    uint8_t key[17];
    be64(target, key);
    be64(origin, key + 8);
    key[16] = prop;
    uint32_t one = 1;
    MDB_val k = {sizeof key, key}, d = {sizeof one, &one};
    int rc = mdb_put(txn, f->backlinks, &k, &d, MDB_NOOVERWRITE);
    if (rc == MDB_KEYEXIST) { /* d holds the stored count */
        uint32_t count;
        memcpy(&count, d.mv_data, sizeof count);
        count++;
        MDB_val nd = {sizeof count, &count};
        rc = mdb_put(txn, f->backlinks, &k, &nd, 0);
    }
    MDB_CHECK(rc);
}

static uint64_t raw_link_insert_backlinks(link_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    for (uint64_t key = 1; key <= LINK_N; key++) {
        node_row row = {node_value(key), next_of[key - 1], LINK_LIST};
        MDB_val k = {sizeof key, &key}, d = {sizeof row, &row};
        MDB_CHECK(mdb_put(txn, f->nodes, &k, &d, MDB_APPEND));
        raw_backlink_add(f, txn, next_of[key - 1], key, 0);
        for (uint64_t j = 0; j < LINK_LIST; j++) {
            uint8_t fkey[16];
            list_key(key, j, fkey);
            MDB_val fk = {sizeof fkey, fkey}, fd = {sizeof(uint64_t), &friends_of[key - 1][j]};
            MDB_CHECK(mdb_put(txn, f->friends, &fk, &fd, MDB_APPEND));
            raw_backlink_add(f, txn, friends_of[key - 1][j], key, 1);
        }
    }
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

/* A link needs its target to exist: every object is created first (link null, list
 * empty), then its link is set and its list filled, as a C API user builds a graph. */
static uint64_t capi_link_insert(link_files *f, lar_obj *objs)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    lar_value values[3];
    memset(values, 0, sizeof values);
    values[f->next_prop].type = LAR_TYPE_NULL;
    values[f->friends_prop].type = LAR_TYPE_NULL;
    for (uint64_t key = 1; key <= LINK_N; key++) {
        values[f->value_prop] = int_value(node_value(key));
        LAR_CHECK(lar_obj_create(txn, f->cls, values, 3, &objs[key - 1]));
    }
    lar_value link;
    memset(&link, 0, sizeof link);
    link.type = LAR_TYPE_LINK;
    for (size_t i = 0; i < LINK_N; i++) {
        link.as.link = objs[next_of[i] - 1];
        LAR_CHECK(lar_obj_set(txn, objs[i], f->next_prop, &link));
        for (int j = 0; j < LINK_LIST; j++) {
            link.as.link = objs[friends_of[i][j] - 1];
            LAR_CHECK(lar_list_append(txn, objs[i], f->friends_prop, &link));
        }
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    return elapsed;
}

static int64_t raw_node_value(link_files *f, MDB_txn *txn, uint64_t key)
{
    MDB_val k = {sizeof key, &key}, d;
    MDB_CHECK(mdb_get(txn, f->nodes, &k, &d));
    if (d.mv_size != sizeof(node_row)) die("raw link-scan", "bad row");
    int64_t v;
    memcpy(&v, d.mv_data, sizeof v);
    return v;
}

static uint64_t raw_link_scan(link_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *rows, *friends;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->nodes, &rows));
    MDB_CHECK(mdb_cursor_open(txn, f->friends, &friends));
    int64_t sum = 0;
    uint64_t count = 0;
    MDB_val k, d, fk, fd;
    MDB_cursor_op friend_op = MDB_FIRST;
    int rc = mdb_cursor_get(rows, &k, &d, MDB_FIRST);
    for (; rc == 0; rc = mdb_cursor_get(rows, &k, &d, MDB_NEXT)) {
        node_row row;
        if (d.mv_size != sizeof row) die("raw link-scan", "bad row");
        memcpy(&row, d.mv_data, sizeof row);
        uint64_t owner;
        memcpy(&owner, k.mv_data, sizeof owner);
        sum += raw_node_value(f, txn, row.next);
        for (uint64_t j = 0; j < row.friend_count; j++) {
            MDB_CHECK(mdb_cursor_get(friends, &fk, &fd, friend_op));
            friend_op = MDB_NEXT;
            if (fk.mv_size != 16 || read_be64(fk.mv_data) != owner || fd.mv_size != sizeof(uint64_t))
                die("raw link-scan", "the friends table is out of step");
            uint64_t target;
            memcpy(&target, fd.mv_data, sizeof target);
            sum += raw_node_value(f, txn, target);
        }
        count++;
    }
    if (rc != MDB_NOTFOUND) die("raw link-scan", mdb_strerror(rc));
    mdb_cursor_close(rows);
    mdb_cursor_close(friends);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw link-scan", sum, link_sum, count, LINK_N);
    return elapsed;
}

static int64_t capi_node_value(link_files *f, lar_txn *txn, lar_obj obj)
{
    lar_value v;
    LAR_CHECK(lar_obj_get(txn, obj, f->value_prop, &v));
    return v.as.integer;
}

static uint64_t capi_link_scan(link_files *f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    lar_iter *iter;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    LAR_CHECK(lar_iter_open(txn, f->cls, &iter));
    lar_value next, friends[LINK_LIST];
    LAR_CHECK(lar_iter_bind_value(iter, f->next_prop, &next));
    int64_t sum = 0;
    uint64_t count = 0;
    lar_obj obj;
    int rc;
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) {
        if (next.type != LAR_TYPE_LINK) die("c-api link-scan", "a null link");
        sum += capi_node_value(f, txn, next.as.link);
        size_t got;
        LAR_CHECK(lar_list_get_batch(txn, obj, f->friends_prop, 0, friends, LINK_LIST, &got));
        for (size_t j = 0; j < got; j++) sum += capi_node_value(f, txn, friends[j].as.link);
        count++;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next", rc);
    lar_iter_close(iter);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api link-scan", sum, link_sum, count, LINK_N);
    return elapsed;
}

/* list-filter's expected tally: lists filtered, and matches counted over them. */
static uint64_t filter_matches(void)
{
    uint64_t count = 0;
    for (size_t i = 0; i < FILTER_OWNERS; i++)
        for (int j = 0; j < LINK_LIST; j++) count += node_value(friends_of[i][j]) > FILTER_ABOVE;
    return count;
}

static uint64_t raw_list_filter(link_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *friends;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->friends, &friends));
    uint64_t matches = 0;
    for (uint64_t owner = 1; owner <= FILTER_OWNERS; owner++) {
        uint8_t first[16];
        list_key(owner, 0, first);
        MDB_val fk = {sizeof first, first}, fd;
        int rc = mdb_cursor_get(friends, &fk, &fd, MDB_SET_RANGE);
        for (; rc == 0 && fk.mv_size == 16 && read_be64(fk.mv_data) == owner;
             rc = mdb_cursor_get(friends, &fk, &fd, MDB_NEXT)) {
            uint64_t target;
            memcpy(&target, fd.mv_data, sizeof target);
            matches += raw_node_value(f, txn, target) > FILTER_ABOVE;
        }
        if (rc && rc != MDB_NOTFOUND) die("raw list-filter", mdb_strerror(rc));
    }
    mdb_cursor_close(friends);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw list-filter", (int64_t)matches, (int64_t)filter_matches(), FILTER_OWNERS, FILTER_OWNERS);
    return elapsed;
}

static uint64_t capi_list_filter(link_files *f, const lar_obj *objs)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    lar_query *above;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    LAR_CHECK(lar_query_parse(f->env, f->cls, "value > $0", &above));
    lar_query_arg threshold = {.kind = LAR_QUERY_ARG_VALUE, .value = int_value(FILTER_ABOVE)};
    LAR_CHECK(lar_query_bind(above, &threshold, 1));
    uint64_t matches = 0;
    for (size_t i = 0; i < FILTER_OWNERS; i++) {
        lar_value friends[LINK_LIST];
        lar_objkey keys[LINK_LIST];
        size_t got, count;
        LAR_CHECK(lar_list_get_batch(txn, objs[i], f->friends_prop, 0, friends, LINK_LIST, &got));
        for (size_t j = 0; j < got; j++) keys[j] = friends[j].as.link.key;
        lar_results *kept;
        LAR_CHECK(lar_query_run_keys(txn, above, keys, got, &kept));
        LAR_CHECK(lar_results_count(kept, &count));
        matches += count;
        lar_results_free(kept);
    }
    lar_query_free(above);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api list-filter", (int64_t)matches, (int64_t)filter_matches(), FILTER_OWNERS, FILTER_OWNERS);
    return elapsed;
}

static void bench_links(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-links.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-links.larder", dir);
    links_plan();
    lar_obj *objs = malloc(LINK_N * sizeof *objs);
    if (!objs) die("links", "out of memory");
    link_files f = {0};
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX, best_raw_backlinks = UINT64_MAX;
    for (int rep = 0; rep < WRITE_REPEATS; rep++) {
        links_close(&f);
        links_open(&f, raw_path, lar_path);
        best_raw_backlinks = min_u64(best_raw_backlinks, raw_link_insert_backlinks(&f));
        links_close(&f); /* fresh files: the raw scan below reads raw_link_insert's */
        links_open(&f, raw_path, lar_path);
        best_raw = min_u64(best_raw, raw_link_insert(&f));
        best_capi = min_u64(best_capi, capi_link_insert(&f, objs));
    }
    report_n("link-insert", "raw-lmdb", LINK_N, best_raw, best_raw);
    report_n("link-insert", "raw-lmdb+backlinks", LINK_N, best_raw_backlinks, best_raw);
    report_n_vs("link-insert", "c-api", LINK_N, best_capi, best_raw, "raw_backlinks", best_raw_backlinks);

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_link_scan(&f));
        best_capi = min_u64(best_capi, capi_link_scan(&f));
    }
    report_n("link-scan", "raw-lmdb", LINK_N, best_raw, best_raw);
    report_n("link-scan", "c-api", LINK_N, best_capi, best_raw);

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_list_filter(&f));
        best_capi = min_u64(best_capi, capi_list_filter(&f, objs));
    }
    report_n("list-filter", "raw-lmdb", FILTER_OWNERS, best_raw, best_raw);
    report_n("list-filter", "c-api", FILTER_OWNERS, best_capi, best_raw);
    links_close(&f);
    free(objs);
    free(next_of);
    free(friends_of);
}

/* ---- maps ---- */

typedef struct map_files {
    MDB_env *raw;
    MDB_dbi entries;
    lar_env *env;
    lar_class cls;
    uint32_t prop;
    lar_obj owner;
} map_files;

static char (*map_keys)[16];
static size_t *map_key_sizes;

static void map_open(map_files *f, const char *raw_path, const char *lar_path)
{
    remove_database(raw_path);
    f->raw = raw_env_open(raw_path);
    f->entries = raw_dbi(f->raw, "entries", 0);
    static const lar_property_def props[] = {{"entries", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, NULL, NULL}};
    static const lar_class_def cls = {"MapOwner", props, 1, 0};
    f->env = lar_open_fresh(lar_path, &cls, 1);
    LAR_CHECK(lar_class_find(f->env, "MapOwner", &f->cls));
    f->prop = prop_index(f->env, f->cls, "entries");
}

static void map_close(map_files *f)
{
    if (f->raw) mdb_env_close(f->raw);
    if (f->env) LAR_CHECK(lar_env_close(f->env));
    memset(f, 0, sizeof *f);
}

/* (map id 1, big-endian) followed by the key's bytes. */
static size_t map_key(size_t i, uint8_t *out)
{
    be64(1, out);
    memcpy(out + 8, map_keys[i], map_key_sizes[i]);
    return 8 + map_key_sizes[i];
}

static uint64_t raw_map_insert(map_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    for (size_t i = 0; i < MAP_N; i++) {
        uint8_t key[24];
        int64_t value = (int64_t)i;
        MDB_val k = {map_key(i, key), key}, d = {sizeof value, &value};
        MDB_CHECK(mdb_put(txn, f->entries, &k, &d, 0));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

static uint64_t capi_map_insert(map_files *f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    LAR_CHECK(lar_obj_create(txn, f->cls, NULL, 0, &f->owner));
    for (size_t i = 0; i < MAP_N; i++) {
        lar_string key = {map_keys[i], map_key_sizes[i]};
        lar_value v = int_value((int64_t)i);
        LAR_CHECK(lar_map_put(txn, f->owner, f->prop, &key, &v));
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    return elapsed;
}

static const int64_t map_sum = (int64_t)MAP_N * (MAP_N - 1) / 2;

static uint64_t raw_map_lookup(map_files *f, const int64_t *order)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    int64_t sum = 0;
    for (size_t i = 0; i < MAP_N; i++) {
        uint8_t key[24];
        MDB_val k = {map_key((size_t)order[i], key), key}, d;
        MDB_CHECK(mdb_get(txn, f->entries, &k, &d));
        int64_t v;
        memcpy(&v, d.mv_data, sizeof v);
        sum += v;
    }
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw map-lookup", sum, map_sum, MAP_N, MAP_N);
    return elapsed;
}

static uint64_t capi_map_lookup(map_files *f, const int64_t *order)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    int64_t sum = 0;
    for (size_t i = 0; i < MAP_N; i++) {
        lar_string key = {map_keys[order[i]], map_key_sizes[order[i]]};
        lar_value v;
        LAR_CHECK(lar_map_get(txn, f->owner, f->prop, &key, &v));
        sum += v.as.integer;
    }
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api map-lookup", sum, map_sum, MAP_N, MAP_N);
    return elapsed;
}

static void bench_maps(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-map.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-map.larder", dir);
    map_keys = malloc(MAP_N * sizeof *map_keys);
    map_key_sizes = malloc(MAP_N * sizeof *map_key_sizes);
    int64_t *order = malloc(MAP_N * sizeof *order);
    if (!map_keys || !map_key_sizes || !order) die("maps", "out of memory");
    for (size_t i = 0; i < MAP_N; i++) {
        map_key_sizes[i] = (size_t)snprintf(map_keys[i], sizeof map_keys[i], "k%zu", i);
        order[i] = (int64_t)i;
    }
    bench_rng rng = bench_rng_seed(MAP_SEED);
    bench_shuffle(order, MAP_N, &rng);

    map_files f = {0};
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;
    for (int rep = 0; rep < WRITE_REPEATS; rep++) {
        map_close(&f);
        map_open(&f, raw_path, lar_path);
        best_raw = min_u64(best_raw, raw_map_insert(&f));
        best_capi = min_u64(best_capi, capi_map_insert(&f));
    }
    report_n("map-insert", "raw-lmdb", MAP_N, best_raw, best_raw);
    report_n("map-insert", "c-api", MAP_N, best_capi, best_raw);

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_map_lookup(&f, order));
        best_capi = min_u64(best_capi, capi_map_lookup(&f, order));
    }
    report_n("map-lookup", "raw-lmdb", MAP_N, best_raw, best_raw);
    report_n("map-lookup", "c-api", MAP_N, best_capi, best_raw);
    map_close(&f);
    free(map_keys);
    free(map_key_sizes);
    free(order);
}

/* ---- sets ---- */

/* a = {0, 2, 4, ...}, b = {0, 3, 6, ...}: SET_N elements each. */
static int64_t set_a(size_t i) { return 2 * (int64_t)i; }
static int64_t set_b(size_t i) { return 3 * (int64_t)i; }

typedef enum set_op { SET_UNION, SET_INTERSECT } set_op;

/* The count and sum of the result, by brute force. */
static void set_expected(set_op op, uint64_t *count, int64_t *sum)
{
    size_t limit = 3 * SET_N;
    unsigned char *in = calloc(limit, 1);
    if (!in) die("sets", "out of memory");
    for (size_t i = 0; i < SET_N; i++) in[set_a(i)] |= 1, in[set_b(i)] |= 2;
    *count = 0;
    *sum = 0;
    for (size_t v = 0; v < limit; v++) {
        int keep = op == SET_UNION ? in[v] != 0 : in[v] == 3;
        if (keep) (*count)++, *sum += (int64_t)v;
    }
    free(in);
}

typedef struct set_files {
    MDB_env *raw;
    MDB_dbi elements;
    lar_env *env;
    lar_obj owner;
    uint32_t a_prop, b_prop;
} set_files;

static void set_key(uint64_t set, int64_t value, uint8_t key[16])
{
    be64(set, key);
    be64((uint64_t)value ^ (1ull << 63), key + 8);
}

/* Fresh files holding sets a and b, built outside the clock. */
static void sets_open(set_files *f, const char *raw_path, const char *lar_path)
{
    remove_database(raw_path);
    f->raw = raw_env_open(raw_path);
    f->elements = raw_dbi(f->raw, "elements", 0);
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    for (uint64_t set = 1; set <= 2; set++)
        for (size_t i = 0; i < SET_N; i++) {
            uint8_t key[16];
            set_key(set, set == 1 ? set_a(i) : set_b(i), key);
            MDB_val k = {sizeof key, key}, d = {0, NULL};
            MDB_CHECK(mdb_put(txn, f->elements, &k, &d, MDB_APPEND));
        }
    MDB_CHECK(mdb_txn_commit(txn));

    static const lar_property_def props[] = {
        {"a", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"b", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
    };
    static const lar_class_def cls_def = {"SetOwner", props, 2, 0};
    f->env = lar_open_fresh(lar_path, &cls_def, 1);
    lar_class cls;
    LAR_CHECK(lar_class_find(f->env, "SetOwner", &cls));
    f->a_prop = prop_index(f->env, cls, "a");
    f->b_prop = prop_index(f->env, cls, "b");
    lar_txn *ltxn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &ltxn));
    LAR_CHECK(lar_obj_create(ltxn, cls, NULL, 0, &f->owner));
    for (size_t i = 0; i < SET_N; i++) {
        lar_value a = int_value(set_a(i)), b = int_value(set_b(i));
        LAR_CHECK(lar_set_insert(ltxn, f->owner, f->a_prop, &a, NULL));
        LAR_CHECK(lar_set_insert(ltxn, f->owner, f->b_prop, &b, NULL));
    }
    LAR_CHECK(lar_txn_commit(ltxn));
    lar_txn_free(ltxn);
}

static void sets_close(set_files *f)
{
    if (f->raw) mdb_env_close(f->raw);
    if (f->env) LAR_CHECK(lar_env_close(f->env));
    memset(f, 0, sizeof *f);
}

/* Compares a cursor's key with key; a cursor past the end compares greater. */
static int cursor_cmp(int rc, const MDB_val *k, const uint8_t key[16])
{
    if (rc == MDB_NOTFOUND) return 1;
    if (rc) die("raw set", mdb_strerror(rc));
    return memcmp(k->mv_data, key, 16);
}

/* a = a | b: walk b; advance a's cursor to each element, put it through that cursor if absent. */
static void raw_union(MDB_cursor *ca, MDB_cursor *cb)
{
    uint8_t key[16];
    set_key(1, INT64_MIN, key);
    MDB_val ka = {sizeof key, key}, da;
    int rca = mdb_cursor_get(ca, &ka, &da, MDB_SET_RANGE);
    set_key(2, INT64_MIN, key);
    MDB_val kb = {sizeof key, key}, db;
    int rcb = mdb_cursor_get(cb, &kb, &db, MDB_SET_RANGE);
    for (; rcb == 0; rcb = mdb_cursor_get(cb, &kb, &db, MDB_NEXT)) {
        if (read_be64(kb.mv_data) != 2) break;
        uint8_t want[16];
        be64(1, want);
        memcpy(want + 8, (const uint8_t *)kb.mv_data + 8, 8);
        int c;
        while ((c = cursor_cmp(rca, &ka, want)) < 0) rca = mdb_cursor_get(ca, &ka, &da, MDB_NEXT);
        if (c == 0) continue;
        MDB_val nk = {sizeof want, want}, nd = {0, NULL};
        MDB_CHECK(mdb_cursor_put(ca, &nk, &nd, 0));
        rca = mdb_cursor_get(ca, &ka, &da, MDB_GET_CURRENT);
    }
    if (rcb != 0 && rcb != MDB_NOTFOUND) die("raw set-union", mdb_strerror(rcb));
}

/* a = a & b: walk a; advance b's cursor to each element, delete it from a if b lacks it. */
static void raw_intersect(MDB_cursor *ca, MDB_cursor *cb)
{
    uint8_t key[16];
    set_key(2, INT64_MIN, key);
    MDB_val kb = {sizeof key, key}, db;
    int rcb = mdb_cursor_get(cb, &kb, &db, MDB_SET_RANGE);
    set_key(1, INT64_MIN, key);
    MDB_val ka = {sizeof key, key}, da;
    int rca = mdb_cursor_get(ca, &ka, &da, MDB_SET_RANGE);
    while (rca == 0 && read_be64(ka.mv_data) == 1) {
        uint8_t want[16];
        be64(2, want);
        memcpy(want + 8, (const uint8_t *)ka.mv_data + 8, 8);
        int c;
        while ((c = cursor_cmp(rcb, &kb, want)) < 0) rcb = mdb_cursor_get(cb, &kb, &db, MDB_NEXT);
        if (c != 0) MDB_CHECK(mdb_cursor_del(ca, 0)); /* the next MDB_NEXT lands on the element after it */
        rca = mdb_cursor_get(ca, &ka, &da, MDB_NEXT);
    }
    if (rca != 0 && rca != MDB_NOTFOUND) die("raw set-intersect", mdb_strerror(rca));
}

static uint64_t raw_set_op(set_files *f, set_op op)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *ca, *cb;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->elements, &ca));
    MDB_CHECK(mdb_cursor_open(txn, f->elements, &cb));
    if (op == SET_UNION) raw_union(ca, cb);
    else raw_intersect(ca, cb);
    mdb_cursor_close(ca);
    mdb_cursor_close(cb);
    MDB_CHECK(mdb_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;

    /* Check set 1, outside the clock. */
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->elements, &ca));
    uint8_t key[16];
    set_key(1, INT64_MIN, key);
    MDB_val k = {sizeof key, key}, d;
    uint64_t count = 0;
    int64_t sum = 0;
    for (int rc = mdb_cursor_get(ca, &k, &d, MDB_SET_RANGE); rc == 0 && read_be64(k.mv_data) == 1;
         rc = mdb_cursor_get(ca, &k, &d, MDB_NEXT)) {
        count++;
        sum += (int64_t)(read_be64((const uint8_t *)k.mv_data + 8) ^ (1ull << 63));
    }
    mdb_cursor_close(ca);
    mdb_txn_abort(txn);
    uint64_t want_count;
    int64_t want_sum;
    set_expected(op, &want_count, &want_sum);
    check_result(op == SET_UNION ? "raw set-union" : "raw set-intersect", sum, want_sum, count, want_count);
    return elapsed;
}

static uint64_t capi_set_op(set_files *f, set_op op)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    if (op == SET_UNION) LAR_CHECK(lar_set_union(txn, f->owner, f->a_prop, f->owner, f->b_prop));
    else LAR_CHECK(lar_set_intersect(txn, f->owner, f->a_prop, f->owner, f->b_prop));
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);

    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    lar_value batch[256], after;
    uint64_t count = 0;
    int64_t sum = 0;
    size_t got;
    int rc;
    while ((rc = lar_set_list(txn, f->owner, f->a_prop, count ? &after : NULL, batch, 256, &got)) == LAR_OK) {
        for (size_t i = 0; i < got; i++) sum += batch[i].as.integer;
        count += got;
        after = batch[got - 1];
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_set_list", rc);
    lar_txn_free(txn);
    uint64_t want_count;
    int64_t want_sum;
    set_expected(op, &want_count, &want_sum);
    check_result(op == SET_UNION ? "c-api set-union" : "c-api set-intersect", sum, want_sum, count, want_count);
    return elapsed;
}

static void bench_sets(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-set.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-set.larder", dir);
    static const char *const names[] = {"set-union", "set-intersect"};
    for (set_op op = SET_UNION; op <= SET_INTERSECT; op++) {
        set_files f = {0};
        uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;
        for (int rep = 0; rep < WRITE_REPEATS; rep++) {
            sets_open(&f, raw_path, lar_path);
            best_raw = min_u64(best_raw, raw_set_op(&f, op));
            best_capi = min_u64(best_capi, capi_set_op(&f, op));
            sets_close(&f);
        }
        report_n(names[op], "raw-lmdb", SET_N, best_raw, best_raw);
        report_n(names[op], "c-api", SET_N, best_capi, best_raw);
    }
}

void bench_collections(const char *dir)
{
    bench_lists(dir);
    bench_links(dir);
    bench_maps(dir);
    bench_sets(dir);
}
