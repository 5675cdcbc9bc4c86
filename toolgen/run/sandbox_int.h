/* sandbox_int.h — helpers shared by the sandbox's source files; not part of its interface. */
#ifndef TG_SANDBOX_INT_H
#define TG_SANDBOX_INT_H

#include "run/sandbox.h"

/* Lexically normalised absolute path: no ".", "..", empty components or trailing '/'. Heap. */
char *sb_normalize(const char *abs_path);
/* true when path equals dir or lies below it (both normalised, absolute). */
bool sb_path_within(const char *path, const char *dir);

/*
 * The walks below handle trees of any depth (no recursion, one directory open at a time, no
 * path longer than a name) and never follow a symlink or enter another file system.
 */
/* rm -rf without following symlinks; makes unreadable directories readable first. */
int sb_remove_tree(const char *path);
/* Removes everything below the directory dirfd (not dirfd itself); 0 when it is empty after. */
int sb_remove_tree_at(int dirfd);

/*
 * Lists the regular files below workdir (symlinks and the mount stubs in skip are left out),
 * sorted by path, at most TG_SANDBOX_MAX_FILES (and none whose path is longer than 1 KiB: those
 * set files_truncated), and their total size in files_bytes.
 */
void sb_collect_files(const char *workdir, const char *const *skip, size_t nskip,
                      tg_sandbox_result *res);
void sb_collect_files_at(int dirfd, const char *const *skip, size_t nskip, tg_sandbox_result *res);
/* true when the file system of dirfd has no block or inode left (a work tmpfs at its budget). */
bool sb_work_full(int dirfd);
/* A work tmpfs after its call: its files into res, and killed_by TG_LIMIT_DISK when the call
 * filled it (writes past it failed with ENOSPC) and nothing else stopped it. */
void sb_collect_work(tg_sandbox_result *res, int dirfd, const char *const *skip, size_t nskip);
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
/* ... and this many files and folders (one per 4 KiB of the budget, at least this many). */
#define WORK_INODES_MIN 16384LL
#define SHM_BYTES (64LL << 20)
/* After a kill, how long bwrap may take to reap the tool's namespace before it is killed too. */
#define KILL_GRACE_MS 1000

/* Child-side fds: 0 stdin, 1 stdout, 2 stderr, 3 reply, 4 request, 5 bwrap status, 6 font cache. */
enum { FD_REPLY = 3, FD_REQUEST = 4, FD_STATUS = 5, FD_FONTS = 6, FD_FIRST_FREE = 7 };

/* What the forked child reports on its socket: a step that failed (with errno), or a fact. */
enum {
    SB_REPORT_WORK = 0,  /* the work tmpfs, its descriptor attached */
    SB_FAIL_DESCRIPTORS = 1, SB_FAIL_RLIMITS, SB_FAIL_USER, SB_FAIL_CHDIR, SB_FAIL_EXEC,
    SB_FAIL_BINDS, SB_FAIL_NAMESPACES, SB_FAIL_WORK, SB_FAIL_FILTER,
    SB_REPORT_OUTER = 100, /* the value is bwrap's pid */
};

/*
 * What the forked child does (sandbox_child.c), all prepared by the parent: after fork only
 * async-signal-safe calls happen. holder false: the program itself is exec'd (isolation none).
 * holder true: the child is the call's holder — namespaces, the work tmpfs, the neutral binds,
 * bwrap as pid 1 of its pid namespace (docs/sandbox.md#the-holder).
 */
typedef struct sb_child_plan {
    char *const *argv;
    char *const *envp;
    int in, out, err, reply, request, status, fonts; /* become 0..6; -1: closed */
    int report;             /* SOCK_SEQPACKET; close-on-exec, so EOF means exec succeeded */
    const char *chdir_to;   /* holder false: the tool's working directory */
    struct rlimit cpu, as, fsize, nofile, nproc;
    bool no_new_privs;
    pid_t parent;
    bool holder;
    bool drop_root;         /* as root: bwrap runs as TG_SANDBOX_UID_BASE + the holder's pid */
    const char *uid_map, *gid_map; /* not root: "ID ID 1" for the holder's user namespace */
    const char *stage_dir;  /* the call directory: what follows is relative to it */
    const char *work_at, *work_opts; /* "work" and its tmpfs options */
    char *const *subdir_at; /* "work/<sub>": a tmpfs of their own */
    size_t n_subdirs;
    char *const *bind_from, *const *bind_at, *const *ovl_at, *const *ovl_opts;
    size_t n_bind;
} sb_child_plan;

_Noreturn void sb_child_run(const sb_child_plan *p);

/*
 * The system call filter of every sandboxed process (sandbox_filter.c,
 * docs/sandbox.md#system-calls): keys, POSIX message queues and System V IPC refused with EPERM.
 * sb_filter_install loads it into the calling process (the holder, before it execs bwrap; it
 * holds CAP_SYS_ADMIN in its namespace, so no no_new_privs is needed) and everything it execs
 * or forks; async-signal-safe; 0 or -1 with errno. On an architecture it does not know it loads
 * nothing and sb_filter_available says false.
 */
int sb_filter_install(void);
bool sb_filter_available(void);

/* Where bwrap takes each bind from: the staged, neutral mount of the host path (plan_binds). */
typedef struct bind_sources {
    const char *tool, *runtime, *runner;
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
    int p_out[2], p_err[2], p_reply[2], p_status[2], p_report[2];
    int request_fd, fonts_fd, null_fd;
    tg_strv argv, envp;
    bind_sources src;
    /* the holder's neutral binds (sb_child_plan) and what bwrap binds from them */
    tg_strv bind_from, bind_at, ovl_at, ovl_opts, sources, subdir_at;
    char *work_opts, *uid_map, *gid_map;
    int work_fd;      /* the work tmpfs (isolated), from the holder; -1 before */
    pid_t pid;        /* the forked child: the holder under bwrap */
    pid_t outer_pid;  /* bwrap, the holder's child (isolated) */
    bool tool_started;/* bwrap reported the tool's pid */
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

#endif
