/* The query parser: every operator and literal parses and describes canonically, the
 * canonical text parses back to itself, arguments bind and are checked, and every
 * kind of error names its problem and column. */
#include "test.h"

#include <stdlib.h>

#define COLL(name, type, coll, flags, target) \
    ((lar_property_def){(name), (type), (coll), (flags), (target), NULL})

static lar_class query_schema(lar_env *env)
{
    return query_test_schema(env, 0);
}

static char describe_buf[32768];

static const char *describe(lar_query *q, unsigned flags)
{
    size_t length;
    CHECK_OK(lar_query_describe(q, describe_buf, sizeof describe_buf, &length, flags));
    CHECK_EQ(length, strlen(describe_buf));
    return describe_buf;
}

/* text parses, describes as canonical, and the canonical text parses to itself. */
static void check_canonical(lar_env *env, lar_class cls, const char *text, const char *canonical, int line)
{
    lar_query *q = NULL;
    int rc = lar_query_parse(env, cls, text, &q);
    if (rc != LAR_OK) test_fail(__FILE__, line, "parse of %s failed: %s", text, lar_error_last()->message);
    const char *got = describe(q, 0);
    if (strcmp(got, canonical) != 0) test_fail(__FILE__, line, "%s described as %s, expected %s", text, got, canonical);
    lar_query_free(q);
    q = NULL;
    rc = lar_query_parse(env, cls, canonical, &q);
    if (rc != LAR_OK) test_fail(__FILE__, line, "reparse of %s failed: %s", canonical, lar_error_last()->message);
    got = describe(q, 0);
    if (strcmp(got, canonical) != 0) test_fail(__FILE__, line, "%s redescribed as %s", canonical, got);
    lar_query_free(q);
}
#define CANON(text, canonical) check_canonical(env, dog, (text), (canonical), __LINE__)
#define SAME(text) check_canonical(env, dog, (text), (text), __LINE__)

/* text fails with LAR_EINVAL and exactly this message. */
static void check_error(lar_env *env, lar_class cls, const char *text, const char *message, int line)
{
    lar_query *q = (lar_query *)1;
    lar_error_clear();
    int rc = lar_query_parse(env, cls, text, &q);
    if (rc != LAR_EINVAL) test_fail(__FILE__, line, "parse of %s returned %d, expected LAR_EINVAL", text, rc);
    if (q != NULL) test_fail(__FILE__, line, "a failed parse left *out set");
    if (lar_error_last()->code != LAR_EINVAL || strcmp(lar_error_last()->message, message) != 0)
        test_fail(__FILE__, line, "parse of %s: message \"%s\", expected \"%s\"", text, lar_error_last()->message, message);
}
#define ERR(text, message) check_error(env, dog, (text), (message), __LINE__)

TEST(query_comparison_operators_and_logic)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    CANON("age < 2", "age < 2");
    CANON("age = 2", "age == 2");
    CANON("age == 2", "age == 2");
    CANON("age <> 2", "age != 2");
    CANON("age != 2", "age != 2");
    CANON("age <= 2", "age <= 2");
    CANON("age =< 2", "age <= 2");
    CANON("age >= 2", "age >= 2");
    CANON("age => 2", "age >= 2");
    CANON("age > 2", "age > 2");
    CANON("age BETWEEN {1, 5}", "age BETWEEN {1, 5}");
    CANON("age in {1,2 ,3}", "age IN {1, 2, 3}");
    CANON("age < 2 AND name ==[c] 'rex'", "age < 2 AND name ==[c] \"rex\"");
    CANON("age < 2 && name == 'a' && alive == true", "age < 2 AND name == \"a\" AND alive == true");
    CANON("(age < 2 and name == 'a') AND alive == false", "age < 2 AND name == \"a\" AND alive == false");
    CANON("age < 2 || age > 5 or age == 3", "age < 2 OR age > 5 OR age == 3");
    CANON("age < 2 OR age > 5 AND age == 3", "age < 2 OR age > 5 AND age == 3");
    CANON("age < 2 OR (age > 5 AND age == 3)", "age < 2 OR age > 5 AND age == 3");
    CANON("(age < 2 OR (age > 5)) OR ((age == 3))", "age < 2 OR age > 5 OR age == 3");
    CANON("(age < 2 OR age > 5) AND age == 3", "(age < 2 OR age > 5) AND age == 3");
    CANON("NOT (age < 2 OR age > 5) AND !(age == 3 AND alive == true)", "NOT (age < 2 OR age > 5) AND NOT (age == 3 AND alive == true)");
    CANON("NOT age < 2", "NOT age < 2");
    CANON("!(age < 2)", "NOT age < 2");
    CANON("not not age < 2", "NOT NOT age < 2");
    CANON("TRUEPREDICATE", "TRUEPREDICATE");
    CANON("falsePredicate OR truepredicate", "FALSEPREDICATE OR TRUEPREDICATE");
    CANON("weight == nil", "weight == NULL");
    CANON("owner == NULL", "owner == NULL");
    CANON("2 < age", "2 < age");
    CANON("age < weight", "age < weight");
    close_env(env);
}

TEST(query_string_operators_and_options)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    CANON("name BEGINSWITH 'r'", "name BEGINSWITH \"r\"");
    CANON("name endswith[c] \"x\"", "name ENDSWITH[c] \"x\"");
    CANON("name Contains[d] 'x'", "name CONTAINS[d] \"x\"");
    CANON("name LIKE[cd] 'r?x*'", "name LIKE[cd] \"r?x*\"");
    CANON("name ==[cd] 'x'", "name ==[cd] \"x\"");
    CANON("name !=[c] 'x'", "name !=[c] \"x\"");
    CANON("name IN[c] {'a', 'b'}", "name IN[c] {\"a\", \"b\"}");
    CANON("data BEGINSWITH B64\"AAE=\"", "data BEGINSWITH B64\"AAE=\"");
    CANON("extra CONTAINS 'x'", "extra CONTAINS \"x\"");
    close_env(env);
}

TEST(query_literals_of_every_type)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    CANON("age == 0x1F", "age == 31");
    CANON("age == -0x10", "age == -16");
    CANON("age == -42", "age == -42");
    CANON("age == +7", "age == 7");
    CANON("age == 9223372036854775807", "age == 9223372036854775807");
    CANON("age == -9223372036854775808", "age == -9223372036854775808");
    CANON("weight == 1.5", "weight == 1.5");
    CANON("weight == 3.0", "weight == 3.0");
    CANON("weight == .25", "weight == 0.25");
    CANON("weight == 1e3", "weight == 1000.0");
    CANON("weight == 1.5e-5", "weight == 0.000015");
    CANON("weight == 1.5e-7", "weight == 1.5e-07");
    CANON("weight == 123456789012345678901234567890.0", "weight == 1.2345678901234568e+29");
    CANON("weight == 1234.5", "weight == 1234.5");
    CANON("weight == -2.5E-3", "weight == -0.0025");
    CANON("weight == 0.1", "weight == 0.1");
    CANON("weight == inf", "weight == inf");
    CANON("weight == -inf", "weight == -inf");
    CANON("weight == +Infinity", "weight == inf");
    CANON("weight == NaN", "weight == nan");
    CANON("ratio > 1e300", "ratio > 1e+300");
    CANON("name == 'it\\'s'", "name == \"it's\"");
    CANON("name == \"a\\\"b\\\\c\\n\\t\\r\\/\"", "name == \"a\\\"b\\\\c\\n\\t\\r/\"");
    CANON("name == '\\u00e9\\ud83d\\ude00'", "name == \"\xc3\xa9\xf0\x9f\x98\x80\"");
    CANON("name == '\\b'", "name == \"\\u0008\"");
    CANON("name == \"\xc3\xa9t\xc3\xa9\"", "name == \"\xc3\xa9t\xc3\xa9\"");
    CANON("name == ''", "name == \"\"");
    CANON("alive == TRUE", "alive == true");
    CANON("alive != False", "alive != false");
    CANON("born == T1:500", "born == T1:500");
    CANON("born == T-1:-5", "born == T-1:-5");
    CANON("born == 1970-01-02@00:00:01", "born == T86401:0");
    CANON("born == 2024-02-29T12:30:00:123", "born == T1709209800:123");
    CANON("born < 1969-12-31@23:59:59:500000000", "born < T0:-500000000");
    CANON("oid == oid(507f1f77bcf86cd799439011)", "oid == oid(507f1f77bcf86cd799439011)");
    CANON("uid == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", "uid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)");
    CANON("price == decimal128(1.5)", "price == decimal128(1.5)");
    CANON("price == decimal128(-0.0025)", "price == decimal128(-0.0025)");
    CANON("price == decimal128(12e3)", "price == decimal128(12E3)");
    CANON("price == decimal128(100)", "price == decimal128(100)");
    CANON("price == decimal128( inf )", "price == decimal128(inf)");
    CANON("price == decimal128(-Inf)", "price == decimal128(-inf)");
    CANON("price == decimal128(NaN)", "price == decimal128(nan)");
    /* Numbers compared with a decimal128 property are read as decimal128, exactly. */
    CANON("price > 1.5", "price > decimal128(1.5)");
    CANON("price > 0.1", "price > decimal128(0.1)");
    CANON("price > 2", "price > decimal128(2)");
    CANON("price > -2.50e-3", "price > decimal128(-0.00250)");
    CANON("price IN {1, 12345678901234567890123456789.5}", "price IN {decimal128(1), decimal128(12345678901234567890123456789.5)}");
    CANON("price > -inf", "price > decimal128(-inf)");
    CANON("price > .5", "price > decimal128(0.5)"); /* fuzz_query: ".5" had no text */
    CANON("price > 0x10", "price > decimal128(16)");
    CANON("price > -0x10", "price > decimal128(-16)");
    CANON("price > 1.5f", "price > decimal128(1.5)");
    CANON("extra > 0.1", "extra > 0.1");
    CANON("ratio > 1.5f", "ratio > 1.5f");
    CANON("ratio > 3f", "ratio > 3.0f");
    CANON("ratio > 0.1F", "ratio > 0.1f");
    CANON("weight > 1e2f", "weight > 100.0f");
    CANON("name == 'a\\0b'", "name == \"a\\u0000b\"");
    CANON("born == 2024-1-5@1:2:3", "born == T1704416523:0");
    CANON("born == 99-1-1T0:0:0:5", "born == T-59042995199:-999999995");
    CANON("data == B64\"\"", "data == B64\"\"");
    CANON("data == B64'aGVsbG8='", "data == B64\"aGVsbG8=\"");
    CANON("data == 'raw'", "data == \"raw\"");
    close_env(env);
}

TEST(query_key_paths_collections_and_aggregates)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    CANON("owner.name == 'Ann'", "owner.name == \"Ann\"");
    CANON("owner.address.city BEGINSWITH 'Par'", "owner.address.city BEGINSWITH \"Par\"");
    CANON("ANY tags == 'x'", "ANY tags == \"x\"");
    CANON("SOME tags == 'x'", "ANY tags == \"x\"");
    CANON("all scores > 3", "ALL scores > 3");
    CANON("NONE friends.name == 'x'", "NONE friends.name == \"x\"");
    CANON("tags == 'x'", "tags == \"x\"");
    CANON("'x' IN tags", "\"x\" IN tags");
    CANON("tags.@count > 2", "tags.@count > 2");
    CANON("tags.@size > 2", "tags.@count > 2");
    CANON("name.@size > 2", "name.@count > 2");
    CANON("scores.@min > 2", "scores.@min > 2");
    CANON("scores.@max > 2", "scores.@max > 2");
    CANON("scores.@sum > 2", "scores.@sum > 2");
    CANON("scores.@avg > 2.5", "scores.@avg > 2.5");
    CANON("friends.age.@sum > 10", "friends.age.@sum > 10");
    CANON("owner.dogs.@count == 3", "owner.dogs.@count == 3");
    CANON("attrs['color'] == 'red'", "attrs[\"color\"] == \"red\"");
    CANON("attrs[\"a b\"] == nil", "attrs[\"a b\"] == NULL");
    CANON("attrs.@keys == 'color'", "attrs.@keys == \"color\"");
    CANON("attrs.@allKeys == 'color'", "attrs.@keys == \"color\"");
    CANON("ANY attrs.@values CONTAINS 'e'", "ANY attrs.@values CONTAINS \"e\"");
    CANON("attrs.@count == 0", "attrs.@count == 0");
    CANON("extra.@type == 'string'", "extra.@type == \"string\"");
    CANON("extra.@type IN {'int', 'Double', 'numeric'}", "extra.@type IN {\"int\", \"Double\", \"numeric\"}");
    CANON("extra == 3", "extra == 3");
    CANON("extra == 'x'", "extra == \"x\"");
    CANON("extra['k'] == 1", "extra[\"k\"] == 1");
    CANON("ANY anys.@type == 'bool'", "ANY anys.@type == \"bool\"");
    CANON("@links.Person.dogs.name == 'Ann'", "@links.Person.dogs.name == \"Ann\"");
    CANON("@links.Person.dogs.@count > 1", "@links.Person.dogs.@count > 1");
    CANON("@links.Dog.friends.age > 1", "@links.Dog.friends.age > 1");
    CANON("SUBQUERY(friends, $f, $f.age > 3 AND $f.name BEGINSWITH 'r').@count > 0",
          "SUBQUERY(friends, $f, $f.age > 3 AND $f.name BEGINSWITH \"r\").@count > 0");
    CANON("subquery(tags, $t, $t CONTAINS 'a').@size == 2", "SUBQUERY(tags, $t, $t CONTAINS \"a\").@count == 2");
    CANON("SUBQUERY(friends, $f, SUBQUERY($f.friends, $g, $g.age < $f.age).@count > 0).@count > 0",
          "SUBQUERY(friends, $f, SUBQUERY($f.friends, $g, $g.age < $f.age).@count > 0).@count > 0");
    close_env(env);
}

TEST(query_suffixes)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    CANON("age > 1 SORT(age ASC)", "age > 1 SORT(age ASC)");
    CANON("age > 1 sort(age descending, owner.name asc) distinct(name, age) limit(5)",
          "age > 1 SORT(age DESC, owner.name ASC) DISTINCT(name, age) LIMIT(5)");
    CANON("TRUEPREDICATE LIMIT(0) SORT(name DESC) LIMIT(2)", "TRUEPREDICATE LIMIT(0) SORT(name DESC) LIMIT(2)");
    ERR("age > 1 SORT(tags ASC)", "cannot SORT by 'tags': it is a collection at column 14");
    ERR("age > 1 DISTINCT(owner)", "cannot DISTINCT by 'owner': it is a link at column 18");
    ERR("age > 1 SORT(age)", "expected ASC or DESC but found ')' at column 17");
    ERR("age > 1 LIMIT(-1)", "expected a count of zero or more but found '-1' at column 15");
    ERR("age > 1 SORT(agee ASC)", "unknown property 'agee' on class 'Dog' at column 14");
    ERR("age > 1 LIMIT 5", "expected '(' but found '5' at column 15");
    ERR("age > 1 LIMIT(5", "expected ')' but found the end of the query at column 16");
    close_env(env);
}

TEST(query_syntax_errors_name_their_column)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    ERR("", "the query is empty");
    ERR("   ", "the query is empty");
    ERR("name == 'abc", "unterminated string at column 9");
    ERR("name == \"abc\\", "unterminated string at column 9");
    ERR("(age < 2 AND name == 'x'", "expected ')' but found the end of the query at column 25");
    ERR("age < 2)", "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query but found ')' at column 8");
    ERR("age 2", "expected a comparison operator but found '2' at column 5");
    ERR("age <", "expected a key path, a literal or an argument but found the end of the query at column 6");
    ERR("age < 2 AND", "expected a key path, a literal or an argument but found the end of the query at column 12");
    ERR("age < 2 & age > 1", "expected '&&' at column 9");
    ERR("age | 2", "expected '||' at column 5");
    ERR("age # 2", "unexpected character at column 5");
    ERR("name == 'a\\q'", "unknown escape in string at column 11");
    ERR("name == '\\u12'", "bad \\u escape in string at column 10");
    ERR("name == '\\ud800'", "unpaired surrogate in \\u escape at column 10");
    ERR("age == 99999999999999999999", "integer out of range at column 8");
    ERR("age == 0x", "bad hexadecimal number at column 8");
    ERR("age == 12abc", "bad number at column 8");
    ERR("weight == 1e", "bad exponent in number at column 11");
    ERR("weight == 1e999", "number out of range at column 11");
    ERR("oid == oid(123)", "bad ObjectId: oid() takes 24 hexadecimal digits at column 8");
    ERR("uid == uuid(3b241101e2bb42558caf4136c566a962)", "bad UUID: uuid() takes 8-4-4-4-12 hexadecimal digits at column 8");
    /* fuzz_query: a number that no decimal128 holds exactly described as a double, which
     * then parsed as a decimal128: refused instead. */
    ERR("price == 666666666666666660666666666660666666.0",
        "number 666666666666666660666666666660666666.0 has no exact decimal128 (at most 34 significant digits) "
        "to compare with decimal128 property 'price' at column 10");
    ERR("price > 1e-7000", "number 1e-7000 has no exact decimal128 (at most 34 significant digits) "
        "to compare with decimal128 property 'price' at column 9");
    ERR("price == decimal128(1.2.3)", "bad decimal128: decimal128() takes a number of at most 34 significant digits at column 10");
    ERR("price == decimal128(12345678901234567890123456789012345)",
        "bad decimal128: decimal128() takes a number of at most 34 significant digits at column 10");
    ERR("oid == oid(507f1f77bcf86cd799439011", "expected ')' at column 11");
    ERR("data == B64\"abc\"", "bad base64 in B64\"...\" at column 9");
    ERR("born == T1:1000000000", "bad timestamp: nanoseconds must be within +-999999999 and of the seconds' sign at column 9");
    ERR("born == T1:-5", "bad timestamp: nanoseconds must be within +-999999999 and of the seconds' sign at column 9");
    ERR("born == 2023-02-29@00:00:00", "bad date: expected YYYY-MM-DD@HH:MM:SS[:nanoseconds] at column 9");
    ERR("born == 2023-13-01@00:00:00", "bad date: expected YYYY-MM-DD@HH:MM:SS[:nanoseconds] at column 9");
    ERR("name ==[x] 'a'", "unknown comparison option at column 9: expected [c], [d] or [cd]");
    ERR("age <[c] 3", "options [c] and [d] apply only to ==, !=, IN and the string operators at column 6");
    ERR("tags.@count.x > 1", "nothing may follow an aggregate in a key path at column 12");
    ERR("tags.@foo > 1", "unknown operator '@foo' at column 6");
    ERR("$x.age > 1", "variable '$x' used outside a SUBQUERY at column 1");
    ERR("SUBQUERY(friends, $f, $f.age > 1) > 0", "SUBQUERY must be followed by .@count at column 35");
    ERR("SUBQUERY(friends, f, f.age > 1).@count > 0", "expected a variable such as '$x' but found 'f' at column 19");
    ERR("age IN {1, {2}}", "lists cannot nest at column 12");
    ERR("name == 'x' 'y'", "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query but found ''y'' at column 13");
    ERR("age IN {1, name}", "a list may hold only literals and arguments at column 12");
    ERR("age == $0 AND age == %@", "a query cannot mix %@ or %K with $n at column 22");
    ERR("age == %@ AND age == $1", "a query cannot mix $n with %@ or %K at column 22");
    ERR("age == $99999", "argument index too large at column 8");
    ERR("age == %d", "expected '%@' or '%K' at column 8");
    /* Columns count characters, not bytes. */
    ERR("name == '\xc3\xa9\xc3\xa9' AND age == 'x", "unterminated string at column 25");
    close_env(env);
}

TEST(query_schema_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    ERR("agee < 2", "unknown property 'agee' on class 'Dog' at column 1");
    ERR("age < 2 AND owner.nmae == 'x'", "unknown property 'nmae' on class 'Person' at column 19");
    ERR("name == 3", "cannot compare string property 'name' with int 3 at column 1");
    ERR("age == 'x'", "cannot compare int property 'age' with string \"x\" at column 1");
    ERR("alive == 1", "cannot compare bool property 'alive' with int 1 at column 1");
    ERR("alive < true", "cannot use < on bool property 'alive' with true at column 1");
    ERR("born == 3", "cannot compare timestamp property 'born' with int 3 at column 1");
    ERR("oid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)",
        "cannot compare objectId property 'oid' with uuid uuid(3b241101-e2bb-4255-8caf-4136c566a962) at column 1");
    ERR("age BEGINSWITH 'a'", "BEGINSWITH needs a string property, but 'age' is int at column 5");
    ERR("age ==[c] 3", "== with [c] or [d] needs a string property, but 'age' is int at column 5");
    ERR("name CONTAINS 3", "cannot compare string property 'name' with int 3 at column 1");
    ERR("age < nil", "cannot use < on int property 'age' with NULL at column 1");
    ERR("age.@count > 1", "@count needs a collection, a string or a binary, but 'age' is int at column 5");
    ERR("tags.@sum > 1", "@sum needs a collection of numbers, but 'tags' is list of string at column 6");
    ERR("age.@min > 1", "@min needs a collection of numbers or timestamps, but 'age' is int at column 5");
    ERR("name.first == 'x'", "key path continues past string property 'name' at column 6");
    ERR("tags['k'] == 'x'", "'[...]' needs a map or a mixed value, but 'tags' is list of string at column 5");
    ERR("tags.@keys == 'x'", "@keys needs a map, but 'tags' is list of string at column 6");
    ERR("name.@type == 'string'", "@type applies only to mixed values, but 'name' is string at column 6");
    ERR("extra.@type == 'strange'", "unknown type name \"strange\" for @type at column 1");
    ERR("ANY age == 3", "ANY needs a key path through a collection on the left at column 1");
    ERR("ALL owner.name == 'x'", "ALL needs a key path through a collection on the left at column 1");
    ERR("tags == friends.name", "Comparing two collection columns is not permitted at column 1");
    ERR("name == age", "cannot compare string property 'name' with int property 'age' using == at column 1");
    ERR("3 == 4", "a comparison needs a key path on one side at column 1");
    ERR("age BETWEEN {1}", "BETWEEN needs a list of two values {a, b} at column 13");
    ERR("age BETWEEN 3", "BETWEEN needs a list {...} or a list argument at column 13");
    ERR("name BETWEEN {'a', 'b'}", "BETWEEN needs a number or a timestamp, but 'name' is string at column 6");
    ERR("age IN 3", "IN needs a list {...} or a list argument at column 8");
    ERR("age IN {1, 'x'}", "cannot compare int property 'age' with string \"x\" at column 1");
    ERR("age == {1, 2}", "a list {...} can only follow IN or BETWEEN at column 8");
    ERR("3 IN age", "IN needs a list or a collection on its right at column 6");
    ERR("'x' IN scores", "cannot compare set of int property 'scores' with string \"x\" at column 8");
    ERR("@links.Cat.dogs.@count > 1", "unknown class 'Cat' in @links at column 1");
    ERR("@links.Person.cats.@count > 1", "unknown property 'cats' on class 'Person' at column 1");
    ERR("@links.Person.address.@count > 1", "property 'Person.address' does not link to class 'Dog' at column 1");
    ERR("SUBQUERY(name, $x, $x == 'a').@count > 1", "SUBQUERY needs a collection, but 'name' is string at column 10");
    ERR("SUBQUERY(friends, $f, $g.age > 1).@count > 0", "unknown variable '$g' at column 23");
    ERR("SUBQUERY(friends, $f, $f.agee > 1).@count > 0", "unknown property 'agee' on class 'Dog' at column 26");
    ERR("friends == nil", "a list or set of objects 'friends' is never nil at column 1");
    close_env(env);
}

TEST(query_arguments_bind_and_check)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    lar_query *q;
    size_t n;
    CHECK_OK(lar_query_parse(env, dog, "age < %@ AND name BEGINSWITH[c] %@", &q));
    CHECK_OK(lar_query_argument_count(q, &n));
    CHECK_EQ(n, 2);
    CHECK_STR(describe(q, 0), "age < $0 AND name BEGINSWITH[c] $1");
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age < $0 AND name BEGINSWITH[c] $1");
    lar_query_arg args[2] = {
        {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_INT, .as.integer = 3}},
        {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_STRING, .as.string = {"re\"x", 4}}},
    };
    CHECK_OK(lar_query_bind(q, args, 2));
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age < 3 AND name BEGINSWITH[c] \"re\\\"x\"");
    CHECK_STR(describe(q, 0), "age < $0 AND name BEGINSWITH[c] $1");
    CHECK_RC(lar_query_bind(q, args, 1), LAR_EINVAL);
    CHECK_MSG_HAS("the query takes 2 arguments, 1 given");
    /* A wrong type: the message names the argument; the query keeps no argument. */
    lar_query_arg bad[2] = {args[1], args[1]};
    CHECK_RC(lar_query_bind(q, bad, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "cannot compare int property 'age' with string \"re\\\"x\" (argument 0) at column 1");
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age < $0 AND name BEGINSWITH[c] $1");
    CHECK_OK(lar_query_bind(q, args, 2));
    /* Arguments are copied: changing the caller's buffer afterwards changes nothing. */
    char buffer[] = "abc";
    args[1].value.as.string = (lar_string){buffer, 3};
    CHECK_OK(lar_query_bind(q, args, 2));
    buffer[0] = 'X';
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age < 3 AND name BEGINSWITH[c] \"abc\"");
    /* A size no buffer has is refused before anything is read (found by fuzz_api: data + size
     * overflowed in the UTF-8 check), as a stored value's is; the query then has no arguments. */
    size_t sizes[] = {SIZE_MAX, UINT32_MAX};
    for (int i = 0; i < 2; i++) {
        args[1].value.as.string = (lar_string){buffer, sizes[i]};
        CHECK_RC(lar_query_bind(q, args, 2), LAR_EINVAL);
        CHECK_MSG_HAS("is too long");
    }
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age < $0 AND name BEGINSWITH[c] $1");
    lar_query_free(q);

    /* IN %@ and BETWEEN %@ take lists. */
    CHECK_OK(lar_query_parse(env, dog, "age IN %@ OR weight BETWEEN %@", &q));
    lar_value ints[] = {{.type = LAR_TYPE_INT, .as.integer = 1}, {.type = LAR_TYPE_INT, .as.integer = 5}};
    lar_query_arg lists[2] = {{.kind = LAR_QUERY_ARG_LIST, .list = ints, .list_count = 2},
                              {.kind = LAR_QUERY_ARG_LIST, .list = ints, .list_count = 2}};
    CHECK_OK(lar_query_bind(q, lists, 2));
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "age IN {1, 5} OR weight BETWEEN {1, 5}");
    lists[1].list_count = 1;
    CHECK_RC(lar_query_bind(q, lists, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "BETWEEN needs a list of two values, but argument 1 has 1 at column 29");
    lar_query_arg single[2] = {args[0], lists[0]};
    CHECK_RC(lar_query_bind(q, single, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "IN needs a list, but argument 0 is a single value at column 8");
    lar_query_free(q);

    CHECK_OK(lar_query_parse(env, dog, "age == $1 OR age == $0 OR age == $1", &q));
    CHECK_OK(lar_query_argument_count(q, &n));
    CHECK_EQ(n, 2);
    CHECK_RC(lar_query_bind(q, lists, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "argument 1 is a list, but only IN and BETWEEN take one at column 8");
    lar_query_free(q);

    /* %K: a key path argument, resolved when bound. */
    CHECK_OK(lar_query_parse(env, dog, "%K == %@ SORT(age ASC)", &q));
    CHECK_STR(describe(q, 0), "%K == %@ SORT(age ASC)");
    lar_query_arg kp[2] = {{.kind = LAR_QUERY_ARG_KEYPATH, .keypath = "owner.name"},
                           {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_STRING, .as.string = {"Ann", 3}}}};
    CHECK_OK(lar_query_bind(q, kp, 2));
    CHECK_STR(describe(q, 0), "owner.name == $1 SORT(age ASC)");
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "owner.name == \"Ann\" SORT(age ASC)");
    kp[0].keypath = "owner.nmae";
    CHECK_RC(lar_query_bind(q, kp, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message,
              "in key path argument 0 \"owner.nmae\" (for %K at column 1): unknown property 'nmae' on class 'Person' at column 7");
    kp[0].keypath = "tags"; /* a list of strings: any of them */
    CHECK_OK(lar_query_bind(q, kp, 2));
    CHECK_STR(describe(q, 0), "tags == $1 SORT(age ASC)");
    kp[0].keypath = "tags.@count";
    CHECK_RC(lar_query_bind(q, kp, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "cannot compare int property 'tags.@count' with string \"Ann\" (argument 1) at column 1");
    kp[0].keypath = "owner..name";
    CHECK_RC(lar_query_bind(q, kp, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "in key path argument 0 \"owner..name\": expected a property name or an operator after '.' but found '.' at column 7");
    kp[0].keypath = "age";
    CHECK_RC(lar_query_bind(q, kp, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "cannot compare int property 'age' with string \"Ann\" (argument 1) at column 1");
    CHECK_STR(describe(q, 0), "%K == %@ SORT(age ASC)");
    lar_query_arg swapped[2] = {kp[1], kp[0]};
    CHECK_RC(lar_query_bind(q, swapped, 2), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "argument 0 must be a key path, for %K at column 1");
    lar_query_free(q);

    /* An object argument: its class is checked. */
    lar_class person = class_id(env, "Person");
    CHECK_OK(lar_query_parse(env, dog, "owner == $0", &q));
    lar_query_arg obj = {.kind = LAR_QUERY_ARG_VALUE, .value = {.type = LAR_TYPE_LINK, .as.link = {person, 7}}};
    CHECK_OK(lar_query_bind(q, &obj, 1));
    CHECK_STR(describe(q, LAR_QUERY_DESCRIBE_VALUES), "owner == obj(\"Person\", 7)");
    obj.value.as.link.cls = dog;
    CHECK_RC(lar_query_bind(q, &obj, 1), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "cannot compare a link to class 'Person' with an object of class 'Dog' (an argument) at column 1");
    obj.value = (lar_value){.type = LAR_TYPE_STRING, .as.string = {"\xff", 1}};
    CHECK_RC(lar_query_bind(q, &obj, 1), LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, "argument 0: a string that is not valid UTF-8");
    obj.value = (lar_value){.type = LAR_TYPE_NULL};
    CHECK_OK(lar_query_bind(q, &obj, 1));
    lar_query_free(q);
    close_env(env);
}

TEST(query_api_misuse_and_buffers)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    lar_query *q = NULL;
    CHECK_RC(lar_query_parse(NULL, dog, "age < 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse(env, dog, NULL, &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse(env, dog, "age < 1", NULL), LAR_EINVAL);
    CHECK_RC(lar_query_parse(env, 999, "age < 1", &q), LAR_EINVAL);
    CHECK_RC(lar_query_parse(env, dog, "name == '\xff'", &q), LAR_EINVAL);
    CHECK_MSG_HAS("not valid UTF-8");
    CHECK_RC(lar_query_describe(NULL, NULL, 0, NULL, 0), LAR_EINVAL);
    CHECK_OK(lar_query_parse(env, dog, "age < 10 AND name == 'x'", &q));
    char small[8];
    size_t length;
    CHECK_RC(lar_query_describe(q, small, sizeof small, &length, 0), LAR_EINVAL);
    CHECK_EQ(length, strlen("age < 10 AND name == \"x\""));
    CHECK_STR(small, "age < 1");
    CHECK_RC(lar_query_describe(q, NULL, 0, &length, 0), LAR_EINVAL);
    CHECK_EQ(length, strlen("age < 10 AND name == \"x\""));
    CHECK_RC(lar_query_bind(q, NULL, 1), LAR_EINVAL);
    CHECK_OK(lar_query_bind(q, NULL, 0));
    lar_query_free(q);
    lar_query_free(NULL);
    /* Another class: key paths resolve against it. */
    lar_class person = class_id(env, "Person");
    CHECK_OK(lar_query_parse(env, person, "ANY dogs.age > 3 AND address.city == 'Oslo'", &q));
    CHECK_STR(describe(q, 0), "ANY dogs.age > 3 AND address.city == \"Oslo\"");
    lar_query_free(q);
    check_error(env, person, "age > 3", "unknown property 'age' on class 'Person' at column 1", __LINE__);
    close_env(env);
}

TEST(query_deep_nesting_is_refused_cleanly)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class dog = query_schema(env);
    size_t levels = 1000;
    char *text = malloc(levels * 2 + 16);
    size_t n = 0;
    for (size_t i = 0; i < levels; i++) text[n++] = '(';
    memcpy(text + n, "age < 1", 7);
    n += 7;
    for (size_t i = 0; i < levels; i++) text[n++] = ')';
    text[n] = 0;
    ERR(text, "the query nests deeper than 200 levels at column 201");
    n = 0;
    for (size_t i = 0; i < levels; i++) { memcpy(text + n, "!", 1); n++; }
    memcpy(text + n, "age < 1", 8);
    ERR(text, "the query nests deeper than 200 levels at column 201");
    /* 200 levels are fine, and long flat chains are not nesting. */
    n = 0;
    for (size_t i = 0; i < 199; i++) text[n++] = '(';
    memcpy(text + n, "age < 1", 7);
    n += 7;
    for (size_t i = 0; i < 199; i++) text[n++] = ')';
    text[n] = 0;
    lar_query *q;
    CHECK_OK(lar_query_parse(env, dog, text, &q));
    CHECK_STR(describe(q, 0), "age < 1");
    lar_query_free(q);
    /* The canonical text never nests deeper than the text it came from (fuzz_query found
     * 126 '!' whose description "NOT (NOT (...))" went past the limit). */
    static const char *const layers[] = {"!", "NOT ", "age < 1 OR age > 2 AND (", "SUBQUERY(friends, $f, "};
    free(text);
    text = malloc(20000);
    for (size_t k = 0; k < COUNT_OF(layers); k++) {
        n = 0;
        for (size_t i = 0; i < 200; i++) n += (size_t)sprintf(text + n, "%s", layers[k]);
        n += (size_t)sprintf(text + n, "age < 1");
        for (size_t i = 0; i < 200 && layers[k][strlen(layers[k]) - 1] == '('; i++) text[n++] = ')';
        for (size_t i = 0; i < 200 && k == 3; i++) n += (size_t)sprintf(text + n, ").@count > 0");
        text[n] = 0;
        CHECK_OK(lar_query_parse(env, dog, text, &q));
        char *canonical = malloc(n * 4 + 64);
        CHECK_OK(lar_query_describe(q, canonical, n * 4 + 64, NULL, 0));
        lar_query_free(q);
        CHECK_OK(lar_query_parse(env, dog, canonical, &q));
        CHECK_STR(describe(q, 0), canonical);
        lar_query_free(q);
        free(canonical);
    }
    free(text);
    size_t terms = 5000;
    text = malloc(terms * 16);
    n = 0;
    for (size_t i = 0; i < terms; i++) n += (size_t)sprintf(text + n, "%sage == %zu", i ? " OR " : "", i);
    CHECK_OK(lar_query_parse(env, dog, text, &q));
    size_t length;
    CHECK_RC(lar_query_describe(q, NULL, 0, &length, 0), LAR_EINVAL);
    CHECK(length > terms * 10);
    lar_query_free(q);
    free(text);
    /* Many strings: each costs its own size, not the rest of the text (this took
     * gigabytes when each string reserved the text's remainder). */
    terms = 20000;
    text = malloc(terms * 24);
    n = 0;
    for (size_t i = 0; i < terms; i++) n += (size_t)sprintf(text + n, "%sname == 'x\\n%zu'", i ? " OR " : "", i);
    CHECK_OK(lar_query_parse(env, dog, text, &q));
    lar_query_free(q);
    free(text);
    close_env(env);
}
