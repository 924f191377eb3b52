/* Map growth: a file opened with a tiny map must take any amount of data, in one write
 * transaction or many, with iterators and borrowed strings surviving the growth. */
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

static void item_create(lar_txn *txn, const item_schema *s, int64_t id)
{
    char text[TEXT_SIZE + 1];
    item_text(id, text);
    lar_value values[2];
    values[s->id] = val_int(id);
    values[s->text] = val_strn(text, TEXT_SIZE);
    CHECK_OK(lar_obj_create(txn, s->cls, values, 2, NULL));
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

TEST(growth_in_one_write_transaction)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    size_t initial = env_info(env).map_size;

    lar_txn *txn = begin_write(env);
    for (int64_t id = 0; id < BIG_COUNT; id++) item_create(txn, &s, id);
    CHECK_EQ(count_objects(txn, s.cls), BIG_COUNT); /* the write sees its own rows */
    commit_txn(txn);

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
    for (int t = 0; t < txns; t++) {
        lar_txn *txn = begin_write(env);
        for (int i = 0; i < per_txn; i++) item_create(txn, &s, (int64_t)t * per_txn + i);
        commit_txn(txn);
    }
    CHECK(env_info(env).map_size > initial);
    items_verify(env, &s, BIG_COUNT);
    close_env(env);
}

/* "objects created during a write transaction's iteration are visited", also when the
 * writes in between make the map grow under the iterator. */
TEST(growth_under_an_open_iterator)
{
    lar_env *env = open_env_with(test_db_path(NULL), SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    const int64_t before = 50;
    lar_txn *txn = begin_write(env);
    for (int64_t id = 0; id < before; id++) item_create(txn, &s, id);
    commit_txn(txn);
    size_t initial = env_info(env).map_size;

    txn = begin_write(env);
    lar_iter *stepped, *fresh;
    CHECK_OK(lar_iter_open(txn, s.cls, &stepped));
    CHECK_OK(lar_iter_open(txn, s.cls, &fresh)); /* opened, never stepped before the growth */
    lar_obj obj, last = {0, 0};
    for (int64_t id = 0; id < 10; id++) {
        CHECK_OK(lar_iter_next(stepped, &obj));
        CHECK_VALUE(get_value(txn, obj, s.id), val_int(id));
        last = obj;
    }
    for (int64_t id = before; id < before + BIG_COUNT; id++) item_create(txn, &s, id);
    CHECK(env_info(env).map_size > initial);

    /* The stepped iterator goes on after the tenth object, through old and new objects. */
    for (int64_t id = 10; id < before + BIG_COUNT; id++) {
        CHECK_OK(lar_iter_next(stepped, &obj));
        CHECK(obj.key > last.key);
        CHECK_VALUE(get_value(txn, obj, s.id), val_int(id));
        last = obj;
    }
    CHECK_END(lar_iter_next(stepped, &obj));
    /* The other one starts at the first object. */
    CHECK_OK(lar_iter_next(fresh, &obj));
    CHECK_VALUE(get_value(txn, obj, s.id), val_int(0));
    lar_iter_close(stepped);
    lar_iter_close(fresh);
    commit_txn(txn);
    items_verify(env, &s, before + BIG_COUNT);
    close_env(env);
}

/* "Strings ... read from the database are borrowed: they ... stay valid until the
 * transaction that read them ends", even when the map is remapped in between. */
TEST(growth_keeps_strings_read_earlier_in_the_write)
{
    lar_env *env = open_env_with(test_db_path(NULL), SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    size_t initial = env_info(env).map_size;
    lar_txn *txn = begin_write(env);
    item_create(txn, &s, 0);
    lar_value key = val_int(0);
    lar_obj first;
    CHECK_OK(lar_obj_find(txn, s.cls, &key, &first));
    lar_value one = get_value(txn, first, s.text);
    lar_value all[2];
    CHECK_OK(lar_obj_get_all(txn, first, all, 2));

    for (int64_t id = 1; id <= BIG_COUNT; id++) item_create(txn, &s, id);
    CHECK(env_info(env).map_size > initial);

    char text[TEXT_SIZE + 1];
    item_text(0, text);
    CHECK_VALUE(one, val_strn(text, TEXT_SIZE));
    CHECK_EQ(one.as.string.data[TEXT_SIZE], '\0');
    CHECK_VALUE(all[s.text], val_strn(text, TEXT_SIZE));
    commit_txn(txn);
    close_env(env);
}

typedef struct reader_args {
    lar_env *env;
    item_schema schema;
    latch *started;
    atomic_llong ended_at; /* now_ms() just before the reader ended its snapshot */
    atomic_llong seen;
} reader_args;

/* Holds a read snapshot for a while, reading from it, then ends it. */
static void *hold_snapshot(void *arg)
{
    reader_args *r = arg;
    lar_txn *txn = begin_read(r->env);
    latch_open(r->started);
    int64_t until = now_ms() + 400;
    while (now_ms() < until) {
        atomic_store(&r->seen, (long long)count_objects(txn, r->schema.cls));
        sleep_ms(10);
    }
    atomic_store(&r->ended_at, (long long)now_ms());
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    return NULL;
}

/* "the growth waits until other transactions of this process on the same file have ended" */
TEST(growth_waits_for_a_reader_of_another_thread)
{
    lar_env *env = open_env_with(test_db_path(NULL), SMALL_MAP, LAR_ENV_NOSYNC);
    item_schema s = item_setup(env);
    lar_txn *txn = begin_write(env);
    item_create(txn, &s, 0);
    commit_txn(txn);
    size_t initial = env_info(env).map_size;

    reader_args r = {.env = env, .schema = s, .started = latch_new()};
    atomic_init(&r.ended_at, 0);
    atomic_init(&r.seen, -1);
    pthread_t reader;
    CHECK(pthread_create(&reader, NULL, hold_snapshot, &r) == 0);
    CHECK(latch_wait(r.started, 10000));

    txn = begin_write(env);
    for (int64_t id = 1; id <= 2000; id++) item_create(txn, &s, id);
    int64_t grown_at = now_ms();
    commit_txn(txn);
    join_thread(reader, 20000);

    CHECK(env_info(env).map_size > initial);
    CHECK(atomic_load(&r.ended_at) > 0);
    CHECK(grown_at >= atomic_load(&r.ended_at)); /* the writer could not grow before the reader ended */
    CHECK_EQ(atomic_load(&r.seen), 1);            /* the reader kept its snapshot meanwhile */
    latch_free(r.started);
    items_verify(env, &s, 2001);
    close_env(env);
}
