/* Bad input: wrong-typed values, keys without data, and damaged rows. Every call
 * must return a LAR_E* code, never crash; the fuzzer (Tests/fuzz) found or
 * guards each case here. */
#include "test.h"

#include <lmdb.h>
#include <stdlib.h>

/* Fills a large stretch of the stack with a non-zero pattern, so a callee at the
 * same depth that reads an uninitialised local sees garbage instead of a lucky 0. */
__attribute__((noinline)) static void soil_stack(void)
{
    volatile uint8_t garbage[16384];
    for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = 0x5a;
}

/* "LAR_ETYPE (a value of the wrong type ...)": lar_obj_create used to free an
 * uninitialised pointer when the check failed. */
TEST(bad_input_wrong_typed_value_is_refused_without_a_crash)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value values[4];
    values[p.id] = val_int(1);
    values[p.name] = val_int(7); /* a string property given an int */
    values[p.age] = val_null();
    values[p.score] = val_double(1);
    for (int i = 0; i < 4; i++) {
        soil_stack();
        CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_ETYPE);
    }
    values[p.name] = val_str("\xff"); /* invalid UTF-8 takes the same early return */
    soil_stack();
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_EINVAL);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);
    close_env(env);
}
