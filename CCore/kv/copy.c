/* A compacted copy of an environment's file (Realm's writeCopy): LMDB's own copy, read
 * from one snapshot and written without the free pages, then flushed. */
#include "kv/kv.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* The copy is durable once this returns: LMDB's copy does not flush the file it writes. */
static int flush_copy(const char *path)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int rc = fsync(fd) ? errno : 0;
    if (close(fd) && !rc) rc = errno;
    return rc;
}

int lar_env_copy(lar_env *env, const char *path)
{
    if (!env || !path) return lar_fail(LAR_EINVAL, "lar_env_copy: NULL argument");
    if (!*path) return lar_fail(LAR_EINVAL, "lar_env_copy: the path is empty");
    /* LMDB creates the copy with O_EXCL: an existing file is never written over. */
    int rc = mdb_env_copy2(env->mdb, path, MDB_CP_COMPACT);
    if (rc == EEXIST) return lar_fail(LAR_EEXISTS, "lar_env_copy: '%s' already exists", path);
    if (!rc) rc = flush_copy(path);
    if (!rc) return LAR_OK;
    if (rc != ENOENT && rc != EACCES) unlink(path); /* created by the copy, and not whole */
    return lar_fail_mdb(rc, "lar_env_copy");
}
