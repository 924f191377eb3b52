/* The public query functions: parse, bind, describe, free; and the query's arena. */
#include "query/query.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct arena_block {
    arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void *arena_alloc(arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        /* A small first block keeps a small query's plan (compile.c: one per run)
         * off glibc's large-request path, where a malloc consolidates the fast bins. */
        size_t block = !b && a->small_start ? 960 : 4000;
        size_t want = size > block ? size : block;
        b = malloc(sizeof *b + want);
        if (!b) return NULL;
        b->size = want;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *copy = arena_alloc(a, n + 1);
    if (!copy) return NULL;
    if (n) memcpy(copy, s, n);
    copy[n] = 0;
    return copy;
}

void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

void lar_query_free(lar_query *query)
{
    if (!query) return;
    query_builder_free(query);
    query_values_free(query);
    arena_free(&query->arena);
    free(query);
}

int lar_query_parse(lar_env *env, lar_class cls, const char *text, lar_query **out)
{
    if (out) *out = NULL;
    if (!env || !text || !out) return lar_fail(LAR_EINVAL, "lar_query_parse: NULL argument");
    lar_class_info info;
    if (lar_class_info_get(env, cls, &info) != LAR_OK)
        return lar_fail(LAR_EINVAL, "lar_query_parse: unknown class %u", (unsigned)cls);
    lar_query *q = calloc(1, sizeof *q);
    if (!q) return lar_fail(LAR_ENOMEM, "out of memory");
    q->env = env;
    q->cls = cls;
    return query_parse_new(q, text, out);
}

int query_parse_new(lar_query *q, const char *text, lar_query **out)
{
    size_t n = strlen(text);
    int rc = utf8_valid(text, n) ? LAR_OK : lar_fail(LAR_EINVAL, "query text is not valid UTF-8");
    if (rc == LAR_OK) {
        q->text = arena_strndup(&q->arena, text, n);
        rc = q->text ? query_parse_text(q) : lar_fail(LAR_ENOMEM, "out of memory");
    }
    if (rc == LAR_OK && q->arg_count) {
        q->args = arena_alloc(&q->arena, (size_t)q->arg_count * sizeof *q->args);
        if (!q->args) rc = lar_fail(LAR_ENOMEM, "out of memory");
    }
    if (rc == LAR_OK && !q->has_keypath_args) rc = query_resolve(q);
    if (rc != LAR_OK) {
        lar_query_free(q);
        return rc;
    }
    *out = q;
    return LAR_OK;
}

int lar_query_argument_count(const lar_query *query, size_t *out)
{
    if (!query || !out) return lar_fail(LAR_EINVAL, "lar_query_argument_count: NULL argument");
    *out = (size_t)query->arg_count;
    return LAR_OK;
}

int query_copy_value(lar_query *q, const lar_value *in, lar_value *out, const char *what)
{
    *out = *in;
    switch (in->type) {
    case LAR_TYPE_NULL: case LAR_TYPE_INT: case LAR_TYPE_BOOL: case LAR_TYPE_FLOAT:
    case LAR_TYPE_DOUBLE: case LAR_TYPE_TIMESTAMP: case LAR_TYPE_OBJECT_ID: case LAR_TYPE_UUID:
    case LAR_TYPE_DECIMAL128: case LAR_TYPE_LINK:
        return LAR_OK;
    case LAR_TYPE_STRING:
        if (!in->as.string.data && in->as.string.size)
            return lar_fail(LAR_EINVAL, "%s: a string with NULL data", what);
        if (in->as.string.size >= UINT32_MAX) /* as a stored value's; and before data + size is formed */
            return lar_fail(LAR_EINVAL, "%s: a string of %zu bytes is too long", what, in->as.string.size);
        if (in->as.string.size && !utf8_valid(in->as.string.data, in->as.string.size))
            return lar_fail(LAR_EINVAL, "%s: a string that is not valid UTF-8", what);
        out->as.string.data = arena_strndup(&q->arena, in->as.string.data, in->as.string.size);
        return out->as.string.data ? LAR_OK : lar_fail(LAR_ENOMEM, "out of memory");
    case LAR_TYPE_BINARY:
        if (!in->as.binary.data && in->as.binary.size)
            return lar_fail(LAR_EINVAL, "%s: a binary with NULL data", what);
        if (in->as.binary.size >= UINT32_MAX)
            return lar_fail(LAR_EINVAL, "%s: a binary of %zu bytes is too long", what, in->as.binary.size);
        out->as.binary.data = arena_strndup(&q->arena, in->as.binary.data, in->as.binary.size);
        return out->as.binary.data ? LAR_OK : lar_fail(LAR_ENOMEM, "out of memory");
    default:
        return lar_fail(LAR_EINVAL, "%s: a value of type %s cannot be in a query",
                        what, type_name(in->type));
    }
}

/* Whether a is a valid value of the type b holds, so that binding it resolves as b did:
 * resolution checks a value argument by its type alone (value_checked_args says when not). */
static bool same_type_value(const bound_arg *b, const lar_query_arg *a)
{
    if (b->kind != LAR_QUERY_ARG_VALUE || a->kind != LAR_QUERY_ARG_VALUE || a->value.type != b->value.type) return false;
    switch (a->value.type) {
    case LAR_TYPE_STRING:
        if (!a->value.as.string.size) return true;
        return a->value.as.string.data && a->value.as.string.size < UINT32_MAX &&
               utf8_valid(a->value.as.string.data, a->value.as.string.size);
    case LAR_TYPE_BINARY: return (a->value.as.binary.data && a->value.as.binary.size < UINT32_MAX) || !a->value.as.binary.size;
    case LAR_TYPE_LINK: return false;
    default: return true;
    }
}

/* Copies the bytes of v (a string or binary) over old (the bound copy, old_size + 1
 * bytes in the arena) when they fit, else into the arena. */
static const void *copy_bytes(lar_query *q, void *old, size_t old_size, const void *data, size_t size)
{
    if (!old || size > old_size) return arena_strndup(&q->arena, data, size);
    if (size) memmove(old, data, size); /* the caller may pass the bound bytes back */
    ((char *)old)[size] = 0;
    return old;
}

/* Binds values of the types already bound without resolving again (resolution reads
 * the schema and checks each argument's type: it would find the same). A query probed
 * once per value (`name == $0`) is rebound this way. False: bind in full. */
static bool rebind_values(lar_query *q, const lar_query_arg *args, size_t count)
{
    if (!q->resolved || q->has_keypath_args || q->value_checked_args) return false;
    for (size_t i = 0; i < count; i++)
        if (!same_type_value(&q->args[i], &args[i])) return false;
    for (size_t i = 0; i < count; i++) {
        lar_value *b = &q->args[i].value;
        const lar_value *a = &args[i].value;
        if (a->type == LAR_TYPE_STRING) {
            const char *data = copy_bytes(q, (char *)b->as.string.data, b->as.string.size, a->as.string.data,
                                          a->as.string.size);
            if (!data) return false;
            b->as.string = (lar_string){data, a->as.string.size};
        } else if (a->type == LAR_TYPE_BINARY) {
            const void *data = copy_bytes(q, (void *)b->as.binary.data, b->as.binary.size, a->as.binary.data,
                                          a->as.binary.size);
            if (!data) return false;
            b->as.binary = (lar_binary){data, a->as.binary.size};
        } else {
            *b = *a;
        }
    }
    return true;
}

int lar_query_bind(lar_query *query, const lar_query_arg *args, size_t count)
{
    if (!query || (!args && count)) return lar_fail(LAR_EINVAL, "lar_query_bind: NULL argument");
    if (!query->root) return lar_fail(LAR_EINVAL, "lar_query_bind: the query is not finished (lar_query_finish)");
    if (count != (size_t)query->arg_count)
        return lar_fail(LAR_EINVAL, "the query takes %ld arguments, %zu given", query->arg_count, count);
    if (count && rebind_values(query, args, count)) return LAR_OK;
    int rc = LAR_OK;
    for (size_t i = 0; i < count && rc == LAR_OK; i++) {
        bound_arg *b = &query->args[i];
        memset(b, 0, sizeof *b);
        const lar_query_arg *a = &args[i];
        char what[32];
        snprintf(what, sizeof what, "argument %zu", i);
        switch (a->kind) {
        case LAR_QUERY_ARG_VALUE:
            rc = query_copy_value(query, &a->value, &b->value, what);
            break;
        case LAR_QUERY_ARG_LIST:
            if (!a->list && a->list_count) {
                rc = lar_fail(LAR_EINVAL, "argument %zu: a list with NULL values", i);
                break;
            }
            if (a->list_count > SIZE_MAX / sizeof(lar_value) / 2) {
                rc = lar_fail(LAR_EINVAL, "argument %zu: a list too long", i);
                break;
            }
            b->list = a->list_count ? arena_alloc(&query->arena, a->list_count * sizeof *b->list) : NULL;
            if (a->list_count && !b->list) rc = lar_fail(LAR_ENOMEM, "out of memory");
            for (size_t j = 0; j < a->list_count && rc == LAR_OK; j++) rc = query_copy_value(query, &a->list[j], &b->list[j], what);
            b->list_count = a->list_count;
            break;
        case LAR_QUERY_ARG_KEYPATH:
            if (!a->keypath) {
                rc = lar_fail(LAR_EINVAL, "argument %zu: a NULL key path", i);
                break;
            }
            if (!utf8_valid(a->keypath, strlen(a->keypath))) {
                rc = lar_fail(LAR_EINVAL, "argument %zu: a key path that is not valid UTF-8", i);
                break;
            }
            b->path_text = arena_strndup(&query->arena, a->keypath, strlen(a->keypath));
            rc = b->path_text ? query_parse_keypath(query, b->path_text, &b->path) : lar_fail(LAR_ENOMEM, "out of memory");
            if (rc != LAR_OK) {
                /* Name the argument in the message the key path parser wrote. */
                char message[400];
                snprintf(message, sizeof message, "%s", lar_error_last()->message);
                rc = lar_fail(rc, "in key path argument %zu \"%s\": %s", i, a->keypath, message);
            }
            break;
        default:
            rc = lar_fail(LAR_EINVAL, "argument %zu: unknown kind %d", i, (int)a->kind);
        }
        if (rc == LAR_OK) b->kind = (int)a->kind;
    }
    if (rc == LAR_OK) rc = query_resolve(query);
    if (rc != LAR_OK) {
        for (long i = 0; i < query->arg_count; i++) memset(&query->args[i], 0, sizeof query->args[i]);
        query->resolved = !query->has_keypath_args;
        if (query->resolved) {
            /* Back to the unbound state, resolved as parse left it. */
            int saved = rc;
            char message[512];
            snprintf(message, sizeof message, "%s", lar_error_last()->message);
            query_resolve(query);
            lar_fail(saved, "%s", message);
        }
    }
    return rc;
}

int lar_query_describe(const lar_query *query, char *buffer, size_t size, size_t *length,
                       unsigned int flags)
{
    if (length) *length = 0;
    if (!query || (!buffer && size)) return lar_fail(LAR_EINVAL, "lar_query_describe: NULL argument");
    if (!query->root) return lar_fail(LAR_EINVAL, "lar_query_describe: the query is not finished (lar_query_finish)");
    text_out o = {buffer, size, 0};
    query_describe(query, &o, flags);
    if (size) buffer[o.length < size ? o.length : size - 1] = 0;
    if (length) *length = o.length;
    if (o.length >= size)
        return lar_fail(LAR_EINVAL, "the description needs %zu bytes, the buffer has %zu", o.length + 1, size);
    return LAR_OK;
}
