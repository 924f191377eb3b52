/* Queries over plain values (lar_query_parse_values, lar_query_new_values,
 * lar_query_match_values): `self` with every kind of comparison, strings with their
 * options, arguments, optional and mixed values, and every misuse refused. */
#include "test.h"

static lar_env *values_env(void)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def dog[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Dog", dog)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    return env;
}

/* The indexes of values text matches, as a string of digits ("024"). */
static const char *matching(lar_env *env, lar_type type, int optional, const char *text, const lar_value *values,
                            size_t count)
{
    static char out[64];
    lar_query *q;
    CHECK_OK(lar_query_parse_values(env, type, optional, text, &q));
    unsigned char hits[32];
    lar_txn *txn = begin_read(env);
    CHECK_OK(lar_query_match_values(txn, q, values, count, hits));
    lar_txn_free(txn);
    lar_query_free(q);
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (hits[i]) out[n++] = (char)('0' + i);
    out[n] = 0;
    return out;
}

TEST(query_values_ints)
{
    lar_env *env = values_env();
    lar_value v[] = {val_int(1), val_int(5), val_int(7), val_int(-3), val_int(5)};
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self > 4", v, 5), "124");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self == 5", v, 5), "14");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self != 5 AND self >= 0", v, 5), "02");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self BETWEEN {-3, 1}", v, 5), "03");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self IN {7, 1}", v, 5), "02");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "NOT (self < 5) OR self == -3", v, 5), "1234");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "TRUEPREDICATE", v, 5), "01234");
    CHECK_STR(matching(env, LAR_TYPE_INT, 0, "self == nil", v, 5), "");
    close_env(env);
}

TEST(query_values_optional_and_numbers)
{
    lar_env *env = values_env();
    lar_value v[] = {val_double(1.5), val_null(), val_double(-2), val_int(3)};
    CHECK_STR(matching(env, LAR_TYPE_DOUBLE, 1, "self == nil", v, 4), "1");
    CHECK_STR(matching(env, LAR_TYPE_DOUBLE, 1, "self != nil", v, 4), "023");
    CHECK_STR(matching(env, LAR_TYPE_DOUBLE, 1, "self > 1", v, 4), "03"); /* an int is a double here */
    lar_value b[] = {val_bool(1), val_bool(0)};
    CHECK_STR(matching(env, LAR_TYPE_BOOL, 0, "self == true", b, 2), "0");
    lar_value t[] = {val_ts(100, 0), val_ts(200, 0)};
    CHECK_STR(matching(env, LAR_TYPE_TIMESTAMP, 0, "self > T150:0", t, 2), "1");
    close_env(env);
}

TEST(query_values_strings)
{
    lar_env *env = values_env();
    lar_value v[] = {val_str("Rex"), val_str("rex"), val_str("R\xc3\xa9x"), val_str("Fido"), val_str("")};
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self == 'rex'", v, 5), "1");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self ==[c] 'rex'", v, 5), "01");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self ==[cd] 'rex'", v, 5), "012");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self BEGINSWITH 'R'", v, 5), "02");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self CONTAINS[c] 'E'", v, 5), "01");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self LIKE '?i*'", v, 5), "3");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self.@count == 0", v, 5), "4");
    CHECK_STR(matching(env, LAR_TYPE_STRING, 0, "self.@size > 3", v, 5), "23"); /* bytes: é is two */
    close_env(env);
}

TEST(query_values_mixed)
{
    lar_env *env = values_env();
    lar_class dog = class_id(env, "Dog");
    lar_txn *txn = begin_write(env);
    lar_obj rex;
    lar_value name = val_str("Rex");
    CHECK_OK(lar_obj_create(txn, dog, &name, 1, &rex));
    commit_txn(txn);
    lar_value v[] = {
        val_int(3), val_str("3"), val_double(3.0), val_null(),
        (lar_value){.type = LAR_TYPE_LINK, .as.link = rex}, (lar_value){.type = LAR_TYPE_LIST},
    };
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self == 3", v, 6), "02");
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self.@type == 'string'", v, 6), "1");
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self.@type == 'numeric'", v, 6), "02");
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self.@type == 'object'", v, 6), "4");
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self.@type == 'list'", v, 6), "5");
    CHECK_STR(matching(env, LAR_TYPE_MIXED, 0, "self == nil", v, 6), "3");

    /* An object argument matches its link. */
    lar_query *q;
    CHECK_OK(lar_query_parse_values(env, LAR_TYPE_MIXED, 0, "self == $0", &q));
    lar_query_arg arg = {.kind = LAR_QUERY_ARG_VALUE, .value = v[4]};
    CHECK_OK(lar_query_bind(q, &arg, 1));
    unsigned char hits[6];
    txn = begin_read(env);
    CHECK_OK(lar_query_match_values(txn, q, v, 6, hits));
    CHECK(!hits[0] && !hits[1] && !hits[2] && !hits[3] && hits[4] && !hits[5]);
    lar_txn_free(txn);
    lar_query_free(q);
    close_env(env);
}

TEST(query_values_arguments_and_builder)
{
    lar_env *env = values_env();
    lar_value v[] = {val_int(1), val_int(5), val_int(7)};
    lar_query *q;
    CHECK_OK(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self > %@ AND %K < 7", &q));
    lar_query_arg args[] = {{.kind = LAR_QUERY_ARG_VALUE, .value = val_int(1)},
                            {.kind = LAR_QUERY_ARG_KEYPATH, .keypath = "self"}};
    CHECK_OK(lar_query_bind(q, args, 2));
    unsigned char hits[3];
    lar_txn *txn = begin_read(env);
    CHECK_OK(lar_query_match_values(txn, q, v, 3, hits));
    CHECK(!hits[0] && hits[1] && !hits[2]);
    lar_query_free(q);

    /* Built by calls: self IN {1, 7}. */
    CHECK_OK(lar_query_new_values(env, LAR_TYPE_INT, 0, &q));
    CHECK_OK(lar_query_push_keypath(q, "self"));
    CHECK_OK(lar_query_push_value(q, &v[0]));
    CHECK_OK(lar_query_push_value(q, &v[2]));
    CHECK_OK(lar_query_push_list(q, 2));
    CHECK_OK(lar_query_compare(q, LAR_QUERY_IN, 0, LAR_QUERY_PLAIN));
    CHECK_OK(lar_query_finish(q));
    CHECK_OK(lar_query_match_values(txn, q, v, 3, hits));
    CHECK(hits[0] && !hits[1] && hits[2]);
    char text[64];
    CHECK_OK(lar_query_describe(q, text, sizeof text, NULL, 0));
    CHECK_STR(text, "self IN {1, 7}");
    lar_query_free(q);
    lar_txn_free(txn);
    close_env(env);
}

TEST(query_values_errors)
{
    lar_env *env = values_env();
    lar_query *q = (lar_query *)1;
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, "age > 3", &q), LAR_EINVAL);
    CHECK_MSG_HAS("names each value 'self' at column 1");
    CHECK(q == NULL);
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self > 'x'", &q), LAR_EINVAL);
    CHECK_MSG_HAS("cannot compare int property 'self'");
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_STRING, 0, "self.name == 'x'", &q), LAR_EINVAL);
    CHECK_MSG_HAS("only 'self'");
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_MIXED, 0, "self['a'] == 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self > 1 SORT(self ASC)", &q), LAR_EINVAL);
    CHECK_MSG_HAS("do not apply to a query over values");
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, "@links.@count > 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self.@sum > 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_LINK, 0, "self == nil", &q), LAR_EINVAL);
    CHECK_MSG_HAS("cannot be queried");
    CHECK_RC(lar_query_parse_values(env, (lar_type)99, 0, "self == nil", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse_values(NULL, LAR_TYPE_INT, 0, "self == 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse_values(env, LAR_TYPE_INT, 0, NULL, &q), LAR_EINVAL);
    CHECK_RC(lar_query_new_values(env, LAR_TYPE_LIST, 0, &q), LAR_EINVAL);

    CHECK_OK(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self > 1", &q));
    lar_txn *txn = begin_read(env);
    lar_value wrong[] = {val_int(2), val_str("x")};
    unsigned char hits[2];
    CHECK_RC(lar_query_match_values(txn, q, wrong, 2, hits), LAR_ETYPE);
    CHECK_MSG_HAS("value 1:");
    lar_value null = val_null();
    CHECK_RC(lar_query_match_values(txn, q, &null, 1, hits), LAR_ETYPE);
    CHECK_RC(lar_query_match_values(txn, q, NULL, 1, hits), LAR_EINVAL);
    CHECK_OK(lar_query_match_values(txn, q, NULL, 0, NULL));
    lar_results *r;
    CHECK_RC(lar_query_run(txn, q, &r), LAR_EINVAL);
    CHECK_MSG_HAS("over values");
    lar_value agg;
    CHECK_RC(lar_query_run_aggregate(txn, q, NULL, LAR_AGGREGATE_COUNT, &agg), LAR_EINVAL);
    lar_query_free(q);

    /* A query over objects is not one over values; an unbound one does not run. */
    CHECK_OK(lar_query_parse(env, class_id(env, "Dog"), "name == 'x'", &q));
    CHECK_RC(lar_query_match_values(txn, q, wrong, 1, hits), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_parse_values(env, LAR_TYPE_INT, 0, "self > $0", &q));
    CHECK_RC(lar_query_match_values(txn, q, wrong, 1, hits), LAR_EINVAL);
    CHECK_MSG_HAS("not bound");
    lar_query_free(q);

    /* A mixed link to a class that does not exist. */
    CHECK_OK(lar_query_parse_values(env, LAR_TYPE_MIXED, 0, "self == nil", &q));
    lar_value bad = {.type = LAR_TYPE_LINK, .as.link = {999, 1}};
    CHECK_RC(lar_query_match_values(txn, q, &bad, 1, hits), LAR_EINVAL);
    lar_query_free(q);
    lar_txn_free(txn);
    close_env(env);
}
