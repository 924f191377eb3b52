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

/* Big arrays that live for one query (base/big_alloc.c): malloc, realloc and free, except
 * that a thread keeps up to BIG_CACHED freed blocks of BIG_KEPT_MIN bytes or more,
 * BIG_CACHE_BYTES in all (BIG_KEPT_TOTAL for all threads), for its next query, their
 * pages still in memory. A block from
 * these functions goes back only through big_free() or big_realloc(). NULL when out of
 * memory (big_realloc() then leaves the block as it was). */
#define BIG_KEPT_MIN ((size_t)64 << 10)
#define BIG_CACHED 8
#define BIG_CACHE_BYTES ((size_t)32 << 20)
#define BIG_KEPT_TOTAL ((size_t)64 << 20) /* by all threads together */
void *big_alloc(size_t size);
void *big_realloc(void *block, size_t size);
void big_free(void *block);
/* The bytes this thread keeps; big_drop_kept() frees them. */
size_t big_kept_bytes(void);
void big_drop_kept(void);

/* The 8 or 4 bytes at p as a big-endian number (memcmp order). */
static inline uint64_t load_be64(const void *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t load_be32(const void *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

bool utf8_valid(const char *data, size_t size);
const char *type_name(lar_type type);

#endif
