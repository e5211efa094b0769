/* A tiny check macro for the C tests: prints the failed expression, the status and nerve's
 * last error, and exits 1. */
#ifndef NERVE_TEST_CHECK_H
#define NERVE_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nerve.h"

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, \
                    #cond, nerve_last_error());                                            \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* `call` returns `want`. */
#define EXPECT(call, want)                                                                  \
    do {                                                                                    \
        int got_ = (call);                                                                  \
        if (got_ != (want)) {                                                               \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d; last error: %s\n", __FILE__, \
                    __LINE__, #call, got_, (want), nerve_last_error());                     \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* The last error mentions `text`. */
#define SAYS(text) CHECK(strstr(nerve_last_error(), (text)) != NULL)

/* The file mapped at `p` in this process, or "" (from /proc/self/maps). */
static inline void mapping_of(const void *p, char *path, size_t cap) {
    path[0] = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        int off = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) >= 2 &&
            (unsigned long)p >= lo && (unsigned long)p < hi) {
            line[strcspn(line, "\n")] = 0;
            snprintf(path, cap, "%s", line + off);
            break;
        }
    }
    fclose(f);
}

#endif
