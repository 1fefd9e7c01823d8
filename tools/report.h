/* Error reporting for the rdx tool: every failure is one line on stderr,
 * "rdx <command>: <what went wrong>". */
#ifndef RDX_TOOL_REPORT_H
#define RDX_TOOL_REPORT_H

/* Names the command running ("sort", "gen", ...) for the prefix of messages. */
void tool_set_command(const char *name);
const char *tool_command(void);

/* Prints "rdx <command>: <message>\n" to stderr. */
void tool_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
