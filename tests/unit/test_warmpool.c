/* test_warmpool.c — the warm pool (run/warmpool.h): a worker imported the dependency set before the
 * call, each worker serves one call and is replaced, so a call that mutates module globals or
 * writes files leaves nothing for the next; a pooled call answers as a cold call does (path
 * arguments included). The call's child is forked and warmed up before the call: it sees none of
 * the warm-up, a timeout still kills it, its CPU time is the call's alone, and the tool file a
 * worker compiled ahead is used only while its bytes are unchanged. Real bubblewrap, real Python
 * (with pandas, whose warm-up is the one that matters). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "run/cmdrunner.h"
#include "run/warm.h"
#include "run/warmpool.h"
#include "run/toolrun.h"
#include "testlib.h"
#include "probe_fixture.h"

static char repo[64];

static const char manifest[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Probe\n"
    "description: Misbehave in the way the test chooses, then report what the call sees.\n"
    "timeout_ms: 2000\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  properties:\n"
    "    mode: {type: string, default: check}\n"
    "    file_path: {type: string, x-toolgen-path: read}\n"
    "output_schema:\n"
    "  type: object\n"
    "constraints:\n"
    "  limits: {memory_mb: 512, output_kb: 64}\n"
    "implementation:\n"
    "  runtime: python\n"
    "  file: tool.py\n"
    "  entrypoint: run\n"
    "  dependencies: [fractions]\n";

static const char tool_py[] =
    "import os, sys\n"
    "PRELOADED = 'fractions' in sys.modules\n"
    "STATE = {'calls': 0}\n"
    "def listing(d):\n"
    "    return sorted(x for x in os.listdir(d) if x not in ('matplotlib', 'data'))\n"
    "def run(mode='check', file_path=None):\n"
    "    STATE['calls'] += 1\n"
    "    lines = 0\n"
    "    if file_path:\n"
    "        with open(file_path) as f:\n"
    "            lines = sum(1 for _ in f)\n"
    "    if mode == 'mutate':\n"
    "        import fractions\n"
    "        fractions.POISON = True\n"
    "        os.environ['POISON'] = '1'\n"
    "        for p in ('left.txt', '/tmp/left.txt', '/dev/shm/left'):\n"
    "            with open(p, 'w') as f:\n"
    "                f.write('x')\n"
    "    elif mode == 'memory':\n"
    "        hog = bytearray(1 << 31)\n"
    "    elif mode == 'write_input':\n"
    "        open(file_path, 'a').write('x')\n"
    "    import fractions\n"
    "    return {'calls': STATE['calls'], 'lines': lines,\n"
    "            'poison': hasattr(fractions, 'POISON') or 'POISON' in os.environ,\n"
    "            'cwd': listing('.'), 'tmp': listing('/tmp'), 'shm': listing('/dev/shm'),\n"
    "            'preloaded': PRELOADED}\n";

static cJSON *parse(const char *json)
{
    tg_err err = {0};
    return tg_json_parse(json, strlen(json), NULL, NULL, NULL, &err);
}

/* One call through the pool, with a ready worker (its start is not what is tested here). */
static void pooled(fixture *fx, tg_warmpool *pool, const char *json, tg_call_result *r)
{
    tg_warmpool_wait(pool, &fx->m);
    cJSON *args = parse(json);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_err err = {0};
    CHECK(tg_warmpool_call_run(pool, &c, r, &err) == TG_CALL_DONE, "%s: %s", json, err.msg);
    cJSON_Delete(args);
}

/* One call through the pool as it is (no wait for a worker). */
static void cold_free_pooled(fixture *fx, tg_warmpool *pool, const char *json, tg_call_result *r)
{
    cJSON *args = parse(json);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_err err = {0};
    CHECK(tg_warmpool_call_run(pool, &c, r, &err) == TG_CALL_DONE, "%s: %s", json, err.msg);
    cJSON_Delete(args);
}

static void cold(fixture *fx, const char *json, tg_call_result *r)
{
    cJSON *args = parse(json);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_err err = {0};
    CHECK(tg_tool_call_run(&fx->env.ctx, &c, r, &err) == TG_CALL_DONE, "%s: %s", json, err.msg);
    cJSON_Delete(args);
}

static bool flag(const tg_call_result *r, const char *key)
{
    return cJSON_IsTrue(tg_json_get(r->result, key));
}

static void test_one_call_per_worker(fixture *fx)
{
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result a, b, c;
    pooled(fx, pool, "{\"mode\":\"mutate\"}", &a);
    CHECK(a.ok && flag(&a, "poison") && flag(&a, "preloaded"),
          "the worker had imported the dependency set: %s", a.guidance.message);
    CHECK(a.sb.n_files == 1 && strcmp(a.sb.files[0].path, "left.txt") == 0, "its file is listed");
    pooled(fx, pool, "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}", &b);
    CHECK(b.ok && flag(&b, "preloaded"), "second call warm: %s", b.guidance.message);
    CHECK(tg_json_get_number(b.result, "calls", -1) == 1 && !flag(&b, "poison"),
          "no module state from the call before");
    static const char *const dirs[] = {"cwd", "tmp", "shm"};
    for (size_t d = 0; d < 3; d++)
        CHECK(cJSON_GetArraySize(tg_json_get(b.result, dirs[d])) == 0, "%s is empty", dirs[d]);
    CHECK(tg_json_get_number(b.result, "lines", -1) == 3, "the path argument is where a cold "
          "call finds it");
    CHECK(b.sb.n_files == 0, "the linked input is not one of the call's files");
    cold(fx, "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}", &c);
    CHECK(c.ok && !flag(&c, "preloaded") && tg_json_get_number(c.result, "lines", -1) == 3,
          "cold: not preloaded");
    CHECK(tg_warmpool_warm_calls(pool) == 2, "two warm calls: %zu", tg_warmpool_warm_calls(pool));
    tg_call_result_free(&a);
    tg_call_result_free(&b);
    tg_call_result_free(&c);

    /* failures are classified as cold ones are; an input stays read-only */
    static const char *const bad[] = {"{\"mode\":\"memory\"}",
                                      "{\"mode\":\"write_input\",\"file_path\":\"data/x.csv\"}",
                                      "{\"file_path\":\"data/none.csv\"}"};
    for (size_t i = 0; i < 3; i++) {
        pooled(fx, pool, bad[i], &a);
        cold(fx, bad[i], &c);
        CHECK(!a.ok && a.guidance.cls == c.guidance.cls && strcmp(a.guidance.code, c.guidance.code) == 0,
              "%s: class %s, cold %s", bad[i], tg_error_class_name(a.guidance.cls),
              tg_error_class_name(c.guidance.cls));
        tg_call_result_free(&a);
        tg_call_result_free(&c);
    }
    char *x = xasprintf("%s/data/x.csv", repo);
    struct stat st;
    CHECK(stat(x, &st) == 0 && st.st_size == 6, "the input file is unchanged");
    free(x);
    CHECK(tg_warmpool_warm_calls(pool) == 4, "warm calls: %zu", tg_warmpool_warm_calls(pool));
    tg_warmpool_free(pool);
}

/* ---- the pre-forked child (docs/sandbox.md#the-warm-pool) ---------------------------------- */

static const char prefork_manifest[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Probe\n"
    "description: Report what the pre-forked call's child sees, spin, or burn CPU.\n"
    "timeout_ms: 2000\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  properties:\n"
    "    mode: {type: string, default: check}\n"
    "output_schema:\n"
    "  type: object\n"
    "implementation:\n"
    "  runtime: python\n"
    "  file: tool.py\n"
    "  entrypoint: run\n"
    "  dependencies: [pandas]\n";

/* VERSION is what the stale-code test changes; LOADER who ran the module's code: the runner
 * (tool_module: the code the worker compiled ahead) or the import system (compiled from the
 * file now). */
static const char prefork_tool_fmt[] =
    "import gc, os, sys, time\n"
    "VERSION = '%s'\n"
    "LOADER = sys._getframe(1).f_code.co_name\n"
    "def run(mode='check'):\n"
    "    before = time.process_time()\n"
    "    if mode == 'spin':\n"
    "        while True:\n"
    "            pass\n"
    "    if mode == 'burn':\n"
    "        t = time.process_time()\n"
    "        while time.process_time() - t < 0.3:\n"
    "            pass\n"
    "        return {'before_ms': before * 1e3, 'loop_ms': (time.process_time() - t) * 1e3}\n"
    "    import pandas as pd\n"
    "    frames = [o for o in gc.get_objects() if isinstance(o, (pd.DataFrame, pd.Series))]\n"
    "    return {'version': VERSION, 'loader': LOADER, 'frames': len(frames),\n"
    "            'cwd': sorted(os.listdir('.')), 'tmp': sorted(x for x in os.listdir('/tmp')\n"
    "                                                   if x != 'matplotlib')}\n";

static const char *text_of(const tg_call_result *r, const char *key)
{
    const char *v = tg_json_get_string(r->result, key);
    return v ? v : "";
}

static void test_prefork(fixture *fx)
{
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result a, c;
    pooled(fx, pool, "{\"mode\":\"check\"}", &a);
    CHECK(a.ok, "check: %s", a.guidance.message);
    CHECK(tg_json_get_number(a.result, "frames", -1) == 0, "no frame of the warm-up is alive");
    CHECK(cJSON_GetArraySize(tg_json_get(a.result, "cwd")) == 0 &&
          cJSON_GetArraySize(tg_json_get(a.result, "tmp")) == 0, "cwd and /tmp are empty");
    CHECK(a.sb.err.len == 0 && a.sb.out.len == 0, "nothing of the warm-up in the call's streams: %s",
          a.sb.err.data);
    const char *loader = text_of(&a, "loader");
    CHECK(strcmp(loader, "tool_module") == 0,
          "the tool file the worker compiled ahead was used (%s)", loader);
    tg_call_result_free(&a);

    /* the file changed after the worker compiled it: never the stale code */
    tg_warmpool_wait(pool, &fx->m);
    char *path = xasprintf("%s/tools/probe/tool.py", repo);
    char *text = xasprintf(prefork_tool_fmt, "B");
    tg_err err = {0};
    SETUP(tg_write_file_atomic(path, text, strlen(text), &err) == 0 && chmod(path, 0644) == 0,
          "rewrite: %s", err.msg);
    pooled(fx, pool, "{\"mode\":\"check\"}", &a);
    CHECK(a.ok && strcmp(text_of(&a, "version"), "B") == 0,
          "the changed file runs: %s", a.guidance.message);
    CHECK(strcmp(text_of(&a, "loader"), "tool_module") != 0,
          "loaded from the file, not from the code compiled before the change (%s)",
          text_of(&a, "loader"));
    tg_call_result_free(&a);
    free(path);
    free(text);

    /* a timeout still kills the pre-forked child, classified as a cold call's */
    pooled(fx, pool, "{\"mode\":\"spin\"}", &a);
    cold(fx, "{\"mode\":\"spin\"}", &c);
    CHECK(!a.ok && a.sb.killed_by == TG_LIMIT_WALL, "spin: killed by the wall clock (%d)",
          (int)a.sb.killed_by);
    CHECK(a.guidance.cls == c.guidance.cls && strcmp(a.guidance.code, c.guidance.code) == 0,
          "spin: class %s, cold %s", tg_error_class_name(a.guidance.cls),
          tg_error_class_name(c.guidance.cls));
    tg_call_result_free(&a);
    tg_call_result_free(&c);

    /* the CPU reported is the call's: the loop's, without what the child used warming up. A
     * child forked when the call arrived would report all the CPU it used, so this is also what
     * shows that the call's child was forked and warmed up before the call (by CPU accounting,
     * not by a clock). */
    pooled(fx, pool, "{\"mode\":\"burn\"}", &a);
    double cpu = a.sb.user_ms + a.sb.sys_ms, loop = tg_json_get_number(a.result, "loop_ms", 0),
           before = tg_json_get_number(a.result, "before_ms", 0);
    CHECK(a.ok && cpu >= loop && loop >= 300, "burn: the loop's %.1f ms counted (%.1f ms)", loop,
          cpu);
    CHECK(cpu < before + loop, "burn: the %.1f ms the child had used before its loop are not "
          "all counted (%.1f ms reported, loop %.1f ms)", before, cpu, loop);
    tg_call_result_free(&a);
    CHECK(tg_warmpool_warm_calls(pool) == 4, "warm calls: %zu", tg_warmpool_warm_calls(pool));
    tg_warmpool_free(pool);
}

/* ---- calls kept apart in one worker (docs/sandbox.md#the-warm-pool) ------------------------ */

static const char apart_manifest[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Probe\n"
    "description: Leave what a call can leave behind, or look for what an earlier call left.\n"
    "timeout_ms: 5000\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  properties:\n"
    "    mode: {type: string, default: snoop}\n"
    "output_schema:\n"
    "  type: object\n"
    "implementation:\n"
    "  runtime: python\n"
    "  file: tool.py\n"
    "  entrypoint: run\n"
    "  dependencies: [fractions, matplotlib]\n";

/* "leave": a file in its folder, /tmp and /dev/shm, System V objects, a detached process;
 * "snoop": what it can do to the worker's other folders and what is left of the earlier call;
 * "block" (in a pool worker): waits until the data folder has a file "release". */
static const char apart_tool[] =
    "import ctypes, os, sys, time\n"
    "def attempt(f):\n"
    "    try:\n"
    "        r = f()\n"
    "        return 'allowed: %r' % (r,)\n"
    "    except PermissionError:\n"
    "        return 'denied'\n"
    "    except OSError as e:\n"
    "        return 'error %d' % e.errno\n"
    "def fonts():\n"
    "    d = '/tmp/matplotlib'\n"
    "    return {n: len(open(os.path.join(d, n), 'rb').read()) for n in os.listdir(d)}\n"
    "def run(mode='snoop'):\n"
    "    out = {'cwd': os.getcwd(), 'fonts': fonts(), 'pyplot': 'matplotlib.pyplot' in sys.modules}\n"
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    if mode == 'block':  # named so that the host sees it, until the host releases it\n"
    "        libc.prctl(15, b'tg-blocked', 0, 0, 0)\n"
    "        while not os.path.exists('/.toolgen-data/0/release'):\n"
    "            time.sleep(0.01)\n"
    "        return out\n"
    "    if mode == 'leave':\n"
    "        open('secret.txt', 'w').write('call one')\n"
    "        open('/tmp/left', 'w').write('x')\n"
    "        open('/dev/shm/left', 'w').write('x')\n"
    "        open('/tmp/matplotlib/left', 'w').write('x')\n"
    "        for n in out['fonts']:\n"
    "            open(os.path.join('/tmp/matplotlib', n), 'a').write('poison')\n"
    "        out['shmget'] = [libc.shmget(0x7467, 4096, 0o1666), ctypes.get_errno()]\n"
    "        out['msgget'] = [libc.msgget(0x7467, 0o1666), ctypes.get_errno()]\n"
    "        add_key = {'x86_64': 248, 'aarch64': 217}.get(os.uname().machine)\n"
    "        if add_key:\n"
    "            out['add_key'] = [libc.syscall(add_key, b'user', b'left', b'x', 1, -4),\n"
    "                              ctypes.get_errno()]\n"
    "        if os.fork() == 0:\n"
    "            os.setsid()\n"
    "            if os.fork() == 0:\n"
    "                time.sleep(600)\n"
    "            os._exit(0)\n"
    "        os.wait()\n"
    "        return out\n"
    "    other = '/work/c0/secret.txt'\n"
    "    if out['pyplot']:\n"
    "        out['fignum'] = sys.modules['matplotlib.pyplot'].figure().number\n"
    "    out['list_work'] = attempt(lambda: os.listdir('/work'))\n"
    "    out['read_other'] = attempt(lambda: open(other).read())\n"
    "    out['truncate_other'] = attempt(lambda: os.truncate(other, 0))\n"
    "    out['unlink_other'] = attempt(lambda: os.unlink(other))\n"
    "    out['rename_other'] = attempt(lambda: os.rename(other, 'stolen.txt'))\n"
    "    out['plant'] = attempt(lambda: open('/work/c9/planted', 'w').write('x'))\n"
    "    out['plant_root'] = attempt(lambda: open('/work/planted', 'w').write('x'))\n"
    "    out['procs'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
    "    out['self'] = os.getpid()\n"
    "    out['tmp'] = sorted(x for x in os.listdir('/tmp') if x != 'matplotlib')\n"
    "    out['shm'] = sorted(os.listdir('/dev/shm'))\n"
    "    out['ipc'] = [l for f in ('shm', 'msg', 'sem')\n"
    "                  for l in open('/proc/sysvipc/' + f).read().splitlines()[1:]]\n"
    "    return out\n";

/* Whether this kernel has Landlock with the rights a worker needs to keep calls apart (ABI 3). */
static bool landlock_here(void)
{
    long abi = syscall(444, NULL, 0, 1UL);
    return abi >= 3;
}

static void test_calls_kept_apart(fixture *fx)
{
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result a, b;
    pooled(fx, pool, "{\"mode\":\"leave\"}", &a);
    CHECK(a.ok && strcmp(text_of(&a, "cwd"), "/work/c0") == 0, "leave: %s (%s)",
          a.guidance.message, text_of(&a, "cwd"));
    const cJSON *shm = tg_json_get(a.result, "shmget"), *msg = tg_json_get(a.result, "msgget");
    CHECK(cJSON_GetArraySize(shm) == 2 && cJSON_GetArrayItem(shm, 0)->valuedouble == -1 &&
              cJSON_GetArrayItem(shm, 1)->valuedouble == EPERM,
          "System V shared memory is refused (EPERM)");
    CHECK(cJSON_GetArraySize(msg) == 2 && cJSON_GetArrayItem(msg, 1)->valuedouble == EPERM,
          "System V message queues are refused (EPERM)");
#if defined(__x86_64__) || defined(__aarch64__)
    const cJSON *key = tg_json_get(a.result, "add_key");
    CHECK(cJSON_GetArraySize(key) == 2 && cJSON_GetArrayItem(key, 1)->valuedouble == EPERM,
          "keys and keyrings are refused (EPERM)");
#endif
    tg_call_result c;
    cold(fx, "{\"mode\":\"leave\"}", &c);
    shm = tg_json_get(c.result, "shmget");
    CHECK(c.ok && cJSON_GetArraySize(shm) == 2 && cJSON_GetArrayItem(shm, 1)->valuedouble == EPERM,
          "a cold call has the same filter: %s", c.guidance.message);
    tg_call_result_free(&c);
    pooled(fx, pool, "{\"mode\":\"snoop\"}", &b);
    CHECK(b.ok, "snoop: %s", b.guidance.message);
    /* back to back, the same worker serves the next call in its next folder where the kernel
     * can keep the calls apart; elsewhere each call still has a worker of its own */
    const char *want = landlock_here() ? "/work/c1" : "/work/c0";
    CHECK(strcmp(text_of(&b, "cwd"), want) == 0, "the second call ran in %s (expected %s)",
          text_of(&b, "cwd"), want);
    static const char *const denied[] = {"list_work", "read_other", "truncate_other",
                                         "unlink_other", "rename_other", "plant", "plant_root"};
    for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
        const char *got = text_of(&b, denied[i]);
        CHECK(strcmp(got, "denied") == 0 || strncmp(got, "error ", 6) == 0,
              "%s: %s (the earlier call's folder and /work stay out of reach)", denied[i], got);
    }
    const cJSON *procs = tg_json_get(b.result, "procs");
    double self = tg_json_get_number(b.result, "self", -1);
    bool alone = cJSON_GetArraySize(procs) == 2 && cJSON_GetArrayItem(procs, 0)->valuedouble == 1 &&
                 cJSON_GetArrayItem(procs, 1)->valuedouble == self;
    CHECK(alone, "only the runner and the call's own process: the detached one is gone");
    static const char *const empty[] = {"tmp", "shm", "ipc"};
    for (size_t i = 0; i < 3; i++)
        CHECK(cJSON_GetArraySize(tg_json_get(b.result, empty[i])) == 0, "%s is empty", empty[i]);
    const cJSON *fa = tg_json_get(a.result, "fonts"), *fb = tg_json_get(b.result, "fonts");
    CHECK(cJSON_GetArraySize(fa) >= 1 && cJSON_Compare(fa, fb, true),
          "/tmp/matplotlib, where the first call appended to the font cache and left a file, is as "
          "it was for the second");
    /* the earlier call's file is intact where toolgen keeps it */
    CHECK(a.sb.n_files == 1 && strcmp(a.sb.files[0].path, "secret.txt") == 0,
          "the first call's file is listed");
    char text[32] = {0};
    int fd = a.sb.has_work_fd ? openat(a.sb.work_fd, "secret.txt", O_RDONLY | O_CLOEXEC) : -1;
    CHECK(fd >= 0 && read(fd, text, sizeof text - 1) == 8 && strcmp(text, "call one") == 0,
          "the first call's file is unchanged after the second call: \"%s\"", text);
    if (fd >= 0)
        close(fd);
    CHECK(b.sb.n_files == 0, "the second call wrote nothing");
    tg_call_result_free(&a);
    tg_call_result_free(&b);
    CHECK(tg_warmpool_warm_calls(pool) == 2, "warm calls: %zu", tg_warmpool_warm_calls(pool));
    tg_warmpool_free(pool);
}

/* ---- a waiting pool: the build's test stage (docs/build.md#the-test-stage) ------------------- */

typedef struct waiting_call {
    tg_warmpool *pool;
    tg_tool_call c;
    tg_call_result r;
    tg_call_status st;
} waiting_call;

static void *waiting_run(void *arg)
{
    waiting_call *w = arg;
    tg_err err = {0};
    w->st = tg_warmpool_call_run(w->pool, &w->c, &w->r, &err);
    return NULL;
}

/*
 * In a waiting pool even the first call runs in a worker (it waits for the import), and two
 * tools of one dependency set called at once share the worker — one waits for the other — each
 * call in the worker's next folder. fx's tool is the apart tool; a second tool (probe2, the
 * same code) is made beside it.
 */
/* A tool beside fx's: its folder tools/<name> with mtext (whose "name: probe" line is
 * replaced by name) and tool.py, loaded into m. */
static void make_tool(fixture *fx, const char *name, const char *mtext, const char *code,
                      tg_manifest *m)
{
    char *dir = xasprintf("%s/tools/%s", repo, name);
    const char *at = strstr(mtext, "name: probe\n");
    char *text = xasprintf("%.*sname: %s\n%s", (int)(at - mtext), mtext, name,
                           at + strlen("name: probe\n"));
    char *mpath = xasprintf("%s/tool.manifest.yaml", dir), *tpath = xasprintf("%s/tool.py", dir);
    tg_err err = {0};
    SETUP(mkdir(dir, 0755) == 0 && tg_write_file_atomic(tpath, code, strlen(code), &err) == 0 &&
              chmod(tpath, 0644) == 0 &&
              tg_write_file_atomic(mpath, text, strlen(text), &err) == 0 &&
              chmod(mpath, 0644) == 0 && tg_manifest_load(&fx->repo, mpath, m, &err) == 0,
          "tool %s: %s", name, err.msg);
    tg_manifest_bind(m);
    free(text);
    free(mpath);
    free(tpath);
    free(dir);
}

/* The apart tool beside fx's, named name, with other dependencies (a YAML flow list). */
static void make_apart_tool(fixture *fx, const char *name, const char *deps, tg_manifest *m)
{
    const char *dl = strstr(apart_manifest, "  dependencies: ");
    char *mtext = xasprintf("%.*s  dependencies: %s\n", (int)(dl - apart_manifest),
                            apart_manifest, deps);
    make_tool(fx, name, mtext, apart_tool, m);
    free(mtext);
}

/* Whether a process named tg-blocked runs (the apart tool's "block" call, seen from the host). */
static bool blocked_call_running(void)
{
    DIR *d = opendir("/proc");
    bool found = false;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[32] = {0};
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            found = read(fd, buf, sizeof buf - 1) > 0 && strcmp(buf, "tg-blocked\n") == 0;
            close(fd);
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* One call of m with args through pool, on this thread; its result in r. */
static void waiting_one(fixture *fx, tg_warmpool *pool, const tg_manifest *m, const cJSON *args,
                        tg_call_result *r)
{
    waiting_call w = {.pool = pool, .c = {.m = m, .input = fx->in, .output = fx->out, .args = args}};
    waiting_run(&w);
    *r = w.r;
    CHECK(w.st == TG_CALL_DONE && r->ok, "%s: %s", m->name, r->guidance.message);
}

/* The first call of a waiting pool and two tools' calls at once (pool: waiting, bound 2). */
static void waiting_shared(fixture *fx, tg_warmpool *pool, const tg_manifest *m2,
                           const cJSON *args)
{
    tg_call_result first;
    waiting_one(fx, pool, &fx->m, args, &first);
    CHECK(flag(&first, "pyplot"), "a matplotlib worker imported matplotlib.pyplot ahead");
    CHECK(tg_json_get_number(first.result, "fignum", 0) == 1,
          "... and its warm-up drawing left no figure: the call's first is number 1");
    tg_call_result cold_r;
    cold(fx, "{\"mode\":\"snoop\"}", &cold_r);
    CHECK(cold_r.ok && !flag(&cold_r, "pyplot"), "... which a cold call of this tool never imports");
    tg_call_result_free(&cold_r);
    CHECK(tg_warmpool_warm_calls(pool) == 1 && strcmp(text_of(&first, "cwd"), "/work/c0") == 0,
          "the first call waited for the worker's import and ran in it: %zu warm, in %s",
          tg_warmpool_warm_calls(pool), text_of(&first, "cwd"));
    waiting_call two[2] = {
        {.pool = pool, .c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args}},
        {.pool = pool, .c = {.m = m2, .input = fx->in, .output = fx->out, .args = args}}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        SETUP(pthread_create(&t[i], NULL, waiting_run, &two[i]) == 0, "thread");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    const char *c0 = text_of(&two[0].r, "cwd"), *c1 = text_of(&two[1].r, "cwd");
    CHECK(two[0].r.ok && two[1].r.ok && tg_warmpool_warm_calls(pool) == 3,
          "two tools' calls at once both ran in a worker: %zu warm", tg_warmpool_warm_calls(pool));
    CHECK((strcmp(c0, "/work/c1") == 0 && strcmp(c1, "/work/c2") == 0) ||
              (strcmp(c0, "/work/c2") == 0 && strcmp(c1, "/work/c1") == 0),
          "... the same worker, one after the other (in %s and %s)", c0, c1);
    CHECK(strcmp(text_of(&two[1].r, "read_other"), "denied") == 0 ||
              strncmp(text_of(&two[1].r, "read_other"), "error ", 6) == 0,
          "... the other tool's folder out of reach: %s", text_of(&two[1].r, "read_other"));
    tg_call_result_free(&first);
    tg_call_result_free(&two[0].r);
    tg_call_result_free(&two[1].r);

}

/* A held call and two queued behind it: the set grows a second worker (pool as above, with
 * three calls served). */
static void waiting_queue(fixture *fx, tg_warmpool *pool, const tg_manifest *m2,
                          const cJSON *args)
{
    cJSON *block = parse("{\"mode\":\"block\"}");
    char *release = xasprintf("%s/data/release", repo);
    waiting_call held = {.pool = pool,
                         .c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = block}};
    pthread_t th, t[2];
    SETUP(pthread_create(&th, NULL, waiting_run, &held) == 0, "thread");
    for (int i = 0; i < 3000 && !blocked_call_running(); i++) /* a hang bound, not a timing */
        usleep(10000);
    CHECK(blocked_call_running(), "the held call runs in the worker");
    waiting_call queue[2] = {
        {.pool = pool, .c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args}},
        {.pool = pool, .c = {.m = m2, .input = fx->in, .output = fx->out, .args = args}}};
    for (int i = 0; i < 2; i++)
        SETUP(pthread_create(&t[i], NULL, waiting_run, &queue[i]) == 0, "thread");
    /* both ran in a new worker, one after the other, while the held call still blocks the
     * first (seen by the warm-call count: joining them would hang if they waited for it) */
    for (int i = 0; i < 3000 && tg_warmpool_warm_calls(pool) < 5; i++)
        usleep(10000);
    CHECK(tg_warmpool_warm_calls(pool) == 5 && blocked_call_running(),
          "both queued calls ran in a second worker while the first was held: %zu warm",
          tg_warmpool_warm_calls(pool));
    tg_err werr = {0};
    SETUP(tg_write_file_atomic(release, "", 0, &werr) == 0, "release: %s", werr.msg);
    pthread_join(th, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    const char *q0 = text_of(&queue[0].r, "cwd"), *q1 = text_of(&queue[1].r, "cwd");
    CHECK(held.r.ok && queue[0].r.ok && queue[1].r.ok && tg_warmpool_warm_calls(pool) == 6,
          "the held call and both queued ones ran warm: %zu", tg_warmpool_warm_calls(pool));
    CHECK((strcmp(q0, "/work/c0") == 0 && strcmp(q1, "/work/c1") == 0) ||
              (strcmp(q0, "/work/c1") == 0 && strcmp(q1, "/work/c0") == 0),
          "... in the new worker's first two folders (%s, %s)", q0, q1);
    unlink(release);
    free(release);
    cJSON_Delete(block);
    tg_call_result_free(&held.r);
    tg_call_result_free(&queue[0].r);
    tg_call_result_free(&queue[1].r);

}

/* At most one idle interpreter: another dependency set's worker retires the first one; a
 * command worker (which holds no interpreter) retires none. */
static void waiting_bounded(fixture *fx, const tg_manifest *m3, const cJSON *args)
{
    tg_manifest mc = {0};
    tg_err err = {0};
    make_tool(fx, "probecmd", probe_cmd_manifest(), "", &mc);
    js_registry *creg = js_registry_new();
    js_schema *cin = js_compile(creg, mc.input_schema, &(js_options){0}, &err);
    js_schema *cout = js_compile(creg, mc.output_schema, &(js_options){0}, &err);
    SETUP(cin && cout, "command schemas: %s", err.msg);
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_set_waiting(pool, true, 1);
    static const char *const want[] = {"/work/c0", "/work/c1", "/work/c0", "/work/c0", NULL,
                                       "/work/c1"};
    const tg_manifest *seq[] = {&fx->m, &fx->m, m3, &fx->m, &mc, &fx->m};
    cJSON *cargs = parse("{\"script\":\"pwd\"}");
    for (size_t i = 0; i < 6; i++) {
        tg_call_result r;
        if (seq[i] == &mc) {
            waiting_call w = {.pool = pool, .c = {.m = &mc, .input = cin, .output = cout,
                                                  .args = cargs}};
            waiting_run(&w);
            r = w.r;
            CHECK(w.st == TG_CALL_DONE && r.ok, "bounded: the command: %s", r.guidance.message);
        } else {
            waiting_one(fx, pool, seq[i], args, &r);
            CHECK(strcmp(text_of(&r, "cwd"), want[i]) == 0, "bounded: call %zu of %s ran in %s, "
                  "expected %s", i, seq[i]->name, text_of(&r, "cwd"), want[i]);
        }
        tg_call_result_free(&r);
    }
    CHECK(tg_warmpool_warm_calls(pool) == 6, "bounded: every call warm: %zu",
          tg_warmpool_warm_calls(pool));
    cJSON_Delete(cargs);
    js_schema_free(cin);
    js_schema_free(cout);
    js_registry_free(creg);
    tg_manifest_free(&mc);
    tg_warmpool_free(pool);
}

/*
 * In a waiting pool (the build's test stage) even the first call runs in a worker (it waits for
 * the import); two tools of one dependency set called at once share the worker, one waiting for
 * the other; a queue grows the set's workers; a bound on idle interpreters retires the one idle
 * longest. fx's tool is the apart tool; others are made beside it.
 */
static void test_waiting(fixture *fx)
{
    CHECK(tg_warmpool_reuse_possible() == landlock_here(),
          "reuse is possible exactly where the kernel has Landlock ABI 3");
    if (!landlock_here()) /* without it a waiting pool is not used (stage_test.c) */
        return;
    tg_manifest m2 = {0}, m3 = {0};
    make_apart_tool(fx, "probe2", "[fractions, matplotlib]", &m2);
    make_apart_tool(fx, "probe3", "[fractions]", &m3);
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_set_waiting(pool, true, 2);
    cJSON *args = parse("{\"mode\":\"snoop\"}");
    waiting_shared(fx, pool, &m2, args);
    waiting_queue(fx, pool, &m2, args);
    tg_warmpool_free(pool);
    waiting_bounded(fx, &m3, args);
    cJSON_Delete(args);
    tg_manifest_free(&m2);
    tg_manifest_free(&m3);
}

/* ---- commands in the pool (docs/sandbox.md#commands-in-the-pool) ---------------------------- */

/* Scripts whose answers (probe_cmd_manifest) must be the same cold and pooled (all but the
 * folder's name). */
static const char *const cmd_cases[] = {
    "{\"script\":\"wc -l < \\\"$1\\\"; echo to-stderr >&2\"}",
    "{\"script\":\"echo $NOTE; printf 'x,y\\\\n' > out.csv\",\"note\":\"hello\"}",
    "{\"script\":\"exit 3\"}",
    "{\"script\":\"exit 9\"}",
    "{\"script\":\"cat /etc/shadow\"}",
    "{\"script\":\"yes | head -c 200000\"}",
    "{\"script\":\"exec sleep 30\"}",
    "{\"script\":\"trap '' PIPE; yes | head -c 10 >/dev/null; echo $?\"}",
    "{\"script\":\"echo x > \\\"$1\\\"\"}",
    "{\"script\":\"grep -E '^Sig(Ign|Blk)' /proc/self/status\"}",
};

/* Calls that leave things behind for the next one to find. */
static const char *const leftovers[] = {
    "{\"script\":\"echo k > left.txt; echo k > /tmp/left; (setsid sleep 600 &)\"}",
    "{\"script\":\"mkdir -p /tmp/locked/in /dev/shm/s/t; echo k > /tmp/locked/in/f; "
    "chmod 0 /tmp/locked/in /tmp/locked /dev/shm/s\"}",
    "{\"script\":\"python3 -c \\\"import os; os.chdir('/tmp'); "
    "[(os.mkdir('d'), os.chdir('d')) for _ in range(2100)]; open('deep', 'w').write('k')\\\"\"}",
    "{\"script\":\"echo k > /tmp/matplotlib/fontlist.json; mkdir /tmp/matplotlib/d\"}",
};

/* runner: a word of the command line of the workers' pid 1 */
static void test_commands(fixture *fx, const char *runner)
{
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result r;
    pooled(fx, pool, "{\"script\":\"tr '\\\\0' ' ' < /proc/1/cmdline\"}", &r);
    const char *pid1 = r.ok ? tg_json_get_string(r.result, "text") : NULL;
    CHECK(pid1 && strstr(pid1, runner), "the worker's runner is %s: %s", runner,
          pid1 ? pid1 : r.guidance.message);
    tg_call_result_free(&r);
    for (size_t i = 0; i < sizeof cmd_cases / sizeof *cmd_cases; i++) {
        tg_call_result a, c;
        size_t before = tg_warmpool_warm_calls(pool);
        pooled(fx, pool, cmd_cases[i], &a);
        cold(fx, cmd_cases[i], &c);
        CHECK(tg_warmpool_warm_calls(pool) == before + 1, "%s ran in a worker", cmd_cases[i]);
        expect_same_as_cold(cmd_cases[i], &a, &c);
        tg_call_result_free(&a);
        tg_call_result_free(&c);
    }
    char *x = xasprintf("%s/data/x.csv", repo);
    struct stat st;
    CHECK(stat(x, &st) == 0 && st.st_size == 6, "the input file is unchanged");
    free(x);
    /* back to back: nothing of the call before, even what it tried to keep past the clean-up
     * (a folder without rights, a tree deeper than PATH_MAX, a file in the kept font folder) */
    for (size_t i = 0; i < sizeof leftovers / sizeof *leftovers; i++) {
        tg_call_result a, b;
        pooled(fx, pool, leftovers[i], &a);
        pooled(fx, pool, "{\"script\":\"ls -A | grep -v '^data$'; ls -A /tmp | grep -v matplotlib; "
                         "ls -A /tmp/matplotlib /dev/shm | grep -v ':$' | grep .; "
                         "cat /proc/[0-9]*/comm | grep -c sleep; exit 0\"}", &b);
        const char *seen = b.ok ? tg_json_get_string(b.result, "text") : NULL;
        CHECK(a.ok && seen && strcmp(seen, "0") == 0,
              "%s: the next command sees no file of it, nothing in /tmp or /dev/shm, no process "
              "left (%s; %s)", leftovers[i], seen ? seen : b.guidance.message,
              a.ok ? "" : a.guidance.message);
        tg_call_result_free(&a);
        tg_call_result_free(&b);
    }
    tg_warmpool_free(pool);
}

/*
 * A slot whose workers cannot start (an address space too small for the runner's imports):
 * after two dead starts in a row it starts none for a while, and its calls run cold — and fail
 * for the same reason, with their own error — instead of each paying a dead start first.
 */
static void test_dead_starts(fixture *fx)
{
    const char *at = strstr(manifest, "memory_mb: 512");
    SETUP(at, "the probe manifest sets memory_mb: 512");
    char *mtext = xasprintf("%.*smemory_mb: 16%s", (int)(at - manifest), manifest,
                            at + strlen("memory_mb: 512"));
    tg_manifest m;
    make_tool(fx, "tiny", mtext, tool_py, &m);
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    cJSON *args = parse("{}");
    for (int i = 0; i < 5; i++) {
        tg_tool_call c = {.m = &m, .input = fx->in, .output = fx->out, .args = args};
        tg_call_result r;
        tg_err err = {0};
        tg_warmpool_wait(pool, &m);
        CHECK(tg_warmpool_call_run(pool, &c, &r, &err) == TG_CALL_DONE && !r.ok,
              "call %d of a tool that cannot start fails with its error: %s", i,
              err.msg[0] ? err.msg : r.guidance.message);
        tg_call_result_free(&r);
    }
    CHECK(tg_warmpool_warm_calls(pool) == 0 && tg_warmpool_workers_started(pool) == 2,
          "two workers started, none after they both failed: %zu",
          tg_warmpool_workers_started(pool));
    cJSON_Delete(args);
    tg_warmpool_free(pool);
    tg_manifest_free(&m);
    free(mtext);
}

/*
 * A command worker whose runner cannot start — toolgen's own (here this program, made
 * unexecutable while the pool runs, as a toolgen whose libraries the sandbox cannot see would
 * be): the call runs cold and the slot changes to runner.py, whose worker takes the next calls.
 */
static const char *unexec_path; /* this program while it is made unexecutable, else NULL */
static mode_t unexec_mode;

/* Gives this program its mode back; safe in a signal handler (a crash must not leave the test
 * binary unexecutable, which tests/run.sh would then pass over). */
static void exe_mode_back(void)
{
    if (unexec_path)
        chmod(unexec_path, unexec_mode);
}

static void exe_mode_back_on_signal(int sig)
{
    exe_mode_back();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void test_runner_cannot_start(fixture *fx)
{
    const char *exe = tg_cmdrunner_exe();
    struct stat st;
    SETUP(exe && stat(exe, &st) == 0, "stat %s", exe ? exe : "(none)");
    unexec_path = exe, unexec_mode = st.st_mode & 07777;
    atexit(exe_mode_back);
    const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], exe_mode_back_on_signal);
    SETUP(chmod(exe, 0644) == 0, "chmod %s", exe);
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result a, b, c;
    pooled(fx, pool, "{\"script\":\"echo a\"}", &a);
    CHECK(a.ok && tg_warmpool_warm_calls(pool) == 0, "the runner cannot start: the call ran "
          "cold (%s)", a.ok ? "ok" : a.guidance.message);
    pooled(fx, pool, "{\"script\":\"tr '\\\\0' ' ' < /proc/1/cmdline\"}", &b);
    const char *pid1 = b.ok ? tg_json_get_string(b.result, "text") : NULL;
    CHECK(tg_warmpool_warm_calls(pool) == 1 && pid1 && strstr(pid1, "runner.py"),
          "the next call ran warm, in runner.py's worker: %s", pid1 ? pid1 : b.guidance.message);
    pooled(fx, pool, "{\"script\":\"echo c\"}", &c);
    CHECK(c.ok && tg_warmpool_warm_calls(pool) == 2 && tg_warmpool_workers_started(pool) <= 3,
          "and the one after it (%zu warm, %zu workers started)", tg_warmpool_warm_calls(pool),
          tg_warmpool_workers_started(pool));
    tg_call_result_free(&a);
    tg_call_result_free(&b);
    tg_call_result_free(&c);
    tg_warmpool_free(pool);
    SETUP(chmod(exe, unexec_mode) == 0, "chmod %s back", exe);
    unexec_path = NULL;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_DFL);
}

/* A call held in a worker (until cancelled) while others arrive: a command slot grows a second
 * worker instead of sending every call in flight cold. */
typedef struct held_call {
    fixture *fx;
    tg_warmpool *pool;
    volatile sig_atomic_t cancel;
    tg_call_result r;
} held_call;

static void *hold(void *arg)
{
    held_call *h = arg;
    cJSON *args = parse("{\"script\":\"exec sleep 3599.25\"}");
    tg_tool_call c = {.m = &h->fx->m, .input = h->fx->in, .output = h->fx->out, .args = args,
                      .cancel = &h->cancel};
    tg_err err = {0};
    tg_warmpool_call_run(h->pool, &c, &h->r, &err);
    cJSON_Delete(args);
    return NULL;
}

/* Whether a process runs the held call's `sleep 3599.25` (seen from the host through /proc; no
 * other process has that argv). */
static bool sleeper_running(void)
{
    static const char want[] = "sleep\0" "3599.25";
    DIR *d = opendir("/proc");
    bool found = false;
    struct dirent *e;
    while (d && !found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[64];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (fd >= 0)
            close(fd);
        found = n >= (ssize_t)sizeof want && memcmp(buf, want, sizeof want) == 0;
    }
    if (d)
        closedir(d);
    return found;
}

static void test_commands_in_flight(fixture *fx)
{
    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_warmpool_wait(pool, &fx->m);
    held_call h = {.fx = fx, .pool = pool};
    pthread_t t;
    SETUP(pthread_create(&t, NULL, hold, &h) == 0, "thread");
    for (int i = 0; i < 3000 && !sleeper_running(); i++) /* a hang bound, not a timing */
        usleep(10000);
    CHECK(sleeper_running(), "the held call runs");
    size_t warm = tg_warmpool_warm_calls(pool);
    tg_call_result b, c;
    cold_free_pooled(fx, pool, "{\"script\":\"echo b\"}", &b); /* none ready: cold, one more starts */
    CHECK(b.ok && tg_warmpool_warm_calls(pool) == warm, "the second call in flight ran cold");
    pooled(fx, pool, "{\"script\":\"echo c\"}", &c); /* waits for the new worker */
    CHECK(c.ok && tg_warmpool_warm_calls(pool) == warm + 1,
          "with the first still held, a second worker took the third call (%zu warm)",
          tg_warmpool_warm_calls(pool));
    h.cancel = 1;
    pthread_join(t, NULL);
    CHECK(!h.r.ok && h.r.sb.killed_by == TG_LIMIT_CANCEL, "the held call ends cancelled");
    tg_call_result_free(&b);
    tg_call_result_free(&c);
    tg_call_result_free(&h.r);
    tg_warmpool_free(pool);
}

/* A runner that keeps the protocol (runner_warm.py's docstring) but says ready for the next
 * call 100 ms after a call's status while still holding the call's stdout for 300 ms more:
 * the "ready" comes while toolgen still reads the call's streams. */
static const char fake_runner[] =
    "import json, os, socket, sys, time\n"
    "sock = socket.socket(fileno=4)\n"
    "send = lambda o: sock.sendall(json.dumps(o).encode() + b'\\n')\n"
    "send({'ready': True, 'preloaded': False, 'reuse': True})\n"
    "buf = b''\n"
    "while True:\n"
    "    fds = []\n"
    "    while b'\\n' not in buf:\n"
    "        data, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(64))\n"
    "        for _, _, p in anc:\n"
    "            fds += [int.from_bytes(p[i:i + 4], sys.byteorder) for i in range(0, len(p), 4)]\n"
    "        if not data:\n"
    "            sys.exit(0)\n"
    "        buf += data\n"
    "    line, _, buf = buf.partition(b'\\n')\n"
    "    if not fds:\n"
    "        continue\n"
    "    os.write(fds[0], b'answer')\n"
    "    send({'status': 0, 'utime': 0, 'stime': 0, 'maxrss': 1})\n"
    "    time.sleep(0.1)\n"
    "    send({'ready': True, 'preloaded': False, 'reuse': True})\n"
    "    time.sleep(0.3)\n"
    "    for fd in fds:\n"
    "        os.close(fd)\n";

/* The runner's "ready" read with a call's streams is kept for the next call: once it was
 * dropped, and the next call waited for it until the start timeout (then ran cold). */
static void test_ready_during_streams(fixture *fx)
{
    static const char *const argv[] = {"/usr/bin/python3", "-c", fake_runner, NULL};
    static const char *const subdirs[] = {"c0", "c1", "c2", NULL};
    tg_sandbox_cmd cmd = {.argv = argv, .work_subdirs = subdirs,
                          .limits = {10, 512, 3000, 64, 64, 16}};
    tg_warm *w = NULL;
    tg_err err = {0};
    if (tg_warm_start(fx->env.ctx.sandbox, &cmd, &w, &err) != TG_SANDBOX_OK) {
        CHECK(false, "the fake runner starts: %s", err.msg);
        return;
    }
    for (int i = 0; i < 3; i++) {
        tg_warm_call call = {.request = "{}", .request_len = 2, .subdir = subdirs[i],
                             .limits = cmd.limits};
        tg_sandbox_result res;
        tg_err e = {0};
        tg_sandbox_status st = tg_warm_run(w, &call, &res, &e);
        CHECK(st == TG_SANDBOX_OK && res.out.data && strcmp(res.out.data, "answer") == 0,
              "call %d in the same warm sandbox: %s", i + 1, st == TG_SANDBOX_OK ? "" : e.msg);
        if (st == TG_SANDBOX_OK)
            tg_sandbox_result_free(&res);
    }
    tg_warm_stop(w);
}

int main(int argc, char **argv)
{
    int rc;
    if (argc == 2 && strcmp(argv[1], TG_CMDRUNNER_FLAG) == 0) /* a command worker's runner */
        return tg_cmdrunner_main(argc, argv, &rc) ? rc : 2;
    snprintf(repo, sizeof repo, "/tmp/tg-warmpool-%ld", (long)getpid());
    fixture fx = {0};
    if (fixture_open(&fx, repo, manifest, tool_py) == 0) {
        test_one_call_per_worker(&fx);
        test_dead_starts(&fx);
    }
    fixture_close(&fx);
    fixture_remove(repo);

    snprintf(repo, sizeof repo, "/tmp/tg-warmpool-pf-%ld", (long)getpid());
    fixture pf = {0};
    char *tool = xasprintf(prefork_tool_fmt, "A");
    if (fixture_open(&pf, repo, prefork_manifest, tool) == 0)
        test_prefork(&pf);
    free(tool);
    fixture_close(&pf);
    fixture_remove(repo);

    snprintf(repo, sizeof repo, "/tmp/tg-warmpool-ka-%ld", (long)getpid());
    fixture ka = {0};
    if (fixture_open(&ka, repo, apart_manifest, apart_tool) == 0) {
        test_calls_kept_apart(&ka);
        test_waiting(&ka);
    }
    fixture_close(&ka);
    fixture_remove(repo);

    /* command workers: runner.py first, then this program as their runner (run/cmdrunner.h) */
    for (int own = 0; own < 2; own++) {
        if (own)
            tg_cmdrunner_main(1, argv, &rc);
        snprintf(repo, sizeof repo, "/tmp/tg-warmpool-cmd-%ld", (long)getpid());
        fixture cm = {0};
        if (fixture_open(&cm, repo, probe_cmd_manifest(), "") == 0)
            test_commands(&cm, own ? TG_CMDRUNNER_FLAG : "runner.py");
        if (cm.in)
            test_commands_in_flight(&cm);
        if (cm.in && !own)
            test_ready_during_streams(&cm);
        if (cm.in && own)
            test_runner_cannot_start(&cm);
        fixture_close(&cm);
        fixture_remove(repo);
    }
    return tl_finish("warmpool");
}
