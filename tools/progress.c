/* The progress line (see progress.h). */
#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#define TOOL_PROGRESS_DELAY_S 1.0    /* show nothing for work shorter than this */
#define TOOL_PROGRESS_TICK_NS 100000000L /* redraw every 0.1 s */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t drawer;
static int drawer_running = 0;  /* the thread exists (stderr is a terminal) */
static int active = 0;          /* a piece of work is being timed */
static int shown = 0;           /* a line is on the screen now */
static double started = 0.0;
static double fraction = -1.0;
static char label[160];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* With the lock held. */
static void erase_locked(void)
{
    if (shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        shown = 0;
    }
}

static void *draw_loop(void *arg)
{
    (void)arg;
    const struct timespec tick = {0, TOOL_PROGRESS_TICK_NS};
    for (;;) {
        nanosleep(&tick, NULL);
        pthread_mutex_lock(&lock);
        if (!drawer_running) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        double elapsed = now_s() - started;
        if (active && elapsed >= TOOL_PROGRESS_DELAY_S) {
            if (fraction >= 0.0)
                fprintf(stderr, "\r\033[Krdx %s: %s %3.0f%% %.1f s", tool_command(), label,
                        100.0 * fraction, elapsed);
            else
                fprintf(stderr, "\r\033[Krdx %s: %s %.1f s", tool_command(), label, elapsed);
            fflush(stderr);
            shown = 1;
        }
        pthread_mutex_unlock(&lock);
    }
}

static void stop_drawer(void)
{
    pthread_mutex_lock(&lock);
    int running = drawer_running;
    drawer_running = 0;
    erase_locked();
    pthread_mutex_unlock(&lock);
    if (running)
        pthread_join(drawer, NULL);
}

void tool_progress_start(const char *fmt, ...)
{
    static int checked = 0;
    if (!checked) {
        checked = 1;
        if (!isatty(STDERR_FILENO))
            return;
        drawer_running = 1;
        if (pthread_create(&drawer, NULL, draw_loop, NULL) != 0) {
            drawer_running = 0;   /* no thread: no progress line, nothing else changes */
            return;
        }
        atexit(stop_drawer);
    }
    if (!drawer_running)
        return;
    pthread_mutex_lock(&lock);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof label, fmt, ap);
    va_end(ap);
    started = now_s();
    fraction = -1.0;
    active = 1;
    pthread_mutex_unlock(&lock);
}

void tool_progress_set(double f)
{
    if (!drawer_running)
        return;
    pthread_mutex_lock(&lock);
    fraction = f > 1.0 ? 1.0 : f;
    pthread_mutex_unlock(&lock);
}

void tool_progress_stop(void)
{
    if (!drawer_running)
        return;
    pthread_mutex_lock(&lock);
    active = 0;
    erase_locked();
    pthread_mutex_unlock(&lock);
}

void tool_progress_clear(void)
{
    if (!drawer_running)
        return;
    pthread_mutex_lock(&lock);
    erase_locked();
    pthread_mutex_unlock(&lock);
}
