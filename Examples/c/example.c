/* example_c <path>: define a class, write a few objects, read them back, update one,
 * fill a list.
 * Build: cc example.c $(pkg-config --cflags --libs larder) */
#include <larder.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the failed call and Larder's message for it, then exits. */
static void check(int rc, const char *what)
{
    if (rc == LAR_OK) return;
    fprintf(stderr, "%s: %s (%s)\n", what, lar_error_last()->message, lar_strerror(rc));
    exit(1);
}

static lar_value text(const char *s)
{
    lar_value v = {LAR_TYPE_STRING, {0}};
    v.as.string.data = s;
    v.as.string.size = strlen(s);
    return v;
}

static lar_value integer(int64_t i)
{
    lar_value v = {LAR_TYPE_INT, {0}};
    v.as.integer = i;
    return v;
}

static const lar_value null_value = {LAR_TYPE_NULL, {0}};

/* Property indexes follow the order stored in the file: look them up by name. */
static uint32_t name_prop, age_prop, owner_prop, tricks_prop;

/* Prints one dog: name, age and owner (or "nobody"). */
static void print_dog(lar_txn *txn, lar_obj dog)
{
    lar_value name, age, owner;
    check(lar_obj_get(txn, dog, name_prop, &name), "read name");
    check(lar_obj_get(txn, dog, age_prop, &age), "read age");
    check(lar_obj_get(txn, dog, owner_prop, &owner), "read owner");
    printf("  %-5s age %lld, owner %s\n", name.as.string.data, (long long)age.as.integer,
           owner.type == LAR_TYPE_NULL ? "nobody" : owner.as.string.data);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <database file>\n", argv[0]);
        return 2;
    }
    printf("Larder %s\n", lar_version(NULL, NULL, NULL));

    lar_env *env;
    check(lar_env_open(argv[1], NULL, &env), "open the database");

    /* A class: "name" is the primary key, "owner" may be null, "tricks" is a list of strings. */
    const lar_property_def dog_props[] = {
        {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL},
        {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"owner", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
        {"tricks", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL, NULL},
    };
    const lar_class_def dog_class = {"Dog", dog_props, 4, 0};
    check(lar_schema_apply(env, &dog_class, 1, 1), "apply the schema");
    lar_class dog;
    check(lar_class_find(env, "Dog", &dog), "find class Dog");
    check(lar_property_find(env, dog, "name", &name_prop), "find Dog.name");
    check(lar_property_find(env, dog, "age", &age_prop), "find Dog.age");
    check(lar_property_find(env, dog, "owner", &owner_prop), "find Dog.owner");
    check(lar_property_find(env, dog, "tricks", &tricks_prop), "find Dog.tricks");

    /* Write three dogs in one transaction (replacing those of an earlier run). */
    lar_txn *txn;
    check(lar_txn_begin(env, LAR_TXN_WRITE, &txn), "begin a write");
    check(lar_objects_delete_all(txn, dog), "delete old dogs");
    /* Values in property-index order: the declared order in a file this program created. */
    /* A list starts empty: its value is null. */
    const lar_value rex[] = {text("Rex"), integer(3), text("Alice"), null_value};
    const lar_value fido[] = {text("Fido"), integer(7), null_value, null_value};
    const lar_value luna[] = {text("Luna"), integer(1), text("Bob"), null_value};
    check(lar_obj_create(txn, dog, rex, 4, NULL), "create Rex");
    check(lar_obj_create(txn, dog, fido, 4, NULL), "create Fido");
    check(lar_obj_create(txn, dog, luna, 4, NULL), "create Luna");
    check(lar_txn_commit(txn), "commit");
    lar_txn_free(txn);

    /* Find Fido by primary key and give him an owner. */
    check(lar_txn_begin(env, LAR_TXN_WRITE, &txn), "begin a write");
    lar_value key = text("Fido"), owner = text("Carol");
    lar_obj fido_obj;
    check(lar_obj_find(txn, dog, &key, &fido_obj), "find Fido");
    check(lar_obj_set(txn, fido_obj, owner_prop, &owner), "update Fido");
    /* Teach him tricks: a list grows and changes in place, at O(log n) per change. */
    const lar_value sit = text("sit"), roll = text("roll over"), beg = text("beg");
    check(lar_list_append(txn, fido_obj, tricks_prop, &sit), "append a trick");
    check(lar_list_append(txn, fido_obj, tricks_prop, &roll), "append a trick");
    check(lar_list_insert(txn, fido_obj, tricks_prop, 0, &beg), "insert a trick");
    check(lar_list_move(txn, fido_obj, tricks_prop, 0, 2), "move a trick");
    check(lar_txn_commit(txn), "commit");
    lar_txn_free(txn);

    /* Read everything back in a read transaction. */
    check(lar_txn_begin(env, LAR_TXN_READ, &txn), "begin a read");
    uint64_t count;
    check(lar_objects_count(txn, dog, &count), "count dogs");
    printf("%llu dogs:\n", (unsigned long long)count);
    lar_iter *iter;
    check(lar_iter_open(txn, dog, &iter), "open an iterator");
    lar_obj obj;
    int rc;
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) print_dog(txn, obj);
    if (rc != LAR_ENOTFOUND) check(rc, "iterate");
    lar_iter_close(iter);

    /* A scan that needs one number from every object binds a variable to it. */
    int64_t age, total = 0;
    check(lar_iter_open(txn, dog, &iter), "open an iterator");
    check(lar_iter_bind_int(iter, age_prop, &age), "bind Dog.age");
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) total += age;
    if (rc != LAR_ENOTFOUND) check(rc, "iterate");
    lar_iter_close(iter);
    printf("Their ages add up to %lld.\n", (long long)total);

    /* The fastest scan steps to many objects per call, filling a row of bound variables for each. */
    struct { lar_value name; int64_t age; } rows[16];
    check(lar_iter_open(txn, dog, &iter), "open an iterator");
    check(lar_iter_bind_value(iter, name_prop, &rows[0].name), "bind Dog.name");
    check(lar_iter_bind_int(iter, age_prop, &rows[0].age), "bind Dog.age");
    lar_value oldest = {0};
    int64_t oldest_age = -1;
    size_t n;
    while ((rc = lar_iter_next_batch(iter, NULL, 16, sizeof rows[0], &n)) == LAR_OK) {
        for (size_t i = 0; i < n; i++) {
            if (rows[i].age <= oldest_age) continue;
            oldest_age = rows[i].age;
            oldest = rows[i].name; /* the string stays valid until the transaction ends */
        }
    }
    if (rc != LAR_ENOTFOUND) check(rc, "iterate in batches");
    lar_iter_close(iter);
    printf("The oldest is %.*s, %lld.\n", (int)oldest.as.string.size, oldest.as.string.data, (long long)oldest_age);

    printf("Fido, by primary key:\n");
    check(lar_obj_find(txn, dog, &key, &obj), "find Fido");
    print_dog(txn, obj);
    lar_value tricks[8];
    check(lar_list_get_batch(txn, obj, tricks_prop, 0, tricks, 8, &n), "read the tricks");
    printf("  knows %zu tricks:", n);
    for (size_t i = 0; i < n; i++) printf(" %s%s", tricks[i].as.string.data, i + 1 < n ? "," : "\n");

    /* A query: parsed once, its argument bound, run in the C core into a result of
     * object keys, sorted there too; its average computed without a loop of ours. */
    lar_query *query;
    check(lar_query_parse(env, dog, "age >= $0 AND owner != nil SORT(name ASC)", &query), "parse a query");
    lar_query_arg min_age = {.kind = LAR_QUERY_ARG_VALUE, .value = integer(2)};
    check(lar_query_bind(query, &min_age, 1), "bind its argument");
    lar_results *results;
    check(lar_query_run(txn, query, &results), "run the query");
    size_t matches;
    check(lar_results_count(results, &matches), "count the matches");
    printf("%zu dogs of 2 or more have an owner:\n", matches);
    for (size_t i = 0; i < matches; i++) {
        check(lar_results_get(results, i, &obj), "read a match");
        print_dog(txn, obj);
    }
    lar_value average;
    check(lar_results_aggregate(txn, results, "age", LAR_AGGREGATE_AVERAGE, &average), "average their ages");
    printf("  their average age: %.1f\n", average.as.float64);
    lar_results_free(results);
    lar_query_free(query);

    check(lar_txn_commit(txn), "end the read");
    lar_txn_free(txn);

    check(lar_env_close(env), "close the database");
    return 0;
}
