/* The query evaluator and results: every operator on every scalar type, strings with
 * [c] and [d], key paths through links and embedded objects, collections, maps, mixed
 * values, backlinks, subqueries, index probes (the same answers with and without the
 * index), the result handle and its versions, and every error class. */
#include "test.h"

#include <stdlib.h>

#define COLL(name, type, coll, flags, target) \
    ((lar_property_def){(name), (type), (coll), (flags), (target), NULL})

typedef struct world {
    lar_env *env;
    lar_class dog, person, address;
    lar_obj dogs[6], people[3];
} world;

/* Address (embedded) <- Person -> dogs (list of Dog) <- Dog.owner. Six dogs:
 *   0 Rex     age 3  weight 10.5  owner Alice   tags {a, b}  scores {1, 2}  attrs {color: brown}
 *   1 rex     age 5  weight nil   owner Bob     tags {}      scores {}      attrs {}
 *   2 Réx     age 7  weight 3.25  owner nil     tags {b}     scores {3}     attrs {color: black, size: big}
 *   3 Fido    age 1  weight 20    owner Alice   tags {a}     scores {2, 5}
 *   4 Éclair  age 12 weight 7     owner Carol
 *   5 ""      age -4 weight -1    owner nil */
static world setup_world(void)
{
    world w;
    w.env = open_env(test_db_path(NULL));
    query_test_schema(w.env, LAR_CLASS_EMBEDDED);
    w.dog = class_id(w.env, "Dog");
    w.person = class_id(w.env, "Person");
    w.address = class_id(w.env, "Address");

    lar_txn *txn = begin_write(w.env);
    const char *names[] = {"Alice", "Bob", "Carol"};
    const char *cities[] = {"London", "Paris", NULL};
    for (int i = 0; i < 3; i++) {
        lar_value pv[] = {val_str(names[i]), val_null(), val_null()};
        CHECK_OK(lar_obj_create(txn, w.person, pv, 3, &w.people[i]));
        if (cities[i]) {
            lar_value av[] = {val_str(cities[i])};
            CHECK_OK(lar_obj_create_embedded(txn, w.people[i], 2, av, 1, NULL));
        }
    }
    const char *dog_names[] = {"Rex", "rex", "R\xc3\xa9x", "Fido", "\xc3\x89" "clair", ""};
    int64_t ages[] = {3, 5, 7, 1, 12, -4};
    double weights[] = {10.5, -99, 3.25, 20, 7, -1};
    int owners[] = {0, 1, -1, 0, 2, -1};
    for (int i = 0; i < 6; i++) {
        uint8_t oid[12] = {0}, uid[16] = {0};
        oid[11] = (uint8_t)i;
        uid[15] = (uint8_t)(10 - i);
        lar_value extra = i == 0 ? val_int(3) : i == 1 ? val_double(3.0) : i == 2 ? val_str("3") : i == 3 ? val_bool(1) : val_null();
        lar_value v[] = {
            val_str(dog_names[i]), val_int(ages[i]), i == 1 ? val_null() : val_double(weights[i]),
            val_float((float)i / 2), val_bool(i % 2), i == 5 ? val_null() : val_ts(1000 * i, 5),
            val_oid(oid), val_uuid(uid), val_dec((uint64_t)(i * 10), 0x3040000000000000ull),
            val_bin(dog_names[i], strlen(dog_names[i])), extra,
            owners[i] < 0 ? val_null() : (lar_value){.type = LAR_TYPE_LINK, .as.link = w.people[owners[i]]},
            val_null(), val_null(), val_null(), val_null(), val_null(),
        };
        CHECK_OK(lar_obj_create(txn, w.dog, v, COUNT_OF(v), &w.dogs[i]));
    }
    uint32_t tags = prop_id(w.env, w.dog, "tags"), scores = prop_id(w.env, w.dog, "scores"),
             attrs = prop_id(w.env, w.dog, "attrs"), friends = prop_id(w.env, w.dog, "friends"),
             dogs = prop_id(w.env, w.person, "dogs");
    lar_value a = val_str("a"), b = val_str("b");
    CHECK_OK(lar_list_append(txn, w.dogs[0], tags, &a));
    CHECK_OK(lar_list_append(txn, w.dogs[0], tags, &b));
    CHECK_OK(lar_list_append(txn, w.dogs[2], tags, &b));
    CHECK_OK(lar_list_append(txn, w.dogs[3], tags, &a));
    int64_t set_items[][3] = {{1, 2, 0}, {0}, {3, 0}, {2, 5, 0}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; set_items[i][j]; j++) {
            lar_value x = val_int(set_items[i][j]);
            CHECK_OK(lar_set_insert(txn, w.dogs[i], scores, &x, NULL));
        }
    lar_string color = {"color", 5}, size = {"size", 4};
    lar_value brown = val_str("brown"), black = val_str("black"), big = val_str("big");
    CHECK_OK(lar_map_put(txn, w.dogs[0], attrs, &color, &brown));
    CHECK_OK(lar_map_put(txn, w.dogs[2], attrs, &color, &black));
    CHECK_OK(lar_map_put(txn, w.dogs[2], attrs, &size, &big));
    lar_value f1 = {.type = LAR_TYPE_LINK, .as.link = w.dogs[1]}, f4 = {.type = LAR_TYPE_LINK, .as.link = w.dogs[4]};
    CHECK_OK(lar_list_append(txn, w.dogs[0], friends, &f1));
    CHECK_OK(lar_list_append(txn, w.dogs[0], friends, &f4));
    CHECK_OK(lar_list_append(txn, w.dogs[3], friends, &f1));
    int person_dogs[][3] = {{0, 3, -1}, {1, -1}, {4, 0, -1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; person_dogs[i][j] >= 0; j++) {
            lar_value d = {.type = LAR_TYPE_LINK, .as.link = w.dogs[person_dogs[i][j]]};
            CHECK_OK(lar_list_append(txn, w.people[i], dogs, &d));
        }
    /* Dog 4's extra: a nested dictionary {k: 5, inner: {z: "deep"}}. */
    uint32_t extra = prop_id(w.env, w.dog, "extra");
    lar_value dict = {.type = LAR_TYPE_DICTIONARY};
    CHECK_OK(lar_obj_set(txn, w.dogs[4], extra, &dict));
    lar_coll top, inner;
    CHECK_OK(lar_coll_open(txn, w.dogs[4], extra, &top));
    lar_string k = {"k", 1}, inner_key = {"inner", 5}, z = {"z", 1};
    lar_value five = val_int(5), deep = val_str("deep"), read;
    CHECK_OK(lar_map_put_at(txn, &top, &k, &five));
    CHECK_OK(lar_map_put_at(txn, &top, &inner_key, &dict));
    CHECK_OK(lar_map_get_at(txn, &top, &inner_key, &read));
    CHECK_OK(lar_coll_child(&top, &read, &inner));
    CHECK_OK(lar_map_put_at(txn, &inner, &z, &deep));
    commit_txn(txn);
    return w;
}

/* Runs text (arguments: args) on cls and returns the matching objects as a bit set of
 * their positions in objs. */
static unsigned run_args(lar_env *env, lar_class cls, const lar_obj *objs, size_t n, const char *text,
                         const lar_query_arg *args, size_t arg_count, int line)
{
    lar_query *q = NULL;
    if (lar_query_parse(env, cls, text, &q) != LAR_OK)
        test_fail(__FILE__, line, "parse of %s failed: %s", text, lar_error_last()->message);
    if (arg_count && lar_query_bind(q, args, arg_count) != LAR_OK)
        test_fail(__FILE__, line, "bind for %s failed: %s", text, lar_error_last()->message);
    lar_txn *txn = begin_read(env);
    lar_results *r = NULL;
    if (lar_query_run(txn, q, &r) != LAR_OK)
        test_fail(__FILE__, line, "run of %s failed: %s", text, lar_error_last()->message);
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    unsigned bits = 0;
    lar_objkey last = 0;
    for (size_t i = 0; i < count; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        if (obj.key <= last) test_fail(__FILE__, line, "%s: results not in key order", text);
        last = obj.key;
        for (size_t j = 0; j < n; j++)
            if (objs[j].key == obj.key && objs[j].cls == obj.cls) bits |= 1u << j;
    }
    lar_results_free(r);
    lar_txn_free(txn);
    lar_query_free(q);
    return bits;
}

#define DOGS(text) run_args(w.env, w.dog, w.dogs, 6, (text), NULL, 0, __LINE__)
#define PEOPLE(text) run_args(w.env, w.person, w.people, 3, (text), NULL, 0, __LINE__)
#define EXPECT(got, bits)                                                                              \
    do {                                                                                               \
        unsigned got_ = (got), want_ = (bits);                                                         \
        if (got_ != want_) test_fail(__FILE__, __LINE__, "%s matched 0x%x, expected 0x%x", #got, got_, want_); \
    } while (0)
#define B(i) (1u << (i))

TEST(query_eval_int_comparisons)
{
    world w = setup_world();
    EXPECT(DOGS("age == 3"), B(0));
    EXPECT(DOGS("age = 5"), B(1));
    EXPECT(DOGS("age != 3"), 0x3F & ~B(0));
    EXPECT(DOGS("age <> 3"), 0x3F & ~B(0));
    EXPECT(DOGS("age < 3"), B(3) | B(5));
    EXPECT(DOGS("age <= 3"), B(0) | B(3) | B(5));
    EXPECT(DOGS("age > 5"), B(2) | B(4));
    EXPECT(DOGS("age >= 5"), B(1) | B(2) | B(4));
    EXPECT(DOGS("3 < age"), B(1) | B(2) | B(4));
    EXPECT(DOGS("age BETWEEN {3, 7}"), B(0) | B(1) | B(2));
    EXPECT(DOGS("age IN {1, 12, 99}"), B(3) | B(4));
    EXPECT(DOGS("age == 3.0"), B(0));
    EXPECT(DOGS("age > 2.5"), B(0) | B(1) | B(2) | B(4));
    EXPECT(DOGS("age == -4"), B(5));
    close_env(w.env);
}

TEST(query_eval_other_scalar_types)
{
    world w = setup_world();
    EXPECT(DOGS("weight == nil"), B(1));
    EXPECT(DOGS("weight != nil"), 0x3F & ~B(1));
    EXPECT(DOGS("weight > 5"), B(0) | B(3) | B(4));
    EXPECT(DOGS("weight < 0"), B(5));
    EXPECT(DOGS("weight == 3.25"), B(2));
    EXPECT(DOGS("weight != 3.25"), 0x3F & ~B(2));
    EXPECT(DOGS("weight BETWEEN {3, 10.5}"), B(0) | B(2) | B(4));
    EXPECT(DOGS("ratio == 0.5"), B(1));
    EXPECT(DOGS("ratio >= 1.5"), B(3) | B(4) | B(5));
    EXPECT(DOGS("ratio == 0.1"), 0);
    EXPECT(DOGS("ratio != 2.5"), 0x3F & ~B(5));
    EXPECT(DOGS("ratio == 2.5f"), B(5));
    EXPECT(DOGS("alive == true"), B(1) | B(3) | B(5));
    EXPECT(DOGS("alive != true"), B(0) | B(2) | B(4));
    EXPECT(DOGS("born == nil"), B(5));
    EXPECT(DOGS("born > T2000:0"), B(2) | B(3) | B(4));
    EXPECT(DOGS("born == T1000:5"), B(1));
    EXPECT(DOGS("born < T1000:6"), B(0) | B(1));
    EXPECT(DOGS("oid == oid(000000000000000000000003)"), B(3));
    EXPECT(DOGS("oid > oid(000000000000000000000003)"), B(4) | B(5));
    EXPECT(DOGS("uid == uuid(00000000-0000-0000-0000-00000000000a)"), B(0));
    EXPECT(DOGS("uid < uuid(00000000-0000-0000-0000-000000000007)"), B(4) | B(5));
    EXPECT(DOGS("price == 20"), B(2));
    EXPECT(DOGS("price > 25"), B(3) | B(4) | B(5));
    EXPECT(DOGS("price BETWEEN {10, 20}"), B(1) | B(2));
    EXPECT(DOGS("price == 2E1"), B(2));
    EXPECT(DOGS("data == B64\"Rmlkbw==\""), B(3));
    EXPECT(DOGS("data BEGINSWITH 'F'"), B(3));
    EXPECT(DOGS("data == 'Fido'"), B(3)); /* a string compared with a binary property: its bytes */
    EXPECT(DOGS("data != 'Fido'"), 0x3F & ~B(3));
    close_env(w.env);
}

TEST(query_eval_logic)
{
    world w = setup_world();
    EXPECT(DOGS("TRUEPREDICATE"), 0x3F);
    EXPECT(DOGS("FALSEPREDICATE"), 0);
    EXPECT(DOGS("age > 2 AND age < 8"), B(0) | B(1) | B(2));
    EXPECT(DOGS("age > 2 && weight != nil && alive == false"), B(0) | B(2) | B(4));
    EXPECT(DOGS("age == 1 OR age == 12"), B(3) | B(4));
    EXPECT(DOGS("age == 1 || name == 'Rex'"), B(0) | B(3));
    EXPECT(DOGS("NOT age == 3"), 0x3F & ~B(0));
    EXPECT(DOGS("!(age < 5 OR age > 10)"), B(1) | B(2));
    EXPECT(DOGS("(age < 5 OR age > 10) AND NOT alive == true"), B(0) | B(4));
    EXPECT(DOGS("NOT TRUEPREDICATE OR FALSEPREDICATE"), 0);
    close_env(w.env);
}

TEST(query_eval_strings)
{
    world w = setup_world();
    EXPECT(DOGS("name == 'Rex'"), B(0));
    EXPECT(DOGS("name != 'Rex'"), 0x3F & ~B(0));
    EXPECT(DOGS("name ==[c] 'REX'"), B(0) | B(1));
    EXPECT(DOGS("name ==[d] 'Rex'"), B(0) | B(2));
    EXPECT(DOGS("name ==[cd] 'rex'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name !=[c] 'rex'"), 0x3F & ~(B(0) | B(1)));
    EXPECT(DOGS("name BEGINSWITH 'R'"), B(0) | B(2));
    EXPECT(DOGS("name BEGINSWITH[c] 'r'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name ENDSWITH 'x'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name ENDSWITH[c] 'X'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name CONTAINS 'e'"), B(0) | B(1));
    EXPECT(DOGS("name CONTAINS[d] 'e'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name CONTAINS[c] '\xc3\xa9'"), B(2) | B(4)); /* É folds to é */
    EXPECT(DOGS("name CONTAINS[cd] 'E'"), B(0) | B(1) | B(2) | B(4));
    EXPECT(DOGS("name CONTAINS ''"), 0x3F);
    EXPECT(DOGS("name BEGINSWITH ''"), 0x3F);
    EXPECT(DOGS("name LIKE 'R?x'"), B(0) | B(2));
    EXPECT(DOGS("name LIKE '*x'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name LIKE[c] 'r*'"), B(0) | B(1) | B(2));
    EXPECT(DOGS("name LIKE '*'"), 0x3F);
    EXPECT(DOGS("name LIKE 'F*d*o'"), B(3));
    EXPECT(DOGS("name LIKE '?'"), 0);
    EXPECT(DOGS("name == ''"), B(5));
    EXPECT(DOGS("name < 'S'"), B(0) | B(2) | B(3) | B(5));
    EXPECT(DOGS("name IN {'Fido', 'rex'}"), B(1) | B(3));
    close_env(w.env);
}

TEST(query_eval_key_paths)
{
    world w = setup_world();
    EXPECT(DOGS("owner.name == 'Alice'"), B(0) | B(3));
    EXPECT(DOGS("owner == nil"), B(2) | B(5));
    EXPECT(DOGS("owner.name == nil"), B(2) | B(5));
    EXPECT(DOGS("owner.address.city == 'London'"), B(0) | B(3));
    EXPECT(DOGS("owner.address.city == nil"), B(2) | B(4) | B(5));
    EXPECT(DOGS("owner.address.city BEGINSWITH[c] 'p'"), B(1));
    EXPECT(PEOPLE("address.city == 'Paris'"), B(1));
    EXPECT(PEOPLE("address == nil"), B(2));
    lar_query_arg arg = {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_LINK, .as.link = w.people[1]}};
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "owner == $0", &arg, 1, __LINE__), B(1));
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "owner != %@", &arg, 1, __LINE__), 0x3F & ~B(1));
    lar_query_arg key = {.kind = LAR_QUERY_ARG_KEYPATH, .keypath = "owner.name"};
    lar_query_arg args[] = {key, {.kind = LAR_QUERY_ARG_VALUE, .value = val_str("Carol")}};
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "%K == %@", args, 2, __LINE__), B(4));
    close_env(w.env);
}

TEST(query_eval_collections)
{
    world w = setup_world();
    EXPECT(DOGS("tags == 'a'"), B(0) | B(3));
    EXPECT(DOGS("ANY tags == 'b'"), B(0) | B(2));
    EXPECT(DOGS("ALL tags == 'a'"), 0x3F & ~(B(0) | B(2)));
    EXPECT(DOGS("NONE tags == 'a'"), 0x3F & ~(B(0) | B(3)));
    EXPECT(DOGS("tags.@count == 2"), B(0));
    EXPECT(DOGS("tags.@size > 0"), B(0) | B(2) | B(3));
    EXPECT(DOGS("scores.@count == 0"), B(1) | B(4) | B(5));
    EXPECT(DOGS("scores.@max == 5"), B(3));
    EXPECT(DOGS("scores.@min == 1"), B(0));
    EXPECT(DOGS("scores.@sum == 3"), B(0) | B(2));
    EXPECT(DOGS("scores.@sum == 0"), B(1) | B(4) | B(5));
    EXPECT(DOGS("scores.@avg == 3.5"), B(3));
    EXPECT(DOGS("scores.@avg == nil"), B(1) | B(4) | B(5));
    EXPECT(DOGS("2 IN scores"), B(0) | B(3));
    EXPECT(DOGS("scores IN {3, 5}"), B(2) | B(3));
    EXPECT(DOGS("friends.name == 'rex'"), B(0) | B(3));
    EXPECT(DOGS("ALL friends.age > 4"), 0x3F);
    EXPECT(DOGS("friends.@count == 1"), B(3));
    EXPECT(DOGS("friends.age.@sum == 17"), B(0));
    EXPECT(DOGS("name.@count == 3"), B(0) | B(1));
    EXPECT(DOGS("name.@count == 4"), B(2) | B(3)); /* bytes: é takes two */
    EXPECT(PEOPLE("dogs.age > 10"), B(2));
    EXPECT(PEOPLE("dogs.@count == 2"), B(0) | B(2));
    EXPECT(PEOPLE("dogs.owner.name == 'Bob'"), B(1));
    EXPECT(PEOPLE("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'R').@count == 1"), B(0) | B(2));
    EXPECT(PEOPLE("SUBQUERY(dogs, $d, $d.age > 100).@count == 0"), 0x7);
    EXPECT(DOGS("SUBQUERY(tags, $t, $t == 'b').@count > 0"), B(0) | B(2));
    close_env(w.env);
}

TEST(query_eval_maps_mixed_backlinks)
{
    world w = setup_world();
    EXPECT(DOGS("attrs['color'] == 'brown'"), B(0));
    EXPECT(DOGS("attrs['color'] == nil"), B(1) | B(3) | B(4) | B(5));
    EXPECT(DOGS("attrs['color'] BEGINSWITH 'b'"), B(0) | B(2));
    EXPECT(DOGS("attrs.@count == 2"), B(2));
    EXPECT(DOGS("attrs.@keys == 'size'"), B(2));
    EXPECT(DOGS("attrs.@values == 'black'"), B(2));
    EXPECT(DOGS("attrs == 'brown'"), B(0));
    EXPECT(DOGS("extra == 3"), B(0) | B(1));
    EXPECT(DOGS("extra == '3'"), B(2));
    EXPECT(DOGS("extra > 2"), B(0) | B(1));
    EXPECT(DOGS("extra == true"), B(3));
    EXPECT(DOGS("extra == nil"), B(5));
    EXPECT(DOGS("extra['k'] == 5"), B(4));
    EXPECT(DOGS("extra['k'] == nil"), 0x3F & ~B(4)); /* a missing key, or no dictionary */
    EXPECT(DOGS("extra['inner']['z'] BEGINSWITH 'de'"), B(4));
    EXPECT(DOGS("extra['inner'].@type == 'dictionary'"), B(4));
    EXPECT(DOGS("extra.@type == 'dictionary'"), B(4));
    EXPECT(DOGS("extra.@type == 'int'"), B(0));
    EXPECT(DOGS("extra.@type == 'numeric'"), B(0) | B(1));
    EXPECT(DOGS("extra.@type IN {'string', 'bool'}"), B(2) | B(3));
    EXPECT(DOGS("extra.@type != 'null'"), 0x3F & ~B(5));
    EXPECT(DOGS("@links.Person.dogs.name == 'Carol'"), B(0) | B(4));
    EXPECT(DOGS("@links.Person.dogs.@count == 2"), B(0));
    EXPECT(DOGS("@links.Person.dogs.@count == 0"), B(2) | B(5));
    EXPECT(DOGS("@links.Dog.friends.@count > 0"), B(1) | B(4));
    close_env(w.env);
}

TEST(query_eval_arguments)
{
    world w = setup_world();
    lar_value list[] = {val_int(1), val_int(7)};
    lar_query_arg in = {.kind = LAR_QUERY_ARG_LIST, .list = list, .list_count = 2};
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "age IN %@", &in, 1, __LINE__), B(2) | B(3));
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "age BETWEEN $0", &in, 1, __LINE__), B(0) | B(1) | B(2) | B(3));
    lar_query_arg none = {.kind = LAR_QUERY_ARG_LIST, .list = NULL, .list_count = 0};
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "age IN %@", &none, 1, __LINE__), 0);
    lar_query_arg s = {.kind = LAR_QUERY_ARG_VALUE, .value = val_str("ReX")};
    EXPECT(run_args(w.env, w.dog, w.dogs, 6, "name ==[c] $0", &s, 1, __LINE__), B(0) | B(1));
    /* A value whose check reads the value itself (an @type name) is checked again when rebound. */
    lar_query *typed = NULL;
    CHECK_OK(lar_query_parse(w.env, w.dog, "extra.@type == $0", &typed));
    lar_query_arg type = {.kind = LAR_QUERY_ARG_VALUE, .value = val_str("dictionary")};
    CHECK_OK(lar_query_bind(typed, &type, 1));
    type.value = val_str("no such type");
    CHECK_RC(lar_query_bind(typed, &type, 1), LAR_EINVAL);
    lar_query_free(typed);
    close_env(w.env);
}

/* ---- the result handle ---- */

static lar_query *parse(lar_env *env, lar_class cls, const char *text)
{
    lar_query *q = NULL;
    CHECK_OK(lar_query_parse(env, cls, text, &q));
    return q;
}

TEST(query_eval_results_api)
{
    world w = setup_world();
    lar_query *q = parse(w.env, w.dog, "age > 2");
    lar_txn *txn = begin_read(w.env);
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    CHECK_EQ(count, 4);
    lar_obj obj;
    CHECK_OK(lar_results_get(r, 3, &obj));
    CHECK(obj.cls == w.dog && obj.key == w.dogs[4].key);
    CHECK_RC(lar_results_get(r, 4, &obj), LAR_EINVAL);
    lar_objkey keys[3];
    size_t n;
    CHECK_OK(lar_results_keys(r, 0, keys, 3, &n));
    CHECK_EQ(n, 3);
    CHECK_EQ(keys[0], w.dogs[0].key);
    CHECK_EQ(keys[2], w.dogs[2].key);
    CHECK_OK(lar_results_keys(r, 3, keys, 3, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(keys[0], w.dogs[4].key);
    CHECK_END(lar_results_keys(r, 4, keys, 3, &n));
    CHECK_EQ(n, 0);
    CHECK_RC(lar_results_keys(r, 5, keys, 3, &n), LAR_EINVAL);
    CHECK_RC(lar_results_keys(r, 0, keys, 0, &n), LAR_EINVAL);

    /* Iteration with batch bindings. */
    lar_iter *it;
    CHECK_OK(lar_iter_open_results(txn, r, &it));
    struct { int64_t age; lar_value name; } rows[8];
    CHECK_OK(lar_iter_bind_int(it, prop_id(w.env, w.dog, "age"), &rows[0].age));
    CHECK_OK(lar_iter_bind_value(it, prop_id(w.env, w.dog, "name"), &rows[0].name));
    lar_obj objs[8];
    CHECK_OK(lar_iter_next_batch(it, objs, 8, sizeof rows[0], &n));
    CHECK_EQ(n, 4);
    CHECK_EQ(rows[0].age, 3);
    CHECK_EQ(rows[3].age, 12);
    CHECK_VALUE(rows[1].name, val_str("rex"));
    CHECK_EQ(objs[2].key, w.dogs[2].key);
    CHECK_END(lar_iter_next_batch(it, objs, 8, sizeof rows[0], &n));
    CHECK_OK(lar_iter_seek(it, w.dogs[2].key));
    CHECK_OK(lar_iter_next(it, &obj));
    CHECK_EQ(obj.key, w.dogs[2].key);
    lar_iter_close(it);

    /* Versions: current in its snapshot, not after a commit. */
    int current;
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 1);
    lar_txn *other = begin_read(w.env);
    CHECK_OK(lar_results_is_current(r, other, &current));
    CHECK_EQ(current, 1);
    lar_txn_free(other);
    lar_txn *write = begin_write(w.env);
    CHECK_OK(lar_results_is_current(r, write, &current));
    CHECK_EQ(current, 0);
    lar_results *in_write;
    CHECK_OK(lar_query_run(write, q, &in_write));
    CHECK_OK(lar_results_is_current(in_write, write, &current));
    CHECK_EQ(current, 1);
    CHECK_OK(lar_obj_delete(write, w.dogs[1]));
    CHECK_OK(lar_results_is_current(in_write, write, &current));
    CHECK_EQ(current, 0);
    /* An iterator skips the objects deleted since. */
    CHECK_OK(lar_iter_open_results(write, in_write, &it));
    size_t seen = 0;
    while (lar_iter_next(it, &obj) == LAR_OK) seen++;
    CHECK_EQ(seen, 3);
    lar_iter_close(it);
    lar_results *again;
    CHECK_OK(lar_query_run(write, q, &again));
    CHECK_OK(lar_results_count(again, &count));
    CHECK_EQ(count, 3);
    commit_txn(write);
    CHECK_OK(lar_results_is_current(r, txn, &current)); /* its own snapshot still */
    CHECK_EQ(current, 1);
    other = begin_read(w.env);
    CHECK_OK(lar_results_is_current(r, other, &current));
    CHECK_EQ(current, 0);
    CHECK_OK(lar_results_is_current(again, other, &current)); /* computed in a write that ended */
    CHECK_EQ(current, 0);
    lar_txn_free(other);
    lar_results_free(again);
    lar_results_free(in_write);
    lar_txn_free(txn);
    /* A result outlives its transaction and query. */
    lar_query_free(q);
    CHECK_OK(lar_results_count(r, &count));
    CHECK_EQ(count, 4);
    lar_results_free(r);
    close_env(w.env);
}

/* The ages the result's objects have now, walked through an iterator, and their sum
 * through the result's aggregate. */
static int64_t walked_ages(lar_txn *txn, const lar_results *r, uint32_t age, int64_t *ages, size_t *n)
{
    lar_iter *it;
    CHECK_OK(lar_iter_open_results(txn, r, &it));
    CHECK_OK(lar_iter_bind_int(it, age, &ages[0]));
    int rc = lar_iter_next_batch(it, NULL, 8, sizeof ages[0], n);
    CHECK(rc == LAR_OK || rc == LAR_ENOTFOUND);
    lar_iter_close(it);
    lar_value sum;
    CHECK_OK(lar_results_aggregate(txn, r, "age", LAR_AGGREGATE_SUM, &sum));
    return sum.as.integer;
}

/* A result run in a read keeps the rows it read, for walks, sorts and aggregates in that
 * transaction; another transaction, or the same one renewed, reads the rows afresh. */
TEST(query_eval_results_read_rows_only_in_their_snapshot)
{
    world w = setup_world();
    uint32_t age = prop_id(w.env, w.dog, "age");
    lar_query *q = parse(w.env, w.dog, "age > 2");
    lar_txn *txn = begin_read(w.env), *renewed = begin_read(w.env);
    lar_results *r, *kept;
    CHECK_OK(lar_query_run(txn, q, &r));
    CHECK_OK(lar_query_run(renewed, q, &kept));
    lar_sort_descriptor by_age = {"age", 0};
    CHECK_OK(lar_results_sort(txn, r, &by_age, 1)); /* 12, 7, 5, 3 */
    int64_t ages[8];
    size_t n;
    CHECK_EQ(walked_ages(txn, r, age, ages, &n), 27);
    CHECK_EQ(n, 4);
    CHECK_EQ(ages[0], 12);
    CHECK_EQ(ages[3], 3);
    lar_txn_free(txn);
    CHECK_OK(lar_txn_commit(renewed));
    /* Every age goes up by 100. */
    lar_txn *write = begin_write(w.env);
    for (int i = 0; i < 6; i++) {
        lar_value v = get_value(write, w.dogs[i], age);
        v.as.integer += 100;
        CHECK_OK(lar_obj_set(write, w.dogs[i], age, &v));
    }
    commit_txn(write);
    txn = begin_read(w.env);
    CHECK_EQ(walked_ages(txn, r, age, ages, &n), 427);
    CHECK_EQ(ages[0], 112);
    CHECK_OK(lar_results_sort(txn, r, &by_age, 1));
    CHECK_EQ(walked_ages(txn, r, age, ages, &n), 427);
    CHECK_EQ(ages[3], 103);
    CHECK_OK(lar_txn_renew(renewed));
    CHECK_EQ(walked_ages(renewed, kept, age, ages, &n), 427);
    CHECK_EQ(ages[0], 103);
    lar_results_free(r);
    lar_results_free(kept);
    lar_txn_free(txn);
    lar_txn_free(renewed);
    lar_query_free(q);
    close_env(w.env);
}

TEST(query_eval_results_freed_before_their_write_ends)
{
    world w = setup_world();
    lar_query *q = parse(w.env, w.dog, "age > 2");
    lar_txn *write = begin_write(w.env);
    lar_results *r;
    CHECK_OK(lar_query_run(write, q, &r));
    lar_results_free(r);
    CHECK_OK(lar_query_run(write, q, &r));
    lar_txn_abort(write);
    int current;
    lar_txn *txn = begin_read(w.env);
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 0);
    lar_txn_free(txn);
    lar_txn_free(write);
    lar_results_free(r);
    lar_query_free(q);
    close_env(w.env);
}

TEST(query_eval_errors)
{
    world w = setup_world();
    lar_txn *txn = begin_read(w.env);
    lar_results *r = (lar_results *)1;
    lar_query *q = parse(w.env, w.dog, "age > 2");
    CHECK_RC(lar_query_run(NULL, q, &r), LAR_EINVAL);
    CHECK(r == NULL);
    CHECK_RC(lar_query_run(txn, NULL, &r), LAR_EINVAL);
    CHECK_RC(lar_query_run(txn, q, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_count(NULL, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_get(NULL, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_keys(NULL, 0, NULL, 1, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_is_current(NULL, txn, NULL), LAR_EINVAL);
    lar_iter *it = (lar_iter *)1;
    CHECK_RC(lar_iter_open_results(txn, NULL, &it), LAR_EINVAL);
    CHECK(it == NULL);
    lar_results_free(NULL);

    /* Unbound arguments. */
    lar_query *unbound = parse(w.env, w.dog, "age > $0");
    CHECK_RC(lar_query_run(txn, unbound, &r), LAR_EINVAL);
    CHECK_MSG_HAS("not bound");
    lar_query_free(unbound);
    lar_query *keypath = parse(w.env, w.dog, "%K > 3");
    CHECK_RC(lar_query_run(txn, keypath, &r), LAR_EINVAL);
    lar_query_free(keypath);

    /* An ended transaction, another environment. */
    CHECK_OK(lar_query_run(txn, q, &r));
    lar_txn_abort(txn);
    int current;
    lar_results *none = (lar_results *)1;
    CHECK_RC(lar_query_run(txn, q, &none), LAR_EMISUSE);
    CHECK(none == NULL);
    CHECK_RC(lar_results_is_current(r, txn, &current), LAR_EMISUSE);
    CHECK_RC(lar_iter_open_results(txn, r, &it), LAR_EMISUSE);
    lar_env *other = open_env(test_db_path("other"));
    lar_property_def props[] = {PROP("age", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("Dog", props);
    CHECK_OK(lar_schema_apply(other, &def, 1, 1));
    lar_txn *other_txn = begin_read(other);
    lar_results *r2;
    CHECK_RC(lar_query_run(other_txn, q, &r2), LAR_EINVAL);
    CHECK_RC(lar_results_is_current(r, other_txn, &current), LAR_EINVAL);
    CHECK_RC(lar_iter_open_results(other_txn, r, &it), LAR_EINVAL);
    lar_txn_free(other_txn);
    close_env(other);
    lar_results_free(r);
    lar_txn_free(txn);
    lar_query_free(q);
    close_env(w.env);
}

/* ---- index probes against scans, and both against a brute-force evaluator ---- */

#define ROWS 300

typedef struct row_data {
    int64_t id, n;
    const char *s;
    bool opt_null;
    int64_t opt;
    int64_t t;                /* seconds; nanoseconds are 0 */
} row_data;

static const char *const strings[] = {"a", "ab", "b", "ba", "B", "", "abc", "b\xc3\xa9", "AB\xc3\x89", "xAbE"};

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t pick(int64_t low, int64_t high)
{
    return low + (int64_t)(rng() % (uint64_t)(high - low + 1));
}

typedef struct term {
    int field;                /* 0 id, 1 n, 2 s, 3 opt, 4 t */
    int op;                   /* 0 == 1 != 2 < 3 <= 4 > 5 >= 6 BETWEEN 7 IN 8 BEGINSWITH 9 CONTAINS */
    int64_t a, b, c;          /* numbers; for strings, indexes into strings[]; -1: nil */
    int options;              /* strings: 0 none, 1 [c], 2 [d], 3 [cd] */
} term;

static const char *const field_names[] = {"id", "n", "s", "opt", "t"};

static term random_term(void)
{
    term t = {.field = (int)pick(0, 4)};
    t.op = (int)pick(0, t.field == 2 ? 9 : 7);
    if (t.field == 2 && t.op >= 2 && t.op <= 6) t.op = (int)pick(0, 1); /* string ranges: not from the index */
    if (t.field == 2 && t.op != 7) t.options = (int)pick(0, 3);
    int64_t low = t.field == 0 ? 0 : t.field == 4 ? -6 : -22, high = t.field == 0 ? ROWS + 2 : t.field == 4 ? 6 : 22;
    if (t.field == 2) low = 0, high = COUNT_OF(strings) - 1;
    t.a = pick(low, high);
    t.b = pick(low, high);
    t.c = pick(low, high);
    if (t.op == 6 && t.a > t.b) { int64_t x = t.a; t.a = t.b; t.b = x; }
    if (t.field == 3 && (t.op == 0 || t.op == 1) && pick(0, 3) == 0) t.a = -100; /* nil */
    return t;
}

static void term_text(const term *t, char *out, size_t size)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "BEGINSWITH", "CONTAINS"};
    static const char *const options[] = {"", "[c]", "[d]", "[cd]"};
    char a[32], b[32], c[32];
    const int64_t vals[] = {t->a, t->b, t->c};
    char *texts[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (t->field == 2) snprintf(texts[i], 32, "'%s'", strings[vals[i]]);
        else if (t->field == 4) snprintf(texts[i], 32, "T%lld:0", (long long)vals[i]);
        else if (t->field == 3 && vals[i] == -100) snprintf(texts[i], 32, "nil");
        else snprintf(texts[i], 32, "%lld", (long long)vals[i]);
    }
    if (t->op == 6) snprintf(out, size, "%s BETWEEN {%s, %s}", field_names[t->field], a, b);
    else if (t->op == 7) snprintf(out, size, "%s IN {%s, %s, %s}", field_names[t->field], a, b, c);
    else snprintf(out, size, "%s %s%s %s", field_names[t->field], ops[t->op], options[t->options], a);
}

/* s folded as [c] and [d] fold the test's strings (ASCII letters, é and É). */
static void fold_test_string(const char *s, int options, char *out)
{
    for (; *s; s++) {
        if ((options & 2) && s[0] == '\xc3' && (s[1] == '\xa9' || s[1] == '\x89')) {
            *out++ = (options & 1) || s[1] == '\xa9' ? 'e' : 'E';
            s++;
        } else if ((options & 1) && s[0] == '\xc3' && s[1] == '\x89') {
            *out++ = '\xc3';
            *out++ = '\xa9';
            s++;
        } else {
            *out++ = (options & 1) && *s >= 'A' && *s <= 'Z' ? (char)(*s + 32) : *s;
        }
    }
    *out = 0;
}

static int order3(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}

static bool term_holds(const term *t, const row_data *r)
{
    if (t->field == 2) {
        char s[32], a[32];
        fold_test_string(r->s, t->options, s);
        fold_test_string(strings[t->a], t->options, a);
        switch (t->op) {
        case 0: return strcmp(s, a) == 0;
        case 1: return strcmp(s, a) != 0;
        case 7: return !strcmp(s, a) || !strcmp(s, strings[t->b]) || !strcmp(s, strings[t->c]);
        case 8: return strncmp(s, a, strlen(a)) == 0;
        default: return strstr(s, a) != NULL;
        }
    }
    if (t->field == 3 && r->opt_null) return t->op == 0 ? t->a == -100 : t->op == 1 ? t->a != -100 : false;
    if (t->field == 3 && t->a == -100 && t->op <= 1) return t->op == 1;
    int64_t v = t->field == 0 ? r->id : t->field == 1 ? r->n : t->field == 3 ? r->opt : r->t;
    int o = order3(v, t->a);
    switch (t->op) {
    case 0: return o == 0;
    case 1: return o != 0;
    case 2: return o < 0;
    case 3: return o <= 0;
    case 4: return o > 0;
    case 5: return o >= 0;
    case 6: return o >= 0 && v <= t->b;
    default: return v == t->a || v == t->b || v == t->c;
    }
}

/* Runs text on cls and returns the ids of the matches, in result order, in ids. */
static size_t run_ids(lar_txn *txn, lar_env *env, lar_class cls, const char *text, int64_t *ids)
{
    lar_query *q = NULL;
    if (lar_query_parse(env, cls, text, &q) != LAR_OK)
        test_fail(__FILE__, __LINE__, "parse of %s failed: %s", text, lar_error_last()->message);
    lar_results *r;
    if (lar_query_run(txn, q, &r) != LAR_OK)
        test_fail(__FILE__, __LINE__, "run of %s failed: %s", text, lar_error_last()->message);
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    for (size_t i = 0; i < count; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        ids[i] = get_value(txn, obj, 0).as.integer;
    }
    lar_results_free(r);
    lar_query_free(q);
    return count;
}

static void differential(bool in_write)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def indexed[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY), PROP("n", LAR_TYPE_INT, LAR_PROP_INDEXED),
        PROP("s", LAR_TYPE_STRING, LAR_PROP_INDEXED), PROP("opt", LAR_TYPE_INT, LAR_PROP_OPTIONAL | LAR_PROP_INDEXED),
        PROP("t", LAR_TYPE_TIMESTAMP, LAR_PROP_INDEXED),
    };
    lar_property_def plain[] = {
        PROP("id", LAR_TYPE_INT, 0), PROP("n", LAR_TYPE_INT, 0), PROP("s", LAR_TYPE_STRING, 0),
        PROP("opt", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("t", LAR_TYPE_TIMESTAMP, 0),
    };
    lar_class_def classes[] = {CLASS_DEF("Indexed", indexed), CLASS_DEF("Plain", plain)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class cls[2] = {class_id(env, "Indexed"), class_id(env, "Plain")};
    static row_data rows[ROWS];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < ROWS; i++) {
        rows[i] = (row_data){.id = i * 2 % (ROWS + 1), .n = pick(-20, 20), .s = strings[pick(0, COUNT_OF(strings) - 1)],
                             .opt_null = pick(0, 4) == 0, .opt = pick(-20, 20), .t = pick(-5, 5)};
        rows[i].id = i; /* unique */
        lar_value v[] = {val_int(rows[i].id), val_int(rows[i].n), val_str(rows[i].s),
                         rows[i].opt_null ? val_null() : val_int(rows[i].opt), val_ts(rows[i].t, 0)};
        for (int c = 0; c < 2; c++) CHECK_OK(lar_obj_create(txn, cls[c], v, 5, NULL));
    }
    if (!in_write) {
        commit_txn(txn);
        txn = begin_read(env);
    }
    static int64_t got[2][ROWS];
    for (int round = 0; round < 400; round++) {
        term t1 = random_term(), t2 = random_term(), t3 = random_term();
        char a[128], b[128], c[128], text[640];
        term_text(&t1, a, sizeof a);
        term_text(&t2, b, sizeof b);
        term_text(&t3, c, sizeof c);
        int shape = (int)pick(0, 8);
        switch (shape) {
        case 0: snprintf(text, sizeof text, "%s", a); break;
        case 1: snprintf(text, sizeof text, "%s AND %s", a, b); break;
        case 2: snprintf(text, sizeof text, "%s OR %s", a, b); break;
        case 3: snprintf(text, sizeof text, "NOT %s AND %s", a, b); break;
        case 4: snprintf(text, sizeof text, "%s AND (%s OR %s)", a, b, c); break;
        /* Nestings the branch program (program.c) flattens: NOTs of ORs and ANDs, constants. */
        case 5: snprintf(text, sizeof text, "NOT (%s OR %s) OR %s", a, b, c); break;
        case 6: snprintf(text, sizeof text, "(%s OR NOT %s) AND NOT (%s AND %s)", a, b, c, a); break;
        case 7: snprintf(text, sizeof text, "%s OR (%s AND FALSEPREDICATE) OR NOT (NOT %s)", a, b, c); break;
        default: snprintf(text, sizeof text, "NOT (NOT %s AND NOT (%s OR %s) AND TRUEPREDICATE)", a, b, c); break;
        }
        size_t n[2];
        for (int k = 0; k < 2; k++) n[k] = run_ids(txn, env, cls[k], text, got[k]);
        size_t expected = 0;
        for (int i = 0; i < ROWS; i++) {
            const row_data *r = &rows[i];
            bool x = term_holds(&t1, r), y = term_holds(&t2, r), z = term_holds(&t3, r);
            bool holds = shape == 0 ? x : shape == 1 ? x && y : shape == 2 ? x || y : shape == 3 ? !x && y
                       : shape == 4 ? x && (y || z) : shape == 5 ? !(x || y) || z : shape == 6 ? (x || !y) && !(z && x)
                       : shape == 7 ? x || z : x || y || z;
            if (!holds) continue;
            if (expected >= n[0] || got[0][expected] != r->id || expected >= n[1] || got[1][expected] != r->id)
                test_fail(__FILE__, __LINE__, "%s: object %lld missing or out of place (indexed %zu, plain %zu results)",
                          text, (long long)r->id, n[0], n[1]);
            expected++;
        }
        if (n[0] != expected || n[1] != expected)
            test_fail(__FILE__, __LINE__, "%s: %zu expected, indexed gave %zu, plain %zu", text, expected, n[0], n[1]);
    }
    lar_txn_free(txn);
    close_env(env);
}

TEST(query_eval_index_and_scan_agree_with_brute_force)
{
    differential(false);
}

TEST(query_eval_index_and_scan_agree_in_a_write)
{
    differential(true);
}

/* ---- int tests as ranges (program.c): every comparison at the ends of the ints ---- */

static const int64_t range_edges[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, 29, 30, 39, 40, INT64_MAX - 1, INT64_MAX};

static bool int_holds(int op, bool null, int64_t v, int64_t c)
{
    if (null) return op == 1; /* null equals no int */
    int o = order3(v, c);
    return op == 0 ? o == 0 : op == 1 ? o != 0 : op == 2 ? o < 0 : op == 3 ? o <= 0 : op == 4 ? o > 0 : o >= 0;
}

static void int_term_text(const char *field, int op, int64_t c, char *out, size_t size)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    snprintf(out, size, "%s %s %lld", field, ops[op], (long long)c);
}

/* Each pair of comparisons on one slot, ANDed (fused into one range test), and on an
 * optional slot whose null rows hold only for !=, against the same pairs checked here. */
TEST(query_eval_int_ranges_at_the_ends_of_the_ints)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("id", LAR_TYPE_INT, 0), PROP("n", LAR_TYPE_INT, 0),
                                PROP("opt", LAR_TYPE_INT, LAR_PROP_OPTIONAL)};
    lar_class_def def = CLASS_DEF("Ints", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Ints");
    enum { EDGES = COUNT_OF(range_edges), ROWS_HERE = EDGES + 1 };
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < ROWS_HERE; i++) { /* the last row: opt null */
        int64_t v = range_edges[i % EDGES];
        lar_value values[] = {val_int(i), val_int(v), i == EDGES ? val_null() : val_int(v)};
        CHECK_OK(lar_obj_create(txn, cls, values, 3, NULL));
    }
    commit_txn(txn);
    txn = begin_read(env);
    int64_t ids[ROWS_HERE];
    int checked = 0;
    for (int field = 0; field < 2; field++)
        for (int op1 = 0; op1 < 6; op1++)
            for (int op2 = 0; op2 < 6; op2++)
                for (int c1 = 0; c1 < EDGES; c1 += 2)
                    for (int c2 = 1; c2 < EDGES; c2 += 2) {
                        const char *name = field ? "opt" : "n";
                        char a[96], b[96], text[200];
                        int_term_text(name, op1, range_edges[c1], a, sizeof a);
                        int_term_text(name, op2, range_edges[c2], b, sizeof b);
                        snprintf(text, sizeof text, "%s AND %s", a, b);
                        size_t n = run_ids(txn, env, cls, text, ids), expected = 0;
                        for (int i = 0; i < ROWS_HERE; i++) {
                            int64_t v = range_edges[i % EDGES];
                            bool null = field && i == EDGES;
                            if (!int_holds(op1, null, v, range_edges[c1]) || !int_holds(op2, null, v, range_edges[c2]))
                                continue;
                            if (expected >= n || ids[expected] != i)
                                test_fail(__FILE__, __LINE__, "%s: row %d missing (%zu results)", text, i, n);
                            expected++;
                        }
                        if (n != expected) test_fail(__FILE__, __LINE__, "%s: %zu expected, %zu given", text, expected, n);
                        checked++;
                    }
    CHECK(checked == 2 * 36 * 6 * 5);
    commit_txn(txn);
    close_env(env);
}

/* ---- ASCII strings with [c]: the folded fast path against a plain fold ---- */

/* The characters around 'A'...'Z' and 'a'...'z' and the bytes next to them ('@', '[', '`',
 * '{'), where a fold of 8 bytes at once would slip. */
static const char folding_alphabet[] = "aAbBzZ@[`{yY0";

static void random_ascii(char *out, size_t length)
{
    for (size_t i = 0; i < length; i++) out[i] = folding_alphabet[pick(0, (int64_t)strlen(folding_alphabet) - 1)];
    out[length] = 0;
}

static bool ascii_case_holds(int op, const char *s, const char *needle)
{
    char h[64], n[64];
    size_t hn = strlen(s), nn = strlen(needle);
    for (size_t i = 0; i <= hn; i++) h[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
    for (size_t i = 0; i <= nn; i++) n[i] = (char)((needle[i] >= 'A' && needle[i] <= 'Z') ? needle[i] + 32 : needle[i]);
    switch (op) {
    case 0: return strstr(h, n) != NULL;
    case 1: return strncmp(h, n, nn) == 0;
    case 2: return nn <= hn && strcmp(h + hn - nn, n) == 0;
    default: return strcmp(h, n) == 0;
    }
}

TEST(query_eval_ascii_case_folding_agrees_with_a_plain_fold)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("s", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Text", props)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    lar_class cls = class_id(env, "Text");
    enum { TEXTS = 300 };
    static char texts[TEXTS][40];
    lar_obj objs[TEXTS];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < TEXTS; i++) {
        random_ascii(texts[i], (size_t)pick(0, 37));
        lar_value v = val_str(texts[i]);
        CHECK_OK(lar_obj_create(txn, cls, &v, 1, &objs[i]));
    }
    commit_txn(txn);
    txn = begin_read(env);
    static const char *const ops[] = {"CONTAINS[c]", "BEGINSWITH[c]", "ENDSWITH[c]", "==[c]"};
    for (int round = 0; round < 300; round++) {
        int op = (int)pick(0, 3);
        char needle[40], text[80];
        random_ascii(needle, (size_t)pick(0, 3 + (op == 0 ? 6 : 0)));
        if (op == 3 && pick(0, 1)) strcpy(needle, texts[pick(0, TEXTS - 1)]); /* a whole text, in its case */
        if (strchr(needle, '\'')) continue;
        snprintf(text, sizeof text, "s %s '%s'", ops[op], needle);
        lar_query *q = parse(env, cls, text);
        lar_results *r;
        CHECK_OK(lar_query_run(txn, q, &r));
        size_t count, at = 0;
        CHECK_OK(lar_results_count(r, &count));
        for (int i = 0; i < TEXTS; i++) {
            if (!ascii_case_holds(op, texts[i], needle)) continue;
            lar_obj obj;
            if (at >= count || lar_results_get(r, at, &obj) != LAR_OK || obj.key != objs[i].key)
                test_fail(__FILE__, __LINE__, "%s: '%s' missing", text, texts[i]);
            at++;
        }
        if (at != count) test_fail(__FILE__, __LINE__, "%s: %zu matches, %zu expected", text, count, at);
        lar_results_free(r);
        lar_query_free(q);
    }
    lar_txn_free(txn);
    close_env(env);
}

/* Runs text on cls inside txn: bit i set when objs[i] matches (count <= 32). */
static unsigned matches_of(lar_txn *txn, lar_env *env, lar_class cls, const lar_obj *objs, int count, const char *text)
{
    lar_query *q = parse(env, cls, text);
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        for (int j = 0; j < count; j++)
            if (objs[j].key == obj.key) bits |= 1u << j;
    }
    lar_results_free(r);
    lar_query_free(q);
    return bits;
}

/* CONTAINS[c] and [d] of an ASCII needle: searched in place (ascii_search.c) unless the
 * text holds other bytes, which may fold to ASCII; long texts end their search on an
 * overlapping block. Each query's matches, as a bit per text. */
TEST(query_eval_contains_folded_of_ascii_needles)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("s", LAR_TYPE_STRING, LAR_PROP_OPTIONAL)};
    lar_class_def classes[] = {CLASS_DEF("Text", props)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    lar_class cls = class_id(env, "Text");
    static const char *const texts[] = {
        "x\xc5\xbfy",                          /* 0: a long s, [c] folds it to 's' */
        "XSY",                                 /* 1 */
        "caf\xc3\xa9",                         /* 2: e acute, [d] strips it to 'e' */
        "a\xcc\x81" "b",                        /* 3: a combining mark between, [d] drops it */
        "0123456789abcdefghijklmnopqrstuvwXSY", /* 4: long, the needle at its end */
        "XSY0123456789abcdefghijklmnopqrstuv", /* 5: long, the needle at its start */
        "0123456789abcdefghijklmnopqrstuv\xc5\xbfY", /* 6: long, other bytes at the end */
        "",                                    /* 7 */
        NULL,                                  /* 8: null */
    };
    enum { TEXTS = sizeof texts / sizeof texts[0] };
    lar_obj objs[TEXTS];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < TEXTS; i++) {
        lar_value v = texts[i] ? val_str(texts[i]) : (lar_value){.type = LAR_TYPE_NULL};
        CHECK_OK(lar_obj_create(txn, cls, &v, 1, &objs[i]));
    }
    commit_txn(txn);
    static const struct {
        const char *query;
        unsigned matches;
    } cases[] = {
        {"s CONTAINS[c] 'xsy'", 1u << 0 | 1u << 1 | 1u << 4 | 1u << 5},
        {"s CONTAINS[c] 'sy'", 1u << 0 | 1u << 1 | 1u << 4 | 1u << 5 | 1u << 6},
        {"s CONTAINS 'XSY'", 1u << 1 | 1u << 4 | 1u << 5},
        {"s CONTAINS[d] 'xsy'", 0},
        {"s CONTAINS[d] 'cafe'", 1u << 2},
        {"s CONTAINS[cd] 'CAFE'", 1u << 2},
        {"s CONTAINS[c] 'cafe'", 0},
        {"s CONTAINS[d] 'ab'", 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6},
        {"s CONTAINS[c] ''", 0x7Fu | 1u << 7},
        {"s CONTAINS[c] 'wxsy'", 1u << 4},
        {"s CONTAINS[c] '0123456789abcdefghijklmnopqrstuvwxsy0'", 0},
        {"NOT s CONTAINS[c] 'y'", 1u << 2 | 1u << 3 | 1u << 7 | 1u << 8},
    };
    txn = begin_read(env);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned got = matches_of(txn, env, cls, objs, TEXTS, cases[c].query);
        if (got != cases[c].matches)
            test_fail(__FILE__, __LINE__, "%s: matches 0x%x, expected 0x%x", cases[c].query, got, cases[c].matches);
    }
    lar_txn_free(txn);
    close_env(env);
}

/* [c] folds U+0130 (capital I with dot above) to 'i', its simple lower case, and leaves
 * U+0131 (dotless i) alone: the pairs rule of Latin Extended-A would give the one the other. */
TEST(query_eval_case_folding_of_the_dotted_capital_i)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("s", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Text", props)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    lar_class cls = class_id(env, "Text");
    static const char *const texts[] = {"\xc4\xb0stanbul", "istanbul", "\xc4\xb1stanbul", "Istanbul"};
    enum { TEXTS = sizeof texts / sizeof texts[0] };
    lar_obj objs[TEXTS];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < TEXTS; i++) {
        lar_value v = val_str(texts[i]);
        CHECK_OK(lar_obj_create(txn, cls, &v, 1, &objs[i]));
    }
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_EQ(matches_of(txn, env, cls, objs, TEXTS, "s ==[c] 'ISTANBUL'"), 1u << 0 | 1u << 1 | 1u << 3);
    CHECK_EQ(matches_of(txn, env, cls, objs, TEXTS, "s ==[c] '\xc4\xb1stanbul'"), 1u << 2);
    CHECK_EQ(matches_of(txn, env, cls, objs, TEXTS, "s BEGINSWITH[c] '\xc4\xb0'"), 1u << 0 | 1u << 1 | 1u << 3);
    lar_txn_free(txn);
    close_env(env);
}

/* ---- a class keyed by its int primary key: probes against scans ---- */

/* Ids of a class keyed by an optional int primary key, in creation order: a null key and
 * INT64_MIN take the lowest free keys, which the objects of INT64_MIN + 1 ... + 3 would
 * have had, so those are displaced too; the others are keyed by their id. */
#define KEYED_ROWS 24
static const int64_t keyed_ids[KEYED_ROWS] = {
    0, 40, -7, INT64_MIN, INT64_MIN + 1, INT64_MIN + 2, INT64_MIN + 3, INT64_MAX, 5, -40, 3, 1,
    -1, 17, INT64_MAX - 1, 1000, -1000, 8, 9, 10, -3, 2, 22, 0 /* the last: null */
};

typedef struct keyed_row {
    int64_t id;
    bool null, alive;
} keyed_row;

typedef struct keyed_term {
    int op;                   /* 0 == 1 != 2 < 3 <= 4 > 5 >= 6 BETWEEN 7 IN 8 == nil 9 IN {nil, a} */
    int64_t a, b, c;
} keyed_term;

/* A constant near the ids: one of them, one off, or an extreme. */
static int64_t keyed_constant(void)
{
    int64_t id = keyed_ids[pick(0, KEYED_ROWS - 2)];
    switch (pick(0, 5)) {
    case 0: return id == INT64_MAX ? id : id + 1;
    case 1: return id == INT64_MIN ? id : id - 1;
    case 2: return pick(0, 1) ? INT64_MIN : INT64_MAX;
    default: return id;
    }
}

static bool keyed_holds(const keyed_term *t, const keyed_row *r)
{
    if (r->null) return t->op == 1 || t->op == 8 || t->op == 9;
    int64_t v = r->id;
    switch (t->op) {
    case 0: case 9: return v == t->a;
    case 1: return v != t->a;
    case 2: return v < t->a;
    case 3: return v <= t->a;
    case 4: return v > t->a;
    case 5: return v >= t->a;
    case 6: return v >= t->a && v <= t->b;
    case 7: return v == t->a || v == t->b || v == t->c;
    default: return false;
    }
}

static void keyed_text(const keyed_term *t, char *out, size_t size)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    long long a = t->a, b = t->b, c = t->c;
    if (t->op <= 5) snprintf(out, size, "id %s %lld", ops[t->op], a);
    else if (t->op == 6) snprintf(out, size, "id BETWEEN {%lld, %lld}", a, b);
    else if (t->op == 7) snprintf(out, size, "id IN {%lld, %lld, %lld}", a, b, c);
    else if (t->op == 8) snprintf(out, size, "id == nil");
    else snprintf(out, size, "id IN {nil, %lld}", a);
}

/* The rows (by their n) that text selects in cls, as a mask; checks the result is in
 * key order. */
static uint64_t keyed_run(lar_txn *txn, lar_env *env, lar_class cls, const char *text)
{
    lar_query *q = NULL;
    if (lar_query_parse(env, cls, text, &q) != LAR_OK)
        test_fail(__FILE__, __LINE__, "parse of %s failed: %s", text, lar_error_last()->message);
    lar_results *r;
    if (lar_query_run(txn, q, &r) != LAR_OK)
        test_fail(__FILE__, __LINE__, "run of %s failed: %s", text, lar_error_last()->message);
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    uint64_t mask = 0;
    lar_objkey previous = 0;
    for (size_t i = 0; i < count; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        if (obj.key <= previous) test_fail(__FILE__, __LINE__, "%s: results out of key order", text);
        previous = obj.key;
        int64_t n = get_value(txn, obj, 1).as.integer;
        if (mask & (1ull << n)) test_fail(__FILE__, __LINE__, "%s: row %lld twice", text, (long long)n);
        mask |= 1ull << n;
    }
    lar_results_free(r);
    lar_query_free(q);
    return mask;
}

/* Random queries on the primary key: the keyed class (probes), the same data without a
 * primary key (a scan) and a brute-force evaluation agree. */
static void keyed_rounds(lar_txn *txn, lar_env *env, const lar_class cls[2], const keyed_row *rows, size_t count)
{
    for (int round = 0; round < 300; round++) {
        keyed_term t[3];
        for (int i = 0; i < 3; i++) {
            t[i] = (keyed_term){(int)pick(0, 9), keyed_constant(), keyed_constant(), keyed_constant()};
            if (t[i].op == 6 && pick(0, 3) && t[i].a > t[i].b) { int64_t s = t[i].a; t[i].a = t[i].b; t[i].b = s; }
        }
        char a[128], b[128], c[128], text[640];
        keyed_text(&t[0], a, sizeof a);
        keyed_text(&t[1], b, sizeof b);
        keyed_text(&t[2], c, sizeof c);
        int64_t below = pick(0, (int64_t)count);
        int shape = (int)pick(0, 3);
        switch (shape) {
        case 0: snprintf(text, sizeof text, "%s", a); break;
        case 1: snprintf(text, sizeof text, "%s AND n < %lld", a, (long long)below); break;
        case 2: snprintf(text, sizeof text, "%s OR %s", a, b); break;
        default: snprintf(text, sizeof text, "%s AND (%s OR %s)", a, b, c); break;
        }
        uint64_t expected = 0;
        for (size_t i = 0; i < count; i++) {
            const keyed_row *r = &rows[i];
            bool x = keyed_holds(&t[0], r), y = keyed_holds(&t[1], r), z = keyed_holds(&t[2], r);
            bool holds = shape == 0 ? x : shape == 1 ? x && (int64_t)i < below : shape == 2 ? x || y : x && (y || z);
            if (r->alive && holds) expected |= 1ull << i;
        }
        uint64_t keyed = keyed_run(txn, env, cls[0], text), plain = keyed_run(txn, env, cls[1], text);
        if (keyed != expected || plain != expected)
            test_fail(__FILE__, __LINE__, "%s: expected rows %llx, keyed class %llx, scan %llx", text,
                      (unsigned long long)expected, (unsigned long long)keyed, (unsigned long long)plain);
    }
}

static void keyed_create(lar_txn *txn, const lar_class cls[2], keyed_row *rows, size_t i, bool null, int64_t id)
{
    rows[i] = (keyed_row){id, null, true};
    lar_value v[] = {null ? val_null() : val_int(id), val_int((int64_t)i)};
    for (int c = 0; c < 2; c++) CHECK_OK(lar_obj_create(txn, cls[c], v, 2, NULL));
}

static void keyed_delete(lar_txn *txn, lar_env *env, const lar_class cls[2], keyed_row *rows, size_t i)
{
    char text[32];
    snprintf(text, sizeof text, "n == %zu", i);
    for (int c = 0; c < 2; c++) {
        lar_query *q = parse(env, cls[c], text);
        lar_results *r;
        CHECK_OK(lar_query_run(txn, q, &r));
        lar_obj obj;
        CHECK_OK(lar_results_get(r, 0, &obj));
        CHECK_OK(lar_obj_delete(txn, obj));
        lar_results_free(r);
        lar_query_free(q);
    }
    rows[i].alive = false;
}

TEST(query_eval_int_primary_keys_agree_with_a_scan)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def keyed[] = {PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY | LAR_PROP_OPTIONAL), PROP("n", LAR_TYPE_INT, 0)};
    lar_property_def plain[] = {PROP("id", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("Keyed", keyed), CLASS_DEF("Unkeyed", plain)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class cls[2] = {class_id(env, "Keyed"), class_id(env, "Unkeyed")};
    keyed_row rows[KEYED_ROWS + 4];
    size_t count = 0;
    lar_txn *txn = begin_write(env);
    keyed_create(txn, cls, rows, count++, true, 0); /* first: it takes key 1, INT64_MIN + 1's */
    for (size_t i = 0; i + 1 < KEYED_ROWS; i++) keyed_create(txn, cls, rows, count++, false, keyed_ids[i]);
    lar_value displaced = val_int(INT64_MIN + 1);
    lar_obj found;
    CHECK_OK(lar_obj_find(txn, cls[0], &displaced, &found));
    CHECK(found.key != 1); /* not the key its primary key gives: displaced */
    keyed_rounds(txn, env, cls, rows, count);
    commit_txn(txn);

    txn = begin_read(env);
    keyed_rounds(txn, env, cls, rows, count);
    lar_txn_free(txn);

    /* Displaced objects deleted (the null one frees key 1), others created in their place. */
    txn = begin_write(env);
    keyed_delete(txn, env, cls, rows, 0);
    keyed_delete(txn, env, cls, rows, 4);  /* INT64_MIN */
    keyed_delete(txn, env, cls, rows, 10); /* -40 */
    keyed_create(txn, cls, rows, count++, false, -41);
    keyed_create(txn, cls, rows, count++, true, 0);
    keyed_create(txn, cls, rows, count++, false, INT64_MIN);
    keyed_create(txn, cls, rows, count++, false, -40);
    keyed_rounds(txn, env, cls, rows, count);
    commit_txn(txn);
    txn = begin_read(env);
    keyed_rounds(txn, env, cls, rows, count);
    lar_txn_free(txn);
    close_env(env);
}

TEST(query_eval_decimal_sums_and_averages)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {COLL("prices", LAR_TYPE_DECIMAL128, LAR_COLLECTION_LIST, 0, NULL)};
    lar_class_def def = CLASS_DEF("Shop", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class shop = class_id(env, "Shop");
    /* {1.1, 2.2}, {}, {0.1, 0.1, 0.1}, {1, 0, 0}, {10, -10.00} (1.1 is 11E-1: BID exponent -1) */
    const uint64_t E0 = 0x3040000000000000ull, E_1 = 0x303E000000000000ull, E_2 = 0x303C000000000000ull;
    const uint64_t NEG = 1ull << 63;
    lar_value lists[][3] = {
        {val_dec(11, E_1), val_dec(22, E_1)}, {{0}}, {val_dec(1, E_1), val_dec(1, E_1), val_dec(1, E_1)},
        {val_dec(1, E0), val_dec(0, E0), val_dec(0, E0)}, {val_dec(10, E0), val_dec(1000, E_2 | NEG)},
    };
    size_t sizes[] = {2, 0, 3, 3, 2};
    lar_obj shops[5];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 5; i++) {
        CHECK_OK(lar_obj_create(txn, shop, NULL, 0, &shops[i]));
        for (size_t j = 0; j < sizes[i]; j++) CHECK_OK(lar_list_append(txn, shops[i], 0, &lists[i][j]));
    }
    commit_txn(txn);
#define SHOPS(text) run_args(env, shop, shops, 5, (text), NULL, 0, __LINE__)
    EXPECT(SHOPS("prices.@sum == 3.3"), B(0));
    EXPECT(SHOPS("prices.@sum == 0.3"), B(2));
    EXPECT(SHOPS("prices.@sum == 0"), B(1) | B(4));
    EXPECT(SHOPS("prices.@sum > 1"), B(0));
    EXPECT(SHOPS("prices.@avg == 1.65"), B(0));
    EXPECT(SHOPS("prices.@avg == 0.1"), B(2));
    EXPECT(SHOPS("prices.@avg == 0.3333333333333333333333333333333333"), B(3)); /* 34 digits */
    EXPECT(SHOPS("prices.@avg == nil"), B(1));
    EXPECT(SHOPS("prices.@max == 10 AND prices.@min == -10"), B(4));
#undef SHOPS
    close_env(env);
}

/* Runs text on the dogs inside txn. */
static unsigned dogs_in(lar_txn *txn, const world *w, const char *text)
{
    return matches_of(txn, w->env, w->dog, w->dogs, 6, text);
}

TEST(query_eval_sees_its_own_write)
{
    world w = setup_world();
    lar_txn *txn = begin_write(w.env);
    uint32_t tags = prop_id(w.env, w.dog, "tags"), name = prop_id(w.env, w.dog, "name");
    lar_value c = val_str("c"), renamed = val_str("Zed");
    CHECK_OK(lar_list_append(txn, w.dogs[5], tags, &c));
    CHECK_OK(lar_obj_set(txn, w.dogs[1], name, &renamed));
    EXPECT(dogs_in(txn, &w, "tags == 'c'"), B(5));
    EXPECT(dogs_in(txn, &w, "name == 'Zed' OR owner.name == 'Bob'"), B(1));
    EXPECT(dogs_in(txn, &w, "friends.name == 'Zed'"), B(0) | B(3));
    EXPECT(dogs_in(txn, &w, "@links.Person.dogs.name == 'Bob'"), B(1));
    CHECK_OK(lar_obj_delete(txn, w.people[0]));
    EXPECT(dogs_in(txn, &w, "owner == nil"), B(0) | B(2) | B(3) | B(5));
    EXPECT(dogs_in(txn, &w, "@links.Person.dogs.@count == 0"), B(2) | B(3) | B(5));
    lar_txn_abort(txn);
    lar_txn_free(txn);
    EXPECT(PEOPLE("@links.Dog.owner.@count == 2"), B(0));
    EXPECT(PEOPLE("@links.Dog.owner.name CONTAINS 'x'"), B(0) | B(1));
    EXPECT(PEOPLE("ALL @links.Dog.owner.age > 2"), B(1) | B(2)); /* Alice's Fido is 1 */
    close_env(w.env);
}

TEST(query_eval_all_backlinks_counted)
{
    world w = setup_world();
    EXPECT(DOGS("@links.@count == 0"), B(2) | B(5));
    EXPECT(DOGS("@links.@count == 2"), B(0) | B(4));
    EXPECT(DOGS("@links.@size == 3"), B(1));
    EXPECT(DOGS("@links.@count > 0 AND @links.Dog.friends.@count == 0"), B(0) | B(3));
    EXPECT(PEOPLE("@links.@count == 1"), B(1) | B(2));
    /* It describes and parses back as itself; nothing may follow it. */
    lar_query *q = parse(w.env, w.dog, "@links.@size>=1");
    char text[64];
    CHECK_OK(lar_query_describe(q, text, sizeof text, NULL, 0));
    CHECK_STR(text, "@links.@count >= 1");
    lar_query_free(q);
    CHECK_RC(lar_query_parse(w.env, w.dog, "@links.@count.name == 1", &q), LAR_EINVAL);
    CHECK_MSG_HAS("nothing may follow an aggregate");
    CHECK_RC(lar_query_parse(w.env, w.dog, "@links.@min > 1", &q), LAR_EINVAL);
    CHECK_MSG_HAS("a class name or @count after '@links.'");
    CHECK_RC(lar_query_parse(w.env, w.dog, "ANY @links.@count > 1", &q), LAR_EINVAL);
    /* A file without links anywhere has no backlinks to count. */
    lar_env *plain = open_env(test_db_path("plain"));
    lar_property_def props[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("N", props);
    CHECK_OK(lar_schema_apply(plain, &def, 1, 1));
    lar_class n = class_id(plain, "N");
    lar_txn *txn = begin_write(plain);
    lar_obj one;
    lar_value v = val_int(1);
    CHECK_OK(lar_obj_create(txn, n, &v, 1, &one));
    commit_txn(txn);
    EXPECT(run_args(plain, n, &one, 1, "@links.@count == 0", NULL, 0, __LINE__), B(0));
    close_env(plain);
    close_env(w.env);
}

/* ---- links, lists, aggregates and subqueries against a brute-force evaluator ---- */

#define PEOPLE_N 40
#define DOGS_N 60

typedef struct pet_world {
    int64_t age[DOGS_N];
    int owner[DOGS_N];            /* -1: none */
    bool score_null[PEOPLE_N];
    int64_t score[PEOPLE_N];
    int dogs[PEOPLE_N][6];        /* indexes into the dogs, count in dog_count */
    int dog_count[PEOPLE_N];
    int best[PEOPLE_N];           /* -1: none */
} pet_world;

static const char *const cmp_ops[] = {"==", "!=", "<", "<=", ">", ">="};

/* The comparison op (0..5) of a value, which may be missing (null), with c. */
static bool holds(int op, bool present, int64_t v, int64_t c)
{
    if (!present) return op == 1;
    switch (op) {
    case 0: return v == c;
    case 1: return v != c;
    case 2: return v < c;
    case 3: return v <= c;
    case 4: return v > c;
    default: return v >= c;
    }
}

typedef struct pet_term {
    int kind, op, op2;
    int64_t c, k;
} pet_term;

static void pet_text(const pet_term *t, char *out, size_t size)
{
    const char *op = cmp_ops[t->op];
    long long c = (long long)t->c;
    switch (t->kind) {
    case 0: snprintf(out, size, "score %s %lld", op, c); break;
    case 1: snprintf(out, size, "best.age %s %lld", op, c); break;
    case 2: snprintf(out, size, "ANY dogs.age %s %lld", op, c); break;
    case 3: snprintf(out, size, "ALL dogs.age %s %lld", op, c); break;
    case 4: snprintf(out, size, "NONE dogs.age %s %lld", op, c); break;
    case 5: snprintf(out, size, "dogs.@count %s %lld", op, c % 7); break;
    case 6: snprintf(out, size, "dogs.age.@sum %s %lld", op, c * 3); break;
    case 7: snprintf(out, size, "dogs.age.@max %s %lld", op, c); break;
    case 8:
        snprintf(out, size, "SUBQUERY(dogs, $d, $d.age %s %lld).@count %s %lld", op, c, cmp_ops[t->op2],
                 (long long)t->k);
        break;
    default: snprintf(out, size, "dogs.owner.score %s %lld", op, c); break;
    }
}

static bool pet_holds(const pet_term *t, const pet_world *pw, int i)
{
    int n = pw->dog_count[i];
    int64_t sum = 0, max = 0, matched = 0;
    bool any = false, all = true;
    for (int j = 0; j < n; j++) {
        int64_t age = pw->age[pw->dogs[i][j]];
        bool h = holds(t->op, true, age, t->c);
        any |= h;
        all &= h;
        matched += h;
        sum += age;
        max = j == 0 || age > max ? age : max;
    }
    switch (t->kind) {
    case 0: return holds(t->op, !pw->score_null[i], pw->score[i], t->c);
    case 1: return holds(t->op, pw->best[i] >= 0, pw->best[i] >= 0 ? pw->age[pw->best[i]] : 0, t->c);
    case 2: return any;
    case 3: return all;
    case 4: return !any;
    case 5: return holds(t->op, true, n, t->c % 7);
    case 6: return holds(t->op, true, sum, t->c * 3);
    case 7: return holds(t->op, n > 0, max, t->c);
    case 8: return holds(t->op2, true, matched, t->k);
    default:
        for (int j = 0; j < n; j++) {
            int owner = pw->owner[pw->dogs[i][j]];
            bool present = owner >= 0 && !pw->score_null[owner];
            if (holds(t->op, present, present ? pw->score[owner] : 0, t->c)) return true;
        }
        return false;
    }
}

TEST(query_eval_paths_and_aggregates_agree_with_brute_force)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def dog[] = {PROP("age", LAR_TYPE_INT, 0),
                              COLL("owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person")};
    lar_property_def person[] = {PROP("score", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
                                 COLL("dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
                                 COLL("best", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Dog")};
    lar_class_def classes[] = {CLASS_DEF("Dog", dog), CLASS_DEF("Person", person)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class dog_cls = class_id(env, "Dog"), person_cls = class_id(env, "Person");
    uint32_t age_p = prop_id(env, dog_cls, "age"), owner_p = prop_id(env, dog_cls, "owner");
    uint32_t score_p = prop_id(env, person_cls, "score"), dogs_p = prop_id(env, person_cls, "dogs"),
             best_p = prop_id(env, person_cls, "best");
    static pet_world pw;
    lar_obj dogs[DOGS_N], people[PEOPLE_N];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < PEOPLE_N; i++) {
        pw.score_null[i] = pick(0, 4) == 0;
        pw.score[i] = pick(-5, 5);
        CHECK_OK(lar_obj_create(txn, person_cls, NULL, 0, &people[i]));
        lar_value score = pw.score_null[i] ? val_null() : val_int(pw.score[i]);
        CHECK_OK(lar_obj_set(txn, people[i], score_p, &score));
    }
    for (int i = 0; i < DOGS_N; i++) {
        pw.age[i] = pick(0, 9);
        pw.owner[i] = pick(0, 3) == 0 ? -1 : (int)pick(0, PEOPLE_N - 1);
        CHECK_OK(lar_obj_create(txn, dog_cls, NULL, 0, &dogs[i]));
        lar_value age = val_int(pw.age[i]);
        CHECK_OK(lar_obj_set(txn, dogs[i], age_p, &age));
        if (pw.owner[i] >= 0) {
            lar_value owner = {.type = LAR_TYPE_LINK, .as.link = people[pw.owner[i]]};
            CHECK_OK(lar_obj_set(txn, dogs[i], owner_p, &owner));
        }
    }
    for (int i = 0; i < PEOPLE_N; i++) {
        pw.dog_count[i] = (int)pick(0, 5);
        for (int j = 0; j < pw.dog_count[i]; j++) {
            pw.dogs[i][j] = (int)pick(0, DOGS_N - 1); /* repeats allowed, as lists allow */
            lar_value d = {.type = LAR_TYPE_LINK, .as.link = dogs[pw.dogs[i][j]]};
            CHECK_OK(lar_list_append(txn, people[i], dogs_p, &d));
        }
        pw.best[i] = pick(0, 2) == 0 ? -1 : (int)pick(0, DOGS_N - 1);
        if (pw.best[i] >= 0) {
            lar_value b = {.type = LAR_TYPE_LINK, .as.link = dogs[pw.best[i]]};
            CHECK_OK(lar_obj_set(txn, people[i], best_p, &b));
        }
    }
    commit_txn(txn);
    txn = begin_read(env);
    for (int round = 0; round < 300; round++) {
        pet_term a = {(int)pick(0, 9), (int)pick(0, 5), (int)pick(0, 5), pick(-6, 10), pick(0, 4)};
        pet_term b = {(int)pick(0, 9), (int)pick(0, 5), (int)pick(0, 5), pick(-6, 10), pick(0, 4)};
        char ta[160], tb[160], text[400];
        pet_text(&a, ta, sizeof ta);
        pet_text(&b, tb, sizeof tb);
        int shape = (int)pick(0, 2);
        snprintf(text, sizeof text, shape == 0 ? "%s" : shape == 1 ? "%s AND NOT %s" : "%s OR %s", ta, tb);
        lar_query *q = NULL;
        if (lar_query_parse(env, person_cls, text, &q) != LAR_OK)
            test_fail(__FILE__, __LINE__, "parse of %s failed: %s", text, lar_error_last()->message);
        lar_results *r;
        CHECK_OK(lar_query_run(txn, q, &r));
        size_t count, at = 0;
        CHECK_OK(lar_results_count(r, &count));
        for (int i = 0; i < PEOPLE_N; i++) {
            bool x = pet_holds(&a, &pw, i), y = pet_holds(&b, &pw, i);
            bool expected = shape == 0 ? x : shape == 1 ? x && !y : x || y;
            lar_obj obj = {0, 0};
            bool got = at < count && lar_results_get(r, at, &obj) == LAR_OK && obj.key == people[i].key;
            if (got) at++;
            if (got != expected)
                test_fail(__FILE__, __LINE__, "%s: person %d %s, expected %s", text, i, got ? "matched" : "did not match",
                          expected ? "a match" : "none");
        }
        CHECK_EQ(at, count);
        lar_results_free(r);
        lar_query_free(q);
    }
    lar_txn_free(txn);
    close_env(env);
}

/* A damaged row is reported by the scan or probe that reaches it (LAR_ECORRUPT); a
 * probe that does not reach it runs. */
TEST(query_eval_damaged_rows_are_reported)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj made[4];
    for (int i = 0; i < 4; i++) made[i] = person_create(txn, &p, i, "someone", 20 + i, i);
    commit_txn(txn);
    close_env(env);
    test_damage_row(path, p.cls, made[2].key);

    env = open_env(path);
    lar_query *all = parse(env, p.cls, "age > 0"), *damaged = parse(env, p.cls, "id == 2"),
              *others = parse(env, p.cls, "id IN {0, 1, 3}");
    txn = begin_read(env);
    lar_results *r;
    CHECK_RC(lar_query_run(txn, all, &r), LAR_ECORRUPT);
    /* An int primary key keys its object: finding `id == 2` reads its row, which reports it. */
    CHECK_RC(lar_query_run(txn, damaged, &r), LAR_ECORRUPT);
    CHECK_OK(lar_query_run(txn, others, &r));
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    CHECK_EQ(count, 3);
    lar_results_free(r);
    lar_txn_free(txn);
    lar_query_free(all);
    lar_query_free(damaged);
    lar_query_free(others);
    close_env(env);
}

/* The positions in w.dogs of a result's objects, in result order; returns the count. */
static size_t run_order(world *w, const char *text, int *positions)
{
    lar_query *q = parse(w->env, w->dog, text);
    lar_txn *txn = begin_read(w->env);
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    for (size_t i = 0; i < count && i < 6; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        positions[i] = -1;
        for (int j = 0; j < 6; j++)
            if (w->dogs[j].key == obj.key) positions[i] = j;
    }
    lar_results_free(r);
    lar_txn_free(txn);
    lar_query_free(q);
    return count;
}

#define EXPECT_ORDER(text, ...)                                                                            \
    do {                                                                                                   \
        const int want_[] = {__VA_ARGS__};                                                                 \
        int got_[6];                                                                                       \
        size_t n_ = run_order(&w, (text), got_);                                                           \
        if (n_ != COUNT_OF(want_)) test_fail(__FILE__, __LINE__, "%s: %zu objects, expected %zu", (text), n_, \
                                             COUNT_OF(want_));                                             \
        for (size_t i_ = 0; i_ < n_; i_++)                                                                 \
            if (got_[i_] != want_[i_])                                                                     \
                test_fail(__FILE__, __LINE__, "%s: position %zu is dog %d, expected %d", (text), i_, got_[i_], \
                          want_[i_]);                                                                      \
    } while (0)

/* SORT, DISTINCT and LIMIT after the filter, applied in the order written. */
TEST(query_eval_sort_distinct_limit_suffixes)
{
    world w = setup_world();
    EXPECT_ORDER("age > 2 SORT(age DESC)", 4, 2, 1, 0);
    EXPECT_ORDER("TRUEPREDICATE SORT(age ASC) LIMIT(3)", 5, 3, 0);
    EXPECT_ORDER("TRUEPREDICATE LIMIT(3) SORT(age DESC)", 2, 1, 0);
    EXPECT_ORDER("age < 10 SORT(owner.name ASC, age DESC)", 0, 3, 1, 2, 5); /* no owner: after every name */
    EXPECT_ORDER("TRUEPREDICATE DISTINCT(owner.name) SORT(age ASC)", 0, 1, 4); /* no owner: dropped */
    EXPECT_ORDER("name BEGINSWITH[c] 'r' SORT(name ASC)", 0, 2, 1); /* code points: Rex < Réx < rex */
    int none[6];
    CHECK(run_order(&w, "FALSEPREDICATE SORT(age ASC) LIMIT(1)", none) == 0);
    lar_env_close(w.env);
}

/* The number of objects q finds with args bound. */
static size_t count_bound(lar_txn *txn, lar_query *q, const lar_query_arg *args, size_t n)
{
    CHECK_OK(lar_query_bind(q, args, n));
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    lar_results_free(r);
    return count;
}

/* Equalities an index answers alone give their objects without reading rows, unless
 * the index holds a string cut short; a query rebound with values of the same types
 * keeps resolving as before. Both agree with the plain class's scan. */
TEST(query_eval_index_answers_and_rebinds_agree_with_scans)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def indexed[] = {PROP("s", LAR_TYPE_STRING, LAR_PROP_INDEXED), PROP("n", LAR_TYPE_INT, LAR_PROP_INDEXED)};
    lar_property_def plain[] = {PROP("s", LAR_TYPE_STRING, 0), PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("Indexed", indexed), CLASS_DEF("Plain", plain)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class cls[2] = {class_id(env, "Indexed"), class_id(env, "Plain")};
    static char long_a[600], long_b[600];
    memset(long_a, 'x', 590);
    memset(long_b, 'x', 590);
    long_b[589] = 'y'; /* differs from long_a past what an index key holds */
    const char *texts[] = {long_a, long_b, "short", "", long_a, "short"};
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 6; i++) {
        lar_value v[] = {val_str(texts[i]), val_int(i % 3)};
        for (int c = 0; c < 2; c++) CHECK_OK(lar_obj_create(txn, cls[c], v, 2, NULL));
    }
    commit_txn(txn);
    txn = begin_read(env);
    const char *probes[] = {long_a, "short", long_b, "", "none", long_a, "x", "short"};
    const size_t want[] = {2, 2, 1, 1, 0, 2, 0, 2}, want_either[] = {4, 2, 3, 3, 2, 4, 2, 2}; /* n == 2: the two "short" */
    for (int c = 0; c < 2; c++) {
        lar_query *eq = parse(env, cls[c], "s == $0"), *either = parse(env, cls[c], "s == $0 OR n == $1");
        for (size_t i = 0; i < COUNT_OF(probes); i++) {
            lar_query_arg arg = {.kind = LAR_QUERY_ARG_VALUE, .value = val_str(probes[i])};
            CHECK_EQ(count_bound(txn, eq, &arg, 1), want[i]);
            lar_query_arg two[] = {arg, {.kind = LAR_QUERY_ARG_VALUE, .value = val_int(2)}};
            CHECK_EQ(count_bound(txn, either, two, 2), want_either[i]);
        }
        /* Another type resolves again (and fails as a first bind would); bad UTF-8 unbinds. */
        lar_query_arg number = {.kind = LAR_QUERY_ARG_VALUE, .value = val_int(1)};
        CHECK_RC(lar_query_bind(eq, &number, 1), LAR_EINVAL);
        lar_query_arg bad = {.kind = LAR_QUERY_ARG_VALUE, .value = val_str("ok")};
        CHECK_EQ(count_bound(txn, eq, &bad, 1), 0);
        bad.value.as.string = (lar_string){"\xff", 1};
        CHECK_RC(lar_query_bind(eq, &bad, 1), LAR_EINVAL);
        lar_results *r;
        CHECK_RC(lar_query_run(txn, eq, &r), LAR_EINVAL);
        lar_query_free(eq);
        lar_query_free(either);
    }
    lar_txn_free(txn);
    close_env(env);
}
