/* The change sets of a set and of a map between two snapshots: each side walked in its
 * order and each element looked up in the other side (O(n log n) for n elements), after
 * the change log, when given, says whether the property changed at all. A set's
 * positions are in its order at each version (elements that stay keep their relative
 * order); a map's changes are keys. */
#include "changeset/changeset.h"

#include <stdlib.h>
#include <string.h>

#define BATCH 64

static int check_snapshots(lar_txn *old_txn, lar_txn *txn, const char *function)
{
    int err = txn_check(old_txn, false);
    if (!err) err = txn_check(txn, false);
    if (!err && old_txn->env != txn->env)
        err = lar_fail(LAR_EINVAL, "%s: the transactions are of different environments", function);
    return err;
}

/* Whether the log says obj's property prop may have changed (no log: it may). */
static bool may_have_changed(const lar_changes *changes, lar_obj obj, uint32_t prop, int *state)
{
    uint32_t props[64];
    size_t count;
    *state = LAR_OBJECT_MODIFIED;
    if (!changes || lar_changes_object(changes, obj, state, props, 64, &count)) return true;
    if (*state != LAR_OBJECT_MODIFIED) return false;
    if (count > 64) return true;
    for (size_t i = 0; i < count; i++)
        if (props[i] == prop) return true;
    return false;
}

static int deleted_owner(int state)
{
    return state == LAR_OBJECT_DELETED || state == LAR_OBJECT_INSERTED
               ? lar_fail(LAR_EDELETED, "the collection's object does not exist at both versions")
               : LAR_OK;
}

/* Pushes into part the positions of from's elements (in from's order) that other lacks. */
static int set_side(lar_txn *from, lar_txn *other, lar_obj obj, uint32_t prop, lar_changeset *cs, lar_changeset_part part)
{
    lar_value batch[BATCH], after;
    size_t count, position = 0;
    int err;
    bool first = true;
    while ((err = lar_set_list(from, obj, prop, first ? NULL : &after, batch, BATCH, &count)) == LAR_OK) {
        for (size_t i = 0; !err && i < count; i++, position++) {
            int found;
            err = lar_set_contains(other, obj, prop, &batch[i], &found);
            if (!err && !found) err = changeset_push(cs, part, position);
        }
        after = batch[count - 1];
        first = false;
        if (err) return err;
    }
    return err == LAR_ENOTFOUND ? LAR_OK : err;
}

int lar_set_changeset(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                      lar_changeset **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_changeset: out is NULL");
    *out = NULL;
    int err = check_snapshots(old_txn, txn, "lar_set_changeset");
    if (err) return err;
    int state;
    bool changed = may_have_changed(changes, obj, prop, &state);
    if ((err = deleted_owner(state))) return err;
    lar_changeset *cs = changeset_new();
    if (!cs) return LAR_ENOMEM;
    size_t count;
    err = lar_set_count(txn, obj, prop, &count); /* checks obj and prop at the new version */
    if (!err && changed) err = set_side(old_txn, txn, obj, prop, cs, LAR_CHANGESET_DELETIONS);
    if (!err && changed) err = set_side(txn, old_txn, obj, prop, cs, LAR_CHANGESET_INSERTIONS);
    if (err) {
        lar_changeset_free(cs);
        return err;
    }
    *out = cs;
    return LAR_OK;
}

/* ---- maps ---- */

struct lar_map_changes {
    lar_string *parts[3];     /* deletions, insertions, modifications: keys copied into text */
    size_t counts[3], capacities[3];
    byte_buffer text;
};

static int keep_key(lar_map_changes *mc, int part, const lar_string *key)
{
    if (mc->counts[part] == mc->capacities[part]) {
        size_t capacity = mc->capacities[part] ? 2 * mc->capacities[part] : 8;
        lar_string *grown = realloc(mc->parts[part], capacity * sizeof *grown);
        if (!grown) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
        mc->parts[part] = grown;
        mc->capacities[part] = capacity;
    }
    /* Offsets for now: the text may move as it grows (see seal). */
    mc->parts[part][mc->counts[part]++] = (lar_string){(const char *)(uintptr_t)mc->text.size, key->size};
    char nul = 0;
    int err = buffer_append(&mc->text, key->data, key->size);
    return err ? err : buffer_append(&mc->text, &nul, 1);
}

/* Turns the keys' offsets into pointers once the text is complete. */
static void seal(lar_map_changes *mc)
{
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; i < mc->counts[p]; i++)
            mc->parts[p][i].data = (const char *)mc->text.data + (uintptr_t)mc->parts[p][i].data;
}

/* A value changed: another value, a nested collection (whose contents may have), or an
 * object the log saw modified. */
static bool value_changed(const lar_changes *changes, const lar_value *old, const lar_value *now)
{
    if (!value_equal(old, now)) return true;
    if (now->type != LAR_TYPE_LINK || !changes) return false;
    int state;
    size_t count;
    return !lar_changes_object(changes, now->as.link, &state, NULL, 0, &count) && state == LAR_OBJECT_MODIFIED;
}

/* Notes from's keys that other lacks into part; with modified, those whose values differ too. */
static int map_side(lar_txn *from, lar_txn *other, const lar_changes *changes, lar_obj obj, uint32_t prop,
                    lar_map_changes *mc, int part, bool modified)
{
    lar_string keys[BATCH], after;
    lar_value values[BATCH];
    size_t count;
    int err;
    bool first = true;
    while ((err = lar_map_list(from, obj, prop, first ? NULL : &after, keys, values, BATCH, &count)) == LAR_OK) {
        for (size_t i = 0; !err && i < count; i++) {
            lar_value there;
            err = lar_map_get(other, obj, prop, &keys[i], &there);
            if (err == LAR_ENOTFOUND) err = keep_key(mc, part, &keys[i]);
            else if (!err && modified && value_changed(changes, &values[i], &there))
                err = keep_key(mc, LAR_CHANGESET_MODIFICATIONS, &keys[i]);
        }
        after = keys[count - 1];
        first = false;
        if (err) return err;
    }
    return err == LAR_ENOTFOUND ? LAR_OK : err;
}

int lar_map_changeset(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                      lar_map_changes **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_map_changeset: out is NULL");
    *out = NULL;
    int err = check_snapshots(old_txn, txn, "lar_map_changeset");
    if (err) return err;
    int state;
    bool changed = may_have_changed(changes, obj, prop, &state);
    if ((err = deleted_owner(state))) return err;
    lar_map_changes *mc = calloc(1, sizeof *mc);
    if (!mc) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    size_t count;
    lar_property_def def;
    err = lar_map_count(txn, obj, prop, &count); /* checks obj and prop at the new version */
    if (!err) err = lar_property_info_get(txn->env, obj.cls, prop, &def);
    /* A map of objects changes when they do, even if the map itself did not. */
    bool links = !err && (def.type == LAR_TYPE_LINK || def.type == LAR_TYPE_MIXED);
    if (!err && (changed || links)) err = map_side(old_txn, txn, changes, obj, prop, mc, LAR_CHANGESET_DELETIONS, true);
    if (!err && changed) err = map_side(txn, old_txn, changes, obj, prop, mc, LAR_CHANGESET_INSERTIONS, false);
    if (err) {
        lar_map_changes_free(mc);
        return err;
    }
    seal(mc);
    *out = mc;
    return LAR_OK;
}

int lar_map_changes_get(const lar_map_changes *changes, lar_changeset_part part, const lar_string **keys,
                        size_t *count)
{
    if (!changes || !keys || !count)
        return lar_fail(LAR_EINVAL, "lar_map_changes_get: changes, keys and count must not be NULL");
    if ((unsigned)part > LAR_CHANGESET_MODIFICATIONS)
        return lar_fail(LAR_EINVAL, "lar_map_changes_get: a map's changes have deletions, insertions and "
                        "modifications (part %d)", (int)part);
    *keys = changes->parts[part];
    *count = changes->counts[part];
    return LAR_OK;
}

void lar_map_changes_free(lar_map_changes *changes)
{
    if (!changes) return;
    for (int p = 0; p < 3; p++) free(changes->parts[p]);
    buffer_free(&changes->text);
    free(changes);
}
