/* A walk of a table in key order that reads LMDB's leaf pages in place (kv.h, kv_walk).
 *
 * mdb_cursor_get(MDB_NEXT) costs about 14 ns a row, more than a query's test of the
 * row: a walk of 200,000 rows took 23.8 ns a row stepping the cursor and 10.1 reading
 * each leaf page's nodes in place, the cursor moved once a page. So a walk in a read
 * transaction takes each leaf page the cursor reaches and reads its nodes itself, by
 * the layout of LMDB 0.9's pages (mdb.c: MDB_page, MDB_node), until the page ends; then
 * the cursor moves to the page's last node and steps to the next page.
 *
 * Only what LMDB gave is adopted: the page of a row the cursor returned, and only when
 * that row is the page's first node, the page is a leaf and its header fits the page.
 * A node that is not a plain row of an 8-byte key (a row on overflow pages, anything
 * else) hands the walk back to the cursor, placed on the node before it, so LMDB reads
 * it. Every offset is checked against the page, so even a damaged page is never read
 * past. A write's pages are copies in memory, not in the map: writes step the cursor.
 *
 * Each row read in place asks for the lines at its place KV_READ_AHEAD_PAGES pages on
 * (leaf pages mostly follow each other in the file), two prefetches a row: a steady
 * stream the memory keeps up with. Asking for a whole page at each page turn, as
 * kv_read_ahead_past() does, made this walk slower: its 64 requests at once queue the
 * rows' own loads behind them. A query's scan of 200,000 rows (`age < 0`) took 24.2 ns
 * a row stepping the cursor, 19-21 in place with a page asked for at each turn, 16.5 in
 * place with no read-ahead and 13.9-14.1 with the rows' prefetches. */
#include "kv/kv.h"

#include <string.h>

/* LMDB 0.9's page header (mdb.c): pgno (8), pad (2), flags (2), lower (2), upper (2),
 * then the node offsets. A node: data size low and high halves, flags, key size (2 each),
 * then the key and the data. */
#define PAGE_HEADER KV_WALK_HEADER
#define PAGE_FLAGS_AT 10
#define PAGE_LOWER_AT 12
#define PAGE_UPPER_AT 14
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_OVERFLOW 0x04
#define P_META 0x08
#define P_LEAF2 0x20
#define P_SUBP 0x40

/* LMDB 0.9 on a 64-bit machine (its page numbers, in the header, are a size_t). The
 * first row's node is still checked against the pointer LMDB gave before a page is read. */
static bool layout_known(void)
{
    int major, minor;
    mdb_version(&major, &minor, NULL);
    return MDB_VERSION_MAJOR == 0 && MDB_VERSION_MINOR == 9 && major == 0 && minor == 9 && sizeof(size_t) == 8;
}

static void walk_init(kv_walk *w, lar_txn *txn, kv_cursor *cursor)
{
    memset(w, 0, sizeof *w);
    w->cursor = cursor;
    w->page_size = txn->env->page_size;
    w->in_place = !txn->write && layout_known();
    w->row_ahead = (size_t)KV_READ_AHEAD_PAGES * w->page_size;
}

int kv_walk_open(lar_txn *txn, kv_table table, kv_walk *w)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, table, &cursor);
    if (rc) return rc;
    walk_init(w, txn, cursor);
    return 0;
}

void kv_walk_close(kv_walk *w)
{
    if (w->cursor) kv_cursor_close(w->cursor);
    w->cursor = NULL;
}

static uint16_t read16(const uint8_t *at)
{
    uint16_t v;
    memcpy(&v, at, 2);
    return v;
}

/* Takes the page of the row the cursor is on, a leaf page whose header fits it, and
 * reads on from that row's node; else leaves the walk stepping the cursor. A step onto
 * a new page lands on its first node: the search ends there.
 * Only a plain node is taken: an 8-byte key, the row right after it, both on the page
 * of the node's header, which LMDB read. A damaged key size sends LMDB's row pointer
 * anywhere, past the file's end too, where a read of the page it masks to is SIGBUS. */
static void adopt_page(kv_walk *w, const kv_val *key, const kv_val *data)
{
    uintptr_t size = w->page_size;
    const uint8_t *row = data->mv_data, *node = (const uint8_t *)key->mv_data - KV_WALK_NODE;
    if (key->mv_size != KV_WALK_KEY || row != node + KV_WALK_NODE + KV_WALK_KEY) return;
    const uint8_t *page = (const uint8_t *)((uintptr_t)node & ~(size - 1));
    if ((const uint8_t *)((uintptr_t)row & ~(size - 1)) != page) return;
    unsigned flags = read16(page + PAGE_FLAGS_AT);
    unsigned lower = read16(page + PAGE_LOWER_AT), upper = read16(page + PAGE_UPPER_AT);
    if ((flags & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP)) != P_LEAF) return;
    if (lower <= PAGE_HEADER || lower > upper || upper > size || (lower & 1)) return;
    uint32_t count = (lower - PAGE_HEADER) / 2;
    for (uint32_t i = 0; i < count; i++) {
        unsigned at = read16(page + PAGE_HEADER + 2 * i);
        if (at < upper || at > size - KV_WALK_NODE - KV_WALK_KEY) return;
        if (page + at != node) continue;
        w->page = page;
        w->count = count;
        w->upper = upper;
        w->next = i + 1;
        w->cursor_at = i;
        return;
    }
}

void kv_walk_attach(kv_walk *w, lar_txn *txn, kv_cursor *cursor, const kv_val *key, const kv_val *data)
{
    walk_init(w, txn, cursor);
    w->started = true;
    if (w->in_place) adopt_page(w, key, data);
}

/* Places the cursor on node index of the page (it is on w->cursor_at). */
static int place_cursor(kv_walk *w, uint32_t index)
{
    if (index == w->cursor_at) return 0;
    const uint8_t *node = w->page + read16(w->page + PAGE_HEADER + 2 * index);
    kv_val key = {KV_WALK_KEY, (void *)(node + KV_WALK_NODE)}, data;
    int rc = mdb_cursor_get(w->cursor, &key, &data, MDB_SET);
    return rc == MDB_NOTFOUND ? MDB_CORRUPTED : rc; /* a row read in place is in the table */
}

int kv_walk_settle(kv_walk *w)
{
    int rc = w->page ? place_cursor(w, w->next - 1) : 0;
    w->page = NULL;
    w->next = w->count = 0;
    return rc;
}

int kv_walk_turn(kv_walk *w, kv_val *key, kv_val *data)
{
    int rc;
    if (!w->started) {
        w->started = true;
        rc = mdb_cursor_get(w->cursor, key, data, MDB_FIRST);
    } else {
        /* Past the page's end, or a node the cursor must read: the cursor goes to the
         * last node returned, and LMDB steps from there. */
        rc = kv_walk_settle(w);
        if (!rc) rc = mdb_cursor_get(w->cursor, key, data, MDB_NEXT);
    }
    if (rc) return rc;
    if (w->in_place) adopt_page(w, key, data);
    return 0;
}
