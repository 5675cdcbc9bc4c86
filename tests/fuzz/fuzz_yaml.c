/* fuzz_yaml.c — libFuzzer harness: the YAML loader (base/doc.h, tg_doc_parse_yaml) on any bytes.
 * It must return a document or an error — never crash, leak or run past its limits — and a
 * document it returns is positioned (every node has a place in the text). */
#include <stdint.h>
#include <stdlib.h>

#include "base/doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tg_doc doc;
    tg_err err = {0};
    if (tg_doc_parse_yaml((const char *)data, size, "fuzz.yaml", NULL, &doc, &err) == 0) {
        tg_pos p = tg_doc_pos(&doc, doc.root);
        if (doc.root && p.line < 0)
            abort();
        tg_doc_free(&doc);
    }
    return 0;
}
