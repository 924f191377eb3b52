/* The fallback change set of a result: the query run again at the new version, and the
 * old and new keys compared. Objects in both keep their place when they keep their
 * order (the longest increasing run of their old positions, in new order); the others
 * are moves: a deletion and an insertion. An object deleted and created again under
 * the same key (an int primary key) is a new object. */
#include "changeset/changeset.h"

#include <stdlib.h>
#include <string.h>

bool keys_contain(const lar_objkey *keys, size_t n, lar_objkey key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && keys[lo] == key;
}

int increasing_subsequence(const size_t *seq, size_t n, bool *kept)
{
    memset(kept, 0, n * sizeof *kept);
    if (!n) return LAR_OK;
    size_t *tails = malloc(n * sizeof *tails), *previous = malloc(n * sizeof *previous);
    if (!tails || !previous) {
        free(tails);
        free(previous);
        return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    }
    size_t length = 0; /* tails[l]: the index ending the best run of length l + 1 */
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = length;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (seq[tails[mid]] < seq[i]) lo = mid + 1;
            else hi = mid;
        }
        previous[i] = lo ? tails[lo - 1] : SIZE_MAX;
        tails[lo] = i;
        if (lo == length) length++;
    }
    for (size_t i = tails[length - 1]; i != SIZE_MAX; i = previous[i]) kept[i] = true;
    free(tails);
    free(previous);
    return LAR_OK;
}

typedef struct keyed_position {
    lar_objkey key;
    size_t position;
} keyed_position;

static int by_key(const void *a, const void *b)
{
    lar_objkey x = ((const keyed_position *)a)->key, y = ((const keyed_position *)b)->key;
    return x < y ? -1 : x > y;
}

/* The old position of key, or SIZE_MAX. */
static size_t old_position(const keyed_position *old, size_t n, lar_objkey key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (old[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && old[lo].key == key ? old[lo].position : SIZE_MAX;
}

static int diff(const update *u, const lar_results *fresh, lar_changeset *cs)
{
    const lar_results *r = u->results;
    keyed_position *old = malloc((r->count ? r->count : 1) * sizeof *old);
    size_t *common_old = malloc((fresh->count ? fresh->count : 1) * sizeof *common_old);
    size_t *common_new = malloc((fresh->count ? fresh->count : 1) * sizeof *common_new);
    bool *kept = malloc((fresh->count ? fresh->count : 1) * sizeof *kept);
    bool *old_kept = calloc(r->count ? r->count : 1, sizeof *old_kept);
    int err = old && common_old && common_new && kept && old_kept ? LAR_OK
                                                                 : lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    size_t common = 0;
    if (!err) {
        for (size_t i = 0; i < r->count; i++) old[i] = (keyed_position){results_key(r, i), i};
        qsort(old, r->count, sizeof *old, by_key);
        for (size_t i = 0; i < fresh->count; i++) {
            lar_objkey key = fresh->keys[i];
            size_t at = old_position(old, r->count, key);
            bool renewed = keys_contain(u->changes.deleted, u->changes.deleted_count, key);
            if (at == SIZE_MAX || renewed) continue;
            common_old[common] = at;
            common_new[common++] = i;
        }
        err = increasing_subsequence(common_old, common, kept);
    }
    for (size_t c = 0; !err && c < common; c++) {
        if (!kept[c]) continue;
        old_kept[common_old[c]] = true;
        if (!keys_contain(u->changes.modified, u->changes.modified_count, results_key(r, common_old[c]))) continue;
        err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS, common_old[c]);
        if (!err) err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS_NEW, common_new[c]);
    }
    for (size_t i = 0; !err && i < r->count; i++)
        if (!old_kept[i]) err = changeset_push(cs, LAR_CHANGESET_DELETIONS, i);
    for (size_t c = 0, i = 0; !err && i < fresh->count; i++) {
        while (c < common && common_new[c] < i) c++;
        bool stays = c < common && common_new[c] == i && kept[c];
        if (!stays) err = changeset_push(cs, LAR_CHANGESET_INSERTIONS, i);
    }
    free(old);
    free(common_old);
    free(common_new);
    free(kept);
    free(old_kept);
    return err;
}

int update_by_diff(update *u, lar_changeset *cs)
{
    lar_results *fresh;
    int err = lar_query_run(u->txn, u->query, &fresh);
    if (err) return err;
    if (u->sort_count) err = lar_results_sort(u->txn, fresh, u->sort, u->sort_count);
    if (!err) err = diff(u, fresh, cs);
    if (!err) { /* the result takes the new keys */
        lar_objkey *keys = u->results->keys;
        u->results->keys = fresh->keys;
        u->results->count = fresh->count;
        u->results->capacity = fresh->capacity;
        fresh->keys = keys;
        fresh->blocks = u->results->blocks; /* freed with fresh */
        u->results->blocks = NULL;
    }
    lar_results_free(fresh);
    return err;
}
