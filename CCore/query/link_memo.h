/* What a comparison through a to-one link found for each object the link reached, so
 * that the rows that link to one object (many items of one owner) walk the path past
 * it once per run. Private to the query layer.
 *
 * Sound because a plan lives for one run, in one transaction, with no write between
 * its compile and its free (results.c, aggregate.c, results_update.c): an object's
 * values cannot change while its answer is kept. Bounded: the table grows to at most
 * LINK_MEMO_MAX entries, and a target met after that is walked each time. */
#ifndef LARDER_LINK_MEMO_H
#define LARDER_LINK_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINK_MEMO_MAX 4096

typedef struct link_memo {
    uint64_t *keys;
    uint8_t *answers;         /* 0: empty slot; else the comparison's result + 1 */
    size_t slots, used;       /* slots: a power of two, at least twice used */
    unsigned shift;           /* 64 - log2(slots) */
} link_memo;

/* The kept answer (0 or 1) for the target key, or -1 if none is kept. */
static inline int link_memo_find(const link_memo *m, uint64_t key)
{
    if (!m->slots) return -1;
    size_t mask = m->slots - 1;
    for (size_t at = (size_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);; at = (at + 1) & mask) {
        uint8_t answer = m->answers[at];
        if (!answer) return -1;
        if (m->keys[at] == key) return answer - 1;
    }
}

/* Keeps answer (0 or 1) for key, if there is room; out of memory just keeps nothing
 * (the memo only saves work). */
void link_memo_keep(link_memo *m, uint64_t key, int answer);
void link_memo_free(link_memo *m);

#endif
