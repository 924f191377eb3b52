/* The memory of one large write: Larder keeps no copy of what a write changes, so
 * the process grows by about the pages LMDB writes (which LMDB itself caps by
 * spilling dirty pages past 512 MiB), not by a multiple of them.
 * Built without sanitizers, which would distort the process's size.
 * Usage: large_write <database path> <objects>; exits 1 when the bound is broken. */
#include "larder.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define SLACK_BYTES ((size_t)32 << 20) /* allocator and LMDB bookkeeping */

static size_t peak_rss(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (size_t)usage.ru_maxrss * 1024;
}

static int fail(const char *what)
{
    fprintf(stderr, "large_write: %s: %s\n", what, lar_error_last()->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: large_write <database path> <objects>\n");
        return 2;
    }
    long count = atol(argv[2]);
    lar_env_options options;
    lar_env_options_init(&options);
    options.flags = LAR_ENV_NOSYNC;
    lar_env *env;
    if (lar_env_open(argv[1], &options, &env)) return fail("open");
    lar_property_def props[] = {
        {.name = "id", .type = LAR_TYPE_INT, .flags = LAR_PROP_PRIMARY_KEY},
        {.name = "value", .type = LAR_TYPE_INT},
    };
    lar_class_def def = {.name = "Small", .properties = props, .property_count = 2};
    lar_class cls;
    if (lar_schema_apply(env, &def, 1, 1) || lar_class_find(env, "Small", &cls)) return fail("schema");
    lar_env_info before_info;
    lar_env_info_get(env, &before_info);
    size_t before = peak_rss();

    lar_txn *txn;
    if (lar_txn_begin(env, LAR_TXN_WRITE, &txn)) return fail("begin");
    for (long i = 0; i < count; i++) {
        lar_value values[2] = {{.type = LAR_TYPE_INT, .as.integer = i}, {.type = LAR_TYPE_INT, .as.integer = i * 3}};
        if (lar_obj_create(txn, cls, values, 2, NULL)) return fail("create");
    }
    if (lar_txn_commit(txn)) return fail("commit");
    lar_txn_free(txn);

    size_t grown = peak_rss() - before;
    lar_env_info after_info;
    lar_env_info_get(env, &after_info);
    size_t written = after_info.used_size - before_info.used_size;
    lar_env_close(env);
    bool ok = grown <= written + SLACK_BYTES;
    printf("large write: %ld objects, %.1f MB of pages, the process grew %.1f MB: %s\n", count,
           written / 1048576.0, grown / 1048576.0, ok ? "within bound" : "OVER the bound");
    printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
