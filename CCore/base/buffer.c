/* Byte buffers: growable arrays of bytes. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

int buffer_reserve(byte_buffer *buffer, size_t extra)
{
    size_t need = buffer->size + extra;
    if (need <= buffer->capacity) return LAR_OK;
    size_t capacity = buffer->capacity ? buffer->capacity * 2 : 256;
    while (capacity < need) capacity *= 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (!data) return lar_fail(LAR_ENOMEM, "out of memory (%zu bytes)", capacity);
    buffer->data = data;
    buffer->capacity = capacity;
    return LAR_OK;
}

int buffer_append(byte_buffer *buffer, const void *bytes, size_t size)
{
    int err = buffer_reserve(buffer, size);
    if (err) return err;
    if (size) memcpy(buffer->data + buffer->size, bytes, size);
    buffer->size += size;
    return LAR_OK;
}

void buffer_free(byte_buffer *buffer)
{
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = buffer->capacity = 0;
}
