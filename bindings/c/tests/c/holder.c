/* A C node that takes samples of `test_c/held` and never releases them: it prints "got" for
 * each, "holding" once it holds HOLD of them, then waits to be killed (kill -9 by the test). */
#include <stdint.h>
#include <unistd.h>
#include "check.h"

enum { HOLD = 12 };

static const nerve_type BLOB = {
    .name = "test_c/Blob",
    .kind = NERVE_KIND_CHUNKED,
    .size = 8,
    .align = 8,
    .elem_size = 1,
    .layout_hash = 0xb10b000000000008ull,
};

int main(void) {
    nerve_topic_options options = nerve_topic_options_default();
    options.depth = 4;
    options.max_message_bytes = 1u << 20;
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open("test_c/held", &BLOB, &options, &topic), NERVE_OK);
    nerve_subscriber *sub = NULL;
    EXPECT(nerve_subscriber_open(topic, 0, &sub), NERVE_OK);
    printf("subscribed\n");
    fflush(stdout);
    nerve_sample held[HOLD];
    for (int i = 0; i < HOLD; i++) {
        EXPECT(nerve_recv_sample(sub, 10000000000ll, &held[i]), NERVE_OK);
        printf("got\n");
        fflush(stdout);
    }
    printf("holding\n");
    fflush(stdout);
    for (;;) {
        pause();
    }
}
