/* Layer 4, schema: class definitions applied to a file in a write transaction,
 * and lookups of classes and properties (lar_schema_apply, lar_class_find...). */
#ifndef LARDER_SCHEMA_H
#define LARDER_SCHEMA_H

#include "kv/kv.h"

/* Applies class definitions inside txn, which sees them at once; a change that
 * fails midway poisons txn. */
int schema_apply_in(lar_txn *txn, const lar_class_def *classes, size_t class_count, uint64_t schema_version,
                    const lar_class_def **added);

#endif
