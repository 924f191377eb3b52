/* Objects: creating, reading and writing every scalar type, the value rules, deletion. */
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static const uint8_t OID[12] = {0x65, 0x4f, 0x1a, 0x2b, 0x00, 0xff, 0x10, 0x20, 0x30, 0x00, 0x01, 0x02};
static const uint8_t UUID[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
static const uint8_t BYTES[] = {0x00, 0x01, 0x00, 0xff, 0x00, 0x7f, 0x80, 0x00};
/* UTF-8 of 1, 2, 3 and 4 bytes: "héllo wörld ✓ 𝄞". */
static const char TEXT[] = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xf0\x9d\x84\x9e";

/* One value per scalar type, none of them a default. */
static lar_value sample(lar_type type)
{
    switch (type) {
    case LAR_TYPE_INT: return val_int(-1234567890123LL);
    case LAR_TYPE_BOOL: return val_bool(1);
    case LAR_TYPE_FLOAT: return val_float(3.25f);
    case LAR_TYPE_DOUBLE: return val_double(-2.5e300);
    case LAR_TYPE_STRING: return val_str(TEXT);
    case LAR_TYPE_BINARY: return val_bin(BYTES, sizeof BYTES);
    case LAR_TYPE_TIMESTAMP: return val_ts(-86400LL * 365 * 70, -123456789);
    case LAR_TYPE_OBJECT_ID: return val_oid(OID);
    case LAR_TYPE_UUID: return val_uuid(UUID);
    case LAR_TYPE_DECIMAL128: return val_dec(0x0123456789abcdefULL, 0xb040000000000000ULL);
    default: return val_null();
    }
}

static lar_value *all_samples(const all_types_schema *a, bool optional_null)
{
    static lar_value values[2 * SCALAR_TYPE_COUNT];
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        values[a->req[t]] = sample((lar_type)t);
        values[a->opt[t]] = optional_null ? val_null() : sample((lar_type)t);
    }
    return values;
}

/* The default of "the zero ... decimal": a decimal128 whose coefficient is zero. */
static bool decimal_is_zero(lar_decimal128 d)
{
    uint64_t combination = d.high >> 58 & 0x1f;
    if (combination >= 0x1e) return false; /* infinity or NaN */
    bool large_form = (d.high >> 61 & 0x3) == 0x3;
    uint64_t coefficient_high = large_form ? 0 : (d.high & 0x1ffffffffffffULL);
    return d.low == 0 && coefficient_high == 0;
}

/* "to give each property its default: 0, false, "", empty binary, the epoch, the zero
 * ObjectId, UUID and decimal, or null when optional" */
TEST(obj_create_with_defaults)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
    CHECK_EQ(obj.cls, a.cls);
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, NULL)); /* out "may be NULL" */
    commit_txn(txn);

    static const uint8_t zeros[16] = {0};
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, a.cls), 2);
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_INT]), val_int(0));
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_BOOL]), val_bool(0));
    CHECK_EQ(get_value(txn, obj, a.req[LAR_TYPE_FLOAT]).as.float32, 0.0f);
    CHECK_EQ(get_value(txn, obj, a.req[LAR_TYPE_DOUBLE]).as.float64, 0.0);
    lar_value s = get_value(txn, obj, a.req[LAR_TYPE_STRING]);
    CHECK_VALUE(s, val_str(""));
    CHECK(s.as.string.data != NULL && s.as.string.data[0] == '\0'); /* "followed by a NUL byte" */
    CHECK_EQ(get_value(txn, obj, a.req[LAR_TYPE_BINARY]).as.binary.size, 0);
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_TIMESTAMP]), val_ts(0, 0));
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_OBJECT_ID]), val_oid(zeros));
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_UUID]), val_uuid(zeros));
    lar_value d = get_value(txn, obj, a.req[LAR_TYPE_DECIMAL128]);
    CHECK_EQ(d.type, LAR_TYPE_DECIMAL128);
    CHECK(decimal_is_zero(d.as.decimal128));
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_EQ(get_value(txn, obj, a.req[t]).type, t);
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), val_null());
    }
    commit_txn(txn);
    close_env(env);
}

TEST(obj_every_scalar_type_round_trips)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value *values = all_samples(&a, false);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, values, a.count, &obj));
    /* Read back inside the write, then in a read transaction. */
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_VALUE(get_value(txn, obj, a.req[t]), sample((lar_type)t));
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), sample((lar_type)t));
    }
    commit_txn(txn);

    txn = begin_read(env);
    lar_value got[2 * SCALAR_TYPE_COUNT];
    CHECK_OK(lar_obj_get_all(txn, obj, got, a.count));
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_VALUE(get_value(txn, obj, a.req[t]), sample((lar_type)t));
        CHECK_VALUE(got[a.req[t]], sample((lar_type)t));
        CHECK_VALUE(got[a.opt[t]], sample((lar_type)t));
    }
    CHECK_EQ(got[a.req[LAR_TYPE_STRING]].as.string.data[sizeof TEXT - 1], '\0');
    commit_txn(txn);
    close_env(env);
}

/* Writes value into prop of a fresh object, then reads it back in the write and afterwards. */
static void round_trip(lar_env *env, const all_types_schema *a, uint32_t prop, lar_value value)
{
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a->cls, NULL, 0, &obj));
    CHECK_OK(lar_obj_set(txn, obj, prop, &value));
    CHECK_VALUE(get_value(txn, obj, prop), value);
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, obj, prop), value);
    commit_txn(txn);
}

TEST(obj_extreme_and_special_values_round_trip)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)16 << 20, LAR_ENV_NOSYNC);
    all_types_schema a = all_types_setup(env);
    for (int o = 0; o <= 1; o++) {
        const uint32_t *p = o ? a.opt : a.req;
        round_trip(env, &a, p[LAR_TYPE_INT], val_int(INT64_MIN));
        round_trip(env, &a, p[LAR_TYPE_INT], val_int(INT64_MAX));
        round_trip(env, &a, p[LAR_TYPE_BOOL], val_bool(0));
        round_trip(env, &a, p[LAR_TYPE_FLOAT], val_float(-0.0f));
        round_trip(env, &a, p[LAR_TYPE_FLOAT], val_float(FLT_MAX));
        round_trip(env, &a, p[LAR_TYPE_FLOAT], val_float(FLT_TRUE_MIN));
        round_trip(env, &a, p[LAR_TYPE_FLOAT], val_float(INFINITY));
        round_trip(env, &a, p[LAR_TYPE_DOUBLE], val_double(-0.0));
        round_trip(env, &a, p[LAR_TYPE_DOUBLE], val_double(DBL_MIN));
        round_trip(env, &a, p[LAR_TYPE_DOUBLE], val_double(-INFINITY));
        round_trip(env, &a, p[LAR_TYPE_DOUBLE], val_double(0.1));
        /* Strings: empty, one NUL, NULs inside, every UTF-8 length, long. */
        round_trip(env, &a, p[LAR_TYPE_STRING], val_str(""));
        round_trip(env, &a, p[LAR_TYPE_STRING], val_strn("\0", 1));
        round_trip(env, &a, p[LAR_TYPE_STRING], val_strn("a\0b\0", 4));
        round_trip(env, &a, p[LAR_TYPE_STRING], val_str("\x7f\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf")); /* maxima */
        size_t big = 1 << 20;
        char *text = malloc(big);
        CHECK(text != NULL);
        for (size_t i = 0; i < big; i++) text[i] = (char)('A' + i % 26);
        round_trip(env, &a, p[LAR_TYPE_STRING], val_strn(text, big));
        /* Binaries: empty (with and without a pointer), zero bytes, large. */
        round_trip(env, &a, p[LAR_TYPE_BINARY], val_bin(NULL, 0));
        round_trip(env, &a, p[LAR_TYPE_BINARY], val_bin(BYTES, 0));
        uint8_t nuls[64] = {0};
        round_trip(env, &a, p[LAR_TYPE_BINARY], val_bin(nuls, sizeof nuls));
        round_trip(env, &a, p[LAR_TYPE_BINARY], val_bin(text, big));
        free(text);
        /* Timestamps: negative seconds with negative nanoseconds, extremes. */
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(-1, -1));
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(-1, -999999999));
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(0, 999999999));
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(1700000000, 999999999));
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(INT64_MAX, 999999999));
        round_trip(env, &a, p[LAR_TYPE_TIMESTAMP], val_ts(INT64_MIN, -999999999));
        /* ObjectId and UUID bytes, all 0xff. */
        uint8_t ff[16];
        memset(ff, 0xff, sizeof ff);
        round_trip(env, &a, p[LAR_TYPE_OBJECT_ID], val_oid(ff));
        round_trip(env, &a, p[LAR_TYPE_UUID], val_uuid(ff));
        /* Decimal128 bit patterns are kept exactly: NaN, infinity, negative zero, arbitrary. */
        round_trip(env, &a, p[LAR_TYPE_DECIMAL128], val_dec(0, 0x7c00000000000000ULL));
        round_trip(env, &a, p[LAR_TYPE_DECIMAL128], val_dec(0, 0x7800000000000000ULL));
        round_trip(env, &a, p[LAR_TYPE_DECIMAL128], val_dec(0, 0xb040000000000000ULL));
        round_trip(env, &a, p[LAR_TYPE_DECIMAL128], val_dec(UINT64_MAX, UINT64_MAX));
        round_trip(env, &a, p[LAR_TYPE_DECIMAL128], val_dec(1, 0x3040000000000000ULL));
    }
    close_env(env);
}

/* "nanoseconds: 0...999999999, of the same sign as seconds when seconds != 0";
 * a bad timestamp is LAR_EINVAL. */
TEST(obj_timestamp_nanoseconds_rule)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
    const lar_value bad[] = {val_ts(0, 1000000000), val_ts(5, -1), val_ts(-5, 1), val_ts(-5, -1000000000),
                             val_ts(5, 1000000000), val_ts(0, INT32_MAX), val_ts(0, INT32_MIN)};
    lar_value *values = all_samples(&a, true);
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        CHECK_RC(lar_obj_set(txn, obj, a.req[LAR_TYPE_TIMESTAMP], &bad[i]), LAR_EINVAL);
        CHECK_RC(lar_obj_set(txn, obj, a.opt[LAR_TYPE_TIMESTAMP], &bad[i]), LAR_EINVAL);
        values[a.req[LAR_TYPE_TIMESTAMP]] = bad[i];
        CHECK_RC(lar_obj_create(txn, a.cls, values, a.count, NULL), LAR_EINVAL);
    }
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_TIMESTAMP]), val_ts(0, 0));
    CHECK_EQ(count_objects(txn, a.cls), 1);
    commit_txn(txn);
    close_env(env);
}

/* "A value of type LAR_TYPE_INT is accepted for float and double properties." */
TEST(obj_int_accepted_for_float_and_double)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value *values = all_samples(&a, false);
    values[a.req[LAR_TYPE_FLOAT]] = val_int(7);
    values[a.opt[LAR_TYPE_FLOAT]] = val_int(-3);
    values[a.req[LAR_TYPE_DOUBLE]] = val_int(1LL << 40);
    values[a.opt[LAR_TYPE_DOUBLE]] = val_int(-12);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, values, a.count, &obj));
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_FLOAT]), val_float(7.0f));
    CHECK_VALUE(get_value(txn, obj, a.opt[LAR_TYPE_FLOAT]), val_float(-3.0f));
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_DOUBLE]), val_double(1099511627776.0));
    CHECK_VALUE(get_value(txn, obj, a.opt[LAR_TYPE_DOUBLE]), val_double(-12.0));
    commit_txn(txn);
    close_env(env);
}

/* A class of required ints and doubles only has rows of bare 8-byte slots, written without a per-type switch. */
TEST(obj_class_of_numbers_round_trips)
{
    static const lar_property_def props[] = {
        PROP("count", LAR_TYPE_INT, 0),
        PROP("ratio", LAR_TYPE_DOUBLE, 0),
        PROP("total", LAR_TYPE_INT, 0),
    };
    lar_class_def def = CLASS_DEF("Numbers", props);
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Numbers");
    lar_txn *txn = begin_write(env);
    lar_value given[3] = {val_int(INT64_MIN), val_int(-12), val_int(INT64_MAX)}; /* an int for the double */
    lar_obj first, second;
    CHECK_OK(lar_obj_create(txn, cls, given, 3, &first));
    lar_value more[3] = {val_int(0), val_double(-0.5), val_int(1)};
    CHECK_OK(lar_obj_create(txn, cls, more, 3, &second));
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    txn = begin_read(env);
    lar_value got[3];
    CHECK_OK(lar_obj_get_all(txn, first, got, 3));
    CHECK_VALUE(got[0], val_int(INT64_MIN));
    CHECK_VALUE(got[1], val_double(-12.0));
    CHECK_VALUE(got[2], val_int(INT64_MAX));
    CHECK_OK(lar_obj_get_all(txn, second, got, 3));
    CHECK_VALUE(got[1], val_double(-0.5));
    CHECK_VALUE(got[2], val_int(1));
    commit_txn(txn);
    close_env(env);
}

TEST(obj_optional_properties_hold_null)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, all_samples(&a, true), a.count, &obj));
    lar_value null = val_null();
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), val_null());
        lar_value v = sample((lar_type)t);
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &v));
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), v);
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &null));
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), val_null());
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &v)); /* leave a value for the read below */
    }
    commit_txn(txn);
    txn = begin_read(env);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++)
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), sample((lar_type)t));
    commit_txn(txn);
    close_env(env);
}

/* "LAR_ETYPE (a value of the wrong type, or null for a required property)" */
TEST(obj_null_for_required_property_is_a_type_error)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
    lar_value null = val_null();
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_RC(lar_obj_set(txn, obj, a.req[t], &null), LAR_ETYPE);
        lar_value *values = all_samples(&a, false);
        values[a.req[t]] = null;
        CHECK_RC(lar_obj_create(txn, a.cls, values, a.count, NULL), LAR_ETYPE);
    }
    CHECK_EQ(count_objects(txn, a.cls), 1);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_wrong_value_type_is_a_type_error)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, all_samples(&a, false), a.count, &obj));
    for (int prop_type = LAR_TYPE_INT; prop_type <= LAR_TYPE_DECIMAL128; prop_type++) {
        for (int value_type = LAR_TYPE_INT; value_type <= LAR_TYPE_DECIMAL128; value_type++) {
            bool alias = value_type == LAR_TYPE_INT &&
                         (prop_type == LAR_TYPE_FLOAT || prop_type == LAR_TYPE_DOUBLE);
            if (value_type == prop_type || alias) continue;
            lar_value v = sample((lar_type)value_type);
            CHECK_RC(lar_obj_set(txn, obj, a.req[prop_type], &v), LAR_ETYPE);
            CHECK_RC(lar_obj_set(txn, obj, a.opt[prop_type], &v), LAR_ETYPE);
            lar_value *values = all_samples(&a, false);
            values[a.req[prop_type]] = v;
            CHECK_RC(lar_obj_create(txn, a.cls, values, a.count, NULL), LAR_ETYPE);
        }
        /* A link is no scalar's value. */
        lar_value link = {LAR_TYPE_LINK, {.link = obj}};
        CHECK_RC(lar_obj_set(txn, obj, a.req[prop_type], &link), LAR_ETYPE);
    }
    /* Nothing changed and nothing was created. */
    CHECK_EQ(count_objects(txn, a.cls), 1);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++)
        CHECK_VALUE(get_value(txn, obj, a.req[t]), sample((lar_type)t));
    commit_txn(txn);
    close_env(env);
}

/* "LAR_EINVAL (... invalid UTF-8 ...)"; the transaction stays usable. */
TEST(obj_invalid_utf8_is_refused)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
    static const char *const bad[] = {
        "\xff",             /* never valid */
        "abc\x80",          /* lone continuation byte */
        "\xc3",             /* truncated 2-byte sequence */
        "\xe2\x82",         /* truncated 3-byte sequence */
        "\xc0\xaf",         /* overlong '/' */
        "\xe0\x80\xaf",     /* overlong '/' */
        "\xed\xa0\x80",     /* UTF-16 surrogate */
        "\xf4\x90\x80\x80", /* above U+10FFFF */
    };
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        lar_value v = val_str(bad[i]);
        CHECK_RC(lar_obj_set(txn, obj, a.req[LAR_TYPE_STRING], &v), LAR_EINVAL);
        CHECK_RC(lar_obj_set(txn, obj, a.opt[LAR_TYPE_STRING], &v), LAR_EINVAL);
        lar_value *values = all_samples(&a, true);
        values[a.req[LAR_TYPE_STRING]] = v;
        CHECK_RC(lar_obj_create(txn, a.cls, values, a.count, NULL), LAR_EINVAL);
    }
    /* Binary properties take any bytes. */
    lar_value raw = val_bin("\xff\xfe", 2);
    CHECK_OK(lar_obj_set(txn, obj, a.req[LAR_TYPE_BINARY], &raw));
    CHECK_VALUE(get_value(txn, obj, a.req[LAR_TYPE_STRING]), val_str(""));
    CHECK_EQ(count_objects(txn, a.cls), 1);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_create_with_wrong_value_count)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_value values[5] = {val_int(1), val_str("x"), val_null(), val_double(1), val_int(9)};
    values[p.id] = val_int(1);
    values[p.name] = val_str("x");
    values[p.age] = val_null();
    values[p.score] = val_double(1);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 3, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 5, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 1, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_create(txn, p.cls, NULL, 4, NULL), LAR_EINVAL);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    CHECK_OK(lar_obj_create(txn, p.cls, values, 4, NULL));
    commit_txn(txn);
    close_env(env);
}

TEST(obj_get_set_argument_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_value v, values[5];
    lar_value age = val_int(1);
    /* Property index out of range. */
    CHECK_RC(lar_obj_get(txn, ada, 4, &v), LAR_EINVAL);
    CHECK_RC(lar_obj_get(txn, ada, UINT32_MAX, &v), LAR_EINVAL);
    CHECK_RC(lar_obj_set(txn, ada, 4, &age), LAR_EINVAL);
    /* Wrong count for get_all. */
    CHECK_RC(lar_obj_get_all(txn, ada, values, 3), LAR_EINVAL);
    CHECK_RC(lar_obj_get_all(txn, ada, values, 5), LAR_EINVAL);
    CHECK_OK(lar_obj_get_all(txn, ada, values, 4));
    CHECK_VALUE(values[p.name], val_str("Ada"));
    /* Unknown class. */
    lar_obj stranger = {p.cls + 100, ada.key};
    int exists;
    uint64_t n;
    lar_value key = val_int(1);
    lar_obj found;
    lar_iter *iter = NULL;
    CHECK_RC(lar_obj_get(txn, stranger, 0, &v), LAR_EINVAL);
    CHECK_RC(lar_obj_get_all(txn, stranger, values, 4), LAR_EINVAL);
    CHECK_RC(lar_obj_set(txn, stranger, 0, &age), LAR_EINVAL);
    CHECK_RC(lar_obj_delete(txn, stranger), LAR_EINVAL);
    CHECK_RC(lar_obj_exists(txn, stranger, &exists), LAR_EINVAL);
    CHECK_RC(lar_obj_find(txn, stranger.cls, &key, &found), LAR_EINVAL);
    CHECK_RC(lar_objects_count(txn, stranger.cls, &n), LAR_EINVAL);
    CHECK_RC(lar_objects_delete_all(txn, stranger.cls), LAR_EINVAL);
    CHECK_RC(lar_obj_create(txn, stranger.cls, NULL, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_open(txn, stranger.cls, &iter), LAR_EINVAL);
    CHECK(iter == NULL);
    /* None of it hurt the transaction. */
    CHECK_VALUE(get_value(txn, ada, p.age), val_int(36));
    commit_txn(txn);
    close_env(env);
}

/* An object of one class named with another class: there is no such object. */
TEST(obj_reference_with_another_class)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_property_def props[] = {PROP("label", LAR_TYPE_STRING, 0)};
    lar_class_def other_def = CLASS_DEF("Other", props);
    CHECK_OK(lar_schema_apply(env, &other_def, 1, 1));
    lar_class other = class_id(env, "Other");
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_obj wrong = {other, ada.key};
    lar_value v, all[1];
    lar_value label = val_str("x");
    CHECK_RC(lar_obj_get(txn, wrong, 0, &v), LAR_EDELETED);
    CHECK_RC(lar_obj_get_all(txn, wrong, all, 1), LAR_EDELETED);
    CHECK_RC(lar_obj_set(txn, wrong, 0, &label), LAR_EDELETED);
    CHECK_RC(lar_obj_delete(txn, wrong), LAR_EDELETED);
    CHECK(!obj_exists(txn, wrong));
    CHECK(obj_exists(txn, ada));
    commit_txn(txn);
    close_env(env);
}

TEST(obj_deleted_object_reports_deleted)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_obj grace = person_create(txn, &p, 2, "Grace", 45, 8.25);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, ada));
    lar_value v, all[4], age = val_int(1);
    CHECK_RC(lar_obj_get(txn, ada, p.name, &v), LAR_EDELETED);
    CHECK_RC(lar_obj_get_all(txn, ada, all, 4), LAR_EDELETED);
    CHECK_RC(lar_obj_set(txn, ada, p.age, &age), LAR_EDELETED);
    CHECK_RC(lar_obj_delete(txn, ada), LAR_EDELETED); /* "already deleted" */
    CHECK(!obj_exists(txn, ada));
    CHECK(obj_exists(txn, grace));
    lar_value key = val_int(1);
    lar_obj found;
    CHECK_RC(lar_obj_find(txn, p.cls, &key, &found), LAR_ENOTFOUND);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    commit_txn(txn);

    /* "A reference ... stays valid to hold after its transaction ends, and functions report
     * LAR_EDELETED once it is deleted." */
    txn = begin_read(env);
    CHECK_RC(lar_obj_get(txn, ada, p.name, &v), LAR_EDELETED);
    CHECK(!obj_exists(txn, ada));
    CHECK_VALUE(get_value(txn, grace, p.name), val_str("Grace"));
    commit_txn(txn);

    /* A key that was never used. */
    txn = begin_read(env);
    lar_obj never = {p.cls, grace.key + 1000};
    CHECK_RC(lar_obj_get(txn, never, p.name, &v), LAR_EDELETED);
    CHECK(!obj_exists(txn, never));
    commit_txn(txn);
    close_env(env);
}

TEST(obj_exists_follows_the_transaction_view)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    CHECK(obj_exists(txn, ada));
    commit_txn(txn);

    lar_txn *before = begin_read(env);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, ada));
    CHECK(!obj_exists(txn, ada));
    commit_txn(txn);
    CHECK(obj_exists(before, ada)); /* its snapshot predates the delete */
    commit_txn(before);
    txn = begin_read(env);
    CHECK(!obj_exists(txn, ada));
    int exists;
    CHECK_RC(lar_obj_exists(txn, ada, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_exists(NULL, ada, &exists), LAR_EINVAL);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_set_every_type_and_read_back_later)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        lar_value v = sample((lar_type)t);
        CHECK_OK(lar_obj_set(txn, obj, a.req[t], &v));
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &v));
    }
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    a = all_types_lookup(env);
    txn = begin_read(env);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        CHECK_VALUE(get_value(txn, obj, a.req[t]), sample((lar_type)t));
        CHECK_VALUE(get_value(txn, obj, a.opt[t]), sample((lar_type)t));
    }
    commit_txn(txn);
    close_env(env);
}

static void check_all(lar_txn *txn, lar_obj obj, const all_types_schema *a, const lar_value *expect)
{
    for (uint32_t i = 0; i < a->count; i++) CHECK_VALUE(get_value(txn, obj, i), expect[i]);
}

/* A set of a fixed-width property rewrites its slot and null bit only: every other
 * property, strings and binaries among them, reads as before. */
TEST(obj_set_changes_one_property_and_keeps_the_rest)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    all_types_schema a = all_types_setup(env);
    lar_value expect[2 * SCALAR_TYPE_COUNT];
    memcpy(expect, all_samples(&a, false), sizeof expect);
    lar_txn *txn = begin_write(env);
    lar_obj obj, other;
    CHECK_OK(lar_obj_create(txn, a.cls, expect, a.count, &obj));
    CHECK_OK(lar_obj_create(txn, a.cls, all_samples(&a, true), a.count, &other));
    const lar_value changed[] = {val_int(42), val_bool(0), val_float(-1.5f), val_double(0.125)};
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        if (t == LAR_TYPE_STRING || t == LAR_TYPE_BINARY) continue;
        lar_value null = val_null(), v = sample((lar_type)t);
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &null));
        expect[a.opt[t]] = null;
        check_all(txn, obj, &a, expect);
        CHECK_OK(lar_obj_set(txn, obj, a.opt[t], &v));
        expect[a.opt[t]] = v;
        check_all(txn, obj, &a, expect);
        if (t <= LAR_TYPE_DOUBLE) {
            CHECK_OK(lar_obj_set(txn, obj, a.req[t], &changed[t - LAR_TYPE_INT]));
            expect[a.req[t]] = changed[t - LAR_TYPE_INT];
            check_all(txn, obj, &a, expect);
        }
    }
    check_all(txn, other, &a, all_samples(&a, true));
    commit_txn(txn);
    txn = begin_read(env);
    check_all(txn, obj, &a, expect);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_indexed_properties_can_be_written_and_changed)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {
        PROP("tag", LAR_TYPE_STRING, LAR_PROP_INDEXED), PROP("n", LAR_TYPE_INT, LAR_PROP_INDEXED),
        PROP("flag", LAR_TYPE_BOOL, LAR_PROP_INDEXED | LAR_PROP_OPTIONAL),
        PROP("when", LAR_TYPE_TIMESTAMP, LAR_PROP_INDEXED),
    };
    lar_class_def def = CLASS_DEF("Tagged", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Tagged");
    uint32_t tag = prop_id(env, cls, "tag"), n = prop_id(env, cls, "n"), flag = prop_id(env, cls, "flag");
    lar_txn *txn = begin_write(env);
    lar_obj objs[50];
    for (int i = 0; i < 50; i++) {
        CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &objs[i]));
        lar_value v = val_str(i % 2 ? "odd" : "even"); /* many objects share a value */
        CHECK_OK(lar_obj_set(txn, objs[i], tag, &v));
        v = val_int(i % 5);
        CHECK_OK(lar_obj_set(txn, objs[i], n, &v));
    }
    for (int i = 0; i < 50; i += 3) {
        lar_value v = val_str("changed");
        CHECK_OK(lar_obj_set(txn, objs[i], tag, &v));
        v = val_bool(1);
        CHECK_OK(lar_obj_set(txn, objs[i], flag, &v));
    }
    for (int i = 0; i < 50; i += 7) CHECK_OK(lar_obj_delete(txn, objs[i]));
    commit_txn(txn);
    txn = begin_read(env);
    for (int i = 0; i < 50; i++) {
        if (i % 7 == 0) {
            CHECK(!obj_exists(txn, objs[i]));
            continue;
        }
        CHECK_VALUE(get_value(txn, objs[i], tag), val_str(i % 3 == 0 ? "changed" : i % 2 ? "odd" : "even"));
        CHECK_VALUE(get_value(txn, objs[i], n), val_int(i % 5));
        CHECK_VALUE(get_value(txn, objs[i], flag), i % 3 == 0 ? val_bool(1) : val_null());
    }
    commit_txn(txn);
    close_env(env);
}

/* "Strings and binary values read from the database are borrowed ... and stay valid until
 * the transaction that read them ends." */
TEST(obj_strings_read_stay_valid_until_the_transaction_ends)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);

    /* In a read transaction, across many other reads. */
    txn = begin_read(env);
    lar_value name = get_value(txn, ada, p.name);
    for (int i = 0; i < 100; i++) {
        lar_value all[4];
        CHECK_OK(lar_obj_get_all(txn, ada, all, 4));
        (void)count_by_iteration(txn, p.cls);
    }
    CHECK_VALUE(name, val_str("Ada"));
    commit_txn(txn);

    /* In a write transaction, across writes to the same object and many others. */
    txn = begin_write(env);
    name = get_value(txn, ada, p.name);
    lar_value all[4];
    CHECK_OK(lar_obj_get_all(txn, ada, all, 4));
    lar_value changed = val_str("Augusta Ada King, Countess of Lovelace");
    CHECK_OK(lar_obj_set(txn, ada, p.name, &changed));
    for (int64_t id = 2; id < 2000; id++) person_create(txn, &p, id, "filler filler filler filler", 1, 1);
    lar_value renamed = get_value(txn, ada, p.name);
    CHECK_OK(lar_obj_delete(txn, ada));
    CHECK_VALUE(name, val_str("Ada"));
    CHECK_EQ(name.as.string.data[3], '\0');
    CHECK_VALUE(all[p.name], val_str("Ada"));
    CHECK_VALUE(renamed, changed);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_count_follows_creates_and_deletes)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    lar_obj objs[100];
    for (int i = 0; i < 100; i++) {
        objs[i] = person_create(txn, &p, i, "n", 1, 1);
        CHECK_EQ(count_objects(txn, p.cls), i + 1);
    }
    commit_txn(txn);

    txn = begin_write(env);
    for (int i = 0; i < 100; i += 2) CHECK_OK(lar_obj_delete(txn, objs[i]));
    CHECK_EQ(count_objects(txn, p.cls), 50);
    CHECK_EQ(count_by_iteration(txn, p.cls), 50);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);

    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 100);
    uint64_t n;
    CHECK_RC(lar_objects_count(txn, p.cls, NULL), LAR_EINVAL);
    CHECK_RC(lar_objects_count(NULL, p.cls, &n), LAR_EINVAL);
    commit_txn(txn);
    close_env(env);
}

TEST(obj_delete_all_empties_one_class)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_property_def props[] = {PROP("name", LAR_TYPE_STRING, LAR_PROP_PRIMARY_KEY)};
    lar_class_def dog_def = CLASS_DEF("Dog", props);
    CHECK_OK(lar_schema_apply(env, &dog_def, 1, 1));
    lar_class dog = class_id(env, "Dog");
    lar_txn *txn = begin_write(env);
    lar_obj last = {0, 0};
    for (int i = 0; i < 100; i++) last = person_create(txn, &p, i, "n", i, i);
    uint64_t last_stamp = 0;
    CHECK_OK(lar_obj_stamp(txn, last, &last_stamp));
    lar_value rex = val_str("Rex");
    CHECK_OK(lar_obj_create(txn, dog, &rex, 1, NULL));
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_objects_delete_all(txn, p.cls));
    CHECK_EQ(count_objects(txn, p.cls), 0);
    CHECK_EQ(count_by_iteration(txn, p.cls), 0);
    for (int i = 0; i < 100; i++) {
        lar_value key = val_int(i);
        lar_obj found;
        CHECK_RC(lar_obj_find(txn, p.cls, &key, &found), LAR_ENOTFOUND);
    }
    CHECK(!obj_exists(txn, last));
    CHECK_EQ(count_objects(txn, dog), 1); /* other classes are untouched */
    /* The class takes new objects, with the old primary keys; keyed by its int primary
     * key, under the old keys with new stamps. */
    lar_obj again = person_create(txn, &p, 5, "again", 1, 1);
    uint64_t stamp = 0;
    CHECK_OK(lar_obj_stamp(txn, again, &stamp));
    CHECK(stamp > last_stamp);
    CHECK_OK(lar_objects_delete_all(txn, p.cls)); /* twice, and on an already empty class */
    person_create(txn, &p, 5, "again", 1, 1);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 5), p.name), val_str("again"));
    lar_value key = val_str("Rex");
    lar_obj found;
    CHECK_OK(lar_obj_find(txn, dog, &key, &found));
    commit_txn(txn);
    close_env(env);
}

/* "An object key, unique within its class and never reused." */
TEST(obj_keys_are_never_reused)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "a", 1, 1);
    person_create(txn, &p, 2, "b", 1, 1);
    lar_obj newest = person_create(txn, &p, 3, "c", 1, 1);
    commit_txn(txn);

    /* Delete the newest object, then create: the new key is still above it. */
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, newest));
    commit_txn(txn);
    txn = begin_write(env);
    lar_obj next = person_create(txn, &p, 4, "d", 1, 1);
    CHECK(next.key > newest.key);
    /* Also within one transaction. */
    CHECK_OK(lar_obj_delete(txn, next));
    lar_obj after = person_create(txn, &p, 5, "e", 1, 1);
    CHECK(after.key > next.key);
    CHECK_OK(lar_objects_delete_all(txn, p.cls));
    commit_txn(txn);
    close_env(env);

    /* And after reopening an emptied class. */
    env = open_env(path);
    txn = begin_write(env);
    lar_obj reopened = person_create(txn, &p, 6, "f", 1, 1);
    CHECK(reopened.key > after.key);
    commit_txn(txn);
    close_env(env);
}

/* Object rows are read through a cursor the transaction keeps per table (kv/row_cursor.c),
 * which guesses that a read follows the last one: reads in any order, across deletes,
 * appends and rewrites in one write, and in a renewed read, each get their own row. */
TEST(obj_reads_in_any_order_get_their_own_rows)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj objs[40];
    for (int i = 0; i < 40; i++) objs[i] = person_create(txn, &p, i, "p", i, 0);
    static const int order[] = {0, 1, 2, 5, 4, 4, 39, 38, 10, 11, 13, 12};
    for (size_t i = 0; i < COUNT_OF(order); i++)
        CHECK_VALUE(get_value(txn, objs[order[i]], p.age), val_int(order[i]));
    CHECK_OK(lar_obj_delete(txn, objs[11]));
    CHECK_OK(lar_obj_delete(txn, objs[12]));
    CHECK_VALUE(get_value(txn, objs[10], p.age), val_int(10));
    CHECK_RC(lar_obj_get(txn, objs[11], p.age, &(lar_value){0}), LAR_EDELETED);
    CHECK_VALUE(get_value(txn, objs[13], p.age), val_int(13));
    lar_obj added = person_create(txn, &p, 100, "q", 100, 0);
    lar_value name = val_str("a longer name than before");
    CHECK_OK(lar_obj_set(txn, objs[39], p.name, &name));
    CHECK_VALUE(get_value(txn, objs[38], p.age), val_int(38));
    CHECK_VALUE(get_value(txn, added, p.age), val_int(100));
    CHECK_VALUE(get_value(txn, objs[39], p.name), name);
    CHECK_RC(lar_obj_get(txn, objs[12], p.age, &(lar_value){0}), LAR_EDELETED);
    commit_txn(txn);

    txn = begin_read(env);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 40; i++) {
            if (i == 11 || i == 12) continue;
            CHECK_VALUE(get_value(txn, objs[i], p.age), val_int(i));
        }
        CHECK_RC(lar_obj_get(txn, objs[12], p.age, &(lar_value){0}), LAR_EDELETED);
        CHECK_VALUE(get_value(txn, added, p.age), val_int(100));
        CHECK_VALUE(get_value(txn, objs[0], p.age), val_int(0));
        CHECK_OK(lar_txn_commit(txn));
        CHECK_OK(lar_txn_renew(txn));
    }
    commit_txn(txn);
    close_env(env);
}
