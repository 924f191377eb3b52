/* The element changes of sets and maps in the change log: read back
 * (lar_changes_set_elements, lar_changes_map_keys), and the change sets computed from
 * them agreeing with the snapshot compare over random operations. */
#include "test.h"

#include "changes/changes.h"

#include <stdlib.h>

/* Holder {a, b: Set<Mixed>, friends: Set<Pet>, pets: [String: Pet?], attrs: [String: String]}, Pet {name}. */
typedef struct holders {
    lar_env *env;
    lar_class holder, pet;
    uint32_t a, b, friends, pets, attrs, pet_name;
} holders;

static holders holders_setup(void)
{
    holders h;
    h.env = open_env(test_db_path(NULL));
    lar_property_def holder[] = {
        {"a", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"b", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"friends", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "Pet", NULL},
        {"pets", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Pet", NULL},
        {"attrs", LAR_TYPE_STRING, LAR_COLLECTION_MAP, 0, NULL, NULL},
    };
    lar_property_def pet[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Holder", holder), CLASS_DEF("Pet", pet)};
    CHECK_OK(lar_schema_apply(h.env, classes, COUNT_OF(classes), 1));
    h.holder = class_id(h.env, "Holder");
    h.pet = class_id(h.env, "Pet");
    h.a = prop_id(h.env, h.holder, "a");
    h.b = prop_id(h.env, h.holder, "b");
    h.friends = prop_id(h.env, h.holder, "friends");
    h.pets = prop_id(h.env, h.holder, "pets");
    h.attrs = prop_id(h.env, h.holder, "attrs");
    h.pet_name = prop_id(h.env, h.pet, "name");
    return h;
}

static uint64_t version_of(lar_txn *txn)
{
    uint64_t v;
    CHECK_OK(lar_txn_version(txn, &v));
    return v;
}

/* A random element of a set of mixed values: ints, doubles equal to some of them, strings. */
static lar_value random_mixed(char *text)
{
    int n = rand() % 24;
    if (n < 10) return val_int(n);
    if (n < 14) return (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = (double)(n - 10)};
    snprintf(text, 16, "s%d", n);
    return val_str(text);
}

static lar_value link_to(lar_obj obj)
{
    return (lar_value){.type = LAR_TYPE_LINK, .as.link = obj};
}

#define PETS 12

typedef struct world {
    holders h;
    lar_obj holder, pets[PETS];
    bool alive[PETS];
    bool cleared;             /* a set or map was cleared since the round began */
} world;

static lar_obj some_pet(lar_txn *txn, world *w)
{
    int i = rand() % PETS;
    if (!w->alive[i]) {
        lar_value name = val_str("p");
        CHECK_OK(lar_obj_create(txn, w->h.pet, &name, 1, &w->pets[i]));
        w->alive[i] = true;
    }
    return w->pets[i];
}

static void random_op(lar_txn *txn, world *w)
{
    const holders *h = &w->h;
    char text[16], name[16];
    snprintf(name, sizeof name, "k%d", rand() % 10);
    lar_string key = {name, strlen(name)};
    lar_value v = random_mixed(text);
    uint32_t set = rand() % 2 ? h->a : h->b;
    switch (rand() % 16) {
    case 0: case 1: case 2: CHECK_OK(lar_set_insert(txn, w->holder, set, &v, NULL)); break;
    case 3: CHECK_OK(lar_set_remove(txn, w->holder, set, &v, NULL)); break;
    case 4: CHECK_OK(lar_set_union(txn, w->holder, h->a, w->holder, h->b)); break;
    case 5: CHECK_OK(lar_set_intersect(txn, w->holder, set, w->holder, set == h->a ? h->b : h->a)); break;
    case 6: CHECK_OK(lar_set_subtract(txn, w->holder, set, w->holder, set == h->a ? h->b : h->a)); break;
    case 7:
        if (rand() % 4) break;
        CHECK_OK(rand() % 2 ? lar_set_clear(txn, w->holder, set) : lar_map_clear(txn, w->holder, h->attrs));
        w->cleared = true;
        break;
    case 8: {
        lar_value link = link_to(some_pet(txn, w));
        CHECK_OK(lar_set_insert(txn, w->holder, h->friends, &link, NULL));
        break;
    }
    case 9: {
        lar_value link = link_to(some_pet(txn, w));
        CHECK_OK(lar_set_remove(txn, w->holder, h->friends, &link, NULL));
        break;
    }
    case 10: {
        lar_value link = rand() % 4 ? link_to(some_pet(txn, w)) : (lar_value){.type = LAR_TYPE_NULL};
        CHECK_OK(lar_map_put(txn, w->holder, h->pets, &key, &link));
        break;
    }
    case 11: CHECK_OK(lar_map_remove(txn, w->holder, h->pets, &key, NULL)); break;
    case 12: { /* deleting a pet takes it out of friends and nulls its keys */
        int i = rand() % PETS;
        if (w->alive[i]) CHECK_OK(lar_obj_delete(txn, w->pets[i]));
        w->alive[i] = false;
        break;
    }
    case 13: { /* renaming one modifies the keys that link to it */
        int i = rand() % PETS;
        lar_value renamed = val_str(text[0] ? "q" : "r");
        if (w->alive[i] && rand() % 3 == 0) CHECK_OK(lar_obj_set(txn, w->pets[i], h->pet_name, &renamed));
        break;
    }
    case 14: {
        lar_value s = val_str(rand() % 2 ? "x" : "y");
        CHECK_OK(lar_map_put(txn, w->holder, h->attrs, &key, &s));
        break;
    }
    default: CHECK_OK(lar_map_remove(txn, w->holder, h->attrs, &key, NULL)); break;
    }
}

static void check_same_part(const lar_changeset *x, const lar_changeset *y, lar_changeset_part part)
{
    const size_t *a, *b;
    size_t na, nb;
    CHECK_OK(lar_changeset_get(x, part, &a, &na));
    CHECK_OK(lar_changeset_get(y, part, &b, &nb));
    CHECK_EQ(na, nb);
    for (size_t i = 0; i < na && i < nb; i++) CHECK_EQ(a[i], b[i]);
}

/* The element at position i of a set. */
static lar_value set_at(lar_txn *txn, lar_obj obj, uint32_t prop, size_t position)
{
    lar_value batch[16], after;
    size_t count, seen = 0;
    int rc;
    while ((rc = lar_set_list(txn, obj, prop, seen ? &after : NULL, batch, 16, &count)) == LAR_OK) {
        if (position < seen + count) return batch[position - seen];
        seen += count;
        after = batch[count - 1];
    }
    CHECK(false);
    return (lar_value){.type = LAR_TYPE_NULL};
}

static void check_set(world *w, lar_txn *before, lar_txn *after, const lar_changes *ch, uint32_t prop)
{
    lar_changeset *from_log, *from_snapshots;
    CHECK_OK(lar_set_changeset(before, after, ch, w->holder, prop, &from_log));
    CHECK_OK(lar_set_changeset(before, after, NULL, w->holder, prop, &from_snapshots));
    check_same_part(from_log, from_snapshots, LAR_CHANGESET_DELETIONS);
    check_same_part(from_log, from_snapshots, LAR_CHANGESET_INSERTIONS);
    lar_set_changes *sc;
    int rc = lar_changes_set_elements(after, ch, w->holder, prop, &sc);
    if (rc == LAR_ENOTFOUND) {
        CHECK(w->cleared);
    } else {
        CHECK_OK(rc);
        lar_txn *sides[2] = {before, after};
        for (int p = 0; p < 2; p++) { /* the values at the change set's positions */
            const lar_value *values;
            const size_t *positions;
            size_t count, positions_count;
            CHECK_OK(lar_set_changes_get(sc, (lar_changeset_part)p, &values, &count));
            CHECK_OK(lar_changeset_get(from_snapshots, (lar_changeset_part)p, &positions, &positions_count));
            CHECK_EQ(count, positions_count);
            for (size_t i = 0; i < count && i < positions_count; i++)
                CHECK_VALUE(values[i], set_at(sides[p], w->holder, prop, positions[i]));
        }
        lar_set_changes_free(sc);
    }
    lar_changeset_free(from_log);
    lar_changeset_free(from_snapshots);
}

static bool same_value(const lar_value *x, const lar_value *y)
{
    if (x->type != y->type) return false;
    if (x->type == LAR_TYPE_LINK) return x->as.link.cls == y->as.link.cls && x->as.link.key == y->as.link.key;
    if (x->type == LAR_TYPE_STRING)
        return x->as.string.size == y->as.string.size && !memcmp(x->as.string.data, y->as.string.data, x->as.string.size);
    return x->type == LAR_TYPE_NULL;
}

static bool has_key(const lar_map_changes *mc, lar_changeset_part part, const char *name)
{
    const lar_string *keys;
    size_t count;
    CHECK_OK(lar_map_changes_get(mc, part, &keys, &count));
    for (size_t i = 0; i < count; i++) {
        CHECK(!i || strcmp(keys[i - 1].data, keys[i].data) < 0); /* in key order */
        if (keys[i].size == strlen(name) && !memcmp(keys[i].data, name, keys[i].size)) return true;
    }
    return false;
}

/* Each key's part, brute force, against the map's changes from the log. */
static void check_map(world *w, lar_txn *before, lar_txn *after, const lar_changes *ch, uint32_t prop)
{
    lar_map_changes *mc, *logged = NULL;
    CHECK_OK(lar_map_changeset(before, after, ch, w->holder, prop, &mc));
    int rc = lar_changes_map_keys(after, ch, w->holder, prop, &logged);
    if (rc == LAR_ENOTFOUND) CHECK(w->cleared);
    else CHECK_OK(rc);
    for (int k = 0; k < 10; k++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", k);
        lar_string key = {name, strlen(name)};
        lar_value was, is;
        bool had = lar_map_get(before, w->holder, prop, &key, &was) == LAR_OK;
        bool has = lar_map_get(after, w->holder, prop, &key, &is) == LAR_OK;
        int state = LAR_OBJECT_UNCHANGED;
        size_t n;
        if (had && has && is.type == LAR_TYPE_LINK) CHECK_OK(lar_changes_object(ch, is.as.link, &state, NULL, 0, &n));
        int expected = had && !has ? LAR_CHANGESET_DELETIONS
                       : !had && has ? LAR_CHANGESET_INSERTIONS
                       : had && has && (!same_value(&was, &is) || state == LAR_OBJECT_MODIFIED) ? LAR_CHANGESET_MODIFICATIONS
                       : -1;
        for (int p = 0; p < 3; p++) CHECK_EQ(has_key(mc, (lar_changeset_part)p, name), p == expected);
        if (!logged) continue;
        CHECK_EQ(has_key(logged, LAR_CHANGESET_DELETIONS, name), expected == LAR_CHANGESET_DELETIONS);
        CHECK_EQ(has_key(logged, LAR_CHANGESET_INSERTIONS, name), expected == LAR_CHANGESET_INSERTIONS);
        if (expected == LAR_CHANGESET_MODIFICATIONS && prop == w->h.attrs) /* a set value */
            CHECK(has_key(logged, LAR_CHANGESET_MODIFICATIONS, name));
        if (has_key(logged, LAR_CHANGESET_MODIFICATIONS, name)) CHECK(had && has);
    }
    lar_map_changes_free(mc);
    lar_map_changes_free(logged);
}

TEST(element_log_changesets_of_sets_and_maps_match_the_snapshots)
{
    world w = {.h = holders_setup()};
    lar_txn *txn = begin_write(w.h.env);
    CHECK_OK(lar_obj_create(txn, w.h.holder, NULL, 0, &w.holder));
    commit_txn(txn);
    srand(1414);
    for (int round = 0; round < 150; round++) {
        lar_txn *before = begin_read(w.h.env);
        w.cleared = false;
        for (int commits = 1 + rand() % 3; commits > 0; commits--) {
            txn = begin_write(w.h.env);
            for (int o = rand() % 8; o >= 0; o--) random_op(txn, &w);
            commit_txn(txn);
        }
        lar_txn *after = begin_read(w.h.env);
        lar_changes *ch;
        CHECK_OK(lar_changes_read(after, version_of(before), &ch));
        check_set(&w, before, after, ch, w.h.a);
        check_set(&w, before, after, ch, w.h.b);
        check_set(&w, before, after, ch, w.h.friends);
        check_map(&w, before, after, ch, w.h.pets);
        check_map(&w, before, after, ch, w.h.attrs);
        lar_changes_free(ch);
        commit_txn(before);
        commit_txn(after);
    }
    close_env(w.h.env);
}

/* One commit: {1} becomes {1, 2} and attrs gains "k"; before and after pinned. */
typedef struct one_commit {
    holders h;
    lar_obj holder;
    lar_txn *before, *after;
} one_commit;

static one_commit one_commit_setup(void)
{
    one_commit c = {.h = holders_setup()};
    lar_txn *txn = begin_write(c.h.env);
    CHECK_OK(lar_obj_create(txn, c.h.holder, NULL, 0, &c.holder));
    lar_value one = val_int(1), two = val_int(2), x = val_str("x");
    CHECK_OK(lar_set_insert(txn, c.holder, c.h.a, &one, NULL));
    commit_txn(txn);
    c.before = begin_read(c.h.env);
    txn = begin_write(c.h.env);
    CHECK_OK(lar_set_insert(txn, c.holder, c.h.a, &two, NULL));
    CHECK_OK(lar_map_put(txn, c.holder, c.h.attrs, &(lar_string){"k", 1}, &x));
    commit_txn(txn);
    c.after = begin_read(c.h.env);
    return c;
}

static void one_commit_end(one_commit *c)
{
    commit_txn(c->before);
    commit_txn(c->after);
    close_env(c->h.env);
}

/* An entry as the library wrote it before sets and maps had element changes: the
 * holder's a and attrs marked changed, no element listed. */
static lar_changes *old_format_changes(const one_commit *c)
{
    lar_changes *ch = calloc(1, sizeof *ch);
    CHECK(ch != NULL);
    ch->from = version_of(c->before);
    ch->to = version_of(c->after);
    uint8_t entry[] = {(uint8_t)c->h.holder, 0, 0, 1, (uint8_t)c->holder.key, 1,
                       (uint8_t)(1u << c->h.a | 1u << c->h.attrs), 0};
    CHECK(c->holder.key < 0x80 && c->h.holder < 0x80);
    CHECK_OK(entry_apply(&ch->notes, c->after->schema, entry, sizeof entry));
    return ch;
}

TEST(element_log_entries_without_element_changes_still_read)
{
    one_commit c = one_commit_setup();
    lar_changes *ch = old_format_changes(&c);
    int state;
    size_t count;
    CHECK_OK(lar_changes_object(ch, c.holder, &state, NULL, 0, &count));
    CHECK_EQ(state, LAR_OBJECT_MODIFIED);
    CHECK_EQ(count, 2);
    lar_set_changes *sc;
    CHECK_RC(lar_changes_set_elements(c.after, ch, c.holder, c.h.a, &sc), LAR_ENOTFOUND);
    CHECK(sc == NULL);
    lar_map_changes *mc;
    CHECK_RC(lar_changes_map_keys(c.after, ch, c.holder, c.h.attrs, &mc), LAR_ENOTFOUND);
    /* The change sets compare the snapshots. */
    lar_changeset *cs;
    const size_t *positions;
    CHECK_OK(lar_set_changeset(c.before, c.after, ch, c.holder, c.h.a, &cs));
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_INSERTIONS, &positions, &count));
    CHECK_EQ(count, 1);
    CHECK_EQ(positions[0], 1);
    lar_changeset_free(cs);
    CHECK_OK(lar_map_changeset(c.before, c.after, ch, c.holder, c.h.attrs, &mc));
    const lar_string *keys;
    CHECK_OK(lar_map_changes_get(mc, LAR_CHANGESET_INSERTIONS, &keys, &count));
    CHECK_EQ(count, 1);
    CHECK_STR(keys[0].data, "k");
    lar_map_changes_free(mc);
    lar_changes_free(ch);
    one_commit_end(&c);
}

TEST(element_log_readers_report_elements_and_refuse_bad_arguments)
{
    one_commit c = one_commit_setup();
    lar_changes *ch;
    CHECK_OK(lar_changes_read(c.after, version_of(c.before), &ch));
    lar_set_changes *sc;
    CHECK_OK(lar_changes_set_elements(c.after, ch, c.holder, c.h.a, &sc));
    const lar_value *values;
    size_t count;
    CHECK_OK(lar_set_changes_get(sc, LAR_CHANGESET_INSERTIONS, &values, &count));
    CHECK_EQ(count, 1);
    CHECK_VALUE(values[0], val_int(2));
    CHECK_OK(lar_set_changes_get(sc, LAR_CHANGESET_DELETIONS, &values, &count));
    CHECK_EQ(count, 0);
    CHECK_RC(lar_set_changes_get(sc, LAR_CHANGESET_MODIFICATIONS, &values, &count), LAR_EINVAL);
    CHECK_RC(lar_set_changes_get(NULL, LAR_CHANGESET_DELETIONS, &values, &count), LAR_EINVAL);
    CHECK_RC(lar_set_changes_get(sc, LAR_CHANGESET_DELETIONS, NULL, &count), LAR_EINVAL);
    lar_set_changes_free(sc);
    lar_set_changes_free(NULL);
    lar_map_changes *mc;
    CHECK_OK(lar_changes_map_keys(c.after, ch, c.holder, c.h.attrs, &mc));
    const lar_string *keys;
    CHECK_OK(lar_map_changes_get(mc, LAR_CHANGESET_INSERTIONS, &keys, &count));
    CHECK_EQ(count, 1);
    CHECK_STR(keys[0].data, "k");
    lar_map_changes_free(mc);
    /* An unchanged property has no changes. */
    CHECK_OK(lar_changes_set_elements(c.after, ch, c.holder, c.h.b, &sc));
    CHECK_OK(lar_set_changes_get(sc, LAR_CHANGESET_INSERTIONS, &values, &count));
    CHECK_EQ(count, 0);
    lar_set_changes_free(sc);
    /* Bad arguments. */
    CHECK_RC(lar_changes_set_elements(c.after, ch, c.holder, c.h.attrs, &sc), LAR_EINVAL); /* a map */
    CHECK(sc == NULL);
    CHECK_RC(lar_changes_map_keys(c.after, ch, c.holder, c.h.a, &mc), LAR_EINVAL);         /* a set */
    CHECK_RC(lar_changes_set_elements(c.after, ch, c.holder, 99, &sc), LAR_EINVAL);
    CHECK_RC(lar_changes_set_elements(c.after, ch, (lar_obj){77, 1}, c.h.a, &sc), LAR_EINVAL);
    CHECK_RC(lar_changes_set_elements(NULL, ch, c.holder, c.h.a, &sc), LAR_EINVAL);
    CHECK_RC(lar_changes_set_elements(c.after, NULL, c.holder, c.h.a, &sc), LAR_EINVAL);
    CHECK_RC(lar_changes_set_elements(c.after, ch, c.holder, c.h.a, NULL), LAR_EINVAL);
    CHECK_RC(lar_changes_map_keys(c.after, NULL, c.holder, c.h.attrs, &mc), LAR_EINVAL);
    CHECK_RC(lar_changes_map_keys(c.after, ch, c.holder, c.h.attrs, NULL), LAR_EINVAL);
    lar_changes_free(ch);

    /* The holder deleted: neither reader answers for it. */
    lar_txn *pin = begin_read(c.h.env);
    lar_txn *txn = begin_write(c.h.env);
    CHECK_OK(lar_obj_delete(txn, c.holder));
    commit_txn(txn);
    lar_txn *now = begin_read(c.h.env);
    CHECK_OK(lar_changes_read(now, version_of(pin), &ch));
    CHECK_RC(lar_changes_set_elements(now, ch, c.holder, c.h.a, &sc), LAR_EDELETED);
    CHECK_RC(lar_changes_map_keys(now, ch, c.holder, c.h.attrs, &mc), LAR_EDELETED);
    lar_changeset *cs;
    CHECK_RC(lar_set_changeset(pin, now, ch, c.holder, c.h.a, &cs), LAR_EDELETED);
    lar_changes_free(ch);
    commit_txn(pin);
    commit_txn(now);
    one_commit_end(&c);
}

/* Sets of many blocks: positions counted across blocks, from the log and the snapshots alike. */
TEST(element_log_set_positions_span_blocks)
{
    holders h = holders_setup();
    lar_txn *txn = begin_write(h.env);
    lar_obj holder;
    CHECK_OK(lar_obj_create(txn, h.holder, NULL, 0, &holder));
    commit_txn(txn);
    txn = begin_write(h.env);
    for (int i = 0; i < 3000; i++) {
        lar_value v = val_int(2 * i);
        CHECK_OK(lar_set_insert(txn, holder, h.a, &v, NULL));
    }
    commit_txn(txn);
    srand(1515);
    for (int round = 0; round < 40; round++) {
        lar_txn *before = begin_read(h.env);
        txn = begin_write(h.env);
        for (int o = rand() % 40; o >= 0; o--) {
            lar_value v = val_int(rand() % 6400);
            int op = rand() % 20;
            if (op < 9) CHECK_OK(lar_set_insert(txn, holder, h.a, &v, NULL));
            else if (op < 18) CHECK_OK(lar_set_remove(txn, holder, h.a, &v, NULL));
            else if (op == 18) CHECK_OK(lar_set_insert(txn, holder, h.b, &v, NULL));
            else CHECK_OK(rand() % 2 ? lar_set_union(txn, holder, h.a, holder, h.b)
                                     : lar_set_subtract(txn, holder, h.a, holder, h.b));
        }
        commit_txn(txn);
        lar_txn *after = begin_read(h.env);
        lar_changes *ch;
        CHECK_OK(lar_changes_read(after, version_of(before), &ch));
        lar_changeset *from_log, *from_snapshots;
        CHECK_OK(lar_set_changeset(before, after, ch, holder, h.a, &from_log));
        CHECK_OK(lar_set_changeset(before, after, NULL, holder, h.a, &from_snapshots));
        check_same_part(from_log, from_snapshots, LAR_CHANGESET_DELETIONS);
        check_same_part(from_log, from_snapshots, LAR_CHANGESET_INSERTIONS);
        lar_changeset_free(from_log);
        lar_changeset_free(from_snapshots);
        lar_changes_free(ch);
        commit_txn(before);
        commit_txn(after);
    }
    close_env(h.env);
}
