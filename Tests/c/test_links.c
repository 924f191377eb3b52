/* Links and collections in the schema; to-one links, the backlink index, and
 * deletes that null the links to what they delete. */
#include "test.h"

#include <stdlib.h>

static lar_property_def link_prop(const char *name, const char *target)
{
    return (lar_property_def){name, LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, target, NULL};
}

static lar_property_def collection_prop(const char *name, lar_type type, lar_collection collection,
                                        unsigned int flags, const char *target)
{
    return (lar_property_def){name, type, collection, flags, target, NULL};
}

/* Person {name, dog -> Dog, best -> Dog}; Dog {name, owner -> Person}: links both ways. */
typedef struct pets {
    lar_class person, dog;
    uint32_t person_name, person_dog, person_best, dog_name, dog_owner;
} pets;

static pets pets_setup(lar_env *env)
{
    /* The Person class comes first and links to Dog, declared after it. */
    lar_property_def person_props[] = {PROP("name", LAR_TYPE_STRING, 0), link_prop("dog", "Dog"),
                                       link_prop("best", "Dog")};
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0), link_prop("owner", "Person")};
    lar_class_def classes[] = {CLASS_DEF("Person", person_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    pets p;
    p.person = class_id(env, "Person");
    p.dog = class_id(env, "Dog");
    p.person_name = prop_id(env, p.person, "name");
    p.person_dog = prop_id(env, p.person, "dog");
    p.person_best = prop_id(env, p.person, "best");
    p.dog_name = prop_id(env, p.dog, "name");
    p.dog_owner = prop_id(env, p.dog, "owner");
    return p;
}

static lar_value val_link(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static lar_obj make_dog(lar_txn *txn, const pets *p, const char *name)
{
    lar_value values[2] = {val_str(name), val_null()};
    lar_obj dog;
    CHECK_OK(lar_obj_create(txn, p->dog, values, 2, &dog));
    return dog;
}

static lar_obj make_person(lar_txn *txn, const pets *p, const char *name, lar_value dog)
{
    lar_value values[3] = {val_str(name), dog, val_null()};
    lar_obj person;
    CHECK_OK(lar_obj_create(txn, p->person, values, 3, &person));
    return person;
}

static uint64_t backlinks(lar_txn *txn, lar_obj target, lar_class cls, uint32_t prop)
{
    uint64_t count = 99;
    CHECK_OK(lar_backlinks_count(txn, target, cls, prop, &count));
    return count;
}

/* ---- schema ---- */

TEST(links_schema_accepts_links_and_collections_of_every_type)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    static const lar_collection kinds[] = {LAR_COLLECTION_LIST, LAR_COLLECTION_SET, LAR_COLLECTION_MAP};
    lar_property_def props[3 * 2 * SCALAR_TYPE_COUNT + 4];
    char names[3 * 2 * SCALAR_TYPE_COUNT][48];
    size_t count = 0;
    for (size_t k = 0; k < COUNT_OF(kinds); k++)
        for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++)
            for (int optional = 0; optional <= 1; optional++) {
                snprintf(names[count], sizeof names[count], "%s_%zu%s", scalar_type_names[t], k,
                         optional ? "_opt" : "");
                props[count] = collection_prop(names[count], (lar_type)t, kinds[k],
                                               optional ? LAR_PROP_OPTIONAL : 0, NULL);
                count++;
            }
    props[count++] = link_prop("to_one", "Everything");
    props[count++] = collection_prop("list", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Everything");
    props[count++] = collection_prop("set", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "Everything");
    props[count++] = collection_prop("map", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Everything");
    lar_class_def def = {"Everything", props, count, 0};
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    close_env(env);

    env = open_env(path); /* the loader checks the stored kinds again */
    CHECK_OK(lar_schema_apply(env, &def, 1, 1)); /* the same schema: no difference */
    lar_class cls = class_id(env, "Everything");
    for (size_t i = 0; i < count; i++) {
        lar_property_def got;
        CHECK_OK(lar_property_info_get(env, cls, prop_id(env, cls, props[i].name), &got));
        CHECK_EQ(got.type, props[i].type);
        CHECK_EQ(got.collection, props[i].collection);
        CHECK_EQ(got.flags, props[i].flags);
        if (props[i].target_class) CHECK_STR(got.target_class, props[i].target_class);
        else CHECK(got.target_class == NULL);
    }
    /* An object of it starts with every collection empty and its link null. */
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    lar_value value = val_int(5);
    for (size_t i = 0; i < count; i++) {
        CHECK_OK(lar_obj_get(txn, obj, (uint32_t)i, &value));
        CHECK_EQ(value.type, LAR_TYPE_NULL);
    }
    commit_txn(txn);
    close_env(env);
}

TEST(links_schema_target_may_be_stored_or_declared_in_the_same_call)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def dog = CLASS_DEF("Dog", dog_props);
    CHECK_OK(lar_schema_apply(env, &dog, 1, 1));
    /* A later call links to the stored class. */
    lar_property_def owner_props[] = {link_prop("dog", "Dog")};
    lar_class_def owner = CLASS_DEF("Owner", owner_props);
    CHECK_OK(lar_schema_apply(env, &owner, 1, 1));
    /* Classes of one call may link to each other, and to themselves. */
    lar_property_def a_props[] = {link_prop("b", "B"), link_prop("self", "A")};
    lar_property_def b_props[] = {collection_prop("as", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "A")};
    lar_class_def pair[] = {CLASS_DEF("A", a_props), CLASS_DEF("B", b_props)};
    CHECK_OK(lar_schema_apply(env, pair, 2, 1));
    CHECK_EQ(env_info(env).class_count, 4);
    close_env(env);
}

TEST(links_schema_refuses_bad_links_and_collections_naming_them)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def target_props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def target = CLASS_DEF("Target", target_props);
    static const struct {
        lar_property_def def;
        int code;
        const char *says;
    } cases[] = {
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Nowhere", NULL}, LAR_EINVAL, "Nowhere"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL}, LAR_EINVAL, "target_class"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "", NULL}, LAR_EINVAL, "target_class"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, 0, "Target", NULL}, LAR_EINVAL, "always optional"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_LIST, LAR_PROP_OPTIONAL, "Target", NULL}, LAR_EINVAL, "null"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, "Target", NULL}, LAR_EINVAL, "null"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_MAP, 0, "Target", NULL}, LAR_EINVAL, "optional values"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL | LAR_PROP_PRIMARY_KEY, "Target", NULL},
         LAR_EINVAL, "primary key"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL | LAR_PROP_INDEXED, "Target", NULL},
         LAR_EINVAL, "indexed"},
        {{"to", LAR_TYPE_INT, LAR_COLLECTION_LIST, LAR_PROP_PRIMARY_KEY, NULL, NULL}, LAR_EINVAL, "primary key"},
        {{"to", LAR_TYPE_STRING, LAR_COLLECTION_SET, LAR_PROP_INDEXED, NULL, NULL}, LAR_EINVAL, "indexed"},
        {{"to", LAR_TYPE_INT, LAR_COLLECTION_MAP, LAR_PROP_INDEXED, NULL, NULL}, LAR_EINVAL, "indexed"},
        {{"to", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, "Target", NULL}, LAR_EINVAL, "only links"},
        {{"to", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, "Target", NULL}, LAR_EINVAL, "only links"},
        {{"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Target", "x"}, LAR_EINVAL, "origin_property"},
        {{"to", LAR_TYPE_LINKING_OBJECTS, LAR_COLLECTION_LIST, 0, "Target", "x"}, LAR_ENOTSUP, "linking"},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        lar_property_def props[] = {PROP("id", LAR_TYPE_INT, 0), cases[i].def};
        lar_class_def classes[] = {CLASS_DEF("Source", props), target};
        CHECK_RC(lar_schema_apply(env, classes, 2, 1), cases[i].code);
        CHECK_MSG_HAS("Source.to");
        CHECK_MSG_HAS(cases[i].says);
    }
    CHECK_EQ(env_info(env).class_count, 0); /* nothing was stored */
    close_env(env);
}

TEST(links_schema_refuses_a_changed_target_or_kind)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def a_props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_property_def owner_props[] = {link_prop("pet", "A"),
                                      collection_prop("tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL)};
    lar_class_def classes[] = {CLASS_DEF("A", a_props), CLASS_DEF("B", a_props), CLASS_DEF("Owner", owner_props)};
    CHECK_OK(lar_schema_apply(env, classes, 3, 1));
    owner_props[0].target_class = "B";
    CHECK_RC(lar_schema_apply(env, classes, 3, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("'Owner.pet' changed its target from 'A' to 'B'");
    owner_props[0].target_class = "A";
    owner_props[1].collection = LAR_COLLECTION_SET;
    CHECK_RC(lar_schema_apply(env, classes, 3, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("from list of string to set of string");
    close_env(env);
}

/* ---- to-one links ---- */

TEST(links_get_and_set)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), fido = make_dog(txn, &p, "Fido");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    lar_value got = get_value(txn, ann, p.person_dog);
    CHECK_EQ(got.type, LAR_TYPE_LINK);
    CHECK_EQ(got.as.link.cls, p.dog);
    CHECK_EQ(got.as.link.key, rex.key);
    CHECK_EQ(get_value(txn, ann, p.person_best).type, LAR_TYPE_NULL);
    lar_value to_fido = val_link(fido), null = val_null();
    CHECK_OK(lar_obj_set(txn, ann, p.person_best, &to_fido));
    CHECK_EQ(get_value(txn, ann, p.person_best).as.link.key, fido.key);
    CHECK_OK(lar_obj_set(txn, ann, p.person_dog, &null));
    CHECK_EQ(get_value(txn, ann, p.person_dog).type, LAR_TYPE_NULL);
    CHECK_EQ(get_value(txn, ann, p.person_name).as.string.size, 3); /* the other properties stay */
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_EQ(get_value(txn, ann, p.person_dog).type, LAR_TYPE_NULL);
    CHECK_EQ(get_value(txn, ann, p.person_best).as.link.key, fido.key);
    lar_value all[3];
    CHECK_OK(lar_obj_get_all(txn, ann, all, 3));
    CHECK_EQ(all[2].type, LAR_TYPE_LINK);
    CHECK_EQ(all[2].as.link.cls, p.dog);
    CHECK_EQ(all[2].as.link.key, fido.key);
    lar_iter *iter;
    lar_value bound;
    lar_obj step;
    CHECK_OK(lar_iter_open(txn, p.person, &iter));
    CHECK_OK(lar_iter_bind_value(iter, p.person_best, &bound));
    CHECK_OK(lar_iter_next(iter, &step));
    CHECK_EQ(bound.type, LAR_TYPE_LINK);
    CHECK_EQ(bound.as.link.key, fido.key);
    lar_iter_close(iter);
    commit_txn(txn);
    close_env(env);
}

TEST(links_refuse_the_wrong_class_a_deleted_target_and_change_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), gone = make_dog(txn, &p, "Gone");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    lar_obj bob = make_person(txn, &p, "Bob", val_null());
    CHECK_OK(lar_obj_delete(txn, gone));

    lar_value person_link = val_link(bob), gone_link = val_link(gone);
    lar_value unknown_class = val_link((lar_obj){77, rex.key});
    lar_value never = val_link((lar_obj){p.dog, 12345});
    lar_value number = val_int(rex.key);
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &person_link), LAR_ETYPE);
    CHECK_MSG_HAS("Person.dog");
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &unknown_class), LAR_ETYPE);
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &number), LAR_ETYPE);
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &gone_link), LAR_EINVAL);
    CHECK_MSG_HAS("deleted");
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &never), LAR_EINVAL);
    CHECK_EQ(get_value(txn, ann, p.person_dog).as.link.key, rex.key);
    CHECK_EQ(backlinks(txn, rex, p.person, p.person_dog), 1);

    lar_value values[3] = {val_str("Cy"), gone_link, val_null()};
    uint64_t people = count_objects(txn, p.person);
    CHECK_RC(lar_obj_create(txn, p.person, values, 3, NULL), LAR_EINVAL);
    values[1] = person_link;
    CHECK_RC(lar_obj_create(txn, p.person, values, 3, NULL), LAR_ETYPE);
    CHECK_EQ(count_objects(txn, p.person), people);
    /* A link to the object a create is about to make does not exist yet either. */
    lar_property_def self_props[] = {link_prop("self", "Self")};
    lar_class_def self_def = CLASS_DEF("Self", self_props);
    CHECK_OK(lar_schema_apply(env, &self_def, 1, 1));
    lar_class self = class_id(env, "Self");
    lar_value self_link = val_link((lar_obj){self, 1});
    CHECK_RC(lar_obj_create(txn, self, &self_link, 1, NULL), LAR_EINVAL);
    CHECK_EQ(count_objects(txn, self), 0);
    commit_txn(txn);

    txn = begin_read(env);
    lar_value rex_link = val_link(rex);
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &rex_link), LAR_EMISUSE);
    lar_txn_abort(txn);
    CHECK_RC(lar_obj_set(txn, ann, p.person_dog, &rex_link), LAR_EMISUSE);
    lar_txn_free(txn);
    close_env(env);
}

TEST(links_a_deleted_target_reads_as_null_everywhere)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), fido = make_dog(txn, &p, "Fido");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    lar_obj bob = make_person(txn, &p, "Bob", val_link(rex));
    lar_value to_rex = val_link(rex), to_ann = val_link(ann);
    CHECK_OK(lar_obj_set(txn, bob, p.person_best, &to_rex));
    CHECK_OK(lar_obj_set(txn, rex, p.dog_owner, &to_ann));
    CHECK_OK(lar_obj_set(txn, fido, p.dog_owner, &to_ann));
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, rex));
    CHECK_EQ(get_value(txn, ann, p.person_dog).type, LAR_TYPE_NULL);
    CHECK_EQ(get_value(txn, bob, p.person_dog).type, LAR_TYPE_NULL);
    CHECK_EQ(get_value(txn, bob, p.person_best).type, LAR_TYPE_NULL);
    CHECK_STR(get_value(txn, bob, p.person_name).as.string.data, "Bob");
    /* Rex's own link left Ann's backlinks; Fido's stays. */
    CHECK_EQ(backlinks(txn, ann, p.dog, p.dog_owner), 1);
    commit_txn(txn);
    close_env(env);

    /* Nothing of Rex is left: two dogs and two people were made, Rex is gone, and the
     * backlink table holds only Fido -> Ann. */
    CHECK_EQ(count_file_entries(path, "backlinks"), 1);
    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(get_value(txn, ann, p.person_dog).type, LAR_TYPE_NULL);
    commit_txn(txn);
    close_env(env);
}

TEST(links_to_itself_and_in_a_cycle_delete_cleanly)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    pets p = pets_setup(env);
    lar_property_def node_props[] = {link_prop("next", "Node")};
    lar_class_def node_def = CLASS_DEF("Node", node_props);
    CHECK_OK(lar_schema_apply(env, &node_def, 1, 1));
    lar_class node = class_id(env, "Node");
    close_env(env);
    uint64_t empty = count_file_entries(path, NULL);

    env = open_env(path);
    lar_txn *txn = begin_write(env);
    lar_obj a, b;
    CHECK_OK(lar_obj_create(txn, node, NULL, 0, &a));
    CHECK_OK(lar_obj_create(txn, node, NULL, 0, &b));
    lar_value to_a = val_link(a), to_b = val_link(b);
    CHECK_OK(lar_obj_set(txn, a, 0, &to_a));
    CHECK_EQ(backlinks(txn, a, node, 0), 1);
    CHECK_OK(lar_obj_set(txn, a, 0, &to_b));
    CHECK_OK(lar_obj_set(txn, b, 0, &to_a));
    CHECK_OK(lar_obj_set(txn, b, 0, &to_a)); /* the same link again: still one backlink */
    CHECK_EQ(backlinks(txn, a, node, 0), 1);
    CHECK_EQ(backlinks(txn, b, node, 0), 1);
    lar_obj rex = make_dog(txn, &p, "Rex");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    lar_value to_ann = val_link(ann);
    CHECK_OK(lar_obj_set(txn, rex, p.dog_owner, &to_ann));
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_EQ(get_value(txn, b, 0).type, LAR_TYPE_NULL);
    CHECK_OK(lar_obj_delete(txn, b));
    CHECK_OK(lar_obj_delete(txn, ann));
    CHECK_EQ(get_value(txn, rex, p.dog_owner).type, LAR_TYPE_NULL);
    CHECK_OK(lar_obj_delete(txn, rex));
    commit_txn(txn);
    close_env(env);
    /* Every entry made was removed: rows and backlinks. Only the next-key counters of
     * the three classes stay, so that keys are never reused. */
    CHECK_EQ(count_file_entries(path, NULL), empty + 3);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

TEST(links_delete_all_nulls_links_and_clears_backlinks)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj dogs[5], people[5];
    for (int i = 0; i < 5; i++) dogs[i] = make_dog(txn, &p, "Dog");
    for (int i = 0; i < 5; i++) people[i] = make_person(txn, &p, "Person", val_link(dogs[i]));
    for (int i = 0; i < 5; i++) {
        lar_value owner = val_link(people[(i + 1) % 5]);
        CHECK_OK(lar_obj_set(txn, dogs[i], p.dog_owner, &owner));
    }
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 10);

    env = open_env(path);
    txn = begin_write(env);
    CHECK_OK(lar_objects_delete_all(txn, p.dog));
    CHECK_EQ(count_objects(txn, p.dog), 0);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(get_value(txn, people[i], p.person_dog).type, LAR_TYPE_NULL);
        CHECK_EQ(backlinks(txn, people[i], p.dog, p.dog_owner), 0);
    }
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

TEST(links_aborted_write_leaves_links_and_backlinks)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), fido = make_dog(txn, &p, "Fido");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    commit_txn(txn);
    txn = begin_write(env);
    lar_value to_fido = val_link(fido);
    CHECK_OK(lar_obj_set(txn, ann, p.person_dog, &to_fido));
    CHECK_OK(lar_obj_delete(txn, fido));
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_read(env);
    CHECK_EQ(get_value(txn, ann, p.person_dog).as.link.key, rex.key);
    CHECK_EQ(backlinks(txn, rex, p.person, p.person_dog), 1);
    CHECK_EQ(backlinks(txn, fido, p.person, p.person_dog), 0);
    commit_txn(txn);
    close_env(env);
}

/* ---- backlinks ---- */

TEST(backlinks_count_and_list_by_property_in_pages)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), fido = make_dog(txn, &p, "Fido");
    lar_obj people[7];
    for (int i = 0; i < 7; i++) people[i] = make_person(txn, &p, "P", val_link(i % 2 ? fido : rex));
    lar_value to_rex = val_link(rex);
    CHECK_OK(lar_obj_set(txn, people[1], p.person_best, &to_rex));
    CHECK_EQ(backlinks(txn, rex, p.person, p.person_dog), 4);
    CHECK_EQ(backlinks(txn, fido, p.person, p.person_dog), 3);
    CHECK_EQ(backlinks(txn, rex, p.person, p.person_best), 1);
    CHECK_EQ(backlinks(txn, fido, p.person, p.person_best), 0);
    commit_txn(txn);

    txn = begin_read(env);
    /* Pages of 3: people 0, 2, 4 then 6, then the end. */
    lar_obj page[3];
    size_t n = 99;
    CHECK_OK(lar_backlinks_list(txn, rex, p.person, p.person_dog, 0, page, 3, &n));
    CHECK_EQ(n, 3);
    CHECK_EQ(page[0].cls, p.person);
    CHECK_EQ(page[0].key, people[0].key);
    CHECK_EQ(page[1].key, people[2].key);
    CHECK_EQ(page[2].key, people[4].key);
    CHECK_OK(lar_backlinks_list(txn, rex, p.person, p.person_dog, page[2].key + 1, page, 3, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(page[0].key, people[6].key);
    CHECK_END(lar_backlinks_list(txn, rex, p.person, p.person_dog, people[6].key + 1, page, 3, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(lar_backlinks_list(txn, rex, p.person, p.person_best, 0, page, 3, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(page[0].key, people[1].key);
    CHECK_END(lar_backlinks_list(txn, fido, p.person, p.person_best, 0, page, 3, &n));
    commit_txn(txn);
    close_env(env);
}

TEST(backlinks_refuse_bad_arguments)
{
    lar_env *env = open_env(test_db_path(NULL));
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), gone = make_dog(txn, &p, "Gone");
    lar_obj ann = make_person(txn, &p, "Ann", val_link(rex));
    CHECK_OK(lar_obj_delete(txn, gone));
    uint64_t count;
    lar_obj page[2];
    size_t n = 5;
    CHECK_RC(lar_backlinks_count(txn, rex, p.person, p.person_dog, NULL), LAR_EINVAL);
    CHECK_RC(lar_backlinks_count(NULL, rex, p.person, p.person_dog, &count), LAR_EINVAL);
    CHECK_RC(lar_backlinks_count(txn, rex, 99, p.person_dog, &count), LAR_EINVAL);
    CHECK_RC(lar_backlinks_count(txn, (lar_obj){99, 1}, p.person, p.person_dog, &count), LAR_EINVAL);
    CHECK_RC(lar_backlinks_count(txn, rex, p.person, 3, &count), LAR_EINVAL);
    CHECK_RC(lar_backlinks_count(txn, rex, p.person, p.person_name, &count), LAR_EINVAL);
    CHECK_MSG_HAS("Person.name");
    CHECK_RC(lar_backlinks_count(txn, ann, p.person, p.person_dog, &count), LAR_EINVAL); /* Dog's, not Person's */
    CHECK_RC(lar_backlinks_count(txn, gone, p.person, p.person_dog, &count), LAR_EDELETED);
    CHECK_RC(lar_backlinks_list(txn, rex, p.person, p.person_dog, 0, NULL, 2, &n), LAR_EINVAL);
    CHECK_EQ(n, 0);
    CHECK_RC(lar_backlinks_list(txn, rex, p.person, p.person_dog, 0, page, 2, NULL), LAR_EINVAL);
    CHECK_RC(lar_backlinks_list(txn, rex, p.person, p.person_dog, 0, page, 0, &n), LAR_EINVAL);
    CHECK_RC(lar_backlinks_list(txn, gone, p.person, p.person_dog, 0, page, 2, &n), LAR_EDELETED);
    CHECK_RC(lar_backlinks_list(txn, rex, p.dog, p.dog_owner, 0, page, 2, &n), LAR_EINVAL);
    commit_txn(txn);
    txn = begin_read(env);
    lar_txn_abort(txn);
    CHECK_RC(lar_backlinks_count(txn, rex, p.person, p.person_dog, &count), LAR_EMISUSE);
    CHECK_RC(lar_backlinks_list(txn, rex, p.person, p.person_dog, 0, page, 2, &n), LAR_EMISUSE);
    lar_txn_free(txn);
    close_env(env);
}

/* A file whose schema has no link has no backlink table, and lookups still answer. */
TEST(backlinks_table_appears_with_the_first_link)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    all_types_setup(env);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    env = open_env(path);
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex");
    make_person(txn, &p, "Ann", val_link(rex));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 1);
}

/* A write gathers the backlinks it adds and applies them later (backlink.c): counts,
 * lists, removes and deletes in the same write see every add, repeated adds of one
 * link count twice, an abort forgets them and a commit keeps them. */
static uint64_t backlinks_of(lar_txn *txn, lar_obj dog, const pets *p)
{
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, dog, p->person, p->person_dog, &count));
    return count;
}

TEST(backlinks_gathered_in_a_write_are_seen_by_it)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    pets p = pets_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj rex = make_dog(txn, &p, "Rex"), fido = make_dog(txn, &p, "Fido");
    lar_obj people[300];
    for (int i = 0; i < 300; i++) people[i] = make_person(txn, &p, "p", val_link(i % 3 ? rex : fido));
    CHECK_EQ(backlinks_of(txn, rex, &p), 200);
    CHECK_EQ(backlinks_of(txn, fido, &p), 100);
    for (int i = 0; i < 300; i += 3) { /* moves 100 links from fido to rex, then one back */
        lar_value to = val_link(rex);
        CHECK_OK(lar_obj_set(txn, people[i], p.person_dog, &to));
    }
    lar_value back = val_link(fido);
    CHECK_OK(lar_obj_set(txn, people[0], p.person_dog, &back));
    CHECK_EQ(backlinks_of(txn, rex, &p), 299);
    CHECK_EQ(backlinks_of(txn, fido, &p), 1);
    commit_txn(txn);

    txn = begin_write(env);
    for (int i = 1; i < 300; i++) CHECK_OK(lar_obj_set(txn, people[i], p.person_dog, &back));
    CHECK_OK(lar_obj_delete(txn, people[5]));
    CHECK_EQ(backlinks_of(txn, fido, &p), 299);
    CHECK_OK(lar_txn_abort(txn)); /* the gathered adds go with it */
    lar_txn_free(txn);
    txn = begin_write(env);
    CHECK_EQ(backlinks_of(txn, rex, &p), 299);
    CHECK_EQ(backlinks_of(txn, fido, &p), 1);
    for (int i = 1; i < 300; i++) CHECK_OK(lar_obj_set(txn, people[i], p.person_dog, &back));
    CHECK_OK(lar_obj_delete(txn, fido)); /* nulls every link, gathered or stored */
    for (int i = 0; i < 300; i++) {
        lar_value v;
        CHECK_OK(lar_obj_get(txn, people[i], p.person_dog, &v));
        CHECK_EQ(v.type, LAR_TYPE_NULL);
    }
    CHECK_EQ(backlinks_of(txn, rex, &p), 0);
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_EQ(backlinks_of(txn, rex, &p), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

/* ---- links to objects the write itself created ---- */

/* Hub {one -> Spoke, list<Spoke>, set<Spoke>, map<Spoke?>}: every way to link. */
typedef struct hub {
    lar_class hub, spoke;
    uint32_t one, list, set, map;
} hub;

static hub hub_setup(lar_env *env)
{
    lar_property_def hub_props[] = {
        link_prop("one", "Spoke"),
        collection_prop("list", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Spoke"),
        collection_prop("set", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "Spoke"),
        collection_prop("map", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Spoke"),
    };
    lar_property_def spoke_props[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("Hub", hub_props), CLASS_DEF("Spoke", spoke_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    hub h;
    h.hub = class_id(env, "Hub");
    h.spoke = class_id(env, "Spoke");
    h.one = prop_id(env, h.hub, "one");
    h.list = prop_id(env, h.hub, "list");
    h.set = prop_id(env, h.hub, "set");
    h.map = prop_id(env, h.hub, "map");
    return h;
}

static lar_obj make_spoke(lar_txn *txn, const hub *h, int64_t n)
{
    lar_value v = val_int(n);
    lar_obj spoke;
    CHECK_OK(lar_obj_create(txn, h->spoke, &v, 1, &spoke));
    return spoke;
}

/* Links target from hub's four properties; expect is what each call returns. */
static void link_every_way(lar_txn *txn, const hub *h, lar_obj from, lar_obj target, int expect)
{
    lar_value to = val_link(target);
    lar_string key = {"k", 1};
    CHECK_RC(lar_obj_set(txn, from, h->one, &to), expect);
    CHECK_RC(lar_list_append(txn, from, h->list, &to), expect);
    CHECK_RC(lar_set_insert(txn, from, h->set, &to, NULL), expect);
    CHECK_RC(lar_map_put(txn, from, h->map, &key, &to), expect);
    if (expect == LAR_EINVAL) CHECK_MSG_HAS("deleted");
}

/* A link's target is known to exist without a lookup when the write created it, until
 * the write removes anything from its table: deletes, delete-all and aborts are seen. */
TEST(links_to_objects_created_in_the_same_write_see_deletes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    hub h = hub_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj from = {h.hub, 0};
    CHECK_OK(lar_obj_create(txn, h.hub, NULL, 0, &from));
    lar_obj a = make_spoke(txn, &h, 1), b = make_spoke(txn, &h, 2), c = make_spoke(txn, &h, 3);
    link_every_way(txn, &h, from, a, LAR_OK);
    link_every_way(txn, &h, from, b, LAR_OK);
    /* Not created yet: past the write's keys. */
    link_every_way(txn, &h, from, (lar_obj){h.spoke, c.key + 1}, LAR_EINVAL);
    CHECK_OK(lar_obj_delete(txn, b));
    link_every_way(txn, &h, from, b, LAR_EINVAL);
    link_every_way(txn, &h, from, c, LAR_OK);
    lar_obj d = make_spoke(txn, &h, 4); /* created after a delete: looked up, found */
    link_every_way(txn, &h, from, d, LAR_OK);
    size_t count = 0;
    CHECK_OK(lar_list_count(txn, from, h.list, &count));
    CHECK_EQ(count, 3); /* a, c, d: b's link went with it */
    CHECK_EQ(backlinks(txn, d, h.hub, h.list), 1);
    commit_txn(txn);

    /* Objects of an earlier write are looked up; delete-all is seen. */
    txn = begin_write(env);
    link_every_way(txn, &h, from, a, LAR_OK);
    lar_obj e = make_spoke(txn, &h, 5), f = make_spoke(txn, &h, 6);
    link_every_way(txn, &h, from, e, LAR_OK);
    CHECK_OK(lar_objects_delete_all(txn, h.spoke));
    link_every_way(txn, &h, from, f, LAR_EINVAL);
    link_every_way(txn, &h, from, a, LAR_EINVAL);
    lar_obj g = make_spoke(txn, &h, 7);
    link_every_way(txn, &h, from, g, LAR_OK);
    commit_txn(txn);

    /* An aborted write's objects are gone: the next write does not take them as its own. */
    txn = begin_write(env);
    lar_obj lost = make_spoke(txn, &h, 8);
    link_every_way(txn, &h, from, lost, LAR_OK);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_write(env);
    link_every_way(txn, &h, from, lost, LAR_EINVAL);
    link_every_way(txn, &h, from, g, LAR_OK);
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_OK(lar_list_count(txn, from, h.list, &count));
    CHECK_EQ(count, 2); /* g, twice */
    CHECK_EQ(backlinks(txn, g, h.hub, h.list), 1);
    CHECK_EQ(get_value(txn, from, h.one).as.link.key, g.key);
    commit_txn(txn);
    close_env(env);
}

static lar_objkey get_list_link(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index)
{
    lar_value v;
    CHECK_OK(lar_list_get(txn, obj, prop, index, &v));
    CHECK_EQ(v.type, LAR_TYPE_LINK);
    return v.as.link.key;
}

/* A write's backlinks and list nodes land before, on and after the table's last entry:
 * the ones past it are appended, one already there is counted up, the rest inserted. */
TEST(backlinks_and_list_nodes_added_around_the_last_entry)
{
    lar_env *env = open_env(test_db_path(NULL));
    hub h = hub_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj first, second;
    CHECK_OK(lar_obj_create(txn, h.hub, NULL, 0, &first));
    CHECK_OK(lar_obj_create(txn, h.hub, NULL, 0, &second));
    lar_obj s1 = make_spoke(txn, &h, 1), s2 = make_spoke(txn, &h, 2);
    lar_value to_s1 = val_link(s1), to_s2 = val_link(s2);
    CHECK_OK(lar_list_append(txn, first, h.list, &to_s2));  /* the table's last backlink */
    CHECK_OK(lar_list_append(txn, second, h.list, &to_s1)); /* the last list node */
    commit_txn(txn);

    txn = begin_write(env);
    lar_obj s3 = make_spoke(txn, &h, 3);
    lar_value to_s3 = val_link(s3);
    CHECK_OK(lar_list_append(txn, first, h.list, &to_s2)); /* on the last entry: counted up to 2 */
    CHECK_OK(lar_list_append(txn, first, h.list, &to_s1)); /* before it */
    CHECK_OK(lar_list_append(txn, first, h.list, &to_s3)); /* after it */
    CHECK_OK(lar_list_append(txn, second, h.list, &to_s3));
    lar_obj third; /* a new list: its node goes after the last */
    CHECK_OK(lar_obj_create(txn, h.hub, NULL, 0, &third));
    CHECK_OK(lar_list_append(txn, third, h.list, &to_s1));
    commit_txn(txn);

    txn = begin_write(env);
    size_t count = 0;
    CHECK_OK(lar_list_count(txn, first, h.list, &count));
    CHECK_EQ(count, 4);
    CHECK_OK(lar_list_count(txn, second, h.list, &count));
    CHECK_EQ(count, 2);
    const lar_obj want[] = {s2, s2, s1, s3};
    for (size_t i = 0; i < 4; i++) CHECK_EQ(get_list_link(txn, first, h.list, i), want[i].key);
    CHECK_EQ(get_list_link(txn, third, h.list, 0), s1.key);
    CHECK_EQ(backlinks(txn, s1, h.hub, h.list), 3);
    CHECK_EQ(backlinks(txn, s2, h.hub, h.list), 1);
    CHECK_EQ(backlinks(txn, s3, h.hub, h.list), 2);
    CHECK_OK(lar_list_remove(txn, first, h.list, 0)); /* one of two links first -> s2: the entry stays */
    CHECK_EQ(backlinks(txn, s2, h.hub, h.list), 1);
    CHECK_OK(lar_list_remove(txn, first, h.list, 0));
    CHECK_EQ(backlinks(txn, s2, h.hub, h.list), 0);
    commit_txn(txn);
    close_env(env);
}
