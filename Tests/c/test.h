/* A tiny test harness for Larder's C tests: no dependencies beyond libc and pthreads.
 *
 *   TEST(name) { ... }           defines and registers a test (run in file, then line order)
 *   CHECK(cond)                  fails the test when cond is false
 *   CHECK_RC(expr, code)         expr must return code; for an error code the call must also
 *                                record that code and a non-empty message as the last error
 *   CHECK_OK(expr)               CHECK_RC(expr, LAR_OK)
 *   CHECK_END(expr)              expr must return LAR_ENOTFOUND without touching the last error
 *                                (the documented end of an iteration)
 *   CHECK_EQ(a, b)               integers; prints both on failure
 *   CHECK_STR(a, b), CHECK_MEM(a, b, n), CHECK_VALUE(got, expected)
 *   CHECK_MSG_HAS(text)          the last error's message contains text
 *
 * A failed check prints file:line and what was expected, then ends the test (longjmp).
 * Checks also work in threads a test starts (the thread exits; the test fails when it
 * ends) and in processes it forks with test_fork() (the child exits with status 1).
 *
 * Every test gets its own database file: test_db_path() names one under the data
 * directory given to the runner as argv[1]. */
#ifndef LARDER_TEST_H
#define LARDER_TEST_H

#include "larder.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* ---- registry ---- */

typedef void (*test_fn)(void);

void test_register(const char *name, const char *file, int line, test_fn fn);

#define TEST(name)                                                                 \
    static void test_##name(void);                                                 \
    __attribute__((constructor)) static void test_register_##name(void)            \
    {                                                                              \
        test_register(#name, __FILE__, __LINE__, test_##name);                     \
    }                                                                              \
    static void test_##name(void)

/* ---- checks ---- */

_Noreturn void test_fail(const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void test_check_rc(const char *file, int line, const char *expr, int got, int expected);
void test_check_end(const char *file, int line, const char *expr, int got, int saved_code,
                    const char *saved_message);
void test_check_value(const char *file, int line, const char *expr, const lar_value *got,
                      const lar_value *expected);

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) test_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond);     \
    } while (0)

/* The last error is cleared first, so a recorded error must come from this call. */
#define CHECK_RC(expr, code)                                                       \
    do {                                                                           \
        int expected_rc_ = (code);                                                 \
        if (expected_rc_ != LAR_OK) lar_error_clear();                             \
        int got_rc_ = (expr);                                                      \
        test_check_rc(__FILE__, __LINE__, #expr, got_rc_, expected_rc_);           \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, LAR_OK)

#define CHECK_END(expr)                                                            \
    do {                                                                           \
        char saved_message_[512];                                                  \
        int saved_code_ = lar_error_last()->code;                                  \
        snprintf(saved_message_, sizeof saved_message_, "%s",                      \
                 lar_error_last()->message ? lar_error_last()->message : "(null)"); \
        int got_rc_ = (expr);                                                      \
        test_check_end(__FILE__, __LINE__, #expr, got_rc_, saved_code_, saved_message_); \
    } while (0)

#define CHECK_EQ(a, b)                                                             \
    do {                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                        \
        if (a_ != b_)                                                              \
            test_fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s) failed: %lld != %lld", #a, #b, a_, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                            \
    do {                                                                           \
        const char *a_ = (a), *b_ = (b);                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                     \
            test_fail(__FILE__, __LINE__, "CHECK_STR(%s, %s) failed: \"%s\" != \"%s\"", #a, #b, \
                      a_ ? a_ : "(null)", b_ ? b_ : "(null)");                    \
    } while (0)

#define CHECK_MEM(a, b, n)                                                         \
    do {                                                                           \
        size_t n_ = (n);                                                           \
        if (n_ && memcmp((a), (b), n_) != 0)                                       \
            test_fail(__FILE__, __LINE__, "CHECK_MEM(%s, %s, %s) failed", #a, #b, #n); \
    } while (0)

#define CHECK_VALUE(got, expected)                                                 \
    do {                                                                           \
        lar_value got_v_ = (got), expected_v_ = (expected);                        \
        test_check_value(__FILE__, __LINE__, #got, &got_v_, &expected_v_);         \
    } while (0)

#define CHECK_MSG_HAS(text)                                                        \
    do {                                                                           \
        const char *m_ = lar_error_last()->message;                                \
        if (!m_ || !strstr(m_, (text)))                                            \
            test_fail(__FILE__, __LINE__, "last error message \"%s\" does not mention \"%s\"", \
                      m_ ? m_ : "(null)", (text));                                 \
    } while (0)

/* ---- files ---- */

/* The data directory (argv[1]). */
const char *test_data_dir(void);
/* "<data dir>/<name>": a fixed file name. The returned string lives until the test ends. */
const char *test_data_path(const char *name);
/* "<data dir>/<test name>[-suffix].larder", with any earlier file and lock file removed. */
const char *test_db_path(const char *suffix);
bool file_exists(const char *path);
/* Reads a whole file into malloc()ed memory; the caller frees it. */
uint8_t *file_read(const char *path, size_t *size);
void file_write(const char *path, const void *bytes, size_t size);

/* Counts the entries of every table of a closed database file (table NULL), or of
 * the one named table, reading it with LMDB directly. The change log ("changes") counts
 * only when named: it is bookkeeping, not data. */
uint64_t count_file_entries(const char *path, const char *table);

/* Overwrites the row of key in cls's table of a closed file with three bytes, as a
 * damaged file would hold. */
void test_damage_row(const char *path, lar_class cls, lar_objkey key);

/* ---- environments and transactions (all fail the test on error) ---- */

lar_env *open_env(const char *path);
lar_env *open_env_with(const char *path, size_t initial_map_size, unsigned int flags);
void close_env(lar_env *env);
lar_txn *begin_read(lar_env *env);
lar_txn *begin_write(lar_env *env);
/* Commits and frees. */
void commit_txn(lar_txn *txn);
/* Runs fill in a write transaction and commits it. A write that fills the map fails
 * with LAR_EMAPFULL; as the header tells callers, it is aborted and run again on the
 * grown map. Any other error fails the test. Returns how many runs filled the map. */
typedef int (*write_fn)(lar_txn *txn, void *context);
int write_retrying(lar_env *env, write_fn fill, void *context);
/* Runs attempt in a new write whose nth LMDB change fails, for nth = 1, 2, ... until an
 * attempt succeeds (that write is aborted). After each failure the write must refuse to
 * commit, and check, in a read transaction, sees what the last commit left. Returns how
 * many attempts failed. */
typedef void (*read_check_fn)(lar_txn *txn, void *context);
int fail_each_change(lar_env *env, write_fn attempt, read_check_fn check, void *context);
lar_env_info env_info(lar_env *env);
lar_class class_id(lar_env *env, const char *name);
uint32_t prop_id(lar_env *env, lar_class cls, const char *name);
uint64_t count_objects(lar_txn *txn, lar_class cls);
lar_value get_value(lar_txn *txn, lar_obj obj, uint32_t prop);
bool obj_exists(lar_txn *txn, lar_obj obj);
/* Counts objects by iterating the class. */
uint64_t count_by_iteration(lar_txn *txn, lar_class cls);

/* ---- schema building ---- */

#define PROP(name, type, flags) \
    ((lar_property_def){(name), (type), LAR_COLLECTION_NONE, (flags), NULL, NULL})
#define CLASS_DEF(name, props) \
    ((lar_class_def){(name), (props), sizeof(props) / sizeof((props)[0]), 0})
#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* The class most tests use: Person {id INT primary key, name STRING, age INT optional, score DOUBLE}. */
typedef struct person_schema {
    lar_class cls;
    uint32_t id, name, age, score, count;
} person_schema;

/* Applies the Person class (schema version 1) and looks its properties up. */
person_schema person_setup(lar_env *env);
/* Looks the Person class of an already prepared file up. */
person_schema person_lookup(lar_env *env);
/* age < 0 stores null. */
lar_obj person_create(lar_txn *txn, const person_schema *p, int64_t id, const char *name, int64_t age,
                      double score);
lar_obj person_find(lar_txn *txn, const person_schema *p, int64_t id);

/* A class with one required and one optional property of every scalar type:
 * "int", "bool", ..., "decimal128" and "opt_int", ..., "opt_decimal128". */
#define SCALAR_TYPE_COUNT 10 /* LAR_TYPE_INT ... LAR_TYPE_DECIMAL128 */
typedef struct all_types_schema {
    lar_class cls;
    uint32_t count;
    uint32_t req[LAR_TYPE_DECIMAL128 + 1]; /* indexed by lar_type */
    uint32_t opt[LAR_TYPE_DECIMAL128 + 1];
} all_types_schema;

all_types_schema all_types_setup(lar_env *env);
all_types_schema all_types_lookup(lar_env *env);
extern const char *const scalar_type_names[LAR_TYPE_DECIMAL128 + 1];

/* The query tests' classes: Address {city}, Person {name, dogs: [Dog], address ->
 * Address?}, Dog {name, age, weight?, ratio, alive, born?, oid, uid, price, data, extra
 * (mixed), owner -> Person?, tags: [String], scores: Set<Int>, attrs: [String: String?],
 * friends: [Dog], anys: [Mixed]}. address_flags: 0 or LAR_CLASS_EMBEDDED. Returns Dog. */
lar_class query_test_schema(lar_env *env, unsigned address_flags);
/* A fresh file with the query tests' classes and three Dogs aged 3, 1 and 2 (dogs[], in
 * creation order); *dog is their class. */
lar_env *query_three_dogs(lar_class *dog, lar_obj dogs[3]);

/* ---- values ---- */

lar_value val_null(void);
lar_value val_int(int64_t i);
lar_value val_bool(int b);
lar_value val_float(float f);
lar_value val_double(double d);
lar_value val_str(const char *s);
lar_value val_strn(const char *s, size_t size);
lar_value val_bin(const void *data, size_t size);
lar_value val_ts(int64_t seconds, int32_t nanoseconds);
lar_value val_oid(const uint8_t bytes[12]);
lar_value val_uuid(const uint8_t bytes[16]);
lar_value val_dec(uint64_t low, uint64_t high);
/* Exact equality: floats compare bit for bit, strings and binaries byte for byte. */
bool value_same(const lar_value *a, const lar_value *b);
void value_describe(const lar_value *v, char *out, size_t size);

/* ---- threads, processes, time ---- */

/* A one-shot signal between threads. */
typedef struct latch latch;
latch *latch_new(void);
void latch_free(latch *l);
void latch_open(latch *l);
/* Returns whether the latch opened within timeout_ms. */
bool latch_wait(latch *l, int timeout_ms);

/* Joins a thread, failing the test if it does not end within timeout_ms. */
void join_thread(pthread_t thread, int timeout_ms);

/* fork() for tests: flushes stdio first; a failed check in the child exits it with status 1. */
pid_t test_fork(void);
/* Child side: ends the child successfully. */
_Noreturn void child_exit_ok(void);
/* Waits for a child (killing it after timeout_ms) and checks it exited with status 0. */
void wait_child_ok(pid_t pid, int timeout_ms);
/* Pipes carrying one-byte messages. */
void pipe_send(int fd, char message);
/* Fails the test unless message arrives within timeout_ms. */
void pipe_expect(int fd, char message, int timeout_ms);
/* Whether anything arrives within timeout_ms. */
bool pipe_readable(int fd, int timeout_ms);

void sleep_ms(int ms);
/* Monotonic milliseconds. */
int64_t now_ms(void);

/* Set by the runner. */
extern const char *test_current_name;

#endif
