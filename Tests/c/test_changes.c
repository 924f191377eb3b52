/* The change log: what commits record, folded over ranges of versions, trimmed when no
 * reader needs it; and the change sets of lists replayed from it. */
#include "test.h"

#include <lmdb.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Owner {name, pet -> Dog?, dogs: [Dog], tags: [Int], scores: Set<Int>, attrs: [String: Int]}, Dog {name}. */
typedef struct pets {
    lar_class owner, dog;
    uint32_t name, pet, dogs, tags, scores, attrs, dog_name;
} pets;

static pets pets_setup(lar_env *env)
{
    lar_property_def owner[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        {"pet", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Dog", NULL},
        {"dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog", NULL},
        {"tags", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"attrs", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, NULL, NULL},
    };
    lar_property_def dog[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Owner", owner), CLASS_DEF("Dog", dog)};
    CHECK_OK(lar_schema_apply(env, classes, COUNT_OF(classes), 1));
    pets p;
    p.owner = class_id(env, "Owner");
    p.dog = class_id(env, "Dog");
    p.name = prop_id(env, p.owner, "name");
    p.pet = prop_id(env, p.owner, "pet");
    p.dogs = prop_id(env, p.owner, "dogs");
    p.tags = prop_id(env, p.owner, "tags");
    p.scores = prop_id(env, p.owner, "scores");
    p.attrs = prop_id(env, p.owner, "attrs");
    p.dog_name = prop_id(env, p.dog, "name");
    return p;
}

static uint64_t version_of(lar_env *env)
{
    uint64_t v;
    CHECK_OK(lar_env_version(env, &v));
    return v;
}

/* The changes after from, up to now. */
static lar_changes *changes_since(lar_env *env, uint64_t from)
{
    lar_txn *txn = begin_read(env);
    lar_changes *c;
    CHECK_OK(lar_changes_read(txn, from, &c));
    commit_txn(txn);
    return c;
}

static void check_keys(const lar_objkey *got, size_t count, const lar_objkey *expected, size_t expected_count)
{
    CHECK_EQ(count, expected_count);
    for (size_t i = 0; i < count; i++) CHECK_EQ(got[i], expected[i]);
}

/* Deletes obj in a write of its own; returns the changes of that write. */
static lar_changes *changes_of_delete(lar_env *env, lar_obj obj)
{
    uint64_t before = version_of(env);
    lar_txn *pin = begin_read(env);
    lar_txn *txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, obj));
    commit_txn(txn);
    lar_changes *ch = changes_since(env, before);
    commit_txn(pin);
    return ch;
}

static int object_state(const lar_changes *c, lar_obj obj, uint32_t *props, size_t *count)
{
    int state;
    size_t n;
    CHECK_OK(lar_changes_object(c, obj, &state, props, props ? 8 : 0, count ? count : &n));
    return state;
}

TEST(changes_record_inserts_deletes_and_modified_properties)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = person_create(txn, &p, 1, "a", 1, 1), b = person_create(txn, &p, 2, "b", 2, 2);
    lar_obj c = person_create(txn, &p, 3, "c", 3, 3);
    commit_txn(txn);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env); /* keeps the log after v1 */

    txn = begin_write(env);
    lar_value name = val_str("A"), score = val_double(9);
    CHECK_OK(lar_obj_set(txn, a, p.name, &name));
    CHECK_OK(lar_obj_set(txn, a, p.score, &score));
    CHECK_OK(lar_obj_delete(txn, b));
    lar_obj d = person_create(txn, &p, 4, "d", 4, 4);
    lar_obj e = person_create(txn, &p, 5, "e", 5, 5);
    CHECK_OK(lar_obj_set(txn, d, p.name, &name)); /* an insertion stays one */
    CHECK_OK(lar_obj_delete(txn, e));             /* inserted and deleted: nothing */
    uint64_t written;
    CHECK_OK(lar_txn_version(txn, &written));
    commit_txn(txn);
    CHECK_EQ(version_of(env), written);

    lar_changes *ch = changes_since(env, v1);
    uint64_t from, to;
    CHECK_OK(lar_changes_range(ch, &from, &to));
    CHECK_EQ(from, v1);
    CHECK_EQ(to, written);
    lar_class_changes cc;
    CHECK_OK(lar_changes_class(ch, p.cls, &cc));
    check_keys(cc.inserted, cc.inserted_count, &d.key, 1);
    check_keys(cc.deleted, cc.deleted_count, &b.key, 1);
    check_keys(cc.modified, cc.modified_count, &a.key, 1);
    uint32_t props[8];
    size_t count;
    CHECK_EQ(object_state(ch, a, props, &count), LAR_OBJECT_MODIFIED);
    CHECK_EQ(count, 2);
    CHECK_EQ(props[0], p.name < p.score ? p.name : p.score);
    CHECK_EQ(props[1], p.name < p.score ? p.score : p.name);
    CHECK_EQ(object_state(ch, b, NULL, NULL), LAR_OBJECT_DELETED);
    CHECK_EQ(object_state(ch, c, NULL, NULL), LAR_OBJECT_UNCHANGED);
    CHECK_EQ(object_state(ch, d, NULL, NULL), LAR_OBJECT_INSERTED);
    CHECK_EQ(object_state(ch, e, NULL, NULL), LAR_OBJECT_UNCHANGED);
    lar_class classes[4];
    CHECK_OK(lar_changes_classes(ch, classes, 4, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(classes[0], p.cls);
    lar_changes_free(ch);

    /* Nothing after the last version. */
    ch = changes_since(env, written);
    CHECK_OK(lar_changes_classes(ch, NULL, 0, &count));
    CHECK_EQ(count, 0);
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

TEST(changes_fold_over_several_commits)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = person_create(txn, &p, 1, "a", 1, 1), b = person_create(txn, &p, 2, "b", 2, 2);
    commit_txn(txn);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env);
    lar_value name = val_str("x");

    txn = begin_write(env);
    lar_obj c = person_create(txn, &p, 3, "c", 3, 3);
    CHECK_OK(lar_obj_set(txn, b, p.name, &name));
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_set(txn, c, p.name, &name)); /* inserted, then modified: inserted */
    CHECK_OK(lar_obj_delete(txn, b));               /* modified, then deleted: deleted */
    CHECK_OK(lar_obj_delete(txn, a));
    commit_txn(txn);
    txn = begin_write(env);
    lar_obj a2 = person_create(txn, &p, 1, "a again", 1, 1); /* the same primary key: the same key */
    commit_txn(txn);
    CHECK_EQ(a2.key, a.key);

    lar_changes *ch = changes_since(env, v1);
    lar_class_changes cc;
    CHECK_OK(lar_changes_class(ch, p.cls, &cc));
    lar_objkey inserted[] = {a.key < c.key ? a.key : c.key, a.key < c.key ? c.key : a.key};
    lar_objkey deleted[] = {a.key < b.key ? a.key : b.key, a.key < b.key ? b.key : a.key};
    check_keys(cc.inserted, cc.inserted_count, inserted, 2);
    check_keys(cc.deleted, cc.deleted_count, deleted, 2);
    CHECK_EQ(cc.modified_count, 0);
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

TEST(changes_record_links_nulled_and_list_elements_removed_by_a_delete)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value dog_values[] = {val_str("rex")};
    lar_obj rex, fido, owner;
    CHECK_OK(lar_obj_create(txn, p.dog, dog_values, 1, &rex));
    CHECK_OK(lar_obj_create(txn, p.dog, dog_values, 1, &fido));
    CHECK_OK(lar_obj_create(txn, p.owner, NULL, 0, &owner));
    lar_value link = {.type = LAR_TYPE_LINK, .as.link = rex}, other = {.type = LAR_TYPE_LINK, .as.link = fido};
    CHECK_OK(lar_obj_set(txn, owner, p.pet, &link));
    CHECK_OK(lar_list_append(txn, owner, p.dogs, &other));
    CHECK_OK(lar_list_append(txn, owner, p.dogs, &link));
    CHECK_OK(lar_list_append(txn, owner, p.dogs, &other));
    CHECK_OK(lar_list_append(txn, owner, p.dogs, &link));
    commit_txn(txn);
    lar_changes *ch = changes_of_delete(env, rex);
    uint32_t props[8];
    size_t count;
    CHECK_EQ(object_state(ch, owner, props, &count), LAR_OBJECT_MODIFIED);
    CHECK_EQ(count, 2);
    CHECK_EQ(props[0], p.pet);
    CHECK_EQ(props[1], p.dogs);
    CHECK_EQ(object_state(ch, rex, NULL, NULL), LAR_OBJECT_DELETED);
    lar_changeset *cs;
    CHECK_OK(lar_list_changeset(ch, owner, p.dogs, 4, &cs));
    const size_t *indices;
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_DELETIONS, &indices, &count));
    CHECK_EQ(count, 2);
    CHECK_EQ(indices[0], 1);
    CHECK_EQ(indices[1], 3);
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_INSERTIONS, &indices, &count));
    CHECK_EQ(count, 0);
    lar_changeset_free(cs);
    /* A list of an object the log saw deleted has no change set. */
    CHECK_RC(lar_list_changeset(ch, rex, 0, 0, &cs), LAR_EDELETED);
    CHECK(cs == NULL);
    lar_changes_free(ch);
    close_env(env);
}

TEST(changes_record_sets_maps_and_clears_as_property_changes)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner;
    CHECK_OK(lar_obj_create(txn, p.owner, NULL, 0, &owner));
    lar_value one = val_int(1);
    CHECK_OK(lar_set_insert(txn, owner, p.scores, &one, NULL));
    commit_txn(txn);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env);

    /* A set insert that finds the element changes nothing. */
    txn = begin_write(env);
    int inserted;
    CHECK_OK(lar_set_insert(txn, owner, p.scores, &one, &inserted));
    CHECK_EQ(inserted, 0);
    lar_value two = val_int(2);
    CHECK_RC(lar_list_insert(txn, owner, p.tags, 5, &two), LAR_EINVAL); /* fails: no change */
    commit_txn(txn);
    lar_changes *ch = changes_since(env, v1);
    CHECK_EQ(object_state(ch, owner, NULL, NULL), LAR_OBJECT_UNCHANGED);
    lar_changes_free(ch);

    txn = begin_write(env);
    lar_string key = {"k", 1};
    CHECK_OK(lar_map_put(txn, owner, p.attrs, &key, &two));
    CHECK_OK(lar_set_insert(txn, owner, p.scores, &two, NULL));
    commit_txn(txn);
    ch = changes_since(env, v1);
    uint32_t props[8];
    size_t count;
    CHECK_EQ(object_state(ch, owner, props, &count), LAR_OBJECT_MODIFIED);
    CHECK_EQ(count, 2);
    CHECK_EQ(props[0], p.scores);
    CHECK_EQ(props[1], p.attrs);
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

TEST(changes_record_cascades_and_embedded_objects)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def address[] = {PROP("city", LAR_TYPE_STRING, 0)};
    lar_property_def toy[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_property_def kid[] = {
        {"home", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address", NULL},
        {"toy", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL | LAR_PROP_CASCADE, "Toy", NULL},
    };
    lar_class_def classes[] = {{"Address", address, 1, LAR_CLASS_EMBEDDED}, CLASS_DEF("Toy", toy),
                               CLASS_DEF("Kid", kid)};
    CHECK_OK(lar_schema_apply(env, classes, COUNT_OF(classes), 1));
    lar_class kid_cls = class_id(env, "Kid"), toy_cls = class_id(env, "Toy"), address_cls = class_id(env, "Address");
    lar_txn *txn = begin_write(env);
    lar_obj k, t, home;
    lar_value toy_values[] = {val_str("ball")}, address_values[] = {val_str("Oslo")};
    CHECK_OK(lar_obj_create(txn, toy_cls, toy_values, 1, &t));
    lar_value toy_link = {.type = LAR_TYPE_LINK, .as.link = t};
    lar_value kid_values[] = {val_null(), toy_link};
    CHECK_OK(lar_obj_create(txn, kid_cls, kid_values, 2, &k));
    CHECK_OK(lar_obj_create_embedded(txn, k, 0, address_values, 1, &home));
    commit_txn(txn);
    lar_changes *ch = changes_of_delete(env, k);
    CHECK_EQ(object_state(ch, k, NULL, NULL), LAR_OBJECT_DELETED);
    CHECK_EQ(object_state(ch, t, NULL, NULL), LAR_OBJECT_DELETED);
    CHECK_EQ(object_state(ch, home, NULL, NULL), LAR_OBJECT_DELETED);
    CHECK(home.cls == address_cls);
    lar_changes_free(ch);
    close_env(env);
}

TEST(changes_record_delete_all)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    for (int i = 1; i <= 5; i++) person_create(txn, &p, i, "x", i, i);
    commit_txn(txn);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env);
    txn = begin_write(env);
    CHECK_OK(lar_objects_delete_all(txn, p.cls));
    commit_txn(txn);
    lar_changes *ch = changes_since(env, v1);
    lar_class_changes cc;
    CHECK_OK(lar_changes_class(ch, p.cls, &cc));
    CHECK_EQ(cc.deleted_count, 5);
    CHECK_EQ(cc.inserted_count, 0);
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

/* ---- list change sets against the lists themselves ---- */

/* A new Owner whose tags are 1..tags, committed. */
static lar_obj owner_with_tags(lar_env *env, const pets *p, int tags)
{
    lar_txn *txn = begin_write(env);
    lar_obj owner;
    CHECK_OK(lar_obj_create(txn, p->owner, NULL, 0, &owner));
    for (int i = 1; i <= tags; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, owner, p->tags, &v));
    }
    commit_txn(txn);
    return owner;
}

static size_t read_tags(lar_txn *txn, lar_obj obj, uint32_t prop, int64_t *out)
{
    size_t count;
    CHECK_OK(lar_list_count(txn, obj, prop, &count));
    for (size_t i = 0; i < count; i++) {
        lar_value v;
        CHECK_OK(lar_list_get(txn, obj, prop, i, &v));
        out[i] = v.as.integer;
    }
    return count;
}

/* Applies cs to old: removes the deletions, inserts the new list's elements at the
 * insertions, and checks the result is new and that every unchanged survivor kept its value. */
static void check_list_changeset(const lar_changeset *cs, const int64_t *old, size_t old_count, const int64_t *new_,
                                 size_t new_count)
{
    const size_t *del, *ins, *mod, *mod_new;
    size_t nd, ni, nm, nmn;
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_DELETIONS, &del, &nd));
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_INSERTIONS, &ins, &ni));
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS, &mod, &nm));
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS_NEW, &mod_new, &nmn));
    CHECK_EQ(nm, nmn);
    CHECK_EQ(old_count - nd + ni, new_count);
    size_t d = 0, i = 0, kept = 0;
    int64_t *survivors = malloc((old_count + 1) * sizeof *survivors);
    size_t *survivor_old = malloc((old_count + 1) * sizeof *survivor_old);
    for (size_t o = 0; o < old_count; o++) {
        if (d < nd && del[d] == o) {
            CHECK(d == 0 || del[d - 1] < del[d]);
            d++;
            continue;
        }
        survivor_old[kept] = o;
        survivors[kept++] = old[o];
    }
    CHECK_EQ(d, nd);
    size_t s = 0, m = 0;
    for (size_t n = 0; n < new_count; n++) {
        if (i < ni && ins[i] == n) {
            i++;
            continue;
        }
        CHECK(s < kept);
        bool modified = m < nm && mod[m] == survivor_old[s];
        if (modified) {
            CHECK_EQ(mod_new[m], n);
            m++;
        } else {
            CHECK_EQ(new_[n], survivors[s]); /* unchanged elements keep their values */
        }
        s++;
    }
    CHECK_EQ(i, ni);
    CHECK_EQ(s, kept);
    CHECK_EQ(m, nm);
    free(survivors);
    free(survivor_old);
}

TEST(changes_list_changesets_match_the_lists_under_random_operations)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_obj owner = owner_with_tags(env, &p, 0);
    lar_txn *txn;
    srand(14);
    int64_t next = 1;
    enum { MAX = 400 };
    int64_t *old = malloc(MAX * 4 * sizeof *old), *now = malloc(MAX * 4 * sizeof *now);
    for (int round = 0; round < 60; round++) {
        lar_txn *pin = begin_read(env);
        uint64_t v1;
        CHECK_OK(lar_txn_version(pin, &v1));
        size_t old_count = read_tags(pin, owner, p.tags, old);
        txn = begin_write(env);
        int ops = 1 + rand() % 12;
        size_t count = old_count;
        for (int o = 0; o < ops; o++) {
            int kind = rand() % 7;
            lar_value v = val_int(next++);
            if (kind <= 1 || count == 0) {
                size_t at = rand() % (count + 1);
                if (kind == 0 && count > 0) at = count;
                CHECK_OK(lar_list_insert(txn, owner, p.tags, at, &v));
                count++;
            } else if (kind == 2) {
                CHECK_OK(lar_list_remove(txn, owner, p.tags, rand() % count));
                count--;
            } else if (kind == 3) {
                CHECK_OK(lar_list_set(txn, owner, p.tags, rand() % count, &v));
            } else if (kind == 4) {
                CHECK_OK(lar_list_move(txn, owner, p.tags, rand() % count, rand() % count));
            } else if (kind == 5 && rand() % 8 == 0) {
                CHECK_OK(lar_list_clear(txn, owner, p.tags));
                count = 0;
            } else if (count > 1) {
                CHECK_OK(lar_list_swap(txn, owner, p.tags, rand() % count, rand() % count));
            }
            if (count > MAX) break;
        }
        commit_txn(txn);
        lar_txn *later = begin_read(env);
        size_t new_count = read_tags(later, owner, p.tags, now);
        lar_changes *ch;
        CHECK_OK(lar_changes_read(later, v1, &ch));
        lar_changeset *cs;
        CHECK_OK(lar_list_changeset(ch, owner, p.tags, old_count, &cs));
        check_list_changeset(cs, old, old_count, now, new_count);
        lar_changeset_free(cs);
        lar_changes_free(ch);
        commit_txn(later);
        commit_txn(pin);
    }
    free(old);
    free(now);
    close_env(env);
}

TEST(changes_list_changeset_refuses_an_old_count_that_does_not_fit)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_obj owner = owner_with_tags(env, &p, 1);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env);
    lar_txn *txn = begin_write(env);
    lar_value v = val_int(2);
    CHECK_OK(lar_list_remove(txn, owner, p.tags, 0));
    CHECK_OK(lar_list_append(txn, owner, p.tags, &v));
    CHECK_OK(lar_list_set(txn, owner, p.tags, 0, &v)); /* an inserted element: no modification */
    commit_txn(txn);
    lar_changes *ch = changes_since(env, v1);
    lar_changeset *cs;
    CHECK_OK(lar_list_changeset(ch, owner, p.tags, 1, &cs));
    const size_t *indices;
    size_t count;
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_DELETIONS, &indices, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_INSERTIONS, &indices, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS, &indices, &count));
    CHECK_EQ(count, 0);
    lar_changeset_free(cs);
    CHECK_RC(lar_list_changeset(ch, owner, p.tags, 0, &cs), LAR_ECORRUPT); /* a removal from an empty list */
    CHECK(cs == NULL);
    CHECK_MSG_HAS("does not fit");
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

/* ---- trimming ---- */

static off_t file_size(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return st.st_size;
}

TEST(changes_log_is_trimmed_when_no_reader_needs_it)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    off_t size_at_100 = 0;
    lar_value name = val_str("a fairly long name that takes some room in each log entry");
    for (int i = 0; i < 400; i++) {
        lar_txn *txn = begin_write(env);
        lar_obj o = person_create(txn, &p, i + 1, "x", i, i);
        CHECK_OK(lar_obj_set(txn, o, p.name, &name));
        if (i > 0) CHECK_OK(lar_obj_delete(txn, person_find(txn, &p, i)));
        commit_txn(txn);
        if (i == 100) size_at_100 = file_size(path);
    }
    close_env(env);
    CHECK(count_file_entries(path, "changes") <= 3); /* the floor and the last entry or two */
    CHECK(file_size(path) <= size_at_100 + 16 * 4096);
}

TEST(changes_after_a_pinned_version_stay_readable)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *pin = begin_read(env);
    uint64_t v0;
    CHECK_OK(lar_txn_version(pin, &v0));
    for (int i = 0; i < 50; i++) {
        lar_txn *txn = begin_write(env);
        person_create(txn, &p, i + 1, "x", i, i);
        commit_txn(txn);
    }
    lar_changes *ch = changes_since(env, v0);
    lar_class_changes cc;
    CHECK_OK(lar_changes_class(ch, p.cls, &cc));
    CHECK_EQ(cc.inserted_count, 50);
    lar_changes_free(ch);
    CHECK(count_file_entries(path, "changes") >= 50);
    commit_txn(pin); /* released: the next commit trims */
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 100, "x", 1, 1);
    commit_txn(txn);
    lar_txn *reader = begin_read(env);
    CHECK_RC(lar_changes_read(reader, v0, &ch), LAR_ENOTFOUND);
    CHECK(ch == NULL);
    CHECK_MSG_HAS("no longer kept");
    commit_txn(reader);
    close_env(env);
    CHECK(count_file_entries(path, "changes") <= 2);
}

TEST(changes_bad_arguments_are_refused)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_setup(env);
    lar_txn *txn = begin_read(env);
    uint64_t v;
    lar_changes *ch;
    CHECK_RC(lar_txn_version(NULL, &v), LAR_EINVAL);
    CHECK_RC(lar_txn_version(txn, NULL), LAR_EINVAL);
    CHECK_RC(lar_env_version(NULL, &v), LAR_EINVAL);
    CHECK_RC(lar_changes_read(txn, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_changes_read(NULL, 0, &ch), LAR_EINVAL);
    CHECK_OK(lar_txn_version(txn, &v));
    CHECK_RC(lar_changes_read(txn, v + 1, &ch), LAR_EINVAL);
    CHECK_OK(lar_changes_read(txn, v, &ch));
    size_t count;
    lar_class_changes cc;
    int state;
    CHECK_RC(lar_changes_classes(ch, NULL, 1, &count), LAR_EINVAL);
    CHECK_RC(lar_changes_classes(NULL, NULL, 0, &count), LAR_EINVAL);
    CHECK_RC(lar_changes_class(ch, 0, NULL), LAR_EINVAL);
    CHECK_OK(lar_changes_class(ch, 999999, &cc));
    CHECK_EQ(cc.inserted_count, 0);
    CHECK_RC(lar_changes_object(ch, (lar_obj){0, 1}, NULL, NULL, 0, &count), LAR_EINVAL);
    CHECK_RC(lar_changes_object(ch, (lar_obj){0, 1}, &state, NULL, 3, &count), LAR_EINVAL);
    CHECK_OK(lar_changes_object(ch, (lar_obj){77777, 1}, &state, NULL, 0, &count));
    CHECK_EQ(state, LAR_OBJECT_UNCHANGED);
    CHECK_RC(lar_changes_range(NULL, &v, &v), LAR_EINVAL);
    lar_changeset *cs;
    CHECK_RC(lar_list_changeset(NULL, (lar_obj){0, 1}, 0, 0, &cs), LAR_EINVAL);
    CHECK_RC(lar_list_changeset(ch, (lar_obj){0, 1}, 0, 0, NULL), LAR_EINVAL);
    CHECK_OK(lar_list_changeset(ch, (lar_obj){0, 1}, 0, 3, &cs)); /* nothing changed: nothing to report */
    int empty;
    CHECK_OK(lar_changeset_is_empty(cs, &empty));
    CHECK(empty);
    const size_t *indices;
    CHECK_RC(lar_changeset_get(cs, (lar_changeset_part)9, &indices, &count), LAR_EINVAL);
    CHECK_RC(lar_changeset_get(NULL, LAR_CHANGESET_DELETIONS, &indices, &count), LAR_EINVAL);
    CHECK_RC(lar_changeset_is_empty(NULL, &empty), LAR_EINVAL);
    lar_changeset_free(cs);
    lar_changeset_free(NULL);
    lar_changes_free(ch);
    lar_changes_free(NULL);
    commit_txn(txn);
    close_env(env);
}

/* A file written before the log existed: its table removed with LMDB directly. */
static void remove_log_table(const char *path)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 64) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "changes", MDB_INTEGERKEY, &dbi) == 0);
    CHECK(mdb_drop(txn, dbi, 1) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

TEST(changes_a_file_without_the_log_opens_and_gets_one_when_writable)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "a", 1, 1);
    commit_txn(txn);
    close_env(env);
    remove_log_table(path);

    env = open_env_with(path, (size_t)1 << 30, LAR_ENV_READONLY);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    uint64_t v;
    lar_changes *ch;
    CHECK_OK(lar_txn_version(txn, &v));
    CHECK_RC(lar_changes_read(txn, v - 1, &ch), LAR_ENOTFOUND);
    CHECK_MSG_HAS("no change log");
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    uint64_t opened = version_of(env);
    lar_txn *pin = begin_read(env);
    CHECK_RC(lar_changes_read(pin, 1, &ch), LAR_ENOTFOUND); /* no history before the log */
    txn = begin_write(env);
    lar_obj b = person_create(txn, &p, 2, "b", 2, 2);
    commit_txn(txn);
    ch = changes_since(env, opened);
    CHECK_EQ(object_state(ch, b, NULL, NULL), LAR_OBJECT_INSERTED);
    lar_changes_free(ch);
    commit_txn(pin);
    close_env(env);
}

TEST(changes_list_of_objects_reports_modified_objects)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner, dogs[3];
    CHECK_OK(lar_obj_create(txn, p.owner, NULL, 0, &owner));
    for (int i = 0; i < 3; i++) {
        lar_value name = val_str("dog");
        CHECK_OK(lar_obj_create(txn, p.dog, &name, 1, &dogs[i]));
        lar_value link = {.type = LAR_TYPE_LINK, .as.link = dogs[i]};
        CHECK_OK(lar_list_append(txn, owner, p.dogs, &link));
    }
    commit_txn(txn);
    uint64_t v1 = version_of(env);
    lar_txn *pin = begin_read(env);
    txn = begin_write(env);
    lar_value renamed = val_str("max");
    CHECK_OK(lar_obj_set(txn, dogs[2], p.dog_name, &renamed)); /* the object at 2 */
    CHECK_OK(lar_list_remove(txn, owner, p.dogs, 0));          /* now at 1 */
    commit_txn(txn);
    lar_txn *now = begin_read(env);
    lar_changes *ch;
    CHECK_OK(lar_changes_read(now, v1, &ch));
    lar_changeset *cs;
    CHECK_OK(lar_list_changeset(ch, owner, p.dogs, 3, &cs)); /* the list alone: one deletion */
    const size_t *indices;
    size_t count;
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS, &indices, &count));
    CHECK_EQ(count, 0);
    lar_changeset_free(cs);
    CHECK_OK(lar_list_changeset_objects(now, ch, owner, p.dogs, 3, &cs));
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_DELETIONS, &indices, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(indices[0], 0);
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS, &indices, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(indices[0], 2);
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_MODIFICATIONS_NEW, &indices, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(indices[0], 1);
    lar_changeset_free(cs);
    CHECK_RC(lar_list_changeset_objects(now, ch, owner, p.dogs, 4, &cs), LAR_EINVAL); /* 4 - 1 != 2 */
    CHECK(cs == NULL);
    CHECK_RC(lar_list_changeset_objects(NULL, ch, owner, p.dogs, 3, &cs), LAR_EINVAL);
    CHECK_RC(lar_list_changeset_objects(now, NULL, owner, p.dogs, 3, &cs), LAR_EINVAL);
    CHECK_RC(lar_list_changeset_objects(now, ch, owner, p.dogs, 3, NULL), LAR_EINVAL);
    lar_changes_free(ch);
    commit_txn(now);
    commit_txn(pin);
    close_env(env);
}
