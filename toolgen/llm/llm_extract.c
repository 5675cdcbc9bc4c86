/* llm_extract.c — code blocks out of a model's answer (llm.h, tg_llm_code_block). */
#include "base/mdcode.h"
#include "llm/llm.h"

char *tg_llm_code_block(const char *text, const char *lang)
{
    return tg_md_code_block(text, lang, NULL, NULL);
}
