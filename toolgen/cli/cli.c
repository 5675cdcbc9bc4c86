/* cli.c — helpers shared by the commands. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("toolgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_print_usage(const char *usage, int code)
{
    fputs(usage, code == TG_EXIT_OK ? stdout : stderr);
    return code;
}
