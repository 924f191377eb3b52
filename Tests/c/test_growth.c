/* Map growth. The default map reserves address space for any file a program is likely
 * to write, so growth is rare; a write that still fills the map fails at once with
 * LAR_EMAPFULL, can only be aborted, and the map grows, without ever waiting for
 * another thread's snapshot, as soon as no transaction of the process is live. */
#include "test.h"

#include <stdatomic.h>
#include <stdlib.h>

#define SMALL_MAP ((size_t)1 << 16) /* 64 KiB: a few pages */
#define BIG_COUNT 20000
#define TEXT_SIZE 200
typedef struct item_schema {
    lar_class cls;
    uint32_t id, text;
} item_schema;

static item_schema item_setup(lar_env *env)
{
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("text", LAR_TYPE_STRING, 0),
    };
    lar_class_def cls = CLASS_DEF("Item", props);
    CHECK_OK(lar_schema_apply(env, &cls, 1, 1));
    item_schema s = {class_id(env, "Item"), 0, 0};
    s.id = prop_id(env, s.cls, "id");
    s.text = prop_id(env, s.cls, "text");
    return s;
}

static item_schema item_lookup(lar_env *env)
{
    item_schema s = {class_id(env, "Item"), 0, 0};
    s.id = prop_id(env, s.cls, "id");
    s.text = prop_id(env, s.cls, "text");
    return s;
}

/* The 200-byte text of item id: different for every id. */
static void item_text(int64_t id, char out[TEXT_SIZE + 1])
{
    int n = snprintf(out, TEXT_SIZE + 1, "item %08lld:", (long long)id);
    for (int i = n; i < TEXT_SIZE; i++) out[i] = (char)('a' + (id * 7 + i) % 26);
    out[TEXT_SIZE] = 0;
}

static int item_try_create(lar_txn *txn, const item_schema *s, int64_t id)
{
    char text[TEXT_SIZE + 1];
    item_text(id, text);
    lar_value values[2];
    values[s->id] = val_int(id);
    values[s->text] = val_strn(text, TEXT_SIZE);
    return lar_obj_create(txn, s->cls, values, 2, NULL);
}

/* Items first ... first+count-1, for write_retrying(). */
typedef struct item_range {
    const item_schema *schema;
    int64_t first, count;
} item_range;

static int create_range(lar_txn *txn, void *context)
{
    const item_range *r = context;
    int rc = LAR_OK;
    for (int64_t id = r->first; !rc && id < r->first + r->count; id++) rc = item_try_create(txn, r->schema, id);
    return rc;
}

/* Creates items until the map is full; returns the id that did not fit. */
static int64_t fill_map(lar_txn *txn, const item_schema *s, int64_t first)
{
    for (int64_t id = first;; id++) {
        int rc = item_try_create(txn, s, id);
        if (rc == LAR_EMAPFULL) return id;
        CHECK_OK(rc);
        CHECK(id < first + 1000000);
    }
}

/* Checks that the file holds items 0 ... count-1, in creation order, each found by its key. */
static void items_verify(lar_env *env, const item_schema *s, int64_t count)
{
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, s->cls), count);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, s->cls, &iter));
    char text[TEXT_SIZE + 1];
    lar_value values[2];
    lar_obj obj;
    for (int64_t id = 0; id < count; id++) {
        CHECK_OK(lar_iter_next_all(iter, &obj, values, 2));
        CHECK_VALUE(values[s->id], val_int(id));
        item_text(id, text);
        CHECK_VALUE(values[s->text], val_strn(text, TEXT_SIZE));
        lar_value key = val_int(id);
        lar_obj found;
        CHECK_OK(lar_obj_find(txn, s->cls, &key, &found));
        CHECK(found.cls == obj.cls && found.key == obj.key);
    }
    CHECK_END(lar_iter_next(iter, &obj));
    lar_iter_close(iter);
    commit_txn(txn);
}

TEST(growth_in_one_write_transaction_after_an_abort)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    size_t initial = env_info(env).map_size;

    item_range all = {&s, 0, BIG_COUNT};
    CHECK(write_retrying(env, create_range, &all) > 0); /* the first runs filled the map */

    lar_env_info info = env_info(env);
    CHECK(info.map_size > initial);
    CHECK(info.map_size >= (size_t)BIG_COUNT * TEXT_SIZE);
    CHECK(info.used_size <= info.map_size);
    items_verify(env, &s, BIG_COUNT);
    close_env(env);

    /* The grown file reopens with the same tiny initial map and reads back whole. */
    env = open_env_with(path, SMALL_MAP, 0);
    s = item_lookup(env);
    items_verify(env, &s, BIG_COUNT);
    close_env(env);
}

TEST(growth_across_many_write_transactions)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    size_t initial = env_info(env).map_size;
    const int txns = 200, per_txn = BIG_COUNT / 200;
    int full = 0;
    for (int t = 0; t < txns; t++) {
        item_range range = {&s, (int64_t)t * per_txn, per_txn};
        full += write_retrying(env, create_range, &range);
    }
    CHECK(full > 0);
    CHECK(env_info(env).map_size > initial);
    items_verify(env, &s, BIG_COUNT);
    close_env(env);
}

/* "A write that fills the map ... can only be aborted": nothing of it is stored, and
 * no call but abort (or a commit, which refuses) goes on with it. */
TEST(growth_a_full_map_fails_the_write_and_keeps_earlier_commits)
{
    lar_env *env = open_env_with(test_db_path(NULL), SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    const int64_t before = 15; /* fits the map's 16 pages beside the change log's table */
    item_range first = {&s, 0, before};
    CHECK_EQ(write_retrying(env, create_range, &first), 0);
    size_t initial = env_info(env).map_size;

    lar_txn *txn = begin_write(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, s.cls, &iter));
    lar_obj obj;
    CHECK_OK(lar_iter_next(iter, &obj));
    int64_t stopped = fill_map(txn, &s, before);
    CHECK(stopped >= before);
    CHECK_RC(item_try_create(txn, &s, stopped + 1), LAR_EMISUSE);
    CHECK_RC(lar_obj_get(txn, obj, s.id, &(lar_value){0}), LAR_EMISUSE);
    CHECK_RC(lar_iter_next(iter, &obj), LAR_EMISUSE);
    uint64_t count;
    CHECK_RC(lar_objects_count(txn, s.cls, &count), LAR_EMISUSE);
    CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE); /* refused, and the transaction ends */
    int active = 1;
    CHECK_OK(lar_txn_state(txn, &active, NULL));
    CHECK_EQ(active, 0);
    lar_iter_close(iter);
    lar_txn_free(txn);

    CHECK(env_info(env).map_size > initial); /* grown when the failed write ended */
    items_verify(env, &s, before);
    item_range rest = {&s, before, stopped - before + 10};
    CHECK_EQ(write_retrying(env, create_range, &rest), 0); /* the same write now fits */
    items_verify(env, &s, stopped + 10);
    close_env(env);
}

typedef struct writer_args {
    lar_env *env;
    item_schema schema;
    int64_t first;
    atomic_int rc;
    atomic_llong took_ms;
} writer_args;

/* One write transaction on its own thread, from begin to its end; records how it ended. */
static void *write_until_full(void *arg)
{
    writer_args *w = arg;
    int64_t started = now_ms();
    lar_txn *txn = begin_write(w->env);
    int rc = LAR_OK;
    for (int64_t id = w->first; !rc && id < w->first + BIG_COUNT; id++) rc = item_try_create(txn, &w->schema, id);
    if (!rc) rc = lar_txn_commit(txn);
    else CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    atomic_store(&w->took_ms, (long long)(now_ms() - started));
    atomic_store(&w->rc, rc);
    return NULL;
}

/* "A write must never wait on another thread's idle snapshot": with a reader pinned on
 * this thread, a write that fills a small map fails at once; the reader keeps its
 * snapshot and the strings it borrowed; once it ends, the map grows and the write fits. */
TEST(growth_never_waits_for_a_snapshot_of_another_thread)
{
    lar_env *env = open_env_with(test_db_path(NULL), SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    item_range first = {&s, 0, 1};
    write_retrying(env, create_range, &first);
    size_t initial = env_info(env).map_size;

    lar_txn *reader = begin_read(env);
    lar_value key = val_int(0), text;
    lar_obj obj;
    CHECK_OK(lar_obj_find(reader, s.cls, &key, &obj));
    CHECK_OK(lar_obj_get(reader, obj, s.text, &text));

    for (int attempt = 0; attempt < 2; attempt++) { /* again: the map cannot grow meanwhile */
        writer_args w = {.env = env, .schema = s, .first = 1};
        pthread_t writer;
        CHECK(pthread_create(&writer, NULL, write_until_full, &w) == 0);
        join_thread(writer, 20000);
        CHECK_EQ(atomic_load(&w.rc), LAR_EMAPFULL);
        CHECK(atomic_load(&w.took_ms) < 1000);
        CHECK_EQ(env_info(env).map_size, initial);
    }
    char expected[TEXT_SIZE + 1];
    item_text(0, expected);
    CHECK_VALUE(text, val_strn(expected, TEXT_SIZE)); /* still borrowed from the same map */
    CHECK_EQ(count_objects(reader, s.cls), 1);
    commit_txn(reader); /* the last live transaction: the map grows now */
    CHECK(env_info(env).map_size > initial);

    item_range rest = {&s, 1, BIG_COUNT};
    write_retrying(env, create_range, &rest);
    items_verify(env, &s, BIG_COUNT + 1);
    close_env(env);
}

/* The default map: 200 MB written on one thread while another holds a snapshot, and
 * no write waits (with a 64 MiB map, this write stalled 30 s and then failed). */
TEST(growth_default_map_takes_200_mb_beside_a_pinned_snapshot)
{
    lar_env *env;
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    options.flags = LAR_ENV_NOSYNC;
    CHECK_OK(lar_env_open(test_db_path(NULL), &options, &env));
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("blob", LAR_TYPE_BINARY, 0),
    };
    lar_class_def def = CLASS_DEF("Blob", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Blob");
    lar_txn *reader = begin_read(env); /* pinned for the whole test */

    enum { BLOB = 64 << 10, PER_TXN = 64, TXNS = 50 }; /* 50 x 4 MiB = 200 MiB */
    uint8_t *blob = calloc(1, BLOB);
    CHECK(blob != NULL);
    int64_t longest = 0;
    for (int t = 0; t < TXNS; t++) {
        int64_t started = now_ms();
        lar_txn *txn = begin_write(env);
        for (int i = 0; i < PER_TXN; i++) {
            int64_t id = (int64_t)t * PER_TXN + i;
            memcpy(blob, &id, sizeof id);
            lar_value values[2] = {val_int(id), val_bin(blob, BLOB)};
            CHECK_OK(lar_obj_create(txn, cls, values, 2, NULL));
        }
        commit_txn(txn);
        int64_t took = now_ms() - started;
        if (took > longest) longest = took;
    }
    free(blob);
    CHECK(longest < 1000);
    CHECK_EQ(count_objects(reader, cls), 0); /* the pinned snapshot still sees its own commit */
    commit_txn(reader);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, cls), (uint64_t)TXNS * PER_TXN);
    commit_txn(txn);
    CHECK(env_info(env).used_size >= (size_t)TXNS * PER_TXN * BLOB);
    close_env(env);
}
