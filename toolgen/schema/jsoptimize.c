/*
 * jsoptimize.c — compile-time rewrites of the compiled schema graph that make validation
 * cheaper and change nothing else (docs/jsonschema.md, "Performance").
 *
 * - An object schema that asserts nothing ({} or only annotations) becomes a true schema, so
 *   "additionalProperties": {} costs nothing per member; one that asserts only "type" besides
 *   such an additionalProperties is type-only where no annotations are collected.
 * - A string "const" keeps its string in the node, so the validator compares it inline; a node
 *   that checks nothing else passes a matching string without a call.
 * - Name tables of up to 8 names keep their first bytes in one word, compared at once.
 * - An anyOf whose branches all check nothing but "type" folds to the union of their types:
 *   an instance of one of them passes without evaluating a branch (others take the usual path,
 *   which also writes the error report).
 * - anyOf/oneOf branches get guards: members the branch requires (through its own "required",
 *   its $ref and allOf chain) and the string "const" its "properties" pin them to. An object
 *   instance without such a member, or with another string there, would fail the branch, so the
 *   branch is skipped. For the MCP schema's request union (twenty branches that each pin
 *   "method") this turns twenty evaluations into one. Guards are only built when the schema has
 *   no cycle of in-place applicators (no node may_loop): a skipped branch must not be one whose
 *   evaluation would have reported a reference loop.
 * - Guards are checked from one pass over the instance's members that finds every guarded
 *   name at once (first bytes compared in one word, as for name tables).
 * - A node whose only in-place applicator is anyOf goes to it directly; a root that is nothing
 *   but an anyOf (a message union) is entered at its branches.
 * - A node that only says "$ref" hands over to its target when no errors are collected
 *   (errors name the "$ref" hop in their keyword location, so error mode keeps it).
 *
 * Error mode re-evaluates every branch of a failing anyOf/oneOf (jsonschema_validate.c), so
 * error reports and locations are those of the unoptimised graph.
 */
#include <string.h>

#include "schema/jsonschema_int.h"

#define MAX_FACTS 16 /* required members looked at per branch */
#define MAX_WALK 16  /* $ref/allOf hops followed per branch */

/* A member a branch requires of object instances, with the string its schema pins it to. */
typedef struct fact {
    const char *name;
    const char *str;
} fact;

typedef struct facts {
    fact v[MAX_FACTS];
    size_t n;
} facts;

static const char *const_string(const js_node *n)
{
    return n && n->kind == JS_OBJ_SCHEMA && n->const_ && cJSON_IsString(n->const_)
               ? n->const_->valuestring
               : NULL;
}

static void add_fact(facts *f, const char *name, const char *str)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].name, name) == 0) {
            if (!f->v[i].str)
                f->v[i].str = str;
            return;
        }
    if (f->n < MAX_FACTS)
        f->v[f->n++] = (fact){name, str};
}

/* Everything n and the schemas always applied with it ($ref, static $dynamicRef, allOf) require. */
static void collect(const js_node *n, facts *f, int *budget)
{
    if (n->kind != JS_OBJ_SCHEMA || --*budget < 0)
        return;
    for (size_t i = 0; i < n->nrequired; i++) {
        const char *str = NULL;
        for (size_t k = 0; k < n->nnames; k++)
            if (strcmp(n->names[k].name, n->required[i]) == 0)
                str = const_string(n->names[k].schema);
        add_fact(f, n->required[i], str);
    }
    if (n->ref)
        collect(n->ref, f, budget);
    if (n->dynref && !n->dynref_name)
        collect(n->dynref, f, budget);
    for (size_t i = 0; i < n->nall_of; i++)
        collect(n->all_of[i], f, budget);
}

static const fact *find_fact(const facts *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].name, name) == 0)
            return &f->v[i];
    return NULL;
}

/* How many of the other branches an instance passing fact x of branch b could still fail. */
static size_t exclusions(const facts *all, size_t nb, size_t b, const fact *x)
{
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        if (i == b)
            continue;
        const fact *y = find_fact(&all[i], x->name);
        n += !y || (x->str && y->str && strcmp(x->str, y->str) != 0);
    }
    return n;
}

static int name_slot(js_dispatch *d, const char *name)
{
    for (int i = 0; i < d->nnames; i++)
        if (strcmp(d->names[i], name) == 0)
            return i;
    if (d->nnames == JS_DISPATCH_NAMES)
        return -1;
    d->names[d->nnames] = name;
    return d->nnames++;
}

/* Guards of branch b: its facts that tell it apart from some other branch, best first. */
static size_t guard_branch(js_dispatch *d, const facts *all, size_t nb, size_t b)
{
    size_t score[MAX_FACTS], kept = 0;
    for (size_t i = 0; i < all[b].n; i++)
        score[i] = exclusions(all, nb, b, &all[b].v[i]);
    while (kept < JS_BRANCH_GUARDS) {
        size_t best = MAX_FACTS;
        for (size_t i = 0; i < all[b].n; i++)
            if (score[i] && (best == MAX_FACTS || score[i] > score[best]))
                best = i;
        if (best == MAX_FACTS)
            break;
        score[best] = 0;
        int slot = name_slot(d, all[b].v[best].name);
        if (slot < 0)
            continue;
        d->g[b][kept++] = (js_guard){all[b].v[best].str, slot};
    }
    for (size_t k = kept; k < JS_BRANCH_GUARDS; k++)
        d->g[b][k] = (js_guard){NULL, -1};
    return kept;
}

/*
 * A branch that can be evaluated from the guards' pass over the members (jsonschema_validate.c,
 * v_flat_branch): in fast mode its bare $ref hops are skipped, and what is left is an object
 * schema with a small name table and nothing else but "type" and additionalProperties. Not in
 * a schema with $dynamicRef: the branch's resource would be left out of the dynamic scope.
 */
static const js_node *flat_target(const js_schema *s, const js_node *b)
{
    const js_node *t = b->fast_to ? b->fast_to : b;
    if (s->has_dynamic || t->kind != JS_OBJ_SCHEMA || t->groups != JK_OBJ || t->uneval ||
        t->may_loop || b->may_loop || (t->types && !(t->types & JT_OBJECT)) || t->table ||
        t->nnames > JS_DISPATCH_NAMES || t->npprops || t->pnames || t->ndeps ||
        t->min_props >= 0 || t->max_props >= 0 || t->nrequired > 64)
        return NULL;
    return t;
}

/* Adds the names of each flat-able branch to d->names while they fit, and maps them. */
static void flatten_branches(js_schema *s, js_dispatch *d, js_node *const *br, size_t nb)
{
    d->flat = tg_arena_alloc(&s->arena, nb * sizeof *d->flat);
    d->map = tg_arena_alloc(&s->arena, nb * sizeof *d->map);
    memset(d->flat, 0, nb * sizeof *d->flat);
    memset(d->map, 0, nb * sizeof *d->map);
    for (size_t b = 0; b < nb; b++) {
        const js_node *t = flat_target(s, br[b]);
        if (!t)
            continue;
        int slot[JS_DISPATCH_NAMES], nall = d->nall;
        bool fits = true;
        for (size_t k = 0; k < t->nnames && fits; k++) {
            slot[k] = -1;
            for (int i = 0; i < nall && slot[k] < 0; i++)
                if (strcmp(d->names[i], t->names[k].name) == 0)
                    slot[k] = i;
            if (slot[k] < 0 && nall < JS_DISPATCH_NAMES) {
                d->names[nall] = t->names[k].name;
                slot[k] = nall++;
            }
            fits = slot[k] >= 0;
        }
        if (!fits)
            continue;
        d->nall = nall;
        d->flat[b] = t;
        for (size_t k = 0; k < t->nnames; k++)
            d->map[b][slot[k]] = &t->names[k];
    }
}

static js_dispatch *build_dispatch(js_schema *s, js_node *const *br, size_t nb)
{
    if (nb < 2)
        return NULL;
    facts *all = xcalloc(nb, sizeof *all);
    for (size_t i = 0; i < nb; i++) {
        int budget = MAX_WALK;
        collect(br[i], &all[i], &budget);
    }
    js_dispatch *d = tg_arena_alloc(&s->arena, sizeof *d);
    memset(d, 0, sizeof *d);
    d->g = tg_arena_alloc(&s->arena, nb * sizeof *d->g);
    d->need = tg_arena_alloc(&s->arena, nb * sizeof *d->need);
    d->pins = tg_arena_alloc(&s->arena, nb * sizeof *d->pins);
    size_t guarded = 0;
    for (size_t i = 0; i < nb; i++) {
        guarded += guard_branch(d, all, nb, i) > 0;
        for (int k = 0; k < JS_BRANCH_GUARDS && d->g[i][k].slot >= 0; k++) {
            d->need[i] |= (uint8_t)(1u << d->g[i][k].slot);
            d->pins[i] |= d->g[i][k].str != NULL;
        }
    }
    free(all);
    if (!guarded)
        return NULL;
    d->nall = d->nnames;
    flatten_branches(s, d, br, nb);
    for (int k = 0; k < d->nall; k++) {
        d->lens[k] = strlen(d->names[k]);
        d->firsts |= (uint64_t)(unsigned char)d->names[k][0] << (8 * k);
        d->lanes |= 0x80ULL << (8 * k);
    }
    return d;
}

/*
 * An object schema whose only keyword besides "type" is a true additionalProperties (the MCP
 * schema's "params": {"type": "object", "additionalProperties": {}}) checks nothing but the
 * type; it still marks every member evaluated, so it is type-only only where no annotations
 * are collected (v_node).
 */
static bool type_and_annotations(const js_node *n)
{
    return n->kind == JS_OBJ_SCHEMA && n->types && n->groups == JK_OBJ && n->addl &&
           n->addl->kind == JS_TRUE && !n->nnames && !n->npprops && !n->pnames &&
           !n->nrequired && n->min_props < 0 && n->max_props < 0 && !n->ndeps && !n->uneval;
}

static uint8_t folded_types(js_node *const *br, size_t nb)
{
    unsigned t = 0;
    for (size_t i = 0; i < nb; i++) {
        if (br[i]->kind != JS_OBJ_SCHEMA || !br[i]->type_only || br[i]->ann)
            return 0;
        t |= br[i]->types;
    }
    return (uint8_t)t;
}

/* A node whose only assertion is "$ref" (annotations such as "description" aside). */
static bool bare_ref(const js_node *n)
{
    return n->kind == JS_OBJ_SCHEMA && n->ref && n->groups == JK_INPLACE && !n->types &&
           !n->dynref && !n->nall_of && !n->nany_of && !n->none_of && !n->not_ && !n->if_ &&
           !n->then_ && !n->else_ && !n->uneval && !n->ndeps;
}

/*
 * Bare "$ref" nodes hand over to their target in fast mode: one evaluation instead of two.
 * Not when the hop could matter: a node or target on an in-place cycle (the loop check counts
 * hops), or, with $dynamicRef in the schema, when skipping the node would leave its resource
 * out of the dynamic scope: it must share its target's resource, or be reached only from its
 * parent in the same resource (no resource root, no $ref target).
 */
static void skip_bare_refs(js_schema *s, js_node **all, size_t nall)
{
    bool *target = xcalloc(nall ? nall : 1, sizeof *target);
    for (size_t i = 0; i < nall; i++) {
        if (all[i]->ref)
            target[all[i]->ref->idx] = true;
        if (all[i]->dynref)
            target[all[i]->dynref->idx] = true;
    }
    for (size_t r = 0; r < s->nres; r++)
        for (size_t k = 0; k < s->res[r]->nanchors; k++)
            if (s->res[r]->anchors[k].node)
                target[s->res[r]->anchors[k].node->idx] = true;
    for (size_t i = 0; i < nall; i++) {
        js_node *n = all[i];
        if (!bare_ref(n) || n->may_loop || n->ref->may_loop)
            continue;
        bool scope_safe = !s->has_dynamic || n->ref->res == n->res ||
                          (!target[n->idx] && n->res->root != n->src);
        if (scope_safe)
            n->fast_to = n->ref;
    }
    /* chains: each hop was checked on its own, so the end of the chain stands for all */
    for (size_t i = 0; i < nall; i++)
        for (int hops = 0; all[i]->fast_to && all[i]->fast_to->fast_to && hops < 64; hops++)
            all[i]->fast_to = all[i]->fast_to->fast_to;
    free(target);
}

void js_optimize(js_schema *s, js_node **all, size_t nall)
{
    bool loops = false;
    for (size_t i = 0; i < nall; i++) {
        js_node *n = all[i];
        loops |= n->may_loop;
        /* asserts nothing (no keyword group, no "type"): passes everything, like true */
        if (n->kind == JS_OBJ_SCHEMA && !n->groups && !n->types && !n->uneval && !n->ann)
            n->kind = JS_TRUE;
    }
    skip_bare_refs(s, all, nall);
    for (size_t i = 0; i < nall; i++) /* before folded_types reads it */
        if (type_and_annotations(all[i]))
            all[i]->type_only = true;
    for (size_t i = 0; i < nall; i++) {
        js_node *n = all[i];
        if (n->kind != JS_OBJ_SCHEMA)
            continue;
        n->any_only = n->nany_of && !n->ref && !n->dynref && !n->nall_of && !n->none_of &&
                      !n->not_ && !n->if_;
        n->const_str = const_string(n);
        n->const_only = n->const_str && n->groups == JK_CONST && !n->enum_ && !n->uneval &&
                        (!n->types || (n->types & JT_STRING));
        if (!n->table)
            for (size_t k = 0; k < n->nnames && k < 8; k++) {
                n->firsts |= (uint64_t)(unsigned char)n->names[k].first << (8 * k);
                n->lanes |= 0x80ULL << (8 * k);
            }
        if (n->nany_of)
            n->any_types = folded_types(n->any_of, n->nany_of);
        if (loops)
            continue;
        if (n->nany_of && !n->any_types)
            n->any_disp = build_dispatch(s, n->any_of, n->nany_of);
        if (n->none_of)
            n->one_disp = build_dispatch(s, n->one_of, n->none_of);
    }
    const js_node *r = s->root->fast_to ? s->root->fast_to : s->root;
    if (r->kind == JS_OBJ_SCHEMA && r->any_only && r->groups == JK_INPLACE && !r->types &&
        !r->uneval && !s->has_dynamic)
        s->root_any = r;
}
