/* Change sets (Realm's, for an ordered collection): deletions in old positions,
 * insertions in new ones, modifications in old ones (and the same objects in new
 * ones), each ascending. A move is a deletion and an insertion. This file holds the
 * container and the change set of a list, replayed from its element changes. */
#include "changes/changes.h"

#include <stdlib.h>
#include <string.h>

#define PARTS 4

lar_changeset *changeset_new(void)
{
    lar_changeset *cs = calloc(1, sizeof *cs);
    if (!cs) lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    return cs;
}

int changeset_push(lar_changeset *cs, lar_changeset_part part, size_t index)
{
    size_t n = cs->counts[part];
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4...: full */
        size_t *grown = realloc(cs->parts[part], (n ? 2 * n : 1) * sizeof *grown);
        if (!grown) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
        cs->parts[part] = grown;
    }
    cs->parts[part][n] = index;
    cs->counts[part] = n + 1;
    return LAR_OK;
}

static int compare_indices(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static bool ascending(const size_t *indices, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (indices[i - 1] > indices[i]) return false;
    return true;
}

/* Parts are mostly pushed in order (200,000 insertions of a bulk insert): checked first,
 * as qsort takes n log n steps on sorted input too. */
void changeset_sort(lar_changeset *cs)
{
    for (int p = 0; p < PARTS; p++)
        if (!ascending(cs->parts[p], cs->counts[p])) qsort(cs->parts[p], cs->counts[p], sizeof(size_t), compare_indices);
}

int lar_changeset_get(const lar_changeset *cs, lar_changeset_part part, const size_t **indices, size_t *count)
{
    if (!cs || !indices || !count)
        return lar_fail(LAR_EINVAL, "lar_changeset_get: cs, indices and count must not be NULL");
    if ((unsigned)part >= PARTS) return lar_fail(LAR_EINVAL, "lar_changeset_get: unknown part %d", (int)part);
    *indices = cs->parts[part];
    *count = cs->counts[part];
    return LAR_OK;
}

int lar_changeset_is_empty(const lar_changeset *cs, int *out)
{
    if (!cs || !out) return lar_fail(LAR_EINVAL, "lar_changeset_is_empty: cs and out must not be NULL");
    *out = !cs->counts[0] && !cs->counts[1] && !cs->counts[2];
    return LAR_OK;
}

void lar_changeset_free(lar_changeset *cs)
{
    if (!cs) return;
    for (int p = 0; p < PARTS; p++) free(cs->parts[p]);
    free(cs);
}

/* ---- lists ---- */


static int bad_op(const list_op *op)
{
    return lar_fail(LAR_ECORRUPT, "a list change (kind %u at %llu) does not fit the list's old count: the count "
                    "given is not the list's at the first version, or the log is damaged", op->kind,
                    (unsigned long long)op->index);
}

static int tags_insert(list_replay *t, uint64_t index, uint64_t count)
{
    if (!count) return LAR_OK;
    if (count > SIZE_MAX / 16 - t->count) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    if (t->count + count > t->capacity) {
        size_t capacity = t->capacity * 2 > t->count + count ? t->capacity * 2 : t->count + count;
        uint64_t *grown = realloc(t->tags, (capacity ? capacity : 1) * sizeof *grown);
        if (!grown) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
        t->tags = grown;
        t->capacity = capacity;
    }
    memmove(t->tags + index + count, t->tags + index, (t->count - index) * sizeof *t->tags);
    for (uint64_t i = 0; i < count; i++) t->tags[index + i] = LIST_INSERTED;
    t->count += count;
    return LAR_OK;
}

static int replay(list_replay *t, const list_op *op)
{
    switch (op->kind) {
    case LIST_OP_INSERT:
        if (op->index > t->count) return bad_op(op);
        return tags_insert(t, op->index, op->arg);
    case LIST_OP_REMOVE:
        if (op->index > t->count || op->arg > t->count - op->index) return bad_op(op);
        memmove(t->tags + op->index, t->tags + op->index + op->arg,
                (t->count - op->index - op->arg) * sizeof *t->tags);
        t->count -= op->arg;
        return LAR_OK;
    case LIST_OP_SET:
        if (op->index >= t->count) return bad_op(op);
        if (t->tags[op->index] != LIST_INSERTED) t->modified[t->tags[op->index]] = true;
        return LAR_OK;
    case LIST_OP_MOVE: /* realm reports a deletion and an insertion */
        if (op->index >= t->count || op->arg >= t->count) return bad_op(op);
        memmove(t->tags + op->index, t->tags + op->index + 1, (t->count - op->index - 1) * sizeof *t->tags);
        t->count--;
        return tags_insert(t, op->arg, 1);
    default: /* a set's or a map's: not a list */
        return lar_fail(LAR_ECORRUPT, "the changes recorded for the property are not a list's");
    }
}

int list_replay_report(const list_replay *t, lar_changeset *cs)
{
    int err = LAR_OK;
    size_t expected = 0; /* the next old position not yet accounted for */
    for (size_t i = 0; !err && i < t->count; i++) {
        uint64_t tag = t->tags[i];
        if (tag == LIST_INSERTED) {
            err = changeset_push(cs, LAR_CHANGESET_INSERTIONS, i);
            continue;
        }
        while (!err && expected < tag) err = changeset_push(cs, LAR_CHANGESET_DELETIONS, expected++);
        expected = tag + 1;
        if (!err && t->modified[tag]) err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS, tag);
        if (!err && t->modified[tag]) err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS_NEW, i);
    }
    while (!err && expected < t->old_count) err = changeset_push(cs, LAR_CHANGESET_DELETIONS, expected++);
    return err;
}

static const list_note *find_list(const lar_changes *changes, lar_obj obj, uint32_t prop, int *state)
{
    *state = LAR_OBJECT_UNCHANGED;
    const class_notes *n = obj.cls < changes->notes.class_capacity ? changes->notes.classes[obj.cls] : NULL;
    const key_note *note = n ? notes_find(n, obj.key) : NULL;
    if (!note) {
        if (n && notes_in_runs(n, obj.key)) *state = LAR_OBJECT_INSERTED;
        return NULL;
    }
    if (note->flags & NOTE_OLD_DELETED) *state = LAR_OBJECT_DELETED;
    else if (note->flags & NOTE_NEW) *state = LAR_OBJECT_INSERTED;
    for (uint32_t at = note->flags ? 0 : note->lists; at; at = n->lists[at - 1].next)
        if (n->lists[at - 1].prop == prop) return &n->lists[at - 1];
    return NULL;
}

int list_replay_run(const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count, list_replay *out)
{
    *out = (list_replay){NULL, 0, 0, NULL, old_count};
    if (!changes) return lar_fail(LAR_EINVAL, "the changes are NULL");
    int state;
    const list_note *l = find_list(changes, obj, prop, &state);
    if (state == LAR_OBJECT_DELETED) return lar_fail(LAR_EDELETED, "the list's object was deleted");
    if (state == LAR_OBJECT_INSERTED) return lar_fail(LAR_EDELETED, "the list's object did not exist then");
    out->modified = calloc(old_count ? old_count : 1, sizeof(bool));
    int err = out->modified ? tags_insert(out, 0, old_count) : lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    for (size_t i = 0; !err && i < old_count; i++) out->tags[i] = i;
    for (size_t i = 0; !err && l && i < l->count; i++) err = replay(out, &l->ops[i]);
    return err;
}

void list_replay_free(list_replay *r)
{
    free(r->tags);
    free(r->modified);
    r->tags = NULL;
    r->modified = NULL;
}

int list_replay_finish(list_replay *r, int err, lar_changeset **out)
{
    lar_changeset *cs = err ? NULL : changeset_new();
    if (!err && !cs) err = LAR_ENOMEM;
    if (!err) err = list_replay_report(r, cs);
    list_replay_free(r);
    if (err) {
        lar_changeset_free(cs);
        return err;
    }
    *out = cs;
    return LAR_OK;
}

int lar_list_changeset(const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count,
                       lar_changeset **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_list_changeset: out is NULL");
    *out = NULL;
    list_replay r;
    int err = list_replay_run(changes, obj, prop, old_count, &r);
    return list_replay_finish(&r, err, out);
}
