/* Values: which value fits which property, conversions, defaults and equality. */
#include "codec/codec.h"

#include <string.h>

static bool timestamp_valid(lar_timestamp t)
{
    if (t.nanoseconds <= -1000000000 || t.nanoseconds >= 1000000000) return false;
    return !((t.seconds > 0 && t.nanoseconds < 0) || (t.seconds < 0 && t.nanoseconds > 0));
}

int value_check(const schema_class *cls, uint32_t prop, const lar_value *value)
{
    const lar_property_def *def = &cls->properties[prop].def;
    if (def->collection) {
        if (value->type == LAR_TYPE_NULL) return LAR_OK; /* an empty collection */
        return lar_fail(LAR_ETYPE, "property '%s.%s' is a collection: give null (empty) and fill it "
                        "with its own functions", cls->name, def->name);
    }
    return value_check_element(cls, prop, value);
}

int value_check_element(const schema_class *cls, uint32_t prop, const lar_value *value)
{
    const lar_property_def *def = &cls->properties[prop].def;
    bool mixed = def->type == LAR_TYPE_MIXED;
    if (value->type == LAR_TYPE_NULL) {
        if ((def->flags & LAR_PROP_OPTIONAL) || mixed) return LAR_OK; /* null is a mixed value */
        return lar_fail(LAR_ETYPE, def->collection ? "property '%s.%s' cannot hold null elements"
                                                   : "property '%s.%s' is required and cannot be null",
                        cls->name, def->name);
    }
    bool numeric_alias = value->type == LAR_TYPE_INT &&
                         (def->type == LAR_TYPE_FLOAT || def->type == LAR_TYPE_DOUBLE);
    if (mixed) {
        /* Any scalar or a typed link; a link's class and target are checked by the
         * layers that see the schema (object and collection). */
        bool nested = value->type == LAR_TYPE_LIST || value->type == LAR_TYPE_DICTIONARY;
        if (nested && def->collection == LAR_COLLECTION_SET)
            return lar_fail(LAR_EINVAL, "set '%s.%s' cannot hold a nested %s: sets of mixed values hold "
                            "scalars and links only", cls->name, def->name,
                            value->type == LAR_TYPE_LIST ? "list" : "dictionary");
        if (nested) return LAR_OK; /* a new, empty nested collection */
        if ((unsigned)value->type > LAR_TYPE_LINK)
            return lar_fail(LAR_ETYPE, "property '%s.%s' holds mixed values: a value of type %s (%d) is "
                            "not one", cls->name, def->name, type_name(value->type), (int)value->type);
    } else if (value->type != def->type && !numeric_alias)
        return lar_fail(LAR_ETYPE, "property '%s.%s' holds %s values, not %s", cls->name, def->name,
                        type_name(def->type), type_name(value->type));
    switch (value->type) {
    case LAR_TYPE_STRING:
        if (!value->as.string.data && value->as.string.size)
            return lar_fail(LAR_EINVAL, "string for '%s.%s' has no data", cls->name, def->name);
        if (value->as.string.size >= UINT32_MAX)
            return lar_fail(LAR_EINVAL, "string for '%s.%s' is too long", cls->name, def->name);
        if (!utf8_valid(value->as.string.data, value->as.string.size))
            return lar_fail(LAR_EINVAL, "string for '%s.%s' is not valid UTF-8", cls->name, def->name);
        return LAR_OK;
    case LAR_TYPE_BINARY:
        if (!value->as.binary.data && value->as.binary.size)
            return lar_fail(LAR_EINVAL, "binary for '%s.%s' has no data", cls->name, def->name);
        if (value->as.binary.size >= UINT32_MAX)
            return lar_fail(LAR_EINVAL, "binary for '%s.%s' is too long", cls->name, def->name);
        return LAR_OK;
    case LAR_TYPE_TIMESTAMP:
        if (!timestamp_valid(value->as.timestamp))
            return lar_fail(LAR_EINVAL, "timestamp for '%s.%s' has nanoseconds out of range or of the "
                            "wrong sign", cls->name, def->name);
        return LAR_OK;
    case LAR_TYPE_INT: case LAR_TYPE_BOOL: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE:
    case LAR_TYPE_OBJECT_ID: case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128:
        return LAR_OK;
    case LAR_TYPE_LINK:
        if (!mixed && value->as.link.cls != cls->properties[prop].target)
            return lar_fail(LAR_ETYPE, "property '%s.%s' links to '%s' objects; this object is of "
                            "another class (%u)", cls->name, def->name, def->target_class,
                            value->as.link.cls);
        return LAR_OK;
    default:
        return lar_fail(LAR_ENOTSUP, "%s values are not supported yet", type_name(value->type));
    }
}

lar_value value_normalize(const lar_property_def *def, const lar_value *value)
{
    lar_value out = *value;
    if (value->type == LAR_TYPE_INT && def->type == LAR_TYPE_DOUBLE) {
        out.type = LAR_TYPE_DOUBLE;
        out.as.float64 = (double)value->as.integer;
    } else if (value->type == LAR_TYPE_INT && def->type == LAR_TYPE_FLOAT) {
        out.type = LAR_TYPE_FLOAT;
        out.as.float32 = (float)value->as.integer;
    } else if (value->type == LAR_TYPE_BOOL) {
        out.as.boolean = value->as.boolean != 0;
    }
    return out;
}

lar_value value_default(const lar_property_def *def)
{
    lar_value out;
    memset(&out, 0, sizeof out);
    /* A collection's default is empty, which its slot says with null. */
    out.type = (def->flags & LAR_PROP_OPTIONAL) || def->collection || def->type == LAR_TYPE_MIXED ? LAR_TYPE_NULL
                                                                                                  : def->type;
    if (out.type == LAR_TYPE_STRING) out.as.string.data = "";
    return out;
}

bool value_equal(const lar_value *a, const lar_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case LAR_TYPE_NULL: return true;
    case LAR_TYPE_INT: return a->as.integer == b->as.integer;
    case LAR_TYPE_BOOL: return (a->as.boolean != 0) == (b->as.boolean != 0);
    case LAR_TYPE_FLOAT: return a->as.float32 == b->as.float32;
    case LAR_TYPE_DOUBLE: return a->as.float64 == b->as.float64;
    case LAR_TYPE_STRING:
        return a->as.string.size == b->as.string.size &&
               (!a->as.string.size || !memcmp(a->as.string.data, b->as.string.data, a->as.string.size));
    case LAR_TYPE_BINARY:
        return a->as.binary.size == b->as.binary.size &&
               (!a->as.binary.size || !memcmp(a->as.binary.data, b->as.binary.data, a->as.binary.size));
    case LAR_TYPE_TIMESTAMP:
        return a->as.timestamp.seconds == b->as.timestamp.seconds &&
               a->as.timestamp.nanoseconds == b->as.timestamp.nanoseconds;
    case LAR_TYPE_OBJECT_ID: return !memcmp(&a->as.object_id, &b->as.object_id, sizeof a->as.object_id);
    case LAR_TYPE_UUID: return !memcmp(&a->as.uuid, &b->as.uuid, sizeof a->as.uuid);
    case LAR_TYPE_DECIMAL128:
        return a->as.decimal128.low == b->as.decimal128.low && a->as.decimal128.high == b->as.decimal128.high;
    case LAR_TYPE_LINK: return a->as.link.cls == b->as.link.cls && a->as.link.key == b->as.link.key;
    default: return false;
    }
}
