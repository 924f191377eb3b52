/* The per-thread last error, return-code strings and the version. */
#include "base/base.h"

#include <stdio.h>
#include <string.h>

typedef struct thread_error {
    lar_error error;
    char message[512];
} thread_error;

static _Thread_local thread_error last_error = {{LAR_OK, "no error"}, ""};

const char *lar_version(int *major, int *minor, int *patch)
{
    if (major) *major = LARDER_VERSION_MAJOR;
    if (minor) *minor = LARDER_VERSION_MINOR;
    if (patch) *patch = LARDER_VERSION_PATCH;
    return LARDER_VERSION_STRING;
}

const lar_error *lar_error_last(void)
{
    return &last_error.error;
}

void lar_error_clear(void)
{
    last_error.error.code = LAR_OK;
    last_error.error.message = "no error";
}

const char *lar_strerror(int code)
{
    switch (code) {
    case LAR_OK: return "success";
    case LAR_EINVAL: return "invalid argument";
    case LAR_EMISUSE: return "misuse of the API";
    case LAR_ENOTFOUND: return "not found";
    case LAR_EEXISTS: return "primary key already exists";
    case LAR_ETYPE: return "wrong value type";
    case LAR_ESCHEMA: return "schema mismatch";
    case LAR_ENOTLARDER: return "not a Larder database";
    case LAR_EVERSION: return "file format is newer than this library";
    case LAR_ENOTSUP: return "not supported yet";
    case LAR_ENOMEM: return "out of memory";
    case LAR_EIO: return "I/O or storage error";
    case LAR_EREADONLY: return "database is read-only";
    case LAR_EDELETED: return "object has been deleted";
    case LAR_EMAPFULL: return "database map is full and cannot grow";
    case LAR_ECORRUPT: return "database holds undecodable data";
    case LAR_EBUSY: return "a limit was reached";
    default: return "unknown error";
    }
}

int lar_fail(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error.message, sizeof last_error.message, format, args);
    va_end(args);
    last_error.error.code = code;
    last_error.error.message = last_error.message;
    return code;
}
