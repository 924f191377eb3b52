/* Big arrays that live for one query: a result's keys and rows, a sort's keys and
 * positions, an iterator's copy of a result. Each thread keeps the last few of them it
 * freed (BIG_CACHED blocks, BIG_CACHE_BYTES at most) for its next query, and all threads
 * together BIG_KEPT_TOTAL at most (a pool of many worker threads keeps no more).
 *
 * Why: glibc serves a block this size with fresh pages (mmap, or its heap, trimmed on
 * free), and the kernel faults each 4 KiB page in and zeroes it. Sorting 200,000 objects
 * by a string took 134 ns an object with fresh pages and 110 with the blocks kept: the
 * faults were a sixth of the work. A query run again (a sorted list redrawn after
 * each change) finds its pages resident.
 *
 * Each block carries its capacity in a 16-byte header (malloc's alignment is kept). A
 * thread's blocks are freed when it exits. Under AddressSanitizer a kept block is
 * poisoned, so that a use after big_free() is still reported. */
#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BIG_ASAN 1
#endif
#ifdef BIG_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

typedef struct big_header {
    size_t capacity;
    size_t unused; /* keeps the array 16-byte aligned */
} big_header;

typedef struct big_cache {
    big_header *blocks[BIG_CACHED];
    size_t count, bytes;
} big_cache;

static __thread big_cache cache;
static atomic_size_t kept_everywhere; /* the bytes all threads keep */
static __thread bool registered;
static pthread_key_t exit_key;
static bool have_exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void *array_of(big_header *h)
{
    return h + 1;
}

static big_header *header_of(void *block)
{
    return (big_header *)block - 1;
}

/* Takes the kept block at index i out of the cache, unpoisoned. */
static big_header *remove_kept(size_t i)
{
    big_header *h = cache.blocks[i];
    cache.blocks[i] = cache.blocks[--cache.count];
    cache.bytes -= h->capacity;
    atomic_fetch_sub(&kept_everywhere, h->capacity);
    UNPOISON(array_of(h), h->capacity);
    return h;
}

static void release_cache(void *unused)
{
    (void)unused;
    while (cache.count) free(remove_kept(cache.count - 1));
}

void big_drop_kept(void)
{
    release_cache(NULL);
}

static void make_exit_key(void)
{
    have_exit_key = pthread_key_create(&exit_key, release_cache) == 0;
}

/* A library unloaded (dlclose) while threads that kept blocks live must not leave them a
 * destructor that is no longer mapped: their blocks then stay allocated. */
__attribute__((destructor)) static void forget_exit_key(void)
{
    if (have_exit_key) pthread_key_delete(exit_key);
    have_exit_key = false;
}

/* Whether this thread frees its blocks at exit (and so may keep some). */
static bool thread_keeps_blocks(void)
{
    if (registered) return true;
    pthread_once(&exit_key_once, make_exit_key);
    registered = have_exit_key && pthread_setspecific(exit_key, &cache) == 0;
    return registered;
}

/* Removes and returns the smallest kept block of at least size bytes, or NULL. */
static big_header *take_kept(size_t size)
{
    size_t best = cache.count;
    for (size_t i = 0; i < cache.count; i++)
        if (cache.blocks[i]->capacity >= size &&
            (best == cache.count || cache.blocks[i]->capacity < cache.blocks[best]->capacity))
            best = i;
    return best == cache.count ? NULL : remove_kept(best);
}

void *big_alloc(size_t size)
{
    big_header *h = size >= BIG_KEPT_MIN ? take_kept(size) : NULL;
    if (h) return array_of(h);
    if (size > SIZE_MAX - sizeof *h) return NULL;
    h = malloc(sizeof *h + size);
    if (!h) return NULL;
    h->capacity = size;
    return array_of(h);
}

void big_free(void *block)
{
    if (!block) return;
    big_header *h = header_of(block);
    if (h->capacity < BIG_KEPT_MIN || h->capacity > BIG_CACHE_BYTES || !thread_keeps_blocks()) {
        free(h);
        return;
    }
    /* Room made by dropping smaller blocks: the biggest are the dearest to fault in again. */
    while (cache.count == BIG_CACHED || cache.bytes + h->capacity > BIG_CACHE_BYTES) {
        size_t smallest = 0;
        for (size_t i = 1; i < cache.count; i++)
            if (cache.blocks[i]->capacity < cache.blocks[smallest]->capacity) smallest = i;
        if (cache.blocks[smallest]->capacity >= h->capacity) {
            free(h);
            return;
        }
        free(remove_kept(smallest));
    }
    if (atomic_fetch_add(&kept_everywhere, h->capacity) + h->capacity > BIG_KEPT_TOTAL) {
        atomic_fetch_sub(&kept_everywhere, h->capacity);
        free(h);
        return;
    }
    POISON(array_of(h), h->capacity);
    cache.blocks[cache.count++] = h;
    cache.bytes += h->capacity;
}

void *big_realloc(void *block, size_t size)
{
    if (!block) return big_alloc(size);
    size_t capacity = header_of(block)->capacity;
    /* A block shrunk to under half moves, so that the big one is kept for the next query. */
    if (size <= capacity && (size >= capacity / 2 || capacity < BIG_KEPT_MIN)) return block;
    void *moved = big_alloc(size);
    if (!moved) return NULL;
    memcpy(moved, block, size < capacity ? size : capacity);
    big_free(block);
    return moved;
}

size_t big_kept_bytes(void)
{
    return cache.bytes;
}
