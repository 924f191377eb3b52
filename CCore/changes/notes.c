/* The account of changes in memory: what one write did (record.c), or what a range of
 * commits did together (read.c folds their entries with the same operations). */
#include "changes/changes.h"

#include <stdlib.h>
#include <string.h>

static int no_memory(void)
{
    return lar_fail(LAR_ENOMEM, "out of memory recording changes");
}

/* Grows *array (of size each) to hold at least need items. */
static int grow(void **array, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity) return LAR_OK;
    size_t capacity2 = *capacity ? *capacity * 2 : 8;
    while (capacity2 < need) capacity2 *= 2;
    void *grown = realloc(*array, capacity2 * size);
    if (!grown) return no_memory();
    *array = grown;
    *capacity = capacity2;
    return LAR_OK;
}

class_notes *notes_class(change_notes *all, lar_class cls, uint32_t prop_count)
{
    if (cls >= all->class_capacity) {
        uint32_t capacity = all->class_capacity ? all->class_capacity : 8;
        while (capacity <= cls) capacity *= 2;
        class_notes **grown = realloc(all->classes, capacity * sizeof *grown);
        if (!grown) return no_memory(), NULL;
        memset(grown + all->class_capacity, 0, (capacity - all->class_capacity) * sizeof *grown);
        all->classes = grown;
        all->class_capacity = capacity;
    }
    class_notes *c = all->classes[cls];
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) return no_memory(), NULL;
        c->mask_words = prop_count ? (prop_count + 63) / 64 : 1;
        all->classes[cls] = c;
    }
    all->any = true;
    return c;
}

static size_t slot_of(uint64_t key, size_t capacity)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (capacity - 1);
}

key_note *notes_find(const class_notes *c, uint64_t key)
{
    if (!c->note_count) return NULL;
    for (size_t i = slot_of(key, c->slot_capacity);; i = (i + 1) & (c->slot_capacity - 1)) {
        uint32_t at = c->slots[i];
        if (!at) return NULL;
        if (c->notes[at - 1].key == key) return &c->notes[at - 1];
    }
}

static int rehash(class_notes *c, size_t capacity)
{
    uint32_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return no_memory();
    for (size_t n = 0; n < c->note_count; n++) {
        size_t i = slot_of(c->notes[n].key, capacity);
        while (slots[i]) i = (i + 1) & (capacity - 1);
        slots[i] = (uint32_t)(n + 1);
    }
    free(c->slots);
    c->slots = slots;
    c->slot_capacity = capacity;
    return LAR_OK;
}

/* A new note for key (which has none), with no flags and an empty mask. */
static key_note *add_note(class_notes *c, uint64_t key)
{
    if (c->note_count >= UINT32_MAX - 1) return no_memory(), NULL;
    if ((c->note_count + 1) * 2 > c->slot_capacity && rehash(c, c->slot_capacity ? c->slot_capacity * 2 : 64))
        return NULL;
    size_t capacity = c->note_capacity;
    if (grow((void **)&c->notes, &capacity, c->note_count + 1, sizeof *c->notes)) return NULL;
    if (capacity != c->note_capacity) {
        uint64_t *masks = realloc(c->masks, capacity * c->mask_words * sizeof *masks);
        if (!masks) return no_memory(), NULL;
        c->masks = masks;
        c->note_capacity = capacity;
    }
    size_t n = c->note_count++;
    c->notes[n] = (key_note){key, 0, 0};
    memset(c->masks + n * c->mask_words, 0, c->mask_words * sizeof *c->masks);
    size_t i = slot_of(key, c->slot_capacity);
    while (c->slots[i]) i = (i + 1) & (c->slot_capacity - 1);
    c->slots[i] = (uint32_t)(n + 1);
    return &c->notes[n];
}

bool notes_in_runs(const class_notes *c, uint64_t key)
{
    size_t lo = 0, hi = c->run_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key < c->runs[mid].lo) hi = mid;
        else if (key >= c->runs[mid].hi) lo = mid + 1;
        else return true;
    }
    return false;
}

int notes_insert_range(class_notes *c, uint64_t lo, uint64_t hi)
{
    if (lo >= hi) return LAR_OK;
    key_run *last = c->run_count ? &c->runs[c->run_count - 1] : NULL;
    if (!last || lo >= last->hi) { /* past every run: a run, and the notes in it learn of the insert */
        if (last && lo == last->hi) {
            last->hi = hi;
        } else {
            if (grow((void **)&c->runs, &c->run_capacity, c->run_count + 1, sizeof *c->runs)) return LAR_ENOMEM;
            c->runs[c->run_count++] = (key_run){lo, hi};
        }
        for (size_t n = 0; n < c->note_count; n++)
            if (c->notes[n].key >= lo && c->notes[n].key < hi) c->notes[n].flags |= NOTE_NEW;
        return LAR_OK;
    }
    for (uint64_t key = lo; key < hi; key++) { /* keys used again (an int primary key): one by one */
        int err = notes_insert(c, key);
        if (err) return err;
    }
    return LAR_OK;
}

int notes_insert(class_notes *c, uint64_t key)
{
    key_note *n = notes_find(c, key);
    if (n) { /* deleted earlier: the same key again (an int primary key) */
        n->flags |= NOTE_NEW;
        return LAR_OK;
    }
    key_run *last = c->run_count ? &c->runs[c->run_count - 1] : NULL;
    if (last && key == last->hi) {
        last->hi++;
        return LAR_OK;
    }
    if (!last || key > last->hi) {
        if (grow((void **)&c->runs, &c->run_capacity, c->run_count + 1, sizeof *c->runs)) return LAR_ENOMEM;
        c->runs[c->run_count++] = (key_run){key, key + 1};
        return LAR_OK;
    }
    n = add_note(c, key); /* below the runs' end, and in none of them: no key is inserted twice */
    if (!n) return LAR_ENOMEM;
    n->flags = NOTE_NEW;
    return LAR_OK;
}

int notes_delete(class_notes *c, uint64_t key)
{
    key_note *n = notes_find(c, key);
    if (!n) {
        bool inserted = notes_in_runs(c, key);
        if (!(n = add_note(c, key))) return LAR_ENOMEM;
        n->flags = inserted ? 0 : NOTE_OLD_DELETED; /* inserted then deleted: nothing happened */
        return LAR_OK;
    }
    if (n->flags & NOTE_NEW) {
        n->flags &= ~NOTE_NEW;
        return LAR_OK;
    }
    n->flags |= NOTE_OLD_DELETED; /* what it changed before no longer matters */
    n->lists = 0;
    memset(c->masks + (size_t)(n - c->notes) * c->mask_words, 0, c->mask_words * sizeof *c->masks);
    return LAR_OK;
}

/* The note of an object that existed at the start and still does (one is made); NULL
 * with *err LAR_OK for any other object, whose changes are no modifications. */
static key_note *existing(class_notes *c, uint64_t key, int *err)
{
    *err = LAR_OK;
    key_note *n = notes_find(c, key);
    if (n) return n->flags ? NULL : n;
    if (c->run_count && notes_in_runs(c, key)) return NULL;
    n = add_note(c, key);
    if (!n) *err = LAR_ENOMEM;
    return n;
}

static void set_bit(class_notes *c, key_note *n, uint32_t prop)
{
    if (prop / 64 < c->mask_words) c->masks[(size_t)(n - c->notes) * c->mask_words + prop / 64] |= 1ull << (prop % 64);
}

int notes_modify(class_notes *c, uint64_t key, uint32_t prop)
{
    int err;
    key_note *n = existing(c, key, &err);
    if (n) set_bit(c, n, prop);
    return err;
}

/* Merges op into the last one when it continues it (appends, or removals at one place). */
static bool extend_last(list_note *l, const list_op *op)
{
    if (!l->count) return false;
    list_op *last = &l->ops[l->count - 1];
    if (op->kind != last->kind) return false;
    if (op->kind == LIST_OP_INSERT && op->index == last->index + last->arg) {
        last->arg += op->arg;
        return true;
    }
    if (op->kind == LIST_OP_REMOVE && op->index == last->index) {
        last->arg += op->arg;
        return true;
    }
    if (op->kind == LIST_OP_REMOVE && op->index + op->arg == last->index) {
        last->index = op->index;
        last->arg += op->arg;
        return true;
    }
    return false;
}

/* The element changes of n's property prop, made on first use. */
static list_note *list_of(class_notes *c, key_note *n, uint32_t prop)
{
    list_note *l = NULL;
    for (uint32_t at = n->lists; at; at = c->lists[at - 1].next)
        if (c->lists[at - 1].prop == prop) l = &c->lists[at - 1];
    if (!l) {
        size_t index = (size_t)(n - c->notes);
        if (grow((void **)&c->lists, &c->list_capacity, c->list_count + 1, sizeof *c->lists)) return NULL;
        n = &c->notes[index];
        l = &c->lists[c->list_count++];
        *l = (list_note){prop, n->lists, NULL, 0, 0};
        n->lists = (uint32_t)c->list_count;
    }
    return l;
}

/* Appends op (with its bytes, when it has any) to the changes of key's property prop,
 * for an object that existed at the start and still does; nothing for others. */
static int add_op(class_notes *c, uint64_t key, uint32_t prop, const list_op *op, const void *bytes)
{
    int err;
    key_note *n = existing(c, key, &err);
    if (!n) return err;
    set_bit(c, n, prop);
    list_note *l = list_of(c, n, prop);
    if (!l) return LAR_ENOMEM;
    if (extend_last(l, op)) return LAR_OK;
    if (grow((void **)&l->ops, &l->capacity, l->count + 1, sizeof *l->ops)) return LAR_ENOMEM;
    if (bytes && op->arg && buffer_append(&c->bytes, bytes, op->arg)) return no_memory();
    l->ops[l->count++] = *op;
    return LAR_OK;
}

int notes_list(class_notes *c, uint64_t key, uint32_t prop, const list_op *op)
{
    return add_op(c, key, prop, op, NULL);
}

int notes_element(class_notes *c, uint64_t key, uint32_t prop, uint32_t kind, const void *bytes, size_t size)
{
    list_op op = {c->bytes.size, op_has_bytes(kind) ? size : 0, kind};
    return add_op(c, key, prop, &op, bytes);
}

const list_note *notes_changes_of(const change_notes *all, lar_obj obj, uint32_t prop)
{
    const class_notes *c = obj.cls < all->class_capacity ? all->classes[obj.cls] : NULL;
    const key_note *n = c ? notes_find(c, obj.key) : NULL;
    if (!n || n->flags) return NULL;
    for (uint32_t at = n->lists; at; at = c->lists[at - 1].next)
        if (c->lists[at - 1].prop == prop) return &c->lists[at - 1];
    return NULL;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int notes_inserted(const class_notes *c, uint64_t **out, size_t *count)
{
    size_t total = 0;
    for (size_t r = 0; r < c->run_count; r++) total += c->runs[r].hi - c->runs[r].lo;
    for (size_t n = 0; n < c->note_count; n++) total += (c->notes[n].flags & NOTE_NEW) != 0;
    uint64_t *keys = malloc((total ? total : 1) * sizeof *keys);
    if (!keys) return no_memory();
    size_t used = 0;
    for (size_t r = 0; r < c->run_count; r++)
        for (uint64_t k = c->runs[r].lo; k < c->runs[r].hi; k++)
            if (!c->note_count || !notes_find(c, k)) keys[used++] = k;
    bool extra = false;
    for (size_t n = 0; n < c->note_count; n++)
        if (c->notes[n].flags & NOTE_NEW) {
            keys[used++] = c->notes[n].key;
            extra = true;
        }
    if (extra) qsort(keys, used, sizeof *keys, compare_keys);
    *out = keys;
    *count = used;
    return LAR_OK;
}

static void class_free(class_notes *c)
{
    for (size_t l = 0; l < c->list_count; l++) free(c->lists[l].ops);
    free(c->lists);
    buffer_free(&c->bytes);
    free(c->runs);
    free(c->notes);
    free(c->masks);
    free(c->slots);
    free(c);
}

void notes_clear(change_notes *all)
{
    for (uint32_t i = 0; i < all->class_capacity; i++) {
        if (all->classes[i]) class_free(all->classes[i]);
        all->classes[i] = NULL;
    }
    all->any = false;
}

void notes_free(change_notes *all)
{
    notes_clear(all);
    free(all->classes);
    all->classes = NULL;
    all->class_capacity = 0;
}
