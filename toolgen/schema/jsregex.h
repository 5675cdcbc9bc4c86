/*
 * jsregex.h — ECMA-262 regular expressions (as JSON Schema's "pattern" uses them) on PCRE2.
 *
 * Patterns get Unicode ("u" flag) semantics: they match code points, \p{...} works, \d \w \b
 * stay ASCII-only, \s is the ECMAScript whitespace set, "." excludes the four ECMAScript line
 * terminators and "$" matches only at the very end. See docs/jsonschema.md for the translation.
 */
#ifndef TG_JSREGEX_H
#define TG_JSREGEX_H

#include <stdbool.h>
#include <stddef.h>

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

/*
 * Translates an ECMA-262 pattern into PCRE2 syntax (heap string). strict: the exact u-mode
 * grammar (used by format "regex"); otherwise harmless Annex-B leniencies that real schemas
 * rely on are accepted: "\-" or "\@" outside classes, a lone "{" or "}" as a literal.
 * NULL on a syntax error, with a message in errbuf.
 */
char *js_regex_translate(const char *ecma, bool strict, char *errbuf, size_t errlen);
/* Translates and compiles (JIT when available). NULL with a message in errbuf on error. */
pcre2_code *js_regex_compile(const char *ecma, char *errbuf, size_t errlen);
/* Search (not anchored) for re in s. md is a match data block of any size (1 is enough). */
bool js_regex_search(const pcre2_code *re, const char *s, pcre2_match_data *md);
/* Whether s is a valid ECMA-262 pattern (format "regex"). Allocates; not for hot paths. */
bool js_regex_valid(const char *s);

/*
 * A pattern as the validator keeps it: always compiled by PCRE2 (which also checks the syntax),
 * plus the jsfastre matcher when the pattern is simple enough for it.
 */
typedef struct js_re {
    pcre2_code *code;
    struct js_fastre *fast; /* NULL: PCRE2 only */
} js_re;

js_re *js_re_compile(const char *ecma, char *errbuf, size_t errlen);
/* md is only used (and may only be NULL) when re->fast is NULL. */
bool js_re_search(const js_re *re, const char *s, pcre2_match_data *md);
void js_re_free(js_re *re);

#endif
