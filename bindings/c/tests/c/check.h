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

#endif
