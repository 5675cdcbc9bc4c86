/*
 * jsformat.h — the "format" checkers of JSON Schema 2020-12 (the public entry point is
 * js_format_check in jsonschema.h). The schema compiler resolves a format name to an id once.
 */
#ifndef TG_JSFORMAT_H
#define TG_JSFORMAT_H

#include <stdbool.h>

enum {
    JS_FMT_UNKNOWN = 0,
    JS_FMT_DATE_TIME,
    JS_FMT_DATE,
    JS_FMT_TIME,
    JS_FMT_DURATION,
    JS_FMT_EMAIL,
    JS_FMT_IDN_EMAIL,
    JS_FMT_HOSTNAME,
    JS_FMT_IDN_HOSTNAME,
    JS_FMT_IPV4,
    JS_FMT_IPV6,
    JS_FMT_URI,
    JS_FMT_URI_REFERENCE,
    JS_FMT_IRI,
    JS_FMT_IRI_REFERENCE,
    JS_FMT_URI_TEMPLATE,
    JS_FMT_UUID,
    JS_FMT_JSON_POINTER,
    JS_FMT_RELATIVE_JSON_POINTER,
    JS_FMT_REGEX,
};

/* JS_FMT_UNKNOWN for formats without a checker. */
int js_format_lookup(const char *name);
/* Unknown ids accept everything. */
bool js_format_check_id(int id, const char *value);

#endif
