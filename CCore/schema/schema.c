/* Schemas in a file: applying class definitions in a write transaction, and
 * looking classes and properties up. */
#include "schema/schema.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>

/* ---- applying ---- */

static int put_meta(lar_txn *txn, const char *name, const void *bytes, size_t size)
{
    kv_val key = {strlen(name), (void *)name}, data = {size, (void *)bytes};
    return txn_put(txn, txn->env->meta_dbi, &key, &data, 0);
}

static bool adds_links(const lar_class_def **added, uint32_t added_count)
{
    for (uint32_t c = 0; c < added_count; c++)
        for (size_t i = 0; i < added[c]->property_count; i++)
            if (property_may_link(&added[c]->properties[i])) return true;
    return false;
}

static bool adds_collections(const lar_class_def **added, uint32_t added_count)
{
    for (uint32_t c = 0; c < added_count; c++)
        for (size_t i = 0; i < added[c]->property_count; i++)
            if (added[c]->properties[i].collection || added[c]->properties[i].type == LAR_TYPE_MIXED)
                return true; /* mixed values hold nested collections */
    return false;
}

/* Stores the stored classes plus the new ones, and creates the new classes' tables. */
static int store_schema(lar_txn *txn, const lar_class_def **added, uint32_t added_count, uint64_t version)
{
    const lar_schema *old = txn->schema;
    uint32_t total = old->class_count + added_count;
    if (total > MAX_CLASSES) return lar_fail(LAR_EBUSY, "a database holds at most %d classes", MAX_CLASSES);
    schema_class *classes = calloc(total ? total : 1, sizeof *classes);
    if (!classes) return lar_fail(LAR_ENOMEM, "out of memory storing the schema");
    if (old->class_count) memcpy(classes, old->classes, old->class_count * sizeof *classes);
    int err = LAR_OK;
    uint32_t built = 0;
    for (; built < added_count && !err; built++)
        err = class_from_def(added[built], &classes[old->class_count + built]);
    if (err) built--;
    byte_buffer blob = {0};
    if (!err) err = serialize(classes, total, &blob);
    uint64_t generation = old->generation + 1;
    if (!err) err = put_meta(txn, META_SCHEMA, blob.data, blob.size);
    if (!err) err = put_meta(txn, META_GENERATION, &generation, sizeof generation);
    if (!err) err = put_meta(txn, META_SCHEMA_VERSION, &version, sizeof version);
    for (uint32_t c = old->class_count; !err && c < total; c++) err = txn_create_object_table(txn, c);
    if (!err && !old->has_links && adds_links(added, added_count)) err = txn_create_backlink_table(txn);
    if (!err && !old->has_collections && adds_collections(added, added_count)) err = txn_create_collection_table(txn);
    buffer_free(&blob);
    for (uint32_t i = 0; i < built; i++) class_clear(&classes[old->class_count + i]);
    free(classes);
    return err;
}

/* Inside the caller's write: its later calls must see the new classes before the commit. */
static int adopt_in_txn(lar_txn *txn)
{
    lar_schema *fresh;
    pthread_mutex_lock(&txn->env->mutex); /* schema_load opens tables: never concurrently */
    int err = schema_load(txn->mdb, txn->env->meta_dbi, &fresh);
    pthread_mutex_unlock(&txn->env->mutex);
    if (err) return err;
    fresh->older = txn->own_schema;
    txn->own_schema = fresh;
    txn->schema = fresh;
    return LAR_OK;
}

int schema_apply_in(lar_txn *txn, const lar_class_def *classes, size_t class_count, uint64_t schema_version,
                    const lar_class_def **added)
{
    uint32_t added_count = 0;
    int err = txn_check(txn, true);
    if (!err) err = check_link_targets(txn->schema, classes, class_count);
    if (!err) err = diff_schema(txn->schema, classes, class_count, schema_version, added, &added_count);
    if (err || (added_count == 0 && schema_version == txn->schema->version)) return err;
    err = store_schema(txn, added, added_count, schema_version);
    if (!err) err = adopt_in_txn(txn);
    /* Half a schema (stored without its tables, or not yet loaded) must never commit. */
    if (err) txn_poison(txn);
    return err;
}

static int apply_alone(lar_env *env, const lar_class_def *classes, size_t class_count, uint64_t schema_version,
                       const lar_class_def **added)
{
    lar_txn *txn;
    int err = lar_txn_begin(env, LAR_TXN_WRITE, &txn);
    if (err) return err;
    err = schema_apply_in(txn, classes, class_count, schema_version, added);
    if (!err) err = lar_txn_commit(txn);
    lar_txn_free(txn);
    return err;
}

int lar_schema_apply(lar_env *env, const lar_class_def *classes, size_t class_count,
                     uint64_t schema_version)
{
    if (!env || (class_count && !classes))
        return lar_fail(LAR_EINVAL, "lar_schema_apply: env and classes must not be NULL");
    int err = validate_all(classes, class_count);
    if (err) return err;
    const lar_class_def **added = calloc(class_count ? class_count : 1, sizeof *added);
    if (!added) return lar_fail(LAR_ENOMEM, "out of memory applying the schema");
    lar_txn *own = env_own_write(env);
    if (own) {
        err = schema_apply_in(own, classes, class_count, schema_version, added);
    } else {
        /* Its own write: one that filled the map runs again once the map has grown. */
        size_t map_size = env_map_size(env);
        while ((err = apply_alone(env, classes, class_count, schema_version, added)) == LAR_EMAPFULL &&
               env_map_size(env) > map_size)
            map_size = env_map_size(env);
    }
    free(added);
    return err;
}

/* ---- lookups ---- */

int lar_class_find(lar_env *env, const char *name, lar_class *out)
{
    if (!env || !name || !out) return lar_fail(LAR_EINVAL, "lar_class_find: NULL argument");
    lar_schema *schema;
    int err = env_current_schema(env, &schema);
    if (err) return err;
    const schema_class *cls = find_class(schema, name);
    if (!cls) return lar_fail(LAR_ENOTFOUND, "no class named '%s'", name);
    *out = (lar_class)(cls - schema->classes);
    return LAR_OK;
}

static int class_for(lar_env *env, lar_class cls, const schema_class **out)
{
    lar_schema *schema;
    int err = env_current_schema(env, &schema);
    if (err) return err;
    *out = schema_class_at(schema, cls);
    return *out ? LAR_OK : lar_fail(LAR_EINVAL, "unknown class %u", cls);
}

int lar_class_info_get(lar_env *env, lar_class cls, lar_class_info *out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_class_info_get: NULL argument");
    const schema_class *c;
    int err = class_for(env, cls, &c);
    if (err) return err;
    out->name = c->name;
    out->property_count = c->property_count;
    out->primary_key = c->primary_key;
    out->flags = c->flags;
    return LAR_OK;
}

int lar_property_find(lar_env *env, lar_class cls, const char *name, uint32_t *out)
{
    if (!env || !name || !out) return lar_fail(LAR_EINVAL, "lar_property_find: NULL argument");
    const schema_class *c;
    int err = class_for(env, cls, &c);
    if (err) return err;
    for (uint32_t i = 0; i < c->property_count; i++) {
        if (!strcmp(c->properties[i].def.name, name)) {
            *out = i;
            return LAR_OK;
        }
    }
    return lar_fail(LAR_ENOTFOUND, "class '%s' has no property named '%s'", c->name, name);
}

int lar_property_info_get(lar_env *env, lar_class cls, uint32_t prop, lar_property_def *out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_property_info_get: NULL argument");
    const schema_class *c;
    int err = class_for(env, cls, &c);
    if (err) return err;
    if (prop >= c->property_count)
        return lar_fail(LAR_EINVAL, "class '%s' has no property %u", c->name, prop);
    *out = c->properties[prop].def;
    return LAR_OK;
}
