/* Checking an existing file's two LMDB header (meta) pages before LMDB maps it.
 *
 * LMDB trusts its meta pages: a page size of 0 divides by zero, and a file
 * shorter than the pages its meta names is mapped anyway, so the first read past
 * the end raises SIGBUS. Truncation is the most common damage (a full disk, a
 * copy cut short), so this code reads both metas with pread() and refuses what
 * LMDB would crash on. It cannot see damage inside the B-tree pages themselves. */
#include "kv/kv.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* LMDB 0.9's on-disk structures (mdb.c: MDB_page's header, MDB_db, MDB_meta), in the
 * byte order and word size of this machine, as LMDB writes them. */
typedef struct lmdb_page_header {
    size_t page_number;
    uint16_t pad, flags;
    uint16_t lower, upper;
} lmdb_page_header;

typedef struct lmdb_db {
    uint32_t pad; /* in the free-page db of a meta: the page size */
    uint16_t flags, depth;
    size_t branch_pages, leaf_pages, overflow_pages, entries, root;
} lmdb_db;

typedef struct lmdb_meta_page {
    lmdb_page_header header;
    uint32_t magic, version;
    void *address;
    size_t map_size;
    lmdb_db free_db, main_db;
    size_t last_page, txnid;
} lmdb_meta_page;

#define LMDB_MAGIC 0xBEEFC0DEu
#define LMDB_P_META 0x08u
#define LMDB_NO_PAGE (~(size_t)0) /* the root of an empty db */
/* LMDB takes the OS page size (4 KiB or more wherever it runs), capped at 32 KiB. */
#define LMDB_MIN_PAGE_SIZE 4096u
#define LMDB_MAX_PAGE_SIZE 32768u

static bool is_meta(const lmdb_meta_page *meta)
{
    return (meta->header.flags & LMDB_P_META) && meta->magic == LMDB_MAGIC;
}

static bool page_size_valid(uint32_t size)
{
    return size >= LMDB_MIN_PAGE_SIZE && size <= LMDB_MAX_PAGE_SIZE && (size & (size - 1)) == 0;
}

/* A db's root is absent, or a page after the two metas that the file's pages include. */
static bool root_valid(size_t root, size_t last_page)
{
    return root == LMDB_NO_PAGE || (root >= 2 && root <= last_page);
}

/* Reads the meta page at offset; false when the file ends before it. */
static bool read_meta(int fd, off_t offset, lmdb_meta_page *meta)
{
    ssize_t n = pread(fd, meta, sizeof *meta, offset);
    return n == (ssize_t)sizeof *meta;
}

static int corrupt(const char *path, const char *what)
{
    return lar_fail(LAR_ECORRUPT, "'%s' is damaged: %s", path, what);
}

/* Checks what one meta says against the file's size: LMDB maps (last page + 1) pages. */
static int check_meta_fits(const char *path, const lmdb_meta_page *meta, uint32_t page_size, off_t file_size)
{
    if (meta->free_db.pad != page_size) return corrupt(path, "its two header pages disagree on the page size");
    size_t pages = (size_t)file_size / page_size;
    if (meta->last_page < 1 || meta->last_page >= pages)
        return lar_fail(LAR_ECORRUPT, "'%s' is damaged or truncated: its header names %zu pages of %u bytes, "
                        "but the file holds %lld bytes", path, meta->last_page + 1, page_size,
                        (long long)file_size);
    if (!root_valid(meta->free_db.root, meta->last_page) || !root_valid(meta->main_db.root, meta->last_page))
        return corrupt(path, "a header page names a root page outside the file");
    return LAR_OK;
}

/* The first meta of a file no transaction has written: what LMDB writes at creation. */
static bool is_new(const lmdb_meta_page *meta)
{
    return meta->txnid == 0 && meta->last_page == 1 && meta->main_db.entries == 0 &&
           meta->main_db.root == LMDB_NO_PAGE && meta->free_db.root == LMDB_NO_PAGE;
}

static int shorter_than_header(const char *path, const lmdb_meta_page *first)
{
    if (is_new(first)) return KV_NEW_HEADER_CUT_SHORT;
    return lar_fail(LAR_ECORRUPT, "'%s' is damaged or truncated: it is shorter than its two header pages", path);
}

/* The metas are read before the size: a writer in another process writes its pages,
 * growing the file, before the meta that names them. */
static int check_metas(const char *path, int fd)
{
    lmdb_meta_page first, second;
    if (!read_meta(fd, 0, &first) || !is_meta(&first))
        return lar_fail(LAR_ENOTLARDER, "'%s' is not a Larder database", path);
    uint32_t page_size = first.free_db.pad;
    if (!page_size_valid(page_size))
        return lar_fail(LAR_ECORRUPT, "'%s' is damaged: its page size %u is not a power of two from %u to %u",
                        path, page_size, LMDB_MIN_PAGE_SIZE, LMDB_MAX_PAGE_SIZE);
    if (!read_meta(fd, page_size, &second)) return shorter_than_header(path, &first);
    if (!is_meta(&second)) return corrupt(path, "its second header page is not LMDB's");
    struct stat st;
    if (fstat(fd, &st) != 0) return lar_fail(LAR_EIO, "cannot stat '%s': %s", path, strerror(errno));
    if (st.st_size < 2 * (off_t)page_size) return shorter_than_header(path, &first);
    /* LMDB reads from the meta with the higher transaction id; both must fit, since a
     * file only grows and the older one names fewer pages. */
    int err = check_meta_fits(path, &first, page_size, st.st_size);
    if (!err) err = check_meta_fits(path, &second, page_size, st.st_size);
    return err;
}

/* Checks the record of each table in the main database (an lmdb_db) before LMDB follows
 * its root: a root on a header page fails an LMDB assertion, one past the file's last
 * page reads past its end. Other records (a foreign file's data) are left alone. */
int kv_check_tables(MDB_txn *txn, const char *path)
{
    MDB_envinfo info;
    MDB_dbi main_dbi;
    MDB_cursor *cursor;
    int rc = mdb_env_info(mdb_txn_env(txn), &info);
    if (!rc) rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (!rc) rc = mdb_cursor_open(txn, main_dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot read the database's tables");
    MDB_val key, data;
    int err = LAR_OK;
    for (rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST); !rc && !err;
         rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT)) {
        lmdb_db table;
        if (data.mv_size != sizeof table) continue;
        memcpy(&table, data.mv_data, sizeof table);
        if (!root_valid(table.root, info.me_last_pgno))
            err = lar_fail(LAR_ECORRUPT, "'%s' is damaged: the table '%.*s' has its root outside the file's pages",
                           path, (int)(key.mv_size > 64 ? 64 : key.mv_size), (const char *)key.mv_data);
    }
    mdb_cursor_close(cursor);
    if (!err && rc != MDB_NOTFOUND) err = lar_fail_mdb(rc, "cannot read the database's tables");
    return err;
}

/* A writer in another process rewrites the older meta in place at each commit, and a
 * read racing that write may see it half old, half new: a damage verdict is confirmed
 * by reading again before it stands. */
#define CHECK_ATTEMPTS 3
#define CHECK_RETRY_US 1000

int kv_check_file(const char *path, int fd)
{
    int err = check_metas(path, fd);
    for (int attempt = 1; err == LAR_ECORRUPT && attempt < CHECK_ATTEMPTS; attempt++) {
        usleep(CHECK_RETRY_US);
        err = check_metas(path, fd);
    }
    return err;
}
