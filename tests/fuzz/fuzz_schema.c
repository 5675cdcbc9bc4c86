/* fuzz_schema.c — libFuzzer harness: the JSON Schema 2020-12 compiler and validator
 * (schema/jsonschema.h). The input is a schema, a NUL byte and an instance: the compiler must
 * compile the schema or refuse it with an error, and a compiled schema must validate the
 * instance — valid, or errors with their places — without crashing, leaking or hanging. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "schema/jsonschema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t slen = nul ? (size_t)(nul - text) : size;
    tg_err err = {0};
    cJSON *schema = tg_json_parse(text, slen, NULL, NULL, NULL, &err);
    if (!schema)
        return 0;
    js_registry *reg = js_registry_new();
    js_options opt = {.format_assert = slen % 2 == 1}; /* both modes of "format" */
    js_schema *s = js_compile(reg, schema, &opt, &err);
    if (s && nul) {
        cJSON *instance = tg_json_parse(nul + 1, size - slen - 1, NULL, NULL, NULL, &err);
        if (instance) {
            js_errors errs = {0};
            bool valid = js_validate(s, instance, &errs);
            if (valid != (errs.n == 0))
                abort(); /* the verdict and the error list disagree */
            js_errors_free(&errs);
            cJSON_Delete(instance);
        }
    }
    js_schema_free(s);
    js_registry_free(reg);
    cJSON_Delete(schema);
    return 0;
}
