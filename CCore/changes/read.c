/* Reading the log: the entries of the commits in (from, to] folded into one account
 * (lar_changes), and what it says about a class or an object. */
#include "changes/changes.h"

#include <stdlib.h>
#include <string.h>

int lar_env_version(lar_env *env, uint64_t *out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_env_version: env and out must not be NULL");
    return kv_env_version(env, out);
}

/* The version after which the log holds every commit. */
static int read_floor(lar_txn *txn, uint64_t *out)
{
    uint64_t floor_key = HISTORY_FLOOR_KEY;
    kv_val key = {sizeof floor_key, &floor_key}, data;
    int rc = kv_get(txn, txn->env->history_dbi, &key, &data);
    if (rc == KV_NOTFOUND) return lar_fail(LAR_ECORRUPT, "the change log has no floor");
    if (rc) return lar_fail_mdb(rc, "cannot read the change log");
    if (data.mv_size != sizeof *out) return lar_fail(LAR_ECORRUPT, "the change log's floor is damaged");
    memcpy(out, data.mv_data, sizeof *out);
    return LAR_OK;
}

static int fold_entries(lar_txn *txn, lar_changes *c)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, txn->env->history_dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot read the change log");
    uint64_t first = c->from + 1, version;
    kv_val key = {sizeof first, &first}, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err;
         rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (key.mv_size != sizeof version) {
            err = lar_fail(LAR_ECORRUPT, "a change log key is damaged");
            break;
        }
        memcpy(&version, key.mv_data, sizeof version);
        if (version > c->to) break;
        err = entry_apply(&c->notes, txn->schema, data.mv_data, data.mv_size);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read the change log");
    return err;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool note_modified(const class_notes *n, const key_note *note)
{
    if (note->flags) return false;
    const uint64_t *mask = notes_mask(n, note);
    for (uint32_t w = 0; w < n->mask_words; w++)
        if (mask[w]) return true;
    return false;
}

/* The sorted keys of the notes that are deletions (deleted) or modifications. */
static int collect(const class_notes *n, bool deleted, uint64_t **out, size_t *count)
{
    uint64_t *keys = malloc((n->note_count ? n->note_count : 1) * sizeof *keys);
    if (!keys) return lar_fail(LAR_ENOMEM, "out of memory reading changes");
    size_t used = 0;
    for (size_t i = 0; i < n->note_count; i++) {
        const key_note *note = &n->notes[i];
        if (deleted ? (note->flags & NOTE_OLD_DELETED) != 0 : note_modified(n, note)) keys[used++] = note->key;
    }
    qsort(keys, used, sizeof *keys, compare_keys);
    *out = keys;
    *count = used;
    return LAR_OK;
}

static int account(lar_changes *c)
{
    size_t classes = 0;
    for (uint32_t i = 0; i < c->notes.class_capacity; i++) classes += c->notes.classes[i] != NULL;
    c->classes = calloc(classes ? classes : 1, sizeof *c->classes);
    if (!c->classes) return lar_fail(LAR_ENOMEM, "out of memory reading changes");
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < c->notes.class_capacity; i++) {
        const class_notes *n = c->notes.classes[i];
        if (!n) continue;
        class_account *a = &c->classes[c->class_count];
        a->cls = i;
        err = notes_inserted(n, &a->inserted, &a->inserted_count);
        if (!err) err = collect(n, true, &a->deleted, &a->deleted_count);
        if (!err) err = collect(n, false, &a->modified, &a->modified_count);
        if (err || a->inserted_count || a->deleted_count || a->modified_count) c->class_count++;
        else free(a->inserted), free(a->deleted), free(a->modified);
    }
    return err;
}

int lar_changes_read(lar_txn *txn, uint64_t from_version, lar_changes **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_changes_read: out is NULL");
    *out = NULL;
    int err = txn_check(txn, false);
    if (err) return err;
    uint64_t to = txn->write ? kv_txn_id(txn) - 1 : kv_txn_id(txn); /* a write's own changes are not committed */
    if (from_version > to)
        return lar_fail(LAR_EINVAL, "lar_changes_read: version %llu is after the transaction's (%llu)",
                        (unsigned long long)from_version, (unsigned long long)to);
    if (!txn->env->has_history)
        return lar_fail(LAR_ENOTFOUND, "'%s' keeps no change log (opened read-only before any writable open "
                        "made one)", txn->env->path);
    uint64_t floor = 0;
    if (from_version < to) err = read_floor(txn, &floor);
    if (!err && from_version < floor)
        err = lar_fail(LAR_ENOTFOUND, "the changes after version %llu are no longer kept (the log starts after "
                       "%llu): keep a read transaction at a version open while its changes are needed",
                       (unsigned long long)from_version, (unsigned long long)floor);
    if (err) return err;
    lar_changes *c = calloc(1, sizeof *c);
    if (!c) return lar_fail(LAR_ENOMEM, "out of memory reading changes");
    c->from = from_version;
    c->to = to;
    if (from_version < to) err = fold_entries(txn, c);
    if (!err) err = account(c);
    if (err) {
        lar_changes_free(c);
        return err;
    }
    *out = c;
    return LAR_OK;
}

void lar_changes_free(lar_changes *changes)
{
    if (!changes) return;
    for (size_t i = 0; i < changes->class_count; i++) {
        free(changes->classes[i].inserted);
        free(changes->classes[i].deleted);
        free(changes->classes[i].modified);
    }
    free(changes->classes);
    notes_free(&changes->notes);
    free(changes);
}

int lar_changes_range(const lar_changes *changes, uint64_t *from, uint64_t *to)
{
    if (!changes) return lar_fail(LAR_EINVAL, "lar_changes_range: changes is NULL");
    if (from) *from = changes->from;
    if (to) *to = changes->to;
    return LAR_OK;
}

int lar_changes_classes(const lar_changes *changes, lar_class *out, size_t capacity, size_t *count)
{
    if (!changes || !count || (capacity && !out))
        return lar_fail(LAR_EINVAL, "lar_changes_classes: changes and count must not be NULL, nor out with a capacity");
    for (size_t i = 0; i < capacity && i < changes->class_count; i++) out[i] = changes->classes[i].cls;
    *count = changes->class_count;
    return LAR_OK;
}

static const class_account *account_of(const lar_changes *changes, lar_class cls)
{
    for (size_t i = 0; i < changes->class_count; i++)
        if (changes->classes[i].cls == cls) return &changes->classes[i];
    return NULL;
}

int lar_changes_class(const lar_changes *changes, lar_class cls, lar_class_changes *out)
{
    if (!changes || !out) return lar_fail(LAR_EINVAL, "lar_changes_class: changes and out must not be NULL");
    memset(out, 0, sizeof *out);
    const class_account *a = account_of(changes, cls);
    if (!a) return LAR_OK;
    *out = (lar_class_changes){a->inserted, a->inserted_count, a->deleted, a->deleted_count,
                               a->modified, a->modified_count};
    return LAR_OK;
}

int lar_changes_object(const lar_changes *changes, lar_obj obj, int *state, uint32_t *props, size_t capacity,
                       size_t *count)
{
    if (!changes || !state || !count || (capacity && !props))
        return lar_fail(LAR_EINVAL, "lar_changes_object: changes, state and count must not be NULL, nor props "
                        "with a capacity");
    *state = LAR_OBJECT_UNCHANGED;
    *count = 0;
    const class_notes *n = obj.cls < changes->notes.class_capacity ? changes->notes.classes[obj.cls] : NULL;
    if (!n) return LAR_OK;
    const key_note *note = notes_find(n, obj.key);
    if (!note) {
        if (notes_in_runs(n, obj.key)) *state = LAR_OBJECT_INSERTED;
        return LAR_OK;
    }
    if (note->flags & NOTE_OLD_DELETED) *state = LAR_OBJECT_DELETED; /* and maybe created again: a new object */
    else if (note->flags & NOTE_NEW) *state = LAR_OBJECT_INSERTED;
    if (note->flags) return LAR_OK;
    const uint64_t *mask = notes_mask(n, note);
    for (uint32_t w = 0; w < n->mask_words; w++)
        for (uint32_t bit = 0; bit < 64 && mask[w] >> bit; bit++) {
            if (!(mask[w] & (1ull << bit))) continue;
            if (*count < capacity) props[*count] = w * 64 + bit;
            ++*count;
        }
    if (*count) *state = LAR_OBJECT_MODIFIED;
    return LAR_OK;
}
