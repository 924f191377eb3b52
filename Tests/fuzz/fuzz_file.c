/* libFuzzer harness for damaged database files: the input is the file itself
 * (garbage, or a real Larder file from the seed corpus mutated and truncated),
 * opened read-only and read in full through every read path. Any sanitizer
 * report, crash or hang is a bug: the library must refuse what it cannot read. */
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads every object of every class, through every read path. */
static void read_everything(lar_env *env)
{
    lar_env_info info;
    if (lar_env_info_get(env, &info) != LAR_OK) return;
    lar_txn *txn;
    if (lar_txn_begin(env, LAR_TXN_READ, &txn) != LAR_OK) return;
    for (lar_class cls = 0; cls < info.class_count + 1; cls++) {
        lar_class_info ci;
        if (lar_class_info_get(env, cls, &ci) != LAR_OK) continue;
        for (uint32_t i = 0; i < ci.property_count; i++) {
            lar_property_def def;
            if (lar_property_info_get(env, cls, i, &def) == LAR_OK) fuzz_sink += strlen(def.name);
        }
        uint64_t count;
        lar_objects_count(txn, cls, &count);
        lar_iter *iter;
        if (lar_iter_open(txn, cls, &iter) != LAR_OK) continue;
        lar_value *values = calloc(ci.property_count + 1, sizeof *values);
        lar_obj obj;
        for (int steps = 0; values && steps < 1000; steps++) {
            int rc = lar_iter_next(iter, &obj);
            if (rc == LAR_ENOTFOUND) break;
            if (rc) continue;
            for (uint32_t i = 0; i < ci.property_count; i++)
                if (lar_obj_get(txn, obj, i, &values[i]) == LAR_OK) fuzz_consume_value(&values[i]);
            if (lar_obj_get_all(txn, obj, values, ci.property_count) == LAR_OK)
                for (uint32_t i = 0; i < ci.property_count; i++) fuzz_consume_value(&values[i]);
            if (ci.primary_key >= 0 && lar_obj_get(txn, obj, (uint32_t)ci.primary_key, &values[0]) == LAR_OK) {
                lar_obj found;
                lar_value key = values[0];
                lar_obj_find(txn, cls, &key, &found);
            }
        }
        free(values);
        lar_iter_close(iter);
        /* A query's scan reads the table's pages in place (kv/table_walk.c). */
        lar_query *q;
        if (lar_query_parse(env, cls, "TRUEPREDICATE", &q) != LAR_OK) continue;
        lar_results *r;
        if (lar_query_run(txn, q, &r) == LAR_OK) {
            size_t n = 0;
            lar_results_count(r, &n);
            fuzz_sink += n;
            lar_results_free(r);
        }
        lar_query_free(q);
    }
    lar_txn_free(txn);
}

/* The input is the database file itself. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_remove_db();
    FILE *f = fopen(fuzz_db_path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    lar_env_options options;
    lar_env_options_init(&options);
    options.flags = LAR_ENV_READONLY;
    lar_env *env;
    if (lar_env_open(fuzz_db_path, &options, &env) == LAR_OK) {
        read_everything(env);
        if (lar_env_close(env) != LAR_OK) abort();
    }
    lar_error_clear();
    return 0;
}

