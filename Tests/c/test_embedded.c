/* Embedded objects (LAR_CLASS_EMBEDDED): schema rules, creation in place, the one-owner
 * rule, and deletion when the owning link goes away (counted in the file's entries). */
#include "test.h"

/* Person {name, address -> Address?, past: [Address], homes: [String: Address?], any: mixed}
 * Address (embedded) {street, city, geo -> Geo?}; Geo (embedded) {lat DOUBLE}. */
typedef struct model {
    lar_class person, address, geo;
    uint32_t name, address_p, past, homes, any;
    uint32_t street, city, geo_p, lat;
} model;

static model model_setup(lar_env *env)
{
    lar_property_def person[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        {"address", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address", NULL},
        {"past", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Address", NULL},
        {"homes", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Address", NULL},
        PROP("any", LAR_TYPE_MIXED, 0),
    };
    lar_property_def address[] = {
        PROP("street", LAR_TYPE_STRING, LAR_PROP_OPTIONAL),
        PROP("city", LAR_TYPE_STRING, LAR_PROP_OPTIONAL),
        {"geo", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Geo", NULL},
    };
    lar_property_def geo[] = {PROP("lat", LAR_TYPE_DOUBLE, 0)};
    lar_class_def defs[] = {CLASS_DEF("Person", person),
                            {"Address", address, COUNT_OF(address), LAR_CLASS_EMBEDDED},
                            {"Geo", geo, COUNT_OF(geo), LAR_CLASS_EMBEDDED}};
    CHECK_OK(lar_schema_apply(env, defs, 3, 1));
    model m;
    m.person = class_id(env, "Person");
    m.address = class_id(env, "Address");
    m.geo = class_id(env, "Geo");
    m.name = prop_id(env, m.person, "name");
    m.address_p = prop_id(env, m.person, "address");
    m.past = prop_id(env, m.person, "past");
    m.homes = prop_id(env, m.person, "homes");
    m.any = prop_id(env, m.person, "any");
    m.street = prop_id(env, m.address, "street");
    m.city = prop_id(env, m.address, "city");
    m.geo_p = prop_id(env, m.address, "geo");
    m.lat = prop_id(env, m.geo, "lat");
    return m;
}

static lar_obj person(lar_txn *txn, const model *m, const char *name)
{
    lar_value values[5];
    for (int i = 0; i < 5; i++) values[i] = val_null();
    values[m->name] = val_str(name);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, m->person, values, 5, &obj));
    return obj;
}

static lar_value link_value(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static void address_values(const model *m, lar_value out[3], const char *street, const char *city)
{
    out[m->street] = val_str(street);
    out[m->city] = val_str(city);
    out[m->geo_p] = val_null();
}

static lar_obj with_geo(lar_txn *txn, const model *m, lar_obj address, double lat)
{
    lar_value v = val_double(lat);
    lar_obj geo;
    CHECK_OK(lar_obj_create_embedded(txn, address, m->geo_p, &v, 1, &geo));
    return geo;
}

static lar_string key_of(const char *s)
{
    return (lar_string){s, strlen(s)};
}

/* ---- schema ---- */

TEST(embedded_schema_rules_are_checked)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def pk[] = {PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY)};
    lar_class_def def = {"E", pk, 1, LAR_CLASS_EMBEDDED};
    CHECK_RC(lar_schema_apply(env, &def, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("cannot have a primary key");
    lar_property_def indexed[] = {PROP("n", LAR_TYPE_INT, LAR_PROP_INDEXED)};
    def = (lar_class_def){"E", indexed, 1, LAR_CLASS_EMBEDDED};
    CHECK_RC(lar_schema_apply(env, &def, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("cannot have an indexed property");
    /* An embedded class links only to embedded classes. */
    lar_property_def top[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_property_def up[] = {{"owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Top", NULL}};
    lar_class_def two[] = {CLASS_DEF("Top", top), {"E", up, 1, LAR_CLASS_EMBEDDED}};
    CHECK_RC(lar_schema_apply(env, two, 2, 1), LAR_EINVAL);
    CHECK_MSG_HAS("may link only to embedded objects");
    /* No set of embedded objects. */
    lar_property_def set[] = {{"bag", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "E", NULL}};
    lar_property_def plain[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def with_set[] = {CLASS_DEF("Top", set), {"E", plain, 1, LAR_CLASS_EMBEDDED}};
    CHECK_RC(lar_schema_apply(env, with_set, 2, 1), LAR_EINVAL);
    CHECK_MSG_HAS("a set of embedded objects");
    CHECK_EQ(env_info(env).class_count, 0);
    close_env(env);
}

TEST(embedded_flag_is_stored_and_compared)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    close_env(env);
    env = open_env(path);
    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, m.address, &info));
    CHECK_EQ(info.flags, LAR_CLASS_EMBEDDED);
    CHECK_OK(lar_class_info_get(env, m.person, &info));
    CHECK_EQ(info.flags, 0);
    lar_property_def geo[] = {PROP("lat", LAR_TYPE_DOUBLE, 0)};
    lar_class_def top = CLASS_DEF("Geo", geo); /* no longer embedded: a schema change */
    CHECK_RC(lar_schema_apply(env, &top, 1, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("embedded flag");
    close_env(env);
}

/* ---- creating ---- */

TEST(embedded_objects_cannot_be_created_directly)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_RC(lar_obj_create(txn, m.address, NULL, 0, &obj), LAR_EINVAL);
    CHECK_MSG_HAS("Embedded objects cannot be created directly");
    CHECK_EQ(count_objects(txn, m.address), 0);
    /* The transaction stays usable. */
    lar_obj p = person(txn, &m, "Ann");
    lar_value values[3];
    address_values(&m, values, "1 Main St", "Springfield");
    lar_obj a;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, &a));
    commit_txn(txn);

    txn = begin_read(env);
    lar_value got = get_value(txn, p, m.address_p);
    CHECK_EQ(got.type, LAR_TYPE_LINK);
    CHECK_EQ(got.as.link.cls, m.address);
    CHECK_EQ(got.as.link.key, a.key);
    CHECK_VALUE(get_value(txn, a, m.street), val_str("1 Main St"));
    CHECK_VALUE(get_value(txn, a, m.city), val_str("Springfield"));
    /* The owner is the object's one backlink. */
    lar_obj owners[2];
    size_t n;
    CHECK_OK(lar_backlinks_list(txn, a, m.person, m.address_p, 0, owners, 2, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(owners[0].key, p.key);
    /* Creating in place needs a write transaction. */
    CHECK_RC(lar_obj_create_embedded(txn, p, m.address_p, NULL, 0, NULL), LAR_EMISUSE);
    commit_txn(txn);
    close_env(env);
}

TEST(embedded_create_checks_its_arguments_before_changing_anything)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    CHECK_RC(lar_obj_create_embedded(txn, p, m.name, NULL, 0, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("is not a to-one link of an embedded class");
    CHECK_RC(lar_obj_create_embedded(txn, p, m.past, NULL, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_insert_embedded(txn, p, m.past, 1, NULL, 0, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("out of range");
    CHECK_RC(lar_list_set_embedded(txn, p, m.past, 0, NULL, 0, NULL), LAR_EINVAL);
    lar_string bad = key_of("$x");
    CHECK_RC(lar_map_put_embedded(txn, p, m.homes, &bad, NULL, 0, NULL), LAR_EINVAL);
    lar_value wrong = val_int(3);
    CHECK_RC(lar_obj_create_embedded(txn, p, m.address_p, &wrong, 1, NULL), LAR_EINVAL);
    lar_obj gone = {m.person, 999};
    CHECK_RC(lar_obj_create_embedded(txn, gone, m.address_p, NULL, 0, NULL), LAR_EDELETED);
    CHECK_EQ(count_objects(txn, m.address), 0);
    CHECK_VALUE(get_value(txn, p, m.address_p), val_null());
    /* Not failed: it commits. */
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    close_env(env);
}

/* ---- the one-owner rule ---- */

TEST(an_existing_embedded_object_cannot_be_linked_again)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = person(txn, &m, "Ann"), bob = person(txn, &m, "Bob");
    lar_obj a;
    CHECK_OK(lar_obj_create_embedded(txn, ann, m.address_p, NULL, 0, &a));
    lar_value link = link_value(a);
    CHECK_RC(lar_obj_set(txn, bob, m.address_p, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Can't set link to existing managed embedded object");
    CHECK_RC(lar_list_append(txn, bob, m.past, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Cannot add an existing managed embedded object to a List.");
    lar_string k = key_of("home");
    CHECK_RC(lar_map_put(txn, bob, m.homes, &k, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Cannot add an existing managed embedded object to a Dictionary.");
    CHECK_RC(lar_obj_set(txn, bob, m.any, &link), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be stored in a mixed value");
    lar_value values[5] = {val_str("Cy"), link, val_null(), val_null(), val_null()};
    CHECK_RC(lar_obj_create(txn, m.person, values, 5, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("Can't set link to existing managed embedded object");
    /* Setting the link it already holds changes nothing. */
    CHECK_OK(lar_obj_set(txn, ann, m.address_p, &link));
    CHECK(obj_exists(txn, a));
    CHECK_EQ(count_objects(txn, m.address), 1);
    CHECK_VALUE(get_value(txn, bob, m.address_p), val_null());
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    close_env(env);
}

TEST(a_nested_list_or_dictionary_in_a_mixed_value_refuses_an_embedded_object)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = person(txn, &m, "Ann"), bob = person(txn, &m, "Bob");
    lar_obj a;
    CHECK_OK(lar_obj_create_embedded(txn, ann, m.address_p, NULL, 0, &a));
    lar_value link = link_value(a), one = val_int(1);
    lar_value new_list = {.type = LAR_TYPE_LIST}, new_dict = {.type = LAR_TYPE_DICTIONARY};
    CHECK_OK(lar_obj_set(txn, bob, m.any, &new_list));
    lar_coll list, dict;
    CHECK_OK(lar_coll_open(txn, bob, m.any, &list));
    CHECK_RC(lar_list_append_at(txn, &list, &link), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be stored in a mixed value");
    CHECK_RC(lar_list_insert_at(txn, &list, 0, &link), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be stored in a mixed value");
    CHECK_OK(lar_list_append_at(txn, &list, &one));
    CHECK_RC(lar_list_set_at(txn, &list, 0, &link), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be stored in a mixed value");
    CHECK_OK(lar_list_append_at(txn, &list, &new_dict));
    lar_value held;
    CHECK_OK(lar_list_get_at(txn, &list, 1, &held));
    CHECK_OK(lar_coll_child(&list, &held, &dict));
    lar_string k = key_of("home");
    CHECK_RC(lar_map_put_at(txn, &dict, &k, &link), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be stored in a mixed value");
    /* Nothing changed: the list holds 1 and the empty dictionary, Ann still owns a. */
    size_t n;
    CHECK_OK(lar_list_count_at(txn, &list, &n));
    CHECK_EQ(n, 2);
    CHECK_OK(lar_list_get_at(txn, &list, 0, &held));
    CHECK_VALUE(held, one);
    CHECK_OK(lar_map_count_at(txn, &dict, &n));
    CHECK_EQ(n, 0);
    CHECK_VALUE(get_value(txn, ann, m.address_p), link);
    CHECK_EQ(count_objects(txn, m.address), 1);
    uint64_t owners;
    CHECK_OK(lar_backlinks_count(txn, a, m.person, m.address_p, &owners));
    CHECK_EQ(owners, 1);
    CHECK_OK(lar_backlinks_count(txn, a, m.person, m.any, &owners));
    CHECK_EQ(owners, 0);
    commit_txn(txn);
    close_env(env);
}

/* ---- deleting what lost its owner ---- */

TEST(replacing_or_nulling_a_link_deletes_the_embedded_object_and_its_descendants)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_value values[3];
    address_values(&m, values, "old", "X");
    lar_obj old;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, &old));
    lar_obj old_geo = with_geo(txn, &m, old, 1.5);
    CHECK_EQ(count_objects(txn, m.geo), 1);
    address_values(&m, values, "new", "Y");
    lar_obj fresh;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, &fresh));
    CHECK(!obj_exists(txn, old));
    CHECK(!obj_exists(txn, old_geo));
    CHECK(obj_exists(txn, fresh));
    CHECK_EQ(count_objects(txn, m.address), 1);
    CHECK_EQ(count_objects(txn, m.geo), 0);
    CHECK_VALUE(get_value(txn, fresh, m.street), val_str("new"));
    /* Replacing the geo of the new address deletes the first geo. */
    lar_obj g1 = with_geo(txn, &m, fresh, 1), g2 = with_geo(txn, &m, fresh, 2);
    CHECK(!obj_exists(txn, g1));
    CHECK(obj_exists(txn, g2));
    commit_txn(txn);

    txn = begin_write(env);
    lar_value null = val_null();
    CHECK_OK(lar_obj_set(txn, p, m.address_p, &null));
    CHECK(!obj_exists(txn, fresh));
    CHECK(!obj_exists(txn, g2));
    commit_txn(txn);
    close_env(env);
    /* Only the key counters of the embedded classes remain of everything made since. */
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, m.address), 0);
    CHECK_EQ(count_objects(txn, m.geo), 0);
    commit_txn(txn);
    close_env(env);
    /* Of everything made since, only the key counters of Address and Geo remain. */
    CHECK_EQ(count_file_entries(path, NULL), before + 2);
}

TEST(list_of_embedded_objects_owns_its_elements)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    lar_value values[3];
    lar_obj e[4];
    const char *streets[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        address_values(&m, values, streets[i], "X");
        CHECK_OK(lar_list_insert_embedded(txn, p, m.past, (size_t)i, values, 3, &e[i]));
    }
    with_geo(txn, &m, e[1], 1);
    lar_obj first;
    address_values(&m, values, "z", "X");
    CHECK_OK(lar_list_insert_embedded(txn, p, m.past, 0, values, 3, &first)); /* z a b c d */
    size_t count;
    CHECK_OK(lar_list_count(txn, p, m.past, &count));
    CHECK_EQ(count, 5);
    lar_value got;
    CHECK_OK(lar_list_get(txn, p, m.past, 0, &got));
    CHECK_EQ(got.as.link.key, first.key);
    /* Moving and swapping keep them. */
    CHECK_OK(lar_list_move(txn, p, m.past, 0, 4)); /* a b c d z */
    CHECK_OK(lar_list_swap(txn, p, m.past, 0, 1)); /* b a c d z */
    CHECK_EQ(count_objects(txn, m.address), 5);
    /* Set in place: the element replaced goes, with its geo. */
    address_values(&m, values, "y", "X");
    lar_obj y;
    CHECK_OK(lar_list_set_embedded(txn, p, m.past, 0, values, 3, &y)); /* y a c d z */
    CHECK(!obj_exists(txn, e[1]));
    CHECK_EQ(count_objects(txn, m.geo), 0);
    /* Remove. */
    CHECK_OK(lar_list_remove(txn, p, m.past, 1)); /* y c d z */
    CHECK(!obj_exists(txn, e[0]));
    CHECK_EQ(count_objects(txn, m.address), 4);
    /* Set with a link: refused, even to its own element. */
    lar_value link = link_value(y);
    CHECK_RC(lar_list_set(txn, p, m.past, 1, &link), LAR_EINVAL);
    CHECK_MSG_HAS("to a List.");
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_list_clear(txn, p, m.past));
    CHECK_EQ(count_objects(txn, m.address), 0);
    address_values(&m, values, "w", "X");
    CHECK_OK(lar_list_insert_embedded(txn, p, m.past, 0, values, 3, NULL));
    lar_value null = val_null();
    CHECK_OK(lar_obj_set(txn, p, m.past, &null)); /* null empties the list */
    CHECK_EQ(count_objects(txn, m.address), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
}

TEST(collection_handles_on_embedded_lists_and_maps_delete_what_they_remove)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    lar_value values[3];
    lar_obj e[4];
    const char *streets[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        address_values(&m, values, streets[i], "X");
        CHECK_OK(lar_list_insert_embedded(txn, p, m.past, (size_t)i, values, 3, &e[i]));
    }
    with_geo(txn, &m, e[1], 1);
    lar_coll list;
    CHECK_OK(lar_coll_open(txn, p, m.past, &list)); /* the property's own list, through a handle */
    /* An existing embedded object is refused as through the plain functions. */
    lar_value link = link_value(e[0]), null = val_null();
    CHECK_RC(lar_list_append_at(txn, &list, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Cannot add an existing managed embedded object to a List.");
    CHECK_RC(lar_list_set_at(txn, &list, 2, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Cannot add an existing managed embedded object to a List.");
    CHECK_OK(lar_list_move_at(txn, &list, 0, 3)); /* b c d a: kept */
    CHECK_EQ(count_objects(txn, m.address), 4);
    CHECK_OK(lar_list_remove_at(txn, &list, 0)); /* c d a: b goes, with its geo */
    CHECK(!obj_exists(txn, e[1]));
    CHECK_EQ(count_objects(txn, m.geo), 0);
    CHECK_EQ(count_objects(txn, m.address), 3);
    CHECK_OK(lar_list_clear_at(txn, &list));
    CHECK_EQ(count_objects(txn, m.address), 0);

    lar_string home = key_of("home"), work = key_of("work");
    lar_obj h, w;
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &home, NULL, 0, &h));
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &work, NULL, 0, &w));
    lar_coll map;
    CHECK_OK(lar_coll_open(txn, p, m.homes, &map));
    link = link_value(h);
    CHECK_RC(lar_map_put_at(txn, &map, &work, &link), LAR_EINVAL);
    CHECK_MSG_HAS("Cannot add an existing managed embedded object to a Dictionary.");
    CHECK(obj_exists(txn, w));
    CHECK_OK(lar_map_put_at(txn, &map, &home, &null)); /* replaced by null: deleted */
    CHECK(!obj_exists(txn, h));
    int removed;
    CHECK_OK(lar_map_remove_at(txn, &map, &work, &removed));
    CHECK_EQ(removed, 1);
    CHECK(!obj_exists(txn, w));
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &work, NULL, 0, &w));
    CHECK_OK(lar_map_clear_at(txn, &map));
    CHECK(!obj_exists(txn, w));
    CHECK_EQ(count_objects(txn, m.address), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}

TEST(map_of_embedded_objects_owns_its_values)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    lar_value values[3];
    lar_string home = key_of("home"), work = key_of("work");
    lar_obj h1, h2, w;
    address_values(&m, values, "h1", "X");
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &home, values, 3, &h1));
    with_geo(txn, &m, h1, 3);
    address_values(&m, values, "h2", "X");
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &home, values, 3, &h2));
    CHECK(!obj_exists(txn, h1));
    CHECK_EQ(count_objects(txn, m.geo), 0);
    address_values(&m, values, "w", "X");
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &work, values, 3, &w));
    lar_value got;
    CHECK_OK(lar_map_get(txn, p, m.homes, &home, &got));
    CHECK_EQ(got.as.link.key, h2.key);
    /* A null value replaces it. */
    lar_value null = val_null();
    CHECK_OK(lar_map_put(txn, p, m.homes, &home, &null));
    CHECK(!obj_exists(txn, h2));
    CHECK_OK(lar_map_get(txn, p, m.homes, &home, &got));
    CHECK_EQ(got.type, LAR_TYPE_NULL);
    int removed;
    CHECK_OK(lar_map_remove(txn, p, m.homes, &work, &removed));
    CHECK_EQ(removed, 1);
    CHECK(!obj_exists(txn, w));
    CHECK_OK(lar_map_put_embedded(txn, p, m.homes, &work, NULL, 0, &w));
    CHECK_OK(lar_map_clear(txn, p, m.homes));
    CHECK(!obj_exists(txn, w));
    CHECK_EQ(count_objects(txn, m.address), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}

static lar_obj fill_person(lar_txn *txn, const model *m, const char *name)
{
    lar_obj p = person(txn, m, name);
    lar_value values[3];
    address_values(m, values, "s", "c");
    lar_obj a, l, h;
    CHECK_OK(lar_obj_create_embedded(txn, p, m->address_p, values, 3, &a));
    with_geo(txn, m, a, 1);
    CHECK_OK(lar_list_insert_embedded(txn, p, m->past, 0, values, 3, &l));
    with_geo(txn, m, l, 2);
    lar_string k = key_of("k");
    CHECK_OK(lar_map_put_embedded(txn, p, m->homes, &k, values, 3, &h));
    with_geo(txn, m, h, 3);
    return p;
}

TEST(deleting_the_owner_deletes_every_embedded_descendant)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = fill_person(txn, &m, "keep"); /* counters and tables exist before counting */
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj p = fill_person(txn, &m, "Ann");
    CHECK_EQ(count_objects(txn, m.address), 6);
    CHECK_EQ(count_objects(txn, m.geo), 6);
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, p));
    CHECK_EQ(count_objects(txn, m.address), 3);
    CHECK_EQ(count_objects(txn, m.geo), 3);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, NULL), before);

    env = open_env(path);
    txn = begin_write(env);
    CHECK(obj_exists(txn, keep));
    CHECK_OK(lar_objects_delete_all(txn, m.person));
    CHECK_EQ(count_objects(txn, m.address), 0);
    CHECK_EQ(count_objects(txn, m.geo), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}

/* Owner of a (the one link that holds it), or {0, 0} with count 0 when none does. */
static lar_obj owner_of(lar_txn *txn, const model *m, lar_obj a, uint32_t prop, uint64_t *count)
{
    CHECK_OK(lar_backlinks_count(txn, a, m->person, prop, count));
    lar_obj owners[2] = {{0, 0}, {0, 0}};
    size_t n = 0;
    int rc = lar_backlinks_list(txn, a, m->person, prop, 0, owners, 2, &n);
    CHECK(rc == LAR_OK || rc == LAR_ENOTFOUND);
    CHECK_EQ(n, *count);
    return owners[0];
}

/* Format 3: an embedded object's owner is recorded in its row, not in the backlink table,
 * and every rewrite of the row keeps it. */
TEST(an_embedded_objects_owner_lives_in_its_row)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann"), q = person(txn, &m, "Bob");
    lar_value values[3];
    address_values(&m, values, "s", "c");
    lar_obj a, l0, l1, h;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, &a));
    CHECK_OK(lar_list_insert_embedded(txn, p, m.past, 0, values, 3, &l0));
    CHECK_OK(lar_list_insert_embedded(txn, p, m.past, 1, values, 3, &l1));
    lar_string k = key_of("k");
    CHECK_OK(lar_map_put_embedded(txn, q, m.homes, &k, values, 3, &h));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);

    env = open_env(path);
    txn = begin_write(env);
    uint64_t count;
    CHECK_EQ(owner_of(txn, &m, a, m.address_p, &count).key, p.key);
    CHECK_EQ(count, 1);
    CHECK_EQ(owner_of(txn, &m, a, m.past, &count).key, 0); /* another property: not its owner */
    CHECK_EQ(owner_of(txn, &m, l1, m.past, &count).key, p.key);
    CHECK_EQ(owner_of(txn, &m, h, m.homes, &count).key, q.key);
    /* A string rewritten (the row encoded again), a link patched, a list element moved. */
    lar_value street = val_str("a much longer street than before");
    CHECK_OK(lar_obj_set(txn, a, m.street, &street));
    lar_obj g = with_geo(txn, &m, a, 1);
    CHECK_OK(lar_list_move(txn, p, m.past, 0, 1));
    CHECK_EQ(owner_of(txn, &m, a, m.address_p, &count).key, p.key);
    CHECK_EQ(owner_of(txn, &m, l0, m.past, &count).key, p.key);
    CHECK_EQ(count, 1);
    CHECK_OK(lar_backlinks_count(txn, g, m.address, m.geo_p, &count));
    CHECK_EQ(count, 1);
    CHECK_VALUE(get_value(txn, a, m.street), street);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);

    /* The owners still own them: deleting them deletes their embedded objects. */
    env = open_env(path);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, p));
    CHECK(!obj_exists(txn, a) && !obj_exists(txn, g) && !obj_exists(txn, l0) && !obj_exists(txn, l1));
    CHECK(obj_exists(txn, h));
    CHECK_OK(lar_obj_delete(txn, h)); /* directly: the map's value becomes null, as Realm's */
    lar_value held;
    CHECK_OK(lar_map_get(txn, q, m.homes, &k, &held));
    CHECK_EQ(held.type, LAR_TYPE_NULL);
    commit_txn(txn);
    close_env(env);
}

TEST(deleting_an_embedded_object_directly_unlinks_it)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    lar_obj a, l;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, NULL, 0, &a));
    lar_obj g = with_geo(txn, &m, a, 1);
    CHECK_OK(lar_list_insert_embedded(txn, p, m.past, 0, NULL, 0, &l));
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_VALUE(get_value(txn, p, m.address_p), val_null());
    CHECK(!obj_exists(txn, g));
    CHECK_OK(lar_obj_delete(txn, l));
    size_t count;
    CHECK_OK(lar_list_count(txn, p, m.past, &count));
    CHECK_EQ(count, 0);
    CHECK_EQ(count_objects(txn, m.address), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(embedded_objects_persist_and_an_abort_forgets_them)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = person(txn, &m, "Ann");
    lar_value values[3];
    address_values(&m, values, "kept", "X");
    lar_obj a;
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, &a));
    commit_txn(txn);

    txn = begin_write(env);
    address_values(&m, values, "dropped", "X");
    CHECK_OK(lar_obj_create_embedded(txn, p, m.address_p, values, 3, NULL));
    CHECK(!obj_exists(txn, a));
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    close_env(env);

    env = open_env(path);
    txn = begin_read(env);
    lar_value link = get_value(txn, p, m.address_p);
    CHECK_EQ(link.type, LAR_TYPE_LINK);
    CHECK_VALUE(get_value(txn, link.as.link, m.street), val_str("kept"));
    CHECK_EQ(count_objects(txn, m.address), 1);
    commit_txn(txn);
    close_env(env);
}

/* An embedded change that fails_each_change runs: which 0 creates an address in place,
 * 1 puts one in a map, 2 deletes the person. */
typedef struct embedded_change {
    const model *m;
    lar_obj person;
    int which;
} embedded_change;

static int change_embedded(lar_txn *txn, void *context)
{
    const embedded_change *c = context;
    lar_value values[3];
    address_values(c->m, values, "new", "Y");
    lar_string k = key_of("k");
    return c->which == 0   ? lar_obj_create_embedded(txn, c->person, c->m->address_p, values, 3, NULL)
           : c->which == 1 ? lar_map_put_embedded(txn, c->person, c->m->homes, &k, values, 3, NULL)
                           : lar_obj_delete(txn, c->person);
}

/* The file keeps one address (with its geo) per person. */
static void check_embedded_unchanged(lar_txn *txn, void *context)
{
    const embedded_change *c = context;
    CHECK_EQ(count_objects(txn, c->m->address), 3);
    CHECK_EQ(count_objects(txn, c->m->geo), 3);
    lar_value a = get_value(txn, c->person, c->m->address_p);
    CHECK_EQ(a.type, LAR_TYPE_LINK);
    CHECK_VALUE(get_value(txn, a.as.link, c->m->street), val_str("s"));
}

/* A write that fails at any of its LMDB changes, in the middle of creating an embedded
 * object in place or of deleting the ones that lost their owner, fails the transaction:
 * nothing of it is committed. */
TEST(a_failure_midway_through_an_embedded_change_fails_the_write)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj p = fill_person(txn, &m, "Ann");
    commit_txn(txn);
    for (int which = 0; which < 3; which++) {
        embedded_change change = {&m, p, which};
        /* a row, a link, a backlink and a sweep: several changes */
        CHECK(fail_each_change(env, change_embedded, check_embedded_unchanged, &change) > 2);
    }
    close_env(env);
}

/* ---- an owner created with its embedded objects (lar_obj_create_with_embedded) ---- */

/* Trip {id INT primary key, from -> Stop?, to -> Stop?, note STRING};
 * Stop (embedded) {city STRING?, geo -> Spot?}; Spot (embedded) {lat DOUBLE}. */
typedef struct trip_model {
    lar_class trip, stop, spot;
    uint32_t id, from, to, note, city, geo, lat;
} trip_model;

static trip_model trip_setup(lar_env *env)
{
    lar_property_def trip[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        {"from", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Stop", NULL},
        {"to", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Stop", NULL},
        PROP("note", LAR_TYPE_STRING, 0),
    };
    lar_property_def stop[] = {
        PROP("city", LAR_TYPE_STRING, LAR_PROP_OPTIONAL),
        {"geo", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Spot", NULL},
    };
    lar_property_def spot[] = {PROP("lat", LAR_TYPE_DOUBLE, 0)};
    lar_class_def defs[] = {CLASS_DEF("Trip", trip), {"Stop", stop, COUNT_OF(stop), LAR_CLASS_EMBEDDED},
                            {"Spot", spot, COUNT_OF(spot), LAR_CLASS_EMBEDDED}};
    CHECK_OK(lar_schema_apply(env, defs, 3, 1));
    trip_model m;
    m.trip = class_id(env, "Trip");
    m.stop = class_id(env, "Stop");
    m.spot = class_id(env, "Spot");
    m.id = prop_id(env, m.trip, "id");
    m.from = prop_id(env, m.trip, "from");
    m.to = prop_id(env, m.trip, "to");
    m.note = prop_id(env, m.trip, "note");
    m.city = prop_id(env, m.stop, "city");
    m.geo = prop_id(env, m.stop, "geo");
    m.lat = prop_id(env, m.spot, "lat");
    return m;
}

typedef struct trip_values {
    lar_value trip[4], from[2], to[2];
    lar_embedded_init inits[2];
} trip_values;

/* Trip id from city a to city b, both stops created with it. */
static void trip_of(const trip_model *m, trip_values *v, int64_t id, const char *a, const char *b)
{
    for (int i = 0; i < 4; i++) v->trip[i] = val_null();
    v->trip[m->id] = val_int(id);
    v->trip[m->note] = val_str("note");
    v->from[m->city] = val_str(a);
    v->from[m->geo] = val_null();
    v->to[m->city] = val_str(b);
    v->to[m->geo] = val_null();
    v->inits[0] = (lar_embedded_init){m->from, v->from, 2};
    v->inits[1] = (lar_embedded_init){m->to, v->to, 2};
}

static void check_stop(lar_txn *txn, const trip_model *m, lar_obj trip, uint32_t prop, const char *city)
{
    lar_value link = get_value(txn, trip, prop);
    CHECK_EQ(link.type, LAR_TYPE_LINK);
    CHECK_EQ(link.as.link.cls, m->stop);
    CHECK_VALUE(get_value(txn, link.as.link, m->city), val_str(city));
    lar_obj owners[2];
    size_t n;
    CHECK_OK(lar_backlinks_list(txn, link.as.link, m->trip, prop, 0, owners, 2, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(owners[0].key, trip.key);
}

TEST(an_owner_is_created_with_its_embedded_objects_in_one_call)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    trip_model m = trip_setup(env);
    lar_txn *txn = begin_write(env);
    trip_values v;
    trip_of(&m, &v, 1, "Oslo", "Rome");
    lar_obj first, stops[2];
    CHECK_OK(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, &first, stops));
    CHECK_EQ(stops[0].cls, m.stop);
    CHECK(stops[0].key != stops[1].key);
    /* Stops made the other ways in between: the next call's keys follow theirs. */
    lar_value spot = val_double(59.9);
    CHECK_OK(lar_obj_create_embedded(txn, stops[0], m.geo, &spot, 1, NULL));
    trip_of(&m, &v, 2, "Lima", "Quito");
    lar_obj second;
    CHECK_OK(lar_obj_create(txn, m.trip, v.trip, 4, &second));
    CHECK_OK(lar_obj_create_embedded(txn, second, m.from, v.from, 2, NULL));
    trip_of(&m, &v, 3, "Bern", "Graz");
    lar_obj third;
    CHECK_OK(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, &v.inits[1], 1, &third, NULL));
    CHECK_EQ(count_objects(txn, m.stop), 4);
    check_stop(txn, &m, first, m.from, "Oslo");
    check_stop(txn, &m, first, m.to, "Rome");
    check_stop(txn, &m, second, m.from, "Lima");
    check_stop(txn, &m, third, m.to, "Graz");
    CHECK_VALUE(get_value(txn, third, m.from), val_null());
    CHECK_VALUE(get_value(txn, third, m.note), val_str("note"));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0); /* owners live in the stops' rows */

    env = open_env(path);
    txn = begin_write(env);
    check_stop(txn, &m, first, m.to, "Rome");
    lar_obj found;
    lar_value id = val_int(3);
    CHECK_OK(lar_obj_find(txn, m.trip, &id, &found));
    CHECK_EQ(found.key, third.key);
    /* They are owned as any embedded object: replaced, and deleted with their owner. */
    CHECK_OK(lar_obj_create_embedded(txn, third, m.to, NULL, 0, NULL));
    CHECK_EQ(count_objects(txn, m.stop), 4);
    CHECK_OK(lar_obj_delete(txn, first));
    CHECK_EQ(count_objects(txn, m.stop), 2);
    CHECK_EQ(count_objects(txn, m.spot), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(create_with_embedded_checks_everything_before_writing)
{
    lar_env *env = open_env(test_db_path(NULL));
    trip_model m = trip_setup(env);
    lar_txn *txn = begin_write(env);
    trip_values v;
    trip_of(&m, &v, 1, "Oslo", "Rome");
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, NULL, 1, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("embedded is NULL");
    CHECK_RC(lar_obj_create_with_embedded(txn, m.stop, v.from, 2, NULL, 0, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("Embedded objects cannot be created directly");
    lar_embedded_init twice[2] = {v.inits[0], v.inits[0]};
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, twice, 2, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("'Trip.from' is named twice");
    lar_embedded_init note = {m.note, NULL, 0};
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, &note, 1, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("is not a to-one link of an embedded class");
    lar_embedded_init beyond = {9, NULL, 0};
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, &beyond, 1, NULL, NULL), LAR_EINVAL);
    lar_embedded_init many[5] = {v.inits[0], v.inits[1], v.inits[0], v.inits[1], v.inits[0]};
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, many, 5, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("5 embedded objects for class 'Trip' of 4 properties");
    /* An embedded object's bad value (the last one checked) or count. */
    v.to[m.city] = val_int(7);
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, NULL, NULL), LAR_ETYPE);
    v.inits[1].value_count = 1;
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, NULL, NULL), LAR_EINVAL);
    /* A link in the owner's row to an existing embedded object. */
    trip_of(&m, &v, 1, "Oslo", "Rome");
    lar_obj stop;
    CHECK_OK(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 1, NULL, &stop));
    trip_of(&m, &v, 2, "Oslo", "Rome");
    v.trip[m.from] = link_value(stop);
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 1, NULL, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("Can't set link to existing managed embedded object");
    /* A taken primary key. */
    trip_of(&m, &v, 1, "Oslo", "Rome");
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, NULL, NULL), LAR_EEXISTS);
    CHECK_EQ(count_objects(txn, m.trip), 1);
    CHECK_EQ(count_objects(txn, m.stop), 1);
    /* Not failed: it commits, and the keys it would have taken are still free. */
    trip_of(&m, &v, 2, "Lima", "Quito");
    lar_obj trip;
    CHECK_OK(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, &trip, NULL));
    check_stop(txn, &m, trip, m.to, "Quito");
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    txn = begin_read(env);
    CHECK_RC(lar_obj_create_with_embedded(txn, m.trip, v.trip, 4, v.inits, 2, NULL, NULL), LAR_EMISUSE);
    commit_txn(txn);
    close_env(env);
}

static int create_trip(lar_txn *txn, void *context)
{
    const trip_model *m = context;
    trip_values v;
    trip_of(m, &v, 1, "Oslo", "Rome");
    return lar_obj_create_with_embedded(txn, m->trip, v.trip, 4, v.inits, 2, NULL, NULL);
}

static void check_no_trip(lar_txn *txn, void *context)
{
    const trip_model *m = context;
    CHECK_EQ(count_objects(txn, m->trip), 0);
    CHECK_EQ(count_objects(txn, m->stop), 0);
}

/* A failure at any LMDB change of the call fails the write, which commits nothing. */
TEST(a_failure_midway_through_create_with_embedded_fails_the_write)
{
    lar_env *env = open_env(test_db_path(NULL));
    trip_model m = trip_setup(env);
    CHECK(fail_each_change(env, create_trip, check_no_trip, &m) >= 3); /* the owner's row and each stop's */
    close_env(env);
}

/* ---- reading through the owner ---- */

/* Checks the street and key a followed step gave, for an owner whose address is street
 * (NULL: none, and the values stay as the step before left them). */
static void check_followed(lar_iter *iter, const model *m, lar_value address[3], const lar_objkey *key,
                           const char *street, const char *before)
{
    lar_value values[5];
    lar_obj obj;
    CHECK_OK(lar_iter_next_all(iter, &obj, values, 5));
    CHECK_EQ(*key == 0, street == NULL);
    lar_value expected = val_str(street ? street : before);
    CHECK_VALUE(address[m->street], expected);
}

TEST(iter_follow_reads_each_owners_embedded_object)
{
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owners[4];
    const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) owners[i] = person(txn, &m, names[i]);
    lar_value values[3];
    lar_obj made[4];
    const char *streets[] = {"s0", NULL, "s2", "s3"};
    for (int i = 3; i >= 0; i--) { /* created in reverse: each follow seeks */
        if (!streets[i]) continue;
        address_values(&m, values, streets[i], "c");
        CHECK_OK(lar_obj_create_embedded(txn, owners[i], m.address_p, values, 3, &made[i]));
    }
    /* In the write, with the strings it copies. */
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, m.person, &iter));
    lar_value address[3];
    lar_objkey key = 99;
    CHECK_OK(lar_iter_follow(iter, m.address_p, address, 3, &key));
    check_followed(iter, &m, address, &key, "s0", NULL);
    CHECK_EQ(key, made[0].key);
    check_followed(iter, &m, address, &key, NULL, "s0");
    check_followed(iter, &m, address, &key, "s2", NULL);
    check_followed(iter, &m, address, &key, "s3", NULL);
    CHECK_EQ(key, made[3].key);
    lar_iter_close(iter);
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_OK(lar_iter_open(txn, m.person, &iter));
    CHECK_OK(lar_iter_follow(iter, m.address_p, address, 3, &key));
    check_followed(iter, &m, address, &key, "s0", NULL);
    CHECK_OK(lar_iter_follow(iter, 0, NULL, 0, NULL)); /* stops following */
    key = 7;
    lar_obj obj;
    lar_value person_values[5];
    CHECK_OK(lar_iter_next_all(iter, &obj, person_values, 5));
    CHECK_EQ(key, 7);

    /* Bad arguments change nothing. */
    CHECK_RC(lar_iter_follow(NULL, m.address_p, address, 3, &key), LAR_EINVAL);
    CHECK_RC(lar_iter_follow(iter, m.address_p, address, 3, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_follow(iter, 99, address, 3, &key), LAR_EINVAL);
    CHECK_MSG_HAS("has no property 99");
    CHECK_RC(lar_iter_follow(iter, m.name, address, 3, &key), LAR_EINVAL);
    CHECK_MSG_HAS("not a to-one link to an embedded class");
    CHECK_RC(lar_iter_follow(iter, m.past, address, 3, &key), LAR_EINVAL);
    CHECK_RC(lar_iter_follow(iter, m.address_p, address, 2, &key), LAR_EINVAL);
    CHECK_MSG_HAS("has 3 properties, not 2");
    CHECK_OK(lar_iter_next_all(iter, &obj, person_values, 5));
    CHECK_EQ(key, 7);
    lar_txn_abort(txn);
    CHECK_RC(lar_iter_follow(iter, m.address_p, address, 3, &key), LAR_EMISUSE);
    lar_iter_close(iter);
    lar_txn_free(txn);
    close_env(env);
}

/* A read's followed rows come from the embedded table's kept cursor, which walks its
 * leaf pages in place (in order: one step each; out of order, past a gap, behind the
 * walk: sought). Owners 0-399
 * got their addresses in order, 400-599 none, 600-799 in reverse, 800-999 in order;
 * 100-129 lost theirs (a gap longer than the walk steps over) and 50 got a new one (last
 * in the table: the walk seeks on to it, then back). Enough rows for many leaf pages. */
TEST(iter_follow_in_a_read_finds_each_address_in_and_out_of_order)
{
    enum { OWNERS = 1000 };
    lar_env *env = open_env(test_db_path(NULL));
    model m = model_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owners[OWNERS];
    char streets[OWNERS][32];
    for (int i = 0; i < OWNERS; i++) {
        owners[i] = person(txn, &m, "p");
        snprintf(streets[i], sizeof streets[i], "%d Main Street", i);
    }
    lar_value values[3];
    lar_obj made;
    for (int n = 0; n < OWNERS; n++) {
        int i = n >= 600 && n < 800 ? 1399 - n : n; /* 600-799 in reverse */
        if (i >= 400 && i < 600) continue;
        address_values(&m, values, streets[i], "c");
        CHECK_OK(lar_obj_create_embedded(txn, owners[i], m.address_p, values, 3, &made));
    }
    lar_value null = val_null();
    for (int i = 100; i < 130; i++) CHECK_OK(lar_obj_set(txn, owners[i], m.address_p, &null));
    snprintf(streets[50], sizeof streets[50], "50 New Street");
    address_values(&m, values, streets[50], "c");
    CHECK_OK(lar_obj_create_embedded(txn, owners[50], m.address_p, values, 3, &made));
    commit_txn(txn);

    txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, m.person, &iter));
    lar_value address[3], person_values[5];
    lar_objkey key = 0;
    CHECK_OK(lar_iter_follow(iter, m.address_p, address, 3, &key));
    int checked = 0;
    for (int i = 0; i < OWNERS; i++) {
        lar_obj obj;
        CHECK_OK(lar_iter_next_all(iter, &obj, person_values, 5));
        CHECK_EQ(obj.key, owners[i].key);
        bool has = !(i >= 400 && i < 600) && !(i >= 100 && i < 130);
        CHECK_EQ(key != 0, has);
        if (!has) continue;
        CHECK_EQ(key, person_values[m.address_p].as.link.key);
        lar_value expected = val_str(streets[i]);
        CHECK_VALUE(address[m.street], expected);
        checked++;
    }
    CHECK_EQ(checked, OWNERS - 200 - 30);
    lar_obj obj;
    CHECK_EQ(lar_iter_next_all(iter, &obj, person_values, 5), LAR_ENOTFOUND);
    lar_iter_close(iter);
    lar_txn_abort(txn);
    lar_txn_free(txn);
    close_env(env);
}
