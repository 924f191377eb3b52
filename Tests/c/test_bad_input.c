/* Bad input: wrong-typed values, keys without data, and damaged rows. Every call
 * must return a LAR_E* code, never crash; the fuzzer (Tests/fuzz) found or
 * guards each case here. */
#include "test.h"

#include <lmdb.h>
#include <stdlib.h>

/* Fills a large stretch of the stack with a non-zero pattern, so a callee at the
 * same depth that reads an uninitialised local sees garbage instead of a lucky 0. */
__attribute__((noinline)) static void soil_stack(void)
{
    volatile uint8_t garbage[16384];
    for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = 0x5a;
}

/* "LAR_ETYPE (a value of the wrong type ...)": lar_obj_create used to free an
 * uninitialised pointer when the check failed. */
TEST(bad_input_wrong_typed_value_is_refused_without_a_crash)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value values[4];
    values[p.id] = val_int(1);
    values[p.name] = val_int(7); /* a string property given an int */
    values[p.age] = val_null();
    values[p.score] = val_double(1);
    for (int i = 0; i < 4; i++) {
        soil_stack();
        CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_ETYPE);
    }
    values[p.name] = val_str("\xff"); /* invalid UTF-8 takes the same early return */
    soil_stack();
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_EINVAL);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);
    close_env(env);
}

/* lar_obj_find checks a string key as lar_obj_create checks a string value. */
TEST(bad_input_find_with_a_string_key_without_data)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("code", LAR_TYPE_STRING, LAR_PROP_PRIMARY_KEY)};
    lar_class_def def = CLASS_DEF("Item", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Item");
    lar_txn *txn = begin_write(env);
    lar_value key = val_str("a");
    CHECK_OK(lar_obj_create(txn, cls, &key, 1, NULL));
    commit_txn(txn);
    txn = begin_read(env);
    lar_obj found;
    lar_value no_data = {LAR_TYPE_STRING, {.string = {NULL, 5}}};
    CHECK_RC(lar_obj_find(txn, cls, &no_data, &found), LAR_EINVAL);
    CHECK_MSG_HAS("no data");
    lar_value empty = {LAR_TYPE_STRING, {.string = {NULL, 0}}};
    CHECK_RC(lar_obj_find(txn, cls, &empty, &found), LAR_ENOTFOUND);
    lar_value invalid = val_str("\xff");
    CHECK_RC(lar_obj_find(txn, cls, &invalid, &found), LAR_EINVAL);
    CHECK_OK(lar_obj_find(txn, cls, &key, &found));
    commit_txn(txn);
    close_env(env);
}

/* ---- damaged rows ---- */

/* Writes a record straight into a table of the file, as a damaged file would hold it. */
static void put_raw(const char *path, const char *table, unsigned int flags, const void *key, size_t key_size,
                    const void *bytes, size_t size)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 16) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, table, flags, &dbi) == 0);
    MDB_val k = {key_size, (void *)key}, data = {size, (void *)bytes};
    CHECK(mdb_put(txn, dbi, &k, &data, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

/* Replaces the row of key in cls's table with the given bytes. */
static void put_raw_row(const char *path, lar_class cls, lar_objkey key, const void *bytes, size_t size)
{
    char table[16];
    snprintf(table, sizeof table, "c%u", cls);
    put_raw(path, table, MDB_INTEGERKEY, &key, sizeof key, bytes, size);
}

/* Person's row: id, name (offset, length), age, score slots; a one-byte null bitmap; the name's bytes. */
#define PERSON_VAR_AT 33

typedef struct person_row {
    uint8_t bytes[PERSON_VAR_AT + 16];
    size_t size;
} person_row;

/* A Person row whose name slot says (offset, length) over the given variable area. */
static person_row person_row_with_name(uint32_t offset, uint32_t length, const char *var, size_t var_size)
{
    person_row row;
    memset(&row, 0, sizeof row);
    int64_t id = 1;
    memcpy(row.bytes, &id, 8);
    memcpy(row.bytes + 8, &offset, 4);
    memcpy(row.bytes + 12, &length, 4);
    memcpy(row.bytes + PERSON_VAR_AT, var, var_size);
    row.size = PERSON_VAR_AT + var_size;
    return row;
}

/* Every way of reading, in this transaction, an object whose row is damaged returns LAR_ECORRUPT. */
static void check_every_read_is_corrupt(lar_txn *txn, const person_schema *p, lar_obj obj)
{
    lar_value value, all[4];
    CHECK_RC(lar_obj_get(txn, obj, p->name, &value), LAR_ECORRUPT);
    CHECK_RC(lar_obj_get_all(txn, obj, all, 4), LAR_ECORRUPT);
    lar_iter *iter;
    lar_obj got;
    CHECK_OK(lar_iter_open(txn, p->cls, &iter));
    CHECK_RC(lar_iter_next_all(iter, &got, all, 4), LAR_ECORRUPT);
    lar_iter_close(iter);
    CHECK_OK(lar_iter_open(txn, p->cls, &iter));
    CHECK_OK(lar_iter_bind_value(iter, p->name, &value));
    CHECK_RC(lar_iter_next(iter, &got), LAR_ECORRUPT);
    lar_iter_close(iter);
    CHECK_OK(lar_iter_open(txn, p->cls, &iter));
    lar_value names[3];
    size_t count;
    CHECK_OK(lar_iter_bind_value(iter, p->name, &names[0]));
    CHECK_RC(lar_iter_next_batch(iter, NULL, 3, sizeof names[0], &count), LAR_ECORRUPT);
    CHECK_EQ(count, 0);
    lar_iter_close(iter);
}

static void check_damaged_name_is_corrupt(person_row row)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    CHECK(p.id == 0 && p.name == 1 && p.age == 2 && p.score == 3); /* the layout person_row writes */
    lar_txn *txn = begin_write(env);
    lar_obj obj = person_create(txn, &p, 1, "someone", 30, 1.5);
    commit_txn(txn);
    close_env(env);
    put_raw_row(path, p.cls, obj.key, row.bytes, row.size);

    env = open_env(path);
    txn = begin_read(env);
    check_every_read_is_corrupt(txn, &p, obj);
    commit_txn(txn);
    txn = begin_write(env); /* a write copies what it reads: the checks come first */
    check_every_read_is_corrupt(txn, &p, obj);
    lar_value age = val_int(31);
    CHECK_RC(lar_obj_set(txn, obj, p.age, &age), LAR_ECORRUPT);
    lar_txn_abort(txn);
    lar_txn_free(txn);
    close_env(env);
}

/* "Strings read from a database are followed by a NUL byte": one that is not is damage. */
TEST(bad_input_string_without_its_nul_is_corrupt)
{
    check_damaged_name_is_corrupt(person_row_with_name(PERSON_VAR_AT, 7, "someoneX", 8));
}

TEST(bad_input_string_past_the_row_is_corrupt)
{
    check_damaged_name_is_corrupt(person_row_with_name(PERSON_VAR_AT, 8, "someone", 8));
    check_damaged_name_is_corrupt(person_row_with_name(PERSON_VAR_AT + 4, UINT32_MAX - 4, "some", 5));
    check_damaged_name_is_corrupt(person_row_with_name(UINT32_MAX, 0, "", 1));
}

/* A string's bytes lie in the variable area, never over the fixed slots. */
TEST(bad_input_string_over_the_slots_is_corrupt)
{
    check_damaged_name_is_corrupt(person_row_with_name(0, 3, "x", 2));
}

/* Found by the fuzzer: an iterator outlives its transaction, and a class added in
 * that transaction by lar_schema_apply dies with it, so lar_iter_next_all must
 * report the ended transaction before it looks at the class. */
TEST(bad_input_iterator_of_a_class_added_in_an_aborted_write)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_txn *txn = begin_write(env);
    lar_property_def props[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("Fresh", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, 0, &iter));
    CHECK_OK(lar_txn_abort(txn));
    lar_obj obj;
    lar_value values[1];
    CHECK_RC(lar_iter_next_all(iter, &obj, values, 1), LAR_EMISUSE);
    CHECK_RC(lar_iter_next_all(iter, &obj, values, 2), LAR_EMISUSE);
    CHECK_RC(lar_iter_next(iter, &obj), LAR_EMISUSE);
    lar_iter_close(iter);
    lar_txn_free(txn);
    close_env(env);
}

/* ---- damaged stored schemas ---- */

/* The stored schema's form (CCore/schema.c), built up for one class. */
typedef struct schema_blob {
    uint8_t bytes[512];
    size_t size;
} schema_blob;

static void blob_put(schema_blob *b, const void *bytes, size_t size)
{
    CHECK(b->size + size <= sizeof b->bytes);
    memcpy(b->bytes + b->size, bytes, size);
    b->size += size;
}

static void blob_u32(schema_blob *b, uint32_t v) { blob_put(b, &v, 4); }

static void blob_string(schema_blob *b, const char *s)
{
    blob_u32(b, s ? (uint32_t)strlen(s) : UINT32_MAX);
    if (s) blob_put(b, s, strlen(s));
}

static void blob_property(schema_blob *b, const char *name, uint8_t type, uint8_t collection, uint32_t flags,
                          const char *target)
{
    blob_string(b, name);
    blob_put(b, &type, 1);
    blob_put(b, &collection, 1);
    blob_u32(b, flags);
    blob_string(b, target);
    blob_string(b, NULL);
}

/* A file whose one class "Thing" (table c0 exists) is stored with the given second property
 * after a plain int "id". */
static const char *file_with_stored_property(const char *suffix, const char *name, uint8_t type,
                                             uint8_t collection, uint32_t flags, const char *target)
{
    const char *path = test_db_path(suffix);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("id", LAR_TYPE_INT, 0), PROP("text", LAR_TYPE_STRING, 0)};
    lar_class_def def = CLASS_DEF("Thing", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    close_env(env);
    schema_blob b = {{0}, 0};
    blob_u32(&b, 1);
    blob_string(&b, "Thing");
    blob_u32(&b, 0);
    blob_u32(&b, 2);
    blob_property(&b, "id", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL);
    blob_property(&b, name, type, collection, flags, target);
    put_raw(path, "larder", 0, "schema", 6, b.bytes, b.size);
    return path;
}

/* A stored schema no lar_schema_apply() could have written is damage: the row code
 * relies on the rules apply enforces (a link without a target class, or to one that
 * does not exist, would decode to an object of no class). */
TEST(bad_input_stored_schema_that_breaks_the_rules_is_corrupt)
{
    static const struct {
        const char *name;
        uint8_t type, collection;
        uint32_t flags;
        const char *target;
    } cases[] = {
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL},      /* a link to nothing */
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Gone"},    /* to no class */
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_NONE, 0, "Thing"},      /* a required to-one link */
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_LIST, LAR_PROP_OPTIONAL, "Thing"},   /* null in a list */
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_MAP, 0, "Thing"},       /* a map of required objects */
        {"text", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, "Thing"},    /* a target on a string */
        {"text", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL | LAR_PROP_INDEXED, "Thing"},
        {"text", LAR_TYPE_INT, LAR_COLLECTION_LIST, LAR_PROP_PRIMARY_KEY, NULL},    /* a list as key */
        {"text", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL}, /* an optional mixed */
        {"text", LAR_TYPE_LINKING_OBJECTS, LAR_COLLECTION_NONE, 0, NULL},    /* no slot at all */
        {"text", 200, LAR_COLLECTION_NONE, 0, NULL},                         /* unknown type */
        {"text", LAR_TYPE_NULL, LAR_COLLECTION_NONE, 0, NULL},               /* no type */
        {"text", LAR_TYPE_STRING, 9, 0, NULL},                               /* unknown collection */
        {"text", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0x80, NULL},          /* unknown flag */
        {"text", LAR_TYPE_DOUBLE, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL}, /* no double keys */
        {"text", LAR_TYPE_FLOAT, LAR_COLLECTION_NONE, LAR_PROP_INDEXED, NULL},      /* no float indexes */
        {"id", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL},               /* a duplicate name */
        {"", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL},                 /* an empty name */
        {"\xff", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL},             /* invalid UTF-8 */
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, "%zu", i);
        const char *path = file_with_stored_property(suffix, cases[i].name, cases[i].type,
                                                     cases[i].collection, cases[i].flags, cases[i].target);
        lar_env *env = NULL;
        CHECK_RC(lar_env_open(path, NULL, &env), LAR_ECORRUPT);
        CHECK_MSG_HAS("stored schema");
        CHECK(env == NULL);
    }
    /* The same blob with a rule-abiding property opens. */
    const char *path = file_with_stored_property("ok", "text", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL);
    lar_env *env = open_env(path);
    lar_txn *txn = begin_write(env);
    lar_value values[2] = {val_int(1), val_str("fine")};
    CHECK_OK(lar_obj_create(txn, 0, values, 2, NULL));
    commit_txn(txn);
    close_env(env);
    /* A rule-abiding list or link whose file lacks its table is damage too. */
    path = file_with_stored_property("list", "text", LAR_TYPE_STRING, LAR_COLLECTION_LIST, LAR_PROP_OPTIONAL, NULL);
    env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_ECORRUPT);
    CHECK_MSG_HAS("collection table");
    CHECK(env == NULL);
    path = file_with_stored_property("link", "text", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Thing");
    env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_ECORRUPT);
    CHECK_MSG_HAS("backlink table");
    CHECK(env == NULL);
    /* A mixed value may link to any class: it needs the backlink table too. */
    path = file_with_stored_property("mixed", "text", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL);
    env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_ECORRUPT);
    CHECK_MSG_HAS("backlink table");
    CHECK(env == NULL);
}

/* Object keys are 8 bytes: a class table holding a shorter key is damage, which an
 * iterator reports instead of reading past the key. */
TEST(bad_input_short_object_key_is_corrupt)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, INT64_MIN + 1, "one", 1, 1); /* keyed by its primary key: key 1, before the damage */
    commit_txn(txn);
    close_env(env);
    uint32_t short_key = 0xffffffffu;
    char table[16];
    snprintf(table, sizeof table, "c%u", p.cls);
    put_raw(path, table, MDB_INTEGERKEY, &short_key, sizeof short_key, "x", 1);

    env = open_env(path);
    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        lar_obj objs[4];
        size_t count = 0;
        CHECK_OK(lar_iter_open(txn, p.cls, &iter));
        int rc = LAR_OK;
        for (int steps = 0; steps < 4 && rc == LAR_OK; steps++) rc = lar_iter_next(iter, &objs[0]);
        CHECK_EQ(rc, LAR_ECORRUPT);
        CHECK_OK(lar_iter_seek(iter, 0));
        CHECK_RC(lar_iter_next_batch(iter, objs, 4, 0, &count), LAR_ECORRUPT);
        CHECK(count <= 1);
        lar_iter_close(iter);
        lar_txn_abort(txn);
        lar_txn_free(txn);
    }
    close_env(env);
}

/* A delete that meets damage after it changed something fails the whole write, so half
 * a delete never commits: the owner of a list with a damaged node stays whole. */
TEST(bad_input_damage_found_midway_fails_the_write)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {{"ints", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL}};
    lar_class_def def = CLASS_DEF("Owner", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_txn *txn = begin_write(env);
    lar_obj owner;
    CHECK_OK(lar_obj_create(txn, 0, NULL, 0, &owner));
    for (int i = 0; i < 200; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, owner, 0, &v));
    }
    commit_txn(txn);
    close_env(env);
    /* Node 1 is the first leaf (0-63), node 2 the second (64-127), split from it by the
     * appends (which fill leaves): it becomes garbage. */
    uint64_t node = 2;
    put_raw(path, "collections", MDB_INTEGERKEY, &node, sizeof node, "\x01\xff", 2);

    env = open_env(path);
    txn = begin_write(env);
    CHECK_RC(lar_obj_delete(txn, owner), LAR_ECORRUPT);
    lar_value v = val_int(1);
    CHECK_RC(lar_list_append(txn, owner, 0, &v), LAR_EMISUSE);
    CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
    lar_txn_free(txn);
    txn = begin_read(env);
    size_t count;
    CHECK_OK(lar_list_count(txn, owner, 0, &count));
    CHECK_EQ(count, 200);
    lar_value first;
    CHECK_OK(lar_list_get(txn, owner, 0, 0, &first));
    CHECK_VALUE(first, val_int(0));
    CHECK_RC(lar_list_get(txn, owner, 0, 100, &first), LAR_ECORRUPT); /* in node 2 */
    commit_txn(txn);
    close_env(env);
}

/* A backlink entry whose origin does not exist (only damage leaves one) does not stop
 * the target's delete, through a to-one link or a list; the delete drops it. */
TEST(bad_input_stale_backlinks_do_not_block_a_delete)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def owner_props[] = {{"pet", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Dog", NULL},
                                      {"pets", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog", NULL}};
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Owner", owner_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class owner_cls = class_id(env, "Owner"), dog_cls = class_id(env, "Dog");
    lar_txn *txn = begin_write(env);
    lar_obj dog;
    CHECK_OK(lar_obj_create(txn, dog_cls, NULL, 0, &dog));
    commit_txn(txn);
    close_env(env);
    for (uint8_t prop = 0; prop < 2; prop++) { /* [Dog][dog][Owner][prop][owner 999], count 1 */
        uint8_t key[26] = {0, 0, 0, (uint8_t)dog_cls, 0, 0, 0, 0, 0, 0, 0, (uint8_t)dog.key,
                           0, 0, 0, (uint8_t)owner_cls, 0, prop, 0, 0, 0, 0, 0, 0, 0x03, 0xe7};
        uint32_t count = 1;
        put_raw(path, "backlinks", 0, key, sizeof key, &count, sizeof count);
    }
    CHECK_EQ(count_file_entries(path, "backlinks"), 2);
    env = open_env(path);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, dog));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}
