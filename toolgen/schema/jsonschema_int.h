/*
 * jsonschema_int.h — the compiled form shared by the schema compiler (jsonschema.c) and the
 * validator (jsonschema_validate.c). Not a public header.
 *
 * A compiled schema is a graph of js_node, one per schema object or boolean reached from the
 * root (through subschema keywords, $ref and $dynamicRef targets). Every $ref is resolved to its
 * node at compile time; only $dynamicRef may pick its target at validation time, from the dynamic
 * scope. Nodes, their arrays and tables live in one arena freed with the schema.
 */
#ifndef TG_JSONSCHEMA_INT_H
#define TG_JSONSCHEMA_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "schema/jsonschema.h"
#include "schema/jsregex.h"

#define JS_MAX_ERRORS 100    /* errors collected by one js_validate call */
#define JS_MAX_EVAL_DEPTH 2000 /* nested schema evaluations (instance depth × $ref hops) */
#define JS_MD_SLOTS 4        /* match-data blocks kept per schema for concurrent validations */

/*
 * Instance types, as a bit set for "type". X(ID, name) in bit order: the one list behind the
 * JT_* bits and js_type_names, so the names "type" accepts (compiler) and prints (validator)
 * cannot drift from the bits.
 */
#define JS_TYPES(X)                                                                         \
    X(NULL, "null") X(BOOLEAN, "boolean") X(OBJECT, "object") X(ARRAY, "array")             \
    X(NUMBER, "number") X(STRING, "string") X(INTEGER, "integer")

#define JS_TYPE_POS(id, name) JT_POS_##id,
#define JS_TYPE_BIT(id, name) JT_##id = 1 << JT_POS_##id,
enum { JS_TYPES(JS_TYPE_POS) JT_COUNT };
enum { JS_TYPES(JS_TYPE_BIT) };
#undef JS_TYPE_POS
#undef JS_TYPE_BIT

/* js_type_names[i] names the type of bit 1 << i (jsonschema.c). */
extern const char *const js_type_names[JT_COUNT];

/*
 * Vocabularies in force for a schema resource (from its meta-schema's $vocabulary). X(ID, name)
 * in bit order: the JV_* bits and the vocabularies' URIs,
 * https://json-schema.org/draft/2020-12/vocab/<name>, which the compiler recognises.
 */
#define JS_VOCABS(X)                                                                        \
    X(CORE, "core") X(APPLICATOR, "applicator") X(UNEVALUATED, "unevaluated")               \
    X(VALIDATION, "validation") X(METADATA, "meta-data")                                    \
    X(FORMAT_ANNOTATION, "format-annotation") X(FORMAT_ASSERTION, "format-assertion")       \
    X(CONTENT, "content")

#define JS_VOCAB_POS(id, name) JV_POS_##id,
#define JS_VOCAB_BIT(id, name) JV_##id = 1 << JV_POS_##id,
enum { JS_VOCABS(JS_VOCAB_POS) JV_COUNT };
enum {
    JS_VOCABS(JS_VOCAB_BIT)
    JV_DEFAULT = JV_CORE | JV_APPLICATOR | JV_UNEVALUATED | JV_VALIDATION | JV_METADATA |
                 JV_FORMAT_ANNOTATION | JV_CONTENT,
};
#undef JS_VOCAB_POS
#undef JS_VOCAB_BIT

typedef struct js_node js_node;
typedef struct js_res js_res;

typedef struct js_anchor {
    const char *name;
    const cJSON *src;
    js_node *node; /* dynamic anchors only: compiled after the main pass */
    bool dynamic;
} js_anchor;

/* A schema resource: a document root or a subschema with "$id". */
struct js_res {
    char *uri;              /* absolute, without fragment (heap) */
    const cJSON *root;
    js_res *parent;         /* enclosing resource (for the inherited dialect), NULL at a root */
    const char *schema_uri; /* "$schema" of this resource, NULL when absent */
    js_anchor *anchors;
    size_t nanchors, capanchors;
    unsigned vocab;         /* JV_* bits, valid when vocab_done */
    bool vocab_done, legacy; /* legacy: draft 2019-09 or older ("items" arrays, no prefixItems) */
};

/* One entry of a node's property-name table (properties + required names). */
typedef struct js_name {
    const char *name;
    char first;      /* name[0], kept here so most mismatches cost no pointer chase */
    size_t len;
    uint32_t hash;
    js_node *schema; /* from "properties", NULL for required-only names */
    int req;         /* index in required[], -1 when not required */
    uint64_t req_bit; /* 1 << req for the first 64 required names, else 0 */
} js_name;

typedef struct js_pprop {
    const char *src;   /* the ECMA-262 pattern */
    js_re *re;
    js_node *schema;
} js_pprop;

typedef struct js_dep {
    const char *name;
    const char *kw;         /* "dependentRequired", "dependentSchemas" or "dependencies" */
    const char **req;
    size_t nreq;
    js_node *schema;
} js_dep;

/*
 * Guards on one anyOf/oneOf branch (see jsoptimize.c): members the branch requires of an object
 * instance and, when str is set, the string "const" such a member must equal. An object instance
 * that fails a guard fails the branch, so the branch is not evaluated. Guards only skip work:
 * verdicts, annotations and error reports are those of evaluating every branch.
 */
typedef struct js_guard {
    const char *str;  /* the pinned string, NULL = the member only has to be present */
    int slot;         /* index in js_dispatch.names; -1 ends the branch's guards */
} js_guard;

#define JS_BRANCH_GUARDS 4  /* guards kept per branch */
#define JS_DISPATCH_NAMES 8 /* distinct member names one anyOf/oneOf guards on */

#define JS_FLAT_MEMBERS 32 /* object members the flat branch evaluation handles */

typedef struct js_dispatch {
    const char *names[JS_DISPATCH_NAMES]; /* [0, nnames): guarded; [nnames, nall): names of
                                           * flat branches only */
    int nnames, nall;
    size_t lens[JS_DISPATCH_NAMES];       /* strlen(names[i]) */
    uint64_t firsts, lanes;          /* byte i = names[i][0], 0x80 in byte i: one pass over the
                                      * instance's members finds every name (see find_name) */
    js_guard (*g)[JS_BRANCH_GUARDS]; /* one row per branch */
    uint8_t *need;                   /* per branch: bit i = names[i] must be present */
    bool *pins;                      /* per branch: some guard pins a string */
    /* Flat branches (jsoptimize.c): a branch whose schema is a plain object schema with every
     * property name among names[] is evaluated from the pass that found the names, without a
     * name lookup of its own. flat[b] is that schema (NULL: evaluated as usual), map[b][i] its
     * entry for names[i] (NULL when it has none). */
    const js_node **flat;
    const js_name *(*map)[JS_DISPATCH_NAMES];
} js_dispatch;

enum { JS_OBJ_SCHEMA = 0, JS_TRUE = 1, JS_FALSE = 2 };

/* Keyword groups present, so validation can skip whole groups with one test. */
enum {
    JK_NUM = 1,    /* multipleOf, maximum, ... */
    JK_STR = 2,    /* minLength, maxLength, pattern, asserted format */
    JK_ARR = 4,    /* prefixItems, items, contains, minItems, ... */
    JK_OBJ = 8,    /* properties, required, ... */
    JK_INPLACE = 16, /* $ref, $dynamicRef, allOf, anyOf, oneOf, not, if */
    JK_CONST = 32,   /* const, enum */
    JK_UNEVAL = 64,  /* unevaluatedProperties, unevaluatedItems */
};

struct js_node {
    const cJSON *src;
    js_res *res;
    uint8_t kind;      /* JS_OBJ_SCHEMA, JS_TRUE, JS_FALSE; JS_TRUE also for an object
                        * schema that asserts nothing (jsoptimize.c) */
    uint8_t types;     /* JT_* set; 0 = no "type" */
    uint8_t groups;    /* JK_* */
    bool type_only;    /* nothing to check but "type": validated without a call; with ann set
                        * (an object schema whose only other keyword is a true
                        * additionalProperties, jsoptimize.c) only where no annotations are
                        * collected */
    bool may_loop;     /* on a cycle of in-place applicators: $ref hops check for loops */
    bool ann;          /* may add evaluated-property/item annotations to its instance */
    bool uneval;       /* has unevaluatedProperties or unevaluatedItems */
    uint32_t idx;      /* position in the compile order, for graph passes */

    const cJSON *const_, *enum_;
    const char *const_str; /* const_'s string (jsoptimize.c), compared inline; NULL otherwise */
    bool const_only;       /* nothing to check but a string const (and "type" allowing strings):
                            * a matching string passes without a call (jsoptimize.c) */

    /* numbers: the schema's number nodes (compared exactly, see jsnum.h) */
    const cJSON *multiple_of, *maximum, *exclusive_maximum, *minimum, *exclusive_minimum;

    /* strings */
    long long min_length, max_length; /* -1 = absent */
    const char *pattern_src;
    js_re *pattern;
    int format;           /* JS_FMT_*, asserted only when format_assert */
    const char *format_name;
    bool format_assert;

    /* arrays */
    js_node **prefix;
    size_t nprefix;
    js_node *items, *contains, *uitems;
    long long min_items, max_items, min_contains, max_contains;
    const char *items_kw; /* "items", or "additionalItems" for legacy array-form items */
    const char *prefix_kw; /* "prefixItems", or "items" for legacy array-form items */
    bool unique;

    /* objects */
    js_name *names;
    size_t nnames;
    uint32_t *table;      /* open addressing over names (index + 1), NULL for small tables */
    uint32_t table_mask;
    uint64_t name_filter;  /* bit js_name_bit() of every name: most misses stop here */
    uint64_t firsts;       /* small tables: byte i = names[i].first (jsoptimize.c) */
    uint64_t lanes;        /* small tables: 0x80 in byte i for each name i */
    const char **required;
    size_t nrequired;
    js_pprop *pprops;
    size_t npprops;
    js_node *addl, *uprops, *pnames;
    js_dep *deps;
    size_t ndeps;
    long long min_props, max_props;

    /* in-place applicators */
    js_node *ref;
    js_node *dynref;          /* static target of $dynamicRef */
    const char *dynref_name;  /* set when the static target has a matching $dynamicAnchor */
    js_node **all_of, **any_of, **one_of;
    size_t nall_of, nany_of, none_of;
    js_node *not_, *if_, *then_, *else_;
    js_node *fast_to;      /* a bare "$ref" node: its target, evaluated in its place when no
                            * errors are collected (jsoptimize.c); NULL otherwise */
    uint8_t any_types;     /* anyOf of type-only branches: the union of their types, else 0 */
    bool any_only;         /* anyOf is the only in-place applicator: no v_inplace round */
    js_dispatch *any_disp, *one_disp; /* branch guards (jsoptimize.c), NULL when none help */
};

typedef struct js_md_slot {
    atomic_int busy;
    pcre2_match_data *md;
} js_md_slot;

struct js_schema {
    tg_arena arena;
    cJSON **docs; /* owned copies of every document the schema uses */
    size_t ndocs, capdocs;
    js_res **res;
    size_t nres, capres;
    js_node *root;
    js_re **codes;
    size_t ncodes, capcodes;
    bool has_regex;   /* some pattern needs PCRE2 (and so match data) at validation time */
    bool has_dynamic;
    const js_node *root_any; /* the root, past its bare $ref, when it is nothing but an anyOf
                              * and the schema has no $dynamicRef (jsoptimize.c): fast mode
                              * goes to the branches directly; NULL otherwise */
    js_md_slot md_pool[JS_MD_SLOTS];
};

/*
 * Compile-time rewrites that make validation cheaper without changing any verdict, annotation
 * or error (jsoptimize.c): inline string consts, folded type-only anyOf, branch guards for
 * anyOf/oneOf, bare $ref nodes skipped to their targets. Runs once over every compiled node, after the loop analysis (may_loop).
 */
void js_optimize(js_schema *s, js_node **all, size_t nall);

/* A 1-in-64 signature of a name from its first two bytes, for js_node.name_filter. */
static inline uint64_t js_name_bit(const char *s)
{
    unsigned h = (unsigned char)s[0] * 31u + (s[0] ? (unsigned char)s[1] : 0u);
    return 1ULL << (h & 63);
}

/*
 * Hash of a property name for js_node.table, from its length and three of its bytes: no loop
 * over the name, which the lookup reads once more anyway to compare. Names that collide just
 * share a probe sequence.
 */
static inline uint32_t js_name_hash(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    uint32_t h = (uint32_t)n * 0x9E3779B1u;
    h ^= (unsigned char)s[0] | (unsigned)(unsigned char)s[n / 2] << 8 |
         (unsigned)(unsigned char)s[n - 1] << 16;
    h *= 0x85EBCA77u;
    return h ^ (h >> 15);
}

#endif
