/*
 * cmdrunner.h — the runner of a pool worker for commands, in C (docs/sandbox.md#commands-in-the-pool).
 *
 * A `command` tool's call execs a program; its pool worker needs no interpreter, only a pid 1
 * that forks one child per call, prepares it (descriptors, folder, links, rlimits, Landlock) and
 * execs the call's program, then kills what the call left and empties /tmp and /dev/shm.
 * runner_warm.py can do this too, at a few milliseconds of Python per call (and a fork of an
 * interpreter); this runner is toolgen's own executable started inside the worker's sandbox
 * with TG_CMDRUNNER_FLAG, mounted read-only at TG_CMDRUNNER_PATH, and speaks the same protocol
 * with run/warm.c (runner_warm.py's docstring has it) on fd 4:
 *
 *   runner -> toolgen  {"ready": true, "preloaded": false, "reuse": bool} at the start and,
 *                      when it keeps calls apart (Landlock ABI >= 3: "reuse"), after each call
 *   toolgen -> runner  the call's message with its four descriptors (stdout, stderr, reply
 *                      pipe, request memfd whose JSON holds exec_argv, exec_env, exec_cwd)
 *   runner -> toolgen  {"status", "utime", "stime", "maxrss"} once the call's child ended
 *   toolgen -> runner  {"kill": true}: kill the call now (stale after its end: ignored)
 *
 * A call behaves as in runner_warm.py's worker (tests/unit/test_warmpool.c runs both against a
 * cold call). What the C runner does not do: load tools (it serves commands only).
 */
#ifndef TG_CMDRUNNER_H
#define TG_CMDRUNNER_H

#include <stdbool.h>

#define TG_CMDRUNNER_FLAG "--command-runner"
/* Where a command worker's sandbox mounts the runner's executable. */
#define TG_CMDRUNNER_PATH "/.toolgen-runner"

/*
 * Called first by a program's main with its arguments. With exactly [program, TG_CMDRUNNER_FLAG]
 * it serves as the runner on fd 4 until toolgen closes the socket, then sets *rc to the exit
 * status and returns true; otherwise it records that this program's executable can serve as
 * the runner (tg_cmdrunner_exe) and returns false. Not thread-safe: call it before threads.
 */
bool tg_cmdrunner_main(int argc, char **argv, int *rc);

/*
 * The host path of the executable to start command workers with: this program's, when its main
 * called tg_cmdrunner_main and (as root, whose sandboxes run as another user) others may read
 * and execute it; NULL otherwise, and command workers use runner_warm.py. Static storage; any
 * thread may ask once tg_cmdrunner_main has run.
 */
const char *tg_cmdrunner_exe(void);

#endif
