/* dlib.c — a shared library loaded on first use (dlib.h). */
#define _GNU_SOURCE
#include "base/dlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int tg_dl_load(const char *soname, const tg_dl_sym *syms, size_t n, char *why, size_t why_size)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, why_size, "%s", e ? e : soname);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(lib, syms[i].name);
        if (!f) {
            snprintf(why, why_size, "%s has no %s", soname, syms[i].name);
            return -1;
        }
        memcpy(syms[i].to, &f, sizeof f); /* POSIX: a function's (or variable's) address */
    }
    return 0;
}
