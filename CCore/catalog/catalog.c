/* The catalog: class definitions, their validation, their layout in rows and
 * their stored form. Pure data: nothing here reads or writes the file.
 *
 * The stored schema is one record in the metadata table:
 *   u32 class count, then per class: str name, u32 flags, u32 property count,
 *   then per property: str name, u8 type, u8 collection, u32 flags,
 *   str target class, str origin property
 * where str is a u32 length and the bytes (length 0xFFFFFFFF for none).
 * A class's id is its position in that list. */
#include "catalog/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROPERTIES 65535
#define MAX_NAME 1024
#define NO_STRING UINT32_MAX

uint32_t slot_size_of(const lar_property_def *def)
{
    if (def->collection != LAR_COLLECTION_NONE) return 8; /* a reference to the collection's table */
    switch (def->type) {
    case LAR_TYPE_BOOL: return 1;
    case LAR_TYPE_FLOAT: return 4;
    case LAR_TYPE_INT: case LAR_TYPE_DOUBLE: case LAR_TYPE_LINK: return 8;
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: return 8; /* u32 offset, u32 length */
    case LAR_TYPE_TIMESTAMP: case LAR_TYPE_OBJECT_ID: return 12;
    case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: return 16;
    case LAR_TYPE_MIXED: return 17; /* a type tag and an inline value or a var-area reference (codec/row.c) */
    default: return 0;              /* linking objects are computed, not stored */
    }
}

bool key_type_is_indexable(lar_type type)
{
    return type == LAR_TYPE_INT || type == LAR_TYPE_BOOL || type == LAR_TYPE_STRING ||
           type == LAR_TYPE_TIMESTAMP || type == LAR_TYPE_OBJECT_ID || type == LAR_TYPE_UUID;
}

bool key_type_is_primary(lar_type type)
{
    return type == LAR_TYPE_INT || type == LAR_TYPE_STRING || type == LAR_TYPE_OBJECT_ID ||
           type == LAR_TYPE_UUID;
}

/* ---- memory ---- */

void class_clear(schema_class *cls)
{
    for (uint32_t i = 0; i < cls->property_count; i++) {
        free((char *)cls->properties[i].def.name);
        free((char *)cls->properties[i].def.target_class);
        free((char *)cls->properties[i].def.origin_property);
    }
    free(cls->properties);
    free(cls->plan);
    free(cls->name);
}

void schema_free(lar_schema *schema)
{
    while (schema) {
        lar_schema *older = schema->older;
        for (uint32_t i = 0; i < schema->class_count; i++) class_clear(&schema->classes[i]);
        free(schema->classes);
        free(schema);
        schema = older;
    }
}

const schema_class *schema_class_at(const lar_schema *schema, lar_class cls)
{
    return cls < schema->class_count ? &schema->classes[cls] : NULL;
}

static char *copy_string(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Computes the row layout and the key facts of a class whose properties are set. */
static int class_finish(schema_class *cls)
{
    cls->plan = calloc(cls->property_count ? cls->property_count : 1, sizeof *cls->plan);
    if (!cls->plan) return lar_fail(LAR_ENOMEM, "out of memory laying out class '%s'", cls->name);
    uint32_t offset = 0;
    cls->primary_key = -1;
    cls->has_indexes = false;
    cls->has_optional = false;
    cls->all_wide_numbers = true;
    cls->has_var = false;
    cls->has_links = false;
    cls->has_collections = false;
    cls->has_cascades = false;
    for (uint32_t i = 0; i < cls->property_count; i++) {
        schema_property *p = &cls->properties[i];
        p->slot_offset = offset;
        p->slot_size = slot_size_of(&p->def);
        offset += p->slot_size;
        if (p->def.flags & LAR_PROP_PRIMARY_KEY) cls->primary_key = (int32_t)i;
        else if (p->def.flags & LAR_PROP_INDEXED) cls->has_indexes = true;
        if (p->def.flags & LAR_PROP_OPTIONAL) cls->has_optional = true;
        if ((p->def.type != LAR_TYPE_INT && p->def.type != LAR_TYPE_DOUBLE) || p->def.collection ||
            (p->def.flags & LAR_PROP_OPTIONAL))
            cls->all_wide_numbers = false;
        bool mixed = p->def.type == LAR_TYPE_MIXED;
        if ((p->def.type == LAR_TYPE_STRING || p->def.type == LAR_TYPE_BINARY || mixed) && !p->def.collection)
            cls->has_var = true;
        if ((p->def.type == LAR_TYPE_LINK || mixed) && !p->def.collection) cls->has_links = true;
        if (p->def.collection || mixed) cls->has_collections = true; /* mixed: nested collections */
        if (p->def.flags & LAR_PROP_CASCADE) cls->has_cascades = true;
        cls->plan[i].offset = p->slot_offset;
        cls->plan[i].type = p->def.collection == LAR_COLLECTION_NONE ? p->def.type : LAR_TYPE_NULL;
    }
    /* Embedded classes have no primary key (checked above); excluded here as well so that
     * a row never carries both a stamp and an owner trailer (codec/row.c). */
    cls->keyed_by_primary = cls->primary_key >= 0 && !(cls->flags & LAR_CLASS_EMBEDDED) &&
                            cls->properties[cls->primary_key].def.type == LAR_TYPE_INT;
    cls->stamp_at = offset;
    if (cls->keyed_by_primary) offset += ROW_STAMP_SIZE;
    cls->fixed_size = offset;
    cls->var_at = offset + (cls->has_optional ? (cls->property_count + 7) / 8 : 0);
    return LAR_OK;
}

int class_from_def(const lar_class_def *def, schema_class *out)
{
    memset(out, 0, sizeof *out);
    out->name = strdup(def->name);
    out->flags = def->flags;
    out->properties = calloc(def->property_count ? def->property_count : 1, sizeof *out->properties);
    if (!out->name || !out->properties) {
        class_clear(out);
        return lar_fail(LAR_ENOMEM, "out of memory copying class '%s'", def->name);
    }
    for (size_t i = 0; i < def->property_count; i++) {
        lar_property_def *p = &out->properties[i].def;
        *p = def->properties[i];
        p->name = strdup(def->properties[i].name);
        p->target_class = copy_string(def->properties[i].target_class);
        p->origin_property = copy_string(def->properties[i].origin_property);
        out->property_count++;
        if (!p->name || (def->properties[i].target_class && !p->target_class) ||
            (def->properties[i].origin_property && !p->origin_property)) {
            class_clear(out);
            return lar_fail(LAR_ENOMEM, "out of memory copying class '%s'", def->name);
        }
    }
    int err = class_finish(out);
    if (err) class_clear(out);
    return err;
}

/* ---- the stored form ---- */

static int put_string(byte_buffer *b, const char *s)
{
    uint32_t size = s ? (uint32_t)strlen(s) : NO_STRING;
    int err = buffer_append(b, &size, 4);
    return err || !s ? err : buffer_append(b, s, size);
}

int serialize(const schema_class *classes, uint32_t count, byte_buffer *b)
{
    int err = buffer_append(b, &count, 4);
    for (uint32_t c = 0; !err && c < count; c++) {
        const schema_class *cls = &classes[c];
        err = put_string(b, cls->name);
        if (!err) err = buffer_append(b, &cls->flags, 4);
        if (!err) err = buffer_append(b, &cls->property_count, 4);
        for (uint32_t i = 0; !err && i < cls->property_count; i++) {
            const lar_property_def *p = &cls->properties[i].def;
            uint8_t type = (uint8_t)p->type, collection = (uint8_t)p->collection;
            uint32_t flags = p->flags;
            err = put_string(b, p->name);
            if (!err) err = buffer_append(b, &type, 1);
            if (!err) err = buffer_append(b, &collection, 1);
            if (!err) err = buffer_append(b, &flags, 4);
            if (!err) err = put_string(b, p->target_class);
            if (!err) err = put_string(b, p->origin_property);
        }
    }
    return err ? lar_fail(LAR_ENOMEM, "out of memory storing the schema") : LAR_OK;
}

typedef struct reader {
    const uint8_t *at, *end;
    bool bad;
} reader;

static void take(reader *r, void *out, size_t size)
{
    if (r->bad || (size_t)(r->end - r->at) < size) {
        r->bad = true;
        memset(out, 0, size);
        return;
    }
    memcpy(out, r->at, size);
    r->at += size;
}

static char *take_string(reader *r)
{
    uint32_t size;
    take(r, &size, 4);
    if (r->bad || size == NO_STRING) return NULL;
    if ((size_t)(r->end - r->at) < size) {
        r->bad = true;
        return NULL;
    }
    char *s = strndup((const char *)r->at, size);
    if (!s) r->bad = true;
    r->at += size;
    return s;
}

static void parse_class(reader *r, schema_class *cls)
{
    cls->name = take_string(r);
    take(r, &cls->flags, 4);
    uint32_t count;
    take(r, &count, 4);
    if (r->bad || !cls->name || count > MAX_PROPERTIES) {
        r->bad = true;
        return;
    }
    cls->properties = calloc(count ? count : 1, sizeof *cls->properties);
    if (!cls->properties) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < count && !r->bad; i++) {
        lar_property_def *p = &cls->properties[i].def;
        uint8_t type, collection;
        uint32_t flags;
        cls->property_count++;
        p->name = take_string(r);
        take(r, &type, 1);
        take(r, &collection, 1);
        take(r, &flags, 4);
        p->type = (lar_type)type;
        p->collection = (lar_collection)collection;
        p->flags = flags;
        p->target_class = take_string(r);
        p->origin_property = take_string(r);
        if (!p->name) r->bad = true;
    }
    if (!r->bad && class_finish(cls)) r->bad = true;
}

/* Holds the stored classes to the rules lar_schema_apply() enforces: the row code relies
 * on them, and only damage breaks them. */
static int check_stored(const lar_schema *schema)
{
    lar_class_def *defs = calloc(schema->class_count ? schema->class_count : 1, sizeof *defs);
    int err = defs ? LAR_OK : lar_fail(LAR_ENOMEM, "out of memory loading the schema");
    for (uint32_t c = 0; !err && c < schema->class_count; c++) {
        const schema_class *cls = &schema->classes[c];
        lar_property_def *props = calloc(cls->property_count ? cls->property_count : 1, sizeof *props);
        if (!props) err = lar_fail(LAR_ENOMEM, "out of memory loading the schema");
        for (uint32_t i = 0; props && i < cls->property_count; i++) props[i] = cls->properties[i].def;
        defs[c] = (lar_class_def){cls->name, props, cls->property_count, cls->flags};
    }
    if (!err) err = validate_all(defs, schema->class_count);
    if (!err) err = check_link_targets(NULL, defs, schema->class_count);
    if (err && err != LAR_ENOMEM) {
        char why[400];
        snprintf(why, sizeof why, "%s", lar_error_last()->message);
        err = lar_fail(LAR_ECORRUPT, "the stored schema breaks the schema rules: %s", why);
    }
    for (uint32_t c = 0; defs && c < schema->class_count; c++) free((void *)defs[c].properties);
    free(defs);
    return err;
}

/* Turns link targets' names into class ids (check_stored has made sure they exist)
 * and notes which tables the schema needs. */
static void resolve_links(lar_schema *schema)
{
    bool mixed = false;
    for (uint32_t c = 0; c < schema->class_count; c++) {
        schema_class *cls = &schema->classes[c];
        schema->has_collections |= cls->has_collections;
        for (uint32_t i = 0; i < cls->property_count; i++) {
            schema_property *p = &cls->properties[i];
            mixed |= p->def.type == LAR_TYPE_MIXED;
            if (!property_links(&p->def)) continue;
            const schema_class *target = find_class(schema, p->def.target_class);
            p->target = (lar_class)(target - schema->classes);
            p->embeds = (target->flags & LAR_CLASS_EMBEDDED) != 0;
            schema->classes[p->target].is_link_target = true;
            schema->has_links = true;
        }
    }
    if (!mixed) return;
    /* A mixed value may link to an object of any class. */
    schema->has_links = true;
    for (uint32_t c = 0; c < schema->class_count; c++) schema->classes[c].is_link_target = true;
}

int parse(const void *data, size_t size, lar_schema *schema)
{
    reader r = {data, (const uint8_t *)data + size, false};
    uint32_t count;
    take(&r, &count, 4);
    if (r.bad || count > MAX_CLASSES) return lar_fail(LAR_ECORRUPT, "the stored schema is undecodable");
    schema->classes = calloc(count ? count : 1, sizeof *schema->classes);
    if (!schema->classes) return lar_fail(LAR_ENOMEM, "out of memory loading the schema");
    for (uint32_t c = 0; c < count && !r.bad; c++) {
        schema->class_count++;
        parse_class(&r, &schema->classes[c]);
    }
    if (r.bad) return lar_fail(LAR_ECORRUPT, "the stored schema is undecodable");
    int err = check_stored(schema);
    if (!err) resolve_links(schema);
    return err;
}

/* ---- validation and differences ---- */

static int check_name(const char *name, const char *what, const char *owner)
{
    if (!name || !*name) return lar_fail(LAR_EINVAL, "%s%s has no name", what, owner);
    size_t size = strlen(name);
    if (size > MAX_NAME || !utf8_valid(name, size))
        return lar_fail(LAR_EINVAL, "%s name in '%s' is too long or not valid UTF-8", what, owner);
    return LAR_OK;
}

/* Links: a target always; to-one links and map values may be null, list and set
 * elements may not (Realm's rules: List<Object?> and MutableSet<Object?> do not exist,
 * Map<String, Object> must be Map<String, Object?>). */
static int check_link_property(const lar_class_def *def, const lar_property_def *p)
{
    int err = check_name(p->target_class, "link target of class ", def->name);
    if (err) return lar_fail(err, "property '%s.%s' links to no class: its target_class must name one",
                             def->name, p->name);
    bool optional = (p->flags & LAR_PROP_OPTIONAL) != 0;
    if (p->collection == LAR_COLLECTION_NONE && !optional)
        return lar_fail(LAR_EINVAL, "property '%s.%s': a link to one object is always optional "
                        "(set LAR_PROP_OPTIONAL)", def->name, p->name);
    if (p->collection == LAR_COLLECTION_MAP && !optional)
        return lar_fail(LAR_EINVAL, "property '%s.%s': a map of objects must have optional values "
                        "(set LAR_PROP_OPTIONAL)", def->name, p->name);
    if ((p->collection == LAR_COLLECTION_LIST || p->collection == LAR_COLLECTION_SET) && optional)
        return lar_fail(LAR_EINVAL, "property '%s.%s': a %s of objects cannot hold null (clear "
                        "LAR_PROP_OPTIONAL)", def->name, p->name,
                        p->collection == LAR_COLLECTION_LIST ? "list" : "set");
    return LAR_OK;
}

static const char *collection_name(lar_collection collection)
{
    switch (collection) {
    case LAR_COLLECTION_LIST: return "list";
    case LAR_COLLECTION_SET: return "set";
    case LAR_COLLECTION_MAP: return "map";
    default: return "single value";
    }
}

static int check_property(const lar_class_def *def, size_t index)
{
    const lar_property_def *p = &def->properties[index];
    int err = check_name(p->name, "property of class ", def->name);
    if (err) return err;
    for (size_t j = 0; j < index; j++)
        if (!strcmp(def->properties[j].name, p->name))
            return lar_fail(LAR_EINVAL, "class '%s' has two properties named '%s'", def->name, p->name);
    if (p->type <= LAR_TYPE_NULL || p->type > LAR_TYPE_LINKING_OBJECTS ||
        (unsigned)p->collection > LAR_COLLECTION_MAP ||
        (p->flags & ~(LAR_PROP_OPTIONAL | LAR_PROP_PRIMARY_KEY | LAR_PROP_INDEXED | LAR_PROP_CASCADE)))
        return lar_fail(LAR_EINVAL, "property '%s.%s' has an unknown type, collection or flag",
                        def->name, p->name);
    if (p->type == LAR_TYPE_LINKING_OBJECTS)
        return lar_fail(LAR_ENOTSUP, "property '%s.%s': %s%s properties are not supported yet",
                        def->name, p->name, p->collection ? "collection of " : "", type_name(p->type));
    if (p->type == LAR_TYPE_MIXED && (p->flags & LAR_PROP_OPTIONAL)) /* Realm's rule */
        return lar_fail(LAR_EINVAL, "property '%s.%s': a mixed property cannot be optional, its null is a "
                        "value (clear LAR_PROP_OPTIONAL)", def->name, p->name);
    if ((p->flags & (LAR_PROP_PRIMARY_KEY | LAR_PROP_INDEXED)) &&
        (p->type == LAR_TYPE_LINK || p->collection != LAR_COLLECTION_NONE))
        return lar_fail(LAR_EINVAL, "property '%s.%s' (a %s of %s) cannot be a primary key or indexed",
                        def->name, p->name, collection_name(p->collection), type_name(p->type));
    if ((p->flags & LAR_PROP_CASCADE) && p->type != LAR_TYPE_LINK)
        return lar_fail(LAR_EINVAL, "property '%s.%s' (a %s of %s) cannot cascade deletes: only a link "
                        "or a collection of objects can (clear LAR_PROP_CASCADE)", def->name, p->name,
                        collection_name(p->collection), type_name(p->type));
    if (p->origin_property)
        return lar_fail(LAR_EINVAL, "property '%s.%s' has an origin_property, which only linking "
                        "objects have", def->name, p->name);
    if (p->type == LAR_TYPE_LINK) return check_link_property(def, p);
    if (p->target_class)
        return lar_fail(LAR_EINVAL, "property '%s.%s' of type %s has a target_class, which only "
                        "links have", def->name, p->name, type_name(p->type));
    if ((p->flags & LAR_PROP_PRIMARY_KEY) && !key_type_is_primary(p->type))
        return lar_fail(LAR_EINVAL, "property '%s.%s' of type %s cannot be a primary key", def->name,
                        p->name, type_name(p->type));
    if ((p->flags & LAR_PROP_INDEXED) && !key_type_is_indexable(p->type))
        return lar_fail(LAR_EINVAL, "property '%s.%s' of type %s cannot be indexed", def->name, p->name,
                        type_name(p->type));
    return LAR_OK;
}

static int check_class(const lar_class_def *classes, size_t index)
{
    const lar_class_def *def = &classes[index];
    int err = check_name(def->name, "class", "");
    if (err) return err;
    for (size_t j = 0; j < index; j++)
        if (!strcmp(classes[j].name, def->name))
            return lar_fail(LAR_EINVAL, "two classes are named '%s'", def->name);
    if (def->flags & ~LAR_CLASS_EMBEDDED) return lar_fail(LAR_EINVAL, "class '%s' has unknown flags", def->name);
    if (def->property_count > MAX_PROPERTIES || (def->property_count && !def->properties))
        return lar_fail(LAR_EINVAL, "class '%s' has a bad property list", def->name);
    int primary_keys = 0;
    for (size_t i = 0; i < def->property_count; i++) {
        if ((err = check_property(def, i))) return err;
        primary_keys += (def->properties[i].flags & LAR_PROP_PRIMARY_KEY) != 0;
    }
    if (primary_keys > 1) return lar_fail(LAR_EINVAL, "class '%s' has more than one primary key", def->name);
    for (size_t i = 0; (def->flags & LAR_CLASS_EMBEDDED) && i < def->property_count; i++) {
        const lar_property_def *p = &def->properties[i];
        if (p->flags & LAR_PROP_PRIMARY_KEY)
            return lar_fail(LAR_EINVAL, "embedded class '%s' cannot have a primary key ('%s')", def->name, p->name);
        if (p->flags & LAR_PROP_INDEXED)
            return lar_fail(LAR_EINVAL, "embedded class '%s' cannot have an indexed property ('%s')", def->name,
                            p->name);
    }
    return LAR_OK;
}

typedef struct difference_list {
    char text[480];
    size_t length;
    int count;
} difference_list;

static void note(difference_list *list, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void note(difference_list *list, const char *format, ...)
{
    if (list->length >= sizeof list->text - 1) return;
    if (list->count++) list->length += (size_t)snprintf(list->text + list->length,
                                                        sizeof list->text - list->length, "; ");
    if (list->length >= sizeof list->text - 1) return;
    va_list args;
    va_start(args, format);
    list->length += (size_t)vsnprintf(list->text + list->length, sizeof list->text - list->length, format, args);
    va_end(args);
    if (list->length > sizeof list->text - 1) list->length = sizeof list->text - 1;
}

static const lar_property_def *find_def(const lar_class_def *def, const char *name)
{
    for (size_t i = 0; i < def->property_count; i++)
        if (!strcmp(def->properties[i].name, name)) return &def->properties[i];
    return NULL;
}

static void compare_flag(difference_list *list, const schema_class *cls, const lar_property_def *old,
                         const lar_property_def *new, unsigned int flag, const char *what)
{
    if ((old->flags & flag) != (new->flags & flag))
        note(list, "property '%s.%s' %s %s", cls->name, old->name,
             (new->flags & flag) ? "became" : "is no longer", what);
}

static void compare_class(difference_list *list, const schema_class *cls, const lar_class_def *def)
{
    for (uint32_t i = 0; i < cls->property_count; i++) {
        const lar_property_def *old = &cls->properties[i].def;
        const lar_property_def *new = find_def(def, old->name);
        if (!new) {
            note(list, "property '%s.%s' was removed", cls->name, old->name);
            continue;
        }
        if (old->type != new->type || old->collection != new->collection)
            note(list, "property '%s.%s' changed type from %s of %s to %s of %s", cls->name, old->name,
                 collection_name(old->collection), type_name(old->type), collection_name(new->collection),
                 type_name(new->type));
        else if (old->type == LAR_TYPE_LINK && strcmp(old->target_class, new->target_class))
            note(list, "property '%s.%s' changed its target from '%s' to '%s'", cls->name, old->name,
                 old->target_class, new->target_class);
        compare_flag(list, cls, old, new, LAR_PROP_OPTIONAL, "optional");
        compare_flag(list, cls, old, new, LAR_PROP_PRIMARY_KEY, "the primary key");
        compare_flag(list, cls, old, new, LAR_PROP_INDEXED, "indexed");
        compare_flag(list, cls, old, new, LAR_PROP_CASCADE, "cascading");
    }
    for (size_t i = 0; i < def->property_count; i++) {
        bool known = false;
        for (uint32_t j = 0; j < cls->property_count && !known; j++)
            known = !strcmp(cls->properties[j].def.name, def->properties[i].name);
        if (!known) note(list, "property '%s.%s' was added", cls->name, def->properties[i].name);
    }
    if (cls->flags != def->flags) note(list, "class '%s' changed its embedded flag", cls->name);
}

const schema_class *find_class(const lar_schema *schema, const char *name)
{
    for (uint32_t c = 0; c < schema->class_count; c++)
        if (!strcmp(schema->classes[c].name, name)) return &schema->classes[c];
    return NULL;
}

int validate_all(const lar_class_def *classes, size_t class_count)
{
    if (class_count > MAX_CLASSES) return lar_fail(LAR_EBUSY, "a database holds at most %d classes", MAX_CLASSES);
    for (size_t c = 0; c < class_count; c++) {
        int err = check_class(classes, c);
        if (err) return err;
    }
    return LAR_OK;
}

static bool class_declared(const lar_schema *stored, const lar_class_def *classes, size_t class_count,
                           const char *name)
{
    for (size_t c = 0; c < class_count; c++)
        if (!strcmp(classes[c].name, name)) return true;
    return stored && find_class(stored, name);
}

/* Whether the class named name (declared in classes or stored) is embedded. */
static bool class_embedded(const lar_schema *stored, const lar_class_def *classes, size_t class_count,
                           const char *name)
{
    for (size_t c = 0; c < class_count; c++)
        if (!strcmp(classes[c].name, name)) return (classes[c].flags & LAR_CLASS_EMBEDDED) != 0;
    const schema_class *cls = stored ? find_class(stored, name) : NULL;
    return cls && (cls->flags & LAR_CLASS_EMBEDDED);
}

int check_link_targets(const lar_schema *stored, const lar_class_def *classes, size_t class_count)
{
    for (size_t c = 0; c < class_count; c++) {
        for (size_t i = 0; i < classes[c].property_count; i++) {
            const lar_property_def *p = &classes[c].properties[i];
            if (property_links(p) && !class_declared(stored, classes, class_count, p->target_class))
                return lar_fail(LAR_EINVAL, "property '%s.%s' links to class '%s', which does not exist",
                                classes[c].name, p->name, p->target_class);
            if (!property_links(p)) continue;
            bool target_embedded = class_embedded(stored, classes, class_count, p->target_class);
            if (target_embedded && p->collection == LAR_COLLECTION_SET)
                return lar_fail(LAR_EINVAL, "property '%s.%s': a set of embedded objects ('%s') is not supported",
                                classes[c].name, p->name, p->target_class);
            if ((classes[c].flags & LAR_CLASS_EMBEDDED) && !target_embedded)
                return lar_fail(LAR_EINVAL, "property '%s.%s' of embedded class '%s' links to class '%s', which is "
                                "not embedded: embedded objects may link only to embedded objects",
                                classes[c].name, p->name, classes[c].name, p->target_class);
        }
    }
    return LAR_OK;
}

/* Compares each class with the stored one; collects the classes that are new. */
int diff_schema(const lar_schema *stored, const lar_class_def *classes, size_t class_count,
                       uint64_t version, const lar_class_def **added, uint32_t *added_count)
{
    difference_list list = {{0}, 0, 0};
    if (version < stored->version)
        note(&list, "schema version %llu is older than the stored version %llu",
             (unsigned long long)version, (unsigned long long)stored->version);
    *added_count = 0;
    for (size_t c = 0; c < class_count; c++) {
        const schema_class *cls = find_class(stored, classes[c].name);
        if (cls) compare_class(&list, cls, &classes[c]);
        else added[(*added_count)++] = &classes[c];
    }
    if (list.count)
        return lar_fail(LAR_ESCHEMA, "the schema differs from the stored one (migrations are not "
                        "supported yet): %s", list.text);
    return LAR_OK;
}
