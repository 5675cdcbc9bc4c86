/* testlib.h — the tiny harness every unit test uses; prints "<name>: N passed, N failed, N skipped".
 *
 * CHECK counts one check of the code under test. SETUP is not a check: it guards what a test
 * needs (a fixture parsed, a file written, a pipe); when that fails, the test cannot go on, so
 * the program ends with a message and no result line, which tests/run.sh counts as one failure. */
#ifndef TG_TESTLIB_H
#define TG_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tl_pass, tl_fail;

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (cond) {                                                                         \
            tl_pass++;                                                                      \
        } else {                                                                            \
            tl_fail++;                                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
        }                                                                                   \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                         \
    CHECK((hay) && strstr((hay), (needle)), "expected \"%s\" in \"%s\"", (needle),          \
          (hay) ? (hay) : "(null)")

#define SETUP(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fflush(stdout);                                                                 \
            fprintf(stderr, "SETUP FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            exit(2);                                                                        \
        }                                                                                   \
    } while (0)

static inline int tl_finish(const char *name)
{
    printf("%s: %d passed, %d failed, 0 skipped\n", name, tl_pass, tl_fail);
    return tl_fail ? 1 : 0;
}

#endif
