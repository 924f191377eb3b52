/* lar_results_from_keys (CCore/query/results_from_keys.c): a result of given keys, in
 * their order, that sorts, aggregates and goes stale as a query's; every error. */
#include "test.h"

#include <stdint.h>

/* The three dogs and a read transaction on them. */
typedef struct fixture {
    lar_env *env;
    lar_class dog;
    lar_obj dogs[3];
    lar_txn *txn;
} fixture;

static fixture reading_three_dogs(void)
{
    fixture f;
    f.env = query_three_dogs(&f.dog, f.dogs);
    f.txn = begin_read(f.env);
    return f;
}

TEST(results_from_keys_keeps_their_order_and_sorts)
{
    lar_class dog;
    lar_obj dogs[3];
    lar_env *env = query_three_dogs(&dog, dogs);
    lar_txn *txn = begin_read(env);
    lar_objkey given[] = {dogs[2].key, dogs[0].key, dogs[1].key, dogs[2].key};
    lar_results *r;
    CHECK_OK(lar_results_from_keys(txn, dog, given, 4, &r));
    lar_objkey keys[4];
    size_t n;
    CHECK_OK(lar_results_keys(r, 0, keys, 4, &n));
    CHECK_EQ(n, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ(keys[i], given[i]);
    lar_sort_descriptor by_age = {"age", 1};
    CHECK_OK(lar_results_sort(txn, r, &by_age, 1));
    CHECK_OK(lar_results_keys(r, 0, keys, 4, &n));
    CHECK_EQ(keys[0], dogs[1].key);
    CHECK_EQ(keys[1], dogs[2].key);
    CHECK_EQ(keys[2], dogs[2].key);
    CHECK_EQ(keys[3], dogs[0].key);
    lar_value sum;
    CHECK_OK(lar_results_aggregate(txn, r, "age", LAR_AGGREGATE_SUM, &sum));
    CHECK_VALUE(sum, val_int(8));
    int current;
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 1);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    lar_results_free(r);

    /* Empty, then one made in a write goes stale with the write's next change. */
    txn = begin_write(env);
    CHECK_OK(lar_results_from_keys(txn, dog, NULL, 0, &r));
    CHECK_OK(lar_results_count(r, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 1);
    lar_value age = val_int(9);
    CHECK_OK(lar_obj_set(txn, dogs[0], prop_id(env, dog, "age"), &age));
    CHECK_OK(lar_results_is_current(r, txn, &current));
    CHECK_EQ(current, 0);
    commit_txn(txn);
    lar_results_free(r);
    close_env(env);
}

TEST(results_from_keys_of_a_deleted_object)
{
    fixture f = reading_three_dogs();
    lar_txn *txn = f.txn;
    lar_class dog = f.dog;
    lar_objkey given[] = {f.dogs[0].key, 999999};
    lar_results *r;
    CHECK_OK(lar_results_from_keys(txn, dog, given, 2, &r));
    lar_sort_descriptor by_age = {"age", 1};
    CHECK_RC(lar_results_sort(txn, r, &by_age, 1), LAR_EDELETED);
    lar_iter *it;
    CHECK_OK(lar_iter_open_results(txn, r, &it));
    lar_obj obj;
    CHECK_OK(lar_iter_next(it, &obj));
    CHECK_EQ(obj.key, f.dogs[0].key);
    CHECK_END(lar_iter_next(it, &obj));
    lar_iter_close(it);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    lar_results_free(r);
    close_env(f.env);
}

TEST(results_from_keys_errors)
{
    fixture f = reading_three_dogs();
    lar_txn *txn = f.txn;
    lar_class dog = f.dog;
    lar_results *r = (lar_results *)1;
    lar_objkey key = f.dogs[0].key;
    CHECK_RC(lar_results_from_keys(txn, dog, &key, 1, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_from_keys(txn, dog, NULL, 1, &r), LAR_EINVAL);
    CHECK(r == NULL);
    CHECK_MSG_HAS("NULL argument");
    CHECK_RC(lar_results_from_keys(NULL, dog, &key, 1, &r), LAR_EINVAL);
    CHECK_RC(lar_results_from_keys(txn, 9999, &key, 1, &r), LAR_EINVAL);
    CHECK_MSG_HAS("not in this transaction's schema");
    CHECK_RC(lar_results_from_keys(txn, dog, &key, SIZE_MAX, &r), LAR_EINVAL);
    CHECK_MSG_HAS("too many");
    CHECK_OK(lar_txn_abort(txn));
    CHECK_RC(lar_results_from_keys(txn, dog, &key, 1, &r), LAR_EMISUSE);
    CHECK(r == NULL);
    lar_txn_free(txn);
    close_env(f.env);
}
