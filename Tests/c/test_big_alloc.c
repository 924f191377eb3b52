/* Big arrays (CCore/base/big_alloc.c): a freed block of BIG_KEPT_MIN bytes or more is kept
 * for this thread's next one, within BIG_CACHED blocks and BIG_CACHE_BYTES; contents
 * survive big_realloc(); a kept block stays poisoned for AddressSanitizer. */
#include "test.h"

#include "base/base.h"

#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <string.h>

#define MIB ((size_t)1 << 20)

static void drain(void)
{
    big_drop_kept();
    CHECK_EQ(big_kept_bytes(), 0);
}

TEST(big_alloc_keeps_a_freed_block_for_the_next)
{
    drain();
    uint8_t *a = big_alloc(MIB);
    CHECK(a != NULL);
    memset(a, 7, MIB);
    big_free(a);
    CHECK_EQ(big_kept_bytes(), MIB);
    CHECK(__asan_address_is_poisoned(a));
    CHECK(__asan_address_is_poisoned(a + MIB - 1));
    uint8_t *b = big_alloc(MIB / 2 + 1); /* the smallest kept block that fits */
    CHECK(b == a);
    CHECK(!__asan_address_is_poisoned(b + MIB - 1));
    CHECK_EQ(big_kept_bytes(), 0);
    big_free(b);
    uint8_t *small = big_alloc(BIG_KEPT_MIN - 1); /* small: malloc's, never kept */
    CHECK(small != NULL && small != a);
    big_free(small);
    CHECK_EQ(big_kept_bytes(), MIB);
    drain();
}

TEST(big_alloc_picks_the_smallest_block_that_fits)
{
    drain();
    void *one = big_alloc(MIB), *four = big_alloc(4 * MIB), *two = big_alloc(2 * MIB);
    big_free(four);
    big_free(one);
    big_free(two);
    CHECK_EQ(big_kept_bytes(), 7 * MIB);
    CHECK(big_alloc(MIB + 1) == two);
    CHECK(big_alloc(3 * MIB) == four);
    CHECK(big_alloc(MIB) == one);
    void *fresh = big_alloc(MIB); /* none kept: a new block */
    CHECK(fresh != NULL && fresh != one && fresh != two && fresh != four);
    CHECK_EQ(big_kept_bytes(), 0);
    big_free(fresh);
    big_free(one);
    big_free(two);
    big_free(four);
    drain();
}

TEST(big_alloc_keeps_within_its_limits)
{
    drain();
    void *blocks[BIG_CACHED + 4], *late = big_alloc(10 * MIB);
    for (size_t i = 0; i < BIG_CACHED + 4; i++) blocks[i] = big_alloc((i + 1) * MIB);
    for (size_t i = 0; i < BIG_CACHED + 4; i++) big_free(blocks[i]);
    /* Each block freed drops smaller ones to fit in 32 MiB: 11 and 12 MiB are left. */
    CHECK_EQ(big_kept_bytes(), (11 + 12) * MIB);
    void *huge = big_alloc(BIG_CACHE_BYTES + 1); /* bigger than the whole cache: never kept */
    big_free(huge);
    CHECK_EQ(big_kept_bytes(), (11 + 12) * MIB);
    big_free(late); /* smaller than every kept block, with no room left: not kept */
    CHECK_EQ(big_kept_bytes(), (11 + 12) * MIB);
    drain();
}

TEST(big_realloc_keeps_contents_and_gives_back_a_shrunk_block)
{
    drain();
    uint32_t *a = big_realloc(NULL, 100 * sizeof *a);
    CHECK(a != NULL);
    for (uint32_t i = 0; i < 100; i++) a[i] = i;
    size_t grown = MIB / sizeof *a;
    uint32_t *b = big_realloc(a, grown * sizeof *b); /* grows: moves */
    CHECK(b != NULL);
    for (uint32_t i = 0; i < 100; i++) CHECK_EQ(b[i], i);
    for (size_t i = 100; i < grown; i++) b[i] = (uint32_t)i;
    CHECK(big_realloc(b, grown * sizeof *b - 64) == b); /* a little smaller: stays */
    uint32_t *c = big_realloc(b, 1000 * sizeof *c);    /* under half: moves, the big block kept */
    CHECK(c != b);
    for (uint32_t i = 0; i < 1000; i++) CHECK_EQ(c[i], i);
    CHECK_EQ(big_kept_bytes(), MIB);
    CHECK(big_realloc(c, (size_t)-1) == NULL); /* too big: the block is left as it was */
    CHECK_EQ(c[999], 999);
    big_free(c);
    drain();
}

static void *free_in_thread(void *unused)
{
    (void)unused;
    CHECK_EQ(big_kept_bytes(), 0); /* each thread has its own */
    void *a = big_alloc(2 * MIB);
    big_free(a);
    CHECK_EQ(big_kept_bytes(), 2 * MIB);
    return NULL; /* its kept block is freed as it exits (LeakSanitizer would see it otherwise) */
}

TEST(big_alloc_keeps_blocks_per_thread)
{
    drain();
    void *mine = big_alloc(MIB);
    big_free(mine);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, free_in_thread, NULL) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_EQ(big_kept_bytes(), MIB);
    drain();
}

/* Threads that keep 30 MiB each until told to exit. */
typedef struct holder {
    pthread_barrier_t *kept, *done;
} holder;

static void *keep_and_wait(void *arg)
{
    holder *h = arg;
    big_free(big_alloc(30 * MIB));
    CHECK_EQ(big_kept_bytes(), 30 * MIB);
    pthread_barrier_wait(h->kept);
    pthread_barrier_wait(h->done);
    return NULL;
}

TEST(big_alloc_keeps_at_most_64_mib_across_threads)
{
    drain();
    pthread_barrier_t kept, done;
    CHECK(pthread_barrier_init(&kept, NULL, 3) == 0);
    CHECK(pthread_barrier_init(&done, NULL, 3) == 0);
    holder h = {&kept, &done};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&threads[i], NULL, keep_and_wait, &h) == 0);
    pthread_barrier_wait(&kept); /* 60 MiB kept by the two */
    big_free(big_alloc(5 * MIB)); /* 65 MiB would pass the limit: freed */
    CHECK_EQ(big_kept_bytes(), 0);
    big_free(big_alloc(4 * MIB)); /* 64 MiB: kept */
    CHECK_EQ(big_kept_bytes(), 4 * MIB);
    pthread_barrier_wait(&done);
    for (int i = 0; i < 2; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    big_free(big_alloc(25 * MIB)); /* their blocks went with them */
    CHECK_EQ(big_kept_bytes(), 29 * MIB);
    drain();
    pthread_barrier_destroy(&kept);
    pthread_barrier_destroy(&done);
}
