/* cmdrunner_int.h — between the command runner's loop (cmdrunner.c) and its call's child
 * (cmdrunner_call.c). */
#ifndef TG_CMDRUNNER_INT_H
#define TG_CMDRUNNER_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "run/cmdrunner.h"

/* The first Landlock ABI whose rights also cover truncate(2) of a path: a worker keeps its calls
 * apart (and serves several) from this version on. */
#define CR_LANDLOCK_ABI_NEEDED 3

/* The kernel's Landlock ABI version; 0 when it has none. */
int cr_landlock_abi(void);

/*
 * In the forked child of a call: takes the call's message msg (cwd, home, limits, tool_link,
 * links) and its descriptors fds (stdout, stderr, reply pipe, request), confines itself to cwd
 * when confined, and execs the request's program. Never returns.
 */
_Noreturn void cr_call_child(const cJSON *msg, const int fds[4], bool confined);

#endif
