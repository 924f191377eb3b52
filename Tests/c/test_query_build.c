/* The query builder: a query built by calls describes exactly as the same query
 * parsed from text, fails with the parser's messages (without columns), and every
 * misuse fails cleanly, sticks, and leaves a query that can only be freed. */
#include "test.h"

#include <stdlib.h>

#define COLL(name, type, coll, flags, target) \
    ((lar_property_def){(name), (type), (coll), (flags), (target), NULL})

static lar_class build_schema(lar_env *env)
{
    lar_property_def person[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        COLL("dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
    };
    lar_property_def dog[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, 0),
        PROP("weight", LAR_TYPE_DOUBLE, LAR_PROP_OPTIONAL),
        PROP("alive", LAR_TYPE_BOOL, 0),
        PROP("born", LAR_TYPE_TIMESTAMP, LAR_PROP_OPTIONAL),
        PROP("price", LAR_TYPE_DECIMAL128, 0),
        PROP("extra", LAR_TYPE_MIXED, 0),
        COLL("owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person"),
        COLL("tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL),
        COLL("scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL),
        COLL("attrs", LAR_TYPE_STRING, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, NULL),
        COLL("friends", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
    };
    lar_class_def classes[] = {CLASS_DEF("Person", person), CLASS_DEF("Dog", dog)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    return class_id(env, "Dog");
}

static char text_buf[4096], built_buf[4096];

static const char *describe_into(lar_query *q, char *buf)
{
    CHECK_OK(lar_query_describe(q, buf, sizeof text_buf, NULL, 0));
    return buf;
}

/* Runs a script of builder calls, one word each, separated by spaces:
 *   k:<path>  push_keypath        P  push_path      .<name>  a property step
 *   $<name>   a variable step     [<key>]  a key    @keys @values @type
 *   ^<Class>.<prop>  a backlink   @count @min @max @sum @avg  aggregates
 *   i:<int> d:<double> s:<word> b:<0|1> null   values      a:<n>  argument
 *   L:<n>  list                   sub:<var>  subquery      T F   truth
 *   <op>[:<c|d|cd>[:<any|all|none>]]  compare (op as == != < <= > >= BW EW CT LK IN BT)
 *   and:<n> or:<n> not
 * Returns the first failing call's code. */
static int run_script(lar_query *q, const char *script)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", script);
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">=", "BW", "EW", "CT", "LK", "IN", "BT"};
    static const char *const aggs[] = {"", "@count", "@min", "@max", "@sum", "@avg"};
    char *save;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int rc = 12345;
        lar_value v = {.type = LAR_TYPE_NULL};
        if (strncmp(w, "k:", 2) == 0) rc = lar_query_push_keypath(q, w + 2);
        else if (strcmp(w, "P") == 0) rc = lar_query_push_path(q);
        else if (w[0] == '.') rc = lar_query_path_append(q, LAR_QUERY_STEP_PROPERTY, w + 1, NULL);
        else if (w[0] == '$') rc = lar_query_path_append(q, LAR_QUERY_STEP_VARIABLE, w + 1, NULL);
        else if (w[0] == '[') {
            w[strlen(w) - 1] = 0;
            rc = lar_query_path_append(q, LAR_QUERY_STEP_KEY, w + 1, NULL);
        } else if (strcmp(w, "@keys") == 0) rc = lar_query_path_append(q, LAR_QUERY_STEP_KEYS, NULL, NULL);
        else if (strcmp(w, "@values") == 0) rc = lar_query_path_append(q, LAR_QUERY_STEP_VALUES, NULL, NULL);
        else if (strcmp(w, "@type") == 0) rc = lar_query_path_append(q, LAR_QUERY_STEP_TYPE, NULL, NULL);
        else if (w[0] == '^') {
            char *dot = strchr(w, '.');
            if (dot) *dot = 0;
            rc = lar_query_path_append(q, LAR_QUERY_STEP_BACKLINK, dot ? dot + 1 : NULL, dot ? w + 1 : NULL);
        } else if (w[0] == '@') {
            for (int i = 1; i <= 5; i++)
                if (strcmp(w, aggs[i]) == 0) rc = lar_query_path_aggregate(q, (lar_query_aggregate)i);
        } else if (strncmp(w, "i:", 2) == 0 || strncmp(w, "d:", 2) == 0 || strncmp(w, "s:", 2) == 0 ||
                   strncmp(w, "b:", 2) == 0 || strcmp(w, "null") == 0) {
            if (w[0] == 'i') v = (lar_value){.type = LAR_TYPE_INT, .as.integer = atoll(w + 2)};
            if (w[0] == 'd') v = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = atof(w + 2)};
            if (w[0] == 's') v = (lar_value){.type = LAR_TYPE_STRING, .as.string = {w + 2, strlen(w + 2)}};
            if (w[0] == 'b') v = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = w[2] == '1'};
            rc = lar_query_push_value(q, &v);
        } else if (strncmp(w, "a:", 2) == 0) rc = lar_query_push_argument(q, (size_t)atoi(w + 2));
        else if (strncmp(w, "L:", 2) == 0) rc = lar_query_push_list(q, (size_t)atoi(w + 2));
        else if (strncmp(w, "sub:", 4) == 0) rc = lar_query_subquery(q, w + 4);
        else if (strcmp(w, "T") == 0 || strcmp(w, "F") == 0) rc = lar_query_push_truth(q, w[0] == 'T');
        else if (strncmp(w, "and:", 4) == 0) rc = lar_query_and(q, (size_t)atoi(w + 4));
        else if (strncmp(w, "or:", 3) == 0) rc = lar_query_or(q, (size_t)atoi(w + 3));
        else if (strcmp(w, "not") == 0) rc = lar_query_not(q);
        else {
            char *options = strchr(w, ':'), *quant = NULL;
            if (options) {
                *options++ = 0;
                quant = strchr(options, ':');
                if (quant) *quant++ = 0;
            }
            unsigned o = 0;
            if (options && strchr(options, 'c')) o |= LAR_QUERY_CASE_INSENSITIVE;
            if (options && strchr(options, 'd')) o |= LAR_QUERY_DIACRITIC_INSENSITIVE;
            lar_query_quantifier qu = !quant ? LAR_QUERY_PLAIN : strcmp(quant, "any") == 0 ? LAR_QUERY_ANY
                                      : strcmp(quant, "all") == 0 ? LAR_QUERY_ALL : LAR_QUERY_NONE;
            for (int i = 0; i < 12; i++)
                if (strcmp(w, ops[i]) == 0) rc = lar_query_compare(q, (lar_query_op)i, o, qu);
        }
        if (rc == 12345) test_fail(__FILE__, __LINE__, "bad script word %s", w);
        if (rc != LAR_OK) return rc;
    }
    return LAR_OK;
}

/* script builds the query text parses to: both describe as canonical. */
static void check_built(lar_env *env, lar_class cls, const char *script, const char *text, const char *canonical, int line)
{
    lar_query *parsed, *built;
    if (lar_query_parse(env, cls, text, &parsed) != LAR_OK)
        test_fail(__FILE__, line, "parse of %s failed: %s", text, lar_error_last()->message);
    CHECK_OK(lar_query_new(env, cls, &built));
    if (run_script(built, script) != LAR_OK || lar_query_finish(built) != LAR_OK)
        test_fail(__FILE__, line, "building %s failed: %s", script, lar_error_last()->message);
    describe_into(parsed, text_buf);
    describe_into(built, built_buf);
    if (strcmp(text_buf, built_buf) != 0)
        test_fail(__FILE__, line, "%s built as %s; the text %s describes as %s", script, built_buf, text, text_buf);
    if (strcmp(built_buf, canonical) != 0) test_fail(__FILE__, line, "%s built as %s, expected %s", script, built_buf, canonical);
    size_t args_parsed, args_built;
    CHECK_OK(lar_query_argument_count(parsed, &args_parsed));
    CHECK_OK(lar_query_argument_count(built, &args_built));
    CHECK_EQ(args_built, args_parsed);
    lar_query_free(parsed);
    lar_query_free(built);
}
#define BUILT(script, text, canonical) check_built(env, dog, (script), (text), (canonical), __LINE__)

TEST(query_build_describes_as_text)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = build_schema(env);
    BUILT("k:age i:2 <", "age < 2", "age < 2");
    BUILT("P .name s:Wolfie ==", "name == 'Wolfie'", "name == \"Wolfie\"");
    BUILT("k:age i:2 < P .name s:re BW:c and:2", "age < 2 AND name BEGINSWITH[c] 're'", "age < 2 AND name BEGINSWITH[c] \"re\"");
    BUILT("k:age i:1 < k:age i:5 > or:2 k:age i:3 == and:2", "(age < 1 OR age > 5) AND age == 3",
          "(age < 1 OR age > 5) AND age == 3");
    BUILT("k:age i:1 < k:age i:2 < and:2 k:age i:3 < and:2", "age < 1 AND age < 2 AND age < 3", "age < 1 AND age < 2 AND age < 3");
    BUILT("k:age i:1 < k:alive b:1 == or:2 not", "NOT (age < 1 OR alive == true)", "NOT (age < 1 OR alive == true)");
    BUILT("k:age i:1 < not not", "!!(age < 1)", "NOT NOT age < 1");
    BUILT("T F or:2", "TRUEPREDICATE OR FALSEPREDICATE", "TRUEPREDICATE OR FALSEPREDICATE");
    BUILT("k:age i:1 < and:1", "age < 1", "age < 1");
    BUILT("k:weight null ==", "weight == nil", "weight == NULL");
    BUILT("k:owner null !=", "owner != nil", "owner != NULL");
    BUILT("i:2 k:age <", "2 < age", "2 < age");
    BUILT("k:age k:weight <", "age < weight", "age < weight");
    BUILT("k:weight d:1.5 >=", "weight >= 1.5", "weight >= 1.5");
    BUILT("k:price d:0.1 >", "price > 0.1", "price > decimal128(0.1)"); /* fuzz_build: numbers meet decimals as text */
    BUILT("k:price i:-2 >", "price > -2", "price > decimal128(-2)");
    BUILT("k:name s:x CT:cd", "name CONTAINS[cd] 'x'", "name CONTAINS[cd] \"x\"");
    BUILT("k:name s:x EW:d", "name ENDSWITH[d] 'x'", "name ENDSWITH[d] \"x\"");
    BUILT("k:name s:r?x* LK", "name LIKE 'r?x*'", "name LIKE \"r?x*\"");
    BUILT("k:name s:x !=:c", "name !=[c] 'x'", "name !=[c] \"x\"");
    BUILT("k:age i:1 i:5 L:2 BT", "age BETWEEN {1, 5}", "age BETWEEN {1, 5}");
    BUILT("k:name s:a s:b L:2 IN:c", "name IN[c] {'a', 'b'}", "name IN[c] {\"a\", \"b\"}");
    BUILT("k:age L:0 IN", "age IN {}", "age IN {}");
    BUILT("k:age a:0 IN", "age IN $0", "age IN $0");
    BUILT("k:age a:0 a:1 L:2 BT", "age BETWEEN {$0, $1}", "age BETWEEN {$0, $1}");
    BUILT("k:name a:1 ==", "name == $1", "name == $1");
    BUILT("s:x k:tags IN", "'x' IN tags", "\"x\" IN tags");
    BUILT("k:owner.name s:Jo ==", "owner.name == 'Jo'", "owner.name == \"Jo\"");
    BUILT("P .owner .name s:Jo ==", "owner.name == 'Jo'", "owner.name == \"Jo\"");
    BUILT("P .tags s:x ==::any", "ANY tags == 'x'", "ANY tags == \"x\"");
    BUILT("P .friends .age i:2 >::all", "ALL friends.age > 2", "ALL friends.age > 2");
    BUILT("P .scores i:2 ==::none", "NONE scores == 2", "NONE scores == 2");
    BUILT("P .friends .age i:2 >", "friends.age > 2", "friends.age > 2");
    BUILT("P .tags @count i:2 >", "tags.@count > 2", "tags.@count > 2");
    BUILT("P .name @count i:2 >", "name.@size > 2", "name.@count > 2");
    BUILT("P .friends .age @avg d:2 >", "friends.age.@avg > 2.0", "friends.age.@avg > 2.0");
    BUILT("P .scores @sum i:2 >", "scores.@sum > 2", "scores.@sum > 2");
    BUILT("P .scores @min i:2 > P .scores @max i:9 < and:2", "scores.@min > 2 AND scores.@max < 9",
          "scores.@min > 2 AND scores.@max < 9");
    BUILT("P .attrs [it's] s:v ==", "attrs['it\\'s'] == 'v'", "attrs[\"it's\"] == \"v\"");
    BUILT("P .attrs [] s:v ==", "attrs[''] == 'v'", "attrs[\"\"] == \"v\""); /* an empty key is a key */
    BUILT("P .attrs @keys s:k ==", "attrs.@keys == 'k'", "attrs.@keys == \"k\"");
    BUILT("P .attrs @values s:v BW", "attrs.@values BEGINSWITH 'v'", "attrs.@values BEGINSWITH \"v\"");
    BUILT("P .attrs @count i:1 ==", "attrs.@count == 1", "attrs.@count == 1");
    BUILT("P .extra @type s:int ==", "extra.@type == 'int'", "extra.@type == \"int\"");
    BUILT("P ^ i:0 >", "@links.@count > 0", "@links.@count > 0");
    BUILT("k:@links.@count i:0 >", "@links.@count > 0", "@links.@count > 0");
    BUILT("P ^Person.dogs .name s:Jo ==", "@links.Person.dogs.name == 'Jo'", "@links.Person.dogs.name == \"Jo\"");
    BUILT("P .friends P $x .age i:2 > P $x .name s:a BW and:2 sub:x i:1 >",
          "SUBQUERY(friends, $x, $x.age > 2 AND $x.name BEGINSWITH 'a').@count > 1",
          "SUBQUERY(friends, $x, $x.age > 2 AND $x.name BEGINSWITH \"a\").@count > 1");
    BUILT("k:friends k:$d.age i:2 > sub:d i:0 ==", "SUBQUERY(friends, $d, $d.age > 2).@count == 0",
          "SUBQUERY(friends, $d, $d.age > 2).@count == 0");
    close_env(env);
}

TEST(query_build_binds_and_values)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = build_schema(env);
    lar_query *q;
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(run_script(q, "k:age a:0 < k:name a:1 a:2 L:2 IN and:2"));
    CHECK_RC(lar_query_describe(q, built_buf, sizeof built_buf, NULL, 0), LAR_EINVAL);
    CHECK_MSG_HAS("not finished");
    CHECK_RC(lar_query_bind(q, NULL, 0), LAR_EINVAL);
    CHECK_OK(lar_query_finish(q));
    size_t count;
    CHECK_OK(lar_query_argument_count(q, &count));
    CHECK_EQ(count, 3);
    lar_query_arg args[3] = {
        {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_INT, .as.integer = 2}},
        {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_STRING, .as.string = {"a\"b", 3}}},
        {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_STRING, .as.string = {"c", 1}}},
    };
    CHECK_OK(lar_query_bind(q, args, 3));
    CHECK_STR(describe_into(q, built_buf), "age < $0 AND name IN {$1, $2}");
    CHECK_OK(lar_query_describe(q, built_buf, sizeof built_buf, NULL, LAR_QUERY_DESCRIBE_VALUES));
    CHECK_STR(built_buf, "age < 2 AND name IN {\"a\\\"b\", \"c\"}");
    args[0].value = (lar_value){.type = LAR_TYPE_STRING, .as.string = {"x", 1}};
    CHECK_RC(lar_query_bind(q, args, 3), LAR_EINVAL);
    CHECK_MSG_HAS("cannot compare int property 'age' with string \"x\" (argument 0)");
    lar_query_free(q);

    /* Strings are copied: the caller's buffer may change after the push. */
    char word[] = "abc";
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_keypath(q, "name"));
    lar_value v = {.type = LAR_TYPE_STRING, .as.string = {word, 3}};
    CHECK_OK(lar_query_push_value(q, &v));
    word[0] = 'X';
    CHECK_OK(lar_query_compare(q, LAR_QUERY_EQ, 0, LAR_QUERY_PLAIN));
    CHECK_OK(lar_query_finish(q));
    CHECK_STR(describe_into(q, built_buf), "name == \"abc\"");
    lar_query_free(q);
    close_env(env);
}

/* script fails with LAR_EINVAL and exactly message, at a call or at finish. */
static void check_build_error(lar_env *env, lar_class cls, const char *script, const char *message, int line)
{
    lar_query *q;
    CHECK_OK(lar_query_new(env, cls, &q));
    lar_error_clear();
    int rc = run_script(q, script);
    if (rc == LAR_OK) rc = lar_query_finish(q);
    if (rc != LAR_EINVAL) test_fail(__FILE__, line, "%s returned %d, expected LAR_EINVAL", script, rc);
    if (strcmp(lar_error_last()->message, message) != 0)
        test_fail(__FILE__, line, "%s: message \"%s\", expected \"%s\"", script, lar_error_last()->message, message);
    /* The error sticks: every call repeats it, finish included. */
    lar_error_clear();
    CHECK_RC(lar_query_push_truth(q, 1), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, message);
    CHECK_RC(lar_query_finish(q), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, message);
    CHECK_RC(lar_query_describe(q, built_buf, sizeof built_buf, NULL, 0), LAR_EINVAL);
    lar_query_free(q);
}
#define BUILD_ERR(script, message) check_build_error(env, dog, (script), (message), __LINE__)

TEST(query_build_errors_are_the_parsers)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = build_schema(env);
    BUILD_ERR("k:agee i:2 <", "unknown property 'agee' on class 'Dog'");
    BUILD_ERR("k:name i:3 ==", "cannot compare string property 'name' with int 3");
    BUILD_ERR("P .owner .nope i:3 ==", "unknown property 'nope' on class 'Person'");
    BUILD_ERR("k:age s:x CT", "CONTAINS needs a string property, but 'age' is int");
    BUILD_ERR("k:age s:x ==", "cannot compare int property 'age' with string \"x\"");
    BUILD_ERR("k:tags k:friends.name ==", "Comparing two collection columns is not permitted");
    BUILD_ERR("k:age i:2 >::any", "ANY needs a key path through a collection on the left");
    BUILD_ERR("P $x .age i:2 >", "unknown variable '$x'");
    BUILD_ERR("k:age @count i:2 >", "@count needs a collection, a string or a binary, but 'age' is int");
    BUILD_ERR("P i:2 >", "an empty key path");
    BUILD_ERR("k:age i:1 BT", "BETWEEN needs a list {...} or a list argument");
    BUILD_ERR("k:age i:1 L:1 BT", "BETWEEN needs a list of two values {a, b}");
    BUILD_ERR("k:age i:1 ==:c", "== with [c] or [d] needs a string property, but 'age' is int");
    BUILD_ERR("i:1 i:2 ==", "a comparison needs a key path on one side");
    BUILD_ERR("k:age T sub:x i:1 >", "SUBQUERY needs a collection, but 'age' is int");
    close_env(env);
}

TEST(query_build_misuse_fails_cleanly)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = build_schema(env);
    lar_query *q = (lar_query *)1;
    CHECK_RC(lar_query_new(NULL, dog, &q), LAR_EINVAL);
    CHECK(q == NULL);
    CHECK_RC(lar_query_new(env, dog, NULL), LAR_EINVAL);
    CHECK_RC(lar_query_new(env, 999, &q), LAR_EINVAL);
    CHECK_RC(lar_query_push_path(NULL), LAR_EINVAL);
    CHECK_RC(lar_query_finish(NULL), LAR_EINVAL);
    BUILD_ERR("", "lar_query_finish: the stack must hold one predicate, it holds 0 items");
    BUILD_ERR("k:age", "lar_query_finish: the stack must hold one predicate, it holds 1 item (an expression)");
    BUILD_ERR("T T", "lar_query_finish: the stack must hold one predicate, it holds 2 items");
    BUILD_ERR("k:age <", "lar_query_compare: needs two expressions on top of the stack");
    BUILD_ERR("T i:1 <", "lar_query_compare: needs two expressions on top of the stack");
    BUILD_ERR("T and:2", "lar_query_and: needs 2 predicates on top of the stack");
    BUILD_ERR("T and:0", "lar_query_and: needs at least one predicate");
    BUILD_ERR("k:age or:1", "lar_query_or: needs 1 predicate on top of the stack");
    BUILD_ERR("not", "lar_query_not: needs 1 predicate on top of the stack");
    BUILD_ERR("T .name", "lar_query_path_append: needs a key path on top of the stack");
    BUILD_ERR("i:1 @count", "lar_query_path_aggregate: needs a key path on top of the stack");
    BUILD_ERR("k:tags @count .x", "lar_query_path_append: nothing may follow an aggregate in a key path");
    BUILD_ERR("k:tags.@count @count", "lar_query_path_aggregate: nothing may follow an aggregate in a key path");
    BUILD_ERR("P .age $x", "lar_query_path_append: a variable must begin a key path");
    BUILD_ERR("P .age ^Person.dogs", "lar_query_path_append: a backlink must begin a key path");
    BUILD_ERR("P ^ .name", "lar_query_path_append: nothing may follow an aggregate in a key path");
    BUILD_ERR("P $1x", "lar_query_path_append: bad variable \"1x\"");
    BUILD_ERR("k:age k:name L:2", "lar_query_push_list: needs 2 values or arguments on top of the stack");
    BUILD_ERR("i:1 L:2", "lar_query_push_list: needs 2 values or arguments on top of the stack");
    BUILD_ERR("k:age i:1 <:c", "options [c] and [d] apply only to ==, !=, IN and the string operators");
    BUILD_ERR("k:friends T sub:a-b", "lar_query_subquery: bad variable \"a-b\"");
    BUILD_ERR("i:1 T sub:x", "lar_query_subquery: needs a key path below the predicate");
    BUILD_ERR("k:tags @count T sub:x", "a SUBQUERY's collection cannot end in an aggregate");
    BUILD_ERR("k:friends i:1 sub:x", "lar_query_subquery: needs 1 predicate on top of the stack");
    BUILD_ERR("a:1024", "lar_query_push_argument: index 1024 is above the highest, 1023");
    BUILD_ERR("k:owner..x", "in key path \"owner..x\": expected a property name or an operator after '.' but found '.' at column 7");

    /* Enum values out of range and NULL pointers. */
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_RC(lar_query_compare(q, (lar_query_op)12, 0, LAR_QUERY_PLAIN), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(run_script(q, "k:age i:1"));
    CHECK_RC(lar_query_compare(q, LAR_QUERY_EQ, 0, (lar_query_quantifier)-1), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(run_script(q, "k:name s:x"));
    CHECK_RC(lar_query_compare(q, LAR_QUERY_EQ, 4, LAR_QUERY_PLAIN), LAR_EINVAL);
    CHECK_MSG_HAS("unknown options 0x4");
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_append(q, (lar_query_step)7, "x", NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_aggregate(q, (lar_query_aggregate)0), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_append(q, LAR_QUERY_STEP_PROPERTY, NULL, NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_append(q, LAR_QUERY_STEP_PROPERTY, "\xff", NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_append(q, LAR_QUERY_STEP_BACKLINK, "dogs", NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_path(q));
    CHECK_RC(lar_query_path_append(q, LAR_QUERY_STEP_BACKLINK, NULL, "Person"), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_RC(lar_query_push_value(q, NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    lar_value bad = {.type = LAR_TYPE_STRING, .as.string = {"\xc3", 1}};
    CHECK_RC(lar_query_push_value(q, &bad), LAR_EINVAL);
    CHECK_MSG_HAS("not valid UTF-8");
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    lar_value mixed = {.type = LAR_TYPE_MIXED};
    CHECK_RC(lar_query_push_value(q, &mixed), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_RC(lar_query_push_keypath(q, NULL), LAR_EINVAL);
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_RC(lar_query_subquery(q, NULL), LAR_EINVAL);
    lar_query_free(q);

    /* A parsed or finished query takes no builder call. */
    CHECK_OK(lar_query_parse(env, dog, "age < 2", &q));
    CHECK_RC(lar_query_push_truth(q, 1), LAR_EINVAL);
    CHECK_MSG_HAS("not being built");
    CHECK_RC(lar_query_finish(q), LAR_EINVAL);
    CHECK_STR(describe_into(q, built_buf), "age < 2");
    lar_query_free(q);
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(run_script(q, "T"));
    CHECK_OK(lar_query_finish(q));
    CHECK_RC(lar_query_finish(q), LAR_EINVAL);
    CHECK_RC(lar_query_not(q), LAR_EINVAL);
    CHECK_STR(describe_into(q, built_buf), "TRUEPREDICATE");
    lar_query_free(q);
    /* An unfinished query with items on its stack frees them. */
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(run_script(q, "k:age i:1 < k:name s:x s:y L:2"));
    lar_query_free(q);
    lar_query_free(NULL);
    close_env(env);
}

TEST(query_build_refuses_deep_nesting)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = build_schema(env);
    lar_query *q;
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_truth(q, 1));
    for (int i = 0; i < 200; i++) CHECK_OK(lar_query_not(q));
    CHECK_RC(lar_query_not(q), LAR_EINVAL);
    CHECK_MSG_HAS("nests deeper than 200 levels");
    lar_query_free(q);
    /* Alternating AND and OR nests as the text would need parentheses. */
    CHECK_OK(lar_query_new(env, dog, &q));
    CHECK_OK(lar_query_push_truth(q, 1));
    int rc = LAR_OK;
    for (int i = 0; i < 300 && rc == LAR_OK; i++) {
        rc = lar_query_push_truth(q, 0);
        if (rc == LAR_OK) rc = i % 2 ? lar_query_and(q, 2) : lar_query_or(q, 2);
    }
    CHECK_EQ(rc, LAR_EINVAL);
    lar_query_free(q);
    /* Many pushes grow the stack. */
    CHECK_OK(lar_query_new(env, dog, &q));
    for (int i = 0; i < 1000; i++) CHECK_OK(lar_query_push_truth(q, i % 2));
    CHECK_OK(lar_query_or(q, 1000));
    CHECK_OK(lar_query_finish(q));
    lar_query_free(q);
    close_env(env);
}

TEST(query_build_runs_as_the_parsed_query)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def pup_props[] = {PROP("name", LAR_TYPE_STRING, 0), PROP("age", LAR_TYPE_INT, 0)};
    lar_class_def pup = CLASS_DEF("Pup", pup_props);
    CHECK_OK(lar_schema_apply(env, &pup, 1, 1));
    lar_class dog = class_id(env, "Pup");
    lar_txn *txn;
    CHECK_OK(lar_txn_begin(env, LAR_TXN_WRITE, &txn));
    for (int i = 0; i < 10; i++) {
        lar_value values[2] = {{.type = LAR_TYPE_STRING, .as.string = {i % 2 ? "Rex" : "Wolfie", i % 2 ? 3 : 6}},
                               {.type = LAR_TYPE_INT, .as.integer = i}};
        lar_obj obj;
        CHECK_OK(lar_obj_create(txn, dog, values, 2, &obj));
    }
    lar_query *parsed, *built;
    CHECK_OK(lar_query_parse(env, dog, "age < 5 AND name == 'Rex'", &parsed));
    CHECK_OK(lar_query_new(env, dog, &built));
    CHECK_OK(run_script(built, "k:age i:5 <"));
    lar_results *results = (lar_results *)1;
    CHECK_RC(lar_query_run(txn, built, &results), LAR_EINVAL); /* not finished */
    CHECK_MSG_HAS("not finished");
    CHECK(results == NULL);
    CHECK_OK(run_script(built, "k:name s:Rex == and:2"));
    CHECK_OK(lar_query_finish(built));
    lar_results *a, *b;
    CHECK_OK(lar_query_run(txn, parsed, &a));
    CHECK_OK(lar_query_run(txn, built, &b));
    size_t na, nb;
    CHECK_OK(lar_results_count(a, &na));
    CHECK_OK(lar_results_count(b, &nb));
    CHECK_EQ(na, 2);
    CHECK_EQ(nb, 2);
    for (size_t i = 0; i < na; i++) {
        lar_obj x, y;
        CHECK_OK(lar_results_get(a, i, &x));
        CHECK_OK(lar_results_get(b, i, &y));
        CHECK_EQ(x.key, y.key);
    }
    lar_results_free(a);
    lar_results_free(b);
    lar_query_free(parsed);
    lar_query_free(built);
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    close_env(env);
}
