/* What the fuzz harnesses share: a scratch database path and checks on what the library returns. */
#ifndef LARDER_FUZZ_SUPPORT_H
#define LARDER_FUZZ_SUPPORT_H

#include "larder.h"

#include <stdbool.h>
#include <stdint.h>

/* Where a harness keeps its database: a file in a private directory made at start-up. */
extern char fuzz_db_path[256];
/* Set by LARDER_FUZZ_TRACE=1: the harness prints what an input does. */
extern bool fuzz_tracing;
/* Results are added here so the compiler cannot drop the reads that check them. */
extern volatile uint64_t fuzz_sink;

/* Removes the database and its lock file. */
void fuzz_remove_db(void);
/* Touches every byte a value read from the database points to, and a string's NUL;
 * aborts when the NUL is missing. */
void fuzz_consume_value(const lar_value *value);
/* Checks that a failed call recorded its error with a message; aborts otherwise. */
void fuzz_consume_error(int rc);

#endif
