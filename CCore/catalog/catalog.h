/* Layer 1, catalog: class definitions, their validation, their layout in rows and
 * their stored form. Pure data: it neither reads nor writes the file. */
#ifndef LARDER_CATALOG_H
#define LARDER_CATALOG_H

#include "base/base.h"

#define MAX_CLASSES 1000
#define ROW_STAMP_SIZE 8 /* see schema_class.stamp_at */

typedef struct schema_property {
    lar_property_def def;   /* strings owned by the schema */
    uint32_t slot_offset;   /* offset of its fixed slot in a row, after the header */
    uint32_t slot_size;
    lar_class target;       /* links (and collections of them): the target class, resolved on load */
    bool embeds;            /* target is an embedded class, resolved with it */
} schema_property;

/* What decoding a slot needs, packed so a whole row's plan fits in a few cache lines. */
typedef struct slot_plan {
    uint32_t offset;        /* the slot's, from the start of the row */
    uint32_t type;          /* lar_type, or LAR_TYPE_NULL for a collection */
} slot_plan;

typedef struct schema_class {
    char *name;
    unsigned int flags;
    uint32_t property_count;
    schema_property *properties;
    int32_t primary_key;    /* property index or -1 */
    bool keyed_by_primary;  /* an int primary key (optional or not) gives each object its key: object.c */
    bool has_indexes;       /* any LAR_PROP_INDEXED property other than the primary key */
    bool has_optional;      /* any property may be null: rows need their null bitmap read */
    bool has_var;           /* a string or binary property: rows have a variable area */
    bool all_wide_numbers;  /* every property is a required int or double: 8-byte slots, no bitmap */
    bool has_links;         /* a to-one link property: writes keep the backlink table in step */
    bool has_collections;   /* a list, set or map property, or a mixed one (nested collections) */
    bool is_link_target;    /* some class links here: deletes null the links to its objects */
    bool has_cascades;      /* a LAR_PROP_CASCADE property: deletes take its targets along */
    uint32_t fixed_size;    /* sum of slot sizes, and of the stamp's */
    uint32_t stamp_at;      /* keyed_by_primary: where rows keep their stamp (8 bytes after the slots) */
    uint32_t var_at;        /* where a row's variable area starts: after its slots and bitmap */
    slot_plan *plan;        /* one per property */
    unsigned int dbi;       /* the object table's LMDB handle, set by the kv layer */
} schema_class;

/* An immutable snapshot of the stored schema; replaced, never changed, when the file's schema changes. */
typedef struct lar_schema {
    uint64_t generation;    /* bumped by every schema change in the file */
    uint64_t version;       /* the application's schema version */
    uint32_t class_count;
    schema_class *classes;
    bool has_links;         /* some class has a link property: the backlink table exists */
    unsigned int backlink_dbi; /* the backlink table's LMDB handle, set by the kv layer */
    bool has_collections;   /* some class has a collection or mixed property: the collection tables exist */
    unsigned int collection_dbi; /* list nodes */
    unsigned int keyed_dbi;      /* set elements and map entries */
    struct lar_schema *older; /* kept alive until the environment closes */
} lar_schema;

/* Frees schema and every older one chained to it. */
void schema_free(lar_schema *schema);
const schema_class *schema_class_at(const lar_schema *schema, lar_class cls);
const schema_class *find_class(const lar_schema *schema, const char *name);

/* Copies def into out and lays it out; on failure out holds nothing to free. */
int class_from_def(const lar_class_def *def, schema_class *out);
void class_clear(schema_class *cls);
uint32_t slot_size_of(const lar_property_def *def);
bool key_type_is_indexable(lar_type type);
bool key_type_is_primary(lar_type type);

/* The stored form: classes to bytes (appended to b), and bytes to a schema's classes. */
int serialize(const schema_class *classes, uint32_t count, byte_buffer *b);
int parse(const void *data, size_t size, lar_schema *schema);

/* Checks definitions as lar_schema_apply() receives them. */
int validate_all(const lar_class_def *classes, size_t class_count);
/* Checks that every link of classes targets a class of classes or of stored (which may be NULL). */
int check_link_targets(const lar_schema *stored, const lar_class_def *classes, size_t class_count);
/* Whether a property holds links: a to-one link or a collection of them. */
static inline bool property_links(const lar_property_def *def)
{
    return def->type == LAR_TYPE_LINK;
}
/* Whether a property may hold links, and keeps the backlink table: links to its
 * target class, or mixed values (links to any class). */
static inline bool property_may_link(const lar_property_def *def)
{
    return def->type == LAR_TYPE_LINK || def->type == LAR_TYPE_MIXED;
}
/* Compares definitions with the stored schema (LAR_ESCHEMA names each difference);
 * collects in added the classes that are new. */
int diff_schema(const lar_schema *stored, const lar_class_def *classes, size_t class_count,
                uint64_t version, const lar_class_def **added, uint32_t *added_count);

#endif
