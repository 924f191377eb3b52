/* The link memo's table (link_memo.h): open addressing, linear probing, at most half
 * full, grown by doubling from a few slots so that a run over few targets stays in
 * cache, and never past LINK_MEMO_MAX entries. */
#include "query/link_memo.h"

#include <stdlib.h>

#define FIRST_SLOTS 64

static void put(link_memo *m, uint64_t key, uint8_t answer)
{
    size_t mask = m->slots - 1;
    size_t at = (size_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);
    while (m->answers[at]) at = (at + 1) & mask;
    m->keys[at] = key;
    m->answers[at] = answer;
    m->used++;
}

static bool grow(link_memo *m)
{
    size_t slots = m->slots ? m->slots * 2 : FIRST_SLOTS;
    uint64_t *keys = malloc(slots * sizeof *keys);
    uint8_t *answers = calloc(slots, 1);
    if (!keys || !answers) {
        free(keys);
        free(answers);
        return false;
    }
    link_memo old = *m;
    m->keys = keys, m->answers = answers, m->slots = slots, m->used = 0;
    m->shift = (unsigned)(64 - __builtin_ctzll(slots));
    for (size_t i = 0; i < old.slots; i++)
        if (old.answers[i]) put(m, old.keys[i], old.answers[i]);
    link_memo_free(&old);
    return true;
}

void link_memo_keep(link_memo *m, uint64_t key, int answer)
{
    if (m->used >= LINK_MEMO_MAX) return;
    if (2 * (m->used + 1) > m->slots && !grow(m)) return;
    put(m, key, (uint8_t)(answer + 1));
}

void link_memo_free(link_memo *m)
{
    free(m->keys);
    free(m->answers);
    *m = (link_memo){0};
}
