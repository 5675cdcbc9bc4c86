/*
 * secrets.h — finding what looks like a credential in text that is about to leave the machine
 * (a snippet sent to a hosted model, docs/code-edit.md#privacy).
 *
 * Recognised: private-key blocks (-----BEGIN ... PRIVATE KEY----- to its END line), tokens with
 * a provider's well-known prefix (sk-, sk_live_, ghp_, github_pat_, xoxb-, AKIA, AIza, glpat-,
 * hf_, ...), JSON Web Tokens, passwords in URLs (scheme://user:pw@), and string values assigned
 * to a name that says secret (password, secret, token, api_key, access_key, private_key, ...).
 * Each is replaced by a numbered marker, "[REDACTED_1]", "[REDACTED_2]", ...; the text around
 * it is left as it was, so the code still reads, and the secrets can be put back into what comes
 * back (tg_secrets_restore) where the marker was kept. It is a heuristic, the same class of check
 * as a secret scanner: it errs toward redacting a literal that only looks like a key.
 */
#ifndef TG_SECRETS_H
#define TG_SECRETS_H

#include "base/strvec.h"

#define TG_SECRET_MARK "[REDACTED_"

/* A copy of text with every secret found replaced (heap); each secret is appended to secrets,
 * and its marker numbers it by its place there (so several texts may share one list). */
char *tg_secrets_redact(const char *text, tg_strv *secrets);

/* A copy of text with every marker of secrets replaced by its secret again (heap); a marker
 * with another number is left as it is. */
char *tg_secrets_restore(const char *text, const tg_strv *secrets);

#endif
