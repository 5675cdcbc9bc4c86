/*
 * builtin_resolve.c — the vocabulary of an intent: which words name a column, which name a
 * value of a column, which are grammar, and which are unknown
 * (docs/generate.md#how-column-names-are-resolved).
 *
 * A column is named by its header in any case, with spaces, '_' or '-' between its words, in
 * the plural, without a trailing unit ("bill length" → bill_length_mm), by a close spelling
 * (edit distance 1, or 2 for long names, when only one column is that close), or by a word for
 * what its values are ("weekday" → a column holding Thur/Fri/Sat/Sun). A value of a text
 * column is named as in the file (any case), a weekday or month also by its full name
 * ("Sunday" → Sun). Words are resolved longest match first.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strvec.h"
#include "gen/builtin_int.h"

static const char *const keywords[] = {
    "by", "per", "each", "every", "across", "grouped", "group", "groups", "broken", "down",
    "split", "where", "with", "whose", "when", "if", "only", "among", "for", "on", "in", "within",
    "excluding", "except", "without", "not", "over", "above", "greater", "more", "higher",
    "larger", "exceeds", "exceeding", "exceed", "least", "under", "below", "less", "lower",
    "smaller", "fewer", "fewest", "most", "than", "between", "equal", "equals", "is", "are", "was", "were",
    "missing", "null", "nan", "na", "empty", "unknown", "blank", "present", "known",
    "non-missing", "nonmissing", "available", "sum", "total", "totals", "average", "averages",
    "avg", "mean", "means", "median", "medians", "min", "minimum", "lowest", "smallest", "max",
    "maximum", "highest", "largest", "biggest", "greatest", "std", "stdev", "standard",
    "deviation", "variability", "count", "counts", "number", "many", "distinct", "unique",
    "nunique", "top", "bottom", "first", "rank", "ranking", "ranked", "sort", "sorted", "order",
    "ordered", "descending", "ascending", "decreasing", "increasing", "desc", "asc", "share",
    "shares", "percentage", "percentages", "percent", "proportion", "proportions", "fraction",
    "distribution", "frequency", "frequencies", "breakdown", "often", "summary", "summarize",
    "summarise", "describe", "statistics", "stats", "overview", "descriptive", "correlation",
    "correlations", "correlate", "correlated", "corr", "relationship", "related", "pearson",
    "spearman", "matrix", "coefficient", "moving", "rolling", "window", "daily", "weekly",
    "monthly", "quarterly", "yearly", "annual", "annually", "resample", "resampled", "period",
    "day", "days", "week", "weeks", "month", "months", "quarter", "quarters", "year", "years",
    "merge", "merged", "join", "joined", "combine", "combined", "key", "pivot", "report",
    "outlier", "outliers", "anomaly", "anomalies", "unusual", "extreme", "iqr", "z-score",
    "zscore", "z", "score", "scores", "chart", "charts", "plot", "plots", "graph", "draw",
    "visualize", "visualise", "bar", "bars", "line", "scatter", "scatterplot", "histogram",
    "histograms", "hist", "heatmap", "heat", "map", "pie", "vs", "versus", "against", "time",
    "trend", "bins", "value", "values", "and", "or", "then", "to", "from", "no", "has", "have",
    "row", "rows", "column", "columns", "it", "how", "which", "what", "as", "of", "non", "since",
    "until", "through", "during", "rate", "rates", "ratio", "before", "after", "older", "younger",
    "heavier", "lighter", "longer", "shorter", "taller", "cheaper", "costlier", "bigger", "second",
    "third", "fourth", "fifth", "last", NULL};

static const char *const fillers[] = {
    "the", "a", "an", "me", "show", "give", "list", "find", "get", "compute", "calculate",
    "tell", "display", "return", "who", "do", "does", "did", "i", "we", "want", "need",
    "please", "can", "could", "would", "you", "its", "this", "that", "these", "those", "all",
    "data", "dataset", "table", "file", "csv", "had", "there", "their", "them", "be", "been",
    "so", "also", "just", "much", "into", "using", "use", "method", "based", "make", "create",
    "build", "generate", "produce", "tool", "out", "up", "see", "look", "at", "overall",
    "entire", "whole", "whats", "some", "any", "give", "across", "respectively", "together",
    "being", "like", "should", "will", "our", "my", "your", "kind", "type", "level", "levels",
    "category", "categories", "field", "fields", "variable", "variables", "numeric",
    "numerical", "measure", "measures", "metric", "metrics", "amount", "amounts", "size",
    "frame", "spreadsheet", "sheet", "stat", "info", "information", "done", "typical",
    "rule", "files", "both", "other", "two", "together", "approach", "ever", "recorded",
    "collected", "given", "left", "flew", "travelled", "traveled", "paid", "single", "methods",
    "types", "kinds", "board", "onboard", "aboard", "people", "made", "built", "manufactured",
    "gets", "got", "receives", "received", "compare", "compared", "comparing", "gave", "gives",
    NULL};

static const char *const row_nouns[] = {
    "row", "rows", "record", "records", "entry", "entries", "observation", "observations",
    "item", "items", "line", "lines", "case", "cases", "people", "persons", "person",
    "passengers", "passenger", "customers", "customer", "visits", "trips", "trip", "rides",
    "ride", "flowers", "flower", "penguins", "penguin", "cars", "car", "samples", "sample",
    "transactions", "orders", "bills", "bill", "parties", "states", "countries", "times",
    "occurrences", "datapoints", "points", "things", "tables", "months", "ones", "vehicles",
    "engines", "models", "cabs", "taxis", "tickets", NULL};

bool bt_is_keyword(const char *w)
{
    return tg_strlist_has(keywords, w);
}

bool bt_is_filler(const char *w)
{
    return tg_strlist_has(fillers, w);
}

bool bt_is_row_noun(const char *w)
{
    return tg_strlist_has(row_nouns, w);
}

static char *fold(const char *w);

bool bt_is_one_row_noun(const char *w)
{
    if (!bt_is_row_noun(w) || strcmp(w, "people") == 0)
        return false;
    char *one = fold(w);
    bool same = strcmp(one, w) == 0;
    free(one);
    return same;
}

/* The singular of a plural English word (a heap string): -ies → -y, -ses/-xes/-ches/-shes
 * drop -es, else one trailing -s (not -ss). Other words are returned as they are. */
static char *fold(const char *w)
{
    size_t n = strlen(w);
    char *s = xstrdup(w);
    if (n > 4 && strcmp(w + n - 3, "ies") == 0)
        strcpy(s + n - 3, "y");
    else if (n > 4 && (tg_str_endswith(w, "ses") || tg_str_endswith(w, "xes") ||
                       tg_str_endswith(w, "ches") || tg_str_endswith(w, "shes")))
        s[n - 2] = 0;
    else if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
        s[n - 1] = 0;
    return s;
}

bool bt_word_eq(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    char *fa = fold(a), *fb = fold(b);
    bool eq = strcmp(fa, fb) == 0;
    free(fa);
    free(fb);
    return eq;
}

/* The letters and digits of s, lowercased: "Spending_USD" → "spendingusd". */
static char *squash(const char *s, size_t max_words, bool drop_units)
{
    tg_strv words = {0};
    tg_strv_push_words(&words, s);
    size_t n = words.n < max_words ? words.n : max_words;
    /* a trailing unit: bill_length_mm, body_mass_g, Spending_USD */
    while (drop_units && n > 1 && strlen(words.v[n - 1]) <= 3 && isalpha((unsigned char)words.v[n - 1][0]))
        n--;
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        tg_buf_puts(&b, words.v[i]);
    tg_strv_free(&words);
    return tg_buf_steal(&b);
}

/* Does key (squashed words of the intent) name column name? */
static bool names_column(const char *key, const char *name)
{
    char *full = squash(name, 64, false), *bare = squash(name, 64, true);
    bool hit = *key && (bt_word_eq(key, full) || bt_word_eq(key, bare));
    free(full);
    free(bare);
    return hit;
}


/* Is level one of list, in full or abbreviated to at least 3 letters ("Thur", "Sun", "Jan")? */
static bool level_in(const char *level, const char *const *list)
{
    size_t n = strlen(level);
    if (n < 3)
        return false;
    for (size_t i = 0; list[i]; i++)
        if (strncasecmp(list[i], level, n) == 0)
            return true;
    return false;
}

static bool all_levels_in(const tg_dataset_column *c, const char *const *list)
{
    if (c->type != TG_COL_STRING || c->nlevels == 0)
        return false;
    for (size_t i = 0; i < c->nlevels; i++)
        if (!level_in(c->levels[i], list))
            return false;
    return true;
}

/* Is every one of the n strings v one of list, compared without case? false for none. */
static bool all_exactly_in(char *const *v, size_t n, const char *const *list)
{
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = 0; list[k] && !found; k++)
            found = strcasecmp(list[k], v[i]) == 0;
        if (!found)
            return false;
    }
    return n > 0;
}

/* Is every level of c one of list, compared without case ("Male" → male)? */
static bool all_levels_exactly_in(const tg_dataset_column *c, const char *const *list)
{
    return c->type == TG_COL_STRING && all_exactly_in(c->levels, c->nlevels, list);
}

/* The US states and DC by postal code and by name, the five inhabited territories by code
 * (and the two most often named, by name). */
static const char *const us_states[] = {
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ",
    "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT",
    "VA", "WA", "WV", "WI", "WY", "DC", "PR", "GU", "VI", "AS", "MP", "Alabama", "Alaska",
    "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky",
    "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi",
    "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico",
    "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania",
    "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont",
    "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
    "Puerto Rico", "Guam", NULL};
#define US_STATES_MAX 56 /* distinct values a column of states can have */

/* A column of US states ("state" → abbrev holding AL, AK, ...): every value, or with more
 * values than a profile keeps, every sample, is a state's code or name. */
static bool holds_states(const tg_dataset_column *c)
{
    if (c->type != TG_COL_STRING || c->distinct > US_STATES_MAX)
        return false;
    return c->nlevels ? all_exactly_in(c->levels, c->nlevels, us_states)
                      : all_exactly_in(c->samples, c->nsamples, us_states);
}

/* A word for what a column holds: "weekday" → the column of weekday names. -1 when none. */
static int concept_column(const char *w, const tg_dataset *ds)
{
    static const char *const genders[] = {"male", "female", "man", "woman", "m", "f", NULL};
    const char *const *list = NULL;
    if (bt_word_eq(w, "weekday") || bt_word_eq(w, "dow"))
        list = bt_weekdays;
    else if (bt_word_eq(w, "month"))
        list = bt_months;
    else if (bt_word_eq(w, "gender"))
        list = genders;
    else if (strcmp(w, "state") == 0) /* "states" counts rows: "how many states ..." */
        list = us_states;
    if (!list)
        return -1;
    for (size_t i = 0; i < ds->ncols; i++) {
        const tg_dataset_column *c = &ds->cols[i];
        bool all = list == us_states ? holds_states(c)
                   : list == genders ? all_levels_exactly_in(c, list)
                                     : all_levels_in(c, list);
        if (all)
            return (int)i;
    }
    return -1;
}

/* The column of ds named by key, or -1. */
static int column_named(const char *key, const tg_dataset *ds)
{
    for (size_t i = 0; i < ds->ncols; i++)
        if (names_column(key, ds->cols[i].name))
            return (int)i;
    return -1;
}

/* The intent's words i..i+k squashed into one key ("total bill" → "totalbill"); NULL when one
 * of them is not a word. */
static char *ngram_key(const bt_toks *t, size_t i, size_t k)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t j = i; j < i + k; j++) {
        if (j >= t->n || t->v[j].kind != BT_WORD) {
            tg_buf_free(&b);
            return NULL;
        }
        char *s = squash(t->v[j].text, 64, false);
        tg_buf_puts(&b, s);
        free(s);
    }
    return tg_buf_steal(&b);
}

static const char *const agg_words[] = {"sum", "total", "totals", "mean", "average", "avg",
                                        "median", "min", "max", "count", "number", NULL};

/* "percentage who survived", "those who did not survive": a relative pronoun, even in a file
 * with a column named who. */
static bool pronoun(const bt_toks *t, size_t i)
{
    static const char *const pronouns[] = {"who", "which", "that", "what", NULL};
    static const char *const verbs[] = {"did", "do", "does", "was", "were", "is", "are", "has",
                                        "have", "had", "not", "never", NULL};
    if (!tg_strlist_has(pronouns, t->v[i].text) || i == 0 || i + 1 >= t->n ||
        t->v[i + 1].kind != BT_WORD)
        return false;
    const char *next = t->v[i + 1].text;
    return tg_strlist_has(verbs, next) || (!bt_is_keyword(next) && !bt_is_filler(next));
}

/* Longest run of words i..i+k naming a column of one of the datasets: sets *ds_out, *col_out.
 * A run starting with an aggregate word ("total bill") is flagged in x, and skipped when x
 * reads such words as aggregates. */
static size_t match_column(const bt_toks *t, size_t i, bt_ctx *x, int *ds_out, int *col_out)
{
    const tg_dataset *ds = x->ds;
    if (pronoun(t, i))
        return 0;
    for (size_t k = 4; k >= 1; k--) {
        char *key = ngram_key(t, i, k);
        if (!key)
            continue;
        bool agg_first = tg_strlist_has(agg_words, t->v[i].text);
        if (agg_first && k > 1 && x->split_aggregates) {
            free(key);
            continue;
        }
        for (size_t d = 0; d < x->nds; d++) {
            int c = column_named(key, &ds[d]);
            /* "total fare": a column called total is still the aggregate when a column follows */
            if (c >= 0 && k == 1 && agg_first && i + 1 < t->n && t->v[i + 1].kind == BT_WORD) {
                char *next = ngram_key(t, i + 1, 1);
                bool col_follows = column_named(next, &ds[d]) >= 0;
                free(next);
                if (col_follows)
                    c = -1;
            }
            if (c >= 0) {
                free(key);
                x->merged_aggregate = x->merged_aggregate || (agg_first && k > 1);
                *ds_out = (int)d;
                *col_out = c;
                return k;
            }
        }
        free(key);
    }
    return 0;
}

/* A unique column within a small edit distance of word, or -1. */
static int close_column(const char *word, const tg_dataset *ds)
{
    size_t n = strlen(word);
    if (n < 4)
        return -1;
    size_t limit = n >= 8 ? 2 : 1, best = 99;
    int found = -1, ties = 0;
    char *w = squash(word, 64, false);
    for (size_t i = 0; i < ds->ncols; i++) {
        char *full = squash(ds->cols[i].name, 64, false), *bare = squash(ds->cols[i].name, 64, true);
        size_t d = tg_edit_distance(w, full), e = tg_edit_distance(w, bare);
        if (e < d)
            d = e;
        free(full);
        free(bare);
        if (d < best) {
            best = d;
            found = (int)i;
            ties = 0;
        } else if (d == best) {
            ties++;
        }
    }
    free(w);
    return best <= limit && ties == 0 ? found : -1;
}

/* A misspelt operation word ("avrage", "corelation"): the keyword, or NULL. */
const char *bt_close_keyword(const char *w)
{
    static const char *const words[] = {"average", "median", "maximum", "minimum", "correlation",
                                        "histogram", "percentage", "distribution", "summary",
                                        "outliers", "statistics", "deviation", "frequency",
                                        "scatter", "moving", "rolling", "missing", "number",
                                        "count", "total", "highest", "lowest", "between", NULL};
    if (strlen(w) < 5)
        return NULL;
    for (size_t i = 0; words[i]; i++)
        if (bt_damerau(w, words[i]) == 1)
            return words[i];
    return NULL;
}

static bool is_dataset_stem(const char *w, const tg_dataset *ds, size_t nds)
{
    for (size_t d = 0; d < nds; d++) {
        const char *base = strrchr(ds[d].path ? ds[d].path : "", '/');
        base = base ? base + 1 : (ds[d].path ? ds[d].path : "");
        size_t n = strcspn(base, ".");
        if (n && strlen(w) == n && strncasecmp(base, w, n) == 0)
            return true;
    }
    return false;
}

/* Is the row noun at i counted ("number of bills", "how many passengers", "count the bills")? */
static bool counted(const bt_toks *t, size_t i)
{
    static const char *const count_words[] = {"number", "many", "count", "counts", "most",
                                              "fewest", "least", NULL};
    while (i > 0 && (bt_is_filler(t->v[i - 1].text) || strcmp(t->v[i - 1].text, "of") == 0))
        i--;
    return i > 0 && t->v[i - 1].kind == BT_WORD && tg_strlist_has(count_words, t->v[i - 1].text);
}

/* In the reading that takes aggregate words as aggregates: "total bill" at i, the aggregate
 * then the rest of the words that named the column (k, the column), or 0. */
static size_t aggregate_then_column(const bt_toks *t, size_t i, bt_ctx *x, int *d, int *c)
{
    if (!tg_strlist_has(agg_words, t->v[i].text))
        return 0;
    x->split_aggregates = false;
    size_t k = match_column(t, i, x, d, c);
    x->split_aggregates = true;
    return k > 1 ? k : 0;
}

/* The value of a number word ("six", "twenty-five", "dozen"); false when w is none. "one" is
 * not read as a number: it is a pronoun far more often ("which one"). */
static bool number_word(const char *w, double *out)
{
    static const char *const units[] = {"", "one", "two", "three", "four", "five", "six",
                                        "seven", "eight", "nine", "ten", "eleven", "twelve",
                                        "thirteen", "fourteen", "fifteen", "sixteen",
                                        "seventeen", "eighteen", "nineteen", NULL};
    static const char *const tens[] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty",
                                       "seventy", "eighty", "ninety", NULL};
    if (strcmp(w, "dozen") == 0 || strcmp(w, "hundred") == 0 || strcmp(w, "thousand") == 0 ||
        strcmp(w, "million") == 0) {
        *out = w[0] == 'd' ? 12 : w[0] == 'h' ? 100 : w[0] == 't' ? 1000 : 1e6;
        return true;
    }
    const char *dash = strchr(w, '-');
    size_t head = dash ? (size_t)(dash - w) : strlen(w);
    for (int t = 2; tens[t]; t++)
        if (strlen(tens[t]) == head && strncmp(w, tens[t], head) == 0) {
            if (!dash) {
                *out = 10 * t;
                return true;
            }
            for (int u = 1; u < 10; u++)
                if (strcmp(dash + 1, units[u]) == 0) {
                    *out = 10 * t + u;
                    return true;
                }
            return false;
        }
    for (int u = 2; units[u]; u++)
        if (strcmp(w, units[u]) == 0) {
            *out = u;
            return true;
        }
    return false;
}

/*
 * A number written as words becomes a number token: "six or more", "the three biggest",
 * "six thousand", "twenty five", "a dozen". Not "the two files" or "two columns" (parts of
 * the request it counts), and not a word a column or value of the data already took. 0: w is no
 * number; 1: token i is one now; 2: it was merged into the number before it (i - 1).
 */
static int number_from_word(bt_toks *t, size_t i)
{
    double v;
    bt_tok *tok = &t->v[i];
    if (!number_word(tok->text, &v))
        return 0;
    static const char *const parts[] = {"column", "columns", "file", "files", "dataset",
                                        "datasets", "variable", "variables", "field", "fields",
                                        "table", "tables", "sheets", NULL};
    if (strcmp(tok->text, "two") == 0 && i > 0 &&
        (strcmp(t->v[i - 1].text, "the") == 0 || strcmp(t->v[i - 1].text, "these") == 0 ||
         strcmp(t->v[i - 1].text, "those") == 0))
        return 0;
    if (i + 1 < t->n && t->v[i + 1].kind == BT_WORD && tg_strlist_has(parts, t->v[i + 1].text))
        return 0; /* "two columns", "two files": parts of the request, counted */
    bt_tok *prev = i > 0 ? &t->v[i - 1] : NULL;
    bool spelled = prev && prev->kind == BT_NUM && isalpha((unsigned char)prev->raw[0]);
    if (spelled && v >= 100 && prev->num < v) { /* "six thousand" */
        v *= prev->num;
    } else if (spelled && v < 10 && prev->num >= 20 && prev->num < 100 &&
               (int)prev->num % 10 == 0) { /* "twenty five" */
        v += prev->num;
    } else {
        spelled = false;
    }
    if (spelled) {
        bt_merge_tokens(t, i - 1, 2, BT_NUM, -1, -1, "");
        i--;
    }
    tok = &t->v[i];
    free(tok->text);
    tok->text = xasprintf("%g", v);
    tok->kind = BT_NUM;
    tok->num = v;
    return spelled ? 2 : 1;
}

void bt_resolve(bt_toks *t, bt_ctx *x)
{
    const tg_dataset *ds = x->ds;
    size_t nds = x->nds;
    bt_rewrite(t, x);
    for (size_t i = 0; i < t->n; i++) {
        bt_tok *tok = &t->v[i];
        if (tok->kind != BT_WORD)
            continue;
        int d = -1, c = -1;
        const char *level = NULL;
        size_t k;
        if ((k = match_column(t, i, x, &d, &c)) > 0) {
            bt_merge_tokens(t, i, k, BT_COL, d, c, ds[d].cols[c].name);
        } else if ((k = bt_match_value(t, i, x, &d, &c, &level)) > 0) {
            bt_merge_tokens(t, i, k, BT_VAL, d, c, level);
        } else if ((c = concept_column(tok->text, &ds[0])) >= 0) {
            bt_merge_tokens(t, i, 1, BT_COL, 0, c, ds[0].cols[c].name);
        } else if (x->split_aggregates && (k = aggregate_then_column(t, i, x, &d, &c)) > 0) {
            bt_merge_tokens(t, i + 1, k - 1, BT_COL, d, c, ds[d].cols[c].name);
        } else if (bt_is_row_noun(tok->text) && !counted(t, i) &&
                   (k = bt_loose_column(t, i, x, &d, &c)) > 0) {
            bt_merge_tokens(t, i, k, BT_COL, d, c, ds[d].cols[c].name); /* "bill and tip" */
        } else if ((k = (size_t)number_from_word(t, i)) > 0) {
            i -= k == 2; /* merged into the number before: the next token is at i now */
        } else if (bt_is_keyword(tok->text) || bt_is_filler(tok->text) ||
                   bt_is_row_noun(tok->text) || is_dataset_stem(tok->text, ds, nds)) {
            continue;
        } else if ((k = bt_loose_column(t, i, x, &d, &c)) > 0) {
            bt_merge_tokens(t, i, k, BT_COL, d, c, ds[d].cols[c].name);
        } else {
            for (size_t dd = 0; dd < nds && c < 0; dd++)
                if ((c = close_column(tok->text, &ds[dd])) >= 0)
                    d = (int)dd;
            const char *kw = bt_close_keyword(tok->text);
            if (c >= 0) {
                bt_merge_tokens(t, i, 1, BT_COL, d, c, ds[d].cols[c].name);
            } else if (kw) {
                free(tok->text);
                tok->text = xstrdup(kw);
            } else {
                tok->unknown = true;
            }
        }
    }
}
