/* A short life of a file under valgrind's memcheck (make test-valgrind): open with the
 * default map reservation, declare a class, write, query, sort, read and close. Before
 * its reservation fell back on EINVAL, a file did not even open under valgrind.
 * Usage: under_valgrind <database path>; exits 1 on any failed call. */
#include "larder.h"

#include <stdio.h>
#include <string.h>

#define OBJECTS 1000

static int fail(const char *what)
{
    fprintf(stderr, "under_valgrind: %s: %s\n", what, lar_error_last()->message);
    return 1;
}

static int fill(lar_env *env, lar_class cls)
{
    lar_txn *txn;
    if (lar_txn_begin(env, LAR_TXN_WRITE, &txn)) return fail("begin write");
    for (int i = 0; i < OBJECTS; i++) {
        char name[32];
        snprintf(name, sizeof name, "dog %d", i);
        lar_value values[2] = {{.type = LAR_TYPE_STRING}, {.type = LAR_TYPE_INT}};
        values[0].as.string.data = name;
        values[0].as.string.size = strlen(name);
        values[1].as.integer = i % 17;
        lar_obj obj;
        if (lar_obj_create(txn, cls, values, 2, &obj)) return fail("create");
    }
    if (lar_txn_commit(txn)) return fail("commit");
    lar_txn_free(txn);
    return 0;
}

static int query(lar_env *env, lar_class cls)
{
    lar_txn *txn;
    lar_query *q;
    lar_results *r;
    size_t count;
    if (lar_txn_begin(env, LAR_TXN_READ, &txn)) return fail("begin read");
    if (lar_query_parse(env, cls, "age > 3 AND name BEGINSWITH 'dog' SORT(name DESC)", &q)) return fail("parse");
    if (lar_query_run(txn, q, &r) || lar_results_count(r, &count)) return fail("run");
    if (count == 0) return fail("no match");
    lar_obj first;
    lar_value name;
    if (lar_results_get(r, 0, &first) || lar_obj_get(txn, first, 0, &name)) return fail("read");
    lar_results_free(r);
    lar_query_free(q);
    if (lar_txn_commit(txn)) return fail("end read");
    lar_txn_free(txn);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: under_valgrind <database path>\n");
        return 2;
    }
    lar_env *env;
    if (lar_env_open(argv[1], NULL, &env)) return fail("open");
    lar_property_def props[] = {
        {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    };
    lar_class_def dog = {"Dog", props, 2, 0};
    lar_class cls;
    if (lar_schema_apply(env, &dog, 1, 1) || lar_class_find(env, "Dog", &cls)) return fail("schema");
    int failed = fill(env, cls) || query(env, cls);
    if (lar_env_close(env)) return fail("close");
    return failed;
}
