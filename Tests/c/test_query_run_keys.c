/* lar_query_run_keys (CCore/query/results.c): a query run on the objects the
 * caller names, in their order, repeats kept, missing objects skipped; every error. */
#include "test.h"

#include <stdint.h>

/* query_three_dogs (aged 3, 1, 2); the first has an owner named Ann. */
static lar_env *three_dogs(lar_class *dog, lar_obj dogs[3])
{
    lar_env *env = query_three_dogs(dog, dogs);
    lar_txn *txn = begin_write(env);
    lar_class person = class_id(env, "Person");
    lar_obj ann;
    CHECK_OK(lar_obj_create(txn, person, NULL, 0, &ann));
    lar_value name = val_str("Ann"), link = {.type = LAR_TYPE_LINK};
    link.as.link = ann;
    CHECK_OK(lar_obj_set(txn, ann, prop_id(env, person, "name"), &name));
    CHECK_OK(lar_obj_set(txn, dogs[0], prop_id(env, *dog, "owner"), &link));
    commit_txn(txn);
    return env;
}

static lar_query *parsed(lar_env *env, lar_class cls, const char *text)
{
    lar_query *q;
    CHECK_OK(lar_query_parse(env, cls, text, &q));
    return q;
}

/* Runs text on given[0..count) in txn and checks the keys kept are want[0..want_count). */
static void check_run(lar_txn *txn, lar_env *env, lar_class dog, const char *text, const lar_objkey *given,
                      size_t count, const lar_objkey *want, size_t want_count)
{
    lar_query *q = parsed(env, dog, text);
    lar_results *r;
    CHECK_OK(lar_query_run_keys(txn, q, given, count, &r));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    CHECK_EQ(n, want_count);
    for (size_t i = 0; i < n && i < want_count; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        CHECK_EQ(obj.key, want[i]);
    }
    lar_results_free(r);
    lar_query_free(q);
}

TEST(query_run_keys_keeps_the_given_order_and_repeats)
{
    lar_class dog;
    lar_obj d[3];
    lar_env *env = three_dogs(&dog, d);
    lar_txn *txn = begin_read(env);
    lar_objkey given[] = {d[2].key, d[0].key, 999999, d[1].key, d[2].key};
    lar_objkey aged[] = {d[2].key, d[0].key, d[2].key};
    check_run(txn, env, dog, "age >= 2", given, 5, aged, 3);
    lar_objkey everyone[] = {d[2].key, d[0].key, d[1].key, d[2].key};
    check_run(txn, env, dog, "TRUEPREDICATE", given, 5, everyone, 4);
    lar_objkey sorted[] = {d[1].key, d[2].key, d[2].key};
    check_run(txn, env, dog, "age < 3 SORT(age ASC)", given, 5, sorted, 3);
    lar_objkey limited[] = {d[2].key};
    check_run(txn, env, dog, "age < 3 SORT(age DESC) DISTINCT(age) LIMIT(1)", given, 5, limited, 1);
    check_run(txn, env, dog, "FALSEPREDICATE", given, 5, NULL, 0);
    check_run(txn, env, dog, "age > 0", NULL, 0, NULL, 0);
    lar_objkey owned[] = {d[0].key};
    check_run(txn, env, dog, "owner.name == 'Ann'", given, 5, owned, 1);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    close_env(env);
}

TEST(query_run_keys_in_a_write_sees_its_changes)
{
    lar_class dog;
    lar_obj d[3];
    lar_env *env = three_dogs(&dog, d);
    lar_txn *txn = begin_write(env);
    lar_value old = val_int(30);
    CHECK_OK(lar_obj_set(txn, d[1], prop_id(env, dog, "age"), &old));
    CHECK_OK(lar_obj_delete(txn, d[2]));
    lar_objkey given[] = {d[0].key, d[1].key, d[2].key};
    lar_objkey want[] = {d[1].key};
    check_run(txn, env, dog, "age > 10", given, 3, want, 1);
    lar_objkey owned[] = {d[0].key};
    check_run(txn, env, dog, "owner.name BEGINSWITH 'A' AND age == 3", given, 3, owned, 1);
    lar_query *q = parsed(env, dog, "age > 10");
    lar_results *r;
    CHECK_OK(lar_query_run_keys(txn, q, given, 3, &r));
    int current;
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 1);
    CHECK_OK(lar_obj_set(txn, d[0], prop_id(env, dog, "age"), &old));
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 0);
    commit_txn(txn);
    lar_results_free(r);
    lar_query_free(q);
    close_env(env);
}

TEST(query_run_keys_errors)
{
    lar_class dog;
    lar_obj d[3];
    lar_env *env = three_dogs(&dog, d);
    lar_txn *txn = begin_read(env);
    lar_query *q = parsed(env, dog, "age > 1");
    lar_objkey key = d[0].key;
    lar_results *r = (lar_results *)1;
    CHECK_RC(lar_query_run_keys(txn, q, &key, 1, NULL), LAR_EINVAL);
    CHECK_RC(lar_query_run_keys(txn, NULL, &key, 1, &r), LAR_EINVAL);
    CHECK(r == NULL);
    r = (lar_results *)1;
    CHECK_RC(lar_query_run_keys(txn, q, NULL, 1, &r), LAR_EINVAL);
    CHECK(r == NULL);
    CHECK_MSG_HAS("NULL argument");
    CHECK_RC(lar_query_run_keys(NULL, q, &key, 1, &r), LAR_EINVAL);
    CHECK_RC(lar_query_run_keys(txn, q, &key, SIZE_MAX, &r), LAR_EINVAL);
    CHECK_MSG_HAS("too many");
    lar_query *unbound = parsed(env, dog, "age > $0");
    CHECK_RC(lar_query_run_keys(txn, unbound, &key, 1, &r), LAR_EINVAL);
    CHECK_MSG_HAS("not bound");
    CHECK_OK(lar_txn_abort(txn));
    CHECK_RC(lar_query_run_keys(txn, q, &key, 1, &r), LAR_EMISUSE);
    lar_txn_free(txn);
    lar_query_free(unbound);
    lar_query_free(q);
    close_env(env);
}
