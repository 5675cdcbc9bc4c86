/* gitinit.c — libgit2 started without its CA bundle (gitinit.h). */
#include "lifecycle/gitinit.h"

#include <git2.h>

struct mbedtls_x509_crt;

/* mbedTLS's own names and signatures (libmbedx509): libgit2 calls these while it starts. */
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);
int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain, const char *path);

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path)
{
    (void)chain;
    (void)path;
    return 0;
}

int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain, const char *path)
{
    (void)chain;
    (void)path;
    return 0;
}

void tg_libgit2_start(void)
{
    git_libgit2_init();
    /* libgit2 hashes every object it reads again to compare it with its id, which git itself
     * only does in fsck: a third of the object-reading cost of a diff between two commits
     * (docs/benchmarks.md). Objects toolgen writes are still hashed as they are made. */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}
