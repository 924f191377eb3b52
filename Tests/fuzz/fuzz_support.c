/* What the fuzz harnesses share: see fuzz_support.h. */
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char fuzz_db_path[256];
bool fuzz_tracing;
volatile uint64_t fuzz_sink;
static char db_dir[64];

void fuzz_remove_db(void)
{
    char lock[300];
    snprintf(lock, sizeof lock, "%s-lock", fuzz_db_path);
    unlink(fuzz_db_path);
    unlink(lock);
}

static void remove_dir(void)
{
    fuzz_remove_db();
    rmdir(db_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(db_dir, sizeof db_dir, "/tmp/larder-fuzz-XXXXXX");
    if (!mkdtemp(db_dir)) abort();
    snprintf(fuzz_db_path, sizeof fuzz_db_path, "%s/db.larder", db_dir);
    atexit(remove_dir);
    fuzz_tracing = getenv("LARDER_FUZZ_TRACE") != NULL;
    return 0;
}

void fuzz_consume_value(const lar_value *v)
{
    uint64_t sum = (uint64_t)v->type;
    if (v->type == LAR_TYPE_STRING) {
        const char *s = v->as.string.data;
        for (size_t i = 0; i < v->as.string.size; i++) sum += (uint8_t)s[i];
        if (s[v->as.string.size] != 0) abort(); /* "Strings are followed by a NUL byte" */
    } else if (v->type == LAR_TYPE_BINARY) {
        const uint8_t *b = v->as.binary.data;
        for (size_t i = 0; i < v->as.binary.size; i++) sum += b[i];
    } else {
        sum += v->as.decimal128.low;
    }
    fuzz_sink += sum;
}

void fuzz_consume_error(int rc)
{
    const lar_error *e = lar_error_last();
    if (rc > 0 || !e || !e->message) abort();
    if (fuzz_tracing) fprintf(stderr, "    -> %d %s\n", rc, e->code == rc ? e->message : "");
    fuzz_sink += strlen(e->message) + strlen(lar_strerror(rc));
}
