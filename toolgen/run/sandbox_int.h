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

#endif
