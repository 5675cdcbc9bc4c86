/*
 * test_base.c — the small modules of base/ that every layer leans on: XXH3-128 hashes (known
 * answers from the xxHash reference test vectors, the hex form, files), the string map, the
 * string vector and string lists, tg_buf's invariants, the hex-digit table, the monotonic clock,
 * and the thread-safety of tg_write_file_atomic (by path and under a directory fd) and tg_datadir.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/strmap.h"
#include "base/strvec.h"
#include "base/util.h"
#include "testlib.h"

static char tmpdir[64];

/* ---- hashes --------------------------------------------------------------------------------- */

/* The input of xxHash's sanity vectors: byte i is the top byte of PRIME32 * PRIME64^i. */
static unsigned char *test_buffer(size_t len)
{
    unsigned char *b = xmalloc(len);
    uint64_t gen = 2654435761U;
    for (size_t i = 0; i < len; i++) {
        b[i] = (unsigned char)(gen >> 56);
        gen *= UINT64_C(11400714785074694797);
    }
    return b;
}

/* XXH3-128 (seed 0) of the first len bytes of test_buffer, one per length class of XXH3. */
static const struct {
    size_t len;
    const char *hex; /* high 64 bits first, as tg_hash_hex writes them */
} VECTORS[] = {
    {0, "99aa06d3014798d86001c324468d497f"},    {1, "a6cd5e9392000f6ac44bdff4074eecdb"},
    {6, "082afe0b8162d12a3e7039bdda43cfc6"},    {12, "6e3efd8fc7802b18061a192713f69ad9"},
    {24, "0ce966e4678d37611e7044d28b1b901d"},   {48, "a002ac4e5478227ef942219aed80f67b"},
    {81, "4952f58181ab00425e8bafb9f95fb803"},   {222, "337e09641b948717f1aebd597cec6b3a"},
    {403, "1b6de21e332dd73dcdeb804d65c6dea4"},  {512, "18d2d110dcc9bca1617e49599013cb6b"},
    {2048, "f736557fd47073a5dd59e2c3a5f038e0"}, {2240, "ccb134fbfa7ce49d6e73a90539cf2948"},
    {2367, "e89c0f6ff369b427cb37aeb9e5d361ed"},
};

static void test_hash_vectors(void)
{
    unsigned char *buf = test_buffer(2367);
    for (size_t i = 0; i < sizeof VECTORS / sizeof *VECTORS; i++) {
        char hex[TG_HASH_HEX];
        tg_hash_hex(tg_hash_bytes(buf, VECTORS[i].len), hex);
        CHECK(strcmp(hex, VECTORS[i].hex) == 0, "XXH3-128 of %zu bytes: %s, expected %s",
              VECTORS[i].len, hex, VECTORS[i].hex);
    }
    /* The same through a file, streamed: the largest vector spans several XXH3 blocks. */
    char *path = xasprintf("%s/vector", tmpdir);
    tg_err err = {0};
    CHECK(tg_write_file_atomic(path, buf, 2367, &err) == 0, "write: %s", err.msg);
    tg_hash fh;
    char hex[TG_HASH_HEX];
    CHECK(tg_hash_file(path, &fh, &err) == 0, "hash file: %s", err.msg);
    tg_hash_hex(fh, hex);
    CHECK(strcmp(hex, "e89c0f6ff369b427cb37aeb9e5d361ed") == 0, "file hash %s", hex);
    free(path);
    free(buf);
}

static void test_hash_files(void)
{
    /* Bigger than the 64 KiB read buffer, and not a multiple of it. */
    size_t n = 3 * 65536 + 123;
    unsigned char *buf = test_buffer(n);
    char *path = xasprintf("%s/big", tmpdir);
    tg_err err = {0};
    CHECK(tg_write_file_atomic(path, buf, n, &err) == 0, "write: %s", err.msg);
    tg_hash fh = {0};
    CHECK(tg_hash_file(path, &fh, &err) == 0, "hash: %s", err.msg);
    CHECK(tg_hash_eq(fh, tg_hash_bytes(buf, n)), "streamed file hash differs from the bytes hash");
    CHECK(!tg_hash_is_zero(fh), "zero hash");
    free(path);
    free(buf);

    err = (tg_err){0};
    char *missing = xasprintf("%s/missing", tmpdir);
    CHECK(tg_hash_file(missing, &fh, &err) == -1, "missing file hashed");
    CHECK(strstr(err.file, "missing") != NULL, "error names the file: %s", err.file);
    free(missing);
}

static void test_hash_hex(void)
{
    tg_hash h = {UINT64_C(0x0123456789abcdef), UINT64_C(0xfedcba9876543210)}, back;
    char hex[TG_HASH_HEX];
    tg_hash_hex(h, hex);
    CHECK(strcmp(hex, "0123456789abcdeffedcba9876543210") == 0, "hex form %s", hex);
    CHECK(tg_hash_parse(hex, &back) && tg_hash_eq(h, back), "hex round trip");
    CHECK(tg_hash_parse("0123456789ABCDEFFEDCBA9876543210", &back) && tg_hash_eq(h, back),
          "upper-case digits");
    CHECK(!tg_hash_parse("0123456789abcdeffedcba987654321", &back), "31 digits accepted");
    CHECK(!tg_hash_parse("0123456789abcdef fedcba987654321", &back), "a space accepted");
    CHECK(!tg_hash_parse("0123456789abcdefgedcba9876543210", &back), "'g' accepted");
    tg_hash zero = {0, 0};
    CHECK(tg_hash_is_zero(zero) && !tg_hash_is_zero(h), "is_zero");

    int bad = 0;
    for (int c = -128; c < 256; c++) {
        int want = c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
        bad += tg_hexval(c) != want;
    }
    CHECK(bad == 0, "tg_hexval wrong for %d inputs", bad);
}

/* ---- string map ----------------------------------------------------------------------------- */

static void test_strmap(void)
{
    tg_strmap m = TG_STRMAP_INIT;
    CHECK(tg_strmap_get(&m, "a") == NULL, "lookup in an empty map");
    int one = 1, two = 2;
    tg_strmap_put(&m, "a", &one);
    CHECK(tg_strmap_get(&m, "a") == &one && m.n == 1, "insert");
    /* A key equal in content but another pointer replaces the value, and the borrowed key. */
    char key2[] = "a";
    tg_strmap_put(&m, key2, &two);
    CHECK(tg_strmap_get(&m, "a") == &two && m.n == 1, "replace");
    size_t it = 0;
    const char *k;
    void *v;
    CHECK(tg_strmap_next(&m, &it, &k, &v) && k == key2 && v == &two, "replaced key is borrowed");
    CHECK(!tg_strmap_next(&m, &it, &k, &v), "one entry only");
    tg_strmap_del(&m, "a");
    CHECK(tg_strmap_get(&m, "a") == NULL && m.n == 0, "delete");
    tg_strmap_del(&m, "a"); /* deleting what is not there is harmless */

    /* Growth: far past the first table (64 slots), every entry still found, iteration sees each
     * exactly once. */
    enum { N = 20000 };
    tg_strv keys = TG_STRV_INIT;
    for (int i = 0; i < N; i++)
        tg_strv_pushf(&keys, "tools/t%05d/tool.manifest.yaml", i);
    for (int i = 0; i < N; i++)
        tg_strmap_put(&m, keys.v[i], (void *)(uintptr_t)(i + 1));
    CHECK(m.n == N && m.cap >= N && (m.cap & (m.cap - 1)) == 0, "n %zu cap %zu", m.n, m.cap);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += tg_strmap_get(&m, keys.v[i]) != (void *)(uintptr_t)(i + 1);
    CHECK(bad == 0, "%d lookups wrong after growth", bad);
    unsigned char *seen = xcalloc(N, 1);
    size_t count = 0;
    bad = 0;
    for (it = 0; tg_strmap_next(&m, &it, &k, &v); count++) {
        size_t i = (size_t)(uintptr_t)v - 1;
        bad += i >= N || seen[i]++ || strcmp(keys.v[i], k) != 0;
    }
    CHECK(count == N && bad == 0, "iteration: %zu entries, %d wrong", count, bad);
    free(seen);
    /* Deleting every third keeps the rest reachable (backward-shift deletion). */
    for (int i = 0; i < N; i += 3)
        tg_strmap_del(&m, keys.v[i]);
    bad = 0;
    for (int i = 0; i < N; i++) {
        void *got = tg_strmap_get(&m, keys.v[i]);
        bad += i % 3 == 0 ? got != NULL : got != (void *)(uintptr_t)(i + 1);
    }
    CHECK(bad == 0 && m.n == N - (N + 2) / 3, "after deletions: %d wrong, n %zu", bad, m.n);
    tg_strmap_free(&m);
    CHECK(m.n == 0 && m.cap == 0 && tg_strmap_get(&m, keys.v[1]) == NULL, "freed map is empty");
    tg_strv_free(&keys);
}

/* ---- string vector and lists ---------------------------------------------------------------- */

/* Words: runs of letters and digits, lowercased, in order; nothing from NULL or punctuation. */
static void test_words(void)
{
    tg_strv w = TG_STRV_INIT;
    tg_strv_push_words(&w, "Life_Expectancy (years) 2015-Q3");
    tg_strv_push_words(&w, NULL);
    tg_strv_push_words(&w, " -- ");
    CHECK(w.n == 5 && strcmp(w.v[0], "life") == 0 && strcmp(w.v[1], "expectancy") == 0 &&
              strcmp(w.v[2], "years") == 0 && strcmp(w.v[3], "2015") == 0 &&
              strcmp(w.v[4], "q3") == 0,
          "words: %zu", w.n);
    tg_strv_free(&w);
}

static void test_strvec(void)
{
    tg_strv s = TG_STRV_INIT;
    tg_strv_sort(&s); /* sorting an empty vector touches nothing */
    CHECK(s.v == NULL && s.n == 0, "empty vector");
    const char *word = "pear";
    tg_strv_push(&s, word);
    CHECK(s.n == 1 && s.v[0] != word && strcmp(s.v[0], "pear") == 0 && s.v[1] == NULL,
          "push copies and NULL-terminates");
    tg_strv_push_owned(&s, xstrdup("apple"));
    tg_strv_pushf(&s, "%s-%d", "fig", 7);
    CHECK(s.n == 3 && strcmp(s.v[2], "fig-7") == 0 && s.v[3] == NULL, "pushf");
    for (int i = 0; i < 100; i++)
        tg_strv_pushf(&s, "z%03d", 99 - i);
    CHECK(s.n == 103 && s.v[103] == NULL, "NULL-terminated after growth");
    tg_strv_sort_from(&s, 3);
    CHECK(strcmp(s.v[0], "pear") == 0 && strcmp(s.v[3], "z000") == 0 &&
              strcmp(s.v[102], "z099") == 0,
          "sort_from sorts only the tail");
    tg_strv_sort(&s);
    CHECK(strcmp(s.v[0], "apple") == 0 && strcmp(s.v[1], "fig-7") == 0 &&
              strcmp(s.v[2], "pear") == 0,
          "sort");
    tg_strv_sort_from(&s, 500); /* past the end: nothing */
    tg_strv_free(&s);
    CHECK(s.v == NULL && s.n == 0 && s.cap == 0, "free leaves it empty");
    tg_strv_push(&s, "again");
    CHECK(s.n == 1 && strcmp(s.v[0], "again") == 0, "reusable after free");
    tg_strv_free(&s);

    static const char *const list[] = {"draft", "staged", "approved", NULL};
    CHECK(tg_strlist_index(list, "draft") == 0 && tg_strlist_index(list, "approved") == 2,
          "index");
    CHECK(tg_strlist_index(list, "Draft") == -1 && tg_strlist_index(list, "") == -1, "absent");
    CHECK(tg_strlist_index(list, NULL) == -1 && !tg_strlist_has(list, NULL), "NULL string");
    CHECK(tg_strlist_has(list, "staged") && !tg_strlist_has(list, "stage"), "has");
}

/* ---- buffer --------------------------------------------------------------------------------- */

static void test_buf(void)
{
    tg_buf b = TG_BUF_INIT;
    CHECK(b.data != NULL && b.data[0] == '\0' && b.len == 0 && b.cap == 0, "INIT reads \"\"");
    tg_buf c = TG_BUF_INIT;
    CHECK(b.data == c.data && b.data == tg_buf_slopbuf, "unallocated buffers share the slopbuf");
    tg_buf_truncate(&b, 0);
    tg_buf_reset(&b);
    tg_buf_setlen(&b, 0);
    CHECK(b.cap == 0 && tg_buf_slopbuf[0] == '\0', "nothing writes the slopbuf");
    char *empty = tg_buf_steal(&b);
    CHECK(empty != tg_buf_slopbuf && strcmp(empty, "") == 0, "steal of nothing: a heap \"\"");
    free(empty);
    CHECK(b.data == tg_buf_slopbuf, "steal leaves b empty");

    tg_buf_puts(&b, "hello");
    CHECK(b.cap > b.len && b.data[b.len] == '\0' && strcmp(b.data, "hello") == 0, "len < cap");
    tg_buf_reserve(&b, 100);
    size_t cap = b.cap;
    CHECK(cap >= b.len + 101, "reserve makes room for the bytes and the NUL");
    memcpy(b.data + b.len, ", world", 7);
    tg_buf_setlen(&b, b.len + 7);
    CHECK(strcmp(b.data, "hello, world") == 0 && b.len == 12 && b.cap == cap, "setlen");
    tg_buf_setlen(&b, 5);
    CHECK(strcmp(b.data, "hello") == 0, "setlen shortens");
    tg_buf_truncate(&b, 50);
    CHECK(b.len == 5, "truncate never lengthens");
    tg_buf_printf(&b, " %0300d", 7); /* longer than the small stack buffer of vprintf */
    CHECK(b.len == 306 && b.data[306] == '\0' && b.data[305] == '7', "long printf");
    tg_buf_free(&b);
    CHECK(b.data == tg_buf_slopbuf && b.len == 0 && b.cap == 0, "free returns to the slopbuf");
    tg_buf_puts(&b, "x");
    CHECK(strcmp(b.data, "x") == 0, "reusable after free");
    tg_buf_free(&b);

    tg_buf_init(&b, 1000);
    CHECK(b.cap > 1000 && b.len == 0 && b.data[0] == '\0', "init with a hint allocates");
    tg_buf_free(&b);
    tg_buf_init(&b, 0);
    CHECK(b.data == tg_buf_slopbuf, "init without a hint does not");

    tg_buf z = {0}; /* a zeroed buffer (calloc'd struct) grows and frees like an empty one */
    tg_buf_truncate(&z, 0);
    tg_buf_putc(&z, 'q');
    CHECK(z.data && strcmp(z.data, "q") == 0, "zeroed buffer grows");
    tg_buf_free(&z);
    tg_buf z2 = {0};
    char *s = tg_buf_steal(&z2);
    CHECK(strcmp(s, "") == 0, "steal of a zeroed buffer");
    free(s);
    tg_buf_free(&z2);
}

/* ---- atomic writes from many threads -------------------------------------------------------- */

enum { WRITERS = 8, ROUNDS = 20 };

typedef struct writer {
    const char *path;
    int dirfd; /* >= 0: write "shared.json" under it (tg_write_file_atomic_at) */
    char *data; /* the writer's own content: its letter, repeated */
    size_t len;
    int failures;
} writer;

static void *write_many(void *arg)
{
    writer *w = arg;
    for (int r = 0; r < ROUNDS; r++) {
        tg_err err = {0};
        int rc = w->dirfd >= 0
                     ? tg_write_file_atomic_at(w->dirfd, "shared.json", w->data, w->len, &err)
                     : tg_write_file_atomic(w->path, w->data, w->len, &err);
        if (rc != 0)
            w->failures++;
    }
    return NULL;
}

static void test_atomic_write_threads(void)
{
    char *path = xasprintf("%s/shared.json", tmpdir);
    int dirfd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    SETUP(dirfd >= 0, "open %s", tmpdir);
    writer ws[WRITERS];
    pthread_t th[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        /* half by path, half under a directory fd: the same temporary-file rules */
        ws[i] = (writer){.path = path, .dirfd = i % 2 ? dirfd : -1,
                         .len = 100000 + (size_t)i * 4099, .failures = 0};
        ws[i].data = xmalloc(ws[i].len);
        memset(ws[i].data, 'a' + i, ws[i].len);
    }
    for (int i = 0; i < WRITERS; i++)
        CHECK(pthread_create(&th[i], NULL, write_many, &ws[i]) == 0, "thread %d", i);
    int failures = 0;
    for (int i = 0; i < WRITERS; i++) {
        pthread_join(th[i], NULL);
        failures += ws[i].failures;
    }
    CHECK(failures == 0, "%d writes failed", failures);
    close(dirfd);

    /* The file is one writer's content, whole: its length and every byte match that writer. */
    size_t len = 0;
    tg_err err = {0};
    char *got = tg_read_file(path, 0, &len, &err);
    CHECK(got != NULL, "read back: %s", err.msg);
    int who = got && len ? got[0] - 'a' : -1;
    bool whole = who >= 0 && who < WRITERS && len == ws[who].len &&
                 memcmp(got, ws[who].data, len) == 0;
    CHECK(whole, "the file is not one writer's whole content (len %zu, first byte %d)", len, who);
    free(got);

    /* No temporary file is left behind, and the file has a creat(0644)-like mode. */
    DIR *d = opendir(tmpdir);
    int leftovers = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        leftovers += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    CHECK(leftovers == 0, "%d temporary files left", leftovers);
    struct stat st;
    mode_t mask = umask(022);
    umask(mask);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0644 & ~mask), "mode %o",
          (unsigned)(st.st_mode & 0777));

    /* A directory that does not exist: an error naming the path, nothing created. */
    char *bad = xasprintf("%s/no/such/dir/f", tmpdir);
    err = (tg_err){0};
    CHECK(tg_write_file_atomic(bad, "x", 1, &err) == -1 && strstr(err.file, "no/such"),
          "write into a missing directory: %s", err.file);
    free(bad);
    for (int i = 0; i < WRITERS; i++)
        free(ws[i].data);
    free(path);
}

/* ---- the data directory and the clock -------------------------------------------------------- */

static void *ask_datadir(void *arg)
{
    *(const char **)arg = tg_datadir();
    return NULL;
}

static void test_datadir_and_clock(void)
{
    const char *got[WRITERS];
    pthread_t th[WRITERS];
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&th[i], NULL, ask_datadir, &got[i]);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(th[i], NULL);
    const char *main_dir = tg_datadir();
    int differ = 0;
    for (int i = 0; i < WRITERS; i++)
        differ += got[i] != main_dir;
    CHECK(differ == 0, "%d threads saw another data directory", differ);
    CHECK(main_dir != NULL && tg_is_dir(main_dir), "the test binary finds the source tree");

    /* the clock itself: it never runs behind a sleep, and counts milliseconds (a microsecond
     * clock would read 20,000 or more; the bound is far beyond any stall of a loaded machine) */
    double t0 = tg_now_ms();
    usleep(20000);
    double t1 = tg_now_ms();
    CHECK(t1 - t0 >= 19.0 && t1 - t0 < 20000.0, "20 ms slept, %.3f ms measured", t1 - t0);
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *p = xasprintf("%s/%s", tmpdir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
    rmdir(tmpdir);
}

/* The hints' distance: insertions, deletions and substitutions each count one. */
static void test_edit_distance(void)
{
    CHECK(tg_edit_distance("", "") == 0, "empty");
    CHECK(tg_edit_distance("avrage", "average") == 1, "one insertion");
    CHECK(tg_edit_distance("kitten", "sitting") == 3, "kitten/sitting");
    CHECK(tg_edit_distance("propertys", "properties") == 2, "two edits");
    CHECK(tg_edit_distance("abc", "") == 3 && tg_edit_distance("", "abc") == 3, "from nothing");
    char longer[80];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CHECK(tg_edit_distance(longer, "a") == SIZE_MAX, "longer than 64 bytes: no hint");
}

/* tg_read_file_at returns every byte of a file whatever its size: empty, one byte, around a
 * page, and large (a regular file is read into a buffer sized from fstat). */
static void test_read_file_sizes(void)
{
    static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 65535, 65536, 1 << 20};
    int dirfd = open(tmpdir, O_RDONLY | O_DIRECTORY);
    SETUP(dirfd >= 0, "open %s", tmpdir);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        char *data = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            data[i] = (char)('a' + (i * 7 + k) % 26);
        tg_err err = {0};
        CHECK(tg_write_file_atomic_at(dirfd, "sized", data, n, &err) == 0, "write: %s", err.msg);
        size_t len = 12345;
        char *got = tg_read_file_at(dirfd, "sized", 0, &len, &err);
        CHECK(got && len == n && memcmp(got, data, n) == 0 && got[n] == '\0',
              "read back %zu bytes: got %zu (%s)", n, got ? len : 0, got ? "" : err.msg);
        free(got);
        free(data);
    }
    unlinkat(dirfd, "sized", 0);
    close(dirfd);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tg_base_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_hash_vectors();
    test_hash_files();
    test_hash_hex();
    test_strmap();
    test_strvec();
    test_words();
    test_buf();
    test_atomic_write_threads();
    test_read_file_sizes();
    test_datadir_and_clock();
    test_edit_distance();
    remove_tmpdir();
    return tl_finish("test_base");
}
