/* main.c — entry point; the commands live in cli*.c. */
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "toolgen: under construction\n");
    return 2;
}
