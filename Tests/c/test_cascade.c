/* Cascading deletes (LAR_PROP_CASCADE): the schema rules for the flag, its stored form,
 * and deletes that take the objects a cascading property owns along with its object. */
#include "test.h"

#include <stdlib.h>

/* Node {name, next -> Node (cascading), plain -> Node, kids: [Node] (cascading),
 *       bag: {Node} (cascading), named: [String: Node?] (cascading)}. */
typedef struct nodes {
    lar_class cls;
    uint32_t name, next, plain, kids, bag, named;
} nodes;

static lar_property_def link_def(const char *name, lar_collection collection, unsigned int flags)
{
    return (lar_property_def){name, LAR_TYPE_LINK, collection, flags, "Node", NULL};
}

static void node_props(lar_property_def props[6], unsigned int cascade)
{
    props[0] = PROP("name", LAR_TYPE_STRING, 0);
    props[1] = link_def("next", LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL | cascade);
    props[2] = link_def("plain", LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL);
    props[3] = link_def("kids", LAR_COLLECTION_LIST, cascade);
    props[4] = link_def("bag", LAR_COLLECTION_SET, cascade);
    props[5] = link_def("named", LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL | cascade);
}

static nodes nodes_setup(lar_env *env)
{
    lar_property_def props[6];
    node_props(props, LAR_PROP_CASCADE);
    lar_class_def def = {"Node", props, 6, 0};
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    nodes n;
    n.cls = class_id(env, "Node");
    n.name = prop_id(env, n.cls, "name");
    n.next = prop_id(env, n.cls, "next");
    n.plain = prop_id(env, n.cls, "plain");
    n.kids = prop_id(env, n.cls, "kids");
    n.bag = prop_id(env, n.cls, "bag");
    n.named = prop_id(env, n.cls, "named");
    return n;
}

static lar_value val_link(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static lar_obj node(lar_txn *txn, const nodes *n, const char *name)
{
    lar_value values[6] = {val_str(name), val_null(), val_null(), val_null(), val_null(), val_null()};
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, n->cls, values, 6, &obj));
    return obj;
}

static void link_to(lar_txn *txn, lar_obj from, uint32_t prop, lar_obj to)
{
    lar_value v = val_link(to);
    CHECK_OK(lar_obj_set(txn, from, prop, &v));
}

static void append(lar_txn *txn, lar_obj from, uint32_t prop, lar_obj to)
{
    lar_value v = val_link(to);
    CHECK_OK(lar_list_append(txn, from, prop, &v));
}

static void put(lar_txn *txn, lar_obj from, uint32_t prop, const char *key, lar_value v)
{
    lar_string k = {key, strlen(key)};
    CHECK_OK(lar_map_put(txn, from, prop, &k, &v));
}

/* A node that stays, with one element in each collection: the class's key counter and
 * the collection id counter exist before a test counts the file's entries. */
static lar_obj keeper(lar_txn *txn, const nodes *n)
{
    lar_obj keep = node(txn, n, "keep");
    lar_obj held = node(txn, n, "held");
    append(txn, keep, n->kids, held);
    return keep;
}

/* ---- schema ---- */

TEST(cascade_flag_is_refused_on_properties_that_hold_no_links)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def scalar[] = {PROP("age", LAR_TYPE_INT, LAR_PROP_CASCADE)};
    lar_class_def def = CLASS_DEF("Dog", scalar);
    CHECK_RC(lar_schema_apply(env, &def, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("'Dog.age'");
    CHECK_MSG_HAS("cannot cascade deletes");
    lar_property_def list[] = {{"tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, LAR_PROP_CASCADE, NULL, NULL}};
    lar_class_def list_def = CLASS_DEF("Tagged", list);
    CHECK_RC(lar_schema_apply(env, &list_def, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("'Tagged.tags'");
    CHECK_MSG_HAS("list of string");
    /* Nothing was stored by the refused calls. */
    CHECK_EQ(env_info(env).class_count, 0);
    close_env(env);
}

TEST(cascade_flag_is_stored_shown_and_compared)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    nodes n = nodes_setup(env);
    close_env(env);

    env = open_env(path);
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, n.cls, n.next, &def));
    CHECK_EQ(def.flags, LAR_PROP_OPTIONAL | LAR_PROP_CASCADE);
    CHECK_OK(lar_property_info_get(env, n.cls, n.plain, &def));
    CHECK_EQ(def.flags, LAR_PROP_OPTIONAL);
    CHECK_OK(lar_property_info_get(env, n.cls, n.kids, &def));
    CHECK_EQ(def.flags, LAR_PROP_CASCADE);
    CHECK_OK(lar_property_info_get(env, n.cls, n.bag, &def));
    CHECK_EQ(def.flags, LAR_PROP_CASCADE);
    CHECK_OK(lar_property_info_get(env, n.cls, n.named, &def));
    CHECK_EQ(def.flags, LAR_PROP_OPTIONAL | LAR_PROP_CASCADE);

    /* The same schema again is no change. */
    lar_property_def props[6];
    node_props(props, LAR_PROP_CASCADE);
    lar_class_def same = {"Node", props, 6, 0};
    CHECK_OK(lar_schema_apply(env, &same, 1, 1));
    /* Without the flag: a schema change, naming each property. */
    node_props(props, 0);
    CHECK_RC(lar_schema_apply(env, &same, 1, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("property 'Node.next' is no longer cascading");
    CHECK_MSG_HAS("property 'Node.named' is no longer cascading");
    /* The flag added to a plain link: also a change. */
    node_props(props, LAR_PROP_CASCADE);
    props[2].flags |= LAR_PROP_CASCADE;
    CHECK_RC(lar_schema_apply(env, &same, 1, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("property 'Node.plain' became cascading");
    close_env(env);
}

/* ---- deletes ---- */

TEST(cascade_chain_deletes_every_link_and_leaves_no_entries)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = keeper(txn, &n);
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj a = node(txn, &n, "a"), b = node(txn, &n, "b"), c = node(txn, &n, "c");
    link_to(txn, a, n.next, b);
    link_to(txn, b, n.next, c);
    append(txn, c, n.kids, keep); /* c's kids: keep, whom the keeper's own links do not own */
    link_to(txn, keep, n.plain, c);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK(!obj_exists(txn, a));
    CHECK(!obj_exists(txn, b));
    CHECK(!obj_exists(txn, c));
    /* keep was reached (c's kids) and no cascading link from outside holds it. */
    CHECK(!obj_exists(txn, keep));
    commit_txn(txn);
    close_env(env);
    /* keep and its held node were there before; both keep and what it alone owned went. */
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, n.cls), 0);
    commit_txn(txn);
    close_env(env);
    /* Every entry made since was removed, and the keeper's row, list and backlink too. */
    CHECK_EQ(count_file_entries(path, NULL), before - 4);
}

TEST(cascade_collections_delete_their_elements_and_free_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = keeper(txn, &n);
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj owner = node(txn, &n, "owner");
    lar_obj k1 = node(txn, &n, "k1"), k2 = node(txn, &n, "k2"), s1 = node(txn, &n, "s1");
    lar_obj m1 = node(txn, &n, "m1"), deep = node(txn, &n, "deep");
    append(txn, owner, n.kids, k1);
    append(txn, owner, n.kids, k2);
    append(txn, owner, n.kids, k1); /* twice in the list */
    lar_value v = val_link(s1);
    CHECK_OK(lar_set_insert(txn, owner, n.bag, &v, NULL));
    put(txn, owner, n.named, "m", val_link(m1));
    put(txn, owner, n.named, "none", val_null());
    put(txn, m1, n.named, "deeper", val_link(deep));
    for (int i = 0; i < 200; i++) append(txn, k2, n.kids, node(txn, &n, "many")); /* several batches */
    append(txn, keep, n.kids, k1); /* a cascading link from outside the deleted ones */
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_EQ(count_objects(txn, n.cls), 2 + 6 + 200);
    CHECK_OK(lar_obj_delete(txn, owner));
    /* k1 is held by keep's cascading list: it stays, and leaves the deleted owner's list only. */
    CHECK(obj_exists(txn, k1));
    CHECK(!obj_exists(txn, k2) && !obj_exists(txn, s1) && !obj_exists(txn, m1) && !obj_exists(txn, deep));
    CHECK_EQ(count_objects(txn, n.cls), 3);
    size_t count = 0;
    CHECK_OK(lar_list_count(txn, keep, n.kids, &count));
    CHECK_EQ(count, 2);
    /* Now keep's list gives k1 up: deleting keep takes k1 and held along. */
    CHECK_OK(lar_obj_delete(txn, keep));
    CHECK_EQ(count_objects(txn, n.cls), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, NULL), before - 4);
}

TEST(cascade_shared_target_survives_the_first_owner_and_goes_with_the_last)
{
    lar_env *env = open_env(test_db_path(NULL));
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj first = node(txn, &n, "first"), second = node(txn, &n, "second");
    lar_obj shared = node(txn, &n, "shared"), below = node(txn, &n, "below");
    append(txn, first, n.kids, shared);
    lar_value v = val_link(shared);
    CHECK_OK(lar_set_insert(txn, second, n.bag, &v, NULL));
    link_to(txn, shared, n.next, below);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, first));
    CHECK(!obj_exists(txn, first));
    CHECK(obj_exists(txn, shared));
    CHECK(obj_exists(txn, below)); /* held through shared, which survives */
    CHECK_VALUE(get_value(txn, shared, n.next), val_link(below));
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, second));
    CHECK(!obj_exists(txn, shared));
    CHECK(!obj_exists(txn, below));
    CHECK_EQ(count_objects(txn, n.cls), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(cascade_target_owned_twice_by_deleted_objects_goes)
{
    lar_env *env = open_env(test_db_path(NULL));
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    /* a owns b and c; c owns b too: when a goes, b's other owner goes, so b goes. */
    lar_obj a = node(txn, &n, "a"), b = node(txn, &n, "b"), c = node(txn, &n, "c");
    link_to(txn, a, n.next, b);
    append(txn, a, n.kids, c);
    link_to(txn, c, n.next, b);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_EQ(count_objects(txn, n.cls), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(cascade_cycles_end_and_are_deleted_whole)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    /* a <-> b */
    lar_obj a = node(txn, &n, "a"), b = node(txn, &n, "b");
    link_to(txn, a, n.next, b);
    link_to(txn, b, n.next, a);
    /* itself */
    lar_obj self = node(txn, &n, "self");
    link_to(txn, self, n.next, self);
    append(txn, self, n.kids, self);
    /* root -> x <-> y, through a list and a map */
    lar_obj root = node(txn, &n, "root"), x = node(txn, &n, "x"), y = node(txn, &n, "y");
    append(txn, root, n.kids, x);
    append(txn, x, n.kids, y);
    put(txn, y, n.named, "back", val_link(x));
    lar_obj other = node(txn, &n, "other");
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK(!obj_exists(txn, a) && !obj_exists(txn, b));
    CHECK_OK(lar_obj_delete(txn, self));
    CHECK(!obj_exists(txn, self));
    CHECK_OK(lar_obj_delete(txn, root));
    CHECK(!obj_exists(txn, root) && !obj_exists(txn, x) && !obj_exists(txn, y));
    CHECK(obj_exists(txn, other));
    CHECK_RC(lar_obj_delete(txn, a), LAR_EDELETED);
    commit_txn(txn); /* an error found before any change leaves the write usable */
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}

TEST(cascade_cycle_held_from_outside_survives_but_the_root_goes)
{
    lar_env *env = open_env(test_db_path(NULL));
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = node(txn, &n, "a"), b = node(txn, &n, "b"), c = node(txn, &n, "c");
    lar_obj outside = node(txn, &n, "outside");
    link_to(txn, a, n.next, b);
    link_to(txn, b, n.next, c);
    link_to(txn, c, n.next, a); /* a <- c: a cascading link to the root */
    append(txn, outside, n.kids, b);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK(!obj_exists(txn, a));
    CHECK(obj_exists(txn, b)); /* held by outside */
    CHECK(obj_exists(txn, c)); /* held by b, which survives */
    CHECK_EQ(get_value(txn, c, n.next).type, LAR_TYPE_NULL);
    commit_txn(txn);

    /* Handed from outside to d, then d's delete takes b and c. */
    txn = begin_write(env);
    lar_obj d = node(txn, &n, "d");
    link_to(txn, d, n.next, b);
    CHECK_OK(lar_obj_delete(txn, outside));
    CHECK(obj_exists(txn, b) && obj_exists(txn, c)); /* d holds b */
    CHECK_OK(lar_obj_delete(txn, d));
    CHECK_EQ(count_objects(txn, n.cls), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(cascade_target_held_by_a_plain_link_is_deleted_and_the_link_nulled)
{
    lar_env *env = open_env(test_db_path(NULL));
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = node(txn, &n, "owner"), pet = node(txn, &n, "pet"), fan = node(txn, &n, "fan");
    link_to(txn, owner, n.next, pet);
    link_to(txn, fan, n.plain, pet);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, owner));
    CHECK(!obj_exists(txn, pet));
    CHECK(obj_exists(txn, fan));
    CHECK_EQ(get_value(txn, fan, n.plain).type, LAR_TYPE_NULL);
    commit_txn(txn);

    /* A plain link never cascades. */
    txn = begin_write(env);
    lar_obj other = node(txn, &n, "other");
    link_to(txn, fan, n.plain, other);
    CHECK_OK(lar_obj_delete(txn, fan));
    CHECK(obj_exists(txn, other));
    commit_txn(txn);
    close_env(env);
}

TEST(cascade_runs_for_every_object_delete_all_deletes)
{
    lar_env *env = open_env(test_db_path(NULL));
    nodes n = nodes_setup(env);
    lar_property_def owner_props[] = {
        {"pets", LAR_TYPE_LINK, LAR_COLLECTION_LIST, LAR_PROP_CASCADE, "Node", NULL},
        {"fav", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Node", NULL}};
    lar_class_def owner_def = CLASS_DEF("Owner", owner_props);
    CHECK_OK(lar_schema_apply(env, &owner_def, 1, 1));
    lar_class owner = class_id(env, "Owner");
    lar_txn *txn = begin_write(env);
    lar_obj owners[3], pets[6];
    for (int i = 0; i < 3; i++) CHECK_OK(lar_obj_create(txn, owner, NULL, 0, &owners[i]));
    for (int i = 0; i < 6; i++) pets[i] = node(txn, &n, "pet");
    for (int i = 0; i < 6; i++) append(txn, owners[i / 2], 0, pets[i]);
    append(txn, owners[2], 0, pets[0]); /* owned by the first and the last owner */
    lar_obj free_pet = node(txn, &n, "free");
    link_to(txn, owners[0], 1, free_pet); /* a plain link: not owned */
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_objects_delete_all(txn, owner));
    CHECK_EQ(count_objects(txn, owner), 0);
    CHECK_EQ(count_objects(txn, n.cls), 1);
    CHECK(obj_exists(txn, free_pet));
    commit_txn(txn);
    close_env(env);
}

/* Deleting a, which owns b, which owns c (fail_each_change's attempt and check). */
typedef struct owned_chain {
    const nodes *n;
    lar_obj a, b;
} owned_chain;

static int delete_chain(lar_txn *txn, void *context)
{
    return lar_obj_delete(txn, ((const owned_chain *)context)->a);
}

static void check_chain_kept(lar_txn *txn, void *context)
{
    const owned_chain *chain = context;
    CHECK_EQ(count_objects(txn, chain->n->cls), 3);
    CHECK_VALUE(get_value(txn, chain->a, chain->n->next), val_link(chain->b));
}

TEST(cascade_failed_midway_fails_the_write_and_changes_nothing)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    nodes n = nodes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = node(txn, &n, "a"), b = node(txn, &n, "b"), c = node(txn, &n, "c");
    link_to(txn, a, n.next, b);
    append(txn, b, n.kids, c);
    commit_txn(txn);
    owned_chain chain = {&n, a, b};
    /* three objects' rows, links and a list: many changes */
    CHECK(fail_each_change(env, delete_chain, check_chain_kept, &chain) > 3);
    close_env(env);
}
