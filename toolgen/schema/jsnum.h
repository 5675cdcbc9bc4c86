/*
 * jsnum.h — exact arithmetic on JSON numbers, and JSON value equality.
 *
 * cJSON keeps numbers as doubles, which cannot tell 1e400 from infinity, 0.1 from
 * 0.1000000000000000055 or 18446744073709551615 from 18446744073709551616. The validator's
 * number nodes carry their source literal in `valuestring` (see json.h); these helpers compute on
 * that literal as an exact decimal when the double alone could be wrong.
 */
#ifndef TG_JSNUM_H
#define TG_JSNUM_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* An exact decimal: value = (neg ? -1 : 1) * 0.d1d2...dn * 10^exp, digits without leading or
 * trailing zeros. Zero has nd == 0. */
typedef struct js_dec {
    bool neg;
    const char *dig;
    size_t nd;
    long exp;
    char inl[64]; /* digits live here unless the literal is long */
    char *heap;
} js_dec;

/* Parses a JSON number literal. false when text is not one (d is then zero, nothing to free). */
bool js_dec_parse(js_dec *d, const char *text);
void js_dec_free(js_dec *d);
int js_dec_cmp(const js_dec *a, const js_dec *b);
bool js_dec_is_integer(const js_dec *d);
/* 1: x is an integer multiple of m, 0: it is not, -1: m has too many digits to decide exactly. */
int js_dec_multiple_of(const js_dec *x, const js_dec *m);

/*
 * The literal of a number node: its `valuestring` when set, else the shortest text that reads
 * back as the same double (written into buf).
 */
const char *js_num_text(const cJSON *n, char buf[40]);
/* Mathematical integer test (1.0 and 1e2 are integers; 1e400 too, by its literal). */
bool js_num_is_integer(const cJSON *n);
/* Exact comparison of two number nodes: <0, 0, >0. */
int js_num_cmp(const cJSON *a, const cJSON *b);
/* a is a multiple of b (b > 0), exactly for decimal literals. */
bool js_num_multiple_of(const cJSON *a, const cJSON *b);
/* JSON data model equality: 1 == 1.0, object member order does not matter. */
bool js_json_equal(const cJSON *a, const cJSON *b);
/* A hash consistent with js_json_equal (equal values hash equal). */
unsigned long long js_json_hash(const cJSON *v);

#endif
