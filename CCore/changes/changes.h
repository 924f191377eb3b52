/* Layer 5, changes: the change log. Every write records, in memory as it goes, which
 * objects it inserted, deleted and modified (which properties), and what it did to the
 * elements of lists; its commit stores that as one entry of the log table, keyed by
 * the commit's version, and trims the entries no reader can still need. Readers fold
 * the entries of a range of versions into one account of the changes (lar_changes_*),
 * from which change sets are computed (list.c here; results in changeset/).
 *
 * Below link: the layers that write objects and collections record into it. */
#ifndef LARDER_CHANGES_H
#define LARDER_CHANGES_H

#include "schema/schema.h"

/* ---- what a write records (record.c) ---- */

/* The element changes of a list, in the list's positions at the time. */
typedef enum list_op_kind {
    LIST_OP_INSERT = 1,       /* arg elements inserted at index */
    LIST_OP_REMOVE = 2,       /* arg elements removed from index */
    LIST_OP_SET = 3,          /* the element at index replaced */
    LIST_OP_MOVE = 4,         /* the element at index moved to position arg */
    /* The element changes of a set or a map (its own, not a nested one's), each with
     * its element's bytes: a set's entry as its blocks hold it (collection/set.c), a
     * map's key (UTF-8, no NUL). In notes, index and arg locate them in bytes. */
    SET_OP_INSERT = 5,        /* the element was added */
    SET_OP_REMOVE = 6,        /* the element was removed */
    MAP_OP_INSERT = 7,        /* a new key */
    MAP_OP_SET = 8,           /* a key's value replaced (or nulled: its object was deleted) */
    MAP_OP_REMOVE = 9,        /* the key was removed */
    COLL_OP_CLEAR = 10,       /* the set or map emptied, its elements not listed */
    COLL_OP_UNKNOWN = 11      /* (reading only) an entry changed the property without listing how */
} list_op_kind;

static inline bool op_has_bytes(uint32_t kind)
{
    return kind >= SET_OP_INSERT && kind <= MAP_OP_REMOVE;
}

/* The bytes of a set's or a map's element change. */
typedef struct logged_element {
    const uint8_t *bytes;
    size_t size;
} logged_element;

/* Each returns LAR_OK, or LAR_ENOMEM after poisoning txn (its log would be wrong).
 * Call them once the change is made. */
int changes_insert(lar_txn *txn, lar_obj obj);
int changes_delete(lar_txn *txn, lar_obj obj);
int changes_modify(lar_txn *txn, lar_obj obj, uint32_t prop);
/* A change to the elements of obj's list property prop (its own list, not a nested one:
 * those are changes_modify of the property). */
int changes_list(lar_txn *txn, lar_obj obj, uint32_t prop, list_op_kind kind, uint64_t index, uint64_t arg);
/* A change to the elements of obj's set or map property prop (its own): kind SET_OP_*,
 * MAP_OP_* with the element's bytes, or COLL_OP_CLEAR (bytes NULL, size 0). */
int changes_element(lar_txn *txn, lar_obj obj, uint32_t prop, list_op_kind kind, const void *bytes, size_t size);
/* Whether txn's write keeps a change log (element changes are worth recording). */
static inline bool changes_logged(const lar_txn *txn)
{
    return txn && txn->env->has_history;
}

/* ---- the account of changes, in memory (notes.c) ---- */

#define NOTE_NEW 1u           /* inserted since the start (and not deleted since) */
#define NOTE_OLD_DELETED 2u   /* the object there at the start was deleted */

typedef struct key_run { uint64_t lo, hi; } key_run; /* inserted keys [lo, hi) */
typedef struct key_note {
    uint64_t key;
    uint32_t flags;
    uint32_t lists;           /* its first list_note + 1; 0: none */
} key_note;
typedef struct list_op { uint64_t index, arg; uint32_t kind; } list_op;
typedef struct list_note {
    uint32_t prop;
    uint32_t next;            /* the object's next list_note + 1 */
    list_op *ops;
    size_t count, capacity;
} list_note;

/* One class's changes. Keys inserted in increasing order extend runs (cheap for bulk
 * inserts); every other key touched gets a note, which then decides for it. A note
 * with no flags is an object that existed at the start and still does; its mask says
 * which properties changed. */
typedef struct class_notes {
    key_run *runs;            /* ascending, disjoint */
    size_t run_count, run_capacity;
    key_note *notes;
    uint64_t *masks;          /* mask_words per note */
    size_t note_count, note_capacity;
    uint32_t mask_words;
    uint32_t *slots;          /* open addressing: note index + 1, 0 empty */
    size_t slot_capacity;     /* a power of two, or 0 */
    list_note *lists;
    size_t list_count, list_capacity;
    byte_buffer bytes;        /* the elements of set and map changes */
} class_notes;

typedef struct change_notes {
    class_notes **classes;    /* by class id; NULL: no change */
    uint32_t class_capacity;
    bool any;
} change_notes;

/* The notes of class cls, created (with room for prop_count properties) on first use. */
class_notes *notes_class(change_notes *all, lar_class cls, uint32_t prop_count);
int notes_insert(class_notes *c, uint64_t key);
int notes_insert_range(class_notes *c, uint64_t lo, uint64_t hi);
int notes_delete(class_notes *c, uint64_t key);
int notes_modify(class_notes *c, uint64_t key, uint32_t prop);
int notes_list(class_notes *c, uint64_t key, uint32_t prop, const list_op *op);
/* A set or map change (op_has_bytes(kind): with size bytes, copied; else none). */
int notes_element(class_notes *c, uint64_t key, uint32_t prop, uint32_t kind, const void *bytes, size_t size);
/* The element changes of obj's property prop (a list's, a set's or a map's), or NULL
 * when it has none (or the object did not exist at both ends). */
const list_note *notes_changes_of(const change_notes *all, lar_obj obj, uint32_t prop);
key_note *notes_find(const class_notes *c, uint64_t key);
bool notes_in_runs(const class_notes *c, uint64_t key);
static inline const uint64_t *notes_mask(const class_notes *c, const key_note *n)
{
    return c->masks + (size_t)(n - c->notes) * c->mask_words;
}
/* The keys inserted (sorted) into out (malloc'd). */
int notes_inserted(const class_notes *c, uint64_t **out, size_t *count);
void notes_clear(change_notes *all);
void notes_free(change_notes *all);

/* ---- log entries (entry.c) ---- */

int entry_encode(const change_notes *all, byte_buffer *out);
/* Folds an entry into all (entries must come in version order). LAR_ECORRUPT when damaged. */
int entry_apply(change_notes *all, const lar_schema *schema, const uint8_t *data, size_t size);

/* ---- reading (read.c) ---- */

typedef struct class_account {
    lar_class cls;
    uint64_t *inserted, *deleted, *modified;
    size_t inserted_count, deleted_count, modified_count;
} class_account;

struct lar_changes {
    uint64_t from, to;
    change_notes notes;
    class_account *classes;   /* the classes with changes, ascending */
    size_t class_count;
};

/* ---- change sets (changeset.c) ---- */

struct lar_changeset {
    size_t *parts[4];         /* by lar_changeset_part */
    size_t counts[4];
};
/* An empty change set, or NULL (recorded) when out of memory. */
lar_changeset *changeset_new(void);
int changeset_push(lar_changeset *cs, lar_changeset_part part, size_t index);
/* Sorts each part ascending. */
void changeset_sort(lar_changeset *cs);

/* A list's element changes replayed over the range of changes: at each new position
 * its element's old position, or LIST_INSERTED (inserted, or moved, since). */
#define LIST_INSERTED UINT64_MAX
typedef struct list_replay {
    uint64_t *tags;
    size_t count, capacity;   /* count: the list's count at the end */
    bool *modified;           /* by old position: set in place */
    size_t old_count;
} list_replay;
/* Replays obj's list prop of old_count elements (LAR_EDELETED when obj is not at both
 * ends, LAR_ECORRUPT when old_count does not fit); free *out with list_replay_free,
 * whatever the result. */
int list_replay_run(const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count, list_replay *out);
/* The change set the replay makes (pushed, already in order). */
int list_replay_report(const list_replay *r, lar_changeset *cs);
void list_replay_free(list_replay *r);
/* Ends a replay whose last step returned err: on success *out receives its change set;
 * r is freed either way. */
int list_replay_finish(list_replay *r, int err, lar_changeset **out);

#endif
