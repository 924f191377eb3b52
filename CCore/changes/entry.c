/* A log entry: what one commit changed, per class, in LEB128 varints.
 *
 *   entry  := class*
 *   class  := cls  n_runs (lo-prev_hi len)*  n_deleted key_delta*
 *             n_modified (key_delta n_words word* n_lists (prop n_ops op*)*)*
 *   op     := kind index arg            a list's (LIST_OP_*)
 *           | kind size byte*           a set's or a map's element (SET_OP_*, MAP_OP_*)
 *           | kind                      COLL_OP_CLEAR
 *
 * Entries written before sets and maps had element changes hold list ops alone; an
 * entry that marks a set or map property changed without listing its changes (those,
 * or a change inside a nested collection) reads as COLL_OP_UNKNOWN for it.
 * Inserted keys are runs of consecutive keys (a bulk insert is one run); deleted and
 * modified keys ascend, each written as its distance from the previous one. Replaying
 * an entry deletes first, then inserts: a key deleted and created again in one commit
 * (an int primary key) is both. */
#include "changes/changes.h"

#include <stdlib.h>
#include <string.h>

static int put_varint(byte_buffer *out, uint64_t v)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return buffer_append(out, bytes, n);
}

typedef struct reader {
    const uint8_t *at, *end;
    bool bad;
} reader;

static uint64_t get_varint(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->at >= r->end) break;
        uint8_t byte = *r->at++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return v;
    }
    r->bad = true;
    return 0;
}

static int compare_notes(const void *a, const void *b)
{
    uint64_t x = (*(key_note *const *)a)->key, y = (*(key_note *const *)b)->key;
    return x < y ? -1 : x > y;
}

static bool mask_empty(const class_notes *c, const key_note *n)
{
    const uint64_t *mask = notes_mask(c, n);
    for (uint32_t w = 0; w < c->mask_words; w++)
        if (mask[w]) return false;
    return true;
}

/* The notes that are deletions (deleted true) or modifications, by key. */
static int select_notes(const class_notes *c, bool deleted, key_note ***out, size_t *count)
{
    key_note **chosen = malloc((c->note_count ? c->note_count : 1) * sizeof *chosen);
    if (!chosen) return lar_fail(LAR_ENOMEM, "out of memory recording changes");
    size_t n = 0;
    for (size_t i = 0; i < c->note_count; i++) {
        key_note *note = &c->notes[i];
        bool take = deleted ? (note->flags & NOTE_OLD_DELETED) : (!note->flags && !mask_empty(c, note));
        if (take) chosen[n++] = note;
    }
    qsort(chosen, n, sizeof *chosen, compare_notes);
    *out = chosen;
    *count = n;
    return LAR_OK;
}

static int encode_runs(const class_notes *c, byte_buffer *out)
{
    uint64_t *keys = NULL;
    size_t count = 0;
    int err = LAR_OK;
    if (c->note_count) err = notes_inserted(c, &keys, &count);
    if (err) return err;
    size_t runs = 0;
    if (keys) {
        for (size_t i = 0; i < count; i++) runs += !i || keys[i] != keys[i - 1] + 1;
    } else {
        runs = c->run_count;
    }
    err = put_varint(out, runs);
    uint64_t prev = 0;
    for (size_t i = 0; !err && keys && i < count;) {
        size_t j = i + 1;
        while (j < count && keys[j] == keys[j - 1] + 1) j++;
        err = put_varint(out, keys[i] - prev);
        if (!err) err = put_varint(out, j - i);
        prev = keys[j - 1] + 1;
        i = j;
    }
    for (size_t r = 0; !err && !keys && r < c->run_count; r++) {
        err = put_varint(out, c->runs[r].lo - prev);
        if (!err) err = put_varint(out, c->runs[r].hi - c->runs[r].lo);
        prev = c->runs[r].hi;
    }
    free(keys);
    return err;
}

static int encode_lists(const class_notes *c, const key_note *n, byte_buffer *out)
{
    size_t lists = 0;
    for (uint32_t at = n->lists; at; at = c->lists[at - 1].next) lists++;
    int err = put_varint(out, lists);
    for (uint32_t at = n->lists; !err && at; at = c->lists[at - 1].next) {
        const list_note *l = &c->lists[at - 1];
        err = put_varint(out, l->prop);
        if (!err) err = put_varint(out, l->count);
        for (size_t i = 0; !err && i < l->count; i++) {
            const list_op *op = &l->ops[i];
            err = put_varint(out, op->kind);
            if (!err && op->kind <= LIST_OP_MOVE) {
                err = put_varint(out, op->index);
                if (!err) err = put_varint(out, op->arg);
            } else if (!err && op_has_bytes(op->kind)) {
                err = put_varint(out, op->arg);
                if (!err) err = buffer_append(out, c->bytes.data + op->index, op->arg);
            }
        }
    }
    return err;
}

static int encode_keys(const class_notes *c, key_note **notes, size_t count, bool modified, byte_buffer *out)
{
    int err = put_varint(out, count);
    uint64_t prev = 0;
    for (size_t i = 0; !err && i < count; i++) {
        err = put_varint(out, notes[i]->key - prev);
        prev = notes[i]->key;
        if (!modified) continue;
        const uint64_t *mask = notes_mask(c, notes[i]);
        if (!err) err = put_varint(out, c->mask_words);
        for (uint32_t w = 0; !err && w < c->mask_words; w++) err = put_varint(out, mask[w]);
        if (!err) err = encode_lists(c, notes[i], out);
    }
    return err;
}

static int encode_class(lar_class cls, const class_notes *c, byte_buffer *out)
{
    key_note **deleted = NULL, **modified = NULL;
    size_t deleted_count = 0, modified_count = 0;
    int err = select_notes(c, true, &deleted, &deleted_count);
    if (!err) err = select_notes(c, false, &modified, &modified_count);
    size_t mark = out->size;
    if (!err) err = put_varint(out, cls);
    size_t runs_at = out->size;
    if (!err) err = encode_runs(c, out);
    bool no_inserts = !err && out->data[runs_at] == 0; /* a run count of 0 */
    if (!err) err = encode_keys(c, deleted, deleted_count, false, out);
    if (!err) err = encode_keys(c, modified, modified_count, true, out);
    if (!err && no_inserts && !deleted_count && !modified_count) out->size = mark; /* nothing happened */
    free(deleted);
    free(modified);
    return err;
}

int entry_encode(const change_notes *all, byte_buffer *out)
{
    int err = LAR_OK;
    for (uint32_t cls = 0; !err && cls < all->class_capacity; cls++)
        if (all->classes[cls]) err = encode_class(cls, all->classes[cls], out);
    return err;
}

/* ---- replaying ---- */

static int damaged(void)
{
    return lar_fail(LAR_ECORRUPT, "a change log entry is damaged");
}

static int apply_op(class_notes *c, uint64_t key, uint32_t prop, reader *r)
{
    uint64_t kind = get_varint(r);
    if (kind >= LIST_OP_INSERT && kind <= LIST_OP_MOVE) {
        list_op op = {0, 0, (uint32_t)kind};
        op.index = get_varint(r);
        op.arg = get_varint(r);
        return r->bad ? damaged() : notes_list(c, key, prop, &op);
    }
    if (kind == COLL_OP_CLEAR) return notes_element(c, key, prop, COLL_OP_CLEAR, NULL, 0);
    uint64_t size = op_has_bytes((uint32_t)kind) ? get_varint(r) : 0;
    if (r->bad || !op_has_bytes((uint32_t)kind) || size > (uint64_t)(r->end - r->at)) return damaged();
    const uint8_t *bytes = r->at;
    r->at += size;
    return notes_element(c, key, prop, (uint32_t)kind, bytes, (size_t)size);
}

/* Whether props (count of them) holds prop. */
static bool listed(const uint32_t *props, size_t count, uint32_t prop)
{
    for (size_t i = 0; i < count; i++)
        if (props[i] == prop) return true;
    return false;
}

/* A set or map property marked changed whose changes the entry does not list. */
static int note_unlisted(class_notes *c, const schema_class *sc, uint64_t key, reader mask, uint64_t words,
                         const uint32_t *props, size_t count)
{
    for (uint64_t w = 0; sc && w < words; w++) {
        uint64_t word = get_varint(&mask);
        for (uint32_t bit = 0; word >> bit && w * 64 + bit < sc->property_count; bit++) {
            uint32_t p = (uint32_t)(w * 64 + bit);
            lar_collection kind = sc->properties[p].def.collection;
            if (!(word & (1ull << bit)) || (kind != LAR_COLLECTION_SET && kind != LAR_COLLECTION_MAP) ||
                listed(props, count, p))
                continue;
            int err = notes_element(c, key, p, COLL_OP_UNKNOWN, NULL, 0);
            if (err) return err;
        }
    }
    return LAR_OK;
}

/* Applies a modified key's element changes; *props receives the properties they are of. */
static int apply_lists(class_notes *c, uint64_t key, reader *r, uint32_t **props, size_t *count)
{
    uint64_t lists = get_varint(r);
    *props = NULL;
    *count = 0;
    if (r->bad || lists > (uint64_t)(r->end - r->at)) return damaged();
    if (lists && !(*props = malloc(lists * sizeof **props))) return lar_fail(LAR_ENOMEM, "out of memory reading changes");
    for (uint64_t i = 0; !r->bad && i < lists; i++) {
        uint64_t prop = get_varint(r), ops = get_varint(r);
        if (prop > UINT32_MAX) r->bad = true;
        if (!r->bad) (*props)[(*count)++] = (uint32_t)prop;
        for (uint64_t o = 0; !r->bad && o < ops; o++) {
            int err = apply_op(c, key, (uint32_t)prop, r);
            if (err) return err;
        }
    }
    return r->bad ? damaged() : LAR_OK;
}

static int apply_modified(class_notes *c, const schema_class *sc, reader *r)
{
    uint64_t count = get_varint(r), key = 0;
    for (uint64_t i = 0; !r->bad && i < count; i++) {
        key += get_varint(r);
        uint64_t words = get_varint(r);
        if (words > (uint64_t)(r->end - r->at)) return damaged();
        reader mask = *r;
        for (uint64_t w = 0; !r->bad && w < words; w++) {
            uint64_t word = get_varint(r);
            for (int bit = 0; word && bit < 64; bit++) {
                if (!(word & (1ull << bit))) continue;
                int err = notes_modify(c, key, (uint32_t)(w * 64 + (uint64_t)bit));
                if (err) return err;
            }
        }
        uint32_t *props = NULL;
        size_t listed_count = 0;
        int err = r->bad ? damaged() : apply_lists(c, key, r, &props, &listed_count);
        if (!err) err = note_unlisted(c, sc, key, mask, words, props, listed_count);
        free(props);
        if (err) return err;
    }
    return r->bad ? damaged() : LAR_OK;
}

static int apply_class(change_notes *all, const lar_schema *schema, reader *r)
{
    uint64_t cls = get_varint(r);
    if (r->bad || cls >= MAX_CLASSES) return damaged();
    /* Inserts come before deletes in the entry, but replay after them. */
    uint64_t runs = get_varint(r);
    const uint8_t *runs_at = r->at;
    for (uint64_t i = 0; !r->bad && i < 2 * runs; i++) get_varint(r);
    uint64_t deleted = get_varint(r);
    if (r->bad) return damaged();
    const schema_class *sc = schema_class_at(schema, (lar_class)cls);
    class_notes *c = notes_class(all, (lar_class)cls, sc ? sc->property_count : 0);
    if (!c) return LAR_ENOMEM;
    uint64_t key = 0;
    int err = LAR_OK;
    for (uint64_t i = 0; !err && i < deleted; i++) {
        key += get_varint(r);
        err = r->bad ? damaged() : notes_delete(c, key);
    }
    reader inserts = {runs_at, r->end, false};
    key = 0;
    for (uint64_t i = 0; !err && i < runs; i++) {
        key += get_varint(&inserts);
        uint64_t length = get_varint(&inserts);
        if (inserts.bad || key + length < key) return damaged();
        err = notes_insert_range(c, key, key + length);
        key += length;
    }
    return err ? err : apply_modified(c, sc, r);
}

int entry_apply(change_notes *all, const lar_schema *schema, const uint8_t *data, size_t size)
{
    reader r = {data, data + size, false};
    int err = LAR_OK;
    while (!err && r.at < r.end) err = apply_class(all, schema, &r);
    return err;
}
