/* A progress line on stderr for work that takes longer than a second, shown only when
 * stderr is a terminal. A background thread draws it, so that it also moves during one
 * long library call (where only the elapsed time is known). */
#ifndef RDX_TOOL_PROGRESS_H
#define RDX_TOOL_PROGRESS_H

/* Starts (or restarts) timing a piece of work named by the label, printf-style. The line
 * appears once the work has run for TOOL_PROGRESS_DELAY_S. */
void tool_progress_start(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The share done, 0..1, or a negative value for "unknown" (only the time is shown). */
void tool_progress_set(double fraction);
/* Ends the work and erases the line. */
void tool_progress_stop(void);
/* Erases the line for now (before other output); it is drawn again on the next tick. */
void tool_progress_clear(void);

#endif
