/* The query lexer: one token at a time, each with its 1-based column in characters. */
#include "query/query.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Counts from the last position asked for when it is not past at: tokens come in order,
 * so a query's columns cost one pass over its text. */
int lex_column(lexer *lx, const char *at)
{
    const char *p = lx->text;
    int column = 1;
    if (lx->counted && lx->counted <= at) {
        p = lx->counted;
        column = lx->counted_column;
    }
    for (; p < at && p < lx->end; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) column++;
    lx->counted = p;
    lx->counted_column = column;
    return column;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
}
static bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }

static int fail_at(lexer *lx, const char *at, const char *what)
{
    return lar_fail(LAR_EINVAL, "%s at column %d", what, lex_column(lx, at));
}

static bool word_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static int hex_value(char c)
{
    return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) out[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static bool read_u4(const char *p, const char *end, uint32_t *out)
{
    if (end - p < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        if (!is_hex(p[i])) return false;
        v = v << 4 | (uint32_t)hex_value(p[i]);
    }
    *out = v;
    return true;
}

/* A quoted string starting at lx->at (the quote). */
static int lex_string(lexer *lx, token *t)
{
    const char *start = lx->at, *p = start + 1;
    char quote = *start;
    /* The decoded string is never longer than its source, up to the closing quote. */
    const char *close = p;
    while (close < lx->end && *close != quote) close += *close == '\\' ? 2 : 1;
    if (close > lx->end) close = lx->end;
    char *out = arena_alloc(lx->arena, (size_t)(close - p) + 1);
    if (!out) return lar_fail(LAR_ENOMEM, "out of memory");
    size_t n = 0;
    for (;;) {
        if (p >= lx->end) return fail_at(lx, start, "unterminated string");
        char c = *p;
        if (c == quote) { p++; break; }
        if (c != '\\') { out[n++] = c; p++; continue; }
        const char *escape = p;
        p++;
        if (p >= lx->end) return fail_at(lx, start, "unterminated string");
        switch (*p++) {
        case '\\': out[n++] = '\\'; break;
        case '"': out[n++] = '"'; break;
        case '\'': out[n++] = '\''; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case '0': out[n++] = 0; break;
        case 'u': {
            uint32_t cp;
            if (!read_u4(p, lx->end, &cp)) return fail_at(lx, escape, "bad \\u escape in string");
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t low;
                if (lx->end - p < 6 || p[0] != '\\' || p[1] != 'u' || !read_u4(p + 2, lx->end, &low) ||
                    low < 0xDC00 || low > 0xDFFF)
                    return fail_at(lx, escape, "unpaired surrogate in \\u escape");
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail_at(lx, escape, "unpaired surrogate in \\u escape");
            }
            /* At most 4 bytes from 6 or 12 source bytes: still within the buffer. */
            put_utf8(out, &n, cp);
            break;
        }
        default:
            return fail_at(lx, escape, "unknown escape in string");
        }
    }
    t->kind = TOK_STRING;
    t->value.type = LAR_TYPE_STRING;
    t->value.as.string.data = out;
    t->value.as.string.size = n;
    lx->at = p;
    t->length = (size_t)(p - start);
    return LAR_OK;
}

/* T<seconds>:<nanoseconds>, either signed. */
static bool lex_timestamp(lexer *lx, token *t)
{
    const char *p = lx->at + 1, *end = lx->end;
    int64_t parts[2];
    for (int i = 0; i < 2; i++) {
        bool negative = p < end && *p == '-';
        if (negative) p++;
        if (p >= end || !is_digit(*p)) return false;
        uint64_t v = 0;
        while (p < end && is_digit(*p)) {
            if (v > (uint64_t)INT64_MAX / 10) return false;
            v = v * 10 + (uint64_t)(*p++ - '0');
        }
        if (v > (uint64_t)INT64_MAX) return false;
        parts[i] = negative ? -(int64_t)v : (int64_t)v;
        if (i == 0) {
            if (p >= end || *p != ':') return false;
            p++;
        }
    }
    if (p < end && is_ident(*p)) return false;
    t->kind = TOK_TIMESTAMP;
    t->value.type = LAR_TYPE_TIMESTAMP;
    t->value.as.timestamp.seconds = parts[0];
    t->value.as.timestamp.nanoseconds = (int32_t)(parts[1] > INT32_MAX ? INT32_MAX : parts[1] < INT32_MIN ? INT32_MIN : parts[1]);
    if (parts[1] > 999999999 || parts[1] < -999999999) t->value.as.timestamp.nanoseconds = INT32_MAX;
    lx->at = p;
    return true;
}

/* A number at lx->at: [+-] digits, 0x hex, floats, [+-]inf / nan. */
static int lex_number(lexer *lx, token *t)
{
    const char *start = lx->at, *p = start, *end = lx->end;
    bool negative = false;
    if (*p == '+' || *p == '-') negative = *p++ == '-';
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (p >= end || !is_hex(*p)) return fail_at(lx, start, "bad hexadecimal number");
        uint64_t v = 0;
        while (p < end && is_hex(*p)) {
            if (v >> 60) return fail_at(lx, start, "integer out of range");
            v = v << 4 | (uint64_t)hex_value(*p++);
        }
        if (p < end && is_ident(*p)) return fail_at(lx, start, "bad hexadecimal number");
        if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
            return fail_at(lx, start, "integer out of range");
        t->kind = TOK_INT;
        t->value.type = LAR_TYPE_INT;
        t->value.as.integer = negative ? (int64_t)(0 - v) : (int64_t)v;
        lx->at = p;
        return LAR_OK;
    }
    const char *digits = p;
    bool is_float = false;
    while (p < end && is_digit(*p)) p++;
    if (p < end && *p == '.' && (p + 1 >= end || !is_digit(p[1])) && p == digits)
        return fail_at(lx, start, "bad number");
    if (p < end && *p == '.') {
        is_float = true;
        p++;
        while (p < end && is_digit(*p)) p++;
    }
    if (p == digits) return fail_at(lx, start, "bad number");
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *e = p + 1;
        if (e < end && (*e == '+' || *e == '-')) e++;
        if (e >= end || !is_digit(*e)) return fail_at(lx, start, "bad exponent in number");
        while (e < end && is_digit(*e)) e++;
        p = e;
        is_float = true;
    }
    /* A float suffix, as realm-core reads it: 1.5f, 2f. */
    bool float_suffix = p < end && (*p == 'f' || *p == 'F') && (p + 1 >= end || !is_ident(p[1]));
    size_t n = (size_t)(p - start);
    if (float_suffix) p++;
    if (p < end && (is_ident(*p) || *p == '.')) return fail_at(lx, start, "bad number");
    char buf[512];
    if (n >= sizeof buf) return fail_at(lx, start, "number too long");
    memcpy(buf, start, n);
    buf[n] = 0;
    errno = 0;
    if (float_suffix) {
        t->kind = TOK_FLOAT;
        t->value.type = LAR_TYPE_FLOAT;
        double d = strtod(buf, NULL);
        if (d > 3.4028234663852886e38 || d < -3.4028234663852886e38) return fail_at(lx, start, "number out of range for a float");
        t->value.as.float32 = (float)d;
    } else if (!is_float) {
        long long v = strtoll(buf, NULL, 10);
        if (errno == ERANGE) return fail_at(lx, start, "integer out of range");
        t->kind = TOK_INT;
        t->value.type = LAR_TYPE_INT;
        t->value.as.integer = v;
    } else {
        t->kind = TOK_FLOAT;
        t->value.type = LAR_TYPE_DOUBLE;
        t->value.as.float64 = strtod(buf, NULL);
        if (errno == ERANGE && isinf(t->value.as.float64)) return fail_at(lx, start, "number out of range");
    }
    lx->at = p;
    return LAR_OK;
}

/* name(...) literals: oid(), uuid(), decimal128(). */
static int lex_call_literal(lexer *lx, token *t, const char *word_end)
{
    const char *start = lx->at, *open = word_end, *p = open + 1;
    while (p < lx->end && *p != ')') p++;
    if (p >= lx->end) return fail_at(lx, open, "expected ')'");
    const char *arg = open + 1;
    size_t n = (size_t)(p - arg);
    while (n && (*arg == ' ' || *arg == '\t')) { arg++; n--; }
    while (n && (arg[n - 1] == ' ' || arg[n - 1] == '\t')) n--;
    size_t word = (size_t)(word_end - start);
    if (word_is(start, word, "oid")) {
        if (!literal_oid(arg, n, &t->value.as.object_id)) return fail_at(lx, start, "bad ObjectId: oid() takes 24 hexadecimal digits");
        t->kind = TOK_OID;
        t->value.type = LAR_TYPE_OBJECT_ID;
    } else if (word_is(start, word, "uuid")) {
        if (!literal_uuid(arg, n, &t->value.as.uuid)) return fail_at(lx, start, "bad UUID: uuid() takes 8-4-4-4-12 hexadecimal digits");
        t->kind = TOK_UUID;
        t->value.type = LAR_TYPE_UUID;
    } else {
        if (!literal_decimal(arg, n, &t->value.as.decimal128))
            return fail_at(lx, start, "bad decimal128: decimal128() takes a number of at most 34 significant digits");
        t->kind = TOK_DECIMAL;
        t->value.type = LAR_TYPE_DECIMAL128;
    }
    lx->at = p + 1;
    t->length = (size_t)(lx->at - start);
    return LAR_OK;
}

static int lex_token(lexer *lx)
{
    while (lx->at < lx->end && (*lx->at == ' ' || *lx->at == '\t' || *lx->at == '\n' || *lx->at == '\r'))
        lx->at++;
    token *t = &lx->tok;
    memset(t, 0, sizeof *t);
    const char *p = lx->at, *end = lx->end;
    t->start = p;
    t->column = lex_column(lx, p);
    if (p >= end) {
        t->kind = TOK_END;
        return LAR_OK;
    }
    char c = *p, d = p + 1 < end ? p[1] : 0;
    int rc = LAR_OK;
#define ONE(k) do { t->kind = (k); lx->at = p + 1; } while (0)
#define OP(o, n) do { t->kind = TOK_OP; t->op = (o); lx->at = p + (n); } while (0)
    switch (c) {
    case '(': ONE(TOK_LPAREN); break;
    case ')': ONE(TOK_RPAREN); break;
    case '{': ONE(TOK_LBRACE); break;
    case '}': ONE(TOK_RBRACE); break;
    case '[': ONE(TOK_LBRACK); break;
    case ']': ONE(TOK_RBRACK); break;
    case ',': ONE(TOK_COMMA); break;
    case '=':
        if (d == '=') OP(OP_EQ, 2);
        else if (d == '<') OP(OP_LE, 2);
        else if (d == '>') OP(OP_GE, 2);
        else OP(OP_EQ, 1);
        break;
    case '!':
        if (d == '=') OP(OP_NE, 2);
        else ONE(TOK_NOT);
        break;
    case '<':
        if (d == '=') OP(OP_LE, 2);
        else if (d == '>') OP(OP_NE, 2);
        else OP(OP_LT, 1);
        break;
    case '>':
        if (d == '=') OP(OP_GE, 2);
        else OP(OP_GT, 1);
        break;
    case '&':
        if (d != '&') return fail_at(lx, p, "expected '&&'");
        t->kind = TOK_AND;
        lx->at = p + 2;
        break;
    case '|':
        if (d != '|') return fail_at(lx, p, "expected '||'");
        t->kind = TOK_OR;
        lx->at = p + 2;
        break;
    case '\'': case '"':
        return lex_string(lx, t);
    case '%':
        if (d == '@') t->kind = TOK_ARG_AT;
        else if (d == 'K') t->kind = TOK_ARG_K;
        else return fail_at(lx, p, "expected '%@' or '%K'");
        lx->at = p + 2;
        break;
    case '$': {
        const char *q = p + 1;
        if (q < end && is_digit(*q)) {
            long v = 0;
            while (q < end && is_digit(*q)) {
                if (v > QUERY_MAX_ARGS) return fail_at(lx, p, "argument index too large");
                v = v * 10 + (*q++ - '0');
            }
            if (v >= QUERY_MAX_ARGS) return fail_at(lx, p, "argument index too large");
            if (q < end && is_ident(*q)) return fail_at(lx, p, "bad argument");
            t->kind = TOK_ARG_N;
            t->index = v;
        } else if (q < end && is_ident_start(*q)) {
            while (q < end && is_ident(*q)) q++;
            t->kind = TOK_VAR;
        } else {
            return fail_at(lx, p, "expected an argument number or a variable name after '$'");
        }
        t->length = (size_t)(q - p);
        lx->at = q;
        return LAR_OK;
    }
    case '@': {
        const char *q = p + 1;
        while (q < end && is_ident(*q)) q++;
        if (q == p + 1) return fail_at(lx, p, "expected a name after '@'");
        t->kind = TOK_AT;
        t->length = (size_t)(q - p);
        lx->at = q;
        return LAR_OK;
    }
    case '.':
        if (is_digit(d)) return lex_number(lx, t);
        ONE(TOK_DOT);
        break;
    default:
        if (is_digit(c) || ((c == '-' || c == '+') && (is_digit(d) || d == '.'))) {
            size_t used;
            if (is_digit(c) && literal_date(p, (size_t)(end - p), &t->value.as.timestamp, &used)) {
                if (p + used < end && is_ident(p[used])) return fail_at(lx, p, "bad date");
                t->kind = TOK_TIMESTAMP;
                t->value.type = LAR_TYPE_TIMESTAMP;
                lx->at = p + used;
                break;
            }
            if (is_digit(c)) {
                const char *q = p;
                while (q < end && is_digit(*q)) q++;
                if (q + 1 < end && *q == '-' && is_digit(q[1]))
                    return fail_at(lx, p, "bad date: expected YYYY-MM-DD@HH:MM:SS[:nanoseconds]");
            }
            rc = lex_number(lx, t);
            break;
        }
        if ((c == '-' || c == '+') && is_ident_start(d)) {
            /* -inf, +infinity, -nan */
            const char *q = p + 1;
            while (q < end && is_ident(*q)) q++;
            size_t n = (size_t)(q - p - 1);
            if (word_is(p + 1, n, "inf") || word_is(p + 1, n, "infinity")) {
                t->kind = TOK_FLOAT;
                t->value.type = LAR_TYPE_DOUBLE;
                t->value.as.float64 = c == '-' ? -INFINITY : INFINITY;
            } else if (word_is(p + 1, n, "nan")) {
                t->kind = TOK_FLOAT;
                t->value.type = LAR_TYPE_DOUBLE;
                t->value.as.float64 = NAN;
            } else {
                return fail_at(lx, p, "unexpected character");
            }
            lx->at = q;
            break;
        }
        if (is_ident_start(c)) {
            if (c == 'T' && (is_digit(d) || (d == '-' && p + 2 < end && is_digit(p[2])))) {
                if (lex_timestamp(lx, t)) break;
            }
            const char *q = p;
            while (q < end && is_ident(*q)) q++;
            size_t n = (size_t)(q - p);
            if (q < end && *q == '(' &&
                (word_is(p, n, "oid") || word_is(p, n, "uuid") || word_is(p, n, "decimal128")))
                return lex_call_literal(lx, t, q);
            if (q < end && (*q == '"' || *q == '\'') && word_is(p, n, "B64")) {
                const char *s = q + 1;
                while (s < end && *s != *q) s++;
                if (s >= end) return fail_at(lx, p, "unterminated string");
                if (!literal_base64(lx->arena, q + 1, (size_t)(s - q - 1), &t->value.as.binary))
                    return fail_at(lx, p, "bad base64 in B64\"...\"");
                t->kind = TOK_BINARY;
                t->value.type = LAR_TYPE_BINARY;
                lx->at = s + 1;
                break;
            }
            t->kind = TOK_IDENT;
            t->length = n;
            lx->at = q;
            return LAR_OK;
        }
        return fail_at(lx, p, "unexpected character");
    }
#undef ONE
#undef OP
    if (rc == LAR_OK) t->length = (size_t)(lx->at - t->start);
    return rc;
}

/* Every token's length is what it spans of the text (error messages and a number's
 * decimal128 reading use it). */
int lex_next(lexer *lx)
{
    int rc = lex_token(lx);
    if (rc == LAR_OK) lx->tok.length = (size_t)(lx->at - lx->tok.start);
    return rc;
}
