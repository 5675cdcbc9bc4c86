/* fuzz_json.c — libFuzzer harness: the JSON parser (base/json.h) on any bytes, with and without
 * positions. Whatever it accepts must print, and what it prints must parse again and print the
 * same text: the reader and the writer agree on every document. (The text, not cJSON_Compare,
 * is compared: numbers keep their literal — 4e424 stays 4e424 — and cJSON cannot compare the
 * infinities such literals read as.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tg_err err = {0};
    cJSON *v = tg_json_parse((const char *)data, size, NULL, NULL, NULL, &err);
    if (v) {
        char *text = tg_json_print_compact(v);
        tg_err again = {0};
        cJSON *w = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &again);
        char *text2 = w ? tg_json_print_compact(w) : NULL;
        if (!text2 || strcmp(text, text2) != 0)
            abort(); /* printed JSON that does not read back as the same document */
        free(text2);
        cJSON_Delete(w);
        free(text);
        cJSON_Delete(v);
    }
    tg_doc doc;
    if (tg_doc_parse_json((const char *)data, size, "fuzz.json", NULL, &doc, &err) == 0)
        tg_doc_free(&doc);
    return 0;
}
