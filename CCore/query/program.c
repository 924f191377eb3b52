/* The branch program (plan.h): a compiled tree of checks flattened, once per run, into
 * tests that each name the test to take next when they hold and when they fail.
 *
 * A node with the targets (yes, no) becomes: for an AND, its first kid with (the second
 * kid, no), ..., its last with (yes, no); for an OR, its first with (yes, the second), ...;
 * for a NOT, its kid with (no, yes); TRUEPREDICATE and FALSEPREDICATE are their target
 * and no test. A row runs through the tests in a loop (eval.c: plan_match), int slots
 * tested in place, a string slot against a string read and tested without a call
 * through the node, and any other node evaluated as before, so a filter of such terms
 * costs no call per row (but a string search's) however its ANDs, ORs and NOTs nest. */
#include "query/plan.h"

static size_t test_count(const node *n)
{
    if (n->kind == NODE_TRUE || n->kind == NODE_FALSE) return 0;
    if (n->kind != NODE_AND && n->kind != NODE_OR && n->kind != NODE_NOT) return 1;
    size_t count = 0;
    for (size_t i = 0; i < n->count; i++) count += test_count(n->kids[i]);
    return count;
}

/* Sets b's range to the ints in [low, high], or to none when low > high. */
static void set_range(branch *b, int64_t low, int64_t high)
{
    b->outside = low > high; /* none: outside the range of every int */
    if (b->outside) low = INT64_MIN, high = INT64_MAX;
    b->low = (uint64_t)low;
    b->span = (uint64_t)high - (uint64_t)low;
}

/* The ints that compare with c by op as b's range. */
static void int_range(branch *b, cmp_op op, int64_t c)
{
    switch (op) {
    case OP_EQ: set_range(b, c, c); break;
    case OP_NE: set_range(b, c, c), b->outside = true; break;
    case OP_LT: c == INT64_MIN ? set_range(b, 1, 0) : set_range(b, INT64_MIN, c - 1); break;
    case OP_LE: set_range(b, INT64_MIN, c); break;
    case OP_GT: c == INT64_MAX ? set_range(b, 1, 0) : set_range(b, c + 1, INT64_MAX); break;
    default: set_range(b, c, INT64_MAX); break;
    }
    b->null_holds = op == OP_NE; /* null equals no int */
}

/* Whether a row that passes b is tested next by c on the same slot, failing to the same
 * place: `age >= 30 AND age < 40`, one range test instead of two. */
static bool fuses(const branch *b, const branch *c)
{
    return b->kind == BRANCH_INT && c->kind == BRANCH_INT && !b->outside && !c->outside && !b->null_holds &&
           !c->null_holds && b->offset == c->offset && b->null_byte == c->null_byte && b->null_mask == c->null_mask &&
           b->no == c->no;
}

/* Folds each int test's run of fusable successors into its own range. */
static void fuse_ranges(plan *p, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        branch *b = &p->program[i];
        while (b->yes >= 0 && fuses(b, &p->program[b->yes])) {
            const branch *c = &p->program[b->yes];
            int64_t low = (int64_t)b->low > (int64_t)c->low ? (int64_t)b->low : (int64_t)c->low;
            int64_t b_high = (int64_t)(b->low + b->span), c_high = (int64_t)(c->low + c->span);
            set_range(b, low, b_high < c_high ? b_high : c_high);
            b->yes = c->yes;
            if (b->outside) break; /* holds for no int: nothing more to fold */
        }
    }
}

/* Appends n's tests (with the targets yes and no) to p->program; *entry: its first test. */
static void emit(plan *p, node *n, int32_t yes, int32_t no, size_t *used, int32_t *entry)
{
    switch (n->kind) {
    case NODE_TRUE: *entry = yes; return;
    case NODE_FALSE: *entry = no; return;
    case NODE_NOT: emit(p, n->kids[0], no, yes, used, entry); return;
    case NODE_AND: case NODE_OR: {
        /* The last kid first: each kid's targets name the entry of the one after it. */
        int32_t next = n->kind == NODE_AND ? yes : no; /* no kids: AND holds, OR fails */
        for (size_t i = n->count; i-- > 0;) {
            bool last = i + 1 == n->count;
            int32_t kid_yes = n->kind == NODE_AND ? next : yes, kid_no = n->kind == NODE_AND ? no : next;
            if (last) kid_yes = yes, kid_no = no;
            emit(p, n->kids[i], kid_yes, kid_no, used, &next);
        }
        *entry = next;
        return;
    }
    default: break;
    }
    branch *b = &p->program[*used];
    *b = (branch){.kind = BRANCH_NODE, .yes = yes, .no = no, .node = n};
    if (n->kind == NODE_SLOT && n->type == LAR_TYPE_STRING && plan_is_string_test(n->test)) b->kind = BRANCH_STRING;
    if (n->kind == NODE_COMPARE && n->left.memoized) b->kind = BRANCH_LINK;
    if (n->kind == NODE_SLOT && n->int_test) {
        b->kind = BRANCH_INT;
        b->offset = n->offset;
        int_range(b, n->op, n->integer);
        if (n->in_bitmap) {
            b->null_byte = p->cls->fixed_size + n->prop / 8;
            b->null_mask = (uint8_t)(1u << (n->prop % 8));
        }
    }
    *entry = (int32_t)(*used)++;
}

int program_compile(plan *p)
{
    size_t count = test_count(p->root);
    if (count > INT32_MAX) return lar_fail(LAR_EINVAL, "the query has too many terms");
    p->program = arena_alloc(&p->arena, (count ? count : 1) * sizeof *p->program);
    if (!p->program) return lar_fail(LAR_ENOMEM, "out of memory compiling a query");
    size_t used = 0;
    emit(p, p->root, PROGRAM_MATCH, PROGRAM_MISS, &used, &p->entry);
    fuse_ranges(p, used);
    return LAR_OK;
}

bool plan_matches_all(const plan *p)
{
    return p->entry == PROGRAM_MATCH;
}
