/* Sort, distinct, limit and aggregates over a lar_results (CCore/query/order.c,
 * aggregate.c): realm-core's order of values, pinned case by case, stability, key paths
 * through links and embedded objects, every error, and a 200,000-object sort.
 *
 * The results are built by hand from lar_iter (lar_query_run is another part's), with the
 * contract's struct from CCore/query/results.h, and freed here. */
#include "test.h"
#include "query/order.h"

#include <math.h>
#include <stdlib.h>

enum { D_NAME, D_AGE, D_WEIGHT, D_RATIO, D_PRICE, D_BORN, D_EXTRA, D_OWNER, D_TAGS, D_DATA, D_ALIVE };
enum { P_NAME, P_AGE, P_ADDRESS, P_DOGS };

#define LINK(name, coll, flags, target) ((lar_property_def){(name), LAR_TYPE_LINK, (coll), (flags), (target), NULL})

typedef struct world {
    lar_env *env;
    lar_class dog, person, address;
} world;

static world setup(void)
{
    world w = {.env = open_env(test_db_path(NULL))};
    lar_property_def address[] = {PROP("city", LAR_TYPE_STRING, 0)};
    lar_property_def person[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
        LINK("address", LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address"),
        LINK("dogs", LAR_COLLECTION_LIST, 0, "Dog"),
    };
    lar_property_def dog[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
        PROP("weight", LAR_TYPE_DOUBLE, LAR_PROP_OPTIONAL),
        PROP("ratio", LAR_TYPE_FLOAT, 0),
        PROP("price", LAR_TYPE_DECIMAL128, LAR_PROP_OPTIONAL),
        PROP("born", LAR_TYPE_TIMESTAMP, LAR_PROP_OPTIONAL),
        PROP("extra", LAR_TYPE_MIXED, 0),
        LINK("owner", LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person"),
        {"tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL, NULL},
        PROP("data", LAR_TYPE_BINARY, 0),
        PROP("alive", LAR_TYPE_BOOL, 0),
    };
    lar_class_def classes[] = {{"Address", address, COUNT_OF(address), LAR_CLASS_EMBEDDED}, CLASS_DEF("Person", person),
                               CLASS_DEF("Dog", dog)};
    CHECK_OK(lar_schema_apply(w.env, classes, 3, 1));
    w.dog = class_id(w.env, "Dog");
    w.person = class_id(w.env, "Person");
    w.address = class_id(w.env, "Address");
    return w;
}

/* A dog with defaults and this name. */
static lar_obj dog_named(lar_txn *txn, const world *w, const char *name)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, w->dog, NULL, 0, &obj));
    lar_value v = val_str(name);
    CHECK_OK(lar_obj_set(txn, obj, D_NAME, &v));
    return obj;
}

static lar_obj dog_with(lar_txn *txn, const world *w, const char *name, uint32_t prop, lar_value value)
{
    lar_obj obj = dog_named(txn, w, name);
    CHECK_OK(lar_obj_set(txn, obj, prop, &value));
    return obj;
}

/* Every object of cls, in key order. */
static lar_results *results_of(lar_txn *txn, lar_env *env, lar_class cls)
{
    lar_results *r = calloc(1, sizeof *r);
    CHECK(r);
    r->env = env;
    r->cls = cls;
    lar_iter *it;
    CHECK_OK(lar_iter_open(txn, cls, &it));
    lar_obj obj;
    int rc;
    while ((rc = lar_iter_next(it, &obj)) == LAR_OK) {
        if (r->count == r->capacity) {
            r->capacity = r->capacity ? r->capacity * 2 : 16;
            r->keys = big_realloc(r->keys, r->capacity * sizeof *r->keys); /* as the library's results */
            CHECK(r->keys);
        }
        r->keys[r->count++] = obj.key;
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    lar_iter_close(it);
    return r;
}

static void results_release(lar_results *r)
{
    big_free(r->keys);
    free(r);
}

/* The end of a test: its results (or NULL) freed, its transaction aborted, its file closed. */
static void finish(world *w, lar_txn *txn, lar_results *r)
{
    if (r) results_release(r);
    lar_txn_abort(txn);
    lar_txn_free(txn);
    close_env(w->env);
}

/* The dogs' names in result order, joined by commas. */
static const char *names(lar_txn *txn, const lar_results *r)
{
    static char buf[4096];
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < r->count; i++) {
        lar_value v = get_value(txn, (lar_obj){r->cls, r->keys[i]}, D_NAME);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%.*s", i ? "," : "", (int)v.as.string.size,
                                 v.as.string.data);
        CHECK(used < sizeof buf);
    }
    return buf;
}

static lar_value fold(lar_txn *txn, const lar_results *r, const char *keypath, lar_aggregate_op op);

static void sort1(lar_txn *txn, lar_results *r, const char *keypath, int ascending)
{
    lar_sort_descriptor d = {keypath, ascending};
    CHECK_OK(lar_results_sort(txn, r, &d, 1));
}

/* decimal128 digits × 10^exponent, positive, up to 34 digits */
static lar_value dec_digits(const char *digits, int exponent)
{
    __extension__ unsigned __int128 c = 0;
    for (const char *p = digits; *p; p++) c = c * 10 + (unsigned)(*p - '0');
    return val_dec((uint64_t)c, (uint64_t)(6176 + exponent) << 49 | (uint64_t)(c >> 64));
}

/* decimal128 coefficient × 10^exponent, positive */
static lar_value dec(uint64_t coefficient, int exponent)
{
    return val_dec(coefficient, (uint64_t)(6176 + exponent) << 49);
}

TEST(order_strings_by_code_point)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    /* As realm-core 14 sorts them: by code point, "ABZabz" (no longer "aAbBzZ"). */
    const char *input[] = {"b", "B", "a", "A", "\xc3\xa9" /* é */, "e", "Z", "z", "", "10", "9", "_x", " x",
                           "ab", "a b", "\xc3\x89" /* É */, "\xf0\x9f\x98\x80" /* U+1F600 */,
                           "\xef\xbf\xbd" /* U+FFFD */, "~", "aa"};
    for (size_t i = 0; i < COUNT_OF(input); i++) dog_named(txn, &w, input[i]);
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "name", 1);
    CHECK_STR(names(txn, r), ", x,10,9,A,B,Z,_x,a,a b,aa,ab,b,e,z,~,\xc3\x89,\xc3\xa9,\xef\xbf\xbd,\xf0\x9f\x98\x80");
    sort1(txn, r, "name", 0);
    CHECK_STR(names(txn, r), "\xf0\x9f\x98\x80,\xef\xbf\xbd,\xc3\xa9,\xc3\x89,~,z,e,b,ab,aa,a b,a,_x,Z,B,A,9,10, x,");
    finish(&w, txn, r);
}

TEST(order_doubles_floats_nil_and_nan)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    dog_with(txn, &w, "inf", D_WEIGHT, val_double(INFINITY));
    dog_with(txn, &w, "two", D_WEIGHT, val_double(2));
    dog_with(txn, &w, "nil", D_WEIGHT, val_null());
    dog_with(txn, &w, "nan", D_WEIGHT, val_double(NAN));
    dog_with(txn, &w, "neg", D_WEIGHT, val_double(-1.5));
    dog_with(txn, &w, "-inf", D_WEIGHT, val_double(-INFINITY));
    dog_with(txn, &w, "zero", D_WEIGHT, val_double(0));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "weight", 1);
    CHECK_STR(names(txn, r), "nil,nan,-inf,neg,zero,two,inf");
    sort1(txn, r, "weight", 0);
    CHECK_STR(names(txn, r), "inf,two,zero,neg,-inf,nan,nil");
    /* Floats: NaN first too. */
    float ratios[] = {3, NAN, -2, 1};
    for (size_t i = 0; i < r->count && i < 4; i++) {
        lar_value v = val_float(ratios[i]);
        CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[i]}, D_RATIO, &v));
    }
    sort1(txn, r, "ratio", 1); /* inf 3, two NaN, zero -2, neg 1; the other three 0 */
    CHECK_STR(names(txn, r), "two,zero,-inf,nan,nil,neg,inf");
    finish(&w, txn, r);
}

TEST(order_sort_is_stable_and_takes_several_keys)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    dog_with(txn, &w, "d", D_AGE, val_int(2));
    dog_with(txn, &w, "a", D_AGE, val_int(1));
    dog_with(txn, &w, "c", D_AGE, val_int(2));
    dog_with(txn, &w, "b", D_AGE, val_null());
    dog_with(txn, &w, "e", D_AGE, val_int(1));
    dog_with(txn, &w, "f", D_AGE, val_int(2));
    lar_results *r = results_of(txn, w.env, w.dog);
    /* Equal keys keep their order: creation order here. */
    sort1(txn, r, "age", 1);
    CHECK_STR(names(txn, r), "b,a,e,d,c,f");
    sort1(txn, r, "age", 0);
    CHECK_STR(names(txn, r), "d,c,f,a,e,b");
    lar_sort_descriptor two[] = {{"age", 1}, {"name", 0}};
    CHECK_OK(lar_results_sort(txn, r, two, 2));
    CHECK_STR(names(txn, r), "b,e,a,f,d,c");
    /* A sort by name, then by age, keeps names in order within an age. */
    sort1(txn, r, "name", 1);
    sort1(txn, r, "age", 1);
    CHECK_STR(names(txn, r), "b,a,e,c,d,f");
    CHECK_OK(lar_results_sort(txn, r, NULL, 0));
    CHECK_STR(names(txn, r), "b,a,e,c,d,f");
    finish(&w, txn, r);
}

static lar_obj person(lar_txn *txn, const world *w, const char *name, const char *city)
{
    lar_obj p;
    CHECK_OK(lar_obj_create(txn, w->person, NULL, 0, &p));
    lar_value v = val_str(name);
    CHECK_OK(lar_obj_set(txn, p, P_NAME, &v));
    if (city) {
        lar_value c = val_str(city);
        CHECK_OK(lar_obj_create_embedded(txn, p, P_ADDRESS, &c, 1, NULL));
    }
    return p;
}

static lar_value link_to(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

TEST(order_through_links_and_embedded_objects)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    lar_obj zed = person(txn, &w, "Zed", "Aarhus"), amy = person(txn, &w, "Amy", "Oslo"),
            bob = person(txn, &w, "Bob", NULL);
    dog_with(txn, &w, "rex", D_OWNER, link_to(zed));
    dog_with(txn, &w, "fido", D_OWNER, link_to(amy));
    dog_named(txn, &w, "stray");
    dog_with(txn, &w, "spot", D_OWNER, link_to(bob));
    lar_results *r = results_of(txn, w.env, w.dog);
    /* realm-core sorts an object with a nil link on the way (stray's owner, Bob's address)
     * apart from nil values: after every value ascending, before them descending. */
    sort1(txn, r, "owner.name", 1);
    CHECK_STR(names(txn, r), "fido,spot,rex,stray");
    sort1(txn, r, "owner.address.city", 1);
    CHECK_STR(names(txn, r), "rex,fido,spot,stray");
    sort1(txn, r, "owner.address.city", 0);
    CHECK_STR(names(txn, r), "spot,stray,fido,rex");
    /* A nil link and a nil value are not alike: the nil value first, the nil link last. */
    lar_obj nobody = person(txn, &w, "", "Oslo");
    lar_value no_name = val_str("");
    CHECK_OK(lar_obj_set(txn, nobody, P_NAME, &no_name));
    dog_with(txn, &w, "lost", D_OWNER, link_to(nobody));
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    lar_sort_descriptor two[] = {{"owner.address.city", 0}, {"name", 1}};
    CHECK_OK(lar_results_sort(txn, r, two, 2));
    CHECK_STR(names(txn, r), "spot,stray,fido,lost,rex");
    /* Distinct drops the objects with a nil link on the way, as realm-core does. */
    const char *city[] = {"owner.address.city"};
    CHECK_OK(lar_results_distinct(txn, r, city, 1));
    CHECK_STR(names(txn, r), "fido,rex");
    finish(&w, txn, r);
}

TEST(order_mixed_values_by_kind_then_value)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    uint8_t oid[12] = {1}, uid[16] = {2};
    lar_obj owner = person(txn, &w, "p", NULL);
    dog_with(txn, &w, "uuid", D_EXTRA, val_uuid(uid));
    dog_with(txn, &w, "str", D_EXTRA, val_str("s"));
    dog_with(txn, &w, "link", D_EXTRA, link_to(owner));
    dog_with(txn, &w, "three", D_EXTRA, val_int(3));
    dog_with(txn, &w, "bin", D_EXTRA, val_bin("a", 1));
    dog_with(txn, &w, "true", D_EXTRA, val_bool(1));
    dog_with(txn, &w, "nan", D_EXTRA, val_double(NAN));
    dog_with(txn, &w, "date", D_EXTRA, val_ts(-5, 0));
    dog_with(txn, &w, "dec1.5", D_EXTRA, dec(15, -1));
    dog_with(txn, &w, "null", D_EXTRA, val_null());
    dog_with(txn, &w, "oid", D_EXTRA, val_oid(oid));
    dog_with(txn, &w, "false", D_EXTRA, val_bool(0));
    dog_with(txn, &w, "f2.5", D_EXTRA, val_float(2.5f));
    dog_with(txn, &w, "one", D_EXTRA, val_int(1));
    dog_with(txn, &w, "emptystr", D_EXTRA, val_str(""));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "extra", 1);
    CHECK_STR(names(txn, r), "null,false,true,nan,one,dec1.5,f2.5,three,emptystr,str,bin,date,oid,uuid,link");
    finish(&w, txn, r);
}

TEST(order_numbers_compare_exactly_across_types)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    /* 2^53 + 1 is no double: as a double it would equal 2^53. */
    dog_with(txn, &w, "int", D_EXTRA, val_int(9007199254740993));
    dog_with(txn, &w, "double", D_EXTRA, val_double(9007199254740992.0));
    dog_with(txn, &w, "max", D_EXTRA, val_int(INT64_MAX));
    dog_with(txn, &w, "2^63", D_EXTRA, val_double(9223372036854775808.0));
    dog_with(txn, &w, "min", D_EXTRA, val_int(INT64_MIN));
    dog_with(txn, &w, "-inf", D_EXTRA, val_double(-INFINITY));
    dog_with(txn, &w, "half", D_EXTRA, val_double(-0.5));
    dog_with(txn, &w, "dec-1", D_EXTRA, val_dec(1, (uint64_t)1 << 63 | (uint64_t)6176 << 49));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "extra", 1);
    CHECK_STR(names(txn, r), "-inf,min,dec-1,half,double,int,max,2^63");
    finish(&w, txn, r);
}

TEST(order_decimals_timestamps_bools_and_binaries)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    dog_with(txn, &w, "ten", D_PRICE, dec(1, 1));
    dog_with(txn, &w, "two", D_PRICE, dec(2, 0));
    dog_with(txn, &w, "nil", D_PRICE, val_null());
    dog_with(txn, &w, "onehalf", D_PRICE, dec(150, -2));
    dog_with(txn, &w, "neg", D_PRICE, val_dec(7, (uint64_t)1 << 63 | (uint64_t)6176 << 49));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "price", 1);
    CHECK_STR(names(txn, r), "nil,neg,onehalf,two,ten");
    /* Timestamps by time, before 1970 too; nanoseconds break ties. */
    lar_value born[] = {val_ts(0, 1), val_ts(-1, -500), val_null(), val_ts(-1, -200), val_ts(0, 0)};
    for (size_t i = 0; i < r->count; i++)
        CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[i]}, D_BORN, &born[i]));
    sort1(txn, r, "born", 1);
    CHECK_STR(names(txn, r), "onehalf,neg,two,ten,nil");
    /* Bools: false first; binaries by bytes, shorter first. */
    lar_value alive = val_bool(1);
    CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[1]}, D_ALIVE, &alive));
    sort1(txn, r, "alive", 0);
    CHECK_STR(names(txn, r), "neg,onehalf,two,ten,nil");
    const char *bytes[] = {"\xff", "a", "", "ab", "\x01"};
    for (size_t i = 0; i < r->count; i++) {
        lar_value v = val_bin(bytes[i], strlen(bytes[i]));
        CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[i]}, D_DATA, &v));
    }
    sort1(txn, r, "data", 1);
    CHECK_STR(names(txn, r), "two,nil,onehalf,ten,neg");
    finish(&w, txn, r);
}

TEST(order_floats_and_doubles_meet_decimals_as_realm_converts_them)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    /* realm-core compares a float with a decimal128 as the float rounded to 7 digits, a
     * double as the double rounded to 15: 0.1f is decimal 0.1, 0.1 + 0.2 is decimal 0.3.
     * (A float and a double compare as doubles: 0.1f > 0.1, so no test mixes the two.) */
    dog_with(txn, &w, "f", D_EXTRA, val_float(0.1f));
    dog_with(txn, &w, "d", D_EXTRA, dec(1, -1));
    dog_with(txn, &w, "dbl", D_EXTRA, val_double(0.1 + 0.2)); /* 0.30000000000000004 */
    dog_with(txn, &w, "third", D_EXTRA, val_float(1.0f / 3));
    dog_with(txn, &w, "d7", D_EXTRA, dec(3333333, -7));
    dog_with(txn, &w, "d8", D_EXTRA, dec(33333334, -8));
    dog_with(txn, &w, "d3", D_EXTRA, dec(3, -1));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "extra", 0);
    CHECK_STR(names(txn, r), "d8,third,d7,dbl,d3,f,d");
    const char *extra[] = {"extra"};
    CHECK_OK(lar_results_distinct(txn, r, extra, 1));
    CHECK_STR(names(txn, r), "d8,third,dbl,f");
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    r->count = 2; /* 0.1f + decimal 0.1 */
    CHECK_VALUE(fold(txn, r, "extra", LAR_AGGREGATE_SUM), dec(2, -1));
    /* Two decimal NaNs: ordered by their bits (realm-core), so distinct keeps both. */
    lar_value nan1 = val_dec(0, 0x7C00000000000000ull), nan2 = val_dec(1, 0x7C00000000000000ull);
    CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[0]}, D_PRICE, &nan2));
    CHECK_OK(lar_obj_set(txn, (lar_obj){w.dog, r->keys[1]}, D_PRICE, &nan1));
    sort1(txn, r, "price", 1);
    CHECK_STR(names(txn, r), "d,f");
    const char *price[] = {"price"};
    CHECK_OK(lar_results_distinct(txn, r, price, 1));
    CHECK_EQ(r->count, 2);
    finish(&w, txn, r);
}

static void check_sort_error(lar_txn *txn, lar_results *r, const char *keypath, const char *message, int line)
{
    lar_objkey before[64];
    size_t count = r->count;
    memcpy(before, r->keys, count * sizeof *before);
    lar_sort_descriptor d[] = {{"name", 1}, {keypath, 1}};
    lar_error_clear();
    int rc = lar_results_sort(txn, r, d, 2);
    if (rc != LAR_EINVAL) test_fail(__FILE__, line, "sort on %s returned %d", keypath ? keypath : "NULL", rc);
    if (strcmp(lar_error_last()->message, message) != 0)
        test_fail(__FILE__, line, "sort on %s: \"%s\", expected \"%s\"", keypath ? keypath : "NULL",
                  lar_error_last()->message, message);
    if (r->count != count || memcmp(before, r->keys, count * sizeof *before) != 0)
        test_fail(__FILE__, line, "a failed sort changed the results");
}
#define SORT_ERR(keypath, message) check_sort_error(txn, r, (keypath), (message), __LINE__)

TEST(order_errors_name_the_problem)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    dog_named(txn, &w, "b");
    dog_named(txn, &w, "a");
    lar_results *r = results_of(txn, w.env, w.dog);
    SORT_ERR("agee", "unknown property 'agee' on class 'Dog' at column 1");
    SORT_ERR("tags", "cannot sort on list property 'tags'");
    SORT_ERR("owner", "cannot sort on link property 'owner'");
    SORT_ERR("owner.address", "cannot sort on link property 'address'");
    SORT_ERR("owner.dogs.name", "cannot sort on 'owner.dogs.name': it passes through list property 'dogs'");
    SORT_ERR("owner.nme", "unknown property 'nme' on class 'Person' at column 7");
    SORT_ERR("name.@count", "cannot sort on 'name': it ends with an aggregate (@count, @min...)");
    SORT_ERR("@links.Person.dogs.name", "cannot sort on '@links.Person.dogs.name': only properties and to-one links can be followed");
    SORT_ERR("", "expected a key path but found the end of the query at column 1");
    SORT_ERR("name ==", "expected the end of the key path but found '==' at column 6");
    SORT_ERR(NULL, "cannot sort on a NULL key path");
    SORT_ERR("n\xff", "cannot sort on a key path that is not valid UTF-8");
    const char *bad[] = {"tags"};
    CHECK_RC(lar_results_distinct(txn, r, bad, 1), LAR_EINVAL);
    CHECK_MSG_HAS("cannot distinct on list property 'tags'");
    lar_sort_descriptor d = {"name", 1};
    CHECK_RC(lar_results_sort(NULL, r, &d, 1), LAR_EINVAL);
    CHECK_RC(lar_results_sort(txn, NULL, &d, 1), LAR_EINVAL);
    CHECK_RC(lar_results_sort(txn, r, NULL, 1), LAR_EINVAL);
    CHECK_RC(lar_results_distinct(txn, r, NULL, 1), LAR_EINVAL);
    CHECK_RC(lar_results_limit(NULL, 1), LAR_EINVAL);
    lar_value out;
    CHECK_RC(lar_results_aggregate(txn, r, "age", (lar_aggregate_op)9, &out), LAR_EINVAL);
    CHECK_RC(lar_results_aggregate(txn, r, "age", LAR_AGGREGATE_SUM, NULL), LAR_EINVAL);
    lar_aggregate_op sums[] = {LAR_AGGREGATE_SUM, LAR_AGGREGATE_AVERAGE};
    lar_value two[2];
    CHECK_RC(lar_results_aggregates(txn, r, "age", sums, 0, two), LAR_EINVAL);
    CHECK_RC(lar_results_aggregates(txn, r, "age", NULL, 2, two), LAR_EINVAL);
    CHECK_RC(lar_results_aggregates(txn, r, "age", sums, 2, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_aggregates(txn, r, NULL, sums, 2, two), LAR_EINVAL);
    CHECK_RC(lar_results_aggregates(txn, r, "age", (lar_aggregate_op[]){LAR_AGGREGATE_SUM, (lar_aggregate_op)0}, 2, two),
             LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregates(txn, NULL, "age", sums, 2, two), LAR_EINVAL);
    CHECK_EQ(two[1].type, LAR_TYPE_NULL);
    CHECK_RC(lar_results_aggregate(txn, r, NULL, LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    CHECK_RC(lar_results_aggregate(txn, r, "name", LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    CHECK_MSG_HAS("operation 'sum' not supported for string property 'Dog.name'");
    CHECK_RC(lar_results_aggregate(txn, r, "born", LAR_AGGREGATE_AVERAGE, &out), LAR_EINVAL);
    CHECK_MSG_HAS("operation 'average' not supported for timestamp property 'Dog.born'");
    CHECK_RC(lar_results_aggregate(txn, r, "owner.address.city", LAR_AGGREGATE_MAX, &out), LAR_EINVAL);
    CHECK_MSG_HAS("operation 'max' not supported for string property 'Address.city'");
    CHECK_RC(lar_results_aggregate(txn, r, "tags", LAR_AGGREGATE_COUNT, &out), LAR_EINVAL);
    CHECK_MSG_HAS("cannot count list property 'tags'");
    /* A deleted object: the error, and the results unchanged. */
    CHECK_OK(lar_obj_delete(txn, (lar_obj){w.dog, r->keys[0]}));
    CHECK_RC(lar_results_sort(txn, r, &d, 1), LAR_EDELETED);
    CHECK_EQ(r->count, 2);
    CHECK_RC(lar_results_aggregate(txn, r, "age", LAR_AGGREGATE_COUNT, &out), LAR_EDELETED);
    /* A transaction of another environment, and an ended one. */
    lar_env *other = open_env(test_db_path("other"));
    lar_txn *other_txn = begin_read(other);
    CHECK_RC(lar_results_sort(other_txn, r, &d, 1), LAR_EINVAL);
    CHECK_MSG_HAS("another environment");
    lar_txn_abort(other_txn);
    CHECK_RC(lar_results_sort(other_txn, r, &d, 1), LAR_EMISUSE);
    lar_txn_free(other_txn);
    close_env(other);
    finish(&w, txn, r);
}

TEST(order_distinct_keeps_the_first_of_each_combination)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    lar_obj o[8];
    o[0] = dog_with(txn, &w, "a", D_AGE, val_int(2));
    o[1] = dog_with(txn, &w, "b", D_AGE, val_null());
    o[2] = dog_with(txn, &w, "c", D_AGE, val_int(1));
    o[3] = dog_with(txn, &w, "d", D_AGE, val_int(2));
    o[4] = dog_with(txn, &w, "e", D_AGE, val_null());
    o[5] = dog_with(txn, &w, "A", D_AGE, val_int(1));
    lar_results *r = results_of(txn, w.env, w.dog);
    sort1(txn, r, "name", 0);
    const char *age[] = {"age"};
    CHECK_OK(lar_results_distinct(txn, r, age, 1));
    CHECK_STR(names(txn, r), "e,d,c"); /* the first of each age in the current order */
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    const char *both[] = {"age", "name"};
    CHECK_OK(lar_results_distinct(txn, r, both, 2));
    CHECK_STR(names(txn, r), "a,b,c,d,e,A"); /* "A" and "a" differ */
    CHECK_OK(lar_results_distinct(txn, r, NULL, 0));
    CHECK_EQ(r->count, 6);
    /* Numbers by value in a mixed property: int 1, double 1.0, float 1 and decimal 1 are one. */
    lar_value ones[] = {val_int(1), val_double(1.0), val_str("1"), val_float(1.0f), dec(10, -1), val_null()};
    for (size_t i = 0; i < 6; i++) CHECK_OK(lar_obj_set(txn, o[i], D_EXTRA, &ones[i]));
    const char *extra[] = {"extra"};
    CHECK_OK(lar_results_distinct(txn, r, extra, 1));
    CHECK_STR(names(txn, r), "a,c,A");
    finish(&w, txn, r);
}

TEST(order_limit_and_the_query_suffixes)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    const char *n[] = {"d", "b", "e", "a", "c"};
    int64_t ages[] = {3, 1, 3, 2, 1};
    for (int i = 0; i < 5; i++) dog_with(txn, &w, n[i], D_AGE, val_int(ages[i]));
    lar_results *r = results_of(txn, w.env, w.dog);
    CHECK_OK(lar_results_limit(r, 10));
    CHECK_EQ(r->count, 5);
    CHECK_OK(lar_results_limit(r, 4));
    CHECK_STR(names(txn, r), "d,b,e,a");
    CHECK_OK(lar_results_limit(r, 0));
    CHECK_EQ(r->count, 0);
    CHECK_OK(lar_results_sort(txn, r, &(lar_sort_descriptor){"name", 1}, 1));
    results_release(r);
    /* The suffixes of a parsed query, applied in order. */
    lar_query *q;
    CHECK_OK(lar_query_parse(w.env, w.dog, "TRUEPREDICATE SORT(age DESC, name ASC) DISTINCT(age) LIMIT(2)", &q));
    r = results_of(txn, w.env, w.dog);
    CHECK_EQ(q->order_count, 3);
    CHECK_OK(results_apply_order(txn, r, &q->orders[0]));
    CHECK_STR(names(txn, r), "d,e,a,b,c");
    CHECK_OK(results_apply_order(txn, r, &q->orders[1]));
    CHECK_STR(names(txn, r), "d,a,b");
    CHECK_OK(results_apply_order(txn, r, &q->orders[2]));
    CHECK_STR(names(txn, r), "d,a");
    CHECK_RC(results_apply_order(txn, r, NULL), LAR_EINVAL);
    lar_query_free(q);
    finish(&w, txn, r);
}

static lar_value fold(lar_txn *txn, const lar_results *r, const char *keypath, lar_aggregate_op op)
{
    lar_value out;
    CHECK_OK(lar_results_aggregate(txn, r, keypath, op, &out));
    return out;
}
#define AGG(keypath, op) fold(txn, r, (keypath), LAR_AGGREGATE_##op)

TEST(order_aggregates_follow_realm)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    lar_results *r = results_of(txn, w.env, w.dog);
    /* Nothing: sum 0 of its type, the others nil. */
    CHECK_VALUE(AGG("age", SUM), val_int(0));
    CHECK_VALUE(AGG("weight", SUM), val_double(0));
    CHECK_VALUE(AGG("ratio", SUM), val_double(0));
    CHECK_VALUE(AGG("price", SUM), dec(0, 0));
    CHECK_VALUE(AGG("age", MIN), val_null());
    CHECK_VALUE(AGG("age", MAX), val_null());
    CHECK_VALUE(AGG("age", AVERAGE), val_null());
    CHECK_VALUE(AGG("price", AVERAGE), val_null());
    CHECK_VALUE(AGG(NULL, COUNT), val_int(0));
    results_release(r);

    lar_obj p = person(txn, &w, "p", NULL);
    lar_value page = val_int(40);
    CHECK_OK(lar_obj_set(txn, p, P_AGE, &page));
    lar_obj d[5];
    int64_t ages[] = {1, 2, -1, 3, -1};
    double weights[] = {1.5, NAN, -1, 2.5, 0};
    float ratios[] = {0.5f, 0.25f, NAN, 1, 0};
    lar_value prices[] = {dec(1, -1), dec(2, -1), val_null(), dec(1, 0), val_dec(0, 0x7C00000000000000ull)};
    for (int i = 0; i < 5; i++) {
        d[i] = dog_with(txn, &w, "x", D_AGE, ages[i] < 0 ? val_null() : val_int(ages[i]));
        lar_value wv = weights[i] < 0 ? val_null() : val_double(weights[i]), rv = val_float(ratios[i]);
        CHECK_OK(lar_obj_set(txn, d[i], D_WEIGHT, &wv));
        CHECK_OK(lar_obj_set(txn, d[i], D_RATIO, &rv));
        CHECK_OK(lar_obj_set(txn, d[i], D_PRICE, &prices[i]));
    }
    CHECK_OK(lar_obj_set(txn, d[0], D_OWNER, &(lar_value){.type = LAR_TYPE_LINK, .as.link = p}));
    r = results_of(txn, w.env, w.dog);
    CHECK_VALUE(AGG(NULL, COUNT), val_int(5));
    CHECK_VALUE(AGG("age", COUNT), val_int(3));
    CHECK_VALUE(AGG("age", MIN), val_int(1));
    CHECK_VALUE(AGG("age", MAX), val_int(3));
    CHECK_VALUE(AGG("age", SUM), val_int(6));
    CHECK_VALUE(AGG("age", AVERAGE), val_double(2));
    /* NaN is skipped (and counted by count); nil too. */
    CHECK_VALUE(AGG("weight", COUNT), val_int(4));
    CHECK_VALUE(AGG("weight", MIN), val_double(0));
    CHECK_VALUE(AGG("weight", MAX), val_double(2.5));
    CHECK_VALUE(AGG("weight", SUM), val_double(4));
    CHECK_VALUE(AGG("weight", AVERAGE), val_double(4.0 / 3));
    CHECK_VALUE(AGG("ratio", MIN), val_float(0));
    CHECK_VALUE(AGG("ratio", MAX), val_float(1));
    CHECK_VALUE(AGG("ratio", SUM), val_double(1.75));
    CHECK_VALUE(AGG("ratio", AVERAGE), val_double(1.75 / 4));
    /* decimal128 sums exactly: 0.1 + 0.2 + 1 = 1.3, the NaN skipped. */
    CHECK_VALUE(AGG("price", SUM), dec(13, -1));
    /* 1.3 / 3, rounded half to even to 34 digits */
    CHECK_VALUE(AGG("price", AVERAGE), dec_digits("4333333333333333333333333333333333", -34));
    CHECK_VALUE(AGG("price", MIN), dec(1, -1));
    CHECK_VALUE(AGG("price", MAX), dec(1, 0));
    /* Through a link: nil links are skipped. */
    CHECK_VALUE(AGG("owner.age", SUM), val_int(40));
    CHECK_VALUE(AGG("owner.age", COUNT), val_int(1));
    CHECK_VALUE(AGG("owner.age", AVERAGE), val_double(40));
    finish(&w, txn, r);
}

TEST(order_aggregates_of_ints_wrap_decimals_divide_and_mixed_take_numbers)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    lar_obj a = dog_with(txn, &w, "a", D_AGE, val_int(INT64_MAX));
    lar_obj b = dog_with(txn, &w, "b", D_AGE, val_int(1));
    lar_results *r = results_of(txn, w.env, w.dog);
    /* realm-core sums ints in an int64_t: the sum wraps; the average is taken in a double. */
    CHECK_VALUE(AGG("age", SUM), val_int(INT64_MIN));
    CHECK_VALUE(AGG("age", AVERAGE), val_double(((double)INT64_MAX + 1) / 2));
    /* decimal128 average: (1 + 2) / 2 = 1.5 exactly, (1 + 2 + 0) / 3 = 1. */
    lar_value one = dec(1, 0), two = dec(2, 0);
    CHECK_OK(lar_obj_set(txn, a, D_PRICE, &one));
    CHECK_OK(lar_obj_set(txn, b, D_PRICE, &two));
    CHECK_VALUE(AGG("price", AVERAGE), dec(15, -1));
    lar_obj c = dog_with(txn, &w, "c", D_PRICE, dec(0, 0));
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    CHECK_VALUE(AGG("price", AVERAGE), dec(1, 0));
    /* Mixed: sum and average take the numbers as decimal128s (2.5 exactly, as realm-core
     * converts a double), min and max every value in Realm's order. */
    lar_value m[] = {val_int(1), val_double(2.5), val_str("zz")};
    lar_obj objs[] = {a, b, c};
    for (int i = 0; i < 3; i++) CHECK_OK(lar_obj_set(txn, objs[i], D_EXTRA, &m[i]));
    dog_with(txn, &w, "d", D_EXTRA, dec(1, 0));
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    CHECK_VALUE(AGG("extra", SUM), dec(45, -1));
    CHECK_VALUE(AGG("extra", AVERAGE), dec(15, -1));
    CHECK_VALUE(AGG("extra", MIN), val_int(1));
    lar_value most = AGG("extra", MAX);
    CHECK_VALUE(most, val_str("zz"));
    /* The string stays while the transaction writes on (a write moves LMDB's dirty pages). */
    lar_value other = val_str("yy");
    CHECK_OK(lar_obj_set(txn, c, D_EXTRA, &other));
    CHECK_MEM(most.as.string.data, "zz", 3);
    CHECK_VALUE(AGG("extra", COUNT), val_int(4));
    /* Timestamps: min and max. */
    lar_value t1 = val_ts(-10, 0), t2 = val_ts(5, 3);
    CHECK_OK(lar_obj_set(txn, a, D_BORN, &t1));
    CHECK_OK(lar_obj_set(txn, b, D_BORN, &t2));
    CHECK_VALUE(AGG("born", MIN), t1);
    CHECK_VALUE(AGG("born", MAX), t2);
    finish(&w, txn, r);
}

/* ---- the fast paths (radix sort, reads in key order) against value_sort_order ---- */

static uint64_t next_random(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* A value of kind `prop` for random dog i: ties, extremes, NaN, -0.0, nulls, shared prefixes. */
static lar_value random_value(uint32_t prop, uint64_t *x, char *text)
{
    uint64_t r = next_random(x);
    static const double doubles[] = {0.0, -0.0, 1.5, -1.5, INFINITY, -INFINITY, NAN, -NAN, 1e300, -1e-300, 2.0};
    static const int64_t ints[] = {INT64_MIN, INT64_MAX, 0, -1, 1, 7, 7, 42};
    if (r % 7 == 0 && prop != D_NAME && prop != D_RATIO && prop != D_DATA && prop != D_ALIVE) return val_null();
    switch (prop) {
    case D_AGE: return val_int(ints[r % 8]);
    case D_WEIGHT: return val_double(doubles[r % 11]);
    case D_RATIO: return val_float((float)doubles[r % 11]);
    case D_BORN: return val_ts((int64_t)(r % 5) - 2, (int32_t)((r / 5) % 3) * ((r % 5) < 2 ? -1 : 1));
    case D_ALIVE: return val_bool((int)(r % 2));
    default: { /* names and binaries: 0 to 15 bytes of "ab", "é" and NUL (rarer), often sharing the first 12 */
        size_t size = 0, length = r % 3 ? 10 + r % 6 : r % 10;
        while (size < length) {
            uint64_t c = next_random(x) % 11;
            if (c == 10) {
                text[size++] = 0;
            } else if (c >= 8 && size + 2 <= length) {
                text[size++] = (char)0xc3;
                text[size++] = (char)0xa9;
            } else {
                text[size++] = c < 4 ? 'a' : 'b';
            }
        }
        text[size] = 0;
        return prop == D_DATA ? val_bin(text, size) : val_strn(text, size);
    }
    }
}

/* The results sorted on prop: each neighbour in order by value_sort_order, and equal ones in
 * their order before the sort (rank: each key's position then). */
/* value_sort_order, with realm-core's place for a nil link on the way: after every value. */
static int order_with_links(const lar_value *a, const lar_value *b)
{
    bool a_link = a->type == VALUE_NULL_LINK, b_link = b->type == VALUE_NULL_LINK;
    if (a_link || b_link) return a_link == b_link ? 0 : a_link ? 1 : -1;
    return value_sort_order(a, b);
}

static void check_order(lar_txn *txn, const lar_results *r, const char *keypath, int ascending, const size_t *rank,
                        const lar_objkey *keys_before, size_t count)
{
    key_path path;
    CHECK_OK(key_path_parse(txn, r->env, r->cls, keypath, "sort on", &path));
    lar_value previous;
    size_t previous_rank = 0;
    for (size_t i = 0; i < r->count; i++) {
        lar_value v;
        CHECK_OK(key_path_read(txn, &path, r->keys[i], &v));
        size_t at = 0;
        while (at < count && keys_before[at] != r->keys[i]) at++;
        CHECK(at < count);
        if (i) {
            int c = order_with_links(&previous, &v);
            if (ascending ? c > 0 : c < 0) test_fail(__FILE__, __LINE__, "%s out of order at %zu", keypath, i);
            if (c == 0 && rank[at] < previous_rank) test_fail(__FILE__, __LINE__, "%s not stable at %zu", keypath, i);
        }
        previous = v;
        previous_rank = rank[at];
    }
}

TEST(order_fast_paths_agree_with_value_order)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    uint64_t x = 99;
    char text[32];
    lar_obj owners[3] = {person(txn, &w, "b", "x"), person(txn, &w, "a", NULL), person(txn, &w, "c", "y")};
    const uint32_t props[] = {D_NAME, D_AGE, D_WEIGHT, D_RATIO, D_BORN, D_DATA, D_ALIVE};
    for (int i = 0; i < 300; i++) {
        lar_obj d = dog_named(txn, &w, "");
        for (size_t j = 0; j < COUNT_OF(props); j++) {
            lar_value v = random_value(props[j], &x, text);
            CHECK_OK(lar_obj_set(txn, d, props[j], &v));
        }
        lar_value extra = random_value(i % 3 ? D_AGE : D_WEIGHT, &x, text); /* ints and doubles: by value */
        CHECK_OK(lar_obj_set(txn, d, D_EXTRA, &extra));
        if (i % 4) CHECK_OK(lar_obj_set(txn, d, D_OWNER, &(lar_value){.type = LAR_TYPE_LINK, .as.link = owners[i % 3]}));
    }
    const char *paths[] = {"name", "age", "weight", "ratio", "born", "data", "alive", "extra", "owner.name",
                           "owner.address.city"};
    for (size_t p = 0; p < COUNT_OF(paths); p++)
        for (int ascending = 0; ascending < 2; ascending++) {
            lar_results *r = results_of(txn, w.env, w.dog);
            /* Shuffled, so reads go through the key-order path and stability is seen. */
            for (size_t i = r->count; i > 1; i--) {
                size_t j = next_random(&x) % i;
                lar_objkey t = r->keys[i - 1];
                r->keys[i - 1] = r->keys[j];
                r->keys[j] = t;
            }
            size_t count = r->count, *rank = malloc(count * sizeof *rank);
            lar_objkey *before = malloc(count * sizeof *before);
            CHECK(rank && before);
            memcpy(before, r->keys, count * sizeof *before);
            for (size_t i = 0; i < count; i++) rank[i] = i;
            sort1(txn, r, paths[p], ascending);
            check_order(txn, r, paths[p], ascending, rank, before, count);
            /* Distinct keeps one of each value, the first in the current order. */
            CHECK_OK(lar_results_distinct(txn, r, &paths[p], 1));
            for (size_t i = 1; i < r->count; i++) {
                lar_value a, b;
                key_path path;
                CHECK_OK(key_path_parse(txn, r->env, r->cls, paths[p], "sort on", &path));
                CHECK_OK(key_path_read(txn, &path, r->keys[i - 1], &a));
                CHECK_OK(key_path_read(txn, &path, r->keys[i], &b));
                CHECK(a.type != VALUE_NULL_LINK && b.type != VALUE_NULL_LINK);
                CHECK(order_with_links(&a, &b) != 0);
            }
            /* A sparse subset, read in key order with gaps: every name is there. */
            lar_value names_count;
            CHECK_OK(lar_results_aggregate(txn, r, "name", LAR_AGGREGATE_COUNT, &names_count));
            CHECK_EQ(names_count.as.integer, (int64_t)r->count);
            free(rank);
            free(before);
            results_release(r);
        }
    /* A deleted object among many: the error, the results unchanged. */
    lar_results *r = results_of(txn, w.env, w.dog);
    lar_objkey *before = malloc(r->count * sizeof *before);
    CHECK(before);
    memcpy(before, r->keys, r->count * sizeof *before);
    CHECK_OK(lar_obj_delete(txn, (lar_obj){w.dog, r->keys[150]}));
    lar_sort_descriptor d = {"age", 1};
    CHECK_RC(lar_results_sort(txn, r, &d, 1), LAR_EDELETED);
    CHECK_MSG_HAS("does not exist or was deleted");
    CHECK(memcmp(before, r->keys, r->count * sizeof *before) == 0);
    lar_value out;
    CHECK_RC(lar_results_aggregate(txn, r, "age", LAR_AGGREGATE_SUM, &out), LAR_EDELETED);
    CHECK_EQ(out.type, LAR_TYPE_NULL);
    free(before);
    /* The same key twice: both kept by a sort, one by distinct on anything. */
    r->keys[150] = r->keys[3];
    sort1(txn, r, "name", 1);
    CHECK_EQ(r->count, 300);
    const char *name[] = {"name"};
    r->keys[0] = r->keys[1];
    CHECK_OK(lar_results_distinct(txn, r, name, 1));
    CHECK(r->count < 300);
    finish(&w, txn, r);
}

static int fill_many(lar_txn *txn, void *context)
{
    const world *w = context;
    char name[32];
    uint64_t x = 12345;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        snprintf(name, sizeof name, "n%08llu", (unsigned long long)(x >> 40) % 100000000ull);
        lar_value values[11] = {val_str(name), val_int((int64_t)(x >> 20) % 1000000), val_null(), val_float(0),
                                val_null(), val_null(), val_null(), val_null(), val_null(), val_bin("", 0), val_bool(0)};
        int rc = lar_obj_create(txn, w->dog, values, 11, NULL);
        if (rc != LAR_OK) return rc;
    }
    return LAR_OK;
}

static void check_sorted(lar_txn *txn, const lar_results *r, uint32_t prop)
{
    for (size_t i = 1; i < r->count; i++) {
        lar_value a = get_value(txn, (lar_obj){r->cls, r->keys[i - 1]}, prop);
        lar_value b = get_value(txn, (lar_obj){r->cls, r->keys[i]}, prop);
        CHECK(value_sort_order(&a, &b) <= 0);
        if (value_sort_order(&a, &b) == 0) CHECK(r->keys[i - 1] < r->keys[i]); /* stable */
    }
}

/* Every string of up to 5 bytes over {NUL, 'a', 'b'}, and every one of 7 to 13 that starts
 * "aaaaaaa": each length on each side of the sort key's 4-, 8- and 12-byte loads, and
 * strings that differ only by trailing NULs. Sorted by the radix sort (strings) and checked
 * pair by pair against value_sort_order. */
TEST(order_strings_of_every_length_sort_by_their_bytes)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    static const char alphabet[3] = {0, 'a', 'b'};
    char text[16];
    size_t made = 0;
    for (int prefixed = 0; prefixed < 2; prefixed++)
        for (size_t tail = 0; tail <= (prefixed ? 6 : 5); tail++) {
            size_t combinations = 1;
            for (size_t i = 0; i < tail; i++) combinations *= 3;
            for (size_t c = 0; c < combinations; c++) {
                size_t size = 0, digits = c;
                if (prefixed) size = (size_t)snprintf(text, sizeof text, "aaaaaaa");
                for (size_t i = 0; i < tail; i++, digits /= 3) text[size++] = alphabet[digits % 3];
                lar_obj d = dog_named(txn, &w, "");
                CHECK_OK(lar_obj_set(txn, d, D_NAME, &(lar_value){.type = LAR_TYPE_STRING, .as.string = {text, size}}));
                made++;
            }
        }
    lar_results *r = results_of(txn, w.env, w.dog);
    CHECK_EQ(r->count, made);
    sort1(txn, r, "name", 1);
    check_sorted(txn, r, D_NAME);
    finish(&w, txn, r);
}

TEST(order_sorts_200000_objects_quickly)
{
    world w = setup();
    write_retrying(w.env, fill_many, &w);
    lar_txn *txn = begin_read(w.env);
    lar_results *r = results_of(txn, w.env, w.dog);
    CHECK_EQ(r->count, 200000);
    int64_t start = now_ms();
    sort1(txn, r, "age", 1);
    int64_t int_ms = now_ms() - start;
    check_sorted(txn, r, D_AGE);
    results_release(r);
    r = results_of(txn, w.env, w.dog);
    start = now_ms();
    sort1(txn, r, "name", 1);
    int64_t string_ms = now_ms() - start;
    check_sorted(txn, r, D_NAME);
    fprintf(stderr, "# 200,000 objects sorted by an int in %lld ms, by a string in %lld ms (ASan build)\n",
            (long long)int_ms, (long long)string_ms);
    /* Tens of milliseconds in a release build; generous bounds for a sanitized one on a busy machine. */
    CHECK(int_ms < 3000);
    CHECK(string_ms < 3000);
    finish(&w, txn, r);
}

/* lar_query_run_aggregates and lar_results_aggregates of ops give each op's value. */
static void check_folds_in_one_pass(lar_txn *txn, lar_query *q, const lar_results *r, const char *keypath,
                                    const lar_aggregate_op *ops, const lar_value *each, size_t count)
{
    lar_value scanned[6], passed[6];
    if (count == 0) return;
    CHECK_OK(lar_query_run_aggregates(txn, q, keypath, ops, count, scanned));
    CHECK_OK(lar_results_aggregates(txn, r, keypath, ops, count, passed));
    for (size_t i = 0; i < count; i++) {
        CHECK_VALUE(scanned[i], each[i]);
        CHECK_VALUE(passed[i], each[i]);
    }
}

/* Every op at once fails when the path's type refuses one, and leaves every value null. */
static void check_folds_refused(lar_txn *txn, lar_query *q, const lar_results *r, const char *keypath)
{
    static const lar_aggregate_op all[] = {LAR_AGGREGATE_COUNT, LAR_AGGREGATE_MIN, LAR_AGGREGATE_MAX,
                                           LAR_AGGREGATE_SUM, LAR_AGGREGATE_AVERAGE};
    lar_value out[5];
    for (size_t i = 0; i < 5; i++) out[i] = val_int(7);
    CHECK(lar_query_run_aggregates(txn, q, keypath, all, 5, out) != LAR_OK);
    for (size_t i = 0; i < 5; i++) CHECK_EQ(out[i].type, LAR_TYPE_NULL);
    for (size_t i = 0; i < 5; i++) out[i] = val_int(7);
    CHECK(lar_results_aggregates(txn, r, keypath, all, 5, out) != LAR_OK);
    for (size_t i = 0; i < 5; i++) CHECK_EQ(out[i].type, LAR_TYPE_NULL);
}

/* lar_query_run_aggregate folds what lar_results_aggregate folds over the query's result:
 * while scanning (a read, no index term, no suffix) and through a result (the others). */
static void check_query_fold(lar_txn *txn, lar_env *env, lar_class cls, const char *text)
{
    static const char *const paths[] = {NULL, "age", "weight", "ratio", "price", "born", "owner.age", "extra", "name", "tags"};
    lar_query *q;
    CHECK_OK(lar_query_parse(env, cls, text, &q));
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    for (size_t i = 0; i < COUNT_OF(paths); i++) {
        lar_aggregate_op taken[6];
        lar_value each[6];
        size_t count = 0;
        bool refused = false;
        for (int op = LAR_AGGREGATE_COUNT; op <= LAR_AGGREGATE_AVERAGE; op++) {
            lar_value direct, folded;
            int rc = lar_query_run_aggregate(txn, q, paths[i], (lar_aggregate_op)op, &direct);
            CHECK_EQ(rc, lar_results_aggregate(txn, r, paths[i], (lar_aggregate_op)op, &folded));
            if (rc == LAR_OK) CHECK_VALUE(direct, folded);
            else CHECK_EQ(direct.type, LAR_TYPE_NULL);
            /* The ops the path takes, last first: each folded alone is what the pass gives. */
            if (rc == LAR_OK) {
                memmove(taken + 1, taken, count * sizeof *taken);
                memmove(each + 1, each, count * sizeof *each);
                taken[0] = (lar_aggregate_op)op;
                each[0] = direct;
                count++;
            } else {
                refused = true;
            }
        }
        if (count > 0) { /* and one op twice */
            taken[count] = taken[0];
            each[count] = each[0];
            count++;
        }
        check_folds_in_one_pass(txn, q, r, paths[i], taken, each, count);
        if (refused) check_folds_refused(txn, q, r, paths[i]);
    }
    lar_results_free(r);
    lar_query_free(q);
}

/* The average of ints sums them in a double, in order, as realm-core does: the fold of a
 * scan (in batches of matches) and of a collected result agree with that order computed
 * here, where it differs from the exact sum (ints that round past 2^53 and 2^60, and the
 * extremes). A fold that took a batch's integer sum at once without bounding its partial
 * sums by 2^53 fails here. */
TEST(order_query_average_of_ints_adds_in_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("v", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("g", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("Big", props)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    lar_class cls = class_id(env, "Big");
    /* Group 1: the double sum reaches 2^53 - 3 at the end of the scan's second batch of 64
     * matches, and the third batch's 1s pass 2^53, where 2^53 + 1 rounds back. Group 0:
     * 2^60 + 1 rounds to 2^60 (the 1s are lost, and the sum is back at a small whole
     * number after -2^60), the extremes, 2^53 + odd values (each rounds), then small ints. */
    static const int64_t tail[] = {INT64_C(1) << 60, 1, 1, 1, 3, -(INT64_C(1) << 60), INT64_MAX, INT64_MIN,
                                   -(INT64_C(1) << 53) + 1, (INT64_C(1) << 53) - 1, 7, -5};
    enum { SMALL = 127, ONES = 64, GROUP1 = SMALL + 1 + ONES, ODD = 12, AFTER = 140 };
    enum { ROWS = GROUP1 + COUNT_OF(tail) + ODD + AFTER + 1 };
    int64_t values[ROWS], small_sum = 0;
    int at = 0;
    for (int i = 0; i < SMALL; i++) small_sum += values[at++] = (i % 7) * 1000 - 2000;
    values[at++] = (INT64_C(1) << 53) - 3 - small_sum;
    for (int i = 0; i < ONES; i++) values[at++] = 1;
    for (size_t i = 0; i < COUNT_OF(tail); i++) values[at++] = tail[i];
    for (int i = 0; i < ODD; i++) values[at++] = ((INT64_C(1) << 53) + 2 * i + 1) * (i % 2 ? -1 : 1);
    for (int i = 0; i < AFTER; i++) values[at++] = (i % 5) * 3 - 4;
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < ROWS; i++) {
        lar_value v[] = {i == ROWS - 1 ? (lar_value){.type = LAR_TYPE_NULL} : val_int(values[i]), val_int(i < GROUP1)};
        CHECK_OK(lar_obj_create(txn, cls, v, 2, NULL));
    }
    commit_txn(txn);
    txn = begin_read(env);
    static const char *const texts[] = {"g == 1", "TRUEPREDICATE", "g == 0", "v < 0"};
    for (size_t t = 0; t < COUNT_OF(texts); t++) {
        lar_query *q;
        CHECK_OK(lar_query_parse(env, cls, texts[t], &q));
        lar_results *r;
        CHECK_OK(lar_query_run(txn, q, &r));
        static const lar_aggregate_op ops[] = {LAR_AGGREGATE_SUM, LAR_AGGREGATE_AVERAGE};
        lar_value scanned[2], passed[2];
        CHECK_OK(lar_query_run_aggregates(txn, q, "v", ops, 2, scanned));
        CHECK_OK(lar_results_aggregates(txn, r, "v", ops, 2, passed));
        CHECK_VALUE(scanned[0], passed[0]);
        CHECK_VALUE(scanned[1], passed[1]);
        if (t < 2) { /* against the order computed here */
            int rows = t == 0 ? GROUP1 : ROWS - 1;
            double in_order = 0;
            uint64_t wrapped = 0;
            for (int i = 0; i < rows; i++) in_order += (double)values[i], wrapped += (uint64_t)values[i];
            CHECK_VALUE(scanned[0], val_int((int64_t)wrapped));
            CHECK(scanned[1].type == LAR_TYPE_DOUBLE && scanned[1].as.float64 == in_order / rows);
            CHECK(in_order != (double)(int64_t)wrapped); /* the order matters here */
        }
        lar_results_free(r);
        lar_query_free(q);
    }
    lar_txn_free(txn);
    close_env(env);
}

TEST(order_query_aggregate_folds_as_its_result)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    lar_obj p = person(txn, &w, "p", NULL);
    CHECK_OK(lar_obj_set(txn, p, P_AGE, &(lar_value){.type = LAR_TYPE_INT, .as.integer = 40}));
    for (int i = 0; i < 40; i++) {
        lar_obj d = dog_with(txn, &w, i % 2 ? "rex" : "fido", D_AGE, i % 7 == 0 ? val_null() : val_int(i % 5));
        lar_value weight = i == 3 ? val_double(NAN) : val_double(i * 0.5), price = dec(i, -1);
        lar_value extra = i % 3 == 0 ? val_str("s") : i % 3 == 1 ? val_double(i / 4.0) : val_int(i);
        lar_value ratio = val_float(i == 5 ? NAN : (float)i / 4);
        CHECK_OK(lar_obj_set(txn, d, D_WEIGHT, &weight));
        CHECK_OK(lar_obj_set(txn, d, D_RATIO, &ratio));
        CHECK_OK(lar_obj_set(txn, d, D_PRICE, &price));
        CHECK_OK(lar_obj_set(txn, d, D_EXTRA, &extra));
        if (i % 3 == 0) CHECK_OK(lar_obj_set(txn, d, D_OWNER, &(lar_value){.type = LAR_TYPE_LINK, .as.link = p}));
    }
    static const char *const queries[] = {"TRUEPREDICATE", "age > 2", "owner.age == 40 OR weight < 3",
                                          "age > 1 SORT(age DESC)", "age > 1 LIMIT(4)", "name == 'nobody'",
                                          "FALSEPREDICATE"};
    for (size_t i = 0; i < COUNT_OF(queries); i++) check_query_fold(txn, w.env, w.dog, queries[i]);
    commit_txn(txn);
    txn = begin_read(w.env);
    for (size_t i = 0; i < COUNT_OF(queries); i++) check_query_fold(txn, w.env, w.dog, queries[i]);
    /* The values themselves, folded while scanning. */
    lar_query *q;
    CHECK_OK(lar_query_parse(w.env, w.dog, "name == 'rex'", &q));
    lar_value out;
    CHECK_OK(lar_query_run_aggregate(txn, q, NULL, LAR_AGGREGATE_COUNT, &out));
    CHECK_VALUE(out, val_int(20));
    CHECK_OK(lar_query_run_aggregate(txn, q, "weight", LAR_AGGREGATE_SUM, &out)); /* 0.5 × (1+5+...+39), NaN skipped */
    CHECK_VALUE(out, val_double(200 - 1.5));
    CHECK_OK(lar_query_run_aggregate(txn, q, "extra", LAR_AGGREGATE_MAX, &out)); /* a string ranks above numbers */
    CHECK_VALUE(out, val_str("s"));
    /* Ints, floats and doubles are read in place from the rows: nulls and NaNs skipped. The
     * odd dogs' ages are 1, 3, 0, 2, 4, ... (i % 5), null where i % 7 == 0 (i = 7, 21, 35). */
    int64_t age_sum = 0, age_count = 0;
    for (int i = 1; i < 40; i += 2)
        if (i % 7) age_sum += i % 5, age_count++;
    CHECK_OK(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_SUM, &out));
    CHECK_VALUE(out, val_int(age_sum));
    CHECK_OK(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_AVERAGE, &out));
    CHECK_VALUE(out, val_double((double)age_sum / (double)age_count));
    CHECK_OK(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_COUNT, &out));
    CHECK_VALUE(out, val_int(age_count));
    CHECK_OK(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_MAX, &out));
    CHECK_VALUE(out, val_int(4));
    CHECK_OK(lar_query_run_aggregate(txn, q, "ratio", LAR_AGGREGATE_MIN, &out)); /* dog 5's NaN skipped */
    CHECK_VALUE(out, val_float(0.25f));
    CHECK_OK(lar_query_run_aggregate(txn, q, "ratio", LAR_AGGREGATE_COUNT, &out)); /* NaN counted */
    CHECK_VALUE(out, val_int(20));
    /* Bad input. */
    CHECK_RC(lar_query_run_aggregate(txn, NULL, "age", LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_SUM, NULL), LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregate(txn, q, "age", (lar_aggregate_op)0, &out), LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregate(txn, q, NULL, LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregate(txn, q, "name", LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    CHECK_RC(lar_query_run_aggregate(NULL, q, "age", LAR_AGGREGATE_SUM, &out), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_parse(w.env, w.dog, "age > $0", &q));
    CHECK_RC(lar_query_run_aggregate(txn, q, "age", LAR_AGGREGATE_SUM, &out), LAR_EINVAL); /* not bound */
    CHECK_EQ(out.type, LAR_TYPE_NULL);
    lar_query_free(q);
    finish(&w, txn, NULL);
}

/* A sort in a read transaction moves the rows the run kept along with the keys (order.c
 * rearranges both through the sort's values buffer): a walk reading the kept rows sees
 * each object's own values, in sorted order, for ints, strings sharing 12 bytes, both ways. */
TEST(order_sort_keeps_rows_with_their_keys)
{
    world w = setup();
    lar_txn *txn = begin_write(w.env);
    uint64_t x = 7;
    char text[32];
    for (int i = 0; i < 500; i++) {
        lar_obj d = dog_named(txn, &w, "");
        lar_value age = val_int((int64_t)(next_random(&x) % 50) - 25), name = random_value(D_NAME, &x, text);
        CHECK_OK(lar_obj_set(txn, d, D_AGE, &age));
        CHECK_OK(lar_obj_set(txn, d, D_NAME, &name));
    }
    commit_txn(txn);
    txn = begin_read(w.env);
    lar_query *all;
    CHECK_OK(lar_query_parse(w.env, w.dog, "TRUEPREDICATE", &all));
    const char *paths[] = {"age", "name"};
    for (size_t p = 0; p < 2; p++)
        for (int ascending = 0; ascending < 2; ascending++) {
            lar_results *r;
            CHECK_OK(lar_query_run(txn, all, &r));
            lar_sort_descriptor by = {paths[p], ascending};
            CHECK_OK(lar_results_sort(txn, r, &by, 1));
            lar_iter *it;
            CHECK_OK(lar_iter_open_results(txn, r, &it));
            lar_value bound, previous = val_null();
            uint32_t prop = p ? D_NAME : D_AGE;
            CHECK_OK(lar_iter_bind_value(it, prop, &bound));
            lar_obj obj;
            size_t seen = 0;
            while (lar_iter_next(it, &obj) == LAR_OK) {
                lar_value own;
                CHECK_OK(lar_obj_get(txn, obj, prop, &own));
                CHECK_EQ(value_sort_order(&bound, &own), 0);
                int c = value_sort_order(&previous, &own);
                if (seen && (ascending ? c > 0 : c < 0)) test_fail(__FILE__, __LINE__, "%s out of order", paths[p]);
                previous = own;
                seen++;
            }
            CHECK_EQ(seen, 500);
            lar_iter_close(it);
            lar_results_free(r);
        }
    lar_query_free(all);
    finish(&w, txn, NULL);
}
