/* The C test runner: test_c <data dir> [name filter]
 *
 * Runs every registered test in file, then line order, prints "ok N - name" or
 * "not ok N - name" (TAP), then "C tests: X passed, Y failed". Exits 1 when a
 * test failed. The data directory must exist; each test makes its own files in it.
 * Each test runs in a child process of its own (set LARDER_TEST_NOFORK=1 to run them
 * all in this process), so a crash or hang fails one test and the others still run. */
#include "test.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A test that runs longer than this is killed and reported as hung. */
#define TEST_TIMEOUT_SECONDS 90

typedef struct test_case {
    const char *name, *file;
    int line;
    test_fn fn;
} test_case;

static test_case *tests;
static size_t test_count, test_capacity;

const char *test_current_name = "";
static const char *data_dir;
static jmp_buf test_jump;
static pid_t test_pid; /* the process running the current test */
static pthread_t runner_thread;
static atomic_int thread_failures;
static size_t current_number, passed_count, failed_count;

void test_register(const char *name, const char *file, int line, test_fn fn)
{
    if (test_count == test_capacity) {
        test_capacity = test_capacity ? test_capacity * 2 : 64;
        tests = realloc(tests, test_capacity * sizeof *tests);
        if (!tests) abort();
    }
    tests[test_count++] = (test_case){name, file, line, fn};
}

const char *test_data_dir(void)
{
    return data_dir;
}

/* ---- failures ---- */

_Noreturn void test_fail(const char *file, int line, const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (getpid() != test_pid) {
        /* A child process of test_fork(): report and end it; the parent sees its status. */
        fprintf(stderr, "#   [child %d] %s:%d: %s\n", (int)getpid(), file, line, message);
        fflush(stderr);
        _exit(1);
    }
    if (!pthread_equal(pthread_self(), runner_thread)) {
        /* A thread the test started: the test fails once it is over. */
        fprintf(stdout, "#   [thread] %s:%d: %s\n", file, line, message);
        fflush(stdout);
        atomic_fetch_add(&thread_failures, 1);
        pthread_exit(NULL);
    }
    fprintf(stdout, "#   %s:%d: %s\n", file, line, message);
    fflush(stdout);
    longjmp(test_jump, 1);
}

static const char *last_message(char *copy, size_t size)
{
    const char *m = lar_error_last()->message;
    snprintf(copy, size, "%s", m ? m : "(NULL message)");
    return copy;
}

void test_check_rc(const char *file, int line, const char *expr, int got, int expected)
{
    char message[512];
    int recorded = lar_error_last()->code;
    if (got != expected)
        test_fail(file, line, "%s returned %d (%s), expected %d (%s); last error %d: %s", expr, got,
                  lar_strerror(got), expected, lar_strerror(expected), recorded,
                  last_message(message, sizeof message));
    if (expected == LAR_OK) return;
    /* "Every function that can fail ... records the code and a message in this thread's last error." */
    if (recorded != expected)
        test_fail(file, line, "%s returned %d (%s) but recorded last error %d", expr, got, lar_strerror(got),
                  recorded);
    const char *m = lar_error_last()->message;
    if (!m || !*m)
        test_fail(file, line, "%s returned %d (%s) but recorded an empty message", expr, got,
                  lar_strerror(got));
}

void test_check_end(const char *file, int line, const char *expr, int got, int saved_code,
                    const char *saved_message)
{
    char message[512];
    if (got != LAR_ENOTFOUND)
        test_fail(file, line, "%s returned %d (%s), expected the end of the iteration (LAR_ENOTFOUND); "
                  "last error: %s", expr, got, lar_strerror(got), last_message(message, sizeof message));
    const lar_error *e = lar_error_last();
    if (e->code != saved_code || !e->message || strcmp(e->message, saved_message) != 0)
        test_fail(file, line, "%s: the end of an iteration changed the last error from %d \"%s\" to %d \"%s\"",
                  expr, saved_code, saved_message, e->code, e->message ? e->message : "(NULL)");
}

void test_check_value(const char *file, int line, const char *expr, const lar_value *got,
                      const lar_value *expected)
{
    if (value_same(got, expected)) return;
    char a[256], b[256];
    value_describe(got, a, sizeof a);
    value_describe(expected, b, sizeof b);
    test_fail(file, line, "%s is %s, expected %s", expr, a, b);
}

/* ---- running ---- */

static int compare_tests(const void *a, const void *b)
{
    const test_case *x = a, *y = b;
    int by_file = strcmp(x->file, y->file);
    return by_file ? by_file : x->line - y->line;
}

/* Runs the test in this process; returns whether it passed. */
static bool run_here(const test_case *t)
{
    atomic_store(&thread_failures, 0);
    lar_error_clear();
    volatile bool ok = true;
    if (setjmp(test_jump) == 0) {
        t->fn();
    } else {
        ok = false;
    }
    int failures = atomic_load(&thread_failures);
    if (failures) {
        fprintf(stdout, "#   %d check(s) failed in threads of this test\n", failures);
        ok = false;
    }
    return ok;
}

/* Runs the test in a child process, so that a crash, a hang or a sanitizer report in one
 * test fails that test alone and the run goes on. */
static bool run_isolated(const test_case *t)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stdout, "#   fork: %s\n", strerror(errno));
        return false;
    }
    if (pid == 0) {
        test_pid = getpid();
        bool ok = run_here(t);
        fflush(NULL);
        /* A passing test ends with exit(), so LeakSanitizer checks its leaks; a failed one has
         * already said why, and what it left unfreed on the way out is noise. */
        if (ok) exit(0);
        _exit(1);
    }
    int64_t deadline = now_ms() + (int64_t)TEST_TIMEOUT_SECONDS * 1000;
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) {
            fprintf(stdout, "#   waitpid: %s\n", strerror(errno));
            return false;
        }
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stdout, "#   timed out after %d s\n", TEST_TIMEOUT_SECONDS);
            return false;
        }
        sleep_ms(1);
    }
    if (WIFSIGNALED(status)) {
        fprintf(stdout, "#   crashed: signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return false;
    }
    if (WEXITSTATUS(status) > 1)
        fprintf(stdout, "#   exited with status %d (a sanitizer report is above)\n", WEXITSTATUS(status));
    return WEXITSTATUS(status) == 0;
}

static bool run_one(const test_case *t, bool isolate)
{
    test_current_name = t->name;
    int64_t start = now_ms();
    bool ok = isolate ? run_isolated(t) : run_here(t);
    int64_t elapsed = now_ms() - start;
    if (elapsed > 3000) fprintf(stdout, "# %s took %lld ms\n", t->name, (long long)elapsed);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s <data directory> [test name filter]\n", argv[0]);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: '%s' is not a directory\n", argv[0], argv[1]);
        return 2;
    }
    data_dir = argv[1];
    const char *filter = argc == 3 ? argv[2] : NULL;
    /* LARDER_TEST_NOFORK=1 runs every test in this process: handy under a debugger. */
    const char *nofork = getenv("LARDER_TEST_NOFORK");
    bool isolate = !(nofork && *nofork && strcmp(nofork, "0") != 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_pid = getpid();
    runner_thread = pthread_self();
    signal(SIGPIPE, SIG_IGN); /* a dead child must fail a test, not kill the runner */

    qsort(tests, test_count, sizeof *tests, compare_tests);
    size_t selected = 0;
    for (size_t i = 0; i < test_count; i++)
        if (!filter || strstr(tests[i].name, filter)) selected++;
    printf("1..%zu\n", selected);
    for (size_t i = 0; i < test_count; i++) {
        if (filter && !strstr(tests[i].name, filter)) continue;
        current_number++;
        bool ok = run_one(&tests[i], isolate);
        if (ok) passed_count++;
        else failed_count++;
        printf("%s %zu - %s\n", ok ? "ok" : "not ok", current_number, tests[i].name);
    }
    printf("C tests: %zu passed, %zu failed\n", passed_count, failed_count);
    free(tests);
    return failed_count ? 1 : 0;
}
