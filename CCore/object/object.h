/* Layer 7, object: objects in their class tables, kept in step with the
 * primary-key and index tables, and iterators over them. */
#ifndef LARDER_OBJECT_H
#define LARDER_OBJECT_H

#include "codec/codec.h"
#include "schema/schema.h"

/* Reads obj's row; fills *row, or returns LAR_EDELETED. Uses and fills txn's row cache. */
int object_read_row(lar_txn *txn, const schema_class *cls, lar_obj obj, kv_val *row);

/* The key of the object of a class keyed by its int primary key (see object.c) whose
 * primary key is value, unless that object is displaced; 0 for none. */
lar_objkey object_key_for_primary(const lar_value *value);
/* Finds the object of class cls whose primary key is key (of the key's type, or null
 * for an optional key): the one way to look a primary key up (lar_obj_find, queries).
 * Returns LAR_ENOTFOUND (recorded) when there is none. */
int object_find_primary(lar_txn *txn, lar_class cls, const lar_value *key, lar_objkey *out);

#define STACK_VALUES 32

/* Values staged for one row: on the stack for ordinary classes. */
typedef struct value_array {
    lar_value *items;
    lar_value stack[STACK_VALUES];
} value_array;

/* A new object checked and staged, nothing written yet: object_create() in two steps, so
 * that a caller creating several objects at once finds every error before the first write. */
typedef struct prepared_object {
    const schema_class *cls;
    lar_class cls_id;
    const lar_value *use;     /* the values to store: the caller's, or staged's items */
    value_array staged;       /* a normalized copy, when one was needed */
    bool nested;              /* some mixed value asks for a new nested collection */
} prepared_object;

/* The checks and staging of object_create(); out is always to be freed with
 * object_prepared_free(), whatever this returns. */
int object_prepare(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count, bool embedded,
                   prepared_object *out);
/* Makes the prepared row's to-one link prop hold link, unchecked: an embedded object
 * about to be created in place with its owner recorded (so no backlink entry is written). */
int object_prepared_link(prepared_object *object, uint32_t prop, lar_obj link);
/* Writes the prepared object (owner as object_create() takes it). */
int object_insert_prepared(lar_txn *txn, prepared_object *object, const row_owner *owner, lar_obj *out);
void object_prepared_free(prepared_object *object);

/* lar_obj_create(); embedded allows (only) an embedded class, whose object the caller
 * links: owner, if not NULL, is the to-one link it will be (its row records it, and the
 * caller links it with object_link_placed), else the caller's list or map link records it. */
int object_create(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count, bool embedded,
                  const row_owner *owner, lar_obj *out);

/* Sets parent's to-one link property prop, which the caller checked links to placed's
 * class (an embedded one), to placed, just created with its owner recorded:
 * lar_obj_set() without the checks that creating it in place made already. */
int object_link_placed(lar_txn *txn, lar_obj parent, uint32_t prop, lar_obj placed);

/* Deletes one object: its keys, links, collections and row; the links to it become null. */
int object_delete_one(lar_txn *txn, lar_obj obj);

/* ---- cascading deletes (cascade.c) ---- */

/* Deletes root (of class cls, which has LAR_PROP_CASCADE properties) and the objects
 * it owns through them (the rule at LAR_PROP_CASCADE in larder.h). */
int cascade_delete(lar_txn *txn, const schema_class *cls, lar_obj root);

/* ---- iterators (iter.c) ---- */

/* A property that every step copies into the caller's variable. */
typedef struct iter_binding {
    void *dest;               /* an int64_t or double when wide, else a lar_value */
    uint32_t prop;
    bool wide;                /* a required int or double: its 8-byte slot is copied */
} iter_binding;

/* Bytes every step copies from the row: wide bindings whose slots and
 * variables are both adjacent (a struct's fields bound in order) share a run. */
typedef struct copy_run {
    uint8_t *dest;
    uint32_t offset, size;
} copy_run;

struct lar_iter {
    txn_dependent link;       /* in txn's dependents */
    lar_txn *txn;             /* NULL once the transaction ended */
    const schema_class *cls;
    lar_class cls_id;
    kv_cursor *cursor;
    uint64_t epoch;
    lar_objkey last_key;      /* 0 before the first step; not kept up while streaming, which needs none */
    bool done;
    bool seeking;             /* the next step must seek, even in a read transaction */
    bool streaming;           /* a read cursor mid-walk: the next step is the walk's */
    kv_walk walk;             /* while streaming: the walk on from the cursor (its pages read in place) */
    /* Bindings: room for one per property, allocated by the first bind. */
    iter_binding *bindings;
    copy_run *runs;           /* the wide bindings, by slot offset */
    uint32_t binding_count, run_count;
    bool decodes;             /* some binding is not wide */
    uint64_t *stamp_dest;     /* lar_iter_bind_stamp(): NULL for none */
    /* The bytes of a row a bound step reads (plan_ahead): from ahead_first to ahead_last,
     * and the row's last line when ahead_tail. ahead_whole: the whole row. */
    bool ahead_whole, ahead_tail;
    uint32_t ahead_first, ahead_last;
    /* lar_iter_follow(): the embedded object of a to-one link, read by each lar_iter_next_all(). */
    lar_value *follow_out;    /* NULL for none */
    lar_objkey *follow_key;
    uint32_t follow_prop;
    const schema_class *follow_target; /* the link's embedded class (a txn keeps older schemas) */
    /* An iterator over given keys (a query's result) rather than the whole table. */
    lar_objkey *keys;         /* malloc'd, key_count of them; NULL: walk the table */
    size_t key_count, key_at;
    kv_val *rows;             /* the keys' rows, read by the transaction of rows_generation; NULL: none */
    uint64_t rows_generation;
};

/* An iterator over the objects of cls with these keys, in this order (keys are copied);
 * objects deleted since are skipped. rows, when not NULL, are the keys' rows as txn read
 * them (copied too): while txn stays in that snapshot, steps read no B-tree. */
int iter_open_keys(lar_txn *txn, lar_class cls, const lar_objkey *keys, const kv_val *rows, size_t count,
                   lar_iter **out);

#endif
