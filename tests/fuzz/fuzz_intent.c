/* fuzz_intent.c — libFuzzer harness: the built-in generator's intent lexer (gen/builtin_lex.c)
 * on any text: tokens or an error, never a crash, an overread or a leak; every token has text. */
#include <stdint.h>
#include <stdlib.h>

#include "gen/builtin_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *intent = xstrndup((const char *)data, size);
    bt_toks toks = {0};
    tg_err err = {0};
    if (bt_lex(intent, &toks, &err) == 0)
        for (size_t i = 0; i < toks.n; i++)
            if (toks.v[i].kind == BT_WORD && !toks.v[i].text)
                abort();
    bt_toks_free(&toks);
    free(intent);
    return 0;
}
