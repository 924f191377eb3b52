/* Comparisons through a to-one link keep their answer per target for the rest of a
 * run (CCore/query/link_memo.c). Each run here is checked against the same query run
 * on one object at a time (lar_query_run_keys with one key: no answer is ever reused),
 * over random data with null links, deleted targets, nested paths, [c]/[d] strings,
 * collections past the link and subqueries, in read and write transactions. */
#include "test.h"

#include <stdlib.h>

typedef struct dogs_db {
    lar_env *env;
    lar_class dog, person, address;
    uint32_t dog_name, dog_age, dog_owner, dog_friends, person_name, person_dogs, person_address, city;
} dogs_db;

static dogs_db dogs_open(void)
{
    dogs_db d = {0};
    d.env = open_env(test_db_path(NULL));
    d.dog = query_test_schema(d.env, 0);
    d.person = class_id(d.env, "Person");
    d.address = class_id(d.env, "Address");
    d.dog_name = prop_id(d.env, d.dog, "name");
    d.dog_age = prop_id(d.env, d.dog, "age");
    d.dog_owner = prop_id(d.env, d.dog, "owner");
    d.dog_friends = prop_id(d.env, d.dog, "friends");
    d.person_name = prop_id(d.env, d.person, "name");
    d.person_dogs = prop_id(d.env, d.person, "dogs");
    d.person_address = prop_id(d.env, d.person, "address");
    d.city = prop_id(d.env, d.address, "city");
    return d;
}

static const char *const names[] = {"Ann", "ann", "BOB", "bob", "Åsa", "åsa", "Zoë", "zoe", "", "x"};
static const char *const cities[] = {"Oslo", "oslo", "Malmö", "MALMO", "Bern"};

static lar_value link_to(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static lar_obj create(lar_txn *txn, lar_class cls)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    return obj;
}

/* people people, dogs dogs and a few addresses, linked at random (some links null). */
static void fill(lar_txn *txn, const dogs_db *d, lar_obj *people, size_t people_count, size_t dog_count)
{
    lar_obj addresses[4];
    for (size_t i = 0; i < 4; i++) {
        addresses[i] = create(txn, d->address);
        lar_value city = val_str(cities[rand() % 5]);
        CHECK_OK(lar_obj_set(txn, addresses[i], d->city, &city));
    }
    for (size_t i = 0; i < people_count; i++) {
        people[i] = create(txn, d->person);
        lar_value name = val_str(names[rand() % 10]);
        CHECK_OK(lar_obj_set(txn, people[i], d->person_name, &name));
        if (rand() % 4) {
            lar_value home = link_to(addresses[rand() % 4]);
            CHECK_OK(lar_obj_set(txn, people[i], d->person_address, &home));
        }
    }
    lar_obj previous = {0, 0};
    for (size_t i = 0; i < dog_count; i++) {
        lar_obj dog = create(txn, d->dog);
        lar_value age = val_int(rand() % 10), name = val_str(names[rand() % 10]);
        CHECK_OK(lar_obj_set(txn, dog, d->dog_age, &age));
        CHECK_OK(lar_obj_set(txn, dog, d->dog_name, &name));
        if (rand() % 5) {
            lar_obj owner = people[rand() % people_count];
            lar_value link = link_to(owner);
            CHECK_OK(lar_obj_set(txn, dog, d->dog_owner, &link));
            if (rand() % 2) {
                lar_value back = link_to(dog);
                CHECK_OK(lar_list_insert(txn, owner, d->person_dogs, 0, &back));
            }
        }
        if (i && rand() % 2) {
            lar_value friend = link_to(previous);
            CHECK_OK(lar_list_insert(txn, dog, d->dog_friends, 0, &friend));
        }
        previous = dog;
    }
}

static const char *const queries[] = {
    "owner.name == 'Ann'",
    "owner.name ==[c] 'ann'",
    "owner.name ==[cd] 'asa'",
    "owner.name CONTAINS[c] 'B'",
    "owner.name BEGINSWITH[d] 'Zo'",
    "owner.name != 'bob'",
    "owner.name == nil",
    "owner == nil",
    "owner.address == nil",
    "owner.address.city == 'Oslo'",
    "owner.address.city ==[c] 'malmo'",
    "owner.address.city ==[cd] 'malmo'",
    "owner.address.city == nil",
    "owner.address.city.@count > 4",
    "owner.name.@count == 3",
    "owner.dogs.@count > 1",
    "ANY owner.dogs.age > 6",
    "ALL owner.dogs.age > 2",
    "NONE owner.dogs.name == 'x'",
    "owner.dogs.age.@max >= 8",
    "ANY owner.dogs.owner.name ==[c] 'ANN'",
    "NOT owner.name BEGINSWITH[c] 'a'",
    "age > 4 AND owner.name ENDSWITH 'b' OR owner.address.city BEGINSWITH 'M'",
    "owner.name == 'x' OR NOT owner.address.city == 'Bern'",
    "owner.name IN {'Ann', 'bob', 'x'}",
    "owner.name == name",
    "SUBQUERY(friends, $f, $f.owner.name == 'Ann').@count > 0",
    "SUBQUERY(friends, $f, owner.name ==[c] 'bob' AND $f.age > 3).@count > 0",
    "ANY friends.owner.address.city == 'Oslo'",
};

/* The keys text finds in one run (sorted: runs keep key order). */
static size_t run_all(lar_txn *txn, lar_query *q, lar_objkey **out)
{
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    *out = malloc((n + 1) * sizeof **out);
    CHECK(*out != NULL);
    for (size_t i = 0; i < n; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        (*out)[i] = obj.key;
    }
    lar_results_free(r);
    return n;
}

/* Whether q holds for the one object key, run alone. */
static bool holds_alone(lar_txn *txn, lar_query *q, lar_objkey key)
{
    lar_results *r;
    CHECK_OK(lar_query_run_keys(txn, q, &key, 1, &r));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    lar_results_free(r);
    return n == 1;
}

/* Every query run at once finds what it finds on each dog alone; the count agrees. */
static void check_queries(lar_txn *txn, const dogs_db *d)
{
    lar_objkey *dogs;
    lar_query *all;
    CHECK_OK(lar_query_parse(d->env, d->dog, "TRUEPREDICATE", &all));
    size_t dog_count = run_all(txn, all, &dogs);
    lar_query_free(all);
    for (size_t i = 0; i < COUNT_OF(queries); i++) {
        lar_query *q;
        CHECK_OK(lar_query_parse(d->env, d->dog, queries[i], &q));
        lar_objkey *found;
        size_t count = run_all(txn, q, &found), at = 0;
        for (size_t k = 0; k < dog_count; k++) {
            bool alone = holds_alone(txn, q, dogs[k]);
            bool in_run = at < count && found[at] == dogs[k];
            if (alone != in_run) test_fail(__FILE__, __LINE__, "%s: dog %llu is %s alone, %s in a run", queries[i],
                                           (unsigned long long)dogs[k], alone ? "in" : "out", in_run ? "in" : "out");
            at += in_run;
        }
        CHECK_EQ(at, count);
        lar_value counted;
        lar_aggregate_op op = LAR_AGGREGATE_COUNT;
        CHECK_OK(lar_query_run_aggregates(txn, q, "age", &op, 1, &counted));
        CHECK_EQ(counted.as.integer, count);
        free(found);
        lar_query_free(q);
    }
    free(dogs);
}

TEST(link_memo_runs_find_what_single_objects_find)
{
    srand(1313);
    dogs_db d = dogs_open();
    lar_obj people[12];
    for (int round = 0; round < 3; round++) {
        lar_txn *txn = begin_write(d.env);
        fill(txn, &d, people, COUNT_OF(people), 150);
        commit_txn(txn);
        txn = begin_read(d.env);
        check_queries(txn, &d);
        CHECK_OK(lar_txn_abort(txn));
        lar_txn_free(txn);
    }
    close_env(d.env);
}

/* In a write: targets renamed, moved and deleted, and new dogs, none committed. */
TEST(link_memo_in_a_write_sees_its_uncommitted_changes)
{
    srand(4242);
    dogs_db d = dogs_open();
    lar_obj people[10];
    lar_txn *txn = begin_write(d.env);
    fill(txn, &d, people, COUNT_OF(people), 120);
    commit_txn(txn);
    txn = begin_write(d.env);
    check_queries(txn, &d);
    for (size_t i = 0; i < 4; i++) {
        lar_value name = val_str(names[rand() % 10]);
        CHECK_OK(lar_obj_set(txn, people[i], d.person_name, &name));
        lar_value nowhere = val_null();
        CHECK_OK(lar_obj_set(txn, people[i + 4], d.person_address, &nowhere));
    }
    CHECK_OK(lar_obj_delete(txn, people[8]));
    CHECK_OK(lar_obj_delete(txn, people[9]));
    lar_obj more[6];
    fill(txn, &d, more, COUNT_OF(more), 60);
    check_queries(txn, &d);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    close_env(d.env);
}

/* More targets than the memo keeps: the ones past its bound are walked each time. */
TEST(link_memo_with_more_targets_than_it_keeps)
{
    dogs_db d = dogs_open();
    enum { PEOPLE = 5000 };
    lar_txn *txn = begin_write(d.env);
    lar_obj *people = malloc(PEOPLE * sizeof *people);
    CHECK(people != NULL);
    for (size_t i = 0; i < PEOPLE; i++) {
        people[i] = create(txn, d.person);
        lar_value name = val_str(i % 3 ? "bob" : "Ann");
        CHECK_OK(lar_obj_set(txn, people[i], d.person_name, &name));
    }
    size_t want = 0;
    for (size_t i = 0; i < 2 * PEOPLE; i++) { /* each person twice, the second time after all others */
        lar_obj dog = create(txn, d.dog);
        lar_value link = link_to(people[i % PEOPLE]);
        CHECK_OK(lar_obj_set(txn, dog, d.dog_owner, &link));
        want += i % PEOPLE % 3 == 0;
    }
    commit_txn(txn);
    txn = begin_read(d.env);
    lar_query *q;
    CHECK_OK(lar_query_parse(d.env, d.dog, "owner.name == 'Ann'", &q));
    lar_objkey *found;
    size_t count = run_all(txn, q, &found);
    CHECK_EQ(count, want);
    free(found);
    lar_query_free(q);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    free(people);
    close_env(d.env);
}

/* A result of a link query updated after its targets changed (results_update runs it again). */
TEST(link_memo_results_update_sees_changed_targets)
{
    dogs_db d = dogs_open();
    lar_txn *txn = begin_write(d.env);
    lar_obj ann = create(txn, d.person), bob = create(txn, d.person);
    lar_value name = val_str("Ann");
    CHECK_OK(lar_obj_set(txn, ann, d.person_name, &name));
    for (int i = 0; i < 6; i++) {
        lar_value link = link_to(i % 2 ? bob : ann);
        CHECK_OK(lar_obj_set(txn, create(txn, d.dog), d.dog_owner, &link));
    }
    commit_txn(txn);
    lar_query *q;
    CHECK_OK(lar_query_parse(d.env, d.dog, "owner.name == 'Ann'", &q));
    lar_txn *before = begin_read(d.env);
    lar_results *r;
    CHECK_OK(lar_query_run(before, q, &r));
    txn = begin_write(d.env);
    CHECK_OK(lar_obj_set(txn, bob, d.person_name, &name)); /* Bob's dogs now match too */
    commit_txn(txn);
    lar_txn *after = begin_read(d.env);
    lar_changeset *cs;
    CHECK_OK(lar_results_update(before, after, q, NULL, 0, r, &cs));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    CHECK_EQ(n, 6);
    const size_t *inserted;
    size_t inserted_count;
    CHECK_OK(lar_changeset_get(cs, LAR_CHANGESET_INSERTIONS, &inserted, &inserted_count));
    CHECK_EQ(inserted_count, 3);
    lar_changeset_free(cs);
    lar_results_free(r);
    lar_query_free(q);
    commit_txn(before);
    commit_txn(after);
    close_env(d.env);
}
