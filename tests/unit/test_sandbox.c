/* test_sandbox.c — the sandbox library: config, limits, path checks, calls from threads, and
 * the network namespace (tests/cli/sandbox.sh tries the same escapes through `toolgen run`). */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/json.h"
#include "run/sandbox.h"
#include "run/sandbox_int.h"
#include "testlib.h"

static cJSON *parse(const char *s)
{
    tg_err err = {0};
    return tg_json_parse(s, strlen(s), NULL, NULL, NULL, &err);
}

static void test_normalize(void)
{
    static const char *const cases[][2] = {
        {"/work/data/x.csv", "/work/data/x.csv"}, {"/work/./data//x.csv", "/work/data/x.csv"},
        {"/work/../main/x", "/main/x"},           {"/work/data/../x", "/work/x"},
        {"/../../etc", "/etc"},                    {"/", "/"},
        {"/work/", "/work"},                       {"/a/b/../../..", "/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *n = sb_normalize(cases[i][0]);
        CHECK(strcmp(n, cases[i][1]) == 0, "normalize(%s) = %s, expected %s", cases[i][0], n, cases[i][1]);
        free(n);
    }
    CHECK(sb_path_within("/r/data/x", "/r/data"), "within");
    CHECK(sb_path_within("/r/data", "/r/data"), "equal is within");
    CHECK(!sb_path_within("/r/database/x", "/r/data"), "prefix is not within");
    CHECK(sb_file_type("a/b.CSV") == TG_FILE_CSV && sb_file_type("x.png") == TG_FILE_IMAGE &&
              sb_file_type("m.json") == TG_FILE_JSON && sb_file_type("n.txt") == TG_FILE_TEXT &&
              sb_file_type("bin") == TG_FILE_OTHER && sb_file_type("d.x/bin") == TG_FILE_OTHER,
          "file types");
}

static void test_limits(void)
{
    tg_limits max = TG_LIMITS_MAX_DEFAULT, l;
    tg_limits_resolve(NULL, 0, &max, &l);
    CHECK(l.cpu_s == 30 && l.memory_mb == 1024 && l.wall_ms == 60000 && l.output_kb == 1024 &&
              l.files == 256 && l.processes == 64,
          "defaults");
    cJSON *c = parse("{\"limits\":{\"cpu_s\":9999,\"memory_mb\":2048,\"wall_s\":20}}");
    tg_limits_resolve(c, 5000, &max, &l);
    CHECK(l.cpu_s == 300, "cpu capped by max: %ld", l.cpu_s);
    CHECK(l.memory_mb == 2048, "memory as asked");
    CHECK(l.wall_ms == 5000, "wall capped by timeout_ms: %ld", l.wall_ms);
    cJSON_Delete(c);
}

static void test_config(void)
{
    tg_sandbox_config c;
    tg_err err = {0};
    cJSON *cfg = parse("{\"sandbox\":{\"isolation\":\"none\",\"data_dirs\":[\"data/\",\"more\"],"
                       "\"max_limits\":{\"cpu_s\":7,\"wall_s\":9}}}");
    CHECK(tg_sandbox_config_init(&c, ".", cfg, &err) == 0, "config: %s", err.msg);
    CHECK(c.isolation == TG_ISOLATION_NONE && c.n_data_dirs == 2 && c.max.cpu_s == 7 &&
              c.max.wall_ms == 9000 && c.max.memory_mb == 4096,
          "config values");
    CHECK(c.runtime_dir != NULL, "runtime files found");
    tg_sandbox_config_free(&c);
    cJSON_Delete(cfg);

    cfg = parse("{\"sandbox\":{\"isolation\":\"docker\"}}");
    CHECK(tg_sandbox_config_init(&c, ".", cfg, &err) != 0, "bad isolation refused");
    CHECK_CONTAINS(err.msg, "isolation");
    cJSON_Delete(cfg);
    cfg = parse("{\"sandbox\":{\"data_dirs\":[\"../outside\"]}}");
    CHECK(tg_sandbox_config_init(&c, ".", cfg, &err) != 0, "data dir with .. refused");
    cJSON_Delete(cfg);
}

static char repo[64];

static void test_paths(void)
{
    snprintf(repo, sizeof repo, "/tmp/tg-sbtest-%ld", (long)getpid());
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/data/sub %s/other && echo a > %s/data/ok.csv && echo s > %s/secret && "
             "ln -s ../secret %s/data/out.csv && ln -s ok.csv %s/data/in.csv && chmod 755 %s && "
             "mkfifo %s/data/pipe && ln -s sub %s/data/sublink",
             repo, repo, repo, repo, repo, repo, repo, repo, repo);
    SETUP(system(cmd) == 0, "setup");
    tg_sandbox_config c;
    tg_err err = {0};
    CHECK(tg_sandbox_config_init(&c, repo, NULL, &err) == 0, "config");
    cJSON *schema = parse("{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
                          "\"g\":{\"type\":\"string\"}}}");
    static const struct {
        const char *value;
        int verdict;
        const char *inside; /* with TG_PATH_FORBIDDEN: what the message says */
    } cases[] = {
        {"data/ok.csv", TG_PATH_OK, "/work/data/ok.csv"},
        {"./data/ok.csv", TG_PATH_OK, "/work/data/ok.csv"},
        {"data/in.csv", TG_PATH_OK, "/work/data/in.csv"},
        /* one regular file, never a folder (the data directory itself) or a pipe to hang on */
        {"data/sub", TG_PATH_FORBIDDEN, "is a directory, not a file"},
        {"data", TG_PATH_FORBIDDEN, "is a directory, not a file"},
        {"data/sublink", TG_PATH_FORBIDDEN, "is a directory, not a file"},
        {"data/pipe", TG_PATH_FORBIDDEN, "is a FIFO (named pipe)"},
        /* the tool opens the path as given: a '..' would mean something else inside */
        {"data/sub/../ok.csv", TG_PATH_FORBIDDEN, "has a '..' component"},
        {"data/sublink/../ok.csv", TG_PATH_FORBIDDEN, "has a '..' component"},
        {"data/out.csv", TG_PATH_FORBIDDEN, NULL},
        {"secret", TG_PATH_FORBIDDEN, NULL},
        {"data/../secret", TG_PATH_FORBIDDEN, NULL},
        {"/etc/passwd", TG_PATH_FORBIDDEN, NULL},
        {"data/missing.csv", TG_PATH_NOT_FOUND, NULL},
        {"other/missing.csv", TG_PATH_FORBIDDEN, NULL},
        {"data/ok.csv/x", TG_PATH_NOT_FOUND, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *args = cJSON_CreateObject();
        cJSON_AddStringToObject(args, "f", cases[i].value);
        cJSON_AddStringToObject(args, "g", "/etc/passwd"); /* not marked: not checked */
        tg_path_args pa;
        tg_err_clear(&err);
        int v = tg_sandbox_check_paths(&c, schema, args, NULL, &pa, &err);
        CHECK(v == cases[i].verdict, "%s: verdict %d, expected %d (%s)", cases[i].value, v,
              cases[i].verdict, err.msg);
        if (v == TG_PATH_OK && cases[i].inside) {
            CHECK(pa.n == 1 && strcmp(pa.v[0].inside, cases[i].inside) == 0, "%s inside %s",
                  cases[i].value, pa.n ? pa.v[0].inside : "-");
        }
        if (v == TG_PATH_FORBIDDEN)
            CHECK_CONTAINS(err.msg, "data/");
        if (v == TG_PATH_FORBIDDEN && cases[i].inside) /* here: what the message says */
            CHECK_CONTAINS(err.msg, cases[i].inside);
        tg_path_args_free(&pa);
        cJSON_Delete(args);
    }
    /* allowed_paths narrows the data directories */
    cJSON *args = parse("{\"f\":\"data/ok.csv\"}");
    cJSON *allowed = parse("[\"data/sub/\"]");
    tg_path_args pa;
    CHECK(tg_sandbox_check_paths(&c, schema, args, allowed, &pa, &err) == TG_PATH_FORBIDDEN,
          "outside allowed_paths");
    CHECK_CONTAINS(err.msg, "constraints.allowed_paths");
    cJSON_Delete(allowed);
    cJSON_Delete(args);
    cJSON_Delete(schema);
    tg_sandbox_config_free(&c);
}

/* ---- calls, from several threads at once --------------------------------------------------- */

typedef struct job {
    int id;
    const tg_sandbox_config *c;
    int rc;
    char out[64];
    char reply[64];
    tg_err err;
} job;

static void *run_job(void *p)
{
    job *j = p;
    char script[128];
    snprintf(script, sizeof script, "echo hello %d; cat <&4 >&3", j->id);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    char request[32];
    snprintf(request, sizeof request, "request %d", j->id);
    tg_sandbox_cmd cmd = {
        .argv = argv,
        .request = request,
        .request_len = strlen(request),
        .reply_channel = true,
        .limits = (tg_limits){5, 256, 10000, 64, 64, 16},
    };
    tg_sandbox_result r;
    j->rc = tg_sandbox_run(j->c, &cmd, &r, &j->err);
    if (j->rc == 0) {
        snprintf(j->out, sizeof j->out, "%s", r.out.data ? r.out.data : "");
        snprintf(j->reply, sizeof j->reply, "%s", r.reply.data ? r.reply.data : "");
        if (r.exit_code != 0)
            j->rc = 100 + r.exit_code;
        tg_sandbox_result_free(&r);
    }
    return NULL;
}

static void test_threads(const tg_sandbox_config *c)
{
    enum { N = 4 };
    pthread_t t[N];
    job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (job){.id = i, .c = c};
        pthread_create(&t[i], NULL, run_job, &jobs[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        char want[64], want_reply[64];
        snprintf(want, sizeof want, "hello %d\n", i);
        snprintf(want_reply, sizeof want_reply, "request %d", i);
        CHECK(jobs[i].rc == 0, "thread %d: rc %d: %s", i, jobs[i].rc, jobs[i].err.msg);
        CHECK(strcmp(jobs[i].out, want) == 0, "thread %d: stdout '%s'", i, jobs[i].out);
        CHECK(strcmp(jobs[i].reply, want_reply) == 0, "thread %d: reply '%s'", i, jobs[i].reply);
    }
}

/* Call directories of this process in tmp_dir. */
static int call_dirs(const char *tmp_dir)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s%ld-", SB_CALL_PREFIX, (long)getpid());
    DIR *d = opendir(tmp_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

static void test_limits_enforced(const tg_sandbox_config *c)
{
    tg_sandbox_result r;
    tg_err err = {0};
    const char *yes[] = {"/usr/bin/yes", NULL};
    tg_sandbox_cmd cmd = {.argv = yes, .limits = (tg_limits){5, 256, 10000, 16, 64, 16}};
    CHECK(tg_sandbox_run(c, &cmd, &r, &err) == 0, "yes: %s", err.msg);
    /* stopped at the cap, not drained until the 10 s wall clock: killed by the output limit */
    CHECK(r.killed_by == TG_LIMIT_OUTPUT && r.out.truncated && r.out.len == 16 * 1024,
          "output capped: killed_by %d, %zu bytes", r.killed_by, r.out.len);
    tg_sandbox_result_free(&r);

    const char *sleep_[] = {"/usr/bin/sleep", "30", NULL};
    cmd = (tg_sandbox_cmd){.argv = sleep_, .limits = (tg_limits){5, 256, 300, 16, 64, 16}};
    CHECK(tg_sandbox_run(c, &cmd, &r, &err) == 0, "sleep: %s", err.msg);
    CHECK(r.killed_by == TG_LIMIT_WALL, "wall clock: killed_by %d", r.killed_by);
    tg_sandbox_result_free(&r);

    /* files written into the work directory are listed; the directory goes with the result */
    const char *write[] = {"/bin/sh", "-c", "mkdir sub && echo a,b > sub/t.csv && echo x > n.txt && "
                                            "ln -s /etc/passwd link",
                           NULL};
    cmd = (tg_sandbox_cmd){.argv = write, .limits = (tg_limits){5, 256, 10000, 64, 64, 16}};
    CHECK(tg_sandbox_run(c, &cmd, &r, &err) == 0, "write: %s", err.msg);
    CHECK(r.n_files == 2 && strcmp(r.files[0].path, "n.txt") == 0 &&
              strcmp(r.files[1].path, "sub/t.csv") == 0 && r.files[1].type == TG_FILE_CSV &&
              r.files[1].size == 4,
          "artifacts: %zu", r.n_files);
    /* they live in the call's tmpfs (readable through the result), never on the host's disk */
    CHECK(r.has_work_fd && !r.workdir, "the work directory is the call's tmpfs");
    struct statfs fs;
    CHECK(r.has_work_fd && fstatfs(r.work_fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC,
          "a tmpfs");
    CHECK(call_dirs(c->tmp_dir) == 0, "nothing of the call in TMPDIR while its result lives");
    tg_sandbox_result_free(&r);

    /* the disk budget is the tmpfs's size: writing past it fails, reported as the disk limit */
    const char *fill[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 200 ]; do mkdir -p d$i/a/b && "
                                           "head -c 1048576 /dev/zero > d$i/a/b/f || exit 3; "
                                           "i=$((i+1)); done", NULL};
    cmd = (tg_sandbox_cmd){.argv = fill, .limits = (tg_limits){5, 256, 20000, 1024, 64, 16}};
    CHECK(tg_sandbox_run(c, &cmd, &r, &err) == 0, "fill: %s", err.msg);
    CHECK(r.killed_by == TG_LIMIT_DISK && r.exit_code == 3, "disk limit: killed_by %d, exit %d",
          r.killed_by, r.exit_code);
    CHECK(r.files_bytes <= WORK_BUDGET_MIN && r.files_bytes > WORK_BUDGET_MIN / 2,
          "at most the budget: %lld", r.files_bytes);
    tg_sandbox_result_free(&r);
    CHECK(call_dirs(c->tmp_dir) == 0, "nothing of the call left in TMPDIR");
}


/* ---- trees of any depth ---------------------------------------------------------------------- */

/* dir/a/a/.../a (depth levels) with a file of size bytes at level at; returns dir (heap). */
static char *deep_tree(const char *name, int depth, int at, size_t size)
{
    char *dir = xasprintf("/tmp/tg-sbdeep-%ld-%s", (long)getpid(), name);
    mkdir(dir, 0700);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    for (int i = 0; fd >= 0 && i < depth; i++) {
        if (i == at) {
            int f = openat(fd, "payload.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (f >= 0 && ftruncate(f, (off_t)size) != 0)
                fprintf(stderr, "ftruncate failed\n");
            if (f >= 0)
                close(f);
        }
        mkdirat(fd, "a", 0700);
        int sub = openat(fd, "a", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = sub;
    }
    if (fd >= 0) {
        fchmod(fd, 0); /* a tool may leave a directory without permissions */
        close(fd);
    }
    return dir;
}

static void test_deep_trees(void)
{
    /* the budget walk sees a file 135 levels down, and stops early once past its limit */
    char *dir = deep_tree("bytes", 140, 135, 1 << 20);
    CHECK(sb_tree_bytes(dir, 0) == 1 << 20, "bytes at depth 135: %lld", sb_tree_bytes(dir, 0));
    tg_sandbox_result r = {0};
    sb_collect_files(dir, NULL, 0, &r);
    CHECK(r.files_bytes == 1 << 20, "listing counts depth 135: %lld", r.files_bytes);
    CHECK(r.n_files == 1 || r.files_truncated, "the deep file is listed or marked truncated");
    for (size_t i = 0; i < r.n_files; i++)
        free(r.files[i].path);
    free(r.files);
    CHECK(sb_remove_tree(dir) == 0 && !tg_is_dir(dir), "140 levels removed");
    free(dir);
    /* far deeper than any path the kernel resolves at once (PATH_MAX), without recursion */
    dir = deep_tree("remove", 5000, 4990, 10);
    CHECK(sb_tree_bytes(dir, 0) == 10, "bytes at depth 4990: %lld", sb_tree_bytes(dir, 0));
    CHECK(sb_remove_tree(dir) == 0 && !tg_is_dir(dir), "5000 levels removed");
    free(dir);
}

/* The sandbox's network is a loopback of its own (docs/sandbox.md): lo is its only interface,
 * a listener on the host's 127.0.0.1 is not reached, and an outside address has no route. */
static void test_network(const tg_sandbox_config *c)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    SETUP(ls >= 0 && bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 4) == 0 &&
              getsockname(ls, (struct sockaddr *)&a, &alen) == 0,
          "a listener on the host's loopback");
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    /* the 5 s connect timeout only bounds a hang: without a route, connect fails at once */
    static const char script[] =
        "import socket, sys\n"
        "print(' '.join(sorted(n for _, n in socket.if_nameindex())))\n"
        "for host, port in (('127.0.0.1', int(sys.argv[1])), ('1.1.1.1', 80)):\n"
        "    s = socket.socket()\n"
        "    s.settimeout(5)\n"
        "    try:\n"
        "        s.connect((host, port))\n"
        "        print('connected to', host)\n"
        "    except OSError as e:\n"
        "        print('no connection to', host, e.errno)\n";
    const char *argv[] = {"/usr/bin/python3", "-c", script, port, NULL};
    tg_sandbox_cmd cmd = {.argv = argv, .limits = (tg_limits){10, 512, 60000, 64, 64, 16}};
    tg_sandbox_result r;
    tg_err err = {0};
    SETUP(tg_sandbox_run(c, &cmd, &r, &err) == 0 && r.exit_code == 0, "python in the sandbox: %s %s",
          err.msg, r.err.data ? r.err.data : "");
    const char *out = r.out.data ? r.out.data : "";
    CHECK(strncmp(out, "lo\n", 3) == 0, "the only interface is lo: %s", out);
    CHECK(!strstr(out, "connected to"), "no connection left the sandbox: %s", out);
    CHECK(strstr(out, "no connection to 127.0.0.1") && strstr(out, "no connection to 1.1.1.1"),
          "both connections were tried and failed: %s", out);
    int conn = accept(ls, NULL, NULL);
    CHECK(conn < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
          "nothing arrived at the host's listener");
    if (conn >= 0)
        close(conn);
    close(ls);
    tg_sandbox_result_free(&r);
}

int main(void)
{
    test_normalize();
    test_deep_trees();
    test_limits();
    test_config();
    test_paths();
    tg_sandbox_config c;
    tg_err err = {0};
    SETUP(tg_sandbox_config_init(&c, repo, NULL, &err) == 0, "sandbox config: %s", err.msg);
    test_threads(&c);
    test_limits_enforced(&c);
    test_network(&c);
    tg_sandbox_config_free(&c);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", repo);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", repo);
    return tl_finish("sandbox");
}
