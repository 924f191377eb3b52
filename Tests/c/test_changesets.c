/* Change sets of query results (lar_results_update) against the results computed
 * afresh: random inserts, deletes, modifications and moves of a sorted, filtered
 * result, in place and by the re-run fallback. */
#include "test.h"

#include "query/results.h"

#include <stdlib.h>

/* Item {id INT primary key, score INT, tag STRING}. */
typedef struct items {
    lar_env *env;
    lar_class cls;
    uint32_t id, score, tag;
    int64_t ids;   /* random_write() picks ids below this */
} items;

static items items_setup(const char *path)
{
    items s;
    s.env = open_env(path);
    lar_property_def props[] = {PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY), PROP("score", LAR_TYPE_INT, 0),
                                PROP("tag", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Item", props)};
    CHECK_OK(lar_schema_apply(s.env, classes, 1, 1));
    s.cls = class_id(s.env, "Item");
    s.id = prop_id(s.env, s.cls, "id");
    s.score = prop_id(s.env, s.cls, "score");
    s.tag = prop_id(s.env, s.cls, "tag");
    s.ids = 200;
    return s;
}

static void item_put(lar_txn *txn, const items *s, int64_t id, int64_t score, const char *tag)
{
    lar_value values[3];
    values[s->id] = val_int(id);
    values[s->score] = val_int(score);
    values[s->tag] = val_str(tag);
    CHECK_OK(lar_obj_create(txn, s->cls, values, 3, NULL));
}

static lar_obj item_find(lar_txn *txn, const items *s, int64_t id, bool *found)
{
    lar_value key = val_int(id);
    lar_obj obj = {0, 0};
    int rc = lar_obj_find(txn, s->cls, &key, &obj);
    CHECK(rc == LAR_OK || rc == LAR_ENOTFOUND);
    *found = rc == LAR_OK;
    return obj;
}

static lar_results *run(lar_txn *txn, lar_query *q, const lar_sort_descriptor *sort, size_t sort_count)
{
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    if (sort_count) CHECK_OK(lar_results_sort(txn, r, sort, sort_count));
    return r;
}

static size_t keys_of(const lar_results *r, lar_objkey **out)
{
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    *out = malloc((count + 1) * sizeof **out);
    size_t got = 0;
    if (count) CHECK_OK(lar_results_keys(r, 0, *out, count, &got));
    CHECK_EQ(got, count);
    return count;
}

static bool contains(const lar_objkey *keys, size_t n, lar_objkey key)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i] == key) return true;
    return false;
}

static size_t part(const lar_changeset *cs, lar_changeset_part which, const size_t **out)
{
    size_t count;
    CHECK_OK(lar_changeset_get(cs, which, out, &count));
    for (size_t i = 1; i < count; i++) CHECK((*out)[i - 1] < (*out)[i]); /* ascending, no repeats */
    return count;
}

/* The brute-force check: the change set turns old into new; every object only in one of
 * them is a deletion or an insertion; every object in both that kept its place and
 * changed is a modification, and no other. strict: the result holds every match (no
 * LIMIT), so an object the log did not change never enters, leaves or moves. */
static void check_changeset(const lar_changeset *cs, const lar_objkey *old, size_t old_count, const lar_objkey *now,
                            size_t new_count, const lar_class_changes *changed, bool strict)
{
    const size_t *del, *ins, *mod, *mod_new;
    size_t nd = part(cs, LAR_CHANGESET_DELETIONS, &del), ni = part(cs, LAR_CHANGESET_INSERTIONS, &ins);
    size_t nm = part(cs, LAR_CHANGESET_MODIFICATIONS, &mod), nmn = part(cs, LAR_CHANGESET_MODIFICATIONS_NEW, &mod_new);
    CHECK_EQ(nm, nmn);
    CHECK_EQ(old_count - nd + ni, new_count);
    bool *deleted = calloc(old_count + 1, sizeof *deleted), *inserted = calloc(new_count + 1, sizeof *inserted);
    for (size_t i = 0; i < nd; i++) {
        CHECK(del[i] < old_count);
        deleted[del[i]] = true;
    }
    for (size_t i = 0; i < ni; i++) {
        CHECK(ins[i] < new_count);
        inserted[ins[i]] = true;
    }
    size_t o = 0, m = 0;
    for (size_t n = 0; n < new_count; n++) {
        bool changed_key = contains(changed->inserted, changed->inserted_count, now[n]) ||
                           contains(changed->modified, changed->modified_count, now[n]) ||
                           contains(changed->deleted, changed->deleted_count, now[n]);
        if (inserted[n]) {
            if (strict) CHECK(changed_key);
            continue;
        }
        while (o < old_count && deleted[o]) o++;
        CHECK(o < old_count);
        CHECK_EQ(now[n], old[o]); /* the survivors, in order */
        bool modified = contains(changed->modified, changed->modified_count, now[n]);
        if (modified) {
            CHECK(m < nm);
            CHECK_EQ(mod[m], o);
            CHECK_EQ(mod_new[m], n);
            m++;
        }
        o++;
    }
    while (o < old_count && deleted[o]) o++;
    CHECK_EQ(o, old_count);
    CHECK_EQ(m, nm);
    for (size_t i = 0; strict && i < old_count; i++) /* an unchanged object never leaves */
        if (deleted[i])
            CHECK(contains(changed->modified, changed->modified_count, old[i]) ||
                  contains(changed->deleted, changed->deleted_count, old[i]));
    free(deleted);
    free(inserted);
}

/* Random writes to ids below s->ids: creates, deletes, score changes (moves), tag changes, and
 * an id deleted and created again in one write. */
static void random_write(lar_env *env, const items *s, int ops)
{
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < ops; i++) {
        int64_t id = rand() % s->ids;
        bool found;
        lar_obj obj = item_find(txn, s, id, &found);
        int kind = rand() % 5;
        if (!found) {
            item_put(txn, s, id, rand() % s->ids / 2, "new");
        } else if (kind == 0) {
            CHECK_OK(lar_obj_delete(txn, obj));
        } else if (kind == 1) {
            lar_value score = val_int(rand() % s->ids / 2);
            CHECK_OK(lar_obj_set(txn, obj, s->score, &score));
        } else if (kind == 2) {
            lar_value tag = val_str(rand() % 2 ? "a" : "b");
            CHECK_OK(lar_obj_set(txn, obj, s->tag, &tag));
        } else if (kind == 3) {
            CHECK_OK(lar_obj_delete(txn, obj));
            item_put(txn, s, id, rand() % s->ids / 2, "again");
        }
    }
    commit_txn(txn);
}

/* What reads a result by position (get, iteration, a range) gives its keys, now[]. */
static void check_readers(lar_txn *txn, const lar_results *r, const lar_objkey *now, size_t count)
{
    for (size_t i = 0; i < count; i += 1 + (size_t)rand() % 97) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        CHECK_EQ(obj.key, now[i]);
    }
    lar_iter *iter;
    CHECK_OK(lar_iter_open_results(txn, r, &iter));
    lar_obj obj;
    size_t at = 0;
    while (lar_iter_next(iter, &obj) == LAR_OK) {
        CHECK(at < count);
        CHECK_EQ(obj.key, now[at++]);
    }
    CHECK_EQ(at, count);
    lar_iter_close(iter);
    if (count < 2) return;
    size_t start = (size_t)rand() % (count - 1), got;
    lar_objkey range[700];
    CHECK_OK(lar_results_keys(r, start, range, 700, &got));
    CHECK_EQ(got, count - start < 700 ? count - start : 700);
    for (size_t i = 0; i < got; i++) CHECK_EQ(range[i], now[start + i]);
}

/* Puts r's keys, when an update put them in blocks, in blocks of room keys instead, with
 * the sort keys the blocks held beside them, so that a small result spans many. */
static void reblock(lar_results *r, size_t room)
{
    if (!r->blocks || r->blocks->room == room) return;
    key_blocks *old = r->blocks;
    size_t width = old->value_width;
    lar_objkey *keys = malloc((r->count + 1) * sizeof *keys);
    lar_value *values = malloc((r->count * width + 1) * sizeof *values);
    key_blocks_copy(old, 0, r->count, keys);
    for (size_t i = 0; width && i < r->count; i++)
        memcpy(values + i * width, key_blocks_values(old, i), width * sizeof *values);
    r->blocks = key_blocks_new(keys, r->count, room);
    CHECK(r->blocks != NULL);
    if (width) CHECK_OK(key_blocks_hold_values(r->blocks, width, old->value_order, values));
    key_blocks_free(old);
    free(keys);
    free(values);
}

/* ids: how many ids random_write() picks from; more than 200 creates them all first.
 * room: the keys per block of the result (0: the library's). */
static void random_rounds_over(int64_t ids, size_t room, const char *query_text, const lar_sort_descriptor *sort,
                               size_t sort_count, int rounds, int max_ops, bool strict)
{
    items s = items_setup(test_db_path(NULL));
    s.ids = ids;
    lar_query *q;
    CHECK_OK(lar_query_parse(s.env, s.cls, query_text, &q));
    if (ids <= 200) {
        random_write(s.env, &s, 150);
    } else {
        lar_txn *txn = begin_write(s.env);
        for (int64_t id = 0; id < ids; id++) item_put(txn, &s, id, rand() % ids / 2, "a");
        commit_txn(txn);
    }
    lar_txn *before = begin_read(s.env);
    lar_results *r = run(before, q, sort, sort_count);
    for (int round = 0; round < rounds; round++) {
        lar_objkey *old;
        size_t old_count = keys_of(r, &old);
        random_write(s.env, &s, 1 + rand() % max_ops);
        if (round % 3 == 0) random_write(s.env, &s, 1 + rand() % 3); /* several commits between */
        lar_txn *after = begin_read(s.env);
        lar_changeset *cs;
        CHECK_OK(lar_results_update(round % 2 ? before : NULL, after, q, sort, sort_count, r, &cs));
        if (room) reblock(r, room);
        lar_results *fresh = run(after, q, sort, sort_count);
        lar_objkey *now, *expected;
        size_t new_count = keys_of(r, &now), expected_count = keys_of(fresh, &expected);
        CHECK_EQ(new_count, expected_count);
        for (size_t i = 0; i < new_count; i++) CHECK_EQ(now[i], expected[i]);
        uint64_t from;
        CHECK_OK(lar_txn_version(before, &from));
        lar_changes *ch;
        CHECK_OK(lar_changes_read(after, from, &ch));
        lar_class_changes changed;
        CHECK_OK(lar_changes_class(ch, s.cls, &changed));
        check_changeset(cs, old, old_count, now, new_count, &changed, strict);
        check_readers(after, r, now, new_count);
        int current;
        CHECK_OK(lar_results_is_current(r, after, &current));
        CHECK(current);
        lar_changes_free(ch);
        lar_changeset_free(cs);
        lar_results_free(fresh);
        free(old);
        free(now);
        free(expected);
        commit_txn(before);
        before = after;
    }
    commit_txn(before);
    lar_results_free(r);
    lar_query_free(q);
    close_env(s.env);
}

static void random_rounds(const char *query_text, const lar_sort_descriptor *sort, size_t sort_count, int rounds,
                          int max_ops, bool strict)
{
    random_rounds_over(200, 0, query_text, sort, sort_count, rounds, max_ops, strict);
}

TEST(changesets_sorted_filtered_results_match_a_fresh_run)
{
    srand(1414);
    lar_sort_descriptor by_score = {"score", 1};
    random_rounds("score > 20", &by_score, 1, 80, 6, true);
}

TEST(changesets_descending_sorts_with_ties_and_a_query_sort)
{
    srand(1415);
    lar_sort_descriptor by_tag = {"tag", 0};
    random_rounds("score BETWEEN {10, 80} SORT(score DESC)", &by_tag, 1, 60, 8, true);
}

/* Thousands of objects: the result updated in place keeps its keys in several blocks
 * (key_blocks.c), which moves, creates and deletes across them keep in order. */
TEST(changesets_of_a_result_spanning_many_key_blocks)
{
    srand(1418);
    lar_sort_descriptor by_score = {"score", 1};
    random_rounds_over(6000, 0, "score > 100", &by_score, 1, 40, 10, true);
    random_rounds_over(5000, 0, "tag != 'b'", NULL, 0, 20, 10, true);
}

/* Blocks of 4 and 8 keys: the sort keys a sorted result's blocks hold beside its keys
 * (which place a changed object without reading the others) move with them across
 * blocks, splits and merges in most rounds. */
TEST(changesets_of_results_in_many_small_blocks_match_a_fresh_run)
{
    srand(1420);
    lar_sort_descriptor by_score = {"score", 1}, by_tag = {"tag", 0};
    random_rounds_over(200, 8, "score > 20", &by_score, 1, 150, 6, true);
    random_rounds_over(200, 4, "score BETWEEN {10, 80} SORT(score DESC)", &by_tag, 1, 150, 6, true);
    random_rounds_over(200, 4, "score > 5 SORT(id DESC)", &by_score, 1, 150, 6, true); /* two ints held per key */
    random_rounds_over(200, 4, "tag != 'b'", NULL, 0, 100, 6, true);
}

/* Sort, distinct, limit and aggregates of a result whose keys an update put in blocks. */
TEST(changesets_leave_a_result_that_sorts_limits_and_aggregates)
{
    srand(1419);
    items s = items_setup(test_db_path(NULL));
    s.ids = 4000;
    lar_txn *txn = begin_write(s.env);
    for (int64_t id = 0; id < s.ids; id++) item_put(txn, &s, id, id % 500, id % 2 ? "a" : "b");
    commit_txn(txn);
    lar_query *q;
    CHECK_OK(lar_query_parse(s.env, s.cls, "score >= 0", &q));
    lar_sort_descriptor by_score = {"score", 1}, by_id_desc = {"id", 0};
    lar_txn *before = begin_read(s.env);
    lar_results *r = run(before, q, &by_score, 1);
    random_write(s.env, &s, 20);
    lar_txn *after = begin_read(s.env);
    lar_changeset *cs;
    CHECK_OK(lar_results_update(before, after, q, &by_score, 1, r, &cs));
    lar_changeset_free(cs);
    lar_results *fresh = run(after, q, &by_score, 1);
    lar_value sums[2], fresh_sums[2];
    lar_aggregate_op ops[2] = {LAR_AGGREGATE_SUM, LAR_AGGREGATE_MAX};
    CHECK_OK(lar_results_aggregates(after, r, "score", ops, 2, sums));
    CHECK_OK(lar_results_aggregates(after, fresh, "score", ops, 2, fresh_sums));
    CHECK_EQ(sums[0].as.integer, fresh_sums[0].as.integer);
    CHECK_EQ(sums[1].as.integer, fresh_sums[1].as.integer);
    CHECK_OK(lar_results_limit(r, 3333)); /* inside a block */
    CHECK_OK(lar_results_limit(fresh, 3333));
    lar_objkey *a, *b;
    size_t na = keys_of(r, &a), nb = keys_of(fresh, &b);
    CHECK_EQ(na, nb);
    for (size_t i = 0; i < na; i++) CHECK_EQ(a[i], b[i]);
    free(a);
    free(b);
    const char *tag = "tag";
    CHECK_OK(lar_results_sort(after, r, &by_id_desc, 1));
    CHECK_OK(lar_results_distinct(after, r, &tag, 1));
    CHECK_OK(lar_results_sort(after, fresh, &by_id_desc, 1));
    CHECK_OK(lar_results_distinct(after, fresh, &tag, 1));
    na = keys_of(r, &a);
    nb = keys_of(fresh, &b);
    CHECK(na >= 2); /* a and b, and again when random_write() renewed one */
    CHECK_EQ(na, nb);
    for (size_t i = 0; i < na; i++) CHECK_EQ(a[i], b[i]);
    free(a);
    free(b);
    commit_txn(before);
    commit_txn(after);
    lar_results_free(r);
    lar_results_free(fresh);
    lar_query_free(q);
    close_env(s.env);
}

TEST(changesets_unsorted_results_and_many_changes)
{
    srand(1416);
    random_rounds("tag != 'b'", NULL, 0, 40, 120, true); /* rounds with many changes run the query again */
}

TEST(changesets_results_of_limits_run_again)
{
    srand(1417);
    lar_sort_descriptor by_score = {"score", 1};
    random_rounds("score > 5 LIMIT(30)", &by_score, 1, 40, 6, false);
}

TEST(changesets_report_a_modification_in_place_and_a_move_as_delete_and_insert)
{
    items s = items_setup(test_db_path(NULL));
    lar_txn *txn = begin_write(s.env);
    for (int i = 0; i < 5; i++) item_put(txn, &s, i, i * 10, "t"); /* scores 0 10 20 30 40 */
    commit_txn(txn);
    lar_query *q;
    CHECK_OK(lar_query_parse(s.env, s.cls, "TRUEPREDICATE", &q));
    lar_sort_descriptor by_score = {"score", 1};
    lar_txn *before = begin_read(s.env);
    lar_results *r = run(before, q, &by_score, 1);
    txn = begin_write(s.env);
    bool found;
    lar_value tag = val_str("changed"), score = val_int(35);
    CHECK_OK(lar_obj_set(txn, item_find(txn, &s, 1, &found), s.tag, &tag));   /* stays at 1 */
    CHECK_OK(lar_obj_set(txn, item_find(txn, &s, 0, &found), s.score, &score)); /* 0 -> between 30 and 40 */
    commit_txn(txn);
    lar_txn *after = begin_read(s.env);
    lar_changeset *cs;
    CHECK_OK(lar_results_update(before, after, q, &by_score, 1, r, &cs));
    const size_t *idx;
    CHECK_EQ(part(cs, LAR_CHANGESET_DELETIONS, &idx), 1);
    CHECK_EQ(idx[0], 0);
    CHECK_EQ(part(cs, LAR_CHANGESET_INSERTIONS, &idx), 1);
    CHECK_EQ(idx[0], 3);
    CHECK_EQ(part(cs, LAR_CHANGESET_MODIFICATIONS, &idx), 1);
    CHECK_EQ(idx[0], 1);
    CHECK_EQ(part(cs, LAR_CHANGESET_MODIFICATIONS_NEW, &idx), 1);
    CHECK_EQ(idx[0], 0);
    lar_changeset_free(cs);
    /* Nothing changed since: an empty change set. */
    CHECK_OK(lar_results_update(after, after, q, &by_score, 1, r, &cs));
    int empty;
    CHECK_OK(lar_changeset_is_empty(cs, &empty));
    CHECK(empty);
    lar_changeset_free(cs);
    commit_txn(before);
    commit_txn(after);
    lar_results_free(r);
    lar_query_free(q);
    close_env(s.env);
}

TEST(changesets_refuse_bad_arguments)
{
    items s = items_setup(test_db_path(NULL));
    lar_txn *txn = begin_write(s.env);
    item_put(txn, &s, 1, 1, "t");
    commit_txn(txn);
    lar_query *q;
    CHECK_OK(lar_query_parse(s.env, s.cls, "score > 0", &q));
    lar_txn *before = begin_read(s.env);
    lar_results *r = run(before, q, NULL, 0);
    lar_changeset *cs = NULL;
    CHECK_RC(lar_results_update(NULL, before, q, NULL, 0, r, NULL), LAR_EINVAL);
    CHECK_RC(lar_results_update(NULL, before, NULL, NULL, 0, r, &cs), LAR_EINVAL);
    CHECK(cs == NULL);
    CHECK_RC(lar_results_update(NULL, before, q, NULL, 1, r, &cs), LAR_EINVAL);
    CHECK_RC(lar_results_update(NULL, before, q, NULL, 0, NULL, &cs), LAR_EINVAL);
    CHECK_RC(lar_results_update(NULL, NULL, q, NULL, 0, r, &cs), LAR_EINVAL);
    lar_sort_descriptor bad = {"nope", 1}, null_path = {NULL, 1};
    CHECK_RC(lar_results_update(NULL, before, q, &bad, 1, r, &cs), LAR_EINVAL);
    CHECK_RC(lar_results_update(NULL, before, q, &null_path, 1, r, &cs), LAR_EINVAL);
    txn = begin_write(s.env);
    CHECK_RC(lar_results_update(NULL, txn, q, NULL, 0, r, &cs), LAR_EMISUSE); /* a write */
    lar_results *in_write = run(txn, q, NULL, 0);
    item_put(txn, &s, 2, 2, "u");
    commit_txn(txn);
    lar_txn *after = begin_read(s.env);
    CHECK_RC(lar_results_update(NULL, after, q, NULL, 0, in_write, &cs), LAR_EMISUSE);
    CHECK_RC(lar_results_update(after, after, q, NULL, 0, r, &cs), LAR_EINVAL); /* old_txn not at the result's version */
    CHECK_OK(lar_results_update(before, after, q, NULL, 0, r, &cs));
    lar_changeset_free(cs);
    CHECK_RC(lar_results_update(NULL, before, q, NULL, 0, r, &cs), LAR_EINVAL); /* older than the result */
    lar_results_free(in_write);
    lar_results_free(r);
    commit_txn(before);
    commit_txn(after);
    lar_query_free(q);
    close_env(s.env);
}

/* ---- sets and maps between two snapshots ---- */

/* Owner {scores: Set<Int>, attrs: [String: Int], pet: [String: Pet?]}, Pet {name}. */
typedef struct keyed {
    lar_env *env;
    lar_class owner, pet;
    uint32_t scores, attrs, pets, pet_name;
} keyed;

static keyed keyed_setup(void)
{
    keyed k;
    k.env = open_env(test_db_path(NULL));
    lar_property_def owner[] = {
        {"scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"attrs", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, NULL, NULL},
        {"pets", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Pet", NULL},
    };
    lar_property_def pet[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Owner", owner), CLASS_DEF("Pet", pet)};
    CHECK_OK(lar_schema_apply(k.env, classes, 2, 1));
    k.owner = class_id(k.env, "Owner");
    k.pet = class_id(k.env, "Pet");
    k.scores = prop_id(k.env, k.owner, "scores");
    k.attrs = prop_id(k.env, k.owner, "attrs");
    k.pets = prop_id(k.env, k.owner, "pets");
    k.pet_name = prop_id(k.env, k.pet, "name");
    return k;
}

static size_t set_ints(lar_txn *txn, lar_obj obj, uint32_t prop, int64_t *out)
{
    size_t total = 0, count;
    lar_value batch[16], after;
    int rc;
    while ((rc = lar_set_list(txn, obj, prop, total ? &after : NULL, batch, 16, &count)) == LAR_OK) {
        for (size_t i = 0; i < count; i++) out[total++] = batch[i].as.integer;
        after = batch[count - 1];
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    return total;
}

static bool has_int(const int64_t *values, size_t n, int64_t v)
{
    for (size_t i = 0; i < n; i++)
        if (values[i] == v) return true;
    return false;
}

TEST(changesets_of_sets_and_maps_match_the_snapshots)
{
    keyed k = keyed_setup();
    lar_txn *txn = begin_write(k.env);
    lar_obj owner;
    CHECK_OK(lar_obj_create(txn, k.owner, NULL, 0, &owner));
    commit_txn(txn);
    srand(1418);
    int64_t old_set[64], new_set[64];
    for (int round = 0; round < 40; round++) {
        lar_txn *before = begin_read(k.env);
        uint64_t from;
        CHECK_OK(lar_txn_version(before, &from));
        txn = begin_write(k.env);
        for (int o = rand() % 6; o >= 0; o--) {
            lar_value v = val_int(rand() % 40);
            char name[16];
            snprintf(name, sizeof name, "k%d", rand() % 12);
            lar_string key = {name, strlen(name)};
            switch (rand() % 4) {
            case 0: CHECK_OK(lar_set_insert(txn, owner, k.scores, &v, NULL)); break;
            case 1: CHECK_OK(lar_set_remove(txn, owner, k.scores, &v, NULL)); break;
            case 2: CHECK_OK(lar_map_put(txn, owner, k.attrs, &key, &v)); break;
            default: CHECK_OK(lar_map_remove(txn, owner, k.attrs, &key, NULL)); break;
            }
        }
        commit_txn(txn);
        lar_txn *after = begin_read(k.env);
        lar_changes *ch;
        CHECK_OK(lar_changes_read(after, from, &ch));
        size_t old_n = set_ints(before, owner, k.scores, old_set), new_n = set_ints(after, owner, k.scores, new_set);
        lar_changeset *cs;
        CHECK_OK(lar_set_changeset(before, after, round % 2 ? ch : NULL, owner, k.scores, &cs));
        const size_t *del, *ins;
        size_t nd = part(cs, LAR_CHANGESET_DELETIONS, &del), ni = part(cs, LAR_CHANGESET_INSERTIONS, &ins);
        CHECK_EQ(old_n - nd + ni, new_n);
        for (size_t i = 0, d = 0; i < old_n; i++) {
            bool gone = d < nd && del[d] == i;
            d += gone;
            CHECK_EQ(gone, !has_int(new_set, new_n, old_set[i]));
        }
        for (size_t i = 0, n = 0; i < new_n; i++) {
            bool came = n < ni && ins[n] == i;
            n += came;
            CHECK_EQ(came, !has_int(old_set, old_n, new_set[i]));
        }
        lar_changeset_free(cs);

        lar_map_changes *mc;
        CHECK_OK(lar_map_changeset(before, after, ch, owner, k.attrs, &mc));
        for (int key_i = 0; key_i < 12; key_i++) {
            char name[16];
            snprintf(name, sizeof name, "k%d", key_i);
            lar_string key = {name, strlen(name)};
            lar_value was, is;
            int rc_old = lar_map_get(before, owner, k.attrs, &key, &was), rc_new = lar_map_get(after, owner, k.attrs, &key, &is);
            int expected = rc_old && !rc_new ? LAR_CHANGESET_INSERTIONS
                           : !rc_old && rc_new ? LAR_CHANGESET_DELETIONS
                           : !rc_old && !rc_new && was.as.integer != is.as.integer ? LAR_CHANGESET_MODIFICATIONS : -1;
            for (int p = 0; p < 3; p++) {
                const lar_string *keys;
                size_t count;
                CHECK_OK(lar_map_changes_get(mc, (lar_changeset_part)p, &keys, &count));
                bool listed = false;
                for (size_t i = 0; i < count; i++) listed |= keys[i].size == key.size && !memcmp(keys[i].data, name, key.size);
                CHECK_EQ(listed, p == expected);
            }
        }
        lar_map_changes_free(mc);
        lar_changes_free(ch);
        commit_txn(before);
        commit_txn(after);
    }
    close_env(k.env);
}

TEST(changesets_of_a_map_of_objects_name_the_modified_ones)
{
    keyed k = keyed_setup();
    lar_txn *txn = begin_write(k.env);
    lar_obj owner, rex;
    CHECK_OK(lar_obj_create(txn, k.owner, NULL, 0, &owner));
    lar_value name = val_str("rex");
    CHECK_OK(lar_obj_create(txn, k.pet, &name, 1, &rex));
    lar_value link = {.type = LAR_TYPE_LINK, .as.link = rex};
    lar_string key = {"best", 4};
    CHECK_OK(lar_map_put(txn, owner, k.pets, &key, &link));
    commit_txn(txn);
    lar_txn *before = begin_read(k.env);
    uint64_t from;
    CHECK_OK(lar_txn_version(before, &from));
    txn = begin_write(k.env);
    lar_value renamed = val_str("max");
    CHECK_OK(lar_obj_set(txn, rex, k.pet_name, &renamed));
    commit_txn(txn);
    lar_txn *after = begin_read(k.env);
    lar_changes *ch;
    CHECK_OK(lar_changes_read(after, from, &ch));
    lar_map_changes *mc;
    CHECK_OK(lar_map_changeset(before, after, ch, owner, k.pets, &mc));
    const lar_string *keys;
    size_t count;
    CHECK_OK(lar_map_changes_get(mc, LAR_CHANGESET_MODIFICATIONS, &keys, &count));
    CHECK_EQ(count, 1);
    CHECK_STR(keys[0].data, "best");
    CHECK_RC(lar_map_changes_get(mc, LAR_CHANGESET_MODIFICATIONS_NEW, &keys, &count), LAR_EINVAL);
    CHECK_RC(lar_map_changes_get(NULL, LAR_CHANGESET_DELETIONS, &keys, &count), LAR_EINVAL);
    lar_map_changes_free(mc);
    lar_map_changes_free(NULL);
    /* Bad arguments. */
    lar_changeset *cs;
    CHECK_RC(lar_set_changeset(before, after, ch, owner, k.attrs, &cs), LAR_EINVAL); /* not a set */
    CHECK_RC(lar_map_changeset(before, after, ch, owner, k.scores, &mc), LAR_EINVAL); /* not a map */
    CHECK_RC(lar_set_changeset(NULL, after, ch, owner, k.scores, &cs), LAR_EINVAL);
    CHECK_RC(lar_set_changeset(before, after, ch, owner, k.scores, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_changeset(before, NULL, ch, owner, k.attrs, &mc), LAR_EINVAL);
    CHECK_RC(lar_map_changeset(before, after, ch, owner, k.attrs, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_changeset(before, after, ch, rex, k.attrs, &mc), LAR_EINVAL); /* a Pet has no such map */
    lar_changes_free(ch);
    commit_txn(before);
    commit_txn(after);
    close_env(k.env);
}
