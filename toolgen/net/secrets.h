/*
 * secrets.h — finding what looks like a credential in text that is about to leave the machine
 * (a snippet sent to a hosted model, docs/code-edit.md#privacy).
 *
 * Recognised: private-key blocks (-----BEGIN ... PRIVATE KEY----- to its END line), tokens with
 * a provider's well-known prefix (sk-, sk_live_, ghp_, github_pat_, xoxb-, AKIA, AIza, glpat-,
 * hf_, ...), JSON Web Tokens, passwords in URLs (scheme://user:pw@), and string values assigned
 * to a name that says secret (password, secret, token, api_key, access_key, private_key, ...).
 * Each is replaced by the marker TG_SECRET_MARK; the text around it is left as it was, so the
 * code still reads. It is a heuristic, the same class of check as a secret scanner: it errs
 * toward redacting a literal that only looks like a key.
 */
#ifndef TG_SECRETS_H
#define TG_SECRETS_H

#define TG_SECRET_MARK "[REDACTED]"

/* A copy of text with every secret found replaced (heap); *found: how many (may be NULL). */
char *tg_secrets_redact(const char *text, int *found);

#endif
