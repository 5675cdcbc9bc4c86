/*
 * dlib.h — a shared library loaded when first needed (dlopen) rather than linked, with the
 * symbols its one user calls (net/curlload, serve/mhdload, base/html;
 * docs/architecture.md): every start of toolgen would otherwise pay the dynamic loader for it.
 */
#ifndef TG_BASE_DLIB_H
#define TG_BASE_DLIB_H

#include <stddef.h>

/* One symbol: its name, and where in the caller's table its address goes. */
typedef struct tg_dl_sym {
    const char *name;
    void *to; /* a function pointer (or, for a variable, a pointer to it) of the caller's */
} tg_dl_sym;

/* Opens soname (never closed) and stores each symbol's address; 0, or -1 with why (soname
 * missing, or a symbol it lacks) in why. Not thread-safe: call it under the caller's
 * pthread_once. */
int tg_dl_load(const char *soname, const tg_dl_sym *syms, size_t n, char *why, size_t why_size);

#endif
