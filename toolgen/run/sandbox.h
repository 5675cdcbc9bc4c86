/*
 * sandbox.h — run untrusted tool code: bubblewrap, rlimits, a wall clock, capped output.
 *
 * One call = one fresh sandbox (docs/sandbox.md has the full picture):
 *
 *   /usr, /bin, /lib*   read-only from the host; of /etc only what the dynamic loader, fonts and
 *                       matplotlib need (no passwd, shadow, resolv.conf, ssl)
 *   /tool               the tool's folder, read-only
 *   /toolgen            toolgen's runtime files (runner.py, toolgen_helpers.py, runner.js), ro
 *   /work               a fresh private host directory, the only writable host path; the cwd
 *   /work/<path>        each path argument, bind-mounted read-only where the tool looks for it
 *   /tmp, /dev/shm      small private tmpfs; /proc and /dev of the sandbox; / itself read-only
 *
 * in new user, pid, network (loopback only), ipc, uts and cgroup namespaces, a new session, no
 * capabilities, no further user namespaces, an environment built from scratch (no secret of the
 * caller can reach the tool), and the rlimits of the call. The whole tree is killed when the wall
 * clock runs out or the output cap is exceeded, and when toolgen dies.
 *
 * Threads: nothing here keeps global state. tg_sandbox_run forks (only async-signal-safe calls
 * happen between fork and exec), creates every descriptor close-on-exec, and waits for its own
 * child by pid (pidfd + wait4), so it can run from any number of build worker threads at once.
 * It installs no signal handlers; SIGCHLD must not be ignored (SIG_IGN) by the program.
 */
#ifndef TG_SANDBOX_H
#define TG_SANDBOX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* Resource limits of one call (constraints.limits of a manifest, capped by sandbox.max_limits). */
typedef struct tg_limits {
    long cpu_s;     /* RLIMIT_CPU seconds */
    long memory_mb; /* RLIMIT_AS MiB */
    long wall_ms;   /* wall clock; the process tree is killed after it */
    long output_kb; /* KiB of stdout, of stderr, of the reply, and of each file (RLIMIT_FSIZE) */
    long files;     /* RLIMIT_NOFILE */
    long processes; /* RLIMIT_NPROC: processes + threads */
} tg_limits;

/* The manifest schema's defaults (schemas/tool.manifest.schema.json, $defs/limits). */
#define TG_LIMITS_DEFAULT {30, 1024, 60000, 1024, 256, 64}
/* sandbox.max_limits defaults (schemas/toolgen.config.schema.json). */
#define TG_LIMITS_MAX_DEFAULT {300, 4096, 600000, 10240, 1024, 256}

typedef enum tg_isolation { TG_ISOLATION_BWRAP, TG_ISOLATION_NONE } tg_isolation;

typedef struct tg_sandbox_config {
    tg_isolation isolation;
    char *root;        /* repository root (real path): path arguments are relative to it */
    char **data_dirs;  /* sandbox.data_dirs as written (default "data/") */
    size_t n_data_dirs;
    tg_limits max;     /* sandbox.max_limits */
    char *runtime_dir; /* toolgen's runtime files (DATADIR/toolgen/run/runtime or .../share/toolgen/runtime) */
    char *bwrap;       /* $TOOLGEN_BWRAP, else bwrap found on $PATH; NULL when not found */
    char *tmp_dir;     /* where work directories are made: $TMPDIR or /tmp */
    char *cache_dir;   /* $XDG_CACHE_HOME/toolgen or ~/.cache/toolgen; NULL when neither is set */
} tg_sandbox_config;

/*
 * Reads the `sandbox` section of a parsed toolgen.yaml (config may be NULL: all defaults) for
 * the repository at root. Fails on values of the wrong type; the full schema check is lint's.
 * TOOLGEN_BWRAP overrides where bwrap is (tests point it at a missing file or a fake).
 */
int tg_sandbox_config_init(tg_sandbox_config *c, const char *root, const cJSON *config, tg_err *err);
void tg_sandbox_config_free(tg_sandbox_config *c);

/*
 * The limits of a call: constraints.limits of the manifest (constraints may be NULL), defaults
 * for absent keys, each capped by max; wall_ms is also capped by timeout_ms (when > 0).
 */
void tg_limits_resolve(const cJSON *constraints, long timeout_ms, const tg_limits *max,
                       tg_limits *out);

/* ---- path arguments ------------------------------------------------------------------------- */

typedef struct tg_path_arg {
    char *name;   /* the input property */
    char *value;  /* as given */
    char *host;   /* real path on the host */
    char *inside; /* where the sandbox sees it: /work/<normalised value>, or the absolute value */
    bool is_dir;
} tg_path_arg;

typedef struct tg_path_args {
    tg_path_arg *v;
    size_t n;
} tg_path_args;

/* What tg_sandbox_check_paths returns. */
typedef enum tg_path_verdict {
    TG_PATH_ERROR = -1,    /* a system error (err set): the check itself failed */
    TG_PATH_OK = 0,
    TG_PATH_FORBIDDEN = 1, /* outside the data directories / allowed_paths, unreadable, not a
                              regular file, or with a ".." component */
    TG_PATH_NOT_FOUND = 2, /* inside them, but missing */
} tg_path_verdict;

/*
 * Checks every argument whose input_schema property is marked `x-toolgen-path: read` (direct
 * properties only): without a ".." component, resolved on the host relative to the repository
 * root with symlinks followed, it must be a regular file in a data directory and, when
 * allowed_paths (constraints.allowed_paths) is a non-empty array, in one of those too. Returns TG_PATH_OK with out filled, a verdict
 * with err naming the path and the allowed directories, or TG_PATH_ERROR (err set).
 */
tg_path_verdict tg_sandbox_check_paths(const tg_sandbox_config *c, const cJSON *input_schema,
                                       const cJSON *args, const cJSON *allowed_paths,
                                       tg_path_args *out, tg_err *err);
void tg_path_args_free(tg_path_args *p);

/* ---- running -------------------------------------------------------------------------------- */

/* Paths inside the sandbox. With isolation none they are mapped to the host paths. */
#define TG_SANDBOX_TOOL "/tool"
#define TG_SANDBOX_RUNTIME "/toolgen"
#define TG_SANDBOX_WORK "/work"

/* Sees the reply channel grow while a call runs: fn(ctx, data, len) is called from the poll loop
 * each time bytes arrived, with all of the reply so far (capped as the reply is). A runner's
 * events travel there before its reply (run/rt_runner.c). fn NULL: not watched. */
typedef struct tg_reply_watch {
    void (*fn)(void *ctx, const char *data, size_t len);
    void *ctx;
} tg_reply_watch;

typedef struct tg_sandbox_cmd {
    /* argv[0] is an absolute program path; elements starting with "/tool/" or "/toolgen/" are
     * rewritten to the host paths when isolation is none. */
    const char *const *argv;
    const char *const *env;   /* extra "NAME=value" on top of the minimal environment; may be NULL */
    const char *tool_dir;     /* host folder mounted read-only at /tool; NULL: none */
    const char *tool_link;    /* with tool_dir NULL: /tool is a symlink to this path inside the
                                 sandbox (a pool worker's call points it at its tool) */
    bool mount_runtime;       /* mount toolgen's runtime files at /toolgen */
    const char *runner_exe;   /* host executable mounted read-only at TG_CMDRUNNER_PATH: a
                                 command worker's runner (run/cmdrunner.h); NULL: none */
    bool matplotlib_cache;    /* provide a prebuilt matplotlib font cache (saves ~1 s per call) */
    const tg_path_args *paths;/* read-only binds into the work directory; may be NULL */
    const char *const *work_subdirs; /* NULL-ended: folders of /work with a tmpfs (disk budget)
                                        of their own, a warm sandbox's calls'; may be NULL */
    bool live_binds;          /* the folders it binds may change while it waits for its call (a
                                 pool worker): plain binds, whose mountinfo names the host path,
                                 instead of overlays, which name none but may show a file
                                 replaced later as it was (docs/sandbox.md#the-holder) */
    const char *cwd;          /* relative to the work directory; NULL: the work directory */
    const char *request;      /* bytes readable on fd 4 (the runner's request); NULL: no fd 4 */
    size_t request_len;
    bool reply_channel;       /* fd 3 is a pipe whose bytes become tg_sandbox_result.reply */
    tg_reply_watch reply_watch; /* with reply_channel: who sees the reply as it grows */
    tg_limits limits;
    /* Set (e.g. by a SIGINT handler) to stop the call: the tree is killed and the call returns
     * with TG_LIMIT_CANCEL, its files cleaned up as usual. Checked at least every 200 ms, and
     * at once when a signal interrupts the wait. May be NULL. */
    const volatile sig_atomic_t *cancel;
} tg_sandbox_cmd;

typedef enum tg_file_type {
    TG_FILE_CSV, TG_FILE_IMAGE, TG_FILE_JSON, TG_FILE_TEXT, TG_FILE_OTHER
} tg_file_type;
const char *tg_file_type_name(tg_file_type t);

typedef struct tg_artifact {
    char *path;     /* relative to the work directory */
    tg_file_type type;
    long long size; /* bytes */
} tg_artifact;

typedef struct tg_stream {
    char *data;     /* NUL-terminated, at most the cap; "" once the call ran, NULL before */
    size_t len;
    size_t total;   /* bytes produced, including what was dropped */
    bool truncated;
} tg_stream;

typedef enum tg_sandbox_limit {
    TG_LIMIT_NONE = 0,
    TG_LIMIT_WALL,   /* killed by the wall clock */
    TG_LIMIT_OUTPUT, /* stdout, stderr or the reply went over output_kb: killed */
    TG_LIMIT_DISK,   /* the work directory grew past its budget: killed */
    TG_LIMIT_CANCEL, /* tg_sandbox_cmd.cancel was set: killed */
} tg_sandbox_limit;

typedef struct tg_sandbox_result {
    bool isolated;       /* ran under bubblewrap */
    int exit_code;       /* the tool's exit status, or 128+N when bwrap reports signal N */
    int signal;          /* the signal that ended the tool (0: none); see signal_inferred */
    bool signal_inferred;/* under bwrap a signal is only seen as exit status 128+N */
    tg_sandbox_limit killed_by;
    const char *overflow_stream; /* with TG_LIMIT_OUTPUT: "stdout", "stderr" or "reply" */
    tg_stream out, err, reply;
    tg_artifact *files;  /* sorted by path */
    size_t n_files;
    long long files_bytes;
    bool files_truncated;/* more than TG_SANDBOX_MAX_FILES entries: the rest not listed */
    char *workdir;       /* isolation none: host path of the work directory (removed by
                            tg_sandbox_result_free unless keep_workdir was set); NULL under bwrap */
    bool keep_workdir;
    int work_fd;         /* with has_work_fd (under bwrap): the work directory, a tmpfs private
                            to the call that never touches the host's disk; emptied and closed
                            by tg_sandbox_result_free */
    bool has_work_fd;
    double wall_ms, user_ms, sys_ms;
    long max_rss_kb;
} tg_sandbox_result;

#define TG_SANDBOX_MAX_FILES 1000

/* What tg_sandbox_run returns: the sandbox layer's one status type. */
typedef enum tg_sandbox_status {
    TG_SANDBOX_OK = 0,       /* it ran, whatever the tool did: res is filled */
    TG_SANDBOX_ENV = 1,      /* no usable sandbox here (bwrap missing, user namespaces off): exit 3 */
    TG_SANDBOX_INTERNAL = 2, /* could not set up the call (fork, pipes, temp directory) */
} tg_sandbox_status;

/*
 * Runs cmd. TG_SANDBOX_OK: it ran (whatever the tool did) and res is filled; the caller frees
 * it with tg_sandbox_result_free. TG_SANDBOX_ENV / TG_SANDBOX_INTERNAL: nothing ran; err says
 * what is missing and how to fix it. With isolation none it runs with rlimits only (the caller
 * warns).
 */
tg_sandbox_status tg_sandbox_run(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                 tg_sandbox_result *res, tg_err *err);
void tg_sandbox_result_free(tg_sandbox_result *res);
/* A new descriptor of the call's work directory (to read its files), or -1 (errno set). */
int tg_sandbox_result_open_work(const tg_sandbox_result *res);

/* The work directory's disk budget in bytes: 16 x output_kb, at least 100 MiB (the size of the
 * call's tmpfs under bwrap; watched with isolation none). */
long long tg_sandbox_work_budget(const tg_limits *l);

/* Where a runtime's interpreter is (absolute, under /usr so the sandbox sees it), or NULL. */
const char *tg_sandbox_python(void);
const char *tg_sandbox_node(void);

#endif
