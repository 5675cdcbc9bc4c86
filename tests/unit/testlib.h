/* testlib.h — the tiny harness every unit test uses; prints "<name>: N passed, N failed". */
#ifndef TG_TESTLIB_H
#define TG_TESTLIB_H

#include <stdio.h>
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

static inline int tl_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tl_pass, tl_fail);
    return tl_fail ? 1 : 0;
}

#endif
