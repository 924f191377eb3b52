/* Nested lists and dictionaries inside mixed values (Realm 10.51's nested
 * AnyRealmValue): 100 levels built, read back and reopened, level 101 refused; lists in
 * dictionaries in lists; replacing, removing, clearing and deleting the owner free every
 * LMDB entry (counted in the file); links inside nested collections and their targets'
 * deletes; stale handles; errors that change nothing. */
#include "test.h"

#include <lmdb.h>

/* Box {any: mixed, list: [mixed], map: map<mixed>, set: set<mixed>}; Dog {name: string}. */
typedef struct schema_ids {
    lar_class box, dog;
    uint32_t any, list, map, set;
} schema_ids;

static schema_ids apply(lar_env *env)
{
    lar_property_def box_props[] = {
        {"any", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"list", LAR_TYPE_MIXED, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"map", LAR_TYPE_MIXED, LAR_COLLECTION_MAP, 0, NULL, NULL},
        {"set", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Box", box_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    schema_ids s;
    s.box = class_id(env, "Box");
    s.dog = class_id(env, "Dog");
    s.any = prop_id(env, s.box, "any");
    s.list = prop_id(env, s.box, "list");
    s.map = prop_id(env, s.box, "map");
    s.set = prop_id(env, s.box, "set");
    return s;
}

static lar_obj make(lar_txn *txn, lar_class cls)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    return obj;
}

static const lar_value new_list = {.type = LAR_TYPE_LIST};
static const lar_value new_dict = {.type = LAR_TYPE_DICTIONARY};

static lar_value link_to(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static lar_string key_of(const char *s)
{
    return (lar_string){s, strlen(s)};
}

static size_t list_count_at(lar_txn *txn, const lar_coll *c)
{
    size_t n = 99;
    CHECK_OK(lar_list_count_at(txn, c, &n));
    return n;
}

static size_t map_count_at(lar_txn *txn, const lar_coll *c)
{
    size_t n = 99;
    CHECK_OK(lar_map_count_at(txn, c, &n));
    return n;
}

static lar_value list_get_at(lar_txn *txn, const lar_coll *c, size_t i)
{
    lar_value v;
    CHECK_OK(lar_list_get_at(txn, c, i, &v));
    return v;
}

static lar_value map_get_at(lar_txn *txn, const lar_coll *c, const char *key)
{
    lar_string k = key_of(key);
    lar_value v;
    CHECK_OK(lar_map_get_at(txn, c, &k, &v));
    return v;
}

static void map_put_at(lar_txn *txn, const lar_coll *c, const char *key, lar_value v)
{
    lar_string k = key_of(key);
    CHECK_OK(lar_map_put_at(txn, c, &k, &v));
}

static lar_coll child(const lar_coll *parent, lar_value v)
{
    lar_coll out;
    CHECK_OK(lar_coll_child(parent, &v, &out));
    return out;
}

static lar_coll open_coll(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    lar_coll c;
    CHECK_OK(lar_coll_open(txn, obj, prop, &c));
    return c;
}

static uint64_t backlinks(lar_txn *txn, lar_obj target, lar_class cls, uint32_t prop)
{
    uint64_t n;
    CHECK_OK(lar_backlinks_count(txn, target, cls, prop, &n));
    return n;
}

/* Builds a chain of `levels` nested collections under box.any: level i (from 1) is a
 * list at odd levels and a dictionary at even ones; each holds its level as an int
 * (list element 0, key "n") and the next level (list element 1, key "next"). */
static void build_chain(lar_txn *txn, const schema_ids *s, lar_obj box, int levels)
{
    CHECK_OK(lar_obj_set(txn, box, s->any, &new_list));
    lar_coll at = open_coll(txn, box, s->any);
    for (int level = 1; level <= levels; level++) {
        bool list = level % 2 == 1;
        CHECK_EQ(at.kind, list ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP);
        lar_value n = val_int(level);
        const lar_value *next = level % 2 == 1 ? &new_dict : &new_list;
        if (list) {
            CHECK_OK(lar_list_append_at(txn, &at, &n));
            if (level < levels) CHECK_OK(lar_list_append_at(txn, &at, next));
            if (level < levels) at = child(&at, list_get_at(txn, &at, 1));
        } else {
            map_put_at(txn, &at, "n", n);
            if (level < levels) map_put_at(txn, &at, "next", *next);
            if (level < levels) at = child(&at, map_get_at(txn, &at, "next"));
        }
    }
}

/* Walks the chain; returns the deepest handle. */
static lar_coll check_chain(lar_txn *txn, const schema_ids *s, lar_obj box, int levels, size_t last_count)
{
    lar_value top = get_value(txn, box, s->any);
    CHECK_EQ(top.type, LAR_TYPE_LIST);
    lar_coll at = open_coll(txn, box, s->any);
    for (int level = 1; level <= levels; level++) {
        if (level % 2 == 1) {
            CHECK_EQ(list_count_at(txn, &at), level < levels ? 2 : 1);
            CHECK_VALUE(list_get_at(txn, &at, 0), val_int(level));
            if (level < levels) {
                lar_value next = list_get_at(txn, &at, 1);
                CHECK_EQ(next.type, LAR_TYPE_DICTIONARY);
                at = child(&at, next);
            }
        } else {
            CHECK_EQ(map_count_at(txn, &at), level < levels ? 2 : last_count);
            CHECK_VALUE(map_get_at(txn, &at, "n"), val_int(level));
            if (level < levels) {
                lar_value next = map_get_at(txn, &at, "next");
                CHECK_EQ(next.type, LAR_TYPE_LIST);
                at = child(&at, next);
            }
        }
    }
    return at;
}

/* A box made, given a nested list with one element and freed again, so that the
 * collection id counter exists before a test counts the file's entries. */
static void warm_up(lar_env *env, const schema_ids *s)
{
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s->box);
    CHECK_OK(lar_obj_set(txn, box, s->any, &new_list));
    lar_coll c = open_coll(txn, box, s->any);
    lar_value one = val_int(1);
    CHECK_OK(lar_list_append_at(txn, &c, &one));
    CHECK_OK(lar_obj_delete(txn, box));
    commit_txn(txn);
}

TEST(nested_hundred_levels_round_trip_reopen_and_level_101_is_refused)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    schema_ids s = apply(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box);
    build_chain(txn, &s, box, LAR_NESTED_MAX_DEPTH);
    lar_coll deepest = check_chain(txn, &s, box, LAR_NESTED_MAX_DEPTH, 1);
    CHECK_EQ(deepest.kind, LAR_COLLECTION_MAP); /* level 100: even */
    /* Level 101 is refused, with either kind, and changes nothing. */
    lar_string k = key_of("deeper");
    CHECK_RC(lar_map_put_at(txn, &deepest, &k, &new_list), LAR_EINVAL);
    CHECK_MSG_HAS("deeper than the 100 levels");
    CHECK_RC(lar_map_put_at(txn, &deepest, &k, &new_dict), LAR_EINVAL);
    CHECK_EQ(map_count_at(txn, &deepest), 1);
    lar_value scalar = val_str("leaf");
    CHECK_OK(lar_map_put_at(txn, &deepest, &k, &scalar)); /* a scalar at level 100 is fine */
    commit_txn(txn);

    txn = begin_read(env);
    deepest = check_chain(txn, &s, box, LAR_NESTED_MAX_DEPTH, 2);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    txn = begin_read(env);
    deepest = check_chain(txn, &s, box, LAR_NESTED_MAX_DEPTH, 2);
    CHECK_VALUE(map_get_at(txn, &deepest, "deeper"), val_str("leaf"));
    commit_txn(txn);

    /* The chain hangs from a list property's element just as well: level 1 is the element's. */
    txn = begin_write(env);
    lar_coll top = open_coll(txn, box, s.list);
    CHECK_EQ(top.id, 0);
    CHECK_OK(lar_list_append_at(txn, &top, &new_dict));
    lar_coll at = child(&top, list_get_at(txn, &top, 0));
    for (int level = 2; level <= LAR_NESTED_MAX_DEPTH; level++) {
        map_put_at(txn, &at, "x", new_dict);
        at = child(&at, map_get_at(txn, &at, "x"));
    }
    k = key_of("x");
    CHECK_RC(lar_map_put_at(txn, &at, &k, &new_dict), LAR_EINVAL);
    commit_txn(txn);
    close_env(env);
}

TEST(nested_lists_in_dictionaries_in_lists_read_and_write_through_handles)
{
    lar_env *env = open_env(test_db_path(NULL));
    schema_ids s = apply(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box);
    lar_coll list = open_coll(txn, box, s.list);
    lar_value one = val_int(1), text = val_str("text");
    CHECK_OK(lar_list_append_at(txn, &list, &one));
    CHECK_OK(lar_list_insert_at(txn, &list, 0, &new_dict));    /* [dict, 1] */
    lar_coll dict = child(&list, list_get_at(txn, &list, 0));
    CHECK_EQ(dict.kind, LAR_COLLECTION_MAP);
    map_put_at(txn, &dict, "inner", new_list);
    map_put_at(txn, &dict, "name", text);
    lar_coll inner = child(&dict, map_get_at(txn, &dict, "inner"));
    for (int i = 0; i < 300; i++) { /* past a leaf: the nested list's root moves, its parent does not */
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append_at(txn, &inner, &v));
    }
    CHECK_OK(lar_list_move_at(txn, &inner, 0, 299));
    CHECK_OK(lar_list_remove_at(txn, &inner, 10));
    lar_value seven = val_int(-7);
    CHECK_OK(lar_list_set_at(txn, &inner, 0, &seven));
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_EQ(list_count_at(txn, &list), 2);
    CHECK_VALUE(list_get_at(txn, &list, 1), one);
    size_t n = 0;
    CHECK_OK(lar_list_count(txn, box, s.list, &n)); /* the plain functions see the same list */
    CHECK_EQ(n, 2);
    CHECK_EQ(map_count_at(txn, &dict), 2);
    CHECK_VALUE(map_get_at(txn, &dict, "name"), text);
    CHECK_EQ(list_count_at(txn, &inner), 299);
    lar_value batch[400];
    size_t got = 0;
    CHECK_OK(lar_list_get_batch_at(txn, &inner, 0, batch, 400, &got));
    CHECK_EQ(got, 299);
    CHECK_VALUE(batch[0], seven);
    CHECK_VALUE(batch[1], val_int(2));
    CHECK_VALUE(batch[9], val_int(10));
    CHECK_VALUE(batch[10], val_int(12));
    CHECK_VALUE(batch[298], val_int(0));
    lar_string keys[4];
    lar_value values[4];
    CHECK_OK(lar_map_list_at(txn, &dict, NULL, keys, values, 4, &got));
    CHECK_EQ(got, 2);
    CHECK_STR(keys[0].data, "inner");
    CHECK_EQ(values[0].type, LAR_TYPE_LIST);
    CHECK_STR(keys[1].data, "name");
    lar_string last = keys[1];
    CHECK_END(lar_map_list_at(txn, &dict, &last, keys, values, 4, &got));
    /* Handles of the wrong kind and top-level handles of plain properties. */
    CHECK_RC(lar_map_count_at(txn, &inner, &n), LAR_EINVAL);
    CHECK_RC(lar_list_count_at(txn, &dict, &n), LAR_EINVAL);
    lar_coll map_top = open_coll(txn, box, s.map);
    CHECK_EQ(map_top.kind, LAR_COLLECTION_MAP);
    CHECK_EQ(map_count_at(txn, &map_top), 0);
    lar_coll bad;
    CHECK_RC(lar_coll_open(txn, box, s.set, &bad), LAR_EINVAL);
    CHECK_RC(lar_coll_open(txn, box, s.any, &bad), LAR_ETYPE); /* null: no nested collection */
    CHECK_RC(lar_coll_child(&list, &one, &bad), LAR_ETYPE);
    commit_txn(txn);

    /* A map property's value and lar_obj_create's value may be nested collections too. */
    txn = begin_write(env);
    lar_coll map = open_coll(txn, box, s.map);
    map_put_at(txn, &map, "l", new_list);
    lar_coll l = child(&map, map_get_at(txn, &map, "l"));
    CHECK_OK(lar_list_append_at(txn, &l, &text));
    lar_value values4[4] = {new_dict, val_null(), val_null(), val_null()};
    lar_obj made;
    CHECK_OK(lar_obj_create(txn, s.box, values4, 4, &made));
    lar_coll made_dict = open_coll(txn, made, s.any);
    CHECK_EQ(made_dict.kind, LAR_COLLECTION_MAP);
    map_put_at(txn, &made_dict, "k", one);
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(list_get_at(txn, &l, 0), text);
    CHECK_VALUE(map_get_at(txn, &made_dict, "k"), one);
    commit_txn(txn);
    close_env(env);
}

/* Fills a nested list with strings, a nested dictionary, a long run (several nodes) and links. */
static void fill(lar_txn *txn, const lar_coll *list, lar_obj dog)
{
    lar_value text = val_str("some text that lives in the node"), dogv = link_to(dog);
    for (int i = 0; i < 150; i++) CHECK_OK(lar_list_append_at(txn, list, i % 3 ? &text : &dogv));
    CHECK_OK(lar_list_append_at(txn, list, &new_dict));
    lar_coll d = child(list, list_get_at(txn, list, 150));
    map_put_at(txn, &d, "dog", dogv);
    map_put_at(txn, &d, "list", new_list);
    lar_coll l = child(&d, map_get_at(txn, &d, "list"));
    for (int i = 0; i < 100; i++) CHECK_OK(lar_list_append_at(txn, &l, &text));
    CHECK_OK(lar_list_append_at(txn, &l, &dogv));
}

TEST(nested_collections_are_freed_whole_when_replaced_removed_cleared_or_their_owner_deleted)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    schema_ids s = apply(env);
    warm_up(env, &s);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box), dog = make(txn, s.dog);
    commit_txn(txn);
    close_env(env);
    uint64_t base = count_file_entries(path, NULL);
    uint64_t base_collections = count_file_entries(path, "collections");

    /* Replacing the property's nested list with an int frees it, links included. */
    env = open_env(path);
    txn = begin_write(env);
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list));
    lar_coll any = open_coll(txn, box, s.any);
    fill(txn, &any, dog);
    CHECK_EQ(backlinks(txn, dog, s.box, s.any), 1); /* one entry, counting 52 links */
    commit_txn(txn);
    close_env(env);
    CHECK(count_file_entries(path, NULL) > base + 10);
    env = open_env(path);
    txn = begin_write(env);
    lar_value number = val_int(5);
    CHECK_OK(lar_obj_set(txn, box, s.any, &number));
    CHECK_EQ(backlinks(txn, dog, s.box, s.any), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, NULL), base);
    CHECK_EQ(count_file_entries(path, "collections"), base_collections);

    /* In a list property: set over an element, remove, and clear each free theirs. */
    env = open_env(path);
    txn = begin_write(env);
    lar_coll list = open_coll(txn, box, s.list);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(lar_list_append_at(txn, &list, &new_list));
        lar_coll c = child(&list, list_get_at(txn, &list, (size_t)i));
        fill(txn, &c, dog);
    }
    /* Each frees its own links' counts only: the entry stays while another holds the dog. */
    CHECK_OK(lar_list_set_at(txn, &list, 0, &number));
    CHECK_EQ(backlinks(txn, dog, s.box, s.list), 1);
    CHECK_OK(lar_list_remove_at(txn, &list, 1));
    CHECK_EQ(backlinks(txn, dog, s.box, s.list), 1);
    CHECK_EQ(list_count_at(txn, &list), 2);
    CHECK_OK(lar_list_clear_at(txn, &list));
    CHECK_EQ(backlinks(txn, dog, s.box, s.list), 0);
    /* In a map property: a put over a key and a remove free theirs; clear frees the rest. */
    lar_coll map = open_coll(txn, box, s.map);
    map_put_at(txn, &map, "a", new_list);
    fill(txn, &(lar_coll){box, s.map, LAR_COLLECTION_LIST, map_get_at(txn, &map, "a").as.nested}, dog);
    map_put_at(txn, &map, "b", new_dict);
    lar_coll b = child(&map, map_get_at(txn, &map, "b"));
    map_put_at(txn, &b, "in", new_list);
    fill(txn, &(lar_coll){box, s.map, LAR_COLLECTION_LIST, map_get_at(txn, &b, "in").as.nested}, dog);
    map_put_at(txn, &map, "a", number);
    CHECK_EQ(backlinks(txn, dog, s.box, s.map), 1);
    int removed = 0;
    lar_string kb = key_of("b");
    CHECK_OK(lar_map_remove_at(txn, &map, &kb, &removed));
    CHECK_EQ(removed, 1);
    CHECK_EQ(backlinks(txn, dog, s.box, s.map), 0);
    map_put_at(txn, &map, "c", new_dict);
    CHECK_OK(lar_map_clear_at(txn, &map));
    /* Inside a nested dictionary: clearing it frees what it nests. */
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_dict));
    any = open_coll(txn, box, s.any);
    map_put_at(txn, &any, "x", new_list);
    fill(txn, &(lar_coll){box, s.any, LAR_COLLECTION_LIST, map_get_at(txn, &any, "x").as.nested}, dog);
    CHECK_OK(lar_map_clear_at(txn, &any));
    CHECK_EQ(map_count_at(txn, &any), 0);
    CHECK_OK(lar_obj_set(txn, box, s.any, &number));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, NULL), base);

    /* Deleting the owner frees everything its properties nest. */
    env = open_env(path);
    txn = begin_write(env);
    lar_obj other = make(txn, s.box);
    CHECK_OK(lar_obj_set(txn, other, s.any, &new_list));
    any = open_coll(txn, other, s.any);
    fill(txn, &any, dog);
    lar_coll olist = open_coll(txn, other, s.list);
    CHECK_OK(lar_list_append_at(txn, &olist, &new_dict));
    lar_coll od = child(&olist, list_get_at(txn, &olist, 0));
    map_put_at(txn, &od, "l", new_list);
    fill(txn, &(lar_coll){other, s.list, LAR_COLLECTION_LIST, map_get_at(txn, &od, "l").as.nested}, dog);
    lar_coll omap = open_coll(txn, other, s.map);
    map_put_at(txn, &omap, "l", new_list);
    fill(txn, &(lar_coll){other, s.map, LAR_COLLECTION_LIST, map_get_at(txn, &omap, "l").as.nested}, dog);
    commit_txn(txn);
    close_env(env);
    CHECK(count_file_entries(path, NULL) > base + 30);
    env = open_env(path);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, other));
    CHECK_EQ(backlinks(txn, dog, s.box, s.any) + backlinks(txn, dog, s.box, s.list) +
             backlinks(txn, dog, s.box, s.map), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, NULL), base);
    CHECK_EQ(count_file_entries(path, "collections"), base_collections);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

TEST(nested_links_follow_their_targets_delete_lists_lose_them_dictionaries_keep_null)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    schema_ids s = apply(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box), rex = make(txn, s.dog), fido = make(txn, s.dog);
    lar_value r = link_to(rex), f = link_to(fido), one = val_int(1);
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list));
    lar_coll any = open_coll(txn, box, s.any);
    CHECK_OK(lar_list_append_at(txn, &any, &r));
    CHECK_OK(lar_list_append_at(txn, &any, &one));
    CHECK_OK(lar_list_append_at(txn, &any, &r));
    CHECK_OK(lar_list_append_at(txn, &any, &f));
    CHECK_OK(lar_list_append_at(txn, &any, &new_dict));
    lar_coll d = child(&any, list_get_at(txn, &any, 4));
    map_put_at(txn, &d, "rex", r);
    map_put_at(txn, &d, "fido", f);
    map_put_at(txn, &d, "deeper", new_list);
    lar_coll deeper = child(&d, map_get_at(txn, &d, "deeper"));
    CHECK_OK(lar_list_append_at(txn, &deeper, &r));
    /* A list property's nested dictionary and a map property's nested list. */
    lar_coll list = open_coll(txn, box, s.list);
    CHECK_OK(lar_list_append_at(txn, &list, &new_dict));
    lar_coll ld = child(&list, list_get_at(txn, &list, 0));
    map_put_at(txn, &ld, "who", r);
    lar_coll map = open_coll(txn, box, s.map);
    map_put_at(txn, &map, "dogs", new_list);
    lar_coll ml = child(&map, map_get_at(txn, &map, "dogs"));
    CHECK_OK(lar_list_append_at(txn, &ml, &f));
    CHECK_OK(lar_list_append_at(txn, &ml, &r));
    CHECK_EQ(backlinks(txn, rex, s.box, s.any), 1);
    CHECK_EQ(backlinks(txn, fido, s.box, s.any), 1);
    CHECK_EQ(backlinks(txn, rex, s.box, s.list), 1);
    CHECK_EQ(backlinks(txn, rex, s.box, s.map), 1);
    /* Overwriting a link inside a nested collection forgets one count, not the entry. */
    CHECK_OK(lar_list_set_at(txn, &deeper, 0, &f));
    CHECK_EQ(backlinks(txn, rex, s.box, s.any), 1);
    CHECK_OK(lar_list_set_at(txn, &deeper, 0, &r));
    lar_obj lone = make(txn, s.dog);
    lar_value lone_link = link_to(lone);
    CHECK_OK(lar_list_append_at(txn, &deeper, &lone_link));
    CHECK_EQ(backlinks(txn, lone, s.box, s.any), 1);
    CHECK_OK(lar_list_remove_at(txn, &deeper, 1));
    CHECK_EQ(backlinks(txn, lone, s.box, s.any), 0);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, rex));
    CHECK_EQ(list_count_at(txn, &any), 3); /* [1, fido, dict] */
    CHECK_VALUE(list_get_at(txn, &any, 0), one);
    CHECK_VALUE(list_get_at(txn, &any, 1), f);
    CHECK_EQ(map_count_at(txn, &d), 3);
    CHECK_VALUE(map_get_at(txn, &d, "rex"), val_null());
    CHECK_VALUE(map_get_at(txn, &d, "fido"), f);
    CHECK_EQ(list_count_at(txn, &deeper), 0);
    CHECK_VALUE(map_get_at(txn, &ld, "who"), val_null());
    CHECK_EQ(list_count_at(txn, &ml), 1);
    CHECK_VALUE(list_get_at(txn, &ml, 0), f);
    CHECK_EQ(backlinks(txn, fido, s.box, s.any), 1);
    CHECK_EQ(backlinks(txn, fido, s.box, s.map), 1);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, fido));
    CHECK_EQ(list_count_at(txn, &any), 2);
    CHECK_VALUE(map_get_at(txn, &d, "fido"), val_null());
    CHECK_EQ(list_count_at(txn, &ml), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0); /* no entry left for the deleted dogs */
}

TEST(nested_stale_handles_report_deleted_and_read_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    schema_ids s = apply(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box), other = make(txn, s.box);
    lar_value one = val_int(1);
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list));
    lar_coll old = open_coll(txn, box, s.any);
    CHECK_OK(lar_list_append_at(txn, &old, &one));
    CHECK_OK(lar_list_append_at(txn, &old, &new_dict));
    lar_coll old_child = child(&old, list_get_at(txn, &old, 1));
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list)); /* replaced: both handles are stale */
    lar_coll fresh = open_coll(txn, box, s.any);
    CHECK(fresh.id != old.id);
    size_t n = 0;
    lar_value v;
    CHECK_RC(lar_list_count_at(txn, &old, &n), LAR_EDELETED);
    CHECK_MSG_HAS("no longer exists");
    CHECK_RC(lar_list_get_at(txn, &old, 0, &v), LAR_EDELETED);
    CHECK_RC(lar_list_append_at(txn, &old, &one), LAR_EDELETED);
    CHECK_RC(lar_list_clear_at(txn, &old), LAR_EDELETED);
    CHECK_RC(lar_map_count_at(txn, &old_child, &n), LAR_EDELETED);
    lar_string k = key_of("k");
    CHECK_RC(lar_map_put_at(txn, &old_child, &k, &one), LAR_EDELETED);
    /* Another owner's handle on a live collection reads nothing of it. */
    lar_coll forged = fresh;
    forged.obj = other;
    CHECK_RC(lar_list_count_at(txn, &forged, &n), LAR_EDELETED);
    forged = fresh;
    forged.prop = s.list;
    CHECK_RC(lar_list_count_at(txn, &forged, &n), LAR_EDELETED);
    forged = fresh;
    forged.kind = LAR_COLLECTION_MAP;
    CHECK_RC(lar_map_count_at(txn, &forged, &n), LAR_EINVAL);
    /* Ids that are no nested collection: list nodes, never-used ids. */
    for (uint64_t id = 1; id < fresh.id + 50; id++) {
        if (id == fresh.id) continue;
        lar_coll guess = {box, s.any, LAR_COLLECTION_LIST, id};
        CHECK_RC(lar_list_count_at(txn, &guess, &n), LAR_EDELETED);
    }
    CHECK_RC(lar_list_count_at(txn, NULL, &n), LAR_EINVAL);
    CHECK_EQ(list_count_at(txn, &fresh), 0);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, box));
    CHECK_RC(lar_list_count_at(txn, &fresh, &n), LAR_EDELETED);
    CHECK_RC(lar_list_append_at(txn, &fresh, &one), LAR_EDELETED);
    commit_txn(txn);
    close_env(env);
}

TEST(nested_errors_change_nothing_and_sets_refuse_nested_collections)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    schema_ids s = apply(env);
    warm_up(env, &s);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box);
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list));
    commit_txn(txn);
    close_env(env);
    uint64_t base = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_coll any = open_coll(txn, box, s.any);
    int inserted = -1;
    CHECK_RC(lar_set_insert(txn, box, s.set, &new_list, &inserted), LAR_EINVAL);
    CHECK_MSG_HAS("nested");
    CHECK_RC(lar_set_insert(txn, box, s.set, &new_dict, &inserted), LAR_EINVAL);
    CHECK_RC(lar_list_insert_at(txn, &any, 1, &new_list), LAR_EINVAL); /* out of bounds */
    lar_coll list = open_coll(txn, box, s.list);
    CHECK_RC(lar_list_set_at(txn, &list, 0, &new_dict), LAR_EINVAL);
    lar_string bad = key_of("$bad");
    lar_coll map = open_coll(txn, box, s.map);
    CHECK_RC(lar_map_put_at(txn, &map, &bad, &new_list), LAR_EINVAL);
    lar_value kinds = {.type = LAR_TYPE_MIXED};
    CHECK_RC(lar_list_append_at(txn, &any, &kinds), LAR_ETYPE);
    commit_txn(txn); /* still usable */
    close_env(env);
    CHECK_EQ(count_file_entries(path, NULL), base);
}

/* Reads the header of nested collection id and writes a leaf node under its list root
 * holding one element: that same nested list (a cycle only damage can make). */
static void make_cycle(const char *path, uint64_t id)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 16) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "collections", MDB_INTEGERKEY, &dbi) == 0);
    MDB_val k = {sizeof id, &id}, header;
    CHECK(mdb_get(txn, dbi, &k, &header) == 0);
    CHECK_EQ(header.mv_size, 32);
    CHECK_EQ(((const uint8_t *)header.mv_data)[0], 3); /* a list's header */
    uint64_t root;
    memcpy(&root, (const uint8_t *)header.mv_data + 24, 8);
    CHECK(root != 0);
    uint8_t leaf[14] = {1, 1, 0, 0, 0, LAR_TYPE_LIST};
    memcpy(leaf + 6, &id, 8);
    MDB_val rk = {sizeof root, &root}, data = {sizeof leaf, leaf};
    CHECK(mdb_put(txn, dbi, &rk, &data, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

TEST(nested_damage_a_collection_holding_itself_is_corrupt_not_a_loop)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    schema_ids s = apply(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, s.box), dog = make(txn, s.dog);
    CHECK_OK(lar_obj_set(txn, box, s.any, &new_list));
    lar_coll c = open_coll(txn, box, s.any);
    lar_value one = val_int(1), d = link_to(dog); /* a link added and removed: a leaf of one int */
    CHECK_OK(lar_list_append_at(txn, &c, &one));
    CHECK_OK(lar_list_append_at(txn, &c, &d));
    CHECK_OK(lar_list_remove_at(txn, &c, 1));
    commit_txn(txn);
    close_env(env);
    make_cycle(path, c.id);

    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(list_count_at(txn, &c), 1);
    lar_value held = list_get_at(txn, &c, 0);
    CHECK_EQ(held.type, LAR_TYPE_LIST);
    CHECK_EQ(held.as.nested, c.id);
    commit_txn(txn);
    lar_value number = val_int(2);
    txn = begin_write(env);
    CHECK_RC(lar_obj_set(txn, box, s.any, &number), LAR_ECORRUPT);
    CHECK_MSG_HAS("another owner or level");
    lar_txn_free(txn);
    txn = begin_write(env);
    CHECK_RC(lar_obj_delete(txn, box), LAR_ECORRUPT);
    lar_txn_free(txn);
    close_env(env);
}

/* A file whose mixed-only schema was stored before mixed values could nest has no
 * collection tables: it opens and works, and refuses nested collections clearly. */
TEST(nested_file_without_collection_tables_opens_and_refuses_nested_collections)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("value", LAR_TYPE_MIXED, 0)};
    lar_class_def cls = CLASS_DEF("Holder", props);
    CHECK_OK(lar_schema_apply(env, &cls, 1, 1));
    lar_class holder = class_id(env, "Holder");
    lar_txn *txn = begin_write(env);
    lar_value seven = val_int(7);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, holder, &seven, 1, &obj));
    commit_txn(txn);
    close_env(env);
    MDB_env *mdb; /* drop the tables, as an older Larder never made them */
    MDB_txn *mtxn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 16) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &mtxn) == 0);
    CHECK(mdb_dbi_open(mtxn, "collections", MDB_INTEGERKEY, &dbi) == 0);
    CHECK(mdb_drop(mtxn, dbi, 1) == 0);
    CHECK(mdb_dbi_open(mtxn, "keyed", 0, &dbi) == 0);
    CHECK(mdb_drop(mtxn, dbi, 1) == 0);
    CHECK(mdb_txn_commit(mtxn) == 0);
    mdb_env_close(mdb);

    env = open_env(path);
    txn = begin_write(env);
    CHECK_VALUE(get_value(txn, obj, 0), seven);
    CHECK_RC(lar_obj_set(txn, obj, 0, &new_list), LAR_ENOTSUP);
    CHECK_MSG_HAS("nested");
    lar_value values[1] = {new_dict};
    CHECK_RC(lar_obj_create(txn, holder, values, 1, NULL), LAR_ENOTSUP);
    lar_value text = val_str("still works");
    CHECK_OK(lar_obj_set(txn, obj, 0, &text));
    lar_obj other;
    CHECK_OK(lar_obj_create(txn, holder, &seven, 1, &other));
    CHECK_OK(lar_obj_delete(txn, other));
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, obj, 0), text);
    commit_txn(txn);
    close_env(env);
}
