/* The element changes the log holds for a set or a map, netted over a range of
 * versions: each element's changes sorted together (stably, so they stay in commit
 * cmp), the first saying whether it was there at the start, the last whether it is
 * at the end. And the public readers of them (lar_changes_set_elements,
 * lar_changes_map_keys). */
#include "changeset/changeset.h"

#include <stdlib.h>
#include <string.h>

typedef struct element_op {
    logged_element element;
    size_t sequence;          /* its place among the property's changes */
    uint32_t kind;
} element_op;

static int compare_set_ops(const void *a, const void *b)
{
    const element_op *x = a, *y = b;
    bool bad = false; /* checked before sorting */
    int cmp = set_entry_compare(&x->element, &y->element, &bad);
    return cmp ? cmp : (x->sequence > y->sequence) - (x->sequence < y->sequence);
}

/* A map's key cmp: bytewise, a prefix first (the stored key ends with a NUL). */
static int compare_map_ops(const void *a, const void *b)
{
    const element_op *x = a, *y = b;
    size_t n = x->element.size < y->element.size ? x->element.size : y->element.size;
    int cmp = n ? memcmp(x->element.bytes, y->element.bytes, n) : 0;
    if (!cmp) cmp = (x->element.size > y->element.size) - (x->element.size < y->element.size);
    return cmp ? cmp : (x->sequence > y->sequence) - (x->sequence < y->sequence);
}

static int no_memory(void)
{
    return lar_fail(LAR_ENOMEM, "out of memory reading changes");
}

/* The property's changes as element_ops; NOT_ITEMIZED when one is not an element's. */
static int gather(const class_notes *c, const list_note *l, bool map, element_op **out)
{
    element_op *ops = malloc((l->count ? l->count : 1) * sizeof *ops);
    if (!ops) return no_memory();
    *out = ops;
    for (size_t i = 0; i < l->count; i++) {
        uint32_t kind = l->ops[i].kind;
        if (kind == COLL_OP_CLEAR || kind == COLL_OP_UNKNOWN) return NOT_ITEMIZED;
        bool fits = map ? kind >= MAP_OP_INSERT && kind <= MAP_OP_REMOVE
                        : kind == SET_OP_INSERT || kind == SET_OP_REMOVE;
        if (!fits || l->ops[i].index + l->ops[i].arg > c->bytes.size)
            return lar_fail(LAR_ECORRUPT, "the changes recorded for the property are not a %s's", map ? "map" : "set");
        ops[i] = (element_op){{c->bytes.data + l->ops[i].index, (size_t)l->ops[i].arg}, i, kind};
        bool bad = false;
        if (!map) set_entry_compare(&ops[i].element, &ops[i].element, &bad);
        if (bad) return lar_fail(LAR_ECORRUPT, "a set element in the change log is damaged");
    }
    return LAR_OK;
}

static logged_element *part_of(element_net *net, int part, size_t **count)
{
    logged_element **parts[3] = {&net->removed, &net->inserted, &net->kept};
    size_t *counts[3] = {&net->removed_count, &net->inserted_count, &net->kept_count};
    *count = counts[part];
    return *parts[part];
}

/* Files each element under the part its first and last changes make it. */
static void net_groups(const element_op *ops, size_t count, bool map, element_net *net)
{
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && (map ? compare_map_ops : compare_set_ops)(&(element_op){ops[i].element, 0, 0},
                                                                        &(element_op){ops[j].element, 0, 0}) == 0)
            j++;
        uint32_t first = ops[i].kind, last = ops[j - 1].kind;
        bool at_start = map ? first != MAP_OP_INSERT : first == SET_OP_REMOVE;
        bool at_end = map ? last != MAP_OP_REMOVE : last == SET_OP_INSERT;
        int part = at_start && !at_end ? 0 : !at_start && at_end ? 1 : at_start && map ? 2 : -1;
        if (part >= 0) {
            size_t *n;
            logged_element *into = part_of(net, part, &n);
            into[(*n)++] = ops[i].element;
        }
        i = j;
    }
}

int element_net_of(const lar_changes *changes, lar_obj obj, uint32_t prop, bool map, element_net *out)
{
    memset(out, 0, sizeof *out);
    const list_note *l = notes_changes_of(&changes->notes, obj, prop);
    if (!l || !l->count) return LAR_OK;
    const class_notes *c = changes->notes.classes[obj.cls];
    element_op *ops = NULL;
    int err = gather(c, l, map, &ops);
    if (!err) {
        out->removed = malloc(l->count * sizeof *out->removed);
        out->inserted = malloc(l->count * sizeof *out->inserted);
        out->kept = malloc(l->count * sizeof *out->kept);
        if (!out->removed || !out->inserted || !out->kept) err = no_memory();
    }
    if (!err) {
        qsort(ops, l->count, sizeof *ops, map ? compare_map_ops : compare_set_ops);
        net_groups(ops, l->count, map, out);
    }
    free(ops);
    return err;
}

void element_net_free(element_net *net)
{
    free(net->removed);
    free(net->inserted);
    free(net->kept);
    memset(net, 0, sizeof *net);
}

/* ---- the public readers ---- */

/* Checks the arguments and that prop is a collection of kind in obj's class; an object
 * inserted or deleted in the range gives LAR_EDELETED. */
static int check_property(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, lar_collection kind,
                          const char *function)
{
    int err = txn_check(txn, false);
    if (err) return err;
    if (!changes) return lar_fail(LAR_EINVAL, "%s: changes is NULL", function);
    lar_property_def def;
    err = lar_property_info_get(txn->env, obj.cls, prop, &def);
    if (!err && def.collection != kind)
        err = lar_fail(LAR_EINVAL, "%s: property '%s' is not a %s", function, def.name,
                       kind == LAR_COLLECTION_SET ? "set" : "map");
    int state;
    size_t count;
    if (!err) err = lar_changes_object(changes, obj, &state, NULL, 0, &count);
    if (!err && (state == LAR_OBJECT_INSERTED || state == LAR_OBJECT_DELETED))
        err = lar_fail(LAR_EDELETED, "%s: the object does not exist at both ends of the changes", function);
    return err;
}

static int not_itemized(const char *function)
{
    return lar_fail(LAR_ENOTFOUND, "%s: the log does not list this property's element changes in the range (it was "
                    "cleared, changed inside a nested collection, or changed by an older version of the library): "
                    "compare the snapshots instead", function);
}

struct lar_set_changes {
    lar_value *parts[2];      /* removed, inserted */
    size_t counts[2];
};

int lar_changes_set_elements(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                             lar_set_changes **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_changes_set_elements: out is NULL");
    *out = NULL;
    int err = check_property(txn, changes, obj, prop, LAR_COLLECTION_SET, "lar_changes_set_elements");
    element_net net;
    if (!err) err = element_net_of(changes, obj, prop, false, &net);
    else memset(&net, 0, sizeof net);
    if (err == NOT_ITEMIZED) err = not_itemized("lar_changes_set_elements");
    lar_set_changes *sc = err ? NULL : calloc(1, sizeof *sc);
    if (!err && !sc) err = no_memory();
    const logged_element *from[2] = {net.removed, net.inserted};
    size_t counts[2] = {net.removed_count, net.inserted_count};
    for (int p = 0; !err && p < 2; p++) {
        if (!counts[p]) continue;
        if (!(sc->parts[p] = malloc(counts[p] * sizeof *sc->parts[p]))) err = no_memory();
        for (size_t i = 0; !err && i < counts[p]; i++, sc->counts[p]++)
            err = set_entry_value(txn, obj, prop, &from[p][i], &sc->parts[p][i]);
    }
    element_net_free(&net);
    if (err) {
        lar_set_changes_free(sc);
        return err;
    }
    *out = sc;
    return LAR_OK;
}

int lar_set_changes_get(const lar_set_changes *changes, lar_changeset_part part, const lar_value **values,
                        size_t *count)
{
    if (!changes || !values || !count)
        return lar_fail(LAR_EINVAL, "lar_set_changes_get: changes, values and count must not be NULL");
    if (part != LAR_CHANGESET_DELETIONS && part != LAR_CHANGESET_INSERTIONS)
        return lar_fail(LAR_EINVAL, "lar_set_changes_get: a set's changes have deletions and insertions (part %d)",
                        (int)part);
    *values = changes->parts[part];
    *count = changes->counts[part];
    return LAR_OK;
}

void lar_set_changes_free(lar_set_changes *changes)
{
    if (!changes) return;
    free(changes->parts[0]);
    free(changes->parts[1]);
    free(changes);
}

int lar_changes_map_keys(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, lar_map_changes **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_changes_map_keys: out is NULL");
    *out = NULL;
    int err = check_property(txn, changes, obj, prop, LAR_COLLECTION_MAP, "lar_changes_map_keys");
    element_net net;
    if (!err) err = element_net_of(changes, obj, prop, true, &net);
    else memset(&net, 0, sizeof net);
    if (err == NOT_ITEMIZED) err = not_itemized("lar_changes_map_keys");
    lar_map_changes *mc = err ? NULL : calloc(1, sizeof *mc);
    if (!err && !mc) err = no_memory();
    const logged_element *from[3] = {net.removed, net.inserted, net.kept};
    size_t counts[3] = {net.removed_count, net.inserted_count, net.kept_count};
    for (int p = 0; !err && p < 3; p++)
        for (size_t i = 0; !err && i < counts[p]; i++)
            err = map_changes_keep(mc, p, &(lar_string){(const char *)from[p][i].bytes, from[p][i].size});
    element_net_free(&net);
    if (err) {
        lar_map_changes_free(mc);
        return err;
    }
    map_changes_seal(mc);
    *out = mc;
    return LAR_OK;
}
