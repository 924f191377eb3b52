/* Errors and versions: codes, descriptions, the per-thread last error, NULL arguments. */
#include "test.h"

#include <limits.h>

TEST(errors_strerror_describes_every_code)
{
    const char *seen[17];
    for (int code = 0; code >= -16; code--) {
        const char *text = lar_strerror(code);
        CHECK(text != NULL && *text);
        if (strcmp(text, "unknown error") == 0)
            test_fail(__FILE__, __LINE__, "lar_strerror(%d) is \"unknown error\"", code);
        for (int other = 0; other < -code; other++)
            if (strcmp(seen[other], text) == 0)
                test_fail(__FILE__, __LINE__, "codes %d and %d share the description \"%s\"", -other, code, text);
        seen[-code] = text;
    }
    /* "unknown codes give "unknown error"" */
    const int unknown[] = {1, 2, -17, -100, 12345, INT_MIN, INT_MAX};
    for (size_t i = 0; i < COUNT_OF(unknown); i++) CHECK_STR(lar_strerror(unknown[i]), "unknown error");
}

TEST(errors_codes_have_their_documented_values)
{
    /* The numbers are part of the ABI that other languages use. */
    CHECK_EQ(LAR_OK, 0);
    CHECK_EQ(LAR_EINVAL, -1);
    CHECK_EQ(LAR_EMISUSE, -2);
    CHECK_EQ(LAR_ENOTFOUND, -3);
    CHECK_EQ(LAR_EEXISTS, -4);
    CHECK_EQ(LAR_ETYPE, -5);
    CHECK_EQ(LAR_ESCHEMA, -6);
    CHECK_EQ(LAR_ENOTLARDER, -7);
    CHECK_EQ(LAR_EVERSION, -8);
    CHECK_EQ(LAR_ENOTSUP, -9);
    CHECK_EQ(LAR_ENOMEM, -10);
    CHECK_EQ(LAR_EIO, -11);
    CHECK_EQ(LAR_EREADONLY, -12);
    CHECK_EQ(LAR_EDELETED, -13);
    CHECK_EQ(LAR_EMAPFULL, -14);
    CHECK_EQ(LAR_ECORRUPT, -15);
    CHECK_EQ(LAR_EBUSY, -16);
    CHECK_EQ(LAR_TYPE_DECIMAL128, 10);
    CHECK_EQ(LAR_TYPE_LINKING_OBJECTS, 13);
}

TEST(errors_last_error_is_never_null)
{
    const lar_error *e = lar_error_last();
    CHECK(e != NULL);
    CHECK(e->message != NULL);
    lar_error_clear();
    e = lar_error_last();
    CHECK(e != NULL);
    CHECK_EQ(e->code, LAR_OK);
    CHECK(e->message != NULL);

    CHECK_RC(lar_env_options_init(NULL), LAR_EINVAL);
    e = lar_error_last();
    CHECK(e != NULL && e->code == LAR_EINVAL && e->message && *e->message);

    lar_error_clear();
    e = lar_error_last();
    CHECK_EQ(e->code, LAR_OK);
    CHECK(e->message != NULL);
}

/* "A successful call does not clear the last error." */
TEST(errors_success_keeps_the_last_error)
{
    lar_env *env = open_env(test_db_path(NULL));
    CHECK_RC(lar_txn_begin(env, 0x40u, NULL), LAR_EINVAL);
    char message[512];
    snprintf(message, sizeof message, "%s", lar_error_last()->message);
    lar_txn *txn = begin_read(env);
    lar_env_info info;
    CHECK(lar_env_info_get(env, &info) == LAR_OK);
    CHECK(lar_txn_commit(txn) == LAR_OK);
    lar_txn_free(txn);
    CHECK_EQ(lar_error_last()->code, LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, message);
    close_env(env);
}

typedef struct thread_error_args {
    int initial_code;
    int own_code;
} thread_error_args;

static void *fail_in_thread(void *arg)
{
    thread_error_args *t = arg;
    t->initial_code = lar_error_last()->code;
    lar_error_clear();
    (void)lar_txn_commit(NULL);
    t->own_code = lar_error_last()->code;
    return NULL;
}

/* "the calling thread's last error" */
TEST(errors_are_per_thread)
{
    CHECK_RC(lar_env_options_init(NULL), LAR_EINVAL);
    thread_error_args t = {99, 99};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, fail_in_thread, &t) == 0);
    join_thread(thread, 10000);
    CHECK_EQ(t.initial_code, LAR_OK); /* "LAR_OK when no error was recorded since the thread started" */
    CHECK_EQ(t.own_code, LAR_EINVAL);
    CHECK_EQ(lar_error_last()->code, LAR_EINVAL); /* this thread's error is its own */

    lar_error_clear();
    CHECK(pthread_create(&thread, NULL, fail_in_thread, &t) == 0);
    join_thread(thread, 10000);
    CHECK_EQ(lar_error_last()->code, LAR_OK); /* the other thread's failure did not leak here */
}

/* "No function aborts the process on bad input": NULL for every pointer argument. */
TEST(errors_null_arguments_are_refused_everywhere)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));

    lar_env *env_out;
    lar_env_info info;
    lar_class cls;
    lar_class_info cinfo;
    uint32_t prop;
    lar_property_def def;
    lar_txn *txn_out;
    lar_value v, values[4], key = val_int(1);
    lar_obj obj;
    int flag;
    uint64_t n;
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def cdef = CLASS_DEF("X", props);

    CHECK_RC(lar_env_options_init(NULL), LAR_EINVAL);
    CHECK_RC(lar_env_open(NULL, NULL, &env_out), LAR_EINVAL);
    CHECK_RC(lar_env_open(test_db_path("unused"), NULL, NULL), LAR_EINVAL);
    CHECK_RC(lar_env_info_get(NULL, &info), LAR_EINVAL);
    CHECK_RC(lar_env_info_get(env, NULL), LAR_EINVAL);
    CHECK_RC(lar_schema_apply(NULL, &cdef, 1, 1), LAR_EINVAL);
    CHECK_RC(lar_schema_apply(env, NULL, 1, 1), LAR_EINVAL);
    CHECK_RC(lar_class_find(NULL, "Person", &cls), LAR_EINVAL);
    CHECK_RC(lar_class_find(env, NULL, &cls), LAR_EINVAL);
    CHECK_RC(lar_class_find(env, "Person", NULL), LAR_EINVAL);
    CHECK_RC(lar_class_info_get(NULL, p.cls, &cinfo), LAR_EINVAL);
    CHECK_RC(lar_class_info_get(env, p.cls, NULL), LAR_EINVAL);
    CHECK_RC(lar_property_find(NULL, p.cls, "id", &prop), LAR_EINVAL);
    CHECK_RC(lar_property_find(env, p.cls, NULL, &prop), LAR_EINVAL);
    CHECK_RC(lar_property_find(env, p.cls, "id", NULL), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(NULL, p.cls, 0, &def), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(env, p.cls, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_txn_begin(NULL, LAR_TXN_READ, &txn_out), LAR_EINVAL);
    CHECK_RC(lar_txn_begin(env, LAR_TXN_READ, NULL), LAR_EINVAL);
    CHECK_RC(lar_txn_commit(NULL), LAR_EINVAL);
    CHECK_RC(lar_txn_renew(NULL), LAR_EINVAL);
    CHECK_RC(lar_txn_state(NULL, &flag, &flag), LAR_EINVAL);
    CHECK_RC(lar_obj_create(NULL, p.cls, NULL, 0, &obj), LAR_EINVAL);
    CHECK_RC(lar_obj_create(txn, p.cls, NULL, 4, &obj), LAR_EINVAL);
    CHECK_RC(lar_obj_get(NULL, ada, 0, &v), LAR_EINVAL);
    CHECK_RC(lar_obj_get(txn, ada, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_get_all(NULL, ada, values, 4), LAR_EINVAL);
    CHECK_RC(lar_obj_get_all(txn, ada, NULL, 4), LAR_EINVAL);
    CHECK_RC(lar_obj_set(NULL, ada, 0, &key), LAR_EINVAL);
    CHECK_RC(lar_obj_set(txn, ada, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_delete(NULL, ada), LAR_EINVAL);
    CHECK_RC(lar_obj_exists(NULL, ada, &flag), LAR_EINVAL);
    CHECK_RC(lar_obj_exists(txn, ada, NULL), LAR_EINVAL);
    uint64_t stamp;
    CHECK_RC(lar_obj_stamp(NULL, ada, &stamp), LAR_EINVAL);
    CHECK_RC(lar_obj_stamp(txn, ada, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_stamp(txn, (lar_obj){UINT32_MAX, ada.key}, &stamp), LAR_EINVAL);
    CHECK_RC(lar_obj_stamp(txn, (lar_obj){ada.cls, ada.key + 1}, &stamp), LAR_EDELETED);
    CHECK_RC(lar_obj_find(NULL, p.cls, &key, &obj), LAR_EINVAL);
    CHECK_RC(lar_obj_find(txn, p.cls, NULL, &obj), LAR_EINVAL);
    CHECK_RC(lar_obj_find(txn, p.cls, &key, NULL), LAR_EINVAL);
    CHECK_RC(lar_objects_count(NULL, p.cls, &n), LAR_EINVAL);
    CHECK_RC(lar_objects_count(txn, p.cls, NULL), LAR_EINVAL);
    CHECK_RC(lar_objects_delete_all(NULL, p.cls), LAR_EINVAL);
    CHECK_RC(lar_iter_open(NULL, p.cls, &iter), LAR_EINVAL);
    CHECK_RC(lar_iter_open(txn, p.cls, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_next(NULL, &obj), LAR_EINVAL);
    CHECK_RC(lar_iter_next(iter, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_next_all(NULL, &obj, values, 4), LAR_EINVAL);
    CHECK_RC(lar_iter_next_all(iter, NULL, values, 4), LAR_EINVAL);
    CHECK_RC(lar_iter_next_all(iter, &obj, NULL, 4), LAR_EINVAL);
    CHECK_RC(lar_iter_seek(NULL, 0), LAR_EINVAL);

    /* Functions documented to ignore NULL. */
    CHECK_OK(lar_env_close(NULL));
    CHECK_OK(lar_txn_abort(NULL));
    lar_txn_free(NULL);
    lar_iter_close(NULL);
    CHECK(lar_version(NULL, NULL, NULL) != NULL);

    /* Everything still works after the barrage. */
    CHECK_OK(lar_iter_next(iter, &obj));
    CHECK_EQ(obj.key, ada.key);
    lar_iter_close(iter);
    commit_txn(txn);
    close_env(env);
}

TEST(version_matches_the_header)
{
    int major = -1, minor = -1, patch = -1;
    const char *text = lar_version(&major, &minor, &patch);
    CHECK_STR(text, "0.1.0");
    CHECK_STR(text, LARDER_VERSION_STRING);
    CHECK_EQ(major, LARDER_VERSION_MAJOR);
    CHECK_EQ(minor, LARDER_VERSION_MINOR);
    CHECK_EQ(patch, LARDER_VERSION_PATCH);
    CHECK_EQ(major, 0);
    CHECK_EQ(minor, 1);
    CHECK_EQ(patch, 0);
    CHECK_EQ(LARDER_VERSION_NUMBER, 1000);
    CHECK_EQ(LARDER_VERSION_NUMBER, LARDER_VERSION_MAJOR * 1000000 + LARDER_VERSION_MINOR * 1000 +
                                        LARDER_VERSION_PATCH);
    CHECK_EQ(LARDER_FORMAT_VERSION, 3);
    /* Each output may be NULL on its own. */
    major = -1;
    CHECK(lar_version(&major, NULL, NULL) == text || strcmp(lar_version(&major, NULL, NULL), text) == 0);
    CHECK_EQ(major, 0);
    patch = -1;
    CHECK_STR(lar_version(NULL, NULL, &patch), "0.1.0");
    CHECK_EQ(patch, 0);
}
