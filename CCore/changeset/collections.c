/* The change sets of a set and of a map between two versions. From the change log when
 * it covers exactly the snapshots' range and lists the property's element changes:
 * O(changes) (a set's positions also count its blocks, from both ends); else each side walked in its
 * order and each element looked up in the other side (O(n log n) for n elements),
 * after the change log, when given, says whether the property changed at all. A set's
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

/* Whether changes covers exactly the versions from old_txn's to txn's. */
static bool covers(const lar_changes *changes, lar_txn *old_txn, lar_txn *txn)
{
    uint64_t from, to;
    return changes && !lar_txn_version(old_txn, &from) && !lar_txn_version(txn, &to) && !old_txn->write &&
           !txn->write && changes->from == from && changes->to == to;
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

/* Pushes into part the positions at txn of elements (in set order). */
static int push_positions(lar_txn *txn, lar_obj obj, uint32_t prop, const logged_element *elements, size_t count,
                          lar_changeset *cs, lar_changeset_part part)
{
    size_t *positions = malloc((count ? count : 1) * sizeof *positions);
    if (!positions) return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
    int err = set_positions(txn, obj, prop, elements, count, positions);
    for (size_t i = 0; !err && i < count; i++) err = changeset_push(cs, part, positions[i]);
    free(positions);
    return err;
}

/* The set's change set from the log: NOT_ITEMIZED when it does not list the changes. */
static int set_from_log(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                        lar_changeset *cs)
{
    element_net net;
    int err = element_net_of(changes, obj, prop, false, &net);
    if (!err) err = push_positions(old_txn, obj, prop, net.removed, net.removed_count, cs, LAR_CHANGESET_DELETIONS);
    if (!err) err = push_positions(txn, obj, prop, net.inserted, net.inserted_count, cs, LAR_CHANGESET_INSERTIONS);
    element_net_free(&net);
    return err;
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
    if (!err && changed && covers(changes, old_txn, txn)) {
        err = set_from_log(old_txn, txn, changes, obj, prop, cs);
        if (err == NOT_ITEMIZED) err = LAR_OK;
        else changed = false; /* done, or failed */
    }
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

int map_changes_keep(lar_map_changes *mc, int part, const lar_string *key)
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

void map_changes_seal(lar_map_changes *mc)
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
            if (err == LAR_ENOTFOUND) err = map_changes_keep(mc, part, &keys[i]);
            else if (!err && modified && value_changed(changes, &values[i], &there))
                err = map_changes_keep(mc, LAR_CHANGESET_MODIFICATIONS, &keys[i]);
        }
        after = keys[count - 1];
        first = false;
        if (err) return err;
    }
    return err == LAR_ENOTFOUND ? LAR_OK : err;
}

typedef struct origin_search {
    lar_objkey key;
    bool found;
} origin_search;

static int visit_origin(const backlink *link, void *context)
{
    origin_search *search = context;
    search->found = link->origin.key == search->key;
    return BACKLINK_STOP;
}

/* Whether obj's property prop links (at txn) to an object of class target that the
 * changes say was modified. */
static int links_to_modified(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, lar_class target,
                             bool *out)
{
    lar_class_changes changed;
    int err = lar_changes_class(changes, target, &changed);
    origin_search search = {obj.key, false};
    for (size_t i = 0; !err && !search.found && i < changed.modified_count; i++) {
        uint8_t prefix[26];
        size_t size = backlink_prefix((lar_obj){target, changed.modified[i]}, obj.cls, prop, true, prefix);
        err = backlink_walk(txn, prefix, size, obj.key, visit_origin, &search);
    }
    *out = search.found;
    return err;
}

/* A key the log saw set: modified when its value differs. */
static int keep_if_changed(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                           const logged_element *key, lar_map_changes *mc)
{
    lar_string name = {(const char *)key->bytes, key->size};
    lar_value was, is;
    int err = lar_map_get(old_txn, obj, prop, &name, &was);
    if (!err) err = lar_map_get(txn, obj, prop, &name, &is);
    if (err == LAR_ENOTFOUND) return lar_fail(LAR_ECORRUPT, "the change log names a map key the map does not hold");
    return err || !value_changed(changes, &was, &is) ? err : map_changes_keep(mc, LAR_CHANGESET_MODIFICATIONS, &name);
}

/* The map's changes from the log: NOT_ITEMIZED when it does not list them, or when
 * values that did not change may have (a map of mixed values: nested collections,
 * links to any class; a map of objects linking to one that was modified). */
static int map_from_log(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                        lar_map_changes *mc)
{
    const schema_property *p = &schema_class_at(txn->schema, obj.cls)->properties[prop];
    if (p->def.type == LAR_TYPE_MIXED) return NOT_ITEMIZED;
    bool linked = false;
    int err = p->def.type == LAR_TYPE_LINK ? links_to_modified(txn, changes, obj, prop, p->target, &linked) : LAR_OK;
    if (err || linked) return err ? err : NOT_ITEMIZED;
    element_net net;
    err = element_net_of(changes, obj, prop, true, &net);
    for (size_t i = 0; !err && i < net.removed_count; i++)
        err = map_changes_keep(mc, LAR_CHANGESET_DELETIONS, &(lar_string){(const char *)net.removed[i].bytes, net.removed[i].size});
    for (size_t i = 0; !err && i < net.inserted_count; i++)
        err = map_changes_keep(mc, LAR_CHANGESET_INSERTIONS, &(lar_string){(const char *)net.inserted[i].bytes, net.inserted[i].size});
    for (size_t i = 0; !err && i < net.kept_count; i++)
        err = keep_if_changed(old_txn, txn, changes, obj, prop, &net.kept[i], mc);
    element_net_free(&net);
    return err;
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
    if (!err && (changed || links) && covers(changes, old_txn, txn)) {
        err = map_from_log(old_txn, txn, changes, obj, prop, mc);
        if (err == NOT_ITEMIZED) err = LAR_OK;
        else changed = links = false; /* done, or failed */
    }
    if (!err && (changed || links)) err = map_side(old_txn, txn, changes, obj, prop, mc, LAR_CHANGESET_DELETIONS, true);
    if (!err && changed) err = map_side(txn, old_txn, changes, obj, prop, mc, LAR_CHANGESET_INSERTIONS, false);
    if (err) {
        lar_map_changes_free(mc);
        return err;
    }
    map_changes_seal(mc);
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
