/*
 * jsfastre.h — a small matcher for the patterns schemas use most ("^[a-z][a-z0-9_]*$",
 * "^[^@]+@[^@]+$", "\\S", "^\\d{4}-\\d{2}-\\d{2}$"): optional ^, a sequence of single-character
 * atoms with quantifiers, optional $. No groups, alternation, look-around or back-references.
 *
 * PCRE2's per-call overhead (a few hundred instructions) dominates such patterns on short
 * strings; this runs a bit-parallel NFA over at most 64 positions instead, with ECMA-262
 * u-mode semantics identical to the PCRE2 translation in jsregex.c (the unit tests compare the
 * two). Patterns outside the subset are left to PCRE2.
 */
#ifndef TG_JSFASTRE_H
#define TG_JSFASTRE_H

#include <stdbool.h>

typedef struct js_fastre js_fastre;

/* NULL when the pattern is outside the subset (or not valid ECMA-262). */
js_fastre *js_fastre_compile(const char *ecma);
/* Search semantics, like RegExp.prototype.test. */
bool js_fastre_search(const js_fastre *re, const char *s);
void js_fastre_free(js_fastre *re);

#endif
