/*
 * sandbox_filter.c — the system calls no sandboxed process may make (sb_filter_install in
 * sandbox_int.h; docs/sandbox.md#system-calls). The kernel objects they make — keys and
 * keyrings, POSIX message queues, System V shared memory, semaphores and message queues —
 * outlive the process that made them and belong to the sandbox's namespaces, not to a call: in
 * a pool worker that serves several calls (docs/sandbox.md#the-warm-pool) one call could leave
 * one for the next to read. Refusing them (EPERM, as Docker's and Flatpak's profiles do for
 * keys) closes those channels for every call, cold or warm, so both behave alike.
 *
 * Runs in the forked holder, between fork and exec: no allocation, async-signal-safe only.
 */
#define _GNU_SOURCE
#include "run/sandbox_int.h"

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define FILTER_ARCH AUDIT_ARCH_RISCV64
#endif

bool sb_filter_available(void)
{
#ifdef FILTER_ARCH
    return true;
#else
    return false;
#endif
}

#ifdef FILTER_ARCH
static const unsigned denied[] = {
    SYS_add_key, SYS_keyctl, SYS_request_key, SYS_mq_open, SYS_shmget, SYS_semget, SYS_msgget,
};
#define N_DENIED (sizeof denied / sizeof *denied)
#endif

int sb_filter_install(void)
{
#ifdef FILTER_ARCH
    enum { HEAD = 5, MAX = HEAD + N_DENIED + 2 };
    struct sock_filter f[MAX];
    size_t n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, arch));
    /* another architecture's calls (int 0x80 on x86-64) have other numbers: refuse them all */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    /* the x32 ABI's numbers (bit 30 set) would name the same calls again */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u,
                                          (unsigned char)(N_DENIED + 1), 0);
#else
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
#endif
    for (size_t i = 0; i < N_DENIED; i++)
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied[i],
                                              (unsigned char)(N_DENIED - i), 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
    return 0;
#endif
}
