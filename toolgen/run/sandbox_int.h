/* sandbox_int.h — helpers shared by the sandbox's source files; not part of its interface. */
#ifndef TG_SANDBOX_INT_H
#define TG_SANDBOX_INT_H

#include "run/sandbox.h"

/* Lexically normalised absolute path: no ".", "..", empty components or trailing '/'. Heap. */
char *sb_normalize(const char *abs_path);
/* true when path equals dir or lies below it (both normalised, absolute). */
bool sb_path_within(const char *path, const char *dir);

/* rm -rf without following symlinks; makes unreadable directories readable first. */
int sb_remove_tree(const char *path);

/*
 * Lists the regular files below workdir (symlinks and the mount stubs in skip are left out),
 * sorted by path, at most TG_SANDBOX_MAX_FILES. Never follows a symlink.
 */
void sb_collect_files(const char *workdir, const char *const *skip, size_t nskip,
                      tg_sandbox_result *res);
/*
 * Call directories are TMPDIR/toolgen-call-<pid of the toolgen process>-XXXXXX (and, once the
 * call returned, its work directory ...-XXXXXX.work, which lives as long as the result). A
 * process killed with SIGKILL cannot remove them; the next call does: sb_remove_stale_calls
 * removes those of tmp_dir whose owner process no longer exists and that belong to this user.
 * A live owner's directories are never touched (nor this process's own: parallel calls). The
 * pid is this pid namespace's: TMPDIR must not be shared with other pid namespaces.
 */
#define SB_CALL_PREFIX "toolgen-call-"
void sb_remove_stale_calls(const char *tmp_dir);

/* Bytes of the regular files below dir, stopping once past stop_after (a budget check). */
long long sb_tree_bytes(const char *dir, long long stop_after);

tg_file_type sb_file_type(const char *name);

/* ---- one call's steps (sandbox_exec.c), shared with the warm sandbox (sandbox_warm.c) ------- */

#include <sys/resource.h>
#include <sys/types.h>

#include "base/strvec.h"

#define TG_SANDBOX_UID_BASE 0x70000000u
#define READ_CHUNK 65536
#define STATUS_MAX 4096
/* The work directory may hold this much (files are capped one by one by RLIMIT_FSIZE). */
#define WORK_BUDGET_MIN (100LL << 20)
#define SHM_BYTES (64LL << 20)
/* After a kill, how long bwrap may take to reap the tool's namespace before it is killed too. */
#define KILL_GRACE_MS 1000

/* Child-side fds: 0 stdin, 1 stdout, 2 stderr, 3 reply, 4 request, 5 bwrap status, 6 font cache. */
enum { FD_REPLY = 3, FD_REQUEST = 4, FD_STATUS = 5, FD_FONTS = 6, FD_FIRST_FREE = 7 };

/* Where bwrap takes each bind from: the host path, or its staged mount point (see stage_binds). */
typedef struct bind_sources {
    const char *tool, *runtime;
    const char **paths; /* one per cmd->paths entry */
} bind_sources;

typedef struct sink {
    int fd;
    tg_stream *s;
    size_t cap;
    const char *name;
    const tg_reply_watch *watch; /* the reply's: told when it grew; NULL for the others */
} sink;

/*
 * One call, from setup to result, around a call struct: open (checks, call directory,
 * descriptors), command (argv and environment), spawn (fork/exec), supervise (the poll loop:
 * output caps, wall clock, disk budget, cancel), reap (wait for the tree), collect (status,
 * usage, files), close (what the call still holds). Each step reads and fills the struct, so
 * no step needs more than a handful of arguments and the kill logic lives in one function.
 */
typedef struct sb_call {
    const tg_sandbox_config *c;
    const tg_sandbox_cmd *cmd;
    tg_sandbox_result *res;
    tg_err *err;
    bool isolated, drop_root;
    char *call_dir, *workdir, *fonts, *chdir_to;
    /* parent's ends and child's ends; all close-on-exec in the parent */
    int p_out[2], p_err[2], p_reply[2], p_status[2], p_exec[2];
    int request_fd, fonts_fd, null_fd;
    tg_strv argv, envp;
    bind_sources src;
    tg_strv stage_from, stage_to; /* as root: binds staged in a private mount namespace */
    pid_t pid;
    int pidfd, inner_pidfd, status_fd;
    sink sinks[3];
    char status[STATUS_MAX + 1];
    size_t status_len;
    bool exited, killed;
    int wstatus;
    struct rusage ru;
    double start, end, deadline, exited_at, next_disk;
    double kill_outer_at; /* after a kill: when bwrap goes too, if it still runs (0: done) */
    long long free_at_start;
} sb_call;

void sb_call_init(sb_call *k, const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                  tg_sandbox_result *res, tg_err *err);
/* Checks the environment, makes the call directory and the call's descriptors. */
tg_sandbox_status sb_call_open(sb_call *k);
/* The program's argv and environment: bwrap's command line, or the tool's own (none). */
void sb_call_command(sb_call *k);
/* Forks and execs the program with the call's rlimits; waits only until exec succeeded. */
tg_sandbox_status sb_call_spawn(sb_call *k);
/* Closes what the call still holds and removes its call directory. */
void sb_call_close(sb_call *k);
/* Reads what is there into k->s; false when the stream went over its cap. */
bool sb_sink_read(sink *k, char *chunk);
/* The error for a sandbox bwrap could not set up, from its stderr. Returns -1. */
int sb_env_setup_failed(const char *bwrap_msg, tg_err *err);
/* The work directory's disk budget: 16 x output_kb, at least WORK_BUDGET_MIN. */
long long sb_work_budget(const tg_limits *l);

#endif
