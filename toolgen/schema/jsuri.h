/*
 * jsuri.h — RFC 3986 URI references for the schema validator: splitting, reference resolution
 * (base + "$ref" → absolute URI), fragment handling, and the syntax checks behind the
 * uri / uri-reference / iri / iri-reference formats.
 */
#ifndef TG_JSURI_H
#define TG_JSURI_H

#include <stdbool.h>
#include <stddef.h>

typedef struct js_uri {
    const char *scheme, *auth, *path, *query, *frag; /* NULL when the component is absent */
    size_t scheme_len, auth_len, path_len, query_len, frag_len;
} js_uri;

/* Splits per RFC 3986 appendix B (never fails; components point into s). */
void js_uri_split(const char *s, js_uri *u);
/* RFC 3986 §5.2 reference resolution. Heap string. */
char *js_uri_resolve(const char *base, const char *ref);
/* The URI without its fragment (heap), and a pointer to the fragment text after '#' (or NULL). */
char *js_uri_strip_fragment(const char *uri, const char **frag);
/* Percent-decodes s (heap). Returns NULL when an escape is malformed. */
char *js_uri_pct_decode(const char *s);

enum { JS_URI_ABSOLUTE = 1, JS_URI_IRI = 2 };
/*
 * Syntax check of a URI (flags & JS_URI_ABSOLUTE) or URI reference, as IRI when flags & JS_URI_IRI
 * (non-ASCII characters allowed where RFC 3987 allows them).
 */
bool js_uri_check(const char *s, int flags);

/* IPv4 dotted quad, no leading zeros. */
bool js_ipv4_check(const char *s, size_t n);
/* IPv6 text form (RFC 4291 §2.2), embedded IPv4 allowed; no zone, no brackets. */
bool js_ipv6_check(const char *s, size_t n);

#endif
