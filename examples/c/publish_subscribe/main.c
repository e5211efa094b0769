/* publish_subscribe in C: a velocity command (nerve's standard CmdVel, shared with Rust and
 * Python nodes) published 10 times and received, on shared memory.
 *   cmake -S examples/c/publish_subscribe -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
 *   cmake --build build && ./build/publish_subscribe */
#include <stdint.h>
#include <stdio.h>
#include "nerve/msgs.h" /* nerve's standard messages, laid out as the Rust types */

typedef nerve_msgs_CmdVel CmdVel;

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, nerve_last_error());
    return 1;
}

int main(void) {
    nerve_type cmd_vel;
    if (nerve_msgs_CmdVel_type(&cmd_vel) != NERVE_OK) return fail("CmdVel");
    nerve_topic_options options = nerve_topic_options_default();
    options.reliability = NERVE_RELIABLE;
    nerve_topic *topic;
    if (nerve_topic_open("robot/cmd_vel", &cmd_vel, &options, &topic) != NERVE_OK)
        return fail("open robot/cmd_vel");
    nerve_publisher *pub;
    nerve_subscriber *sub;
    if (nerve_publisher_open(topic, &pub) != NERVE_OK) return fail("publisher");
    if (nerve_subscriber_open(topic, 0, &sub) != NERVE_OK) return fail("subscriber");

    for (int i = 0; i < 10; i++) {
        CmdVel cmd = {.stamp_ns = (uint64_t)i, .linear = 0.1f * (float)i, .angular = 0.0f};
        if (nerve_publish(pub, (const uint8_t *)&cmd, sizeof cmd) != NERVE_OK) return fail("publish");
        CmdVel got;
        size_t len;
        if (nerve_recv(sub, 1000000000, (uint8_t *)&got, sizeof got, &len) != NERVE_OK)
            return fail("receive");
        printf("cmd_vel %llu: linear %.1f m/s\n", (unsigned long long)got.stamp_ns, got.linear);
    }
    nerve_subscriber_close(sub);
    nerve_publisher_close(pub);
    nerve_topic_close(topic);
    return 0;
}
