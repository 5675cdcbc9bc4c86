/*
 * gitinit.h — libgit2's start, once per process, for every lifecycle module that reads or
 * writes a repository (docs/architecture.md).
 *
 * toolgen uses libgit2 for local repositories only; everything it sends over a network goes
 * through libcurl (net/). libgit2 1.5 as Debian builds it parses the whole system CA bundle
 * with mbedTLS when it starts, for HTTPS remotes toolgen never uses — half the instructions of
 * a `toolgen diff` (docs/benchmarks.md#toolgen-diff-vs-git-diff---stat-benchdiffsh). gitinit.c
 * therefore defines the two mbedTLS functions that load certificates, which the dynamic
 * linker binds libgit2 to in preference to libmbedx509's: they load nothing. Should libgit2
 * ever make a TLS connection for toolgen, it would fail verification (no trusted roots):
 * closed, never open.
 */
#ifndef TG_LIFECYCLE_GITINIT_H
#define TG_LIFECYCLE_GITINIT_H

/* git_libgit2_init, with no CA bundle parsed and objects read without hashing them again (as
 * git reads them; `git fsck` is the integrity check); safe to call any number of times. */
void tg_libgit2_start(void);

#endif
