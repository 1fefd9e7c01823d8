/* Error reporting (see report.h). */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>

#include "progress.h"

static const char *command_name = NULL;

void tool_set_command(const char *name) { command_name = name; }

const char *tool_command(void) { return command_name ? command_name : ""; }

void tool_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tool_progress_clear();   /* never print over a progress line */
    if (command_name)
        fprintf(stderr, "rdx %s: %s\n", command_name, msg);
    else
        fprintf(stderr, "rdx: %s\n", msg);
}
