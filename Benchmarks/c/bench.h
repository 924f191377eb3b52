/* Small helpers for the C benchmark: a monotonic clock, a deterministic RNG, a shuffle. */
#ifndef LARDER_BENCH_H
#define LARDER_BENCH_H

#include "larder.h"

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Nanoseconds from CLOCK_MONOTONIC: only differences mean anything. */
static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: deterministic for a given seed, which must not be 0. */
typedef struct bench_rng {
    uint64_t state;
} bench_rng;

static inline bench_rng bench_rng_seed(uint64_t seed)
{
    bench_rng rng = {seed ? seed : 0x9E3779B97F4A7C15ull};
    return rng;
}

static inline uint64_t bench_rng_next(bench_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* A uniform integer in [0, bound), bound > 0 (rejection sampling: no modulo bias). */
static inline uint64_t bench_rng_below(bench_rng *rng, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do x = bench_rng_next(rng); while (x >= limit);
    return x % bound;
}

/* Fisher-Yates shuffle of count int64 values. */
static inline void bench_shuffle(int64_t *items, size_t count, bench_rng *rng)
{
    for (size_t i = count; i > 1; i--) {
        size_t j = (size_t)bench_rng_below(rng, i);
        int64_t t = items[i - 1];
        items[i - 1] = items[j];
        items[j] = t;
    }
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Big-endian, so that memcmp orders keys as the numbers. */
static inline void be64(uint64_t v, uint8_t *out)
{
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint64_t read_be64(const uint8_t *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | in[i];
    return v;
}

/* ---- shared by bench.c and the workload files (bench_collections.c, bench_mixed.c, bench_embedded.c) ---- */

/* Print "bench_c: what: detail" and exit 1. */
_Noreturn void die(const char *what, const char *detail);
/* Print a failed Larder call with its code and the last error's message, and exit 1. */
_Noreturn void lar_die(const char *what, int rc);
/* Remove a database file and its "-lock" file, if present. */
void remove_database(const char *path);
/* Print and keep (for <dir>/c-results.txt) a BENCH line: best_ns over n operations,
 * and its ratio to raw_ns, the raw-LMDB time of the same workload. */
void report_n(const char *workload, const char *impl, uint64_t n, uint64_t best_ns, uint64_t raw_ns);
/* The same with one more field, vs_<other>=best_ns / other_ns: the ratio to another baseline. */
void report_n_vs(const char *workload, const char *impl, uint64_t n, uint64_t best_ns, uint64_t raw_ns,
                 const char *other, uint64_t other_ns);
/* Exits through die() unless a workload's check matches: what it summed and counted. */
void check_result(const char *what, int64_t got_sum, int64_t want_sum, uint64_t got_count, uint64_t want_count);
/* A raw LMDB environment at path as every baseline opens it (NOSUBDIR, NOTLS, durable
 * sync, a 1 GiB map, up to 8 tables), and a table of it, created in its own write. */
MDB_env *raw_env_open(const char *path);
MDB_dbi raw_dbi(MDB_env *env, const char *name, unsigned int flags);
/* A fresh Larder file at path (the old one removed) with the same map and sync as the
 * raw baselines, and classes declared. */
lar_env *lar_open_fresh(const char *path, const lar_class_def *classes, size_t count);
/* The collection workloads (bench_collections.c): lists, links, maps and sets, files in dir. */
void bench_collections(const char *dir);
/* The mixed-value workloads (bench_mixed.c): mixed-insert and mixed-scan, files in dir. */
void bench_mixed(const char *dir);
/* The embedded-object workloads (bench_embedded.c): an address of 4 strings, embedded or plain. */
void bench_embedded(const char *dir);
/* The query workloads (bench_query.c): filters, sorts and sums over QN items. */
void bench_query(const char *dir);
/* The change-log workloads (bench_changes.c): the insert with the log, and change sets. */
void bench_changes(const char *dir);
/* Only the sorted result's change sets (section changes-sorted; the notify section's Swift one). */
void bench_changes_sorted(const char *dir);
/* bench.c's insert workload (raw, C API) beside the C API on a file whose environment
 * unlog() turned the change log off: BENCH workload=insert-logged lines. */
void bench_insert_logged(const char *dir, void (*unlog)(lar_env *env));

#define MDB_CHECK(call) do { int rc_ = (call); if (rc_) die(#call, mdb_strerror(rc_)); } while (0)
#define LAR_CHECK(call) do { int rc_ = (call); if (rc_) lar_die(#call, rc_); } while (0)

#endif
