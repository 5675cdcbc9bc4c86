/*
 * redact.h — keeping secrets out of messages (docs/architecture.md).
 *
 * A URL can carry a password (https://user:pw@host/) or a token in its query (?key=...), and a
 * server can echo what it was sent (a proxy's error page quoting the Authorization header).
 * These functions make text safe to put in a tg_err; both are pure and allocate nothing.
 */
#ifndef TG_REDACT_H
#define TG_REDACT_H

#include <stddef.h>

/*
 * url as a message may show it: the userinfo becomes "***" ("***@host"), every query value
 * "***" ("?q=***&key=***"; the names stay, so the message still says which), the fragment is
 * dropped. A URL without these comes out unchanged. Writes at most n bytes to out
 * (NUL-terminated, truncated when it must be) and returns out.
 */
char *tg_url_redact(const char *url, char *out, size_t n);

/* The userinfo of url ("user:pw@" with its '@'): its length, 0 when there is none; *start is
 * set to where it would begin (just after "scheme://") either way. */
size_t tg_url_userinfo(const char *url, const char **start);

/* Replaces every occurrence of secret in text (in place) with "***". Secrets shorter than 4
 * bytes are left alone (masking "a" would mangle the text and hide nothing); NULL does
 * nothing. */
void tg_secret_mask(char *text, const char *secret);

#endif
