/* The replay log of a write transaction: every mutation, kept so that the
 * transaction can be rebuilt after the map grows (see txn.c).
 *
 * Entries go into fixed-size chunks, so the log never copies itself as it
 * grows, and finished transactions hand their chunks to a small process-wide
 * pool: the next large write reuses memory that is already mapped. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE ((size_t)1 << 20)
#define POOL_LIMIT 32 /* chunks kept for reuse: 32 MiB at most */

struct log_chunk {
    struct log_chunk *next;
    size_t size, capacity;
    uint8_t data[];
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static log_chunk *pool;
static int pool_count;

static log_chunk *chunk_new(size_t need)
{
    log_chunk *chunk = NULL;
    if (need <= CHUNK_SIZE) {
        pthread_mutex_lock(&pool_lock);
        if (pool) {
            chunk = pool;
            pool = chunk->next;
            pool_count--;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    size_t capacity = need > CHUNK_SIZE ? need : CHUNK_SIZE;
    if (!chunk && !(chunk = malloc(sizeof *chunk + capacity))) return NULL;
    if (need > CHUNK_SIZE) chunk->capacity = capacity;
    else chunk->capacity = CHUNK_SIZE;
    chunk->next = NULL;
    chunk->size = 0;
    return chunk;
}

static void chunk_release(log_chunk *chunk)
{
    pthread_mutex_lock(&pool_lock);
    if (chunk->capacity == CHUNK_SIZE && pool_count < POOL_LIMIT) {
        chunk->next = pool;
        pool = chunk;
        pool_count++;
        chunk = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free(chunk);
}

int log_append(replay_log *log, uint32_t op, MDB_dbi dbi, unsigned int flags, const void *key,
               size_t key_size, const MDB_val *data)
{
    log_entry entry = {op, dbi, flags, (uint32_t)key_size, data ? (uint32_t)data->mv_size : LOG_NO_DATA};
    size_t need = sizeof entry + key_size + (data ? data->mv_size : 0);
    log_chunk *tail = log->tail;
    if (!tail || tail->capacity - tail->size < need) {
        log_chunk *chunk = chunk_new(need);
        if (!chunk) return lar_fail(LAR_ENOMEM, "out of memory logging a write");
        if (tail) tail->next = chunk;
        else log->head = chunk;
        log->tail = tail = chunk;
    }
    uint8_t *at = tail->data + tail->size;
    memcpy(at, &entry, sizeof entry);
    if (key_size) memcpy(at + sizeof entry, key, key_size);
    if (data && data->mv_size) memcpy(at + sizeof entry + key_size, data->mv_data, data->mv_size);
    tail->size += need;
    return LAR_OK;
}

int log_replay(const replay_log *log, log_apply apply, void *context)
{
    for (const log_chunk *chunk = log->head; chunk; chunk = chunk->next) {
        for (size_t at = 0; at < chunk->size;) {
            log_entry entry;
            memcpy(&entry, chunk->data + at, sizeof entry);
            uint8_t *key = (uint8_t *)chunk->data + at + sizeof entry;
            uint8_t *data = key + entry.key_size;
            int rc = apply(context, &entry, key, data);
            if (rc) return rc;
            at += sizeof entry + entry.key_size + (entry.data_size == LOG_NO_DATA ? 0 : entry.data_size);
        }
    }
    return 0;
}

void log_clear(replay_log *log)
{
    for (log_chunk *chunk = log->head, *next; chunk; chunk = next) {
        next = chunk->next;
        chunk_release(chunk);
    }
    log->head = log->tail = NULL;
}
