/* Layer 0, base: errors, byte buffers, type names and UTF-8. Depends on nothing
 * but the public header.
 *
 * The layers of the core, each a folder with one header that includes only the
 * layers below it (checked by build-aux/check-layers):
 *   base     errors, buffers, text
 *   catalog  class definitions: validation, row layout, stored form (pure data)
 *   kv       environments, transactions, map growth, tables: the only code that calls LMDB
 *   codec    values, keys and rows, encoded and decoded
 *   schema   applying and looking up class definitions in a file
 *   changes  the change log: what each write changed, stored at its commit, read back
 *            for a range of versions; lists' change sets; watching for commits
 *   link     the backlink table: which objects link to one, through which property
 *   collection  lists (counted B+trees of chunks), sets and maps of an object's properties
 *   object   objects, their indexes and links, iterators; a delete frees the object's
 *            collections and nulls the links to it, hence above link and collection
 *   query    the query language: lexer, parser, AST, resolution against the schema
 *   changeset   change sets of query results between versions (from the change log)
 * The change log sits below link: every layer that writes objects records into it. */
#ifndef LARDER_BASE_H
#define LARDER_BASE_H

#include "larder.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Records code and a printf-style message as this thread's last error; returns code. */
int lar_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

typedef struct byte_buffer {
    uint8_t *data;
    size_t size, capacity;
} byte_buffer;

int buffer_reserve(byte_buffer *buffer, size_t extra);
int buffer_append(byte_buffer *buffer, const void *bytes, size_t size);
void buffer_free(byte_buffer *buffer);

bool utf8_valid(const char *data, size_t size);
const char *type_name(lar_type type);

#endif
